"""The drivers' steady-state paths allocate nothing: the lever IRQ handlers (hard-IRQ
rule), levers pop/drain/waiting, TM1637 show, buttons
update/pop/next_due, buzzer play/update/next_due, the doorbell's ring/take/wait, HT1621 show.

Under MicroPython heap_lock makes any allocation raise MemoryError; under CPython these tests
only exercise the same calls. Pins and the PWM are minimal stand-ins defined here (core tests
may not import the fake `machine`)."""

import sys
import unittest

from buttons import PLUS, SET, Buttons
from buzzer import CONFIRM, Buzzer
from ht1621 import pair
from levers import Levers, stamp
from tm1637 import TM1637

MICROPYTHON = sys.implementation.name == "micropython"

if MICROPYTHON:
    from micropython import heap_lock, heap_unlock
else:

    def heap_lock():
        pass

    def heap_unlock():
        pass


class FakePin:
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, level=1):
        self.level = level
        self.handler = None

    def flags(self):
        """The edge that led to the present level (what the IRQ latched)."""
        return self.IRQ_FALLING if self.level == 0 else self.IRQ_RISING

    def value(self, x=None):
        if x is None:
            return self.level
        self.level = 1 if x else 0
        return None

    def __call__(self):
        return self.level

    def irq(self, handler=None, trigger=0, hard=False):
        if handler is None:
            return self  # pin.irq() gives the irq object; flags() is above
        self.handler = handler
        return self


class FakeMachine:
    """A PIO state machine as the TM1637 driver uses it (put, rx_fifo, get): every byte
    acknowledged, so nothing ever comes back."""

    def __init__(self):
        self.words = 0

    def put(self, buf):
        self.words += len(buf)

    def rx_fifo(self):
        return 0

    def get(self):
        return 0


class FakePWM:
    def __init__(self):
        self.f = 0
        self.d = 0

    def freq(self, f):
        self.f = f

    def duty_u16(self, d):
        self.d = d


def noop(side, stamp):
    pass


class FakeLeverMachine:
    """A lever's PIO machine as levers.py uses it (irq, put, rx_fifo, get): `press(word)`
    is a word in its RX FIFO (4 deep: a fifth is dropped, as `push noblock` does) and its
    flag's hard IRQ."""

    def __init__(self):
        self.rx = []
        self.tx = []
        self.handler = None

    def irq(self, handler=None, trigger=1, hard=False):
        self.handler = handler

    def put(self, word):
        self.tx.append(word)

    def rx_fifo(self):
        return len(self.rx)

    def get(self):
        return self.rx.pop(0)

    def press(self, word):
        if len(self.rx) < 4:
            self.rx.append(word)
        self.handler(self)


def origin():
    return 1000


class TestNoAllocation(unittest.TestCase):
    def test_lever_irq_and_drain(self):
        sms = (FakeLeverMachine(), FakeLeverMachine())
        sms[0].rx = [0] * 4  # the 4 words the FIFO holds: preallocated list cells
        sms[1].rx = [0] * 4
        sms[0].rx.clear()
        sms[1].rx.clear()
        lv = Levers(sms, (FakePin(), FakePin()), origin, 8)
        sms[0].press(5)  # warm up
        lv.drain(noop)
        heap_lock()
        try:
            for k in range(20):  # more than a ring holds: the overflow path too
                sms[0].press(0x3FFFFFFF - 2 * k)
                sms[1].press(0x3FFFFFFF - 2 * k - 1)
            n = lv.waiting()
            m = lv.drain(noop)
            side = lv.pop()
            lv.pressed(0)
        finally:
            heap_unlock()
        self.assertEqual((n, m, side), (True, 16, -1))
        self.assertEqual(lv.dropped(), 24)
        self.assertEqual(sms[0].tx, [9_999])  # the quiet word: 20 ms
        self.assertEqual(stamp(1000, 0x3FFFFFFF), 1002)  # the count wraps with ticks_us

    def test_levers_give_presses_in_timestamp_order(self):
        """Each lever's ring is in order; across the two the earlier stamp comes first,
        whichever handler ran first; an exact tie gives side 0 first."""
        sms = (FakeLeverMachine(), FakeLeverMachine())
        lv = Levers(sms, (FakePin(), FakePin()), origin, 8)
        got = []
        for words in ((100, 60), (40, 50), (30, 30)):  # word w: stamp 1001 - w
            sms[0].rx.append(words[0])  # both FIFOs filled while interrupts were off,
            sms[1].rx.append(words[1])
        sms[0].handler(sms[0])  # then the left's handler ran first
        sms[1].handler(sms[1])
        lv.drain(lambda side, t: got.append((side, t)))
        self.assertEqual(got, [(0, 901), (1, 941), (1, 951), (0, 961), (0, 971), (1, 971)])

    def test_tm1637_show(self):
        sm = FakeMachine()
        disp = TM1637(sm)
        a = bytearray(b"\x3f\x06\x5b\x4f")
        b = bytearray(b"\x06\x86\x5b\x4f")
        disp.show(a)
        heap_lock()
        try:
            wrote = disp.show(b)
            same = disp.show(b)
            disp.set_brightness(3)
            disp.show(b)
        finally:
            heap_unlock()
        self.assertTrue(wrote)
        self.assertFalse(same)
        self.assertEqual(disp.frames, 3)
        self.assertEqual(sm.words, 3 * 4)
        self.assertEqual(disp.nacks, 0)

    def test_ht1621_show(self):
        """Every kind of write: one digit, a run of them, the whole glass, the points, the
        battery, on/off, and the setup after invalidate."""
        sm = FakeMachine()
        left, right = pair(sm)
        a = bytearray(b"\x3f\x06\x5b\x4f\x66\x6d")
        b = bytearray(b"\x3f\x06\xdb\x4f\x66\x7d")
        blank = bytearray(6)
        left.show(a)
        right.show(a, 7)
        heap_lock()
        try:
            wrote = left.show(b, 1)
            same = left.show(b, 1)
            right.show(b)
            left.set_on(False)
            left.show(b, 1)
            left.invalidate()
            left.show(a, 3)
            right.show(blank, 0)
            left.set_brightness(2)
            level = left.brightness()
        finally:
            heap_unlock()
        self.assertTrue(wrote)
        self.assertFalse(same)
        self.assertEqual(level, 2)
        self.assertEqual(left.frames, 4)
        self.assertEqual(right.frames, 3)
        self.assertEqual(left.nacks + right.nacks, 0)

    def test_buttons(self):
        btn = Buttons([FakePin(), FakePin(), FakePin(), FakePin()])
        btn.update(0, 1 << SET)
        heap_lock()
        try:
            t = 0
            while t < 3_000:
                btn.update(t, (1 << SET) | (1 << PLUS))
                btn.pop()
                t += 10
            btn.next_due(t)
            btn.update(t, 0)
            btn.next_due(t)
            btn.update(t + 50, 0)
            btn.poll(t + 100)
            btn.pop()
            btn.next_due(t + 100)
        finally:
            heap_unlock()
        self.assertEqual(btn.held_mask, 0)

    def test_buzzer(self):
        pwm = FakePWM()
        bz = Buzzer(pwm)
        bz.play(CONFIRM, 0)
        heap_lock()
        try:
            bz.play(CONFIRM, 0)
            t = 0
            while t < 300:
                bz.update(t)
                bz.next_due(t)
                t += 10
            bz.beep(t, 3000, 20)
            bz.update(t + 20)
        finally:
            heap_unlock()
        self.assertEqual(pwm.d, 0)
        self.assertFalse(bz.busy())

    def test_doorbell(self):
        try:
            import select  # noqa: F401

            from doorbell import Doorbell
        except ImportError:
            return
        if not MICROPYTHON:
            return  # CPython's select.poll takes file descriptors only
        bell = Doorbell()
        bell.wait(0)  # the first ipoll makes its result tuple
        heap_lock()
        try:
            bell.ring()
            bell.wait(10_000)  # rung: returns at once
            taken = bell.take()
            again = bell.take()
            bell.wait(0)
        finally:
            heap_unlock()
        self.assertTrue(taken)
        self.assertFalse(again)


if __name__ == "__main__":
    unittest.main()
