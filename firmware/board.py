"""The board: the one module that knows the pin map (hardware/README.md) and creates the
Pin, PIO state machine, PWM, ADC and WDT objects and the loop's doorbell. Everything else is
handed what it needs.

Wakeup sources: the four buttons interrupt on both edges (hard IRQs); each edge rings `bell`
(doorbell.py), which ends the loop's sleep; the button handler only rings, the buttons are
then polled by the loop while one is down or settling (buttons.py). The levers are watched
by PIO1's state machines 0 (left) and 1 (right), running lever_pio.program with the lever's
pin as their `jmp_pin`; levers.py is handed them unstarted, with the pins, the LEDs and
`_start_levers`, which starts both in step with the µs timer (`levers()` builds them; how a
press is stamped and why: docs/levers-and-bench.md). The USB serial port (MicroPython's REPL
port, sys.stdin/sys.stdout) is handed to `usb` (usbguard.py), whose stdin the bell listens
to once the loop starts, with the mark that tells it whether anything else has written to
the port since the chip's reset (UsbMark: a watchdog scratch register); what goes out on it
is the app's (the live feed, which the app builds and attaches to `usb`). The displays'
wires are driven by PIO0's state machines 0 (left) and 1 (right), running tm1637_pio.program
(tm1637.py says why); machine 2 runs alarm_pio.program, the µs alarm that ends the loop's
sleep (doorbell.py). The LCD build (DISPLAY_FILE says "lcd") has two HT1621 glasses on the
same four pins instead, both driven by PIO0's machine 0 (ht1621.py); above this module only
the displays' `digits` and `points` tell the builds apart (hardware/README.md has both maps).

    left display  TM1637 CLK GP2, DIO GP3      right display  TM1637 CLK GP4, DIO GP5
    left lever    GP6 (to GND, pull-up)        right lever    GP7
    PLAY/PAUSE    GP10   SET GP11   MINUS GP12   PLUS GP13   (to GND, pull-ups)
    buzzer        GP15 (PWM, passive piezo)    side LEDs      left GP8, right GP9 (high = on)
    battery       ADC3 (GP29) = VSYS / 3       VBUS sense     GP24 (the Pico's: high on USB power)
    display supply  GP14 (LED build: a P-MOSFET's gate in the modules' 3V3; low = powered)

An idle clock goes dormant (`dormant`, dormant.py): the crystal stopped until a button or a
lever closes; on the LED build the display modules' supply is switched off for it (a
TM1637 switched off keeps drawing its own supply current); after it the lever machines are
put in step with the µs timer again.
"""

import sys
import time

import alarm_pio
import lever_pio
import machine
import micropython
import rp2
from buttons import Buttons
from buzzer import Buzzer
from doorbell import Doorbell
from dormant import Dormant
from levers import Levers
from micropython import const
from sleepgate import SleepGate
from usbguard import UsbGuard

_LEFT_CLK = const(2)
_LEFT_DIO = const(3)
_RIGHT_CLK = const(4)
_RIGHT_DIO = const(5)
_LCD_CS_LEFT = const(2)  # the LCD build: CS left, WR, DATA, CS right (consecutive pins)
_LCD_WR = const(3)
_LCD_DATA = const(4)
_LEFT_LEVER = const(6)
_RIGHT_LEVER = const(7)
_LEFT_LED = const(8)
_RIGHT_LED = const(9)
_PLAY = const(10)
_SET = const(11)
_MINUS = const(12)
_PLUS = const(13)
_BUZZER = const(15)
_DISPLAY_SUPPLY = const(14)  # the LED build's display modules' 3V3 switch: low = powered
_POWER_ON_MS = const(10)  # a TM1637 module from its supply switched on to its first frame
_DISPLAY_LINES = (_LEFT_CLK, _LEFT_DIO, _RIGHT_CLK, _RIGHT_DIO)  # the LED build's wires
_VBUS = const(24)  # the Pico's VBUS sense (a divider from VBUS: high on USB power)
_WIRE_MS = const(2)  # the displays' last frames leave their wires within this (ms)
_BATTERY_ADC = const(3)
_ALARM_SM = const(2)  # PIO0's third machine (0 and 1 drive the displays)
_LEVER_SM = const(4)  # PIO1's machines 0 (left lever) and 1 (right): lever_pio.START_BITS
_BATTERY_READS = const(8)  # ADC conversions averaged per battery reading
_USB_MARK = const(0x4005800C)  # RP2040 WATCHDOG SCRATCH0 (datasheet 4.7): UsbMark's word


class UsbMark:
    """Whether anything but the loop may have written to the USB port since the chip's
    reset, for usbguard.py (the TX FIFO then holds bytes it did not count). WATCHDOG
    SCRATCH0 holds time.time() of the last instant something else may have (the guard
    sets it when the board is built, until the loop starts, and when the loop hands the
    board to the REPL), 0 when only the loop has. A power-up clears it; a soft reboot
    (the REPL's Ctrl-D) keeps it, and so do a watchdog reset and machine.reset(), which
    empty the FIFO and restart the clock: a mark later than time.time() is from before
    them. The RP2040's scratch registers 0-3 are the program's (the SDK and the boot ROM
    use 4-7)."""

    def fresh(self):
        """True when only the loop has written to the port since the chip's reset."""
        m = machine.mem32[_USB_MARK]
        return m == 0 or time.time() < m

    def set(self):
        machine.mem32[_USB_MARK] = int(time.time())  # (an int on MicroPython already)

    def clear(self):
        machine.mem32[_USB_MARK] = 0


def _usb_mark():
    """A UsbMark on an RP2040 (its register), else None (the guard assumes the worst)."""
    impl = getattr(sys, "implementation", None)
    return UsbMark() if "RP2040" in getattr(impl, "_machine", "") else None


DISPLAY_FILE = "display.cfg"  # "lcd": the LCD build (`make flash DISPLAY=lcd` writes it)


def display_kind():
    """The displays fitted: "lcd" when DISPLAY_FILE says so, else "led" (the file missing or
    unreadable: the LED build, whose modules a wrong guess cannot harm; the LCD build's
    glasses stay blank until the file is written again)."""
    try:
        with open(DISPLAY_FILE) as f:
            word = f.read(8)
    except OSError:
        return "led"
    return "lcd" if word.strip() == "lcd" else "led"


def _lcd_pair():
    """The LCD build's two HT1621 glasses on one PIO0 state machine (machine 0;
    ht1621_pio.py): CS left, WR and DATA shared, CS right on consecutive pins. The driver is
    imported here, so a build imports only its own."""
    import ht1621
    import ht1621_pio

    Pin = machine.Pin
    sm = rp2.StateMachine(
        0,
        ht1621_pio.program,
        freq=ht1621_pio.PIO_HZ,
        set_base=Pin(_LCD_CS_LEFT),
        sideset_base=Pin(_LCD_WR),
        out_base=Pin(_LCD_DATA),
    )
    sm.active(1)
    return ht1621.pair(sm)


def _display(sm_id, clk, dio):
    """A TM1637 on its CLK/DIO pins, driven by PIO0's state machine `sm_id`
    (tm1637_pio.py): the internal pull-ups on, beside the module's own, and the pins handed
    to the PIO, which only ever pulls them low. (Imported here: a build imports only its
    own driver.)"""
    import tm1637_pio
    from tm1637 import TM1637

    Pin = machine.Pin
    clk_pin = Pin(clk, Pin.IN, Pin.PULL_UP)
    dio_pin = Pin(dio, Pin.IN, Pin.PULL_UP)
    sm = rp2.StateMachine(
        sm_id,
        tm1637_pio.program,
        freq=tm1637_pio.PIO_HZ,
        sideset_base=clk_pin,
        set_base=dio_pin,
        out_base=dio_pin,
        in_base=dio_pin,
    )
    sm.active(1)
    return TM1637(sm)


def levers(**kw):
    """The levers: PIO1's machines 0 (left) and 1 (right) running lever_pio.program, each
    with its lever's pin (pulled up) as its `jmp_pin`, handed to Levers unstarted with
    `_start_levers`. `kw`: Levers' own (the doorbell's `bell`, the `leds`, ...)."""
    Pin = machine.Pin
    pins = (Pin(_LEFT_LEVER, Pin.IN, Pin.PULL_UP), Pin(_RIGHT_LEVER, Pin.IN, Pin.PULL_UP))
    machines = tuple(
        rp2.StateMachine(_LEVER_SM + side, lever_pio.program, freq=lever_pio.PIO_HZ, jmp_pin=pin)
        for side, pin in enumerate(pins)
    )
    return Levers(machines, pins, _start_levers, **kw)


def _start_levers():
    """Both lever machines at once, in step with the µs timer: their count's origin."""
    return lever_pio.start_in_step(
        lever_pio.TIMERAWL, lever_pio.PIO1_CTRL_SET, lever_pio.START_BITS
    )


class Board:
    def __init__(self):
        Pin = machine.Pin
        alarm = rp2.StateMachine(_ALARM_SM, alarm_pio.program, freq=alarm_pio.PIO_HZ)
        alarm.active(1)
        self.bell = Doorbell(alarm)
        self._supply = None  # the LCD build's glasses have their own power-down (ht1621.py)
        if display_kind() == "lcd":
            self.displays = _lcd_pair()
        else:
            # the modules powered from here on: the app's first frame comes hundreds of ms
            # later (its build), well past _POWER_ON_MS
            self._supply = Pin(_DISPLAY_SUPPLY, Pin.OUT, value=0)
            self.displays = (
                _display(0, _LEFT_CLK, _LEFT_DIO),
                _display(1, _RIGHT_CLK, _RIGHT_DIO),
            )
        self.leds = (Pin(_LEFT_LED, Pin.OUT, value=0), Pin(_RIGHT_LED, Pin.OUT, value=0))
        self.levers = levers(bell=self.bell.rung, leds=self.leds)
        buttons = tuple(Pin(n, Pin.IN, Pin.PULL_UP) for n in (_PLAY, _SET, _MINUS, _PLUS))
        for pin in buttons:
            pin.irq(self.bell.ring, Pin.IRQ_FALLING | Pin.IRQ_RISING, True)
        self.buttons = Buttons(buttons)
        self.buzzer = Buzzer(machine.PWM(Pin(_BUZZER), freq=2_000, duty_u16=0))
        self.adc = machine.ADC(_BATTERY_ADC)
        wake = (_LEFT_LEVER, _RIGHT_LEVER, _PLAY, _SET, _MINUS, _PLUS)
        vbus = Pin(_VBUS, Pin.IN)
        # The cable's edges ring as a button's do (no button changes): the loop's next look
        # at VBUS (sleepgate.py) comes at once, so a host finds its port up
        vbus.irq(self.bell.ring, Pin.IRQ_FALLING | Pin.IRQ_RISING, True)
        self.power = Dormant(vbus, _VBUS, wake, machine.mem32, machine.lightsleep)
        # deep sleep on cells
        self.gate = SleepGate(self.power.on_usb, machine.mem32, self.buzzer.busy)
        self.usb = UsbGuard(
            sys.stdin.buffer, sys.stdout.buffer, self.bell, micropython.kbd_intr, _usb_mark()
        )

    def dormant(self):
        """Dormant until a button or a lever closes or USB power comes (dormant.py), once the
        displays' last frames are on their wires, the LED build's modules unpowered; then
        the lever machines in step with the µs timer again (levers.restart: the press that
        woke it is no press)."""
        time.sleep_ms(_WIRE_MS)
        self._supply_off()
        self.power.sleep()
        self._supply_on()
        self.gate.forget()  # lightsleep left the sleep registers its own way
        self.levers.restart()

    def _supply_off(self):
        """The LED build's display modules unpowered: their four lines' pull-ups off first (a
        line pulled up would feed the unpowered module through its inputs; the module's own
        pull-ups then hold the lines low), then the supply switch."""
        if self._supply is None:
            return
        for g in _DISPLAY_LINES:
            machine.Pin(g).init(pull=None)  # no mode given: the pin stays the PIO's
        self._supply.value(1)

    def _supply_on(self):
        """The modules powered again, their lines' pull-ups back on, _POWER_ON_MS for the
        chips to start (they start dark and hold nothing): the drivers then write whole
        frames at the next render."""
        if self._supply is None:
            return
        self._supply.value(0)
        Pin = machine.Pin
        for g in _DISPLAY_LINES:
            Pin(g).init(pull=Pin.PULL_UP)
        time.sleep_ms(_POWER_ON_MS)
        for d in self.displays:
            d.invalidate()

    def watchdog(self, timeout_ms):
        return machine.WDT(timeout=timeout_ms)

    def set_leds(self, mask):
        self.leds[0].value(mask & 1)
        self.leds[1].value((mask >> 1) & 1)

    def battery_mv(self):
        """VSYS in mV: the Pico divides it by 3 before ADC3 (3.3 V reference), the mean of
        _BATTERY_READS conversions. Allocates nothing."""
        adc = self.adc
        total = 0
        for _ in range(_BATTERY_READS):
            total += adc.read_u16()
        # the mean first: mean * 9_900 stays a small int (< 2**30) on the port
        return total // _BATTERY_READS * 9_900 // 65_535
