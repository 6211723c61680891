"""Run the real firmware (firmware/main.py, unmodified) on the simulated board.

`SimulatedClock` resets the fake `machine`, installs virtual time (near the ticks wrap by
default), puts live display models on the display pins (`display="led"`: a TM1637 per
display, tm1637_decode.py; `display="lcd"`: the LCD build's two HT1621 glasses on GP2-GP5,
ht1621_decode.py), and runs main.py with its flash
filesystem in a host folder. With `costs` (harness/costs.py) the firmware's own Python work
takes virtual time at the chip's rates; without, it takes none (the displays' frames go out
on the fake rp2's PIO in virtual time either way). The main loop's sleep (`select.poll` on
the doorbell, faked by simboard/mp_select.py) advances virtual time to the next host event
or the poll's timeout, so the loop runs exactly as on the board, only as fast as the host
can go. Control comes back to the caller through host events that stop the run.

USB: `clock.usb` is the board's USB serial port with a host at the other end
(simboard/usb_cdc.py; fresh and unplugged at each power-on): board.py is handed its `sys`.
When the app hands the board to a USB host its loop returns, or a KeyboardInterrupt ends
main.py (kept in `exit_exception`, as pyexec prints it); `at_repl` is then True and
`run_ms` only lets virtual time pass (the REPL waits for the host; the watchdog runs on).

Modules: each power-on imports the firmware afresh, as a boot on the board does. Those modules
are the board's own (`clock.module(name)`): they are in `sys.modules` only while its firmware
runs, and the test's own firmware modules (imported at collection) are put back after, so a
class from one set never meets an `isinstance` from the other, whatever ran before
(test_harness_isolation.py).

Pins (hardware/README.md): levers GP6/GP7, PLAY GP10, SET GP11, MINUS GP12, PLUS GP13.
"""

import os
import runpy
import sys
from contextlib import contextmanager, nullcontext
from pathlib import Path

import firmware_build
import machine
import micropython

from simboard import ht1621_decode, mp_select, tm1637_decode, usb_cdc, vtime

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"

FIRMWARE_DIRS = firmware_build.firmware_dirs(ROOT)

LEVER = {"left": 6, "right": 7}
BUTTON = {"play": 10, "set": 11, "minus": 12, "plus": 13}
DISPLAY_PINS = ((2, 3), (4, 5))  # the LED build's TM1637s: (CLK, DIO) left, right
LCD_PINS = (2, 3, 4, 5)  # the LCD build's HT1621s: CS left, WR, DATA, CS right
DISPLAYS = ("led", "lcd")
DISPLAY_FILE = "display.cfg"  # board.DISPLAY_FILE: the build's displays, "lcd" or missing
LED_PINS = (8, 9)
DISPLAY_SUPPLY = 14  # the LED build's display modules' 3V3 switch (board.py): low = on


class Stop(Exception):
    """Raised by a host event to hand control back from the firmware's endless loop."""


class PowerOff(Exception):
    """The simulated power switch."""


def _import_with_fake_select(name):
    """Import firmware module `name` with simboard/mp_select.py as its `select` (CPython's
    select.poll cannot wait on a MicroPython stream object); CPython's module stays for
    everything else."""
    real = sys.modules.get("select")
    sys.modules["select"] = mp_select
    try:
        __import__(name)
    finally:
        if real is not None:
            sys.modules["select"] = real
        else:
            del sys.modules["select"]


def import_board(usb=None):
    """firmware/board.py with its doorbell and USB guard bound to the fake select and its
    `sys` to the USB port `usb` (a fresh unplugged one by default), for tests that build
    `Board()` themselves instead of booting main.py."""
    for name in ("board", "doorbell", "usbguard"):
        sys.modules.pop(name, None)
    _import_with_fake_select("doorbell")
    _import_with_fake_select("usbguard")
    import board

    board.sys = (usb if usb is not None else usb_cdc.CdcPort()).sys
    return board


class SimulatedClock:
    def __init__(
        self, flash_dir, start_us=vtime.TICKS_PERIOD - 3_000_000, costs=None, display="led"
    ):
        if display not in DISPLAYS:
            raise ValueError("display %r: one of %s" % (display, DISPLAYS))
        self.display_kind = display  # which modules the board has on its display pins
        self.flash_dir = str(flash_dir)
        if display == "lcd":  # what `make flash DISPLAY=lcd` leaves on the board (board.py)
            with open(os.path.join(self.flash_dir, DISPLAY_FILE), "w") as f:
                f.write("lcd\n")
        self.start_us = start_us
        self.costs = costs  # a harness.costs.CostModel: the firmware's work takes time
        self.vt = None
        self.chips = None
        self.app = None
        self.modules = {}  # the board's own firmware modules, by name (fresh per power-on)
        self.power_on()

    # ----------------------------------------------------------- power
    def power_on(self):
        machine.host_reset()
        self.vt = vtime.install(vtime.VirtualTime(self.start_us))
        if self.display_kind == "lcd":
            pins = [machine.Pin(g) for g in LCD_PINS]
            self.chips = ht1621_decode.attach_pair(*pins, clock=machine.now_us)
        else:
            self.chips = tuple(
                tm1637_decode.attach(
                    machine.Pin(clk), machine.Pin(dio), machine.now_us, machine.Pin(DISPLAY_SUPPLY)
                )
                for clk, dio in DISPLAY_PINS
            )
        self.boot_us = None  # virtual us at which the app's monotonic clock reads 0
        self._booted = False
        self.usb = usb_cdc.CdcPort()
        self.at_repl = False  # the app handed the board to a USB host; main.py has ended
        self.exit_exception = None  # the KeyboardInterrupt that ended main.py, if one did
        self.modules = {}  # a fresh boot imports fresh modules

    def module(self, name):
        """The board's own firmware module `name` (to patch what its firmware calls)."""
        return self.modules[name]

    @contextmanager
    def _own_modules(self):
        """sys.modules holds this board's firmware modules while its firmware runs, and
        whatever firmware modules were there before once it stops."""
        theirs = _take_firmware_modules()
        sys.modules.update(self.modules)
        try:
            yield
        finally:
            self.modules = _take_firmware_modules()
            sys.modules.update(theirs)

    def _boot_and_run(self):
        """Start main.py (first call) or resume its loop (later calls), on this board's own
        modules."""
        with self._own_modules():
            self._run_firmware()

    def _run_firmware(self):
        if not self._booted:
            self._booted = True
            sys.path[:0] = [str(d) for d in FIRMWARE_DIRS if str(d) not in sys.path]
            cwd = os.getcwd()
            os.chdir(self.flash_dir)
            try:
                import_board(self.usb)
                import app as app_module

                original_init = app_module.App.__init__
                runner = self

                def init(self_app, board, root=".", fs=os):
                    runner.boot_us = machine.now_us()  # MonoClock(ticks_us()) starts here
                    original_init(self_app, board, root, fs)
                    runner.app = self_app

                app_module.App.__init__ = init
                try:
                    runpy.run_path(str(FIRMWARE / "main.py"), run_name="__main__")
                    self.at_repl = True  # main.py ended: the REPL has the board
                except KeyboardInterrupt as exc:  # pyexec prints it, the REPL starts
                    self.at_repl = True
                    self.exit_exception = exc
                finally:
                    app_module.App.__init__ = original_init
            finally:
                os.chdir(cwd)
        else:
            cwd = os.getcwd()
            os.chdir(self.flash_dir)
            try:
                self.app.run_loop()
                self.at_repl = True
            except KeyboardInterrupt as exc:
                self.at_repl = True
                self.exit_exception = exc
            finally:
                os.chdir(cwd)

    def run_ms(self, ms):
        """Let the firmware run for `ms` of virtual time."""

        def stop():
            raise Stop()

        if self.at_repl:
            machine.advance(ms * 1000)  # the REPL waits for its host
            return
        event = machine.after(ms * 1000, stop, irq=False)  # control comes back when Python runs
        try:
            charging = self.costs.charging() if self.costs is not None else nullcontext()
            with micropython.chip(), charging:
                self._boot_and_run()
        except Stop:
            pass
        if event.entry is not None:  # the loop returned: the board went to the USB host
            deadline = event.entry[0]
            event.cancel()
            machine.advance(max(0, deadline - machine.now_us()))

    def power_cycle(self, off_ms=1000):
        self.power_on()
        self.vt.advance_ms(off_ms)
        self.app = None

    # ---------------------------------------------------------- inputs
    def press(self, name, hold_ms=80):
        """Press and release a lever or button (by name), then keep running."""
        pin = LEVER.get(name, BUTTON.get(name))
        machine.press(pin)
        self.run_ms(hold_ms)
        machine.release(pin)
        self.run_ms(60)

    def press_for(self, name, hold_ms):
        """Press a lever or button now and release it `hold_ms` of virtual time later,
        without running the firmware (the release is a host event; tools/sim/sim.py uses it so
        presses do not block the real-time loop). Returns the event handle (cancel())."""
        pin = LEVER.get(name, BUTTON.get(name))
        machine.press(pin)
        return machine.after(hold_ms * 1000, lambda: machine.release(pin))

    def is_pressed(self, name):
        """True while that lever or button is held down (its line pulled low from outside)."""
        return machine.Pin(LEVER.get(name, BUTTON.get(name))).value() == 0

    def mono_ms(self, t_us=None):
        """The app's monotonic ms at virtual time `t_us` (default: now)."""
        return ((self.vt.us if t_us is None else t_us) - self.boot_us) // 1000

    def at_us(self, mono_ms):
        """Virtual us at which the app's monotonic clock reaches `mono_ms`."""
        return self.boot_us + mono_ms * 1000

    # --------------------------------------------------------- outputs
    def display(self, side):
        """What the chip on that side shows now: (text, colon) for a TM1637, (6 characters,
        points mask, icons mask) for an HT1621 glass."""
        return self.chips[side].text()

    def displays(self):
        return self.display(0), self.display(1)

    def leds(self):
        return tuple(machine.Pin(p).value() for p in LED_PINS)

    def segments(self, side):
        """The segment bytes that chip lights now (blanks while its display is off): a
        TM1637's 4 (bit 7 of byte 1 is the colon), an HT1621 glass's 6 (bit 7 of bytes 2, 3,
        4: the points after them)."""
        if self.display_kind == "lcd":
            return self.chips[side].shown()[0]
        return self.chips[side].shown()

    def icons(self, side):
        """The battery icons an HT1621 glass shows (segments.py's ICON_* mask); 0 on a TM1637."""
        return self.chips[side].shown()[1] if self.display_kind == "lcd" else 0

    def brightness(self, side):
        """A TM1637's brightness; None for an HT1621 glass (it has none)."""
        return getattr(self.chips[side], "brightness", None)

    def buzzer(self):
        """(sounding, freq_hz) of the buzzer PWM now; (False, 0) before the board is built."""
        pwm = getattr(getattr(getattr(self.app, "board", None), "buzzer", None), "_pwm", None)
        if pwm is None or not pwm.sounding():
            return False, 0
        return True, pwm.freq()


_FIRMWARE_MODULES = {name[:-3] for name in firmware_build.firmware_sources(FIRMWARE)}


def _take_firmware_modules():
    """Remove the firmware's modules from sys.modules; returns them by name."""
    return {name: sys.modules.pop(name) for name in list(sys.modules) if name in _FIRMWARE_MODULES}
