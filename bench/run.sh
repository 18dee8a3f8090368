#!/usr/bin/env bash
# bench/run.sh: the project's benchmark, one command, on the GPU machine (docs/benchmarks.md).
#
#   bench/run.sh [--iters N] [--no-compile] [--only WORKLOAD...] [--skip-peers] [--skip-models] [--skip-gemm]
#                [--skip-plan] [--no-build]
#
#   --no-build  measure the binaries already in build/ (built on another machine and carried here)
#               instead of running make bench-build; build/aicf must exist, and build/gemm_direct
#               too unless --skip-gemm
#
#   (A against B: bench/ab.sh, two builds alternated on the same models)
#
#   1. peers   ../shared/bench/peers.py --aicf build/aicf: the six reference workloads, PyTorch
#              eager / CUDA graph / torch.compile and aicf (fp16) side by side, all timed with
#              CUDA events                                               -> peers.jsonl, peers.log
#   2. models  build/aicf bench over the repository's model set (mnist, mlp_policy, encoder_tiny,
#              mobilenet_v3_small, ppocr_cls, silero_vad_op18_ifless) at fp32, tf32 and fp16,
#              batch 1                                                   -> models.jsonl
#   3. gemm    build/gemm_direct: large GEMMs through aicf and through the same cuBLASLt call made
#              directly (4096^3 and 8192^3, tf32 and fp16)               -> gemm.jsonl
#   4. plan    plan creation of onnx_light/light_resnet50 without autotuning (target <= 200 ms):
#              build/aicf bench --json's plan_ms (model load + aicf_plan_create, after the
#              context's CUDA initialisation) and its phases, fp32 and fp16, 3 processes each
#                                                                        -> plan.jsonl
#   1b. profiles  build/aicf profile (per-step GPU times), bench --io host (inputs and outputs
#              staged through pinned memory by the graph) and bench --pdl (programmatic
#              dependent launch, AICF_EXEC_PDL) on peers.py's exports, fp16
#                                                         -> profiles/WORKLOAD.txt, staged.jsonl, pdl.jsonl,
#              persistent.jsonl (policy persistent = 1: batch-1 Linear layers in one launch),
#              gelu_tanh.jsonl (enc: policy gelu_tanh = 1, the erf-form Gelus in their tanh form
#              inside cuBLASLt's GEMMs), autotune.jsonl (policy autotune = 1: kernel choices timed at plan creation;
#              its plan_ms includes the timing)
#   then bench/table.py turns the JSON lines into table.md (targets marked met / not met).
#
# Everything goes under $OUT (default bench/results/<date>-<time>): gpu.txt, meta.json,
# build.log, the .jsonl files, the logs, table.md. Takes a few minutes with --iters 300
# --no-compile (torch.compile adds about a minute per workload).
#
# Environment: OUT; PEERS (peers.py; default ../shared/bench/peers.py, else .devdata/bench/peers.py,
# where the GPU session copies the shared folder); AICF_TEST_DATA (test data holding models/;
# default ../shared/data, else .devdata/data); PYTHON (python3); WORKDIR (peers' ONNX exports,
# default /tmp/aicf-bench); JOBS (make -j, default 8).
# Exit status: 0 done (a failing part is recorded in its log and the table, not fatal),
# 1 bad usage or build failure, 2 no NVIDIA GPU here.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

ITERS=300
NO_COMPILE=
NO_BUILD=0
ONLY=()
DO_PEERS=1 DO_MODELS=1 DO_GEMM=1 DO_PLAN=1
while [ $# -gt 0 ]; do
  case "$1" in
    --iters) ITERS=${2:?--iters needs a value}; shift 2 ;;
    --no-compile) NO_COMPILE=--no-compile; shift ;;
    --only) shift; while [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; do ONLY+=("$1"); shift; done ;;
    --skip-peers) DO_PEERS=0; shift ;;
    --skip-models) DO_MODELS=0; shift ;;
    --skip-gemm) DO_GEMM=0; shift ;;
    --skip-plan) DO_PLAN=0; shift ;;
    --no-build) NO_BUILD=1; shift ;;
    -h|--help) sed -n '2,44p' "$0"; exit 0 ;;
    *) echo "bench/run.sh: unknown argument '$1' (--help lists them)" >&2; exit 1 ;;
  esac
done
case "$ITERS" in ''|*[!0-9]*) echo "bench/run.sh: --iters must be a positive integer" >&2; exit 1 ;; esac
[ "$ITERS" -ge 10 ] || { echo "bench/run.sh: --iters must be at least 10" >&2; exit 1; }

# --no-build: the binaries it measures exist (checked before the GPU, so it is testable without one)
if [ "$NO_BUILD" = 1 ]; then
  for b in build/aicf $([ "$DO_GEMM" = 1 ] && echo build/gemm_direct); do
    [ -x "$b" ] || { echo "bench/run.sh: --no-build, but $b is missing or not executable" >&2; exit 1; }
  done
fi

# A GPU first: nothing is built or measured without one.
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "bench/run.sh: no NVIDIA GPU here (nvidia-smi $(command -v nvidia-smi >/dev/null 2>&1 && echo 'lists no device' || echo 'not found')): nothing measured. Run it on the GPU machine." >&2
  exit 2
fi

PYTHON=${PYTHON:-python3}
OUT=${OUT:-bench/results/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT" || exit 1
if [ -z "${PEERS:-}" ]; then
  for p in ../shared/bench/peers.py .devdata/bench/peers.py; do [ -f "$p" ] && { PEERS=$p; break; }; done
fi
if [ -z "${AICF_TEST_DATA:-}" ]; then
  for d in ../shared/data .devdata/data; do [ -d "$d/models" ] && { AICF_TEST_DATA=$d; break; }; done
fi
export AICF_TEST_DATA=${AICF_TEST_DATA:-../shared/data}
export PYTHONUNBUFFERED=1
START=$(date +%s)
log() { echo "[bench $(( $(date +%s) - START ))s] $*"; }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
if [ "$NO_BUILD" = 1 ]; then
  log "build: skipped (--no-build), measuring the binaries in build/"
  echo "--no-build: make not run" > "$OUT/build.log"
else
  log "build"
  if ! make -j"${JOBS:-8}" bench-build > "$OUT/build.log" 2>&1; then
    tail -40 "$OUT/build.log"; echo "bench/run.sh: build failed (log: $OUT/build.log)" >&2; exit 1
  fi
fi
build/aicf info | tee -a "$OUT/gpu.txt"
if ! grep -q "^CUDA device:" "$OUT/gpu.txt"; then
  echo "bench/run.sh: build/aicf finds no usable CUDA device (see $OUT/gpu.txt): nothing measured" >&2
  exit 2
fi
{
  printf '{"date": "%s", "commit": "%s", "dirty_files": %s, "iters": %s, "no_compile": %s, "peers": "%s", "data": "%s"}\n' \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
    "$(git status --porcelain 2>/dev/null | wc -l | tr -d ' ')" "$ITERS" "$([ -n "$NO_COMPILE" ] && echo true || echo false)" \
    "${PEERS:-}" "$AICF_TEST_DATA"
} > "$OUT/meta.json"

# 1. peers.py side by side
: > "$OUT/peers.jsonl"
if [ "$DO_PEERS" = 1 ]; then
  if [ -z "${PEERS:-}" ] || [ ! -f "$PEERS" ]; then
    log "peers: peers.py not found (set PEERS): SKIPPED" | tee "$OUT/peers.log"
  else
    log "peers: $PEERS --iters $ITERS $NO_COMPILE ${ONLY[*]:+--only ${ONLY[*]}}"
    args=(--aicf build/aicf --iters "$ITERS" --workdir "${WORKDIR:-/tmp/aicf-bench}")
    [ -n "$NO_COMPILE" ] && args+=(--no-compile)
    [ ${#ONLY[@]} -gt 0 ] && args+=(--only "${ONLY[@]}")
    "$PYTHON" "$PEERS" "${args[@]}" > "$OUT/peers.log" 2>&1
    rc=$?
    grep -v '^{' "$OUT/peers.log" | grep -v -i "warn" | tail -12
    grep '^{' "$OUT/peers.log" > "$OUT/peers.jsonl"
    if [ $rc -ne 0 ]; then
      log "peers: exit $rc (log: $OUT/peers.log)"
      "$PYTHON" -c 'import json,sys; print(json.dumps({"workload": "peers.py", "aicf_error": "exit %s: %s" % (sys.argv[1], sys.argv[2][-300:])}))' \
        "$rc" "$(tail -5 "$OUT/peers.log")" >> "$OUT/peers.jsonl"
    fi
  fi
fi

# 1b. the peers' exports again: per-step profiles (aicf profile) and the time with inputs and
#     outputs staged through pinned host memory (bench --io host), fp16
: > "$OUT/staged.jsonl"
: > "$OUT/pdl.jsonl"
: > "$OUT/persistent.jsonl"
: > "$OUT/autotune.jsonl"
: > "$OUT/gelu_tanh.jsonl"
if [ "$DO_PEERS" = 1 ]; then
  W=${WORKDIR:-/tmp/aicf-bench}
  mkdir -p "$OUT/profiles"
  # one variant: bench --json with the extra options, one line tagged with the workload into FILE
  variant() {
    local into=$1 line
    shift
    line=$(build/aicf bench "$W/$file.onnx" --precision fp16 --dim batch="$batch" --iters "$ITERS" "$@" --json 2>&1 |
           grep '^{' | tail -1)
    [ -n "$line" ] && printf '{"workload": "%s", %s\n' "$wl" "${line#\{}" >> "$OUT/$into"
  }
  for entry in "mlp_b1 mlp 1" "mlp_b256 mlp 256" "enc_b1_s128 enc 1" "enc_b32_s128 enc 32" \
               "resnet18_b1 resnet18 1" "resnet18_b32 resnet18 32"; do
    read -r wl file batch <<< "$entry"
    [ ${#ONLY[@]} -gt 0 ] && [[ " ${ONLY[*]} " != *" $wl "* ]] && continue
    [ -f "$W/$file.onnx" ] || continue
    build/aicf profile "$W/$file.onnx" --precision fp16 --dim batch="$batch" --iters "$ITERS" --top 15 \
      > "$OUT/profiles/$wl.txt" 2>&1
    variant staged.jsonl --io host
    variant pdl.jsonl --pdl
    variant persistent.jsonl --persistent
    build/aicf plan "$W/$file.onnx" --precision fp16 --dim batch="$batch" --autotune --explain \
      > "$OUT/profiles/$wl.autotune.txt" 2>&1
    variant autotune.jsonl --autotune
    if [ "$file" = enc ]; then variant gelu_tanh.jsonl --gelu-tanh; fi # the erf-form Gelus inside cuBLASLt (tanh form)
  done
  log "profiles: $OUT/profiles; host-staged I/O: $OUT/staged.jsonl; programmatic dependent launch: $OUT/pdl.jsonl"
fi

# 2. the repository's model set, batch 1
: > "$OUT/models.jsonl"
if [ "$DO_MODELS" = 1 ]; then
  M=$AICF_TEST_DATA/models
  SR=$M/silero_vad_op18_ifless/test_data_set_0/input_1.pb
  MODELS=(
    "mnist"
    "mlp_policy --dim batch=1"
    "encoder_tiny --dim batch=1"
    "mobilenet_v3_small"
    "ppocr_cls --dim p2o.DynamicDimension.0=1 --dim p2o.DynamicDimension.1=48 --dim p2o.DynamicDimension.2=192"
    "silero_vad_op18_ifless --dim batch=1 --dim sequence=512 --bind sr=$SR"
  )
  : > "$OUT/models.log"
  for prec in fp32 tf32 fp16; do
    for entry in "${MODELS[@]}"; do
      read -r -a a <<< "$entry"
      name=${a[0]}
      if [ ! -f "$M/$name/model.onnx" ]; then
        log "models: $M/$name/model.onnx not found: SKIPPED" | tee -a "$OUT/models.log"
        continue
      fi
      out=$(build/aicf bench "$M/$name/model.onnx" --backend cuda --precision "$prec" --iters "$ITERS" --json "${a[@]:1}" 2>&1)
      rc=$?
      echo "$ $name $prec (exit $rc)"$'\n'"$out" >> "$OUT/models.log"
      line=$(printf '%s\n' "$out" | grep '^{' | tail -1)
      if [ $rc -eq 0 ] && [ -n "$line" ]; then
        printf '%s\n' "$line" >> "$OUT/models.jsonl"
      else
        "$PYTHON" -c 'import json,sys; print(json.dumps({"model": sys.argv[1], "precision": sys.argv[2], "error": sys.argv[3][-300:]}))' \
          "$M/$name/model.onnx" "$prec" "$out" >> "$OUT/models.jsonl"
      fi
    done
    log "models: $prec done"
  done
fi

# 3. large GEMMs, aicf against the direct cuBLASLt call
: > "$OUT/gemm.jsonl"
if [ "$DO_GEMM" = 1 ]; then
  log "gemm: build/gemm_direct --iters $ITERS"
  build/gemm_direct --json --iters "$ITERS" > "$OUT/gemm.jsonl" 2> "$OUT/gemm.log"
  rc=$?
  if [ $rc -ne 0 ]; then
    log "gemm: exit $rc:"; tail -5 "$OUT/gemm.log"
    "$PYTHON" -c 'import json,sys; print(json.dumps({"error": "gemm_direct exit %s: %s" % (sys.argv[1], sys.argv[2][-300:])}))' \
      "$rc" "$(tail -3 "$OUT/gemm.log")" >> "$OUT/gemm.jsonl"
  fi
fi

# 4. plan creation of light_resnet50, a fresh process each time (the first plan of a context)
: > "$OUT/plan.jsonl"
if [ "$DO_PLAN" = 1 ]; then
  PM=$AICF_TEST_DATA/models/onnx_light/light_resnet50.onnx
  if [ ! -f "$PM" ]; then
    log "plan: $PM not found: SKIPPED"
  else
    for r in 1 2 3; do
      for prec in fp32 fp16; do
        line=$(build/aicf bench "$PM" --backend cuda --precision "$prec" --iters 10 --json 2>&1 | grep '^{' | tail -1)
        [ -n "$line" ] && printf '{"plan_model": "light_resnet50", %s\n' "${line#\{}" >> "$OUT/plan.jsonl"
      done
    done
    log "plan: $OUT/plan.jsonl"
  fi
fi

log "table"
"$PYTHON" bench/table.py --peers "$OUT/peers.jsonl" --models "$OUT/models.jsonl" --gemm "$OUT/gemm.jsonl" --plan "$OUT/plan.jsonl" \
  --meta "$OUT/meta.json" --gpu "$OUT/gpu.txt" --variants "$OUT" > "$OUT/table.md"
cat "$OUT/table.md"
log "done: $OUT"
