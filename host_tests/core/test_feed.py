"""feed.py on CPython and real MicroPython: the lines it makes for a game's events, the
exact-ms values of the move log in them, the retry of a move that did not go out whole,
the CR LF after a cut line, and (MicroPython) that a press, a tick and the feed's step
together allocate nothing (heap_lock makes any allocation raise MemoryError).

The port is a stand-in with `send(buf, n)` as usbguard.UsbGuard has it: it takes as many
bytes as it has `room` for and keeps them in a preallocated bytearray.
"""

import sys
import unittest

import engine as E
import feed as F
from timecontrol import BONUS_FISCHER, MODE_BYOYOMI, MODE_COUNTDOWN, from_seconds

MICROPYTHON = sys.implementation.name == "micropython"


class Port:
    def __init__(self, size=60_000):
        self.out = bytearray(size)
        self.n = 0
        self.room = 1 << 29  # bytes it takes before it is full

    def send(self, buf, n):
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
            e = f._int(3, v)
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
        g.set_time(1, 3_000, 4_100)
        f.step(4_100, g, p)
        g.resume(5_000)
        f.step(5_000, g, p)
        g.tick(8_000)  # right's flag: 3 s after the resume
        f.step(8_000, g, p)
        g.finish(E.RESULT_LEFT_WINS, 1, 9_000)
        f.step(9_000, g, p)
        f.step(20_000, g, p)  # finished: nothing more
        lines = [fields(x) for x in p.lines()]
        self.assertEqual([x[1] for x in lines], list("GTATATATFTATE"))
        a = [x[2] for x in lines if x[1] == "A"]
        pause, correct, resume, finish = (
            [1, 1, 0, 4_000],
            [3, 1, 3_000, 4_100],
            [2, 1, 0, 5_000],
            [8, -1, 1, 9_000],
        )
        self.assertEqual(a, [pause, correct, resume, finish])
        flag = [x[2] for x in lines if x[1] == "F"][0]
        self.assertEqual(flag, [1, 1, 8_000, 0])
        self.assertEqual(lines[-1][2], [E.RESULT_LEFT_WINS, 1, 1])
        self.assertEqual([x[0] for x in lines], list(range(len(lines))))

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
        g.finish(E.RESULT_DRAW, 3, 100)
        f.step(100, g, p)
        g.reset(g.control)
        f.step(200, g, p)
        g.press(1, 300)
        f.step(300, g, p)
        self.assertEqual(kinds(p), ["G", "T", "A", "A", "T", "E", "G", "T"])
        self.assertEqual(fields(p.lines()[6])[2][0], 0)  # left has White this time


@unittest.skipUnless(MICROPYTHON, "heap_lock only bites under MicroPython")
class NoAllocation(unittest.TestCase):
    def test_presses_ticks_and_the_feed_allocate_nothing(self):
        from micropython import heap_lock, heap_unlock

        control = from_seconds(MODE_BYOYOMI, [[2, 0, BONUS_FISCHER, 1]], overtime=[99, 1])
        g = E.Game(control)
        f = F.Feed()
        p = Port(20_000)
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
