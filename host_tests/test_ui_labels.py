"""Every fixed 4-character text of the UI (ui.py and its screens, ui_*.py) can be drawn: no
character without a glyph (a "?", "K" or "+" would silently show as a blank and change the
word's meaning)."""

import re
from pathlib import Path

import pytest
import segments

FIRMWARE = Path(__file__).resolve().parent.parent / "firmware"
UI = [FIRMWARE / "ui.py", *sorted(FIRMWARE.glob("ui_*.py"))]
LABELS = sorted({t for p in UI for t in re.findall(r'b"([^"]{4})"', p.read_text())})


def test_labels_found():
    assert len(LABELS) > 40


@pytest.mark.parametrize("label", LABELS)
def test_label_is_drawable(label):
    assert segments.encode_into(bytearray(4), label) == 0, label
