"""Ctrl-C during `Program.run`: the launch checks Python's signals,
so a KeyboardInterrupt ends it at once instead of after the launch timeout
(issue "Hostile input, round two", item 17)."""

import json
import os
import subprocess
import sys

from conftest import ROOT, path

# Runs in a process of its own: the kernel cannot be stopped, and keeps the
# (software) device busy until that process exits.
SCRIPT = r"""
import json, os, signal, sys, threading, time
import numpy as np
import pisa

prog = pisa.load(sys.argv[1], timeout=60.0)
if prog.device.startswith("cpu"):
    print(json.dumps({"skip": "no Vulkan device"}))
    sys.exit(0)
out = np.zeros(1, np.uint32)
# millions of work-items that loop for as long as the driver lets them: far
# longer than the test waits
args = dict(global_size=16777216, local_size=64, args=[out])
timer = threading.Timer(2.0, lambda: os.kill(os.getpid(), signal.SIGINT))
t0 = time.monotonic()
timer.start()
try:
    prog.run("forever", **args)
    result = {"raised": None}
except KeyboardInterrupt:
    result = {"raised": "KeyboardInterrupt"}
except Exception as e:
    result = {"raised": type(e).__name__, "message": str(e)}
result["seconds"] = time.monotonic() - t0
timer.join()
# the program is unusable after: its kernel may still be running
try:
    prog.run("forever", **args)
except pisa.PisaError as e:
    result["after"] = str(e)
print(json.dumps(result))
sys.stdout.flush()
os._exit(0)
"""


def test_ctrl_c_interrupts_a_launch():
    env = dict(os.environ)
    env.pop("PISA_DEVICE", None)
    p = subprocess.run(
        [sys.executable, "-c", SCRIPT, path("tests/run/forever.pisa")],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
    )
    assert p.returncode == 0, p.stderr
    result = json.loads(p.stdout.strip().splitlines()[-1])
    if "skip" in result:
        import pytest

        pytest.skip(result["skip"])
    assert result["raised"] == "KeyboardInterrupt", result
    # the signal comes after 2 s; the launch timeout is 60 s
    assert result["seconds"] < 12, result
    assert result["after"] == (
        "the runtime is unusable after an earlier timeout, interrupted wait or device loss"
    ), result


# The cpu device stops the kernel itself when the launch is given up (issue
# "One typed instruction, one device contract", item 2): the program stays
# usable, and its next launch runs.
CPU_SCRIPT = r"""
import json, os, signal, sys, threading, time
import numpy as np
import pisa

prog = pisa.load(sys.argv[1], device="cpu", timeout=600.0)
out = np.zeros(1, np.uint32)
timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
t0 = time.monotonic()
timer.start()
try:
    prog.run("forever", global_size=1, local_size=1, args=[out])
    result = {"raised": None}
except KeyboardInterrupt:
    result = {"raised": "KeyboardInterrupt"}
except Exception as e:
    result = {"raised": type(e).__name__, "message": str(e)}
result["seconds"] = time.monotonic() - t0
timer.join()
# usable after: a second launch is interrupted the same way
timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
timer.start()
try:
    prog.run("forever", global_size=1, local_size=1, args=[out])
    result["after"] = None
except KeyboardInterrupt:
    result["after"] = "KeyboardInterrupt"
except Exception as e:
    result["after"] = str(e)
timer.join()
print(json.dumps(result))
"""


def test_ctrl_c_interrupts_a_launch_on_the_cpu_device():
    p = subprocess.run(
        [sys.executable, "-c", CPU_SCRIPT, path("tests/run/forever.pisa")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert p.returncode == 0, p.stderr
    result = json.loads(p.stdout.strip().splitlines()[-1])
    assert result["raised"] == "KeyboardInterrupt", result
    # the signal comes after 1 s; the launch timeout is 600 s
    assert result["seconds"] < 12, result
    assert result["after"] == "KeyboardInterrupt", result
