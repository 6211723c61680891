"""TM1637 driver: puts 4 segment bytes and a brightness on one 4-digit display.

Owns only the two-wire protocol. It is handed its `clk` and `dio` pins (board.py creates
them) and needs only their `value()` method:

- `clk`: push-pull output, idle high: `Pin(n, Pin.OUT, value=1)`.
- `dio`: open drain with pull-up, idle released: `Pin(n, Pin.OPEN_DRAIN, Pin.PULL_UP,
  value=1)`. `dio.value(0)` pulls the line low and `dio.value(1)` releases it, so the chip
  can pull it low for its ACK without fighting us (MicroPython's rp2 port implements
  OPEN_DRAIN by switching the pin between input and output-low). A push-pull `dio` also
  works, as in the common MicroPython drivers, but then every ACK is counted as missing.

Protocol (TM1637 datasheet): bytes go LSB first, each bit set while CLK is low and sampled
by the chip on the rising edge; after 8 bits a ninth clock pulse carries the chip's ACK
(DIO low). A frame is: start, 0x40 (write data, auto-increment), stop; start, 0xC0 (address
0), 4 segment bytes, stop; start, 0x88 | brightness (display on), stop. Start is DIO falling
while CLK is high; stop is DIO rising while CLK is high.

`show(segs)` writes only when the bytes or the brightness differ from what the chip holds,
so the tick loop may call it every frame. A frame takes about 150 half-bit delays of
`_DELAY_US` plus Python overhead (a few ms on an RP2040 at 125 MHz). Nothing allocates after
the constructor.
"""

import time

from micropython import const

_CMD_DATA = const(0x40)  # write display data, auto-increment address
_CMD_ADDR = const(0xC0)  # address of digit 0
_CMD_CTRL = const(0x80)  # display control; | _CTRL_ON | brightness
_CTRL_ON = const(0x08)
_DELAY_US = const(10)  # half a clock period, us (the chip allows up to ~250 kHz)
BRIGHTNESS_MAX = const(7)


class TM1637:
    def __init__(self, clk, dio, brightness=BRIGHTNESS_MAX):
        self._clk = clk
        self._dio = dio
        self._shown = bytearray(4)  # segment bytes the chip holds
        self._valid = False  # False until the first frame: the chip's content is unknown
        self._brightness = 0  # 0..7, the level the chip holds or is about to get
        self._on = True  # display on/off
        self._sent_ctrl = -1  # display control byte the chip holds, -1 = unknown
        self.frames = 0  # frames written, for tests and the bench
        self.nacks = 0  # bytes the chip did not acknowledge (push-pull dio, or no chip)
        clk.value(1)
        dio.value(1)
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
        self._write_frame(ctrl)
        self._valid = True
        self._sent_ctrl = ctrl
        self.frames += 1
        return True

    def _write_frame(self, ctrl):
        self._start()
        self._write_byte(_CMD_DATA)
        self._stop()
        self._start()
        self._write_byte(_CMD_ADDR)
        shown = self._shown
        for i in range(4):
            self._write_byte(shown[i])
        self._stop()
        self._start()
        self._write_byte(ctrl)
        self._stop()

    def _start(self):
        # Bus idle: both lines high. DIO falls while CLK is high, then CLK goes low.
        self._dio.value(0)
        time.sleep_us(_DELAY_US)
        self._clk.value(0)
        time.sleep_us(_DELAY_US)

    def _stop(self):
        # CLK is low. DIO low, CLK high, then DIO rises while CLK is high.
        self._dio.value(0)
        time.sleep_us(_DELAY_US)
        self._clk.value(1)
        time.sleep_us(_DELAY_US)
        self._dio.value(1)
        time.sleep_us(_DELAY_US)

    def _write_byte(self, b):
        clk = self._clk
        dio = self._dio
        for _ in range(8):
            dio.value(b & 1)  # CLK is low here: data changes only while CLK is low
            time.sleep_us(_DELAY_US)
            clk.value(1)
            time.sleep_us(_DELAY_US)
            clk.value(0)
            b >>= 1
        dio.value(1)  # release DIO; the chip pulls it low from the 8th falling edge
        time.sleep_us(_DELAY_US)
        clk.value(1)
        time.sleep_us(_DELAY_US)
        if dio.value():
            self.nacks += 1
        clk.value(0)
        time.sleep_us(_DELAY_US)
