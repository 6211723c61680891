"""timefmt6.py: the six-digit layouts, rounding at every boundary, monotonicity, the points
the glass has, next_change exact, bad input, no allocation.

Runs under CPython and MicroPython (see host_tests/core_cpython/test_micropython_core.py)."""

import sys
import unittest

import timefmt6

MICROPYTHON = sys.implementation.name == "micropython"
H = 3_600_000
MIN = 60_000
S = 1_000
GLASS = 0x1C  # the LCD glass's dots: after digits 2, 3 and 4


def show(disp):
    """(6 characters, points) as written in the legend: a "." after each digit whose point is
    lit."""
    chars, points = disp
    out = ""
    for i in range(6):
        out += chars[i]
        if (points >> i) & 1:
            out += "."
    return out


def down(t, tenths=10):
    return show(timefmt6.countdown(t, tenths))


def up(t, tenths=10):
    return show(timefmt6.countup(t, tenths))


def shown_ms(text):
    """The time a display stands for, in ms (for ordering displays)."""
    text = text.strip()
    if "h" in text:
        hours, rest = text.split("h")
        if "." not in rest:  # HHhMM
            return int(hours) * H + int(rest) * MIN
        m, s = rest.split(".")
        return int(hours) * H + int(m) * MIN + int(s) * S
    m, s = text.split(".")
    if len(s) == 1:  # S.t
        return int(m) * S + int(s) * 100
    return int(m) * MIN + int(s) * S


class TestCountdownBoundaries(unittest.TestCase):
    def check(self, t, text, points):
        self.assertEqual(down(t), text, "t=%d" % t)
        self.assertEqual(timefmt6.countdown(t)[1], points)

    def test_zero(self):
        self.check(0, "    0.0", 16)

    def test_one_ms_is_a_tenth(self):
        self.check(1, "    0.1", 16)

    def test_tenths_round_up(self):
        self.check(100, "    0.1", 16)
        self.check(101, "    0.2", 16)
        self.check(4210, "    4.3", 16)
        self.check(9900, "    9.9", 16)

    def test_just_below_ten_seconds_rounds_to_ten_seconds(self):
        self.check(9901, "   0.10", 8)
        self.check(10_000, "   0.10", 8)
        self.check(10_001, "   0.11", 8)
        self.check(12_500, "   0.13", 8)

    def test_minutes_seconds(self):
        self.check(5 * MIN + 6_200, "   5.07", 8)
        self.check(59_001, "   1.00", 8)
        self.check(599_999, "  10.00", 8)
        self.check(599_000, "   9.59", 8)

    def test_hour_boundary(self):
        self.check(3_599_000, "  59.59", 8)
        self.check(3_599_001, "1h00.00", 8)
        self.check(3_600_000, "1h00.00", 8)
        self.check(3_600_001, "1h00.01", 8)

    def test_hours_minutes_seconds_round_up(self):
        self.check(H + 28 * MIN + 1_200, "1h28.02", 8)
        self.check(8 * H - 1, "8h00.00", 8)
        self.check(10 * H - S, "9h59.59", 8)

    def test_ten_hours(self):
        self.check(10 * H, " 10h00", 0)
        self.check(10 * H - S + 1, " 10h00", 0)  # 9:59:59.001 rounds up to 10 h
        self.check(10 * H + 1, " 10h01", 0)
        self.check(10 * H + 35 * MIN + 100, " 10h36", 0)
        self.check(24 * H, " 24h00", 0)  # the arbiter's largest time

    def test_large_values_clamp(self):
        self.check(99 * H + 59 * MIN, " 99h59", 0)
        self.check(400 * H, " 99h59", 0)

    def test_negative_shows_zero(self):
        self.check(-1, "    0.0", 16)
        self.check(-10 * H, "    0.0", 16)

    def test_never_zero_while_time_left(self):
        for t in (1, 2, 50, 99, 100, 999, 1000):
            self.assertTrue(down(t) != "    0.0", "t=%d" % t)


class TestCountup(unittest.TestCase):
    def check(self, t, text, points):
        self.assertEqual(up(t), text, "t=%d" % t)
        self.assertEqual(timefmt6.countup(t)[1], points)

    def test_rounds_down_with_same_layouts(self):
        self.check(0, "    0.0", 16)
        self.check(99, "    0.0", 16)
        self.check(4290, "    4.2", 16)
        self.check(9999, "    9.9", 16)
        self.check(10_000, "   0.10", 8)
        self.check(5 * MIN + 7_900, "   5.07", 8)
        self.check(3_599_999, "  59.59", 8)
        self.check(3_600_000, "1h00.00", 8)
        self.check(H + 28 * MIN + 1_900, "1h28.01", 8)
        self.check(10 * H - 1, "9h59.59", 8)
        self.check(10 * H, " 10h00", 0)
        self.check(10 * H + 35 * MIN + 59_999, " 10h35", 0)
        self.check(-5, "    0.0", 16)
        self.check(500 * H, " 99h59", 0)


class TestTenthsThreshold(unittest.TestCase):
    def test_lower_threshold(self):
        self.assertEqual(down(5_000, 5), "   0.05")
        self.assertEqual(down(4_901, 5), "   0.05")  # rounds up to 5.0 s
        self.assertEqual(down(4_900, 5), "    4.9")
        self.assertEqual(up(4_999, 5), "    4.9")
        self.assertEqual(up(5_000, 5), "   0.05")

    def test_off(self):
        self.assertEqual(down(0, 0), "   0.00")
        self.assertEqual(down(1, 0), "   0.01")
        self.assertEqual(up(999, 0), "   0.00")
        self.assertEqual(down(0, -3), "   0.00")

    def test_above_ten_seconds_is_clamped(self):
        self.assertEqual(down(15_000, 60), "   0.15")
        self.assertEqual(down(9_900, 60), "    9.9")


class TestGlass(unittest.TestCase):
    """Only the points the glass has, only characters it can draw, and the seconds stay in
    digits 4 and 5 below 10 h."""

    def test_points_and_characters(self):
        import segments

        out = bytearray(6)
        for t in (0, 1, 999, 9_999, 10_000, 61_000, 599_999, 3_600_000, 9 * H, 10 * H, 99 * H):
            for fmt in (timefmt6.countdown, timefmt6.countup):
                for tenths in (0, 5, 10):
                    chars, points = fmt(t, tenths)
                    self.assertEqual(len(chars), 6)
                    self.assertEqual(points & ~GLASS, 0, (t, chars))
                    self.assertEqual(segments.encode_points(out, chars, points), 0, chars)

    def test_seconds_stay_put(self):
        for t in (10_000, 61_000, 3_599_000, 3_600_000, 9 * H + 59 * MIN):
            chars, points = timefmt6.countdown(t)
            self.assertEqual(points, 8, t)
            self.assertEqual(int(chars[4:]), t // S % 60, t)


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
        self.sweep(down, 10 * H - 2 * MIN, 10 * H + 2 * MIN, 997)
        for t in range(0, 12_000, 13):
            self.assertTrue(shown_ms(down(t)) >= t)
        for t in range(10 * H - 5_000, 10 * H + 5_000, 111):
            self.assertTrue(shown_ms(down(t)) >= t)

    def test_countup_never_above_the_time_and_never_decreasing(self):
        self.sweep(up, 0, 12_000, 7)
        self.sweep(up, 10 * H - 30 * MIN, 10 * H + 30 * MIN, 9_973)
        for t in range(0, 12_000, 13):
            self.assertTrue(shown_ms(up(t)) <= t)
        for t in range(10 * H - 5_000, 10 * H + 5_000, 111):
            self.assertTrue(shown_ms(up(t)) <= t)


class TestNextChange(unittest.TestCase):
    """next_change(t, rising, up) is exact: the text stays the same for n - 1 more ms and
    differs after n (the display is monotonic, so equal ends mean equal in between)."""

    def text(self, t, up, tenths):
        return (timefmt6.countdown if up else timefmt6.countup)(t, tenths)

    def check(self, t, rising, up, tenths=10):
        n = timefmt6.next_change(t, rising, up, tenths)
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
              3_600_000, 3_660_000, 10 * H - S, 10 * H - MIN, 10 * H, 10 * H + 10 * MIN,
              12 * H)  # fmt: skip

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

    def test_falling_stopwatch_answers_a_safe_1(self):
        self.assertEqual(timefmt6.next_change(5_000, False, False), 1)

    def test_sweep_a_whole_countdown_minute(self):
        # Following the answers from 61 s down to 0 visits every change exactly once.
        t = 61_000
        changes = 0
        while True:
            n = timefmt6.next_change(t, False, True)
            if n < 0:
                break
            t -= n
            changes += 1
        self.assertEqual(t, 0)
        self.assertEqual(changes, 51 + 99 + 1)  # 61..10 s, 9.9 .. 0.1 s, then "    0.0"

    def test_sweep_across_ten_hours(self):
        # 10:02:00 down to 9:58:00: 2 minutes, then a second at a time.
        t = 10 * H + 2 * MIN
        changes = 0
        while t > 10 * H - 2 * MIN:
            t -= timefmt6.next_change(t, False, True)
            changes += 1
        self.assertEqual(t, 10 * H - 2 * MIN)
        # 10h01, 10h00, then 9h59.59 (at 9:59:59) and each second down to 9h58.00
        self.assertEqual(changes, 2 + 1 + 119)

    def test_countdown_at_zero_never_changes(self):
        self.assertEqual(timefmt6.next_change(0, False, True), -1)
        self.assertEqual(timefmt6.next_change(-5, False, True), -1)


class TestNoAllocation(unittest.TestCase):
    def test_into_functions_do_not_allocate(self):
        if not MICROPYTHON:
            return  # heap_lock is a no-op on CPython
        import micropython

        buf = bytearray(6)
        # All below 2**30 ms: larger ints are boxed on MicroPython and allocate anyway.
        times = (0, 1, 9_999, 10_000, 3_599_001, 8 * H, 10 * H + 35 * MIN, -1, 99 * H + 59 * MIN)
        timefmt6.countdown_into(buf, 1)
        micropython.heap_lock()
        try:
            for t in times:
                timefmt6.countdown_into(buf, t)
                timefmt6.countup_into(buf, t)
                timefmt6.countdown_into(buf, t, 5)
                timefmt6.next_change(t, False, True)
                timefmt6.next_change(t, True, True)
                timefmt6.next_change(t, True, False)
        finally:
            micropython.heap_unlock()
        self.assertEqual(bytes(buf), b" 99h59")


if __name__ == "__main__":
    unittest.main()
