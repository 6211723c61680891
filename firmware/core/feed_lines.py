"""The live feed's bytes: a line's prefix, sequence number, fields, pad and end, and its write.

Owns the byte layer of the feed's line format (docs/live.md has the format, its table and
its reasons): `#CLK1 <seq> <kind> <fields...> *` and CR LF, the sequence number (0 to
SEQ_SPAN - 1, one per line made), integers written as decimal digits by hand, the pad of
zeros that makes a line a whole number of `block` bytes, the CR LF that begins a line after
a cut one, and the write through the port with its counts (`sent`, `dropped`). What a line
says (its kind and fields) and when it is made are feed.py's.

These are functions of the feed (`f`, a feed.Feed) whose line state they keep, not methods
of a base class (docs/live.md, "Inside the feed", says why). `init(f, block, port)` gives
`f` that state: `buf` (the line being made: CR LF, the prefix, then the line, preallocated
with room for LINE_MAX bytes and the pad), `_tbuf` (the same for state lines, which feed.py
keeps and rewrites), `_v` (the integer fields of the line being made: `fields`), `seq`,
`block`, `port`, `sent`, `dropped`, and whether the last line went out cut (`_cut`) or not
at all (`_stuck`).

Allocation: `init` allocates the buffers; nothing else here allocates. Pure: no clock, no
I/O but `port.send(buf, n)` (usbguard.py: writes what fits without waiting, returns how
many bytes went out).
"""

from micropython import const

VERSION = const(1)
PREFIX = b"#CLK1 "
LINE_MAX = const(256)  # bytes in the longest line (a start line with 4 periods a side)
SEQ_SPAN = const(100_000)  # the sequence number counts 0..SEQ_SPAN - 1, then round again
_BODY = const(8)  # buf: CR LF, the prefix, then the line's sequence number from here
_T_MAX = const(160)  # bytes in the longest state line
# the pad's digits (`end` copies them all; block + 1 at most are kept): block <= 64
_ZEROS = b"00000000000000000000000000000000000000000000000000000000000000000"
_ZN = const(65)  # len(_ZEROS)
# _v: a value at or below _KIND is the kind letter _KIND - value (a field is far above: no
# time or count reaches -12 days)
_KIND = const(-0x3FFFFF00)
_SPACE = const(32)
_STAR = const(42)
_MINUS = const(45)
_C0 = const(48)
_CR = const(13)
_LF = const(10)


def init(f, block, port):
    """The line state of feed `f`: every line a multiple of `block` bytes (CR LF
    included), written through `port` unless `step` is given another."""
    f.block = block
    f.port = port
    buf = bytearray(2 + LINE_MAX + _ZN)
    buf[0] = _CR
    buf[1] = _LF
    buf[2:_BODY] = PREFIX
    f.buf = buf  # a line after a cut one is buf[0:n], else buf[2:n] (`_line`)
    f._line = memoryview(buf)[2:]
    tbuf = bytearray(buf[: 2 + _T_MAX + _ZN])  # the state lines': one kept
    f._tbuf = tbuf
    f._tline = memoryview(tbuf)[2:]
    f._v = [0] * 16  # the fields of the line being made (`fields`)
    f.seq = 0  # the next line's sequence number
    f.sent = 0  # lines written whole
    f.dropped = 0  # lines cut short or not written (port full)
    f._cut = False  # the last line went out cut: the next begins with CR LF
    f._stuck = False  # the port took no byte of the last line


def head(f, kind):
    """Start a line (after the prefix): the sequence number, the kind; returns the index
    after the kind's space."""
    j = put(f, _BODY, f.seq)
    f.seq = (f.seq + 1) % SEQ_SPAN
    buf = f.buf
    buf[j] = kind
    buf[j + 1] = _SPACE
    return j + 2


def control(f, j, c):
    """A time control (timecontrol.TimeControl `c`) at j: its periods as
    time_ms,moves,bonus,bonus_ms joined by '/', then +count,ms in overtime modes (the
    overtime stage is not a period of its own then); returns the index after its space."""
    buf = f.buf
    n = len(c.periods) - (1 if c.ot_count else 0)
    for i in range(n):
        if i:
            buf[j - 1] = 47  # "/" instead of the space
        p = c.periods[i]
        j = put(f, j, p[0])
        buf[j - 1] = 44  # ","
        j = put(f, j, p[1])
        buf[j - 1] = 44
        j = put(f, j, p[2])
        buf[j - 1] = 44
        j = put(f, j, p[3])
    if c.ot_count:
        buf[j - 1] = 43  # "+"
        j = put(f, j, c.ot_count)
        buf[j - 1] = 44
        j = put(f, j, c.ot_ms)
    return j


def fields(f, kind, n, buf=None):
    """A whole line of `kind` whose fields are _v[2..n+1] (ints), in `buf` (default: buf);
    returns its end. The sequence number goes in _v[0], the kind in _v[1] (as _KIND -
    kind: one loop)."""
    v = f._v
    v[0] = f.seq
    v[1] = _KIND - kind
    f.seq = (f.seq + 1) % SEQ_SPAN
    if buf is None:
        buf = f.buf
    j = _BODY
    for i in range(n + 2):
        x = v[i]
        if x < 0:
            if x <= _KIND:
                buf[j] = _KIND - x
                buf[j + 1] = _SPACE
                j += 2
                continue
            buf[j] = _MINUS
            j += 1
            x = -x
        if x < 10:
            buf[j] = _C0 + x
            buf[j + 1] = _SPACE
            j += 2
        else:
            if x < 100:
                e = j + 2
            elif x < 10_000:
                e = j + 3 if x < 1_000 else j + 4
            elif x < 1_000_000:
                e = j + 5 if x < 100_000 else j + 6
            elif x < 100_000_000:
                e = j + 7 if x < 10_000_000 else j + 8
            else:
                e = j + 9 if x < 1_000_000_000 else j + 10
            buf[e] = _SPACE
            k = e
            while k > j:  # the digits from the last: one divmod each
                k -= 1
                buf[k] = _C0 + x % 10
                x //= 10
            j = e + 1
    return end(f, j, buf)


def put(f, j, v):
    """Write v in decimal at j in buf, then a space; returns the index after the space."""
    buf = f.buf
    if v < 0:
        buf[j] = _MINUS
        j += 1
        v = -v
    e = j + 1  # after the last digit
    d = 10
    while v >= d:
        d *= 10
        e += 1
    k = e
    while k > j:  # the digits from the last: one divmod each
        k -= 1
        buf[k] = _C0 + v % 10
        v //= 10
    buf[e] = _SPACE
    return e + 1


def end(f, j, buf=None):
    """The pad (zeros up to a whole number of blocks), `*`, CR LF, in `buf` (default: buf):
    returns the end."""
    if buf is None:
        buf = f.buf
    b = f.block
    if b > 1:
        p = -(j + 3 - (0 if f._cut else 2)) % b
        if p:
            if p == 1:
                p += b
            buf[j : j + _ZN] = _ZEROS  # more zeros than wanted: the rest is
            j += p - 1  # overwritten below or after the line's end
            buf[j] = _SPACE
            j += 1
    buf[j] = _STAR
    buf[j + 1] = _CR
    buf[j + 2] = _LF
    return j + 3


def send(f, port, n, state=False):
    """Write the line that ends at n in buf (`state`: in _tbuf), from its CR LF after a cut
    line, else from its prefix; True when all went out."""
    if f._cut:
        w = port.send(f._tbuf if state else f.buf, n)
    else:
        n -= 2
        w = port.send(f._tline if state else f._line, n)
    f._stuck = w == 0
    if w == n:
        f.sent += 1
        f._cut = False
        return True
    f.dropped += 1
    if w:
        f._cut = True
    return False
