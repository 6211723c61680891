"""The import paths of the host tools, set in one place.

The tools import each other by flat module names (`import flash`, `import chip`), as the
firmware's modules do on the board: every folder of FOLDERS goes on sys.path, so a module's
name is unique across tools/ (host_tests/tools/test_tool_imports.py checks it). tools/ itself
goes there too, for this module and the `simboard` package.

An entry script (what make and the workflows run) reaches this module in two lines, before
its imports of other tools:

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/: paths.py
    import paths  # noqa: E402

then calls paths.install(); host_tests/conftest.py does the same for every test. Library
modules set no paths: whoever started them has.
"""

import sys
import types
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
# The folders of tools/ whose modules are imported by their flat names.
FOLDERS = ("bench", "chip", "device", "energy", "export", "live", "release", "sim")


def install(board=False, core=False):
    """Put tools/ and each of FOLDERS first on sys.path, once; with `board`, also the
    simulated board's fakes and the firmware's folders (simboard.install_paths), for what
    runs the firmware on the host; with `core` only the firmware's pure core (install_core).
    Returns the folders of tools/ put there."""
    folders = [TOOLS, *(TOOLS / name for name in FOLDERS)]
    for folder in map(str, reversed(folders)):
        if folder not in sys.path:
            sys.path.insert(0, folder)
    if board:
        import simboard

        simboard.install_paths()
    elif core:
        install_core()
    return folders


def install_core():
    """firmware/core/ last on sys.path, for the tools that read the firmware's tables
    (presets.py, timecontrol.py) without the simulated board; the only name of
    `micropython` the core needs off the board is const, so without the board's fake a
    stand-in with const alone is made."""
    try:
        import micropython  # noqa: F401  (the simulated board's fake, when installed)
    except ImportError:
        stub = types.ModuleType("micropython")
        stub.const = lambda value: value
        sys.modules["micropython"] = stub
    core = str(ROOT / "firmware" / "core")
    if core not in sys.path:
        sys.path.append(core)
