#!/usr/bin/env bash
# Compare two `pisa` binaries on the tool-speed module, by CPU time (user + system), the two
# binaries interleaved round by round; prints each command's median CPU seconds, best round,
# instructions per second and peak resident bytes per instruction (README, "Speed of the
# tools"). On a shared machine the CPU time is what stays comparable; the wall time follows
# the load.
#
#   tools/tool-speed-ab.sh OLD_PISA NEW_PISA [ROUNDS] [INSTRUCTIONS]
#
# The module is `benches/tool_speed.rs`'s (1,000,006 instructions by default, a `goto` loop
# every 16), written to a temporary folder by `cargo bench --bench tool_speed -- --write DIR`.
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: $0 OLD_PISA NEW_PISA [ROUNDS] [INSTRUCTIONS]}
new=${2:?usage: $0 OLD_PISA NEW_PISA [ROUNDS] [INSTRUCTIONS]}
rounds=${3:-7}
n=${4:-1000000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cargo bench --quiet --bench tool_speed -- --write "$dir" "$n" >/dev/null
src=$dir/big.pisa
instr=$(grep -c $'^\t[^.]' "$src")
declare -A cpu rss
for r in $(seq "$rounds"); do
    for which in old new; do
        bin=${!which}
        for cmd in check spirv; do
            args=("$cmd" "$src")
            [[ $cmd == spirv ]] && args+=(-o "$dir/out.spv")
            line=$( { /usr/bin/time -f "%U %S %M" "$bin" "${args[@]}" >/dev/null; } 2>&1 | tail -1)
            read -r u s m <<<"$line"
            cpu[$which.$cmd]+="$(echo "$u + $s" | bc) "
            rss[$which.$cmd]+="$m "
        done
    done
done
printf '%-6s %-6s %10s %10s %14s %12s\n' binary cmd "median s" "best s" "instr/s" "bytes/instr"
for which in old new; do
    for cmd in check spirv; do
        med=$(tr ' ' '\n' <<<"${cpu[$which.$cmd]}" | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
        best=$(tr ' ' '\n' <<<"${cpu[$which.$cmd]}" | grep . | sort -n | head -1)
        kb=$(tr ' ' '\n' <<<"${rss[$which.$cmd]}" | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
        printf '%-6s %-6s %10.3f %10.3f %14.0f %12.0f\n' "$which" "$cmd" "$med" "$best" \
            "$(echo "$instr / $med" | bc -l)" "$(echo "$kb * 1024 / $instr" | bc -l)"
    done
done
