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
added to the other) or upcount (a stopwatch for each player, no flag).

Pure module: no I/O, no clock reading. Presets live in presets.py as data.
"""

from micropython import const

MODE_COUNTDOWN = const(0)
MODE_HOURGLASS = const(1)
MODE_UPCOUNT = const(2)

BONUS_NONE = const(0)
BONUS_FISCHER = const(1)
BONUS_BRONSTEIN = const(2)
BONUS_DELAY = const(3)

MAX_PERIODS = const(4)
MAX_TIME_MS = const(36_000_000)  # 10 h per period: keeps every sum a small int
MAX_MOVES = const(200)
MAX_BONUS_MS = const(300_000)

BONUS_NAMES = ("none", "increment", "Bronstein delay", "delay")
MODE_NAMES = ("countdown", "hourglass", "upcount")


class TimeControlError(ValueError):
    pass


class TimeControl:
    """An immutable, validated time control. `ends[i]` is the cumulative number of moves a
    player has completed when period i is over (0 for the last period)."""

    def __init__(self, periods, mode=MODE_COUNTDOWN, name="custom"):
        if mode not in (MODE_COUNTDOWN, MODE_HOURGLASS, MODE_UPCOUNT):
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
        if mode != MODE_COUNTDOWN and (n != 1 or checked[0][2] != BONUS_NONE):
            raise TimeControlError("hourglass and upcount have one period and no bonus")
        self.periods = tuple(checked)
        self.ends = tuple(ends)
        self.mode = mode
        self.name = name

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

    def describe(self):
        """Human-readable summary, e.g. '90 min/40 moves, then 30 min; increment 30 s'."""
        parts = []
        for time_ms, moves, bonus, bonus_ms in self.periods:
            text = _minutes(time_ms)
            text += "/%d moves" % moves if moves else " rest of game"
            if bonus != BONUS_NONE:
                text += ", %s %s" % (BONUS_NAMES[bonus], _seconds(bonus_ms))
            parts.append(text)
        text = "; then ".join(parts)
        if self.mode != MODE_COUNTDOWN:
            text = MODE_NAMES[self.mode]
            if self.mode == MODE_HOURGLASS:
                text += ", %s each" % _minutes(self.periods[0][0])
        return text


def from_seconds(mode, periods, name="custom"):
    """Build a control from `[[time_s, moves, bonus, bonus_s], ...]` (settings, presets)."""
    return TimeControl(
        [(p[0] * 1000, p[1], p[2], p[3] * 1000) for p in periods], mode=mode, name=name
    )


def _minutes(ms):
    s = ms // 1000
    if s % 60:
        return "%d min %d s" % (s // 60, s % 60)
    return "%d min" % (s // 60)


def _seconds(ms):
    return "%d s" % (ms // 1000)
