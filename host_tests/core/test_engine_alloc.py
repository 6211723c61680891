"""The engine's hot path allocates nothing: proven under MicroPython with heap_lock (any
allocation inside the lock raises MemoryError). Skipped under CPython, which has no such lock."""

import sys
import unittest
from array import array

import engine as E
import micropython
import presets
from monoclock import MonoClock
from timecontrol import (
    BONUS_FISCHER,
    MODE_BYOYOMI,
    MODE_CANADIAN,
    MODE_COUNTDOWN,
    MODE_HOURGLASS,
    Odds,
    from_seconds,
)

ON_MICROPYTHON = sys.implementation.name == "micropython"


@unittest.skipUnless(ON_MICROPYTHON, "heap_lock only bites under MicroPython")
class NoAllocation(unittest.TestCase):
    def check_preset(self, index, **opts):
        self.check_control(presets.control(index), 200, **opts)

    def check_control(self, control, n, step_ms=1_234, **opts):
        g = E.Game(control, **opts)
        t = 1_000
        g.press(1 if g.white_side == 0 else 0, t)  # Black's side, under draw odds
        for _ in range(4):  # warm up
            t += 1_500
            g.press(g.running, t)
        clock = MonoClock(1 << 29)
        at = array("i", (0, 0))  # the stamp's instant: ms, us
        stamp = 1 << 29
        total = 0
        events = 0
        count = n
        micropython.heap_lock()  # nothing below may allocate: not even a range() object
        try:
            while n:
                n -= 1
                stamp = (stamp + 7_919) & ((1 << 30) - 1)
                clock.update(stamp)
                clock.instant(stamp, at)
                now = at[0]
                us = at[1]  # a us within the ms, as the lever stamps bring them
                # results are folded small so that `total` itself never becomes a big int
                total ^= g.tick(t + now % 3)
                total ^= g.tick(t + now % 3, us)
                total ^= g.remaining(0, t) ^ g.remaining(1, t) ^ g.deadline()
                total ^= g.delay_left(g.running, t)
                total ^= g.ot_left[g.running] ^ g.in_overtime(g.running)
                t += step_ms
                ev = g.press(g.running, t, us)
                events |= ev
                total ^= ev
                total ^= g.press(1 - g.running, t, us)  # ignored press
        finally:
            micropython.heap_unlock()
        self.assertTrue(total != 0)
        self.assertEqual(g.log_count, count + 4)
        return g, events

    def test_byoyomi_periods_kept_and_used_up(self):
        # 2 s main, then 99 periods of 1 s; 1.234 s moves: each move uses one period up.
        control = from_seconds(MODE_BYOYOMI, [[2, 0, BONUS_FISCHER, 1]], overtime=[99, 1])
        g, events = self.check_control(control, 150)
        self.assertTrue(events & E.EV_PERIOD)
        self.assertTrue(g.in_overtime(0) and g.in_overtime(1))
        self.assertEqual(g.state, E.RUNNING)

    def test_canadian_blocks(self):
        # 2 s main, then blocks of 3 moves in 4 s: a new block every 3 moves.
        control = from_seconds(MODE_CANADIAN, [[2, 0, 0, 0]], overtime=[3, 4])
        g, events = self.check_control(control, 200)
        self.assertTrue(events & E.EV_PERIOD)
        self.assertEqual(g.state, E.RUNNING)

    def test_fischer(self):
        self.check_preset(0)

    def test_fischer_before_and_flag_transition(self):
        self.check_preset(0, inc_before=True, transition=E.TRANSITION_FLAG)

    def test_simple_delay(self):
        self.check_preset(11)

    def test_bronstein(self):
        self.check_preset(12)

    def test_hourglass(self):
        self.check_preset(15)

    def test_no_bonus_three_periods(self):
        self.check_preset(13)

    # Time odds: each side's control looked up on the hot path, still no allocation
    def test_armageddon_5_v_4_into_the_increment(self):
        g, events = self.check_control(presets.control(19), 200, step_ms=1_000)
        self.assertTrue(events & E.EV_PERIOD)  # both passed move 60
        self.assertEqual((g.period[0], g.period[1]), (1, 1))

    def test_armageddon_10_v_7(self):
        self.check_preset(20)

    def test_odds_of_every_bonus(self):
        left = from_seconds(
            MODE_COUNTDOWN, [[600, 30, 1, 3], [300, 0, 2, 5]]
        )  # Fischer, Bronstein
        right = from_seconds(MODE_COUNTDOWN, [[900, 0, 3, 5]])  # delay
        self.check_control(Odds(left, right, 2), 200, inc_before=True)

    def test_odds_hourglass(self):
        hourglass = [from_seconds(MODE_HOURGLASS, [[s, 0, 0, 0]]) for s in (90, 600)]
        self.check_control(Odds(*hourglass), 200)

    def test_odds_byoyomi_and_canadian(self):
        left = from_seconds(MODE_BYOYOMI, [[2, 0, BONUS_FISCHER, 1]], overtime=[99, 1])
        right = from_seconds(MODE_BYOYOMI, [[0, 0, 0, 0]], overtime=[50, 3])
        g, events = self.check_control(Odds(left, right), 150)
        self.assertTrue(events & E.EV_PERIOD)
        left = from_seconds(MODE_CANADIAN, [[2, 0, 0, 0]], overtime=[3, 4])
        right = from_seconds(MODE_CANADIAN, [[0, 0, 0, 0]], overtime=[5, 9])
        self.check_control(Odds(left, right), 200)


@unittest.skipUnless(ON_MICROPYTHON, "heap_lock only bites under MicroPython")
class OvertimeFrames(unittest.TestCase):
    """The game screen of a byo-yomi / Canadian game in overtime (counters alternating with
    the times, periods used up, blocks renewed) renders without allocating."""

    def check(self, control, press_every):
        import settings
        import ui

        u = ui.Ui(settings.defaults())
        g = u.game
        u.new_game(control)
        now = 1_000
        g.press(1 if g.white_side == 0 else 0, now)  # no main time: both in overtime
        texts = 0
        n = 600
        micropython.heap_lock()
        try:
            while n:
                n -= 1
                now += 97
                g.tick(now)
                u.render(now)
                texts += u.text[0][0] + u.text[1][0] + u.colon[0]
                if n % press_every == 0:
                    g.press(g.running, now, 321)  # times with a us part
        finally:
            micropython.heap_unlock()
        self.assertTrue(texts != 0)
        self.assertEqual(g.state, E.RUNNING)
        return g

    def test_byoyomi(self):
        # 14.5 s moves in 12 s periods: each move uses a period up
        g = self.check(from_seconds(MODE_BYOYOMI, [[0, 0, 0, 0]], overtime=[9, 12]), 150)
        self.assertTrue(g.ot_left[0] < 9 and g.ot_left[1] < 9)

    def test_canadian(self):
        g = self.check(from_seconds(MODE_CANADIAN, [[0, 0, 0, 0]], overtime=[2, 30]), 37)
        self.assertTrue(g.moves[0] + g.moves[1] >= 15)  # blocks of 2 moves renewed

    def test_byoyomi_with_odds(self):
        left = from_seconds(MODE_BYOYOMI, [[0, 0, 0, 0]], overtime=[9, 12])
        right = from_seconds(MODE_BYOYOMI, [[0, 0, 0, 0]], overtime=[4, 40])
        g = self.check(Odds(left, right, 2), 150)
        self.assertTrue(g.ot_left[0] < 9)


@unittest.skipUnless(ON_MICROPYTHON, "heap_lock only bites under MicroPython")
class RefusedFirstPress(unittest.TestCase):
    """The set-up check under draw odds: a refused first press from White's side, the
    other lever of its slap, the prompt's frames, then Black's press that starts the game:
    none allocates."""

    def test_armageddon_the_wrong_way_round_then_right(self):
        import settings
        import ui

        u = ui.Ui(settings.defaults())
        u.settings["control"] = {"preset": 19}
        u.new_game()
        g = u.game
        g.set_min_move(50)
        now = 1_000
        texts = 0
        n = 300
        micropython.heap_lock()
        try:
            while n:
                n -= 1
                now += 113
                texts ^= g.press(0, now, 17)  # White's side: refused
                texts ^= g.press(1, now + 20, 3)  # the slap's other lever: ignored
                u.render(now + 21)
                texts ^= u.next_change(now + 21) & 0xFF
                texts += u.text[1][0] + u.text[0][1]
            ev = g.press(1, now + 500, 1)  # Black's side, after the slap: the start
        finally:
            micropython.heap_unlock()
        self.assertTrue(texts != 0)
        self.assertEqual((g.refusals(), ev, g.state, g.white), (300, E.EV_START, E.RUNNING, 0))


@unittest.skipUnless(ON_MICROPYTHON, "heap_lock only bites under MicroPython")
class HeapLockBites(unittest.TestCase):
    def test_the_lock_catches_an_allocation(self):
        caught = False
        micropython.heap_lock()
        try:
            [1, 2, 3]  # noqa: B018 (allocation on purpose)
        except MemoryError:
            caught = True
        finally:
            micropython.heap_unlock()
        self.assertTrue(caught)
