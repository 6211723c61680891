"""CPython stand-in for MicroPython's `machine` module as the rp2 port (RP2040) behaves.

The firmware sees the MicroPython API: Pin, Timer, PWM, ADC, WDT, disable_irq/enable_irq,
reset, reset_cause, unique_id, freq, idle, lightsleep (PIO state machines: simboard/mp/rp2.py,
on these pins). Time is the virtual clock of
tools/simboard/vtime.py (`vtime.current`, looked up on every call, so a clock installed
later by a test is used).

Behaviour copied from the rp2 port (facts, not code):
- `Pin(id)` alone returns the pin without touching its configuration; with any further
  argument it runs `init`, which sets the mode (None = keep), the pull unconditionally (None =
  no pull) and `value=` (the initial output; OPEN_DRAIN defaults to 1 = released). The same
  GPIO always gives the same object. Pins are 0..29, "GPn" or "LED" (GPIO 25).
- OPEN_DRAIN is emulated: value 0 drives low, value 1 releases the line. `value()` reads
  the pad, i.e. the real line level, in every mode. A pin handed to a PIO (Pin.ALT_PIO0 /
  ALT_PIO1, by rp2.StateMachine) is driven by it: to its PIO output level while its PIO
  direction is out, else released.
- `pin.irq(handler, trigger=IRQ_FALLING | IRQ_RISING, hard=False)` calls `handler(pin)` on
  each matching edge of the line; `pin.irq().flags()` gives the edges of the current call.
  Hard handlers run at once; soft ones go through micropython.schedule (the host shim runs
  them at once too). While interrupts are disabled, handlers wait and run at `enable_irq`.
- `Timer(-1)` only (other ids raise ValueError); `init` takes keyword arguments only:
  mode=PERIODIC (default) / ONE_SHOT, period= in units of 1/tick_hz s (tick_hz=1000), or
  freq= in Hz, and callback(timer). Timers fire only when virtual time is advanced with
  `advance()` (or during sleeps after `hook_sleep()`).
- `PWM(pin, freq=, duty_u16=, duty_ns=, invert=)`: 8 slices of 2 channels (GPIO n is slice
  (n >> 1) & 7, channel n & 1) and the two channels share the frequency; freq must be within
  the RP2040's range (about 8 Hz .. half the system clock) or ValueError; the output starts
  once both freq and duty are set; `deinit()` stops the slice and a later duty set restarts
  it. `freq()` reads back the frequency the divider really gives; `duty_u16()` reads back the
  value set (the board rounds it to the slice's resolution).
- `ADC(0..4 | 26..29 | Pin)`: read_u16 gives the 12-bit reading scaled to 16 bits.
- `WDT(timeout=ms)` with timeout <= 8388 ms; it cannot be stopped. `feed()` restarts it.
- `mem32[addr]`: the watchdog's eight scratch registers (WATCHDOG_BASE 0x40058000 +
  0x0c..0x28), 32-bit words, 0 at power-up (`host_reset`); IO_BANK0's DORMANT_WAKE_INTE0..3
  (read and written) and INTR0..3 (writes: edges cleared, nothing latched here); CLOCKS
  SLEEP_EN0..1 and the SCR (0xE000ED10), read and written: the sleep they choose changes
  nothing here (the chip's model, tools/chip/clocks.mjs, gates clocks by them); any other
  address raises.
- `lightsleep(ms)` advances time; `lightsleep()` is the XOSC dormant: the chip's timer
  stands still (`vtime.current.stopped` grows: ticks_us and the timer register do not move)
  and the watchdog with it, while the world's time runs until a pin with a dormant wake
  enabled has that edge (EDGE_LOW: falls; EDGE_HIGH: rises) (ValueError with none enabled,
  RuntimeError when no event can ever wake it). Only the outside world's events
  (`after(..., irq=True)`) run meanwhile: a host's stop (irq=False) waits for the wake, as
  no Python runs before it. The fake's PIO machines and timers are not stopped (a
  deviation: nothing the firmware does while dormant depends on them, and it puts the lever
  machines in step again after a wake).
- GPIO24 is the Pico's VBUS sense: driven high (USB power) from power-up; `set_vbus(False)`
  runs the board on cells.

Line model: every GPIO has a resolved level from (in order) the chip's own drive (OUT, or
OPEN_DRAIN at 0), the external drivers (test/simulator; any 0 wins, wired-AND), the pull
(up = 1, down = 0), or else it keeps its last level (a floating input). At power-up a GPIO is
an input with the pull-down on, as on the RP2040. A push-pull output fighting an external
driver wins and is counted in `pin.contention`.

Host API (tests and the simulator; not in MicroPython):
- `pin.drive(level, source="ext")`: an external driver on the line (0, 1, or None to
  release); `press(id, bounce=())` / `release(id, bounce=())` do it for an active-low
  switch, optionally with contact bounce scheduled in virtual time.
- `pin.trace`: deque of (seq, t_us, level) for every level change; seq is global over all
  pins, so traces of several pins merge in order. `pin.watch(fn)`: fn(gpio, level) after
  every level change (devices such as the TM1637 model in tm1637_decode.py).
- `advance(us)` / `advance_ms(ms)`: move virtual time, firing due timers, host events and
  the watchdog in time order (ties in creation order). `after(delay_us, fn)`: a host event.
- `hook_sleep()`: make time.sleep_us/sleep_ms advance through `advance()` (timers fire).
- `set_adc_u16(channel, value)`, `set_adc_volts(channel, volts)`.
- `check_wdt()`; a watchdog that runs out raises WatchdogReset (from advance, feed or
  check_wdt) and appends ("wdt", t_us) to `resets`; `reset()` raises Reset and records
  ("soft", t_us).
- `host_reset()`: a fresh board (pins, timers, PWM, ADC, watchdog, interrupt state, and
  the fake micropython's keyboard-interrupt state).
"""

import os
import sys
from collections import deque

import micropython

try:
    from simboard import vtime
except ImportError:  # run without tools/ on sys.path
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    from simboard import vtime

TRACE_LIMIT = 200_000  # level changes kept per pin
_NUM_GPIO = 30
_WDT_MAX_MS = 8388

PWRON_RESET = 1
WDT_RESET = 3


class WatchdogReset(Exception):
    """The watchdog ran out: the board would reboot here."""


class Reset(Exception):
    """machine.reset() was called: the board would reboot here."""


def _now():
    return vtime.current.us


# ---------------------------------------------------------------------------- board state


class _Board:
    def __init__(self):
        self.seq = 0  # global order of level changes
        self.pins = {}  # gpio -> Pin
        self.events = []  # scheduled [deadline_us, order, callable], see _schedule
        self.order = 0
        self.irq_enabled = True
        self.pending = []  # (handler, arg, hard) waiting for enable_irq
        self.pwm_slices = [None] * 8  # slice -> _Slice
        self.adc = [0, 0, 0, 0, 14_000]  # u16 per channel; ch 4 ~ 27 C sensor reading
        self.wdt = None
        self.resets = []
        self.cause = PWRON_RESET
        self.cpu_hz = 125_000_000
        self.scratch = [0] * 8  # WATCHDOG SCRATCH0..7
        self.dormant_wake = [0] * 4  # IO_BANK0 DORMANT_WAKE_INTE0..3
        self.sleep_en = [0xFFFFFFFF, 0x7FFF]  # CLOCKS SLEEP_EN0/1: every clock, as at reset
        self.scr = [0]  # the M0+'s SCR (bit 2: SLEEPDEEP)
        self.interrupts = 0  # IRQ handlers delivered (pins, timers, PIO): `interrupts()`


_board = _Board()
resets = _board.resets
_VBUS = 24


def host_reset():
    """A fresh board: forget pins, timers, PWM, ADC values, watchdog and interrupt state,
    and the VM's keyboard-interrupt state (micropython.host_reset). USB powers it."""
    global _board, resets
    _board = _Board()
    resets = _board.resets
    micropython.host_reset()
    set_vbus(True)


def set_vbus(present):
    """Host API: USB power present (GPIO24, the Pico's VBUS sense, high) or not (cells)."""
    Pin(_VBUS).drive(1 if present else 0, "vbus")


def _deliver(fn, arg, hard):
    _board.interrupts += 1  # an interrupt: it ends a WFE (the fake select's)
    if not _board.irq_enabled:
        _board.pending.append((fn, arg, hard))
    elif hard:
        fn(arg)
    else:
        micropython.schedule(fn, arg)


# ---------------------------------------------------------------------------- Pin


class _Irq:
    def __init__(self, pin):
        self._pin = pin
        self.handler = None
        self.trig = 0
        self.hard = False
        self._flags = 0

    def flags(self):
        return self._flags

    def trigger(self, new=None):
        if new is None:
            return self.trig
        self.trig = new
        self._flags = 0
        return 0


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    ALT = 3
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8
    ALT_PWM = 4
    ALT_SIO = 5
    ALT_PIO0 = 6
    ALT_PIO1 = 7

    def __new__(cls, id, *args, **kwargs):
        gpio = _gpio_number(id)
        pin = _board.pins.get(gpio)
        if pin is None:
            pin = object.__new__(cls)
            pin._setup(gpio)
            _board.pins[gpio] = pin
        return pin

    def __init__(self, id, *args, **kwargs):
        if args or kwargs:
            self.init(*args, **kwargs)

    def _setup(self, gpio):
        self.gpio = gpio
        self._mode = Pin.IN
        self._pull = Pin.PULL_DOWN
        self._out = 0  # output latch
        self._func = Pin.ALT_SIO
        self._pio_out = 0  # the PIO's output level and direction, while it has the pin
        self._pio_dir = 0
        self._ext = {}  # source -> 0/1 of external drivers
        self._level = 0
        self._irq = _Irq(self)
        self.trace = deque(maxlen=TRACE_LIMIT)
        self.watchers = []
        self.contention = 0

    def __repr__(self):
        names = ("IN", "OUT", "OPEN_DRAIN", "ALT")
        return "Pin(GPIO%d, mode=%s)" % (self.gpio, names[self._mode])

    # -- MicroPython API

    def init(self, mode=None, pull=None, *, value=None, alt=None):
        if mode is not None:
            if mode == Pin.OUT:
                if value is not None:
                    self._out = 1 if value else 0
            elif mode == Pin.OPEN_DRAIN:
                self._out = (1 if value else 0) if value is not None else 1
            elif mode not in (Pin.IN, Pin.ALT):
                raise ValueError("invalid pin mode")
            self._mode = mode
            self._func = alt if mode == Pin.ALT else Pin.ALT_SIO
        self._pull = 0 if pull is None else pull
        self._update()

    def value(self, x=None):
        if x is None:
            return self._level
        self._out = 1 if x else 0
        self._update()
        return None

    def __call__(self, x=None):
        return self.value(x)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    high = on
    low = off

    def toggle(self):
        self.value(0 if self._out else 1)

    def irq(self, *args, **kwargs):
        """irq(handler=None, trigger=IRQ_FALLING | IRQ_RISING, hard=False); with no
        arguments returns the irq object unchanged, like the rp2 port."""
        if args or kwargs:
            self._irq_set(*args, **kwargs)
        return self._irq

    def _irq_set(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING, hard=False):
        irq = self._irq
        irq.handler = handler
        irq.trig = trigger if handler is not None else 0
        irq.hard = bool(hard)
        irq._flags = 0

    # -- host API

    def drive(self, level, source="ext"):
        """External driver `source` drives the line to `level` (0/1) or releases it (None)."""
        if level is None:
            self._ext.pop(source, None)
        else:
            self._ext[source] = 1 if level else 0
        self._update()

    def watch(self, fn):
        self.watchers.append(fn)

    def unwatch(self, fn):
        self.watchers.remove(fn)

    def mode(self):
        return self._mode

    def pull(self):
        return self._pull

    def is_driving(self):
        """True while the chip itself drives the line (OUT, or OPEN_DRAIN pulling low)."""
        return self._own_drive() is not None

    # -- line model

    def _own_drive(self):
        if self._func in (Pin.ALT_PIO0, Pin.ALT_PIO1):
            return self._pio_out if self._pio_dir else None
        if self._func != Pin.ALT_SIO:
            return None
        if self._mode == Pin.OUT:
            return self._out
        if self._mode == Pin.OPEN_DRAIN and self._out == 0:
            return 0
        return None

    def _resolve(self):
        own = self._own_drive()
        ext = None
        if self._ext:
            ext = 0 if 0 in self._ext.values() else 1
        if own is not None:
            if ext is not None and ext != own:
                self.contention += 1
            return own
        if ext is not None:
            return ext
        if self._pull == Pin.PULL_UP:
            return 1
        if self._pull == Pin.PULL_DOWN:
            return 0
        return self._level  # floating: keeps its last level

    def _update(self):
        new = self._resolve()
        if new == self._level:
            return
        self._level = new
        _board.seq += 1
        self.trace.append((_board.seq, _now(), new))
        irq = self._irq
        edge = Pin.IRQ_RISING if new else Pin.IRQ_FALLING
        if irq.handler is not None and irq.trig & edge:
            irq._flags = edge
            _deliver(irq.handler, self, irq.hard)
        for fn in list(self.watchers):
            fn(self.gpio, new)


def _gpio_number(id):
    if isinstance(id, Pin):
        return id.gpio
    if isinstance(id, str):
        if id == "LED":
            return 25
        if id.startswith("GP") and id[2:].isdigit():
            id = int(id[2:])
        else:
            raise ValueError('unknown named pin "%s"' % id)
    if isinstance(id, int) and not isinstance(id, bool) and 0 <= id < _NUM_GPIO:
        return id
    raise ValueError("invalid pin")


def press(id, bounce=()):
    """An active-low switch on GPIO `id` closes (line to ground). `bounce`: gaps in us
    between further edges that follow in virtual time (open, close, ...); an even number,
    so the switch ends closed. They happen as `advance()` passes them."""
    _switch(id, 0, bounce)


def release(id, bounce=()):
    """The switch on GPIO `id` opens (the line goes back to its pull); `bounce` as in
    press(), ending open."""
    _switch(id, None, bounce)


def _switch(id, level, bounce):
    if len(bounce) % 2:
        raise ValueError("bounce needs an even number of gaps")
    pin = Pin(id)
    pin.drive(level)
    t = 0
    other = None if level == 0 else 0
    for i, gap in enumerate(bounce):
        t += gap
        lvl = other if i % 2 == 0 else level
        after(t, lambda lvl=lvl: pin.drive(lvl))


# ---------------------------------------------------------------------------- virtual time


class _Event:
    """Handle of a host event made by after()."""

    def __init__(self, fn, delay_us, irq=True, wakes=True):
        self.fn = fn
        self.entry = _schedule(_now() + delay_us, self._fire, irq, wakes)

    def _fire(self):
        self.entry = None
        self.fn()

    def cancel(self):
        if self.entry is not None and self.entry in _board.events:
            _board.events.remove(self.entry)
        self.entry = None


def _schedule(deadline_us, fn, irq=True, wakes=True):
    _board.order += 1
    entry = [deadline_us, _board.order, fn, irq, wakes]
    _board.events.append(entry)
    return entry


def after(delay_us, fn, irq=True, wakes=True):
    """Host event: call fn() when virtual time reaches now + delay_us. Returns a handle
    with cancel(). `irq`: the event is a change of the outside world (a pin edge, a PIO
    step) that may happen while the chip is busy (the Python work the cost model charges,
    a put waiting for FIFO room), where hard IRQs still run; False for events that must
    wait for Python to run again (the harness's stop).
    `wakes`: it ends a WFE (an interrupt, or the harness taking control back); False for
    hardware that runs on without interrupting the core (a PIO state machine's steps, which
    end a WFE only when they raise an interrupt: advance(until_interrupt=True))."""
    return _Event(fn, delay_us, irq, wakes)


def next_event():
    """Host API: the deadline of the next scheduled event of any kind, or None."""
    return min((entry[0] for entry in _board.events), default=None)


def next_wake(limit_us=None):
    """Host API (the fake select's WFE): the deadline of the first event that ends a WFE
    (after(..., wakes=True), timers), or None when there is none (or none before
    `limit_us`, when given). A watchdog that runs out bites in advance() on the way."""
    due = None
    for entry in _board.events:
        if entry[4] and (due is None or entry[0] < due):
            due = entry[0]
    if limit_us is not None and due is not None and due > limit_us:
        return None
    return due


def _next_due(limit_us, irq_only=False):
    due = None
    for entry in _board.events:
        if irq_only and not entry[3]:
            continue
        if entry[0] <= limit_us and (due is None or entry[:2] < due[:2]):
            due = entry
    wdt = _board.wdt
    if wdt is not None and wdt._deadline < limit_us:
        # The watchdog fires strictly after its deadline: a feed exactly at it is in time.
        if due is None or wdt._deadline < due[0]:
            return None, wdt
    return due, None


def advance(us, irq_only=False, until_interrupt=False):
    """Move virtual time forward by `us`, running every timer, host event and watchdog that
    falls due, in time order, with the clock set to each one's deadline. `irq_only`: only
    the events after() made with irq=True (and the watchdog): time spent busy in C code.
    `until_interrupt`: stop right after an event that delivered an interrupt (the fake
    select's WFE); returns True then, else False."""
    if us < 0:
        raise ValueError("time does not run backwards")
    vt = vtime.current
    target = vt.us + us
    seen = _board.interrupts
    while True:
        entry, wdt = _next_due(target, irq_only)
        if wdt is not None:
            vt.us = wdt._deadline + 1
            wdt._bite()
        if entry is None:
            break
        _board.events.remove(entry)
        if entry[0] > vt.us:
            vt.us = entry[0]
        entry[2]()
        if until_interrupt and _board.interrupts != seen:
            return True
    vt.us = target
    return False


def interrupts():
    """Host API: how many interrupt handlers have been delivered since the board was made."""
    return _board.interrupts


def advance_ms(ms):
    advance(ms * 1000)


def now_us():
    """Virtual time in us (unbounded, not wrapped like ticks_us)."""
    return vtime.current.us


def timer_us():
    """The chip's µs timer (unbounded): virtual time less the spells it stood still."""
    vt = vtime.current
    return vt.us - vt.stopped


def hook_sleep():
    """Route time.sleep_us / sleep_ms through advance(), so timers fire during sleeps.
    vtime.install() undoes it; call again after installing a new clock."""
    import time

    time.sleep_us = advance
    time.sleep_ms = advance_ms


# ---------------------------------------------------------------------------- Timer


class Timer:
    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, id=-1, **kwargs):
        if id != -1:
            raise ValueError("Timer doesn't exist")
        self._entry = None
        self._mode = Timer.PERIODIC
        self._delta_us = 0
        self._callback = None
        if kwargs:
            self.init(**kwargs)

    def init(self, *, mode=PERIODIC, callback=None, period=0xFFFFFFFF, tick_hz=1000, freq=None):
        self.deinit()
        self._mode = mode
        if freq is not None:
            self._delta_us = int(1_000_000 / freq)
        else:
            self._delta_us = period * 1_000_000 // tick_hz
        if self._delta_us < 1:
            self._delta_us = 1
        self._callback = callback
        self._arm(_now() + self._delta_us)

    def _arm(self, deadline):
        self._entry = _schedule(deadline, self._fire, False)  # soft: runs when Python does

    def _fire(self):
        deadline = self._entry[0]
        self._entry = None
        if self._mode == Timer.PERIODIC:
            self._arm(deadline + self._delta_us)
        if self._callback is not None:
            _deliver(self._callback, self, False)

    def deinit(self):
        if self._entry is not None and self._entry in _board.events:
            _board.events.remove(self._entry)
        self._entry = None

    def __repr__(self):
        mode = "ONE_SHOT" if self._mode == Timer.ONE_SHOT else "PERIODIC"
        return "Timer(mode=%s, tick_hz=1000000, period=%d)" % (mode, self._delta_us)


# ---------------------------------------------------------------------------- PWM


class _Slice:
    def __init__(self):
        self.div16 = 16
        self.top = 0xFFFF
        self.freq_set = False
        self.enabled = False


class PWM:
    def __init__(self, dest, freq=None, *, duty_u16=None, duty_ns=None, invert=None):
        pin = dest if isinstance(dest, Pin) else Pin(dest)
        self.gpio = pin.gpio
        self._slice_no = (pin.gpio >> 1) & 7
        if _board.pwm_slices[self._slice_no] is None:
            _board.pwm_slices[self._slice_no] = _Slice()
        self._duty = None  # duty_u16 last set, or None
        self.invert = 0
        self.trace = []  # (t_us, freq_hz, duty_u16, sounding) after each change
        pin._func = Pin.ALT_PWM
        pin._update()
        self.init(freq, duty_u16=duty_u16, duty_ns=duty_ns, invert=invert)

    @property
    def _slice(self):
        return _board.pwm_slices[self._slice_no]

    def init(self, freq=None, *, duty_u16=None, duty_ns=None, invert=None):
        if freq is not None:
            self._set_freq(freq)
        if duty_u16 is not None:
            self._set_duty(duty_u16)
        if duty_ns is not None:
            self.duty_ns(duty_ns)
        if invert is not None:
            self.invert = 1 if invert else 0
        self._start()

    def freq(self, value=None):
        s = self._slice
        if value is None:
            src = _board.cpu_hz
            d = s.div16 * (s.top + 1)
            return (16 * src + d // 2) // d
        self._set_freq(value)
        self._start()
        return None

    def duty_u16(self, value=None):
        if value is None:
            return self._duty or 0
        self._set_duty(value)
        self._start()
        return None

    def duty_ns(self, value=None):
        s = self._slice
        slice_hz = (16 * _board.cpu_hz + s.div16 // 2) // s.div16
        if value is None:
            cc = ((self._duty or 0) * (s.top + 1) + 65535 // 2) // 65535
            return (cc * 1_000_000_000 + slice_hz // 2) // slice_hz
        cc = (value * slice_hz + 500_000_000) // 1_000_000_000
        if cc > 65535:
            raise ValueError("duty larger than period")
        self._set_duty(min(65535, cc * 65535 // (s.top + 1)))
        self._start()
        return None

    def deinit(self):
        self._slice.enabled = False
        self._record()

    def sounding(self):
        """Host API: True while this output toggles (slice running, 0 < duty < 100 %)."""
        return self._slice.enabled and self._duty is not None and 0 < self._duty < 65535

    def _set_freq(self, f):
        src = _board.cpu_hz
        if f <= 0:
            raise ValueError("freq too small")
        top_max = 65534
        if (src + f // 2) // f < top_max:
            div16 = 16
            top = (src + f // 2) // f - 1
        else:
            div16 = -(-16 * src // (top_max * f))
            d = div16 * f
            top = (16 * src + d // 2) // d - 1
        if top < 1:
            raise ValueError("freq too large")
        if div16 >= 256 * 16:
            raise ValueError("freq too small")
        s = self._slice
        s.div16 = div16
        s.top = top
        s.freq_set = True

    def _set_duty(self, value):
        if not 0 <= value <= 65535:
            raise ValueError("duty_u16 must be from 0 to 65535")
        self._duty = value

    def _start(self):
        s = self._slice
        if s.freq_set and self._duty is not None:
            s.enabled = True
        self._record()

    def _record(self):
        row = (_now(), self.freq() if self._slice.freq_set else 0, self._duty, self.sounding())
        if not self.trace or self.trace[-1][1:] != row[1:]:
            self.trace.append(row)


# ---------------------------------------------------------------------------- ADC


class ADC:
    CORE_TEMP = 4

    def __init__(self, id):
        if isinstance(id, Pin):
            id = id.gpio
            if not 26 <= id <= 29:
                raise ValueError("Pin doesn't have ADC capabilities")
        if 26 <= id <= 29:
            id -= 26
        if not 0 <= id <= 4:
            raise ValueError("invalid ADC channel")
        self.channel = id

    def read_u16(self):
        return _board.adc[self.channel]


def set_adc_u16(channel, value):
    """Host API: what ADC(channel).read_u16() returns (0..65535)."""
    if not 0 <= value <= 65535:
        raise ValueError("u16 out of range")
    _board.adc[channel] = value


def set_adc_volts(channel, volts, vref=3.3):
    """Host API: the pin sits at `volts`; read_u16 gives the 12-bit conversion scaled to 16
    bits the way the rp2 port does it (raw << 4 | raw >> 8)."""
    raw = int(round(volts / vref * 4095))
    raw = max(0, min(4095, raw))
    _board.adc[channel] = raw << 4 | raw >> 8


# ---------------------------------------------------------------------------- WDT


class WDT:
    def __init__(self, id=0, timeout=5000):
        if id != 0:
            raise ValueError("WDT(%d) doesn't exist" % id)
        if not 0 < timeout <= _WDT_MAX_MS:
            raise ValueError("timeout exceeds %d" % _WDT_MAX_MS)
        self.timeout_ms = timeout
        self._deadline = _now() + timeout * 1000
        _board.wdt = self

    def feed(self):
        check_wdt()
        self._deadline = _now() + self.timeout_ms * 1000

    def _bite(self):
        _board.wdt = None
        _board.cause = WDT_RESET
        _board.resets.append(("wdt", self._deadline))
        raise WatchdogReset("watchdog not fed for %d ms" % self.timeout_ms)


def check_wdt():
    """Host API: raise WatchdogReset if the watchdog's time ran out."""
    wdt = _board.wdt
    if wdt is not None and _now() > wdt._deadline:
        wdt._bite()


# ---------------------------------------------------------------------------- misc


def disable_irq():
    """Returns the previous state for enable_irq. Locks the heap (as micropython-lib's fake
    does) so allocation inside a critical section fails where heap_lock is real."""
    state = 1 if _board.irq_enabled else 0
    _board.irq_enabled = False
    micropython.heap_lock()
    return state


def enable_irq(state=1):
    micropython.heap_unlock()
    if state:
        _board.irq_enabled = True
        pending, _board.pending = _board.pending, []
        for fn, arg, hard in pending:
            _deliver(fn, arg, hard)


def irq_enabled():
    """Host API: False inside disable_irq()."""
    return _board.irq_enabled


_SCRATCH0 = 0x4005800C
_INTR0 = 0x400140F0  # IO_BANK0 INTR0..3: raw interrupts (edges write-1-to-clear)
_WAKE_INTE0 = 0x40014160  # IO_BANK0 DORMANT_WAKE_INTE0..3
_SLEEP_EN0 = 0x400080A8  # CLOCKS SLEEP_EN0..1
_SCR = 0xE000ED10  # the M0+'s System Control Register
_REGS = (
    (_SCRATCH0, 8, "scratch"),
    (_WAKE_INTE0, 4, "dormant_wake"),
    (_SLEEP_EN0, 2, "sleep_en"),
    (_SCR, 1, "scr"),
)


class _Mem32:
    def _reg(self, addr):
        for base, n, name in _REGS:
            i = (addr - base) >> 2
            if not addr & 3 and 0 <= i < n:
                return getattr(_board, name), i
        if not addr & 3 and 0 <= (addr - _INTR0) >> 2 < 4:
            return None, 0
        raise ValueError("mem32[0x%08x] is not modelled" % addr)

    def __getitem__(self, addr):
        regs, i = self._reg(addr)
        return regs[i] if regs is not None else 0

    def __setitem__(self, addr, value):
        regs, i = self._reg(addr)
        if regs is not None:
            regs[i] = value & 0xFFFFFFFF


mem32 = _Mem32()


def reset():
    _board.resets.append(("soft", _now()))
    raise Reset("machine.reset()")


def soft_reset():
    reset()


def reset_cause():
    return _board.cause


def unique_id():
    return b"\xe6\x61\x38\x30\x43\x2c\x5a\x27"


def freq(hz=None):
    if hz is None:
        return _board.cpu_hz
    _board.cpu_hz = int(hz)
    return None


def idle():
    pass


def lightsleep(ms=None):
    if ms is not None:
        advance_ms(ms)
        return
    # Per GPIO the DORMANT_WAKE_INTE bits EDGE_LOW (4) and EDGE_HIGH (8)
    edges = {g: _board.dormant_wake[g >> 3] >> ((g & 7) * 4) & 12 for g in range(_NUM_GPIO)}
    wake = [g for g in edges if edges[g]]
    if not wake:
        raise ValueError("dormant with no wake edge enabled: the chip would never wake")
    vt = vtime.current
    t0 = vt.us
    fell = []

    def watch(gpio, level):
        if edges[gpio] & (8 if level else 4):
            fell.append(gpio)

    pins = [Pin(g) for g in wake]
    for pin in pins:
        pin.watch(watch)
    wdt = _board.wdt
    _board.wdt = None  # its tick stops with the crystal
    try:
        while not fell:
            due, _ = _next_due(float("inf"), irq_only=True)
            if due is None:
                raise RuntimeError("dormant for ever: no event left to wake the chip")
            _board.events.remove(due)
            if due[0] > vt.us:
                vt.us = due[0]
            due[2]()
    finally:
        for pin in pins:
            pin.unwatch(watch)
        # MicroPython's lightsleep sets every SLEEP_EN bit again and leaves SLEEPDEEP set
        _board.sleep_en[0] = 0xFFFFFFFF
        _board.sleep_en[1] = 0x7FFF
        _board.scr[0] |= 4
        spell = vt.us - t0
        vt.stopped += spell
        if wdt is not None:
            wdt._deadline += spell
            _board.wdt = wdt


def bootloader():
    raise Reset("machine.bootloader()")


set_vbus(True)  # the board powers up on USB (host_reset does the same)
