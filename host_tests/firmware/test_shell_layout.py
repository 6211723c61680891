"""The shell's shape (docs/hacking.md): `App` stays a short event loop, and the layering holds.

- `App` (firmware/shell/app.py) stays under APP_LINES lines, from `class App` to its last line,
  docstrings and comments included: a new responsibility of the shell gets a unit of its own
  (`View` and `HeapLock` beside `App`, appfiles.py, appjournal.py) or goes to the module that
  owns its data, and `App.wake` stays the numbered list of what a wakeup does.
- No firmware module but main.py imports app.py: the shell's units, the drivers and the pure
  core are handed what they need, never reach up into the loop.
- The board (board.py) builds hardware only: the pins, the state machines, the USB port's
  guard; the live feed is the app's, attached to the guard (usbguard.py imports no feed).
- Saving games and the journal stand without the UI: they import no ui module (the reason
  codes are engine.py's, the control a settings dict names is presets.control_of).
"""

import ast
from pathlib import Path

import firmware_build
import pytest

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
APP_LINES = 400


def class_lines(source, name):
    """The lines of top-level class `name` in `source`, its first line to its last."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node.end_lineno - node.lineno + 1
    raise AssertionError("no class %s" % name)


def imported(source):
    """The top-level names of the modules `source` imports, anywhere in it."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(a.name.partition(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.partition(".")[0])
    return names


def test_app_stays_under_its_line_budget():
    lines = class_lines((FIRMWARE / "shell" / "app.py").read_text(), "App")
    assert lines < APP_LINES, (
        "App is %d lines (the budget: under %d); move a whole responsibility into a unit "
        "of its own or into the module that owns its data (docs/hacking.md)" % (lines, APP_LINES)
    )


def test_the_line_count_reads_the_whole_class():
    source = "import os\n\n\nclass App:\n    def f(self):\n        # a comment\n        pass\n"
    assert class_lines(source + "\n\nX = 1\n", "App") == 4


def test_no_firmware_module_but_main_imports_the_loop():
    importers = sorted(
        p.name
        for p in FIRMWARE.rglob("*.py")
        if p.name not in ("main.py", "app.py") and "app" in imported(p.read_text())
    )
    assert importers == []


def source(name):
    """The text of firmware module `name`, in whichever layer's folder it lives."""
    return firmware_build.firmware_sources(FIRMWARE)[name + ".py"].read_text()


def layer_of(name):
    """The layer of firmware module `name`: "top" (main, board) or a folder of LAYERS."""
    folder = firmware_build.firmware_sources(FIRMWARE)[name + ".py"].parent.name
    return "top" if folder == "firmware" else folder


# What each layer may import of the firmware: the pure core only itself; the screens the core;
# the drivers the core; the shell all three; main.py and board.py everything.
MAY_IMPORT = {
    "core": {"core"},
    "ui": {"core", "ui"},
    "drivers": {"core", "drivers"},
    "shell": {"core", "ui", "drivers", "shell"},
    "top": {"core", "ui", "drivers", "shell", "top"},
}


def test_each_layer_imports_only_the_layers_below_it():
    modules = {n[:-3] for n in firmware_build.firmware_sources(FIRMWARE)}
    wrong = []
    for name in sorted(modules):
        layer = layer_of(name)
        for other in sorted(imported(source(name)) & modules):
            if layer_of(other) not in MAY_IMPORT[layer]:
                wrong.append("%s (%s) imports %s (%s)" % (name, layer, other, layer_of(other)))
    assert wrong == []


def test_saving_and_the_journal_import_no_ui():
    savers = ("archive", "appjournal", "journal", "journal_files", "journal_tidy", "gamelog")
    savers += ("settings", "storage")
    for name in savers:
        names = imported(source(name))
        assert not [n for n in names if n == "ui" or n.startswith("ui_")], name


def test_the_board_and_the_usb_guard_build_no_feed():
    for name in ("board", "usbguard"):
        assert "feed" not in imported(source(name)), name
    assert "feed" in imported(source("app"))


def test_the_import_check_sees_both_forms():
    assert "app" in imported("import app\n")
    assert "app" in imported("def f():\n    from app import App\n")
    assert "app" not in imported("import appfiles\nfrom appjournal import Journaling\n")


def test_the_board_gets_one_module_per_name(tmp_path):
    """The build flattens the layer folders onto the flash's root: a name in two folders
    would leave one module silently replaced by the other, so the build refuses it."""
    import firmware_build

    for folder in ("", "core", "shell"):
        (tmp_path / "firmware" / folder).mkdir(parents=True, exist_ok=True)
    (tmp_path / "firmware" / "main.py").write_text("")
    (tmp_path / "firmware" / "core" / "clock.py").write_text("")
    assert list(firmware_build.firmware_sources(tmp_path / "firmware")) == ["clock.py", "main.py"]
    (tmp_path / "firmware" / "shell" / "clock.py").write_text("")
    with pytest.raises(firmware_build.LayoutError, match="share a name"):
        firmware_build.firmware_sources(tmp_path / "firmware")


def test_every_firmware_module_lives_in_a_layer():
    """main.py and board.py at the top; everything else in a layer's folder (docs/hacking.md)."""
    import firmware_build

    top = sorted(p.name for p in FIRMWARE.glob("*.py"))
    assert top == ["board.py", "main.py"]
    folders = sorted(p.name for p in FIRMWARE.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert folders == sorted(firmware_build.LAYERS)
