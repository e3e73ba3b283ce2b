#!/usr/bin/env bash
# Check that a back-end refactor leaves the SPIR-V output byte-identical.
#
#   tools/spirv-same.sh save DIR    translate every .pisa under shaders/, tests/run and
#                                   tests/translate with the release `pisa spirv`, four
#                                   ways (default, --unroll-loops, --numerics soft, and
#                                   --profile of a device without f64 or 64-bit atomics:
#                                   emulated atomics, soft f64, loop caps), into DIR
#   tools/spirv-same.sh check DIR   translate again into a temporary folder and compare with DIR
#                                   (exit 1 and list the files that differ)
#
# Each output is the binary (NAME.spv) or, where the translator refuses, its message and
# exit status (NAME.err), so a changed refusal counts as a difference too.
# PISA=path/to/pisa overrides the binary (default: target/release/pisa, built first);
# PROFILE=FILE the device profile of the fourth way (default: Apple M1 from
# ../shared/device-profiles; the way is skipped where the file is absent).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
dir=${2:-}
if [[ -z $mode || -z $dir ]]; then
    echo "usage: $0 save|check DIR" >&2
    exit 2
fi

if [[ -z ${PISA:-} ]]; then
    cargo build --release --quiet --bin pisa
    PISA=target/release/pisa
fi

PROFILE=${PROFILE:-../shared/device-profiles/apple_m1_0_2_2015_osx_14_3.json}

translate_all() {
    local out=$1
    mkdir -p "$out"
    local n=0
    while IFS= read -r f; do
        local base
        base=$(echo "$f" | tr '/' '_')
        local variant
        for variant in default unroll soft profile; do
            local args=()
            case $variant in
                unroll) args=(--unroll-loops) ;;
                soft) args=(--numerics soft) ;;
                profile)
                    [[ -f $PROFILE ]] || continue
                    args=(--profile "$PROFILE")
                    ;;
            esac
            local stem="$out/$base.$variant"
            if "$PISA" spirv "${args[@]}" -o "$stem.spv" "$f" 2>"$stem.err"; then
                rm -f "$stem.err"
            else
                echo "exit $?" >>"$stem.err"
                rm -f "$stem.spv"
            fi
            n=$((n + 1))
        done
    done < <(find shaders tests/run tests/translate -name '*.pisa' 2>/dev/null | sort)
    echo "$n translations into $out" >&2
}

# shellcheck source=tools/same-frame.sh
source tools/same-frame.sh
same_main "$mode" "$dir" translate_all "SPIR-V (byte for byte)"
