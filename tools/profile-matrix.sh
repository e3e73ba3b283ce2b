#!/bin/bash
# The whole profile matrix (issue "Any Vulkan GPU", item 6): every run case of tests/run/ and
# every case of ../shared/corpus/llvm-run/ through `pisa run --profile FILE` on lavapipe with the
# validation layer on, under one profile of each group of ../shared/device-profiles/ that PISA
# treats alike on lavapipe (pisa_device::profiles::run_groups; docs/devices.md, "The profile
# matrix on lavapipe"). `cargo test` runs the same test; this runs it in release with its output
# shown.
#
#   tools/profile-matrix.sh                 # every group (about 4 minutes on a 2-core machine)
#   tools/profile-matrix.sh subset          # four groups (about a minute)
#   tools/profile-matrix.sh FILE[,FILE...]  # the groups of these files (relative to
#                                           # ../shared/device-profiles/)
#
# Prints the groups, a table of each profile's passed and refused cases, and the refusals by
# reason; exits non-zero when a case gives a wrong output, a validation message, or an exit
# status other than 0 and 3 (a refusal naming a missing feature or a limit).
set -euo pipefail
cd "$(dirname "$0")/.."
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
export PISA_PROFILE_MATRIX=${1:-all}
exec cargo test --release --test profile_matrix run_cases_under_device_profiles -- --nocapture
