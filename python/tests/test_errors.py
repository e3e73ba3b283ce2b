"""Errors are pisa.PisaError with the full text: assembler diagnostics,
argument checks against the kernel's parameters, launch errors."""

import re

import numpy as np
import pytest

import pisa
from conftest import path

SAXPY_ARGS = lambda n: [np.float32(2), np.zeros(n, np.float32), np.zeros(n, np.float32), np.uint32(n)]


def test_an_assembly_error_names_file_line_and_column(tmp_path):
    bad = tmp_path / "bad.pisa"
    bad.write_text(
        ".version 0.1;\n"
        ".target 100;\n"
        ".kernel @k() {\n"
        "  .reg .32b %a;\n"
        "  iadd.32b %a, %a, %nope;\n"
        "  return;\n"
        "}\n"
    )
    with pytest.raises(pisa.PisaError) as e:
        pisa.load(str(bad), device="cpu")
    text = str(e.value)
    assert text.startswith("error")
    # the undeclared register, line 5, column 20
    assert f"{bad}:5:20" in text
    assert "%nope" in text


def test_errors_in_linked_files_name_their_file(tmp_path):
    lib = tmp_path / "lib.pisa"
    lib.write_text(".version 0.1;\n.target 100;\n.function @f() {\n  retrun;\n}\n")
    with pytest.raises(pisa.PisaError, match=re.escape(f"{lib}:4:3")):
        pisa.load(path("tests/link/main.pisa"), lib, device="cpu")


def test_a_missing_file():
    with pytest.raises(pisa.PisaError, match="cannot read"):
        pisa.load("no/such/file.pisa", device="cpu")


def test_a_wrong_argument_count(load):
    prog = load("shaders/saxpy.pisa")
    with pytest.raises(pisa.PisaError, match="kernel `saxpy` takes 4 arguments, 3 given"):
        prog.run("saxpy", global_size=10, args=SAXPY_ARGS(10)[:3])


def test_arguments_of_the_wrong_size_or_kind(load):
    prog = load("shaders/saxpy.pisa")
    args = SAXPY_ARGS(4)
    cases = [
        (0, np.float64(2), r"argument 0 \(`%a`, .param\[4\]\) takes 4 bytes, but a numpy float64 has 8"),
        (0, 2.0, r"a Python float is refused.*np\.float32"),
        (0, True, "a Python bool has no size"),
        (3, 2**32, "fits 4 bytes neither as a signed nor as an unsigned"),
        (3, -(2**31) - 1, "fits 4 bytes neither"),
        (1, [1.0, 2.0], "a list cannot be a kernel argument"),
        (3, np.zeros(1, np.uint32), "takes 4 bytes, not a pointer"),
        (1, np.zeros((4, 4), np.float32)[:, 0], "not C-contiguous"),
        (1, np.zeros(4, dtype=">f4"), "byte order"),
        (1, np.zeros(4, dtype=object), "Python objects"),
    ]
    for i, value, message in cases:
        bad = list(args)
        bad[i] = value
        with pytest.raises(pisa.PisaError, match=message):
            prog.run("saxpy", global_size=4, args=bad)
    # the extremes of both readings fit
    for n in (-(2**31), 2**32 - 1):
        bad = list(args)
        bad[3] = n
        prog.run("saxpy", global_size=4, args=bad)


def test_bad_sizes_and_kernels(load):
    prog = load("shaders/saxpy.pisa")
    args = SAXPY_ARGS(4)
    with pytest.raises(pisa.PisaError, match=r"no kernel `nope`.*@saxpy"):
        prog.run("nope", global_size=4, args=args)
    with pytest.raises(pisa.PisaError, match="1 to 3 ints"):
        prog.run("saxpy", global_size=(1, 1, 1, 1), args=args)
    with pytest.raises(pisa.PisaError, match="at least 1"):
        prog.run("saxpy", global_size=0, args=args)
    with pytest.raises(pisa.PisaError, match="not a size"):
        prog.run("saxpy", global_size=4.0, args=args)
    with pytest.raises(pisa.PisaError, match="overflows 32 bits"):
        prog.run("saxpy", global_size=4, offset=2**32 - 2, args=args)
    with pytest.raises(pisa.PisaError, match="local_size has 2 dimensions, global_size 1"):
        prog.run("saxpy", global_size=4, local_size=(4, 1), args=args)


def test_a_launch_error_on_the_cpu_device():
    prog = pisa.load(path("tests/run/wild_pointer.pisa"), device="cpu")
    with pytest.raises(pisa.PisaError) as e:
        prog.run("wild", global_size=1)
    # the store of line 12, column 2 (after a tab), by the work-item that made it
    assert str(e.value) == (
        path("tests/run/wild_pointer.pisa") + ":12:2: `st.global.32b [%p], %v;`: out-of-bounds access"
        " of 4 bytes at device address 0x10 (work-item [0, 0, 0] of work-group [0, 0, 0])"
    )
    # the device stays usable
    prog2 = pisa.load(path("shaders/saxpy.pisa"), device="cpu")
    y = np.zeros(2, np.float32)
    prog2.run("saxpy", global_size=2, args=[np.float32(1), np.ones(2, np.float32), y, np.uint32(2)])
    assert y.tolist() == [1.0, 1.0]


def test_an_unknown_device():
    with pytest.raises(pisa.PisaError, match="no Vulkan device matches `no such device`"):
        pisa.load(path("shaders/saxpy.pisa"), device="no such device")
    with pytest.raises(pisa.PisaError, match="positive number of seconds"):
        pisa.load(path("shaders/saxpy.pisa"), device="cpu", timeout=0)


def test_a_negative_device_index_is_a_pisa_error():
    # it was OverflowError, from the conversion of -1 to an index
    for index in (-1, 2**64):
        with pytest.raises(pisa.PisaError) as e:
            pisa.load(path("shaders/saxpy.pisa"), device=index)
        assert str(e.value) == (
            f"device {index}: no device has this index (indices count from 0, "
            "as pisa.devices() and `pisa devices` list them)"
        )


def test_the_cpu_device_s_index_selects_it(monkeypatch):
    # its index is the number of Vulkan devices: `pisa devices` lists it last
    monkeypatch.delenv("PISA_DEVICE", raising=False)
    index = len(pisa.devices()) - 1
    prog = pisa.load(path("shaders/saxpy.pisa"), device=index)
    assert prog.device == "cpu (pisa reference interpreter)"
    x = np.arange(1, 5, dtype=np.float32)
    y = np.zeros(4, np.float32)
    prog.run("saxpy", global_size=4, args=[np.float32(2), x, y, np.uint32(4)])
    assert (y == 2 * x).all()
