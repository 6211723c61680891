"""The UI's codes and the reason codes agree everywhere they are written.

Each screen module (firmware/ui/ui_*.py) keeps private const() copies of the codes of ui.py and
engine.py it uses (`_PLAY = const(0)`), and so does archive.py of the reason codes:
MicroPython inlines a const only inside its own module, and an imported name costs RAM in
every module's globals and a lookup at each use. This test is what keeps the copies honest:
every `_NAME = const(v)` whose NAME is a ui.py or engine.py code has that module's value,
and ui.py's button codes are buttons.py's. The live feed's own copies (feed.py of
feed_lines.py's) are checked here too."""

import re
from pathlib import Path

import buttons
import engine as E
import pytest
import ui

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
SCREENS = sorted((FIRMWARE / "ui").glob("ui_*.py"))
COPIERS = SCREENS + [
    FIRMWARE / "shell" / "archive.py",
    FIRMWARE / "shell" / "offer.py",
]  # the modules that copy codes
HOMES = (ui, E)
CODES = {n: getattr(m, n) for m in HOMES for n in dir(m) if re.fullmatch(r"[A-Z][A-Z0-9_]*", n)}


def copies(path):
    """{NAME: value} of the module's `_NAME = const(value)` lines that copy a ui.py or
    engine.py code."""
    found = re.findall(r"^_([A-Z][A-Z0-9_]*) = const\(([^)]*)\)", path.read_text(), re.M)
    return {n: int(v.replace("_", "")) for n, v in found if n in CODES}


def test_the_screens_copy_codes():
    assert sum(len(copies(p)) for p in SCREENS) > 50


def test_the_reason_codes_are_copied_where_they_are_used():
    reason = {n for n in CODES if n.startswith("REASON_")}
    assert reason == {
        "REASON_FLAG",
        "REASON_DEAD",
        "REASON_RESULT",
        "REASON_ABANDONED",
        "REASON_DECLINED",
        "REASON_UNREADABLE",
    }
    assert set(copies(FIRMWARE / "shell" / "archive.py")) == reason
    assert not any(n.startswith("REASON_") for n in dir(ui))


def test_the_homes_share_no_name():
    names = [set(n for n in dir(m) if re.fullmatch(r"[A-Z][A-Z0-9_]*", n)) for m in HOMES]
    assert not names[0] & names[1]


@pytest.mark.parametrize("path", COPIERS, ids=lambda p: p.name)
def test_a_modules_copies_are_the_homes_values(path):
    for name, value in copies(path).items():
        assert value == CODES[name], (path.name, name)


def test_button_codes_are_the_drivers():
    for name in ("PLAY", "SET", "MINUS", "PLUS", "SHORT", "LONG", "REPEAT"):
        assert CODES[name] == getattr(buttons, name), name


def test_screens_are_indexed_by_their_codes():
    import settings

    u = ui.Ui(settings.defaults())
    names = {
        "S_GAME": "GameScreen",
        "S_CHOOSE": "PresetChooser",
        "S_CUSTOM": "CustomEditor",
        "S_SETTINGS": "SettingsMenu",
        "S_ARBITER": "ArbiterMenu",
        "S_MATERIAL": "MaterialEntry",
        "S_RESUME": "ResumeOffer",
        "S_MESSAGE": "Messages",
    }
    assert len(u.screens) == len(names)
    for code, cls in names.items():
        assert type(u.screen_of(CODES[code])).__name__ == cls, code


def test_the_feeds_copies_are_feed_lines_values():
    """feed.py keeps const copies of feed_lines.py's for its state line's rewrite."""
    import feed
    import feed_lines

    assert (feed._BODY, feed._C0, feed._SEQ_SPAN) == (
        feed_lines._BODY,
        feed_lines._C0,
        feed_lines.SEQ_SPAN,
    )
    assert feed_lines._BODY == 2 + len(feed_lines.PREFIX)
