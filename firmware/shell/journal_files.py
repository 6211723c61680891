"""Owns the journal's files in /journal.d: writing the running game's records while a clock
runs, reading back the newest whole one at power-up, retiring them once the game is saved
by a pause, a flag or its record. Shell module: file I/O through an os-like `fs`; the
format and the recovery rules are journal.py's.

Files (journal.py's module doc has their format): `h` the head, `s0`/`s1` the state slots
(each kept open while the journal runs and rewritten in place: seek, write, flush), and in
the subfolder `c` the chunks `cNNN` (each written once, "wb"). Each stays under 256 bytes,
so on littlefs each write is one commit (a page) into its folder's metadata pair, two for
a new file (its name at the open, its data at the close); no file data block is allocated
or erased for it. The erases are the pairs' compactions. The journal folder's pair holds
only the head and the two slots, the same few hundred bytes however long the game: its
compactions come at a steady period, every commit into it is timed and counted for
journal_tidy.py, which learns when the next one comes, and it never outgrows its pair
(littlefs splits a folder whose live metadata passes half a block, an erase in the commit
that finds it). The chunks' folder grows with the game and splits as it must; its writes
come at quiet wakeups (appjournal.py), not at a press (tools/chip/journal_bench.py counts
them).

Order, so that a cut at any step leaves a journal that recovers to a state of the game or
none at all:
- prepare() (no clock runs): every old file removed (the state slots first), the folders
  made, the head written (no slot holds a record: a torn head is a journal with nothing
  to offer), the slots made, blank;
- start(): nothing more when the prepared head is the game's (else as prepare, the head by
  tmp and rename);
- write(): the chunks that must leave the record first, then the state record;
  write_chunks(): chunks only (the state records after them carry fewer rows);
- clear(): the state slots first (no state: nothing to offer), then the rest.
A failed write (a full flash) ends the journal's writes until the next start(); what it
holds stays a state of the game.
"""

import json
import os
import time

import journal as J
import journal_tidy
import settings as settings_mod
import storage
from micropython import const

# Not a bare name: MicroPython's import takes a directory on sys.path ("" is the flash's
# root) as a package of that name, so a folder "journal" would hide journal.mpy at boot.
DIR = "journal.d"
HEAD = "h"
CHUNKS = "c"  # the chunks' subfolder
_SLOTS = ("s0", "s1")
# Rows a state record carries at most (at most 64 bytes and 12 a row: the biggest record
# then fits one 256-byte commit with littlefs's tags): a press's record writes a chunk
# first only when no quiet wakeup has in the five presses since it was complete
CARRY = const(13)
# Commits into the journal folder that prepare() writes at most to learn its period and end
# on a compaction (two periods and the block's fill before them: the chip's is 15)
_LEARN_MAX = const(40)
# A state slot's bytes before its first record: no record (journal.py reads none in it),
# about a record's size, so the folder is as full as it is in the game
_BLANK = bytes(96)


def _chunk(c):
    return "c%03d" % c


class Journal:
    def __init__(self, root="/", fs=os):
        self.dir = storage.join(root, DIR)
        self.cdir = storage.join(self.dir, CHUNKS)
        self.fs = fs
        self.ident = 0
        self.seq = 0  # the last record's sequence number
        self.rows = -1  # half-moves on the flash (the log's count they cover); -1: stopped
        self.ready = None  # the head prepare() wrote (its JSON), until a start() or clear()
        self.flash = journal_tidy.Compactions()  # the journal folder's commits, timed
        self.slots = (self.path(_SLOTS[0]), self.path(_SLOTS[1]))
        # Each slot's file, kept open from prepare() (or its first record) to stop() or
        # clear(): a record rewrites it in place (seek, write, flush: one commit) without
        # looking its path up through the root folder's metadata (3 ms on the chip, of a
        # record's 6)
        self.handles = [None, None]
        self.made = [False, False]  # each slot's file exists (its open is then no commit)

    def path(self, name):
        return storage.join(self.dir, name)

    def chunk_path(self, c):
        return storage.join(self.cdir, _chunk(c))

    def active(self):
        """True while the journal takes records (started, no write failed)."""
        return self.rows >= 0

    def _head(self, game, control, base):
        """(the head's JSON, n0) of the running or ready `game`, as start() writes it."""
        n = game.log_count
        if base is not None and base[0] <= n:  # the press that restarted it is logged
            n0, t = base[0], base[1]
        else:
            n0, t = 0, 0
        head = {
            "v": J.VERSION,
            "id": game.ident,
            "control": control,
            "opts": [int(game.freeze), int(game.inc_before), game.transition],
            "n0": n0,
            "base": t,
        }
        return json.dumps(head), n0

    def _folders(self):
        """The journal folder and its chunks' subfolder, made when missing."""
        fs = self.fs
        if not storage.exists(self.dir, fs):
            fs.mkdir(self.dir)
            self.flash.fresh()  # a new folder's metadata pair: its block erased, empty
        if not storage.exists(self.cdir, fs):
            fs.mkdir(self.cdir)  # its entry: a commit into the journal folder
            self.flash.wrote(1, 0)  # not timed: the erase of its own pair is in it

    def prepare(self, game, control, base, wdt=None):
        """While no clock runs (a game set up, paused, flagged): the journal of `game` (its
        ident set) made ready for its next press, whose record then writes only a state
        slot: the old files removed, the folders made, the head written, the slots made
        blank (s1 kept open for the first record). Then s1 rewritten in place (one commit
        each, _LEARN_MAX at most) until the journal folder's period is known
        (journal_tidy.py) and its block was just compacted: the game's first records have
        the whole period before the next compaction, which the learner foresees. `wdt` (or
        None) is fed between the commits. Raises OSError when a write fails."""
        self.ready = None
        if not self.clear():
            raise OSError(5)  # an old file stays: the press's start() tries again
        self._folders()
        data, _n0 = self._head(game, control, base)
        path = self.path(HEAD)
        self._put(path, data, True)  # no slot exists: a torn head offers nothing
        # The slots, no record yet (the folder as full as in the game): the first record's
        # kept open (the other is opened at a quiet wakeup after it: open_slots)
        self._put(self.slots[0], _BLANK, True)
        self.made[0] = True
        self._slot(1, _BLANK)
        n = 0
        learner = self.flash
        while (not learner.period or learner.since) and n < _LEARN_MAX:
            if wdt is not None:
                wdt.feed()
            self._slot(1, _BLANK)  # through its open file: no path looked up
            n += 1
        self.ready = data

    def start(self, game, control, base):
        """Begin the journal of the running `game` (its ident set). `control`: the settings'
        control dict it plays; `base`: (n, tag) of the game.json state it continues from
        (journal.tag), or None. When prepare() wrote this head, nothing is written; else
        the old files go and the head is written (as prepare, by tmp and rename). Raises
        OSError when the head cannot be written."""
        data, n0 = self._head(game, control, base)
        if data != self.ready:
            self.clear()
            self._folders()
            t0 = time.ticks_us()
            storage.write_atomic(self.path(HEAD), data, self.fs)
            self._took(3, t0, True)  # the tmp file made, its data, the rename
        self.ready = None
        r0 = J.kept_from(game.log_count)
        if r0 < n0:
            r0 = n0
        self.ident = game.ident
        self.seq = 0
        self.rows = r0

    def _first(self, count):
        """The first row of `count` logged that no chunk on the flash holds."""
        lo = J.kept_from(count)
        return self.rows if self.rows > lo else lo

    def chunks_due(self, game):
        """True when a chunk of `game`'s log is complete and not on the flash yet."""
        count = game.log_count
        return self.rows >= 0 and self._first(count) < count - count % J.ROWS_PER_CHUNK

    def press_commits(self, game):
        """The commits into the journal folder of the record of `game`'s next press: its
        state slot's (two when the slot is a new file)."""
        return 1 if self.made[(self.seq + 1) & 1] else 2

    def write_chunks(self, game, carry=0):
        """The complete chunks of `game`'s log not on the flash yet, oldest first, until the
        rows after them are at most `carry`. Raises OSError when a write fails (the journal
        stops)."""
        count = game.log_count
        whole = count - count % J.ROWS_PER_CHUNK  # rows below this are in complete chunks
        k = self._first(count)
        try:
            while k < whole and count - k > carry:
                c = k // J.ROWS_PER_CHUNK
                end = (c + 1) * J.ROWS_PER_CHUNK
                self._put(
                    self.chunk_path(c), J.encode_chunk(self.ident, game, k, end), True, False
                )
                k = end
                self.rows = k
        except OSError:
            self.rows = -1
            raise
        return k

    def write(self, game, at, at_us):
        """One record: the state as if paused at at.at_us (journal.snapshot_at) with the
        rows no chunk holds, after the chunks that must leave it (CARRY rows at most). True
        when its write compacted the journal folder's metadata (journal_tidy.py). Raises
        OSError when a write fails (the journal stops)."""
        count = game.log_count
        k = self.write_chunks(game, CARRY)
        try:
            self.seq += 1
            snap = J.snapshot_at(game, at, at_us)
            data = J.encode_state(self.seq, self.ident, count, snap, game, k)
            return self._slot(self.seq & 1, data)
        except OSError:
            self.rows = -1
            self._close()
            raise

    def _slot(self, i, data):
        """Write state slot `i` whole through its open file (opened, and made when missing,
        at its first record): one littlefs commit at the flush, one more at the open of a
        new file. The file keeps its length when the record is shorter (journal.py reads a
        record by its own length). True when a commit compacted."""
        f = self.handles[i]
        compacted = False
        if f is None:
            t = time.ticks_us()
            f = storage._open(self.fs, self.slots[i], "wb")
            self.handles[i] = f
            if not self.made[i]:  # a new file: its name's commit
                self.made[i] = True
                compacted = self._took(1, t, True)
        else:
            f.seek(0)
        storage._put(f, data)
        t = time.ticks_us()
        f.flush()
        return self._took(1, t, False) or compacted

    def slots_due(self):
        """True while the journal runs with a state slot's file not open."""
        return self.rows >= 0 and (self.handles[0] is None or self.handles[1] is None)

    def open_slots(self):
        """Open the state slots' files not open yet (made when missing, as blank), so no
        record looks a path up (3 ms on the chip); none is written. Raises OSError."""
        for i in (0, 1):
            if self.handles[i] is None:
                if self.made[i]:  # blank, or the other slot holds the newer record: its
                    # next record rewrites it (littlefs truncates at that commit, not here)
                    self.handles[i] = storage._open(self.fs, self.slots[i], "wb")
                else:
                    self._slot(i, _BLANK)

    def _close(self):
        """Close the slots' open files (a file must be closed before it is removed)."""
        for i in (0, 1):
            f = self.handles[i]
            self.handles[i] = None
            if f is not None:
                try:
                    f.close()
                except OSError:
                    pass

    def _put(self, path, data, new, timed=True):
        """Write the file at `path` whole: one littlefs commit at close, and one more at the
        open when the file is `new`. True when one of them compacted; a write into the
        chunks' folder (not `timed`) is not the journal folder's and tells the learner
        nothing."""
        t = time.ticks_us()
        f = storage._open(self.fs, path, "wb")
        compacted = new and timed and self._took(1, t, True)
        try:
            storage._put(f, data)
        finally:
            t = time.ticks_us()
            f.close()
        return timed and self._took(1, t, False) or compacted

    def _took(self, commits, t, allocates):
        """`commits` commits into the folder, begun at ticks_us `t`, are done (a step
        that `allocates` may have collected the garbage in that time): to the learner
        (journal_tidy.py). True when they compacted."""
        return self.flash.wrote(commits, time.ticks_diff(time.ticks_us(), t), allocates)

    def stop(self):
        """No more records until the next start() (the game stopped running)."""
        self.rows = -1
        self._close()

    def clear(self):
        """Remove the journal's files (the state slots first, then the chunks, then the
        rest; the folders stay). True when none is left."""
        fs = self.fs
        self.rows = -1
        self.ready = None
        self._close()
        try:
            names = fs.listdir(self.dir)
        except OSError:
            return not storage.exists(self.dir, fs)
        ok = True
        for i in (0, 1):
            name = _SLOTS[i]
            gone = name not in names or self._remove(self.path(name))
            self.made[i] = not gone
            if not gone:
                ok = False
        if CHUNKS in names:
            try:
                chunks = fs.listdir(self.cdir)
            except OSError:
                chunks = ()
            for name in chunks:
                if not storage.delete(storage.join(self.cdir, name), fs):
                    ok = False
        for name in names:
            if name not in _SLOTS and name != CHUNKS and not self._remove(self.path(name)):
                ok = False
        return ok

    def _remove(self, path):
        """Remove the file at `path` in the journal folder (one commit). True when it is
        gone."""
        t = time.ticks_us()
        gone = storage.delete(path, self.fs)
        self._took(1, t, True)
        return gone

    def load(self, saved, n_presets):
        """The game the journal holds, as settings.load_game() gives a saved state (the
        dict with "id", "control", "snap", "opts", "n", "arb", "log"), or None when it
        holds no whole state. `saved`: what game.json holds (or None), the base of rows
        below the head's n0 when its snapshot's tag is the head's base, and of the arbiter's
        corrections ("arb": the clock runs only between corrections, each saved in game.json
        before the resume that started the journal; None without that base). "log" is None
        when a row is missing. Never raises."""
        try:
            return self._load(saved, n_presets)
        except Exception:
            return None

    def _load(self, saved, n_presets):
        fs = self.fs
        obj, st = storage.read_json(self.path(HEAD), fs)
        head = J.check_head(obj) if obj is not None else None
        if head is None:
            return None
        ident, n0, base, opts = head
        control = settings_mod.check_control(obj.get("control"), n_presets)
        if control is None:
            return None
        slots = [storage.peek(self.path(name), 0, J.STATE_MAX, fs) for name in _SLOTS]
        rec = J.newest(slots, ident)
        if rec is None:
            return None
        seq, count, snap, first, rows = rec
        chunks = {}
        for c in J.chunks_for(n0, count, first):
            chunks[c] = storage.peek(self.chunk_path(c), 0, J.CHUNK_MAX, fs)
        base_log = arb = None
        if (
            base
            and saved is not None
            and saved["id"] == ident
            and saved["n"] == n0
            and J.tag(saved["snap"]) == base
        ):
            base_log = saved["log"]
            arb = saved["arb"]
        return {
            "v": 1,
            "id": ident,
            "control": control,
            "snap": snap,
            "opts": opts,
            "n": count,
            "arb": arb,
            "log": J.gather(ident, n0, count, first, rows, chunks, base_log),
            "base": base,
        }
