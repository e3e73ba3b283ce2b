"""`pisa.load(..., numerics="f32"|"f64"|"soft")` (issue "Numerics on every device", item 4): the
numerics a Vulkan device computes with, as `pisa run --numerics` (docs/numerics.md, "Choosing the
numerics"). "soft" uses no f64 at all: `.df` arithmetic in the soft-double library, so a `.df`
program runs under a device report without shaderFloat64 with the cpu device's bits; "f64" is
refused (`pisa.UnsupportedError`) where the device has no f64; a bad value is a `PisaError`."""

import numpy as np
import pytest

import pisa

from conftest import ROOT, path

PROFILES = ROOT.parent / "shared" / "device-profiles"
APPLE_M1 = PROFILES / "apple_m1_0_2_2209_macos_26_5_1.json"

# .df arithmetic in every mode the soft-double library computes: each
# work-item reads a, b, c and writes five results
DF_ARITH = """.version 0.1;
.target 100;
.kernel @k(.param[8] %in, .param[8] %out)
{
\t.reg .64b %pi, %po, %off, %a, %b, %c, %r;
\t.reg .32b %id;
\tld.param.64b %pi, [%in];
\tld.param.64b %po, [%out];
\tumad.32b %id, %groupid.x, %enqueuedlocalsize.x, %localid.x;
\tumul.full.32b %off, %id, 24;
\tiadd.64b %pi, %pi, %off;
\tumul.full.32b %off, %id, 40;
\tiadd.64b %po, %po, %off;
\tld.global.64b %a, [%pi];
\tld.global.64b %b, [%pi + 8];
\tld.global.64b %c, [%pi + 16];
\tfdiv.df %r, %a, %b;
\tst.global.64b [%po], %r;
\tfmad.rz.df %r, %a, %b, %c;
\tst.global.64b [%po + 8], %r;
\tfsqrt.ru.df %r, %a;
\tst.global.64b [%po + 16], %r;
\tfadd.rd.df %r, %a, %c;
\tst.global.64b [%po + 24], %r;
\tfmul.rna.df %r, %b, %c;
\tst.global.64b [%po + 32], %r;
\treturn;
}
"""

# fadd.df of +inf and -inf: a NaN, the driver's own on the f64 path, the
# spec's default NaN from the soft-double library (docs/numerics.md)
DF_ADD = """.version 0.1;
.target 100;
.kernel @k(.param[8] %o)
{
\t.reg .64b %p, %a, %b;
\tld.param.64b %p, [%o];
\tld.global.64b %a, [%p];
\tld.global.64b %b, [%p + 8];
\tfadd.df %a, %a, %b;
\tst.global.64b [%p], %a;
\treturn;
}
"""

N = 256


def vulkan_available():
    return any(not d.startswith("cpu") for d in pisa.devices())


needs_vulkan = pytest.mark.skipif(not vulkan_available(), reason="needs a Vulkan device")
needs_profile = pytest.mark.skipif(
    not APPLE_M1.exists() or not vulkan_available(),
    reason="needs ../shared/device-profiles and a Vulkan device",
)


def df_inputs():
    rng = np.random.default_rng(0xDF)
    bits = rng.integers(0, 2**64, size=3 * N, dtype=np.uint64)
    # a third of the items of nearby magnitudes (cancellation), and positive
    # square-root sources
    near = rng.uniform(0.5, 2.0, size=3 * N).astype(np.float64).view(np.uint64)
    bits[: N * 3 // 3] = near[: N * 3 // 3]
    bits[0::3] &= np.uint64(0x7FFF_FFFF_FFFF_FFFF)
    return bits


def run_df(prog):
    ins = df_inputs()
    out = np.zeros(5 * N, np.uint64)
    prog.run("k", global_size=N, local_size=64, args=[ins, out])
    return out


@pytest.mark.parametrize("bad", ["f16", "F64", "", 64, 1.5])
def test_a_bad_value_is_a_pisa_error(bad):
    with pytest.raises(pisa.PisaError) as e:
        pisa.load(path("tests/run/vadd.pisa"), device="cpu", numerics=bad)
    assert "numerics" in str(e.value), str(e.value)
    assert not isinstance(e.value, pisa.UnsupportedError)


@pytest.mark.parametrize("numerics", ["f32", "f64", "soft", None])
def test_the_cpu_device_takes_every_choice(numerics):
    prog = pisa.load(path("tests/run/vadd.pisa"), device="cpu", numerics=numerics)
    a = np.arange(10, dtype=np.uint32)
    c = np.zeros(10, np.uint32)
    prog.run("vadd", global_size=10, local_size=2, args=[a, a, c, np.uint32(10)])
    assert c.tolist() == (2 * a).tolist()


@needs_profile
def test_df_runs_soft_under_a_profile_without_f64_as_on_the_cpu_device(tmp_path):
    f = tmp_path / "df.pisa"
    f.write_text(DF_ARITH)
    want = run_df(pisa.load(str(f), device="cpu"))
    for numerics in ["soft", None]:
        prog = pisa.load(str(f), profile=str(APPLE_M1), numerics=numerics, validation=True)
        got = run_df(prog)
        assert got.tobytes() == want.tobytes(), numerics
        assert prog.validation_messages() == []


@needs_profile
def test_f64_is_refused_under_a_profile_without_f64(tmp_path):
    f = tmp_path / "df.pisa"
    f.write_text(DF_ARITH)
    with pytest.raises(pisa.UnsupportedError) as e:
        pisa.load(str(f), profile=str(APPLE_M1), numerics="f64")
    assert "shaderFloat64" in str(e.value), str(e.value)


@needs_vulkan
def test_soft_uses_no_f64_on_a_device_that_has_it(tmp_path):
    # on lavapipe (f64) the f64 path's fadd.df of +inf and -inf is the
    # driver's own NaN, x86's negative default NaN 0xFFF8000000000000 (the
    # spec asks for a NaN, docs/numerics.md); "soft" computes it in integers
    # and gives the spec's default NaN, as the cpu device does: the bits show
    # which path ran (since 2026-12-05 every exact .df form gives the same
    # bits on both paths, frsqrt.fast.df included)
    f = tmp_path / "add.pisa"
    f.write_text(DF_ADD)
    inf, ninf = 0x7FF0000000000000, 0xFFF0000000000000
    cpu = pisa.load(str(f), device="cpu")
    x = np.array([inf, ninf], np.uint64)
    cpu.run("k", global_size=1, local_size=1, args=[x])
    default_nan = int(x[0])
    assert default_nan >> 63 == 0 and (default_nan >> 52) & 0x7FF == 0x7FF, hex(default_nan)
    for numerics in [None, "f64", "soft"]:
        prog = pisa.load(str(f), numerics=numerics)
        if prog.device.startswith("cpu"):
            pytest.skip("the default device is the cpu device")
        x = np.array([inf, ninf], np.uint64)
        prog.run("k", global_size=1, local_size=1, args=[x])
        if numerics == "soft":
            assert int(x[0]) == default_nan, hex(int(x[0]))
        else:
            assert int(x[0]) == 0xFFF8000000000000, hex(int(x[0]))


@needs_vulkan
@pytest.mark.parametrize("numerics", ["f32", "soft", "f64"])
def test_every_choice_gives_the_cpu_devices_bits_on_vulkan(tmp_path, numerics):
    # directed f32 rounding, fmad and the .df arithmetic: exact on every path
    f = tmp_path / "df.pisa"
    f.write_text(DF_ARITH)
    want = run_df(pisa.load(str(f), device="cpu"))
    prog = pisa.load(str(f), numerics=numerics, validation=True)
    assert run_df(prog).tobytes() == want.tobytes()
    assert prog.validation_messages() == []
    ins = np.array([0x3F800001, 0x40400000, 0x33800000, 0x40000000, 1], np.uint32)
    outs = []
    for kw in [dict(device="cpu"), dict(numerics=numerics)]:
        prog = pisa.load(path("tests/run/directed_f32.pisa"), **kw)
        out = np.zeros(14, np.uint32)
        prog.run("k", global_size=1, args=[ins, out])
        outs.append(out.tolist())
    assert outs[0] == outs[1]
    # the run case's EXPECT line
    assert outs[0][:4] == [0x3F800001, 0x3F800002, 0x3F800002, 0x80000000]
