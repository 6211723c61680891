"""Every fixed 4-character text in ui.py can be drawn: no character without a glyph (a
"?", "K" or "+" would silently show as a blank and change the word's meaning)."""

import re
from pathlib import Path

import pytest
import segments

UI = Path(__file__).resolve().parent.parent / "firmware" / "ui.py"
LABELS = sorted(set(re.findall(r'b"([^"]{4})"', UI.read_text())))


def test_labels_found():
    assert len(LABELS) > 40


@pytest.mark.parametrize("label", LABELS)
def test_label_is_drawable(label):
    assert segments.encode_into(bytearray(4), label) == 0, label
