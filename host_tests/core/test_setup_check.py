"""The set-up check under draw odds: a first press from White's side is not a start.

Runs under CPython (pytest) and under MicroPython 1.27 (test_micropython_core.py); pure: the
engine and the UI (ui.Ui), no board. Sides: 0 left, 1 right. The presets give the left
White's control; PLAY on the ready screen moves it (and White's side) to the right. 6.5:
the player with Black presses, White's clock starts. Every case: both Armageddon presets set
up right and wrong, swapped and not, the swap toggled twice, custom controls with draw odds
(with and without time odds, to either colour) and without (either side starts), a slap of
both levers, a wrong press followed by the right one, buttons meanwhile, the prompt on the
displays and its timing, the resume of a paused game.
"""

import unittest

import engine as E
import game_state
import presets
import settings
import ui
from timecontrol import (
    DRAW_ODDS_BLACK,
    DRAW_ODDS_NONE,
    DRAW_ODDS_WHITE,
    MODE_COUNTDOWN,
    Odds,
    TimeControlError,
    from_seconds,
)

T0 = 700_000_000  # large on purpose: close to the 2**30 small-int limit
LEFT = 0
RIGHT = 1
A54 = 19  # Armageddon 5 v 4, 2 s from move 61: White 5:00 on the left, draw odds to Black
A107 = 20  # Armageddon 10 v 7
ARMAGEDDON = ((A54, b" 500", b" 400"), (A107, b"1000", b" 700"))
SLAP_MS = 50  # app.BOTH_LEVERS_MS: the firmware's Game.min_move_ms


def fresh(control):
    u = ui.Ui(settings.defaults())
    u.game.set_min_move(SLAP_MS)
    u.settings["control"] = control
    u.new_game()
    return u


def shown(u, now):
    u.render(now)
    return bytes(u.text[0]), bytes(u.text[1])


def kept(g):
    """What a game keeps: a refused press must change none of it."""
    return (
        g.state,
        g.running,
        g.white,
        g.turn_start,
        g.turn_us,
        g.last_event,
        g.last_us,
        g.log_count,
        tuple(g.main),
        tuple(g.main_us),
        tuple(g.moves),
        len(g.arbiter_log),
    )


def custom(draw_odds, right_s=None, time_s=300):
    c = {"mode": MODE_COUNTDOWN, "periods": [[time_s, 0, 0, 0]]}
    if right_s is not None:
        c["right"] = {"periods": [[right_s, 0, 0, 0]]}
    if draw_odds:
        c["draw_odds"] = draw_odds
    return {"custom": c}


def swapped(control):
    control["swap"] = True
    return control


class Presets(unittest.TestCase):
    def test_set_up_right_blacks_press_starts_whites_clock(self):
        for index, white, black in ARMAGEDDON:
            u = fresh({"preset": index})
            g = u.game
            self.assertEqual(g.white_side, LEFT, index)
            self.assertEqual(shown(u, T0), (white, black), index)
            self.assertEqual(g.press(RIGHT, T0), E.EV_START, index)
            self.assertEqual((g.state, g.white, g.running), (E.RUNNING, LEFT, LEFT), index)
            self.assertEqual(g.refusals(), 0, index)

    def test_set_up_wrong_the_left_press_is_refused_and_changes_nothing(self):
        for index, white, _black in ARMAGEDDON:
            u = fresh({"preset": index})
            g = u.game
            before = kept(g)
            self.assertEqual(g.press(LEFT, T0, 400), E.EV_REFUSED, index)
            self.assertEqual(kept(g), before, index)  # nothing started, nothing logged
            self.assertEqual((g.refusals(), g.last_refusal()), (1, T0), index)
            # The clocks stay stopped: a tick a minute later flags nothing, times stand
            self.assertEqual(g.tick(T0 + 60_000), 0, index)
            self.assertEqual(g.deadline(), -1, index)
            self.assertEqual(shown(u, T0 + 1), (white, b"bLAc"), index)
            # Pressed again: refused again
            self.assertEqual(g.press(LEFT, T0 + 3_000), E.EV_REFUSED, index)
            self.assertEqual((g.state, g.refusals()), (E.READY, 2), index)
            # ... and a result cannot be entered on a game that has not started
            self.assertEqual(
                game_state.finish(g, E.RESULT_DRAW, E.REASON_RESULT, T0 + 4_000), E.ERR_STATE
            )

    def test_swapped_the_right_side_is_whites_and_its_press_is_refused(self):
        for index, white, black in ARMAGEDDON:
            u = fresh({"preset": index})
            self.assertEqual(
                u.key(ui.PLAY, ui.SHORT, T0), ui.REQ_SAVE_SETTINGS | ui.REQ_CLEAR_GAME
            )
            g = u.game
            self.assertEqual((g.white_side, shown(u, T0)), (RIGHT, (black, white)), index)
            self.assertEqual(g.press(RIGHT, T0 + 10), E.EV_REFUSED, index)
            self.assertEqual(shown(u, T0 + 11), (b"bLAc", white), index)
            self.assertEqual(g.press(LEFT, T0 + 900), E.EV_START, index)
            self.assertEqual((g.white, g.running), (RIGHT, RIGHT), index)
            # White (right) has White's time, Black (left) Black's and the draw odds
            self.assertEqual(g.main[RIGHT], presets.control(index).sides[LEFT].periods[0][0])
            g.pause(T0 + 2_000)
            self.assertEqual(
                game_state.finish(g, E.RESULT_DRAW, E.REASON_RESULT, T0 + 2_000), E.OK
            )
            self.assertEqual(g.result, E.RESULT_LEFT_WINS, index)  # Black, on the left

    def test_the_swap_toggled_twice_is_back_the_way_it_was(self):
        u = fresh({"preset": A54})
        u.key(ui.PLAY, ui.SHORT, T0)
        u.key(ui.PLAY, ui.SHORT, T0)
        g = u.game
        self.assertEqual(u.settings["control"], {"preset": A54})
        self.assertEqual((g.white_side, shown(u, T0)), (LEFT, (b" 500", b" 400")))
        self.assertEqual(g.press(LEFT, T0), E.EV_REFUSED)
        self.assertEqual(g.press(RIGHT, T0 + 100), E.EV_START)

    def test_a_wrong_press_then_the_right_one_starts_from_the_right_one(self):
        u = fresh({"preset": A54})
        g = u.game
        self.assertEqual(g.press(LEFT, T0, 999), E.EV_REFUSED)
        self.assertEqual(g.press(RIGHT, T0 + SLAP_MS, 250), E.EV_START)  # just after a slap
        self.assertEqual((g.turn_start, g.turn_us, g.last_event), (T0 + SLAP_MS, 250, T0 + 50))
        # White's time runs from Black's press, not from the refused one
        self.assertEqual(g.remaining_exact(LEFT, T0 + SLAP_MS + 1_000, 250), (299_000, 0))
        self.assertEqual(shown(u, T0 + SLAP_MS + 1_001)[0], b" 459")

    def test_a_slap_of_both_levers_is_its_first_stamp(self):
        # White's side first: the slap is refused as a whole, Black's stamp 10 ms later too
        u = fresh({"preset": A54})
        g = u.game
        self.assertEqual(g.press(LEFT, T0, 100), E.EV_REFUSED)
        self.assertEqual(g.press(RIGHT, T0 + 10, 200), 0)
        self.assertEqual(g.press(RIGHT, T0 + SLAP_MS - 1, 999), 0)
        self.assertEqual((g.state, g.refusals()), (E.READY, 1))
        self.assertEqual(shown(u, T0 + 60)[1], b"bLAc")  # still waiting for Black
        self.assertEqual(g.press(RIGHT, T0 + 700), E.EV_START)
        # Black's side first: the start, and White's stamp is the same slap (ignored)
        u = fresh({"preset": A54})
        g = u.game
        self.assertEqual(g.press(RIGHT, T0), E.EV_START)
        self.assertEqual(g.press(LEFT, T0 + 10), 0)
        self.assertEqual(
            (g.state, g.running, g.moves[LEFT], g.refusals()), (E.RUNNING, LEFT, 0, 0)
        )

    def test_after_a_restart_of_the_monotonic_count_blacks_press_starts(self):
        # monoclock.py restarts at 0 on a ready screen: the refused press's ms is older
        # than every instant after it, and no press of the new count is within its slap
        u = fresh({"preset": A54})
        g = u.game
        self.assertEqual(g.press(LEFT, T0), E.EV_REFUSED)
        self.assertEqual(g.press(RIGHT, 20), E.EV_START)
        self.assertEqual((g.turn_start, g.white), (20, LEFT))

    def test_a_slap_in_one_ms_left_first_is_refused(self):
        # Two stamps in the same ms resolve left first (app.py): the refused one
        u = fresh({"preset": A107})
        g = u.game
        self.assertEqual(g.press(LEFT, T0, 5), E.EV_REFUSED)
        self.assertEqual(g.press(RIGHT, T0, 5), 0)
        self.assertEqual(g.state, E.READY)


class Custom(unittest.TestCase):
    def test_draw_odds_alone_white_is_on_the_left_and_play_moves_it(self):
        for draw in (DRAW_ODDS_BLACK, DRAW_ODDS_WHITE):
            u = fresh(custom(draw))
            g = u.game
            self.assertEqual((g.white_side, shown(u, T0)), (LEFT, (b" 500", b" 500")), draw)
            self.assertEqual(g.press(LEFT, T0), E.EV_REFUSED, draw)
            self.assertEqual(shown(u, T0), (b" 500", b"bLAc"), draw)
            # PLAY: the times look the same, White's side moves
            self.assertEqual(
                u.key(ui.PLAY, ui.SHORT, T0 + 1), ui.REQ_SAVE_SETTINGS | ui.REQ_CLEAR_GAME
            )
            self.assertEqual(u.settings["control"]["swap"], True, draw)
            self.assertEqual(
                (g.white_side, g.refusals(), shown(u, T0 + 2)), (RIGHT, 0, (b" 500",) * 2)
            )
            self.assertEqual(g.press(RIGHT, T0 + 100), E.EV_REFUSED, draw)
            self.assertEqual(g.press(LEFT, T0 + 800), E.EV_START, draw)
            self.assertEqual(g.white, RIGHT, draw)

    def test_time_and_draw_odds_white_is_the_left_sides_control(self):
        u = fresh(custom(DRAW_ODDS_BLACK, right_s=180))
        g = u.game
        self.assertEqual((g.white_side, shown(u, T0)), (LEFT, (b" 500", b" 300")))
        self.assertEqual(g.press(LEFT, T0), E.EV_REFUSED)
        self.assertEqual(g.press(RIGHT, T0 + 500), E.EV_START)

    def test_time_odds_without_draw_odds_start_from_either_side(self):
        for first in (LEFT, RIGHT):
            u = fresh(custom(DRAW_ODDS_NONE, right_s=180))
            g = u.game
            self.assertEqual(g.white_side, -1)
            self.assertEqual(g.press(first, T0), E.EV_START, first)
            self.assertEqual(g.white, 1 - first, first)
        for index in (0, 7, 15, 17):  # no odds at all: as ever
            for first in (LEFT, RIGHT):
                g = fresh({"preset": index}).game
                self.assertEqual((g.white_side, g.press(first, T0)), (-1, E.EV_START), index)

    def test_the_editor_keeps_whites_side_of_a_swapped_draw_odds_control(self):
        u = fresh(custom(DRAW_ODDS_BLACK))
        u.key(ui.PLAY, ui.SHORT, T0)  # White to the right
        u.key(ui.SET, ui.SHORT, T0)  # the chooser
        u.key(ui.SET, ui.SHORT, T0)  # the editor
        self.assertEqual(u.screen, ui.S_CUSTOM)
        u.key(ui.PLAY, ui.SHORT, T0)  # start, unchanged
        self.assertEqual(u.settings["control"], swapped(custom(DRAW_ODDS_BLACK)))
        self.assertEqual(u.game.white_side, RIGHT)
        # Draw odds switched off in the editor: no colour counts, the swap goes
        u.key(ui.SET, ui.SHORT, T0)
        u.key(ui.SET, ui.SHORT, T0)
        for _ in range(6):
            u.key(ui.SET, ui.SHORT, T0)
        self.assertEqual(shown(u, T0), (b"1-2=", b"0-1 "))
        u.key(ui.PLUS, ui.SHORT, T0)
        self.assertEqual(shown(u, T0), (b"1-2=", b"1-2 "))
        u.key(ui.PLAY, ui.SHORT, T0)
        self.assertEqual(u.settings["control"], custom(DRAW_ODDS_NONE))
        self.assertEqual(u.game.white_side, -1)

    def test_odds_say_whites_side_and_swapped_moves_it(self):
        c = from_seconds(MODE_COUNTDOWN, [[60, 0, 0, 0]])
        o = Odds(c, c, DRAW_ODDS_BLACK)
        self.assertEqual((o.white, o.swapped().white, o.swapped().swapped().white), (0, 1, 0))
        self.assertEqual(Odds(c, c, DRAW_ODDS_BLACK, "x", 1).white, 1)
        for bad in (2, -1, None):
            with self.assertRaises(TimeControlError):
                Odds(c, c, DRAW_ODDS_BLACK, "x", bad)
        self.assertEqual(E.Game(o.swapped()).white_side, RIGHT)
        self.assertEqual(E.Game(Odds(c, c)).white_side, -1)  # no draw odds: no check
        self.assertEqual(E.Game(c).white_side, -1)


class Prompt(unittest.TestCase):
    def refused(self, index=A54, at=T0):
        u = fresh({"preset": index})
        self.assertEqual(u.game.press(LEFT, at), E.EV_REFUSED)
        return u

    def test_blacks_side_says_black_press_in_turn_until_the_start(self):
        u = self.refused()
        g = u.game
        for t, right in ((0, b"bLAc"), (999, b"bLAc"), (1_000, b"PrES"), (1_999, b"PrES")):
            self.assertEqual(shown(u, T0 + t), (b" 500", right), t)
            self.assertEqual((u.colon[0], u.colon[1]), (1, 0), t)  # White's time: 5:00
        self.assertEqual(shown(u, T0 + 3_600_000), (b" 500", b"bLAc"))  # an hour: still
        u.render(T0 + 10)
        self.assertEqual(u.next_change(T0 + 10), T0 + 1_000)
        u.render(T0 + 1_000)
        self.assertEqual(u.next_change(T0 + 1_000), T0 + 2_000)
        self.assertEqual(u.leds, 0)
        g.press(RIGHT, T0 + 2_500)  # Black: the game starts, the times show
        self.assertEqual(shown(u, T0 + 3_500), (b" 459", b" 400"))

    def test_swapped_the_prompt_is_on_the_left(self):
        u = fresh({"preset": A107, "swap": True})
        u.game.press(RIGHT, T0)
        self.assertEqual(shown(u, T0), (b"bLAc", b"1000"))
        self.assertEqual(shown(u, T0 + 1_000), (b"PrES", b"1000"))

    def test_play_swaps_and_ends_the_prompt(self):
        u = self.refused()
        u.key(ui.PLAY, ui.SHORT, T0 + 5_000)
        g = u.game
        self.assertEqual((g.white_side, g.refusals()), (RIGHT, 0))
        self.assertEqual(shown(u, T0 + 5_000), (b" 400", b" 500"))
        u.render(T0 + 5_000)
        self.assertEqual(u.next_change(T0 + 5_000), -1)  # the ready screen: keys only
        self.assertEqual(g.press(LEFT, T0 + 6_000), E.EV_START)  # Black (left) starts
        self.assertEqual(g.running, RIGHT)

    def test_other_buttons_end_the_prompt_and_do_what_they_do(self):
        # MINUS / PLUS: the info pages; back on the times, no prompt
        u = self.refused()
        u.key(ui.PLUS, ui.SHORT, T0 + 100)
        self.assertEqual(shown(u, T0 + 100)[0], b"b100")  # the battery page
        u.key(ui.MINUS, ui.SHORT, T0 + 200)
        self.assertEqual(shown(u, T0 + 200), (b" 500", b" 400"))
        self.assertEqual(u.game.state, E.READY)
        # A wrong press again: the prompt again
        u.game.press(LEFT, T0 + 300)
        self.assertEqual(shown(u, T0 + 300), (b" 500", b"bLAc"))
        # SET: the chooser; SET long there cancels nothing, PLAY re-selects: a fresh game
        u.key(ui.SET, ui.SHORT, T0 + 400)
        self.assertEqual(u.screen, ui.S_CHOOSE)
        u.key(ui.PLAY, ui.SHORT, T0 + 500)
        self.assertEqual((u.screen, u.game.refusals()), (ui.S_GAME, 0))
        self.assertEqual(shown(u, T0 + 500), (b" 500", b" 400"))

    def test_a_refused_press_over_an_info_page_shows_the_prompt(self):
        u = fresh({"preset": A54})
        u.key(ui.PLUS, ui.SHORT, T0)
        self.assertEqual(shown(u, T0)[0], b"b100")
        self.assertEqual(u.game.press(LEFT, T0 + 100), E.EV_REFUSED)
        self.assertEqual(shown(u, T0 + 100), (b" 500", b"bLAc"))
        u.render(T0 + 100)
        self.assertEqual(u.next_change(T0 + 100), T0 + 1_100)
        u.key(ui.PLUS, ui.SHORT, T0 + 200)  # a key: the prompt ends, the info pages go on
        self.assertEqual(u.game.state, E.READY)
        self.assertNotEqual(shown(u, T0 + 200)[1], b"bLAc")

    def test_the_prompt_wins_over_the_low_battery_blink(self):
        u = self.refused()
        u.battery_low = True  # the shell sets it from battery.py
        self.assertEqual(shown(u, T0 + 500), (b" 500", b"bLAc"))  # the blink's "on" half
        u.render(T0 + 500)
        self.assertEqual(u.next_change(T0 + 500), T0 + 1_000)
        u.key(ui.PLAY, ui.SHORT, T0 + 600)
        self.assertEqual(shown(u, T0 + 1_500), (b"bAt ", b" Lo "))  # the blink again

    def test_after_a_restart_of_the_monotonic_count_it_still_alternates(self):
        # monoclock.py restarts at 0 on a ready screen: the refused press's ms is older
        u = self.refused(at=600_000_000)
        self.assertEqual(shown(u, 10), (b" 500", b"bLAc"))
        u.render(10)
        self.assertEqual(u.next_change(10), 1_000)
        self.assertEqual(shown(u, 1_000)[1], b"PrES")


class Resume(unittest.TestCase):
    def test_a_resumed_paused_game_has_started_no_check(self):
        for swap in (False, True):
            control = presets.control(A54)
            if swap:
                control = control.swapped()
            g = E.Game(control)
            white = RIGHT if swap else LEFT
            self.assertEqual(g.press(white, T0), E.EV_REFUSED, swap)
            g.press(1 - white, T0 + 100)
            g.press(white, T0 + 2_100)  # White's first move
            g.pause(T0 + 3_000)  # Black on move
            snap = game_state.snapshot(g)
            h = E.Game(control)
            self.assertEqual(game_state.restore(h, snap), E.OK, swap)
            self.assertEqual((h.state, h.white, h.running), (E.PAUSED, white, 1 - white), swap)
            h.resume(T0 + 5_000)
            self.assertEqual(h.press(1 - white, T0 + 6_000), E.EV_MOVE, swap)
            self.assertEqual(h.press(white, T0 + 7_000), E.EV_MOVE, swap)
            self.assertEqual(h.refusals(), 0, swap)

    def test_a_game_begun_the_wrong_way_round_resumes_as_it_was(self):
        # A snapshot whose White is on the side the control gives Black (a game started
        # the wrong way round, or a file from a clock without the check): it is a game in
        # progress, restored as it stands.
        g = E.Game(presets.control(A107).swapped())  # White's side on the right ...
        g.press(LEFT, T0)  # ... Black (left) starts: White is the right
        g.pause(T0 + 1_000)
        snap = list(game_state.snapshot(g))
        h = E.Game(presets.control(A107))  # restored under the unswapped control
        self.assertEqual(game_state.restore(h, snap), E.OK)
        self.assertEqual((h.white, h.running), (RIGHT, RIGHT))
        h.resume(T0 + 2_000)
        self.assertEqual(h.press(RIGHT, T0 + 3_000), E.EV_MOVE)

    def test_the_ready_screen_after_a_power_cut_keeps_whites_side(self):
        for control in ({"preset": A54, "swap": True}, swapped(custom(DRAW_ODDS_BLACK))):
            checked = settings.check_control(control, presets.COUNT)
            self.assertEqual(checked, control)
            g = E.Game(presets.control_of(checked))
            self.assertEqual(g.white_side, RIGHT)
            self.assertEqual(g.press(RIGHT, T0), E.EV_REFUSED)
            self.assertEqual(g.press(LEFT, T0 + 100), E.EV_START)


if __name__ == "__main__":
    unittest.main()
