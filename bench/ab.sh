#!/usr/bin/env bash
# bench/ab.sh: two builds of aicf side by side on the same models, rounds alternated, outputs compared
# (docs/benchmarks.md, "A against B"). Every measurement in the benchmark notes that says "the base
# built in the same call, alternated" is this.
#
#   bench/ab.sh [--rounds N] [--iters N] [--precision P] [--backend B] [--out DIR] A_AICF B_AICF MODEL[:NAME=V[,NAME=V..]]...
#
#   A_AICF, B_AICF  two aicf command-line binaries (e.g. /tmp/base/build/aicf and build/aicf)
#   MODEL[:dims]    an ONNX model and its dimension bindings, e.g. /tmp/aicf-bench/enc.onnx:batch=32
#   --rounds N      rounds, A then B on every model in each (default 3)
#   --iters N       `aicf bench --iters` (default 300)
#   --precision P   fp32 | tf32 | fp16 (default fp16)
#   --backend B     cpu | cuda (default: aicf's default)
#   --out DIR       where the per-run JSON lines and outputs go (default: a new folder under /tmp)
#
# Prints one line per round and model (A's and B's median us), then per model the medians over
# the rounds, B - A, and whether the two builds' outputs are bitwise identical (else the largest
# absolute difference, when python3 has onnx and numpy). Exit status 0 when every run worked, 1
# when one failed, 2 on bad arguments.
set -u

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

rounds=3 iters=300 prec=fp16 backend="" out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) rounds="${2:-}"; shift 2 ;;
        --iters) iters="${2:-}"; shift 2 ;;
        --precision) prec="${2:-}"; shift 2 ;;
        --backend) backend="${2:-}"; shift 2 ;;
        --out) out="${2:-}"; shift 2 ;;
        -h|--help) usage ;;
        --*) echo "bench/ab.sh: unknown option $1" >&2; usage ;;
        *) break ;;
    esac
done
case "$rounds$iters" in *[!0-9]*|"") echo "bench/ab.sh: --rounds and --iters take positive integers" >&2; exit 2 ;; esac
[ "$rounds" -ge 1 ] && [ "$iters" -ge 1 ] || { echo "bench/ab.sh: --rounds and --iters must be at least 1" >&2; exit 2; }
[ $# -ge 3 ] || { echo "bench/ab.sh: need A_AICF, B_AICF and at least one MODEL" >&2; usage; }
A="$1" B="$2"
shift 2
for bin in "$A" "$B"; do
    [ -x "$bin" ] || { echo "bench/ab.sh: '$bin' is not an executable aicf binary" >&2; exit 2; }
done
for m in "$@"; do
    [ -f "${m%%:*}" ] || { echo "bench/ab.sh: model '${m%%:*}' not found" >&2; exit 2; }
done
[ -n "$out" ] || out=$(mktemp -d /tmp/aicf-ab.XXXXXX)
mkdir -p "$out" || exit 2

status=0
# one bench run: side (a|b), binary, model spec, round -> prints the median (or FAIL)
run_one() {
    local side="$1" bin="$2" spec="$3" r="$4" model dims args=() kv tag med
    model="${spec%%:*}"
    dims=""
    [ "$spec" != "$model" ] && dims="${spec#*:}"
    args=(bench "$model" --precision "$prec" --iters "$iters" --json)
    [ -n "$backend" ] && args+=(--backend "$backend")
    if [ -n "$dims" ]; then
        IFS=',' read -r -a kvs <<< "$dims"
        for kv in "${kvs[@]}"; do args+=(--dim "$kv"); done
    fi
    tag=$(printf '%s' "$spec" | tr -c 'A-Za-z0-9._=-' '_')
    args+=(--output "$out/$tag.$side.pb")
    if "$bin" "${args[@]}" > "$out/$tag.$side.r$r.json" 2> "$out/$tag.$side.r$r.err"; then
        med=$(grep -o '"median_us": *[0-9.]*' "$out/$tag.$side.r$r.json" | head -1 | grep -o '[0-9.]*$')
    fi
    if [ -z "${med:-}" ]; then
        echo "bench/ab.sh: $side ($bin) on $spec, round $r: $(head -c 300 "$out/$tag.$side.r$r.err")" >&2
        echo "FAIL"
        return 1
    fi
    echo "$med"
}

declare -A sum_a sum_b
echo "A = $A"
echo "B = $B"
echo "precision $prec, $iters timed calls a run, $rounds rounds, outputs under $out"
for r in $(seq 1 "$rounds"); do
    for spec in "$@"; do
        ta=$(run_one a "$A" "$spec" "$r") || status=1
        tb=$(run_one b "$B" "$spec" "$r") || status=1
        printf 'round %d  %-48s  A %10s us  B %10s us\n' "$r" "$spec" "$ta" "$tb"
        sum_a[$spec]="${sum_a[$spec]:-} $ta"
        sum_b[$spec]="${sum_b[$spec]:-} $tb"
    done
done

echo
printf '%-48s %12s %12s %10s  %s\n' "model" "A median" "B median" "B - A" "outputs"
for spec in "$@"; do
    tag=$(printf '%s' "$spec" | tr -c 'A-Za-z0-9._=-' '_')
    ma=$(printf '%s\n' ${sum_a[$spec]} | grep -v FAIL | sort -g | awk '{v[NR]=$1} END {if (NR) print (NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2)}')
    mb=$(printf '%s\n' ${sum_b[$spec]} | grep -v FAIL | sort -g | awk '{v[NR]=$1} END {if (NR) print (NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2)}')
    d="-"
    [ -n "$ma" ] && [ -n "$mb" ] && d=$(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%+.2f", b - a}')
    if [ ! -f "$out/$tag.a.pb" ] || [ ! -f "$out/$tag.b.pb" ]; then
        cmpres="not written"
    elif cmp -s "$out/$tag.a.pb" "$out/$tag.b.pb"; then
        cmpres="identical"
    else
        cmpres=$(python3 - "$out/$tag.a.pb" "$out/$tag.b.pb" 2>/dev/null <<'PY'
import sys
import numpy as np
import onnx
from onnx import numpy_helper
a = numpy_helper.to_array(onnx.load_tensor(sys.argv[1])).astype(np.float64)
b = numpy_helper.to_array(onnx.load_tensor(sys.argv[2])).astype(np.float64)
if a.shape != b.shape:
    print("differ (shapes %s, %s)" % (a.shape, b.shape))
else:
    print("differ: largest |B - A| %.3g, largest |A| %.3g" % (np.abs(b - a).max(), np.abs(a).max()))
PY
)
        [ -n "$cmpres" ] || cmpres="differ"
    fi
    printf '%-48s %12s %12s %10s  %s\n' "$spec" "${ma:--}" "${mb:--}" "$d" "$cmpres"
done
exit $status
