"""Fixtures: the repository's paths, and `load`, which loads a program on
the device of the test's parameter: "cpu" (the reference interpreter) or
"vulkan" (the default Vulkan device, lavapipe on CI, with the validation
layer on; any message of it fails the test)."""

import os
import warnings
from pathlib import Path

import pytest

import pisa

ROOT = Path(__file__).resolve().parents[2]
CPU = "cpu (pisa reference interpreter)"


def path(p):
    """A file of the repository, by its path from the root."""
    return str(ROOT / p)


@pytest.fixture(params=["cpu", "vulkan"])
def load(request, monkeypatch):
    kind = request.param
    # the default device: not what PISA_DEVICE may name
    monkeypatch.delenv("PISA_DEVICE", raising=False)
    loaded = []

    def load(*files, **kw):
        with warnings.catch_warnings():
            # falling back to the cpu device for want of Vulkan is an error here
            warnings.simplefilter("error", pisa.PisaWarning)
            if kind == "cpu":
                prog = pisa.load(*[path(f) for f in files], device="cpu", **kw)
            else:
                prog = pisa.load(*[path(f) for f in files], validation=True, **kw)
        if kind == "cpu":
            assert prog.device == CPU
        else:
            assert prog.device != CPU, "no Vulkan device (CI installs lavapipe)"
        loaded.append(prog)
        return prog

    load.kind = kind
    yield load
    for prog in loaded:
        assert prog.validation_messages() == [], "validation layer messages"
