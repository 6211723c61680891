"""Scenario tests of time odds: each side under its own control, draw odds.

Runs under CPython (pytest) and under MicroPython 1.27 (test_micropython_core.py). The two
Armageddon presets are played to a flag, to a draw by material and to a dead position, the
rulings entered through the UI (pure: ui.Ui, no board) and the record written by
archive.py; then every rule that joins two controls, one scenario each. Times are ms; T0
is large on purpose (close to the 2**30 small-int limit). Sides: 0 left, 1 right; the
presets give the left White's control, so Black (right) presses first (6.5).
"""

import json
import unittest

import archive
import engine as E
import game_state
import presets
import settings
import ui
from scratch import fresh_dir, remove_tree
from timecontrol import (
    BONUS_DELAY,
    BONUS_FISCHER,
    BONUS_NONE,
    DRAW_ODDS_BLACK,
    DRAW_ODDS_WHITE,
    MODE_BYOYOMI,
    MODE_CANADIAN,
    MODE_COUNTDOWN,
    MODE_HOURGLASS,
    Odds,
    TimeControl,
    TimeControlError,
    from_seconds,
)

T0 = 1_000_000_000
LEFT = 0
RIGHT = 1
A54 = 19  # presets: Armageddon 5 v 4, 2 s from move 61, draw odds to Black
A107 = 20  # Armageddon 10 v 7, draw odds to Black


def armageddon_ui(index):
    """The UI with preset `index` ready, and Black (right) has pressed at T0: White's
    (left) clock runs."""
    u = ui.Ui(settings.defaults())
    u.settings["control"] = {"preset": index}
    u.new_game()
    assert u.game.press(RIGHT, T0) == E.EV_START
    return u


def shown(u, now=T0):
    u.render(now)
    return bytes(u.text[0]), bytes(u.text[1])


def keys(u, *presses):
    """Button presses, each (button[, kind]); returns the last one's REQ_* bits."""
    req = 0
    for p in presses:
        req = u.key(p[0], p[1] if len(p) > 1 else ui.SHORT, T0)
    return req


def play(g, durations, t):
    """Moves of the given ms each, the side on move pressing; returns the instant after."""
    for d in durations:
        t += d
        g.press(g.running, t)
    return t


def record(game):
    """The record archive.py writes for the finished `game`, read back."""
    root = fresh_dir("/tmp/clock-odds")
    try:
        name = archive.write_record(root, game)
        with open(root + "/games/" + name) as f:
            return json.load(f)
    finally:
        remove_tree(root)


class Presets(unittest.TestCase):
    def test_the_armageddon_rows_are_appended_with_time_and_draw_odds(self):
        self.assertEqual(presets.COUNT, 21)
        for index, white_ms, black_ms in ((A54, 300_000, 240_000), (A107, 600_000, 420_000)):
            c = presets.control(index)
            self.assertTrue(isinstance(c, Odds))
            self.assertEqual(c.draw_odds, DRAW_ODDS_BLACK)
            self.assertEqual(c.sides[LEFT].periods[0][0], white_ms)
            self.assertEqual(c.sides[RIGHT].periods[0][0], black_ms)
            self.assertEqual(c.name, presets.name(index))
        left, right = presets.control(A54).sides
        for side in (left, right):  # 60 moves, then the rest of the game with 2 s a move
            self.assertEqual(side.ends, (60, 0))
            self.assertEqual(side.periods[1], (0, 0, BONUS_FISCHER, 2_000))
        self.assertEqual(presets.code(A54), "A5-4")
        self.assertEqual(presets.code(A107), "A107")

    def test_each_display_shows_its_own_starting_time_before_the_first_press(self):
        u = ui.Ui(settings.defaults())
        u.settings["control"] = {"preset": A54}
        u.new_game()
        self.assertEqual(u.game.state, E.READY)
        self.assertEqual(shown(u), (b" 500", b" 400"))
        self.assertEqual((u.colon[0], u.colon[1]), (1, 1))
        u.settings["control"] = {"preset": A107}
        u.new_game()
        self.assertEqual(shown(u), (b"1000", b" 700"))


class Armageddon54(unittest.TestCase):
    def test_the_increment_comes_from_move_61_for_each_side(self):
        u = armageddon_ui(A54)
        g = u.game
        t = play(g, [1_000] * 120, T0)  # 60 moves each, 1 s a move
        self.assertEqual((g.moves[LEFT], g.moves[RIGHT]), (60, 60))
        self.assertEqual((g.period[LEFT], g.period[RIGHT]), (1, 1))
        self.assertEqual(g.main[LEFT], 300_000 - 60_000)  # the second period brings 0 s
        self.assertEqual(g.main[RIGHT], 240_000 - 60_000)
        t = play(g, [1_000, 1_000], t)  # move 61 each: + 2 s
        self.assertEqual(g.main[LEFT], 240_000 - 1_000 + 2_000)
        self.assertEqual(g.main[RIGHT], 180_000 - 1_000 + 2_000)
        self.assertEqual(g.log_entries()[-1], (RIGHT, 61, 1_000, 181_000))

    def test_white_flags_and_loses(self):
        u = armageddon_ui(A54)
        g = u.game
        t = play(g, [10_000] * 20, T0)  # 10 moves each: White 200 s left, Black 140 s
        self.assertEqual(g.running, LEFT)
        self.assertEqual(g.deadline(), t + 200_000)
        self.assertEqual(g.tick(t + 200_000), E.EV_FLAG)
        self.assertEqual((g.state, g.first_flag), (E.FLAGGED, LEFT))
        self.assertEqual(g.remaining(RIGHT, t + 200_000), 140_000)
        keys(u, (ui.SET,))  # the material entry: Black has a pawn, rook or queen
        keys(u, (ui.PLAY,))
        self.assertEqual(shown(u), (b"  0 ", b"  1 "))
        self.assertEqual(keys(u, (ui.PLAY,)) & ui.REQ_LOG_GAME, ui.REQ_LOG_GAME)
        self.assertEqual((g.result, g.reason), (E.RESULT_RIGHT_WINS, E.REASON_FLAG))
        r = record(g)
        self.assertEqual((r["white"], r["result"], r["reason"]), (LEFT, "0-1", "flag"))
        self.assertEqual(r["draw_odds"], "black")
        self.assertEqual(r["controls"]["white"]["periods"], [[300, 60, 0, 0], [0, 0, 1, 2]])
        self.assertEqual(r["controls"]["black"]["periods"], [[240, 60, 0, 0], [0, 0, 1, 2]])
        self.assertFalse("drawn_by" in r)

    def test_black_flags_but_white_cannot_mate_a_draw_is_blacks_win(self):
        u = armageddon_ui(A54)
        g = u.game
        t = play(g, [3_000] * 21, T0)  # White 11 moves (33 s), Black 10 (30 s): Black runs
        self.assertEqual(g.running, RIGHT)
        self.assertEqual(g.tick(t + 210_000), E.EV_FLAG)
        self.assertEqual(g.first_flag, RIGHT)
        keys(u, (ui.SET,), (ui.PLUS,))  # White (the opponent) has a lone king
        self.assertEqual(shown(u), (b"OPP ", b"  h "))
        keys(u, (ui.PLAY,))
        # A draw, shown as what it is under draw odds: Black's (right) win
        self.assertEqual(shown(u), (b"  0 ", b"  1 "))
        keys(u, (ui.PLAY,))
        self.assertEqual(g.result, E.RESULT_RIGHT_WINS)
        self.assertEqual(g.reason, E.REASON_FLAG | E.BY_DRAW_ODDS)
        r = record(g)
        self.assertEqual((r["result"], r["reason"], r["drawn_by"]), ("0-1", "draw odds", "flag"))

    def test_a_dead_position_is_blacks_win(self):
        u = armageddon_ui(A54)
        g = u.game
        t = play(g, [2_000] * 7, T0)
        g.pause(t + 500)
        keys(u, (ui.SET, ui.LONG))
        keys(u, *[(ui.SET,)] * 11)
        self.assertEqual(shown(u), (b"dEAd", b"PLAY"))
        self.assertEqual(keys(u, (ui.PLAY,)), ui.REQ_LOG_GAME | ui.REQ_CLEAR_GAME)
        self.assertEqual((g.state, g.result), (E.FINISHED, E.RESULT_RIGHT_WINS))
        self.assertEqual(shown(u, 0), (b"  0 ", b"  1 "))
        r = record(g)
        self.assertEqual(
            (r["result"], r["reason"], r["drawn_by"]), ("0-1", "draw odds", "dead position")
        )


class Armageddon107(unittest.TestCase):
    def test_black_flags_and_loses(self):
        u = armageddon_ui(A107)
        g = u.game
        t = play(g, [20_000] * 41, T0)  # White 21 moves, Black 20: Black (right) runs
        self.assertEqual(g.remaining(LEFT, t), 600_000 - 21 * 20_000)
        self.assertEqual(g.deadline(), t + 420_000 - 20 * 20_000)
        g.tick(t + 30_000)
        self.assertEqual((g.state, g.first_flag), (E.FLAGGED, RIGHT))
        keys(u, (ui.SET,), (ui.PLAY,), (ui.PLAY,))  # White has a pawn, rook or queen
        self.assertEqual(g.result, E.RESULT_LEFT_WINS)
        self.assertEqual(record(g)["result"], "1-0")

    def test_white_flags_and_black_cannot_mate_is_blacks_win_anyway(self):
        # The draw counts for Black: White's flag against a lone king is Black's win.
        u = armageddon_ui(A107)
        g = u.game
        g.tick(T0 + 600_000)
        self.assertEqual(g.first_flag, LEFT)
        keys(u, (ui.SET,), (ui.PLUS,), (ui.PLAY,))
        self.assertEqual(shown(u), (b"  0 ", b"  1 "))
        keys(u, (ui.PLAY,))
        self.assertEqual(g.result, E.RESULT_RIGHT_WINS)
        r = record(g)
        self.assertEqual((r["result"], r["reason"]), ("0-1", "draw odds"))
        self.assertEqual(r["controls"]["white"], {"mode": 0, "periods": [[600, 0, 0, 0]]})
        self.assertEqual(r["controls"]["black"], {"mode": 0, "periods": [[420, 0, 0, 0]]})

    def test_a_dead_position_through_the_material_entry_is_blacks_win(self):
        u = armageddon_ui(A107)
        g = u.game
        g.tick(T0 + 600_000)
        keys(u, (ui.SET,), (ui.MINUS,))  # the last choice: dEAd
        self.assertEqual(shown(u), (b"OPP ", b"dEAd"))
        keys(u, (ui.PLAY,), (ui.PLAY,))
        self.assertEqual(g.result, E.RESULT_RIGHT_WINS)
        self.assertEqual(g.reason, E.REASON_DEAD | E.BY_DRAW_ODDS)

    def test_swapped_the_white_side_is_on_the_right(self):
        u = ui.Ui(settings.defaults())
        u.settings["control"] = {"preset": A107}
        u.new_game()
        self.assertEqual(keys(u, (ui.PLAY,)), ui.REQ_SAVE_SETTINGS | ui.REQ_CLEAR_GAME)
        self.assertEqual(shown(u), (b" 700", b"1000"))
        self.assertEqual(u.settings["control"], {"preset": A107, "swap": True})
        g = u.game
        g.press(LEFT, T0)  # Black is on the left now
        self.assertEqual(g.white, RIGHT)
        g.tick(T0 + 600_000)
        self.assertEqual((g.first_flag, g.remaining(LEFT, T0 + 600_000)), (RIGHT, 420_000))
        g.pause(T0 + 600_001)  # already flagged: refused
        self.assertEqual(game_state.finish(g, E.RESULT_DRAW, E.REASON_DEAD, T0 + 600_001), E.OK)
        self.assertEqual(g.result, E.RESULT_LEFT_WINS)  # Black (left) has the draw odds


class Rules(unittest.TestCase):
    """Every rule that looks at a control, per side."""

    def test_odds_are_one_mode_and_a_colour(self):
        c = from_seconds(MODE_COUNTDOWN, [[60, 0, 0, 0]])
        h = TimeControl([(60_000, 0, BONUS_NONE, 0)], MODE_HOURGLASS)
        for bad in (lambda: Odds(c, h), lambda: Odds(c, c, 3), lambda: Odds(c, None)):
            with self.assertRaises(TimeControlError):
                bad()
        o = Odds(c, from_seconds(MODE_COUNTDOWN, [[30, 0, 0, 0]]), DRAW_ODDS_WHITE)
        self.assertEqual(o.swapped().sides, (o.sides[1], o.sides[0]))
        self.assertEqual(o.swapped().draw_odds, DRAW_ODDS_WHITE)

    def test_move_counts_and_periods_follow_each_sides_control(self):
        left = from_seconds(MODE_COUNTDOWN, [[600, 3, 0, 0], [300, 0, 0, 0]])
        right = from_seconds(MODE_COUNTDOWN, [[600, 5, 0, 0], [60, 2, 0, 0], [30, 0, 0, 0]])
        g = E.Game(Odds(left, right))
        g.press(RIGHT, T0)  # left (White) runs
        t = T0
        for n in range(1, 7):
            t = play(g, [1_000, 1_000], t)
            self.assertEqual(g.period[LEFT], 0 if n < 3 else 1, n)
            self.assertEqual(g.period[RIGHT], 0 if n < 5 else 1, n)
        self.assertEqual(g.main[LEFT], 600_000 - 6_000 + 300_000)
        self.assertEqual(g.main[RIGHT], 600_000 - 6_000 + 60_000)
        t = play(g, [1_000, 1_000], t)  # right's 7th: its third period
        self.assertEqual(g.period[RIGHT], 2)
        self.assertEqual(g.main[RIGHT], 654_000 - 1_000 + 30_000)
        self.assertTrue(g.is_last_period(LEFT) and g.is_last_period(RIGHT))
        self.assertEqual(g.first_passed, LEFT)
        self.assertEqual(game_state.set_period(g, LEFT, 2, t), E.ERR_STATE)
        g.pause(t)
        self.assertEqual(
            game_state.set_period(g, LEFT, 2, t), E.ERR_RANGE
        )  # the left has two periods
        self.assertEqual(game_state.set_period(g, RIGHT, 2, t), E.OK)

    def test_each_side_its_own_bonus(self):
        left = from_seconds(MODE_COUNTDOWN, [[60, 0, BONUS_FISCHER, 5]])
        right = from_seconds(MODE_COUNTDOWN, [[90, 0, BONUS_DELAY, 3]])
        g = E.Game(Odds(left, right))
        g.press(RIGHT, T0)
        self.assertEqual((g.bonus_kind(LEFT), g.bonus_ms(LEFT)), (BONUS_FISCHER, 5_000))
        self.assertEqual((g.bonus_kind(RIGHT), g.bonus_ms(RIGHT)), (BONUS_DELAY, 3_000))
        play(g, [2_000, 4_000], T0)
        self.assertEqual(g.main[LEFT], 60_000 - 2_000 + 5_000)
        self.assertEqual(g.main[RIGHT], 90_000 - 1_000)  # 4 s used, the first 3 s free

    def test_flags_with_freeze_off_which_fell_first_and_no_time_to_a_fallen_flag(self):
        left = from_seconds(MODE_COUNTDOWN, [[10, 0, BONUS_FISCHER, 2]])
        right = from_seconds(MODE_COUNTDOWN, [[20, 0, BONUS_FISCHER, 1]])
        g = E.Game(Odds(left, right), freeze=False)
        g.press(RIGHT, T0)  # the left runs: 10 s
        self.assertEqual(g.tick(T0 + 10_000), E.EV_FLAG)
        self.assertEqual((g.state, g.first_flag), (E.RUNNING, LEFT))
        g.press(LEFT, T0 + 12_000)  # a move after the flag: no increment
        self.assertEqual(g.main[LEFT], 0)
        self.assertEqual(g.deadline(), T0 + 12_000 + 20_000)
        g.press(RIGHT, T0 + 15_000)  # the right gets its own 1 s
        self.assertEqual(g.main[RIGHT], 20_000 - 3_000 + 1_000)
        g.press(LEFT, T0 + 16_000)
        self.assertEqual(g.tick(T0 + 16_000 + 18_000), E.EV_FLAG)
        self.assertEqual((g.state, g.first_flag), (E.FLAGGED, LEFT))
        self.assertEqual((g.flag_at[LEFT], g.flag_at[RIGHT]), (T0 + 10_000, T0 + 34_000))

    def test_the_hourglass_moves_what_the_mover_loses_whatever_each_started_with(self):
        hg = MODE_HOURGLASS
        c = Odds(*(TimeControl([(ms, 0, BONUS_NONE, 0)], hg) for ms in (60_000, 30_000)))
        g = E.Game(c)
        g.press(RIGHT, T0)  # the left (60 s) runs
        self.assertEqual(g.remaining(RIGHT, T0 + 5_000), 35_000)
        g.press(LEFT, T0 + 5_000)
        self.assertEqual((g.main[LEFT], g.main[RIGHT]), (55_000, 35_000))
        self.assertEqual(g.tick(T0 + 5_000 + 35_000), E.EV_FLAG)  # the right's 35 s
        self.assertEqual(g.remaining(LEFT, T0 + 50_000), 90_000)  # all of it, no more

    def test_byoyomi_and_canadian_overtime_each_its_own(self):
        left = TimeControl([(0, 0, BONUS_NONE, 0)], MODE_BYOYOMI, overtime=(3, 10_000))
        right = TimeControl([(5_000, 0, BONUS_NONE, 0)], MODE_BYOYOMI, overtime=(2, 20_000))
        g = E.Game(Odds(left, right))
        self.assertEqual((g.in_overtime(LEFT), g.in_overtime(RIGHT)), (True, False))
        self.assertEqual((g.ot_left[LEFT], g.ot_left[RIGHT]), (3, 2))
        g.press(RIGHT, T0)
        g.press(LEFT, T0 + 12_000)  # a period of the left used up, the move in the next
        self.assertEqual((g.ot_left[LEFT], g.main[LEFT]), (2, 10_000))
        self.assertEqual(g.tick(T0 + 17_000), E.EV_PERIOD)  # the right's main time is over
        self.assertEqual(g.remaining(RIGHT, T0 + 20_000), 17_000)
        g.pause(T0 + 20_000)
        self.assertEqual(game_state.set_overtime(g, LEFT, 3, T0 + 20_000), E.OK)
        self.assertEqual(
            game_state.set_overtime(g, RIGHT, 3, T0 + 20_000), E.ERR_RANGE
        )  # it has two
        left = TimeControl([(0, 0, BONUS_NONE, 0)], MODE_CANADIAN, overtime=(2, 10_000))
        right = TimeControl([(0, 0, BONUS_NONE, 0)], MODE_CANADIAN, overtime=(3, 30_000))
        g = E.Game(Odds(left, right))
        g.press(RIGHT, T0)
        t = play(g, [4_000] * 6, T0)  # 3 moves each: the left's block of 2 renewed
        self.assertEqual((g.ot_left[LEFT], g.main[LEFT]), (1, 6_000))
        self.assertEqual((g.ot_left[RIGHT], g.main[RIGHT]), (3, 30_000))
        self.assertEqual(g.log_entries()[-1], (RIGHT, 3, 4_000, 30_000, 3))
        self.assertEqual(g.deadline(), t + 6_000)

    def test_g4_looks_at_both_controls(self):
        plain = from_seconds(MODE_COUNTDOWN, [[100, 0, 0, 0]])
        inc = from_seconds(MODE_COUNTDOWN, [[60, 0, BONUS_FISCHER, 2]])
        for control, ok in ((Odds(plain, inc), E.ERR_NOT_APPLICABLE), (Odds(plain, plain), E.OK)):
            g = E.Game(control)
            g.press(RIGHT, T0)
            g.pause(T0 + 1_000)  # the left, 99 s left, asks
            self.assertEqual(game_state.appendix_g4(g, LEFT, BONUS_FISCHER, T0 + 1_000), ok)
        g = E.Game(Odds(plain, from_seconds(MODE_COUNTDOWN, [[200, 0, 0, 0]])))
        g.press(RIGHT, T0)
        g.pause(T0 + 1_000)
        self.assertEqual(game_state.appendix_g4(g, LEFT, BONUS_DELAY, T0 + 1_000), E.OK)
        self.assertEqual(g.remaining(RIGHT, 0), 200_000 + 120_000)
        self.assertEqual((g.bonus_kind(RIGHT), g.bonus_ms(RIGHT)), (BONUS_DELAY, 5_000))

    def test_arbiter_corrections_touch_one_side_only(self):
        g = E.Game(presets.control(A54))
        g.press(RIGHT, T0)
        g.pause(T0 + 10_000)
        self.assertEqual(game_state.add_time(g, RIGHT, 120_000, T0 + 10_000), E.OK)
        self.assertEqual(game_state.set_time(g, LEFT, 100_000, T0 + 10_000), E.OK)
        self.assertEqual((g.remaining(LEFT, 0), g.remaining(RIGHT, 0)), (100_000, 360_000))
        self.assertEqual(game_state.set_moves(g, RIGHT, 59, T0 + 10_000), E.OK)
        g.resume(T0 + 11_000)
        g.press(LEFT, T0 + 12_000)
        g.press(RIGHT, T0 + 13_000)  # the right's 60th move: its second period, then + 2 s
        self.assertEqual((g.period[LEFT], g.period[RIGHT]), (0, 1))

    def test_finish_is_validated(self):
        g = E.Game(presets.control(A107))
        self.assertEqual(
            game_state.finish(g, E.RESULT_DRAW, 3, T0), E.ERR_STATE
        )  # nobody has pressed
        self.assertEqual(game_state.win_of(g, E.WHITE), E.RESULT_NONE)
        g.press(RIGHT, T0)
        self.assertEqual(game_state.win_of(g, E.WHITE), E.RESULT_LEFT_WINS)
        self.assertEqual(game_state.win_of(g, E.BLACK), E.RESULT_RIGHT_WINS)
        self.assertEqual(game_state.draw_result(g), E.RESULT_RIGHT_WINS)
        self.assertEqual(game_state.finish(g, E.RESULT_NONE, 3, T0 + 1), E.ERR_RANGE)
        self.assertEqual(game_state.finish(g, E.RESULT_DRAW, E.BY_DRAW_ODDS, T0 + 1), E.ERR_RANGE)
        self.assertEqual(g.state, E.RUNNING)
        self.assertEqual(game_state.finish(g, E.RESULT_LEFT_WINS, 3, T0 + 1), E.OK)
        self.assertEqual(game_state.finish(g, E.RESULT_RIGHT_WINS, 3, T0 + 2), E.ERR_STATE)  # once
        self.assertEqual((g.result, g.reason), (E.RESULT_LEFT_WINS, 3))  # a win stays a win


class Resume(unittest.TestCase):
    def test_snapshot_keeps_both_controls_times(self):
        g = E.Game(presets.control(A54))
        g.press(RIGHT, T0)
        t = play(g, [1_500] * 125, T0)  # into the second period, increments given
        g.pause(t + 700)
        h = E.Game(presets.control(A54))
        self.assertEqual(game_state.restore(h, game_state.snapshot(g)), E.OK)
        for side in (0, 1):
            self.assertEqual(h.remaining_exact(side, 0), g.remaining_exact(side, 0))
            self.assertEqual((h.period[side], h.moves[side]), (g.period[side], g.moves[side]))
        # The same snapshot under the swapped control: each side is bounded by its own
        h = E.Game(presets.control(A54).swapped())
        self.assertEqual(game_state.restore(h, game_state.snapshot(g)), E.OK)

    def test_a_byoyomi_period_re_based_past_24_h_comes_back(self):
        # The first case: 10 h main, 99 periods of 1 h, a move paused after 24 h.
        c = TimeControl([(36_000_000, 0, BONUS_NONE, 0)], MODE_BYOYOMI, overtime=(99, 3_600_000))
        g = E.Game(c)
        g.press(0, 0)
        g.pause(86_400_000)
        snap = game_state.snapshot(g)
        self.assertTrue(snap[12 + 1] > E.MAX_SET_MS)  # the right's main, at its move's start
        h = E.Game(c)
        self.assertEqual(game_state.restore(h, snap), E.OK)
        self.assertEqual(h.remaining(1, 0), g.remaining(1, 0))
        self.assertEqual(h.ot_left[1], g.ot_left[1])

    def test_carried_over_periods_past_24_h_come_back(self):
        # The second case: four 10 h periods of one move each, three moves a side.
        c = TimeControl([(36_000_000, 1, BONUS_NONE, 0)] * 3 + [(36_000_000, 0, BONUS_NONE, 0)])
        g = E.Game(c)
        g.press(0, 0)
        play(g, [60_000] * 6, 0)
        g.pause(400_000)
        self.assertTrue(g.main[0] > E.MAX_SET_MS and g.main[1] > E.MAX_SET_MS)
        h = E.Game(c)
        self.assertEqual(game_state.restore(h, game_state.snapshot(g)), E.OK)
        self.assertEqual(h.remaining(0, 0), 144_000_000 - 180_000)  # the left, not on move
        self.assertEqual(h.remaining(1, 0), g.remaining(1, 0))

    def test_a_time_above_what_the_control_can_give_is_refused(self):
        g = E.Game(presets.control(A107))
        g.press(RIGHT, T0)
        g.pause(T0 + 1_000)
        snap = game_state.snapshot(g)
        most = E.MAX_SET_MS + 420_000  # the right's own control: 7 min, no increment
        for value, ok in ((most, E.OK), (most + 1, E.ERR_RANGE)):
            bad = list(snap)
            bad[12 + RIGHT] = value
            self.assertEqual(game_state.restore(E.Game(presets.control(A107)), bad), ok, value)
        bad = list(snap)
        bad[12 + LEFT] = E.MAX_SET_MS + 600_000 + 1_000  # the left is on move: 1 s played
        self.assertEqual(game_state.restore(E.Game(presets.control(A107)), bad), E.OK)
        bad[12 + LEFT] += 1
        self.assertEqual(game_state.restore(E.Game(presets.control(A107)), bad), E.ERR_RANGE)
        # Nothing changed by a refused snapshot
        h = E.Game(presets.control(A107))
        game_state.restore(h, bad)
        self.assertEqual((h.state, h.main[LEFT]), (E.READY, 600_000))

    def test_the_saved_control_comes_back_with_its_sides(self):
        for c in (
            {"preset": A54, "swap": True},
            {"custom": {"mode": 0, "periods": [[300, 0, 1, 2]], "draw_odds": 1}},
            {
                "custom": {
                    "mode": 3,
                    "periods": [[60, 0, 0, 0]],
                    "overtime": [3, 10],
                    "right": {"periods": [[0, 0, 0, 0]], "overtime": [5, 20]},
                }
            },
        ):
            self.assertEqual(settings.check_control(c, presets.COUNT), c)
            control = presets.control_of(c)
            self.assertTrue(isinstance(control, Odds))
        left, right = presets.control_of({"preset": A54, "swap": True}).sides
        self.assertEqual((left.periods[0][0], right.periods[0][0]), (240_000, 300_000))
        o = presets.control_of(c)
        self.assertEqual((o.sides[0].ot_count, o.sides[1].ot_count), (3, 5))
        self.assertEqual(o.sides[1].periods[0][0], 0)
