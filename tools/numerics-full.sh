#!/usr/bin/env bash
# The numerics tests' full tier (docs/numerics.md): PISA_NUMERICS_FULL=1,
# 1,000,000 random items per form (every 16-bit encoding and about 1,040,000
# f32 sources per transcendental form), release build, one test at a time,
# the lavapipe tests first (they compare lavapipe's results with the cpu
# device's float core, library and translation together), then the
# library on the reference device.
#
#   tools/numerics-full.sh
#
# Each test's per-form lines (`ON: FORM: N items, M mismatches`; for the
# transcendentals `max D ULP ... K of N not correctly rounded`) go to
# $DIR/TEST.log (DIR defaults to /tmp/numerics-full), and a line with its
# result and time to $DIR/log. A test already done (in $DIR/done) is not
# rerun, so a stopped run resumes at the next test.
set -uo pipefail
dir=${DIR:-/tmp/numerics-full}
root=$(cd "$(dirname "$0")/.." && pwd)
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
export PISA_NUMERICS_FULL=1
mkdir -p "$dir"
touch "$dir/done"
cd "$root" || exit 2
tests="exact_f32:library_on_vulkan_without_f64_is_exact
soft_f64:library_on_vulkan_without_f64_is_exact
mathlib_f32:lavapipe_runs_the_f32_kernels_as_the_reference_device_does
exact_f16:library_on_vulkan_without_f64_is_exact
exact_f32:library_on_the_reference_device_is_exact
soft_f64:library_on_the_reference_device_is_exact
mathlib_f32:reference_device_runs_the_f32_kernels_within_the_bounds
exact_f16:library_on_the_reference_device_is_exact"
cargo test --release --test exact_f32 --test soft_f64 --test mathlib_f32 --test exact_f16 --no-run \
    >>"$dir/build.log" 2>&1 || { echo "$(date -u +%FT%TZ) build failed (see $dir/build.log)" >>"$dir/log"; exit 2; }
for t in $tests; do
    grep -qx "$t" "$dir/done" && continue
    bin=${t%%:*}
    name=${t#*:}
    t0=$(date +%s)
    echo "$(date -u +%FT%TZ) $t starts" >>"$dir/log"
    if cargo test --release --test "$bin" -- --exact "$name" --nocapture --test-threads=1 \
        >"$dir/$bin.$name.log" 2>&1; then
        r=passed
    else
        r=FAILED
    fi
    echo "$(date -u +%FT%TZ) $t $r in $(($(date +%s) - t0)) s" >>"$dir/log"
    echo "$t" >>"$dir/done"
done
