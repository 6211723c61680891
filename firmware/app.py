"""The imperative shell: the timer-driven loop that joins the board to the engine and the UI.

Owns: the loop (a hardware timer ticks at LOOP_HZ; its hard-IRQ handler only counts; the main
loop waits in machine.idle() and runs one `step()` per tick), the monotonic clock, draining
the lever stamps into the engine in timestamp order, polling the buttons, rendering to the
displays (written only when their bytes change), the LEDs, the buzzer, the battery reading,
and every file write the UI asks for. Files are never written while a clock runs (a flash
erase stalls the RP2040 for tens of ms): the UI only asks while the clock is stopped.

Errors: an exception in a step is logged to /errors.log and the loop goes on (the displays
keep the last times); the watchdog resets a hung loop, and the game saved at the last pause
is offered again at power-up.

Files: the game state and its record go through archive.py (exactly once across power cuts;
its docstring has the protocol); boot_files() settles at power-up what a cut left behind.
"""

import gc
import os
import time
from array import array

import archive
import buzzer as buzzer_mod
import engine as E
import gamelog
import presets
import segments
import settings as settings_mod
import storage
import ui as ui_mod
from micropython import const
from monoclock import MonoClock

LOOP_HZ = const(100)  # loop ticks per second; flags and presses do not depend on it
RENDER_EVERY = const(5)  # ticks between display refreshes (20 per second at 100 Hz)
WDT_MS = const(5_000)
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
        self.ticks = array("i", (0,))  # timer ticks counted by the IRQ
        self._seen = 0
        self._frame = 0
        self.errors = 0
        self.wdt = None
        self.mono = MonoClock(time.ticks_us())
        self.segs = (bytearray(4), bytearray(4))
        s, status = settings_mod.load(root, presets.COUNT, fs)
        self.ui = ui_mod.Ui(s)
        self.ui.game.min_move_ms = BOTH_LEVERS_MS
        self._resume = None  # the saved state offered at power-up, until answered
        self.boot_files(status)
        self.apply_settings()
        self._on_lever = self.on_lever  # bound once: drain() must not allocate a bound method

    # ------------------------------------------------------------ loop
    # hard-IRQ safe: one array store, no allocation
    def on_timer(self, _timer):
        self.ticks[0] += 1

    def start(self):
        """Start the loop timer (the board's watchdog is started by run())."""
        self.board.start_timer(LOOP_HZ, self.on_timer)

    def run(self):
        """Start the timer and the watchdog, then loop forever."""
        self.start()
        self.wdt = self.board.watchdog(WDT_MS)
        self.run_loop()

    def run_loop(self):
        """The main loop: one step per timer tick; machine.idle() in between."""
        idle = self.board.idle
        wdt = self.wdt
        ticks = self.ticks
        while True:
            if ticks[0] == self._seen:
                idle()
                continue
            self._seen = ticks[0]
            self.safe_step()
            wdt.feed()

    def safe_step(self):
        try:
            self.step()
        except Exception as exc:  # keep the times on screen, log, go on
            self.errors += 1
            try:
                storage.append_log(
                    storage.join(self.root, ERROR_LOG),
                    "%d %s" % (self.mono.ms, repr(exc)),
                    4096,
                    self.fs,
                )
            except Exception:
                pass

    def on_lever(self, side, stamp_us):
        ev = self.ui.game.press(side, self.mono.ms_at(stamp_us))
        if ev:
            self._events(ev)

    def step(self):
        """One loop tick: time, levers, flag, buttons, sound, display."""
        b = self.board
        ui = self.ui
        now = self.mono.update(time.ticks_us())
        if ui.screen == ui_mod.S_GAME:
            b.levers.drain(self._on_lever)
        else:
            b.levers.clear()  # a lever touched in a menu must not start a game later
        ev = ui.game.tick(now)
        if ev:
            self._events(ev)
        buttons = b.buttons
        buttons.poll(now)
        while True:
            event = buttons.pop()
            if not event:
                break
            req = ui.key(event >> 2, event & 3, now)  # buttons.py: button << 2 | kind
            if req:
                self.handle(req, now)
        alert = ui.alerts(now)
        if alert:
            pattern = buzzer_mod.LOW_TIME if alert == 1 else _LAST_SECONDS_BEEP
            b.buzzer.play(pattern, now)
        b.buzzer.update(now)
        self._frame += 1
        if self._frame >= RENDER_EVERY:
            self._frame = 0
            self.render(now)

    def _events(self, ev):
        """Sound for engine events; a flag that froze both clocks is saved at once (the
        clocks are stopped, so a flash write stalls nothing), so a power loss before the
        arbiter's ruling does not lose the fallen flag."""
        now = self.mono.ms
        if ev & E.EV_FLAG:
            self.board.buzzer.play(buzzer_mod.FLAG, now)
            if self.ui.game.state == E.FLAGGED:
                self.save_game(now)
        elif ev & E.EV_PERIOD:
            self.board.buzzer.play(buzzer_mod.MOVES_DONE, now)

    def render(self, now):
        b = self.board
        ui = self.ui
        if ui.game.state == E.READY:
            ui.battery_pct = b.battery_percent()
        ui.render(now)
        for side in (0, 1):
            segments.encode_into(self.segs[side], ui.text[side], ui.colon[side])
            b.displays[side].show(self.segs[side])
        b.set_leds(ui.leds)

    # ------------------------------------------------------ files
    def boot_files(self, status):
        """Power-up: settle what a power cut left on the flash (archive.py's table), then
        say what happened: the settings message first (shown 2 s, or until a key), then the
        resume offer or the recorded result."""
        ui = self.ui
        gamelog.repair(self.root, self.fs)  # games/*.tmp: renamed into place or removed
        saved = settings_mod.load_game(self.root, self.fs, presets.COUNT)
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
        then = ui.screen  # the offer or the game screen comes after the message
        if status == settings_mod.DEFAULTS_CORRUPT:
            ui.show_message(b"SEt ", b"dEF ", 0, then)  # unreadable settings: defaults
        elif status == settings_mod.FIXED_INVALID:
            ui.show_message(b"SEt ", b"FIX ", 0, then)  # some values were out of range
        elif found == archive.RESULT_UNSAVED:
            ui.show_message(b"LOG ", b"Err ", 0, then)  # the next power-up tries again
        gc.collect()

    def _resumed(self, now):
        """The offered game was restored (ui): give it back its identity and move log."""
        saved = self._resume
        self._resume = None
        if saved is None:
            return
        g = self.ui.game
        g.ident = saved["id"]
        if g.restore_log(saved["n"], saved["log"]) != E.OK:
            self.ui.show_message(b"LOG ", b"Err ", now)  # times kept, earlier moves lost

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
            return  # never write flash while a clock runs
        if req & ui_mod.REQ_SAVE_SETTINGS:
            if not settings_mod.save(self.root, ui.settings, self.fs):
                ui.show_message(b"SAVE", b"Err ", now)
        if req & ui_mod.REQ_LOG_GAME:
            self.log_game(now)  # clears the saved game too (archive.record)
        elif req & ui_mod.REQ_CLEAR_GAME:
            self._resume = None
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
            if not archive.save(self.root, g, self.ui.settings["control"], self.fs):
                self.ui.show_message(b"SAVE", b"Err ", now)

    def log_game(self, now):
        """The result is confirmed: record it exactly once (archive.record)."""
        if not archive.record(self.root, self.ui.game, self.ui.settings["control"], self.fs):
            self.ui.show_message(b"LOG ", b"Err ", now)
