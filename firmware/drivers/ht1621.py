"""HT1621 driver: puts 6 segment bytes, 3 points and a battery symbol on one PDC-6X1 LCD glass.

Owns the chip's command sequence, the glass's RAM map and the FIFO words that carry them
(ht1621_pio.py has their format and the wire's timing). The display contract it keeps is
the TM1637 driver's (tm1637.py), with `digits` = 6, `points` for the dots after digits 2,
3 and 4, and the battery's `icons`.

Both glasses share WR and DATA and have a CS each, so their transactions must never overlap:
one PIO state machine (PIO0's machine 0, running ht1621_pio.program) drives all four lines
and serialises them by construction, with no arbitration between machines and no two
machines writing the same pins; PIO0's machine 1 stays free. `pair(sm)` makes the two
displays on that machine (board.py builds it: the pins and the call are in `pair`'s
docstring). Each display's words carry its glass's CS.

The glass (PDC-6X1: six 7-segment digits, 4 COM lines, 1/3 bias). The digit at position i
(0 = leftmost) is SEG lines 10-2i and 11-2i, RAM addresses 10-2i and 11-2i, a nibble each
(bit k = COMk): address 10-2i holds COM0 = bit 7 (see below), COM1 = c, COM2 = b, COM3 = a;
address 11-2i holds COM0 = d, COM1 = e, COM2 = g, COM3 = f. Bit 7 of digits 3, 4 and 5 is
the decimal point LEFT of that digit (so segments.py's point after digit 2, 3, 4 goes to
digit 3, 4, 5); bit 7 of digits 2, 1 and 0 is the battery symbol's bar 1, 2 and 3
(ICON_BAT1, ICON_BAT2, ICON_BAT3). In the glass byte sent for a digit (most significant bit
first: the write mode takes D0 first, so the byte's bits 7..4 are address 10-2i's D0..D3
and bits 3..0 the next address's), the segments are bit 7 point/bar, 6 c, 5 b, 4 a, 3 d,
2 e, 1 g, 0 f: `_MAP` turns segments.py's bits into them.

The chip's setup (datasheet, command summary), sent before the first frame and again
after `invalidate()`: RC 256K (its own RC clock: the modules have no crystal), BIAS 1/3
with 4 COMs (the glass's drive), TIMER DIS, WDT DIS, IRQ DIS, TONE OFF (their outputs are
unused), then SYS EN and LCD ON (oscillator and bias generator on). The datasheet asks the
host to do this after power-up whatever the power-on reset left. Off (`set_on(False)`: the
idle clock's dormant spell) is LCD OFF and SYS DIS, the chip's power-down: its oscillator
and bias generator stop, its RAM stays; on again is SYS EN and LCD ON.

`show(segs, icons)` writes only the digits that differ from what the chip holds: one write
transaction (ID 101, the address of the changed digit furthest right, then the glass bytes
up to the one furthest left: the chip increments the address) of 9 + 8 k bits for k
digits, one FIFO word for up to 2 digits, two for more. Words per show: setup 2 (first
frame, after `invalidate()`), data 0..2, on/off 1 (first frame, or after `set_on` changed
it). The FIFO is joined (8 words): every show fits, so `put` returns without waiting for
the wire, except when both glasses' first frames (10 words) are handed over within a
quarter ms of each other: then the second waits for the machine to take a word (at most
0.3 ms), once.

Wire and CPU (ht1621_pio.py, 100 kHz WR clock; measured on the emulated chip,
host_tests/chip/test_chip_ht1621.py): a whole glass (6 digits) is 57 bits, 0.58 ms on the
wire, one digit 17 bits (0.17 ms), the setup 0.58 ms; both glasses one after the other, so
a change of both is on the glasses 1.2-1.4 ms after the first `show`. The CPU computes the
words and hands them over: a `show` that writes costs 0.26 ms whatever the wire's share, one
with nothing to write 0.06 ms (its input compared whole, as the last `show`'s).

The HT1621 on these modules is write-only (their RD pin is not brought out): nothing
acknowledges, a missing or broken glass cannot be seen, `nacks` stays 0, and nothing
here raises on a bad wire. A glass that lost power is set up again only by
`invalidate()`. The modules have no backlight control on the chip (the backlight LED is
left unpowered): `set_brightness` keeps the level for `brightness()` and changes nothing on
the glass. Nothing allocates after the constructor (the words are written with
struct.pack_into from 16-bit halves: a word's top bits would make a heap int).
"""

from array import array
from struct import pack_into

from micropython import const

DIGITS = const(6)
POINTS = const(0b11100)
ICON_BAT1 = const(1)  # segments.py's ICON_*: the battery's bars, bits cumulative
ICON_BAT2 = const(2)
ICON_BAT3 = const(4)
BRIGHTNESS_MAX = const(7)

_ID_COMMAND = const(0b100)
_ID_WRITE = const(0b101)
_SYS_DIS = const(0x00)  # 8-bit command codes; the 9th bit sent is a don't-care 0
_SYS_EN = const(0x01)
_LCD_OFF = const(0x02)
_LCD_ON = const(0x03)
_TIMER_DIS = const(0x04)
_WDT_DIS = const(0x05)
_TONE_OFF = const(0x08)
_RC_256K = const(0x18)
_BIAS_THIRD_4COM = const(0x29)
_IRQ_DIS = const(0x80)
_HALVES = "<HH"  # a word's low half, then its high half
_ADDR_DIGIT0 = const(10)  # RAM address of digit 0's first nibble; digit i: 10 - 2i

# segments.py bits (0 a, 1 b, 2 c, 3 d, 4 e, 5 f, 6 g) -> the glass byte's; ICON_BATn is
# bit 7 of digit 3 - n (the shifts in `show`).
_TO_GLASS = (4, 5, 6, 3, 2, 0, 1)


def _glass_map():
    t = bytearray(256)  # by the whole byte: bit 7 (a point) maps to nothing
    for s in range(256):
        g = 0
        for bit in range(7):
            if s >> bit & 1:
                g |= 1 << _TO_GLASS[bit]
        t[s] = g
    return bytes(t)


_MAP = _glass_map()


def _words(side, fields):
    """The FIFO words of one transaction (ht1621_pio.py): `fields` are (value, bits) pairs
    in wire order. For the constructor: it makes heap ints."""
    n = 0
    v = 0
    for value, bits in fields:
        v = v << bits | value
        n += bits
    v = (side << 6 | (n - 1)) << 57 | v << (57 - n)  # header, then the bits, in 64
    w = array("I", (0, 0) if n > 25 else (0,))
    for i in range(len(w)):
        hi = v >> (48 - 32 * i) & 0xFFFF
        lo = v >> (32 - 32 * i) & 0xFFFF
        pack_into(_HALVES, w, 4 * i, lo, hi)
    return w


def _commands(side, *codes):
    fields = [(_ID_COMMAND, 3)]
    for c in codes:
        fields.append((c << 1, 9))
    return _words(side, fields)


class HT1621:
    digits = DIGITS
    points = POINTS

    def __init__(self, sm, side, brightness=BRIGHTNESS_MAX):
        """A glass on the state machine `sm` (ht1621_pio.program), `side` 0 = the CS left
        line, 1 = the CS right line."""
        self._sm = sm
        self._head = side << 15 | _ID_WRITE << 6  # a write's first half-word, less n, addr
        self._setup = _commands(
            side, _RC_256K, _BIAS_THIRD_4COM, _TIMER_DIS, _WDT_DIS, _IRQ_DIS, _TONE_OFF
        )
        self._lcd_on = _commands(side, _SYS_EN, _LCD_ON)
        self._lcd_off = _commands(side, _LCD_OFF, _SYS_DIS)  # the chip's power-down
        self._one = array("I", (0,))  # a write of 1 or 2 digits
        self._two = array("I", (0, 0))  # of 3 to 6
        self._seen = bytearray(DIGITS)  # the last `show`'s segment bytes and icons
        self._icons = 0
        self._held = bytearray(DIGITS)  # the glass bytes the chip holds
        self._want = bytearray(DIGITS)
        self._valid = False  # False until the first frame: the chip is not set up
        self._on = True
        self._sent_on = -1  # the LCD ON/OFF the chip holds, -1 = unknown
        self._brightness = BRIGHTNESS_MAX
        self.frames = 0  # shows that wrote, for tests and the bench
        self.nacks = 0  # always 0: the chip acknowledges nothing
        self.set_brightness(brightness)

    def set_brightness(self, level):
        """Kept for `brightness()` (0..7, clamped); the glass has no brightness to set."""
        if level < 0:
            level = 0
        elif level > BRIGHTNESS_MAX:
            level = BRIGHTNESS_MAX
        self._brightness = level

    def brightness(self):
        return self._brightness

    def set_on(self, on):
        """Switch the glass on or off (SYS EN and LCD ON / LCD OFF and SYS DIS, the chip's
        power-down; it keeps its RAM); the next `show` sends it."""
        self._on = bool(on)

    def invalidate(self):
        """Forget what the chip holds, so the next `show` sets it up and rewrites every
        digit (after the module lost power)."""
        self._valid = False
        self._sent_on = -1

    def show(self, segs, icons=0):
        """Show 6 segment bytes (segments.py layout; bit 7 of digits 2, 3, 4 the point after
        them) and the battery `icons`. Writes only what changed; True when it wrote."""
        on = 1 if self._on else 0
        seen = self._seen
        if self._valid and on == self._sent_on and icons == self._icons and seen == segs:
            return False  # (the common case: one compare, no mapping)
        seen[:] = segs  # (the bytecode VM's slice of a bytearray is not on the heap)
        self._icons = icons
        want = self._want
        m = _MAP
        want[0] = m[segs[0]] | (icons << 5 & 0x80)  # ICON_BAT3
        want[1] = m[segs[1]] | (icons << 6 & 0x80)  # ICON_BAT2
        want[2] = m[segs[2]] | (icons << 7 & 0x80)  # ICON_BAT1
        want[3] = m[segs[3]] | (segs[2] & 0x80)
        want[4] = m[segs[4]] | (segs[3] & 0x80)
        want[5] = m[segs[5]] | (segs[4] & 0x80)
        held = self._held
        valid = self._valid
        lo = 0
        hi = DIGITS - 1
        if valid:
            while lo < DIGITS and want[lo] == held[lo]:
                lo += 1
            if lo < DIGITS:
                while want[hi] == held[hi]:
                    hi -= 1
        if lo == DIGITS and on == self._sent_on:
            return False
        sm = self._sm
        self._valid = False  # unknown until the words are handed over (whatever cuts it)
        if not valid:
            sm.put(self._setup)
        if lo < DIGITS:
            k = hi - lo + 1  # digits, written from `hi` (the lowest address) leftwards
            h0 = self._head | (8 * k + 8) << 9 | (_ADDR_DIGIT0 - 2 * hi)
            h1 = want[hi] << 8 | (want[hi - 1] if k > 1 else 0)
            if k > 2:
                w = self._two
                h2 = want[hi - 2] << 8 | (want[hi - 3] if k > 3 else 0)
                h3 = (want[hi - 4] << 8 if k > 4 else 0) | (want[hi - 5] if k > 5 else 0)
                pack_into(_HALVES, w, 4, h3, h2)
            else:
                w = self._one
            pack_into(_HALVES, w, 0, h1, h0)
            sm.put(w)
            held[:] = want
        if on != self._sent_on:
            sm.put(self._lcd_on if on else self._lcd_off)
            self._sent_on = on
        self._valid = True
        self.frames += 1
        return True


def pair(sm):
    """The LCD build's two glasses on one state machine: (left, right).

    board.py builds the machine on PIO0's machine 0, the four pins consecutive from CS left
    (GP2 CS left, GP3 WR, GP4 DATA, GP5 CS right):

        Pin = machine.Pin
        sm = rp2.StateMachine(0, ht1621_pio.program, freq=ht1621_pio.PIO_HZ,
                              set_base=Pin(2), sideset_base=Pin(3), out_base=Pin(4))
        sm.active(1)
        displays = ht1621.pair(sm)
    """
    return HT1621(sm, 0), HT1621(sm, 1)
