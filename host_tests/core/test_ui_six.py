"""The UI on six digits (the LCD build: `ui.Ui(settings, game, 6)`): every screen drawn with
characters the glass can draw and only the dots it has (after digits 2, 3 and 4), the same
screens and words as on four digits, the six-digit layouts where they are used (times,
numbers, the version), the battery symbol, and a running clock's frames without allocation.

A tour drives a width-4 and a width-6 Ui alike through every screen and checks each render
of both: the width-4 one keeps its colon (`colon` = `points >> 1`, no icons), the width-6 one
the glass's rules, and both show the same letters.

Runs under CPython and MicroPython (see host_tests/core_cpython/test_micropython_core.py)."""

import sys
import unittest

import engine as E
import material
import presets
import segments
import settings
import ui as U
from timecontrol import MODE_BYOYOMI, MODE_CANADIAN, from_seconds

MICROPYTHON = sys.implementation.name == "micropython"
GLASS = 0x1C  # the LCD glass's dots: after digits 2, 3 and 4
COLON = 0x02  # the TM1637 module's colon: after digit 1
T0 = 500_000
BLITZ = {"preset": 7}  # 5+0
FIDE = {"preset": 0}
HOURGLASS = {"preset": 15}
STOPWATCH = {"preset": 16}
ARMAGEDDON = {"preset": 19}


def make(digits, control=None):
    u = U.Ui(settings.defaults(), None, digits)
    u.battery_pct = 87  # (100 % has a letter less on 4 digits: `b100`)
    if control is not None:
        u.settings["control"] = control
        u.new_game()
    return u


def letters(text):
    return bytes(c for c in text if 65 <= c <= 90 or 97 <= c <= 122)


def check_six(test, u, what=""):
    """One width-6 render: six digits each, every character drawable, only the glass's
    dots, the battery symbol on the left display only."""
    for side in (0, 1):
        text = bytes(u.text[side])
        points = u.points[side]
        test.assertEqual(len(text), 6, what)
        test.assertEqual(points & ~GLASS, 0, (what, text, points))
        test.assertEqual(segments.encode_points(bytearray(6), text, points), 0, (what, text))
    test.assertEqual(u.icons[0] & ~7, 0, what)
    test.assertEqual(u.icons[1], 0, what)
    test.assertEqual((u.colon[0], u.colon[1]), (0, 0), what)  # no colon on the glass


def check_four(test, u, what=""):
    """One width-4 render: the LED build's buffers, the colon kept as it was."""
    for side in (0, 1):
        test.assertEqual(len(u.text[side]), 4, what)
        test.assertEqual(u.points[side] & ~COLON, 0, what)
        test.assertEqual(u.colon[side], u.points[side] >> 1, what)
        test.assertEqual(segments.encode_points(bytearray(4), bytes(u.text[side])), 0, what)
    test.assertEqual((u.icons[0], u.icons[1]), (0, 0), what)


class Tour:
    """A width-4 and a width-6 Ui driven alike; `render` checks both."""

    def __init__(self, test, control=None):
        self.test = test
        self.u = (make(4, control), make(6, control))
        self.seen = set()
        self.renders = 0

    def key(self, button, kind=U.SHORT, now=T0):
        return [u.key(button, kind, now) for u in self.u][1]

    def game(self, name, *args):
        """Game.`name`(*args) on both."""
        return [getattr(u.game, name)(*args) for u in self.u][1]

    def set(self, name, value):
        for u in self.u:
            setattr(u, name, value)

    def render(self, now=T0):
        u4, u6 = self.u
        u4.render(now)
        u6.render(now)
        what = "screen %d at %d: %r %r" % (
            u6.screen,
            now,
            bytes(u6.text[0]),
            bytes(u6.text[1]),
        )
        t = self.test
        t.assertEqual(u4.screen, u6.screen, what)
        check_four(t, u4, what)
        check_six(t, u6, what)
        for side in (0, 1):
            w4 = bytes(u4.text[side])
            w6 = bytes(u6.text[side])
            t.assertEqual(letters(w4), letters(w6), (what, w4))
            if not any(48 <= c <= 57 for c in w4):  # a label: digits 1..4 of six
                t.assertEqual(w6, b" " + w4 + b" ", what)
        self.seen.add(u6.screen)
        self.renders += 1
        return bytes(u6.text[0]), bytes(u6.text[1])

    def walk(self, n, button=U.PLUS, now=T0):
        for _ in range(n):
            self.render(now)
            self.key(button, U.SHORT, now)
        self.render(now)


class TourEveryScreen(unittest.TestCase):
    def test_ready_info_battery_chooser_editor_settings(self):
        tr = Tour(self)
        for now in (T0, T0 + 499, T0 + 500):
            tr.render(now)
        tr.walk(3)  # the info pages and back
        tr.key(U.MINUS)
        tr.walk(3, U.MINUS)
        tr.set("battery_low", True)
        for now in (T0, T0 + 500, T0 + 1_000):
            tr.render(now)
        tr.set("battery_low", False)
        tr.key(U.SET)  # the chooser
        tr.walk(presets.COUNT + 1)
        tr.key(U.SET)  # the editor, from the entry shown
        for _ in range(3):  # every field, each changed once
            for _ in range(40):
                tr.render()
                tr.key(U.PLUS)
                tr.render()
                tr.key(U.SET)
        tr.key(U.PLAY)  # start: the control is kept
        self.assertEqual(len(tr.u[1].settings["kept"]), 1)
        tr.render()
        tr.key(U.SET)  # the chooser, with the kept control
        kept = 0
        for _ in range(presets.COUNT + 2):
            kept += tr.render()[0] == b" CUS1 "
            tr.key(U.PLUS)
        self.assertEqual(kept, 1)
        tr.key(U.SET, U.LONG)
        tr.key(U.SET, U.LONG)  # settings
        for _item in range(8):
            tr.walk(10)
            tr.key(U.SET)
        tr.key(U.SET, U.LONG)
        tr.render()
        for x in tr.u:
            x.show_message(b"LOG ", b"Err ", T0)
        tr.render()
        for x in tr.u:
            x.offer_resume(None)
        tr.walk(2)
        self.assertTrue(
            {U.S_GAME, U.S_CHOOSE, U.S_CUSTOM, U.S_SETTINGS, U.S_MESSAGE, U.S_RESUME} <= tr.seen
        )

    def test_blitz_running_paused_arbiter_flag_material_result(self):
        tr = Tour(self, BLITZ)
        tr.render()
        tr.game("press", 1, T0)  # the left runs
        for d in range(0, 3_000, 97):
            tr.render(T0 + d)
        tr.key(U.PLAY, U.SHORT, T0 + 3_000)  # pause
        tr.render(T0 + 3_000)
        tr.render(T0 + 3_500)
        tr.walk(3, U.PLUS, T0 + 3_600)  # the info pages while paused
        tr.key(U.SET, U.LONG, T0 + 4_000)  # the arbiter
        for _ in range(17):
            tr.render()
            tr.key(U.PLUS)
            tr.render()
            tr.key(U.MINUS)
            tr.key(U.MINUS)
            tr.render()
            tr.key(U.PLUS)
            tr.key(U.SET)
        tr.key(U.SET, U.LONG)  # cancel
        tr.key(U.PLAY, U.SHORT, T0 + 5_000)  # resume
        flag = T0 + 5_000 + tr.u[1].game.remaining(0, T0 + 5_000)
        for d in (-10_001, -10_000, -9_999, -5_000, -101, -100, -1, 0):
            tr.game("tick", flag + d)
            tr.render(flag + d)
        tr.game("tick", flag + 1)
        self.assertEqual(tr.u[1].game.state, E.FLAGGED)
        for d in (1, 500, 1_000):
            tr.render(flag + d)
        tr.walk(3, U.PLUS, flag + 1_001)
        tr.key(U.SET, U.SHORT, flag + 2_000)  # the material entry
        tr.walk(material.N_CHOICES + 2)  # every choice, then on a lone knight
        tr.key(U.PLAY)  # its question
        self.assertTrue(tr.u[1].current.asking)
        tr.walk(2)  # yes, no
        tr.key(U.PLAY)  # the result
        tr.render()
        tr.key(U.PLAY)  # confirmed: finished
        for d in (0, 2_000, 4_000):
            tr.render(T0 + d)
        self.assertEqual(tr.u[1].game.state, E.FINISHED)
        self.assertTrue({U.S_GAME, U.S_ARBITER, U.S_MATERIAL} <= tr.seen)

    def run_game(self, control, until, step, presses=0):
        tr = Tour(self, control)
        tr.render()
        tr.game("press", 1, T0)
        now = T0
        n = 0
        while now < T0 + until:
            now += step
            n += 1
            tr.game("tick", now)
            if presses and n % presses == 0 and tr.u[1].game.state == E.RUNNING:
                tr.game("press", tr.u[1].game.running, now)
            tr.render(now)
        return tr

    def test_hours_minutes_seconds(self):
        self.run_game(FIDE, 20_000, 733)
        self.run_game({"preset": 14}, 5_000, 211)  # G/60

    def test_overtime_counters(self):
        byo = from_seconds(MODE_BYOYOMI, [[0, 0, 0, 0]], overtime=[9, 12])
        can = from_seconds(MODE_CANADIAN, [[0, 0, 0, 0]], overtime=[2, 30])
        for control in (byo, can):
            tr = Tour(self)
            for u in tr.u:
                u.new_game(control)
            tr.game("press", 1, T0)
            seen = set()
            for n in range(1, 400):
                now = T0 + 97 * n
                tr.game("tick", now)
                if n % 37 == 0:
                    tr.game("press", tr.u[1].game.running, now)
                seen.add(tr.render(now)[0][:2])
            self.assertTrue(b"bY" in seen or b"c " in seen, seen)

    def test_hourglass_stopwatch_armageddon_prompt(self):
        self.run_game(HOURGLASS, 70_000, 1_013, 7)
        self.run_game(STOPWATCH, 15_000, 307)
        tr = Tour(self, ARMAGEDDON)
        tr.game("press", 0, T0)  # White's side: refused, the prompt
        for d in (1, 999, 1_000, 2_000):
            tr.render(T0 + d)
        self.assertEqual(tr.u[1].game.state, E.READY)


def version_of(v):
    """ui_info's (4 digits, points at width 6) of the version string `v`: the module imported
    afresh with version.VERSION = v (the original module is put back afterwards)."""
    ver = __import__("version")
    original_module = sys.modules.get("ui_info")
    original_version = ver.VERSION
    try:
        sys.modules.pop("ui_info", None)
        ver.VERSION = v
        m = __import__("ui_info")
        return m._VERSION, m._VERSION_POINTS
    finally:
        ver.VERSION = original_version
        if original_module is None:
            sys.modules.pop("ui_info", None)
        else:
            sys.modules["ui_info"] = original_module


class SixDigitScreens(unittest.TestCase):
    """What the LCD build shows, screen by screen (docs/manual.md's legend)."""

    def shown(self, u, now=T0):
        u.render(now)
        return bytes(u.text[0]), bytes(u.text[1]), u.points[0], u.points[1]

    def side(self, s, u, now=T0):
        u.render(now)
        return bytes(u.text[s]), u.points[s]

    def test_ready_times_with_seconds(self):
        u = make(6)
        self.assertEqual(self.shown(u), (b"1h3000", b"1h3000", 8, 8))
        self.assertEqual(self.shown(make(6, BLITZ)), (b"   500", b"   500", 8, 8))

    def test_the_running_sides_dots_stand_still(self):
        """No beat on six digits: the seconds always show the clock running; the next
        change is the seconds' (or the LED's flash, ui_game._pulse)."""
        u = make(6, BLITZ)
        u.game.press(1, T0)  # the left runs: 5:00 falling
        self.assertEqual(self.shown(u, T0 + 200), (b"   500", b"   500", 8, 8))
        self.assertEqual(u.next_change(T0 + 200), T0 + 1_000)
        self.assertEqual(self.shown(u, T0 + 600), (b"   500", b"   500", 8, 8))
        self.assertEqual(self.shown(u, T0 + 1_000), (b"   459", b"   500", 8, 8))
        self.assertEqual(u.next_change(T0 + 1_000), T0 + 2_000)
        self.assertEqual(self.shown(u, T0 + 61_000), (b"   359", b"   500", 8, 8))

    def test_tenths_move_the_dot_one_digit_right(self):
        u = make(6, BLITZ)
        g = u.game
        g.press(1, T0)
        flag = T0 + 300_000
        self.assertEqual(self.shown(u, flag - 10_000), (b"   010", b"   500", 8, 8))
        self.assertEqual(self.side(0, u, flag - 9_901), (b"   010", 8))
        self.assertEqual(self.side(0, u, flag - 9_900), (b"    99", 16))
        self.assertEqual(self.side(0, u, flag - 1), (b"    01", 16))

    def test_a_fallen_flag_blinks_in_the_middle_digits(self):
        u = make(6, BLITZ)
        g = u.game
        g.press(1, T0)
        g.tick(T0 + 300_001)
        self.assertEqual(g.state, E.FLAGGED)
        self.assertEqual(self.side(0, u, T0 + 300_500), (b" FLAG ", 0))
        self.assertEqual(self.side(0, u, T0 + 301_000), (b"    00", 16))

    def test_labels_in_the_middle_values_to_the_right(self):
        u = make(6)
        u.key(U.SET, U.SHORT, T0)  # the chooser, on FIdE
        self.assertEqual(self.shown(u), (b" FIdE ", b"1h3000", 0, 8))
        u.key(U.SET, U.SHORT, T0)  # the editor: period 1's minutes
        self.assertEqual(self.shown(u), (b" t1 n ", b"1h3000", 0, 8))
        u.key(U.MINUS, U.SHORT, T0)
        u.key(U.SET, U.SHORT, T0)  # its seconds: 89 min shows its seconds
        u.key(U.MINUS, U.SHORT, T0)
        self.assertEqual(self.shown(u), (b" t1 S ", b"1h2859", 0, 8))
        u.key(U.SET, U.SHORT, T0)
        self.assertEqual(self.shown(u), (b" 1 n  ", b"    40", 0, 0))
        u.key(U.SET, U.SHORT, T0)
        self.assertEqual(self.shown(u), (b" 1 b  ", b" Inc  ", 0, 0))

    def test_the_custom_editor_names_the_side_in_the_middle(self):
        u = make(6)
        u.key(U.SET, U.SHORT, T0)
        u.key(U.SET, U.SHORT, T0)
        ed = u.current
        ed.odds = True
        self.assertEqual(self.shown(u)[0], b" t1Ln ")

    def test_the_arbiters_time_in_hours_minutes_seconds(self):
        u = make(6)
        g = u.game
        g.press(1, T0)  # the left runs
        g.pause(T0 + 65_300)  # 1:28:54.7 left
        u.key(U.SET, U.LONG, T0 + 66_000)
        self.assertEqual(self.shown(u), (b" Lt n ", b"1h2855", 0, 8))
        u.key(U.MINUS, U.SHORT, T0)
        self.assertEqual(self.shown(u), (b" Lt n ", b"1h2755", 0, 8))
        u.key(U.SET, U.SHORT, T0)
        u.key(U.PLUS, U.SHORT, T0)
        self.assertEqual(self.shown(u), (b" Lt S ", b"1h2756", 0, 8))
        for _ in range(3):
            u.key(U.SET, U.SHORT, T0)
        self.assertEqual(self.shown(u), (b" L  n ", b"     0", 0, 0))

    def test_info_pages_use_six_digits(self):
        import ui_info

        u = make(6)
        u.key(U.PLUS, U.SHORT, T0)
        self.assertEqual(self.shown(u), (b"bA  87", b"P    2", 0, 0))
        u.battery_pct = 100
        self.assertEqual(self.shown(u)[0], b"bA 100")
        u.key(U.PLUS, U.SHORT, T0)
        left, right, p0, p1 = self.shown(u)
        self.assertEqual((left, p0, p1), (b" UEr  ", 0, ui_info._VERSION_POINTS))
        self.assertEqual(right, b"  " + ui_info._VERSION)

    def test_the_version_keeps_its_dots(self):
        for v, digits, points in (
            ("0.1.0", b" 010", 0x18),  # "   0.1.0": dots after digits 3 and 4
            ("1.2.10", b"1210", 0x0C),  # "  1.2.10"
            ("10.2.3", b"1023", 0x18),  # "  10.2.3"
            ("1.10.2-rc1", b"1102", 0x14),  # "  1.10.2"
            ("2", b"   2", 0),
        ):
            self.assertEqual(version_of(v), (digits, points), v)

    def test_overtime_counter_and_periods_page(self):
        u = make(6)
        u.new_game(from_seconds(MODE_BYOYOMI, [[0, 0, 0, 0]], overtime=[9, 12]))
        g = u.game
        g.press(1, T0)
        g.tick(T0 + 1_000)  # 11 s of the running side's period left: both show the counter
        self.assertEqual(self.side(1, u, T0 + 1_000), (b"bY   9", 0))
        g.pause(T0 + 1_500)
        u.key(U.PLUS, U.SHORT, T0)
        self.assertEqual(self.shown(u)[:2], (b"n    0", b"n    0"))
        u.key(U.PLUS, U.SHORT, T0)
        self.assertEqual(self.shown(u)[:2], (b"bY   9", b"bY   9"))

    def test_results_and_prompts_in_the_middle(self):
        u = make(6)
        u.put = u.current.put_result
        u.current.put_result(2)
        self.assertEqual((bytes(u.text[0]), bytes(u.text[1])), (b" 1-2  ", b" 1-2  "))
        u.offer_resume(None)
        self.assertEqual(self.shown(u), (b" rES  ", b"  YES ", 0, 0))
        u.show_message(b"LOG ", b"Err ", T0)
        self.assertEqual(self.shown(u), (b" LOG  ", b" Err  ", 0, 0))


class Battery(unittest.TestCase):
    def test_bars_by_level(self):
        u = make(6)
        for pct, icons in ((100, 7), (67, 7), (66, 3), (34, 3), (33, 1), (1, 1), (0, 0)):
            u.battery_pct = -1
            u.battery_icons = U._bars(pct)
            u.render(T0)
            self.assertEqual(u.icons[0], icons, pct)
            self.assertEqual(u.icons[1], 0)

    def test_the_reading_sets_the_symbol(self):
        u = make(6)
        u.set_battery(5_000)  # full
        u.render(T0)
        self.assertEqual(u.icons[0], segments.ICON_BAT1 | segments.ICON_BAT2 | segments.ICON_BAT3)
        u.set_battery(2_000)  # empty, and low
        self.assertTrue(u.battery_low)
        u.render(T0)
        self.assertEqual(u.icons[0], 0)
        u.render(T0 + 500)  # the ready screen's warning: `bAt  Lo` with one bar
        self.assertEqual((bytes(u.text[0]), u.icons[0]), (b" bAt  ", segments.ICON_BAT1))

    def test_low_blinks_on_the_ready_screen_only(self):
        u = make(6, BLITZ)
        u.battery_low = True
        u.battery_icons = 3
        u.render(T0 + 500)
        self.assertEqual((bytes(u.text[1]), u.icons[0]), (b"  Lo  ", 3))
        u.render(T0 + 1_000)
        self.assertEqual((bytes(u.text[1]), u.icons[0]), (b"   500", 0))
        self.assertEqual(u.next_change(T0 + 1_000), T0 + 1_500)
        u.game.press(1, T0 + 1_000)  # a game: the symbol stands
        for now in (T0 + 1_000, T0 + 1_500, T0 + 2_000):
            u.render(now)
            self.assertEqual(u.icons[0], 3)
        u.key(U.PLAY, U.SHORT, T0 + 2_000)
        u.key(U.SET, U.LONG, T0 + 2_000)  # any screen: the symbol stands
        u.render(T0 + 2_500)
        self.assertEqual(u.icons[0], 3)

    def test_four_digits_have_no_icons(self):
        u = make(4)
        u.set_battery(5_000)
        u.battery_low = True
        for now in (T0, T0 + 500):
            u.render(now)
            self.assertEqual((u.icons[0], u.icons[1]), (0, 0))


@unittest.skipUnless(MICROPYTHON, "heap_lock only bites under MicroPython")
class NoAllocationAtSix(unittest.TestCase):
    """The game screen's frames at width 6 allocate nothing (render, next_change, alerts),
    as at width 4 (test_engine_alloc.py): a running clock across its layouts, overtime
    counters, the hourglass, the stopwatch, a fallen flag, the ready screen's warning."""

    def frames(self, u, start, n, step, press_every=0):
        import micropython

        g = u.game
        now = start
        total = 0
        micropython.heap_lock()
        try:
            while n:
                n -= 1
                now += step
                g.tick(now)
                u.render(now)
                total ^= u.next_change(now) & 0xFF
                total ^= u.alerts(now)
                total += u.text[0][5] + u.text[1][5] + u.points[0] + u.icons[0]
                if press_every and n % press_every == 0 and g.state == E.RUNNING:
                    g.press(g.running, now, 321)
        finally:
            micropython.heap_unlock()
        self.assertTrue(total != 0)
        return now

    def test_running_clocks(self):
        for control, step, every in (
            (FIDE, 9_973, 0),
            (BLITZ, 97, 50),
            (HOURGLASS, 101, 40),
            (STOPWATCH, 997, 0),
        ):
            u = make(6, control)
            u.render(T0)
            u.game.press(1, T0)
            self.frames(u, T0, 400, step, every)

    def test_overtime_counters(self):
        for control in (
            from_seconds(MODE_BYOYOMI, [[0, 0, 0, 0]], overtime=[9, 12]),
            from_seconds(MODE_CANADIAN, [[0, 0, 0, 0]], overtime=[2, 30]),
        ):
            u = make(6)
            u.new_game(control)
            u.game.press(1, T0)
            self.frames(u, T0, 600, 97, 37)

    def test_a_fallen_flag_and_the_ready_warning(self):
        u = make(6, BLITZ)
        u.game.press(1, T0)
        u.game.tick(T0 + 300_001)
        self.frames(u, T0 + 300_001, 200, 131)
        u = make(6, BLITZ)
        u.battery_low = True
        self.frames(u, T0, 200, 131)


if __name__ == "__main__":
    unittest.main()
