"""feed.py and feed_lines.py on CPython and real MicroPython: the lines they make for a
game's events, the exact-ms values of the move log in them, the retry of a move that did
not go out whole, the CR LF after a cut line, and (MicroPython) that a press, a tick and
the feed's step together allocate nothing (heap_lock makes any allocation raise MemoryError).

The port is a stand-in with `send(buf, n)` as usbguard.UsbGuard has it: it takes as many
bytes as it has `room` for and keeps them in a preallocated bytearray.
"""

import sys
import unittest

import engine as E
import feed as F
import feed_lines as FL
import game_state
from timecontrol import (
    BONUS_DELAY,
    BONUS_FISCHER,
    MODE_BYOYOMI,
    MODE_COUNTDOWN,
    MODE_HOURGLASS,
    from_seconds,
)

MICROPYTHON = sys.implementation.name == "micropython"


class Port:
    def __init__(self, size=60_000):
        self.out = bytearray(size)
        self.n = 0
        self.room = 1 << 29  # bytes it takes before it is full
        self.sizes = []  # n of every send (None: not kept, nothing allocated)

    def send(self, buf, n):
        if self.sizes is not None:
            self.sizes.append(n)
        k = n if n <= self.room else self.room
        for i in range(k):
            self.out[self.n + i] = buf[i]
        self.n += k
        self.room -= k
        return k

    def writable(self):
        return self.room > 0

    def lines(self):
        text = bytes(self.out[: self.n])
        return [x for x in text.split(b"\r\n") if x]


def fields(line):
    """b'#CLK1 7 M 1 2 ... *' -> (7, 'M', [ints...]) (the controls of G stay bytes)."""
    parts = line.split(b" ")
    assert parts[0] == b"#CLK1" and parts[-1] == b"*", line
    kind = parts[2].decode()
    body = parts[3:-1]
    if kind == "G":
        return int(parts[1]), kind, [int(body[0]), int(body[1]), int(body[2])] + body[3:]
    return int(parts[1]), kind, [int(b) for b in body]


def kinds(port):
    return [fields(x)[1] for x in port.lines()]


class FeedLines(unittest.TestCase):
    def game(self, control=None):
        c = control or from_seconds(MODE_COUNTDOWN, [[60, 0, BONUS_FISCHER, 2]])
        return E.Game(c)

    def test_integers_of_every_length_in_decimal(self):
        f = F.Feed()
        for v in (0, 7, 9, 10, 99, 100, 12_345, 99_999, 100_000, 5_400_000, 10**9, -1, -10):
            e = FL.put(f, 3, v)
            self.assertEqual(bytes(f.buf[3:e]), b"%d " % v)

    def test_nothing_before_the_first_press(self):
        g, f, p = self.game(), F.Feed(), Port()
        f.step(0, g, p)
        f.step(5_000, g, p)
        self.assertEqual(p.n, 0)

    def test_start_moves_state_and_their_exact_values(self):
        g, f, p = self.game(), F.Feed(), Port()
        g.press(0, 1_000, 0)  # right (White) starts
        f.step(1_000, g, p)
        self.assertEqual(kinds(p), ["G", "T"])
        seq, kind, v = fields(p.lines()[0])
        self.assertEqual((seq, v[:3]), (0, [1, 0, MODE_COUNTDOWN]))
        self.assertEqual(v[3:], [b"60000,0,1,2000", b"60000,0,1,2000", b"0"])
        g.press(1, 3_345, 678)  # 2.345678 s: the log keeps 2346 ms, 57654 ms left + 2 s
        f.step(1_000 + F.PERIOD_MS, g, p)  # the move and the periodic state line
        seq, kind, v = fields(p.lines()[2])
        self.assertEqual((seq, kind), (2, "M"))
        self.assertEqual(v, [1, 1, 1, 2_346, 59_654, 60_000, 0])
        self.assertEqual(list(g.log_entries()[0]), v[1:5])  # the record's own values
        self.assertEqual(kinds(p)[3], "T")  # the state (due) comes after the move's line

    def test_a_state_line_every_period_and_the_start_again(self):
        g, f, p = self.game(), F.Feed(), Port()
        g.press(0, 1_000)
        f.step(1_000, g, p)
        n = len(p.lines())
        for t in range(1_100, 1_000 + F.PERIOD_MS * (F.HEADER_EVERY + 1), 100):
            f.step(t, g, p)
        k = kinds(p)[n:]
        self.assertEqual(k.count("T"), F.HEADER_EVERY)
        self.assertEqual(k.count("G"), 1)  # at the wakeup after the 8th periodic line
        seq, kind, v = fields(p.lines()[n])
        self.assertEqual(v[:4], [E.RUNNING, 1, 60_000, 60_000 - F.PERIOD_MS])

    def test_pause_correction_flag_and_result(self):
        g, f, p = self.game(from_seconds(MODE_COUNTDOWN, [[10, 0, 0, 0]])), F.Feed(), Port()
        g.press(0, 0)
        f.step(0, g, p)
        g.pause(4_000)
        f.step(4_000, g, p)
        game_state.set_time(g, 1, 3_000, 4_100)
        f.step(4_100, g, p)
        g.resume(5_000)
        f.step(5_000, g, p)
        g.tick(8_000)  # right's flag: 3 s after the resume
        f.step(8_000, g, p)
        game_state.finish(g, E.RESULT_LEFT_WINS, 1, 9_000)
        f.step(9_000, g, p)
        f.step(20_000, g, p)  # finished: nothing more
        lines = [fields(x) for x in p.lines()]
        self.assertEqual([x[1] for x in lines], list("GTATATATFTATE"))
        a = [x[2] for x in lines if x[1] == "A"]
        # action side value at_ms ply before after: the right's 6 s shown set to 3 s after
        # the first press (no half-move logged), the result (1 left wins) with its reason 1
        pause, correct, resume, finish = (
            [1, 1, 0, 4_000, 0, 0, 0],
            [3, 1, 3_000, 4_100, 0, 6_000, 3_000],
            [2, 1, 0, 5_000, 0, 0, 0],
            [8, -1, 1, 9_000, 0, 0, E.RESULT_LEFT_WINS],
        )
        self.assertEqual(a, [pause, correct, resume, finish])
        flag = [x[2] for x in lines if x[1] == "F"][0]
        self.assertEqual(flag, [1, 1, 8_000, 0])
        self.assertEqual(lines[-1][2], [E.RESULT_LEFT_WINS, 1, 1])
        self.assertEqual([x[0] for x in lines], list(range(len(lines))))

    def test_corrections_beyond_a_steps_lines_go_at_the_next_steps(self):
        g, f, p = self.game(from_seconds(MODE_COUNTDOWN, [[600, 0, 0, 0]])), F.Feed(), Port()
        g.press(0, 0)
        g.press(1, 1_000)
        f.step(1_000, g, p)
        g.pause(2_000)
        for k in range(12):  # more than a step's LINES_MAX
            game_state.set_moves(g, 0, k + 5, 2_000)
        for t in (2_000, 2_100, 2_200):
            f.step(t, g, p)
        a = [x[2] for x in (fields(x) for x in p.lines()) if x[1] == "A"]
        self.assertEqual(a[0], [1, 0, 0, 2_000, 1, 0, 0])
        want = [[5, 0, k + 5, 2_000, 1, k + 4 if k else 0, k + 5] for k in range(12)]
        self.assertEqual(a[1:], want)
        self.assertEqual(f.dropped, 0)

    def test_a_restored_game_sends_its_corrections(self):
        g = self.game(from_seconds(MODE_COUNTDOWN, [[600, 0, 0, 0]]))
        g.press(0, 0)
        g.press(1, 1_000)
        g.pause(2_000)
        game_state.set_time(g, 0, 300_000, 2_000)
        game_state.add_time(g, 1, 120_000, 2_000)
        h = E.Game(g.control)  # the power-up's game: restored with its corrections
        game_state.restore(h, game_state.snapshot(g))
        game_state.restore_corrections(h, game_state.corrections(g))
        f, p = F.Feed(), Port()
        f.step(0, h, p)
        a = [x[2] for x in (fields(x) for x in p.lines()) if x[1] == "A"]
        self.assertEqual(
            a, [[3, 0, 300_000, 0, 1, 599_000, 300_000], [4, 1, 120_000, 0, 1, 599_000, 719_000]]
        )

    def test_byoyomi_period_lines(self):
        control = from_seconds(MODE_BYOYOMI, [[2, 0, 0, 0]], overtime=[3, 1])
        g, f, p = self.game(control), F.Feed(), Port()
        g.press(0, 0)
        f.step(0, g, p)
        g.tick(2_000)  # main time out: the first period starts
        f.step(2_000, g, p)
        g.tick(3_000)  # the first period used up
        f.step(3_000, g, p)
        lines = [fields(x) for x in p.lines()]
        self.assertEqual(lines[0][2][3:5], [b"2000,0,0,0+3,1000", b"2000,0,0,0+3,1000"])
        per = [x[2] for x in lines if x[1] == "P"]
        self.assertEqual(per, [[1, 1, 3, 1_000], [1, 1, 2, 1_000]])

    def test_a_full_port_drops_and_the_move_comes_again(self):
        g, f, p = self.game(), F.Feed(), Port()
        g.press(0, 0)
        f.step(0, g, p)
        p.room = 10  # the host stops reading: 10 bytes of room
        g.press(1, 1_500)
        f.step(1_500, g, p)
        self.assertTrue(f.dropped >= 1)
        cut = p.n
        p.room = 1 << 29  # reading again
        f.step(1_600, g, p)
        text = bytes(p.out[cut : p.n])
        self.assertTrue(text.startswith(b"\r\n#CLK1 "), text)  # the cut line ends here
        m = [fields(x) for x in p.lines() if b" M " in x and x.endswith(b"*")]
        self.assertEqual(len(m), 1)
        self.assertEqual(m[0][2][:5], [1, 1, 1, 1_500, 60_000 - 1_500 + 2_000])

    def test_a_new_game_starts_the_feed_over(self):
        g, f, p = self.game(), F.Feed(), Port()
        g.press(0, 0)
        f.step(0, g, p)
        game_state.finish(g, E.RESULT_DRAW, 3, 100)
        f.step(100, g, p)
        g.reset(g.control)
        f.step(200, g, p)
        g.press(1, 300)
        f.step(300, g, p)
        self.assertEqual(kinds(p), ["G", "T", "A", "A", "T", "E", "G", "T"])
        self.assertEqual(fields(p.lines()[6])[2][0], 0)  # left has White this time


class Counting(E.Game):
    """A Game that counts the feed's questions to it."""

    asked = 0

    def remaining(self, side, now):
        self.asked += 1
        return E.Game.remaining(self, side, now)

    def delay_left(self, side, now):
        self.asked += 1
        return E.Game.delay_left(self, side, now)


def unpadded(line):
    """A line of a Feed(block) without its pad field (zeros before the `*`), if it has one."""
    parts = line.split(b" ")
    if len(parts) > 4 and parts[-2] and parts[-2] == b"0" * len(parts[-2]) and len(parts[-2]) > 1:
        return b" ".join(parts[:-2] + parts[-1:])
    return line


class Blocks(unittest.TestCase):
    """Feed(block): what usbguard.py's block writes need, and nothing else changed."""

    def test_every_line_is_whole_blocks_and_reads_as_without_them(self):
        control = from_seconds(MODE_BYOYOMI, [[3, 0, 0, 0]], overtime=[3, 1])
        g = E.Game(control)
        plain, padded = F.Feed(), F.Feed(32)
        p, q = Port(), Port()

        def step(t):
            plain.step(t, g, p)
            padded.step(t, g, q)

        g.press(0, 0)
        step(0)
        for k in range(1, 12):  # moves, ply numbers of every length
            g.press(g.running, k * 100)
            step(k * 100)
        g.pause(1_300)
        step(1_300)
        game_state.add_time(g, 1, -60_000, 1_400)  # a negative field
        game_state.set_moves(g, 0, 123_456, 1_500)
        step(1_500)
        g.resume(1_600)
        step(1_600)
        for t in range(1_700, 12_000, 100):  # the periods run out, a flag falls
            g.tick(t)
            step(t)
        game_state.finish(g, E.RESULT_LEFT_WINS, 1, 12_000)
        step(12_000)
        kinds_seen = set(kinds(p))
        self.assertEqual(kinds_seen, set("GTMAPFE"))
        self.assertTrue(all(n % 32 == 0 for n in q.sizes), q.sizes)
        self.assertEqual([unpadded(x) for x in q.lines()], p.lines())
        pads = [len(x) - len(unpadded(x)) for x in q.lines()]
        self.assertTrue(all(x == 0 or 2 <= x <= 33 for x in pads), pads)
        for line in p.lines():
            fields(line)  # every plain line parses: ints where ints belong

    def test_a_cut_line_and_the_line_after_it_are_whole_blocks(self):
        g, f, p = self.game(), F.Feed(32), Port()
        g.press(0, 0)
        f.step(0, g, p)
        p.room = 40  # a block and a bit: the first line is cut
        g.press(1, 1_500)
        f.step(1_500, g, p)
        self.assertTrue(f.dropped >= 1)
        cut = p.n
        p.room = 1 << 29
        f.step(1_600, g, p)
        self.assertTrue(bytes(p.out[cut : p.n]).startswith(b"\r\n#CLK1 "))
        self.assertTrue(all(n % 32 == 0 for n in p.sizes), p.sizes)

    def game(self):
        return E.Game(from_seconds(MODE_COUNTDOWN, [[60, 0, BONUS_FISCHER, 2]]))


class Quiet(unittest.TestCase):
    """A wakeup with nothing new asks the engine nothing; what changes is still on time."""

    def test_an_untouched_clock_is_asked_only_for_its_state_lines(self):
        g = Counting(from_seconds(MODE_COUNTDOWN, [[900, 0, BONUS_FISCHER, 10]]))
        f, p = F.Feed(32), Port()
        g.press(0, 1_000)
        f.step(1_000, g, p)
        n = len(p.lines())
        g.asked = 0
        for t in range(1_010, 1_000 + 3 * F.PERIOD_MS, 10):  # 1500 wakeups, 3 state lines
            f.step(t, g, p)
        self.assertEqual(kinds(p)[n:], ["T", "T"])
        self.assertTrue(g.asked <= 2 * 4, g.asked)  # both times and the delay, per line

    def test_a_flag_at_the_instant_of_the_resume_comes_at_the_next_wakeup(self):
        g = E.Game(from_seconds(MODE_COUNTDOWN, [[60, 0, 0, 0]]))
        f, p = F.Feed(32), Port()
        g.press(0, 0)  # right runs
        f.step(0, g, p)
        g.pause(1_000)
        f.step(1_000, g, p)
        game_state.set_time(g, 1, 0, 1_100)  # the arbiter leaves it nothing
        f.step(1_100, g, p)
        g.resume(2_000)
        f.step(2_000, g, p)
        self.assertEqual(g.deadline(), 2_000)
        g.tick(2_001)  # the app's next wakeup: the flag, at the resume's own instant
        f.step(2_001, g, p)
        self.assertEqual(kinds(p)[-2:], ["F", "T"])
        self.assertEqual(fields(unpadded(p.lines()[-2]))[2], [1, 1, 2_000, 0])

    def test_a_deadline_is_looked_at_by_the_wakeup_just_before_it(self):
        g = E.Game(from_seconds(MODE_COUNTDOWN, [[10, 0, 0, 0]]))
        f, p = F.Feed(32), Port()
        g.press(0, 0)
        f.step(0, g, p)
        d = g.deadline()
        self.assertEqual(d, 10_000)
        self.assertTrue(f.until <= d - 2, f.until)  # app.py ticks at d - 1 at the soonest
        f.step(d - 2, g, p)  # nothing yet
        g.tick(d)
        f.step(d, g, p)
        self.assertIn("F", kinds(p))

    def test_a_port_without_room_is_asked_before_a_line_is_made(self):
        g = Counting(from_seconds(MODE_COUNTDOWN, [[60, 0, 0, 0]]))
        f, p = F.Feed(32), Port()
        g.press(0, 0)
        f.step(0, g, p)
        p.room = 0  # nobody reads
        g.press(1, 1_000)
        f.step(1_000, g, p)  # the move: nothing went out
        g.asked = 0
        sent = len(p.sizes)
        for t in range(1_100, 20_000, 100):
            f.step(t, g, p)
        self.assertEqual((len(p.sizes), g.asked), (sent, 0))  # no line made in vain
        p.room = 1 << 29
        f.step(20_000, g, p)
        m = [fields(x) for x in p.lines() if b" M " in x]
        self.assertEqual(len(m), 1)


class StateLineKept(unittest.TestCase):
    """_status rewrites the last state line's seq and times in place while nothing else
    changed: the bytes are those a line made afresh has."""

    def check(self, control, seq=0, cut_at=()):
        g = E.Game(control)
        kept, fresh = F.Feed(32), F.Feed(32)
        kept.seq = fresh.seq = seq
        p, q = Port(), Port()
        g.press(0, 1_000)
        t = 1_000
        for k in range(400):  # a state line every 5 s, a wakeup every 250 ms
            t += 250
            if k % 97 == 96:
                g.press(g.running, t)  # a move now and then: the kept line is made again
            g.tick(t)
            if k in cut_at:
                p.room = q.room = 40  # a cut line: the next begins with CR LF
            kept.step(t, g, p)
            fresh._t_ok = False  # never kept
            fresh.step(t, g, q)
            p.room = q.room = 1 << 29
        self.assertEqual(bytes(p.out[: p.n]), bytes(q.out[: q.n]))
        self.assertTrue(sum(b" T " in x for x in q.lines()) > 15)
        return kept

    def test_a_countdown_across_digit_counts_and_the_seq_wrap(self):
        control = from_seconds(MODE_COUNTDOWN, [[101, 0, BONUS_FISCHER, 0]])
        self.check(control, seq=FL.SEQ_SPAN - 12, cut_at=(30, 31, 200))

    def test_a_delay_and_an_hourglass(self):
        self.check(from_seconds(MODE_COUNTDOWN, [[100, 0, BONUS_DELAY, 7]]))
        self.check(from_seconds(MODE_HOURGLASS, [[100, 0, 0, 0]]))


@unittest.skipUnless(MICROPYTHON, "heap_lock only bites under MicroPython")
class NoAllocation(unittest.TestCase):
    def test_presses_ticks_and_the_feed_allocate_nothing(self):
        for block in (1, 32):
            self.presses_ticks_and_the_feed(block)

    def presses_ticks_and_the_feed(self, block):
        from micropython import heap_lock, heap_unlock

        control = from_seconds(MODE_BYOYOMI, [[2, 0, BONUS_FISCHER, 1]], overtime=[99, 1])
        g = E.Game(control)
        f = F.Feed(block)
        p = Port(20_000)
        p.sizes = None
        g.press(0, 1_000)
        f.step(1_000, g, p)
        t = 1_000
        p.n = 0
        heap_lock()
        try:
            for i in range(60):
                t += 1_234
                g.tick(t)
                g.press(g.running, t, 321)
                f.step(t, g, p)
                f.step(t + 1, g, p)
                if p.n > 15_000:
                    p.n = 0
                p.room = 1 << 29 if i % 3 else 30  # a full port now and then
        finally:
            heap_unlock()
        self.assertTrue(f.sent > 60 and f.dropped > 0)
        self.assertEqual(g.log_count, 60)


if __name__ == "__main__":
    unittest.main()
