"""What the chip tests run on: the MicroPython rp2 .uf2 and the RP2040 B1 boot ROM
(tools/chip/inputs.py). `require()` hands a test module both, or skips the whole module
with one line that names what is missing, so a fresh clone passes.

- `MICROPYTHON_UF2` (and `RP2040_BOOTROM`, or a boot ROM beside the .uf2): those files.
- `CHIP=1` (`make test CHIP=1`): what is not given comes from the pinned downloads, cached
  in build/cache/; a download that fails is an error of the run, not a skip.
- neither: the chip tests are skipped.
"""

import functools
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

import chip  # noqa: E402
import inputs  # noqa: E402

DOWNLOAD_ENV = "CHIP"  # "1": download what the environment does not name


@functools.cache
def _downloaded():
    try:
        got = inputs.obtain(ROOT, os.environ, sys.stdout)
    except chip.ChipError as exc:
        pytest.fail("%s=1: %s" % (DOWNLOAD_ENV, exc), pytrace=False)
    print(inputs.describe(got))
    return got.uf2, got.bootrom


def find():
    """(uf2, bootrom) paths, or the one line saying why the chip tests are skipped."""
    if os.environ.get(DOWNLOAD_ENV, "") == "1":
        return _downloaded()
    uf2, bootrom = inputs.given(os.environ)
    if uf2 is None:
        return (
            "chip tests skipped: set %s to a MicroPython rp2 .uf2 for the Pico, or %s=1 to "
            "download the pinned one" % (chip.UF2_ENV, DOWNLOAD_ENV)
        )
    if bootrom is None:
        return (
            "chip tests skipped: no RP2040 boot ROM; set %s (see tools/chip/chip.py), or "
            "%s=1 to download the pinned one" % (chip.BOOTROM_ENV, DOWNLOAD_ENV)
        )
    return uf2, bootrom


def require():
    """(uf2, bootrom) paths, or a module-level skip (call it at a test module's top)."""
    found = find()
    if isinstance(found, str):
        pytest.skip(found, allow_module_level=True)
    return found


def chip_fixture():
    """A test module's `pico` fixture (`pico = chip_env.chip_fixture()` at its top): one
    emulated chip on the files require() found, shared by the module's tests; without them
    the module is skipped."""
    uf2, bootrom = require()

    @pytest.fixture(scope="module")
    def pico():
        return chip.Chip(uf2, bootrom)

    return pico


def booted_fixture():
    """A test module's `clock` fixture (`clock = chip_env.booted_fixture()`): a session on the
    module's `pico`, run to the ready screen (chip.BOOT_MS after the power-up)."""

    @pytest.fixture
    def clock(pico):
        with pico.session() as s:
            s.run_to(chip.BOOT_MS)
            yield s

    return clock


def clean(tr):
    """No TM1637 protocol error, nothing the emulator could not do, no restart."""
    assert tr.protocol_errors == []
    assert tr.emulator_errors == []
    assert tr.reset is None


def leds(tr, t_ns):
    """(left, right): the levers' LEDs at `t_ns` of trace `tr`."""
    left, right = chip.LED_PINS
    return tr.led_at(left, t_ns), tr.led_at(right, t_ns)
