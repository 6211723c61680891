"""The UI's width, as the source keeps it: the screens write `ui.points` (the separators as a
digit mask) and never the 4-digit build's `ui.colon`, which ui.py alone reads from them (so
the LED build's colon is always the points' bit 1); the battery
symbol's const copies are segments.py's values; no screen writes a 4-digit text by slicing a
buffer (a slice assignment resizes a 6-digit bytearray)."""

import re
from pathlib import Path

import pytest
import segments

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
SCREENS = sorted((FIRMWARE / "ui").glob("ui_*.py"))


@pytest.mark.parametrize("path", SCREENS, ids=lambda p: p.name)
def test_screens_write_points_not_the_colon(path):
    assert "colon[" not in path.read_text()


def test_the_colon_is_read_from_the_points():
    text = (FIRMWARE / "ui" / "ui.py").read_text()
    assert [line.strip() for line in text.splitlines() if ">> 1 & 1" in line] == [
        "c[0] = p[0] >> 1 & 1",
        "c[1] = p[1] >> 1 & 1",
    ]


@pytest.mark.parametrize("path", SCREENS, ids=lambda p: p.name)
def test_no_slice_assignment_into_the_texts(path):
    assert not re.search(r"\]\[:\] = ", path.read_text())


def test_the_icon_copies_are_segments_values():
    found = 0
    for path in SCREENS + [FIRMWARE / "ui" / "ui.py"]:
        for name, value in re.findall(
            r"^_(ICON_[A-Z0-9]+) = const\((\d+)\)", path.read_text(), re.M
        ):
            assert int(value) == getattr(segments, name), (path.name, name)
            found += 1
    assert found >= 1
