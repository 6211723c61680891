"""CPython stand-in for MicroPython's `select.poll` as the rp2 port runs it, on virtual time.

MicroPython (extmod/modselect.c, ports without POSIX poll): `ipoll(timeout_ms)` polls each
registered object once through its stream `ioctl(MP_STREAM_POLL, events)`, returns if one is
ready or `ticks_ms() - start >= timeout`, else sleeps in a WFE that any interrupt ends early
(or an alarm at the timeout) and polls again. Here the sleep is virtual: time advances to
the next timer or host event of the fake `machine` (whose pin edges run the IRQ handlers,
which may ring a doorbell) or to the timeout, whichever is first. Elapsed time is counted
on the `ticks_ms` grid as on the board, so a timeout may end up to 1 ms early in µs.
`ipoll` returns the poll object, which iterates over (obj, revents) of the objects found
ready, as modselect.c's poll_iternext does; `modify(obj, 0)` leaves an object registered
but asks it for nothing. Before each sleep the fake `micropython.handle_pending()` runs, as
mp_event_wait_ms does (mp_handle_pending): a KeyboardInterrupt that a host's Ctrl-C left
pending while the loop slept is raised in the next Python the poll calls (an ioctl) or
there.

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
        if timeout is None or timeout < 0:
            end_us = None
        else:
            end_us = (vt.us // 1000 + timeout) * 1000  # ticks_ms() - start >= timeout
        while True:
            if self._ready():
                return self
            if end_us is not None and vt.us >= end_us:
                return self
            micropython.handle_pending()
            events = machine._board.events
            due = min(e[0] for e in events) if events else None
            if end_us is not None and (due is None or due > end_us):
                due = end_us
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
