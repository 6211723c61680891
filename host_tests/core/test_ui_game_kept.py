"""ui_game.GameScreen's render of the running side only (`kept`): at every instant of a game
it shows exactly what a full render shows (texts, colons, LEDs, the next change), across
the controls whose stopped side could move (hourglass), blink (a fallen flag) or alternate
(overtime counters), and after another screen has filled the buffers.

Deterministic draws (a linear congruential generator: no hypothesis on MicroPython).
Runs under CPython and MicroPython (see host_tests/core_cpython/test_micropython_core.py)."""

import unittest

import engine as E
import settings
import ui as U

CONTROLS = (
    {"preset": 6},  # Blitz 3+2: increment, mm:ss and the beat
    {"preset": 8},  # bullet 1+0: tenths, flags
    {"preset": 10},  # US delay
    {"preset": 15},  # hourglass
    {"preset": 16},  # stopwatch
    {"preset": 17},  # byo-yomi
    {"preset": 18},  # Canadian
    {"custom": {"mode": 0, "periods": [[13, 0, 2, 3]]}},  # Bronstein 3 s
    {"custom": {"mode": 0, "periods": [[9, 2, 0, 0], [7, 0, 1, 1]]}},  # two periods
)


class Draws:
    def __init__(self, seed):
        self.x = seed

    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n


def looks(u, now):
    """What a render at `now` shows, and the next change it announces."""
    u.render(now)
    return bytes(u.text[0]), bytes(u.text[1]), bytes(u.colon), u.leds, u.next_change(now)


def game_ui(control, freeze=True, digits=4):
    s = settings.defaults()
    s["control"] = control
    s["freeze"] = freeze  # off: play goes on after a flag, which blinks on its side
    return U.Ui(s, None, digits)


class Asked:
    """Game.remaining, each call's instant noted in `asked`."""

    def __init__(self, remaining, asked):
        self.remaining = remaining
        self.asked = asked

    def __call__(self, side, t):
        self.asked.append(t)
        return self.remaining(side, t)


class KeptRender(unittest.TestCase):
    def check_game(self, control, seed, freeze, digits):
        u = game_ui(control, freeze, digits)
        screen = u.screens[U.S_GAME]
        g = u.game
        r = Draws(seed)
        now = 1_000
        g.press(0, now, r.below(1000))
        kept_seen = 0
        for _ in range(300):
            k = r.below(10)
            if k == 0 and g.state == E.RUNNING:
                now += r.below(4_000)
                g.press(g.running, now, r.below(1000))
            elif k == 1:
                u.go(U.S_SETTINGS)
                u.render(now)
                u.go(U.S_GAME)
            else:
                now += r.below(900) if k < 9 else r.below(20_000)
                g.tick(now)
            kept = screen.kept
            quick = looks(u, now)
            kept_seen += kept and g.state == E.RUNNING
            screen.kept = False
            full = looks(u, now)
            self.assertEqual(quick, full, (control, seed, freeze, digits, now, kept))
        return kept_seen

    def test_every_render_equals_a_full_one(self):
        for digits in (4, 6):  # the LED build; the LCD build (h:mm:ss, the LED's flashes)
            kept = 0
            for control in CONTROLS:
                for seed in (1, 7, 1234):
                    kept += self.check_game(control, seed, seed != 7, digits)
            self.assertTrue(kept > 500, (digits, kept))  # the running side alone, often

    def test_the_beats_second_halves_equal_full_renders(self):
        """Rendered at each instant next_change announces, as the loop does: where the
        separator alone goes off (the beat's second half of a countdown falling 1 ms a ms)
        the render asks the engine for no time, and every render and announced change
        equals a full render's, moves and delays included, and the change equals the one
        found by asking the engine for the time's trend. On six digits too, which show no
        beat (the seconds always show) and flash the LED."""
        for digits in (4, 6):
            self.check_halves(digits)

    def check_halves(self, digits):
        halves = {}
        for control in CONTROLS:
            u = game_ui(control, True, digits)
            screen = u.screens[U.S_GAME]
            g = u.game
            now = 1_000
            g.press(0, now, 0)
            n = 0
            for k in range(400):
                if g.state != E.RUNNING:
                    break
                if k % 37 == 36:  # a move; every other one at a phase of its own, which
                    # moves the LED's flashes against the beat (six digits)
                    if k & 1:
                        now += 1 + 173 * k % 997
                    g.press(g.running, now, 0)
                g.tick(now)
                asked = []
                g.remaining = Asked(g.remaining, asked)
                quick = looks(u, now)
                del g.remaining
                if g.state == E.RUNNING:  # the running side's time alerts() reads after it
                    kept_r = screen._r1 if g.running else screen._r0
                    want = g.remaining(g.running, now)
                    self.assertEqual(kept_r, want, (control, digits, now))
                n += not asked and g.state == E.RUNNING
                screen.kept = False
                full = looks(u, now)
                self.assertEqual(quick, full, (control, digits, now))
                screen._d = -1  # the engine asked for the delay and the time's trend
                self.assertEqual(u.next_change(now), full[4], (control, digits, now))
                if full[4] < 0:
                    break
                now = full[4]
            halves[str(control)] = n
        if digits == 6:  # no beat, so no second half
            self.assertEqual(set(halves.values()), {0}, halves)
            return
        self.assertTrue(halves[str({"preset": 6})] > 100, halves)  # Blitz: every other one
        for preset in (15, 16, 17):  # hourglass, stopwatch, overtime counters: never
            self.assertEqual(halves[str({"preset": preset})], 0, halves)

    def test_kept_only_where_the_stopped_side_stands(self):
        for control, want in (
            ({"preset": 6}, True),
            ({"preset": 15}, False),
            ({"preset": 17}, False),
        ):
            u = game_ui(control)
            u.game.press(0, 1_000)
            u.render(1_500)
            self.assertEqual(u.screens[U.S_GAME].kept, want, control)

    def test_a_screen_change_ends_it(self):
        u = game_ui({"preset": 6})
        u.game.press(0, 1_000)
        u.render(1_500)
        self.assertTrue(u.screens[U.S_GAME].kept)
        u.go(U.S_ARBITER)
        self.assertFalse(u.screens[U.S_GAME].kept)


if __name__ == "__main__":
    unittest.main()
