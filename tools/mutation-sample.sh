#!/bin/bash
# A sampled mutation score of the back end and the runtime (issue 8).
#
#   tools/mutation-sample.sh K N      # mutants i with i % N == K (cargo-mutants' round-robin shard)
#
# cargo-mutants (`cargo install cargo-mutants`) lists the mutants of translator/src/spirv/ and
# vk-runtime/src/ with their diffs; each is applied in a git worktree of HEAD (/work/mut-tree,
# its own target dir), built, and tested with the tests that exercise those files. (cargo-mutants'
# own runner tests only the mutated crate's package here, whose tests do not cover the back end.)
# Results: $OUT/results.txt, one line per mutant: caught (with the first failing test), MISSED,
# or unviable (does not build). About a minute per mutant on a 2-core machine.
set -u
K=${1:?shard index}; N=${2:?shard count}
OUT=${OUT:-/tmp/mutation-$K-$N}
TREE=${TREE:-/work/mut-tree}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/work/mut-target}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
ROOT=$(git rev-parse --show-toplevel)
mkdir -p "$OUT"
cargo mutants --workspace --list --diff -f 'translator/src/spirv/**/*.rs' -f 'vk-runtime/src/**/*.rs' \
  --shard "$K/$N" --sharding round-robin > "$OUT/all.diff"
python3 - "$OUT" <<'PY'
import re, sys
out = sys.argv[1]
blocks, cur = [], None
for line in open(f"{out}/all.diff").read().splitlines(keepends=True):
    m = re.match(r'^(\S+\.rs):(\d+):(\d+): (.*)$', line.rstrip("\n"))
    if m and not line.startswith(("---", "+++", "@@", " ", "+", "-")):
        cur = {"path": m.group(1), "desc": line.strip(), "body": []}
        blocks.append(cur)
    elif cur is not None:
        if line.startswith("--- "):
            line = f"--- a/{cur['path']}\n"
        elif line.startswith("+++ "):
            line = f"+++ b/{cur['path']}\n"
        cur["body"].append(line)
for i, b in enumerate(blocks):
    open(f"{out}/{i:03d}.patch", "w").write("".join(b["body"]).rstrip("\n") + "\n")
    open(f"{out}/{i:03d}.desc", "w").write(b["desc"] + "\n")
print(len(blocks), "mutants")
PY
[ -d "$TREE" ] || git -C "$ROOT" worktree add -f --detach "$TREE" HEAD
git -C "$TREE" checkout -q --detach "$(git -C "$ROOT" rev-parse HEAD)"
cd "$TREE" || exit 1
TESTS="--lib --test run_cases --test rounding_modes --test division --test packed_float --test float_bounds
  --test translate --test checked --test link --test printf --test cli --test fuzz --test abi_doc
  --test snapshots --test subgroups --test first_dispatch"
run_tests() { timeout 1200 cargo test --release --workspace $TESTS > "$OUT/last-test.log" 2>&1; }
echo "baseline $(date)" > "$OUT/results.txt"
run_tests || { echo "the unmutated tree fails its tests" >> "$OUT/results.txt"; exit 1; }
for p in "$OUT"/[0-9]*.patch; do
  n=$(basename "$p" .patch); desc=$(cat "$OUT/$n.desc")
  git checkout -q -- .
  if ! git apply "$p"; then echo "not-applied $desc" >> "$OUT/results.txt"; continue; fi
  if ! timeout 1800 cargo test --release --workspace $TESTS --no-run > "$OUT/$n-build.log" 2>&1; then
    echo "unviable $desc" >> "$OUT/results.txt"
  elif run_tests; then
    echo "MISSED $desc" >> "$OUT/results.txt"
  else
    echo "caught $desc ($(grep -m1 -o 'test [A-Za-z0-9_:]* \.\.\. FAILED' "$OUT/last-test.log"))" >> "$OUT/results.txt"
  fi
  git checkout -q -- .
done
echo "done $(date)" >> "$OUT/results.txt"
grep -c '^caught' "$OUT/results.txt" | sed 's/^/caught: /'
grep -c '^MISSED' "$OUT/results.txt" | sed 's/^/missed: /'
