"""The shell's flash: every file the loop writes or settles, and the resume of a saved game.

Owns: the power-up's repair (what a power cut left on the flash, archive.py's table) and the
messages that say what it found, the saved game offered at power-up until it is answered,
the file writes the UI asks for (settings, the stopped game, a result recorded exactly once,
the retry of a record that failed) and errors.log. App calls it only while no clock runs
(a flash erase stalls the RP2040 for tens of ms) and at power-up; it never reads the time:
`now` (monotonic ms) is an argument, for the messages it shows. The running game's journal
(appjournal.py) is told of each save, record and resume, and offers its game at power-up
when it is newer than game.json.
"""

import gc

import archive
import engine as E
import gamelog
import presets
import settings as settings_mod
import storage
import ui as ui_mod
from micropython import const

ERROR_LOG = "errors.log"
_ERROR_LOG_BYTES = const(4096)  # errors.log is cut to its newest lines beyond this

_LOG_ERR = (b"LOG ", b"Err ")


class Files:
    def __init__(self, ui, root, fs, journal):
        self.ui = ui
        self.journal = journal  # appjournal.Journaling
        self.root = root
        self.fs = fs
        self.resume = None  # the saved state offered at power-up, until answered
        self.unrecorded = False  # a result's record failed (LOG Err): game.json holds it
        # REQ_* file writes asked for (keys, a flag that froze the clocks), written by the
        # loop's saves step once the displays show what caused them (flush): a flash write
        # takes tens of ms on the chip, interrupts off, and a pause must not wait behind it
        self.pending = 0

    def boot(self, status):
        """Power-up: settle what a power cut left on the flash (archive.py's table), then
        say what happened: the settings message first (shown 2 s, or until a key), then
        `LOG Err` if a finished game could not be recorded, then the resume offer or the
        result. `status` is settings.load's."""
        ui = self.ui
        gamelog.repair(self.root, self.fs)  # games/*.tmp: renamed into place or removed
        saved = settings_mod.load_game(self.root, self.fs, presets.COUNT)
        saved = self.journal.boot(saved)  # the journal's game when newer than game.json
        found = archive.NONE
        if saved is not None:
            ui.settings["control"] = saved["control"]
            ui.new_game()
            found = archive.settle(self.root, ui.game, saved, self.fs)
            if found == archive.OFFER:
                ui.new_game()
                ui.offer_resume(saved["snap"])
                self.resume = saved
            elif found == archive.NONE:
                ui.new_game()
        then = ui.screen  # the offer or the game screen comes after the messages
        log_err = _LOG_ERR if found == archive.RESULT_UNSAVED else None
        self.unrecorded = log_err is not None
        if status == settings_mod.DEFAULTS_CORRUPT:
            ui.show_message(b"SEt ", b"dEF ", 0, then, log_err)  # unreadable: defaults
        elif status == settings_mod.FIXED_INVALID:
            ui.show_message(b"SEt ", b"FIX ", 0, then, log_err)  # some values out of range
        elif log_err:
            ui.show_message(log_err[0], log_err[1], 0, then)  # the next power-up tries again
        gc.collect()

    def resumed(self, now):
        """The offered game was restored (ui): give it back what is kept beside its snapshot
        (offer.take_in: identity, rules, move log, corrections). True when game.json must
        now take it (it came from the journal: the caller saves it, save_game, which retires
        the journal)."""
        saved = self.resume
        self.resume = None
        if saved is None:
            return False
        import offer  # here, not at boot: its code takes RAM only once an offer is answered

        if not offer.take_in(self.ui.game, saved):
            self.ui.show_message(_LOG_ERR[0], _LOG_ERR[1], now)  # times kept, moves lost
        return self.journal.resumed(saved)

    def declined(self, now):
        """The offered game was not resumed (`  no`, or `rES  Err`): it goes to games/ as
        unfinished (offer.give_up: its first write is the one commit that makes the
        decline take), then its journal retires. `LOG  Err` when the flash has no room
        for the record (game.json keeps the game, as after a result)."""
        saved = self.resume
        self.resume = None
        if saved is None:
            return
        import offer  # here, not at boot: its code takes RAM only once an offer is answered

        self.unrecorded = not offer.give_up(self.root, saved, self.fs)
        if self.unrecorded:
            self.ui.show_message(_LOG_ERR[0], _LOG_ERR[1], now)
        self.journal.forget()
        gc.collect()

    def write(self, req, now):
        """The file writes of a UI request (the REQ_* bits), while no clock runs."""
        ui = self.ui
        if req & ui_mod.REQ_SAVE_SETTINGS:
            if not settings_mod.save(self.root, ui.settings, self.fs):
                ui.show_message(b"SAVE", b"Err ", now)
        if req & ui_mod.REQ_DECLINED:
            self.declined(now)
        if req & ui_mod.REQ_LOG_GAME:
            self.log_game(now)  # clears the saved game too (archive.record)
        elif req & ui_mod.REQ_CLEAR_GAME:
            self.resume = None
            self.journal.forget()
            if not self.unrecorded or self._retry_record(now):
                settings_mod.clear_game(self.root, self.fs)
        if req & ui_mod.REQ_SAVE_GAME:
            self.save_game(now)
        gc.collect()

    def flush(self, now):
        """The writes asked for (`pending`), now."""
        w = self.pending
        self.pending = 0
        self.write(w, now)

    def save_game(self, now):
        """Save the stopped game (paused or flagged) with its move log for a resume."""
        g = self.ui.game
        if g.state in (E.PAUSED, E.FLAGGED):
            self.journal.store.stop()
            if not archive.save(self.root, g, self.ui.settings["control"], self.fs):
                self.ui.show_message(b"SAVE", b"Err ", now)
                return  # the journal keeps the game as of its last record
            self.journal.saved(g)

    def log_game(self, now):
        """The result is confirmed: record it exactly once (archive.record)."""
        if archive.record(self.root, self.ui.game, self.ui.settings["control"], self.fs):
            self.unrecorded = False
        else:
            self.unrecorded = True
            self.ui.show_message(_LOG_ERR[0], _LOG_ERR[1], now)
        self.journal.forget()  # the finished game is in game.json or games/

    def _retry_record(self, now):
        """A new game replaces one whose record failed (LOG Err): record that one from
        game.json first (archive.settle on a scratch Game), so a clock that stays on does not
        lose it. True when game.json may go; False (LOG Err again) when the record still
        cannot be written: game.json then keeps the finished game until the new game's
        first save replaces it, or the next power-up records it."""
        self.unrecorded = False
        saved = settings_mod.load_game(self.root, self.fs, presets.COUNT)
        if saved is None:
            return True
        found = archive.settle(
            self.root, E.Game(presets.control_of(saved["control"])), saved, self.fs
        )
        if found == archive.RESULT_UNSAVED:
            self.ui.show_message(_LOG_ERR[0], _LOG_ERR[1], now)
            return False
        return True

    def log_error(self, ms, n, exc):
        """Append the n-th error of the loop (at monotonic `ms`) to errors.log; a failing
        flash is ignored (the loop goes on)."""
        try:
            storage.append_log(
                storage.join(self.root, ERROR_LOG),
                "%d #%d %s" % (ms, n, repr(exc)),
                _ERROR_LOG_BYTES,
                self.fs,
            )
        except Exception:
            pass
