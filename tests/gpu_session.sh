#!/usr/bin/env bash
# One GPU-machine session in one call: build, the GPU suite, the benchmarks. Logs go to $OUT.
#   AICF_TEST_DATA   test data (default .devdata/data: a copy of ../shared/data carried along)
#   STAGE            all (default) | test | bench
set -uo pipefail
OUT=${OUT:-/tmp/aicf-out}; mkdir -p "$OUT"
export AICF_TEST_DATA=${AICF_TEST_DATA:-$PWD/.devdata/data}
export PYTHONUNBUFFERED=1
STAGE=${STAGE:-all}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv | tee "$OUT/gpu.txt"
make -j8 all > "$OUT/build.log" 2>&1 || { tail -60 "$OUT/build.log"; exit 1; }
build/aicf info | tee -a "$OUT/gpu.txt"
if [ "$STAGE" = all ] || [ "$STAGE" = test ]; then
  make test-gpu > "$OUT/test-gpu.log" 2>&1
  grep -E "FAIL|passed|ok  |SKIP|model " "$OUT/test-gpu.log" | tail -120
fi
if [ "$STAGE" = all ] || [ "$STAGE" = bench ]; then
  M=$AICF_TEST_DATA/models
  for prec in fp32 tf32 fp16; do
    build/aicf bench "$M/mnist/model.onnx" --backend cuda --precision $prec --iters 5000 --json
    build/aicf bench "$M/mlp_policy/model.onnx" --backend cuda --dim batch=1 --precision $prec --iters 5000 --json
  done 2>&1 | tee "$OUT/bench.log"
fi
