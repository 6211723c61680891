"""timefmt.py: layouts, rounding at every boundary, monotonicity, bad input, no allocation.

Runs under CPython and MicroPython (see host_tests/core_cpython/test_micropython_core.py)."""

import sys
import unittest

import timefmt

MICROPYTHON = sys.implementation.name == "micropython"
H = 3_600_000
MIN = 60_000
S = 1_000


def show(disp):
    """(4 characters, colon) as written in the legend: the colon between digits 1 and 2."""
    chars, colon = disp
    return chars[:2] + ":" + chars[2:] if colon else chars


def down(t, tenths=10):
    return show(timefmt.countdown(t, tenths))


def up(t, tenths=10):
    return show(timefmt.countup(t, tenths))


def shown_ms(text):
    """The time a display stands for, in ms (for ordering displays)."""
    if "h" in text:
        hours, rest = text.split("h")
        if len(rest) == 1:  # HHhM: M is tens of minutes
            return int(hours) * H + int(rest) * 10 * MIN
        return int(hours) * H + int(rest) * MIN
    if text[-1] == " ":  # _S:t_
        return int(text[1]) * S + int(text[3]) * 100
    return int(text[:2].replace(" ", "0")) * MIN + int(text[3:]) * S


class TestCountdownBoundaries(unittest.TestCase):
    def check(self, t, text, colon):
        self.assertEqual(down(t), text, "t=%d" % t)
        self.assertEqual(timefmt.countdown(t)[1], colon)

    def test_zero(self):
        self.check(0, " 0:0 ", 1)

    def test_one_ms_is_a_tenth(self):
        self.check(1, " 0:1 ", 1)

    def test_tenths_round_up(self):
        self.check(100, " 0:1 ", 1)
        self.check(101, " 0:2 ", 1)
        self.check(4210, " 4:3 ", 1)
        self.check(9900, " 9:9 ", 1)

    def test_just_below_ten_seconds_rounds_to_ten_seconds(self):
        self.check(9901, " 0:10", 1)
        self.check(9999, " 0:10", 1)
        self.check(10_000, " 0:10", 1)
        self.check(10_001, " 0:11", 1)

    def test_minutes_seconds(self):
        self.check(5 * MIN + 6_200, " 5:07", 1)
        self.check(59_001, " 1:00", 1)
        self.check(600_000, "10:00", 1)
        self.check(599_999, "10:00", 1)
        self.check(599_000, " 9:59", 1)

    def test_hour_boundary(self):
        self.check(3_599_000, "59:59", 1)
        self.check(3_598_001, "59:59", 1)
        self.check(3_599_001, "1h00", 0)
        self.check(3_600_000, "1h00", 0)
        self.check(3_600_001, "1h01", 0)

    def test_hours_minutes_round_up(self):
        self.check(H + 28 * MIN + 1_000, "1h29", 0)
        self.check(8 * H, "8h00", 0)
        self.check(8 * H - 1, "8h00", 0)
        self.check(8 * H - MIN, "7h59", 0)
        self.check(8 * H + 1, "8h01", 0)

    def test_ten_hours(self):
        self.check(10 * H, "10h0", 0)
        self.check(10 * H - 1, "10h0", 0)  # 9:59:59.999 rounds up to 600 minutes
        self.check(10 * H - MIN, "9h59", 0)
        self.check(10 * H + 35 * MIN, "10h4", 0)
        self.check(10 * H + 30 * MIN, "10h3", 0)
        self.check(10 * H + 1, "10h1", 0)

    def test_large_values_clamp(self):
        self.check(99 * H + 50 * MIN, "99h5", 0)
        self.check(99 * H + 55 * MIN, "99h5", 0)
        self.check(400 * H, "99h5", 0)

    def test_negative_shows_zero(self):
        self.check(-1, " 0:0 ", 1)
        self.check(-10 * H, " 0:0 ", 1)

    def test_never_zero_while_time_left(self):
        for t in (1, 2, 50, 99, 100, 999, 1000):
            self.assertTrue(down(t) != " 0:0 ", "t=%d" % t)


class TestCountup(unittest.TestCase):
    def check(self, t, text, colon):
        self.assertEqual(up(t), text, "t=%d" % t)
        self.assertEqual(timefmt.countup(t)[1], colon)

    def test_rounds_down_with_same_layouts(self):
        self.check(0, " 0:0 ", 1)
        self.check(99, " 0:0 ", 1)
        self.check(4290, " 4:2 ", 1)
        self.check(9999, " 9:9 ", 1)
        self.check(10_000, " 0:10", 1)
        self.check(5 * MIN + 7_900, " 5:07", 1)
        self.check(3_599_999, "59:59", 1)
        self.check(3_600_000, "1h00", 0)
        self.check(H + 28 * MIN + 59_999, "1h28", 0)
        self.check(8 * H, "8h00", 0)
        self.check(10 * H - 1, "9h59", 0)
        self.check(10 * H, "10h0", 0)
        self.check(10 * H + 35 * MIN, "10h3", 0)
        self.check(-5, " 0:0 ", 1)
        self.check(500 * H, "99h5", 0)


class TestTenthsThreshold(unittest.TestCase):
    def test_lower_threshold(self):
        self.assertEqual(down(5_000, 5), " 0:05")
        self.assertEqual(down(4_901, 5), " 0:05")  # rounds up to 5.0 s
        self.assertEqual(down(4_900, 5), " 4:9 ")
        self.assertEqual(up(4_999, 5), " 4:9 ")
        self.assertEqual(up(5_000, 5), " 0:05")

    def test_off(self):
        self.assertEqual(down(0, 0), " 0:00")
        self.assertEqual(down(1, 0), " 0:01")
        self.assertEqual(up(999, 0), " 0:00")

    def test_above_ten_seconds_is_clamped(self):
        self.assertEqual(down(15_000, 60), " 0:15")
        self.assertEqual(down(9_900, 60), " 9:9 ")


class TestMonotonic(unittest.TestCase):
    def sweep(self, fmt, start, stop, step):
        prev = None
        t = start
        while t <= stop:
            v = shown_ms(fmt(t))
            if prev is not None:
                self.assertTrue(v >= prev, "t=%d shows %r" % (t, fmt(t)))
            prev = v
            t += step

    def test_countdown_never_below_the_time_and_never_decreasing(self):
        for start, stop, step in ((0, 12_000, 7), (3_590_000, 3_610_000, 173)):
            self.sweep(down, start, stop, step)
        for t in range(0, 12_000, 13):
            self.assertTrue(shown_ms(down(t)) >= t)

    def test_countup_never_above_the_time_and_never_decreasing(self):
        self.sweep(up, 0, 12_000, 7)
        self.sweep(up, 10 * H - 30 * MIN, 10 * H + 30 * MIN, 9_973)
        for t in range(0, 12_000, 13):
            self.assertTrue(shown_ms(up(t)) <= t)


class TestNextChange(unittest.TestCase):
    """next_change(t, rising, up) is exact: the text stays the same for n - 1 more ms and
    differs after n (the display is monotonic, so equal ends mean equal in between)."""

    def text(self, t, up, tenths):
        return (timefmt.countdown if up else timefmt.countup)(t, tenths)

    def check(self, t, rising, up, tenths=10):
        n = timefmt.next_change(t, rising, up, tenths)
        step = 1 if rising else -1
        here = self.text(t, up, tenths)
        what = "t=%d rising=%s up=%s tenths=%d n=%d" % (t, rising, up, tenths, n)
        if n < 0:
            self.assertEqual(self.text(t + step * 5_000, up, tenths), here, what)
            return
        self.assertTrue(n >= 1, what)
        self.assertEqual(self.text(t + step * (n - 1), up, tenths), here, what)
        self.assertTrue(self.text(t + step * n, up, tenths) != here, what)

    def around(self, points, rising, up, tenths=10):
        for p in points:
            for d in (-101, -100, -99, -2, -1, 0, 1, 2, 99, 100, 101, 499, 500, 501):
                if p + d >= 0:
                    self.check(p + d, rising, up, tenths)

    BOUNDS = (0, 1_000, 4_900, 5_000, 9_900, 10_000, 59_000, 60_000, 600_000, 3_599_000,
              3_600_000, 3_660_000, 10 * H - MIN, 10 * H, 10 * H + 10 * MIN, 12 * H)  # fmt: skip

    def test_falling_countdown(self):
        self.around(self.BOUNDS, False, True)
        self.around((4_900, 5_000, 9_900), False, True, 5)
        self.around((0, 1_000, 60_000), False, True, 0)

    def test_rising_countdown_display(self):
        self.around(self.BOUNDS, True, True)
        self.around((4_900, 5_000, 9_900), True, True, 5)
        self.around((0, 1_000), True, True, 0)

    def test_rising_stopwatch(self):
        self.around(self.BOUNDS, True, False)
        self.around((4_900, 5_000), True, False, 5)
        self.around((0, 1_000), True, False, 0)

    def test_sweep_a_whole_countdown_minute(self):
        # Following the answers from 61 s down to 0 visits every change exactly once.
        t = 61_000
        changes = 0
        while True:
            n = timefmt.next_change(t, False, True)
            if n < 0:
                break
            t -= n
            changes += 1
        self.assertEqual(t, 0)
        self.assertEqual(changes, 51 + 99 + 1)  # 61..10 s, 9.9 .. 0.1 s, then " 0:0 "

    def test_countdown_at_zero_never_changes(self):
        self.assertEqual(timefmt.next_change(0, False, True), -1)
        self.assertEqual(timefmt.next_change(-5, False, True), -1)


class TestNoAllocation(unittest.TestCase):
    def test_into_functions_do_not_allocate(self):
        if not MICROPYTHON:
            return  # heap_lock is a no-op on CPython
        import micropython

        buf = bytearray(4)
        # All below 2**30 ms: larger ints are boxed on MicroPython and allocate anyway.
        times = (0, 1, 9_999, 10_000, 3_599_001, 8 * H, 10 * H + 35 * MIN, -1, 99 * H + 55 * MIN)
        timefmt.countdown_into(buf, 1)
        micropython.heap_lock()
        try:
            for t in times:
                timefmt.countdown_into(buf, t)
                timefmt.countup_into(buf, t)
                timefmt.countdown_into(buf, t, 5)
                timefmt.next_change(t, False, True)
                timefmt.next_change(t, True, True)
                timefmt.next_change(t, True, False)
        finally:
            micropython.heap_unlock()
        self.assertEqual(bytes(buf), b"99h5")


if __name__ == "__main__":
    unittest.main()
