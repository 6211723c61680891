"""The imperative shell: the event-driven loop that joins the board to the engine and the UI.

Owns: the loop, the monotonic clock, draining the lever stamps into the engine in timestamp
order, polling the buttons, rendering to the displays (written only when their bytes
change), the LEDs, the buzzer, the battery reading, the watchdog, and every file write the
UI asks for. The UI asks for writes only while the clocks are stopped (a flash erase stalls
the RP2040 for tens of ms); while a clock runs only the journal writes (journal_files.py: a
record after each press, once its LEDs and frames are out, and every JOURNAL_MS), one small
littlefs commit each.

The loop sleeps until something can change, then does only what is due (`wake`):
- a lever or button edge: its hard IRQ rings the board's doorbell, which ends the sleep at
  once (levers: stamped in the IRQ, drained here in timestamp order; buttons: polled now
  and then only while one is down or settling, for debounce, long press and auto-repeat);
- the instant the shown text next changes (`Ui.next_change`: from `Game.remaining()` and
  timefmt's rounding for each side, the colon beat, blinking, messages);
- the flag deadline (`Game.deadline()`; the engine flags at the exact instant however late
  the wakeup), the next buzzer step, a lever's re-arm after its release, the battery check
  while the game is ready, and at least every FEED_MS for the watchdog and the monotonic
  clock.
A wakeup that finds nothing due costs a few calls: nothing is polled, drained or rendered.

Mechanism, and why: `select.poll` on a doorbell stream (doorbell.py), as micropython-async's
ThreadSafeFlag does it, with the time to the next due instant as the poll's timeout. No
timer or scheduler is needed: the WFE inside `poll` sleeps the core, any interrupt wakes it,
and a one-shot `machine.Timer` would only add a soft-IRQ callback and a re-arm per wakeup.
`machine.idle()` is not used: on the rp2 port it wakes every 1 ms. The sleep ends at the
raw `ticks_us()` instant of the next due ms (`Doorbell.wait_until`), computed from a clock
reading taken at the end of the wakeup, so a wakeup's own length is not slept (a render
wakeup lasts milliseconds on the chip: counted from its start, every change came that much
late). A PIO state machine counts the µs to that instant and its interrupt ends the sleep
(alarm_pio.py, doorbell.py), so the loop wakes within 0.2 ms after the due instant, never
before, and a change is written that plus the work before its frame after its exact
instant. (Until issue 14 the timeout was whole ms + 1 from a ms reading: 1-2 ms late.)

A lever press sets the LEDs as soon as it is drained, before anything else it causes
(buttons, render, frames): they are the players' quickest sign.

Errors: an exception in a wakeup is logged to /errors.log (the 1st, 2nd, 4th, 8th... with
their count, so a fault that repeats does not wear the flash) and the loop goes on (the
displays keep the last times; the next wakeup polls and redraws everything); the watchdog resets a
hung loop, and the game (as of its journal's last record, or saved at the last pause) is
offered again at power-up.

USB: the serial port is the board's `usb` (usbguard.py). From the loop's start Ctrl-C is an
ordinary byte; while a game is in progress (RUNNING, PAUSED, FLAGGED) nothing a host sends
changes anything, each burst gets a status line. At the ready screen and after a result, a
Ctrl-C from the host hands the board over at a safe point, between two wakeups: the buzzer
stops, the LEDs go off, the displays say `USb  StoP`, Ctrl-C is given back and the loop
returns (main.py ends, the REPL starts, the host tools get in as before; the watchdog still
runs, so a board nobody takes over resets itself and the clock comes back). A
KeyboardInterrupt that gets in anyway (pending before the loop set kbd_intr(-1)) is
ignored during a game and counted in `interrupts`; elsewhere it hands over the same way.

Files: the game state and its record go through archive.py (exactly once across power cuts;
its docstring has the protocol), the running game through the journal (journal.py);
boot_files() settles at power-up what a cut left behind, the journal first
(_journal_boot: its game is offered when it is newer than game.json).
"""

import gc
import os
import time

import archive
import buzzer as buzzer_mod
import engine as E
import gamelog
import journal
import journal_files
import presets
import segments
import settings as settings_mod
import storage
import ui as ui_mod
from micropython import const
from monoclock import REBASE_MS, MonoClock

WDT_MS = const(8_000)  # watchdog timeout (the RP2040 allows up to 8.3 s)
FEED_MS = const(4_000)  # the loop wakes at least this often: watchdog, monotonic clock
BATTERY_MS = const(30_000)  # battery reading while the game is ready, ms
# The journal (journal.py): a record after each press, and this often while a side thinks
# (riding on a display change's wakeup: the countdown shows at least every second), but
# not this close before the flag deadline (the flag's wakeup must not wait for a write).
JOURNAL_MS = const(10_000)
JOURNAL_GUARD_MS = const(250)
# A record waits for a wakeup whose next display change is at least this far (ms): a
# littlefs metadata compaction erases a sector (45 ms typical) in some of the writes; but
# never more than JOURNAL_WAIT_MS after the press it records.
JOURNAL_ROOM_MS = const(60)
JOURNAL_WAIT_MS = const(400)
_ERROR_RETRY_MS = const(10)  # after a failed wakeup, the next one comes this soon
# A lever press this soon (ms) after the other lever's accepted press is one slap on both
# levers, not a reply (nobody moves in 50 ms): the engine ignores it (Game.min_move_ms).
BOTH_LEVERS_MS = const(50)
ERROR_LOG = "errors.log"

_LAST_SECONDS_BEEP = (3_000, 40)  # one of the last 5 s began


class App:
    def __init__(self, board, root="/", fs=os):
        self.board = board
        self.root = root
        self.fs = fs
        self.errors = 0
        self.wakeups = 0  # wakeups since boot (make bench counts them)
        self._wake_us = time.ticks_us()  # raw ticks_us the loop sleeps until
        self._next_render = 0  # when the shown text next changes (ms), -1 = not by itself
        self._lever_due = -1  # when a lever can be re-armed (ms), -1 = only after an edge
        self._button_due = -1  # when the buttons need a poll (ms), -1 = only after an edge
        self._battery_due = 0  # next battery reading (ms)
        self._poll_all = True  # poll every source at the next wakeup (boot, after an error)
        self._save_flag = False  # a flag froze the clocks: save after this wakeup's render
        self._leds = -1  # the LED mask last written (-1 = unknown: write at the next render)
        # Game.deadline() as the last wakeup left it, with the engine's last event then: a
        # running clock's deadline moves only with an event (Game.last_event / last_us)
        self._dl = -1
        self._dl_ms = self._dl_us = -1
        self.wdt = None
        self.mono = MonoClock(time.ticks_us())
        self.segs = (bytearray(4), bytearray(4))
        s, status = settings_mod.load(root, presets.COUNT, fs)
        self.ui = ui_mod.Ui(s)
        self.ui.game.min_move_ms = BOTH_LEVERS_MS
        self._resume = None  # the saved state offered at power-up, until answered
        self.journal = journal_files.Journal(root, fs)
        self._jbase = None  # (log count, journal.tag) of the game state game.json holds
        self._jpress = False  # a press (or a ticked period/flag): a journal record is due
        self._journal_due = -1  # the next periodic journal record (ms), -1 = none
        self._jfailed = False  # a journal write failed: none until the game stops
        self._resume_journal = False  # the offered game came from the journal
        # Journal records while a clock runs; off only where a test proves the press path
        # allocates nothing (make bench's heap_lock runs: a record allocates, measured apart)
        self.journaling = True
        self._unrecorded = False  # a result's record failed (LOG Err): game.json holds it
        self.boot_files(status)
        self.apply_settings()
        self._on_lever = self.on_lever  # bound once: drain() must not allocate a bound method
        self.usb = getattr(board, "usb", None)  # usbguard.UsbGuard; None on a stand-in board
        self.handed_over = False  # a USB host asked for the board: the loop has ended
        self.interrupts = 0  # KeyboardInterrupts ignored during a game

    # ------------------------------------------------------------ loop
    def run(self):
        """Start the watchdog, then loop forever."""
        self.wdt = self.board.watchdog(WDT_MS)
        if self.usb is not None:
            self.usb.start()
        self.run_loop()

    def run_loop(self):
        """The main loop: a wakeup, then sleep until the bell rings or the next due instant.
        (Waking first makes a resumed loop recompute its sleep: the host harness stops and
        resumes it.)"""
        wait_until = self.board.bell.wait_until
        while not self.handed_over:
            try:
                self.safe_wake()
                if not self.handed_over:
                    wait_until(self._wake_us)
            except KeyboardInterrupt:
                if not E.RUNNING <= self.ui.game.state <= E.FLAGGED:
                    self.hand_over()
                    raise
                self.interrupts += 1  # a game: go on, redraw and poll everything next
                self._poll_all = True
                self._next_render = 0
                self._wake_us = time.ticks_us()
        self.hand_over()

    def safe_wake(self):
        try:
            self.wake()
        except Exception as exc:  # keep the times on screen, log, go on
            self.errors += 1
            self._poll_all = True
            self._leds = -1  # the LEDs may not be what the cut wakeup meant
            self._next_render = 0  # redraw at the next wakeup what this one may have left
            self._wake_us = time.ticks_add(time.ticks_us(), _ERROR_RETRY_MS * 1000)
            n = self.errors
            if n & (n - 1) == 0:  # the 1st, 2nd, 4th, 8th... error: a fault in every
                try:  # wakeup must not write the flash 100 times a second
                    storage.append_log(
                        storage.join(self.root, ERROR_LOG),
                        "%d #%d %s" % (self.mono.ms, n, repr(exc)),
                        4096,
                        self.fs,
                    )
                except Exception:
                    pass
        wdt = self.wdt
        if wdt is not None:
            wdt.feed()

    def on_lever(self, side, stamp_us):
        mono = self.mono
        at = mono.ms_at(stamp_us)  # the stamp's exact instant: ms, and its us in at_us
        ev = self.ui.game.press(side, at, mono.at_us)
        if ev & (E.EV_FLAG | E.EV_PERIOD):  # a sound (a plain move or start has none)
            self._events(ev)

    def wake(self):
        """Do what is due now, then set `_wake_us` to the next due instant. Allocates
        nothing unless a button event or a file write asks for it."""
        b = self.board
        ui = self.ui
        # Which sources rang (doorbell.py: 1 the levers, 2 the buttons), before looking at
        # them; after an error or at boot, all of them.
        rang = b.bell.take()
        if self._poll_all:
            rang = 3
            self._poll_all = False
        now = self.mono.update(time.ticks_us())
        if now >= REBASE_MS and self._can_rebase(now):
            now = self._rebase()
        self.wakeups += 1
        # Deadlines are ticked up to this reading only (to its us): every lever stamp
        # before it is in the ring now (an IRQ that stamped earlier has finished), so the
        # drain below hands the engine every press before a deadline it processes
        # (engine.py's contract).
        drained = now
        drained_us = self.mono.rem_us
        levers = b.levers
        pressed = False
        if levers.pending():
            if ui.screen == ui_mod.S_GAME:
                levers.drain(self._on_lever)
                g = ui.game
                if g.state == E.RUNNING:
                    # The LEDs first: after a press they are the quickest sign, so nothing
                    # else the press causes (buttons, render, frames) comes before them.
                    # The game screen's rule while a clock runs (ui_game.py): the running
                    # side's LED; render() leaves them when its mask is the same.
                    leds = 1 << g.running
                    b.set_leds(leds)
                    self._leds = leds
                # An edge whose IRQ ran after the clock reading above is stamped after
                # `now`: then read the clock again, so no engine event is later than the
                # `now` this wakeup renders and schedules with (else a clock that started
                # 1 ms "in the future" looks stopped to next_change, and its display waits).
                if g.last_event > now:
                    now = self.mono.update(time.ticks_us())
                pressed = True
                self._jpress = True
                # The press's own render at once: after the LEDs the displays are the next
                # sign. What else is due (re-arming, the deadlines, buttons, sounds) comes
                # after it, and renders again if it changes anything.
                self.render(now)
            else:
                levers.clear()  # a lever touched in a menu must not start a game later
        if rang & 1 or 0 <= self._lever_due <= now:
            wait_us = levers.update()
            if wait_us >= 0:
                # The first whole ms at or after the exact re-arm instant (counted from the
                # driver's own reading: this wakeup may have rendered since `now`), so the
                # wakeup for it re-arms at once instead of waking again a ms later.
                mono = self.mono
                due = mono.ms_at(time.ticks_add(levers.checked_us, wait_us))
                self._lever_due = due + 1 if mono.at_us else due
            else:
                self._lever_due = -1
        g = ui.game
        # The deadline (rounded up: the exact instant may be in the ms before): the one the
        # last wakeup left while no edge rang and the engine had no event since (a timed
        # wakeup: nothing has touched the engine), else asked again.
        if rang or pressed or g.last_event != self._dl_ms or g.last_us != self._dl_us:
            deadline = self._deadline(g)
        else:
            deadline = self._dl
        dirty = False
        if 0 <= deadline <= drained + 1:  # a later one: the next wakeup, at once (_next_due)
            ev = g.tick(drained, drained_us)
            if ev:
                self._events(ev)
                dirty = True
        if rang & 2 or 0 <= self._button_due <= now:
            if self._buttons(now):
                dirty = True
        buzzer = b.buzzer
        if buzzer.next_due(now) == 0:
            buzzer.update(now)
        usb = self.usb
        if usb is not None and usb.due(now, g.state) and usb.service(now, g.state):
            self.handed_over = True  # the loop ends after this wakeup
        if g.state == E.READY and self._battery_due <= now:
            self._battery_due = now + BATTERY_MS
            pct = b.battery_percent()
            if pct != ui.battery_pct:
                ui.battery_pct = pct
                dirty = True
        if dirty or (not pressed and 0 <= self._next_render <= now):
            self.render(now)
        if dirty:
            deadline = self._deadline(g)  # keys and events may have changed it
        if g.last_event == now and g.last_us:
            # An event inside this ms (after now.000): a press stamped after the reading, or
            # a deadline ticked at its us (the alarm wakes the loop at it). The times bend
            # there, so next_change's 1 ms per ms look from `now` may miss the first change;
            # look again from the next ms (engine.py's contract).
            self._next_render = now + 1
        if self._jpress or 0 <= self._journal_due <= now:
            self._journal(now, drained, drained_us, deadline)
        if self._save_flag:
            # A flash write (tens of ms on the chip, interrupts off) only once the flag is
            # on the displays; then wake again at once: `now` is old, the save may have
            # shown a message.
            self._save_flag = False
            self.save_game(now)
            self._next_render = 0
        # Sleep until the next due instant, from a fresh reading at the end of this wakeup
        # (its own length, ms on the chip for a render, is not slept).
        # The flag falls at its exact us: when it is what comes first, sleep until that us,
        # not the whole ms after it.
        nxt = self._next_due(now, deadline)
        mono = self.mono
        mono.update(time.ticks_us())
        wake = mono.ticks_at(nxt)
        if nxt == deadline:
            du = g.deadline_us()
            if du:
                wake = time.ticks_add(wake, du - 1000)
        self._wake_us = wake

    def _deadline(self, g):
        """Game.deadline(), kept with the engine's last event (see wake)."""
        d = g.deadline()
        self._dl = d
        self._dl_ms = g.last_event
        self._dl_us = g.last_us
        return d

    def hand_over(self):
        """The board goes to a USB host (not during a game): Ctrl-C back, quiet, say so."""
        b = self.board
        if self.usb is not None:
            self.usb.stop()
        b.buzzer.stop()
        b.set_leds(0)
        self._leds = 0
        for side, text in ((0, b"USb "), (1, b"StoP")):
            segments.encode_into(self.segs[side], text, 0)
            b.displays[side].show(self.segs[side])

    def _can_rebase(self, now):
        """True when no instant is kept in the monotonic count but the loop's own: a game
        ready (the engine holds no time yet) or finished (its instants are never used
        again), the game screen (no message), silent, no button down or settling (their
        pending instants would be in the old count). A game paused or flagged for days keeps
        the old count until it ends: ints stay small for 12.4 days, int32 for 24.8."""
        b = self.board
        return (
            self.ui.game.state in (E.READY, E.FINISHED)
            and self.ui.screen == ui_mod.S_GAME
            and b.buzzer.next_due(now) < 0
            and b.buttons.next_due(now) < 0
        )

    def _rebase(self):
        """Restart the monotonic count at 0 (see monoclock.py); every due instant of the
        loop is recomputed at once. Returns the new `now`."""
        self.mono.rebase()
        self._next_render = 0
        self._battery_due = 0
        if self._lever_due >= 0:
            self._lever_due = 0
        self._button_due = -1
        if self.usb is not None:
            self.usb.rebase()
        return 0

    def _buttons(self, now):
        """Poll the buttons and hand their events to the UI; True when there were any."""
        buttons = self.board.buttons
        buttons.poll(now)
        any_event = False
        while True:
            event = buttons.pop()
            if not event:
                break
            any_event = True
            req = self.ui.key(event >> 2, event & 3, now)  # buttons.py: button << 2 | kind
            if req:
                self.handle(req, now)
        wait = buttons.next_due(now)
        self._button_due = now + wait if wait >= 0 else -1
        return any_event

    def _next_due(self, now, deadline):
        """The earliest due instant (monotonic ms) after a wakeup at `now`; the loop sleeps
        until then (see the module doc)."""
        nxt = now + FEED_MS
        d = self._next_render
        if 0 <= d < nxt:
            nxt = d
        if 0 <= deadline < nxt:
            nxt = deadline
        d = self._lever_due
        if 0 <= d < nxt:
            nxt = d
        d = self._button_due
        if 0 <= d < nxt:
            nxt = d
        d = self.board.buzzer.next_due(now)
        if 0 <= d and now + d < nxt:
            nxt = now + d
        if self.ui.game.state == E.READY and self._battery_due < nxt:
            nxt = self._battery_due
        if self.usb is not None:
            d = self.usb.next_due()
            if 0 <= d < nxt:
                nxt = d
        return nxt

    def _events(self, ev):
        """Sound for engine events; a flag that froze both clocks is saved in the same
        wakeup, right after the render (the clocks are stopped, so the flash write stalls
        no clock, but it would hold back the flag on the displays), so a power loss before
        the arbiter's ruling does not lose the fallen flag."""
        now = self.mono.ms
        self._jpress = True  # the journal: record the new period or the fallen flag
        if ev & E.EV_FLAG:
            self.board.buzzer.play(buzzer_mod.FLAG, now)
            if self.ui.game.state == E.FLAGGED:
                self._save_flag = True
        elif ev & E.EV_PERIOD:
            self.board.buzzer.play(buzzer_mod.MOVES_DONE, now)

    def render(self, now):
        """Draw the UI for `now` (LEDs first: after a press they are the quickest sign),
        note when it next changes, and sound the low-time alerts, which fall on instants the
        running side's text changes."""
        b = self.board
        ui = self.ui
        ui.render(now)
        leds = ui.leds
        if leds != self._leds:
            b.set_leds(leds)
            self._leds = leds
        segs = self.segs
        text = ui.text
        colon = ui.colon
        displays = b.displays
        segments.encode_ascii(segs[0], text[0], colon[0])
        displays[0].show(segs[0])
        segments.encode_ascii(segs[1], text[1], colon[1])
        displays[1].show(segs[1])
        self._next_render = ui.next_change(now)
        alert = ui.alerts(now)
        if alert:
            pattern = buzzer_mod.LOW_TIME if alert == 1 else _LAST_SECONDS_BEEP
            b.buzzer.play(pattern, now)

    # ------------------------------------------------------ files
    def boot_files(self, status):
        """Power-up: settle what a power cut left on the flash (archive.py's table), then
        say what happened: the settings message first (shown 2 s, or until a key), then
        `LOG Err` if a finished game could not be recorded, then the resume offer or the
        result."""
        ui = self.ui
        gamelog.repair(self.root, self.fs)  # games/*.tmp: renamed into place or removed
        saved = settings_mod.load_game(self.root, self.fs, presets.COUNT)
        saved = self._journal_boot(saved)
        found = archive.NONE
        if saved is not None:
            ui.settings["control"] = saved["control"]
            ui.new_game()
            found = archive.settle(self.root, ui.game, saved, self.fs)
            if found == archive.OFFER:
                ui.new_game()
                ui.offer_resume(saved["snap"])
                self._resume = saved
            elif found == archive.NONE:
                ui.new_game()
        then = ui.screen  # the offer or the game screen comes after the messages
        log_err = (b"LOG ", b"Err ") if found == archive.RESULT_UNSAVED else None
        self._unrecorded = log_err is not None
        if status == settings_mod.DEFAULTS_CORRUPT:
            ui.show_message(b"SEt ", b"dEF ", 0, then, log_err)  # unreadable: defaults
        elif status == settings_mod.FIXED_INVALID:
            ui.show_message(b"SEt ", b"FIX ", 0, then, log_err)  # some values out of range
        elif log_err:
            ui.show_message(log_err[0], log_err[1], 0, then)  # the next power-up tries again
        gc.collect()

    def _resumed(self, now):
        """The offered game was restored (ui): give it back its identity, its rules (freeze,
        increment timing, period transition: the settings may have been reset since) and its
        move log."""
        saved = self._resume
        self._resume = None
        if saved is None:
            return
        from_journal = self._resume_journal
        self._resume_journal = False
        g = self.ui.game
        g.ident = saved["id"]
        opts = saved["opts"]  # the rules the game began with; the settings may have been reset
        if len(opts) >= 3 and opts[2] in (E.TRANSITION_MOVES, E.TRANSITION_FLAG):
            g.freeze, g.inc_before, g.transition = bool(opts[0]), bool(opts[1]), opts[2]
        if g.restore_log(saved["n"], saved["log"]) != E.OK:
            self.ui.show_message(b"LOG ", b"Err ", now)  # times kept, earlier moves lost
        if from_journal:
            self.save_game(now)  # game.json takes the journal's game; the journal retires
        else:
            self._jbase = (saved["n"], journal.tag(saved["snap"]))

    # ------------------------------------------------------ requests
    def handle(self, req, now):
        ui = self.ui
        g = ui.game
        if req & ui_mod.REQ_BEEP:
            self.board.buzzer.play(buzzer_mod.ERROR, now)
        if req & ui_mod.REQ_APPLY_SETTINGS:
            self.apply_settings()
        if req & ui_mod.REQ_RESUMED:
            self._resumed(now)
        if g.state == E.RUNNING:
            return  # no file the UI asks for while a clock runs (the journal is the shell's)
        if req & ui_mod.REQ_SAVE_SETTINGS:
            if not settings_mod.save(self.root, ui.settings, self.fs):
                ui.show_message(b"SAVE", b"Err ", now)
        if req & ui_mod.REQ_LOG_GAME:
            self.log_game(now)  # clears the saved game too (archive.record)
        elif req & ui_mod.REQ_CLEAR_GAME:
            self._resume = None
            self._resume_journal = False
            self._journal_retire()
            self._jbase = None
            if not self._unrecorded or self._retry_record(now):
                settings_mod.clear_game(self.root, self.fs)
        if req & ui_mod.REQ_SAVE_GAME:
            self.save_game(now)
        gc.collect()

    def apply_settings(self):
        s = self.ui.settings
        self.board.buzzer.set_enabled(s["sound"])
        for d in self.board.displays:
            d.set_brightness(s["brightness"])

    def save_game(self, now):
        """Save the stopped game (paused or flagged) with its move log for a resume."""
        g = self.ui.game
        if g.state in (E.PAUSED, E.FLAGGED):
            self.journal.stop()
            if not archive.save(self.root, g, self.ui.settings["control"], self.fs):
                self.ui.show_message(b"SAVE", b"Err ", now)
                return  # the journal keeps the game as of its last record
            self._jbase = (g.log_count, journal.tag(g.snapshot()))
            self._journal_retire()

    def log_game(self, now):
        """The result is confirmed: record it exactly once (archive.record)."""
        if archive.record(self.root, self.ui.game, self.ui.settings["control"], self.fs):
            self._unrecorded = False
        else:
            self._unrecorded = True
            self.ui.show_message(b"LOG ", b"Err ", now)
        self._jbase = None
        self._journal_retire()  # the finished game is in game.json or games/

    def _retry_record(self, now):
        """A new game replaces one whose record failed (LOG Err): record that one from
        game.json first (archive.settle on a scratch Game), so a clock that stays on does not
        lose it. True when game.json may go; False (LOG Err again) when the record still
        cannot be written: game.json then keeps the finished game until the new game's
        first save replaces it, or the next power-up records it."""
        self._unrecorded = False
        saved = settings_mod.load_game(self.root, self.fs, presets.COUNT)
        if saved is None:
            return True
        found = archive.settle(
            self.root, E.Game(ui_mod.control_of(saved["control"])), saved, self.fs
        )
        if found == archive.RESULT_UNSAVED:
            self.ui.show_message(b"LOG ", b"Err ", now)
            return False
        return True

    # ------------------------------------------------------ the journal
    def _journal(self, now, at, at_us, deadline):
        """A journal record of the running game (journal_files.py), after this wakeup's
        LEDs and frames: after a press (or a ticked period or flag) as of the engine's last
        event, else every JOURNAL_MS as of the instant the engine was ticked to (at.at_us);
        not JOURNAL_GUARD_MS before the flag deadline, nor JOURNAL_ROOM_MS before the next
        display change (then after that change's render, within JOURNAL_WAIT_MS of the
        press: the display changes at least every second). The watchdog is fed around it.
        Allocates (the record's bytes, file objects); the first record of a journal also
        writes its head and every logged half-move the journal does not have yet."""
        g = self.ui.game
        if g.state != E.RUNNING or self._jfailed or not self.journaling:
            self._jpress = False
            self._journal_due = -1
            return
        if 0 <= deadline < now + JOURNAL_GUARD_MS:
            return  # the flag is near: its wakeup first (a fallen flag is saved anyway)
        if 0 <= self._next_render < now + JOURNAL_ROOM_MS:
            if not self._jpress or now < g.last_event + JOURNAL_WAIT_MS:
                return  # a display change is near: after its render (a wakeup soon)
        if self._jpress:
            self._jpress = False
            at, at_us = g.last_event, g.last_us
        j = self.journal
        wdt = self.wdt
        if wdt is not None:
            wdt.feed()
        try:
            if not j.active():
                if not g.ident:
                    g.ident = archive.new_ident()
                j.start(g, self.ui.settings["control"], self._jbase)
            j.write(g, at, at_us)
        except OSError:
            self._jfailed = True  # a full flash: the game goes on; a pause saves it
        if wdt is not None:
            wdt.feed()
        self._journal_due = now + JOURNAL_MS

    def _journal_retire(self):
        """The game is saved by game.json or its record: the journal's files go."""
        self._journal_due = -1
        self._jpress = False
        self._jfailed = False
        self.journal.clear()

    def _journal_boot(self, saved):
        """Power-up: the game the journal holds when it is newer than `saved` (game.json's
        state, or None), to offer instead; else `saved`, and a journal that is stale (its
        game recorded or saved since) is removed. A game.json of another game (a finished
        one whose record failed) is settled first (archive.settle: recorded)."""
        j = self.journal.load(saved, presets.COUNT)
        if j is None:
            self.journal.clear()
            return saved
        ident = j["id"]
        stale = gamelog.find_game(self.root, ident, self.fs) is not None
        if saved is not None and saved["id"] == ident:
            stale = stale or journal.tag(saved["snap"]) != j["base"]
        if stale:
            self.journal.clear()
            return saved
        if saved is not None and saved["id"] != ident:
            scratch = E.Game(ui_mod.control_of(saved["control"]))
            archive.settle(self.root, scratch, saved, self.fs)
        self._resume_journal = True
        return j
