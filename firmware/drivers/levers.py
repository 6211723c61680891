"""The two player levers: press timestamps taken in a hard interrupt, debounced, queued.

Owns the lever IRQ handlers, the ring buffer of (side, stamp) and the debounce state. It is
handed two pins (board.py creates them as `Pin(n, Pin.IN, Pin.PULL_UP)`; pressed = low) and
needs their `value()`, `irq(handler, trigger, hard)` and `irq().flags()` methods and the
IRQ_FALLING / IRQ_RISING class constants. Sides: 0 = left, 1 = right.

Timestamps are `time.ticks_us()` values read first thing in the interrupt, so a press is
stamped when the contact closed, not when the main loop gets round to it.

Debounce: the IRQ fires on both edges; each edge is stamped as the lever's last edge. The
first falling edge of an *armed* lever is a press: its stamp is queued and the lever is
disarmed, so the rest of the bounce is ignored however long it lasts. The main loop re-arms a
lever (in `update`, which `pop` calls) once it reads released (high) and no edge has
come for `debounce_us`; so the falling edges of the bounce when a lever is *released* are
ignored too. Reading the level inside the IRQ would not do: a bounce can flip the line back
before the handler runs, so the handler asks the pin which edge latched (`irq().flags()`).

Waking the loop: every edge adds one to `bell[0]` (an array cell handed in by board.py and
shared with the other GPIO handlers, which all run in the RP2040's one IO_BANK0 interrupt,
so they never interleave). The loop sleeps until the bell changes; `update()` returns how
long it may then sleep before re-arming is due (the quiet time after a release), or -1
when only an edge can change anything (both armed, or a disarmed lever still held: its
release edge rings the bell).

Order and ties: `pop`/`drain` give presses in timestamp order. Two levers pressed in the
same millisecond give two events, earlier stamp first; on an exact tie (same microsecond)
side 0 comes first. Deciding which press counts is the engine's job. Two presses latched in
the same GPIO interrupt are stamped one after the other (lower GPIO first), so the second
stamp is late by the handler's run time (not yet measured on the board; tens of us expected).

Overflow: when the ring is full a new press is dropped (never overwrites) and counted in
`dropped()`; what was queued stays intact.

Main-loop contract: call `update()` (or `pop`, which calls it) after the bell rings and
again when the time it returned has passed; `drain` does not (see there). An armed lever
needs nothing; the quiet test stays within ticks_diff's 2**29 us range by remembering which
edge it has already seen to be old, so a lever left alone for hours still re-arms
correctly.
"""

import time
from array import array

from micropython import const

_LEFT = const(0)
_RIGHT = const(1)
_COUNT_MASK = const(0x3FFFFFFF)  # press counters wrap here and stay small ints
# Indexes into the state array shared with the IRQ (`_st`). The owner alone writes a cell.
_HEAD = const(0)  # next ring slot the IRQ writes (IRQ-owned)
_TAIL = const(1)  # next ring slot the main loop reads (main-owned)
_DROPPED = const(2)  # presses lost to a full ring (IRQ-owned)
_COUNT = const(3)  # + side: presses accepted so far, masked (IRQ-owned)
_ARMED = const(5)  # + side: the lever is armed while this equals _COUNT + side (main-owned)
_EDGE = const(7)  # + side: ticks_us of that lever's last edge, either way (IRQ-owned)
_OLD = const(9)  # + side: an _EDGE value already seen older than the window (main-owned)
_ST_LEN = const(11)


class Levers:
    debounce_us = 20_000  # quiet time before a lever re-arms, us
    settle_us = 0  # a stamp is in the ring when the clock reads it: taken in the handler

    def __init__(self, left, right, ring_size=16, bell=None):
        self._pins = (left, right)
        # +1 per edge, for the loop's sleep (IRQ-owned; see the module doc)
        self._bell = bell if bell is not None else array("i", (0,))
        self._n = ring_size + 1  # one slot stays empty to tell full from empty
        self._stamps = array("i", [0] * self._n)  # ticks_us of each queued press
        self._sides = bytearray(self._n)  # side of each queued press
        st = array("i", [0] * _ST_LEN)
        self._st = st
        now = time.ticks_us()
        for side in range(2):
            st[_EDGE + side] = now
            st[_OLD + side] = now  # no edge yet: quiet
            st[_ARMED + side] = 0 if self._pins[side].value() else -1  # held: not armed
        self.mover = array("i", (-1,))  # (pio_levers' LED cell; this driver leaves the LEDs)
        self.stamp_us = 0  # stamp of the press last returned by pop()
        self.checked_us = 0  # ticks_us that update() counted its wait from (main-owned)
        self._falling = left.IRQ_FALLING
        both = left.IRQ_FALLING | left.IRQ_RISING
        left.irq(self._irq_left, both, True)
        right.irq(self._irq_right, both, True)

    # hard-IRQ safe
    def _irq_left(self, pin):
        t = time.ticks_us()
        self._edge(_LEFT, t, pin.irq().flags())

    # hard-IRQ safe
    def _irq_right(self, pin):
        t = time.ticks_us()
        self._edge(_RIGHT, t, pin.irq().flags())

    # hard-IRQ safe: ints and preallocated arrays only, no allocation, never raises.
    def _edge(self, side, t, flags):
        st = self._st
        st[_EDGE + side] = t
        self._bell[0] += 1
        if not flags & self._falling:
            return  # a release edge: only its time matters (the quiet test)
        count = st[_COUNT + side]
        if st[_ARMED + side] != count:
            return  # bounce, or the lever has not been seen released and quiet yet
        st[_COUNT + side] = (count + 1) & _COUNT_MASK  # disarm
        head = st[_HEAD]
        nxt = head + 1
        if nxt == self._n:
            nxt = 0
        if nxt == st[_TAIL]:
            st[_DROPPED] += 1
            return
        self._stamps[head] = t
        self._sides[head] = side
        st[_HEAD] = nxt

    def update(self):
        """Re-arm each lever that reads released and has had no edge for `debounce_us`.
        Returns the us after which calling again can re-arm a lever (counted from the
        reading kept in `checked_us`), or -1 when only an edge (which rings the bell) can.
        Race-free against the IRQ: it writes only
        main-owned cells, and an arm decision based on a press count the IRQ has since
        moved on is void."""
        st = self._st
        now = time.ticks_us()
        self.checked_us = now
        wait = -1
        for side in range(2):
            count = st[_COUNT + side]  # read first: a press after this voids the arming
            if st[_ARMED + side] == count:
                continue  # armed
            edge = st[_EDGE + side]
            quiet = edge == st[_OLD + side]
            if not quiet:
                age = time.ticks_diff(now, edge)
                if age >= self.debounce_us:
                    st[_OLD + side] = edge
                    quiet = True
                elif self._pins[side].value():
                    left = self.debounce_us - age
                    if wait < 0 or left < wait:
                        wait = left
            if quiet and self._pins[side].value():
                st[_ARMED + side] = count
        return wait

    def pop(self):
        """Next press: returns its side (0/1) and sets `self.stamp_us`; -1 when none."""
        self.update()
        return self._next()

    def _next(self):
        st = self._st
        tail = st[_TAIL]
        if tail == st[_HEAD]:
            return -1
        nxt = tail + 1
        if nxt == self._n:
            nxt = 0
        if nxt != st[_HEAD]:
            # Exact tie with the next press: side 0 first (swapped in place; the IRQ never
            # writes slots between tail and head).
            if (
                self._stamps[nxt] == self._stamps[tail]
                and self._sides[tail] == _RIGHT
                and self._sides[nxt] == _LEFT
            ):
                self._sides[tail] = _LEFT
                self._sides[nxt] = _RIGHT
        side = self._sides[tail]
        self.stamp_us = self._stamps[tail]
        st[_TAIL] = nxt
        return side

    def drain(self, callback):
        """Call `callback(side, stamp_us)` for every queued press, oldest first; returns how
        many. Unlike `pop` it does not re-arm first (a press's own wakeup hands the engine
        its press sooner: the loop calls `update()` after its LEDs). Allocates nothing if
        the callback does not."""
        n = 0
        while True:
            side = self._next()
            if side < 0:
                return n
            callback(side, self.stamp_us)
            n += 1

    def pending(self):
        """Number of queued presses (a few array reads: cheap enough for every wakeup)."""
        d = self._st[_HEAD] - self._st[_TAIL]
        return d + self._n if d < 0 else d

    def clear(self):
        """Discard queued presses (e.g. when a menu opens)."""
        self._st[_TAIL] = self._st[_HEAD]

    def dropped(self):
        """Presses lost because the ring was full, since start-up."""
        return self._st[_DROPPED]

    def pressed(self, side):
        """Raw level: True while lever `side` is held down (not debounced)."""
        return not self._pins[side].value()
