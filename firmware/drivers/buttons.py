"""The four arbiter buttons: debounce, short press, long press and auto-repeat, polled.

Owns the button timing logic and a small queue of event codes. The logic never reads a
clock: `update(now_ms, pressed_mask)` takes the time (ms; ticks_ms or any ms counter, compared
with time.ticks_diff, so it may wrap at 2**30) and which buttons are down; `poll(now_ms)`
first reads the sources it was handed (pins or zero-argument callables; a machine.Pin is
callable and returns its level). Nothing allocates after the constructor.

Events, read with `pop()` (0 when none), are small ints: `button << 2 | kind`.

- SHORT: released before `long_ms`, and no LONG/REPEAT fired while held (fires on release).
- LONG: held for `long_ms`; fires once, while still held. Nothing fires on that release.
- REPEAT (buttons in `repeat_mask`, by default MINUS and PLUS): fires `repeat_delay_ms`
  after the press and then every `repeat_ms` while held; such buttons never fire LONG, and a
  release after a REPEAT fires nothing, so SHORT and REPEAT each mean "one step".

Debounce: a level change counts once it has been steady for `debounce_ms`; the press time
(for LONG/REPEAT) is when the change was first seen, or the edge's own instant when the
caller knows it (`since_ms`: the shell passes the last button edge's, stamped in its
interrupt, so the event comes `debounce_ms` after the edge however late the loop looked). A
button held at start-up is a press like any other (so start-up combinations are possible).
`held_mask` gives the debounced state of all four for combinations. If the loop stalls, at
most one REPEAT fires per call (no burst). A full queue drops new events and counts them in
`dropped`.

Polling only when needed: `next_due(now_ms)` says when a poll can next change anything: while
a level is settling (debounce), or a held button's LONG / REPEAT is pending. Otherwise only
an edge can (board.py wakes the loop on every button edge), and the loop need not poll.
"""

import time
from array import array

from micropython import const

PLAY = const(0)
SET = const(1)
MINUS = const(2)
PLUS = const(3)

NONE = const(0)
SHORT = const(1)
LONG = const(2)
REPEAT = const(3)

_N = const(4)
# Per-button state, one array each.
_RAW = const(0)  # last raw level seen (1 = pressed)
_RAW_T = const(1)  # when the raw level last changed, ms
_NEXT_T = const(2)  # deadline of the next LONG or REPEAT, ms
_FIRED = const(3)  # 1 once LONG or REPEAT fired in this press


def button_of(event):
    return event >> 2


def kind_of(event):
    return event & 3


class Buttons:
    debounce_ms = 30  # a level must be steady this long, ms
    long_ms = 2_000  # hold time for LONG, ms
    repeat_delay_ms = 500  # press to first REPEAT, ms
    repeat_ms = 150  # between REPEATs, ms

    def __init__(
        self, sources=None, repeat_mask=(1 << MINUS) | (1 << PLUS), active_low=True, queue=8
    ):
        self._sources = sources  # 4 pins or callables (PLAY, SET, MINUS, PLUS), or None
        self._active = 0 if active_low else 1  # source level that means "pressed"
        self.repeat_mask = repeat_mask
        self._st = array("i", [0] * (4 * _N))
        self.held_mask = 0  # debounced state, bit b = button b held
        self._down = 0  # the raw levels last seen, bit b = button b down (the _RAW cells)
        self._q = bytearray(queue + 1)
        self._head = 0  # next queue slot to write
        self._tail = 0  # next queue slot to read
        self.dropped = 0  # events lost to a full queue
        self.muted = 0  # bit b: button b, held since `swallow`, gives no event until released

    def poll(self, now_ms, since_ms=None):
        """Read the sources and update; returns the number of events queued. `since_ms`: as
        for `update`."""
        src = self._sources
        a = self._active
        mask = 1 if src[0]() == a else 0
        if src[1]() == a:
            mask |= 2
        if src[2]() == a:
            mask |= 4
        if src[3]() == a:
            mask |= 8
        return self.update(now_ms, mask, since_ms)

    def update(self, now_ms, pressed_mask, since_ms=None):
        """Advance to `now_ms` with the raw levels `pressed_mask` (bit b set = button b
        down); returns the number of events queued. `since_ms`: when a level found changed
        last changed, if known (the last button edge, no earlier than any button's last change:
        the loop's look may come a while after it); else `now_ms`."""
        if since_ms is None:
            since_ms = now_ms
        n = 0
        st = self._st
        todo = pressed_mask | self._down | self.held_mask  # up, was up, not held: nothing
        self._down = pressed_mask
        b = -1
        while todo:  # the buttons with something to do, lowest first
            b += 1
            bit = 1 << b
            if not todo & bit:
                continue
            todo ^= bit
            raw = 1 if pressed_mask & bit else 0
            if raw != st[_RAW * _N + b]:
                st[_RAW * _N + b] = raw
                st[_RAW_T * _N + b] = since_ms
            held = 1 if self.held_mask & bit else 0
            if raw != held:
                if time.ticks_diff(now_ms, st[_RAW_T * _N + b]) >= self.debounce_ms:
                    n += self._change(b, raw)
            elif held:
                n += self._held(b, now_ms)
        return n

    def next_due(self, now_ms):
        """ms until a poll can next change anything without a new edge, 0 if due now, or -1
        when only an edge can (nothing settling, nothing pending while held). Allocates
        nothing."""
        st = self._st
        wait = -1
        todo = self._down | self.held_mask  # up and not held: nothing pending
        b = -1
        while todo:  # the buttons down or held, lowest first
            b += 1
            bit = 1 << b
            if not todo & bit:
                continue
            todo ^= bit
            held = self.held_mask & bit
            if st[_RAW * _N + b] != (1 if held else 0):
                due = time.ticks_add(st[_RAW_T * _N + b], self.debounce_ms)
            elif self.muted & bit:
                continue  # held since `swallow`: only its release, an edge, changes it
            elif held and (self.repeat_mask & bit or not st[_FIRED * _N + b]):
                due = st[_NEXT_T * _N + b]
            else:
                continue
            d = time.ticks_diff(due, now_ms)
            if d < 0:
                d = 0
            if wait < 0 or d < wait:
                wait = d
        return wait

    def swallow(self, now_ms):
        """The buttons held now count as held since `now_ms` and give no event (no SHORT at
        their release, no LONG, no REPEAT): the press that woke the clock (dormant.py) does
        nothing else. Allocates nothing."""
        src = self._sources
        st = self._st
        for b in range(_N):
            if src[b]() == self._active:
                bit = 1 << b
                self.muted |= bit
                self.held_mask |= bit
                self._down |= bit
                st[_RAW * _N + b] = 1
                st[_RAW_T * _N + b] = now_ms
                st[_FIRED * _N + b] = 1

    def _change(self, b, down):
        st = self._st
        bit = 1 << b
        if not down and self.muted & bit:
            self.muted &= ~bit
            self.held_mask &= ~bit
            return 0
        if down:
            self.held_mask |= bit
            st[_FIRED * _N + b] = 0
            delay = self.repeat_delay_ms if self.repeat_mask & bit else self.long_ms
            st[_NEXT_T * _N + b] = time.ticks_add(st[_RAW_T * _N + b], delay)
            return 0
        self.held_mask &= ~bit
        if st[_FIRED * _N + b]:
            return 0
        return self._emit(b << 2 | SHORT)

    def _held(self, b, now_ms):
        if self.muted & (1 << b):
            return 0
        st = self._st
        i = _NEXT_T * _N + b
        if time.ticks_diff(now_ms, st[i]) < 0:
            return 0
        if self.repeat_mask & (1 << b):
            nxt = time.ticks_add(st[i], self.repeat_ms)
            if time.ticks_diff(now_ms, nxt) >= 0:
                nxt = time.ticks_add(now_ms, self.repeat_ms)  # late: no burst of repeats
            st[i] = nxt
            st[_FIRED * _N + b] = 1
            return self._emit(b << 2 | REPEAT)
        if st[_FIRED * _N + b]:
            return 0
        st[_FIRED * _N + b] = 1
        return self._emit(b << 2 | LONG)

    def _emit(self, event):
        nxt = self._head + 1
        if nxt == len(self._q):
            nxt = 0
        if nxt == self._tail:
            self.dropped += 1
            return 0
        self._q[self._head] = event
        self._head = nxt
        return 1

    def pop(self):
        """Next event code, oldest first; NONE (0) when the queue is empty."""
        if self._tail == self._head:
            return NONE
        event = self._q[self._tail]
        self._tail += 1
        if self._tail == len(self._q):
            self._tail = 0
        return event

    def held(self, button):
        """Debounced: True while `button` is held."""
        return bool(self.held_mask & (1 << button))
