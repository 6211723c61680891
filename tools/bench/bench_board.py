"""A stand-in for firmware/board.py that runs under MicroPython without `machine`: for the bench.

Owns nothing on the board. It has the interface App uses (bell, displays, levers, buttons,
buzzer, usb, set_leds, battery_mv, watchdog). The levers, buttons, buzzer and TM1637 drivers
are the real firmware drivers (levers.py, buttons.py, buzzer.py, tm1637.py) handed fake pins,
a fake PWM and fake PIO state machines (`LeverMachine` pushes the word lever_pio's program
pushes for a press at the bench clock's instant, and raises its IRQ), so their Python cost is
part of what the bench
measures; a frame's wire time (the PIO's, 0.6 ms to the address transaction's end) is added
by tools/bench/bench.py to the lags. `usb` is the real usbguard.UsbGuard on a port whose host reads
everything (HostPort), so the live feed's lines are written and counted in every figure.

`VirtualTime` replaces the `time` module of the app and the drivers (`install`), so the bench
decides how much time passes (the wasm port's ticks_us() has only 1 ms resolution). `BenchBell`
stands in for doorbell.py: `wait_until(target_us)` moves the virtual clock to that instant
(the board's PIO alarm ends the sleep at it, alarm_pio.py) or to a lever press the bench
scheduled, which it fires.

Nothing here allocates after the constructor: it must not pollute the bench's allocation
figures.
"""

import io
import time

import buttons as buttons_mod
import buzzer as buzzer_mod
import levers as levers_mod
import tm1637 as tm1637_mod
from doorbell import Doorbell
from micropython import const
from usbguard import UsbGuard

_TICKS_MASK = const(0x3FFFFFFF)  # ticks wrap at 2**30


class VirtualTime:
    """ticks_us/ticks_ms read a counter the bench moves; ticks_diff/ticks_add are the real
    ones (2**30 wrap)."""

    def __init__(self, start_us):
        self.us = start_us & _TICKS_MASK
        self.total_us = 0  # unwrapped us for schedules; the bench zeroes it (small int)
        self.ticks_diff = time.ticks_diff
        self.ticks_add = time.ticks_add

    def ticks_us(self):
        return self.us

    def ticks_ms(self):
        return self.us // 1000

    def advance(self, us):
        """Move on by `us` (< 2**30); small ints only, also across the wrap."""
        room = _TICKS_MASK - self.us
        if us > room:
            self.us = us - room - 1
        else:
            self.us += us
        self.total_us += us


def install(clock, *modules):
    """Make each module's `time` the virtual clock (the app and the drivers read it)."""
    for m in (levers_mod, buttons_mod, buzzer_mod) + modules:
        m.time = clock


class FakePin:
    """An input pin: `value()` / calling it gives the level (1 = released, pull-up);
    `irq(handler, trigger, hard)` keeps the handler so the bench can fire it; `irq()` is the
    irq object, whose `flags()` is the edge that fired."""

    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, level=1):
        self.level = level
        self.handler = None

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = v

    def __call__(self):
        return self.level

    def irq(self, handler=None, trigger=0, hard=False):
        if handler is not None:
            self.handler = handler
        return self

    def flags(self):
        return self.IRQ_FALLING if self.level == 0 else self.IRQ_RISING

    def fire(self):
        """Press: the line falls; run the IRQ handler as the hardware would."""
        self.level = 0
        self.handler(self)

    def release(self):
        self.level = 1
        self.handler(self)


class LeverMachine:
    """A lever's PIO state machine as levers.py uses it (irq, put, rx_fifo, get): a fall of
    its pin pushes the word lever_pio's program pushes for a press at that instant (the
    bench clock's) and raises the IRQ. The bench taps a lever seconds apart, so the
    program's debounce never has a bounce to swallow here."""

    def __init__(self, clock, pin):
        self.clock = clock
        self.handler = None
        self.word = 0
        self.held = 0  # words in the RX FIFO (0 or 1)
        self.origin = 0  # ticks_us of the count's origin (start())
        pin.irq(self._edge)

    def irq(self, handler, trigger=0, hard=False):
        self.handler = handler

    def put(self, word):
        pass

    def rx_fifo(self):
        return self.held

    def get(self):
        self.held = 0
        return self.word

    def start(self):
        self.origin = self.clock.us
        return self.origin

    def _edge(self, pin):
        if pin.value():
            return  # a release: the program waits it out inside the machine
        self.word = (self.origin + 1 - self.clock.us) & _TICKS_MASK
        self.held = 1
        self.handler(self)


class FakeMachine:
    """A PIO state machine as tm1637.py uses it (put, rx_fifo, get); every byte is
    acknowledged. The frame's wire time is the PIO's, not the CPU's (tools/bench/bench.py)."""

    def put(self, buf):
        pass

    def rx_fifo(self):
        return 0

    def get(self):
        return 0


class BenchBell(Doorbell):
    """doorbell.py's Doorbell with the bench clock for its sleep. One scheduled lever press
    at a time: `press_at(total_us, pin)`; `wait_until(target_us)` fires it if it comes
    before the sleep's end."""

    def __init__(self, clock):
        super().__init__()
        self.clock = clock
        self.press_us = -1  # total_us of the scheduled press, -1 = none
        self.press_pin = None

    def press_at(self, total_us, pin):
        self.press_us = total_us
        self.press_pin = pin

    def wait_until(self, target_us):
        clock = self.clock
        if self.rung[0] != self.seen or self.rung[1] != self.seen_b:
            return
        left = clock.ticks_diff(target_us, clock.us)
        if left <= 0:
            return
        now = clock.total_us
        end = now + left  # the alarm's instant (doorbell.py)
        p = self.press_us
        if 0 <= p <= end:
            if p > now:
                clock.advance(p - now)
            self.press_us = -1
            self.press_pin.fire()
            self.press_pin.release()  # a tap: the lever re-arms 20 ms later
            return
        clock.advance(end - now)


class HostPort(io.IOBase):
    """The USB serial port with a host that reads everything at once (the chip bench's
    emulated host does): never readable, always room to write; counts what it took."""

    def __init__(self):
        self.taken = 0  # bytes written

    def ioctl(self, req, arg):
        if req != 3:  # MP_STREAM_POLL
            return -1
        return arg & 4  # POLLOUT

    def readinto(self, buf):
        return 0

    def write(self, buf, off=0, n=-1):
        self.taken += 1 if n < 0 else n
        return 1 if n < 0 else n


def _kbd_intr(c):
    pass


class FreshMark:
    """board.UsbMark at a power-up: nothing but the loop has written to the port, so the
    guard writes its lines a block per POLLOUT (usbguard.BLOCK), as on the board."""

    def fresh(self):
        return True

    def set(self):
        pass

    def clear(self):
        pass


class FakePWM:
    def __init__(self):
        self.hz = 0
        self.duty = 0

    def freq(self, hz=None):
        if hz is None:
            return self.hz
        self.hz = hz

    def duty_u16(self, duty=None):
        if duty is None:
            return self.duty
        self.duty = duty


class Watchdog:
    def __init__(self, timeout_ms):
        self.timeout_ms = timeout_ms
        self.feeds = 0

    def feed(self):
        self.feeds += 1


class BenchBoard:
    def __init__(self, clock):
        self.bell = BenchBell(clock)
        self.lever_pins = (FakePin(), FakePin())
        self.button_pins = (FakePin(), FakePin(), FakePin(), FakePin())
        self.pwm = FakePWM()
        self.machines = (FakeMachine(), FakeMachine())
        self.displays = (
            tm1637_mod.TM1637(self.machines[0]),
            tm1637_mod.TM1637(self.machines[1]),
        )
        self.lever_machines = lever_sms = (
            LeverMachine(clock, self.lever_pins[0]),
            LeverMachine(clock, self.lever_pins[1]),
        )
        self.levers = levers_mod.Levers(
            lever_sms, self.lever_pins, self._start, bell=self.bell.rung
        )
        for pin in self.button_pins:
            pin.irq(self.bell.ring)
        self.buttons = buttons_mod.Buttons(self.button_pins)
        self.buzzer = buzzer_mod.Buzzer(self.pwm)
        self.leds = 0
        self.host = HostPort()
        self.usb = UsbGuard(self.host, self.host, self.bell, _kbd_intr, FreshMark())  # App: + feed

    def _start(self):
        """Both lever machines started in step: the count's origin, as lever_pio's start."""
        origin = self.lever_machines[0].start()
        self.lever_machines[1].origin = origin
        return origin

    def frames(self):
        """TM1637 frames written so far, both displays."""
        return self.displays[0].frames + self.displays[1].frames

    def watchdog(self, timeout_ms):
        return Watchdog(timeout_ms)

    def set_leds(self, mask):
        self.leds = mask

    def battery_mv(self):
        return 4_100  # VSYS of fresh alkaline cells
