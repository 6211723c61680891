"""battery.py: the level shown and the low-battery warning from VSYS, for both kinds of
cells and every brightness; and the game screen's rule for the warning (the ready screen
blinks it, a game never shows it), through the Ui's keys and buffers.

Runs under CPython and MicroPython (see host_tests/core_cpython/test_micropython_core.py)."""

import sys
import unittest

import battery
import engine as E
import settings
import ui as U
from battery import ALKALINE, HYSTERESIS_MV, NIMH

MICROPYTHON = sys.implementation.name == "micropython"


class TestLevel(unittest.TestCase):
    def test_full_and_empty_at_the_table_ends(self):
        for kind in (ALKALINE, NIMH):
            t = battery.LEVELS[kind]
            self.assertEqual(battery.percent(t[0], kind), 100)
            self.assertEqual(battery.percent(t[0] + 800, kind), 100)  # USB power: 4.7 V
            self.assertEqual(battery.percent(t[-2], kind), 0)
            self.assertEqual(battery.percent(0, kind), 0)
            self.assertEqual(battery.percent(-5, kind), 0)

    def test_the_table_points_themselves(self):
        for kind in (ALKALINE, NIMH):
            t = battery.LEVELS[kind]
            for i in range(0, len(t), 2):
                self.assertEqual(battery.percent(t[i], kind), t[i + 1])

    def test_the_level_never_rises_as_the_voltage_falls(self):
        for kind in (ALKALINE, NIMH):
            last = 100
            for mv in range(4600, 2000, -7):
                p = battery.percent(mv, kind)
                self.assertTrue(0 <= p <= last, (kind, mv, p, last))
                last = p

    def test_an_unknown_kind_reads_as_alkaline(self):
        for mv in (4000, 3500, 3000):
            self.assertEqual(battery.percent(mv, 7), battery.percent(mv, ALKALINE))
            self.assertEqual(battery.low(mv, 7, 2, False), battery.low(mv, ALKALINE, 2, False))

    def test_nimh_reads_lower_than_alkaline_for_the_same_level(self):
        # a NiMH cell's whole curve lies lower: 3.6 V is a charged NiMH set, a used alkaline
        self.assertTrue(battery.percent(3600, NIMH) > battery.percent(3600, ALKALINE))


class TestWarning(unittest.TestCase):
    def test_below_the_threshold_warns_at_and_above_does_not(self):
        for kind in (ALKALINE, NIMH):
            for level in range(8):
                limit = battery.threshold(kind, level)
                self.assertTrue(battery.low(limit - 1, kind, level, False))
                self.assertFalse(battery.low(limit, kind, level, False))

    def test_hysteresis_keeps_a_warning_through_a_wobble(self):
        limit = battery.threshold(ALKALINE, 2)
        self.assertTrue(battery.low(limit + HYSTERESIS_MV - 1, ALKALINE, 2, True))
        self.assertFalse(battery.low(limit + HYSTERESIS_MV, ALKALINE, 2, True))
        self.assertFalse(battery.low(limit + HYSTERESIS_MV - 1, ALKALINE, 2, False))

    def test_a_brighter_display_warns_earlier(self):
        # more current: the same cells hold fewer hours, so 10 h remain at a higher voltage
        for kind in (ALKALINE, NIMH):
            for level in range(7):
                self.assertLessEqual(
                    battery.threshold(kind, level), battery.threshold(kind, level + 1)
                )

    def test_levels_out_of_range_are_clamped(self):
        self.assertEqual(battery.threshold(ALKALINE, -3), battery.threshold(ALKALINE, 0))
        self.assertEqual(battery.threshold(NIMH, 99), battery.threshold(NIMH, 7))

    def test_usb_power_never_warns(self):
        for kind in (ALKALINE, NIMH):
            for level in range(8):
                self.assertFalse(battery.low(4_700, kind, level, True))

    def test_fresh_cells_do_not_warn_at_the_default_brightness(self):
        level = settings.defaults()["brightness"]
        self.assertFalse(battery.low(battery.LEVELS[ALKALINE][0], ALKALINE, level, False))
        self.assertFalse(battery.low(battery.LEVELS[NIMH][0], NIMH, level, False))


class TestGlass(unittest.TestCase):
    """The LCD build's load (battery.GLASS): no brightness, a lighter load than any LED
    brightness, so its warning comes at a lower voltage on the same cells."""

    def test_its_threshold_is_below_every_brightness_and_fresh_cells_do_not_warn(self):
        for kind in (ALKALINE, NIMH):
            glass = battery.threshold(kind, battery.GLASS)
            self.assertTrue(all(glass < battery.threshold(kind, lv) for lv in range(8)), kind)
            self.assertTrue(battery.low(glass - 1, kind, battery.GLASS, False))
            self.assertFalse(battery.low(glass, kind, battery.GLASS, False))
            self.assertTrue(battery.low(glass + HYSTERESIS_MV - 1, kind, battery.GLASS, True))
            self.assertFalse(battery.low(battery.LEVELS[kind][0], kind, battery.GLASS, False))
        self.assertEqual(
            battery.threshold(ALKALINE, 8), battery.threshold(ALKALINE, battery.GLASS)
        )
        self.assertEqual(battery.threshold(ALKALINE, 9), battery.threshold(ALKALINE, 7))

    def test_six_digits_warn_at_the_glass_threshold_four_at_the_brightness(self):
        mv = battery.threshold(ALKALINE, battery.GLASS)  # clear of the LED build's
        self.assertTrue(mv < battery.threshold(ALKALINE, settings.defaults()["brightness"]))
        for digits, low in ((4, True), (6, False)):
            u = U.Ui(settings.defaults(), None, digits)
            u.set_battery(mv)
            self.assertEqual(u.battery_low, low, digits)
            u.set_battery(mv - 1)
            self.assertTrue(u.battery_low, digits)


class TestNoAllocation(unittest.TestCase):
    def test_a_reading_allocates_nothing(self):
        # the shell calls these from a wakeup (ui.Ui.set_battery): no heap
        if not MICROPYTHON:
            return  # heap_lock is a no-op on CPython
        import micropython

        out = 0
        kinds = (ALKALINE, NIMH, 9)  # built before the lock (names, not constants)
        micropython.heap_lock()
        try:
            for mv in (4_750, 4_190, 3_600, 3_429, 3_000, 2_000, 0):
                for kind in kinds:
                    out += battery.percent(mv, kind)
                    for level in (0, 2, 7, 8):
                        out += battery.low(mv, kind, level, True)
                        out += battery.low(mv, kind, level, False)
        finally:
            micropython.heap_unlock()
        self.assertTrue(out > 0)


class TestUiReading(unittest.TestCase):
    """Ui.set_battery: a reading into the level and the warning the screens show, for the
    cells and the brightness set; True only when what they show changed."""

    def setUp(self):
        self.u = U.Ui(settings.defaults())

    def test_fresh_cells_change_nothing(self):
        u = self.u
        self.assertFalse(u.set_battery(4_190))
        self.assertEqual((u.battery_pct, u.battery_low), (100, False))

    def test_low_cells_change_the_level_and_warn(self):
        u = self.u
        mv = battery.threshold(ALKALINE, u.settings["brightness"]) - 1
        self.assertTrue(u.set_battery(mv))
        self.assertEqual(u.battery_pct, battery.percent(mv, ALKALINE))
        self.assertTrue(u.battery_low)
        self.assertFalse(u.set_battery(mv))  # the same reading: nothing to redraw
        u.set_battery(mv + HYSTERESIS_MV - 1)
        self.assertTrue(u.battery_low)  # within the hysteresis the warning stays

    def test_the_kind_and_the_brightness_set_are_used(self):
        u = self.u
        u.settings["battery"] = NIMH
        u.settings["brightness"] = 7
        mv = battery.threshold(NIMH, 7) - 1
        u.set_battery(mv)
        self.assertEqual(u.battery_pct, battery.percent(mv, NIMH))
        self.assertTrue(u.battery_low)

    def test_a_reading_allocates_nothing(self):
        if not MICROPYTHON:
            return  # heap_lock is a no-op on CPython
        import micropython

        u = self.u
        changed = 0
        micropython.heap_lock()
        try:
            for mv in (4_190, 3_000, 3_000, 4_750, 2_000):
                changed += u.set_battery(mv)
        finally:
            micropython.heap_unlock()
        self.assertEqual(changed, 3)


def shown(u, now):
    u.render(now)
    return bytes(u.text[0]), bytes(u.text[1])


class TestGameScreen(unittest.TestCase):
    """The warning on the game screen: the ready screen blinks it every other half second;
    a game in progress (running, paused, flagged) never shows it."""

    def setUp(self):
        self.u = U.Ui(settings.defaults())
        self.u.battery_low = True

    def test_the_ready_screen_blinks_the_warning(self):
        u = self.u
        self.assertEqual(shown(u, 500), (b"bAt ", b" Lo "))
        self.assertNotEqual(shown(u, 0)[0], b"bAt ")  # the times in between
        self.assertEqual(u.next_change(0), 500)  # the loop wakes for the blink

    def test_no_warning_without_low_cells(self):
        u = self.u
        u.battery_low = False
        self.assertNotEqual(shown(u, 500)[0], b"bAt ")
        self.assertEqual(u.next_change(500), -1)  # nothing blinks: no wakeup for it

    def test_a_game_in_progress_never_shows_it(self):
        u = self.u
        g = u.game
        g.press(0, 1_000)  # the game starts
        self.assertEqual(g.state, E.RUNNING)
        for now in range(1_000, 6_000, 250):
            self.assertNotEqual(shown(u, now)[0], b"bAt ")
            self.assertNotEqual(shown(u, now)[1], b" Lo ")
        u.key(U.PLAY, U.SHORT, 6_000)  # paused
        self.assertEqual(g.state, E.PAUSED)
        for now in range(6_000, 9_000, 250):
            self.assertNotEqual(shown(u, now)[0], b"bAt ")

    def test_the_next_game_shows_it_again(self):
        u = self.u
        u.game.press(0, 1_000)
        u.key(U.PLAY, U.SHORT, 2_000)
        u.new_game()
        self.assertEqual(u.game.state, E.READY)
        self.assertEqual(shown(u, 2_500), (b"bAt ", b" Lo "))


if __name__ == "__main__":
    unittest.main()
