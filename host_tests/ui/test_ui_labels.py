"""Every fixed 4-character text of the UI (ui.py and its screens, ui_*.py) can be drawn: no
character without a glyph (a "?", "K" or "+" would silently show as a blank and change the
word's meaning)."""

import re
from pathlib import Path

import pytest
import segments

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
UI = sorted((FIRMWARE / "ui").glob("ui*.py"))
# Every bytes literal of the UI is text for the displays: a label of 4 characters, or a
# packed table of them (several literals in a row, or one of 8, 12... characters)
LITERALS = {t for p in UI for t in re.findall(r'b"([^"\\]*)"', p.read_text())}
LABELS = sorted({t[i : i + 4] for t in LITERALS for i in range(0, len(t), 4)})


def test_literals_are_labels():
    assert all(len(t) % 4 == 0 and t for t in LITERALS), sorted(LITERALS)


def test_labels_found():
    assert len(LABELS) > 40


@pytest.mark.parametrize("label", LABELS)
def test_label_is_drawable(label):
    assert segments.encode_into(bytearray(4), label) == 0, label
