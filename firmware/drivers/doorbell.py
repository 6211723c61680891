"""The loop's sleep: a doorbell that GPIO interrupts ring and `select.poll` waits on.

Owns the one thing the main loop blocks in. Hard-IRQ handlers add one to a preallocated
array cell, each source its own: the levers (levers.py) `rung[0]`, the buttons (board.py's
handler, `ring`, which first keeps the edge's `ticks_us()` in `button_us[0]`) `rung[1]`;
`wait(timeout_ms)` returns as soon as a count differs from the one the loop last took
(`take()`, which says which rang, so a lever's wakeup does not poll the buttons), or when
the timeout has passed. It is the mechanism of micropython-async's ThreadSafeFlag without
the scheduler: an `io.IOBase` whose `ioctl(MP_STREAM_POLL)` says "readable" while rung.

Why it sleeps and wakes at once (MicroPython's extmod/modselect.c, non-POSIX ports such as
rp2): `poll.ipoll(t)` polls the registered objects once, then waits in
`mp_event_wait_ms(t - elapsed)`, a WFE that any interrupt ends early (on the rp2 port an
alarm ends it at the timeout), and polls again; it returns when an object is ready or `t` ms
have passed by `ticks_ms`. So the CPU sleeps between events, a GPIO edge ends the sleep
within microseconds, and an edge that comes between the poll and the WFE is not lost (the
interrupt's exit sets the event flag, so the WFE returns at once). `ipoll` allocates only
its result tuple, once.

Streams: `listen(stream)` also ends the sleep while `stream` is readable (the USB serial
port, usbguard.py); a wait that found it readable sets `heard` (its reader clears it), so
the loop knows without polling the stream itself. `mute(stream, True)` takes it out of the
sleep's poll (events 0: select.poll asks it for nothing), `False` puts it back; neither
allocates.

Sleeping until an instant (`wait_until(target_us)`, what the loop uses): the rp2 port's
poll arms its WFE alarm `timeout - elapsed` ms after its first look, to the µs
(mp_wfe_or_timeout: best_effort_wfe_or_timeout(delayed_by_ms(now, ms))), so a poll nothing
interrupts sleeps its whole timeout from whatever phase of a ms it starts at; only
`elapsed` is counted on the ticks_ms grid (the chip test
test_an_undisturbed_poll_sleeps_its_whole_timeout measures both). Handed an `alarm` (a PIO
state machine running alarm_pio.program, board.py), the wait gives it the µs left; its hard
IRQ rings the bell's third cell (`rung[2]`) at that µs, and the sleep ends within the IRQ's
few tens of µs of the instant, never before it. The poll then waits without a timeout: a
timeout's timer would wake the core for nothing, because pico-sdk 2.x fires the timer of a
poll cut short anyway, at its time (best_effort_wfe_or_timeout cancels the alarm but leaves
the hardware timer set: measured on the chip, test_a_poll_cut_short_leaves_its_timer...),
and a poll whose first look straddles a ms boundary ends a ms early. The loop's instants are
at most FEED_MS away (app.py); if the alarm ever failed to ring, the watchdog would reset
the board. Without an alarm (the host's stand-ins) the poll alone ends the sleep 0-1 ms
after the instant, never before it: the µs left rounded up to whole ms, and when the poll
returns early (a straddled first look, or an interrupt that readied nothing), it sleeps
again for what is left.

Contract: `take()` before looking at the sources (lever ring, buttons), so an edge that
comes while the loop works rings again and the next `wait` returns at once.
"""

import io
import select
import time
from array import array

from micropython import const

_MP_STREAM_POLL = const(3)
_ALARM_OVERHEAD = const(6)  # alarm_pio.OVERHEAD_CYCLES: the program's own µs around a count


class Doorbell(io.IOBase):
    def __init__(self, alarm=None):
        # +1 per edge: [0] the levers, [1] the buttons, [2] the alarm (IRQ-owned: only
        # handlers write it)
        self.rung = array("i", (0, 0, 0))
        # [0] the raw ticks_us() of the last edge `ring` heard (a button's, or VBUS's: board.py),
        # read first in its handler (IRQ-owned): the buttons' debounce counts from it, not
        # from the loop's look (never earlier than the change it is used for)
        self.button_us = array("i", (0,))
        self.seen = 0  # rung[0] at the last take() (main-owned)
        self.seen_b = 0  # rung[1] at the last take() (main-owned)
        self.seen_a = 0  # rung[2] when the last alarm was set (main-owned)
        self.heard = False  # a listened stream was readable at the last wait (main-owned)
        self._alarm = alarm  # a state machine running alarm_pio.program, or None
        if alarm is not None:
            alarm.irq(self._alarm_rang, 1, True)
        self._poll = select.poll()
        self._poll.register(self, select.POLLIN)

    def ioctl(self, req, arg):
        """The stream protocol select.poll calls (main context, not an IRQ)."""
        if req == _MP_STREAM_POLL:
            r = self.rung
            if r[0] != self.seen or r[1] != self.seen_b or r[2] != self.seen_a:
                return arg
            return 0
        return -1  # no other request is supported

    # hard-IRQ safe: the time read first, two array stores, no allocation (the buttons'
    # handler, board.py)
    def ring(self, _pin=None):
        self.button_us[0] = time.ticks_us()
        self.rung[1] += 1

    # hard-IRQ safe: one array store, no allocation (the alarm machine's IRQ)
    def _alarm_rang(self, _sm):
        self.rung[2] += 1

    def take(self):
        """Which sources rang since the last take(): bit 0 the levers, bit 1 the buttons (0:
        none); from now on only new edges count."""
        r = self.rung
        bits = 0
        n = r[0]
        if n != self.seen:
            self.seen = n
            bits = 1
        n = r[1]
        if n != self.seen_b:
            self.seen_b = n
            bits |= 2
        return bits

    def listen(self, stream):
        """Also wake while `stream` (a stream with the poll ioctl) is readable."""
        self._poll.register(stream, select.POLLIN)

    def mute(self, stream, muted):
        """Stop (True) or resume (False) waking for a listened `stream`."""
        self._poll.modify(stream, 0 if muted else select.POLLIN)

    def wait(self, timeout_ms):
        """Sleep until the bell rings, a listened stream is readable, or `timeout_ms` (>= 0)
        has passed as select.poll counts it (see the module doc). Returns True when the bell
        or a stream woke it. Allocates nothing (ipoll's result tuple is made once, at the
        first)."""
        woke = False
        for obj, _ev in self._poll.ipoll(timeout_ms):
            woke = True
            if obj is not self:
                self.heard = True
        return woke

    def wait_until(self, target_us):
        """Sleep until the bell rings, a listened stream is readable, or the raw
        `ticks_us()` instant `target_us` (within 2**29 us of now) has passed: with the
        alarm within tens of µs of it, else 0-1 ms after it (see the module doc); never
        before unless woken. At once when a lever or a button rang since the last take().
        Allocates nothing."""
        r = self.rung
        if r[0] != self.seen or r[1] != self.seen_b:
            return  # rang since the loop's take: its wakeup at once, no alarm to set
        left = time.ticks_diff(target_us, time.ticks_us())
        if left <= 0:
            return
        alarm = self._alarm
        if alarm is not None:
            alarm.restart()  # a count still running from a sleep cut short is void
            self.seen_a = self.rung[2]  # and so is a ring it made since
            n = left - _ALARM_OVERHEAD
            alarm.put(n if n > 0 else 0)
            self.wait(-1)  # the alarm is the timer (the module doc says why the poll's is not)
            return
        while left > 0 and not self.wait((left + 999) // 1000):
            left = time.ticks_diff(target_us, time.ticks_us())
