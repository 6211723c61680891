"""Seven-segment encoding for the displays: the 4-digit TM1637 module with a centre colon
(the LED build) and the 6-digit LCD glass with three decimal points (the LCD build).

Pure module: text in, segment bytes out; no pins, no time. The drivers (tm1637.py,
ht1621.py) only copy the bytes to the chip (the LCD's driver maps the bits to its RAM).

Segment byte layout (TM1637 convention): bit 0 = a (top), 1 = b (top right), 2 = c (bottom
right), 3 = d (bottom), 4 = e (bottom left), 5 = f (top left), 6 = g (middle), bit 7 = the
"point" of that digit. On the common 4-digit colon modules only digit 1's bit 7 is wired: it
is the colon between digits 1 and 2. Glyphs never use bit 7; the colon is a separate flag.
For any width (the drivers' display interface): a `points` mask, bit i = bit 7 of
digit i (0 = leftmost), the separator after digit i where the display has one (the TM1637
module: bit 1, the colon; the LCD glass: bits 2, 3 and 4, the dots after those digits); and
an `icons` mask of ICON_* (the LCD glass's battery symbol, bars cumulative: 1 bar = ICON_BAT1,
2 bars = ICON_BAT1 | ICON_BAT2, 3 bars = all three), handed to the driver beside the bytes.

Character set (upper and lower case are both accepted; where a case has no glyph of its own
the other case's glyph is used):

    digits   0 1 2 3 4 5 6 7 8 9
    letters  A b C c d E F G H h I i J L l n O o P q r S t U u y
             (B D N Q R T Y draw as b d n q r t y; a e f g j p s as A E F G J P S;
              O is the same glyph as 0, S as 5, I and l are the left bar)
    symbols  ' ' (blank)  '-'  '_'  '='

Not representable (shown blank and counted by `encode_into`): K M V W X Z in either case,
every other punctuation mark, the decimal point, and any non-ASCII character.
"""

from micropython import const

COLON = const(0x80)  # bit 7 of digit COLON_DIGIT lights the colon
COLON_DIGIT = const(1)
POINT = const(0x80)  # bit 7 of a digit: its separator (the colon, a decimal point)
# The LCD glass's battery symbol: the bars lit (display.show(segs, icons))
ICON_BAT1 = const(1)
ICON_BAT2 = const(2)
ICON_BAT3 = const(4)
_NONE = const(0x80)  # table marker: no glyph (a real glyph never has bit 7 set)

# (character, glyph) pairs, read once at import into a 128-entry lookup table.
_PAIRS = (
    " \x00-\x40_\x08=\x48"
    "0\x3f1\x062\x5b3\x4f4\x665\x6d6\x7d7\x078\x7f9\x6f"
    "A\x77a\x77b\x7cB\x7cC\x39c\x58d\x5eD\x5eE\x79e\x79F\x71f\x71G\x3dg\x3d"
    "H\x76h\x74I\x30i\x10J\x1ej\x1eL\x38l\x30n\x54N\x54O\x3fo\x5cP\x73p\x73"
    "q\x67Q\x67r\x50R\x50S\x6ds\x6dt\x78T\x78U\x3eu\x1cy\x6eY\x6e"
)


def _table():
    t = bytearray(128)
    for i in range(128):
        t[i] = _NONE
    for i in range(0, len(_PAIRS), 2):
        t[ord(_PAIRS[i])] = ord(_PAIRS[i + 1])
    return bytes(t)


_FONT = _table()


def _blanked():
    t = bytearray(256)  # every byte value: its glyph, 0 (blank) where there is none
    for i in range(128):
        if _FONT[i] != _NONE:
            t[i] = _FONT[i]
    return bytes(t)


_GLYPHS = _blanked()


def glyph(code):
    """Segment byte (0..0x7f) for the character code `code` (an int), or -1 if none."""
    if 0 <= code < 128:
        g = _FONT[code]
        if g != _NONE:
            return g
    return -1


def encode_into(out, text, colon=False, start=0):
    """Write the 4 segment bytes for text[start:start + 4] into `out` (a bytearray(4)).

    `text` is a str, bytes or bytearray (bytes are character codes). Text shorter than 4
    characters is padded with blanks on the right. `colon` lights the colon. Returns the
    number of characters in the window that have no glyph (they are shown blank), so 0 means
    the display shows exactly `text`. Allocates nothing (for str, ASCII only)."""
    return encode_points(out, text, 1 << COLON_DIGIT if colon else 0, -start)


def encode_ascii(out, text, colon):
    """The 4-digit displays' hot path: the 4 segment bytes of `text`, 4 ASCII codes in a
    bytes or bytearray (the UI's buffers), into `out`, the colon if `colon` is true (a
    4-digit `points` mask lights it: its only bit is the colon's). A code with no glyph is
    blank (use encode_into to count them). Allocates nothing."""
    g = _GLYPHS
    out[0] = g[text[0]]
    out[1] = g[text[1]] | COLON if colon else g[text[1]]
    out[2] = g[text[2]]
    out[3] = g[text[3]]


def encode_ascii6(out, text, points):
    """The 6-digit displays' hot path: the 6 segment bytes of `text`, 6 ASCII codes in a
    bytes or bytearray (the UI's buffers), into `out` (a bytearray(6)), bit 7 of digit i lit
    where `points` has bit i. A code with no glyph is blank (use encode_points to count
    them). Allocates nothing."""
    g = _GLYPHS
    out[0] = g[text[0]] | POINT if points & 1 else g[text[0]]
    out[1] = g[text[1]] | POINT if points & 2 else g[text[1]]
    out[2] = g[text[2]] | POINT if points & 4 else g[text[2]]
    out[3] = g[text[3]] | POINT if points & 8 else g[text[3]]
    out[4] = g[text[4]] | POINT if points & 16 else g[text[4]]
    out[5] = g[text[5]] | POINT if points & 32 else g[text[5]]


def encode_points(out, text, points=0, at=0):
    """Write the len(out) segment bytes for `text` drawn from digit `at` on into `out`: the
    digits before `at` and after the text are blank; bit 7 of digit i lit where `points` has
    bit i. `text` is a str, bytes or bytearray. Returns the number of characters shown that
    have no glyph (shown blank), 0 when the display shows exactly `text`. Allocates nothing
    (for str, ASCII only)."""
    bad = 0
    n = len(text)
    for i in range(len(out)):
        j = i - at
        g = 0
        if 0 <= j < n:
            c = text[j]
            if isinstance(c, str):
                c = ord(c)
            g = glyph(c)
            if g < 0:
                bad += 1
                g = 0
        out[i] = g | POINT if (points >> i) & 1 else g
    return bad


def encode(text, colon=False, start=0):
    """Convenience for tests and menus built at start-up: the 4 segment bytes as `bytes`."""
    out = bytearray(4)
    encode_into(out, text, colon, start)
    return bytes(out)
