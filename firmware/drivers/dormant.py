"""The idle clock's lowest-current state: the RP2040 dormant (its crystal oscillator stopped,
so every clock with it) until a button or a lever closes, or USB power comes.

Owns the dormant-wake enables of IO_BANK0 (an edge low on each wake pin: a closing switch;
a lever left held does not keep the chip awake; an edge high on VBUS: a cable plugged in
wakes the clock, so a host finds its port) and the look at VBUS (GP24 on the Pico: high
while USB powers the board, when the clock never goes dormant: the host's port and
`mpremote` stay up). machine.lightsleep() without a period is MicroPython's rp2 XOSC
dormant: it moves the clocks onto the crystal, stops the PLLs, stops the crystal, and
brings every clock back after the wake edge. Handed the VBUS pin and its GPIO number, the
wake GPIO numbers, `mem32` and `lightsleep` (board.py hands machine's). Not hard-IRQ
code.

What a caller must know: the µs timer counts ticks of the crystal, so it stands still while
the chip is dormant (ticks_us() and ticks_ms() resume where they stopped); PIO state
machines stop too, and the move onto the slow crystal clock before the crystal stops runs
them slower for a moment, so a machine that counts µs (the levers') must be put in step
again after a wake (levers.py `restart`). RAM and the pins keep their state (what the board
powers off around the spell, board.py says). The RP2040 datasheet (2.16, XOSC DORMANT;
2.19, DORMANT_WAKE_INTE) has the registers; the current is docs/battery.md's.
"""

from micropython import const

_IO_BANK0 = const(0x40014000)
_INTR0 = const(0xF0)  # raw interrupt status, 8 GPIOs a word; edges are write-1-to-clear
_WAKE_INTE0 = const(0x160)  # DORMANT_WAKE_INTE0..3, 8 GPIOs a word, 4 bits each
_EDGE_LOW = const(4)  # per GPIO: LEVEL_LOW 1, LEVEL_HIGH 2, EDGE_LOW 4, EDGE_HIGH 8
_EDGE_HIGH = const(8)


def wake_masks(gpios, rising=()):
    """The four DORMANT_WAKE_INTE words enabling an edge low on each of `gpios` and an edge
    high on each of `rising`."""
    masks = [0, 0, 0, 0]
    for g in gpios:
        masks[g >> 3] |= _EDGE_LOW << ((g & 7) * 4)
    for g in rising:
        masks[g >> 3] |= _EDGE_HIGH << ((g & 7) * 4)
    return tuple(masks)


class Dormant:
    def __init__(self, vbus, vbus_gpio, gpios, mem32, lightsleep):
        self._vbus = vbus
        self._masks = wake_masks(gpios, (vbus_gpio,))
        self._mem = mem32
        self._lightsleep = lightsleep
        self.wakes = 0  # dormant spells ended, for tests and the bench

    def on_usb(self):
        """True while USB powers the board (VBUS present)."""
        return self._vbus.value() == 1

    def sleep(self):
        """Dormant until a wake pin closes or VBUS rises: stale edges cleared, the wake edges
        enabled, MicroPython's lightsleep, the enables off again. Returns when the clocks
        are back."""
        mem = self._mem
        masks = self._masks
        for i in range(4):
            if masks[i]:
                mem[_IO_BANK0 + _INTR0 + 4 * i] = masks[i]  # an old edge would wake at once
                mem[_IO_BANK0 + _WAKE_INTE0 + 4 * i] = masks[i]
        try:
            self._lightsleep()
        finally:
            for i in range(4):
                if masks[i]:
                    mem[_IO_BANK0 + _WAKE_INTE0 + 4 * i] = 0
        self.wakes += 1
