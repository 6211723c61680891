"""An independent model of the clock rules in microseconds, and a referee that plays the same
game on the engine and on the model and compares them after every action.

Not a test module itself: host_tests/core/test_engine_exact.py (CPython and MicroPython,
seeded games) and host_tests/core_cpython/test_engine_exact_properties.py (hypothesis) feed it
games.

The model is written from the rules' statement, step by step in time, with plain unbounded
ints of us (no pairs, no deadlines, no re-basing, no rounding): per side the time it holds
*now*, the period or overtime phase, the flag. The referee keeps its own account too: for
each side the exact sum of the intervals its clock ran (lever stamp to lever stamp, pauses
left out) and the bonuses and periods it was given, and checks at every move of a game with
no flag and a plain bonus (Fischer or none) that the time left is exactly start + given -
spent. The record is checked against the model: the time a move took and the time left after
it within 0.5 ms (500 us) of exact at every move.

Actions (dt_us, kind, arg): the clock runs dt_us more, then `kind`:
- "move": the side on move presses (a move, or ignored within min_move_ms of its start);
- "edge" / "edge-1": as "move", but dt is replaced by the time to the engine's next deadline
  (a flag, a period's end), or 1 us less: a press at the flag's instant or just before;
- "other": the other side presses (ignored);
- "tick": the shell's tick at that instant;
- "pause": pause at the next whole ms (the shell pauses on a button, at a ms reading),
  resume arg // 1000 ms later at a whole ms;
- "add": pause as above, the arbiter adds (arg % 7) s to the side on move (a time correction
  keeps the us the side holds), resume 1 s later;
- "set": pause as above, the arbiter sets the side on move to 1 + arg % 90 s (exactly that),
  resume 1 s later.
Time odds: the model plays each side under its own control (a timecontrol.Odds), so the
conservation check above is per side, start + given - spent under that side's control.
Instants are us since the game's start, which is at `base_us` on the shell's clock (any us
of a ms); the engine gets the instant base_us + t as its ms and its us.
"""

import engine as E
import game_state
from timecontrol import (
    BONUS_BRONSTEIN,
    BONUS_DELAY,
    BONUS_FISCHER,
    MODE_BYOYOMI,
    MODE_COUNTDOWN,
    MODE_HOURGLASS,
    MODE_UPCOUNT,
    sides_of,
)

US = 1000
HALF_MS_US = 500


class Model:
    """The rules in us. `left[s]`: the time side s holds now (the stopwatch: has used);
    `flag[s]`: the instant its flag fell, or None."""

    def __init__(self, control, inc_before, transition, freeze):
        left, right, _draw_odds = sides_of(control)
        self.cs = (left, right)  # each side's own control (time odds)
        self.mode = left.mode
        self.transition = transition
        self.freeze = freeze
        self.ot_mode = left.ot_count > 0
        self.over = [False, False]  # in overtime (byo-yomi / Canadian)
        self.ot = [left.ot_count, right.ot_count]
        self.left = [0, 0]
        for s in (0, 1):
            c = self.cs[s]
            first = c.periods[0]
            start = first[0] * US
            fischer = first[2] == BONUS_FISCHER
            if inc_before and fischer and self.mode in (MODE_COUNTDOWN, MODE_BYOYOMI):
                start += first[3] * US
            if self.mode == MODE_UPCOUNT:
                start = 0
            if self.ot_mode and first[0] == 0:
                self.over[s] = True
                start = c.ot_ms * US
            self.left[s] = start
        self.period = [0, 0]
        self.moves = [0, 0]
        self.flag = [None, None]
        self.into = 0  # us the move on the clock has run (for the delay)
        self.stopped = False  # both clocks frozen by a flag

    def bonus(self, s):
        p = self.cs[s].periods[1 if self.over[s] else self.period[s]]
        return p[2], p[3] * US

    def run(self, s, t, d):
        """Side s's clock runs d us from the instant t (nothing else happens meanwhile)."""
        mode = self.mode
        if self.stopped or d <= 0:
            return
        if mode == MODE_UPCOUNT:
            self.left[s] += d
            self.into += d
            return
        done = 0
        while True:
            rest = d - done
            if self.flag[s] is not None:
                self.into += rest  # a fallen flag stays at 0
                return
            free = 0
            kind, amount = self.bonus(s)
            if mode == MODE_COUNTDOWN and kind == BONUS_DELAY and self.into < amount:
                free = amount - self.into  # the delay runs first
            need = free + self.left[s]  # us until the side holds 0
            if rest < need:
                used = rest - free if rest > free else 0
                self._lose(s, used)
                self.into += rest
                return
            self._lose(s, self.left[s])
            done += need
            self.into += need
            if self.ot_mode and not self.over[s]:
                self.over[s] = True  # main time over: the first period / block starts
                self.left[s] = self.cs[s].ot_ms * US
            elif self.ot_mode and mode == MODE_BYOYOMI and self.ot[s] > 1:
                self.ot[s] -= 1  # a period used up: the next starts at once
                self.left[s] = self.cs[s].ot_ms * US
            elif (
                not self.ot_mode
                and self.transition == E.TRANSITION_FLAG
                and self.period[s] < self.cs[s].last()
            ):
                self.period[s] += 1  # the period's time is over: the next one is granted
                self.left[s] = self.cs[s].periods[self.period[s]][0] * US
            else:
                self.flag[s] = t + done
                if self.freeze or self.flag[1 - s] is not None:
                    self.stopped = True
                    return

    def _lose(self, s, used):
        self.left[s] -= used
        o = 1 - s
        if self.mode == MODE_HOURGLASS and self.flag[o] is None:
            self.left[o] += used  # what the mover loses, the opponent gains

    def move(self, s):
        """Side s completes a move (after run() up to now). Returns the bonus and period
        time it was given, in us."""
        e = self.into
        self.into = 0
        self.moves[s] += 1
        if self.flag[s] is not None:
            return 0
        given = 0
        mode = self.mode
        if self.over[s]:
            if mode == MODE_BYOYOMI:
                self.left[s] = self.cs[s].ot_ms * US  # within the period: full again
            else:
                self.ot[s] -= 1
                if self.ot[s] == 0:
                    self.ot[s] = self.cs[s].ot_count  # a new block, unused time not carried
                    self.left[s] = self.cs[s].ot_ms * US
            return 0
        if mode in (MODE_COUNTDOWN, MODE_BYOYOMI):
            kind, amount = self.bonus(s)
            if kind == BONUS_FISCHER:
                given = amount
            elif kind == BONUS_BRONSTEIN:
                given = e if e < amount else amount
        p = self.period[s]
        if (
            self.transition == E.TRANSITION_MOVES
            and p < self.cs[s].last()
            and self.moves[s] == self.cs[s].ends[p]
        ):
            self.period[s] = p + 1
            given += self.cs[s].periods[p + 1][0] * US
        self.left[s] += given
        return given


def _ms(t):
    return t // US


def _sub(t):
    return t % US


class Referee:
    """Plays one game on the engine and on the model and checks them against each other."""

    def __init__(self, control, freeze, inc_before, transition, min_move_ms, base_us):
        self.g = E.Game(control, freeze, inc_before, transition, min_move_ms)
        self.m = Model(control, inc_before, transition, freeze)
        self.base = base_us
        self.min_move_us = min_move_ms * US
        self.t = 0  # now, us since the start
        self.turn = 0  # when the move on the clock began
        self.running = -1
        self.spent = [0, 0]  # exact sum of the intervals each side's clock ran
        self.given = [self.m.left[0], self.m.left[1]]  # start + bonuses + periods
        self.plain = transition == E.TRANSITION_MOVES and all(
            c.mode == MODE_COUNTDOWN
            and not c.ot_count
            and c.periods[0][2] not in (BONUS_DELAY, BONUS_BRONSTEIN)
            for c in self.m.cs
        )
        self.corrected = False  # an arbiter correction: start + given - spent no longer holds
        self.rows = []  # per logged half-move: (side, exact used, exact left after it)
        self.half_moves = 0
        self.checked = 0  # rows of the record already checked

    def _at(self, t):
        return _ms(self.base + t), _sub(self.base + t)

    def _advance(self, to):
        if self.running >= 0 and to > self.t:
            self.m.run(self.running, self.t, to - self.t)
            if not self.m.stopped and self.g.state == E.RUNNING:
                self.spent[self.running] += to - self.t
        self.t = to

    def start(self, side):
        at, at_us = self._at(0)
        ev = self.g.press(side, at, at_us)
        assert ev == E.EV_START, ev
        self.running = 1 - side
        self.turn = 0

    def act(self, dt, kind, arg):
        g = self.g
        if kind == "edge" or kind == "edge-1":
            d = g.deadline_exact()
            if d is not None:
                to = d[0] * US + d[1] - self.base - (1 if kind == "edge-1" else 0)
                if to >= self.t:
                    dt = to - self.t
            kind = "move"
        self._advance(self.t + dt)
        at, at_us = self._at(self.t)
        if kind == "move" or kind == "other":
            assert g.running == self.running
            side = self.running if kind == "move" else 1 - self.running
            was = g.log_count
            g.press(side, at, at_us)
            e = self.t - self.turn
            if kind == "move" and not self.m.stopped and e >= self.min_move_us:
                self.given[side] += self.m.move(side)
                self.rows.append((side, e, self.m.left[side]))
                self.running = 1 - side
                self.turn = self.t
                self.half_moves += 1
                assert g.log_count == was + 1, "a move was not logged"
                self._check_conservation(side)
            else:
                assert g.log_count == was, "a press that is no move was logged"
        elif kind == "tick":
            g.tick(at, at_us)
        else:
            self._pause_and_correct(kind, arg)
        at, at_us = self._at(self.t)
        g.tick(at, at_us)
        self.check()

    def _pause_and_correct(self, kind, arg):
        g = self.g
        # The next whole ms: the shell pauses at a reading of its ms clock.
        whole = (self.base + self.t + US - 1) // US * US - self.base
        self._advance(whole)
        at = self._at(whole)[0]
        paused = g.pause(at) == E.OK
        assert paused == (g.state == E.PAUSED)
        if not paused:
            return
        assert not self.m.stopped
        self.check()
        s = g.running
        folded = False  # a correction in this pause
        if kind == "add":
            ms = (arg % 7) * 1000
            if self.m.flag[s] is None and game_state.add_time(g, s, ms, at) == E.OK:
                self.m.left[s] += ms * US
                folded = True
            pause_ms = 1000
        elif kind == "set":
            ms = 1000 + (arg % 90) * 1000
            if self.m.flag[s] is None and game_state.set_time(g, s, ms, at) == E.OK:
                self.m.left[s] = ms * US
                folded = True
            pause_ms = 1000
        else:
            pause_ms = arg // 1000
        self.check()
        self.t = whole + pause_ms * US  # nothing runs while paused
        self.turn += pause_ms * US  # the move's own time leaves the pause out
        self.corrected = self.corrected or folded
        if folded and self.m.mode in (MODE_HOURGLASS, MODE_UPCOUNT):
            # The engine folds the paused move into both clocks before a correction (so the
            # hourglass cannot move time twice): the move counts again from the resume, for
            # min_move_ms and for the time the record gives it.
            self.turn = self.t
        assert g.resume(self._at(self.t)[0]) == E.OK

    def _check_conservation(self, side):
        """start + bonuses + periods - the exact sum of the intervals = the time left."""
        if not self.plain or self.corrected or self.m.flag[side] is not None:
            return
        left = self.g.remaining_exact(side, *self._at(self.t))
        exact = self.given[side] - self.spent[side]
        assert left[0] * US + left[1] == exact, (side, left, exact)

    def check(self):
        """Engine and model agree, to the us, at the instant now."""
        g = self.g
        m = self.m
        at, at_us = self._at(self.t)
        for x in (0, 1):
            ms, us = g.remaining_exact(x, at, at_us)
            assert 0 <= us < US
            left = m.left[x] if m.flag[x] is None or m.mode == MODE_UPCOUNT else 0
            assert ms * US + us == left, ("time", x, self.t, (ms, us), left)
            assert bool(g.flagged[x]) == (m.flag[x] is not None), ("flag", x, self.t)
            if m.flag[x] is not None:
                assert g.flag_at[x] * US + g.flag_us[x] - self.base == m.flag[x]
            assert g.moves[x] == m.moves[x]
            if m.ot_mode:
                assert g.in_overtime(x) == m.over[x]
                assert g.ot_left[x] == m.ot[x]
            # What the display reads: the exact time at now.000, rounded up (the stopwatch:
            # down); never less than the exact time left now on a falling clock.
            e_ms, e_us = g.remaining_exact(x, at, 0)
            shown = g.remaining(x, at)
            if m.mode == MODE_UPCOUNT:
                assert shown == e_ms
            else:
                assert shown == (e_ms + 1 if e_us else e_ms)
                if g.state == E.RUNNING and x == g.running:
                    assert shown * US >= ms * US + us
                    assert (shown == 0) == (ms == 0 and us == 0)
            # A reading a ms earlier (the loop's, before a press it drained): taken as the
            # last event when that is later, with the same rounding.
            p_ms, p_us = g.remaining_exact(x, at - 1, 0)
            up = 1 if p_us and m.mode != MODE_UPCOUNT else 0
            assert g.remaining(x, at - 1) == p_ms + up, ("earlier", x, self.t)
        assert (g.state == E.FLAGGED) == m.stopped
        if g.first_flag >= 0:
            other = m.flag[1 - g.first_flag]
            assert other is None or other >= m.flag[g.first_flag]
        self._check_record()

    def _check_record(self):
        """Each logged time within 0.5 ms of exact, at every move (nothing accumulates)."""
        if self.checked == len(self.rows):
            return
        assert len(self.rows) <= E.LOG_CAPACITY
        log = self.g.log_entries()
        assert len(log) == len(self.rows)
        for k in range(self.checked, len(self.rows)):
            side, used, left = self.rows[k]
            row = log[k]
            assert row[0] == side
            assert abs(row[2] * US - used) <= HALF_MS_US, ("used", k, row, used)
            assert abs(row[3] * US - left) <= HALF_MS_US, ("left", k, row, left)
        self.checked = len(self.rows)


def play(control, opts, base_us, actions):
    """Start at base_us (Black presses: the left, or under draw odds the side that is not
    White's), then play `actions`; returns the referee."""
    ref = Referee(
        control,
        opts.get("freeze", True),
        opts.get("inc_before", False),
        opts.get("transition", E.TRANSITION_MOVES),
        opts.get("min_move_ms", 0),
        base_us,
    )
    ref.start(1 if ref.g.white_side == 0 else 0)
    ref.check()
    for dt, kind, arg in actions:
        ref.act(dt, kind, arg)
    if control.mode != MODE_UPCOUNT:
        for _ in range(4):  # let the clocks run out: the last flags fall exactly
            ref.act(36_000_000_000, "tick", 0)  # 10 h
    return ref
