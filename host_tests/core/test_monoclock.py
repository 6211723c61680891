"""MonoClock: the wrap of ticks_us never shows, long moves stay exact, stamps map to one grid."""

import unittest
from array import array
from time import ticks_add

import micropython
from monoclock import MonoClock

PERIOD = 1 << 30
NEAR_WRAP = PERIOD - 3_000_000  # 3 s before the wrap


class MonoClockTest(unittest.TestCase):
    def test_counts_across_the_wrap(self):
        c = MonoClock(NEAR_WRAP)
        t = NEAR_WRAP
        for _ in range(10):
            t = ticks_add(t, 1_000_500)
            c.update(t)
        self.assertEqual(c.ms, 10_005)

    def test_a_two_hour_move_updated_every_10_ms_has_no_drift(self):
        c = MonoClock(NEAR_WRAP)
        t = NEAR_WRAP
        for _ in range(2 * 3600 * 100):
            t = ticks_add(t, 10_000)
            c.update(t)
        self.assertEqual(c.ms, 7_200_000)

    def test_stamps_before_and_after_the_last_update(self):
        c = MonoClock(NEAR_WRAP)
        c.update(ticks_add(NEAR_WRAP, 5_000_700))  # ms = 5000, rem = 700
        at = array("i", (0, 0))
        for stamp, ms in ((5_000_000, 5_000), (4_999_999, 4_999), (5_001_000, 5_001)):
            c.instant(ticks_add(NEAR_WRAP, stamp), at)
            self.assertEqual(at[0], ms)

    def test_a_stamp_keeps_its_us_within_the_ms(self):
        c = MonoClock(NEAR_WRAP)
        c.update(ticks_add(NEAR_WRAP, 5_000_700))  # ms = 5000, rem = 700
        at = array("i", (0, 0))
        for stamp, ms, us in (
            (5_000_000, 5_000, 0),
            (4_999_999, 4_999, 999),
            (5_001_234, 5_001, 234),
            (5_000_701, 5_000, 701),
        ):
            c.instant(ticks_add(NEAR_WRAP, stamp), at)
            self.assertEqual((at[0], at[1]), (ms, us))

    def test_ms_of_is_the_ms_of_the_instant(self):
        c = MonoClock(NEAR_WRAP)
        c.update(ticks_add(NEAR_WRAP, 5_000_700))  # ms = 5000, rem = 700
        at = array("i", (0, 0))
        for stamp in (5_000_000, 4_999_999, 5_001_234, 5_000_701, 4_000_300):
            c.instant(ticks_add(NEAR_WRAP, stamp), at)
            self.assertEqual(c.ms_of(ticks_add(NEAR_WRAP, stamp)), at[0])
        micropython.heap_lock()
        try:
            ms = c.ms_of(ticks_add(NEAR_WRAP, 4_999_999))
        finally:
            micropython.heap_unlock()
        self.assertEqual(ms, 4_999)

    def test_instant_allocates_nothing(self):
        c = MonoClock(NEAR_WRAP)
        c.update(ticks_add(NEAR_WRAP, 5_000_700))
        at = array("i", (0, 0))
        micropython.heap_lock()
        try:
            c.instant(ticks_add(NEAR_WRAP, 4_999_999), at)
            c.instant(ticks_add(NEAR_WRAP, 5_001_234), at)
        finally:
            micropython.heap_unlock()
        self.assertEqual((at[0], at[1]), (5_001, 234))

    def test_an_old_value_does_not_move_the_clock_back(self):
        c = MonoClock(NEAR_WRAP)
        c.update(ticks_add(NEAR_WRAP, 2_000_000))
        c.update(ticks_add(NEAR_WRAP, 1_000_000))
        self.assertEqual(c.ms, 2_000)

    def test_every_start_point_gives_the_same_count(self):
        for start in (0, 1, NEAR_WRAP, PERIOD - 1, PERIOD // 2):
            c = MonoClock(start)
            t = start
            for _ in range(50):
                t = ticks_add(t, 123_457)
                c.update(t)
            self.assertEqual(c.ms, 50 * 123_457 // 1000)
