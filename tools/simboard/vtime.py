"""Virtual time with MicroPython's ticks semantics, installed into CPython's `time` module.

MicroPython on the RP2040 wraps `ticks_ms()` and `ticks_us()` at 2**30 (TICKS_PERIOD);
`ticks_diff(a, b)` is the signed difference folded into [-2**29, 2**29) and `ticks_add`
refuses a delta outside (-2**29, 2**29) with OverflowError, exactly as the board does.
Tests start the clock close to the wrap on purpose.
"""

import time

TICKS_PERIOD = 1 << 30
TICKS_MAX = TICKS_PERIOD - 1
TICKS_HALF = TICKS_PERIOD >> 1


def ticks_diff(end, start):
    return ((end - start + TICKS_HALF) & TICKS_MAX) - TICKS_HALF


def ticks_add(ticks, delta):
    if not -TICKS_HALF < delta < TICKS_HALF:
        raise OverflowError("ticks interval overflow")
    return (ticks + delta) & TICKS_MAX


class VirtualTime:
    """A microsecond counter that only moves when told to. `start_us` is the raw
    value of ticks_us() at creation, so tests can place the wrap wherever they like."""

    def __init__(self, start_us=TICKS_PERIOD - 5_000_000):
        self.us = start_us  # unbounded virtual microseconds; ticks are this modulo the period
        # µs the chip's timer stood still while the world's time ran (a dormant chip: its
        # crystal stopped): ticks are the world's time less these
        self.stopped = 0
        self.sleepers = []

    def ticks_us(self):
        return (self.us - self.stopped) & TICKS_MAX

    def ticks_ms(self):
        return ((self.us - self.stopped) // 1000) & TICKS_MAX

    def ticks_cpu(self):
        return self.ticks_us()

    def advance_us(self, delta_us):
        if delta_us < 0:
            raise ValueError("time does not run backwards")
        self.us += delta_us

    def advance_ms(self, delta_ms):
        self.advance_us(delta_ms * 1000)

    def sleep_ms(self, ms):
        self.advance_us(ms * 1000)

    def sleep_us(self, us):
        self.advance_us(us)


current = VirtualTime()


def install(vt=None):
    """Point time.ticks_* (and sleep_ms/us) at `vt` (a fresh VirtualTime by default)."""
    global current
    current = vt if vt is not None else VirtualTime()
    time.ticks_us = current.ticks_us
    time.ticks_ms = current.ticks_ms
    time.ticks_cpu = current.ticks_cpu
    time.ticks_diff = ticks_diff
    time.ticks_add = ticks_add
    time.sleep_ms = current.sleep_ms
    time.sleep_us = current.sleep_us
    return current
