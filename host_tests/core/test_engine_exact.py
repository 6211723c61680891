"""Exact to the microsecond over a whole game: no random walk of rounding.

Runs under CPython (pytest) and under MicroPython 1.27 (test_micropython_core.py). Instants
are (ms, us) on the shell's monotonic clock, as the lever IRQ's stamps reach the engine.

- Drift: the issue's defect made deterministic. Presses whose us within the ms alternate
  .999 / .000 are the worst case for rounded stamps: each of White's turns is charged 0.999 ms
  too much, each of Black's 0.999 ms too little, so after 100 half-moves the two clocks are
  off by 50 ms each. The exact engine is off by nothing, and the flag that falls is the one
  the exact times say.
- Seeded games: up to 300 half-moves in every mode, presses at random us instants, checked
  at every action against the independent us model (exact_model.py): times to the us,
  flags at their exact us, the exact sum of the intervals per side, the record within
  0.5 ms at every move. The same games on both runtimes (a seeded generator of our own).
- The rounding where numbers leave the engine, flags within one ms, power cuts (the us parts
  kept; today's game.json still loads) and arbiter corrections.
"""

import json
import unittest
from array import array

import engine as E
import exact_model
import game_state
import presets
import settings
from monoclock import MonoClock
from timecontrol import (
    BONUS_BRONSTEIN,
    BONUS_DELAY,
    BONUS_FISCHER,
    BONUS_NONE,
    MODE_BYOYOMI,
    MODE_CANADIAN,
    MODE_COUNTDOWN,
    MODE_HOURGLASS,
    MODE_UPCOUNT,
    TimeControl,
    from_seconds,
)

T0 = 900_000_000  # ms: close to the 2**30 small-int limit on purpose
LEFT = 0
RIGHT = 1
US = 1000


def exact(g, side, at=0, at_us=0):
    ms, us = g.remaining_exact(side, at, at_us)
    return ms * US + us


class Rng:
    """A small linear congruential generator: the same numbers on CPython and MicroPython."""

    def __init__(self, seed):
        self.x = (seed * 7_919 + 12_345) & 0x7FFFFFFF

    def below(self, n):
        self.x = (self.x * 1_103_515_245 + 12_345) & 0x7FFFFFFF
        return (self.x >> 4) % n

    def pick(self, items):
        return items[self.below(len(items))]


# ------------------------------------------------------------------ the issue's drift
class Drift(unittest.TestCase):
    def alternating_game(self, control, half_moves, white_us, black_us):
        """Black starts at T0.999; White's turns last `white_us`, Black's `black_us`, so the
        stamps' us alternate .999 (White's clock starts) and .000 (Black's starts). Returns
        the game and the exact us each side's clock ran."""
        g = E.Game(control)
        t = T0 * US + 999
        self.assertEqual(g.press(LEFT, t // US, t % US), E.EV_START)
        spent = [0, 0]
        for k in range(half_moves):
            side = RIGHT if k % 2 == 0 else LEFT
            d = white_us if side == RIGHT else black_us
            t += d
            self.assertTrue(g.press(side, t // US, t % US) & E.EV_MOVE)
            spent[side] += d
        return g, spent

    def test_a_hundred_half_moves_charge_the_exact_intervals(self):
        # FIDE 90/40 + 30, 30 s a move: White thinks 1 000.001 ms (.999 -> .000), Black
        # 1 000.999 ms (.000 -> .999).
        control = presets.control(0)
        g, spent = self.alternating_game(control, 100, 1_000_001, 1_000_999)
        for side in (LEFT, RIGHT):
            # 50 moves each: 50 increments, and 30 min with the 40th
            start = (5_400_000 + 50 * 30_000 + 1_800_000) * US
            self.assertEqual(exact(g, side), start - spent[side])
            self.assertEqual(g.main[side] * US + g.main_us[side], start - spent[side])
        # What rounding each stamp to its ms charged (an engine on whole ms): 1 001 ms
        # and 1 000 ms a move, 49.95 ms too much for White, 49.95 ms too little for Black.
        self.assertEqual(50 * 1_001 * US - spent[RIGHT], 49_950)
        self.assertEqual(50 * 1_000 * US - spent[LEFT], -49_950)
        # Each logged time within 0.5 ms of exact, at the 100th move as at the first.
        for row in g.log_entries():
            self.assertEqual(row[2], 1_000 if row[0] == RIGHT else 1_001)
        last = g.log_entries()[-1]
        self.assertEqual(last[3], (exact(g, LEFT) + 500) // US)

    def test_the_exact_times_decide_which_flag_falls(self):
        # 1 min, no increment. After 49 moves each White holds 10 999.951 ms exactly (rounded
        # stamps charged 49 x 0.999 ms more: 10 951 ms). White's 50th move is made with 20 ms
        # left: rounded stamps would have dropped White's flag 28.95 ms before it; the exact
        # engine counts the move, and Black's flag falls at its exact instant.
        bullet = from_seconds(0, [[60, 0, 0, 0]])
        g, spent = self.alternating_game(bullet, 98, 1_000_001, 1_000_999)
        self.assertEqual(exact(g, RIGHT), 60_000 * US - spent[RIGHT])
        self.assertEqual(exact(g, RIGHT), 10_999_951)
        start = g.turn_start * US + g.turn_us  # White's clock started at .999
        t = start + 10_999_951 - 20_000  # 20 ms before White's flag
        self.assertEqual(g.tick(t // US, t % US), 0)
        self.assertEqual(g.press(RIGHT, t // US, t % US), E.EV_MOVE)
        self.assertEqual(exact(g, RIGHT), 20_000)
        black = exact(g, LEFT, t // US, t % US)
        self.assertEqual(black, 60_000 * US - spent[LEFT])
        flag = t + black
        self.assertEqual(g.deadline_exact(), (flag // US, flag % US))
        self.assertEqual(g.tick(flag // US, flag % US - 1), 0)
        self.assertEqual(g.tick(flag // US, flag % US), E.EV_FLAG)
        self.assertEqual((g.first_flag, g.state), (LEFT, E.FLAGGED))
        self.assertEqual(g.flag_at[LEFT] * US + g.flag_us[LEFT], flag)


# ------------------------------------------------------------------ seeded games
def seeded_control(rng):
    """A control of any mode, with fast or slow play to go with it (the pace in us)."""
    kind = rng.below(9)
    if kind < 4:  # countdown: 1-3 periods, every bonus
        bonus = (BONUS_NONE, BONUS_FISCHER, BONUS_BRONSTEIN, BONUS_DELAY)[kind]
        amount = 0 if bonus == BONUS_NONE else 1_000 * (1 + rng.below(30))
        n = 1 + rng.below(3)
        periods = []
        for i in range(n):
            moves = 0 if i == n - 1 else 5 + rng.below(40)
            periods.append((60_000 * (1 + rng.below(90)), moves, bonus, amount))
        pace = amount if amount else 20_000
        return TimeControl(periods, MODE_COUNTDOWN), pace * US
    if kind == 4:
        return TimeControl([(1_000 * (5 + rng.below(120)), 0, 0, 0)], MODE_HOURGLASS), 3_000_000
    if kind == 5:
        return TimeControl([(0, 0, 0, 0)], MODE_UPCOUNT), 30_000_000
    main = rng.pick((0, 1_000 * (1 + rng.below(120))))
    ot_ms = 1_000 * (5 + rng.below(60))
    if kind < 8:
        bonus = BONUS_FISCHER if main and rng.below(2) else BONUS_NONE
        inc = 1_000 * rng.below(10) if bonus else 0
        count = 1 + rng.below(5)
        control = TimeControl([(main, 0, bonus, inc)], MODE_BYOYOMI, overtime=(count, ot_ms))
        return control, ot_ms * 600  # moves up to 1.2 periods long
    count = 1 + rng.below(10)
    control = TimeControl([(main, 0, 0, 0)], MODE_CANADIAN, overtime=(count, ot_ms))
    return control, ot_ms * 600 // count  # blocks played in 0.6 of their time on average


def seeded_actions(rng, pace_us, n):
    """n actions: mostly moves at the pace, now and then within the same ms (or within the
    50 ms of a two-lever slap), a long think, a wrong-side press, a tick, a pause or a
    correction."""
    out = []
    for _ in range(n):
        r = rng.below(100)
        if r < 15:
            dt = rng.below(3_000)  # the same ms, the next, the one after
        elif r < 20:
            dt = 49_000 + rng.below(2_000)  # around min_move_ms
        elif r < 23:
            dt = rng.below(600_000_000)  # a long think, up to 10 min
        else:
            dt = rng.below(2 * pace_us + 1)
        r = rng.below(100)
        kind = "move"
        if r < 8:
            kind = "other"
        elif r < 15:
            kind = "tick"
        elif r < 19:
            kind = "pause"
        elif r < 21:
            kind = "add"
        elif r < 23:
            kind = "set"
        elif r < 24:
            kind = "edge"  # a press at the flag's instant
        elif r < 25:
            kind = "edge-1"  # 1 us before it
        out.append((dt, kind, rng.below(100_000_000)))
    return out


class SeededGames(unittest.TestCase):
    GAMES = 36

    def test_games_of_up_to_300_half_moves_at_random_microseconds(self):
        half_moves = 0
        modes = set()
        for seed in range(self.GAMES):
            rng = Rng(seed)
            control, pace = seeded_control(rng)
            opts = {
                "freeze": rng.below(2) == 0,
                "inc_before": rng.below(3) == 0,
                "transition": rng.pick((E.TRANSITION_MOVES, E.TRANSITION_FLAG)),
                "min_move_ms": rng.pick((0, 50)),
            }
            n = 300 if seed % 3 else 1 + rng.below(300)
            base = rng.below(1 << 28) * US + rng.below(US)  # any us of a ms
            ref = exact_model.play(control, opts, base, seeded_actions(rng, pace, n))
            half_moves += ref.half_moves
            modes.add(control.mode)
        # The seeds are fixed: these are facts about the games played, not chances.
        self.assertEqual(len(modes), 5)
        self.assertTrue(half_moves > 2_500, half_moves)

    def test_a_long_fide_game_has_no_flag_and_every_move_exact(self):
        # 90/40 + 30 min, 30 s from move 1: 300 half-moves at random us, each under 40 s.
        rng = Rng(2024)
        actions = [(rng.below(40_000_000), "move", 0) for _ in range(300)]
        ref = exact_model.play(presets.control(0), {}, 123_456_789, actions)
        self.assertEqual(ref.half_moves, 300)
        self.assertEqual(ref.g.moves[0] + ref.g.moves[1], 300)


# ------------------------------------------------------------------ rounding at the exits
class Exits(unittest.TestCase):
    def test_the_display_rounds_up_and_shows_zero_only_at_the_flag(self):
        g = E.Game(from_seconds(0, [[10, 0, 0, 0]]))
        g.press(LEFT, T0, 400)  # right runs from T0.400: its flag falls at T0+10000.400
        self.assertEqual(g.remaining(RIGHT, T0 + 1), 10_000)  # 9 999.400 ms left
        self.assertEqual(g.remaining(RIGHT, T0 + 9_999), 2)  # 1.400 ms
        self.assertEqual(g.remaining(RIGHT, T0 + 10_000), 1)  # 0.400 ms: not 0
        self.assertEqual(g.deadline(), T0 + 10_001)  # the first ms tick() flags at
        self.assertEqual(g.deadline_exact(), (T0 + 10_000, 400))
        self.assertEqual(g.tick(T0 + 10_000), 0)
        self.assertEqual(g.tick(T0 + 10_001), E.EV_FLAG)
        self.assertEqual((g.flag_at[RIGHT], g.flag_us[RIGHT]), (T0 + 10_000, 400))
        self.assertEqual(g.remaining(RIGHT, T0 + 10_001), 0)

    def test_rounding_up_where_the_two_us_parts_make_a_whole_ms(self):
        # The right holds 58 999.400 ms; its turn starts at .600 (.601) of a ms: 1 ms later
        # it holds exactly 58 999 ms (58 999.001 ms).
        for start_us, shown in ((600, 58_999), (601, 59_000), (599, 58_999)):
            g = E.Game(from_seconds(0, [[60, 0, 0, 0]]))
            g.press(LEFT, T0, 0)
            g.press(RIGHT, T0 + 1_000, 600)  # right: 58 999.400 ms
            g.press(LEFT, T0 + 2_000, start_us)
            self.assertEqual(g.remaining(RIGHT, T0 + 2_001), shown)
            ms, us = g.remaining_exact(RIGHT, T0 + 2_001)
            self.assertEqual(shown, ms + 1 if us else ms)
            self.assertEqual(g.remaining(LEFT, T0 + 2_001), 59_001 if start_us < 600 else 59_000)

    def test_a_press_one_us_before_the_flag_counts_one_at_it_does_not(self):
        for early, moved in ((1, True), (0, False)):
            g = E.Game(from_seconds(0, [[10, 0, 0, 0]]))
            g.press(LEFT, T0, 400)
            ev = g.press(RIGHT, T0 + 10_000, 400 - early)
            self.assertEqual(bool(ev & E.EV_MOVE), moved)
            self.assertEqual(bool(ev & E.EV_FLAG), not moved)
            if moved:
                self.assertEqual(g.remaining_exact(RIGHT, 0), (0, 1))
                self.assertEqual(g.remaining(RIGHT, 0), 1)
                self.assertEqual(g.log_entries()[-1][3], 0)  # the record: nearest ms

    def test_the_stopwatch_rounds_down(self):
        g = E.Game(TimeControl([(0, 0, 0, 0)], MODE_UPCOUNT))
        g.press(LEFT, T0, 700)
        self.assertEqual(g.remaining(RIGHT, T0 + 2), 1)  # 1.300 ms used
        g.press(RIGHT, T0 + 1_000, 699)  # 999.999 ms
        self.assertEqual(g.remaining_exact(RIGHT, 0), (999, 999))
        self.assertEqual(g.remaining(RIGHT, T0 + 5_000), 999)
        self.assertEqual(g.log_entries()[-1][2:], (1_000, 1_000))

    def test_the_delay_left_rounds_up_and_the_main_time_waits_for_it(self):
        g = E.Game(from_seconds(0, [[60, 0, BONUS_DELAY, 5]]))
        g.press(LEFT, T0, 250)
        self.assertEqual(g.delay_left(RIGHT, T0 + 1), 5_000)  # 4 999.250 ms
        self.assertEqual(g.delay_left(RIGHT, T0 + 2), 4_999)  # 4 998.250 ms
        self.assertEqual(g.delay_left(RIGHT, T0 + 5_000), 1)  # 0.250 ms
        self.assertEqual(g.remaining(RIGHT, T0 + 5_000), 60_000)
        self.assertEqual(g.delay_left(RIGHT, T0 + 5_001), 0)
        self.assertEqual(g.remaining(RIGHT, T0 + 5_001), 60_000)  # 59 999.250 ms
        self.assertEqual(g.remaining_exact(RIGHT, T0 + 5_001), (59_999, 250))
        self.assertEqual(g.deadline_exact(), (T0 + 65_000, 250))

    def test_the_record_rounds_each_time_to_the_nearest_ms(self):
        g = E.Game(from_seconds(0, [[60, 0, BONUS_FISCHER, 2]]))
        g.press(LEFT, T0, 0)
        g.press(RIGHT, T0 + 1_000, 500)  # 1 000.500 ms used: 1 001 logged
        g.press(LEFT, T0 + 2_001, 0)  # 1 000.500 ms
        g.press(RIGHT, T0 + 3_001, 499)  # 1 000.499 ms: 1 000 logged
        rows = g.log_entries()
        self.assertEqual(rows[0][2:], (1_001, 61_000))  # 60 999.500 ms left: 61 000
        self.assertEqual(rows[1][2:], (1_001, 61_000))
        self.assertEqual(rows[2][2:], (1_000, 61_999))  # 61 999.001 ms left
        self.assertEqual(exact(g, RIGHT), 61_999_001)

    def test_bronstein_gives_back_the_exact_move_time(self):
        g = E.Game(from_seconds(0, [[60, 0, BONUS_BRONSTEIN, 3]]))
        g.press(LEFT, T0, 900)
        g.press(RIGHT, T0 + 1_234, 567)  # 1 233.667 ms: all of it comes back
        self.assertEqual(exact(g, RIGHT), 60_000_000)
        g.press(LEFT, T0 + 5_000, 0)  # 3 765.433 ms: 3 s back
        self.assertEqual(exact(g, LEFT), 60_000_000 - 3_765_433 + 3_000_000)


# ------------------------------------------------------------------ flags within one ms
class FlagsInOneMs(unittest.TestCase):
    def test_two_flags_in_the_same_ms_in_the_order_they_fell(self):
        # Flag freeze off: 1 s each, no increment. The game starts at T0.500; after the moves
        # below White's flag falls at X.200, White moves at X.300 (after its flag) and
        # Black's 0.3 ms run out at X.600, X = T0 + 2000. Played with White on either side,
        # so the order is the instants', not the sides'.
        for black in (LEFT, RIGHT):
            white = 1 - black
            g = E.Game(from_seconds(0, [[1, 0, 0, 0]]), freeze=False)
            g.press(black, T0, 500)
            g.press(white, T0 + 400, 0)  # White used 399.5 ms: 600.5 ms left
            g.press(black, T0 + 1_399, 700)  # Black used 999.7 ms: 0.3 ms left
            self.assertEqual(g.remaining_exact(black, 0), (0, 300))
            self.assertEqual(g.deadline_exact(), (T0 + 2_000, 200))
            ev = g.press(white, T0 + 2_000, 300)
            self.assertEqual(ev, E.EV_FLAG | E.EV_MOVE)  # the flag first, then the move
            self.assertEqual(g.tick(T0 + 2_000, 599), 0)
            self.assertEqual(g.tick(T0 + 2_000, 600), E.EV_FLAG)
            self.assertEqual(g.first_flag, white)
            self.assertEqual((g.flag_at[white], g.flag_us[white]), (T0 + 2_000, 200))
            self.assertEqual((g.flag_at[black], g.flag_us[black]), (T0 + 2_000, 600))
            self.assertEqual(g.state, E.FLAGGED)  # both flags: both clocks stop
            self.assertEqual(g.remaining(white, T0 + 2_001), 0)
            self.assertEqual(g.remaining(black, T0 + 2_001), 0)

    def test_a_flag_that_fell_inside_the_ms_shows_zero_at_that_ms(self):
        # Freeze off: the press at X.500 finds the flag of X.300; the display of ms X shows
        # 0 for it (the engine reads an instant before the last event as the last event).
        g = E.Game(from_seconds(0, [[1, 0, 0, 0]]), freeze=False)
        g.press(LEFT, T0, 300)
        g.press(LEFT, T0 + 1_000, 500)  # the wrong side: only the tick inside it counts
        self.assertEqual((g.flagged[RIGHT], g.flag_us[RIGHT]), (1, 300))
        self.assertEqual(g.remaining(RIGHT, T0 + 1_000), 0)


# ------------------------------------------------------------------ power cuts
V2_GAME_JSON = (
    '{"v": 1, "id": 123456, "control": {"preset": 0}, "snap": [2, 2, 0, 1, 7777, -1, -1, 0, '
    "0, 0, 0, 0, 5315557, 5413211, 2, 3, 0, 0, 0, 0, 0, 0, -1, -1, 0, 0], "
    '"opts": [1, 0, 0], "n": 5, "log": [3,61234,5368766,2,45678,5384322,5,12345,5386421,4,'
    "98765,5315557,7,3210,5413211]}"
)  # as an older firmware writes it (snapshot version 2, whole ms)


class PowerCut(unittest.TestCase):
    def played(self):
        g = E.Game(presets.control(0))
        t = T0 * US + 123
        g.press(LEFT, t // US, t % US)
        rng = Rng(7)
        for _ in range(41):
            t += 1_000_000 + rng.below(60_000_000)
            g.press(g.running, t // US, t % US)
        return g, t

    def test_a_resumed_game_keeps_the_us(self):
        g, t = self.played()
        ref, _ = self.played()  # the same game, never cut
        pause = t // US + 1 + 5_000  # 5 s into White's move, at a whole ms
        g.pause(pause)
        h = E.Game(presets.control(0))
        self.assertEqual(
            game_state.restore(h, json.loads(json.dumps(game_state.snapshot(g)))), E.OK
        )
        for side in (LEFT, RIGHT):
            self.assertEqual(h.remaining_exact(side, 0), g.remaining_exact(side, 0))
        self.assertTrue(h.main_us[0] or h.main_us[1])  # there were us to keep
        h.resume(1_000)  # a new power-up: its clock starts again at 0
        # 12.345678 s more for the running side: the same as in the game never cut.
        u = 1_000 * US + 12_345_678
        h.press(h.running, u // US, u % US)
        v = t + (pause * US - t) + 12_345_678
        ref.press(ref.running, v // US, v % US)
        for side in (LEFT, RIGHT):
            self.assertEqual(h.remaining_exact(side, 0), ref.remaining_exact(side, 0))
        self.assertEqual(h.log_entries()[-1][2:], ref.log_entries()[-1][2:])

    def test_a_game_json_in_the_format_before_issue_21_still_loads(self):
        saved = settings.check_game(json.loads(V2_GAME_JSON), presets.COUNT)
        self.assertTrue(saved is not None)
        h = E.Game(presets.control(0))
        self.assertEqual(game_state.restore(h, saved["snap"]), E.OK)
        self.assertEqual(game_state.restore_log(h, saved["n"], saved["log"]), E.OK)
        self.assertEqual(h.state, E.PAUSED)
        self.assertEqual(h.remaining_exact(LEFT, 0), (5_315_557 - 7_777, 0))
        self.assertEqual(h.remaining_exact(RIGHT, 0), (5_413_211, 0))
        self.assertEqual(h.log_entries()[-1], (1, 3, 3_210, 5_413_211))
        snap = game_state.snapshot(h)  # saved again: version 3, us parts 0
        self.assertEqual((snap[0], len(snap), snap[26:]), (3, 29, [0, 0, 0]))

    def test_a_g4_delay_comes_back_with_the_saved_game(self):
        # Appendix G.4's 5 s delay is the game's bonus from then on, restored or not.
        g = E.Game(from_seconds(0, [[240, 0, 0, 0]]))
        g.press(LEFT, T0, 0)
        g.press(RIGHT, T0 + 130_000, 250)  # right: 109 999.750 ms
        g.press(LEFT, T0 + 131_000, 0)
        g.pause(T0 + 131_000)
        self.assertEqual(game_state.appendix_g4(g, RIGHT, BONUS_DELAY, T0 + 131_000), E.OK)
        h = E.Game(g.control)
        self.assertEqual(game_state.restore(h, game_state.snapshot(g)), E.OK)
        h.resume(1_000)
        self.assertEqual(h.delay_left(RIGHT, 3_000), 3_000)
        self.assertEqual(h.remaining(RIGHT, 3_000), 110_000)  # the delay runs first
        self.assertEqual(h.remaining_exact(RIGHT, 7_000), (108_999, 750))
        self.assertEqual(h.deadline_exact(), (1_000 + 5_000 + 109_999, 750))

    def test_bad_us_parts_are_refused(self):
        g, _t = self.played()
        g.pause(T0 * 2)
        snap = game_state.snapshot(g)
        for i in (26, 27, 28):
            for bad in (-1, 1_000):
                s = list(snap)
                s[i] = bad
                self.assertEqual(game_state.restore(E.Game(presets.control(0)), s), E.ERR_RANGE)


# ------------------------------------------------------------------ arbiter
class Arbiter(unittest.TestCase):
    def test_adding_time_keeps_the_us_and_setting_a_time_sets_it_exactly(self):
        g = E.Game(from_seconds(0, [[60, 0, 0, 0]]))
        g.press(LEFT, T0, 0)
        g.press(RIGHT, T0 + 1_000, 250)  # right: 58 999.750 ms
        self.assertEqual(g.pause(T0 + 3_000), E.OK)
        self.assertEqual(game_state.add_time(g, RIGHT, 2_000, T0 + 3_000), E.OK)
        self.assertEqual(g.remaining_exact(RIGHT, 0), (60_999, 750))
        self.assertEqual(
            game_state.add_time(g, LEFT, -1_000, T0 + 3_000), E.OK
        )  # left: 60 s - 1.999750
        self.assertEqual(g.remaining_exact(LEFT, 0), (57_000, 250))
        self.assertEqual(game_state.set_time(g, LEFT, 30_000, T0 + 3_000), E.OK)
        self.assertEqual(g.remaining_exact(LEFT, 0), (30_000, 0))
        g.resume(T0 + 10_000)
        self.assertEqual(g.deadline_exact(), (T0 + 40_000, 0))

    def test_appendix_g4_asks_less_than_two_minutes_exactly(self):
        # The right holds 119 999.500 ms: the display shows 2:00 (rounded up), and it is
        # less than two minutes, so G.4 applies.
        g = E.Game(from_seconds(0, [[240, 0, 0, 0]]))
        g.press(LEFT, T0, 0)
        g.press(RIGHT, T0 + 120_000, 500)  # right: 119 999.500 ms
        g.press(LEFT, T0 + 120_001, 0)  # left: 239 999.500 ms
        g.pause(T0 + 120_001)
        self.assertEqual(g.remaining(RIGHT, 0), 120_000)
        self.assertEqual(game_state.appendix_g4(g, RIGHT, BONUS_FISCHER, T0 + 120_001), E.OK)
        self.assertEqual(g.remaining_exact(RIGHT, 0), (119_999, 500))
        self.assertEqual(g.remaining_exact(LEFT, 0), (359_999, 500))

    def test_g4_is_refused_at_exactly_two_minutes(self):
        g = E.Game(from_seconds(0, [[240, 0, 0, 0]]))
        g.press(RIGHT, T0, 0)  # left (White) runs
        g.pause(T0 + 120_000)  # 120 000.000 ms left: not less
        self.assertEqual(game_state.appendix_g4(g, LEFT, BONUS_FISCHER, T0), E.ERR_NOT_APPLICABLE)

    def test_the_hourglass_paused_and_finished_keeps_both_times(self):
        g = E.Game(TimeControl([(60_000, 0, 0, 0)], MODE_HOURGLASS))
        g.press(RIGHT, T0, 100)  # left runs
        g.pause(T0 + 8_000)  # 7 999.900 ms moved from left to right
        self.assertEqual(game_state.finish(g, E.RESULT_DRAW, 0, T0 + 9_000), E.OK)
        self.assertEqual(g.remaining_exact(LEFT, 0), (52_000, 100))
        self.assertEqual(g.remaining_exact(RIGHT, 0), (67_999, 900))


# ------------------------------------------------------------------ stamps to instants
class Stamps(unittest.TestCase):
    def test_stamps_over_thirteen_wraps_give_the_exact_intervals(self):
        # The loop updates the clock every 4 s; a lever stamp arrives every 17.3 min (more
        # than half a wrap would break ticks_diff, so the stamps come between updates).
        period = 1 << 30
        start = period - 3_000_000
        c = MonoClock(start)
        at = array("i", (0, 0))
        raw = start  # unbounded us; ticks are raw % period
        stamps = []
        rng = Rng(13)
        for _ in range(60):
            target = raw + 1_000_000_000 + rng.below(40_000_000)
            while raw + 4_000_000 < target:
                raw += 4_000_000
                c.update(raw % period)
            stamp = target
            raw = target + rng.below(3_000)
            c.update(raw % period)
            c.instant(stamp % period, at)
            stamps.append((stamp, at[0], at[1]))
        self.assertTrue(stamps[-1][0] - start > 13 * period)
        for k in range(1, len(stamps)):
            a, am, au = stamps[k - 1]
            b, bm, bu = stamps[k]
            self.assertTrue(0 <= au < 1_000 and 0 <= bu < 1_000)
            self.assertEqual((bm - am) * US + bu - au, b - a)
        self.assertEqual(stamps[0][1] * US + stamps[0][2], stamps[0][0] - start)


if __name__ == "__main__":
    unittest.main()
