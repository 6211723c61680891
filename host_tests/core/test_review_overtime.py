"""Byo-yomi and Canadian overtime and the saved log in the pure core: edge
instants of the overtime rules, snapshots the engine must refuse, and the largest saved
log of an overtime game on the runtime's real files.

Runs under CPython (pytest) and under MicroPython 1.27 (test_micropython_core.py).
"""

import os
import unittest

import archive
import engine as E
import game_state
import settings
import storage
from scratch import fresh_dir
from timecontrol import (
    BONUS_DELAY,
    BONUS_FISCHER,
    BONUS_NONE,
    MODE_BYOYOMI,
    MODE_CANADIAN,
    MODE_UPCOUNT,
    TimeControl,
    from_seconds,
)

T0 = 1_000_000_000
LEFT = 0
RIGHT = 1


def byoyomi(main_s, periods, period_s, inc_s=0):
    bonus = BONUS_FISCHER if inc_s else BONUS_NONE
    return from_seconds(MODE_BYOYOMI, [[main_s, 0, bonus, inc_s]], overtime=[periods, period_s])


def canadian(main_s, moves, block_s):
    return from_seconds(MODE_CANADIAN, [[main_s, 0, BONUS_NONE, 0]], overtime=[moves, block_s])


def started(control, **opts):
    g = E.Game(control, **opts)
    g.press(LEFT, T0)  # White (right) runs
    return g


class EdgeInstants(unittest.TestCase):
    def test_a_press_at_the_last_periods_end_is_the_flag_one_ms_before_keeps_it(self):
        g = started(byoyomi(0, 2, 10))
        self.assertEqual(g.press(RIGHT, T0 + 19_999), E.EV_PERIOD | E.EV_MOVE)
        self.assertEqual((g.main[RIGHT], g.ot_left[RIGHT], g.state), (10_000, 1, E.RUNNING))
        h = started(byoyomi(0, 2, 10))
        self.assertEqual(h.press(RIGHT, T0 + 20_000), E.EV_PERIOD | E.EV_FLAG)
        self.assertEqual((h.state, h.moves[RIGHT], h.flag_at[RIGHT]), (E.FLAGGED, 0, T0 + 20_000))

    def test_the_mth_move_at_the_blocks_end_is_the_flag_one_ms_before_a_new_block(self):
        g = started(canadian(0, 2, 10))
        g.press(RIGHT, T0 + 4_000)
        g.press(LEFT, T0 + 5_000)
        self.assertEqual(g.press(RIGHT, T0 + 10_999), E.EV_MOVE | E.EV_PERIOD)
        self.assertEqual((g.main[RIGHT], g.ot_left[RIGHT]), (10_000, 2))
        h = started(canadian(0, 2, 10))
        h.press(RIGHT, T0 + 4_000)
        h.press(LEFT, T0 + 5_000)
        self.assertEqual(h.press(RIGHT, T0 + 11_000), E.EV_FLAG)
        self.assertEqual((h.state, h.ot_left[RIGHT], h.moves[RIGHT]), (E.FLAGGED, 1, 1))

    def test_one_move_blocks_renew_at_every_move(self):
        g = started(canadian(0, 1, 10))
        for k in range(1, 4):
            self.assertEqual(g.press(RIGHT, T0 + 2 * k * 9_000 - 9_000), E.EV_MOVE | E.EV_PERIOD)
            self.assertEqual((g.main[RIGHT], g.ot_left[RIGHT]), (10_000, 1))
            g.press(LEFT, T0 + 2 * k * 9_000)
        self.assertEqual([e[4] for e in g.log_entries() if e[0] == RIGHT], [1, 1, 1])

    def test_periods_set_by_the_arbiter_in_main_time_are_the_ones_overtime_starts_with(self):
        g = started(byoyomi(60, 5, 10))
        g.pause(T0 + 1_000)
        self.assertEqual(game_state.set_overtime(g, RIGHT, 2, T0 + 1_000), E.OK)
        g.resume(T0 + 2_000)
        self.assertEqual(g.tick(T0 + 61_000), E.EV_PERIOD)
        self.assertEqual((g.ot_left[RIGHT], g.remaining(RIGHT, T0 + 61_000)), (2, 10_000))
        self.assertEqual(g.tick(T0 + 81_000), E.EV_PERIOD | E.EV_FLAG)

    def test_appendix_g4_is_refused_in_both_overtime_modes(self):
        for control in (byoyomi(100, 5, 30), byoyomi(100, 5, 30, 5), canadian(100, 5, 60)):
            g = started(control)
            g.pause(T0 + 50_000)
            for kind in (BONUS_FISCHER, BONUS_DELAY):
                self.assertEqual(game_state.appendix_g4(g, RIGHT, kind, T0), E.ERR_NOT_APPLICABLE)
            self.assertFalse(g.g4_applied)

    def test_freeze_off_second_flag_in_canadian_keeps_the_first(self):
        g = started(canadian(0, 3, 10), freeze=False)
        self.assertEqual(g.tick(T0 + 10_000), E.EV_FLAG)  # right: two moves still to make
        g.press(RIGHT, T0 + 12_000)  # play goes on; the left runs its block
        self.assertEqual(g.tick(T0 + 22_000), E.EV_FLAG)
        self.assertEqual((g.state, g.first_flag, g.flag_at[LEFT]), (E.FLAGGED, RIGHT, T0 + 22_000))
        self.assertEqual((g.main[0], g.main[1]), (0, 0))


class Snapshots(unittest.TestCase):
    def test_flags_and_first_sides_out_of_range_are_refused_and_change_nothing(self):
        g = started(byoyomi(60, 3, 10))
        g.pause(T0 + 5_000)
        snap = game_state.snapshot(g)
        for index, value in ((18, 2), (19, 1000), (18, -1), (5, 5), (6, -2)):
            bad = list(snap)
            bad[index] = value
            h = E.Game(g.control)
            self.assertEqual(game_state.restore(h, bad), E.ERR_RANGE, (index, value))
            self.assertEqual((h.state, h.flagged[0], h.flagged[1]), (E.READY, 0, 0))
        self.assertEqual(game_state.restore(E.Game(g.control), snap), E.OK)

    def test_a_stopwatch_set_below_its_paused_moves_time_is_saved_and_restored(self):
        control = TimeControl([(0, 0, BONUS_NONE, 0)], MODE_UPCOUNT)
        g = started(control)
        g.pause(T0 + 300_000)  # the right has used 5 min of this move
        self.assertEqual(
            game_state.set_time(g, RIGHT, 60_000, T0 + 301_000), E.OK
        )  # the arbiter: 1 min
        self.assertEqual(g.remaining(RIGHT, 0), 60_000)
        h = E.Game(control)
        self.assertEqual(
            game_state.restore(h, game_state.snapshot(g)), E.OK
        )  # was refused: main time -240 000
        self.assertEqual((h.remaining(RIGHT, 0), h.remaining(LEFT, 0)), (60_000, 0))
        h.resume(1_000)
        self.assertEqual(h.remaining(RIGHT, 3_000), 62_000)


class LargestOvertimeLog(unittest.TestCase):
    """Canadian blocks of 200 moves: the packed first int of a saved row is at its largest
    (ot << 16 with ot up to 200), and 600 rows must still fit GAME_READ_LIMIT."""

    def setUp(self):
        self.root = fresh_dir("/tmp/clock-review")

    def tearDown(self):
        for name in os.listdir(self.root):
            os.remove(self.root + "/" + name)
        os.rmdir(self.root)

    def test_a_long_canadian_game_saves_and_comes_back_with_its_counters(self):
        control = canadian(0, 200, 36_000)  # 10 h blocks: the largest times too
        g = started(control)
        t = T0
        for i in range(E.LOG_CAPACITY + 40):
            t += 100_000 + i
            g.press(g.running, t)
        g.pause(t + 1)
        custom = {"mode": 4, "periods": [[0, 0, 0, 0]], "overtime": [200, 36_000]}
        self.assertTrue(archive.save(self.root, g, {"custom": custom}, os))
        self.assertTrue(storage.size(self.root + "/game.json") < settings.GAME_READ_LIMIT)
        saved = settings.load_game(self.root)
        h = E.Game(control)
        self.assertEqual(game_state.restore(h, saved["snap"]), E.OK)
        self.assertEqual(game_state.restore_log(h, saved["n"], saved["log"]), E.OK)
        self.assertEqual(h.log_entries(), g.log_entries())
        self.assertTrue(max(e[4] for e in h.log_entries()) >= 190)
