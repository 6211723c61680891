"""The custom control editor: up to four periods, each time, moves, bonus and bonus seconds;
after a single main period an optional byo-yomi or Canadian overtime.

Pure module. Opened from the preset chooser (SET long, or `CUSt`), starting from the control
in use. The left display names the field, the right shows its value:

    t1 n / t1 S   period 1's time (minutes / seconds fields of one value)
    1 n           moves in period 1 (`  Sd` = sudden death: the last period)
    1 b / b1 S    bonus kind (`nonE`, `Inc ` Fischer, `br  ` Bronstein, `dLY ` delay) / seconds
    ot            overtime after a single main period: `nonE`, `bYo ` byo-yomi, `CAnA` Canadian
    o n           byo-yomi periods / Canadian moves per block
    to n / to S   a byo-yomi period's / Canadian block's time (minutes / seconds)

    PLAY        start: the control is checked (timecontrol.from_seconds) and saved, the new
                game is ready; a control that does not build shows `Err  CUSt` and the
                editor again
    SET short   next field            SET long   cancel (back to the game, nothing saved)
    MINUS/PLUS  change the value (held: big steps); moves from 0 to 1 adds a period, to 0
                removes the ones after it
"""

import presets
import timecontrol as T
import timefmt
from micropython import const
from ui_base import Screen, copy, number

# ui.py's codes, copied: const() inlines them here (test_ui_codes checks they match)
_LONG = const(2)
_MINUS = const(2)
_PLAY = const(0)
_PLUS = const(3)
_REPEAT = const(3)
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
_FIELD_DIGIT = (1, 1, 0, 0, 1)  # where each label shows the period number
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
_OT_KIND_LABELS = (
    b"nonE"  # none
    b"bYo "  # byo-yomi
    b"CAnA"  # Canadian
)
_OT_MODES = (T.MODE_COUNTDOWN, T.MODE_BYOYOMI, T.MODE_CANADIAN)
_OT_DEFAULTS = (None, (5, 30), (25, 600))  # a new byo-yomi: 5 x 30 s; Canadian: 25 / 10 min
# the highest count and time (s) of a byo-yomi / Canadian overtime
_OT_LIMITS = (
    None,
    (T.MAX_BYO_PERIODS, T.MAX_BYO_MS // 1000),
    (T.MAX_MOVES, T.MAX_TIME_MS // 1000),
)


class CustomEditor(Screen):
    periods = None  # [time_s, moves, bonus, bonus_s] per period, being edited (open())
    ot = None  # [overtime kind (0 none, index of _OT_MODES), count, time_s] (open())
    cursor = 0  # period * 5 + field; then the overtime fields (_OT_*)

    def open(self):
        """A copy of the control in use (a preset's or the saved custom one)."""
        c = self.ui.settings["control"]
        if "custom" in c:
            mode = c["custom"]["mode"]
            periods = [list(p) for p in c["custom"]["periods"]]
            overtime = c["custom"].get("overtime")
        else:
            mode = presets.PRESETS[c["preset"]][2]
            periods = [list(p) for p in presets.PRESETS[c["preset"]][3]]
            overtime = presets.overtime(c["preset"])
        self.periods = periods
        kind = _OT_MODES.index(mode) if mode in _OT_MODES and overtime else 0
        self.ot = [kind, overtime[0], overtime[1]] if kind else [0, 0, 0]
        self.cursor = 0

    # -------------------------------------------------------------- keys
    def key(self, button, kind, now):
        periods = self.periods
        if button == _SET and kind == _LONG:
            self.ui.go(_S_GAME)
            return 0
        if button == _SET and kind == _SHORT:
            # The fields: 5 per period, then the overtime kind (only after a single main
            # period) and, with an overtime, its count, minutes and seconds.
            n = 5 * len(periods)
            if len(periods) == 1:
                n += 4 if self.ot[0] else 1
            self.cursor = (self.cursor + 1) % n
            return 0
        if button == _PLAY and kind == _SHORT:
            return self._start(now)
        if button not in (_PLUS, _MINUS) or kind == _LONG:
            return 0
        step = 1 if button == _PLUS else -1
        fast = kind == _REPEAT
        p, field = divmod(self.cursor, 5)
        if p >= len(periods):
            self._key_overtime(field, step, fast)
            return 0
        period = periods[p]
        if field == _F_TIME_MIN:
            period[0] = max(0, min(36000, period[0] + step * (600 if fast else 60)))
        elif field == _F_TIME_SEC:
            period[0] = max(0, min(36000, period[0] + step * (10 if fast else 1)))
        elif field == _F_MOVES:
            period[1] = max(0, min(200, period[1] + step * (10 if fast else 1)))
            if period[1] == 0:
                del periods[p + 1 :]
            elif p == len(periods) - 1 and len(periods) < 4:
                periods.append([1800, 0, period[2], period[3]])
                self.ot[0] = 0  # overtime only follows a single main period
        elif field == _F_BONUS:
            period[2] = (period[2] + step) % 4
        elif field == _F_BONUS_S:
            period[3] = max(0, min(300, period[3] + step * (10 if fast else 1)))
        return 0

    def _key_overtime(self, field, step, fast):
        ot = self.ot
        if field == _OT_KIND:
            ot[0] = (ot[0] + step) % 3
            if ot[0]:
                ot[1], ot[2] = _OT_DEFAULTS[ot[0]]
            return
        high_count, high_s = _OT_LIMITS[ot[0]]
        if field == _OT_COUNT:
            ot[1] = max(1, min(high_count, ot[1] + step * (10 if fast else 1)))
        elif field == _OT_MIN:
            ot[2] = max(1, min(high_s, ot[2] + step * (600 if fast else 60)))
        else:
            ot[2] = max(1, min(high_s, ot[2] + step * (10 if fast else 1)))

    def _start(self, now):
        periods = self.periods
        for p in periods[:-1]:
            if p[1] == 0:
                p[1] = 1
        periods[-1][1] = 0
        kind = self.ot[0] if len(periods) == 1 else 0
        mode = _OT_MODES[kind]
        overtime = [self.ot[1], self.ot[2]] if kind else None
        try:
            control = T.from_seconds(mode, periods, "custom", overtime)
        except T.TimeControlError:
            self.ui.show_message(b"Err ", b"CUSt", now, _S_CUSTOM)
            return _REQ_BEEP
        custom = {"mode": mode, "periods": [list(p) for p in periods]}
        if overtime:
            custom["overtime"] = overtime
        self.ui.settings["control"] = {"custom": custom}
        self.ui.new_game(control)
        return _REQ_SAVE_SETTINGS | _REQ_CLEAR_GAME

    # ------------------------------------------------------------ render
    def render(self, now):
        p, field = divmod(self.cursor, 5)
        text = self.ui.text
        colon = self.ui.colon
        colon[0] = colon[1] = 0
        right = text[1]
        if p >= len(self.periods):
            ot = self.ot
            copy(text[0], _OT_FIELD_LABELS, 4 * field)
            if field == _OT_KIND:
                copy(right, _OT_KIND_LABELS, 4 * ot[0])
            elif field == _OT_COUNT:
                number(right, ot[1])
            else:
                colon[1] = timefmt.countdown_into(right, ot[2] * 1000, 0)
            return
        period = self.periods[p]
        copy(text[0], _FIELD_LABELS, 4 * field)
        text[0][_FIELD_DIGIT[field]] = 49 + p  # "1".."4"
        if field in (_F_TIME_MIN, _F_TIME_SEC):
            colon[1] = timefmt.countdown_into(right, period[0] * 1000, 0)
        elif field == _F_MOVES:
            if period[1] == 0:
                copy(right, b"  Sd")
            else:
                number(right, period[1])
        elif field == _F_BONUS:
            copy(right, _BONUS_LABELS, 4 * period[2])
        else:
            number(right, period[3])
