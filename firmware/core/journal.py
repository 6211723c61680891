"""Owns the journal's record format and what a power-up rebuilds from it: the running game
as of its newest whole record. Pure module: bytes in, values out; no file, no clock (the
shell's journal_files.py writes and reads the files).

While a clock runs, the shell writes after each press (and every JOURNAL_MS while a side
thinks) one state record: the game as if paused at the record's instant
(snapshot_at) with the half-moves of its log that no chunk holds yet. Three
kinds of file, each small enough to stay inside one littlefs metadata commit (one 256-byte
page on the rp2):

- the head (JSON, written once when the journal starts): the game's identity, its control,
  its rules (freeze, increment timing, period transition), `n0` the half-moves logged before
  the journal started and `base` the tag() of the game.json snapshot those came from (0: none;
  n0 is then 0);
- two state slots, the record of sequence number `seq` in slot seq & 1: one slot is written
  while the other keeps the previous record, so a write cut at any byte leaves one whole;
- chunks: once ROWS_PER_CHUNK half-moves are complete (half-moves c * ROWS_PER_CHUNK up to
  (c + 1) * ROWS_PER_CHUNK), chunk c holds them, written once, before the record that no
  longer carries them. So a press writes one file, and every ROWS_PER_CHUNK-th press two.

State record: b"J", VERSION, zigzag varints (seq, ident, count, len(snap), snap..., first,
n), then n rows (half-moves first.. first + n - 1 = count - 1) of three int32 little-endian
(packed, used_ms, left_ms: Game.log_rows(True)'s form), then the CRC-32 of all that, 4 bytes
little-endian. `count` is Game.log_count at the record. Its fields give its length: a slot
may hold more bytes after it (a slot is rewritten in place, which never shrinks the file).

Chunk: int32 ident, int32 first (its first half-move: c * ROWS_PER_CHUNK, or later when the
journal started inside the chunk), the rows, the CRC-32. A torn chunk, one of another game or
at another place never checks.

Recovery: newest() takes the slot with the highest seq that checks and carries the head's
ident; gather() the rows the engine's ring keeps for its count: from the record itself, the
chunks below it, and the base game's log (below n0); None when any is missing (the shell then
restores the times without the log and says LOG Err).
"""

import binascii
import struct

from engine import LOG_CAPACITY, PAUSED, RUNNING
from micropython import const

VERSION = const(1)
SNAPSHOT_VERSION = const(3)  # game_state.py's snapshot layout: 3 adds the us parts
ROWS_PER_CHUNK = const(8)  # half-moves per chunk: 108 bytes
CHUNK_MAX = const(108)  # bytes: 8 + 12 a row + 4
STATE_MAX = const(320)  # bytes: a state record is at most this long (about 60 + 12 a row)
_MAGIC = const(0x4A)  # "J"
_MAX_INTS = const(64)  # ints in a snapshot (settings.py's bound)
_MASK32 = const(0xFFFFFFFF)


def crc(data, seed=0):
    """CRC-32 of `data` continuing from `seed`, as a non-negative int (binascii.crc32)."""
    return binascii.crc32(data, seed) & _MASK32


def snapshot_at(game, at, at_us=0):
    """The snapshot of this game as if paused at the instant at.at_us (ms, us 0..999),
    without changing it: a running game's move is charged up to that instant (the last
    event when it is earlier), exactly as pause() would. A stopped game gives
    game_state.snapshot(). For the journal: call it after tick(at, at_us), so no deadline
    before the instant is pending. Allocates the list. (The snapshot's layout is
    game_state.py's, which restores it; it is here, loaded at boot, because a press's
    record takes one while a clock runs.)"""
    if game.state != RUNNING:
        return _snap(game, game.state, game.paused_elapsed, game.paused_us)
    game._elapsed(at, at_us)
    return _snap(game, PAUSED, game._em, game._eu)


def _snap(game, state, paused_ms, paused_us):
    snap = [
        SNAPSHOT_VERSION,
        state,
        game.running,
        game.white,
        paused_ms,
        game.first_flag,
        game.first_passed,
        game.override_bonus,
        game.override_ms,
        1 if game.g4_applied else 0,
        game.result,
        game.reason,
    ]
    for arr in _saved_pairs(game):
        snap.append(arr[0])
        snap.append(arr[1])
    snap.append(paused_us)
    snap.append(game.main_us[0])
    snap.append(game.main_us[1])
    return snap


def _saved_pairs(game):
    """The per-side arrays a snapshot holds, in its order (after the 12 scalars)."""
    return (
        game.main,
        game.moves,
        game.period,
        game.flagged,
        game.markers,
        game.marker_moves,
        game.ot_left,
    )


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


def _rows_into(buf, game, first, end):
    for k in range(first, end):
        buf.extend(struct.pack("<iii", *row_of(game, k)))


def encode_state(seq, ident, count, snap, game=None, first=0):
    """The state record (bytes) of sequence number `seq` for the game `ident` whose log holds
    `count` half-moves, `snap` its snapshot (snapshot_at), with the rows first..count-1
    of `game`'s log (none without a game)."""
    buf = bytearray((_MAGIC, VERSION))
    _put(buf, seq)
    _put(buf, ident)
    _put(buf, count)
    _put(buf, len(snap))
    app = buf.append
    for v in snap:  # _put inline: a call an int is a third of the record's Python time
        v = v << 1 if v >= 0 else ((-v) << 1) - 1
        while v >= 0x80:
            app((v & 0x7F) | 0x80)
            v >>= 7
        app(v)
    n = count - first if game is not None and first < count else 0
    _put(buf, count - n)
    _put(buf, n)
    if n:
        _rows_into(buf, game, first, count)
    buf.extend(struct.pack("<I", crc(buf)))
    return bytes(buf)


def _checked(data):
    """The body of `data` without its CRC when the CRC checks, else None."""
    if not isinstance(data, (bytes, bytearray)) or len(data) < 6:
        return None
    end = len(data) - 4
    if struct.unpack("<I", data[end:])[0] != crc(data[:end]):
        return None
    return end


def decode_state(data):
    """(seq, ident, count, snap, first, rows) of a whole state record (rows: a list of
    (packed, used, left), half-moves first.. count-1), or None (torn, foreign, empty). The
    record's own fields give its length; bytes after its CRC (the tail of a longer record
    the slot held before: the shell rewrites a slot in place) are not part of it."""
    if not isinstance(data, (bytes, bytearray)) or len(data) < 6:
        return None
    if data[0] != _MAGIC or data[1] != VERSION:
        return None
    size = len(data)
    i = 2
    head = []
    for _ in range(4):
        v, i = _get(data, i, size)
        if i < 0:
            return None
        head.append(v)
    seq, ident, count, n = head
    if seq < 1 or count < 0 or not 1 <= n <= _MAX_INTS:
        return None
    snap = []
    for _ in range(n + 2):
        v, i = _get(data, i, size)
        if i < 0:
            return None
        snap.append(v)
    nrows = snap.pop()
    first = snap.pop()
    end = i + 12 * nrows
    if nrows < 0 or first + nrows != count or end + 4 > size:
        return None
    if struct.unpack("<I", data[end : end + 4])[0] != crc(data[:end]):
        return None
    rows = [struct.unpack("<iii", data[i + 12 * j : i + 12 * j + 12]) for j in range(nrows)]
    return seq, ident, count, snap, first, rows


def newest(slots, ident):
    """(seq, count, snap, first, rows) of the newest whole record of the game `ident` among
    `slots` (the bytes of each state slot, b"" for a missing one), or None."""
    best = None
    for data in slots:
        rec = decode_state(data)
        if rec is not None and rec[1] == ident and (best is None or rec[0] > best[0]):
            best = rec
    if best is None:
        return None
    return best[0], best[2], best[3], best[4], best[5]


def row_of(game, k):
    """(packed, used_ms, left_ms) of half-move `k` (0-based, in the whole game) from the
    engine's ring; k must be one the ring keeps."""
    i = k % LOG_CAPACITY
    return game.log_move[i] | game.log_ot[i] << 16, game.log_used[i], game.log_left[i]


def encode_chunk(ident, game, first, end):
    """The chunk of `game`'s half-moves first..end-1 (bytes)."""
    buf = bytearray(struct.pack("<ii", ident, first))
    _rows_into(buf, game, first, end)
    buf.extend(struct.pack("<I", crc(buf)))
    return bytes(buf)


def decode_chunk(ident, c, data):
    """(first, rows) of the whole chunk `c` of the game `ident`, or None."""
    end = _checked(data)
    if end is None or end < 8 or (end - 8) % 12:
        return None
    who, first = struct.unpack("<ii", data[:8])
    n = (end - 8) // 12
    if who != ident or first // ROWS_PER_CHUNK != c or first + n != (c + 1) * ROWS_PER_CHUNK:
        return None
    return first, [struct.unpack("<iii", data[8 + 12 * j : 20 + 12 * j]) for j in range(n)]


def kept_from(count):
    """The first half-move the engine's ring keeps when `count` are logged."""
    return count - LOG_CAPACITY if count > LOG_CAPACITY else 0


def chunks_for(n0, count, first):
    """range of the chunk indexes holding the rows gather() needs that the record, whose
    rows start at half-move `first`, does not carry."""
    lo = kept_from(count)
    if lo < n0:
        lo = n0
    if lo >= first:
        return range(0)
    return range(lo // ROWS_PER_CHUNK, (first - 1) // ROWS_PER_CHUNK + 1)


def gather(ident, n0, count, first, rows, chunks, base_log):
    """The log for game_state.restore_log(game, count, ...): the rows min(count,
    LOG_CAPACITY) back from `count`, three ints each, oldest first. The record's own `rows`
    (half-moves first..count-1), below them the chunks (a dict chunk index -> bytes) down
    to `n0`, and below n0 `base_log` (the base game's saved log: its newest rows up to n0,
    three ints each; None when the base is not there). None when a row is missing."""
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
    k = lo
    while k < first:
        c = k // ROWS_PER_CHUNK
        got = decode_chunk(ident, c, chunks.get(c, b""))
        if got is None or got[0] > k:
            return None  # a chunk or a row of it missing
        for row in got[1][k - got[0] :]:
            if k >= first:
                break
            flat.extend(row)
            k += 1
    for row in rows[k - first :]:
        flat.extend(row)
    return flat


def check_head(obj):
    """(ident, n0, base, opts) of a head object (parsed JSON), or None when it does not
    validate (the control is checked by the shell with settings.check_control)."""
    if not isinstance(obj, dict) or obj.get("v") != VERSION:
        return None
    ident = obj.get("id")
    n0 = obj.get("n0")
    base = obj.get("base")
    opts = obj.get("opts")
    for v in (ident, n0, base):
        if type(v) is not int or not 0 <= v <= _MASK32:
            return None
    if not ident or not isinstance(opts, list) or len(opts) > 16:
        return None
    for v in opts:
        if type(v) is not int:
            return None
    return ident, n0, base, opts
