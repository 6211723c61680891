"""Custom controls kept as the preset chooser's slots, and the held keys' steps.

Presses are counted as test_ui_odds.Keys counts them (a tap, a hold or a long SET is one).
Runs under CPython (pytest) and under MicroPython 1.27 (test_micropython_core.py); pure: the
UI (ui.Ui) and the engine, no board.
"""

import unittest

import presets
import settings
import ui
from test_ui_odds import T0, Keys, fresh
from ui_base import stepped

FIFTEEN_FIVE = {"custom": {"mode": 0, "periods": [[900, 0, 1, 5]]}}  # 15 min + 5 s


def custom(minutes, inc):
    return {"custom": {"mode": 0, "periods": [[60 * minutes, 0, 1, inc]]}}


def start(u, c):
    """Start the custom control `c` as the editor does (ui_custom._start)."""
    u.settings["control"] = c
    u.keep(c)
    u.new_game()


def rapid_15_5(k):
    """From the ready screen of FIDE (preset 0): 15 min + 5 s, from Rapid 15+10 (preset 3)."""
    k.tap(ui.SET)  # the chooser, on FIDE
    k.tap(ui.PLUS, 3)
    assert k.shown() == (b"1510", b"1500")
    assert k.tap(ui.SET) == (b"t1 n", b"1500")  # the editor, on Rapid 15+10
    k.tap(ui.SET, 4)
    assert k.shown() == (b"b1 S", b"  10")
    k.tap(ui.MINUS, 5)
    assert k.tap(ui.PLAY) == (b"1500", b"1500")


class Kept(unittest.TestCase):
    def test_a_custom_control_from_a_nearby_preset_in_15_presses_and_it_is_kept(self):
        u = fresh({"preset": 0})
        k = Keys(u)
        rapid_15_5(k)
        self.assertEqual(k.presses, 15)
        self.assertEqual(u.settings["control"], FIFTEEN_FIVE)
        self.assertEqual(u.settings["kept"], [FIFTEEN_FIVE])
        self.assertEqual(k.req, ui.REQ_SAVE_SETTINGS | ui.REQ_CLEAR_GAME)

    def test_base_and_delay_from_a_nearby_preset_in_15_presses(self):
        """US Chess G/45;d5 from G/60;d5 (preset 10), the chooser opened on it."""
        u = fresh({"preset": 10})
        k = Keys(u)
        k.tap(ui.SET)
        self.assertEqual(k.tap(ui.SET), (b"t1 n", b"1h00"))
        self.assertEqual(k.hold(ui.MINUS, 5), (b"t1 n", b"5000"))  # 59 ... 56, then 50
        self.assertEqual(k.tap(ui.MINUS, 5), (b"t1 n", b"4500"))
        self.assertEqual(k.tap(ui.PLAY), (b"4500", b"4500"))
        self.assertLessEqual(k.presses, 15)
        self.assertEqual(u.settings["control"]["custom"]["periods"], [[2700, 0, 3, 5]])

    def test_two_periods_from_a_nearby_preset_in_15_presses(self):
        """40/100 + SD/30; 30 s from move 1, from FIDE 90/40 + 30 (preset 0)."""
        u = fresh({"preset": 0})
        k = Keys(u)
        k.tap(ui.SET)
        self.assertEqual(k.tap(ui.SET), (b"t1 n", b"1h30"))
        self.assertEqual(k.hold(ui.PLUS, 5), (b"t1 n", b"1h40"))  # 91 ... 94, then 100
        k.tap(ui.SET, 5)
        self.assertEqual(k.shown(), (b"t2 n", b"3000"))
        self.assertEqual(k.tap(ui.PLAY), (b"1h40", b"1h40"))
        self.assertLessEqual(k.presses, 15)
        periods = u.settings["control"]["custom"]["periods"]
        self.assertEqual(periods, [[6000, 40, 1, 30], [1800, 0, 1, 30]])

    def test_the_newest_kept_control_is_three_presses_away_the_next_four(self):
        u = fresh({"preset": 0})
        start(u, custom(20, 5))
        start(u, custom(15, 5))  # the newest
        u.settings["control"] = {"preset": 0}
        u.new_game()
        k = Keys(u)
        k.tap(ui.SET)
        self.assertEqual(k.tap(ui.MINUS), (b"CUS1", b"1500"))
        self.assertEqual(k.tap(ui.PLAY), (b"1500", b"1500"))
        self.assertEqual((k.presses, u.settings["control"]), (3, custom(15, 5)))
        u.settings["control"] = {"preset": 0}
        u.new_game()
        k = Keys(u)
        k.tap(ui.SET)
        self.assertEqual(k.tap(ui.MINUS, 2), (b"CUS2", b"2000"))
        self.assertEqual(k.tap(ui.PLAY), (b"2000", b"2000"))
        self.assertEqual((k.presses, u.settings["control"]), (4, custom(20, 5)))
        self.assertEqual(u.settings["kept"], [custom(20, 5), custom(15, 5)])  # chosen: newest

    def test_every_kept_control_within_four_presses_a_hold_counted_as_one(self):
        """From the first preset a held MINUS walks the slots, one each 150 ms (buttons.py);
        let go one past, a tap brings it back: at most SET, hold, tap, PLAY."""
        for want in range(presets.KEPT):
            u = fresh({"preset": 0})
            for m in range(presets.KEPT, 0, -1):
                start(u, custom(m, 0))  # CUS1 is 1 min ... CUS5 5 min
            u.settings["control"] = {"preset": 0}
            k = Keys(u)
            k.tap(ui.SET)
            shown = k.hold(ui.MINUS, want + 2)  # let go one past the slot wanted
            self.assertEqual(shown[0], b"CUS%d" % (want + 2) if want + 2 <= 5 else b"CUSt")
            k.tap(ui.PLUS)
            self.assertEqual(k.tap(ui.PLAY)[0][1:], b"%d00" % (want + 1))
            self.assertEqual(k.presses, 4)
            self.assertEqual(u.settings["control"], custom(want + 1, 0))

    def test_the_control_in_use_is_two_presses_away(self):
        u = fresh({"preset": 0})
        for m in (10, 20, 30):
            start(u, custom(m, 0))
        start(u, u.settings["kept"][2])  # the oldest, chosen again: newest
        self.assertEqual(u.settings["kept"], [custom(10, 0), custom(30, 0), custom(20, 0)])
        k = Keys(u)
        self.assertEqual(k.tap(ui.SET), (b"CUS1", b"1000"))
        k.tap(ui.PLAY)
        self.assertEqual((k.presses, u.settings["control"]), (2, custom(10, 0)))

    def test_five_are_kept_the_oldest_goes(self):
        u = fresh({"preset": 0})
        for m in range(1, 8):
            start(u, custom(m, 0))
        self.assertEqual(
            [c["custom"]["periods"][0][0] for c in u.settings["kept"]], [420, 360, 300, 240, 180]
        )
        self.assertEqual(len(u.settings["kept"]), presets.KEPT)
        self.assertEqual(settings.validate(u.settings, presets.COUNT), (u.settings, {}))

    def test_the_entries_in_order_round_the_chooser(self):
        u = fresh({"preset": 0})
        start(u, custom(7, 0))
        start(u, custom(8, 0))
        u.settings["control"] = {"preset": 0}
        k = Keys(u)
        k.tap(ui.SET)
        seen = [k.tap(ui.PLUS)[0] for _ in range(presets.COUNT + 3)]
        self.assertEqual(seen[-4:], [b"CUSt", b"CUS2", b"CUS1", b"FIdE"])
        self.assertEqual(seen[0], presets.code(1).encode() + b" " * (4 - len(presets.code(1))))

    def test_a_swap_on_the_ready_screen_leaves_the_kept_control_as_it_was(self):
        u = fresh({"preset": 0})
        odds = dict(custom(5, 0))
        odds["custom"] = dict(odds["custom"], right={"periods": [[240, 0, 0, 0]]})
        start(u, odds)
        u.key(ui.PLAY, ui.SHORT, T0)  # the ready screen's PLAY: the sides swap
        self.assertEqual(u.settings["control"].get("swap"), True)
        self.assertFalse("swap" in u.settings["kept"][0])

    def test_set_on_a_kept_control_edits_it(self):
        u = fresh({"preset": 0})
        start(u, custom(15, 5))
        u.settings["control"] = {"preset": 0}
        k = Keys(u)
        k.tap(ui.SET)
        k.tap(ui.MINUS)
        self.assertEqual(k.tap(ui.SET), (b"t1 n", b"1500"))
        k.tap(ui.SET, 4)
        self.assertEqual(k.tap(ui.PLUS), (b"b1 S", b"   6"))


class Held(unittest.TestCase):
    def test_a_held_key_steps_singly_then_to_each_round_value(self):
        got = []
        v = 0
        for r in range(1, 12):
            v = stepped(v, 1, 1, 10, r, 0, 200)
            got.append(v)
        self.assertEqual(got, [1, 2, 3, 4, 10, 20, 30, 40, 50, 60, 70])
        v = 57
        got = []
        for r in range(1, 8):
            v = stepped(v, -1, 1, 10, r, 0, 200)
            got.append(v)
        self.assertEqual(got, [56, 55, 54, 53, 50, 40, 30])
        self.assertEqual(stepped(3, -1, 1, 10, 9, 0, 200), 0)
        self.assertEqual(stepped(195, 1, 1, 10, 9, 0, 200), 200)

    def test_two_holds_count_apart_and_a_press_counts_one(self):
        u = fresh({"preset": 0})
        k = Keys(u)
        k.tap(ui.SET)
        k.tap(ui.SET)
        k.tap(ui.SET, 2)  # moves in period 1: 40
        for t in range(5):
            u.key(ui.PLUS, ui.REPEAT, T0 + 500 + 150 * t)
        self.assertEqual(k.shown(), (b"1 n ", b"  50"))  # 41 ... 44, then 50
        for t in range(2):  # a second hold: its own first repeats are single steps
            u.key(ui.PLUS, ui.REPEAT, T0 + 3_000 + 150 * t)
        self.assertEqual(k.shown(), (b"1 n ", b"  52"))
