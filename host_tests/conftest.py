"""Puts the firmware and the MicroPython look-alikes on sys.path for every host test."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
for sub in ("firmware", "host_tests/harness/mp", "host_tests/core", "host_tests"):
    p = str(ROOT / sub)
    if p not in sys.path:
        sys.path.insert(0, p)

from harness import vtime  # noqa: E402

vtime.install()


@pytest.fixture
def vt():
    """A fresh virtual clock placed 5 s before the 2**30 us wrap, installed into `time`."""
    return vtime.install(vtime.VirtualTime())
