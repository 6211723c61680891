"""The running side's LED at width 6 (the LCD build, on cells): it flashes, lit for 60 ms
from the start of the running side's turn (`Game.turn_start`) and again every 2000 ms of the
turn, off otherwise; `next_change` wakes the loop exactly at each of its edges; a frame
allocates nothing. At width 4 (the LED build) it is lit for the whole turn. A flag, a pause,
the ready screen and the result light the LEDs at width 6 as at width 4.

Runs under CPython and MicroPython (see host_tests/core_cpython/test_micropython_core.py)."""

import sys
import unittest

import engine as E
import game_state
import settings
import ui as U

MICROPYTHON = sys.implementation.name == "micropython"
T0 = 500_000
PULSE = 60
PERIOD = 2_000
BLITZ = {"preset": 7}  # 5+0
FIDE = {"preset": 0}
DELAY = {"preset": 9}  # G/90;d5
BULLET = {"preset": 8}  # 1+0
HOURGLASS = {"preset": 15}
STOPWATCH = {"preset": 16}
BYOYOMI = {"preset": 17}


def make(digits, control, freeze=True):
    u = U.Ui(settings.defaults(), None, digits)
    u.settings["control"] = control
    u.settings["freeze"] = freeze
    u.new_game()
    return u


def lit(g, now):
    """The rule at width 6: the running side's LED mask at `now`."""
    t = now - g.turn_start
    return 1 << g.running if t % PERIOD < PULSE else 0


def edge(g, now):
    """The LED's first edge after `now` by the rule."""
    t = now - g.turn_start
    p = t % PERIOD
    return now + (PULSE - p if p < PULSE else PERIOD - p)


class EveryMs(unittest.TestCase):
    """A render at every ms of two turns: the LED is the rule's, and next_change is never
    after its next edge."""

    def test_two_turns(self):
        for control in (BLITZ, FIDE, DELAY):
            u = make(6, control)
            g = u.game
            u.render(T0)
            g.press(1, T0, 250)  # starts the left side's clock (White's)
            self.assertEqual(g.turn_start, T0)
            ons = 0
            now = T0
            while now < T0 + 4_500:
                g.tick(now)
                u.render(now)
                self.assertEqual(u.leds, lit(g, now), (control, now))
                ons += u.leds != 0
                n = u.next_change(now)
                self.assertTrue(now < n <= edge(g, now), (control, now, n))
                now += 1
            self.assertEqual(ons, 3 * PULSE)  # T0, T0 + 2000, T0 + 4000
            # The left side moves at T1.700: the right side's turn, its own phase
            t1 = T0 + 4_567
            g.press(0, t1, 700)
            self.assertEqual((g.running, g.turn_start), (1, t1))
            now = t1
            while now < t1 + 2_200:
                g.tick(now)
                u.render(now)
                want = 2 if (now - t1) % PERIOD < PULSE else 0
                self.assertEqual(u.leds, want, (control, now))
                self.assertTrue(now < u.next_change(now) <= edge(g, now))
                now += 1

    def test_four_digits_light_the_whole_turn(self):
        u = make(4, BLITZ)
        g = u.game
        u.render(T0)
        g.press(1, T0)
        for now in range(T0, T0 + 4_100, 7):
            u.render(now)
            self.assertEqual(u.leds, 1)
        # no wakeup for the LED: from T0 + 10 the next change is the colon's beat
        u.render(T0 + 10)
        self.assertEqual(u.next_change(T0 + 10), T0 + 500)
        g.press(0, T0 + 4_100)
        for now in range(T0 + 4_100, T0 + 6_200, 7):
            u.render(now)
            self.assertEqual(u.leds, 2)

    def test_six_digits_wake_for_the_pulse(self):
        u = make(6, BLITZ)
        g = u.game
        u.render(T0)
        g.press(1, T0)
        u.render(T0 + 10)
        self.assertEqual(u.next_change(T0 + 10), T0 + PULSE)  # before the beat's T0 + 500
        u.render(T0 + 1_990)
        self.assertEqual(u.next_change(T0 + 1_990), T0 + 2_000)


class Loop(unittest.TestCase):
    """The loop's view: renders only at next_change's instants (and at presses). Every LED
    edge of the rule is one of those instants, and each render's LED is the rule's."""

    def run_loop(self, control, until, presses=()):
        u = make(6, control)
        g = u.game
        u.render(T0)
        g.press(1, T0)
        now = T0
        presses = list(presses)
        woken = []
        while now < until:
            g.tick(now)
            u.render(now)
            self.assertEqual(u.leds, lit(g, now), (control, now))
            woken.append(now)
            n = u.next_change(now)
            self.assertTrue(n > now, (control, now, n))
            if presses and presses[0] <= n:
                now = presses.pop(0)
                g.press(g.running, now, 999)
            else:
                now = n
        return g, woken

    def edges(self, starts, until):
        """Every LED edge of turns starting at `starts` (the last one lasting to `until`)."""
        out = []
        ends = list(starts[1:]) + [until]
        for i in range(len(starts)):
            k = starts[i]
            e = ends[i]
            while k < e:
                out.append(k)
                if k + PULSE < e:
                    out.append(k + PULSE)
                k += PERIOD
        return out

    def test_edges_are_wakeups(self):
        for control in (BLITZ, FIDE, DELAY, HOURGLASS, STOPWATCH, BYOYOMI):
            presses = (T0 + 3_001, T0 + 3_111, T0 + 9_050)
            until = T0 + 14_000
            g, woken = self.run_loop(control, until, presses)
            woken = set(woken)
            for e in self.edges((T0,) + presses, until):
                self.assertIn(e, woken, (control, e))

    def test_resume_goes_on_with_the_turn(self):
        """A pause keeps the rules of the pause (blinking with `now`); the resumed turn
        goes on with its phase (turn_start moves by the pause)."""
        u4 = make(4, BLITZ)
        u6 = make(6, BLITZ)
        for u in (u4, u6):
            u.render(T0)
            u.game.press(1, T0)
            u.key(U.PLAY, U.SHORT, T0 + 2_500)  # pause: 500 ms into the second period
        for now in range(T0 + 2_500, T0 + 5_000, 50):
            u4.render(now)
            u6.render(now)
            self.assertEqual(u6.leds, u4.leds, now)
        for u in (u4, u6):
            u.key(U.PLAY, U.SHORT, T0 + 5_000)
        g = u6.game
        self.assertEqual(g.turn_start, T0 + 2_500)
        u6.render(T0 + 5_000)
        self.assertEqual(u6.leds, 0)
        now = T0 + 5_000
        woken = []
        while now < T0 + 7_000:
            u6.render(now)
            self.assertEqual(u6.leds, lit(g, now), now)
            woken.append(now)
            now = u6.next_change(now)
        self.assertIn(T0 + 6_500, woken)
        self.assertIn(T0 + 6_560, woken)
        for now in (T0 + 6_499, T0 + 6_500, T0 + 6_559, T0 + 6_560):
            u6.render(now)
            self.assertEqual(u6.leds, lit(g, now), now)
        self.assertEqual(lit(g, T0 + 6_500), 1)


class OtherStates(unittest.TestCase):
    """A flag, the ready screen and the result: the LEDs as at width 4."""

    def both(self, control, freeze=True):
        us = (make(4, control, freeze), make(6, control, freeze))
        for u in us:
            u.render(T0)
        return us

    def same(self, us, start, stop, step):
        for now in range(start, stop, step):
            for u in us:
                u.game.tick(now)
                u.render(now)
            self.assertEqual(us[1].leds, us[0].leds, now)

    def test_ready_flag_and_result(self):
        us = self.both(BULLET)
        self.same(us, T0, T0 + 1_000, 37)  # ready
        for u in us:
            u.game.press(1, T0 + 1_000)
        self.same(us, T0 + 61_000, T0 + 64_000, 37)  # the flag fell (freeze): FLAGGED
        self.assertEqual(us[1].game.state, E.FLAGGED)
        self.assertEqual(us[1].leds, 1)
        for u in us:
            self.assertEqual(game_state.finish(u.game, E.RESULT_RIGHT_WINS, 1, T0 + 64_000), 0)
        self.assertEqual(us[1].game.state, E.FINISHED)
        self.same(us, T0 + 64_000, T0 + 70_000, 37)

    def test_a_flag_down_while_playing_on(self):
        us = self.both(BULLET, freeze=False)
        for u in us:
            u.game.press(1, T0)
        self.same(us, T0 + 60_000, T0 + 64_000, 13)
        g = us[1].game
        self.assertEqual((g.state, g.flagged[0], g.running), (E.RUNNING, 1, 0))
        self.assertEqual(us[1].leds, 1)  # lit, as at width 4
        nc = us[1].next_change(T0 + 63_990)
        self.assertEqual(nc, T0 + 64_000)  # the flag's blink, no LED edge


@unittest.skipUnless(MICROPYTHON, "heap_lock only bites under MicroPython")
class NoAllocation(unittest.TestCase):
    def test_frames(self):
        import micropython

        for control, step, every in ((BLITZ, 7, 300), (FIDE, 131, 20), (HOURGLASS, 13, 100)):
            u = make(6, control)
            g = u.game
            u.render(T0)
            g.press(1, T0)
            now = T0
            n = 2_000
            total = 0
            micropython.heap_lock()
            try:
                while n:
                    n -= 1
                    now += step
                    g.tick(now)
                    u.render(now)
                    total += u.leds
                    total ^= u.next_change(now) & 0xFF
                    if every and n % every == 0 and g.state == E.RUNNING:
                        g.press(g.running, now, 321)
            finally:
                micropython.heap_unlock()
            self.assertTrue(total != 0)


if __name__ == "__main__":
    unittest.main()
