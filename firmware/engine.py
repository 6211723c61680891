"""The game engine: both players' clocks under FIDE article 6, driven by timestamped events.

Pure module. Every call takes the time `now` (or `at`) as an integer number of milliseconds
on a monotonic clock that the shell keeps (it starts at 0 at power-up and never wraps within
12 days, so it stays a small int on a 32-bit port). Nothing here reads a clock, so the same
code runs on the board, in the tests and in the simulator.

Sides are physical: 0 = left, 1 = right. The first lever press starts the *other* side's
clock (the player with Black starts White's clock, 6.5), so `white` is known from then on.

Contracts:
- `press(side, at)` and `tick(now)` must be fed in timestamp order (the shell drains the
  lever stamps before each tick). A press stamped before the flag deadline counts even when
  it is processed after the deadline; a flag falls at the exact deadline, however late the
  tick that notices it.
- Main times are ints in ms, never negative. A countdown display must round *up* (see
  timefmt.py) so it shows zero exactly when `remaining()` is 0.
- The hot path (`press`, `tick`, `remaining`, `deadline`) allocates nothing: state lives in
  preallocated arrays and the move log is a fixed ring (host_tests/core/test_engine_alloc.py
  proves it under MicroPython with heap_lock).

Default rule choices (each is an option of `Game`):
- Fischer increment is added after the move is completed (the seed text on loss on time:
  "the increment is added after the move is made"); `inc_before=True` instead adds one
  increment to both clocks at the start and then after each move, so the first increment is
  visible at the start, as some clocks and US Chess do.
- `transition=TRANSITION_MOVES`: the next period's time is granted when the player completes
  the period's last required move. `TRANSITION_FLAG`: it is granted when the period's time runs
  out; a flag marker (with the move count at that instant) is kept for the arbiter (6.3).
- `freeze=True` (FIDE): at a flag both clocks stop and the game waits for the arbiter's
  ruling. `freeze=False` (US Chess): play may go on, the flagged side stays at zero and gets no
  time, and a second flag is recorded; which fell first is always known (6.11).
- A flag in any period that is not passed by a flag-fall transition is a real flag.
- No time ever reaches a fallen flag, in any mode, except by the arbiter (`set_time`,
  `add_time`): no increment, Bronstein refund, next period or hourglass gain; Appendix G.4
  is refused once a flag has fallen.
- Hourglass: the opponent gains exactly what the mover loses, so the two clocks never hold
  more than at the start; once the mover's clock is at zero the opponent gains nothing more.
  An arbiter correction while paused first folds the paused move into both clocks, so
  correcting one side never moves the other's time.
- Byo-yomi (timecontrol.MODE_BYOYOMI: main time, then N periods of T): when the main time
  runs out the first period starts at that instant (a deadline event, EV_PERIOD); a move
  completed within a period keeps it and the period is full again (T) for the next move; a
  period that runs out is used up at its exact instant and the next starts at once
  (EV_PERIOD, `ot_left` one less); when the last runs out the flag falls (`ot_left` stays 1:
  the period that ran out). The move that was running when the main time ran out counts in
  the first period. A Fischer increment of the main time is added only for moves completed
  in main time (`inc_before` adds the first one at the start, as in a countdown).
- Canadian (MODE_CANADIAN: main time, then blocks of M moves in T): when the main time runs
  out the first block starts at that instant, and the move being played is its first move.
  Each move completed in overtime lowers `ot_left`; the M-th starts a new full block of T
  (EV_PERIOD; unused time is not carried). The flag falls when a block's time runs out
  first; `ot_left` then still says how many moves were missing.
- In both, a pause stops the period / block where it is (6.12); the flag option (`freeze`)
  and the no-time-to-a-fallen-flag rule apply as in a countdown; `transition` and Appendix
  G.4 do not apply. The arbiter corrects the phase with `set_period` (0 main time, 1
  overtime), the periods left / moves to make with `set_overtime`, and the time left in the
  main time, the period or the block with `set_time`.
- `min_move_ms` (0 = off; the firmware uses 50): a press by the side whose clock started
  less than this long ago is ignored. Both levers slapped at once are one press: the first
  stamp is the move (or the start), the other lever's near-simultaneous stamp is not a 0 ms
  move that would collect an increment.
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

# Results (set by finish())
RESULT_NONE = const(0)
RESULT_LEFT_WINS = const(1)
RESULT_RIGHT_WINS = const(2)
RESULT_DRAW = const(3)

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

ARBITER_LOG_CAPACITY = const(64)  # newest pauses/corrections kept (older ones are dropped)
LOG_CAPACITY = const(600)  # half-moves kept in the move log (a ring: the oldest go first)
MAX_SET_MS = const(86_400_000)  # 24 h: the largest time an arbiter may set
MAX_SET_MOVES = const(999)
SNAPSHOT_VERSION = const(2)  # 2: + ot_left; version 1 (no overtime) is still restored
_SNAP_LEN = const(26)
_SNAP_LEN_V1 = const(24)
G4_LIMIT_MS = const(120_000)  # Appendix G.4/G.5: "less than two minutes"
G4_BONUS_MS = const(5_000)
G4_EXTRA_MS = const(120_000)
_INT32 = const(0x7FFFFFFF)  # the log's "i" arrays hold 32-bit ints


def _zeros(typecode):
    return array(typecode, (0 for _ in range(LOG_CAPACITY)))


class Game:
    """One game on a two-sided clock. Read the public attributes, change them only through
    the methods. `main[s]` is side s's main time in ms at the start of its current move."""

    def __init__(
        self, control, freeze=True, inc_before=False, transition=TRANSITION_MOVES, min_move_ms=0
    ):
        self.main = array("i", (0, 0))
        self.moves = array("i", (0, 0))  # completed moves per side
        self.period = array("i", (0, 0))  # current period index per side
        self.flagged = array("b", (0, 0))  # 1 once the side's flag fell
        self.flag_at = array("i", (0, 0))  # instant of that flag (ms)
        self.markers = array("i", (0, 0))  # bit p set: period p ended by a flag-fall transition
        self.marker_moves = array("i", (-1, -1))  # moves completed at the last marker
        self.passed_at = array("i", (0, 0))  # instant the side entered its current period
        # byo-yomi: periods left, the current one included; Canadian: moves still to make in
        # the current block (the first block's while in main time); 0 in the other modes
        self.ot_left = array("i", (0, 0))
        self.log_move = _zeros("H")  # side | move_no << 1
        self.log_used = _zeros("i")  # ms the move took (wall time)
        self.log_left = _zeros("i")  # ms left after it, bonus included
        self.log_ot = _zeros("B")  # ot_left after it while in overtime, 0 in main time
        self.arbiter_log = []  # (at, action, side, value) tuples: not on the hot path
        self.min_move_ms = min_move_ms  # presses sooner after the clock started are ignored
        self.reset(control, freeze, inc_before, transition)

    # ----------------------------------------------------------------- setup
    def reset(self, control, freeze=None, inc_before=None, transition=None):
        """Start over with `control` (options keep their values unless given)."""
        self.control = control
        if freeze is not None:
            self.freeze = bool(freeze)
        if inc_before is not None:
            self.inc_before = bool(inc_before)
        if transition is not None:
            self.transition = transition
        first = control.periods[0]
        mode = control.mode
        upcount = mode == MODE_UPCOUNT
        fischer_first = self.inc_before and first[2] == BONUS_FISCHER
        for s in (0, 1):
            self.main[s] = 0 if upcount else first[0]
            if fischer_first and (mode == MODE_COUNTDOWN or mode == MODE_BYOYOMI):
                self.main[s] += first[3]
            self.moves[s] = 0
            self.period[s] = 0
            self.ot_left[s] = control.ot_count
            if control.ot_count and first[0] == 0:
                self.period[s] = 1  # no main time: overtime from the first move
                self.main[s] = control.ot_ms
            self.flagged[s] = 0
            self.flag_at[s] = 0
            self.markers[s] = 0
            self.marker_moves[s] = -1
            self.passed_at[s] = 0
        self.state = READY
        self.running = -1  # side whose clock runs (or was running when paused / flagged)
        self.white = -1  # side playing White, known at the first press
        self.turn_start = 0  # when the running side's current move began (ms)
        self.paused_elapsed = 0  # ms of the current move already used when paused
        self.first_flag = -1
        self.first_passed = -1  # side that passed a time control first
        self.override_bonus = BONUS_NONE  # Appendix G.4 bonus for the rest of the game
        self.override_ms = 0
        self.g4_applied = False
        self.result = RESULT_NONE
        self.reason = 0
        self.log_count = 0  # half-moves ever logged (the ring holds the last LOG_CAPACITY)
        # Opaque number the shell gives this game (0 = none yet): the saved state and the
        # archived record both carry it (archive.py). Not part of snapshot().
        self.ident = 0
        self.last_event = 0  # instant of the last state change; earlier stamps are clamped
        self.arbiter_log = []

    # ------------------------------------------------------------ queries
    def bonus_kind(self, side):
        """Kind of the per-move bonus side `side` currently plays with (G.4 overrides)."""
        if self.override_bonus != BONUS_NONE:
            return self.override_bonus
        return self.control.periods[self.period[side]][2]

    def bonus_ms(self, side):
        """Amount in ms of that bonus."""
        if self.override_bonus != BONUS_NONE:
            return self.override_ms
        return self.control.periods[self.period[side]][3]

    def _elapsed(self, now):
        if self.state == RUNNING:
            e = now - self.turn_start
            return e if e > 0 else 0
        if self.state == PAUSED:
            return self.paused_elapsed
        return 0

    def _offset(self, side, elapsed):
        """How much less than main[side] the display shows after `elapsed` ms of the
        running side's move (negative: it shows more)."""
        if elapsed <= 0:
            return 0
        mode = self.control.mode
        if side != self.running:
            if mode != MODE_HOURGLASS or self.flagged[side]:
                return 0  # a fallen flag receives nothing (only the arbiter gives time)
            # The hourglass moves time, never creates it: the opponent gains what the mover
            # loses, which stops when the mover's clock reaches zero.
            lost = self.main[self.running]
            return -(elapsed if elapsed < lost else (lost if lost > 0 else 0))
        if mode == MODE_UPCOUNT:
            return -elapsed
        if mode == MODE_COUNTDOWN and self.bonus_kind(side) == BONUS_DELAY:
            amount = self.bonus_ms(side)
            return elapsed - amount if elapsed > amount else 0
        return elapsed

    def remaining(self, side, now):
        """Time side `side` has left at `now`, in ms, never negative. In upcount mode: the
        time it has used."""
        r = self.main[side] - self._offset(side, self._elapsed(now))
        return r if r > 0 else 0

    def delay_left(self, side, now):
        """ms of simple delay still unused in the current move (0 if none): shown by the UI."""
        if side != self.running or self.state not in (RUNNING, PAUSED):
            return 0
        if self.bonus_kind(side) != BONUS_DELAY:
            return 0
        d = self.bonus_ms(side) - self._elapsed(now)
        return d if d > 0 else 0

    def deadline(self):
        """Instant (ms) the running side's flag falls or its period ends if nothing happens
        before, or -1 when no deadline is pending (not running, upcount, already flagged)."""
        if self.state != RUNNING or self.control.mode == MODE_UPCOUNT:
            return -1
        s = self.running
        if self.flagged[s]:
            return -1
        d = self.turn_start + self.main[s]
        if self.bonus_kind(s) == BONUS_DELAY and self.control.mode == MODE_COUNTDOWN:
            d += self.bonus_ms(s)
        return d

    def is_last_period(self, side):
        return self.period[side] >= self.control.last()

    def in_overtime(self, side):
        """True once side's main time is over in byo-yomi or Canadian mode: `remaining()` is
        then the time left in the current period / block, `ot_left[side]` the periods left
        (the current one included) / the moves still to make in the block."""
        return self.period[side] > 0 and self.control.ot_count > 0

    # -------------------------------------------------------------- events
    def tick(self, now):
        """Process every deadline up to `now`: flags and flag-fall transitions, each at its
        exact instant. Returns event bits."""
        events = 0
        while self.state == RUNNING:
            d = self.deadline()
            if d < 0 or now < d:
                break
            events |= self._deadline_reached(d)
        return events

    def _deadline_reached(self, at):
        s = self.running
        elapsed = at - self.turn_start
        c = self.control
        if c.ot_count and (
            self.period[s] == 0 or (c.mode == MODE_BYOYOMI and self.ot_left[s] > 1)
        ):
            # Main time is over: overtime starts now; or a byo-yomi period is used up and
            # the next starts now. main is re-based so that the display shows T at `at`.
            if self.period[s] == 0:
                self.period[s] = 1
            else:
                self.ot_left[s] -= 1
            self.main[s] = self._offset(s, elapsed) + c.ot_ms
            self.last_event = at
            return EV_PERIOD
        if self.transition == TRANSITION_FLAG and not self.is_last_period(s):
            # The period is over: grant the next one now, keep a marker for the arbiter.
            # main is re-based so that the display shows the new period's full time at `at`.
            p = self.period[s]
            self.markers[s] |= 1 << p
            self.marker_moves[s] = self.moves[s]
            self.period[s] = p + 1
            self.main[s] = self._offset(s, elapsed) + self.control.periods[p + 1][0]
            self._passed(s, at)
            self.last_event = at
            return EV_PERIOD | EV_MARKER
        self.flagged[s] = 1
        self.flag_at[s] = at
        if self.first_flag < 0:
            self.first_flag = s
        self.last_event = at
        if self.freeze or self.flagged[1 - s]:
            self._freeze(at)
        return EV_FLAG

    def _freeze(self, at):
        """Stop both clocks at `at`, folding the running move into the main times."""
        elapsed = at - self.turn_start
        # Both first, then store: the hourglass opponent's share depends on main[running].
        r0 = self.main[0] - self._offset(0, elapsed)
        r1 = self.main[1] - self._offset(1, elapsed)
        self.main[0] = r0 if r0 > 0 else 0
        self.main[1] = r1 if r1 > 0 else 0
        self.state = FLAGGED

    def _passed(self, side, at):
        self.passed_at[side] = at
        if self.first_passed < 0:
            self.first_passed = side

    def press(self, side, at):
        """Lever `side` pressed at `at` (ms). Returns event bits (0: ignored)."""
        if at < self.last_event:
            at = self.last_event
        if self.state == READY:
            if side != 0 and side != 1:
                return 0
            self.white = 1 - side
            self.running = self.white
            self.turn_start = at
            self.state = RUNNING
            self.last_event = at
            return EV_START
        if self.state != RUNNING:
            return 0
        events = self.tick(at)
        if self.state != RUNNING or side != self.running:
            return events
        if at - self.turn_start < self.min_move_ms:
            return events  # the other lever of a two-lever slap, not a move
        return events | self._complete_move(side, at)

    def _complete_move(self, s, at):
        events = EV_MOVE
        elapsed = at - self.turn_start
        mode = self.control.mode
        m = self.main[s] - self._offset(s, elapsed)
        if mode == MODE_HOURGLASS:
            self.main[1 - s] -= self._offset(1 - s, elapsed)  # what the mover lost, if any
        if self.flagged[s]:
            m = 0  # no time reaches a fallen flag except by an arbiter correction
        elif mode == MODE_COUNTDOWN or mode == MODE_BYOYOMI:
            kind = self.bonus_kind(s)  # byo-yomi: an increment in main time only
            amount = self.bonus_ms(s)
            if kind == BONUS_FISCHER:
                m += amount
            elif kind == BONUS_BRONSTEIN:
                m += elapsed if elapsed < amount else amount
        if m < 0:
            m = 0
        n = self.moves[s] + 1
        self.moves[s] = n
        p = self.period[s]
        ot = 0
        if p and self.control.ot_count:
            if self.flagged[s]:  # after the flag nothing changes (m is 0)
                ot = self.ot_left[s]
            elif mode == MODE_BYOYOMI:
                m = self.control.ot_ms  # made within the period: it is kept, full again
                ot = self.ot_left[s]
            else:
                ot = self.ot_left[s] - 1  # Canadian: one move fewer to make in the block
                if ot <= 0:  # the block is done: a new full one, unused time not carried
                    ot = self.control.ot_count
                    m = self.control.ot_ms
                    events |= EV_PERIOD
                self.ot_left[s] = ot
        if (
            self.transition == TRANSITION_MOVES
            and not self.flagged[s]
            and p < self.control.last()
            and n == self.control.ends[p]
        ):
            self.period[s] = p + 1
            m += self.control.periods[p + 1][0]
            self._passed(s, at)
            events |= EV_PERIOD
        self.main[s] = m
        self._log(s, n, elapsed, m, ot)
        self.running = 1 - s
        self.turn_start = at
        self.last_event = at
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
        restore_log() takes back. A generator (one small tuple at a time): for saving and
        export while the clock is stopped, never on the hot path."""
        n = self.log_count
        ot = self.control.ot_count
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
        """The logged half-moves, oldest first, as (side, move_no, used_ms, left_ms), and in
        byo-yomi and Canadian modes a fifth item `ot`: 0 when the move left the player in
        main time, else the byo-yomi periods left / the Canadian moves still to make in the
        block after it (left_ms is then the time of the period / left in the block).
        Allocates: for export, never on the hot path."""
        return list(self.log_rows())

    def restore_log(self, count, flat):
        """Load a move log saved beside a snapshot; call it after restore(), which empties the
        log. `count`: half-moves logged in the whole game (log_count); `flat`: the newest
        min(count, LOG_CAPACITY) of them, oldest first, three ints each as log_rows(True)
        yields them (packed = side | move_no << 1 | ot << 16 with move_no >= 1 and ot the
        overtime counter of log_entries, 0 in other modes; used_ms >= 0; left_ms >= 0; each
        below 2**31). Returns OK, or ERR_RANGE and nothing changed."""
        if type(count) is not int or count < 0 or count > _INT32:
            return ERR_RANGE
        kept = count if count < LOG_CAPACITY else LOG_CAPACITY
        try:
            if len(flat) != 3 * kept:
                return ERR_RANGE
        except TypeError:
            return ERR_RANGE
        for j in range(3 * kept):
            v = flat[j]
            if type(v) is not int or not 0 <= v <= _INT32:
                return ERR_RANGE
            if j % 3 == 0 and not (2 <= v & 0xFFFF and v >> 16 <= 0xFF):
                return ERR_RANGE  # move_no >= 1 in the ring's 16 bits; ot in log_ot's 8
        first = count - kept
        for j in range(kept):
            i = (first + j) % LOG_CAPACITY
            self.log_move[i] = flat[3 * j] & 0xFFFF
            self.log_ot[i] = flat[3 * j] >> 16
            self.log_used[i] = flat[3 * j + 1]
            self.log_left[i] = flat[3 * j + 2]
        self.log_count = count
        return OK

    # ---------------------------------------------------- pause and arbiter
    def pause(self, at):
        """Stop the clock (6.12). Deadlines up to `at` are processed first. Returns OK or
        ERR_STATE."""
        if self.state != RUNNING:
            return ERR_STATE
        if at < self.last_event:
            at = self.last_event
        self.tick(at)
        if self.state != RUNNING:
            return ERR_STATE
        self.paused_elapsed = at - self.turn_start
        self.state = PAUSED
        self.last_event = at
        self._note(at, ACT_PAUSE, self.running, 0)
        return OK

    def resume(self, at):
        """Restart the side that was on move. Returns OK or ERR_STATE."""
        if self.state != PAUSED:
            return ERR_STATE
        if at < self.last_event:
            at = self.last_event
        self.turn_start = at - self.paused_elapsed
        self.state = RUNNING
        self.last_event = at
        self._note(at, ACT_RESUME, self.running, 0)
        return OK

    def _correctable(self, side):
        if side != 0 and side != 1:
            return ERR_SIDE
        if self.state in (RUNNING, FINISHED):
            return ERR_STATE
        return OK

    def set_time(self, side, ms, at):
        """Arbiter: side `side` shall have `ms` left (6.10b, 7.5). Allowed before the start,
        while paused and after a flag; a positive time lifts that side's fallen flag and
        leaves the game paused."""
        err = self._correctable(side)
        if err:
            return err
        if not (isinstance(ms, int) and 0 <= ms <= MAX_SET_MS):
            return ERR_RANGE
        self._set_remaining(side, ms)
        self._note(at, ACT_SET_TIME, side, ms)
        return OK

    def _set_remaining(self, side, ms):
        mode = self.control.mode
        if (mode == MODE_HOURGLASS or mode == MODE_UPCOUNT) and self.state == PAUSED:
            # Fold the paused move into both clocks first, so that correcting one side
            # cannot change what the hourglass moves to the other (no delay to lose here),
            # and a stopwatch set below its paused move's time keeps main >= 0 (a snapshot
            # with a negative main time would not be restored).
            r0, r1 = self.remaining(0, 0), self.remaining(1, 0)
            self.main[0], self.main[1] = r0, r1
            self.paused_elapsed = 0
        self.main[side] = ms + self._offset(side, self._elapsed(0))
        if ms > 0 and self.flagged[side]:
            self.flagged[side] = 0
            self.first_flag = (1 - side) if self.flagged[1 - side] else -1
            if self.state == FLAGGED:
                self.paused_elapsed = 0
                self.state = PAUSED

    def add_time(self, side, ms, at):
        """Arbiter: add `ms` (may be negative, not below zero) to side's time (7.5, G.6)."""
        err = self._correctable(side)
        if err:
            return err
        if not isinstance(ms, int):
            return ERR_RANGE
        new = self.remaining(side, at) + ms
        if not 0 <= new <= MAX_SET_MS:
            return ERR_RANGE
        self._set_remaining(side, new)
        self._note(at, ACT_ADD_TIME, side, ms)
        return OK

    def set_moves(self, side, n, at):
        """Arbiter: correct side's completed-move counter."""
        err = self._correctable(side)
        if err:
            return err
        if not (isinstance(n, int) and 0 <= n <= MAX_SET_MOVES):
            return ERR_RANGE
        self.moves[side] = n
        self._note(at, ACT_SET_MOVES, side, n)
        return OK

    def set_period(self, side, p, at):
        """Arbiter: correct side's current period (its time is set separately)."""
        err = self._correctable(side)
        if err:
            return err
        if not (isinstance(p, int) and 0 <= p <= self.control.last()):
            return ERR_RANGE
        self.period[side] = p
        self._note(at, ACT_SET_PERIOD, side, p)
        return OK

    def set_overtime(self, side, n, at):
        """Arbiter: correct side's byo-yomi periods left (the current one included) or its
        Canadian moves still to make in the block: 1..the control's count. Its time is set
        separately (set_time); ERR_NOT_APPLICABLE without overtime."""
        err = self._correctable(side)
        if err:
            return err
        if not self.control.ot_count:
            return ERR_NOT_APPLICABLE
        if not (isinstance(n, int) and 1 <= n <= self.control.ot_count):
            return ERR_RANGE
        self.ot_left[side] = n
        self._note(at, ACT_SET_OVERTIME, side, n)
        return OK

    def appendix_g4(self, requester, kind, at):
        """Appendix G.4: the player on move, with less than two minutes left, asks for a 5 s
        increment (`BONUS_FISCHER`) or delay (`BONUS_DELAY`) for both players for the rest of
        the game; the opponent gets two extra minutes. Only while paused, only in a countdown
        game without any increment or delay. The new bonus applies from this instant on."""
        if requester != 0 and requester != 1:
            return ERR_SIDE
        if self.state != PAUSED:
            return ERR_STATE
        if kind != BONUS_FISCHER and kind != BONUS_DELAY:
            return ERR_RANGE
        if (
            self.control.mode != MODE_COUNTDOWN
            or self.control.has_bonus()
            or self.g4_applied
            or self.flagged[0]
            or self.flagged[1]  # a fallen flag is ruled on, not given time
            or requester != self.running
            or self.remaining(requester, at) >= G4_LIMIT_MS
        ):
            return ERR_NOT_APPLICABLE
        # Fold the part of the move already played so the delay is not applied to it.
        s = self.running
        self.main[s] = self.remaining(s, at)
        self.paused_elapsed = 0
        self.override_bonus = kind
        self.override_ms = G4_BONUS_MS
        self.g4_applied = True
        other = 1 - requester
        self._set_remaining(other, self.remaining(other, at) + G4_EXTRA_MS)
        self._note(at, ACT_G4, requester, kind)
        return OK

    def finish(self, result, reason, at):
        """Record the result the arbiter confirmed; the clocks stop for good."""
        if result not in (RESULT_LEFT_WINS, RESULT_RIGHT_WINS, RESULT_DRAW):
            return ERR_RANGE
        if self.state == RUNNING:
            self.pause(at)
        if self.state == PAUSED:
            for side in (0, 1):
                self.main[side] = self.remaining(side, at)
            self.paused_elapsed = 0
        self.result = result
        self.reason = reason
        self.state = FINISHED
        self._note(at, ACT_FINISH, -1, result)
        return OK

    def _note(self, at, action, side, value):
        log = self.arbiter_log
        if len(log) >= ARBITER_LOG_CAPACITY:
            del log[0]  # bounded: a long game of many pauses must not eat the heap
        log.append((at, action, side, value))

    # ------------------------------------------------------ power loss
    def snapshot(self):
        """The game as a list of ints (for /game.json); restore() reads it back paused."""
        if self.state == RUNNING:
            raise ValueError("pause before saving")
        snap = [
            SNAPSHOT_VERSION,
            self.state,
            self.running,
            self.white,
            self.paused_elapsed,
            self.first_flag,
            self.first_passed,
            self.override_bonus,
            self.override_ms,
            1 if self.g4_applied else 0,
            self.result,
            self.reason,
        ]
        for arr in self._saved_pairs():
            snap.append(arr[0])
            snap.append(arr[1])
        return snap

    def _saved_pairs(self):
        """The per-side arrays a snapshot holds, in its order (after the 12 scalars)."""
        return (
            self.main,
            self.moves,
            self.period,
            self.flagged,
            self.markers,
            self.marker_moves,
            self.ot_left,
        )

    def restore(self, snap):
        """Load a snapshot() into this game (same control). Returns OK or ERR_RANGE, in which
        case nothing changed. Times of past events restart at 0 (a new power-up). Version 1
        snapshots (before overtime modes, no ot_left) are restored for controls without
        overtime and refused for byo-yomi / Canadian ones."""
        ot = self.control.ot_count
        if not isinstance(snap, list) or not snap:
            return ERR_RANGE
        if snap[0] == 1 and len(snap) == _SNAP_LEN_V1 and not ot:
            snap = snap + [0, 0]  # no overtime: ot_left is 0
        elif snap[0] != SNAPSHOT_VERSION or len(snap) != _SNAP_LEN:
            return ERR_RANGE
        for v in snap:
            if not isinstance(v, int):
                return ERR_RANGE
        state, running, white = snap[1], snap[2], snap[3]
        if state not in (READY, PAUSED, FLAGGED, FINISHED) or not -1 <= running <= 1:
            return ERR_RANGE
        if not -1 <= white <= 1 or (state != READY and running < 0):
            return ERR_RANGE
        pairs = snap[12:]
        if snap[4] < 0:
            return ERR_RANGE
        for v in pairs[:4]:
            if not 0 <= v <= MAX_SET_MS:
                return ERR_RANGE
        for v in pairs[4:6]:
            if not 0 <= v <= self.control.last():
                return ERR_RANGE
        if pairs[6] not in (0, 1) or pairs[7] not in (0, 1):
            return ERR_RANGE  # flagged: 0/1 (a byte array would wrap or reject the rest)
        if not (-1 <= snap[5] <= 1 and -1 <= snap[6] <= 1):
            return ERR_RANGE  # the first flag / first to pass a control: a side or -1
        for v in pairs[12:14]:
            if not (1 <= v <= ot if ot else v == 0):
                return ERR_RANGE
        self.reset(self.control)
        self.state, self.running, self.white = state, running, white
        self.paused_elapsed = snap[4]
        self.first_flag, self.first_passed = snap[5], snap[6]
        self.override_bonus, self.override_ms = snap[7], snap[8]
        self.g4_applied = bool(snap[9])
        self.result, self.reason = snap[10], snap[11]
        for i, arr in enumerate(self._saved_pairs()):
            arr[0] = pairs[2 * i]
            arr[1] = pairs[2 * i + 1]
        return OK
