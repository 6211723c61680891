"""The table of named time controls the arbiter can pick from, and the control a settings
control dict names (`control_of`: a preset's row or a custom one, for the UI, the saved game
and the journal alike).

Each row: (name, code, mode, periods[, overtime]) with periods as `[time_s, moves, bonus,
bonus_s]` and, in byo-yomi and Canadian modes, overtime as `(count, time_s)` (see
timecontrol.py). A row with time odds goes on: (name, code, mode, periods, overtime,
right_periods, right_overtime, draw_odds): `periods` / `overtime` are then the left side's
(White's, where the arbiter puts White on the left; the ready screen swaps them), the
right_ ones the right side's, `draw_odds` a timecontrol.DRAW_ODDS_* colour.
`code` is what the 4-digit display shows while choosing (max 4 characters from the
seven-segment alphabet). The order is the order on the clock; index 0 is the default of a
new clock. Settings files store the index: new rows go at the end.
"""

from micropython import const
from timecontrol import (
    BONUS_BRONSTEIN,
    BONUS_DELAY,
    BONUS_FISCHER,
    BONUS_NONE,
    DRAW_ODDS_BLACK,
    MODE_BYOYOMI,
    MODE_CANADIAN,
    MODE_COUNTDOWN,
    MODE_HOURGLASS,
    MODE_UPCOUNT,
    Odds,
    TimeControlError,
    from_seconds,
)

_F = const(1)  # BONUS_FISCHER, spelled short for the table below
_D = const(3)  # BONUS_DELAY
_BLACK = const(2)  # DRAW_ODDS_BLACK: a drawn game is Black's win

PRESETS = (
    # FIDE classical: 90 min for 40 moves, then 30 min, 30 s increment from move 1.
    ("FIDE 90/40+30, 30 s inc", "FIdE", MODE_COUNTDOWN, ((5400, 40, _F, 30), (1800, 0, _F, 30))),
    ("90 min + 30 s", "9030", MODE_COUNTDOWN, ((5400, 0, _F, 30),)),
    ("Rapid 25+10", "2510", MODE_COUNTDOWN, ((1500, 0, _F, 10),)),
    ("Rapid 15+10", "1510", MODE_COUNTDOWN, ((900, 0, _F, 10),)),
    ("Rapid 10+5", "10 5", MODE_COUNTDOWN, ((600, 0, _F, 5),)),
    ("Blitz 5+3", " 5 3", MODE_COUNTDOWN, ((300, 0, _F, 3),)),
    ("Blitz 3+2", " 3 2", MODE_COUNTDOWN, ((180, 0, _F, 2),)),
    ("Blitz 5+0", " 5 0", MODE_COUNTDOWN, ((300, 0, BONUS_NONE, 0),)),
    ("Bullet 1+0", " 1 0", MODE_COUNTDOWN, ((60, 0, BONUS_NONE, 0),)),
    ("US Chess G/90;d5", "G90d", MODE_COUNTDOWN, ((5400, 0, _D, 5),)),
    ("US Chess G/60;d5", "G60d", MODE_COUNTDOWN, ((3600, 0, _D, 5),)),
    ("US Chess 40/120, SD/60;d5", "40 2", MODE_COUNTDOWN, ((7200, 40, _D, 5), (3600, 0, _D, 5))),
    ("Bronstein G/25, 5 s", "br25", MODE_COUNTDOWN, ((1500, 0, BONUS_BRONSTEIN, 5),)),
    ("Classic 40/120, 20/60, 30", "CL3P", MODE_COUNTDOWN,
        ((7200, 40, BONUS_NONE, 0), (3600, 20, BONUS_NONE, 0), (1800, 0, BONUS_NONE, 0))),
    ("Rapid G/60, no bonus", "G60", MODE_COUNTDOWN, ((3600, 0, BONUS_NONE, 0),)),
    ("Hourglass 1 min", "Hr 1", MODE_HOURGLASS, ((60, 0, BONUS_NONE, 0),)),
    ("Stopwatch (count up)", "UP", MODE_UPCOUNT, ((0, 0, BONUS_NONE, 0),)),
    # Go / Shogi overtime: 60 min, then 5 periods of 30 s; 60 min, then 25 moves in 10 min.
    ("Byo-yomi 60 min + 5 x 30 s", "bYo ", MODE_BYOYOMI, ((3600, 0, BONUS_NONE, 0),), (5, 30)),
    ("Canadian 60 min + 25/10 min", "CAnA", MODE_CANADIAN, ((3600, 0, BONUS_NONE, 0),),
        (25, 600)),
    # Armageddon (time odds): White 5 min, Black 4 min, 2 s a move from move 61; a draw is
    # Black's win. The second period (0 s, rest of the game) only brings the increment.
    ("Armageddon 5 v 4, 2 s from move 61", "A5-4", MODE_COUNTDOWN,
        ((300, 60, BONUS_NONE, 0), (0, 0, _F, 2)), None,
        ((240, 60, BONUS_NONE, 0), (0, 0, _F, 2)), None, _BLACK),
    # White 10 min, Black 7 min, no increment; a draw is Black's win.
    ("Armageddon 10 v 7", "A107", MODE_COUNTDOWN, ((600, 0, BONUS_NONE, 0),), None,
        ((420, 0, BONUS_NONE, 0),), None, _BLACK),
)  # fmt: skip

COUNT = len(PRESETS)
KEPT = const(5)  # custom controls kept over power-off (settings "kept"), the chooser's slots

# The table's one-letter aliases must match the real constants.
assert _F == BONUS_FISCHER and _D == BONUS_DELAY and _BLACK == DRAW_ODDS_BLACK


def control(index):
    """The control of preset `index` (0..COUNT-1): a TimeControl, or an Odds for a row with
    time odds (left side first)."""
    row = PRESETS[index]
    left = from_seconds(row[2], row[3], row[0], overtime(index))
    if len(row) <= 5:
        return left
    right = from_seconds(row[2], row[5], row[0], row[6])
    return Odds(left, right, row[7], row[0])


def control_of(c):
    """The control of a settings control dict ({"preset": i} or {"custom": ...}, maybe with
    "swap"): a TimeControl, or a timecontrol.Odds with time or draw odds; preset 0 when a
    custom one does not build."""
    if "custom" in c:
        custom = c["custom"]
        try:
            mode = custom["mode"]
            tc = from_seconds(mode, custom["periods"], "custom", custom.get("overtime"))
            right = custom.get("right")
            odds = custom.get("draw_odds", 0)
            if right is not None or odds:
                if right is not None:
                    right = from_seconds(mode, right["periods"], "custom", right.get("overtime"))
                tc = Odds(tc, right or tc, odds)
        except (TimeControlError, KeyError, TypeError, AttributeError):
            return control(0)
    else:
        tc = control(c["preset"])
    if c.get("swap") and isinstance(tc, Odds):
        tc = tc.swapped()
    return tc


def overtime(index):
    """The preset's overtime `(count, time_s)` (the left side's), or None."""
    row = PRESETS[index]
    return row[4] if len(row) > 4 else None


def right_side(index):
    """(periods, overtime) of the right side of a preset with time odds, else None."""
    row = PRESETS[index]
    return (row[5], row[6]) if len(row) > 5 else None


def draw_odds(index):
    """The preset's timecontrol.DRAW_ODDS_* colour (0: none)."""
    row = PRESETS[index]
    return row[7] if len(row) > 7 else 0


def code(index):
    return PRESETS[index][1]


def name(index):
    return PRESETS[index][0]
