#!/usr/bin/env bash
# The differential fuzzer under device reports without shaderFloat64
# (docs/fuzzing.md, "Under device profiles without f64"): the default
# generator, run on the cpu device and on lavapipe restricted to a device
# report (`--profile`), so that the numerics go through the exactf32,
# softf64 and f32 math-library IR passes, and compared bit for bit.
#
#   tools/fuzz-profiles.sh [COUNT]
#
# One process, alternating between the reports in PROFILES (default: the
# Apple M1 under MoltenVK 0.2.2209 and the Intel Arc A770 under Mesa 26.1.2,
# both without shaderFloat64, with shaderInt64 and bufferDeviceAddress), a
# chunk of CHUNK programs (default 10) each. Each report is a shard with its
# own seeds, BASE + i * 1,000,000 onwards (BASE=30000000 by default); after
# each chunk the script appends a line to $DIR/<report>/log (seeds,
# programs, findings, skips, time) and records the next seed in
# $DIR/<report>/next, so a stopped campaign resumes where it was. Findings
# go to the log and under $DIR/<report>/finds/ (with their `pisa run
# --profile` command line); REDUCE=1 reduces them first. COUNT (default:
# until stopped) bounds the programs per report in this run. DIR defaults to
# /tmp/fuzz-profiles; FUZZ to the release build of the fuzz example (built
# first when missing); FUZZ_ARGS adds arguments for it.
#
# Each mismatch is triaged: the seed runs again on lavapipe without the
# profile, translated with TRIAGE_OPTIONS (default: lavapipe's workarounds
# with `exact-f32,soft-f64`, the no-f64 paths but the math library's f64
# kernels). If that agrees with the cpu device, the log says so: the
# difference comes from the math library's f32 kernels, which are within
# the spec's bounds but not always correctly rounded (docs/numerics.md,
# "Measured errors"), not a wrong result.
set -euo pipefail
count=${1:-0}
base=${BASE:-30000000}
chunk=${CHUNK:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
profiles=${PROFILES:-"$root/../shared/device-profiles/apple_m1_0_2_2209_macos_26_5_1.json $root/../shared/device-profiles/intel_r__arc_tm__a770_graphics__dg2__26_1_2_arch_unknown.json"}
top=${DIR:-/tmp/fuzz-profiles}
fuzz=${FUZZ:-$root/target/release/examples/fuzz}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
if [ ! -x "$fuzz" ]; then
    (cd "$root" && cargo build --release -p pisa-fuzz --example fuzz)
fi
reduce=()
if [ "${REDUCE:-0}" = 1 ]; then
    reduce=(--reduce)
fi
read -r -a files <<<"$profiles"
declare -a next done_n
for i in "${!files[@]}"; do
    f=${files[$i]}
    [ -f "$f" ] || { echo "no report $f" >&2; exit 2; }
    dir=$top/$(basename "$f" .json)
    mkdir -p "$dir/finds"
    next[$i]=$((base + i * 1000000))
    if [ -s "$dir/next" ]; then
        next[$i]=$(cat "$dir/next")
    fi
    done_n[$i]=0
    echo "$(date -u +%FT%TZ) $(basename "$f") resumes at seed ${next[$i]} (chunks of $chunk)" | tee -a "$dir/log"
done
start=$(date +%s)
while :; do
    active=0
    for i in "${!files[@]}"; do
        f=${files[$i]}
        dir=$top/$(basename "$f" .json)
        n=$chunk
        if [ "$count" != 0 ]; then
            left=$((count - done_n[i]))
            [ "$left" -gt 0 ] || continue
            [ "$left" -ge "$n" ] || n=$left
        fi
        active=1
        s=${next[$i]}
        t0=$(date +%s)
        # shellcheck disable=SC2086
        out=$("$fuzz" --device cpu --against vulkan --profile "$f" --seed "$s" --count "$n" \
            --out "$dir/finds" "${reduce[@]}" ${FUZZ_ARGS:-} 2>>"$dir/stderr") || {
            echo "$(date -u +%FT%TZ) seeds $s..$((s + n)): the fuzz example failed (see $dir/stderr)" | tee -a "$dir/log"
            exit 2
        }
        t1=$(date +%s)
        finds=$(printf '%s\n' "$out" | grep -c '^seed ' || true)
        skips=$(printf '%s\n' "$out" | sed -n 's/.* findings, \([0-9]*\) skipped.*/\1/p')
        printf '%s\n' "$out" | grep -A2 '^seed ' >>"$dir/log" || true
        for bad in $(printf '%s\n' "$out" | sed -n 's/^seed \([0-9]*\): mismatch.*/\1/p'); do
            t=$(PISA_SPIRV_OPTIONS=${TRIAGE_OPTIONS:-unroll,loop-cap,relaxed,opaque,opaque-push,exact-f32,soft-f64} \
                "$fuzz" --device cpu --against vulkan --seed "$bad" --count 1 --out "$dir/triage" 2>>"$dir/stderr" | tail -1)
            case "$t" in
            *" 0 findings"*) echo "triage $bad: agrees with the f64 math kernels: the f32 kernels' rounding (within bound)" >>"$dir/log" ;;
            *) echo "triage $bad: still differs with the f64 math kernels: $t" >>"$dir/log" ;;
            esac
        done
        next[$i]=$((s + n))
        done_n[$i]=$((done_n[i] + n))
        echo "${next[$i]}" >"$dir/next"
        echo "$(date -u +%FT%TZ) seeds $s..${next[$i]}: $n programs, $finds findings, ${skips:-?} skipped, $((t1 - t0)) s" >>"$dir/log"
        total=$(awk '/ programs, [0-9]+ findings/ { p += $4; f += $6; k += $8 } END { print p + 0 " programs, " f + 0 " findings, " k + 0 " skipped" }' "$dir/log")
        echo "$(basename "$f" .json): ${done_n[$i]} programs this run in $((t1 - start)) s; in all $total; next seed ${next[$i]}"
    done
    [ "$active" = 1 ] || break
done
