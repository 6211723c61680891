"""The live feed: a game's events as text lines for a host on the USB serial port.

Owns what the lines say and when they are made: the kinds and their fields, what has been
sent of the game in progress, and the state line's schedule. The format, its table and the
reasons behind this module's choices are in docs/live.md ("The feed", "Inside the feed");
the bytes of a line (prefix, sequence number, digits, pad, the write) are feed_lines.py's.

What and when: from the first lever press until the result is recorded, each wakeup's
`step(now, g[, port])` writes what is new in `g` (an engine.Game) since the last step, in
this order: the start (G: the game and its controls), the moves the move log holds that
were not sent whole (M), the arbiter's pauses, resumes and corrections (A: every entry of
the game's arbiter log not sent yet, those of a game restored at power-up too), period changes
(P), fallen flags (F), the state (T: both times, who is on move) and the result (E). While
a game is in progress the state line also comes every PERIOD_MS, at the first wakeup after
it (the loop wakes at least every 4 s), and the start line again with every HEADER_EVERY-th
periodic state line. At most LINES_MAX lines a step.

Format: `#CLK1 <seq> <kind> <fields...> *` and CR LF, integer fields one space apart (G's
controls excepted); times are whole ms as the engine gives them (the move log's nearest-ms
values, `remaining()` rounded up), sides physical (0 left, 1 right). With `block` > 1 (the
USB guard's BLOCK) every line, CR LF included, is a whole number of `block` bytes: a pad of
zeros is the last field before the `*`. A line after a cut one begins with CR LF.

Delivery: a move, the start or the result that does not go out whole is made again at the
next step (moves by their index in the log, which keeps LOG_CAPACITY half-moves); arbiter
entries beyond a step's LINES_MAX go at the next steps; the other kinds go once (an A line
too) and the next state line carries what they changed. Lines cut short or not
written are counted (`dropped`). After a line of which the port took nothing, no line is
made until `port.writable()`.

Cost and allocation: nothing allocates after the constructor. A step with nothing new
returns after four comparisons; one in which only time has passed makes nothing but the
periodic state line, the kept one rewritten in place. Pure: no clock reading (`now`, ms, is
an argument); its only I/O is `port.send(buf, n)` (usbguard.py) and `port.writable()`. Not
IRQ code.
"""

from feed_lines import control, end, fields, head, init, put, send
from micropython import const

PERIOD_MS = const(5_000)  # a state line at the first wakeup this long after the last
HEADER_EVERY = const(8)  # the start line again with every 8th periodic state line
LINES_MAX = const(8)  # lines written per step at most

# Line kinds (the ASCII letter)
K_START = const(71)  # G: the game and its controls
K_MOVE = const(77)  # M: a half-move from the move log
K_ARBITER = const(65)  # A: a pause, resume or correction (the engine's arbiter log)
K_PERIOD = const(80)  # P: a side's period or overtime counter changed
K_FLAG = const(70)  # F: a flag fell
K_STATE = const(84)  # T: both times and who is on move
K_RESULT = const(69)  # E: the result is recorded

_READY = const(0)  # engine.py's game states
_RUNNING = const(1)
_FINISHED = const(4)
_LOG_CAPACITY = const(600)  # engine.LOG_CAPACITY
_NEVER = const(0x3FFFFFFF)  # `until` when only a change can make a line (the largest small int)
# feed_lines.py's, copied for the kept state line's rewrite (inlined: no lookup there;
# host_tests/ui/test_ui_codes.py checks they agree)
_BODY = const(8)  # where the sequence number's digits begin in the buffers
_C0 = const(48)  # "0"
_SEQ_SPAN = const(100_000)  # feed_lines.SEQ_SPAN

# Feed._tc: the kept state line's end, whether it begins with CR LF, its delay_ms, left_ms
# and right_ms with where their digits are and the bounds that keep them as many, its seq's
# (where its digits end, their bounds, its value)
_TN = const(0)
_TCUT = const(1)
_TD = const(2)
_TA = const(3)
_TA_AT = const(4)
_TA_END = const(5)
_TA_LO = const(6)
_TA_HI = const(7)
_TB = const(8)
_TB_AT = const(9)
_TB_END = const(10)
_TB_LO = const(11)
_TB_HI = const(12)
_TS_END = const(13)
_TS_LO = const(14)
_TS_HI = const(15)
_TQ = const(16)

_TEN = (1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000)


def _digits(x):
    """How many decimal digits x (>= 0) has."""
    n = 1
    while n < 10 and x >= _TEN[n]:
        n += 1
    return n


class Feed:
    def __init__(self, block=1, port=None):
        """`block`: every line's length (CR LF included) is made a multiple of it; `port`:
        where `step` writes when it is given none."""
        init(self, block, port)  # the line state: buffers, seq, counts (feed_lines.py)
        self._t_ok = False  # _tbuf's line needs only new times and seq (see _status)
        # what _status needs of that line (indexes _T*): one attribute, not sixteen (a
        # wakeup's every attribute lookup probes the instance's hash table)
        self._tc = [0] * 17
        self._g = None
        self._forget()

    def _forget(self):
        """No game in progress: nothing sent of one."""
        self._active = False
        self._start_owed = False
        self._result_owed = False
        self._moves = 0  # log_count of the moves sent whole
        self._note = None  # the newest arbiter-log entry sent
        self._state = _READY
        self._p0 = self._p1 = self._o0 = self._o1 = 0  # periods, ot counters last seen
        self._flags = 0  # bit s: side s's flag fell, as last seen
        self._periodic = 0  # periodic state lines since the last start line
        self._state_at = 0  # the next periodic state line is due then (ms)
        self._state_owed = False
        # Nothing to write before this instant (ms) unless g changes: `step` returns at once
        # before it, and the shell skips the step then in a wakeup that only renders (app.py)
        self.until = _NEVER
        self._tick_at = 0  # while a clock runs: no tick changes the engine before (ms)
        self._bound = 0  # the running side's tick_at as this look's state line found it
        self._t_ok = False

    def step(self, now, g, port=None):
        """Write what is new in game `g` (an engine.Game) at `now` (ms) through `port`
        (default: the constructor's)."""
        if now < self.until and g.state == self._state and g.log_count == self._moves:
            if g is self._g:
                return  # nothing new (inline: this runs at every wakeup)
        if port is None:
            port = self.port
        self.until = 0  # look again at the next wakeup unless all is sent below
        self._bound = 0
        state = g.state
        if g is not self._g or (state == _READY and self._active):
            self._g = g
            self._forget()
        if state == _READY:
            return
        if not self._active:
            self._active = True
            self._start_owed = True
            self._state_owed = True
            self._result_owed = state == _FINISHED
            self._note = None  # a restored game's corrections are sent too (_arbiter)
            self._moves = g.log_count - _LOG_CAPACITY if g.log_count > _LOG_CAPACITY else 0
            self._seen(g)
            self._state = state
        # Only time has passed since the last look, which sent all: a clock runs as it ran,
        # no move, no tick yet (the arbiter's changes come with a pause): nothing for
        # _news to find. (_tick_at holds only from one look that sent all to the next.)
        calm = (
            state == _RUNNING
            and state == self._state
            and g.log_count == self._moves
            and now < self._tick_at
        )
        self._tick_at = 0
        if self._stuck and not port.writable():
            return  # the port took nothing last time and has no room yet: no line to make
        if calm:
            # Nothing is owed either (a look that left something owed ends before it sets
            # _tick_at): only the periodic state line can be due.
            if now >= self._state_at:
                self._state_at = now + PERIOD_MS
                self._periodic += 1
                if self._periodic >= HEADER_EVERY:
                    self._periodic = 0
                    self._start_owed = True  # sent at the next wakeup
                if not send(self, port, self._status(g, now), True):
                    self._state_owed = True
                    return
                if self._start_owed:
                    return
            until = self._bound or now + g.remaining(g.running, now) - 3
            self._tick_at = until
            self.until = until if until < self._state_at else self._state_at
            return
        self._t_ok = False  # the last state line's other fields may have changed
        budget = LINES_MAX
        if self._start_owed:
            if not send(self, port, self._start(g)):
                return
            self._start_owed = False
            budget -= 1
        kept = g.log_count - _LOG_CAPACITY
        if self._moves < kept:
            self._moves = kept  # older than the ring: gone
        while self._moves < g.log_count:
            if budget == 0 or not send(self, port, self._move(g, self._moves)):
                return
            self._moves += 1
            budget -= 1
        news = 0 if calm else self._news(g)
        if news:
            self._state_owed = True
            if news & 1:
                budget = self._arbiter(g, port, budget)
            if news & 2:
                budget = self._periods(g, port, budget)
            if news & 4:
                budget = self._flagged(g, port, budget)
        if state != self._state:
            self._state = state
            self._state_owed = True
            if state == _FINISHED:
                self._result_owed = True
        if self._state_owed or (now >= self._state_at and state != _FINISHED):
            if budget == 0:
                return
            budget -= 1
            if not self._state_owed:
                self._periodic += 1
                if self._periodic >= HEADER_EVERY:
                    self._periodic = 0
                    self._start_owed = True  # sent at the next wakeup
            self._state_at = now + PERIOD_MS
            self._state_owed = not send(self, port, self._status(g, now), True)
            if self._state_owed or self._start_owed:
                return
        if self._result_owed:
            if budget == 0:
                return
            self._result_owed = not send(self, port, self._result(g))
            if self._result_owed:
                return
        # All sent. Until a change in `g`: nothing after a result; while a clock runs, the
        # periodic state line, or before it the running side's deadline less 3 ms; every
        # wakeup while paused or flagged (docs/live.md, "Inside the feed", has why).
        if state == _FINISHED:
            self.until = _NEVER
        elif state == _RUNNING:
            until = self._bound or now + g.remaining(g.running, now) - 3
            self._tick_at = until
            self.until = until if until < self._state_at else self._state_at

    # ------------------------------------------------------------ what changed
    def _news(self, g):
        """Bits of what changed since the last look: 1 the arbiter log, 2 a period or an
        overtime counter, 4 a flag."""
        n = 0
        log = g.arbiter_log
        if log and log[-1] is not self._note:
            n = 1
        p = g.period
        o = g.ot_left
        if p[0] != self._p0 or p[1] != self._p1 or o[0] != self._o0 or o[1] != self._o1:
            n |= 2
        if (g.flagged[0] | g.flagged[1] << 1) != self._flags:
            n |= 4
        return n

    def _seen(self, g):
        self._p0 = g.period[0]
        self._p1 = g.period[1]
        self._o0 = g.ot_left[0]
        self._o1 = g.ot_left[1]
        self._flags = g.flagged[0] | g.flagged[1] << 1

    def _arbiter(self, g, port, budget):
        """One A line per arbiter-log entry after the last one sent (the log keeps 64): action
        side value at_ms ply before after. Those beyond the step's budget go at the next
        steps (a game restored at power-up brings its corrections, up to 64)."""
        log = g.arbiter_log
        i = len(log)
        while i > 0 and log[i - 1] is not self._note:
            i -= 1
        v = self._v
        while i < len(log):
            if budget == 0:
                return 0  # the rest at the next step: _news sees log[-1] is not _note
            e = log[i]
            i += 1
            self._note = e
            budget -= 1
            v[2] = e[1]  # action (engine.ACT_*)
            v[3] = e[2]  # side, -1 none
            v[4] = e[3]  # value
            v[5] = e[0]  # the instant (ms)
            v[6] = e[4]  # ply: the half-moves before it
            v[7] = e[5]  # before (game_state.py's table)
            v[8] = e[6]  # after
            send(self, port, fields(self, K_ARBITER, 7))
        return budget

    def _periods(self, g, port, budget):
        p = g.period
        o = g.ot_left
        changed = (p[0] != self._p0 or o[0] != self._o0) | (
            p[1] != self._p1 or o[1] != self._o1
        ) << 1
        self._p0 = p[0]
        self._p1 = p[1]
        self._o0 = o[0]
        self._o1 = o[1]
        v = self._v
        for s in range(2):
            if changed >> s & 1:
                if budget == 0:
                    self.dropped += 1
                    continue
                budget -= 1
                v[2] = s
                v[3] = p[s]
                v[4] = o[s]
                v[5] = g.remaining(s, g.last_event)
                send(self, port, fields(self, K_PERIOD, 4))
        return budget

    def _flagged(self, g, port, budget):
        flags = g.flagged[0] | g.flagged[1] << 1
        new = flags & ~self._flags
        self._flags = flags
        v = self._v
        for s in range(2):
            if new >> s & 1:
                if budget == 0:
                    self.dropped += 1
                    continue
                budget -= 1
                v[2] = s
                v[3] = g.first_flag
                v[4] = g.flag_at[s]
                v[5] = g.moves[s]
                send(self, port, fields(self, K_FLAG, 4))
        return budget

    # ------------------------------------------------------------ lines
    def _start(self, g):
        """G white draw_odds mode control_left control_right ident."""
        j = head(self, K_START)
        j = put(self, j, g.white)
        j = put(self, j, g.draw_odds)
        j = put(self, j, g.mode)
        controls = g.controls
        j = control(self, j, controls[0])
        j = control(self, j, controls[1])
        j = put(self, j, g.ident)
        return end(self, j)

    def _move(self, g, k):
        """M ply side move_no used_ms left_ms other_ms ot: the k-th half-move (from 0);
        other_ms, the opponent's time as the move ended, only for the newest (-1 else)."""
        i = k % _LOG_CAPACITY
        packed = g.log_move[i]
        side = packed & 1
        v = self._v
        v[2] = k + 1
        v[3] = side
        v[4] = packed >> 1
        v[5] = g.log_used[i]
        v[6] = g.log_left[i]
        v[7] = g.remaining(1 - side, g.last_event) if k + 1 == g.log_count else -1
        v[8] = g.log_ot[i]
        return fields(self, K_MOVE, 7)

    def _status(self, g, now):
        """T state running left_ms right_ms delay_ms period0 period1 ot0 ot1 flags
        first_flag moves0 moves1 plies. While a clock runs and nothing but time has
        changed since the last one (_t_ok: every look since was calm, step), that line
        (kept in _tbuf) is made this one by rewriting its seq and the times that
        changed, when their digits are as many and the delay is the same."""
        state = g.state
        r = g.running
        a = g.remaining(0, now)
        b = g.remaining(1, now)
        if state == _RUNNING and r >= 0:
            d = g.delay_left(r, now)
            self._bound = now + (b if r else a) - 3  # step's tick bound, this look's
            q = self.seq
            c = self._tc
            if (
                self._t_ok
                and d == c[_TD]
                and c[_TCUT] == self._cut
                and c[_TS_LO] <= q < c[_TS_HI]
                and c[_TA_LO] <= a < c[_TA_HI]
                and c[_TB_LO] <= b < c[_TB_HI]
            ):
                buf = self._tbuf
                k = c[_TS_END]
                if q == c[_TQ] + 1:  # the kept line's seq + 1 (no line between): carry
                    k -= 1
                    while buf[k] == 57:  # "9"
                        buf[k] = _C0
                        k -= 1
                    buf[k] += 1
                else:
                    while k > _BODY:
                        k -= 1
                        buf[k] = _C0 + q % 10
                        q //= 10
                c[_TQ] = self.seq
                self.seq = (self.seq + 1) % _SEQ_SPAN
                if a != c[_TA]:
                    c[_TA] = a
                    k = c[_TA_END]
                    j = c[_TA_AT]
                    while k > j:
                        k -= 1
                        buf[k] = _C0 + a % 10
                        a //= 10
                if b != c[_TB]:
                    c[_TB] = b
                    k = c[_TB_END]
                    j = c[_TB_AT]
                    while k > j:
                        k -= 1
                        buf[k] = _C0 + b % 10
                        b //= 10
                return c[_TN]
        else:
            d = 0
        v = self._v
        v[2] = state
        v[3] = r
        v[4] = a
        v[5] = b
        v[6] = d
        p = g.period
        v[7] = p[0]
        v[8] = p[1]
        o = g.ot_left
        v[9] = o[0]
        v[10] = o[1]
        f = g.flagged
        v[11] = f[0] | f[1] << 1
        v[12] = g.first_flag
        m = g.moves
        v[13] = m[0]
        v[14] = m[1]
        v[15] = g.log_count
        q = self.seq
        n = fields(self, K_STATE, 14, self._tbuf)
        self._t_ok = state == _RUNNING and r >= 0
        if self._t_ok:  # where the digits are (state and running: one digit each)
            c = self._tc
            c[_TN] = n
            c[_TCUT] = self._cut
            c[_TD] = d
            c[_TQ] = q
            m = _digits(q)
            k = _BODY + m
            c[_TS_END] = k
            c[_TS_LO] = _TEN[m - 1] if m > 1 else 0
            c[_TS_HI] = _TEN[m] if m < 10 else _NEVER
            k += 7  # " T 1 0 "
            c[_TA] = a
            c[_TA_AT] = k
            m = _digits(a)
            k += m
            c[_TA_END] = k
            c[_TA_LO] = _TEN[m - 1] if m > 1 else 0
            c[_TA_HI] = _TEN[m] if m < 10 else _NEVER
            k += 1
            c[_TB] = b
            c[_TB_AT] = k
            m = _digits(b)
            c[_TB_END] = k + m
            c[_TB_LO] = _TEN[m - 1] if m > 1 else 0
            c[_TB_HI] = _TEN[m] if m < 10 else _NEVER
        return n

    def _result(self, g):
        """E result reason white: engine.RESULT_* (1 left wins, 2 right, 3 draw), the
        shell's reason with engine.BY_DRAW_ODDS, the side that had White."""
        v = self._v
        v[2] = g.result
        v[3] = g.reason
        v[4] = g.white
        return fields(self, K_RESULT, 3)
