"""The screens of time odds, key by key: the custom editor's draw odds and time
odds fields (the Armageddon press count the README gives), the ready screen's swap, the
arbiter's result item; and the settings that keep them.

Runs under CPython (pytest) and under MicroPython 1.27 (test_micropython_core.py); pure: the
UI (ui.Ui) and the engine, no board.
"""

import unittest

import engine as E
import presets
import settings
import ui
from timecontrol import DRAW_ODDS_BLACK, Odds

T0 = 500_000
LEFT = 0
RIGHT = 1


def fresh(control):
    u = ui.Ui(settings.defaults())
    u.settings["control"] = control
    u.new_game()
    return u


class Keys:
    """Presses on a Ui, counted as the README counts them: a tap, a hold (however many
    auto-repeat steps it gives) or a long SET are one press each."""

    def __init__(self, u):
        self.u = u
        self.presses = 0
        self.req = 0

    def tap(self, button, n=1):
        for _ in range(n):
            self.presses += 1
            self.req = self.u.key(button, ui.SHORT, T0)
        return self.shown()

    def hold(self, button, repeats):
        self.presses += 1
        for _ in range(repeats):
            self.req = self.u.key(button, ui.REPEAT, T0)
        return self.shown()

    def long_set(self):
        self.presses += 1
        self.req = self.u.key(ui.SET, ui.LONG, T0)
        return self.shown()

    def shown(self):
        self.u.render(T0)
        return bytes(self.u.text[0]), bytes(self.u.text[1])


class Editor(unittest.TestCase):
    def test_armageddon_5_v_4_in_23_presses_from_blitz_5_0(self):
        """The README's count: from the ready screen of Blitz 5+0, the editor builds White
        5 min / Black 4 min, 2 s a move from move 61, draw odds to Black."""
        u = fresh({"preset": 7})
        k = Keys(u)
        self.assertEqual(k.tap(ui.SET), (b" 5 0", b" 500"))  # the chooser, on the preset
        self.assertEqual(k.tap(ui.SET), (b"t1 n", b" 500"))  # the editor, on its control
        k.tap(ui.SET, 2)
        self.assertEqual(k.shown(), (b"1 n ", b"  Sd"))
        # held: 1, 2, 3, 4, then 10 ... 60; a second period appears
        self.assertEqual(k.hold(ui.PLUS, 10), (b"1 n ", b"  60"))
        k.tap(ui.SET, 3)
        self.assertEqual(k.shown(), (b"t2 n", b"3000"))
        self.assertEqual(k.hold(ui.MINUS, 7), (b"t2 n", b" 000"))  # 29 ... 26, 20, 10, 0
        k.tap(ui.SET, 3)
        self.assertEqual(k.tap(ui.PLUS), (b"2 b ", b"Inc "))
        k.tap(ui.SET)
        self.assertEqual(k.tap(ui.PLUS, 2), (b"b2 S", b"   2"))
        self.assertEqual(k.tap(ui.SET), (b"1-2=", b"1-2 "))  # draw odds: none yet
        self.assertEqual(k.tap(ui.MINUS), (b"1-2=", b"0-1 "))  # a draw is Black's win
        self.assertEqual(k.tap(ui.SET), (b"Odds", b"  no"))
        self.assertEqual(k.tap(ui.PLUS), (b"Odds", b" YES"))
        self.assertEqual(k.tap(ui.SET), (b"t1rn", b" 500"))  # the right's, a copy of the left's
        self.assertEqual(k.tap(ui.MINUS), (b"t1rn", b" 400"))
        self.assertEqual(k.tap(ui.PLAY), (b" 500", b" 400"))
        self.assertEqual(k.presses, 23)
        self.assertEqual(k.req, ui.REQ_SAVE_SETTINGS | ui.REQ_CLEAR_GAME)
        want = {
            "mode": 0,
            "periods": [[300, 60, 0, 0], [0, 0, 1, 2]],
            "right": {"periods": [[240, 60, 0, 0], [0, 0, 1, 2]]},
            "draw_odds": DRAW_ODDS_BLACK,
        }
        self.assertEqual(u.settings["control"], {"custom": want})
        self.assertEqual(
            settings.check_control(u.settings["control"], presets.COUNT), u.settings["control"]
        )
        got, preset = u.game.control, presets.control(19)
        self.assertTrue(got.sides[0].same(preset.sides[0]) and got.sides[1].same(preset.sides[1]))
        self.assertEqual(got.draw_odds, DRAW_ODDS_BLACK)

    def test_with_time_odds_the_labels_name_the_side(self):
        u = fresh({"preset": 20})  # Armageddon 10 v 7: the editor opens with time odds on
        k = Keys(u)
        k.tap(ui.SET)
        self.assertEqual(k.tap(ui.SET), (b"t1Ln", b"1000"))
        labels = [k.tap(ui.SET)[0] for _ in range(8)]
        self.assertEqual(
            labels,
            [b"t1LS", b"1Ln ", b"1Lb ", b"b1LS", b"otL ", b"1-2=", b"Odds", b"t1rn"],
        )
        self.assertEqual(k.shown(), (b"t1rn", b" 700"))
        self.assertEqual(
            [k.tap(ui.SET)[0] for _ in range(5)], [b"t1rS", b"1rn ", b"1rb ", b"b1rS", b"t1Ln"]
        )
        k.tap(ui.SET, 5)  # back to the left's overtime kind: byo-yomi for both
        self.assertEqual(k.tap(ui.PLUS), (b"otL ", b"bYo "))
        labels = [k.tap(ui.SET)[0] for _ in range(12)]
        self.assertEqual(
            labels,
            [
                b"oLn ",
                b"toLn",
                b"toLS",
                b"1-2=",
                b"Odds",
                b"t1rn",
                b"t1rS",
                b"1rn ",
                b"1rb ",
                b"b1rS",
                b"orn ",
                b"torn",
            ],
        )
        k.tap(ui.SET)
        self.assertEqual(k.tap(ui.MINUS, 2), (b"torS", b" 028"))  # the right's period: 28 s
        k.tap(ui.PLAY)
        c = u.settings["control"]["custom"]
        self.assertEqual((c["mode"], c["overtime"], c["right"]["overtime"]), (3, [5, 30], [5, 28]))
        self.assertEqual(
            (c["periods"], c["right"]["periods"]), ([[600, 0, 0, 0]], [[420, 0, 0, 0]])
        )

    def test_a_period_the_right_adds_ends_the_overtime_and_keeps_the_cursor(self):
        u = fresh(
            {
                "custom": {
                    "mode": 4,
                    "periods": [[60, 0, 0, 0]],
                    "overtime": [3, 20],
                    "right": {"periods": [[30, 0, 0, 0]], "overtime": [3, 20]},
                }
            }
        )
        k = Keys(u)
        k.tap(ui.SET)
        k.tap(ui.SET)
        k.tap(ui.SET, 12)  # left 5 + 4 fields, draw odds, odds, the right's time min, sec
        self.assertEqual(k.tap(ui.SET), (b"1rn ", b"  Sd"))
        self.assertEqual(k.tap(ui.PLUS), (b"1rn ", b"   1"))  # still on the same field
        k.tap(ui.PLAY)
        c = u.settings["control"]["custom"]
        self.assertEqual((c["mode"], "overtime" in c), (0, False))
        self.assertEqual(c["right"]["periods"], [[30, 1, 0, 0], [1800, 0, 0, 0]])

    def test_symmetric_editing_is_as_before(self):
        u = fresh({"preset": 5})
        k = Keys(u)
        k.tap(ui.SET)
        k.tap(ui.SET)
        labels = [k.tap(ui.SET)[0] for _ in range(8)]
        self.assertEqual(
            labels, [b"t1 S", b"1 n ", b"1 b ", b"b1 S", b"ot  ", b"1-2=", b"Odds", b"t1 n"]
        )
        k.tap(ui.PLAY)
        self.assertEqual(
            u.settings["control"], {"custom": {"mode": 0, "periods": [[300, 0, 1, 3]]}}
        )
        self.assertFalse(isinstance(u.game.control, Odds))

    def test_draw_odds_alone(self):
        u = fresh({"preset": 7})
        k = Keys(u)
        k.tap(ui.SET)
        k.tap(ui.SET)
        k.tap(ui.SET, 6)
        self.assertEqual(k.tap(ui.PLUS), (b"1-2=", b"1-0 "))  # a draw is White's win
        k.tap(ui.PLAY)
        self.assertEqual(u.game.control.draw_odds, 1)
        self.assertEqual(k.shown(), (b" 500", b" 500"))
        self.assertEqual(u.game.white_side, LEFT)  # the colours count: White is on the left
        # The times are the same, the colours are not: PLAY moves White's side
        self.assertEqual(k.tap(ui.PLAY), (b" 500", b" 500"))
        self.assertEqual(k.req, ui.REQ_SAVE_SETTINGS | ui.REQ_CLEAR_GAME)
        self.assertEqual(u.game.white_side, RIGHT)
        self.assertEqual(u.settings["control"]["swap"], True)


class Swap(unittest.TestCase):
    def test_play_on_the_ready_screen_swaps_the_sides_and_back(self):
        u = fresh({"preset": 19})
        k = Keys(u)
        self.assertEqual(k.shown(), (b" 500", b" 400"))
        self.assertEqual(k.tap(ui.PLAY), (b" 400", b" 500"))
        self.assertEqual(k.req, ui.REQ_SAVE_SETTINGS | ui.REQ_CLEAR_GAME)
        self.assertEqual(u.settings["control"], {"preset": 19, "swap": True})
        self.assertEqual(presets.control_of(u.settings["control"]).sides[0].periods[0][0], 240_000)
        self.assertEqual(k.tap(ui.PLAY), (b" 500", b" 400"))
        self.assertEqual(u.settings["control"], {"preset": 19})

    def test_the_editor_opens_on_the_sides_as_they_stand(self):
        """... and saves them as they stand: White's control (5:00) stays on the right, with
        White's side, so the draw odds stay with 4:00."""
        u = fresh({"preset": 19, "swap": True})
        k = Keys(u)
        k.tap(ui.SET)
        self.assertEqual(k.tap(ui.SET), (b"t1Ln", b" 400"))
        self.assertEqual(k.tap(ui.PLAY), (b" 400", b" 500"))
        c = u.settings["control"]
        self.assertEqual(
            (c["custom"]["periods"][0][0], c["custom"]["right"]["periods"][0][0]), (300, 240)
        )
        self.assertEqual((c["swap"], c["custom"]["draw_odds"]), (True, DRAW_ODDS_BLACK))
        self.assertEqual(u.game.white_side, RIGHT)
        self.assertEqual(presets.control_of(c).sides[RIGHT].periods[0][0], 300_000)

    def test_no_swap_once_the_game_started_or_without_odds(self):
        u = fresh({"preset": 19})
        u.game.press(RIGHT, T0)
        u.game.pause(T0 + 1_000)
        self.assertEqual(u.key(ui.PLAY, ui.SHORT, T0 + 2_000), 0)  # PLAY resumes instead
        self.assertEqual(u.game.state, E.RUNNING)
        u = fresh({"preset": 0})
        self.assertEqual(u.key(ui.PLAY, ui.SHORT, T0), 0)
        self.assertEqual(u.settings["control"], {"preset": 0})


class ArbiterResult(unittest.TestCase):
    def menu(self, control):
        u = fresh(control)
        g = u.game
        g.press(RIGHT, T0)  # White (left) runs
        g.press(LEFT, T0 + 5_000)
        g.pause(T0 + 9_000)
        k = Keys(u)
        k.long_set()
        k.tap(ui.SET, 12)  # the items, the overtime counters skipped
        return u, g, k

    def test_none_chosen_play_only_leaves(self):
        u, g, k = self.menu({"preset": 7})
        self.assertEqual(k.shown(), (b"rSLt", b" -- "))
        k.tap(ui.PLAY)
        self.assertEqual((u.screen, g.state), (ui.S_GAME, E.PAUSED))

    def test_each_result_by_colour(self):
        for presses, result in (
            (1, E.RESULT_LEFT_WINS),
            (2, E.RESULT_RIGHT_WINS),
            (3, E.RESULT_DRAW),
        ):
            u, g, k = self.menu({"preset": 7})
            k.tap(ui.PLUS, presses)
            self.assertEqual(k.shown()[1], (b"1-0 ", b"0-1 ", b"1-2 ")[presses - 1])
            k.tap(ui.PLAY)
            self.assertEqual(k.req, ui.REQ_LOG_GAME | ui.REQ_CLEAR_GAME)
            self.assertEqual((g.state, g.result, g.reason), (E.FINISHED, result, E.REASON_RESULT))

    def test_a_draw_under_draw_odds_is_blacks_win(self):
        u, g, k = self.menu({"preset": 20})
        self.assertEqual(k.tap(ui.MINUS), (b"rSLt", b"1-2 "))
        k.tap(ui.PLAY)
        self.assertEqual(
            (g.result, g.reason), (E.RESULT_RIGHT_WINS, E.REASON_RESULT | E.BY_DRAW_ODDS)
        )
        self.assertEqual(k.shown(), (b"  0 ", b"  1 "))

    def test_white_on_the_right(self):
        u = fresh({"preset": 7})
        g = u.game
        g.press(LEFT, T0)  # White is on the right
        g.pause(T0 + 1_000)
        k = Keys(u)
        k.long_set()
        k.tap(ui.SET, 12)
        k.tap(ui.PLUS)  # 1-0
        k.tap(ui.PLAY)
        self.assertEqual(g.result, E.RESULT_RIGHT_WINS)

    def test_period_and_overtime_items_are_bounded_by_each_sides_control(self):
        u = fresh(
            {
                "custom": {
                    "mode": 3,
                    "periods": [[60, 0, 0, 0]],
                    "overtime": [3, 10],
                    "right": {"periods": [[60, 0, 0, 0]], "overtime": [9, 10]},
                }
            }
        )
        g = u.game
        g.press(RIGHT, T0)
        g.pause(T0 + 1_000)
        k = Keys(u)
        k.long_set()
        k.tap(ui.SET, 8)
        self.assertEqual(k.hold(ui.PLUS, 3), (b"LbY ", b"   3"))
        k.tap(ui.SET)
        self.assertEqual(k.shown(), (b"rbY ", b"   9"))
        k.tap(ui.MINUS, 2)
        self.assertEqual(k.hold(ui.PLUS, 3), (b"rbY ", b"   9"))


class Settings(unittest.TestCase):
    def test_files_of_before_still_load_and_bad_odds_are_refused(self):
        n = presets.COUNT
        old = {"custom": {"mode": 0, "periods": [[300, 0, 1, 3]]}}
        self.assertEqual(settings.check_control(old, n), old)
        self.assertEqual(settings.check_control({"preset": 18}, n), {"preset": 18})
        self.assertEqual(settings.check_control({"preset": 19, "swap": False}, n), {"preset": 19})
        base = {"mode": 0, "periods": [[300, 0, 0, 0]]}
        for bad in (
            {"preset": 19, "swap": 1},
            {"custom": dict(base, draw_odds=3)},
            {"custom": dict(base, draw_odds=True)},
            {"custom": dict(base, right=[[240, 0, 0, 0]])},
            {"custom": dict(base, right={"periods": [[0, 0, 0, 0]]})},  # a countdown from 0
            {"custom": dict(base, right={"periods": [[60, 0, 0, 0]], "overtime": [3, 10]})},
            {"custom": dict(base, mode=3, overtime=[3, 10], right={"periods": [[60, 0, 0, 0]]})},
        ):
            self.assertEqual(settings.check_control(bad, n), None, bad)
        s, problems = settings.validate(
            dict(settings.defaults(), control={"preset": 19, "swap": 1}), n
        )
        self.assertEqual((s["control"], problems), ({"preset": 0}, {"control": settings.TYPE}))
