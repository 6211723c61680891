"""The custom control editor: up to four periods, each time, moves, bonus and bonus seconds;
after a single main period an optional byo-yomi or Canadian overtime; draw odds; time odds
(the right side its own fields).

Pure module. Opened from the preset chooser (SET short: starting from the preset or kept
control under its cursor; PLAY on `CUSt`: from the control in use), as the sides stand (a swapped
control is edited swapped and saved swapped, so White's side under draw odds stays where
it was). A control started from here is kept (settings "kept": the chooser's slots). The
left display names the field, the right shows its value (a time in the width's layouts,
ui.Ui.time_into: at width 6 with its seconds from 1 h on, `1h30.00`). The fields, in the
order SET steps through them:

    t1 n / t1 S   period 1's time (minutes / seconds fields of one value)
    1 n           moves in period 1 (`  Sd` = sudden death: the last period)
    1 b / b1 S    bonus kind (`nonE`, `Inc ` Fischer, `br  ` Bronstein, `dLY ` delay) / seconds
    ...           the same for periods 2-4
    ot            overtime after a single main period: `nonE`, `bYo ` byo-yomi, `CAnA` Canadian
    o n           byo-yomi periods / Canadian moves per block
    to n / to S   a byo-yomi period's / Canadian block's time (minutes / seconds)
    1-2=          draw odds, what a draw counts as: `1-2 ` a draw, `1-0 ` White's win,
                  `0-1 ` Black's win (Armageddon)
    Odds          time odds: `  no` both sides play the fields above; ` YES` the fields
                  above are the left side's (an `L` in their labels: `t1Ln`), and the right
                  side's own follow (an `r`: `t1rn` ... `b1rS`, `orn `, `torn` / `torS`),
                  starting as a copy of the left's, so only what differs needs a press.
                  One overtime kind for both (the left's `otL `); the right has no `ot`.

    PLAY        start: the control is checked (ui_draft.build: timecontrol) and saved,
                the new game is ready; a control that does not build shows `Err  CUSt` and
                the editor again
    SET short   next field            SET long   cancel (back to the game, nothing saved)
    MINUS/PLUS  change the value (held: a few single steps, then big steps to round
                values, ui_base.stepped); moves from 0 to 1 adds a period, to 0
                removes the ones after it (and adding one ends an overtime, for both sides)
"""

import timecontrol as T
from micropython import const
from ui_base import Screen, copy, number, stepped

# ui.py's codes, copied: const() inlines them here (test_ui_codes checks they match)
_LONG = const(2)
_MINUS = const(2)
_PLAY = const(0)
_PLUS = const(3)
_REQ_BEEP = const(32)
_REQ_CLEAR_GAME = const(4)
_REQ_SAVE_SETTINGS = const(1)
_S_CUSTOM = const(2)
_S_GAME = const(0)
_SET = const(1)
_SHORT = const(1)

# Fields per period
_F_TIME_MIN = const(0)
_F_TIME_SEC = const(1)
_F_MOVES = const(2)
_F_BONUS = const(3)
_F_BONUS_S = const(4)
# Labels packed (ui_base.copy): field i's at 4 * i
_FIELD_LABELS = (
    b"t  n"  # time, minutes
    b"t  S"  # time, seconds
    b"  n "  # moves
    b"  b "  # bonus kind
    b"b  S"  # bonus seconds
)
_FIELD_DIGIT = b"\x01\x01\x00\x00\x01"  # where each label shows the period number
_FIELD_SIDE = b"\x02\x02\x01\x01\x02"  # ... and, with time odds, the side (`L` / `r`)
_BONUS_LABELS = (  # timecontrol.BONUS_*
    b"nonE"  # none
    b"Inc "  # Fischer increment
    b"br  "  # Bronstein
    b"dLY "  # simple delay
)
# Overtime fields, after the fields of a single main period
_OT_KIND = const(0)
_OT_COUNT = const(1)
_OT_MIN = const(2)
_OT_SEC = const(3)
# kind, count (periods / moves per block), time of a period / block in minutes, seconds
_OT_FIELD_LABELS = (
    b"ot  "  # kind
    b"o n "  # count
    b"to n"  # time, minutes
    b"to S"  # time, seconds
)
_OT_SIDE = b"\x02\x01\x02\x02"  # where the side shows in each (time odds)
_OT_KIND_LABELS = (
    b"nonE"  # none
    b"bYo "  # byo-yomi
    b"CAnA"  # Canadian
)
_OT_DEFAULTS = (None, (5, 30), (25, 600))  # a new byo-yomi: 5 x 30 s; Canadian: 25 / 10 min
# the highest count and time (s) of a byo-yomi / Canadian overtime
_OT_LIMITS = (
    None,
    (T.MAX_BYO_PERIODS, T.MAX_BYO_MS // 1000),
    (T.MAX_MOVES, T.MAX_TIME_MS // 1000),
)
# After the left side's fields: draw odds, then time odds
_DRAW_LABELS = (  # by timecontrol.DRAW_ODDS_*: what a draw counts as
    b"1-2 "  # a draw
    b"1-0 "  # White's win
    b"0-1 "  # Black's win
)
_LETTER_L = const(76)  # "L": a field of the left side (time odds)
_LETTER_R = const(114)  # "r": of the right side


class CustomEditor(Screen):
    sides = None  # per side [periods, ot], being edited (ui_draft.py has the form)
    odds = False  # time odds: the right side has fields of its own
    draw = 0  # timecontrol.DRAW_ODDS_*
    cursor = 0  # the field, counted over the left's, draw odds, time odds, the right's
    swap = False  # the control in use was swapped: White's side stays on the right
    source = None  # the control the next open() starts from (None: the one in use)

    def open(self):
        """A copy of `source` (a settings control dict: the chooser's entry it was opened
        from), else of the control in use (a preset's or a custom one)."""
        import ui_draft  # here, not at boot: its code takes RAM only once the editor opens

        c = self.source or self.ui.settings["control"]
        self.source = None
        self.sides, self.odds, self.draw = ui_draft.load(c)
        self.swap = bool(c.get("swap"))
        self.cursor = 0

    def _count(self, s):
        """How many fields side s has: 5 per period, then the overtime's (the left: its
        kind, and with an overtime its count, minutes and seconds; the right: those three)."""
        periods = self.sides[s][0]
        n = 5 * len(periods)
        if len(periods) == 1:
            if self.sides[0][1][0]:
                n += 4 - s
            elif s == 0:
                n += 1
        return n

    def _where(self):
        """(side, field) of the cursor: side 0/1 with the field within that side's; side -1
        with 0 = draw odds, 1 = time odds."""
        k = self.cursor
        n = self._count(0)
        if k < n:
            return 0, k
        if k < n + 2:
            return -1, k - n
        return 1, k - n - 2

    # -------------------------------------------------------------- keys
    def key(self, button, kind, now):
        if button == _SET and kind == _LONG:
            self.ui.go(_S_GAME)
            return 0
        if button == _SET and kind == _SHORT:
            n = self._count(0) + 2 + (self._count(1) if self.odds else 0)
            self.cursor = (self.cursor + 1) % n
            return 0
        if button == _PLAY and kind == _SHORT:
            return self._start(now)
        if button not in (_PLUS, _MINUS) or kind == _LONG:
            return 0
        step = 1 if button == _PLUS else -1
        side, field = self._where()
        if side < 0:
            if kind != _SHORT:
                return 0
            if field == 0:
                self.draw = (self.draw + step) % 3
            else:
                self.odds = not self.odds
                if self.odds:  # the right starts as the left's copy
                    left = self.sides[0]
                    self.sides[1] = [[list(p) for p in left[0]], list(left[1])]
            return 0
        self._key_side(side, field, step, self.ui.repeats)
        if side:  # a period the right added ends the overtime: the left has fewer fields
            self.cursor = self._count(0) + 2 + field
        return 0

    def _key_side(self, s, field, step, held):
        periods, ot = self.sides[s]
        p, field = divmod(field, 5)
        if p >= len(periods):
            self._key_overtime(s, field + s, step, held)  # the right has no kind field
            return
        period = periods[p]
        if field == _F_TIME_MIN:
            period[0] = stepped(period[0], step, 60, 600, held, 0, 36000)
        elif field == _F_TIME_SEC:
            period[0] = stepped(period[0], step, 1, 10, held, 0, 36000)
        elif field == _F_MOVES:
            period[1] = stepped(period[1], step, 1, 10, held, 0, 200)
            if period[1] == 0:
                del periods[p + 1 :]
            elif p == len(periods) - 1 and len(periods) < 4:
                periods.append([1800, 0, period[2], period[3]])
                self.sides[0][1][0] = 0  # overtime only follows a single main period
        elif field == _F_BONUS:
            period[2] = (period[2] + step) % 4
        elif field == _F_BONUS_S:
            period[3] = stepped(period[3], step, 1, 10, held, 0, 300)

    def _key_overtime(self, s, field, step, held):
        ot = self.sides[s][1]
        if field == _OT_KIND:
            ot[0] = (ot[0] + step) % 3
            if ot[0]:
                ot[1], ot[2] = _OT_DEFAULTS[ot[0]]
                right = self.sides[1]
                right[1] = list(ot)  # one overtime kind for both sides
                del right[0][1:]  # ... after a single main period
                right[0][0][1] = 0
            return
        high_count, high_s = _OT_LIMITS[self.sides[0][1][0]]
        if field == _OT_COUNT:
            ot[1] = stepped(ot[1], step, 1, 10, held, 1, high_count)
        elif field == _OT_MIN:
            ot[2] = stepped(ot[2], step, 60, 600, held, 1, high_s)
        else:
            ot[2] = stepped(ot[2], step, 1, 10, held, 1, high_s)

    def _start(self, now):
        import ui_draft  # already loaded by open()

        try:
            control, c = ui_draft.build(self.sides, self.odds, self.draw, self.swap)
        except T.TimeControlError:
            self.ui.show_message(b"Err ", b"CUSt", now, _S_CUSTOM)
            return _REQ_BEEP
        self.ui.settings["control"] = c
        self.ui.keep(c)
        self.ui.new_game(control)
        return _REQ_SAVE_SETTINGS | _REQ_CLEAR_GAME

    # ------------------------------------------------------------ render
    def render(self, now):
        side, field = self._where()
        ui = self.ui
        text = ui.text
        ui.points[0] = ui.points[1] = 0
        if side < 0:
            if field == 0:
                copy(text[0], b"1-2=")
                copy(text[1], _DRAW_LABELS, 4 * self.draw)
            else:
                self.put_yes_no(b"Odds", self.odds)
            return
        self._render_side(side, field)
        if self.odds:
            at = _FIELD_SIDE[field % 5] if field < 5 * len(self.sides[side][0]) else -1
            if at < 0:
                at = _OT_SIDE[field - 5 * len(self.sides[side][0]) + side]
            text[0][ui.at + at] = _LETTER_R if side else _LETTER_L

    def _render_side(self, s, field):
        periods, ot = self.sides[s]
        p, field = divmod(field, 5)
        ui = self.ui
        text = ui.text
        right = text[1]
        if p >= len(periods):
            field += s  # the right has no kind field
            copy(text[0], _OT_FIELD_LABELS, 4 * field)
            if field == _OT_KIND:
                copy(right, _OT_KIND_LABELS, 4 * ot[0])
            elif field == _OT_COUNT:
                number(right, ot[1])
            else:
                ui.points[1] = ui.time_into(right, ot[2] * 1000, True, 0)
            return
        period = periods[p]
        copy(text[0], _FIELD_LABELS, 4 * field)
        text[0][ui.at + _FIELD_DIGIT[field]] = 49 + p  # "1".."4"
        if field in (_F_TIME_MIN, _F_TIME_SEC):
            ui.points[1] = ui.time_into(right, period[0] * 1000, True, 0)
        elif field == _F_MOVES:
            if period[1] == 0:
                copy(right, b"  Sd")
            else:
                number(right, period[1])
        elif field == _F_BONUS:
            copy(right, _BONUS_LABELS, 4 * period[2])
        else:
            number(right, period[3])
