"""Runs the shared core suite (host_tests/core/test_*.py) under real MicroPython 1.27.

pytest also collects the same files under CPython, so each core test runs on both
runtimes; this test fails when any of them fails under MicroPython."""

import shutil
import subprocess
from pathlib import Path

import firmware_build
import pytest

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE_DIRS = ["/fw"] + ["/fw/" + layer for layer in firmware_build.LAYERS]
CORE = sorted(p.stem for p in (ROOT / "host_tests" / "core").glob("test_*.py"))


def run_micropython(script, *args, heap=512 * 1024, timeout=600):
    cmd = [
        "node",
        str(ROOT / "tools" / "bench" / "mp_run.mjs"),
        "--heap",
        str(heap),
        "--mount",
        "%s:/fw" % (ROOT / "firmware"),
        "--mount",
        "%s:/core" % (ROOT / "host_tests" / "core"),
        *[a for d in FIRMWARE_DIRS for a in ("--path", d)],
        "--path",
        "/core",
        str(script),
        *args,
    ]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("module", CORE)
def test_core_suite_under_micropython(module):
    proc = run_micropython(ROOT / "host_tests" / "harness" / "mp_unittest.py", module)
    tail = (proc.stdout + proc.stderr)[-4000:]
    assert proc.returncode == 0, tail
    assert " 0 failed" in proc.stdout, tail
