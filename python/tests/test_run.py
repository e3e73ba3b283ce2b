"""Launches: the README's example, programs of several files, arguments of
each kind, and sizes as ints or tuples, on the cpu and the Vulkan device."""

import numpy as np
import pytest

import pisa
from conftest import CPU, path


def test_devices_lists_the_default_first(monkeypatch):
    monkeypatch.delenv("PISA_DEVICE", raising=False)
    names = pisa.devices()
    assert CPU in names
    if len(names) > 1:
        # with Vulkan devices, one of them is the default (the cpu device last)
        assert names[0] != CPU and names[-1] == CPU
    monkeypatch.setenv("PISA_DEVICE", "cpu")
    assert pisa.devices()[0] == CPU
    assert sorted(pisa.devices()) == sorted(names)


def test_the_readme_example(load):
    prog = load("shaders/saxpy.pisa")
    x = np.arange(1, 11, dtype=np.float32)
    y = np.zeros(10, dtype=np.float32)
    prog.run("saxpy", global_size=10, local_size=4, args=[np.float32(2), x, y, np.uint32(10)])
    assert y.tolist() == [2.0 * i for i in range(1, 11)]
    # x was copied back unchanged
    assert x.tolist() == list(range(1, 11))


def test_sizes_as_tuples_ints_as_parameters_and_a_partial_range(load):
    prog = load("shaders/saxpy.pisa")
    x = np.arange(1, 11, dtype=np.float32)
    y = np.ones(10, dtype=np.float32)
    # n = 7 as a Python int: packed into the 4-byte parameter
    prog.run("@saxpy", global_size=(10,), local_size=(4,), args=(np.float32(0.5), x, y, 7))
    assert y.tolist() == [1 + 0.5 * i for i in range(1, 8)] + [1.0, 1.0, 1.0]


def test_the_kernels_and_their_parameters(load):
    prog = load("shaders/saxpy.pisa")
    assert prog.kernels() == {"saxpy": [("a", 4), ("x", 8), ("y", 8), ("n", 4)]}
    assert prog.globals() == {}


def test_a_program_of_two_files_links(load):
    prog = load("tests/link/main.pisa", "tests/link/lib.pisa")
    out = np.zeros(8, dtype=np.uint32)
    prog.run("k", global_size=8, local_size=8, args=[out])
    # out[i] = (table[i % 4] * 3 + 100) * 1000 + table[i % 4] + 7 (tests/link.rs)
    assert out.tolist() == [130017, 160027, 190037, 220047] * 2
    assert prog.read_global("lookup_table", np.uint32).tolist() == [10, 20, 30, 40]


def test_an_array_passed_twice_is_one_buffer(load):
    prog = load("shaders/saxpy.pisa")
    y = np.arange(4, dtype=np.float32)
    # y = 3 * y + y
    prog.run("saxpy", global_size=4, args=[np.float32(3), y, y, np.uint32(4)])
    assert y.tolist() == [0.0, 4.0, 8.0, 12.0]


def test_a_read_only_array_is_copied_in_only(load):
    prog = load("shaders/saxpy.pisa")
    x = np.arange(1, 5, dtype=np.float32)
    x.flags.writeable = False
    y = np.zeros(4, dtype=np.float32)
    prog.run("saxpy", global_size=4, args=[np.float32(2), x, y, np.uint32(4)])
    assert y.tolist() == [2.0, 4.0, 6.0, 8.0]
    # a read-only array of any layout: every other element
    y[:] = 0
    x2 = np.arange(1, 9, dtype=np.float32)[::2]
    x2.flags.writeable = False
    prog.run("saxpy", global_size=4, args=[np.float32(1), x2, y, np.uint32(4)])
    assert y.tolist() == [1.0, 3.0, 5.0, 7.0]


def test_a_struct_parameter_from_bytes(load):
    prog = load("tests/run/struct_param.pisa")
    out = np.zeros(4, dtype=np.uint32)
    # as tests/run_cases.rs: raw:110033224400000088776655
    prog.run("unpack", global_size=1, args=[bytes.fromhex("110033224400000088776655"), out])
    assert out.tolist() == [17, 8755, 68, 1432778632]


def test_devices_are_chosen_as_by_the_command_line(monkeypatch):
    monkeypatch.delenv("PISA_DEVICE", raising=False)
    saxpy = path("shaders/saxpy.pisa")
    assert pisa.load(saxpy, device="CPU").device == CPU
    monkeypatch.setenv("PISA_DEVICE", "cpu")
    assert pisa.load(saxpy).device == CPU
    monkeypatch.delenv("PISA_DEVICE")
    vulkan = [n for n in pisa.devices() if n != CPU]
    assert vulkan, "no Vulkan device (CI installs lavapipe)"
    assert pisa.load(saxpy).device == vulkan[0]
    for name in vulkan:
        assert pisa.load(saxpy, device=name).device == name
    assert pisa.load(saxpy, device=0).device in vulkan
    # the files as one list
    assert pisa.load([path("tests/link/main.pisa"), path("tests/link/lib.pisa")], device="cpu").kernels() == {
        "k": [("out", 8)]
    }


def test_what_a_kernel_prints_goes_to_stdout(load, capsys):
    prog = load("tests/run/printf.pisa")
    x = np.array([0.5, 1.25, -2, 3.14159, 100], dtype=np.float32)
    prog.run("hello", global_size=8, local_size=4, args=[x, np.uint32(5)])
    lines = capsys.readouterr().out.splitlines()
    # as tests/printf.rs: in this order on the cpu device, in another on a GPU
    expected = [
        "item 0: x=0.500",
        "pisa has 5000000000 items, ok",
        "item 1: x=1.250",
        "item 2: x=-2.000",
        "item 3: x=3.142",
        "item 4: x=100.000",
    ]
    if load.kind == "cpu":
        assert lines == expected
    else:
        assert sorted(lines) == sorted(expected)


def test_a_small_printf_buffer_loses_output_with_a_warning(capsys):
    prog = pisa.load(path("tests/run/printf.pisa"), device="cpu", printf_buffer=64)
    x = np.array([0.5, 1.25, -2, 3.14159, 100], dtype=np.float32)
    with pytest.warns(pisa.PisaWarning, match="the printf buffer overflowed"):
        prog.run("hello", global_size=8, local_size=4, args=[x, np.uint32(5)])
    assert capsys.readouterr().out.splitlines()[0] == "item 0: x=0.500"


def test_compilation_is_not_bounded_by_the_launch_timeout(tmp_path, monkeypatch):
    # `timeout` bounds the run; the driver's compilation comes first, also
    # where the driver compiles at the first dispatch (llvmpipe: this kernel
    # compiles for seconds, which failed as "did not finish within 500ms")
    monkeypatch.setenv("MESA_SHADER_CACHE_DISABLE", "true")
    monkeypatch.delenv("PISA_DEVICE", raising=False)
    body = "\tfmad.f %v, %v, %w, %u;\n\tfmul.f %w, %w, %v;\n" * 1000
    src = tmp_path / "slow.pisa"
    src.write_text(
        ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %o)\n{\n"
        "\t.reg .64b %p;\n\t.reg .32b %v, %w, %u;\n\tld.param.64b %p, [%o];\n"
        "\tld.global.32b %v, [%p];\n\tld.global.32b %w, [%p + 4];\n\tld.global.32b %u, [%p + 8];\n"
        + body
        + "\tst.global.32b [%p], %v;\n\tst.global.32b [%p + 4], %w;\n\treturn;\n}\n"
    )
    results = []
    for device in (None, "cpu"):
        prog = pisa.load(str(src), device=device, validation=device is None, timeout=0.5)
        a = np.array([1.0001, 0.9999, 0.5], dtype=np.float32)
        prog.run("k", global_size=1, args=[a])
        if device is None:
            assert prog.validation_messages() == []
        results.append(a.view(np.uint32).tolist())
    assert results[0] == results[1]
