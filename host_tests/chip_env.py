"""What the chip tests run on: the MicroPython rp2 .uf2 (MICROPYTHON_UF2) and the RP2040 B1
boot ROM, found by tools/chip/chip.py. `require()` hands a test module both, or skips the
whole module with one line that names what is missing, so a fresh clone passes."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools" / "chip"))

import chip  # noqa: E402


def require():
    """(uf2, bootrom) paths, or a module-level skip (call it at a test module's top)."""
    uf2 = chip.uf2_path()
    if uf2 is None:
        pytest.skip(
            "chip tests skipped: set %s to a MicroPython rp2 .uf2 for the Pico" % chip.UF2_ENV,
            allow_module_level=True,
        )
    bootrom = chip.bootrom_path(uf2=uf2)
    if bootrom is None:
        pytest.skip(
            "chip tests skipped: no RP2040 boot ROM; set %s (see tools/chip/chip.py)"
            % chip.BOOTROM_ENV,
            allow_module_level=True,
        )
    return uf2, bootrom
