"""TM1637 driver: puts 4 segment bytes and a brightness on one 4-digit display.

Owns the chip's command sequence and the words that carry it to the wire. It is handed a
PIO state machine running tm1637_pio.program on the display's CLK and DIO pins (board.py
makes it), and uses only its `put(buffer)`, `rx_fifo()` and `get()`.

A frame is three transactions (TM1637 datasheet): start, 0x40 (write data,
auto-increment), stop; start, 0xC0 (address 0), the 4 segment bytes, stop; start,
0x88 | brightness (display on), stop. They go to the FIFO as 4 words of up to 3 bytes, 10
bits per byte from bit 0: the byte inverted (the program pulls DIO low for a 1 in it: a 0
on the wire), then "stop after this byte", then "the next byte is in this word":
    word 0: 0x40, stop                     word 2: digit 2, next; digit 3, stop
    word 1: 0xC0, next; digit 0, next; digit 1      word 3: control, stop
All 4 fit the TX FIFO at once, so `put` never waits for the wire unless a frame is still
going out on the same display (then for at most that frame's rest).

The data command's setting stays in the chip until the next one (the datasheet: commands
sent before a stop "remain effective"), so once the chip has taken a whole frame the next
frames send it last, for the frame after them: 0xC0 and the digits, the control, then
0x40. The digits are then on the display 0.11 ms sooner (the data command's transaction
does not go first). The first frame, and the first after `invalidate()` or a missing
acknowledgement, send it first, as above. A module whose power dropped between two frames
without missing a byte takes the digits of the next one in its power-on mode; the 0x40
after them sets the mode for the frame after that (at most half a second later while a
clock runs).

Why a PIO and not SoftI2C (measured on the emulated chip, `make chip-bench`):
`machine.SoftI2C` bit-bangs the same start/stop/ACK protocol in C (bytes bit-reversed, the
TM1637 is LSB first), and the CPU is busy for the whole frame: 1.07 ms per changed display
(0.8 ms of it on the wire at 100 kHz), one display after the other, so a lever press that
changes both would spend 2.1 ms before the second one's last byte, and every mm:ss change
would cost a ms of CPU. Here the CPU spends 0.03 ms handing 4 words to a FIFO and goes on
(to the other display, whose machine runs at the same time, or to sleep); the wire takes
0.7 ms for a frame either way. `tm1637_pio.BUS_HZ` = 100 kHz: a 5 us half period, within
the chip's limit (the datasheet asks for less than 250 kHz when reading keys; writes allow
more) with room for the modules' pull-up resistors and line capacitors.

`show(segs)` writes only when the bytes or the brightness differ from what the chip holds,
so the loop may call it at every render. Unacknowledged bytes (no chip, a bad wire, a line
held low) are counted in `nacks` (the program reports them per transaction; `show` reads
them first) and the frame is written again at that `show`, never raised: the clock keeps
running with a stale display rather than stopping, and a display whose connector came
back shows the right digits at the next render. Nothing allocates after the constructor.
"""

from array import array

from micropython import const

_CMD_DATA = const(0x40)  # write display data, auto-increment address
_CMD_ADDR = const(0xC0)  # address of digit 0
_CMD_CTRL = const(0x80)  # display control; | _CTRL_ON | brightness
_CTRL_ON = const(0x08)
BRIGHTNESS_MAX = const(7)
_STOP = const(0x100)  # in a byte's 10 bits: a stop after it
_NEXT = const(0x200)  # in a byte's 10 bits: the next byte is in the same word
_WORD_DATA = const(0x1BF)  # ~0x40 & 0xFF | _STOP: the data command, alone
_ADDR_FIELD = const(0x23F)  # ~0xC0 & 0xFF | _NEXT: the address command, digit 0 next
_ONES = b"\0\1\1\2\1\2\2\3\1\2\2\3\2\3\3\4\1\2\2\3\2\3\3\4\2\3\3\4\3\4\4\5"  # bits set in 0..31


class TM1637:
    digits = 4  # the displays' shared attributes: 4 digits, the colon after digit 1
    points = 0b10

    def __init__(self, sm, brightness=BRIGHTNESS_MAX):
        self._sm = sm
        self._shown = bytearray(4)  # segment bytes the chip holds
        self._words = array("I", (_WORD_DATA, 0, 0, 0))  # the frame, as tm1637_pio reads it
        self._valid = False  # False until the first frame: the chip's content is unknown
        self._brightness = 0  # 0..7, the level the chip holds or is about to get
        self._on = True  # display on/off
        self._sent_ctrl = -1  # display control byte the chip holds, -1 = unknown
        self.frames = 0  # frames written, for tests and the bench
        self.nacks = 0  # bytes the chip did not acknowledge (no chip, a bad wire)
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

    def show(self, segs, icons=0):
        """Show 4 segment bytes (bytes/bytearray, see segments.py). Writes a frame only when
        they or the brightness / on state changed; returns True when it wrote. `icons` (the
        LCD's battery) are ignored: the module has none."""
        ctrl = _CMD_CTRL | self._brightness
        if self._on:
            ctrl |= _CTRL_ON
        sm = self._sm
        if sm.rx_fifo():  # unacknowledged bytes since the last look, a word per transaction
            while sm.rx_fifo():
                self.nacks += _ONES[sm.get() & 31]
            self._valid = False  # the chip missed part of a frame: write it again
        shown = self._shown
        if self._valid and ctrl == self._sent_ctrl and shown == segs:
            return False
        known = self._valid  # the chip took the last frame whole: its data command holds
        self._valid = False  # unknown until the words are handed over (whatever cuts it)
        shown[0] = segs[0]  # (no slice: in native code a slice is made on the heap)
        shown[1] = segs[1]
        shown[2] = segs[2]
        shown[3] = segs[3]
        w = self._words
        k = 0 if known else 1  # the address transaction's first word
        w[k] = _ADDR_FIELD | ((segs[0] ^ 0xFF) | _NEXT) << 10 | (segs[1] ^ 0xFF) << 20
        w[k + 1] = (segs[2] ^ 0xFF) | _NEXT | ((segs[3] ^ 0xFF) | _STOP) << 10
        w[k + 2] = (ctrl ^ 0xFF) | _STOP
        w[k - 1] = _WORD_DATA  # (k - 1: word 3 when known) the data command, alone
        sm.put(w)
        self._valid = True
        self._sent_ctrl = ctrl
        self.frames += 1
        return True
