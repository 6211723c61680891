"""The game screen's info pages: what MINUS/PLUS show instead of the times while the game is
ready, paused or flagged.

Pure module. The game screen (ui_game.GameScreen) owns one InfoPages, hands it MINUS/PLUS
(PLUS: the next page, MINUS: the previous, in a cycle of three with the times) and draws it
instead of the times while `page` is not 0. Pages (0 = the times):

    ready           1  `bA nn` battery     |  `P  n` number of periods (byo-yomi and
                                              Canadian: the overtime counter, `bY n`/`c nn`)
                                              of the right side's control (time odds: each
                                              side's starting time is on the time page)
                    2  `UEr `              |  the firmware version (version.py) in digits:
                                              ` 010` is 0.1.0 (see _VERSION)
    paused/flagged  1  `n nn` moves completed, each side
                    2  `P  n` period, each side (`F` = a period ended by a flag-fall
                       transition, `-` = passed a time control first); byo-yomi and
                       Canadian: the overtime counters instead

The battery level `bA nn` is the share of the cells' hours of play left (battery.percent,
from the shell's last reading, taken while the game is ready).

At width 6 the pages use the six digits: each label from digit 0, its number ending at digit
5 (`bA 100`, `n   42`, `PF-  2`: ui_base.number), and the version with its dots (`  0.1.0`
for 0.1.0: the glass has dots after digits 2, 3 and 4, and a version of up to four digits,
right-aligned, has its dots there).

The pages change on keys and engine events only (next_change: the default -1).
"""

import engine as E
import version
from micropython import const
from ui_base import Screen, copy, number, overtime_count

# ui.py's codes, copied: const() inlines them here (test_ui_codes checks they match)
_PLUS = const(3)
_SHORT = const(1)

# Labels, packed as ui_base.copy reads them
_LABELS = (
    b"bA  "  # 0: battery %
    b"P   "  # 4: period
    b"n   "  # 8: moves completed
    b"UEr "  # 12: the firmware version ("Ver": V has no seven-segment glyph)
)


def _version_digits(v):
    # The digits of the version string `v` up to its first character that is neither a digit
    # nor a dot, the dots left out (the 4-digit displays have no decimal point: only the
    # colon is wired), the first 4, right-aligned: "0.1.0" -> b" 010", "1.2.10-rc1" ->
    # b"1210"; and the points of those digits right-aligned on six digits (bit i: the dot
    # after digit i), where the dots were: "0.1.0" -> bits 3 and 4, "1.2.10" -> bits 2 and 3.
    digits = bytearray(4)
    dots = 0  # bit k: a dot after the k-th digit
    n = 0
    for c in v.encode():
        if c == 46:  # "."
            if n:
                dots |= 1 << (n - 1)
        else:
            if not 48 <= c <= 57 or n == 4:
                break
            digits[n] = c
            n += 1
    out = bytearray(b"    ")
    points = 0
    for i in range(n):
        out[4 - n + i] = digits[i]
        if (dots >> i) & 1 and i < n - 1:
            points |= 1 << (6 - n + i)
    return bytes(out), points


_VERSION, _VERSION_POINTS = _version_digits(version.VERSION)  # built once at import
del _version_digits  # not needed after import: its code is freed


class InfoPages(Screen):
    page = 0  # 0 = the times (the game screen's own drawing), 1, 2

    def key(self, button, kind, now):
        """MINUS/PLUS (the only keys the game screen hands on): the previous / next page."""
        if kind == _SHORT:
            self.page = (self.page + (1 if button == _PLUS else 2)) % 3
        return 0

    def render(self, now):
        g = self.ui.game
        text = self.ui.text
        if g.state == E.READY:
            if self.page == 1:
                number(text[0], self.ui.battery_pct, _LABELS, 0)
                if g.ot_mode:
                    overtime_count(text[1], g, 1)
                else:
                    number(text[1], len(g.controls[1].periods), _LABELS, 4)  # the right's
            else:
                copy(text[0], _LABELS, 12)
                copy(text[1], _VERSION)
                if self.ui.digits == 6:  # right-aligned, with its dots
                    right = text[1]
                    right[0] = right[1] = 32
                    for i in range(4):
                        right[2 + i] = _VERSION[i]
                    self.ui.points[0] = 0
                    self.ui.points[1] = _VERSION_POINTS
                    return
        elif self.page == 1:
            for side in (0, 1):
                number(text[side], g.moves[side], _LABELS, 8)
        elif g.ot_mode:
            for side in (0, 1):
                overtime_count(text[side], g, side)
        else:
            for side in (0, 1):
                number(text[side], g.period[side] + 1, _LABELS, 4)
                if g.markers[side]:
                    text[side][1] = 70  # "F": a period ended by a flag-fall transition
                if g.first_passed == side:
                    text[side][2] = 45  # "-": passed a time control first
        self.ui.points[0] = self.ui.points[1] = 0
