"""The core's sleep between wakeups on cells: the RP2040's deep sleep, with only the clocks
that keep the clock's promises running.

Owns CLOCKS SLEEP_EN0/1 and the SLEEPDEEP bit of the Cortex-M0+'s SCR. With SLEEPDEEP set,
the WFE the loop sleeps in (select.poll, doorbell.py) puts the chip in its sleep state, where
only the branch clocks SLEEP_EN leaves on run; any interrupt ends it and WAKE_EN's clocks
(all of them) run again before the core takes it (RP2040 datasheet 2.11, 2.15). clk_sys,
its PLL and the crystal keep running: nothing waits for a PLL's lock or a crystal's start,
and the wake takes no time the firmware sees.

Left on (`SLEEP_EN0`, `SLEEP_EN1`): both PIO blocks (the lever stamps, the display frames
and the µs alarm run on: a stamp is exact to the µs whatever the core is doing), the timer
and the watchdog (its tick counts the µs; it stays fed), IO_BANK0 and the pads (the buttons'
edge interrupts, the pins' levels), SIO, the bus fabric and its control, the clocks,
resets, power-on state machine, regulator, ROSC, XOSC, PLL_SYS and SYSCFG blocks and the
RTC; the PWM only while the buzzer sounds (`sounding`: a beep sounds on; silent, its clock
is 5 µA/MHz of the core's current, RP2040 datasheet table 635, and its output rests at its
last level: the duty's 0 takes effect at the counter's next wrap, and a piezo at a steady
level draws nothing). Gated: the ROM, the XIP cache, the six SRAM banks,
DMA, USB, ADC, UART, SPI, I2C, JTAG, PLL_USB's registers, SYSINFO and TBMAN: nothing uses
them while the core sleeps (the ADC is read awake; on cells no USB host is there).

On USB power (VBUS, GP24, high) SLEEPDEEP stays clear: the chip sleeps as MicroPython leaves
it, the USB controller and the host's port run. `update()` (the loop, after each wakeup;
a VBUS edge rings the doorbell, board.py) follows VBUS, so the cable can come and go at any
instant, and the buzzer; `forget()` after a dormant spell, whose machine.lightsleep() sets
every SLEEP_EN bit again and leaves SLEEPDEEP set. Handed `on_usb` (dormant.Dormant.on_usb:
the one look at VBUS), `mem32` and `sounding` (buzzer.Buzzer.busy). Allocation-free.
"""

from micropython import const

_SCR = const(0xE000ED10)  # the M0+'s System Control Register (ARMv6-M B3.2.7)
_SLEEPDEEP = const(4)
_SLEEP_EN0 = const(0x400080A8)  # CLOCKS_BASE + 0xA8
_SLEEP_EN1 = const(0x400080AC)
# EN0 bits on: 0 sys_clocks, 3 sys_busctrl, 4 sys_busfabric, 8 sys_io, 10 sys_vreg_and_chip_
# reset, 11 sys_pads, 12 sys_pio0, 13 sys_pio1, 14 sys_pll_sys, 16 sys_psm, 18 sys_resets,
# 20 sys_rosc, 21 rtc_rtc, 22 sys_rtc, 23 sys_sio; and 17 sys_pwm while a beep sounds
SLEEP_EN0 = const(0xF57D19)
PWM_EN0 = const(0x20000)
# EN1 bits on: 2 sys_syscfg, 5 sys_timer, 12 sys_watchdog, 14 sys_xosc
SLEEP_EN1 = const(0x5024)


class SleepGate:
    def __init__(self, on_usb, mem32, sounding):
        self._on_usb = on_usb  # bound once: calling either allocates nothing
        self._sounding = sounding
        self._mem = mem32
        # 1: deep sleep armed (on cells), 3: armed with the PWM on, 0: not (USB power),
        # -1: unknown
        self.deep = -1

    def update(self):
        """Deep sleep on cells, not on USB power, the PWM's clock on while the buzzer
        sounds; writes only when one of them changed (or after `forget`)."""
        deep = 0 if self._on_usb() else 3 if self._sounding() else 1
        if deep == self.deep:
            return
        mem = self._mem
        scr = mem[_SCR]
        if deep:
            mem[_SLEEP_EN0] = SLEEP_EN0 | PWM_EN0 if deep == 3 else SLEEP_EN0
            mem[_SLEEP_EN1] = SLEEP_EN1
            mem[_SCR] = scr | _SLEEPDEEP
        else:
            mem[_SCR] = scr & ~_SLEEPDEEP
        self.deep = deep

    def forget(self):
        """The registers may have changed under it (a dormant spell): the next `update`
        writes them."""
        self.deep = -1
