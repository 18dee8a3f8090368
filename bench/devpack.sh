#!/usr/bin/env bash
# bench/devpack.sh: packs what a GPU session needs into .devdata/ (git-ignored), so that the GPU
# machine builds nothing and a device call spends its time measuring (docs/benchmarks.md,
# "A GPU session in few calls"). Run it here, on the CPU machine; then, on the GPU machine, with
# .devdata carried: bench/devrun.sh JOB...
#
#   bench/devpack.sh [--base REV] [--data] [--extra BIN...]
#
#   builds   build/aicf and the GPU suite's binaries (build/test_gpu_* of tests/test_gpu*.c,
#            build/node_tests) with make
#   --base REV  also build/aicf of commit REV (a git worktree under /tmp sharing build/kcache, so
#            only the changed kernels compile), packed as build/aicf_base: bench/ab.sh's A side
#   --data   copy ../shared/data (the models and the ONNX node tests, ~31 MB) to .devdata/data:
#            the GPU suite's model and node tests need it, the benchmark's plan-creation part
#            reads onnx_light/light_resnet50 from it (../shared does not travel to the GPU machine)
#   --extra BIN...  more binaries from build/ into the pack (e.g. ln_fold built with nvcc)
#
# Writes .devdata/bins.tar.xz (every binary in one xz stream with a 256 MiB dictionary: they
# share the ~45 MB kernel table, so six of them pack into ~5 MB, against ~3.5 MB each alone),
# .devdata/bench/peers.py (from ../shared/bench), and with --data .devdata/data. Prints what will
# travel beside the tracked files; a device call refuses a tree over 64 MiB (tracked and untracked
# files, carried paths; a call with 59 MiB of these was refused, so something more counts, likely
# .git: keep the total well under). Exit status 0 packed, 1 a build or copy failed, 2 bad usage.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

BASE="" DATA=0 EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --base) BASE=${2:?--base needs a commit}; shift 2 ;;
    --data) DATA=1; shift ;;
    --extra) shift; while [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; do EXTRA+=("$1"); shift; done ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "bench/devpack.sh: unknown argument '$1' (--help lists them)" >&2; exit 2 ;;
  esac
done
SHARED=${SHARED:-../shared}
D=.devdata
# build/aicf, the GPU suite's unit tests (tests/test_gpu*.c, as tests/run_tests.py --suite gpu finds
# them) and the ONNX node test runner
BINS=(aicf node_tests)
for t in tests/test_gpu*.c; do t=${t#tests/}; BINS+=("${t%.c}"); done
rev=""
if [ -n "$BASE" ]; then
  rev=$(git rev-parse --verify --quiet "$BASE^{commit}") || { echo "bench/devpack.sh: --base $BASE: no such commit" >&2; exit 2; }
fi

echo "devpack: make all and the GPU suite's binaries"
if ! make -s all "${BINS[@]/#/build/}" > /tmp/devpack-make.log 2>&1; then
  tail -20 /tmp/devpack-make.log; echo "bench/devpack.sh: make failed (log: /tmp/devpack-make.log)" >&2; exit 1
fi
for b in "${EXTRA[@]}"; do
  [ -x "build/$b" ] || { echo "bench/devpack.sh: --extra $b: build/$b is missing or not executable" >&2; exit 1; }
done

mkdir -p "$D/bench" build/devpack
rm -f build/devpack/*
for b in "${BINS[@]}" "${EXTRA[@]}"; do ln -f "build/$b" "build/devpack/$b" 2>/dev/null || cp "build/$b" "build/devpack/$b"; done

if [ -n "$rev" ]; then
  wt=/tmp/aicf-devpack-base
  echo "devpack: the base build/aicf of $(git rev-parse --short "$rev") in $wt"
  git worktree remove --force "$wt" > /dev/null 2>&1; rm -rf "$wt"
  git worktree add -q --detach "$wt" "$rev" || { echo "bench/devpack.sh: git worktree add failed" >&2; exit 1; }
  mkdir -p "$wt/build"
  if [ -d build/kcache ]; then cp -al build/kcache "$wt/build/kcache" 2>/dev/null || cp -r build/kcache "$wt/build/kcache"; fi
  if ! make -s -C "$wt" build/aicf > /tmp/devpack-base.log 2>&1; then
    tail -20 /tmp/devpack-base.log; echo "bench/devpack.sh: the base build failed (log: /tmp/devpack-base.log)" >&2; exit 1
  fi
  cp "$wt/build/aicf" build/devpack/aicf_base
  git worktree remove --force "$wt" > /dev/null 2>&1
fi

echo "devpack: packing $(ls build/devpack | tr '\n' ' ')"
if ! tar -C build/devpack -cf - . | xz -T1 --lzma2=preset=6,dict=256MiB > "$D/bins.tar.xz.tmp"; then
  echo "bench/devpack.sh: tar | xz failed" >&2; exit 1
fi
mv "$D/bins.tar.xz.tmp" "$D/bins.tar.xz"
rm -rf build/devpack

if [ -f "$SHARED/bench/peers.py" ]; then cp "$SHARED/bench/peers.py" "$D/bench/peers.py"
else echo "devpack: $SHARED/bench/peers.py not found: the benchmark's peers part will be skipped there"; fi
if [ "$DATA" = 1 ]; then
  [ -d "$SHARED/data/models" ] || { echo "bench/devpack.sh: --data: $SHARED/data/models not found" >&2; exit 1; }
  rm -rf "$D/data" && mkdir -p "$D/data" && cp -r "$SHARED/data/models" "$D/data/" &&
    cp "$SHARED"/data/*.tar.gz "$D/data/" 2>/dev/null
fi

mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
tracked=$(git ls-files -z | xargs -0 cat 2>/dev/null | wc -c)
dev=$(du -sb "$D" | cut -f1)
gitb=$(du -sb .git | cut -f1)
echo "devpack: $D $(mib "$dev") MiB + tracked files $(mib "$tracked") MiB = $(mib $((dev + tracked))) MiB (.git $(mib "$gitb") MiB more if it counts; limit 64)"
echo "devpack: on the GPU machine (carry [\".devdata\"]): bash bench/devrun.sh suite bench ..."
