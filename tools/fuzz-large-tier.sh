#!/usr/bin/env bash
# The large-graph tier of the differential fuzzer (docs/fuzzing.md): every
# program large (`--tier large`: kernels nested 60-150 deep, goto graphs,
# long loops), run on the cpu device and on lavapipe and compared.
#
#   tools/fuzz-large-tier.sh SHARD [COUNT]
#
# Shard SHARD owns seeds BASE + SHARD * 1,000,000 onwards (BASE=20000000 by
# default) and runs COUNT more programs (default: until stopped), CHUNK at a
# time (default 5). After each chunk it appends a line to
# $DIR/shard-SHARD/log (seeds, programs, findings, time) and records the
# next seed in $DIR/shard-SHARD/next, so a stopped shard resumes where it
# was. Findings (seed, verdict, reproducer) go to the log and under
# $DIR/shard-SHARD/finds/. REDUCE=1 reduces them first (slow: every step
# recompiles on lavapipe). DIR defaults to /tmp/fuzz-large; FUZZ to the
# release build of the fuzz example (built first when missing). Extra
# arguments for the fuzz example go in FUZZ_ARGS (e.g. "--set subgroups=false").
set -euo pipefail
shard=${1:?usage: tools/fuzz-large-tier.sh SHARD [COUNT]}
count=${2:-0}
base=${BASE:-20000000}
chunk=${CHUNK:-5}
dir=${DIR:-/tmp/fuzz-large}/shard-$shard
root=$(cd "$(dirname "$0")/.." && pwd)
fuzz=${FUZZ:-$root/target/release/examples/fuzz}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
mkdir -p "$dir/finds"
if [ ! -x "$fuzz" ]; then
    (cd "$root" && cargo build --release -p pisa-fuzz --example fuzz)
fi
next=$((base + shard * 1000000))
if [ -s "$dir/next" ]; then
    next=$(cat "$dir/next")
fi
reduce=()
if [ "${REDUCE:-0}" = 1 ]; then
    reduce=(--reduce)
fi
echo "$(date -u +%FT%TZ) shard $shard resumes at seed $next (chunks of $chunk)" | tee -a "$dir/log"
done_n=0
start=$(date +%s)
while [ "$count" = 0 ] || [ "$done_n" -lt "$count" ]; do
    n=$chunk
    if [ "$count" != 0 ] && [ $((count - done_n)) -lt "$n" ]; then
        n=$((count - done_n))
    fi
    t0=$(date +%s)
    # shellcheck disable=SC2086
    out=$("$fuzz" --device cpu --against vulkan --tier large --seed "$next" --count "$n" \
        --out "$dir/finds" "${reduce[@]}" ${FUZZ_ARGS:-} 2>>"$dir/stderr") || {
        echo "$(date -u +%FT%TZ) seeds $next..$((next + n)): the fuzz example failed (see $dir/stderr)" | tee -a "$dir/log"
        exit 2
    }
    t1=$(date +%s)
    finds=$(printf '%s\n' "$out" | grep -c '^seed ' || true)
    printf '%s\n' "$out" | grep -A2 '^seed ' >>"$dir/log" || true
    next=$((next + n))
    done_n=$((done_n + n))
    echo "$next" >"$dir/next"
    echo "$(date -u +%FT%TZ) seeds $((next - n))..$next: $n programs, $finds findings, $((t1 - t0)) s" >>"$dir/log"
    # totals over every run of this shard
    total=$(awk '/ programs, [0-9]+ findings/ { p += $4; f += $6 } END { print p + 0 " programs, " f + 0 " findings" }' "$dir/log")
    echo "shard $shard: $done_n programs this run in $((t1 - start)) s; in all $total; next seed $next"
done
