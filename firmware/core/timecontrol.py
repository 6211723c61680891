"""Time controls: the ordered periods of a game and the per-move bonus of each (FIDE 6.2).

A period is a tuple `(time_ms, moves, bonus, bonus_ms)`:
- `time_ms`: time granted when the period starts (the first period's is the starting time);
- `moves`: moves each player must complete in this period; 0 means "the rest of the game"
  and only the last period may (and must) have it;
- `bonus` / `bonus_ms`: the per-move bonus, one of BONUS_NONE, BONUS_FISCHER (increment),
  BONUS_BRONSTEIN (time used is given back, up to the amount) or BONUS_DELAY (simple or "US"
  delay: the main time only starts counting once the delay is spent).

Unused main time carries over into the next period (6.2b); the unused part of a delay never
does. A control also has a mode: countdown (normal), hourglass (time used by one player is
added to the other), upcount (a stopwatch for each player, no flag), or one of the two Go /
Shogi overtime systems after a main time:
- byo-yomi: `overtime = (periods, period_ms)`: N periods of T each. A move completed within
  a period keeps it (full again for the next move); a period that runs out is used up and
  the next starts at once; the flag falls when the last runs out. The main time may carry a
  Fischer increment (added only for moves completed in the main time).
- Canadian: `overtime = (moves, block_ms)`: blocks of M moves in T. M moves made within the
  block start a new full block (unused time is not carried); the flag falls when a block's
  time runs out first. No bonus.
Their main time is one period (moves 0); it may be 0 (overtime from the first move). Inside,
`periods` then holds two stages: the main time and the overtime stage `(T, 0, BONUS_NONE,
0)`, so `last()` is 1, period 1 means "in overtime", and `ot_count` / `ot_ms` give N or M
and T (0 / 0 for the other modes).

Time odds (Armageddon, handicap games): `Odds(left, right, draw_odds)` gives each physical
side (0 left, 1 right, as the arbiter places the clock) its own TimeControl; both share one
mode (countdown, hourglass, byo-yomi or Canadian; a stopwatch has nothing to differ), each
side its own periods, bonuses and overtime. `draw_odds` gives a drawn game to one *colour*
(DRAW_ODDS_WHITE / DRAW_ODDS_BLACK: Armageddon's Black), known only once the first press
says who has White; the engine turns the draw into that colour's win (game_state.finish).
Draw odds make the colours part of the control, so an Odds also says which physical side is
White's, `white` (0: the left, as the presets and the custom editor set it; `swapped()`
moves it with the controls): the engine refuses a first press from that side (6.5: Black
presses). A plain TimeControl is the same control for both sides, without draw odds.

Pure module: no I/O, no clock reading. Presets live in presets.py as data.
"""

from micropython import const

MODE_COUNTDOWN = const(0)
MODE_HOURGLASS = const(1)
MODE_UPCOUNT = const(2)
MODE_BYOYOMI = const(3)
MODE_CANADIAN = const(4)

BONUS_NONE = const(0)
BONUS_FISCHER = const(1)
BONUS_BRONSTEIN = const(2)
BONUS_DELAY = const(3)

MAX_PERIODS = const(4)
MAX_TIME_MS = const(36_000_000)  # 10 h per period: keeps every sum a small int
MAX_MOVES = const(200)
MAX_BONUS_MS = const(300_000)
MAX_BYO_PERIODS = const(99)  # byo-yomi periods (two digits on the display)
MAX_BYO_MS = const(3_600_000)  # 1 h per byo-yomi period
MIN_OT_MS = const(1_000)  # a byo-yomi period or Canadian block lasts at least 1 s

DRAW_ODDS_NONE = const(0)
DRAW_ODDS_WHITE = const(1)  # a drawn game is a win for White
DRAW_ODDS_BLACK = const(2)  # ... for Black (Armageddon)

BONUS_NAMES = ("none", "increment", "Bronstein delay", "delay")
MODE_NAMES = ("countdown", "hourglass", "upcount", "byo-yomi", "Canadian overtime")


class TimeControlError(ValueError):
    pass


class TimeControl:
    """An immutable, validated time control. `ends[i]` is the cumulative number of moves a
    player has completed when period i is over (0 for the last period)."""

    def __init__(self, periods, mode=MODE_COUNTDOWN, name="custom", overtime=None):
        if mode not in (MODE_COUNTDOWN, MODE_HOURGLASS, MODE_UPCOUNT, MODE_BYOYOMI, MODE_CANADIAN):
            raise TimeControlError("unknown mode")
        n = len(periods)
        if not 1 <= n <= MAX_PERIODS:
            raise TimeControlError("1 to 4 periods")
        checked = []
        ends = []
        total = 0
        for i, period in enumerate(periods):
            time_ms, moves, bonus, bonus_ms = period
            if not (isinstance(time_ms, int) and 0 <= time_ms <= MAX_TIME_MS):
                raise TimeControlError("period time out of range")
            if not (isinstance(moves, int) and 0 <= moves <= MAX_MOVES):
                raise TimeControlError("moves out of range")
            if (moves == 0) != (i == n - 1):
                raise TimeControlError("only the last period is 'rest of the game'")
            if bonus not in (BONUS_NONE, BONUS_FISCHER, BONUS_BRONSTEIN, BONUS_DELAY):
                raise TimeControlError("unknown bonus")
            if not (isinstance(bonus_ms, int) and 0 <= bonus_ms <= MAX_BONUS_MS):
                raise TimeControlError("bonus out of range")
            if bonus == BONUS_NONE:
                bonus_ms = 0
            total += moves
            ends.append(total if moves else 0)
            checked.append((time_ms, moves, bonus, bonus_ms))
        if mode == MODE_COUNTDOWN and checked[0][0] == 0 and checked[0][2] != BONUS_DELAY:
            raise TimeControlError("a countdown needs starting time")
        self.ot_count = 0
        self.ot_ms = 0
        if mode == MODE_BYOYOMI or mode == MODE_CANADIAN:
            self._overtime(mode, checked, overtime)
            ends.append(0)
        elif overtime is not None:
            raise TimeControlError("overtime only in byo-yomi and Canadian modes")
        elif mode != MODE_COUNTDOWN and (n != 1 or checked[0][2] != BONUS_NONE):
            raise TimeControlError("hourglass and upcount have one period and no bonus")
        self.periods = tuple(checked)
        self.ends = tuple(ends)
        self.mode = mode
        self.name = name

    def _overtime(self, mode, checked, overtime):
        """Check the main period and `overtime` = (count, time_ms); append the overtime
        stage to `checked`."""
        if len(checked) != 1:
            raise TimeControlError("overtime follows a single main time")
        main_ms, _moves, bonus, _bonus_ms = checked[0]
        if bonus != BONUS_NONE and (mode != MODE_BYOYOMI or bonus != BONUS_FISCHER):
            raise TimeControlError("only byo-yomi main time may have a bonus: an increment")
        if bonus != BONUS_NONE and main_ms == 0:
            raise TimeControlError("an increment needs main time")
        if not isinstance(overtime, (tuple, list)) or len(overtime) != 2:
            raise TimeControlError("overtime is (count, time_ms)")
        count, time_ms = overtime
        if mode == MODE_BYOYOMI:
            high_count, high_ms = MAX_BYO_PERIODS, MAX_BYO_MS
        else:
            high_count, high_ms = MAX_MOVES, MAX_TIME_MS
        if not (isinstance(count, int) and 1 <= count <= high_count):
            raise TimeControlError("overtime count out of range")
        if not (isinstance(time_ms, int) and MIN_OT_MS <= time_ms <= high_ms):
            raise TimeControlError("overtime time out of range")
        self.ot_count = count
        self.ot_ms = time_ms
        checked.append((time_ms, 0, BONUS_NONE, 0))

    def last(self):
        """Index of the last period."""
        return len(self.periods) - 1

    def has_bonus(self):
        """True when any period grants an increment or a delay (Appendix G.4 then does not
        apply)."""
        for p in self.periods:
            if p[2] != BONUS_NONE:
                return True
        return False

    def same(self, other):
        """True when `other` is a TimeControl that gives exactly the same time (the name
        aside)."""
        return (
            isinstance(other, TimeControl)
            and self.mode == other.mode
            and self.periods == other.periods
            and self.ot_count == other.ot_count
            and self.ot_ms == other.ot_ms
        )

    def spec(self):
        """The control in the settings' form (settings.py), in seconds: {"mode", "periods"
        [, "overtime"]}; the game record keeps it (gamelog.py)."""
        periods = []
        n = len(self.periods) - (1 if self.ot_count else 0)  # the overtime stage is not one
        for i in range(n):
            p = self.periods[i]
            periods.append([p[0] // 1000, p[1], p[2], p[3] // 1000])
        out = {"mode": self.mode, "periods": periods}
        if self.ot_count:
            out["overtime"] = [self.ot_count, self.ot_ms // 1000]
        return out

    def describe(self):
        """Human-readable summary, e.g. '90 min/40 moves, then 30 min; increment 30 s'."""
        parts = []
        for time_ms, moves, bonus, bonus_ms in self.periods:
            text = _minutes(time_ms)
            text += "/%d moves" % moves if moves else " rest of game"
            if bonus != BONUS_NONE:
                text += ", %s %s" % (BONUS_NAMES[bonus], _seconds(bonus_ms))
            parts.append(text)
        if self.ot_count:
            text = parts[0].replace(" rest of game", "")
            if self.mode == MODE_BYOYOMI:
                return "%s; then byo-yomi %d x %s" % (text, self.ot_count, _clock(self.ot_ms))
            return "%s; then Canadian %d moves in %s" % (text, self.ot_count, _clock(self.ot_ms))
        text = "; then ".join(parts)
        if self.mode != MODE_COUNTDOWN:
            text = MODE_NAMES[self.mode]
            if self.mode == MODE_HOURGLASS:
                text += ", %s each" % _minutes(self.periods[0][0])
        return text


class Odds:
    """Time odds: `sides[0]` is the left side's TimeControl, `sides[1]` the right's (one
    mode), `draw_odds` a DRAW_ODDS_* colour, `white` the side (0 left, 1 right) whose
    control is White's. Immutable and validated like a TimeControl. `mode` and `name` are
    the game's; `ot_count` is nonzero when the game has overtime (a side's own count:
    sides[s].ot_count)."""

    def __init__(self, left, right, draw_odds=DRAW_ODDS_NONE, name="custom", white=0):
        if not (isinstance(left, TimeControl) and isinstance(right, TimeControl)):
            raise TimeControlError("a control per side")
        if left.mode != right.mode:
            raise TimeControlError("both sides play one mode")
        if draw_odds not in (DRAW_ODDS_NONE, DRAW_ODDS_WHITE, DRAW_ODDS_BLACK):
            raise TimeControlError("draw odds: none, White or Black")
        if white != 0 and white != 1:
            raise TimeControlError("White's side: 0 left or 1 right")
        self.sides = (left, right)
        self.white = white
        self.mode = left.mode
        self.ot_count = left.ot_count
        self.draw_odds = draw_odds
        self.name = name

    def swapped(self):
        """The same odds with the sides' controls exchanged (the board was set up the other
        way round): White's side moves with them, the draw odds stay with their colour."""
        return Odds(self.sides[1], self.sides[0], self.draw_odds, self.name, 1 - self.white)


def sides_of(control):
    """(left, right, draw_odds) of a TimeControl (both sides, no draw odds) or an Odds."""
    if isinstance(control, Odds):
        return control.sides[0], control.sides[1], control.draw_odds
    return control, control, DRAW_ODDS_NONE


def from_seconds(mode, periods, name="custom", overtime=None):
    """Build a control from `[[time_s, moves, bonus, bonus_s], ...]` and, in byo-yomi and
    Canadian modes, `overtime = [count, time_s]` (settings, presets)."""
    if overtime is not None:
        if not isinstance(overtime, (tuple, list)) or len(overtime) != 2:
            raise TimeControlError("overtime is [count, time_s]")
        overtime = (overtime[0], overtime[1] * 1000)
    return TimeControl(
        [(p[0] * 1000, p[1], p[2], p[3] * 1000) for p in periods], mode, name, overtime
    )


def _clock(ms):
    if ms < 60_000 or ms % 60_000:
        return _seconds(ms)
    return _minutes(ms)


def _minutes(ms):
    s = ms // 1000
    if s % 60:
        return "%d min %d s" % (s // 60, s % 60)
    return "%d min" % (s // 60)


def _seconds(ms):
    return "%d s" % (ms // 1000)
