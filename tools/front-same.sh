#!/usr/bin/env bash
# Check that a front-end or IR refactor leaves what the tools print unchanged.
#
#   tools/front-same.sh save DIR    run the release `pisa` on every .pisa of the repository
#                                   and of ../shared (corpus, repros), five ways: `check`,
#                                   `check --json`, `check --target vulkan --kernels`, `ir`
#                                   and `ir --structured`, into DIR
#   tools/front-same.sh check DIR   run them again into a temporary folder and compare with
#                                   DIR (exit 1 and list the files that differ)
#
# Each output is standard output, standard error and the exit status of one run, so a
# changed diagnostic, a changed IR listing or a changed exit counts as a difference.
# The SPIR-V itself is `tools/spirv-same.sh`'s. PISA=path/to/pisa overrides the binary
# (default: target/release/pisa, built first).
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

run_all() {
    local out=$1
    mkdir -p "$out"
    local n=0
    while IFS= read -r f; do
        local base
        base=$(echo "$f" | tr '/' '_')
        local variant
        for variant in check json vulkan ir structured; do
            local args=()
            case $variant in
                check) args=(check) ;;
                json) args=(check --json) ;;
                vulkan) args=(check --target vulkan --kernels) ;;
                ir) args=(ir) ;;
                structured) args=(ir --structured) ;;
            esac
            local stem="$out/$base.$variant"
            # the file's name as given, so messages name it the same way in both runs
            set +e
            "$PISA" "${args[@]}" "$f" >"$stem.out" 2>"$stem.err"
            echo "exit $?" >>"$stem.err"
            set -e
            n=$((n + 1))
        done
    done < <( (find . -name '*.pisa' -not -path './target/*' -not -path './.git/*'; find ../shared -name '*.pisa' 2>/dev/null) | sort)
    echo "$n runs into $out" >&2
}

# shellcheck source=tools/same-frame.sh
source tools/same-frame.sh
same_main "$mode" "$dir" run_all "output"
