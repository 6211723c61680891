"""Owns the journal's record format and what a power-up rebuilds from it: the running game
as of its newest whole record. Pure module: bytes in, values out; no file, no clock (the
shell's journal_files.py writes and reads the files).

While a clock runs, the shell writes after each press (and every JOURNAL_MS while a side
thinks) what the engine needs to continue: a state record (the game as if paused at the
record's instant, Game.snapshot_at) and the half-moves logged since the last record. Three
kinds of file, each small enough to stay inside one littlefs metadata commit:

- the head (JSON, written once when the journal starts): the game's identity, its control,
  its rules (freeze, increment timing, period transition), `n0` the half-moves logged before
  the journal started and `base` the tag() of the game.json snapshot those came from (0: none;
  n0 is then 0), `r0` the first half-move in the chunks (n0, or the oldest the engine's ring
  kept when the journal started without a base);
- two state slots, the record of sequence number `seq` in slot seq & 1: one slot is written
  while the other keeps the previous record, so a write cut at any byte leaves one whole;
- row chunks: half-move k is in chunk k // ROWS_PER_CHUNK, appended; a chunk's first row is
  half-move max(c * ROWS_PER_CHUNK, r0), r0 the first the journal wrote (in the head).

State record: b"J", VERSION, then zigzag varints (seq, ident, count, len(snap), snap...),
then the CRC-32 of all that, 4 bytes little-endian (seeded with nothing: the ident is inside).
`count` is Game.log_count at the record; the rows below it are on the flash before the
record is written.

Row: three int32 little-endian (packed, used_ms, left_ms: Game.log_rows(True)'s form), then
the CRC-32 of them seeded with the ident and the row's index k. A torn row, a row of
another journal or one at the wrong place never checks.

Recovery: newest() takes the slot with the highest seq that checks and carries the head's
ident; gather() the rows the engine's ring keeps for its count, from the chunks (index n0
and up) and from the base game's log (below n0); None when any is missing (the shell then
restores the times without the log and says LOG Err).
"""

import binascii
import struct

from engine import LOG_CAPACITY
from micropython import const

VERSION = const(1)
ROWS_PER_CHUNK = const(8)  # rows per chunk file: 128 bytes, inside one littlefs commit
ROW_BYTES = const(16)  # 3 x int32 + CRC-32
STATE_MAX = const(256)  # bytes: a state record is at most this long (29 ints: about 60)
_MAGIC = const(0x4A)  # "J"
_MAX_INTS = const(64)  # ints in a snapshot (settings.py's bound)
_MASK32 = const(0xFFFFFFFF)


def crc(data, seed=0):
    """CRC-32 of `data` continuing from `seed`, as a non-negative int (binascii.crc32)."""
    return binascii.crc32(data, seed) & _MASK32


def _put(buf, v):
    """Append `v` (an int) to the bytearray `buf` as a zigzag varint."""
    v = v << 1 if v >= 0 else ((-v) << 1) - 1
    while v >= 0x80:
        buf.append((v & 0x7F) | 0x80)
        v >>= 7
    buf.append(v)


def _get(data, i, end):
    """(value, next index) of the zigzag varint at data[i], or (0, -1) when it runs past
    `end` or is longer than 5 bytes (a 32-bit value)."""
    v = 0
    shift = 0
    while i < end and shift <= 28:
        b = data[i]
        i += 1
        v |= (b & 0x7F) << shift
        if not b & 0x80:
            return (v >> 1 if not v & 1 else -((v + 1) >> 1)), i
        shift += 7
    return 0, -1


def tag(snap):
    """A non-zero 32-bit tag of a snapshot (a list of ints): the head's `base` names the
    game.json state the journal continues from by it."""
    buf = bytearray()
    for v in snap:
        _put(buf, v)
    t = crc(buf)
    return t if t else 1


def encode_state(seq, ident, count, snap):
    """The state record (bytes) of sequence number `seq` for the game `ident` whose log holds
    `count` half-moves, `snap` its snapshot (Game.snapshot_at)."""
    buf = bytearray((_MAGIC, VERSION))
    _put(buf, seq)
    _put(buf, ident)
    _put(buf, count)
    _put(buf, len(snap))
    for v in snap:
        _put(buf, v)
    buf.extend(struct.pack("<I", crc(buf)))
    return bytes(buf)


def decode_state(data):
    """(seq, ident, count, snap) of a whole state record, or None (torn, foreign, empty)."""
    if not isinstance(data, (bytes, bytearray)):
        return None
    end = len(data) - 4
    if end < 2 or data[0] != _MAGIC or data[1] != VERSION:
        return None
    if struct.unpack("<I", data[end:])[0] != crc(data[:end]):
        return None
    i = 2
    head = []
    for _ in range(4):
        v, i = _get(data, i, end)
        if i < 0:
            return None
        head.append(v)
    seq, ident, count, n = head
    if seq < 1 or count < 0 or not 1 <= n <= _MAX_INTS:
        return None
    snap = []
    for _ in range(n):
        v, i = _get(data, i, end)
        if i < 0:
            return None
        snap.append(v)
    if i != end:
        return None
    return seq, ident, count, snap


def newest(slots, ident):
    """(seq, count, snap) of the newest whole record of the game `ident` among `slots` (the
    bytes of each state slot, b"" for a missing one), or None."""
    best = None
    for data in slots:
        rec = decode_state(data)
        if rec is not None and rec[1] == ident and (best is None or rec[0] > best[0]):
            best = rec
    if best is None:
        return None
    return best[0], best[2], best[3]


def row_of(game, k):
    """(packed, used_ms, left_ms) of half-move `k` (0-based, in the whole game) from the
    engine's ring; k must be one the ring keeps."""
    i = k % LOG_CAPACITY
    return game.log_move[i] | game.log_ot[i] << 16, game.log_used[i], game.log_left[i]


def encode_row(ident, k, packed, used, left):
    """Half-move `k` of the game `ident` as ROW_BYTES bytes."""
    body = struct.pack("<iii", packed, used, left)
    return body + struct.pack("<I", crc(body, crc(struct.pack("<ii", ident, k))))


def decode_rows(ident, first, data):
    """The whole rows at the start of `data` (a chunk's bytes, its first row half-move
    `first`), as a list of (packed, used, left); stops at the first that does not check."""
    out = []
    if not isinstance(data, (bytes, bytearray)):
        return out
    k = first
    for at in range(0, len(data) - ROW_BYTES + 1, ROW_BYTES):
        body = data[at : at + 12]
        check = struct.unpack("<I", data[at + 12 : at + ROW_BYTES])[0]
        if check != crc(body, crc(struct.pack("<ii", ident, k))):
            break
        out.append(struct.unpack("<iii", body))
        k += 1
    return out


def kept_from(count):
    """The first half-move the engine's ring keeps when `count` are logged."""
    return count - LOG_CAPACITY if count > LOG_CAPACITY else 0


def chunks_for(r0, count):
    """range of the chunk indexes holding the rows gather() needs from the journal."""
    lo = kept_from(count)
    if lo < r0:
        lo = r0
    if lo >= count:
        return range(0)
    return range(lo // ROWS_PER_CHUNK, (count - 1) // ROWS_PER_CHUNK + 1)


def gather(ident, n0, r0, count, chunks, base_log):
    """The log for restore_log(count, ...): the rows min(count, LOG_CAPACITY) back from
    `count`, three ints each, oldest first. Rows at or above `r0` come from `chunks` (a dict
    chunk index -> bytes), those below `n0` from `base_log` (the base game's saved log: its
    newest rows up to n0, three ints each; None when the base is not there). None when a row
    is missing."""
    lo = kept_from(count)
    flat = []
    if lo < n0:
        if base_log is None:
            return None
        have = len(base_log) // 3  # rows n0 - have .. n0 - 1
        if n0 - have > lo:
            return None
        flat.extend(base_log[3 * (lo - (n0 - have)) :])
        lo = n0
    if lo < r0 and lo < count:
        return None  # rows the journal never had
    k = lo
    while k < count:
        c = k // ROWS_PER_CHUNK
        first = c * ROWS_PER_CHUNK
        if first < r0:
            first = r0
        rows = decode_rows(ident, first, chunks.get(c, b""))
        j = k - first
        while j < len(rows) and k < count:
            flat.extend(rows[j])
            j += 1
            k += 1
        if k < count and k < (c + 1) * ROWS_PER_CHUNK:
            return None  # a row of this chunk is missing
    return flat


def check_head(obj):
    """(ident, n0, r0, base, opts) of a head object (parsed JSON), or None when it does not
    validate (the control is checked by the shell with settings.check_control)."""
    if not isinstance(obj, dict) or obj.get("v") != VERSION:
        return None
    ident = obj.get("id")
    n0 = obj.get("n0")
    r0 = obj.get("r0")
    base = obj.get("base")
    opts = obj.get("opts")
    for v in (ident, n0, r0, base):
        if type(v) is not int or not 0 <= v <= _MASK32:
            return None
    if not ident or r0 < n0 or not isinstance(opts, list) or len(opts) > 16:
        return None
    for v in opts:
        if type(v) is not int:
            return None
    return ident, n0, r0, base, opts
