"""Owns the journal's files in /journal.d: writing the running game's records while a clock
runs, reading back the newest whole one at power-up, retiring them once the game is saved
by a pause, a flag or its record. Shell module: file I/O through an os-like `fs`; the
format and the recovery rules are journal.py's.

Files (journal.py's module doc has their format): `h` the head (storage.write_atomic),
`s0`/`s1` the state slots (each rewritten whole, "wb"), `cNNN` the chunks (each written
once, "wb"). Each stays under 256 bytes, so on littlefs each write is one commit (a page)
into the journal directory's metadata pair, two for a new file (its name at the open, its
data at the close); no file data block is allocated or erased for it. The erases are that
pair's compactions: every commit is timed and counted for journal_tidy.py, which learns
when the next one comes (tools/chip/journal_bench.py counts them).

Order, so that a cut at any step leaves a journal that recovers to a state of the game or
none at all:
- start(): every old file removed (the state slots first), the head written;
- write(): the chunks completed since the last record first, then the state record;
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

# Not a bare name: MicroPython's import takes a directory on sys.path ("" is the flash's
# root) as a package of that name, so a folder "journal" would hide journal.mpy at boot.
DIR = "journal.d"
HEAD = "h"
_SLOTS = ("s0", "s1")


def _chunk(c):
    return "c%03d" % c


class Journal:
    def __init__(self, root="/", fs=os):
        self.dir = storage.join(root, DIR)
        self.fs = fs
        self.ident = 0
        self.seq = 0  # the last record's sequence number
        self.rows = -1  # half-moves on the flash (the log's count they cover); -1: stopped
        self.flash = journal_tidy.Compactions()  # the directory's commits, timed
        self.slots = (self.path(_SLOTS[0]), self.path(_SLOTS[1]))  # made once: a record's
        # path is then no allocation (on the chip a string's is a first-fit search)

    def path(self, name):
        return storage.join(self.dir, name)

    def active(self):
        """True while the journal takes records (started, no write failed)."""
        return self.rows >= 0

    def start(self, game, control, base):
        """Begin the journal of the running `game` (its ident set). `control`: the settings'
        control dict it plays; `base`: (n, tag) of the game.json state it continues from
        (journal.tag), or None. Raises OSError when the head cannot be written."""
        self.rows = -1
        self.clear()
        fs = self.fs
        if not storage.exists(self.dir, fs):
            t0 = time.ticks_us()
            fs.mkdir(self.dir)
            self._took(1, t0, True)  # a new folder's metadata pair: its blocks erased
        n = game.log_count
        if base is not None and base[0] <= n:  # the press that restarted it is logged
            n0, t = base[0], base[1]
        else:
            n0, t = 0, 0
        r0 = J.kept_from(n)
        if r0 < n0:
            r0 = n0
        head = {
            "v": J.VERSION,
            "id": game.ident,
            "control": control,
            "opts": [int(game.freeze), int(game.inc_before), game.transition],
            "n0": n0,
            "base": t,
        }
        data = json.dumps(head)
        t0 = time.ticks_us()
        storage.write_atomic(self.path(HEAD), data, fs)
        self._took(3, t0, True)  # the tmp file made, its data, the rename
        self.ident = game.ident
        self.seq = 0
        self.rows = r0

    def write(self, game, at, at_us):
        """One record: the chunks completed since the last one, then the state as if paused
        at at.at_us (game_state.snapshot_at) with the rows no chunk holds. True when one of its
        writes compacted the directory's metadata (journal_tidy.py). Raises OSError when a
        write fails (the journal stops)."""
        count = game.log_count
        whole = count - count % J.ROWS_PER_CHUNK  # rows below this are in complete chunks
        k = self.rows  # the first row no chunk on the flash holds
        lo = J.kept_from(count)
        if k < lo:
            k = lo
        compacted = False
        try:
            while k < whole:
                c = k // J.ROWS_PER_CHUNK
                end = (c + 1) * J.ROWS_PER_CHUNK
                if self._put(self.path(_chunk(c)), J.encode_chunk(self.ident, game, k, end), True):
                    compacted = True
                k = end
                self.rows = k
            self.seq += 1
            import game_state  # here, not at boot: its code takes RAM only once a game is saved

            snap = game_state.snapshot_at(game, at, at_us)
            data = J.encode_state(self.seq, self.ident, count, snap, game, k)
            if self._put(self.slots[self.seq & 1], data, self.seq <= 2):  # start() removed both
                compacted = True
        except OSError:
            self.rows = -1
            raise
        return compacted

    def _put(self, path, data, new):
        """Write the file at `path` whole: one littlefs commit at close, and one more at the
        open when the file is `new`. True when one of them compacted."""
        t = time.ticks_us()
        f = storage._open(self.fs, path, "wb")
        compacted = new and self._took(1, t, True)
        try:
            storage._put(f, data)
        finally:
            t = time.ticks_us()
            f.close()
        return self._took(1, t, False) or compacted

    def _took(self, commits, t, allocates):
        """`commits` commits into the folder, begun at ticks_us `t`, are done (a step
        that `allocates` may have collected the garbage in that time): to the learner
        (journal_tidy.py). True when they compacted."""
        return self.flash.wrote(commits, time.ticks_diff(time.ticks_us(), t), allocates)

    def stop(self):
        """No more records until the next start() (the game stopped running)."""
        self.rows = -1

    def clear(self):
        """Remove the journal's files (the state slots first). True when none is left."""
        fs = self.fs
        self.rows = -1
        try:
            names = fs.listdir(self.dir)
        except OSError:
            return not storage.exists(self.dir, fs)
        ok = True
        for name in _SLOTS:
            if name in names and not self._remove(name):
                ok = False
        for name in names:
            if name not in _SLOTS and not self._remove(name):
                ok = False
        return ok

    def _remove(self, name):
        """Remove the file `name` (one commit). True when it is gone."""
        t = time.ticks_us()
        gone = storage.delete(self.path(name), self.fs)
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
            chunks[c] = storage.peek(self.path(_chunk(c)), 0, J.CHUNK_MAX, fs)
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
