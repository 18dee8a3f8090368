#!/usr/bin/env python3
"""Writes the seed inputs of the aicf fuzz targets into OUT/<target>/ (default build/fuzz-seeds).

    tests/fuzz/make_seeds.py [--data DIR] [--node DIR] [--out DIR] [--seed N]

onnx       the shared models (mnist and onnx_light as they are; the bigger ones with every
           initializer above 1 KiB replaced by ConstantOfShape, which keeps the graph and drops
           the weights), a sample of ONNX node-test models (every case whose op aicf knows, plus
           one in four of the others), and broken files: truncated, bit-flipped, a length prefix
           past the end, huge / negative / rank-9 dims, huge attribute counts, huge varints,
           raw_data shorter than dims, wrong dtype, deep recursion of nested messages.
tensor_pb  the .pb files of the shared models' test data sets (those under 64 KiB), a sample of
           node-test .pb files (every dtype), and broken TensorProtos of the same kinds.
graph      byte programs for fuzz_graph.c that build small valid graphs (MatMul, Conv, Gemm,
           pooling, Softmax, Reshape, Concat...) in its command encoding, plus a few random ones.

The committed corpora (tests/fuzz/corpus/<target>/) are these seeds merged with what fuzzing
found, minimised with libFuzzer's -merge=1 (mk/hardening.mk: make fuzz-seeds fuzz-merge)."""
import argparse, glob, hashlib, os, random, re, struct, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ap = argparse.ArgumentParser()
ap.add_argument("--data", default=os.environ.get("AICF_TEST_DATA", os.path.join(ROOT, "..", "shared", "data")))
ap.add_argument("--node", default=os.path.join(ROOT, "build", "onnx-node", "node"))
ap.add_argument("--out", default=os.path.join(ROOT, "build", "fuzz-seeds"))
ap.add_argument("--seed", type=int, default=1234)
args = ap.parse_args()
rng = random.Random(args.seed)


def put(target, data, tag):
    d = os.path.join(args.out, target)
    os.makedirs(d, exist_ok=True)
    h = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, f"{tag}-{h}"), "wb") as f:
        f.write(data)


# ---------------- protobuf wire helpers ----------------
def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wt):
    return varint((field << 3) | wt)


def fld_varint(field, v):
    return key(field, 0) + varint(v)


def fld_bytes(field, b):
    return key(field, 2) + varint(len(b)) + b


def fld_str(field, s):
    return fld_bytes(field, s.encode())


def tensorproto(name, dtype, dims, raw=None, packed_dims=False):
    out = b""
    if packed_dims:
        out += fld_bytes(1, b"".join(varint(d) for d in dims))
    else:
        out += b"".join(fld_varint(1, d) for d in dims)
    out += fld_varint(2, dtype)
    out += fld_str(8, name)
    if raw is not None:
        out += fld_bytes(9, raw)
    return out


def mutations(data, n, tag, target):
    """Truncations and bit flips of a valid file."""
    if not data:
        return
    for k in range(n):
        cut = rng.randrange(0, len(data))
        put(target, data[:cut], f"{tag}-trunc")
        b = bytearray(data)
        for _ in range(rng.randrange(1, 4)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        put(target, bytes(b), f"{tag}-flip")


# ---------------- onnx ----------------
def onnx_seeds():
    import onnx
    from onnx import helper, TensorProto, numpy_helper
    import numpy as np
    models = os.path.join(args.data, "models")
    for f in [os.path.join(models, "mnist", "model.onnx")] + sorted(glob.glob(os.path.join(models, "onnx_light", "*.onnx"))):
        # the fuzzer's -max_len for onnx is 128 KiB: bigger models (densenet121, inception_v2)
        # would only be truncated; only the small ones are mutated (corpus size)
        if os.path.exists(f) and os.path.getsize(f) <= 131072:
            data = open(f, "rb").read()
            put("onnx", data, "model-" + os.path.basename(os.path.dirname(f)) + "-" + os.path.basename(f)[:-5])
            if len(data) <= 32768:
                mutations(data, 2, "mut-" + os.path.basename(f)[:-5], "onnx")
    for name in ["mlp_policy", "encoder_tiny", "mobilenet_v3_small", "ppocr_cls", "silero_vad_op18_ifless"]:
        f = os.path.join(models, name, "model.onnx")
        if not os.path.exists(f):
            continue
        m = onnx.load(f, load_external_data=False)
        new_inits, nodes = [], []
        for init in m.graph.initializer:
            if init.ByteSize() > 1024 and init.data_type == TensorProto.FLOAT:
                shape = numpy_helper.from_array(np.array(list(init.dims), dtype=np.int64), init.name + "__shape")
                new_inits.append(shape)
                nodes.append(helper.make_node("ConstantOfShape", [shape.name], [init.name],
                                              value=helper.make_tensor("v", TensorProto.FLOAT, [1], [0.02])))
            else:
                new_inits.append(init)
        del m.graph.initializer[:]
        m.graph.initializer.extend(new_inits)
        old = list(m.graph.node)
        del m.graph.node[:]
        m.graph.node.extend(nodes + old)
        data = m.SerializeToString()
        put("onnx", data, f"model-{name}-stripped")
        if len(data) <= 32768:
            mutations(data, 2, f"mut-{name}", "onnx")
    # node tests
    known = set(re.findall(r"X\((\w+)\)", open(os.path.join(ROOT, "src", "30_internal.h")).read()))
    for d in sorted(glob.glob(os.path.join(args.node, "test_*"))):
        f = os.path.join(d, "model.onnx")
        if not os.path.exists(f) or os.path.getsize(f) > 65536:
            continue
        try:
            m = onnx.load(f, load_external_data=False)
        except Exception:
            continue
        ops = {n.op_type for n in m.graph.node}
        if ops & known or rng.random() < 0.25:
            put("onnx", open(f, "rb").read(), "node-" + os.path.basename(d)[5:45])
    # hand-made models: a valid one, then broken variants of it
    def model(nodes, inputs, outputs, inits=(), opset=17):
        g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
        return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])
    W = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(4, 3) / 10, "W")
    good = model([helper.make_node("MatMul", ["x", "W"], ["h"]), helper.make_node("Relu", ["h"], ["y"])], [x], [y], [W])
    gb = good.SerializeToString()
    put("onnx", gb, "hand-matmul-relu")
    mutations(gb, 20, "hand-mut", "onnx")
    # dims: huge, negative, rank 9, 2^63-1
    for dims, tag in [([1 << 40, 1 << 40], "huge-dims"), ([-5, 4], "neg-dim"), ([2] * 9, "rank9"), ([1] * 33, "rank33"),
                      ([(1 << 63) - 1, 2], "int64max-dim"), ([0, 4], "zero-dim")]:
        xi = helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)
        put("onnx", model([helper.make_node("Relu", ["x"], ["y"])], [xi], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]).SerializeToString(), f"hand-{tag}")
        t = TensorProto()
        t.name = "W"
        t.data_type = TensorProto.FLOAT
        t.dims.extend(dims)
        t.raw_data = b"\0" * 48
        put("onnx", model([helper.make_node("MatMul", ["x", "W"], ["y"])], [x], [y], [t]).SerializeToString(), f"hand-init-{tag}")
    # raw_data shorter / longer than dims, float_data count mismatch, wrong dtype, string tensor
    for raw, tag in [(b"\0" * 47, "raw-short"), (b"\0" * 49, "raw-long"), (b"", "raw-empty")]:
        t = TensorProto(); t.name = "W"; t.data_type = TensorProto.FLOAT; t.dims.extend([4, 3]); t.raw_data = raw
        put("onnx", model([helper.make_node("MatMul", ["x", "W"], ["y"])], [x], [y], [t]).SerializeToString(), "hand-" + tag)
    t = TensorProto(); t.name = "W"; t.data_type = TensorProto.FLOAT; t.dims.extend([4, 3]); t.float_data.extend([1.0] * 11)
    put("onnx", model([helper.make_node("MatMul", ["x", "W"], ["y"])], [x], [y], [t]).SerializeToString(), "hand-float-data-short")
    for dt in [0, 8, 14, 15, 16, 17, 25, 99, -1]:
        t = TensorProto(); t.name = "W"; t.dims.extend([4, 3]); t.raw_data = b"\0" * 96
        t.data_type = dt & 0x7FFFFFFF if dt >= 0 else 0
        b = model([helper.make_node("MatMul", ["x", "W"], ["y"])], [x], [y], [t]).SerializeToString()
        put("onnx", b, f"hand-dtype{dt}")
    # attributes: huge counts, wrong types, absurd values
    for attrs, tag in [({"kernel_shape": [3] * 20000}, "attr-20k-ints"),
                       ({"kernel_shape": [1 << 62, 1 << 62]}, "attr-huge-kernel"),
                       ({"kernel_shape": [-3, 3]}, "attr-neg-kernel"),
                       ({"kernel_shape": [2, 2], "strides": [0, 0]}, "attr-zero-stride"),
                       ({"kernel_shape": [2, 2], "pads": [-10, -10, -10, -10]}, "attr-neg-pads"),
                       ({"kernel_shape": [2, 2], "dilations": [1 << 40, 1]}, "attr-huge-dilation"),
                       ({"kernel_shape": [2, 2, 2, 2, 2, 2, 2, 2, 2]}, "attr-rank9-kernel"),
                       ({"kernel_shape": [2, 2], "auto_pad": "SAME_UPPER", "ceil_mode": 1}, "attr-same-ceil")]:
        xi = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 5, 5])
        yi = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
        put("onnx", model([helper.make_node("MaxPool", ["x"], ["y"], **attrs)], [xi], [yi]).SerializeToString(), "hand-" + tag)
    xi = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 5, 5])
    Wc = numpy_helper.from_array(np.ones((4, 1, 3, 3), np.float32), "Wc")
    for attrs, tag in [({"group": 2}, "conv-group2"), ({"group": 0}, "conv-group0"), ({"group": 3}, "conv-group3"),
                       ({"group": -1}, "conv-groupneg"), ({"kernel_shape": [5, 5]}, "conv-kernel-mismatch"),
                       ({"pads": [1, 1, 1, 1], "strides": [2, 2]}, "conv-pad-stride")]:
        put("onnx", model([helper.make_node("Conv", ["x", "Wc"], ["y"], **attrs)], [xi],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [Wc]).SerializeToString(), "hand-" + tag)
    for perm, tag in [([0, 0], "perm-dup"), ([0, 5], "perm-range"), ([1], "perm-short"), ([-1, 0], "perm-neg")]:
        put("onnx", model([helper.make_node("Transpose", ["x"], ["y"], perm=perm)], [x], [y]).SerializeToString(), "hand-" + tag)
    for axis in [-3, 2, 1 << 40]:
        put("onnx", model([helper.make_node("Softmax", ["x"], ["y"], axis=axis)], [x], [y]).SerializeToString(), f"hand-softmax-axis{axis}")
        put("onnx", model([helper.make_node("Concat", ["x", "x"], ["y"], axis=axis)], [x], [y]).SerializeToString(), f"hand-concat-axis{axis}")
    for shape, tag in [([-1, -1], "reshape-two-minus1"), ([0, 0, 0], "reshape-zeros"), ([5, 5], "reshape-mismatch"),
                       ([-2, 6], "reshape-neg2"), ([1 << 62, 4], "reshape-huge")]:
        s = numpy_helper.from_array(np.array(shape, np.int64), "s")
        put("onnx", model([helper.make_node("Reshape", ["x", "s"], ["y"])], [x], [y], [s]).SerializeToString(), "hand-" + tag)
    cs = numpy_helper.from_array(np.array([1 << 20, 1 << 20], np.int64), "cs")
    put("onnx", model([helper.make_node("ConstantOfShape", ["cs"], ["y"])], [], [y], [cs]).SerializeToString(), "hand-constantofshape-huge")
    cs = numpy_helper.from_array(np.array([-1, 3], np.int64), "cs")
    put("onnx", model([helper.make_node("ConstantOfShape", ["cs"], ["y"])], [], [y], [cs]).SerializeToString(), "hand-constantofshape-neg")
    # graph structure: cycles, undefined inputs, duplicated outputs, empty graph, no outputs, If subgraph
    put("onnx", model([helper.make_node("Relu", ["y"], ["h"]), helper.make_node("Relu", ["h"], ["y"])], [x], [y]).SerializeToString(), "hand-cycle")
    put("onnx", model([helper.make_node("Relu", ["nope"], ["y"])], [x], [y]).SerializeToString(), "hand-undefined-input")
    put("onnx", model([helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Relu", ["x"], ["y"])], [x], [y]).SerializeToString(), "hand-dup-output")
    put("onnx", model([], [x], [y]).SerializeToString(), "hand-empty-graph")
    put("onnx", model([helper.make_node("Relu", ["x"], ["y"])], [x], []).SerializeToString(), "hand-no-outputs")
    put("onnx", model([helper.make_node("Relu", ["x"], ["x"])], [x], [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)]).SerializeToString(), "hand-self-loop")
    put("onnx", model([helper.make_node("Relu", ["x"], ["y"])], [x], [y], opset=1).SerializeToString(), "hand-opset1")
    put("onnx", model([helper.make_node("Relu", ["x"], ["y"])], [x], [y], opset=1 << 40).SerializeToString(), "hand-opset-huge")
    put("onnx", model([helper.make_node("Relu", ["x"], ["y"], domain="com.microsoft")], [x], [y]).SerializeToString(), "hand-domain")
    sub = helper.make_graph([helper.make_node("Relu", ["x"], ["z"])], "sub", [], [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)])
    cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    put("onnx", model([helper.make_node("If", ["c"], ["y"], then_branch=sub, else_branch=sub)], [cond, x], [y]).SerializeToString(), "hand-if")
    # raw wire-level breakage
    put("onnx", b"", "wire-empty")
    put("onnx", fld_bytes(7, b"\x0a\xff\xff\xff\xff\x0f"), "wire-len-past-end")
    put("onnx", key(7, 2) + varint((1 << 63) + 5) + b"\0" * 8, "wire-len-huge")
    put("onnx", key(7, 2) + b"\xff" * 11, "wire-varint-11-bytes")
    put("onnx", key(7, 5) + b"\0\0", "wire-fixed32-truncated")
    put("onnx", key(7, 1) + b"\0" * 3, "wire-fixed64-truncated")
    put("onnx", key(7, 3) + key(7, 4), "wire-group")
    put("onnx", key(0, 0) + b"\0", "wire-field0")
    put("onnx", key(7, 6) + b"\0", "wire-bad-wiretype")
    nest = b""
    for _ in range(3000):
        nest = fld_bytes(7, fld_bytes(1, nest))
    put("onnx", nest[:60000], "wire-deep-nesting")
    # the node list of a graph with a string-typed field holding a varint and vice versa
    put("onnx", fld_bytes(7, fld_varint(1, 5) + fld_varint(11, 5)), "wire-type-confusion")
    put("onnx", fld_bytes(7, fld_bytes(1, fld_bytes(4, b"Relu") + fld_bytes(5, fld_str(1, "a") + key(20, 2) + varint(1 << 33)))), "wire-attr-len-huge")


# ---------------- tensor_pb ----------------
def tensor_seeds():
    models = os.path.join(args.data, "models")
    for f in sorted(glob.glob(os.path.join(models, "*", "test_data_set_*", "*.pb")) + glob.glob(os.path.join(models, "onnx_light", "*.pb"))):
        if os.path.getsize(f) <= 65536:
            data = open(f, "rb").read()
            put("tensor_pb", data, "model-" + os.path.basename(os.path.dirname(os.path.dirname(f))) + "-" + os.path.basename(f)[:-3])
    seen_dt = {}
    for f in sorted(glob.glob(os.path.join(args.node, "test_*", "test_data_set_0", "*.pb"))):
        if os.path.getsize(f) > 16384:
            continue
        data = open(f, "rb").read()
        try:
            import onnx
            t = onnx.TensorProto()
            t.ParseFromString(data)
            k = (t.data_type, len(t.dims), bool(t.raw_data))
        except Exception:
            continue
        if seen_dt.get(k, 0) < 3 or rng.random() < 0.01:
            seen_dt[k] = seen_dt.get(k, 0) + 1
            put("tensor_pb", data, "node-" + os.path.basename(os.path.dirname(os.path.dirname(f)))[5:40])
    good = tensorproto("x", 1, [2, 3], struct.pack("<6f", *range(6)))
    put("tensor_pb", good, "hand-good")
    mutations(good, 30, "hand-mut", "tensor_pb")
    put("tensor_pb", tensorproto("x", 1, [2, 3], struct.pack("<6f", *range(6)), packed_dims=True), "hand-packed-dims")
    put("tensor_pb", tensorproto("x", 1, [2, 3], struct.pack("<5f", *range(5))), "hand-raw-short")
    put("tensor_pb", tensorproto("x", 1, [2, 3], struct.pack("<7f", *range(7))), "hand-raw-long")
    put("tensor_pb", tensorproto("x", 1, [1 << 40, 1 << 40], b"\0" * 16), "hand-huge-dims")
    put("tensor_pb", tensorproto("x", 1, [(1 << 64) - 5, 2], b"\0" * 16), "hand-neg-dim")
    put("tensor_pb", tensorproto("x", 1, [1] * 9, b"\0" * 4), "hand-rank9")
    put("tensor_pb", tensorproto("x", 1, [1] * 300, b"\0" * 4), "hand-rank300")
    put("tensor_pb", tensorproto("x", 1, [0, 3], b""), "hand-zero-dim")
    put("tensor_pb", tensorproto("x", 1, [], struct.pack("<f", 1.5)), "hand-scalar")
    for dt in [0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 21, 99, 1 << 31, (1 << 64) - 1]:
        put("tensor_pb", tensorproto("x", dt, [2], b"\1" * 16), f"hand-dtype{dt & 0xffff}")
    # typed data fields: float_data (4, packed), int32_data (5), int64_data (7), double_data (10), uint64_data (11)
    put("tensor_pb", fld_varint(1, 3) + fld_varint(2, 1) + fld_bytes(4, struct.pack("<3f", 1, 2, 3)), "hand-float-data")
    put("tensor_pb", fld_varint(1, 3) + fld_varint(2, 1) + fld_bytes(4, struct.pack("<2f", 1, 2)), "hand-float-data-short")
    put("tensor_pb", fld_varint(1, 3) + fld_varint(2, 1) + b"".join(key(4, 5) + struct.pack("<f", v) for v in (1, 2, 3)), "hand-float-data-unpacked")
    put("tensor_pb", fld_varint(1, 2) + fld_varint(2, 7) + fld_bytes(7, varint(5) + varint((1 << 64) - 1)), "hand-int64-data")
    put("tensor_pb", fld_varint(1, 2) + fld_varint(2, 6) + fld_bytes(5, varint(5) + varint((1 << 64) - 1)), "hand-int32-data")
    put("tensor_pb", fld_varint(1, 4) + fld_varint(2, 10) + fld_bytes(5, b"".join(varint(v) for v in (0x3c00, 0x7c00, 0xfc00, 0x7e00))), "hand-f16-int32-data")
    put("tensor_pb", fld_varint(1, 2) + fld_varint(2, 9) + fld_bytes(5, varint(1) + varint(7)), "hand-bool-int32-data")
    put("tensor_pb", fld_varint(1, 2) + fld_varint(2, 11) + fld_bytes(10, struct.pack("<2d", 1, 2)), "hand-double-data")
    put("tensor_pb", fld_varint(1, 2) + fld_varint(2, 13) + fld_bytes(11, varint(1) + varint(1 << 63)), "hand-uint64-data")
    put("tensor_pb", fld_varint(1, 2) + fld_varint(2, 8) + fld_bytes(6, b"ab") + fld_bytes(6, b"cd"), "hand-string-data")
    put("tensor_pb", fld_varint(1, 2) + fld_varint(2, 1) + fld_varint(14, 1) + fld_bytes(13, fld_str(1, "location") + fld_str(2, "/etc/passwd")), "hand-external-abs")
    put("tensor_pb", fld_varint(1, 2) + fld_varint(2, 1) + fld_varint(14, 1) + fld_bytes(13, fld_str(1, "location") + fld_str(2, "../x")), "hand-external-dotdot")
    put("tensor_pb", fld_varint(1, 2) + fld_varint(2, 1) + fld_varint(14, 1) + fld_bytes(13, fld_str(1, "location") + fld_str(2, "w.bin")), "hand-external")
    put("tensor_pb", fld_varint(1, 2) + fld_varint(2, 1) + fld_bytes(3, fld_varint(1, 0) + fld_varint(2, 8)) + fld_bytes(9, b"\0" * 8), "hand-segment")
    put("tensor_pb", fld_varint(1, 2) + fld_varint(2, 1) + key(9, 2) + varint(1 << 40) + b"\0" * 8, "hand-raw-len-huge")
    put("tensor_pb", fld_varint(1, 2) + fld_varint(2, 1) + key(9, 2) + varint(100) + b"\0" * 8, "hand-raw-len-past-end")
    put("tensor_pb", key(8, 2) + varint(5000) + b"n" * 5000, "hand-long-name-truncated")
    put("tensor_pb", fld_str(8, "n" * 5000) + fld_varint(2, 1), "hand-name-over-max")
    put("tensor_pb", fld_str(8, "a\0b") + fld_varint(2, 1) + fld_bytes(9, b"\0" * 4), "hand-name-nul")
    put("tensor_pb", b"", "hand-empty")
    put("tensor_pb", b"\xff" * 11, "hand-varint-overlong")
    put("tensor_pb", fld_varint(1, 1 << 33) * 2 + fld_varint(2, 1), "hand-dims-2pow33")


# ---------------- graph (fuzz_graph.c command encoding) ----------------
OPS = re.findall(r"X\((\w+)\)", open(os.path.join(ROOT, "src", "30_internal.h")).read().split("typedef enum aicf__op")[0])
OPS = OPS + ["NoSuchOp", "", "Relu"]
ATTRS = ["axis", "alpha", "beta", "shape", "axes", "value", "value_int", "value_float", "value_ints", "value_floats",
         "value_string", "value_strings", "size", "min", "max", "kernel_shape", "strides", "pads", "dilations", "group",
         "auto_pad", "ceil_mode", "count_include_pad", "storage_order", "perm", "to", "transA", "transB", "epsilon",
         "training_mode", "spatial", "bias", "allowzero", "keepdims", "start", "end", "broadcast", "gamma", "momentum",
         "sparse_value", "lambd", "fmod", "channels", "scale", "unknown_attr", "then_branch", "else_branch", "body"]
DT = {"f32": 0, "i64": 5, "i32": 8, "bool": 9, "f16": 10}


class Prog:
    """Mirrors fuzz_graph.c's decoder: emits the bytes that make it do the calls we ask for."""

    def __init__(self):
        self.b = bytearray()
        self.names = []
        self.next = 0

    def pick(self, name):
        if name == "":
            return 0
        j = self.names.index(name)
        n = len(self.names)
        v = j
        while v < 12:
            v += n
        assert v < 256 and v % n == j
        return v

    def new(self):
        nm = f"t{self.next}"
        self.next += 1
        self.names.append(nm)
        return nm

    @staticmethod
    def dim(d):
        if isinstance(d, str):
            return 0xC0 | "NMKB".index(d)
        assert 1 <= d <= 4
        return d - 1

    def tensor(self, dtype, dims, const=False, ivals=None):
        self.b += bytes([DT[dtype], len(dims)] + [self.dim(d) for d in dims])
        if const:
            self.b += bytes([0, 0])  # no symbolic dim, adj 0 (copied)
            if ivals is not None:
                self.b += bytes([v + 3 for v in ivals])

    def input(self, dtype, dims):
        self.b += bytes([0, 8])
        self.tensor(dtype, dims)
        return self.new()

    def const(self, dtype, dims, ivals=None):
        self.b += bytes([1, 8])
        self.tensor(dtype, dims, True, ivals)
        return self.new()

    def node(self, op, ins, n_out=1, attrs=()):
        self.b += bytes([2, OPS.index(op), len(ins)] + [self.pick(i) for i in ins] + [(n_out - 1)])
        outs = []
        for _ in range(n_out):
            self.b.append(8)
            outs.append(self.new())
        self.b.append(len(attrs))
        for name, kind, val in attrs:
            t = {"i": 0, "ints": 2, "f": 4, "s": 6, "g": 19}[kind]
            self.b += bytes([t, ATTRS.index(name)])
            if kind == "g":  # a one-node subgraph: op (0 Identity, 1 Relu, 2 Neg) of an outer name
                op, outer = val
                self.b += bytes([op, self.pick(outer)])
                continue
            if kind == "i":
                self.b.append(val + 3)
            elif kind == "ints":
                self.b += bytes([len(val)] + [v + 3 for v in val])
            elif kind == "f":
                self.b.append({0.0: 0, 1.0: 1, 0.5: 2, -1.0: 3, 1e-5: 4, 2.0: 5, 0.1: 6}[val])
            else:
                self.b.append(["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"].index(val))
        self.b.append(1)  # node name "node"
        return outs[0] if n_out == 1 else outs

    def opset(self, version):
        self.b += bytes([15, [1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 18, 21].index(version)])

    def output(self, name):
        self.b += bytes([5, self.pick(name)])


def graph_seeds():
    p = Prog(); x = p.input("f32", ["N", 4]); w = p.const("f32", [4, 3]); y = p.node("MatMul", [x, w]); p.output(p.node("Relu", [y]))
    put("graph", bytes(p.b), "matmul-relu")
    p = Prog(); x = p.input("f32", [1, 2, 4, 4]); w = p.const("f32", [3, 2, 3, 3]); b = p.const("f32", [3])
    p.output(p.node("Conv", [x, w, b], attrs=[("pads", "ints", [1, 1, 1, 1])]))
    put("graph", bytes(p.b), "conv")
    p = Prog(); x = p.input("f32", [1, 4, 4, 4]); w = p.const("f32", [4, 1, 3, 3])
    p.output(p.node("Conv", [x, w], attrs=[("group", "i", 4), ("strides", "ints", [2, 2])]))
    put("graph", bytes(p.b), "conv-depthwise")
    p = Prog(); a = p.input("f32", [2, 3]); b = p.const("f32", [4, 3]); c = p.const("f32", [4])
    p.output(p.node("Gemm", [a, b, c], attrs=[("transB", "i", 1), ("alpha", "f", 0.5)]))
    put("graph", bytes(p.b), "gemm")
    p = Prog(); x = p.input("f32", [1, 2, 4, 4])
    p.output(p.node("MaxPool", [x], attrs=[("kernel_shape", "ints", [2, 2]), ("strides", "ints", [2, 2])]))
    put("graph", bytes(p.b), "maxpool")
    p = Prog(); x = p.input("f32", [1, 2, 4, 4])
    p.output(p.node("AveragePool", [x], attrs=[("kernel_shape", "ints", [3, 3]), ("pads", "ints", [1, 1, 1, 1]), ("count_include_pad", "i", 1)]))
    put("graph", bytes(p.b), "avgpool")
    p = Prog(); x = p.input("f32", ["B", 4]); p.output(p.node("Softmax", [x], attrs=[("axis", "i", -1)]))
    put("graph", bytes(p.b), "softmax")
    p = Prog(); x = p.input("f32", [2, 3, 4]); s = p.const("i64", [2], [4, 6]); p.output(p.node("Reshape", [x, s]))
    put("graph", bytes(p.b), "reshape")
    p = Prog(); x = p.input("f32", [2, 3]); z = p.input("f32", [2, 1]); p.output(p.node("Concat", [x, z], attrs=[("axis", "i", 1)]))
    put("graph", bytes(p.b), "concat")
    p = Prog(); x = p.input("f32", [2, 3, 4]); p.output(p.node("Transpose", [x], attrs=[("perm", "ints", [2, 0, 1])]))
    put("graph", bytes(p.b), "transpose")
    p = Prog(); x = p.input("f32", [1, 3, 2, 2]); sc = p.const("f32", [3]); bb = p.const("f32", [3]); m = p.const("f32", [3]); v = p.const("f32", [3])
    p.output(p.node("BatchNormalization", [x, sc, bb, m, v], attrs=[("epsilon", "f", 1e-5)]))
    put("graph", bytes(p.b), "batchnorm")
    p = Prog(); x = p.input("f32", [2, 3]); y = p.input("f32", [3]); s = p.node("Add", [x, y]); s = p.node("Mul", [s, x]); s = p.node("Sigmoid", [s])
    s = p.node("Clip", [s], attrs=[("min", "f", 0.1), ("max", "f", 0.5)]); p.output(p.node("Sum", [s, x, x]))
    put("graph", bytes(p.b), "elementwise")
    p = Prog(); x = p.input("f32", [1, 4, 2, 2]); p.output(p.node("LRN", [x], attrs=[("size", "i", 3), ("alpha", "f", 0.1)]))
    put("graph", bytes(p.b), "lrn")
    p = Prog(); p.opset(11); x = p.input("f32", [1, 3, 2, 2]); g = p.node("GlobalAveragePool", [x]); f = p.node("Flatten", [g]); p.output(p.node("Unsqueeze", [f], attrs=[("axes", "ints", [0])]))
    put("graph", bytes(p.b), "gap-flatten-unsqueeze")
    p = Prog(); x = p.input("f32", [2, 3]); s = p.node("Shape", [x]); c = p.node("ConstantOfShape", [s]); p.output(p.node("Add", [c, x]))
    put("graph", bytes(p.b), "shape-constantofshape")
    p = Prog(); x = p.input("f32", [2, 3]); c = p.node("Cast", [x], attrs=[("to", "i", 7)]); p.output(c)
    put("graph", bytes(p.b), "cast")
    for op in ("If",):
        p = Prog(); x = p.input("f32", [2, 3]); c = p.const("bool", [])
        p.output(p.node("If", [c], attrs=[("then_branch", "g", (0, x)), ("else_branch", "g", (1, x))]))
        put("graph", bytes(p.b), "if-const-cond")
        p = Prog(); x = p.input("f32", [2, 3]); c = p.input("bool", [])
        p.output(p.node("If", [c], attrs=[("then_branch", "g", (2, x)), ("else_branch", "g", (1, x))]))
        put("graph", bytes(p.b), "if-input-cond")
    for k in range(24):
        put("graph", bytes(rng.randrange(256) for _ in range(rng.randrange(8, 200))), "random")


onnx_seeds()
tensor_seeds()
graph_seeds()
for t in ("onnx", "tensor_pb", "graph"):
    d = os.path.join(args.out, t)
    fs = os.listdir(d)
    print(f"{t}: {len(fs)} seeds, {sum(os.path.getsize(os.path.join(d, f)) for f in fs)} bytes in {d}")
