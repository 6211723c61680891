"""docs/clock.svg: a picture of the clock in play, drawn from the real firmware.

Owns the picture on the README's front page. It boots the firmware on the simulator's board
(tools/sim/sim.py's `Sim`, virtual time), chooses Blitz 5+3, lets Black press, runs White's clock
for a while and draws what the two TM1637 displays and the LEDs then show, segment by segment
from the bytes the chip models hold. Run it again after a change to the display:

    .venv/bin/python tools/sim/picture.py [--out docs/clock.svg]

host_tests/tools/test_docs.py checks that the committed picture is what this tool draws.
"""

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/: paths.py
import paths  # noqa: E402

paths.install(board=True)
ROOT = paths.ROOT

import sim  # noqa: E402

OUT = ROOT / "docs" / "clock.svg"
# From power-up: the chooser, five steps to preset 5 (Blitz 5+3), PLAY chooses it; Black presses,
# White's clock runs 12.4 s (the colon is on in the first half of each second shown).
_KEYS = ("s", "=", "=", "=", "=", "=", "p")
SCRIPT = ("wait 1000",) + tuple(k + "\nwait 200" for k in _KEYS) + ("right", "wait 12300")

# Seven segments of a digit cell 40 x 70: (bit, polygon points).
_SEG = (
    (0x01, "8,4 32,4 28,10 12,10"),
    (0x02, "34,6 34,33 28,30 28,12"),
    (0x04, "34,37 34,64 28,58 28,40"),
    (0x08, "8,66 32,66 28,60 12,60"),
    (0x10, "6,37 6,64 12,58 12,40"),
    (0x20, "6,6 6,33 12,30 12,12"),
    (0x40, "9,35 13,31 27,31 31,35 27,39 13,39"),
)
_ON, _OFF = "#ff3b30", "#3a1512"


def display_svg(segs, x, y):
    """SVG elements for one 4-digit display at (x, y): its bezel, digits and colon."""
    out = ['<rect x="%d" y="%d" width="220" height="100" rx="8" fill="#111"/>' % (x, y)]
    for i, seg in enumerate(segs[:4]):
        dx = x + 14 + i * 48 + (12 if i >= 2 else 0)
        for bit, points in _SEG:
            fill = _ON if seg & bit else _OFF
            out.append(
                '<polygon transform="translate(%d,%d)" points="%s" fill="%s"/>'
                % (dx, y + 15, points, fill)
            )
    colon = _ON if segs[1] & 0x80 else _OFF
    for cy in (38, 62):
        out.append('<circle cx="%d" cy="%d" r="4" fill="%s"/>' % (x + 110, y + cy, colon))
    return out


def draw(left, right, leds):
    """The whole picture as SVG text: the case, two displays, two levers with their LEDs."""
    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="560" height="230" viewBox="0 0 560 230">',
        '<rect x="10" y="40" width="540" height="180" rx="18" fill="#6b4a2f"/>',
    ]
    for side, segs in enumerate((left, right)):
        x = 40 + side * 260
        lever_y = 22 if leds[side] else 30  # the side whose clock runs has its lever up
        out.append(
            '<rect x="%d" y="%d" width="120" height="18" rx="5" fill="#222"/>' % (x + 50, lever_y)
        )
        out.extend(display_svg(segs, x, 80))
        led = "#30d158" if leds[side] else "#16351f"
        out.append('<circle cx="%d" cy="200" r="7" fill="%s"/>' % (x + 110, led))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def render():
    """Play SCRIPT on a fresh simulated clock; the SVG of what it then shows."""
    with tempfile.TemporaryDirectory() as flash:
        board = sim.Sim(flash)
        sim.run_script(board, "\n".join(SCRIPT).split("\n"), _Null())
        left, right, leds, _buzz, _on = board.state()
        return draw(left, right, leds)


class _Null:
    def write(self, _text):
        pass


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    Path(args.out).write_text(render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
