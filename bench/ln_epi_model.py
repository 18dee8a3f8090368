#!/usr/bin/env python3
"""bench/ln_epi_model.py: writes an ONNX model of one MatMul + bias + residual + LayerNormalization
(float32, opset 17), the shape the LayerNorm epilogue (aicf_gemm_wsln) takes, for A/B runs of
that kernel alone (docs/benchmarks.md, session 43).

    python3 bench/ln_epi_model.py M OUT.onnx [K N]

  x [M, K] and r [M, N] inputs, W [K, N], bias, Scale and B [N] constants from a fixed seed;
  y = LayerNorm(x W + bias + r) over the last axis, epsilon 1e-5. K 448, N 768 by default (the
  4-CTA cluster kernel _c4). Needs numpy and onnx.
"""
import sys

import numpy as np
import onnx
from onnx import helper, TensorProto, numpy_helper
if len(sys.argv) not in (3, 5):
    sys.exit(__doc__)
M, out = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(1)
K, N = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (448, 768)
inits = [numpy_helper.from_array(rng.uniform(-0.05, 0.05, (K, N)).astype(np.float32), "W"),
         numpy_helper.from_array(rng.uniform(-0.5, 0.5, (N,)).astype(np.float32), "bias"),
         numpy_helper.from_array(rng.uniform(0.5, 1.5, (N,)).astype(np.float32), "gamma"),
         numpy_helper.from_array(rng.uniform(-0.5, 0.5, (N,)).astype(np.float32), "beta")]
nodes = [helper.make_node("MatMul", ["x", "W"], ["m"], name="mm"),
         helper.make_node("Add", ["m", "bias"], ["h"], name="bias_add"),
         helper.make_node("Add", ["h", "r"], ["t"], name="residual"),
         helper.make_node("LayerNormalization", ["t", "gamma", "beta"], ["y"], name="ln", epsilon=1e-5)]
g = helper.make_graph(nodes, "ln_epi", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [M, K]),
                                       helper.make_tensor_value_info("r", TensorProto.FLOAT, [M, N])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [M, N])], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), out)
