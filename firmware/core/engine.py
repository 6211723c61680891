"""The game engine: both players' clocks under FIDE article 6, driven by timestamped events.

The contract of `Game`. Why it is so (the µs pairs, the rounding, each rule choice):
docs/timing.md#exactness and docs/timing.md#rule-choices.

Units. Pure: nothing here reads a clock or does I/O. Every call takes the instant `now` (or
`at`) in whole ms on the shell's monotonic clock (0 at power-up, re-based long before 2**30:
a small int on a 32-bit port); a lever press also its µs within that ms
(`press(side, at, at_us)`). Sides are physical: 0 = left, 1 = right. The first press starts
the *other* side's clock (Black starts White's, 6.5): `white` is known from then on. Every
instant and time kept is a pair of small ints, whole ms and a µs part 0..999, floored
(-1.5 ms is (-2, 500)): per side `main` + `main_us` (the time at the start of the
side's move; the stopwatch: the time used before it), `flag_at` + `flag_us`; else
`turn_start` + `turn_us`, `paused_elapsed` + `paused_us`, `last_event` + `last_us`. A move
is charged the exact interval between its two lever stamps. Main times are never negative.

Order of calls.
- `press(side, at, at_us)` and `tick(now)` in timestamp order: the shell drains every lever
  stamp taken before its reading `now`, then calls `tick(now)`, which processes the
  deadlines up to the instant `now`.000 (`tick(now, now_us)`: up to that µs). A press
  stamped before a deadline counts even when processed after it; a flag falls at the exact
  deadline, however late the tick that notices it. An instant before the last event is
  taken as the last event.
- Pauses, resumes and the arbiter's actions (game_state.py) come from buttons polled at a
  reading of the clock: they happen at `at`.000; their effect on the times stays exact.
- The times shown are piecewise linear in `now` (1 ms per ms): only an event inside the ms
  `now` (a press stamped after `now`.000, a deadline ticked at its µs: a flag, a period or
  an overtime step) bends them before `now` + 1, so a caller that predicts the next change
  of the display from `remaining(now)` and `remaining(now + 1)` looks again at `now` + 1
  after such an event (app.py does).

Rounding at the edge, only where a number leaves the engine:
- `remaining()`, `delay_left()`: whole ms rounded *up* (upcount's used time: *down*) at the
  instant `now`.000, or the last event when that is later; 0 exactly when the flag fell.
- `deadline()`: the first whole ms at or after the exact deadline (`deadline_us()`: its µs);
  `tick(now)` flags once `now` reaches it. The flag falls at the exact µs: a press stamped
  1 µs before it counts, one stamped at it does not.
- The move log: whole ms, each value rounded to the nearest from its own exact value.
- `remaining_exact()`, `deadline_exact()`: the pairs themselves, as tuples (they allocate:
  for tests and tools).

Allocation. The hot path (`press`, `tick`, `tick_due`, `remaining`, `deadline`,
`deadline_us`, `delay_left`) allocates nothing: preallocated arrays, a fixed ring for the
move log, pairs computed in scratch attributes (host_tests/core/test_engine_alloc.py, under
MicroPython's heap_lock). Game has no @property (see its queries) and no attribute more than
it needs: each costs every attribute access on the chip.

State. Read the public attributes; a game changes only through Game's methods and the
functions of game_state.py (the arbiter's corrections, Appendix G.4, the result;
snapshot and restore), which own those changes.

Rule options (arguments of `Game` and `set_rules`; the defaults are FIDE's):
- `freeze` (True): at a flag both clocks stop (state FLAGGED) until the arbiter rules;
  False: play may go on, the flagged side stays at zero, a second flag is recorded.
- `inc_before` (False): a Fischer increment is added after the move; True: one increment
  on both clocks at the start, then after each move.
- `transition` (TRANSITION_MOVES): the next period's time comes with the period's last
  required move; TRANSITION_FLAG: when the period's time runs out, with a flag marker
  (`markers`, `marker_moves`) for the arbiter (6.3).
- `min_move_ms` (0 = off; `set_min_move`, the firmware's 50): a press by the side whose
  clock started less than this long ago is ignored.
- The control (timecontrol): `mode` (countdown, hourglass, upcount, byo-yomi, Canadian:
  one for both sides), each side's periods and bonus (`controls[s]`: time odds), and
  `draw_odds` (a colour: game_state.finish records a draw as its win, bit BY_DRAW_ODDS on the
  reason). Under draw odds a first press from White's side (`white_side`) is refused
  (EV_REFUSED, counted by `refusals()`), changing nothing else.
Rules without an option: no time reaches a fallen flag except from the arbiter; the
hourglass moves time, never creates it; byo-yomi periods and Canadian blocks as in
docs/timing.md.
"""

from array import array

from micropython import const
from timecontrol import (
    BONUS_BRONSTEIN,
    BONUS_DELAY,
    BONUS_FISCHER,
    BONUS_NONE,
    MODE_BYOYOMI,
    MODE_COUNTDOWN,
    MODE_HOURGLASS,
    MODE_UPCOUNT,
    sides_of,
)

# States
READY = const(0)  # set up, nobody has pressed yet
RUNNING = const(1)  # one clock runs (`running`)
PAUSED = const(2)  # stopped by the arbiter / a player (6.12); `running` is the side on move
FLAGGED = const(3)  # a flag fell with freeze on: frozen, result pending the arbiter
FINISHED = const(4)  # result confirmed

TRANSITION_MOVES = const(0)
TRANSITION_FLAG = const(1)

# Event bits returned by press() and tick()
EV_START = const(1)  # the first press started White's clock
EV_MOVE = const(2)  # a move was completed and the other clock started
EV_FLAG = const(4)  # a flag fell (see first_flag / flag_at)
EV_PERIOD = const(8)  # a side entered its next period (passed a time control); in byo-yomi
# and Canadian modes: overtime began, a byo-yomi period was used up, a new block began
EV_MARKER = const(16)  # ... by a flag-fall transition: a flag marker was recorded
EV_REFUSED = const(32)  # a first press from White's side under draw odds: not a start

# Results (set by finish())
RESULT_NONE = const(0)  # none: before the end, or a game given up unfinished ("*")
RESULT_LEFT_WINS = const(1)
RESULT_RIGHT_WINS = const(2)
RESULT_DRAW = const(3)
BY_DRAW_ODDS = const(256)  # bit of `reason`: finish() made a draw the win of draw odds
# Why a game ended (`reason`, given to game_state.finish): the UI gives them, the game's
# record writes them as text (archive.py), the live feed's result line carries them; each
# firmware module that uses one keeps a private const() copy (host_tests/ui/test_ui_codes.py)
REASON_FLAG = const(1)  # the result follows a flag (material entry)
REASON_DEAD = const(2)  # dead position (arbiter menu, or the "dEAd" material entry)
REASON_RESULT = const(3)  # the arbiter entered the result of a game decided on the board
# A game given up unfinished (RESULT_NONE): the arbiter abandoned it (arbiter menu), or the
# resume offered after a power cut was declined, or what that offer held was unreadable
REASON_ABANDONED = const(4)
REASON_DECLINED = const(5)
REASON_UNREADABLE = const(6)

# Colours (game_state.win_of)
WHITE = const(0)
BLACK = const(1)

# Arbiter action error codes
OK = const(0)
ERR_STATE = const(1)  # not allowed in this state (most corrections need a paused clock)
ERR_RANGE = const(2)  # a value out of range (negative time, unknown period, ...)
ERR_SIDE = const(3)  # side is not 0 or 1
ERR_NOT_APPLICABLE = const(4)  # the rule does not apply here (e.g. G.4 with an increment)

# Arbiter log action codes
ACT_PAUSE = const(1)
ACT_RESUME = const(2)
ACT_SET_TIME = const(3)
ACT_ADD_TIME = const(4)
ACT_SET_MOVES = const(5)
ACT_SET_PERIOD = const(6)
ACT_G4 = const(7)
ACT_FINISH = const(8)
ACT_SET_OVERTIME = const(9)
ACT_LOST = const(10)  # the head entry of a full log: its value counts corrections dropped

# Pauses, resumes and corrections kept (`arbiter_log`): a full log drops its oldest pause or
# resume first, a correction only when it holds nothing else (counted: ACT_LOST)
ARBITER_LOG_CAPACITY = const(64)
LOG_CAPACITY = const(600)  # half-moves kept in the move log (a ring: the oldest go first)
MAX_SET_MS = const(86_400_000)  # 24 h: the largest time an arbiter may set
MAX_SET_MOVES = const(999)
_US = const(1000)  # us per ms: the us part of a pair is 0.._US - 1
_HALF_MS = const(500)  # the move log rounds a us part of at least this up


def _zeros(typecode):
    return array(typecode, (0 for _ in range(LOG_CAPACITY)))


class Game:
    """One game on a two-sided clock. Read the public attributes, change them only through
    the methods (and the functions of game_state.py). `main[s]` ms +
    `main_us[s]` us is side s's main time at the start of its current move (the stopwatch:
    the time used before it)."""

    def __init__(
        self, control, freeze=True, inc_before=False, transition=TRANSITION_MOVES, min_move_ms=0
    ):
        self.main = array("i", (0, 0))
        self.main_us = array("h", (0, 0))  # + us (0..999): main is exact to the us
        self.moves = array("i", (0, 0))  # completed moves per side
        self.period = array("i", (0, 0))  # current period index per side
        self.flagged = array("b", (0, 0))  # 1 once the side's flag fell
        self.flag_at = array("i", (0, 0))  # instant of that flag (ms) ...
        self.flag_us = array("h", (0, 0))  # ... + us (0..999)
        self.markers = array("i", (0, 0))  # bit p set: period p ended by a flag-fall transition
        self.marker_moves = array("i", (-1, -1))  # moves completed at the last marker
        self.passed_at = array("i", (0, 0))  # instant (ms) the side entered its current period
        # byo-yomi: periods left, the current one included; Canadian: moves still to make in
        # the current block (the first block's while in main time); 0 in the other modes
        self.ot_left = array("i", (0, 0))
        self.log_move = _zeros("H")  # side | move_no << 1
        self.log_used = _zeros("i")  # ms the move took (wall time), nearest to exact
        self.log_left = _zeros("i")  # ms left after it, bonus included, nearest to exact
        self.log_ot = _zeros("B")  # ot_left after it while in overtime, 0 in main time
        # (at, action, side, value, ply, before, after) tuples (`_note`): not on the hot path
        self.arbiter_log = []
        self.min_move_ms = min_move_ms  # presses sooner after the clock started are ignored
        # Scratch pairs (ms, us), so that the hot path computes pairs without a tuple:
        self._em = self._eu = 0  # _elapsed(): time the current move has run
        self._om = self._ou = 0  # _offset(): how much less than main a side holds
        self._rm = self._ru = 0  # _left(): a side's exact time
        self._dm = self._du = 0  # _deadline(): the running side's exact deadline
        self.reset(control, freeze, inc_before, transition)

    # ----------------------------------------------------------------- setup
    def reset(self, control, freeze=None, inc_before=None, transition=None):
        """Start over with `control`: a TimeControl (the same for both sides) or a
        timecontrol.Odds (each side its own; options keep their values unless given)."""
        self.control = control  # as given: its `mode` and `name` are the game's
        left, right, self.draw_odds = sides_of(control)
        # Under draw odds the side the control gives White (its first press is refused),
        # else -1: the colours change no rule.
        self.white_side = control.white if self.draw_odds else -1
        self.controls = (left, right)  # side s plays under controls[s]
        self.mode = left.mode  # one mode for both sides
        self.ot_mode = left.ot_count > 0  # byo-yomi or Canadian: both sides have overtime
        self.set_rules(freeze, inc_before, transition)
        mode = self.mode
        upcount = mode == MODE_UPCOUNT
        for s in (0, 1):
            c = self.controls[s]
            first = c.periods[0]
            fischer_first = self.inc_before and first[2] == BONUS_FISCHER
            self.main[s] = 0 if upcount else first[0]
            self.main_us[s] = 0
            if fischer_first and (mode == MODE_COUNTDOWN or mode == MODE_BYOYOMI):
                self.main[s] += first[3]
            self.moves[s] = 0
            self.period[s] = 0
            self.ot_left[s] = c.ot_count
            if c.ot_count and first[0] == 0:
                self.period[s] = 1  # no main time: overtime from the first move
                self.main[s] = c.ot_ms
            self.flagged[s] = 0
            self.flag_at[s] = 0
            self.flag_us[s] = 0
            self.markers[s] = 0
            self.marker_moves[s] = -1
            self.passed_at[s] = 0
        # A simple delay can apply (a countdown with a delay period; G.4's delay sets it too):
        # without one the hot path never asks bonus_kind().
        # Either side's control counts: under time odds only one may have a delay.
        self._delay = mode == MODE_COUNTDOWN and any(
            p[2] == BONUS_DELAY for c in self.controls for p in c.periods
        )
        self.state = READY
        self.running = -1  # side whose clock runs (or was running when paused / flagged)
        self.white = -1  # side playing White, known at the first press
        # Draw odds: refused first presses since the reset, and the last one's ms (one
        # array: every instance attribute more slows every attribute lookup of the hot path
        # on the chip, its member map being nearly full)
        self.refusal = array("i", (0, 0))
        self.turn_start = 0  # when the running side's current move began (ms) ...
        self.turn_us = 0  # ... + us
        self.paused_elapsed = 0  # ms of the current move already used when paused ...
        self.paused_us = 0  # ... + us
        self.first_flag = -1
        self.first_passed = -1  # side that passed a time control first
        self.override_bonus = BONUS_NONE  # Appendix G.4 bonus for the rest of the game
        self.override_ms = 0
        self.g4_applied = False
        self.result = RESULT_NONE
        self.reason = 0
        self.log_count = 0  # half-moves ever logged (the ring holds the last LOG_CAPACITY)
        # Opaque number the shell gives this game (0 = none yet): the saved state and the
        # archived record both carry it (archive.py). Not part of the snapshot (game_state.py).
        self.ident = 0
        # Instant of the last state change (ms + us); earlier instants are taken as it.
        self.last_event = 0
        self.last_us = 0
        self.arbiter_log = []

    def set_rules(self, freeze=None, inc_before=None, transition=None):
        """The rule options (the module doc), each kept unless given. `inc_before` takes
        effect at the next reset (its first increment is granted there), `freeze` and
        `transition` at the next flag, deadline or move."""
        if freeze is not None:
            self.freeze = bool(freeze)
        if inc_before is not None:
            self.inc_before = bool(inc_before)
        if transition is not None:
            self.transition = transition

    def set_min_move(self, ms):
        """Presses by the side whose clock started less than `ms` ago are ignored (0: off)."""
        self.min_move_ms = ms

    def set_ident(self, ident):
        """The shell's opaque number for this game (`ident`; 0: none yet)."""
        self.ident = ident

    # ------------------------------------------------------------ queries
    # No @property on Game: MicroPython looks every attribute store of an instance up in
    # the class first once the class has one (a data descriptor could take it), which made
    # each store on the hot path cost about 30 µs instead of 3 on the chip.
    def refusals(self):
        """First presses refused since the reset or since the arbiter answered them (the
        set-up check; `answer_refused`)."""
        return self.refusal[0]

    def answer_refused(self):
        """The arbiter has answered the refused presses (a button on the ready screen): the
        count restarts at 0, the UI's prompt ends. Nothing else changes."""
        self.refusal[0] = 0

    def last_refusal(self):
        """The ms of the last of them."""
        return self.refusal[1]

    def bonus_kind(self, side):
        """Kind of the per-move bonus side `side` currently plays with (G.4 overrides)."""
        if self.override_bonus != BONUS_NONE:
            return self.override_bonus
        return self.controls[side].periods[self.period[side]][2]

    def bonus_ms(self, side):
        """Amount in ms of that bonus."""
        if self.override_bonus != BONUS_NONE:
            return self.override_ms
        return self.controls[side].periods[self.period[side]][3]

    def _elapsed(self, at, at_us):
        """(_em, _eu) := how long the current move has run at the instant at.at_us (taken as
        the last event when it is before it): the running clock's time since its turn
        started, the paused move's time, else 0."""
        m = 0
        u = 0
        if self.state == RUNNING:
            if not self._later(at, at_us):
                at = self.last_event  # e.g. now.000 of a ms in which a press came
                at_us = self.last_us
            m = at - self.turn_start
            u = at_us - self.turn_us
            if u < 0:
                u += _US
                m -= 1
            if m < 0:
                m = 0
                u = 0
        elif self.state == PAUSED:
            m = self.paused_elapsed
            u = self.paused_us
        self._em = m
        self._eu = u

    def _offset(self, side):
        """(_om, _ou) := how much less than main[side] the side holds after the running
        side's move has run (_em, _eu) (negative: it holds more)."""
        m = self._em
        u = self._eu
        mode = self.mode
        if m == 0 and u == 0:
            pass
        elif side != self.running:
            if mode != MODE_HOURGLASS or self.flagged[side]:
                m = 0  # a fallen flag receives nothing (only the arbiter gives time)
                u = 0
            else:
                # The hourglass moves time, never creates it: the opponent gains what the
                # mover loses, which stops when the mover's clock reaches zero.
                r = self.running
                lost = self.main[r]
                if lost < m or (lost == m and self.main_us[r] < u):
                    m = lost
                    u = self.main_us[r]
                m = -m
                if u:
                    m -= 1
                    u = _US - u
        elif mode == MODE_UPCOUNT:
            m = -m
            if u:
                m -= 1
                u = _US - u
        elif self._delay and self.bonus_kind(side) == BONUS_DELAY:
            m -= self.bonus_ms(side)  # the delay is whole ms: the us part stays
            if m < 0:
                m = 0
                u = 0
        self._om = m
        self._ou = u

    def _left(self, side):
        """(_rm, _ru) := side's exact time (never negative) after the running side's move
        has run (_em, _eu)."""
        self._offset(side)
        m = self.main[side] - self._om
        u = self.main_us[side] - self._ou
        if u < 0:
            u += _US
            m -= 1
        if m < 0:
            m = 0
            u = 0
        self._rm = m
        self._ru = u

    def remaining(self, side, now):
        """Time side `side` has left at the instant `now`.000 (or at the last event, if that
        is later), in whole ms rounded up (0 only when it is exactly 0), never negative. In
        upcount mode: the time it has used, rounded down."""
        state = self.state
        if state == RUNNING or state == PAUSED:
            # The steady state, once per side and frame (a paused game's too): the pairs
            # folded by hand. (Before the last event, which need not be the turn's start:
            # the slow path below.)
            mode = self.mode
            running = state == RUNNING
            if running and now < self.last_event:
                pass
            elif side != self.running:
                if mode != MODE_HOURGLASS:
                    m = self.main[side]
                    if m < 0:
                        return 0
                    return m + 1 if self.main_us[side] and mode != MODE_UPCOUNT else m
            elif mode != MODE_UPCOUNT and not (
                self._delay and self.bonus_kind(side) == BONUS_DELAY
            ):
                if not running:  # main less the paused move's time, rounded up
                    r = self.main[side] - self.paused_elapsed
                    c = self.main_us[side] - self.paused_us  # -999..999
                    if c < 0:
                        c += _US
                        r -= 1
                    if r < 0:
                        return 0
                    return r + 1 if c else r
                # (main - t + turn_start) ms + (main_us + turn_us - t_us) us, rounded up, at
                # the instant t.t_us = now.000, or the last event when it is later in `now`
                r = self.main[side] - now + self.turn_start
                c = self.main_us[side] + self.turn_us  # 0..1998
                if now == self.last_event:
                    c -= self.last_us  # -999..1998
                if c > 0:
                    r += 1 if c <= _US else 2
                return r if r > 0 else 0
        else:  # ready, flagged, finished: the main times are the times
            m = self.main[side]
            if m < 0:
                return 0
            if self.main_us[side] and self.mode != MODE_UPCOUNT:
                return m + 1
            return m
        self._elapsed(now, 0)
        self._left(side)
        if self._ru and self.mode != MODE_UPCOUNT:
            return self._rm + 1
        return self._rm

    def remaining_exact(self, side, now, now_us=0):
        """Side's exact time (or used time) at the instant now.now_us, as (ms, us) with us
        0..999. Allocates a tuple: for tests and tools."""
        self._elapsed(now, now_us)
        self._left(side)
        return (self._rm, self._ru)

    def delay_left(self, side, now):
        """ms of simple delay still unused in the current move at `now`.000, rounded up (0 if
        none): shown by the UI."""
        if not self._delay or side != self.running or self.state not in (RUNNING, PAUSED):
            return 0
        if self.bonus_kind(side) != BONUS_DELAY:
            return 0
        self._elapsed(now, 0)
        d = self.bonus_ms(side) - self._em
        if self._eu:
            d -= 1  # d ms + (1000 - eu) us left: rounded up, d ms again
            return d + 1 if d >= 0 else 0
        return d if d > 0 else 0

    def _deadline(self):
        """(_dm, _du) := the exact instant the running side's flag falls or its period ends
        if nothing happens before; returns -1 when none is pending (not running, upcount,
        already flagged), else that instant in whole ms rounded up."""
        if self.state != RUNNING or self.mode == MODE_UPCOUNT:
            return -1
        s = self.running
        if self.flagged[s]:
            return -1
        m = self.turn_start + self.main[s]
        u = self.turn_us + self.main_us[s]
        if u >= _US:
            u -= _US
            m += 1
        if self._delay and self.bonus_kind(s) == BONUS_DELAY:
            m += self.bonus_ms(s)
        self._dm = m
        self._du = u
        return m + 1 if u else m

    def deadline(self):
        """The first whole ms at or after the instant the running side's flag falls or its
        period ends if nothing happens before (`tick` at it processes that deadline), or -1
        when none is pending (not running, upcount, already flagged). The shell asks it only
        after an edge or an engine event (app.py keeps it in between)."""
        return self._deadline()

    def deadline_us(self):
        """The us part (0..999) of the exact instant `deadline()` rounds up, 0 when none is
        pending or it falls on a whole ms: the shell sleeps until it (deadline() - 1 ms +
        this us). Allocates nothing."""
        if self._deadline() < 0:
            return 0
        return self._du

    def deadline_exact(self):
        """That instant exactly, as (ms, us), or None. Allocates: for tests and tools."""
        if self._deadline() < 0:
            return None
        return (self._dm, self._du)

    def is_last_period(self, side):
        return self.period[side] >= self.controls[side].last()

    def in_overtime(self, side):
        """True once side's main time is over in byo-yomi or Canadian mode: `remaining()` is
        then the time left in the current period / block, `ot_left[side]` the periods left
        (the current one included) / the moves still to make in the block."""
        return self.period[side] > 0 and self.ot_mode

    # -------------------------------------------------------------- events
    def tick(self, now, now_us=0):
        """Process every deadline up to the instant now.now_us (the shell: `now`.000): flags
        and flag-fall transitions, each at its exact instant. Returns event bits."""
        d = self.deadline()  # rounded up: a deadline after now + 1 cannot be due
        if d < 0 or d > now + 1 or (d == now + 1 and not now_us):
            return 0
        return self.tick_due(now, now_us)

    def tick_due(self, at, at_us):
        """Every deadline up to the instant at.at_us, each at its exact instant: tick()
        without its look at the rounded deadline, for a caller that has found one due (the
        shell's flag wakeup) or must process any (press). Returns event bits."""
        events = 0
        while self.state == RUNNING:
            if self._deadline() < 0:
                break
            m = self._dm
            if m > at or (m == at and self._du > at_us):
                break
            events |= self._deadline_reached(m, self._du)
        return events

    def _deadline_reached(self, at, at_us):
        s = self.running
        self._elapsed(at, at_us)
        c = self.controls[s]
        if c.ot_count and (
            self.period[s] == 0 or (self.mode == MODE_BYOYOMI and self.ot_left[s] > 1)
        ):
            # Main time is over: overtime starts now; or a byo-yomi period is used up and
            # the next starts now. main is re-based so that the side holds T at `at`.
            if self.period[s] == 0:
                self.period[s] = 1
            else:
                self.ot_left[s] -= 1
            self._offset(s)
            self.main[s] = self._om + c.ot_ms
            self.main_us[s] = self._ou
            self._event(at, at_us)
            return EV_PERIOD
        if self.transition == TRANSITION_FLAG and not self.is_last_period(s):
            # The period is over: grant the next one now, keep a marker for the arbiter.
            # main is re-based so that the side holds the new period's full time at `at`.
            p = self.period[s]
            self.markers[s] |= 1 << p
            self.marker_moves[s] = self.moves[s]
            self.period[s] = p + 1
            self._offset(s)
            self.main[s] = self._om + c.periods[p + 1][0]
            self.main_us[s] = self._ou
            self._passed(s, at)
            self._event(at, at_us)
            return EV_PERIOD | EV_MARKER
        self.flagged[s] = 1
        self.flag_at[s] = at
        self.flag_us[s] = at_us
        if self.first_flag < 0:
            self.first_flag = s
        self._event(at, at_us)
        if self.freeze or self.flagged[1 - s]:
            self._freeze(at, at_us)
        return EV_FLAG

    def _event(self, at, at_us):
        self.last_event = at
        self.last_us = at_us

    def _fold(self):
        """Both sides' exact times after the move so far (_em, _eu) become their main times
        (both first, then stored: the hourglass opponent's share depends on the mover's)."""
        self._left(0)
        m0 = self._rm
        u0 = self._ru
        self._left(1)
        self.main[1] = self._rm
        self.main_us[1] = self._ru
        self.main[0] = m0
        self.main_us[0] = u0

    def _freeze(self, at, at_us):
        """Stop both clocks at at.at_us, folding the running move into the main times."""
        self._elapsed(at, at_us)
        self._fold()
        self.state = FLAGGED

    def _passed(self, side, at):
        self.passed_at[side] = at
        if self.first_passed < 0:
            self.first_passed = side

    def _later(self, at, at_us):
        """True when at.at_us is not before the last event."""
        return at > self.last_event or (at == self.last_event and at_us >= self.last_us)

    def press(self, side, at, at_us=0):
        """Lever `side` pressed at the instant at.at_us (ms and its us, 0..999). Returns
        event bits (0: ignored; EV_REFUSED: a first press from White's side under draw odds)."""
        last = self.last_event
        if at < last or (at == last and at_us < self.last_us):
            at = last
            at_us = self.last_us
        if self.state == READY:
            if side != 0 and side != 1:
                return 0
            r = self.refusal
            if self.draw_odds and side == self.control.white:
                r[0] += 1  # White's side: the board is set up the wrong way round, or
                r[1] = at  # White pressed; Black must press (see the module doc)
                return EV_REFUSED
            if r[0] and 0 <= at - r[1] < self.min_move_ms:
                return 0  # the other lever of a slap whose first stamp was refused
            self.white = 1 - side
            self.running = self.white
            self.turn_start = at
            self.turn_us = at_us
            self.state = RUNNING
            self._event(at, at_us)
            return EV_START
        if self.state != RUNNING:
            return 0
        events = self.tick_due(at, at_us)
        if self.state != RUNNING or side != self.running:
            return events
        self._elapsed(at, at_us)
        if self._em < self.min_move_ms:
            return events  # the other lever of a two-lever slap, not a move
        return events | self._complete_move(side, at, at_us)

    def _complete_move(self, s, at, at_us):
        """Side s's move ends at at.at_us, (_em, _eu) long."""
        events = EV_MOVE
        em = self._em
        eu = self._eu
        mode = self.mode
        c = self.controls[s]  # the mover's own control
        self._offset(s)
        m = self.main[s] - self._om
        u = self.main_us[s] - self._ou
        if mode == MODE_HOURGLASS:
            self._offset(1 - s)  # what the mover lost, if any (main[s] is still the old one)
            o = 1 - s
            ou = self.main_us[o] - self._ou
            om = self.main[o] - self._om
            if ou < 0:
                ou += _US
                om -= 1
            self.main[o] = om
            self.main_us[o] = ou
        if self.flagged[s]:
            m = 0  # no time reaches a fallen flag except by an arbiter correction
            u = 0
        elif mode == MODE_COUNTDOWN or mode == MODE_BYOYOMI:
            # bonus_kind / bonus_ms, inline (a move's hot path): byo-yomi has an increment
            # in main time only
            if self.override_bonus != BONUS_NONE:
                kind = self.override_bonus
                amount = self.override_ms
            else:
                per = c.periods[self.period[s]]
                kind = per[2]
                amount = per[3]
            if kind == BONUS_FISCHER:
                m += amount
            elif kind == BONUS_BRONSTEIN:
                if em < amount:
                    m += em  # the whole move (shorter than the bonus) comes back
                    u += eu
                else:
                    m += amount
        if u < 0:
            u += _US
            m -= 1
        elif u >= _US:
            u -= _US
            m += 1
        if m < 0:
            m = 0
            u = 0
        n = self.moves[s] + 1
        self.moves[s] = n
        p = self.period[s]
        ot = 0
        if p and c.ot_count:
            if self.flagged[s]:  # after the flag nothing changes (m is 0)
                ot = self.ot_left[s]
            elif mode == MODE_BYOYOMI:
                m = c.ot_ms  # made within the period: it is kept, full again
                u = 0
                ot = self.ot_left[s]
            else:
                ot = self.ot_left[s] - 1  # Canadian: one move fewer to make in the block
                if ot <= 0:  # the block is done: a new full one, unused time not carried
                    ot = c.ot_count
                    m = c.ot_ms
                    u = 0
                    events |= EV_PERIOD
                self.ot_left[s] = ot
        if (
            self.transition == TRANSITION_MOVES
            and not self.flagged[s]
            and p < len(c.periods) - 1  # c.last()
            and n == c.ends[p]
        ):
            self.period[s] = p + 1
            m += c.periods[p + 1][0]
            self._passed(s, at)
            events |= EV_PERIOD
        self.main[s] = m
        self.main_us[s] = u
        # The record: each time rounded to the nearest ms from its exact value.
        self._log(s, n, em + 1 if eu >= _HALF_MS else em, m + 1 if u >= _HALF_MS else m, ot)
        self.running = 1 - s
        self.turn_start = at
        self.turn_us = at_us
        self.last_event = at
        self.last_us = at_us
        return events

    def _log(self, side, move_no, used, left, ot):
        i = self.log_count % LOG_CAPACITY
        self.log_move[i] = side | (move_no << 1)
        self.log_used[i] = used
        self.log_left[i] = left
        self.log_ot[i] = ot
        self.log_count += 1

    def log_kept(self):
        """How many half-moves the ring holds: min(log_count, LOG_CAPACITY)."""
        n = self.log_count
        return n if n < LOG_CAPACITY else LOG_CAPACITY

    def log_rows(self, packed=False):
        """Yield the kept half-moves, oldest first, as log_entries() gives them, or with
        `packed` as stored: (side | move_no << 1 | ot << 16, used_ms, left_ms), the form
        game_state.restore_log() takes back. A generator (one small tuple at a time): for
        saving and export while the clock is stopped, never on the hot path."""
        n = self.log_count
        ot = self.ot_mode
        for k in range(n - self.log_kept(), n):
            i = k % LOG_CAPACITY
            p = self.log_move[i]
            if packed:
                yield (p | self.log_ot[i] << 16, self.log_used[i], self.log_left[i])
            elif ot:
                yield (p & 1, p >> 1, self.log_used[i], self.log_left[i], self.log_ot[i])
            else:
                yield (p & 1, p >> 1, self.log_used[i], self.log_left[i])

    def log_entries(self):
        """The logged half-moves, oldest first, as (side, move_no, used_ms, left_ms), each
        time the exact one rounded to the nearest ms, and in byo-yomi and Canadian modes a
        fifth item `ot`: 0 when the move left the player in main time, else the byo-yomi
        periods left / the Canadian moves still to make in the block after it (left_ms is
        then the time of the period / left in the block). Allocates: for export, never on
        the hot path."""
        return list(self.log_rows())

    # ---------------------------------------------------- pause and arbiter
    def pause(self, at):
        """Stop the clock (6.12). Deadlines up to `at` are processed first. Returns OK or
        ERR_STATE."""
        if self.state != RUNNING:
            return ERR_STATE
        at_us = 0
        if not self._later(at, 0):
            at = self.last_event
            at_us = self.last_us
        self.tick_due(at, at_us)
        if self.state != RUNNING:
            return ERR_STATE
        self._elapsed(at, at_us)
        self.paused_elapsed = self._em
        self.paused_us = self._eu
        self.state = PAUSED
        self._event(at, at_us)
        self._note(at, ACT_PAUSE, self.running, 0)
        return OK

    def resume(self, at):
        """Restart the side that was on move. Returns OK or ERR_STATE."""
        if self.state != PAUSED:
            return ERR_STATE
        at_us = 0
        if not self._later(at, 0):
            at = self.last_event
            at_us = self.last_us
        m = at - self.paused_elapsed
        u = at_us - self.paused_us
        if u < 0:
            u += _US
            m -= 1
        self.turn_start = m
        self.turn_us = u
        self.state = RUNNING
        self._event(at, at_us)
        self._note(at, ACT_RESUME, self.running, 0)
        return OK

    def _note(self, at, action, side, value, before=0, after=0):
        """Log an arbiter action at `at`: `ply` is the half-moves logged so far (the action
        follows half-move `ply`), `before` / `after` what it changed (game_state.py says
        what for each action; 0 for pauses and resumes). Bounded (ARBITER_LOG_CAPACITY):
        a full log drops its oldest pause or resume; when it holds only corrections, the
        oldest correction goes and an ACT_LOST entry at its head counts those dropped."""
        log = self.arbiter_log
        if len(log) >= ARBITER_LOG_CAPACITY:
            i = 0
            n = len(log)
            while i < n and log[i][1] > ACT_RESUME:
                i += 1
            if i < n:
                del log[i]
            else:  # the head counts them (it replaces the oldest first)
                lost = log[0][3] if log[0][1] == ACT_LOST else 1
                log[0] = (0, ACT_LOST, -1, lost + 1, 0, 0, 0)
                del log[1]
        log.append((at, action, side, value, self.log_count, before, after))
