"""One rule in every menu and editor: PLAY applies and leaves, SET long cancels (leaves with
nothing applied), SET short goes on. And the arbiter's corrections are shown on the game
screen's times when the menu is left.

Runs under CPython (pytest) and under MicroPython 1.27 (test_micropython_core.py); pure: the
UI (ui.Ui) and the engine, no board.
"""

import unittest

import engine as E
import ui
from test_ui_odds import T0, Keys, fresh
from ui_arbiter import A_DEAD

LEFT = 0


def paused(preset=7):
    """Blitz 5+0, one move each way, paused."""
    u = fresh({"preset": preset})
    g = u.game
    g.press(1, T0)  # the left runs
    g.press(LEFT, T0 + 3_000)
    g.press(1, T0 + 5_000)
    g.pause(T0 + 6_000)
    return u


def corrections(g):
    return [e for e in g.arbiter_log if e[1] not in (E.ACT_PAUSE, E.ACT_RESUME)]


class ArbiterMenu(unittest.TestCase):
    def test_set_long_cancels_every_edit(self):
        u = paused()
        g = u.game
        times = (g.remaining(0, 0), g.remaining(1, 0))
        k = Keys(u)
        k.long_set()
        self.assertEqual(k.tap(ui.MINUS), (b"Lt n", b" 356"))  # 4:56 -> 3:56
        k.tap(ui.SET, 4)
        self.assertEqual(k.tap(ui.PLUS), (b"L  n", b"   2"))
        k.long_set()
        self.assertEqual(u.screen, ui.S_GAME)
        self.assertEqual(k.req, 0)  # nothing to save
        self.assertEqual((g.remaining(0, 0), g.remaining(1, 0)), times)
        self.assertEqual(g.moves[LEFT], 1)
        self.assertEqual(corrections(g), [])

    def test_play_on_any_item_applies_every_edit(self):
        u = paused()
        g = u.game
        left = g.remaining(LEFT, 0)
        k = Keys(u)
        k.long_set()
        k.tap(ui.MINUS)  # minutes: -1 min
        k.tap(ui.SET)
        self.assertEqual(k.tap(ui.MINUS, 2), (b"Lt S", k.shown()[1]))  # seconds: -2 s
        k.tap(ui.SET, 3)
        k.tap(ui.PLUS)  # moves +1
        k.tap(ui.SET, 4)  # AddL: an action item
        k.tap(ui.SET)
        k.tap(ui.SET)  # G4
        k.tap(ui.SET)  # dEAd
        k.tap(ui.SET)  # rSLt
        k.tap(ui.PLAY)  # on ` -- `: leaves, the edits applied
        self.assertEqual(u.screen, ui.S_GAME)
        self.assertEqual(k.req, ui.REQ_SAVE_GAME)
        self.assertEqual(g.remaining(LEFT, 0), left - 62_000)
        self.assertEqual(g.moves[LEFT], 2)
        self.assertEqual([e[1] for e in corrections(g)], [E.ACT_SET_TIME, E.ACT_SET_MOVES])

    def test_an_action_applies_the_edits_first_and_a_cancel_after_it_keeps_both(self):
        u = paused()
        g = u.game
        left = g.remaining(LEFT, 0)
        k = Keys(u)
        k.long_set()
        k.tap(ui.MINUS)  # -1 min
        while k.shown()[0] != b"AddL":
            k.tap(ui.SET)
        k.tap(ui.PLAY)  # +2 min: `Add  donE`, the menu stays
        self.assertEqual(k.req, ui.REQ_SAVE_GAME)
        self.assertEqual(g.remaining(LEFT, 0), left + 60_000)
        k.tap(ui.PLAY)  # the message ends
        k.long_set()  # cancel: nothing more to undo
        self.assertEqual(g.remaining(LEFT, 0), left + 60_000)

    def test_leaving_shows_the_corrected_times_not_an_info_page(self):
        u = paused()
        k = Keys(u)
        k.tap(ui.PLUS)  # the paused screen's info page
        self.assertNotEqual(k.shown()[0], b" 400")
        k.long_set()
        k.tap(ui.MINUS)
        self.assertEqual(k.tap(ui.PLAY)[0][:2], b" 3")  # the left's corrected time

    def test_dead_position_applies_the_edits_before_the_result(self):
        u = paused()
        g = u.game
        k = Keys(u)
        k.long_set()
        k.tap(ui.MINUS)
        while u.screen_of(ui.S_ARBITER).cursor != A_DEAD:
            k.tap(ui.SET)
        k.tap(ui.PLAY)
        self.assertEqual(g.state, E.FINISHED)
        self.assertEqual([e[1] for e in corrections(g)], [E.ACT_SET_TIME, E.ACT_FINISH])


class SettingsMenu(unittest.TestCase):
    def test_set_long_puts_the_settings_back(self):
        u = fresh({"preset": 0})
        before = dict(u.settings)
        k = Keys(u)
        k.long_set()  # the ready screen: settings
        self.assertEqual(u.screen, ui.S_SETTINGS)
        k.tap(ui.PLUS)  # sound off
        while k.shown()[0] != b"brIt":
            k.tap(ui.SET)
        k.tap(ui.PLUS)
        self.assertEqual(k.req, ui.REQ_APPLY_SETTINGS)  # shown at once
        self.assertEqual(u.settings["brightness"], 3)
        k.long_set()
        self.assertEqual(k.req, ui.REQ_APPLY_SETTINGS)  # the old brightness back, no save
        self.assertEqual(u.settings, before)
        self.assertEqual(u.screen, ui.S_GAME)

    def test_play_saves(self):
        u = fresh({"preset": 0})
        k = Keys(u)
        k.long_set()
        k.tap(ui.PLUS)
        k.tap(ui.PLAY)
        self.assertEqual(k.req, ui.REQ_SAVE_SETTINGS | ui.REQ_APPLY_SETTINGS)
        self.assertFalse(u.settings["sound"])


class Chooser(unittest.TestCase):
    def test_set_long_cancels_and_set_short_edits(self):
        u = fresh({"preset": 5})
        k = Keys(u)
        k.tap(ui.SET)
        k.tap(ui.PLUS, 2)
        k.long_set()
        self.assertEqual((u.screen, u.settings["control"], k.req), (ui.S_GAME, {"preset": 5}, 0))
        k.tap(ui.SET)
        k.tap(ui.PLUS)
        self.assertEqual(k.tap(ui.SET), (b"t1 n", b" 300"))  # the editor, on Blitz 3+2
        k.long_set()  # the editor's cancel
        self.assertEqual((u.screen, u.settings["control"]), (ui.S_GAME, {"preset": 5}))
