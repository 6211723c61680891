"""Scenario tests for the game engine, one or more per rule of FIDE article 6 / Appendix G.

Runs under CPython (pytest) and under MicroPython 1.27 (test_micropython_core.py).
Times are ms on the shell's monotonic clock; T0 is deliberately large.
"""

import unittest

import engine as E
import game_state
import presets
from timecontrol import (
    BONUS_BRONSTEIN,
    BONUS_DELAY,
    BONUS_FISCHER,
    BONUS_NONE,
    MODE_BYOYOMI,
    MODE_CANADIAN,
    MODE_HOURGLASS,
    MODE_UPCOUNT,
    TimeControl,
    TimeControlError,
    from_seconds,
    sides_of,
)

T0 = 1_000_000_000  # close to the 2**30 small-int limit on purpose
MIN = 60_000
LEFT = 0
RIGHT = 1


def single(time_s, bonus=BONUS_NONE, bonus_s=0):
    return from_seconds(0, [[time_s, 0, bonus, bonus_s]])


def started(control, **opts):
    """A game where Black (left) has pressed at T0, so White (right) is running."""
    g = E.Game(control, **opts)
    assert g.press(LEFT, T0) == E.EV_START
    return g


def play(g, durations, start):
    """Alternate moves, each lasting the given ms, starting with the running side."""
    t = start
    for d in durations:
        t += d
        g.press(g.running, t)
    return t


class Start(unittest.TestCase):
    def test_black_starts_whites_clock(self):  # 6.5
        g = E.Game(single(300))
        self.assertEqual(g.state, E.READY)
        self.assertEqual(g.press(LEFT, T0), E.EV_START)
        self.assertEqual(g.white, RIGHT)
        self.assertEqual(g.running, RIGHT)
        self.assertEqual(g.remaining(RIGHT, T0 + 1000), 299_000)
        self.assertEqual(g.remaining(LEFT, T0 + 1000), 300_000)

    def test_press_by_side_not_running_is_ignored(self):
        g = started(single(300))
        self.assertEqual(g.press(LEFT, T0 + 500), 0)
        self.assertEqual(g.running, RIGHT)
        self.assertEqual(g.moves[LEFT], 0)

    def test_move_counts_when_its_player_presses(self):  # 6.7
        g = started(single(300))
        self.assertEqual(g.press(RIGHT, T0 + 4_000), E.EV_MOVE)
        self.assertEqual(g.moves[RIGHT], 1)
        self.assertEqual(g.running, LEFT)
        self.assertEqual(g.remaining(RIGHT, T0 + 9_000), 296_000)


class BothLevers(unittest.TestCase):
    def test_the_other_lever_of_a_slap_is_not_a_move(self):
        g = E.Game(single(300, BONUS_FISCHER, 5), min_move_ms=50)
        self.assertEqual(g.press(LEFT, T0), E.EV_START)
        self.assertEqual(g.press(RIGHT, T0 + 49), 0)  # same slap: White has not moved
        self.assertEqual(g.moves[RIGHT], 0)
        self.assertEqual(g.press(RIGHT, T0 + 50), E.EV_MOVE)
        self.assertEqual(g.press(LEFT, T0 + 60), 0)
        self.assertEqual(g.main[RIGHT], 300_000 - 50 + 5_000)

    def test_off_by_default(self):
        g = started(single(300, BONUS_FISCHER, 5))
        self.assertEqual(g.press(RIGHT, T0), E.EV_MOVE)


class CarryOver(unittest.TestCase):  # 6.2a/b
    def test_unused_time_carries_into_next_period_at_move_40(self):
        g = started(presets.control(13), transition=E.TRANSITION_MOVES)  # 40/120, 20/60, G/30
        t = T0
        for n in range(1, 41):
            t += 150_000  # White: 2.5 min a move, 100 min for 40 moves
            ev = g.press(RIGHT, t)
            if n < 40:
                self.assertEqual(g.period[RIGHT], 0, n)
                self.assertFalse(ev & E.EV_PERIOD)
            t += 1_000
            g.press(LEFT, t)
        self.assertTrue(ev & E.EV_PERIOD)
        self.assertEqual(g.period[RIGHT], 1)
        self.assertEqual(g.main[RIGHT], 20 * MIN + 60 * MIN)  # 20 min unused + 60 min
        self.assertEqual(g.first_passed, RIGHT)

    def test_flag_fall_transition_keeps_a_marker(self):
        g = started(presets.control(13), transition=E.TRANSITION_FLAG)
        t = play(g, [60_000] * 20, T0)  # 10 moves each, White has used 10 min
        self.assertEqual(g.running, RIGHT)
        deadline = t + 110 * MIN
        self.assertEqual(g.deadline(), deadline)
        ev = g.tick(deadline + 5_000)  # noticed 5 s late
        self.assertEqual(ev, E.EV_PERIOD | E.EV_MARKER)
        self.assertEqual(g.state, E.RUNNING)
        self.assertEqual(g.period[RIGHT], 1)
        self.assertEqual(g.markers[RIGHT], 1)
        self.assertEqual(g.marker_moves[RIGHT], 10)  # for the arbiter: only 10 of 40 moves
        self.assertEqual(g.remaining(RIGHT, deadline + 5_000), 60 * MIN - 5_000)
        self.assertEqual(g.passed_at[RIGHT], deadline)

    def test_moves_transition_is_exactly_at_the_required_move(self):
        control = TimeControl([(60_000, 2, 0, 0), (30_000, 0, 0, 0)])
        g = started(control)
        g.press(RIGHT, T0 + 1_000)
        self.assertEqual(g.period[RIGHT], 0)
        g.press(LEFT, T0 + 2_000)
        g.press(RIGHT, T0 + 3_000)
        self.assertEqual(g.period[RIGHT], 1)
        self.assertEqual(g.remaining(RIGHT, T0 + 3_000), 58_000 + 30_000)


class Bonuses(unittest.TestCase):
    def test_fischer_increment_after_the_move(self):
        g = started(single(180, BONUS_FISCHER, 2))
        self.assertEqual(g.remaining(RIGHT, T0), 180_000)
        g.press(RIGHT, T0 + 10_000)
        self.assertEqual(g.main[RIGHT], 172_000)

    def test_fischer_increment_before_the_move(self):
        g = started(single(180, BONUS_FISCHER, 2), inc_before=True)
        self.assertEqual(g.remaining(RIGHT, T0), 182_000)
        self.assertEqual(g.remaining(LEFT, T0), 182_000)
        g.press(RIGHT, T0 + 10_000)
        self.assertEqual(g.main[RIGHT], 174_000)

    def test_simple_delay_is_not_carried(self):  # 6.2b
        g = started(single(300, BONUS_DELAY, 5))
        self.assertEqual(g.remaining(RIGHT, T0 + 3_000), 300_000)
        self.assertEqual(g.delay_left(RIGHT, T0 + 3_000), 2_000)
        g.press(RIGHT, T0 + 3_000)
        self.assertEqual(g.main[RIGHT], 300_000)  # the 2 s unused are not added
        g.press(LEFT, T0 + 4_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 12_000), 297_000)
        g.press(RIGHT, T0 + 12_000)
        self.assertEqual(g.main[RIGHT], 297_000)

    def test_simple_delay_deadline_includes_the_delay(self):
        g = started(single(10, BONUS_DELAY, 5))
        self.assertEqual(g.deadline(), T0 + 15_000)
        self.assertEqual(g.tick(T0 + 14_999), 0)
        self.assertEqual(g.tick(T0 + 15_000), E.EV_FLAG)

    def test_bronstein_gives_back_up_to_the_delay(self):
        g = started(single(300, BONUS_BRONSTEIN, 5))
        self.assertEqual(g.remaining(RIGHT, T0 + 3_000), 297_000)  # counts down at once
        g.press(RIGHT, T0 + 3_000)
        self.assertEqual(g.main[RIGHT], 300_000)  # given back 3 s, never more than used
        g.press(LEFT, T0 + 4_000)
        g.press(RIGHT, T0 + 12_000)
        self.assertEqual(g.main[RIGHT], 300_000 - 8_000 + 5_000)

    def test_no_increment_for_a_press_after_the_flag(self):
        g = started(single(10, BONUS_FISCHER, 5), freeze=False)
        ev = g.press(RIGHT, T0 + 12_000)
        self.assertTrue(ev & E.EV_FLAG)
        self.assertTrue(ev & E.EV_MOVE)
        self.assertEqual(g.main[RIGHT], 0)
        self.assertEqual(g.remaining(RIGHT, T0 + 50_000), 0)


class FlagFall(unittest.TestCase):  # 6.9, 6.11, seed text on loss on time
    def test_press_before_deadline_counts_even_if_processed_late(self):
        g = started(single(60))
        self.assertEqual(g.press(RIGHT, T0 + 59_999), E.EV_MOVE)
        self.assertEqual(g.tick(T0 + 70_000), 0)
        self.assertEqual(g.main[RIGHT], 1)
        self.assertEqual(g.state, E.RUNNING)

    def test_flag_falls_at_the_exact_deadline_however_late_it_is_noticed(self):
        g = started(single(60))
        self.assertEqual(g.tick(T0 + 59_999), 0)
        self.assertEqual(g.tick(T0 + 75_000), E.EV_FLAG)
        self.assertEqual(g.flag_at[RIGHT], T0 + 60_000)
        self.assertEqual(g.first_flag, RIGHT)
        self.assertEqual(g.remaining(LEFT, T0 + 99_000), 60_000)

    def test_press_at_the_deadline_is_too_late(self):
        g = started(single(60))
        ev = g.press(RIGHT, T0 + 60_000)
        self.assertEqual(ev, E.EV_FLAG)
        self.assertEqual(g.state, E.FLAGGED)
        self.assertEqual(g.moves[RIGHT], 0)

    def test_freeze_on_stops_both_clocks(self):
        g = started(single(60))
        t = play(g, [10_000, 20_000], T0)  # White 50 s left, Black 40 s left, White runs
        g.tick(t + 50_000)
        self.assertEqual(g.state, E.FLAGGED)
        self.assertEqual(g.press(LEFT, t + 51_000), 0)
        self.assertEqual(g.press(RIGHT, t + 52_000), 0)
        self.assertEqual(g.remaining(LEFT, t + 90_000), 40_000)
        self.assertEqual(g.remaining(RIGHT, t + 90_000), 0)

    def test_freeze_off_keeps_playing_and_records_the_second_flag(self):
        g = started(single(60), freeze=False)
        self.assertEqual(g.tick(T0 + 60_000), E.EV_FLAG)
        self.assertEqual(g.state, E.RUNNING)
        self.assertEqual(g.press(RIGHT, T0 + 61_000), E.EV_MOVE)  # White plays on at 0
        self.assertEqual(g.running, LEFT)
        self.assertEqual(g.tick(T0 + 200_000), E.EV_FLAG)
        self.assertEqual(g.flag_at[LEFT], T0 + 121_000)
        self.assertEqual(g.first_flag, RIGHT)
        self.assertEqual(g.state, E.FLAGGED)  # both down: nothing left to run

    def test_flag_in_a_period_before_the_last_under_move_counting(self):
        g = started(presets.control(13))
        g.tick(T0 + 120 * MIN)
        self.assertEqual(g.state, E.FLAGGED)
        self.assertEqual(g.period[RIGHT], 0)

    def test_flagged_side_never_gets_time_back_without_the_arbiter(self):
        g = started(single(60, BONUS_FISCHER, 30), freeze=False)
        g.tick(T0 + 60_000)
        for k in range(3):
            g.press(g.running, T0 + 61_000 + k * 1000)
        self.assertEqual(g.remaining(RIGHT, T0 + 70_000), 0)


class PauseAndArbiter(unittest.TestCase):  # 6.10, 6.12, 7.5
    def test_pause_does_not_count_and_keeps_the_delay(self):
        g = started(single(300, BONUS_DELAY, 5))
        self.assertEqual(g.pause(T0 + 2_000), E.OK)
        self.assertEqual(g.remaining(RIGHT, T0 + 500_000), 300_000)
        self.assertEqual(g.press(RIGHT, T0 + 500_001), 0)  # levers do nothing while paused
        self.assertEqual(g.resume(T0 + 600_000), E.OK)
        self.assertEqual(g.delay_left(RIGHT, T0 + 600_000), 3_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 604_000), 299_000)

    def test_corrections_need_a_stopped_clock(self):
        g = started(single(300))
        self.assertEqual(game_state.set_time(g, LEFT, 100_000, T0), E.ERR_STATE)
        g.pause(T0 + 1_000)
        self.assertEqual(game_state.set_time(g, LEFT, 100_000, T0 + 2_000), E.OK)
        self.assertEqual(g.remaining(LEFT, T0 + 2_000), 100_000)

    def test_nonsense_is_refused_and_changes_nothing(self):
        g = started(single(300))
        g.pause(T0 + 1_000)
        before = game_state.snapshot(g)
        self.assertEqual(game_state.set_time(g, LEFT, -1, T0), E.ERR_RANGE)
        self.assertEqual(game_state.set_time(g, 2, 1_000, T0), E.ERR_SIDE)
        self.assertEqual(game_state.set_moves(g, LEFT, -3, T0), E.ERR_RANGE)
        self.assertEqual(game_state.set_period(g, LEFT, 1, T0), E.ERR_RANGE)  # one period only
        self.assertEqual(game_state.add_time(g, LEFT, -400_000, T0), E.ERR_RANGE)
        self.assertEqual(game_state.snapshot(g), before)

    def test_set_time_of_the_side_on_move_while_paused(self):
        g = started(single(300, BONUS_DELAY, 5))
        g.pause(T0 + 9_000)  # 4 s of main time used in this move
        self.assertEqual(g.remaining(RIGHT, T0 + 9_000), 296_000)
        game_state.set_time(g, RIGHT, 200_000, T0 + 10_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 10_000), 200_000)
        g.resume(T0 + 20_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 21_000), 199_000)

    def test_add_two_minutes_to_one_side(self):  # 7.5 illegal move penalty, G.6
        g = started(single(300))
        g.pause(T0 + 1_000)
        self.assertEqual(game_state.add_time(g, LEFT, 2 * MIN, T0 + 1_000), E.OK)
        self.assertEqual(g.remaining(LEFT, T0 + 1_000), 420_000)
        self.assertEqual(len(g.arbiter_log), 2)  # pause + add

    def test_arbiter_log_keeps_the_newest_entries_only(self):
        g = started(single(300))
        t = T0
        for _ in range(E.ARBITER_LOG_CAPACITY):
            t += 1_000
            g.pause(t)
            g.resume(t + 10)
        self.assertEqual(len(g.arbiter_log), E.ARBITER_LOG_CAPACITY)
        self.assertEqual(g.arbiter_log[-1][:4], (t + 10, E.ACT_RESUME, RIGHT, 0))
        self.assertEqual(g.arbiter_log[0][1], E.ACT_PAUSE)

    def test_correct_moves_and_period(self):  # 6.10b
        g = started(presets.control(13))
        g.pause(T0 + 1_000)
        self.assertEqual(game_state.set_moves(g, RIGHT, 40, T0), E.OK)
        self.assertEqual(game_state.set_period(g, RIGHT, 1, T0), E.OK)
        self.assertEqual(game_state.set_time(g, RIGHT, 75 * MIN, T0), E.OK)
        g.resume(T0 + 2_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 3_000), 75 * MIN - 1_000)
        self.assertEqual(g.moves[RIGHT], 40)

    def test_arbiter_can_lift_a_flag(self):
        g = started(single(60))
        g.tick(T0 + 61_000)
        self.assertEqual(g.state, E.FLAGGED)
        self.assertEqual(game_state.set_time(g, RIGHT, 30_000, T0 + 70_000), E.OK)
        self.assertEqual(g.state, E.PAUSED)
        self.assertEqual(g.first_flag, -1)
        g.resume(T0 + 80_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 85_000), 25_000)

    def test_finish_records_the_result(self):
        g = started(single(60))
        g.tick(T0 + 61_000)
        self.assertEqual(game_state.finish(g, E.RESULT_LEFT_WINS, 1, T0 + 62_000), E.OK)
        self.assertEqual(g.state, E.FINISHED)
        self.assertEqual(game_state.set_time(g, RIGHT, 1000, T0), E.ERR_STATE)


class AppendixG(unittest.TestCase):
    def g4_game(self):
        g = started(single(600))  # G/10, no increment
        g.pause(T0 + 510_000)  # White on move with 1:30 left
        return g

    def test_g4_increment_for_both_and_two_minutes_for_the_opponent(self):
        g = self.g4_game()
        self.assertEqual(game_state.appendix_g4(g, RIGHT, BONUS_FISCHER, T0 + 511_000), E.OK)
        self.assertEqual(g.remaining(LEFT, T0 + 511_000), 720_000)
        g.resume(T0 + 520_000)
        g.press(RIGHT, T0 + 530_000)
        self.assertEqual(g.main[RIGHT], 90_000 - 10_000 + 5_000)
        g.press(LEFT, T0 + 540_000)
        self.assertEqual(g.main[LEFT], 720_000 - 10_000 + 5_000)

    def test_g4_delay_applies_from_now(self):
        g = self.g4_game()
        self.assertEqual(game_state.appendix_g4(g, RIGHT, BONUS_DELAY, T0 + 511_000), E.OK)
        g.resume(T0 + 520_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 524_000), 90_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 527_000), 88_000)

    def test_g4_refused_with_an_increment(self):
        g = started(single(600, BONUS_FISCHER, 5))
        g.pause(T0 + 510_000)
        self.assertEqual(game_state.appendix_g4(g, RIGHT, BONUS_FISCHER, T0), E.ERR_NOT_APPLICABLE)

    def test_g4_refused_with_two_minutes_or_more(self):
        g = started(single(600))
        g.pause(T0 + 480_000)  # exactly 2:00 left
        self.assertEqual(game_state.appendix_g4(g, RIGHT, BONUS_FISCHER, T0), E.ERR_NOT_APPLICABLE)

    def test_g4_only_for_the_player_on_move_and_only_once(self):
        g = self.g4_game()
        self.assertEqual(game_state.appendix_g4(g, LEFT, BONUS_FISCHER, T0), E.ERR_NOT_APPLICABLE)
        self.assertEqual(game_state.appendix_g4(g, RIGHT, BONUS_DELAY, T0), E.OK)
        self.assertEqual(game_state.appendix_g4(g, RIGHT, BONUS_DELAY, T0), E.ERR_NOT_APPLICABLE)

    def test_g4_refused_after_a_flag(self):  # the flag is ruled on; no time reaches it
        g = started(single(600), freeze=False)
        g.tick(T0 + 600_000)  # the right flag falls, play goes on
        g.press(RIGHT, T0 + 601_000)
        g.pause(T0 + 690_000)  # the left on move with 0:30 left
        self.assertEqual(game_state.appendix_g4(g, LEFT, BONUS_FISCHER, T0), E.ERR_NOT_APPLICABLE)
        self.assertEqual(g.remaining(RIGHT, 0), 0)
        self.assertEqual(g.first_flag, RIGHT)

    def test_g4_needs_a_paused_clock(self):
        g = started(single(60))
        self.assertEqual(game_state.appendix_g4(g, RIGHT, BONUS_FISCHER, T0), E.ERR_STATE)


class Modes(unittest.TestCase):
    def test_hourglass_gives_used_time_to_the_opponent(self):
        g = started(from_seconds(MODE_HOURGLASS, [[60, 0, 0, 0]]))
        self.assertEqual(g.remaining(LEFT, T0 + 10_000), 70_000)
        g.press(RIGHT, T0 + 10_000)
        self.assertEqual((g.main[RIGHT], g.main[LEFT]), (50_000, 70_000))
        self.assertEqual(g.tick(T0 + 80_000), E.EV_FLAG)  # Black ran out after 70 s
        self.assertEqual(g.remaining(RIGHT, T0 + 80_000), 120_000)

    def test_hourglass_fallen_flag_gets_no_time_back(self):  # freeze off
        tc = TimeControl([(60_000, 0, BONUS_NONE, 0)], MODE_HOURGLASS)
        g = E.Game(tc, freeze=False)
        g.press(LEFT, 89_921)  # the right clock starts
        self.assertEqual(g.tick(7_290_192), E.EV_FLAG)  # the right flag fell long ago
        self.assertEqual(g.flag_at[RIGHT], 149_921)
        g.press(RIGHT, 7_290_192)  # the flagged right plays on at zero
        # The left got what the right lost (60 s), not the two hours the right sat on 0.
        self.assertEqual(g.remaining(LEFT, 7_290_192), 120_000)
        self.assertEqual(g.remaining(RIGHT, 7_290_192), 0)
        # The left's time now runs out, and none of it reaches the fallen right flag.
        self.assertEqual(g.remaining(RIGHT, 7_300_192), 0)
        self.assertEqual(g.remaining(LEFT, 7_300_192), 110_000)
        self.assertEqual(g.tick(7_410_192), E.EV_FLAG)
        self.assertEqual(g.first_flag, RIGHT)
        self.assertEqual(g.state, E.FLAGGED)
        self.assertEqual((g.remaining(LEFT, 7_500_000), g.remaining(RIGHT, 7_500_000)), (0, 0))

    def test_hourglass_opponent_gains_only_until_the_flag(self):
        g = started(from_seconds(MODE_HOURGLASS, [[60, 0, 0, 0]]), freeze=False)
        g.tick(T0 + 60_000)  # the right flag falls; play may go on
        self.assertEqual(g.remaining(LEFT, T0 + 60_000), 120_000)
        self.assertEqual(g.remaining(LEFT, T0 + 90_000), 120_000)  # not 150 s
        g.pause(T0 + 95_000)
        self.assertEqual(g.remaining(LEFT, T0 + 96_000), 120_000)
        g.resume(T0 + 100_000)
        g.press(RIGHT, T0 + 110_000)
        self.assertEqual((g.main[LEFT], g.main[RIGHT]), (120_000, 0))

    def test_hourglass_freeze_on_gives_the_opponent_exactly_the_flag_time(self):
        g = started(from_seconds(MODE_HOURGLASS, [[60, 0, 0, 0]]))
        g.tick(T0 + 75_000)
        self.assertEqual(g.state, E.FLAGGED)
        self.assertEqual((g.main[LEFT], g.main[RIGHT]), (120_000, 0))

    def test_hourglass_arbiter_gives_time_back_to_a_fallen_flag(self):
        g = started(from_seconds(MODE_HOURGLASS, [[60, 0, 0, 0]]), freeze=False)
        g.tick(T0 + 60_000)
        g.pause(T0 + 90_000)  # 30 s after the flag the arbiter stops the clock
        self.assertEqual(
            game_state.set_time(g, RIGHT, 20_000, T0 + 91_000), E.OK
        )  # explicit correction
        self.assertEqual(g.first_flag, -1)
        # The correction of the right does not move the left's time.
        self.assertEqual((g.remaining(LEFT, 0), g.remaining(RIGHT, 0)), (120_000, 20_000))
        g.resume(T0 + 100_000)
        self.assertEqual(g.remaining(LEFT, T0 + 105_000), 125_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 105_000), 15_000)

    def test_upcount_counts_up_and_never_flags(self):
        g = started(from_seconds(MODE_UPCOUNT, [[0, 0, 0, 0]]))
        self.assertEqual(g.deadline(), -1)
        self.assertEqual(g.remaining(RIGHT, T0 + 7_000), 7_000)
        g.press(RIGHT, T0 + 7_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 99_000), 7_000)
        self.assertEqual(g.tick(T0 + 10 * 3_600_000), 0)


def byoyomi(main_s, periods, period_s, inc_s=0):
    bonus = BONUS_FISCHER if inc_s else BONUS_NONE
    return from_seconds(MODE_BYOYOMI, [[main_s, 0, bonus, inc_s]], overtime=[periods, period_s])


def canadian(main_s, moves, block_s):
    return from_seconds(MODE_CANADIAN, [[main_s, 0, BONUS_NONE, 0]], overtime=[moves, block_s])


class ByoYomi(unittest.TestCase):
    """Main time, then N periods of T: kept when a move is made within it, used up when it
    runs out, the flag when the last runs out."""

    def test_overtime_starts_at_the_exact_end_of_main_time(self):
        g = started(byoyomi(60, 3, 10))  # White (right) runs
        self.assertEqual(g.deadline(), T0 + 60_000)
        self.assertEqual(g.tick(T0 + 59_999), 0)
        self.assertFalse(g.in_overtime(RIGHT))
        self.assertEqual(g.tick(T0 + 65_000), E.EV_PERIOD)  # noticed 5 s late
        self.assertTrue(g.in_overtime(RIGHT))
        self.assertEqual((g.period[RIGHT], g.ot_left[RIGHT]), (1, 3))
        self.assertEqual(g.remaining(RIGHT, T0 + 65_000), 5_000)
        self.assertEqual(g.deadline(), T0 + 70_000)
        self.assertFalse(g.in_overtime(LEFT))
        self.assertEqual(g.remaining(LEFT, T0 + 65_000), 60_000)

    def test_period_kept_by_a_move_within_it(self):
        g = started(byoyomi(60, 3, 10))
        self.assertEqual(g.press(RIGHT, T0 + 69_999), E.EV_PERIOD | E.EV_MOVE)
        self.assertEqual((g.main[RIGHT], g.ot_left[RIGHT]), (10_000, 3))  # full again
        g.press(LEFT, T0 + 70_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 70_000), 10_000)
        self.assertEqual(g.press(RIGHT, T0 + 79_000), E.EV_MOVE)
        self.assertEqual((g.main[RIGHT], g.ot_left[RIGHT]), (10_000, 3))
        self.assertEqual(
            g.log_entries(),
            [
                (RIGHT, 1, 69_999, 10_000, 3),
                (LEFT, 1, 1, 60_000 - 1, 0),
                (RIGHT, 2, 9_000, 10_000, 3),
            ],
        )

    def test_period_used_up_and_the_next_starts_at_once(self):
        g = started(byoyomi(60, 3, 10))
        g.tick(T0 + 60_000)
        self.assertEqual(g.tick(T0 + 70_000), E.EV_PERIOD)  # the first period ran out
        self.assertEqual(g.ot_left[RIGHT], 2)
        self.assertEqual(g.remaining(RIGHT, T0 + 70_000), 10_000)
        self.assertEqual(g.press(RIGHT, T0 + 76_000), E.EV_MOVE)
        self.assertEqual((g.main[RIGHT], g.ot_left[RIGHT]), (10_000, 2))

    def test_press_at_the_end_of_a_period_counts_in_the_next(self):
        g = started(byoyomi(0, 3, 10))  # no main time: overtime from the start
        self.assertEqual(g.press(RIGHT, T0 + 10_000), E.EV_PERIOD | E.EV_MOVE)
        self.assertEqual(g.ot_left[RIGHT], 2)

    def test_periods_used_up_late_are_each_at_their_instant(self):
        g = started(byoyomi(60, 3, 10))
        self.assertEqual(g.tick(T0 + 85_000), E.EV_PERIOD)  # main, periods 1 and 2, half of 3
        self.assertEqual(g.ot_left[RIGHT], 1)
        self.assertEqual(g.remaining(RIGHT, T0 + 85_000), 5_000)

    def test_last_period_runs_out_flag_at_the_exact_instant(self):
        g = started(byoyomi(60, 3, 10))
        self.assertEqual(g.tick(T0 + 200_000), E.EV_PERIOD | E.EV_FLAG)
        self.assertEqual(g.flag_at[RIGHT], T0 + 90_000)
        self.assertEqual(g.ot_left[RIGHT], 1)  # the last period, run out
        self.assertEqual(g.state, E.FLAGGED)
        self.assertEqual(g.first_flag, RIGHT)
        self.assertEqual(g.remaining(RIGHT, T0 + 200_000), 0)
        self.assertEqual(g.remaining(LEFT, T0 + 200_000), 60_000)

    def test_no_main_time_starts_in_overtime(self):
        g = E.Game(byoyomi(0, 5, 30))
        self.assertTrue(g.in_overtime(LEFT) and g.in_overtime(RIGHT))
        self.assertEqual((g.remaining(LEFT, 0), g.ot_left[LEFT]), (30_000, 5))

    def test_pause_inside_a_period(self):
        g = started(byoyomi(0, 2, 30))
        g.pause(T0 + 12_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 500_000), 18_000)
        self.assertEqual(g.tick(T0 + 500_000), 0)
        g.resume(T0 + 600_000)
        self.assertEqual(g.deadline(), T0 + 618_000)
        self.assertEqual(g.tick(T0 + 618_000), E.EV_PERIOD)
        self.assertEqual(g.ot_left[RIGHT], 1)
        g.press(RIGHT, T0 + 620_000)
        self.assertEqual(g.main[RIGHT], 30_000)
        self.assertEqual(g.log_entries()[-1], (RIGHT, 1, 32_000, 30_000, 1))

    def test_increment_only_in_main_time(self):
        g = started(byoyomi(60, 3, 10, inc_s=5))
        g.press(RIGHT, T0 + 20_000)
        self.assertEqual(g.main[RIGHT], 45_000)
        g.press(LEFT, T0 + 21_000)
        self.assertEqual(g.press(RIGHT, T0 + 70_000), E.EV_PERIOD | E.EV_MOVE)  # 49 s
        self.assertEqual(g.main[RIGHT], 10_000)  # a period kept, no increment
        g.press(LEFT, T0 + 71_000)
        g.press(RIGHT, T0 + 72_000)
        self.assertEqual(g.main[RIGHT], 10_000)

    def test_increment_before_also_at_the_start(self):
        g = started(byoyomi(60, 3, 10, inc_s=5), inc_before=True)
        self.assertEqual(g.remaining(RIGHT, T0), 65_000)

    def test_freeze_off_the_flagged_side_never_gets_a_period_back(self):
        g = started(byoyomi(0, 1, 10), freeze=False)
        self.assertEqual(g.tick(T0 + 10_000), E.EV_FLAG)
        self.assertEqual(g.state, E.RUNNING)
        g.press(RIGHT, T0 + 15_000)
        self.assertEqual(g.main[RIGHT], 0)
        self.assertEqual(g.log_entries()[-1], (RIGHT, 1, 15_000, 0, 1))
        g.press(LEFT, T0 + 16_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 20_000), 0)
        self.assertEqual(g.deadline(), -1)

    def test_arbiter_corrects_periods_phase_and_time(self):
        g = started(byoyomi(60, 5, 30))
        g.tick(T0 + 150_000)  # main over, the first three periods used up
        self.assertEqual(g.ot_left[RIGHT], 2)
        g.pause(T0 + 151_000)
        self.assertEqual(
            game_state.set_overtime(g, RIGHT, 6, T0), E.ERR_RANGE
        )  # more than the control
        self.assertEqual(game_state.set_overtime(g, RIGHT, 0, T0), E.ERR_RANGE)
        self.assertEqual(game_state.set_overtime(g, 2, 4, T0), E.ERR_SIDE)
        self.assertEqual(game_state.set_overtime(g, RIGHT, 4, T0 + 152_000), E.OK)
        self.assertEqual(g.arbiter_log[-1][:4], (T0 + 152_000, E.ACT_SET_OVERTIME, RIGHT, 4))
        self.assertEqual(game_state.set_time(g, RIGHT, 25_000, T0), E.OK)
        g.resume(T0 + 160_000)
        self.assertEqual(g.deadline(), T0 + 185_000)
        g.pause(T0 + 161_000)
        self.assertEqual(game_state.set_period(g, RIGHT, 0, T0), E.OK)  # back into main time
        self.assertEqual(game_state.set_time(g, RIGHT, 40_000, T0), E.OK)
        g.resume(T0 + 170_000)
        self.assertFalse(g.in_overtime(RIGHT))
        self.assertEqual(g.tick(T0 + 210_000), E.EV_PERIOD)
        self.assertEqual((g.ot_left[RIGHT], g.remaining(RIGHT, T0 + 210_000)), (4, 30_000))

    def test_corrections_need_a_stopped_clock_and_overtime(self):
        g = started(byoyomi(60, 5, 30))
        self.assertEqual(game_state.set_overtime(g, RIGHT, 2, T0), E.ERR_STATE)
        h = started(single(60))
        h.pause(T0 + 1)
        self.assertEqual(game_state.set_overtime(h, RIGHT, 1, T0), E.ERR_NOT_APPLICABLE)

    def test_arbiter_lifts_a_flag_in_the_last_period(self):
        g = started(byoyomi(0, 2, 10))
        g.tick(T0 + 20_000)
        self.assertEqual(g.state, E.FLAGGED)
        self.assertEqual(game_state.set_time(g, RIGHT, 10_000, T0 + 30_000), E.OK)
        self.assertEqual((g.state, g.ot_left[RIGHT]), (E.PAUSED, 1))
        g.resume(T0 + 40_000)
        g.press(RIGHT, T0 + 45_000)
        self.assertEqual(g.main[RIGHT], 10_000)

    def test_g4_does_not_apply(self):
        g = started(byoyomi(100, 5, 30))
        g.pause(T0 + 50_000)
        self.assertEqual(game_state.appendix_g4(g, RIGHT, BONUS_FISCHER, T0), E.ERR_NOT_APPLICABLE)


class Canadian(unittest.TestCase):
    """Main time, then blocks of M moves in T: M moves within the block start a new full
    block, unused time is not carried; the flag falls when a block's time runs out first."""

    def test_block_completed_starts_a_new_full_block(self):
        g = started(canadian(60, 3, 20))
        self.assertEqual(g.ot_left[RIGHT], 3)
        g.press(RIGHT, T0 + 10_000)  # a move in main time does not count for the block
        self.assertEqual(g.ot_left[RIGHT], 3)
        g.press(LEFT, T0 + 11_000)
        self.assertEqual(g.tick(T0 + 61_000), E.EV_PERIOD)  # main time over: first block
        self.assertEqual(g.remaining(RIGHT, T0 + 61_000), 20_000)
        # The move that was running counts as the block's first.
        self.assertEqual(g.press(RIGHT, T0 + 63_000), E.EV_MOVE)
        self.assertEqual((g.main[RIGHT], g.ot_left[RIGHT]), (18_000, 2))
        g.press(LEFT, T0 + 64_000)
        g.press(RIGHT, T0 + 68_000)
        self.assertEqual((g.main[RIGHT], g.ot_left[RIGHT]), (14_000, 1))
        g.press(LEFT, T0 + 69_000)
        self.assertEqual(g.press(RIGHT, T0 + 70_000), E.EV_MOVE | E.EV_PERIOD)
        self.assertEqual((g.main[RIGHT], g.ot_left[RIGHT]), (20_000, 3))  # 13 s not carried
        self.assertEqual(
            [e[3:] for e in g.log_entries() if e[0] == RIGHT],
            [(50_000, 0), (18_000, 2), (14_000, 1), (20_000, 3)],
        )

    def test_block_failed_flag_with_moves_missing(self):
        g = started(canadian(0, 3, 20))
        g.press(RIGHT, T0 + 5_000)
        g.press(LEFT, T0 + 6_000)
        self.assertEqual(g.deadline(), T0 + 21_000)
        self.assertEqual(g.tick(T0 + 30_000), E.EV_FLAG)
        self.assertEqual(g.flag_at[RIGHT], T0 + 21_000)
        self.assertEqual(g.ot_left[RIGHT], 2)  # two moves were still to make
        self.assertEqual(g.remaining(RIGHT, T0 + 30_000), 0)

    def test_pause_inside_a_block(self):
        g = started(canadian(0, 2, 60))
        g.press(RIGHT, T0 + 10_000)
        g.press(LEFT, T0 + 11_000)
        g.pause(T0 + 21_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 99_000), 40_000)
        g.resume(T0 + 100_000)
        self.assertEqual(g.deadline(), T0 + 140_000)
        self.assertEqual(g.press(RIGHT, T0 + 139_999), E.EV_MOVE | E.EV_PERIOD)
        self.assertEqual(g.main[RIGHT], 60_000)

    def test_arbiter_corrects_moves_to_make_in_the_block(self):
        g = started(canadian(0, 25, 600))
        g.press(RIGHT, T0 + 10_000)
        g.press(LEFT, T0 + 11_000)
        g.pause(T0 + 12_000)
        self.assertEqual(game_state.set_overtime(g, RIGHT, 26, T0), E.ERR_RANGE)
        self.assertEqual(game_state.set_overtime(g, RIGHT, 1, T0), E.OK)
        g.resume(T0 + 13_000)
        self.assertEqual(g.press(RIGHT, T0 + 14_000), E.EV_MOVE | E.EV_PERIOD)
        self.assertEqual((g.main[RIGHT], g.ot_left[RIGHT]), (600_000, 25))

    def test_freeze_off_no_new_block_after_the_flag(self):
        g = started(canadian(0, 1, 10), freeze=False)
        g.tick(T0 + 10_000)
        self.assertEqual(g.press(RIGHT, T0 + 12_000), E.EV_MOVE)
        self.assertEqual((g.main[RIGHT], g.ot_left[RIGHT]), (0, 1))


class OvertimeControls(unittest.TestCase):
    def test_validation(self):
        for mode, periods, overtime in (
            (MODE_BYOYOMI, [[60, 0, 0, 0]], None),  # no overtime
            (MODE_BYOYOMI, [[60, 0, 0, 0]], [0, 30]),  # no periods
            (MODE_BYOYOMI, [[60, 0, 0, 0]], [100, 30]),
            (MODE_BYOYOMI, [[60, 0, 0, 0]], [5, 0]),
            (MODE_BYOYOMI, [[60, 0, 3, 5]], [5, 30]),  # a delay
            (MODE_BYOYOMI, [[0, 0, 1, 5]], [5, 30]),  # an increment without main time
            (MODE_BYOYOMI, [[60, 40, 0, 0], [60, 0, 0, 0]], [5, 30]),  # two main periods
            (MODE_CANADIAN, [[60, 0, 1, 5]], [25, 600]),  # Canadian with increment
            (MODE_CANADIAN, [[60, 0, 0, 0]], [201, 600]),
            (0, [[60, 0, 0, 0]], [5, 30]),  # overtime in a countdown
        ):
            with self.assertRaises(TimeControlError):
                from_seconds(mode, periods, overtime=overtime)

    def test_describe(self):
        self.assertEqual(
            byoyomi(3600, 5, 30, 5).describe(), "60 min, increment 5 s; then byo-yomi 5 x 30 s"
        )
        self.assertEqual(
            canadian(3600, 25, 600).describe(), "60 min; then Canadian 25 moves in 10 min"
        )

    def test_presets(self):
        names = [presets.name(i) for i in range(presets.COUNT)]
        by = presets.control(names.index("Byo-yomi 60 min + 5 x 30 s"))
        self.assertEqual((by.mode, by.ot_count, by.ot_ms), (MODE_BYOYOMI, 5, 30_000))
        ca = presets.control(names.index("Canadian 60 min + 25/10 min"))
        self.assertEqual((ca.mode, ca.ot_count, ca.ot_ms), (MODE_CANADIAN, 25, 600_000))
        self.assertEqual(ca.periods[0][0], 3_600_000)


class LongGames(unittest.TestCase):
    def test_a_two_hour_single_move(self):
        g = started(presets.control(11))  # US 40/120, SD/60;d5
        t = T0 + 2 * 3_600_000 + 4_999  # 2 h of main time + 4.999 s of delay
        self.assertEqual(g.tick(t), 0)
        self.assertEqual(g.remaining(RIGHT, t), 1)
        self.assertEqual(g.tick(t + 1), E.EV_FLAG)

    def test_move_log(self):
        g = started(single(300, BONUS_FISCHER, 3))
        play(g, [1_000, 2_000, 3_000], T0)
        self.assertEqual(
            g.log_entries(),
            [(RIGHT, 1, 1_000, 302_000), (LEFT, 1, 2_000, 301_000), (RIGHT, 2, 3_000, 302_000)],
        )

    def test_move_log_ring_keeps_the_newest(self):
        g = started(single(36_000))
        play(g, [10] * (E.LOG_CAPACITY + 5), T0)
        entries = g.log_entries()
        self.assertEqual(len(entries), E.LOG_CAPACITY)
        self.assertEqual(entries[-1][1], (E.LOG_CAPACITY + 5 + 1) // 2)


class Snapshot(unittest.TestCase):
    def test_round_trip(self):
        g = started(presets.control(0))
        play(g, [5_000, 6_000, 7_000], T0)
        g.pause(T0 + 20_000)
        snap = game_state.snapshot(g)
        h = E.Game(presets.control(0))
        self.assertEqual(game_state.restore(h, snap), E.OK)
        self.assertEqual(game_state.snapshot(h), snap)
        self.assertEqual(h.state, E.PAUSED)
        self.assertEqual(h.remaining(LEFT, 0), g.remaining(LEFT, T0 + 20_000))
        h.resume(50)
        self.assertEqual(h.remaining(LEFT, 1_050), g.remaining(LEFT, T0 + 20_000) - 1_000)

    def test_corrupt_snapshots_are_refused(self):
        h = E.Game(single(60))
        for bad in (
            None,
            [],
            [1] * 23,
            [3] + [0] * 25,
            [2] + [0] * 23,  # version 2 needs 26 ints
            [1, 9] + [0] * 22,
            [1, 2, 0] + ["x"] * 21,
            [2, 2, 0] + [0] * 21 + [1, 1],  # overtime counters without overtime
        ):
            self.assertEqual(game_state.restore(h, bad), E.ERR_RANGE)
        self.assertEqual(h.state, E.READY)

    def test_version_1_snapshot_of_a_chess_game_is_restored(self):
        g = started(presets.control(0))
        play(g, [5_000, 6_000], T0)
        g.pause(T0 + 20_000)
        v1 = game_state.snapshot(g)[:24]
        v1[0] = 1
        h = E.Game(presets.control(0))
        self.assertEqual(game_state.restore(h, v1), E.OK)
        self.assertEqual(game_state.snapshot(h), game_state.snapshot(g))

    def test_overtime_round_trip_and_v1_refused(self):
        g = started(byoyomi(60, 5, 30))
        g.tick(T0 + 125_000)  # in the 3rd period, 5 s used
        g.pause(T0 + 125_000)
        snap = game_state.snapshot(g)
        self.assertEqual(
            (snap[0], len(snap), snap[24:26]), (game_state.SNAPSHOT_VERSION, 29, [5, 3])
        )
        h = E.Game(byoyomi(60, 5, 30))
        self.assertEqual(game_state.restore(h, snap), E.OK)
        self.assertEqual((h.ot_left[RIGHT], h.remaining(RIGHT, 0)), (3, 25_000))
        h.resume(1_000)
        self.assertEqual(h.tick(25_999), 0)
        self.assertEqual(h.tick(26_000), E.EV_PERIOD)
        self.assertEqual(h.ot_left[RIGHT], 2)
        v1 = snap[:24]
        v1[0] = 1
        self.assertEqual(game_state.restore(E.Game(byoyomi(60, 5, 30)), v1), E.ERR_RANGE)
        v2 = snap[:26]
        v2[0] = 2
        self.assertEqual(game_state.restore(E.Game(byoyomi(60, 5, 30)), v2), E.OK)
        bad = list(snap)
        bad[25] = 6  # more periods than the control has
        self.assertEqual(game_state.restore(E.Game(byoyomi(60, 5, 30)), bad), E.ERR_RANGE)


class SavedLog(unittest.TestCase):
    """The move log saved beside a snapshot (log_rows(True) / restore_log) for a resume."""

    def saved(self, half_moves):
        g = started(single(36_000, BONUS_FISCHER, 2))
        play(g, [1_000 + 7 * i for i in range(half_moves)], T0)
        g.pause(T0 + 99 * MIN)
        flat = []
        for row in g.log_rows(True):
            flat.extend(row)
        return g, flat

    def resumed(self, g, flat):
        h = E.Game(g.control)
        self.assertEqual(game_state.restore(h, game_state.snapshot(g)), E.OK)
        self.assertEqual(h.log_count, 0)  # restore() empties the log
        self.assertEqual(game_state.restore_log(h, g.log_count, flat), E.OK)
        return h

    def test_rows_packed_and_plain(self):
        g, flat = self.saved(3)
        self.assertEqual(flat[:3], [RIGHT | 1 << 1, 1_000, 36_000_000 - 1_000 + 2_000])
        self.assertEqual(list(g.log_rows()), g.log_entries())
        self.assertEqual(g.log_kept(), 3)

    def test_a_resumed_game_keeps_its_moves_and_logs_on(self):
        g, flat = self.saved(12)
        h = self.resumed(g, flat)
        self.assertEqual(h.log_entries(), g.log_entries())
        h.resume(0)
        play(h, [500] * 10, 0)
        self.assertEqual(h.log_count, 22)
        entries = h.log_entries()
        self.assertEqual(entries[:12], g.log_entries())
        self.assertEqual([e[1] for e in entries[12:]], [7, 7, 8, 8, 9, 9, 10, 10, 11, 11])

    def test_a_full_ring_comes_back_in_place(self):
        n = E.LOG_CAPACITY + 37
        g, flat = self.saved(n)
        self.assertEqual(len(flat), 3 * E.LOG_CAPACITY)
        h = self.resumed(g, flat)
        self.assertEqual((h.log_count, h.log_kept()), (n, E.LOG_CAPACITY))
        self.assertEqual(h.log_entries(), g.log_entries())
        h.resume(0)
        play(h, [500], 0)
        self.assertEqual(h.log_entries()[-1][1], (n + 2) // 2)
        self.assertEqual(h.log_entries()[:-1], g.log_entries()[1:])

    def test_bad_logs_are_refused_and_change_nothing(self):
        g, flat = self.saved(4)
        h = self.resumed(g, flat)
        before = h.log_entries()
        bad = [
            (4, flat[:-3]),  # too few rows for the count
            (3, flat),  # too many
            (-1, []),
            (4, None),
            (4, flat[:-1] + [-1]),  # negative time
            (4, flat[:-1] + [2**31]),
            (4, [0] + flat[1:]),  # move number 0
            (4, [0x10000] + flat[1:]),  # does not fit the ring
            (4, flat[:-1] + [1.5]),
            (4, flat[:-1] + [True]),
            (True, flat),
        ]
        for count, rows in bad:
            with self.subTest(count=count, rows=rows):
                self.assertEqual(game_state.restore_log(h, count, rows), E.ERR_RANGE)
                self.assertEqual(h.log_entries(), before)
                self.assertEqual(h.log_count, 4)

    def test_overtime_counters_come_back_with_the_log(self):
        # Byo-yomi: the counter after each move travels in the packed int's upper bits
        # (side | move_no << 1 | ot << 16), so the saved form stays three ints a row.
        g = started(byoyomi(5, 3, 10))  # 5 s main, 3 x 10 s
        play(g, [1_000, 1_000, 4_000, 1_000, 12_000, 1_000], T0)
        g.pause(T0 + 30_000)
        flat = []
        for row in g.log_rows(True):
            flat.extend(row)
        self.assertEqual(len(flat), 3 * g.log_count)
        self.assertTrue(any(v >> 16 for v in flat[::3]))  # some move made in overtime
        h = E.Game(g.control)
        self.assertEqual(game_state.restore(h, game_state.snapshot(g)), E.OK)
        self.assertEqual(game_state.restore_log(h, g.log_count, flat), E.OK)
        self.assertEqual(h.log_entries(), g.log_entries())
        self.assertEqual(len(h.log_entries()[0]), 5)
        bad = list(flat)
        bad[0] |= 0x100 << 16  # a counter that does not fit the ring's byte
        self.assertEqual(game_state.restore_log(E.Game(g.control), g.log_count, bad), E.ERR_RANGE)

    def test_identity_is_cleared_by_a_new_game_and_not_in_the_snapshot(self):
        g, _flat = self.saved(2)
        g.set_ident(987_654_321)
        snap = game_state.snapshot(g)
        self.assertFalse(987_654_321 in snap)
        h = E.Game(g.control)
        h.set_ident(5)
        game_state.restore(h, snap)
        self.assertEqual(h.ident, 0)
        g.reset(g.control)
        self.assertEqual(g.ident, 0)


class Presets(unittest.TestCase):
    def test_every_preset_builds(self):
        for i in range(presets.COUNT):
            c = presets.control(i)
            self.assertTrue(len(presets.code(i)) <= 4)
            for side in sides_of(c)[:2]:  # a control with time odds: each side's
                self.assertTrue(side.describe())

    def test_fide_classical(self):
        c = presets.control(0)
        self.assertEqual(c.periods, ((5_400_000, 40, 1, 30_000), (1_800_000, 0, 1, 30_000)))
