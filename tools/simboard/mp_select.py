"""CPython stand-in for MicroPython's `select.poll` as the rp2 port runs it, on virtual time.

MicroPython 1.27 (extmod/modselect.c `poll_set_poll_until_ready_or_timeout`, ports without
POSIX poll; py/scheduler.c `mp_event_wait_ms`; ports/rp2 `MICROPY_INTERNAL_WFE` and
`mp_wfe_or_timeout`), step for step: `ipoll(timeout_ms)` reads `ticks_ms()` as its start,
then loops: poll each registered object once through its stream `ioctl(MP_STREAM_POLL,
events)`; `elapsed = ticks_ms() - start`; return if one is ready or `elapsed >= timeout`;
else handle pending events (`micropython.handle_pending()`: a KeyboardInterrupt that a
host's Ctrl-C left pending is raised here or in the next Python the poll calls, an ioctl)
and sleep in a WFE until an interrupt or an alarm `timeout - elapsed` ms from now, to the
µs (best_effort_wfe_or_timeout(delayed_by_ms(get_absolute_time(), ms))). So a poll nothing
interrupts sleeps its whole timeout from whatever phase of a ms it starts at; one whose first
look straddles a ms boundary (elapsed already 1: the ioctls take time when the cost model
charges the firmware's Python) ends up to 1 ms sooner; after an interrupt that readies
nothing the rest is counted from the grid again. The chip test
test_an_undisturbed_poll_sleeps_its_whole_timeout measures the same on the emulated RP2040.

Here the WFE is virtual: time advances to the first event of the fake `machine` that ends
a WFE (`machine.next_wake()`: pin edges, whose IRQ handlers may ring a doorbell, timers, the
USB host, the harness's stop; not a PIO state machine's steps, which run on without
interrupting the core unless one raises an interrupt, which ends it there) or to the alarm,
whichever is first, running every event due on the way. The timer behind a WFE's timeout
is pico-sdk's, which still fires after a poll that ended early (`_arm_sdk_timer`), so a
later sleep may be woken by it for nothing and poll again, as on the chip. A poll without a
timeout is a bare WFE: only an interrupt ends it. `ipoll` returns the poll object, which
iterates over (obj, revents) of the objects found ready, as modselect.c's poll_iternext
does; `modify(obj, 0)` leaves an object registered but asks it for nothing.

The harness installs this module as `select` only while it imports firmware/drivers/doorbell.py
(simboard/firmware.py); CPython's own `select` stays in place for everything else.
"""

import machine
import micropython

from simboard import vtime

POLLIN = 1
POLLOUT = 4
POLLERR = 8
POLLHUP = 16
_MP_STREAM_POLL = 3


class Deadlock(Exception):
    """ipoll() without a timeout and nothing scheduled: the board would sleep forever."""


class _Poll:
    def __init__(self):
        self._objs = {}
        self._ready_list = []  # (obj, revents) found ready by the last ipoll

    def register(self, obj, events=POLLIN | POLLOUT):
        self._objs[id(obj)] = (obj, events)

    def unregister(self, obj):
        self._objs.pop(id(obj), None)

    def modify(self, obj, events):
        if id(obj) not in self._objs:
            raise OSError(2)
        self._objs[id(obj)] = (obj, events)

    def _ready(self):
        ready = []
        for obj, events in list(self._objs.values()):
            ret = obj.ioctl(_MP_STREAM_POLL, events)
            if ret == -1:
                raise OSError(22)
            if ret:
                ready.append((obj, ret))
        self._ready_list = ready
        return len(ready)

    def ipoll(self, timeout=-1, flags=0):
        vt = vtime.current
        has_timeout = timeout is not None and timeout >= 0
        start_ms = vt.us // 1000  # mp_hal_ticks_ms()
        while True:
            n = self._ready()
            elapsed = vt.us // 1000 - start_ms
            if n or (has_timeout and elapsed >= timeout):
                return self
            micropython.handle_pending()
            alarm = None
            if has_timeout:
                alarm = vt.us + (timeout - elapsed) * 1000
                _arm_sdk_timer(alarm)
            due = machine.next_wake(alarm)
            if due is None:
                due = alarm
            while due is None:  # no timeout (mp_event_wait_indefinite): a bare WFE
                nxt = machine.next_event()
                if nxt is None:
                    raise Deadlock("ipoll() would sleep forever")
                if machine.advance(max(0, nxt - vt.us), until_interrupt=True):
                    break  # an interrupt (a PIO's IRQ): the WFE ends
                due = machine.next_wake()
            else:
                machine.advance(max(0, due - vt.us), until_interrupt=True)

    def __iter__(self):
        ready, self._ready_list = self._ready_list, []
        return iter(ready)

    def poll(self, timeout=-1):
        self.ipoll(timeout)
        return [
            (obj, obj.ioctl(_MP_STREAM_POLL, ev))
            for obj, ev in self._objs.values()
            if obj.ioctl(_MP_STREAM_POLL, ev)
        ]


def _arm_sdk_timer(at_us):
    """best_effort_wfe_or_timeout (pico-sdk 2.x, pico_time/time.c): the WFE's timeout is an
    alarm of the default alarm pool, armed only when the pool's timer does not already fire
    at or before it; it is cancelled when the wait ends, but the timer still fires at the
    time it was set to (the SDK's own comment: the IRQ handler never moves its wakeup later,
    it wakes once more), an interrupt that ends whatever WFE is running then. Modelled as an
    event that ends a WFE, at the earliest time the timer was set to and has not reached."""
    board = machine._board
    entry = getattr(board, "sdk_timer", None)
    now = vtime.current.us
    if entry is not None and entry in board.events and now < entry[0] <= at_us:
        return  # it already fires in time: a plain WFE
    if entry is not None and entry in board.events:
        board.events.remove(entry)  # set earlier: the later time is gone (it was cancelled)

    def fired():
        board.sdk_timer = None

    board.sdk_timer = machine._schedule(at_us, fired, True, True)


def poll():
    return _Poll()
