"""`pisa.load(..., profile=FILE)` (issue "Any Vulkan GPU", items 1 and 4): the Vulkan device
restricted to a device report of ../shared/device-profiles runs what that device can run, as the
cpu device does, and refuses the rest with `pisa.UnsupportedError` (a `PisaError`) naming the
construct and the missing feature; a bad profile is a `PisaError` naming the file."""

import numpy as np
import pytest

import pisa

from conftest import ROOT, path

PROFILES = ROOT.parent / "shared" / "device-profiles"
APPLE_M1 = PROFILES / "apple_m1_0_2_2015_osx_14_3.json"

DF = """.version 0.1;
.target 100;
.kernel @k(.param[8] %o)
{
\t.reg .64b %p, %d;
\tld.param.64b %p, [%o];
\tld.global.64b %d, [%p];
\tfrsqrt.fast.df %d, %d;
\tst.global.64b [%p], %d;
\treturn;
}
"""


def vulkan_available():
    return any(not d.startswith("cpu") for d in pisa.devices())


needs = pytest.mark.skipif(
    not APPLE_M1.exists() or not vulkan_available(),
    reason="needs ../shared/device-profiles and a Vulkan device",
)


@needs
def test_integer_work_runs_under_a_profile_as_on_the_cpu_device():
    a = np.arange(10, dtype=np.uint32)
    b = np.arange(100, 110, dtype=np.uint32)
    results = []
    for kw in [dict(profile=str(APPLE_M1)), dict(device="cpu")]:
        prog = pisa.load(path("tests/run/vadd.pisa"), **kw)
        c = np.zeros(10, np.uint32)
        prog.run("vadd", global_size=10, local_size=4, args=[a, b, c, np.uint32(10)])
        results.append(c)
    assert results[0].tolist() == results[1].tolist() == (a + b).tolist()


@needs
def test_double_precision_under_apple_runs_as_on_the_cpu_device(tmp_path):
    # frsqrt.fast.df without f64: the soft-double library, correctly rounded
    # as the cpu device computes it (the largest subnormal, 0x5FE0000000000001)
    f = tmp_path / "df.pisa"
    f.write_text(DF)
    results = []
    for kw in [dict(profile=str(APPLE_M1)), dict(device="cpu")]:
        prog = pisa.load(str(f), **kw)
        x = np.array([0x000FFFFFFFFFFFFF], np.uint64)
        prog.run("k", global_size=1, local_size=1, args=[x])
        results.append([int(v) for v in x])
    assert results[0] == results[1], [hex(v) for r in results for v in r]
    assert results[0][0] == 0x5FE0000000000001


@needs
def test_old_moltenvk_is_unsupported():
    # Apple M1 under MoltenVK 0.2.1911: no bufferDeviceAddress, which global
    # memory needs: refused at load, naming the feature
    old = PROFILES / "apple_m1_0_2_1911_osx_11_2.json"
    with pytest.raises(pisa.UnsupportedError) as e:
        pisa.load(path("tests/run/vadd.pisa"), profile=str(old))
    message = str(e.value)
    assert "bufferDeviceAddress" in message, message
    assert isinstance(e.value, pisa.PisaError)


def test_a_bad_profile_names_the_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    with pytest.raises(pisa.PisaError) as e:
        pisa.load(path("tests/run/vadd.pisa"), profile=str(bad))
    assert "bad.json" in str(e.value), str(e.value)
