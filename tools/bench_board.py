"""A stand-in for firmware/board.py that runs under MicroPython without `machine`: for the bench.

Owns nothing on the board. It has the interface App uses (displays, levers, buttons, buzzer,
set_leds, battery_percent, start_timer, watchdog, idle). The levers, buttons and buzzer are the
real firmware drivers (levers.py, buttons.py, buzzer.py) handed fake pins and a fake PWM, so
their per-step cost is part of the measured loop step; the displays are stand-ins whose
`show()` only copies the 4 segment bytes (no TM1637 bit-banging through fake pins).

`VirtualTime` replaces the `time` module of the app and the drivers (`install`), so the bench
moves the clock by exactly one loop period per step (the wasm port's ticks_us() has only 1 ms
resolution, and the app ignores a lever press within 50 ms of the other lever's).

Nothing here allocates after the constructor: it must not pollute the bench's allocation
figures.
"""

import time

import buttons as buttons_mod
import buzzer as buzzer_mod
import levers as levers_mod
from micropython import const

_TICKS_MASK = const(0x3FFFFFFF)  # ticks wrap at 2**30


class VirtualTime:
    """ticks_us/ticks_ms read a counter the bench moves; ticks_diff/ticks_add are the real
    ones (2**30 wrap)."""

    def __init__(self, start_us):
        self.us = start_us & _TICKS_MASK
        self.ticks_diff = time.ticks_diff
        self.ticks_add = time.ticks_add

    def ticks_us(self):
        return self.us

    def ticks_ms(self):
        return self.us // 1000

    def advance(self, us):
        self.us = (self.us + us) & _TICKS_MASK


def install(clock, *modules):
    """Make each module's `time` the virtual clock (the app and the drivers read it)."""
    for m in (levers_mod, buttons_mod, buzzer_mod) + modules:
        m.time = clock


class FakePin:
    """An input pin: `value()` / calling it gives the level (1 = released, pull-up);
    `irq(handler, trigger, hard)` keeps the handler so the bench can fire it."""

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
        self.handler = handler

    def fire(self):
        """A falling edge: run the IRQ handler as the hardware would."""
        self.handler(self)


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


class Display:
    """Stand-in for TM1637: `show()` copies the segment bytes (index loop: no slice object)."""

    def __init__(self):
        self.segs = bytearray(4)
        self.brightness = 7
        self.shows = 0

    def show(self, segs):
        out = self.segs
        for i in range(4):
            out[i] = segs[i]
        self.shows += 1

    def set_brightness(self, level):
        self.brightness = level


class Watchdog:
    def __init__(self, timeout_ms):
        self.timeout_ms = timeout_ms
        self.feeds = 0

    def feed(self):
        self.feeds += 1


class BenchBoard:
    def __init__(self):
        self.lever_pins = (FakePin(), FakePin())
        self.button_pins = (FakePin(), FakePin(), FakePin(), FakePin())
        self.pwm = FakePWM()
        self.displays = (Display(), Display())
        self.levers = levers_mod.Levers(self.lever_pins[0], self.lever_pins[1])
        self.buttons = buttons_mod.Buttons(self.button_pins)
        self.buzzer = buzzer_mod.Buzzer(self.pwm)
        self.leds = 0
        self.timer_hz = 0
        self.timer_callback = None

    def start_timer(self, hz, callback):
        self.timer_hz = hz
        self.timer_callback = callback

    def watchdog(self, timeout_ms):
        return Watchdog(timeout_ms)

    def idle(self):
        pass

    def set_leds(self, mask):
        self.leds = mask

    def battery_percent(self):
        return 80
