"""usbguard.py on real MicroPython: what the guard asks of MicroPython (select.poll on
stream objects, `modify(obj, 0)` to mute one, ipoll's iteration, readinto of one byte,
write(buf, off, 1)) works there, and reading, answering and muting allocate nothing
(heap_lock makes any allocation raise MemoryError).

The port is a stand-in stream (io.IOBase with the poll ioctl) that behaves as MicroPython's
stdio streams do for these calls; simboard/usb_cdc.py has the whole USB model, used by
host_tests/firmware/test_usb_guard.py (core tests may not import the fake `machine`). CPython's
select.poll takes file descriptors only, so the poll tests run under MicroPython alone;
the constants run on both.
"""

import sys
import unittest

import usbguard as U

MICROPYTHON = sys.implementation.name == "micropython"

if MICROPYTHON:
    from micropython import heap_lock, heap_unlock
else:

    def heap_lock():
        pass

    def heap_unlock():
        pass


try:
    import io

    _IOBase = io.IOBase
except (ImportError, AttributeError):
    _IOBase = object

_POLLIN = 1
_POLLOUT = 4


class Port(_IOBase):
    """One direction of the USB serial port, preallocated: `rx` holds what the host sent
    (read from `pos` up to `end`), `tx` what the guard wrote; `room` bytes of TX FIFO."""

    def __init__(self):
        self.rx = bytearray(512)
        self.pos = 0
        self.end = 0
        self.tx = bytearray(512)
        self.sent = 0
        self.room = 10_000

    def feed(self, data):
        for b in data:
            self.rx[self.end] = b
            self.end += 1

    def ioctl(self, req, arg):
        if req != 3:
            return -1
        ret = 0
        if arg & _POLLIN and self.pos < self.end:
            ret |= _POLLIN
        if arg & _POLLOUT and self.room > 0:
            ret |= _POLLOUT
        return ret

    def readinto(self, buf):
        buf[0] = self.rx[self.pos]
        self.pos += 1
        return 1

    def write(self, buf, off, n):
        self.tx[self.sent] = buf[off]
        self.sent += 1
        self.room -= 1
        return 1

    def text(self):
        return bytes(self.tx[: self.sent])


class Kbd:
    def __init__(self):
        self.calls = []

    def __call__(self, c):
        self.calls.append(c)


def guard():
    try:
        import select  # noqa: F401

        from doorbell import Doorbell
    except ImportError:
        return None
    if not MICROPYTHON:
        return None
    port_in, port_out, kbd = Port(), Port(), Kbd()
    bell = Doorbell()
    g = U.UsbGuard(port_in, port_out, bell, kbd)
    return g, bell, port_in, port_out, kbd


class TestUsbGuard(unittest.TestCase):
    def test_phases_and_lines(self):
        self.assertEqual([U.in_game(p) for p in range(5)], [False, True, True, True, False])
        for line in U.LINES:
            self.assertTrue(line.startswith(b"chess-clock: ") and line.endswith(b"\r\n"))

    def test_a_game_reads_answers_and_allocates_nothing(self):
        made = guard()
        if made is None:
            return
        g, bell, port_in, port_out, kbd = made
        g.start()
        self.assertEqual(kbd.calls, [-1])
        port_in.feed(b"\r\x03")
        bell.wait(0)  # the first ipoll makes its result tuple
        self.assertTrue(bell.heard)
        self.assertTrue(g.due(0, U.RUNNING))
        self.assertFalse(g.service(0, U.RUNNING))  # Ctrl-C in a game: a byte
        self.assertEqual(port_out.text(), U.LINES[U.RUNNING])
        port_in.feed(b"\r\x03\x03")
        port_out.sent = 0
        heap_lock()
        try:
            bell.wait(10_000)  # readable: returns at once
            heard = bell.heard
            due = g.due(1_000, U.PAUSED)
            asked = g.service(1_000, U.PAUSED)
        finally:
            heap_unlock()
        self.assertTrue(heard and due)
        self.assertFalse(asked)
        self.assertEqual(port_out.text(), U.LINES[U.PAUSED])
        self.assertEqual((port_in.pos, g.bytes_in, g.lines_out), (5, 5, 2))

    def test_a_flood_is_muted_out_of_the_loops_poll(self):
        made = guard()
        if made is None:
            return
        g, bell, port_in, _port_out, _kbd = made
        g.start()
        port_in.feed(b"x" * 200)
        bell.wait(0)
        g.service(0, U.RUNNING)
        self.assertEqual(port_in.pos, U.DRAIN_MAX)
        self.assertEqual(g.next_due(), U.MUTE_MS)
        bell.heard = False
        heap_lock()
        try:
            bell.wait(0)  # stdin is readable but muted: not heard
            heard = bell.heard
            due_early = g.due(U.MUTE_MS - 1, U.RUNNING)
            due = g.due(U.MUTE_MS, U.RUNNING)
            g.service(U.MUTE_MS, U.RUNNING)  # unmuted, the next slice
        finally:
            heap_unlock()
        self.assertFalse(heard or due_early)
        self.assertTrue(due)
        self.assertEqual(port_in.pos, 2 * U.DRAIN_MAX)

    def test_ctrl_c_at_ready_hands_over_and_leaves_the_rest(self):
        made = guard()
        if made is None:
            return
        g, bell, port_in, port_out, kbd = made
        g.start()
        port_in.feed(b"\r\x03\r\x01")
        bell.wait(0)
        self.assertTrue(g.service(0, U.READY))
        self.assertEqual(port_in.pos, 2)  # "\r\x01" stays for the REPL
        self.assertEqual(port_out.sent, 0)
        g.stop()
        self.assertEqual(kbd.calls, [-1, 3])

    def test_a_host_that_does_not_read_gets_a_cut_line(self):
        made = guard()
        if made is None:
            return
        g, bell, port_in, port_out, _kbd = made
        g.start()
        port_out.room = 10
        port_in.feed(b"?")
        bell.wait(0)
        g.service(0, U.FLAGGED)
        self.assertEqual(port_out.text(), U.LINES[U.FLAGGED][:10])
        self.assertEqual((g.lines_out, g.lines_cut), (0, 1))
