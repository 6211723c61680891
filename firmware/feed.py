"""The live feed: a game's events as text lines for a host on the USB serial port.

Owns the line format (version 1, docs/live.md has the table) and what has been sent of
the game in progress. From the first lever press until the result is recorded, each
wakeup `step()` writes what is new in the engine since the last one, in this order: the
game's start (its controls), the moves the move log holds that were not sent whole, the
arbiter's pauses, resumes and corrections, period changes, fallen flags, then the state
(both times, who is on move), and the result. While a game is in progress the state line
also comes every PERIOD_MS at the first wakeup after it (no wakeup of its own: the loop
wakes at least every 4 s, and each second while a clock shows seconds), and the start
line again every HEADER_EVERY state lines, so a host that connects mid-game has the whole
state within a few seconds.

Each line is `#CLK1 <seq> <kind> <fields...> *` and CR LF: `#CLK1` (no REPL output or
status line starts so; the 1 is the format's version), a sequence number 0..99999 that
counts every line made (a gap tells the host lines were dropped), a one-letter kind,
integer fields separated by one space, and `*` as the last field: a line cut short by a
full port lacks it, and the line after a cut one begins with CR LF, so a host drops the
cut line and nothing else. Times are whole ms as the engine gives them (the move log's
nearest-ms values, `remaining()` rounded up), sides are physical (0 left, 1 right).

Nothing lost: a move line or the start or the result that does not go out whole is made
again at the next wakeup (moves by their index in the log, which the ring keeps for 600
half-moves), so a host that reads slowly gets every move late, not never; the other kinds
go once and the next state line carries what they changed. Lines dropped or cut are
counted (`dropped`).

Writing: `step(now, g, port)` calls `port.send(buf, n)`, which writes the first n bytes of
`buf` as far as they fit without waiting and returns how many went out (usbguard.py).
At most LINES_MAX lines per wakeup. Nothing allocates after the constructor: the line is
built in one preallocated bytearray, digits written by hand. Pure: no clock reading,
the instant `now` (ms) is an argument. Not IRQ code.
"""

from micropython import const

VERSION = const(1)
PERIOD_MS = const(5_000)  # a state line at the first wakeup this long after the last
HEADER_EVERY = const(8)  # the start line again with every 8th periodic state line
LINES_MAX = const(8)  # lines written per wakeup at most
LINE_MAX = const(256)  # bytes in the longest line (a start line with 4 periods a side)
SEQ_SPAN = const(100_000)

PREFIX = b"#CLK1 "

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
_SPACE = const(32)
_STAR = const(42)
_MINUS = const(45)
_C0 = const(48)
_CR = const(13)
_LF = const(10)


class Feed:
    def __init__(self):
        self.buf = bytearray(LINE_MAX)
        self.seq = 0  # the next line's sequence number
        self.sent = 0  # lines written whole
        self.dropped = 0  # lines cut short or not written (port full)
        self._cut = False  # the last line went out cut: the next begins with CR LF
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

    def step(self, now, g, port):
        """Write what is new in game `g` (an engine.Game) at `now` (ms) through `port`.
        Cheap when nothing is: a few comparisons."""
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
            log = g.arbiter_log
            self._note = log[-1] if log else None
            self._moves = g.log_count - _LOG_CAPACITY if g.log_count > _LOG_CAPACITY else 0
            self._seen(g)
            self._state = state
        elif (
            self._moves == g.log_count
            and state == self._state
            and (now < self._state_at or state == _FINISHED)
            and not self._state_owed
            and not self._start_owed
            and not self._result_owed
            and self._news(g) == 0
        ):
            return  # nothing new (inline: this runs at every wakeup in a game)
        budget = LINES_MAX
        if self._start_owed:
            if not self._send(port, self._start(g)):
                return
            self._start_owed = False
            budget -= 1
        kept = g.log_count - _LOG_CAPACITY
        if self._moves < kept:
            self._moves = kept  # older than the ring: gone
        while self._moves < g.log_count:
            if budget == 0 or not self._send(port, self._move(g, self._moves)):
                return
            self._moves += 1
            budget -= 1
        news = self._news(g)
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
            self._state_owed = not self._send(port, self._status(g, now))
        if self._result_owed and budget > 0:
            self._result_owed = not self._send(port, self._result(g))

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
        """One A line per arbiter-log entry after the last one sent (the log keeps 64)."""
        log = g.arbiter_log
        i = len(log)
        while i > 0 and log[i - 1] is not self._note:
            i -= 1
        self._note = log[-1]
        while i < len(log):
            e = log[i]
            i += 1
            if budget == 0:
                self.dropped += 1
                continue
            budget -= 1
            j = self._head(K_ARBITER)
            j = self._int(j, e[1])  # action (engine.ACT_*)
            j = self._int(j, e[2])  # side, -1 none
            j = self._int(j, e[3])  # value
            j = self._int(j, e[0])  # the instant (ms)
            self._send(port, self._end(j))
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
        for s in range(2):
            if changed >> s & 1:
                if budget == 0:
                    self.dropped += 1
                    continue
                budget -= 1
                j = self._head(K_PERIOD)
                j = self._int(j, s)
                j = self._int(j, p[s])
                j = self._int(j, o[s])
                j = self._int(j, g.remaining(s, g.last_event))
                self._send(port, self._end(j))
        return budget

    def _flagged(self, g, port, budget):
        flags = g.flagged[0] | g.flagged[1] << 1
        new = flags & ~self._flags
        self._flags = flags
        for s in range(2):
            if new >> s & 1:
                if budget == 0:
                    self.dropped += 1
                    continue
                budget -= 1
                j = self._head(K_FLAG)
                j = self._int(j, s)
                j = self._int(j, g.first_flag)
                j = self._int(j, g.flag_at[s])
                j = self._int(j, g.moves[s])
                self._send(port, self._end(j))
        return budget

    # ------------------------------------------------------------ lines
    def _start(self, g):
        """G white draw_odds mode control_left control_right ident."""
        j = self._head(K_START)
        j = self._int(j, g.white)
        j = self._int(j, g.draw_odds)
        j = self._int(j, g.mode)
        controls = g.controls
        j = self._control(j, controls[0])
        j = self._control(j, controls[1])
        j = self._int(j, g.ident)
        return self._end(j)

    def _control(self, j, c):
        """periods as time_ms,moves,bonus,bonus_ms joined by '/', then +count,ms in
        overtime modes (the overtime stage is not a period of its own then)."""
        buf = self.buf
        n = len(c.periods) - (1 if c.ot_count else 0)
        for i in range(n):
            if i:
                buf[j - 1] = 47  # "/" instead of the space
            p = c.periods[i]
            j = self._int(j, p[0])
            buf[j - 1] = 44  # ","
            j = self._int(j, p[1])
            buf[j - 1] = 44
            j = self._int(j, p[2])
            buf[j - 1] = 44
            j = self._int(j, p[3])
        if c.ot_count:
            buf[j - 1] = 43  # "+"
            j = self._int(j, c.ot_count)
            buf[j - 1] = 44
            j = self._int(j, c.ot_ms)
        return j

    def _move(self, g, k):
        """M ply side move_no used_ms left_ms other_ms ot: the k-th half-move (from 0);
        other_ms, the opponent's time as the move ended, only for the newest (-1 else)."""
        i = k % _LOG_CAPACITY
        packed = g.log_move[i]
        side = packed & 1
        j = self._head(K_MOVE)
        j = self._int(j, k + 1)
        j = self._int(j, side)
        j = self._int(j, packed >> 1)
        j = self._int(j, g.log_used[i])
        j = self._int(j, g.log_left[i])
        j = self._int(j, g.remaining(1 - side, g.last_event) if k + 1 == g.log_count else -1)
        j = self._int(j, g.log_ot[i])
        return self._end(j)

    def _status(self, g, now):
        """T state running left_ms right_ms delay_ms period0 period1 ot0 ot1 flags
        first_flag moves0 moves1 plies."""
        j = self._head(K_STATE)
        j = self._int(j, g.state)
        r = g.running
        j = self._int(j, r)
        j = self._int(j, g.remaining(0, now))
        j = self._int(j, g.remaining(1, now))
        j = self._int(j, g.delay_left(r, now) if g.state == _RUNNING and r >= 0 else 0)
        j = self._int(j, g.period[0])
        j = self._int(j, g.period[1])
        j = self._int(j, g.ot_left[0])
        j = self._int(j, g.ot_left[1])
        j = self._int(j, g.flagged[0] | g.flagged[1] << 1)
        j = self._int(j, g.first_flag)
        j = self._int(j, g.moves[0])
        j = self._int(j, g.moves[1])
        j = self._int(j, g.log_count)
        return self._end(j)

    def _result(self, g):
        """E result reason white: engine.RESULT_* (1 left wins, 2 right, 3 draw), the
        shell's reason with engine.BY_DRAW_ODDS, the side that had White."""
        j = self._head(K_RESULT)
        j = self._int(j, g.result)
        j = self._int(j, g.reason)
        j = self._int(j, g.white)
        return self._end(j)

    # ------------------------------------------------------------ bytes
    def _head(self, kind):
        """Start a line: CR LF after a cut one, the prefix, the sequence number, the kind;
        returns the index after the kind's space."""
        buf = self.buf
        j = 0
        if self._cut:
            buf[0] = _CR
            buf[1] = _LF
            j = 2
        p = PREFIX
        for i in range(len(p)):
            buf[j] = p[i]
            j += 1
        j = self._int(j, self.seq)
        self.seq = (self.seq + 1) % SEQ_SPAN
        buf[j] = kind
        buf[j + 1] = _SPACE
        return j + 2

    def _int(self, j, v):
        """Write v in decimal at j, then a space; returns the index after the space."""
        buf = self.buf
        if v < 0:
            buf[j] = _MINUS
            j += 1
            v = -v
        e = j + 1  # after the last digit
        d = 10
        while v >= d:
            d *= 10
            e += 1
        k = e
        while k > j:  # the digits from the last: one divmod each
            k -= 1
            buf[k] = _C0 + v % 10
            v //= 10
        buf[e] = _SPACE
        return e + 1

    def _end(self, j):
        buf = self.buf
        buf[j] = _STAR
        buf[j + 1] = _CR
        buf[j + 2] = _LF
        return j + 3

    def _send(self, port, n):
        """Write the line's n bytes; True when all went out."""
        w = port.send(self.buf, n)
        if w == n:
            self.sent += 1
            self._cut = False
            return True
        self.dropped += 1
        if w:
            self._cut = True
        return False
