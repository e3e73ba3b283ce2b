"""The cpu device against hostile input through the Python module (issue "Hostile input, round
two", items 11 and 16; the command line's tests are tests/hostile_cpu.rs): an allocation the host
cannot make is a PisaError ("out of device memory"), not an abort of the interpreter, and
`timeout=` holds for kernels that loop through barriers and for launches of very many work-items.
Each runs in a process of its own: the first under an address-space limit, the others so that a
deadline that does not hold cannot hang the test run."""

import json
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest

from conftest import ROOT


def run_script(script, timeout=60):
    """Runs `script` in a fresh Python; its one line of JSON output."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def write(src):
    f = tempfile.NamedTemporaryFile("w", suffix=".pisa", delete=False)
    f.write(src)
    f.close()
    return f.name


def test_a_data_block_the_host_cannot_hold_is_out_of_device_memory():
    # 3 GB of .global under a 1.6 GB address-space limit: the cpu device allocates the data
    # block at load, and must fail with the runtime's error (before: SIGABRT of the process)
    src = write(
        ".version 0.1;\n.target 100;\n.global .align 4 @g[3000000000];\n"
        ".kernel @k() { return; }\n"
    )
    result = run_script(
        f"""
        import json, resource
        import pisa
        limit = 1_600_000_000
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        try:
            pisa.load({src!r}, device="cpu")
            print(json.dumps({{"raised": None}}))
        except pisa.PisaError as e:
            print(json.dumps({{"raised": "PisaError", "message": str(e)}}))
        """
    )
    assert result["raised"] == "PisaError", result
    assert "out of device memory (the module's data block of 3000000000 bytes)" in result["message"]


@pytest.mark.parametrize(
    "src,global_size,local_size",
    [
        # one work-item looping through a barrier: the deadline used to be checked only after
        # 2^20 instructions without one
        (".version 0.1;\n.target 100;\n.kernel @k() {\nspin:\n\tbarrier.workgroup;\n\tgoto spin;\n}\n", 1, 1),
        # 10^9 empty work-items
        (".version 0.1;\n.target 100;\n.kernel @k() {\n\treturn;\n}\n", 1_000_000_000, 64),
    ],
)
def test_the_timeout_holds_on_the_cpu_device(src, global_size, local_size):
    path = write(src)
    t0 = time.monotonic()
    result = run_script(
        f"""
        import json
        import pisa
        prog = pisa.load({path!r}, device="cpu", timeout=1.0)
        try:
            prog.run("k", global_size={global_size}, local_size={local_size}, args=[])
            print(json.dumps({{"raised": None}}))
        except pisa.PisaError as e:
            print(json.dumps({{"raised": "PisaError", "message": str(e)}}))
        """,
        timeout=60,
    )
    took = time.monotonic() - t0
    assert result["raised"] == "PisaError", result
    assert "did not finish within 1s" in result["message"], result
    assert took < 20, took
