#!/usr/bin/env bash
# One GPU-machine session in one call: build, the GPU suite, the benchmarks. Logs go to $OUT.
#   AICF_TEST_DATA   test data (default .devdata/data: a copy of ../shared/data carried along)
#   STAGE            all (default) | test | bench
#   BENCH_ARGS       bench/run.sh's options (default: --iters 300 --no-compile); its results go to
#                    $OUT/bench (peers.jsonl, models.jsonl, gemm.jsonl, table.md; docs/benchmarks.md)
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
  # shellcheck disable=SC2086 # BENCH_ARGS is a list of options
  OUT="$OUT/bench" bench/run.sh ${BENCH_ARGS:---iters 300 --no-compile} 2>&1 | tee "$OUT/bench.log"
fi
