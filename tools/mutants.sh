#!/bin/bash
# Mutation scores (docs/testing.md): an even sample of cargo-mutants'
# mutants of one part of the code, run shard by shard. Two suites:
#
#   interp    the cpu device (`interp/`, crate pisa-interp), tested by the
#             tests of .cargo/mutants.toml; every 11th mutant (N=110 STEP=11)
#   numerics  the numerics passes (translator/src/ir/exactf32/, exactf64/,
#             softf64/, mathlib/), tested by the tests of
#             .cargo/mutants-numerics.toml; every 3rd mutant (N=99 STEP=3)
#
#   tools/mutants.sh [SUITE]            # run the sample's shards not yet done, then print the score
#   tools/mutants.sh [SUITE] score      # only print the score of the shards done so far
#   tools/mutants.sh [SUITE] check DIFF...  # do the suite's check tests catch these mutants?
#
# SUITE defaults to interp. Needs `cargo install cargo-mutants` (written
# against 27.1.0). The mutants are numbered as `cargo mutants --config
# CONFIG -p PACKAGE --list` lists them; with `--sharding round-robin`, shard
# K of N holds mutant i when i % N == K. The sample is shards 0, STEP,
# 2*STEP, ... of N: every STEP-th mutant, spread over every file in
# proportion to its mutants, and so is every prefix of its shards (a run
# cut short is still an even sample). Which tests run on each mutant, and
# how, is the suite's config file.
#
# The mutants are applied in place in a git worktree of HEAD (target/mutants-tree,
# target/mutants-numerics-tree; its own target/ there), so the worktree you edit is
# never mutated and the build of the unmutated tree is reused from shard to
# shard. Shard K's results are kept in RESULTS/shard-K/mutants.out (RESULTS:
# target/mutants, target/mutants-numerics; the files cargo-mutants writes:
# caught.txt, missed.txt, timeout.txt, unviable.txt, outcomes.json, log/); a
# shard whose directory has a `done` file is skipped, so a rerun resumes where
# an interrupted one stopped (the shard it stopped in starts again). Progress
# goes to RESULTS/progress.log.
# Everything runs under `nice -n 19` with one build job and one mutant at a
# time, so other builds on the machine keep priority.
set -u
ROOT=$(git rev-parse --show-toplevel) || exit 2
renice -n 19 -p $$ > /dev/null
SUITE=interp
case "${1:-}" in
  interp | numerics) SUITE=$1; shift ;;
esac
if [ "$SUITE" = interp ]; then
  N=${N:-110}
  STEP=${STEP:-11}
  PACKAGE=pisa-interp
  CONFIG=.cargo/mutants.toml
  TREE=$ROOT/target/mutants-tree
  RESULTS=${RESULTS:-$ROOT/target/mutants}
  # the unmutated tree must pass the same tests as the config runs on each mutant
  baseline_test() {
    cargo test -p pisa-interp -p pisa --lib --test run_cases --test corpus_run \
      --test link --test subgroups --test oracle -- --exact --skip cases_through_the_library \
      --skip cases_in_checked_mode --skip cases_through_the_command_line \
      --skip llvm_run_corpus_produces_expected_outputs
  }
  # the tests `check` runs on a mutant
  check_test() { cargo test -q -p pisa-interp --test oracle; }
  CHECKED_BY=interp/tests/oracle.rs
  TIMEOUT=120
else
  N=${N:-99}
  STEP=${STEP:-3}
  PACKAGE=pisa-translator
  CONFIG=.cargo/mutants-numerics.toml
  TREE=$ROOT/target/mutants-numerics-tree
  RESULTS=${RESULTS:-$ROOT/target/mutants-numerics}
  # the tests' quick tier (fewer random inputs): the sample of each test
  # that runs a library on the cpu device
  export PISA_NUMERICS_QUICK=1
  # the unmutated tree must pass the same tests as the config runs on each
  # mutant; `check` runs them too
  baseline_test() {
    cargo test -p pisa --test choice_of_library_calls --test exact_f32 --test exact_f16 \
      --test soft_f64 --test mathlib --test mathlib_f32 --test pipeline -- --skip vulkan \
      --skip lavapipe --skip run_cases_of_the_transcendentals \
      --skip frsqrt_df_with_f64_is_correctly_rounded
  }
  check_test() { baseline_test; }
  # the tests take about 25 s on a loaded 2-core machine
  TIMEOUT=90
  CHECKED_BY="the tests of $CONFIG"
fi
LOG=$RESULTS/progress.log
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
mkdir -p "$RESULTS"

score() {
  local c=0 m=0 u=0 t=0 n=0 k
  for k in $(seq 0 "$STEP" $((N - 1))); do
    local d=$RESULTS/shard-$k/mutants.out
    [ -f "$RESULTS/shard-$k/done" ] || continue
    n=$((n + 1))
    c=$((c + $(wc -l < "$d/caught.txt")))
    m=$((m + $(wc -l < "$d/missed.txt")))
    u=$((u + $(wc -l < "$d/unviable.txt")))
    t=$((t + $(wc -l < "$d/timeout.txt")))
  done
  echo "shards done: $n of $(seq 0 "$STEP" $((N - 1)) | wc -l) (every ${STEP}th shard of $N)"
  echo "caught: $c  missed: $m  timeout: $t  unviable: $u"
  # a timeout counts as caught: the mutant made a test hang (the kernel's loop
  # ran on until cargo-mutants' limit), which a test run by hand shows
  if [ $((c + m + t)) -gt 0 ]; then
    echo "score (caught + timeout) / viable: $((c + t))/$((c + m + t)) = $((100 * (c + t) / (c + m + t)))%"
  fi
  cat "$RESULTS"/shard-*/mutants.out/missed.txt 2>/dev/null | sed 's/^/missed: /'
}

if [ "${1:-}" = score ]; then score; exit 0; fi

# `tools/mutants.sh [SUITE] check DIFF...`: applies each mutant's diff (a file of
# RESULTS/shard-K/mutants.out/diff/) to this worktree in turn, runs
# the suite's check tests on it, and says whether a test caught it; the
# worktree is restored after each. CHECK_ROOT=DIR checks in another
# checkout (e.g. the mutants tree, already built, checked out at the commit
# with the new tests while no run is going)
if [ "${1:-}" = check ]; then
  shift
  CHECK_ROOT=${CHECK_ROOT:-$ROOT}
  for d in "$@"; do
    # cargo-mutants' diffs name the file on the `---` line only
    f=$CHECK_ROOT/$(sed -n '1s/^--- //p' "$d")
    patch -s "$f" < "$d" || { echo "does not apply: $d"; exit 2; }
    if (cd "$CHECK_ROOT" && check_test > "$RESULTS/check.log" 2>&1); then
      echo "MISSED by $CHECKED_BY: $d"
    else
      echo "caught by $(sed -n 's/^---- \([a-z0-9_:]*\) stdout ----$/\1/p' "$RESULTS/check.log" | tr '\n' ' ')(of $CHECKED_BY): $d"
    fi
    patch -s -R "$f" < "$d" || { echo "could not restore the worktree from $d"; exit 2; }
  done
  exit 0
fi

log() { echo "$(date '+%F %T') $*" | tee -a "$LOG"; }

head=$(git -C "$ROOT" rev-parse HEAD)
if [ ! -d "$TREE" ]; then
  git -C "$ROOT" worktree add -f --detach "$TREE" "$head" > /dev/null || exit 2
fi
# tests read ../shared relative to the repository root (the spec, the repros)
if [ -e "$ROOT/../shared" ] && [ ! -e "$TREE/../shared" ]; then
  ln -s "$(cd "$ROOT/../shared" && pwd)" "$TREE/../shared"
fi
# a shard interrupted mid-mutant leaves the mutated file behind: restore it
git -C "$TREE" checkout -q -f --detach "$head" && git -C "$TREE" clean -q -fd -e target || exit 2
log "start ($SUITE): commit $head, shards 0..$((N - 1)) step $STEP of $N"

cd "$TREE" || exit 2
if [ ! -f "$RESULTS/baseline-$head" ]; then
  # the unmutated tree must pass the same tests as .cargo/mutants.toml runs
  # on each mutant (cargo-mutants' own baseline
  # is skipped in each shard: this one is run once per commit)
  log "baseline build and test"
  if ! baseline_test > "$RESULTS/baseline.log" 2>&1; then
    log "the unmutated tree fails its tests: see $RESULTS/baseline.log"
    exit 1
  fi
  touch "$RESULTS/baseline-$head"
  log "baseline passed"
fi

for k in $(seq 0 "$STEP" $((N - 1))); do
  out=$RESULTS/shard-$k
  if [ -f "$out/done" ]; then continue; fi
  rm -rf "$out"
  mkdir -p "$out"
  log "shard $k/$N: $(cargo mutants --config "$CONFIG" -p "$PACKAGE" --list --shard "$k/$N" --sharding round-robin | wc -l) mutants"
  nice -n 19 cargo mutants --config "$CONFIG" -p "$PACKAGE" --in-place --shard "$k/$N" --sharding round-robin \
    --baseline skip --timeout "$TIMEOUT" --build-timeout 1200 -o "$out" > "$out/run.log" 2>&1
  rc=$?
  # 0: all caught, 2: some missed, 3: some timed out; anything else is a
  # failure of the run, not a result
  case $rc in
    0 | 2 | 3)
      touch "$out/done"
      d=$out/mutants.out
      log "shard $k/$N done: caught $(wc -l < "$d/caught.txt"), missed $(wc -l < "$d/missed.txt"), timeout $(wc -l < "$d/timeout.txt"), unviable $(wc -l < "$d/unviable.txt")"
      ;;
    *)
      log "shard $k/$N failed (cargo mutants exit $rc): see $out/run.log"
      exit 1
      ;;
  esac
done
log "all shards done"
score | tee -a "$LOG"
