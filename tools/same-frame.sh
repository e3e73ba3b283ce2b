# Sourced by tools/spirv-same.sh and tools/front-same.sh: their common frame.
#
#   same_main MODE DIR RUN WHAT   MODE `save`: RUN DIR (a function that writes every output
#                                 into DIR); `check`: RUN into a temporary folder and compare
#                                 it with DIR (exit 1 and list the files that differ); WHAT
#                                 names the outputs in the verdict ("SPIR-V", "output").
same_main() {
    local mode=$1 dir=$2 run=$3 what=$4
    case $mode in
        save) "$run" "$dir" ;;
        check)
            tmp=$(mktemp -d)
            trap 'rm -rf "$tmp"' EXIT
            "$run" "$tmp"
            if diff -rq "$dir" "$tmp"; then
                echo "$what identical to $dir" >&2
            else
                echo "$what differs from $dir" >&2
                exit 1
            fi
            ;;
        *)
            echo "usage: $0 save|check DIR" >&2
            exit 2
            ;;
    esac
}
