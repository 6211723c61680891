"""The shell's journal: the running game's records on flash (journal.py, journal_files.py).

Owns: when a record is due (a press's, or a ticked period's or flag's, as soon as that
wakeup's LEDs and frames are out, before its feed and any other write; every JOURNAL_MS
while a side thinks, never near the flag deadline nor just before a display change), when
the quiet writes come (chunks, tidies), the journal made ready while no clock runs (its
head written ahead of the press that starts or resumes the clock), the base a journal
starts from (the game state game.json holds), its retirement once game.json or the game's
record holds the game, and at power-up the choice between the journal's game and
game.json's. App calls `record` and `prepare` at its steps of a wakeup; appfiles.Files
calls the rest where it saves, records, resumes and settles. It never reads the time:
`now` (monotonic ms) is an argument.

While a clock runs only the journal writes. A press's record is one small littlefs commit
(a state slot), written at once. Every dozen or so commits littlefs compacts the journal
folder's metadata, a sector erase (45 ms typical, interrupts off): journal_tidy.py learns
from the writes' durations when the next one comes, and when the next press's record could
take it, a tidy brings records forward to a quiet wakeup, ordinary periodic records as of
the instant the engine was ticked to, until one compacts. The chunks (eight half-moves a
file, in a folder of their own that grows with the game) are written at quiet wakeups too.
A quiet wakeup is TIDY_AFTER_MS after the press at the soonest, with TIDY_ROOM_MS before
the next display change and the flag deadline; a tidy comes one every TIDY_EVERY_MS at
most, and every GC_EVERY records a quiet wakeup collects the garbage. The PIO lever
stamps (levers.py) keep a press's instant exact while a write holds the core.
"""

import gc

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
# A press's record is not written this close before the flag deadline (the flag's wakeup
# first; the save of the game the flag froze holds the press)
PRESS_GUARD_MS = const(10)
# A periodic record waits for a wakeup whose next display change is at least this far (ms)
JOURNAL_ROOM_MS = const(60)
# A tidy (records brought forward for a compaction: journal_tidy.py) at a wakeup at least
# this long after the press's record, with this much room before the next display change
# and the flag deadline (an erase and a few records), and one this often at most.
TIDY_AFTER_MS = const(150)
TIDY_ROOM_MS = const(150)
TIDY_EVERY_MS = const(1_000)
# The journal is made ready this long (ms) after the wakeup that finds it armed
PREPARE_AFTER_MS = const(300)
# A garbage collection (24 ms on the chip) at a quiet wakeup once this many records have
# been written since the last: the heap never fills up in a press's record (MicroPython
# would collect there), and a record's allocations, a first-fit search through the garbage
# since the last collection, stay quick (on the chip they take up to 4 ms more after 30
# records without one)
GC_EVERY = const(8)


class Journaling:
    def __init__(self, ui, root, fs):
        self.ui = ui
        self.root = root
        self.fs = fs
        self.store = journal_files.Journal(root, fs)
        self.base = None  # (log count, journal.tag) of the game state game.json holds
        self.press = False  # a press (or a ticked period/flag): a record is due
        self.due = -1  # the next periodic record or tidy (monotonic ms), -1 = none
        self.wake_at = -1  # the next quiet write's instant, for the loop's sleep; -1: none
        self.periodic = 0  # the next periodic record (monotonic ms)
        self.tidy_at = 0  # no tidy before this (monotonic ms)
        self.failed = False  # a write failed: none until the game stops
        self.offered = False  # the game offered at power-up came from the journal
        # the journal's old files may go and the next one's head be written (prepare): set
        # once game.json or the game's record holds what the journal held, or nothing does
        self.armed = False
        self.prepare_at = -1  # when the armed journal is made ready (monotonic ms), -1: not set
        self.garbage = 0  # records written since the last garbage collection
        # Records while a clock runs; off only where a test proves the press path allocates
        # nothing (make bench's heap_lock runs: a record allocates, measured apart)
        self.enabled = True
        # () -> True while a press waits in the levers' rings (the app hands its levers'
        # `waiting`): a tidy stops between its records for one; None: never
        self.waiting = None

    def record(self, now, at, at_us, deadline, next_render, wdt):
        """A record of the running game, after this wakeup's LEDs and frames. After a press
        (or a ticked period or flag): at once, as of the engine's last event (not
        PRESS_GUARD_MS before the flag `deadline`). Else, at a quiet wakeup (the module
        doc), the chunks due, or a tidy when one is due: up to journal_tidy.TIDY_MAX
        records as of the instant the engine was ticked to (`at` ms, `at_us` µs), until one
        compacts; else every JOURNAL_MS such a record, not JOURNAL_GUARD_MS before the flag
        deadline nor JOURNAL_ROOM_MS before `next_render` (then after that change's render).
        The watchdog `wdt` (or None) is fed around each. Allocates (the record's bytes,
        file objects); the first record of a journal also writes its head when prepare()
        has not, and every logged half-move the journal does not have yet."""
        g = self.ui.game
        if g.state != E.RUNNING or self.failed or not self.enabled:
            self.press = False
            self.due = self.wake_at = -1
            self.tidy_at = 0
            return
        if self.press:
            if 0 <= deadline < now + PRESS_GUARD_MS:
                return  # the flag's wakeup first (a fallen flag is saved anyway)
            self.press = False
            self._write(g, g.last_event, g.last_us, 0, wdt)
            self._next(now, g, True)
            return
        if 0 <= deadline < now + JOURNAL_GUARD_MS:
            return  # the flag is near: its wakeup first (a fallen flag is saved anyway)
        j = self.store
        n = 0  # the records a tidy writes
        if now >= self.tidy_at and not (0 <= next_render < now + TIDY_ROOM_MS):
            n = j.flash.tidy(j.press_commits(g))
            if not n and (j.chunks_due(g) or j.slots_due() or self.garbage >= GC_EVERY):
                if wdt is not None:
                    wdt.feed()
                try:
                    if j.chunks_due(g):
                        j.write_chunks(g)
                    elif j.slots_due():
                        j.open_slots()
                    else:
                        gc.collect()
                        self.garbage = 0
                except OSError:
                    self.failed = True  # a full flash: the game goes on; a pause saves it
                self._next(now, g, False, now + TIDY_AFTER_MS)  # what else is due: later
                return
        if not n:
            if now < self.periodic:
                return  # a quiet wakeup without room for its write (or none due now)
            if 0 <= next_render < now + JOURNAL_ROOM_MS:
                return  # a display change is near: after its render (a wakeup soon)
        self._write(g, at, at_us, n, wdt)
        self._next(now, g, False)

    def _write(self, g, at, at_us, n, wdt):
        """A record of Game `g` as of `at`.`at_us`, and when `n` > 1 a tidy's: up to `n`
        records until one compacts (one stops early for a press waiting in the levers)."""
        j = self.store
        if wdt is not None:
            wdt.feed()
        try:
            if not j.active():
                if not g.ident:
                    g.set_ident(archive.new_ident())
                j.start(g, self.ui.settings["control"], self.base)
            self.garbage += 1
            while not j.write(g, at, at_us) and n > 1:
                waiting = self.waiting
                if waiting is not None and waiting():
                    break  # a lever press waits for its LEDs and frames: the tidy later
                n -= 1  # no compaction yet: the tidy's next record
                self.garbage += 1
                if wdt is not None:
                    wdt.feed()
        except OSError:
            self.failed = True  # a full flash: the game goes on; a pause saves it
        if wdt is not None:
            wdt.feed()

    def _next(self, now, g, press, tidy_at=0):
        """After a write at `now` (a press's record when `press`): `due` is the next
        periodic record, or a quiet wakeup sooner when chunks are due or the next press's
        record could take a compaction (not sooner than TIDY_AFTER_MS after a press's
        record, nor TIDY_EVERY_MS after a tidy, nor `tidy_at`)."""
        if tidy_at:
            self.tidy_at = tidy_at
        elif press:
            t = now + TIDY_AFTER_MS
            if t > self.tidy_at:
                self.tidy_at = t
        else:
            self.periodic = now + JOURNAL_MS
            self.tidy_at = now + TIDY_EVERY_MS
        if press:
            self.periodic = now + JOURNAL_MS
        due = self.periodic
        j = self.store
        if not self.failed and self.tidy_at < due:
            if self.garbage >= GC_EVERY or j.chunks_due(g) or j.slots_due():
                due = self.tidy_at
            elif j.flash.tidy(j.press_commits(g)):
                due = self.tidy_at
        self.due = due
        # a quiet write is worth a wakeup of its own (the loop's sleep step); a periodic
        # record rides on the display's and the watchdog's wakeups
        self.wake_at = due if due != self.periodic else -1

    def prepare(self, now, wdt):
        """While no clock runs, once armed (the old journal's game is held elsewhere): the
        next journal made ready for the press that starts or resumes the clock
        (journal_files.Journal.prepare: the old files removed, the head written, the
        folder's compactions learnt), so that press's record writes only its state. It
        comes PREPARE_AFTER_MS after the first wakeup that finds it armed (`now`; then
        `wake_at` asks the loop for a wakeup; at power-up at once), not in the wakeup of
        the key that set the game up: a lever pressed right after that key would wait for
        it (its erases, tens of ms) and the press's first display change with it; such a
        press starts the journal itself, as an unprepared one. Gives the game its ident
        when it has none. A failed write leaves it to that press's record."""
        if self.prepare_at < 0:
            self.prepare_at = now + PREPARE_AFTER_MS
        if now < self.prepare_at:
            self.wake_at = self.prepare_at
            return
        self.prepare_at = -1
        self.wake_at = -1
        self.armed = False
        g = self.ui.game
        if self.failed or not self.enabled:
            return
        if not g.ident:
            g.set_ident(archive.new_ident())
        try:
            self.store.prepare(g, self.ui.settings["control"], self.base, wdt)
        except OSError:
            pass  # the press's record starts the journal itself

    def retire(self):
        """The game is held by game.json or its record: the journal's files go."""
        self.due = self.wake_at = -1
        self.tidy_at = 0
        self.press = False
        self.failed = False
        self.store.clear()
        self.armed = True
        self.prepare_at = -1

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
        self.armed = True  # the prepared head had another base
        self.prepare_at = -1
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
            self.armed = True
            self.prepare_at = 0  # at the first wakeup: no key set this game up
            return saved
        ident = j["id"]
        stale = gamelog.find_game(self.root, ident, self.fs) is not None
        if saved is not None and saved["id"] == ident:
            stale = stale or journal.tag(saved["snap"]) != j["base"]
        elif j["base"]:
            stale = True  # its base is gone: the game was forgotten after it
        if stale:
            self.store.clear()
            self.armed = True
            self.prepare_at = 0  # at the first wakeup: no key set this game up
            return saved
        if saved is not None and saved["id"] != ident:
            scratch = E.Game(presets.control_of(saved["control"]))
            archive.settle(self.root, scratch, saved, self.fs)
        self.offered = True
        return j
