"""Globals by name and buffers that stay on the device."""

import numpy as np
import pytest

import pisa


def test_globals_are_read_and_written_by_name(load):
    prog = load("tests/run/globals.pisa")
    g = prog.globals()
    assert g["table"] == 16 and g["ptr"] == 8 and g["count"] == 4
    assert prog.read_global("table", np.uint32).tolist() == [10, 20, 30, 40]
    prog.write_global("count", np.uint32(5))
    out = np.zeros(4, dtype=np.uint32)
    prog.run("k", global_size=1, args=[out])
    # as tests/run_cases.rs: table[2], table[1], @self holds its address, count + 1
    assert out.tolist() == [30, 20, 1, 6]
    assert prog.read_global("count", np.uint32).tolist() == [6]
    assert prog.read_global("count").tolist() == [6, 0, 0, 0]
    prog.write_global("table", np.array([7, 8, 9, 10], dtype=np.uint32))
    prog.run("k", global_size=1, args=[out])
    assert out.tolist() == [9, 8, 1, 7]
    # a prefix
    prog.write_global("table", np.array([1], dtype=np.uint32))
    assert prog.read_global("table", np.uint32).tolist() == [1, 8, 9, 10]


def test_global_errors(load):
    prog = load("tests/run/globals.pisa")
    with pytest.raises(pisa.PisaError, match="no host-accessible global `nope`"):
        prog.read_global("nope")
    with pytest.raises(pisa.PisaError, match="do not fit global `count` of 4 bytes"):
        prog.write_global("count", np.uint64(1))
    with pytest.raises(pisa.PisaError, match="not a whole number"):
        prog.read_global("count", np.float64)


def test_a_buffer_stays_on_the_device_across_launches(load):
    prog = load("shaders/saxpy.pisa")
    x = prog.buffer(np.arange(1, 11, dtype=np.float32))
    y = prog.buffer(40)
    assert y.size == 40 and len(y) == 40
    assert y.read(np.float32).tolist() == [0.0] * 10
    prog.run("saxpy", global_size=10, local_size=4, args=[np.float32(2), x, y, np.uint32(10)])
    prog.run("saxpy", global_size=10, local_size=4, args=[np.float32(2), x, y, np.uint32(10)])
    assert y.read(np.float32).tolist() == [4.0 * i for i in range(1, 11)]
    # written from the host between launches, at an offset
    y.write(np.array([100, 200], dtype=np.float32), offset=8)
    prog.run("saxpy", global_size=10, args=[np.float32(-1), x, y, np.uint32(10)])
    assert y.read(np.float32).tolist()[:4] == [3.0, 6.0, 97.0, 196.0]
    assert x.read(np.float32).tolist() == list(range(1, 11))
    assert y.read().dtype == np.uint8 and y.read().size == 40


def test_buffer_errors(load):
    prog = load("shaders/saxpy.pisa")
    b = prog.buffer(8)
    with pytest.raises(pisa.PisaError):
        b.write(np.zeros(3, dtype=np.float32))
    other = load("shaders/saxpy.pisa")
    with pytest.raises(pisa.PisaError, match="belongs to another program"):
        other.run("saxpy", global_size=1, args=[np.float32(1), b, b, np.uint32(1)])
    with pytest.raises(pisa.PisaError, match="takes 4 bytes, not a pointer"):
        prog.run("saxpy", global_size=1, args=[b, b, b, np.uint32(1)])
    with pytest.raises(pisa.PisaError, match="takes a size in bytes, a numpy array or bytes, not a bool"):
        prog.buffer(True)
    with pytest.raises(pisa.PisaError, match="not a whole number of float32"):
        prog.buffer(b"abcdef").read(np.float32)
    assert prog.buffer(b"abcd").read().tobytes() == b"abcd"
