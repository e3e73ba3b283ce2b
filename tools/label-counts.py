#!/usr/bin/env python3
"""Where a program's loop trips go: counts the entries of every label.

    tools/label-counts.py CASE_DIR [PISA_BINARY]

CASE_DIR holds a fuzzer reproducer (case.pisa and command.txt, as the fuzz
example writes with --out, or with --dump under CASE_DIR/current). Writes an
instrumented copy (CASE_DIR/counted.pisa): every function's entry and every
label adds 1 (a 32-bit atomic, no loop) to its own word of a global
`.host_access("cnt")`. Runs it on the cpu device and on the Vulkan device
(lavapipe) with the loop-cap detection off (PISA_SPIRV_OPTIONS without
`loop-cap`), and prints the labels by cpu count, with lavapipe's count
beside it: where the counts differ, a loop was cut short there (llvmpipe's
65,535-trip cap, docs/abi.md), and the labels with the largest counts are
where the trips go (counts are totals over all work-items; llvmpipe counts
trips per SIMD vector of 8). docs/fuzzing.md, "Large-graph tier".
"""
import json
import os
import re
import shlex
import subprocess
import sys

LABEL = re.compile(r"^\s*([A-Za-z_$][\w$]*):\s*(//.*)?$")
FUNC = re.compile(r"^\s*(\.entry|\.kernel|\.function|\.func|\.visible|\.extern|\.weak|\.export)\b.*?@(\w+)")
# llvmpipe's workarounds without the loop-cap detection (vk-runtime/src/device.rs)
NO_DETECT = "unroll,relaxed,opaque,opaque-push,fma-f64,exact-division"


def instrument(src):
    """The program with a counter at every function entry and label; the
    counters' names, in order."""
    out, names = [], []
    func = "?"
    pending_entry = False  # inside a body, before its first instruction
    depth = 0

    def counter(name):
        i = len(names)
        names.append(name)
        return [
            "\tmov.32b %pisa_cnt_one, 1;",
            f"\tiatom.global.add.32b %pisa_cnt_old, [@pisa_cnt + {4 * i}], %pisa_cnt_one;",
        ]

    target_seen = False
    for line in src.splitlines():
        s = line.strip()
        m = FUNC.match(line)
        if m and depth == 0:
            func = m.group(2)
        if depth > 0 and pending_entry and s and not s.startswith((".", "//", "{", "}")) and not LABEL.match(line):
            out += counter(f"{func}: entry")
            pending_entry = False
        if depth > 0 and pending_entry and LABEL.match(line):
            out += counter(f"{func}: entry")
            pending_entry = False
        out.append(line)
        if s.startswith(".target") and not target_seen:
            target_seen = True
            out.append("@@GLOBAL@@")
        opens, closes = s.count("{"), s.count("}")
        if depth == 0 and opens and not s.startswith((".global", ".const")) and "=" not in s:
            out.append("\t.reg .32b %pisa_cnt_old, %pisa_cnt_one;")
            pending_entry = True
        depth += opens - closes
        lm = LABEL.match(line)
        if lm and depth > 0:
            out += counter(f"{func}: {lm.group(1)}")
    decl = f'.global .align 4 .host_access("cnt") @pisa_cnt[{4 * max(1, len(names))}];'
    text = "\n".join(out).replace("@@GLOBAL@@", decl) + "\n"
    return text, names


def run(pisa, args, cpu):
    cmd = [pisa, "run", "--json", "--compile-timeout", "3000", "--timeout", "1200"] + args + (["--device", "cpu"] if cpu else [])
    env = dict(os.environ)
    env.setdefault("XDG_RUNTIME_DIR", "/tmp")
    if not cpu:
        env["PISA_SPIRV_OPTIONS"] = NO_DETECT
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"{cmd[0]} run ({'cpu' if cpu else 'vulkan'}): exit {p.returncode}\n{p.stderr[-2000:]}")
    b = json.loads(p.stdout)["globals"]["cnt"]
    return [int.from_bytes(bytes(b[i : i + 4]), "little") for i in range(0, len(b), 4)]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    pisa = sys.argv[2] if len(sys.argv) > 2 else "target/release/pisa"
    src = open(os.path.join(d, "case.pisa")).read()
    text, names = instrument(src)
    counted = os.path.join(d, "counted.pisa")
    open(counted, "w").write(text)
    words = shlex.split(open(os.path.join(d, "command.txt")).read())
    # `pisa run FILE ARGS...`: keep the launch's options, replace the file
    at = words.index("run")
    args = [counted] + [w for w in words[at + 2 :] if w != "--json"]
    cpu = run(pisa, args, True)
    lvp = run(pisa, args, False)
    print(f"{'cpu':>12} {'lavapipe':>12}  label ({len(names)} counters)")
    rows = sorted(range(len(names)), key=lambda i: -cpu[i])
    for i in rows:
        mark = "  <- differs" if cpu[i] != lvp[i] else ""
        if cpu[i] or lvp[i]:
            print(f"{cpu[i]:>12} {lvp[i]:>12}  {names[i]}{mark}")
    print(f"{sum(cpu):>12} {sum(lvp):>12}  total")


if __name__ == "__main__":
    main()
