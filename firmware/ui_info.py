"""The game screen's info pages: what MINUS/PLUS show instead of the times while the game is
ready, paused or flagged.

Pure module. The game screen (ui_game.GameScreen) owns one InfoPages, hands it MINUS/PLUS
and draws it instead of the times while `page` is not 0. Pages (0 = the times):

    ready           1  `bA nn` battery %   |  `P  n` number of periods (byo-yomi and
                                              Canadian: the overtime counter, `bY n`/`c nn`)
    paused/flagged  1  `n nn` moves completed, each side
                    2  `P  n` period, each side (`F` = a period ended by a flag-fall
                       transition, `-` = passed a time control first); byo-yomi and
                       Canadian: the overtime counters instead

The pages change on keys and engine events only (next_change: the default -1).
"""

import engine as E
from micropython import const
from ui_base import Screen, number, overtime_count

# ui.py's codes, copied: const() inlines them here (test_ui_codes checks they match)
_PLUS = const(3)
_SHORT = const(1)


# Labels before the numbers, packed as ui_base.copy reads them
_LABELS = (
    b"bA  "  # 0: battery %
    b"P   "  # 4: period
    b"n   "  # 8: moves completed
)


class InfoPages(Screen):
    page = 0  # 0 = the times (the game screen's own drawing)

    def key(self, button, kind, now):
        """MINUS/PLUS (the only keys the game screen hands on): the previous / next page.
        Ready: two pages, either key flips them; paused or flagged: three, in a cycle."""
        if kind == _SHORT:
            if self.ui.game.state == E.READY:
                self.page = (self.page + 1) % 2
            else:
                self.page = (self.page + (1 if button == _PLUS else 2)) % 3
        return 0

    def render(self, now):
        g = self.ui.game
        text = self.ui.text
        if self.page == 1:
            if g.state == E.READY:
                number(text[0], self.ui.battery_pct, _LABELS, 0)
                if g.control.ot_count:
                    overtime_count(text[1], g, 1)
                else:
                    number(text[1], g.control.last() + 1, _LABELS, 4)
            else:
                for side in (0, 1):
                    number(text[side], g.moves[side], _LABELS, 8)
        elif g.control.ot_count:
            for side in (0, 1):
                overtime_count(text[side], g, side)
        else:
            for side in (0, 1):
                number(text[side], g.period[side] + 1, _LABELS, 4)
                if g.markers[side]:
                    text[side][1] = 70  # "F": a period ended by a flag-fall transition
                if g.first_passed == side:
                    text[side][2] = 45  # "-": passed a time control first
        self.ui.colon[0] = self.ui.colon[1] = 0
