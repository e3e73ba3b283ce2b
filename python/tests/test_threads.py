"""Launches release the GIL: another Python thread runs meanwhile."""

import threading
import time

import numpy as np
import pytest

import pisa
from conftest import path


def test_another_thread_runs_during_a_launch():
    # a kernel that never ends, stopped by the 1-second timeout
    prog = pisa.load(path("tests/run/forever.pisa"), device="cpu", timeout=1.0)
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.005)

    t = threading.Thread(target=tick)
    t.start()
    try:
        start = time.monotonic()
        with pytest.raises(pisa.PisaError, match="did not finish within 1s"):
            prog.run("forever", global_size=1, args=[np.zeros(1, np.uint32)])
        end = time.monotonic()
    finally:
        done.set()
        t.join()
    assert end - start >= 1.0
    during = [x for x in ticks if start + 0.1 < x < end - 0.1]
    # with the GIL held for the launch there would be none
    assert len(during) > 20, f"{len(during)} ticks during a launch of {end - start:.2f}s"
