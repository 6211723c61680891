"""The shell's monotonic millisecond clock, extended from the wrapping `ticks_us()` counter.

`ticks_us()` wraps every 2**30 us (about 17.9 minutes) and `ticks_diff` is only valid within
half of that, while a player may think for hours. The loop calls `update(ticks_us())` often
(every tick, at least once every few minutes even when idle), so no single `ticks_diff` spans
more than a fraction of the period; the count is kept as whole ms plus a us remainder, so it
never drifts, and stays a small int for 12 days of uptime.

Lever stamps taken in an interrupt are converted with `instant(stamp_us, out)`: it writes the
ms of the stamp on the same grid (floor) to `out[0]` and its us within that ms (0..999) to
`out[1]` (`out`: a preallocated int array of the caller's; the pair needs no tuple, and the
call runs per press under the heap lock), so the pair is the stamp's exact instant on the
monotonic clock: the interval between two stamps is exact to the us (the engine charges moves
with it, engine.py), however many wraps and updates lie between them. A stamp slightly before
the last update (taken in an IRQ just before the loop read the clock) maps correctly too.

Allocation-free: `update` and `instant` only do small-int arithmetic (hard-IRQ safe too, though
the firmware only calls them from the loop) while `ms` stays below 2**30 (12.4 days). The
shell re-bases the count (`rebase`) when it has passed REBASE_MS and no game holds an
instant in it, so a clock powered for weeks keeps small ints (and the engine's int32
arrays never overflow at 24.8 days).
"""

from time import ticks_add, ticks_diff

from micropython import const

REBASE_MS = const(1 << 29)  # 6.2 days: past this the shell re-bases when it safely can


class MonoClock:
    def __init__(self, now_us):
        self._last_us = now_us  # raw ticks_us at the last update
        self.rem_us = 0  # 0..999: the us past `ms` at the last update (not counted in it)
        self.ms = 0  # monotonic ms since construction

    def update(self, now_us):
        """Advance to the raw tick value `now_us`; returns the monotonic ms. A value from
        the past (a stamp read before the last update) does not move the clock back."""
        d = ticks_diff(now_us, self._last_us)
        if d > 0:
            self._last_us = now_us
            total = self.rem_us + d
            self.ms += total // 1000
            self.rem_us = total % 1000
        return self.ms

    def ticks_at(self, ms):
        """The raw ticks_us at which the count reaches `ms` (at most 2**29 us after the last
        update): where the loop's sleep ends. An `ms` the count has reached gives the last
        update's own instant (a sleep that ends at once), however far back. Allocation-free."""
        d = ms - self.ms
        if d <= 0:
            return self._last_us
        return ticks_add(self._last_us, d * 1000 - self.rem_us)

    def rebase(self):
        """Count from 0 again (the us remainder and the tick reference stay, so no time is
        lost). Only the caller knows that no stored instant refers to the old count."""
        self.ms = 0

    def ms_of(self, stamp_us):
        """The monotonic ms (rounded down) of a raw stamp within half a tick period of the
        last update (a button edge's, doorbell.py). Allocation-free."""
        return self.ms + (self.rem_us + ticks_diff(stamp_us, self._last_us)) // 1000

    def instant(self, stamp_us, out):
        """The exact instant of a raw stamp within half a tick period of the last update:
        its monotonic ms (rounded down) to `out[0]`, its us within that ms (0..999) to
        `out[1]` (`out`: an int array of two cells, the caller's)."""
        total = self.rem_us + ticks_diff(stamp_us, self._last_us)
        out[0] = self.ms + total // 1000
        out[1] = total % 1000
