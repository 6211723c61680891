"""The running side's LED at width 6 (the LCD build, on cells): it flashes, lit for 60 ms
from the start of the running side's turn (`Game.turn_start`) and from each time its
counting time (the delay while it lasts, else the time left; the stopwatch's rising) reaches
an even second, which is a change of its seconds' digits; off otherwise. `next_change` wakes
the loop at each of its edges, never after one; a frame allocates nothing. At width 4 (the
LED build) it is lit for the whole turn. A flag, a pause, the ready screen and the result
light the LEDs at width 6 as at width 4.

Runs under CPython and MicroPython (see host_tests/core_cpython/test_micropython_core.py)."""

import sys
import unittest

import engine as E
import game_state
import settings
import ui as U
from timecontrol import MODE_UPCOUNT

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
    """The rule at width 6: the running side's LED mask at `now`, the clock running."""
    s = g.running
    if now - g.turn_start < PULSE:
        return 1 << s
    r = g.remaining(s, now)
    if g.control.mode == MODE_UPCOUNT:
        since = r % PERIOD  # since the rising time's last even second
    else:
        since = -(g.delay_left(s, now) or r) % PERIOD  # since the falling time's
    return 1 << s if since < PULSE else 0


def rule(control, presses, until):
    """The rule's LED at every ms from T0 (the first press) to `until`, on a game of its
    own pressed at T0 and at `presses`: {ms: mask}."""
    g = make(6, control).game
    g.press(1, T0)
    presses = list(presses)
    out = {}
    for now in range(T0, until):
        if presses and presses[0] == now:
            presses.pop(0)
            g.press(g.running, now, 999)
        g.tick(now)
        out[now] = lit(g, now) if g.state == E.RUNNING else -1
    return out


def edges(leds):
    """The ms at which the mask of `leds` ({ms: mask}) changes."""
    return [t for t in sorted(leds) if t - 1 in leds and leds[t] != leds[t - 1]]


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
            t1 = T0 + 4_567  # the left side moves at T1.700: the right side's turn
            leds = {}
            for now in range(T0, t1 + 2_200):
                if now == t1:
                    g.press(0, t1, 700)
                    self.assertEqual((g.running, g.turn_start), (1, t1))
                g.tick(now)
                u.render(now)
                self.assertEqual(u.leds, lit(g, now), (control, now))
                leds[now] = u.leds
            ups = [t for t in edges(leds) if leds[t]]
            self.assertTrue(len(ups) >= 2, (control, ups))  # a flash every 2 s or sooner
            for i in range(1, len(ups)):  # (the ms after a µs-stamped even second: + 1)
                self.assertTrue(ups[i] - ups[i - 1] <= PERIOD + 1, (control, ups[i]))
            # next_change, from a render at each ms, comes no later than the next edge
            u = make(6, control)
            g = u.game
            u.render(T0)
            g.press(1, T0, 250)
            marks = edges(leds)
            for now in range(T0, t1 + 2_100):
                if now == t1:
                    g.press(0, t1, 700)
                g.tick(now)
                u.render(now)
                n = u.next_change(now)
                # (an edge at the press is the press's own wakeup)
                after = [t for t in marks if now < t and (now >= t1 or t < t1)]
                self.assertTrue(now < n and (not after or n <= after[0]), (control, now, n))

    def test_the_flash_comes_with_the_seconds(self):
        """With no delay, each flash after the turn's own starts at a change of the running
        side's text: the same render, no wakeup of its own."""
        u = make(6, BLITZ)
        g = u.game
        u.render(T0)
        g.press(1, T0 + 3_001, 420)  # the left runs, from a phase of its own
        t = T0 + 3_001
        g.press(0, t + 1_234, 130)  # the right's turn
        g.press(1, t + 2_000, 10)  # the left's again, 298.766 s left: even at +766, +2766...
        before = None
        flashes = 0
        for now in range(t + 2_000, t + 9_000):
            g.tick(now)
            u.render(now)
            text = bytes(u.text[0])
            if u.leds and now - g.turn_start >= PULSE and not lit(g, now - 1):
                flashes += 1
                self.assertNotEqual(text, before, now)
            before = text
        self.assertEqual(flashes, 4)

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
        self.assertEqual(u.next_change(T0 + 10), T0 + PULSE)  # no beat: the flash's end
        u.render(T0 + PULSE)
        self.assertEqual(u.next_change(T0 + PULSE), T0 + 1_000)  # the seconds
        u.render(T0 + 1_990)
        self.assertEqual(u.next_change(T0 + 1_990), T0 + 2_000)  # the seconds, lit


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
            if g.state == E.RUNNING:
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

    def test_edges_are_wakeups(self):
        for control in (BLITZ, FIDE, DELAY, HOURGLASS, STOPWATCH, BYOYOMI):
            presses = (T0 + 3_001, T0 + 3_111, T0 + 9_050)
            until = T0 + 14_000
            _g, woken = self.run_loop(control, until, presses)
            woken = set(woken)
            leds = rule(control, presses, until)
            for e in edges(leds):
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
