"""TM1637 driver: puts 4 segment bytes and a brightness on one 4-digit display.

Owns only the chip's command sequence. It is handed a two-wire `bus` with the primitive
operations of MicroPython's `machine.SoftI2C` (board.py creates it on the CLK and DIO pins,
both open drain with pull-ups): `start()`, `write(buf)` (returns the number of bytes
acknowledged; it stops at the first missing ACK) and `stop()`.

Why SoftI2C (TM1637 datasheet): the chip's two-wire protocol has I2C's start (DIO falls while
CLK is high), stop (DIO rises while CLK is high), data sampled on CLK's rising edge and an
ACK on the ninth clock, but no address and bytes go LSB first. So each byte is sent
bit-reversed (a 256-byte table) through SoftI2C's C bit-banging: a whole frame costs nine
calls instead of some 360 Python pin calls and sleeps (about 6 ms of CPU on an RP2040 at
125 MHz, against under 1 ms). `BUS_HZ` = 100 kHz: a 5 us half period, within the chip's
limit (the datasheet asks for less than 250 kHz when reading keys; writes allow more) with
room for the modules' pull-up resistors and line capacitors.

A frame is: start, 0x40 (write data, auto-increment), stop; start, 0xC0 (address 0), 4
segment bytes, stop; start, 0x88 | brightness (display on), stop.

`show(segs)` writes only when the bytes or the brightness differ from what the chip holds,
so the loop may call it at every render. A bus error (a line held low) is counted in
`errors`, never raised: the clock keeps running with a stale display rather than stopping.
Nothing allocates after the constructor.
"""

from micropython import const

_CMD_DATA = const(0x40)  # write display data, auto-increment address
_CMD_ADDR = const(0xC0)  # address of digit 0
_CMD_CTRL = const(0x80)  # display control; | _CTRL_ON | brightness
_CTRL_ON = const(0x08)
BRIGHTNESS_MAX = const(7)
BUS_HZ = const(100_000)  # SoftI2C clock for the TM1637 (see the module doc)


def _reversed_bits():
    table = bytearray(256)
    for b in range(256):
        r = 0
        for i in range(8):
            if b & (1 << i):
                r |= 0x80 >> i
        table[b] = r
    return table


_REV = _reversed_bits()  # LSB-first byte -> the MSB-first byte the bus sends


class TM1637:
    def __init__(self, bus, brightness=BRIGHTNESS_MAX):
        self._bus = bus
        self._shown = bytearray(4)  # segment bytes the chip holds
        self._frame = bytearray(5)  # the address command and 4 digits, bit-reversed
        self._cmd = bytearray(1)  # a one-byte command, bit-reversed
        self._valid = False  # False until the first frame: the chip's content is unknown
        self._brightness = 0  # 0..7, the level the chip holds or is about to get
        self._on = True  # display on/off
        self._sent_ctrl = -1  # display control byte the chip holds, -1 = unknown
        self.frames = 0  # frames written, for tests and the bench
        self.nacks = 0  # bytes the chip did not acknowledge (no chip, a bad wire)
        self.errors = 0  # bus errors (OSError from the bus: a line stuck low)
        self.set_brightness(brightness)

    def set_brightness(self, level):
        """Brightness 0 (dim) .. 7 (bright), clamped; takes effect on the next `show`."""
        if level < 0:
            level = 0
        elif level > BRIGHTNESS_MAX:
            level = BRIGHTNESS_MAX
        self._brightness = level

    def brightness(self):
        return self._brightness

    def set_on(self, on):
        """Switch the display on or off (the chip keeps its digits); next `show` sends it."""
        self._on = bool(on)

    def invalidate(self):
        """Forget what the chip holds, so the next `show` rewrites everything (e.g. after the
        module lost power)."""
        self._valid = False
        self._sent_ctrl = -1

    def show(self, segs):
        """Show 4 segment bytes (bytes/bytearray, see segments.py). Writes a frame only when
        they or the brightness / on state changed; returns True when it wrote."""
        ctrl = _CMD_CTRL | self._brightness
        if self._on:
            ctrl |= _CTRL_ON
        shown = self._shown
        same = self._valid and ctrl == self._sent_ctrl
        for i in range(4):
            if shown[i] != segs[i]:
                same = False
                shown[i] = segs[i]
        if same:
            return False
        self._valid = False  # unknown until the frame is through (whatever cuts it short)
        try:
            self._write_frame(ctrl)
        except OSError:
            self.errors += 1
            self._valid = False  # unknown again: the next show rewrites
            self._sent_ctrl = -1
            return False
        self._valid = True
        self._sent_ctrl = ctrl
        self.frames += 1
        return True

    def _write_frame(self, ctrl):
        bus = self._bus
        cmd = self._cmd
        frame = self._frame
        frame[0] = _REV[_CMD_ADDR]
        for i in range(4):
            frame[i + 1] = _REV[self._shown[i]]
        cmd[0] = _REV[_CMD_DATA]
        bus.start()
        acks = bus.write(cmd)
        bus.stop()
        bus.start()
        acks += bus.write(frame)
        bus.stop()
        cmd[0] = _REV[ctrl]
        bus.start()
        acks += bus.write(cmd)
        bus.stop()
        self.nacks += 7 - acks
