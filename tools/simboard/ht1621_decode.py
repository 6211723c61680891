"""What an HT1621 LCD glass (PDC-6X1 module) would show, worked out from the CS/WR/DATA
traffic on the fake pins, with the protocol checked.

`Chip` is a model of the HT1621's write path (datasheet, "Timing diagrams" and "Command
summary"): CS low opens a transaction, CS high ends it (and resets the serial interface);
while CS is low the chip takes DATA at each rising edge of WR. A transaction starts with a
3-bit mode ID: 100 command mode, then 9-bit commands (8-bit code, a don't-care bit), as
many as fit; 101 write mode, then a 6-bit address (A5 first) and 4-bit nibbles (D0 first)
written from that address up (auto-increment). 110 (read) has no line on these modules and
any other ID is no mode: both are errors, and so is a transaction cut inside its ID, its
address or a nibble or command, a write with no nibble, an address past the RAM's 32, and
every command the module's driver has no use for (the crystal or external clock, the tone,
the timer, watchdog and IRQ outputs switched on, test mode). The glass is lit when the
chip has SYS EN, LCD ON and BIAS 1/3 with 4 COMs (the glass's drive); any other bias is an
error.

With a `clock` (a callable giving the time in µs: the fake machine's virtual time, whole
µs), the timing is checked too, against the datasheet's limits at 3 V: WR low and high at
least 3.34 µs while CS is low (`MIN_WR_US`), DATA settled before WR rises and held after it
(a change in the same µs as a WR rise breaks the 120 ns setup or hold), CS low before the
first WR fall (and WR high when CS falls or rises). `timeline` then records (time, shown())
each time what the glass shows changes, at the CS rise that ends the transaction.

The glass's RAM map is the one ht1621.py documents (digit i at addresses 10-2i, 11-2i).

Two ways to use it: `attach_pair(cs_left, wr, data, cs_right, clock)` puts two live Chips on
the fake pins (they share WR and DATA and watch a CS each), and `decode_pair(...)` replays
the pins' recorded traces through two fresh ones. `text(segs, icons)` turns what a glass
shows back into (6 characters, points mask, icons mask).
"""

from simboard.tm1637_decode import text as _tm_text

MIN_WR_US = 3.34  # WR low / high in write mode at 3 V
DIGITS = 6
POINT_DIGITS = (2, 3, 4)  # segments.py's point after these digits: the glass's 3, 4, 5
BAT_DIGIT = {0: 4, 1: 2, 2: 1}  # digit whose bit 7 is a battery bar -> its ICON_* bit
_CS, _WR, _DATA = 0, 1, 2

_NAMES = {
    0x00: "SYS DIS",
    0x01: "SYS EN",
    0x02: "LCD OFF",
    0x03: "LCD ON",
    0x04: "TIMER DIS",
    0x05: "WDT DIS",
    0x06: "TIMER EN",
    0x07: "WDT EN",
    0x08: "TONE OFF",
    0x09: "TONE ON",
    0xE0: "TEST",
    0xE3: "NORMAL",
}


def glass(ram):
    """(6 segment bytes in segments.py's layout with the points in bit 7 of digits 2, 3, 4,
    icons mask) for the glass RAM's nibbles 0..11 (bit k = COMk; ht1621.py's map)."""
    out = bytearray(DIGITS)
    icons = 0
    for i in range(DIGITS):
        e = ram[10 - 2 * i]  # COM0 point/bar, COM1 c, COM2 b, COM3 a
        o = ram[11 - 2 * i]  # COM0 d, COM1 e, COM2 g, COM3 f
        out[i] = (
            (e >> 3 & 1)
            | (e >> 2 & 1) << 1
            | (e >> 1 & 1) << 2
            | (o & 1) << 3
            | (o >> 1 & 1) << 4
            | (o >> 3 & 1) << 5
            | (o >> 2 & 1) << 6
        )
    for i in range(DIGITS):
        if ram[10 - 2 * i] & 1:
            if i in BAT_DIGIT:
                icons |= BAT_DIGIT[i]
            else:
                out[i - 1] |= 0x80  # the point left of digit i: after digit i - 1
    return bytes(out), icons


def _char(seg):
    """The character a 7-segment byte draws (tm1637_decode's inverse of segments.py)."""
    return _tm_text(bytes((seg & 0x7F, 0, 0, 0)))[0][0]


def text(segs, icons=0):
    """(6-character str, points mask, icons mask) for 6 segment bytes (bit 7 of digits 2, 3,
    4: the point after them; a mask bit i per point, as the display contract's `points`)."""
    chars = "".join(_char(b) for b in segs[:DIGITS])
    points = 0
    for i in POINT_DIGITS:
        if segs[i] & 0x80:
            points |= 1 << i
    return chars, points, icons


class Chip:
    def __init__(self, name="", clock=None):
        self.name = name
        self.clock = clock
        self.ram = bytearray(32)  # 32 nibbles (bit k = COMk), as written
        self.sys_en = False
        self.lcd_on = False
        self.bias = None  # (third, coms) once a BIAS command came
        self.errors = []  # protocol and timing violations, as text
        self.transactions = 0  # CS low..high with at least one bit
        self.frames = 0  # write transactions
        self.writes = []  # (first address, nibbles) per write transaction
        self.commands = []  # every command's name, in order
        self.timeline = []  # (clock(), shown()) after each transaction that changed it
        self._cs = 1
        self._wr = 1
        self._data = 1
        self._in = False
        self._bits = 0  # bits taken in this transaction
        self._field = 0  # the bits of the field being read
        self._mode = None  # "command" | "write" | "bad", once the ID is in
        self._addr = 0
        self._nibbles = 0
        self._first_addr = -1
        self._t_wr = None  # when WR last changed
        self._t_data = None  # when DATA last changed
        self._t_rise = None  # the last WR rise inside this transaction
        self._falls = 0  # WR falls in this transaction

    # -- what the glass shows

    def lit(self):
        return self.sys_en and self.lcd_on and self.bias == (True, 4)

    def glass(self):
        """The 6 segment bytes and the icons mask the RAM holds, lit or not (`glass`)."""
        return glass(self.ram)

    def shown(self):
        """(6 segment bytes, icons) the glass shows: blanks while it is not lit."""
        return self.glass() if self.lit() else (bytes(DIGITS), 0)

    def text(self):
        return text(*self.shown())

    # -- line events

    def _now(self):
        return self.clock() if self.clock is not None else None

    def error(self, message):
        t = self._now()
        self.errors.append("%s%s: %s" % (self.name, "" if t is None else " at %d us" % t, message))

    def edge(self, line, level):
        t = self._now()
        if line == _CS:
            prev, self._cs = self._cs, level
            if prev == level:
                return
            if t is not None and not self._wr and (self._in or not level):
                self.error("CS %s while WR is low" % ("rose" if level else "fell"))
            if level:
                self._end()
            else:
                self._begin()
            return
        if line == _DATA:
            prev, self._data = self._data, level
            if prev == level:
                return
            if t is not None and self._in and self._t_rise == t:
                self.error("DATA changed with WR's rise (hold)")
            self._t_data = t
            return
        prev, self._wr = self._wr, level
        if prev == level:
            return
        if t is not None and self._in and self._falls and t - self._t_wr < MIN_WR_US:
            self.error("WR %s for only %s us" % ("low" if level else "high", t - self._t_wr))
        self._t_wr = t
        if not self._in:
            return
        if level:
            if t is not None and self._t_data == t:
                self.error("DATA changed with WR's rise (setup)")
            self._t_rise = t
            self._bit(self._data)
        else:
            self._falls += 1

    def _begin(self):
        self._in = True
        self._bits = 0
        self._field = 0
        self._mode = None
        self._nibbles = 0
        self._first_addr = -1
        self._t_rise = None
        self._falls = 0

    def _bit(self, b):
        self._bits += 1
        self._field = self._field << 1 | b
        n = self._bits
        if n <= 3:
            if n == 3:
                if self._field == 0b100:
                    self._mode = "command"
                elif self._field == 0b101:
                    self._mode = "write"
                else:
                    self._mode = "bad"
                    self.error("mode ID %s" % format(self._field, "03b"))
                self._field = 0
            return
        if self._mode == "command":
            if (n - 3) % 9 == 0:
                self._command(self._field >> 1)
                self._field = 0
        elif self._mode == "write":
            if n == 9:
                self._addr = self._field
                self._first_addr = self._field
                self._field = 0
            elif n > 9 and (n - 9) % 4 == 0:
                f = self._field  # D0 came first: it is the field's bit 3
                nib = (f >> 3 & 1) | (f >> 2 & 1) << 1 | (f >> 1 & 1) << 2 | (f & 1) << 3
                self._field = 0
                if self._addr > 31:
                    self.error("address %d past the RAM" % self._addr)
                else:
                    self.ram[self._addr] = nib
                self._addr += 1
                self._nibbles += 1

    def _command(self, c):
        name = _NAMES.get(c)
        if c == 0x01:
            self.sys_en = True
        elif c == 0x00:
            self.sys_en = False
            self.lcd_on = False
        elif c == 0x03:
            self.lcd_on = True
        elif c == 0x02:
            self.lcd_on = False
        elif c in (0x04, 0x05, 0x08, 0xE3):
            pass
        elif c & 0xFC == 0x18:
            name = "RC 256K"
        elif c & 0xF0 == 0x20:
            third, coms = bool(c & 1), (c >> 2 & 3) + 2
            name = "BIAS 1/%d %d COM" % (3 if third else 2, coms)
            self.bias = (third, coms)
            if self.bias != (True, 4) or c & 0x02 or coms > 4:
                self.error("%s (0x%02x): the glass is 1/3 bias, 4 COM" % (name, c))
        elif c & 0xE8 == 0x80:
            name = "IRQ DIS"
        else:
            name = name or "0x%02x" % c
            self.error("command %s is not for this module" % name)
        self.commands.append(name)

    def _end(self):
        if not self._in:
            return
        self._in = False
        n = self._bits
        if n == 0:
            return  # CS pulsed with no bit: resets the interface, nothing else
        self.transactions += 1
        if n < 3:
            self.error("transaction ended inside its mode ID")
        elif self._mode == "command" and (n - 3) % 9:
            self.error("transaction ended inside a command (%d bits)" % n)
        elif self._mode == "write":
            if n < 9:
                self.error("write ended inside its address")
            elif (n - 9) % 4:
                self.error("write ended inside a nibble (%d bits)" % n)
            elif self._nibbles == 0:
                self.error("write with no data")
            self.frames += 1
            self.writes.append((self._first_addr, self._nibbles))
        if self.clock is not None:
            now = self.shown()
            if not self.timeline or self.timeline[-1][1] != now:
                self.timeline.append((self.clock(), now))


def _feed(chips, line, level):
    for chip in chips:
        chip.edge(line, level)


def attach_pair(cs_left, wr, data, cs_right, clock=None):
    """Two live Chips (left, right) on four fake-machine pins: WR and DATA shared."""
    chips = (Chip("left", clock), Chip("right", clock))
    for chip, cs in zip(chips, (cs_left, cs_right), strict=True):
        chip._cs = cs.value()
        chip._wr = wr.value()
        chip._data = data.value()
        cs.watch(lambda _gpio, level, chip=chip: chip.edge(_CS, level))
    wr.watch(lambda _gpio, level: _feed(chips, _WR, level))
    data.watch(lambda _gpio, level: _feed(chips, _DATA, level))
    return chips


def decode_pair(cs_left, wr, data, cs_right):
    """Replay four fake-machine pins' recorded traces through two fresh Chips (no timing)."""
    chips = (Chip("left"), Chip("right"))
    events = [(seq, (chips[0],), _CS, level) for seq, _t, level in cs_left.trace]
    events += [(seq, (chips[1],), _CS, level) for seq, _t, level in cs_right.trace]
    events += [(seq, chips, _WR, level) for seq, _t, level in wr.trace]
    events += [(seq, chips, _DATA, level) for seq, _t, level in data.trace]
    events.sort(key=lambda e: e[0])
    for _seq, targets, line, level in events:
        _feed(targets, line, level)
    return chips
