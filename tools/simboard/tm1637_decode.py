"""What a TM1637 would show, worked out from the CLK/DIO traffic on the fake pins.

`Chip` is a model of the TM1637's write path (datasheet): start = DIO falling while CLK is
high, stop = DIO rising while CLK is high, data bits LSB first sampled on CLK rising edges,
the chip pulls DIO low from the 8th falling edge to the 9th (ACK). Commands: 0x40..0x7F data
setting (bit 2 = fixed address; key reading is not modelled and counts as an error),
0x80..0xBF display control (bit 3 = on, bits 0-2 = brightness), 0xC0..0xC5 address followed
by data bytes (auto-increment unless fixed). Anything else counts in `errors`.

Two ways to use it:
- `decode(clk_pin, dio_pin)` replays the pins' recorded traces (fake machine, any time
  after the traffic) and returns the Chip; nobody drove the ACK then, so the driver counted
  NACKs.
- `attach(clk_pin, dio_pin, clock=None, supply=None)` puts a live Chip on the pins: it
  follows every level change and pulls DIO low for each ACK like the real chip, so the
  driver sees ACKs. With a `clock` (a callable giving the time, e.g. virtual us),
  `timeline` records (time, lit segment bytes) each time what the display lights changes:
  when each change was written. With a `supply` pin (the LED build's display supply
  switch, board.py: low = powered) the module loses power while that pin is high: it goes
  dark and forgets its digits, acknowledges nothing, and its pull-ups, now to a dead rail,
  hold both lines low; a line the board still pulls up at that moment feeds the unpowered
  module through its input and counts in `backfed`. Powered again it starts dark. The
  datasheet does not say which data mode the chip powers up in, so digits written before
  any data command since power-on count as an error.

`text(segs)` turns segment bytes back into characters (the inverse of segments.py, with the
canonical character for shared glyphs: 0 not O, 5 not S, I for the left bar, the lower-case
letter for b d n q r t y; "?" for a pattern that is no character).
"""

import segments

_CLK = 0
_DIO = 1


def _inverse():
    inv = {}
    # Digits first, then the letter each glyph was drawn for, then anything else.
    order = "0123456789 -_=AbCcdEFGHhIiJLnoPqrStUuy" + "".join(chr(c) for c in range(128))
    for ch in order:
        g = segments.glyph(ord(ch))
        if g >= 0 and g not in inv:
            inv[g] = ch
    return inv


_INVERSE = _inverse()


def text(segs):
    """(4-character str, colon on) for 4 segment bytes."""
    chars = "".join(_INVERSE.get(b & 0x7F, "?") for b in segs[:4])
    return chars, bool(segs[segments.COLON_DIGIT] & segments.COLON)


class Chip:
    def __init__(self, clock=None):
        self.clock = clock
        self.timeline = []  # (clock(), shown()) after each stop that changed what is lit
        self.frames = 0  # address+data transactions completed
        self.transactions = 0  # start..stop pairs
        self.errors = 0  # protocol violations seen
        self.powered = True
        self.backfed = 0  # supply switched off or on while the board pulled a line up
        self.power_cycles = 0
        self.history = []  # (segments bytes, on, brightness) after each stop that changed it
        self.drive_dio = None  # callable(level or None) when attached live
        self._clk = None
        self._dio = None
        self._powered_up()

    def _powered_up(self):
        """The chip as its supply comes: dark, empty, no transaction, no data mode set."""
        self.ram = bytearray(6)  # display registers, grids 0..5 (4-digit modules use 0..3)
        self.on = False  # display control: lit (the chip powers up dark)
        self.brightness = 0  # 0..7
        self._in = False  # inside start..stop
        self._bits = 0
        self._byte = 0
        self._ack = 0  # 0 = data bits, 1 = byte done, 2 = pulling DIO low for the ACK
        self._count = 0  # bytes in this transaction
        self._addr = -1  # address for data bytes, -1 = no address command yet
        self._auto = True
        self._mode_set = False  # a data command since power-on (its mode is not documented)
        self._data_frame = False

    # -- what the display shows

    def segments(self):
        """The 4 digit registers as bytes (what is lit when `on`)."""
        return bytes(self.ram[:4])

    def shown(self):
        """The 4 segment bytes actually lit: the registers, or blanks when the display is off."""
        return self.segments() if self.on else bytes(4)

    def text(self):
        return text(self.shown())

    # -- line events

    def edge(self, line, level):
        """A level change on CLK (line 0) or DIO (line 1)."""
        if not self.powered:
            self._clk = self._dio = None  # nothing seen: a powered chip starts afresh
            return
        if line == _CLK:
            prev, self._clk = self._clk, level
            if prev is None or prev == level:
                return
            if level:
                self._clk_rise()
            else:
                self._clk_fall()
            return
        prev, self._dio = self._dio, level
        if prev is None or prev == level or not self._clk:
            return
        if level:
            self._stop()
        else:
            self._start()

    def power(self, on, pulled_up=False):
        """The module's supply switched on or off; `pulled_up`: the board pulled a line up
        as it did."""
        if pulled_up:
            self.backfed += 1
        on = bool(on)
        if on == self.powered:
            return
        self.powered = on
        if on:
            return
        self.power_cycles += 1
        self._release_ack()
        self._powered_up()  # what the next power-on finds
        self.history.append((self.segments(), self.on, self.brightness))
        if self.clock is not None:
            self.timeline.append((self.clock(), self.shown()))

    def _release_ack(self):
        if self._ack == 2 and self.drive_dio is not None:
            self.drive_dio(None)

    def _start(self):
        if self._in:
            self.errors += 1  # repeated start without stop
        self._release_ack()
        self._in = True
        self._bits = 0
        self._byte = 0
        self._ack = 0
        self._count = 0
        self._addr = -1
        self._data_frame = False

    def _stop(self):
        if not self._in:
            return
        self._in = False
        self.transactions += 1
        self._release_ack()
        # The stop condition itself raises CLK once (one sampled "bit"); more is a torn byte.
        if self._bits > 1 or self._ack:
            self.errors += 1
        if self._data_frame:
            self.frames += 1
        state = (self.segments(), self.on, self.brightness)
        if not self.history or self.history[-1] != state:
            self.history.append(state)
        if self.clock is not None:
            lit = self.shown()
            if not self.timeline or self.timeline[-1][1] != lit:
                self.timeline.append((self.clock(), lit))

    def _clk_rise(self):
        if not self._in or self._ack:
            return  # idle, or the ACK clock
        self._byte |= (self._dio or 0) << self._bits
        self._bits += 1
        if self._bits == 8:
            self._byte_done(self._byte)
            self._bits = 0
            self._byte = 0
            self._ack = 1

    def _clk_fall(self):
        if not self._in:
            return
        if self._ack == 1:
            self._ack = 2
            if self.drive_dio is not None:
                self.drive_dio(0)
        elif self._ack == 2:
            self._ack = 0
            if self.drive_dio is not None:
                self.drive_dio(None)

    def _byte_done(self, b):
        self._count += 1
        if self._count == 1:
            kind = b & 0xC0
            if kind == 0x40:
                if b & 0x03:
                    self.errors += 1  # key reading / undefined: not modelled
                self._auto = not b & 0x04
                self._mode_set = True
            elif kind == 0x80:
                self.on = bool(b & 0x08)
                self.brightness = b & 0x07
            elif kind == 0xC0:
                if not self._mode_set:
                    self.errors += 1  # digits before any data command since power-on
                self._addr = b & 0x0F
                self._data_frame = True
            else:
                self.errors += 1
            return
        if self._addr < 0:
            self.errors += 1  # data after a command that takes none
            return
        if self._addr < len(self.ram):
            self.ram[self._addr] = b
        else:
            self.errors += 1
        if self._auto:
            self._addr += 1


def decode(clk_pin, dio_pin):
    """Replay the recorded traces of two fake-machine pins through a fresh Chip."""
    events = [(seq, _CLK, level) for seq, _t, level in clk_pin.trace]
    events += [(seq, _DIO, level) for seq, _t, level in dio_pin.trace]
    events.sort()
    chip = Chip()
    for _seq, line, level in events:
        chip.edge(line, level)
    return chip


def attach(clk_pin, dio_pin, clock=None, supply=None):
    """A live Chip on two fake-machine pins; it drives the ACK on DIO (and, unpowered by a
    high `supply` pin, holds both lines low)."""
    chip = Chip(clock)
    chip.edge(_CLK, clk_pin.value())
    chip.edge(_DIO, dio_pin.value())
    chip.drive_dio = lambda level: dio_pin.drive(level, source="tm1637")
    clk_pin.watch(lambda _gpio, level: chip.edge(_CLK, level))
    dio_pin.watch(lambda _gpio, level: chip.edge(_DIO, level))
    if supply is not None:

        def switched(_gpio, level):
            pulled = any(p.pull() == p.PULL_UP for p in (clk_pin, dio_pin))
            on = not level
            chip.power(on, pulled)
            for p in (clk_pin, dio_pin):
                p.drive(None if on else 0, source="tm1637 unpowered")
            if on:
                chip.edge(_CLK, clk_pin.value())
                chip.edge(_DIO, dio_pin.value())

        supply.watch(switched)
    return chip
