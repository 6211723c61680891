"""The two player levers, stamped by PIO state machines: presses queued in timestamp order.

Owns the machines' IRQ handlers, the per-lever rings of press stamps and the read side of
the levers (`pressed`). It is handed two state machines running lever_pio.program (board.py
makes them: PIO1's machines 0 and 1, each lever's pin as its `jmp_pin`, not started), the
two pins (`Pin.IN, Pin.PULL_UP`; pressed = low) and `start`, which starts both machines in
step with the µs timer and returns the count's origin (lever_pio.start_in_step).

The machine stamps the press itself, to the µs, whatever the core is doing (lever_pio.py
says how and why), and debounces: the rest of a press's bounce,
the release, its bounce and the 20 ms quiet time before re-arming all happen inside the
machine, at no CPU cost. The core hears of a lever once a press: the machine's IRQ flag,
whose hard handler moves the word from the RX FIFO to that lever's ring, converted to a
`ticks_us()` instant (`stamp`), and adds one to `bell[0]` (doorbell.py), which ends
the loop's sleep. An edge inside a flash write is stamped exactly; only its handler, and so
the loop's wakeup, waits for the interrupts to come back on (the FIFO holds 4 presses a
lever meanwhile: 4 x 20 ms at least).

The LEDs: the loop keeps `mover[0]` = the lever whose press is a move now (the running
side, on the game screen; EITHER: both levers, the first press of a game; else -1). A
press of that lever lights the other side's LED and
puts its own out in the handler, microseconds after the edge, whatever the loop is doing
(a render wakeup lasts 2 ms on the chip): the fast path of the game screen's LED rule,
which stays the one that decides (ui_game.py, drawn by app.View). The handler then clears
`mover[0]` (once: the loop arms it again after that press) and records what it lit in
`lit`: `lit[1]` the mask (bit 0 left, bit 1 right), then `lit[0]` one more, so the loop
knows what the LEDs show without writing them again (app.py). The loop that writes the LEDs
itself clears `mover[0]` first: no handler lights them after its write unless armed again.

Order and ties: `pop`/`drain` give presses in timestamp order across both levers whatever
order their handlers ran in (each lever's ring is in order; the earlier head goes first);
on an exact tie (same µs) side 0 comes first. Deciding which press counts is the engine's.

Overflow: when a lever's ring is full a new press is dropped (never overwrites) and counted
in `dropped()`; what was queued stays intact.

Main-loop contract: a press is queued while a lever's head differs from its tail in `rings`
(the one question: `waiting()` asks it, the render's hot looks read `rings` inline) and,
when one is, `drain(callback)` hands it every stamp in order; `pop()` takes one (its stamp in
`stamp_us`); `clear()` forgets the queue (a menu's touch must not start a game later);
`pressed(side)` is the raw level. Nothing needs re-arming from the loop: only an edge
changes anything. `debounce_us` is read once, when the machines start.
"""

import time
from array import array

from micropython import const

_TICKS_MASK = const(0x3FFFFFFF)  # ticks_us() wraps at 2**30 µs, as X's low 30 bits do

_RIGHT = const(1)
EITHER = const(2)  # `mover[0]`: a press of either lever is a move (a game's first)
# Indexes into the state array shared with the IRQ (`_st`). The owner alone writes a cell.
_HEAD = const(0)  # + side: next ring slot the IRQ writes (IRQ-owned)
_TAIL = const(2)  # + side: next ring slot the main loop reads (main-owned)
_DROPPED = const(4)  # presses lost to a full ring (IRQ-owned)
_ORIGIN = const(5)  # ticks_us of the machines' count origin (set at the start, and again
# by restart())
_ST_LEN = const(6)


def quiet_word(debounce_us):
    """The word a lever machine takes at its start: Y of its quiet loop (lever_pio.py)."""
    n = debounce_us // 2 - 1
    return n if n > 0 else 0


def stamp(origin, word):
    """The `ticks_us()` instant of a press from the word its machine pushed (X's low 30
    bits: -m, lever_pio.py) and the origin of the count. Small ints only: hard-IRQ safe."""
    return (origin + 1 - word) & _TICKS_MASK


class Levers:
    debounce_us = 20_000  # quiet time before a lever re-arms, us (inside the machines)
    # A press is in its ring at most this long (us) after its stamp: the machine pushes
    # the word and raises its flag 1.5 us after its look, and the hard IRQ then runs at
    # once (not with interrupts off: then later, which the loop's own wakeup waits for).
    # The loop judges deadlines only up to its clock reading less this (app.py).
    settle_us = 2

    def __init__(self, machines, pins, start, ring_size=8, bell=None, leds=None):
        self._sms = machines
        self._pins = pins
        self._leds = leds  # (left, right) LED pins, high = on; None: not handed any
        # The lever whose press is a move now, or -1 (main-owned; the IRQ clears it once
        # it has lit the LEDs for a press of that lever)
        self.mover = array("i", (-1,))
        # [0] +1 per press whose LEDs the IRQ lit, [1] the mask it lit (IRQ-owned)
        self.lit = array("i", (0, 0))
        # +1 per press, for the loop's sleep (IRQ-owned; see the module doc)
        self._bell = bell if bell is not None else array("i", (0,))
        self._n = ring_size + 1  # per lever; one slot stays empty to tell full from empty
        self._stamps = array("i", [0] * (2 * self._n))  # lever 0's ring, then lever 1's
        self._st = array("i", [0] * _ST_LEN)
        # The rings' heads ([0], [1]) and tails ([2], [3]), shared with the IRQ: a press waits
        # while a lever's head differs from its tail. `waiting()` answers from it; the loop's
        # hot checks read it inline (a call of waiting() costs about 30 µs on the chip).
        self.rings = self._st
        self._st[_HEAD + 1] = self._st[_TAIL + 1] = self._n
        self.stamp_us = 0  # stamp of the press last returned by pop()
        machines[0].irq(self._irq_left, 1, True)
        machines[1].irq(self._irq_right, 1, True)
        self._start = start
        self._begin()

    def _begin(self):
        """The machines, at their program's start, handed the quiet word and started in step
        with the µs timer: the count's origin."""
        word = quiet_word(self.debounce_us)
        for sm in self._sms:
            sm.put(word)  # taken at the machine's cycle 0: it never waits for it
        self._st[_ORIGIN] = self._start()

    # hard-IRQ safe
    def _irq_left(self, sm):
        self._take(0, sm)

    # hard-IRQ safe
    def _irq_right(self, sm):
        self._take(_RIGHT, sm)

    # hard-IRQ safe: small ints and preallocated arrays only, no allocation, never raises
    # (get() is called only while the FIFO holds a word, so it never waits).
    def _take(self, side, sm):
        st = self._st
        base = side * self._n
        top = base + self._n
        while sm.rx_fifo():
            t = stamp(st[_ORIGIN], sm.get())
            head = st[_HEAD + side]
            nxt = head + 1
            if nxt == top:
                nxt = base
            if nxt == st[_TAIL + side]:
                st[_DROPPED] += 1
                continue
            self._stamps[head] = t
            st[_HEAD + side] = nxt
        mover = self.mover
        leds = self._leds
        m = mover[0]
        if (m == side or m == EITHER) and leds is not None:
            mover[0] = -1  # once: the loop says again after this press
            leds[side].value(0)
            leds[1 - side].value(1)
            lit = self.lit
            lit[1] = 2 >> side  # the other side's LED: bit 1 - side
            lit[0] += 1
        self._bell[0] += 1

    def pop(self):
        """Next press: returns its side (0/1) and sets `self.stamp_us`; -1 when none."""
        return self._next()

    def _next(self):
        st = self._st
        t0 = st[_TAIL]
        t1 = st[_TAIL + 1]
        has0 = t0 != st[_HEAD]
        has1 = t1 != st[_HEAD + 1]
        if has0 and has1:
            side = 1 if time.ticks_diff(self._stamps[t1], self._stamps[t0]) < 0 else 0
        elif has0:
            side = 0
        elif has1:
            side = _RIGHT
        else:
            return -1
        tail = t1 if side else t0
        self.stamp_us = self._stamps[tail]
        nxt = tail + 1
        if nxt == (side + 1) * self._n:
            nxt = side * self._n
        st[_TAIL + side] = nxt
        return side

    def drain(self, callback):
        """Call `callback(side, stamp_us)` for every queued press, oldest first; returns how
        many. Allocates nothing if the callback does not."""
        n = 0
        while True:
            side = self._next()
            if side < 0:
                return n
            callback(side, self.stamp_us)
            n += 1

    def waiting(self):
        """True while a press is queued: the ring itself, so a press the IRQ queued at any
        instant before this look counts (four array reads; `rings` inline, the same)."""
        st = self._st
        return st[_HEAD] != st[_TAIL] or st[_HEAD + 1] != st[_TAIL + 1]

    def restart(self):
        """Both machines stopped and started again in step with the µs timer, as at the
        start (a new origin): after the chip was dormant (dormant.py), whose clock changes
        moved their count off the timer's. A lever held now is armed once released, so the
        press that woke the chip is no press. Queued presses are discarded. Not while a
        clock runs: a press in the restart would be lost."""
        for sm in self._sms:
            sm.active(0)
            while sm.rx_fifo():
                sm.get()
            sm.restart()
        self.clear()
        self._begin()

    def clear(self):
        """Discard queued presses (e.g. when a menu opens)."""
        st = self._st
        st[_TAIL] = st[_HEAD]
        st[_TAIL + 1] = st[_HEAD + 1]

    def dropped(self):
        """Presses lost because a ring was full, since start-up."""
        return self._st[_DROPPED]

    def pressed(self, side):
        """Raw level: True while lever `side` is held down (not debounced)."""
        return not self._pins[side].value()
