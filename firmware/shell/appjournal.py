"""The shell's journal: the running game's records on flash (journal.py, journal_files.py).

Owns: when a record is due and when it waits (after each press or ticked period or flag,
once that wakeup's LEDs and frames are out; every JOURNAL_MS while a side thinks; never
near the flag deadline nor just before a display change), the base a journal starts from
(the game state game.json holds), its retirement once game.json or the game's record holds
the game, and at power-up the choice between the journal's game and game.json's. App calls
`record` at its step of a wakeup; appfiles.Files calls the rest where it saves, records,
resumes and settles. It never reads the time: `now` (monotonic ms) is an argument.

While a clock runs only the journal writes: one small littlefs commit a record. Every ten
or so commits littlefs compacts the journal directory's metadata, a sector erase (45 ms
typical, interrupts off): journal_tidy.py learns from the writes' durations when the next
one comes, and when the next press's record could take it, a tidy brings records forward to
a quiet wakeup (TIDY_AFTER_MS after the press at the soonest, TIDY_ROOM_MS before the next
display change and the flag deadline, one every TIDY_EVERY_MS at most), ordinary periodic
records as of the instant the engine was ticked to, until one compacts. The PIO lever
stamps (levers.py) keep a press's instant exact while a write holds the core.
"""

import archive
import engine as E
import gamelog
import journal
import journal_files
import presets
from micropython import const

# A record this often while a side thinks (riding on a display change's wakeup: the
# countdown shows at least every second), but not this close before the flag deadline (the
# flag's wakeup must not wait for a write).
JOURNAL_MS = const(10_000)
JOURNAL_GUARD_MS = const(250)
# A record waits for a wakeup whose next display change is at least this far (ms): a
# littlefs metadata compaction erases a sector in some of the writes; but never more than
# JOURNAL_WAIT_MS after the press it records.
JOURNAL_ROOM_MS = const(60)
JOURNAL_WAIT_MS = const(400)
# A tidy (records brought forward for a compaction: journal_tidy.py) at a wakeup at least
# this long after the press's record, with this much room before the next display change
# and the flag deadline (an erase and a few records), and one this often at most.
TIDY_AFTER_MS = const(150)
TIDY_ROOM_MS = const(150)
TIDY_EVERY_MS = const(1_000)


def _need(g):
    """The commits the next press's record of Game `g` makes: its state, and a chunk (a new
    file: two) when that press completes one."""
    return 3 if (g.log_count + 1) % journal.ROWS_PER_CHUNK == 0 else 1


class Journaling:
    def __init__(self, ui, root, fs):
        self.ui = ui
        self.root = root
        self.fs = fs
        self.store = journal_files.Journal(root, fs)
        self.base = None  # (log count, journal.tag) of the game state game.json holds
        self.press = False  # a press (or a ticked period/flag): a record is due
        self.due = -1  # the next periodic record or tidy (monotonic ms), -1 = none
        self.periodic = 0  # the next periodic record (monotonic ms)
        self.tidy_at = 0  # no tidy before this (monotonic ms)
        self.failed = False  # a write failed: none until the game stops
        self.offered = False  # the game offered at power-up came from the journal
        # Records while a clock runs; off only where a test proves the press path allocates
        # nothing (make bench's heap_lock runs: a record allocates, measured apart)
        self.enabled = True
        # () -> presses waiting in the levers' rings (the app hands its levers' `pending`):
        # a tidy stops between its records for one; None: never
        self.pending = None

    def record(self, now, at, at_us, deadline, next_render, wdt):
        """A record of the running game, after this wakeup's LEDs and frames: after a press
        (or a ticked period or flag) as of the engine's last event, else every JOURNAL_MS as
        of the instant the engine was ticked to (`at` ms, `at_us` µs); not JOURNAL_GUARD_MS
        before the flag `deadline`, nor JOURNAL_ROOM_MS before `next_render` (then after
        that change's render, within JOURNAL_WAIT_MS of the press: the display changes at
        least every second). A wakeup that is not a press's writes a tidy instead when one
        is due (the module doc): up to journal_tidy.TIDY_MAX such records, until one
        compacts. The watchdog `wdt` (or None) is fed around each. Allocates (the record's
        bytes, file objects); the first record of a journal also writes its head and every
        logged half-move the journal does not have yet."""
        g = self.ui.game
        if g.state != E.RUNNING or self.failed or not self.enabled:
            self.press = False
            self.due = -1
            self.tidy_at = 0
            return
        if 0 <= deadline < now + JOURNAL_GUARD_MS:
            return  # the flag is near: its wakeup first (a fallen flag is saved anyway)
        j = self.store
        press = self.press
        n = 0  # the records a tidy writes
        if not press and now >= self.tidy_at:
            if not (0 <= next_render < now + TIDY_ROOM_MS):
                n = j.flash.tidy(_need(g))
        if not n:
            if not press and now < self.periodic:
                return  # a tidy's wakeup without room for one (or none due now)
            if 0 <= next_render < now + JOURNAL_ROOM_MS:
                if not press or now < g.last_event + JOURNAL_WAIT_MS:
                    return  # a display change is near: after its render (a wakeup soon)
        if press:
            self.press = False
            at, at_us = g.last_event, g.last_us
        if wdt is not None:
            wdt.feed()
        try:
            if not j.active():
                if not g.ident:
                    g.set_ident(archive.new_ident())
                j.start(g, self.ui.settings["control"], self.base)
            while not j.write(g, at, at_us) and n > 1:
                pending = self.pending
                if pending is not None and pending():
                    break  # a lever press waits for its LEDs and frames: the tidy later
                n -= 1  # no compaction yet: the tidy's next record
                if wdt is not None:
                    wdt.feed()
        except OSError:
            self.failed = True  # a full flash: the game goes on; a pause saves it
        if wdt is not None:
            wdt.feed()
        self.periodic = now + JOURNAL_MS
        self._next(now, g, press)

    def _next(self, now, g, press):
        """After a record at `now`: `due` is the next periodic record, or a tidy sooner
        when the next press's record could take a compaction (not in this wakeup, nor one
        sooner than TIDY_AFTER_MS after a press's record or TIDY_EVERY_MS after a tidy)."""
        if press:
            t = now + TIDY_AFTER_MS
            if t > self.tidy_at:
                self.tidy_at = t
        else:
            self.tidy_at = now + TIDY_EVERY_MS
        due = self.periodic
        if not self.failed and self.store.flash.tidy(_need(g)) and self.tidy_at < due:
            due = self.tidy_at
        self.due = due

    def retire(self):
        """The game is held by game.json or its record: the journal's files go."""
        self.due = -1
        self.tidy_at = 0
        self.press = False
        self.failed = False
        self.store.clear()

    def saved(self, g):
        """game.json now holds Game `g` (paused or flagged): the next journal starts from
        it, and this one retires."""
        import game_state  # here, not at boot: its code takes RAM only once a game is saved

        self.base = (g.log_count, journal.tag(game_state.snapshot(g)))
        self.retire()

    def forget(self):
        """The game is over or given up (recorded, or a new game): no base, no journal."""
        self.offered = False
        self.base = None
        self.retire()

    def resumed(self, saved):
        """The offered state `saved` was restored. True when it came from the journal
        (game.json must take it in); else the next journal starts from game.json's."""
        if self.offered:
            self.offered = False
            return True
        self.base = (saved["n"], journal.tag(saved["snap"]))
        return False

    def boot(self, saved):
        """Power-up: the game the journal holds when it is newer than `saved` (game.json's
        state, or None), to offer instead; else `saved`, and a journal that is stale is
        removed. Stale: its game is recorded, or game.json holds its game in another state
        than the journal's base (saved since, or given up), or the journal continues from a
        base that game.json no longer holds (removed, or replaced by another game's). A
        game.json of another game (a finished one whose record failed) is settled first
        (archive.settle: recorded) when the journal starts from none."""
        j = self.store.load(saved, presets.COUNT)
        if j is None:
            self.store.clear()
            return saved
        ident = j["id"]
        stale = gamelog.find_game(self.root, ident, self.fs) is not None
        if saved is not None and saved["id"] == ident:
            stale = stale or journal.tag(saved["snap"]) != j["base"]
        elif j["base"]:
            stale = True  # its base is gone: the game was forgotten after it
        if stale:
            self.store.clear()
            return saved
        if saved is not None and saved["id"] != ident:
            scratch = E.Game(presets.control_of(saved["control"]))
            archive.settle(self.root, scratch, saved, self.fs)
        self.offered = True
        return j
