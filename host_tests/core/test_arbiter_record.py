"""The arbiter's corrections as the game keeps them: each with the half-move it followed and
the values before and after (engine.Game._note, game_state.py's table), bounded without
losing a correction silently, and saved and restored with the game.

Runs under CPython (pytest) and under MicroPython 1.27 (test_micropython_core.py).
"""

import unittest

import engine as E
import game_state as S
from timecontrol import BONUS_FISCHER, MODE_BYOYOMI, from_seconds

T0 = 1_000_000
LEFT = 0
RIGHT = 1


def rapid():
    return from_seconds(0, [[1800, 0, 0, 0]])


def played(plies, control=None):
    """A game: Black (left) starts White's (right) clock at T0, `plies` moves of 10 s,
    then paused 3.5 s into the next move."""
    g = E.Game(control or rapid())
    g.press(LEFT, T0)
    t = T0
    for _ in range(plies):
        t += 10_000
        g.press(g.running, t)
    g.pause(t + 3_500)
    return g, t + 3_500


def kept(g):
    """The corrections as (ply, action, side, value, before, after)."""
    return [e[4:5] + e[1:4] + e[5:] for e in g.arbiter_log if e[1] > E.ACT_RESUME]


class Entries(unittest.TestCase):
    def test_a_time_set_keeps_its_half_move_and_both_times(self):
        g, t = played(14)
        shown = g.remaining(RIGHT, t)
        self.assertEqual(shown, 1_800_000 - 7 * 10_000 - 3_500)
        self.assertEqual(S.set_time(g, RIGHT, 900_000, t), E.OK)
        self.assertEqual(kept(g), [(14, E.ACT_SET_TIME, RIGHT, 900_000, shown, 900_000)])

    def test_an_addition_keeps_the_times_before_and_after_rounded_as_shown(self):
        g = E.Game(rapid())
        g.press(LEFT, T0)
        g.press(RIGHT, T0 + 10_000, 400)  # 10.0004 s: White holds 1 789 999.600 ms
        g.pause(T0 + 20_000)
        before = g.remaining(RIGHT, T0 + 20_000)
        self.assertEqual(before, 1_790_000)  # rounded up, as the display shows it
        self.assertEqual(S.add_time(g, RIGHT, -900_000, T0 + 20_000), E.OK)
        self.assertEqual(kept(g), [(1, E.ACT_ADD_TIME, RIGHT, -900_000, before, 890_000)])

    def test_counters_and_periods_keep_their_old_values(self):
        g, t = played(6, from_seconds(0, [[600, 40, 0, 0], [300, 0, 0, 0]]))
        S.set_moves(g, LEFT, 40, t)
        S.set_period(g, LEFT, 1, t)
        self.assertEqual(
            kept(g),
            [(6, E.ACT_SET_MOVES, LEFT, 40, 3, 40), (6, E.ACT_SET_PERIOD, LEFT, 1, 0, 1)],
        )

    def test_an_overtime_counter_keeps_its_old_value(self):
        g, t = played(2, from_seconds(MODE_BYOYOMI, [[0, 0, 0, 0]], overtime=[5, 30]))
        S.set_overtime(g, RIGHT, 2, t)
        self.assertEqual(kept(g), [(2, E.ACT_SET_OVERTIME, RIGHT, 2, 5, 2)])

    def test_g4_keeps_the_opponents_two_minutes(self):
        g = E.Game(from_seconds(0, [[180, 0, 0, 0]]))
        g.press(LEFT, T0)
        g.press(RIGHT, T0 + 100_000)
        g.pause(T0 + 170_000)  # Black (left) has 110 s: less than two minutes
        self.assertEqual(S.appendix_g4(g, LEFT, BONUS_FISCHER, T0 + 170_000), E.OK)
        self.assertEqual(kept(g), [(1, E.ACT_G4, LEFT, BONUS_FISCHER, 80_000, 200_000)])

    def test_a_result_keeps_its_reason_and_result(self):
        g, t = played(3)
        S.finish(g, E.RESULT_DRAW, E.REASON_DEAD, t)
        self.assertEqual(kept(g), [(3, E.ACT_FINISH, -1, E.REASON_DEAD, 0, E.RESULT_DRAW)])

    def test_a_refused_correction_is_not_kept(self):
        g, t = played(3)
        self.assertEqual(S.set_time(g, LEFT, -5, t), E.ERR_RANGE)
        self.assertEqual(kept(g), [])

    def test_pauses_and_resumes_keep_the_half_move_too(self):
        g, t = played(5)
        g.resume(t + 1_000)
        self.assertEqual([e[1] for e in g.arbiter_log], [E.ACT_PAUSE, E.ACT_RESUME])
        self.assertEqual([e[4] for e in g.arbiter_log], [5, 5])


class Bound(unittest.TestCase):
    def test_a_full_log_drops_pauses_before_any_correction(self):
        g, t = played(2)
        S.set_time(g, LEFT, 60_000, t)
        for k in range(E.ARBITER_LOG_CAPACITY):
            g.resume(t + 10 * k + 1)
            g.pause(t + 10 * k + 5)
        log = g.arbiter_log
        self.assertEqual(len(log), E.ARBITER_LOG_CAPACITY)
        self.assertEqual(kept(g), [(2, E.ACT_SET_TIME, LEFT, 60_000, 1_790_000, 60_000)])
        self.assertEqual(log[-1][1], E.ACT_PAUSE)

    def test_corrections_beyond_the_bound_are_counted_oldest_first(self):
        g, t = played(2)
        n = E.ARBITER_LOG_CAPACITY + 5
        for k in range(n):
            S.set_moves(g, LEFT, k + 10, t)
        log = g.arbiter_log
        self.assertEqual(len(log), E.ARBITER_LOG_CAPACITY)
        self.assertEqual(log[0][:4], (0, E.ACT_LOST, -1, 6))  # 5 more and the head's place
        self.assertEqual([e[3] for e in log[1:]], list(range(16, n + 10)))
        flat = S.corrections(g)
        self.assertEqual(flat[0], 6)
        self.assertEqual(len(flat), 1 + 6 * (E.ARBITER_LOG_CAPACITY - 1))


class Saved(unittest.TestCase):
    def corrected(self):
        g, t = played(9)
        S.set_time(g, RIGHT, 905_000, t)
        g.resume(t + 1_000)
        g.press(g.running, t + 2_000)
        g.pause(t + 3_000)
        S.add_time(g, LEFT, 120_000, t + 3_000)
        return g

    def test_corrections_are_saved_without_the_pauses(self):
        g = self.corrected()
        flat = S.corrections(g)
        self.assertEqual(flat[0], 0)
        self.assertEqual(flat[1::6], [9, 10])
        self.assertEqual(flat[2::6], [E.ACT_SET_TIME, E.ACT_ADD_TIME])

    def test_a_restored_game_has_its_corrections_back(self):
        g = self.corrected()
        flat = S.corrections(g)
        h = E.Game(rapid())
        self.assertEqual(S.restore(h, S.snapshot(g)), E.OK)
        self.assertEqual(h.arbiter_log, [])
        self.assertEqual(S.restore_corrections(h, flat), E.OK)
        self.assertEqual(kept(h), kept(g))
        self.assertEqual(S.corrections(h), flat)
        self.assertEqual([e[0] for e in h.arbiter_log], [0, 0])  # instants restart at 0

    def test_the_count_of_dropped_ones_comes_back(self):
        h = E.Game(rapid())
        flat = [3, 4, E.ACT_SET_TIME, LEFT, 60_000, 61_000, 60_000]
        self.assertEqual(S.restore_corrections(h, flat), E.OK)
        self.assertEqual(h.arbiter_log[0][:4], (0, E.ACT_LOST, -1, 3))
        self.assertEqual(S.corrections(h), flat)

    def test_a_bad_saved_form_is_refused_and_changes_nothing(self):
        g = self.corrected()
        good = S.corrections(g)
        bad = (
            None,
            [],
            good[:-1],
            good + [1],
            [-1] + good[1:],
            good[:2] + [E.ACT_PAUSE] + good[3:],
            good[:2] + [E.ACT_LOST] + good[3:],
            good[:3] + [2] + good[4:],
            [0, 10, 3, 0, 0, 0, 0, 9, 3, 0, 0, 0, 0],  # plies out of order
            good[:4] + [1.5] + good[5:],
            good[:4] + [True] + good[5:],
            [0] + [1, E.ACT_SET_TIME, 0, 0, 0, 0] * (E.ARBITER_LOG_CAPACITY + 1),
            [1] + [1, E.ACT_SET_TIME, 0, 0, 0, 0] * E.ARBITER_LOG_CAPACITY,
        )
        for flat in bad:
            h = self.corrected()
            before = list(h.arbiter_log)
            self.assertEqual(S.restore_corrections(h, flat), E.ERR_RANGE, flat)
            self.assertEqual(h.arbiter_log, before)

    def test_a_full_log_of_corrections_round_trips(self):
        g, t = played(2)
        for k in range(E.ARBITER_LOG_CAPACITY + 2):
            S.set_moves(g, LEFT, k, t)
        flat = S.corrections(g)
        h = E.Game(rapid())
        S.restore(h, S.snapshot(g))
        self.assertEqual(S.restore_corrections(h, flat), E.OK)
        self.assertEqual(S.corrections(h), flat)
        self.assertEqual(len(h.arbiter_log), E.ARBITER_LOG_CAPACITY)


if __name__ == "__main__":
    unittest.main()
