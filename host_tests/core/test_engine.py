"""Scenario tests for the game engine, one or more per rule of FIDE article 6 / Appendix G.

Runs under CPython (pytest) and under MicroPython 1.27 (test_micropython_core.py).
Times are ms on the shell's monotonic clock; T0 is deliberately large.
"""

import unittest

import engine as E
import presets
from timecontrol import (
    BONUS_BRONSTEIN,
    BONUS_DELAY,
    BONUS_FISCHER,
    BONUS_NONE,
    MODE_HOURGLASS,
    MODE_UPCOUNT,
    TimeControl,
    from_seconds,
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
        self.assertEqual(g.set_time(LEFT, 100_000, T0), E.ERR_STATE)
        g.pause(T0 + 1_000)
        self.assertEqual(g.set_time(LEFT, 100_000, T0 + 2_000), E.OK)
        self.assertEqual(g.remaining(LEFT, T0 + 2_000), 100_000)

    def test_nonsense_is_refused_and_changes_nothing(self):
        g = started(single(300))
        g.pause(T0 + 1_000)
        before = g.snapshot()
        self.assertEqual(g.set_time(LEFT, -1, T0), E.ERR_RANGE)
        self.assertEqual(g.set_time(2, 1_000, T0), E.ERR_SIDE)
        self.assertEqual(g.set_moves(LEFT, -3, T0), E.ERR_RANGE)
        self.assertEqual(g.set_period(LEFT, 1, T0), E.ERR_RANGE)  # one period only
        self.assertEqual(g.add_time(LEFT, -400_000, T0), E.ERR_RANGE)
        self.assertEqual(g.snapshot(), before)

    def test_set_time_of_the_side_on_move_while_paused(self):
        g = started(single(300, BONUS_DELAY, 5))
        g.pause(T0 + 9_000)  # 4 s of main time used in this move
        self.assertEqual(g.remaining(RIGHT, T0 + 9_000), 296_000)
        g.set_time(RIGHT, 200_000, T0 + 10_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 10_000), 200_000)
        g.resume(T0 + 20_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 21_000), 199_000)

    def test_add_two_minutes_to_one_side(self):  # 7.5 illegal move penalty, G.6
        g = started(single(300))
        g.pause(T0 + 1_000)
        self.assertEqual(g.add_time(LEFT, 2 * MIN, T0 + 1_000), E.OK)
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
        self.assertEqual(g.arbiter_log[-1], (t + 10, E.ACT_RESUME, RIGHT, 0))
        self.assertEqual(g.arbiter_log[0][1], E.ACT_PAUSE)

    def test_correct_moves_and_period(self):  # 6.10b
        g = started(presets.control(13))
        g.pause(T0 + 1_000)
        self.assertEqual(g.set_moves(RIGHT, 40, T0), E.OK)
        self.assertEqual(g.set_period(RIGHT, 1, T0), E.OK)
        self.assertEqual(g.set_time(RIGHT, 75 * MIN, T0), E.OK)
        g.resume(T0 + 2_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 3_000), 75 * MIN - 1_000)
        self.assertEqual(g.moves[RIGHT], 40)

    def test_arbiter_can_lift_a_flag(self):
        g = started(single(60))
        g.tick(T0 + 61_000)
        self.assertEqual(g.state, E.FLAGGED)
        self.assertEqual(g.set_time(RIGHT, 30_000, T0 + 70_000), E.OK)
        self.assertEqual(g.state, E.PAUSED)
        self.assertEqual(g.first_flag, -1)
        g.resume(T0 + 80_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 85_000), 25_000)

    def test_finish_records_the_result(self):
        g = started(single(60))
        g.tick(T0 + 61_000)
        self.assertEqual(g.finish(E.RESULT_LEFT_WINS, 1, T0 + 62_000), E.OK)
        self.assertEqual(g.state, E.FINISHED)
        self.assertEqual(g.set_time(RIGHT, 1000, T0), E.ERR_STATE)


class AppendixG(unittest.TestCase):
    def g4_game(self):
        g = started(single(600))  # G/10, no increment
        g.pause(T0 + 510_000)  # White on move with 1:30 left
        return g

    def test_g4_increment_for_both_and_two_minutes_for_the_opponent(self):
        g = self.g4_game()
        self.assertEqual(g.appendix_g4(RIGHT, BONUS_FISCHER, T0 + 511_000), E.OK)
        self.assertEqual(g.remaining(LEFT, T0 + 511_000), 720_000)
        g.resume(T0 + 520_000)
        g.press(RIGHT, T0 + 530_000)
        self.assertEqual(g.main[RIGHT], 90_000 - 10_000 + 5_000)
        g.press(LEFT, T0 + 540_000)
        self.assertEqual(g.main[LEFT], 720_000 - 10_000 + 5_000)

    def test_g4_delay_applies_from_now(self):
        g = self.g4_game()
        self.assertEqual(g.appendix_g4(RIGHT, BONUS_DELAY, T0 + 511_000), E.OK)
        g.resume(T0 + 520_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 524_000), 90_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 527_000), 88_000)

    def test_g4_refused_with_an_increment(self):
        g = started(single(600, BONUS_FISCHER, 5))
        g.pause(T0 + 510_000)
        self.assertEqual(g.appendix_g4(RIGHT, BONUS_FISCHER, T0), E.ERR_NOT_APPLICABLE)

    def test_g4_refused_with_two_minutes_or_more(self):
        g = started(single(600))
        g.pause(T0 + 480_000)  # exactly 2:00 left
        self.assertEqual(g.appendix_g4(RIGHT, BONUS_FISCHER, T0), E.ERR_NOT_APPLICABLE)

    def test_g4_only_for_the_player_on_move_and_only_once(self):
        g = self.g4_game()
        self.assertEqual(g.appendix_g4(LEFT, BONUS_FISCHER, T0), E.ERR_NOT_APPLICABLE)
        self.assertEqual(g.appendix_g4(RIGHT, BONUS_DELAY, T0), E.OK)
        self.assertEqual(g.appendix_g4(RIGHT, BONUS_DELAY, T0), E.ERR_NOT_APPLICABLE)

    def test_g4_needs_a_paused_clock(self):
        g = started(single(60))
        self.assertEqual(g.appendix_g4(RIGHT, BONUS_FISCHER, T0), E.ERR_STATE)


class Modes(unittest.TestCase):
    def test_hourglass_gives_used_time_to_the_opponent(self):
        g = started(from_seconds(MODE_HOURGLASS, [[60, 0, 0, 0]]))
        self.assertEqual(g.remaining(LEFT, T0 + 10_000), 70_000)
        g.press(RIGHT, T0 + 10_000)
        self.assertEqual((g.main[RIGHT], g.main[LEFT]), (50_000, 70_000))
        self.assertEqual(g.tick(T0 + 80_000), E.EV_FLAG)  # Black ran out after 70 s
        self.assertEqual(g.remaining(RIGHT, T0 + 80_000), 120_000)

    def test_upcount_counts_up_and_never_flags(self):
        g = started(from_seconds(MODE_UPCOUNT, [[0, 0, 0, 0]]))
        self.assertEqual(g.deadline(), -1)
        self.assertEqual(g.remaining(RIGHT, T0 + 7_000), 7_000)
        g.press(RIGHT, T0 + 7_000)
        self.assertEqual(g.remaining(RIGHT, T0 + 99_000), 7_000)
        self.assertEqual(g.tick(T0 + 10 * 3_600_000), 0)


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
        snap = g.snapshot()
        h = E.Game(presets.control(0))
        self.assertEqual(h.restore(snap), E.OK)
        self.assertEqual(h.snapshot(), snap)
        self.assertEqual(h.state, E.PAUSED)
        self.assertEqual(h.remaining(LEFT, 0), g.remaining(LEFT, T0 + 20_000))
        h.resume(50)
        self.assertEqual(h.remaining(LEFT, 1_050), g.remaining(LEFT, T0 + 20_000) - 1_000)

    def test_corrupt_snapshots_are_refused(self):
        h = E.Game(single(60))
        for bad in (None, [], [1] * 23, [2] + [0] * 23, [1, 9] + [0] * 22, [1, 2, 0] + ["x"] * 21):
            self.assertEqual(h.restore(bad), E.ERR_RANGE)
        self.assertEqual(h.state, E.READY)


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
        self.assertEqual(h.restore(g.snapshot()), E.OK)
        self.assertEqual(h.log_count, 0)  # restore() empties the log
        self.assertEqual(h.restore_log(g.log_count, flat), E.OK)
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
                self.assertEqual(h.restore_log(count, rows), E.ERR_RANGE)
                self.assertEqual(h.log_entries(), before)
                self.assertEqual(h.log_count, 4)

    def test_identity_is_cleared_by_a_new_game_and_not_in_the_snapshot(self):
        g, _flat = self.saved(2)
        g.ident = 987_654_321
        snap = g.snapshot()
        self.assertFalse(987_654_321 in snap)
        h = E.Game(g.control)
        h.ident = 5
        h.restore(snap)
        self.assertEqual(h.ident, 0)
        g.reset(g.control)
        self.assertEqual(g.ident, 0)


class Presets(unittest.TestCase):
    def test_every_preset_builds(self):
        for i in range(presets.COUNT):
            c = presets.control(i)
            self.assertTrue(len(presets.code(i)) <= 4)
            self.assertTrue(c.describe())

    def test_fide_classical(self):
        c = presets.control(0)
        self.assertEqual(c.periods, ((5_400_000, 40, 1, 30_000), (1_800_000, 0, 1, 30_000)))
