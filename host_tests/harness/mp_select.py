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
interrupting the core) or to the alarm, whichever is first, running every event due on the
way. `ipoll` returns the poll object, which iterates over (obj, revents) of the objects
found ready, as modselect.c's poll_iternext does; `modify(obj, 0)` leaves an object
registered but asks it for nothing.

The harness installs this module as `select` only while it imports firmware/doorbell.py
(harness/firmware.py); CPython's own `select` stays in place for everything else.
"""

import machine
import micropython

from harness import vtime

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
            alarm = vt.us + (timeout - elapsed) * 1000 if has_timeout else None
            due = machine.next_wake(alarm)
            if due is None:
                due = alarm
            if due is None:
                raise Deadlock("ipoll() would sleep forever")
            machine.advance(max(0, due - vt.us))

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


def poll():
    return _Poll()
