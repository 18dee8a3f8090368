#!/usr/bin/env bash
# bench/devrun.sh: the GPU machine's side of bench/devpack.sh. It unpacks .devdata/bins.tar.xz
# into build/ and runs the jobs asked for, in order, with nothing built there (docs/benchmarks.md,
# "A GPU session in few calls"). Logs go to $OUT (the device tool's folder, default
# /tmp/devrun-out), at most one file a job plus devrun.txt, so they all come back.
#
#   bench/devrun.sh JOB...
#
#   suite            the GPU suite: tests/run_tests.py --suite gpu (what make test-gpu runs after its
#                    build), test data from .devdata/data (bench/devpack.sh --data)  -> suite.txt
#   only=TEXT        one kernel's GPU cases: build/test_gpu_kernels --only TEXT and
#                    AICF_FUSION_ONLY=TEXT build/test_gpu_fusion                   -> only-TEXT.txt
#   bench            the six workloads beside PyTorch: bench/run.sh --no-build --iters 300
#                    --no-compile --skip-models --skip-gemm (peers.py from .devdata/bench)
#                                                      -> bench-table.md, bench-results.tgz
#   ab=WL[,WL...]    build/aicf_base (A, devpack --base) against build/aicf (B), bench/ab.sh
#                    --rounds 3 --iters 300, on the peers' exports of the workloads named
#                    (enc_b1_s128, resnet18_b32, ...; exported by peers.py first if missing)
#                                                                                  -> ab.txt
#   cmd=COMMAND      any command (e.g. cmd='.devdata/ln_fold 300')                 -> cmd-N.txt
#
# DEVDATA names the pack's folder (default .devdata). Every job runs under `timeout` (suite
# 480 s, bench 400 s, the others 200 s; DEVRUN_TIMEOUT overrides all), so one stuck job cannot
# eat the call. The script waits only on its own children: a bare `wait` after
# `exec > >(tee ...)` also waits for the tee and hangs (session 36).
# Exit status: 0 every job exited 0, 1 one did not (each job's status is in devrun.txt), 2 bad usage.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
[ $# -gt 0 ] || { sed -n '2,26p' "$0" >&2; exit 2; }
for j in "$@"; do
  case "$j" in
    suite|bench|only=?*|ab=?*|cmd=?*) ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "bench/devrun.sh: unknown job '$j' (--help lists them)" >&2; exit 2 ;;
  esac
done
OUT=${OUT:-/tmp/devrun-out}
mkdir -p "$OUT" build || exit 2
LOG=$OUT/devrun.txt
START=$(date +%s)
say() { echo "[devrun $(( $(date +%s) - START ))s] $*" | tee -a "$LOG"; }
W=${WORKDIR:-/tmp/aicf-bench}
DEV=${DEVDATA:-.devdata}
PEERS=$DEV/bench/peers.py
[ -f "$PEERS" ] || PEERS=../shared/bench/peers.py
[ -d "$DEV/data/models" ] && export AICF_TEST_DATA=${AICF_TEST_DATA:-$DEV/data}
lim() { echo "${DEVRUN_TIMEOUT:-$1}"; }

if command -v nvidia-smi > /dev/null 2>&1; then nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>&1 | tee -a "$LOG"
else say "no nvidia-smi here: the jobs that need a GPU will say so"; fi
if [ -f "$DEV/bins.tar.xz" ]; then
  got=$(python3 -c "import lzma, tarfile, sys
t = tarfile.open(fileobj=lzma.open(sys.argv[1]))
try:
    t.extractall(sys.argv[2], filter='data')
except TypeError:  # Python without extraction filters
    t.extractall(sys.argv[2])
print(' '.join(sorted(n[2:] if n.startswith('./') else n for n in t.getnames() if n != '.')))" "$DEV/bins.tar.xz" build) ||
    { say "unpacking $DEV/bins.tar.xz failed"; exit 1; }
  say "unpacked into build/: $got"
else
  say "no $DEV/bins.tar.xz: using build/ as it is"
fi

fails=0 n=0
# run NAME LIMIT OUTFILE COMMAND...: the command's output into OUTFILE, its status into the log
run() {
  local name=$1 t=$2 f=$3 rc
  shift 3
  timeout "$t" "$@" > "$f" 2>&1
  rc=$?
  say "$name: exit $rc$([ $rc = 124 ] && echo " (timed out after $t s)"); $(grep -E '[0-9]+ passed, [0-9]+ failed' "$f" | tail -1)"
  [ $rc = 0 ] || fails=$((fails + 1))
}
# the peers' exports of workloads WL... (enc_b1_s128 -> enc.onnx) when missing
export_for() {
  local need=() wl
  for wl in "$@"; do [ -f "$W/${wl%%_*}.onnx" ] || need+=("$wl"); done
  [ ${#need[@]} -eq 0 ] && return 0
  timeout "$(lim 200)" python3 "$PEERS" --aicf build/aicf --only "${need[@]}" --no-compile --iters 20 --workdir "$W" \
    > "$OUT/export.txt" 2>&1 || say "peers.py export of ${need[*]}: exit $? ($OUT/export.txt)"
}

for j in "$@"; do
  n=$((n + 1))
  case "$j" in
    suite) run suite "$(lim 480)" "$OUT/suite.txt" python3 tests/run_tests.py --suite gpu --build build ;;
    only=*)
      t=${j#only=}
      safe=$(printf '%s' "$t" | tr -c 'A-Za-z0-9._-' '_')
      { timeout "$(lim 200)" build/test_gpu_kernels --only "$t"; echo "test_gpu_kernels exit $?"
        AICF_FUSION_ONLY=$t timeout "$(lim 200)" build/test_gpu_fusion; echo "test_gpu_fusion exit $?"; } > "$OUT/only-$safe.txt" 2>&1
      say "only=$t: $(grep -E 'passed, [0-9]+ failed|exit [0-9]+' "$OUT/only-$safe.txt" | tr '\n' ' ')"
      grep -q "exit [1-9]" "$OUT/only-$safe.txt" && fails=$((fails + 1)) ;;
    bench)
      rm -rf /tmp/devrun-bench
      OUT=/tmp/devrun-bench PEERS=$PEERS WORKDIR=$W run bench "$(lim 400)" "$OUT/bench-log.txt" \
        bash bench/run.sh --no-build --iters 300 --no-compile --skip-models --skip-gemm
      cp /tmp/devrun-bench/table.md "$OUT/bench-table.md" 2>/dev/null
      tar -C /tmp/devrun-bench -czf "$OUT/bench-results.tgz" . 2>/dev/null ;;
    ab=*)
      IFS=, read -r -a wls <<< "${j#ab=}"
      export_for "${wls[@]}"
      models=()
      for wl in "${wls[@]}"; do
        b=${wl#*_b}; b=${b%%_*}
        models+=("$W/${wl%%_*}.onnx:batch=$b")
      done
      if [ ! -x build/aicf_base ]; then say "ab: no build/aicf_base (bench/devpack.sh --base REV)"; fails=$((fails + 1))
      else run "ab ${wls[*]}" "$(lim 200)" "$OUT/ab.txt" bash bench/ab.sh --rounds 3 --iters 300 --out /tmp/devrun-ab build/aicf_base build/aicf "${models[@]}"
      fi ;;
    cmd=*) run "cmd ${j#cmd=}" "$(lim 200)" "$OUT/cmd-$n.txt" bash -c "${j#cmd=}" ;;
  esac
done
say "done: $# job(s), $fails not exiting 0"
[ $fails = 0 ]
