"""The imperative shell: the event-driven loop that joins the board to the engine and the UI.

Owns: the loop, the monotonic clock, draining the lever stamps into the engine in timestamp
order, polling the buttons, when to render, the buzzer's steps, the battery reading, the
watchdog and the hand-over to a USB host. Its units, below `App` in this module: `View` draws
the UI on the displays (written only when their bytes change) and drives the LEDs and the
sounds; `HeapLock` holds a running clock's wakeups under the heap lock. (Units here rather
than modules: each module is a file in the flash's root directory, where every import at
power-up looks its name up, and one file more moves the power-up by tens of ms.) The file
writes the UI asks for, the power-up's repair and the resume are appfiles.py's, only while
the clocks are stopped (a flash erase stalls the RP2040 for tens of ms); while a clock runs
only the journal writes, at its own step (appjournal.py).

The loop sleeps until something can change, then does only what is due (`wake`, one step
after the other: its docstring lists them):
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
ThreadSafeFlag does it. No timer or scheduler: the WFE inside `poll` sleeps the core, any
interrupt wakes it (a one-shot `machine.Timer` would add a soft-IRQ callback and a re-arm
per wakeup; `machine.idle()` wakes every 1 ms on the rp2 port). The sleep ends at the raw
`ticks_us()` instant of the next due ms (`Doorbell.wait_until`), from a clock reading taken
at the end of the wakeup, so a wakeup's own length (ms on the chip for a render) is not
slept. A PIO state machine counts the µs to that instant and its interrupt ends the sleep
(alarm_pio.py), so the loop wakes within 0.2 ms after the due instant, never before (a poll
timeout of whole ms from a ms reading would be 1-2 ms late).

The LEDs are the players' quickest sign of a press. One rule decides them, the UI's (the
game screen's, ui_game.py), drawn by `View.render`, which writes them first, before the
frames, and only when the mask differs from what they show. A move's LEDs come sooner: the
lever's IRQ lights them for the lever that `mover` names (levers.py), armed after each
wakeup's render (`View.arm`) with the lever whose press the rule answers so (the running
side's; at the ready screen the one that may start the game); the levers step only records
what the IRQ lit (`View.leds`), so the press's render writes them only when the engine
decided otherwise (a flag that fell first). A press the IRQ does not light (one the engine ignores,
the first after a refused one) gets its LEDs from that render, the first thing after the
drain.

Errors: an exception in a wakeup is logged to /errors.log (the 1st, 2nd, 4th, 8th... with
their count: a fault that repeats does not wear the flash) and the loop goes on (the next
wakeup polls and redraws everything); the watchdog resets a hung loop, and the game (as of
its journal's last record, or saved at the last pause) is offered again at power-up.

USB: the serial port is the board's `usb` (usbguard.py), to which the app attaches the live
feed it builds (feed.py: the game's lines for a host, written at the feed step). From the loop's
start Ctrl-C is an ordinary byte; while a game is in progress (RUNNING, PAUSED, FLAGGED)
nothing a host sends changes anything, each burst gets a status line. At the ready screen
and after a result, a Ctrl-C from the host hands the board over at a safe point, between
two wakeups: the buzzer stops, the LEDs go off, the displays say `USb  StoP`, Ctrl-C is
given back and the loop returns (main.py ends, the REPL starts, the host tools get in as
before; the watchdog still runs, so a board nobody takes over resets itself and the clock
comes back). A KeyboardInterrupt that gets in anyway (pending before the loop set
kbd_intr(-1)) is ignored during a game and counted in `interrupts`; elsewhere it hands over
the same way.

Files: the game state and its record go through archive.py (exactly once across power cuts;
its docstring has the protocol), called by appfiles.py, which also settles at power-up what a
cut left behind, the journal first (appjournal.py).
"""

import os
import time
from array import array

import appfiles
import appjournal
import buzzer as buzzer_mod
import engine as E
import presets
import segments
import settings as settings_mod
import ui as ui_mod
from feed import Feed
from micropython import const, heap_lock, heap_unlock
from monoclock import REBASE_MS, MonoClock
from usbguard import BLOCK

WDT_MS = const(8_000)  # watchdog timeout (the RP2040 allows up to 8.3 s)
FEED_MS = const(4_000)  # the loop wakes at least this often: watchdog, monotonic clock
BATTERY_MS = const(30_000)  # battery reading while the game is ready (only then), ms
# An idle clock (no button, no lever this long at the ready screen or after a result) on
# cells goes dormant (Idle, below), ms
IDLE_MS = const(600_000)
_ERROR_RETRY_MS = const(10)  # after a failed wakeup, the next one comes this soon
# A lever press this soon (ms) after the other lever's accepted press is one slap on both
# levers, not a reply (nobody moves in 50 ms): the engine ignores it (Game.min_move_ms).
BOTH_LEVERS_MS = const(50)
ERROR_LOG = appfiles.ERROR_LOG

_LAST_SECONDS_BEEP = (3_000, 40)  # one of the last 5 s began
# Built once: a tuple of module attributes in a test is built at each test, an allocation
# a running clock's locked wakeup refuses
_REBASE_STATES = (E.READY, E.FINISHED)
_EITHER_LEVER = const(2)  # levers.EITHER: `mover` for a press of either lever


class App:
    def __init__(self, board, root="/", fs=os):
        self.board = board
        self.root = root
        self.fs = fs
        self.errors = 0
        self.heap = HeapLock()  # a running clock's wakeups run with the heap locked
        self.wakeups = 0  # wakeups since boot (make bench counts them)
        self._wake_us = time.ticks_us()  # raw ticks_us the loop sleeps until
        self._next_render = 0  # when the shown text next changes (ms), -1 = not by itself
        self._button_due = -1  # when the buttons need a poll (ms), -1 = only after an edge
        self._battery_due = 0  # next battery reading (ms)
        self._poll_all = True  # poll every source at the next wakeup (boot, after an error)
        self.rendered = False  # the last wakeup only rendered (Dues.only)
        # Game.deadline() as the last wakeup left it, with the engine's last event then: a
        # running clock's deadline moves only with an event (Game.last_event / last_us)
        self._dl = self._dl_ms = self._dl_us = -1
        self.wdt = None
        self.mono = MonoClock(time.ticks_us())
        s, status = settings_mod.load(root, presets.COUNT, fs)
        self.ui = ui_mod.Ui(s, None, board.displays[0].digits)  # the glass's width
        self.ui.game.set_min_move(BOTH_LEVERS_MS)
        self.view = View(board, self.ui)  # the displays, LEDs and sounds (View, below)
        self.idle = Idle(board, self.view)  # an idle clock's dormant spells (Idle, below)
        self.journal = appjournal.Journaling(self.ui, root, fs)  # the running game's records
        self.journal.waiting = board.levers.waiting  # a tidy gives way to a press
        self.files = appfiles.Files(self.ui, root, fs, self.journal)  # the other writes
        self.files.boot(status)
        self.view.apply(self.ui.settings)
        self._on_lever = self.on_lever  # bound once: drain() must not allocate a bound method
        self._at = array("i", (0, 0))  # a press's instant (MonoClock.instant): ms, us
        self.usb = getattr(board, "usb", None)  # usbguard.UsbGuard; None on a stand-in board
        if self.usb is not None:  # the live feed (feed.py), written through the port in blocks
            self.usb.attach(Feed(BLOCK, self.usb))
        self.dues = Dues(board, self.ui, self.usb, self.journal)  # the sleep step (Dues)
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
                # (a wakeup that only rendered changed nothing Idle looks at: Dues)
                if not self.rendered and self.idle.sleep(self.mono.ms, self.ui.game.state):
                    self._afresh()  # back from a dormant spell (Idle)
                elif not self.handed_over:
                    wait_until(self._wake_us)
            except KeyboardInterrupt:
                if not E.RUNNING <= self.ui.game.state <= E.FLAGGED:
                    self.view.hand_over(self.usb)
                    raise
                self.interrupts += 1  # a game: go on, redraw and poll everything next
                self._afresh()
        self.view.hand_over(self.usb)

    def _afresh(self):
        """The next wakeup at once, every source polled and everything drawn."""
        self._poll_all = True
        self._next_render = 0
        self._wake_us = time.ticks_us()

    def safe_wake(self):
        """`wake`, its errors logged; a running clock's wakeup on the game screen with the
        heap locked (HeapLock, below: why, which steps let it go, a MemoryError under it)."""
        ui = self.ui
        try:
            self.heap.wake(self, ui.game.state == E.RUNNING and ui.screen == ui_mod.S_GAME)
        except Exception as exc:  # keep the times on screen, log, go on
            self.errors += 1
            self._poll_all = True
            self.rendered = False
            self.view.leds = -1  # the LEDs may not be what the cut wakeup meant
            self._next_render = 0  # redraw at the next wakeup what this one may have left
            self._wake_us = time.ticks_add(time.ticks_us(), _ERROR_RETRY_MS * 1000)
            n = self.errors
            if n & (n - 1) == 0:  # the 1st, 2nd, 4th, 8th... error: a fault in every
                self.files.log_error(self.mono.ms, n, exc)  # wakeup must not wear the flash
        wdt = self.wdt
        if wdt is not None:
            wdt.feed()

    def on_lever(self, side, stamp_us):
        at = self._at
        self.mono.instant(stamp_us, at)  # the stamp's exact instant: ms, us
        ev = self.ui.game.press(side, at[0], at[1])
        if ev & (E.EV_FLAG | E.EV_PERIOD | E.EV_REFUSED):  # a sound (a move or start: none)
            self._events(ev)

    def wake(self):
        """One wakeup: do what is due now, then set `_wake_us` to the next due instant.
        The steps, in this order; a step that is not due costs one test:
        1. reading: the clock and which sources rang (a rebase when nothing holds an instant);
        2. levers: what the levers' IRQ lit, the presses into the engine, their render;
        3. deadline: the engine ticked up to the reading before the drain (a flag, a period);
        4. buttons: polled, their events to the UI, its requests acted on;
        5. sounds: the buzzer's next step;
        6. USB: the port (a host that takes the board over ends the loop after this wakeup);
        7. battery: its level, while the game is ready;
        8. render: what changed (a press queued since the levers step: the wakeup starts
           over, as after steps 12 and 13);
        9. press's record: the journal's record of a press (or a ticked period or flag),
           once its LEDs and frames are out, before anything else is written
           (appjournal.py), so the window a power cut can take it in is its write alone;
        10. feed: the live feed's lines for what changed (usbguard.py, feed.py), before the
            other file writes, so no line waits behind a flash write;
        11. saves: the file writes keys asked for (a pause's save, a result's record, the
            settings) and a game a flag froze, once what caused them is on the displays;
        12. journal: the running game's other writes when due (periodic records, chunks,
            tidies), or while no clock runs the next journal made ready (appjournal.py);
        13. sleep: until the next due instant, from a fresh reading.
        A wakeup that nothing rang before `dues.only` (the running clock's displays) does
        steps 1, 2, 8 and 13 only: no other step has work then (Dues says why). The steps
        are named here and by these names elsewhere. A new job gets a method of its own and
        one line at its step. Allocates nothing unless a button event or a file write asks
        for it."""
        b = self.board
        g = self.ui.game
        # 1. Which sources rang (doorbell.py: 1 the levers, 2 the buttons), before looking
        # at them; after an error or at boot, all of them. Then the clock.
        rang = b.bell.take()
        edge = rang & 2  # a button edge since the last take: its stamp is this wakeup's
        if self._poll_all:
            rang = 3
            self._poll_all = False
        now = self.mono.update(time.ticks_us())
        if now >= REBASE_MS and self._can_rebase(now):
            now = self._rebase()
        self.wakeups += 1
        # Deadlines are ticked up to this reading less the levers' `settle_us` only (to its
        # us): every lever stamp before that is in the ring now (a stamp reaches it that
        # soon), so the drain hands the engine every press before a deadline it processes
        # (engine.py's contract).
        levers = b.levers
        drained = now
        drained_us = self.mono.rem_us - levers.settle_us
        if drained_us < 0:
            drained -= 1
            drained_us += 1000
        # 2. The levers (levers.waiting(), inline: a head differs from its tail).
        pressed = False
        rings = levers.rings
        if rings[0] != rings[2] or rings[1] != rings[3]:
            at = self._drain_levers(now)
            if at >= 0:
                now = at
                pressed = True
                self.journal.press = True
        # A wakeup that only renders: nothing rang, no stream is readable and no step but the
        # render is due before `dues.only` (the sleep step keeps it: Dues says when it
        # holds); the steps from the deadline to the battery, and from the press's record to
        # the journal, would each find nothing due.
        only = not pressed and not rang and now < self.dues.only and not b.bell.heard
        dirty = False
        usb = self.usb
        if only:
            deadline = self._dl  # the engine untouched since it was asked; not due yet
        else:
            # 3. The deadline (rounded up: the exact instant may be in the ms before): the one
            # the last wakeup left while no edge rang and the engine had no event since (a
            # timed wakeup: nothing has touched the engine), else asked again.
            if rang or pressed or g.last_event != self._dl_ms or g.last_us != self._dl_us:
                deadline = self._deadline(g)
            else:
                deadline = self._dl
            if 0 <= deadline <= drained + 1:  # a later one: the next wakeup, at once (_next_due)
                dirty = self._tick(drained, drained_us)
            # 4. The buttons.
            if rang & 2 or 0 <= self._button_due <= now:
                if self._buttons(now, edge):
                    dirty = True
            # 5. Sounds.
            buzzer = b.buzzer
            if buzzer.next_due(now) == 0:
                buzzer.update(now)
            # 6. USB.
            if usb is not None and usb.due(now, g.state):
                was = self.heap.unlock()
                if usb.service(now, g.state):
                    self.handed_over = True  # the loop ends after this wakeup
                self.heap.relock(was)
            # 7. The battery (VSYS, every BATTERY_MS), while the game is ready: its level and
            # warning (Ui.set_battery, battery.py).
            if g.state == E.READY and self._battery_due <= now:
                self._battery_due = now + BATTERY_MS
                if self.ui.set_battery(b.battery_mv()):
                    dirty = True
        # 8. The render (a press rendered by the levers step: again only if a later step
        # changed it).
        if dirty or (not pressed and 0 <= self._next_render <= now):
            self._next_render = self.view.render(now)
            if self.view.played:  # a tone began: the sleep step asks the buzzer afresh
                self.view.played = False
                only = False
        if dirty:
            deadline = self._deadline(g)  # keys and events may have changed it
        if g.last_event == now and g.last_us:
            # An event inside this ms (after now.000): a press stamped after the reading, or
            # a deadline ticked at its us (the alarm wakes the loop at it). The times bend
            # there, so next_change's 1 ms per ms look from `now` may miss the first change;
            # look again from the next ms (engine.py's contract).
            self._next_render = now + 1
        # A press queued since the levers step (the render gave way to it): it goes first,
        # in a wakeup that starts over at once, which also does the steps below. (Nested: the
        # levers' debounce keeps presses 20 ms apart per lever, so it goes no deeper.)
        if rings[0] != rings[2] or rings[1] != rings[3]:
            return self.wake()
        # The steps from the feed on run unlocked (HeapLock says why): the lock covers what
        # the displays, the LEDs and the flag wait for.
        locked = self.heap.unlock()
        if not only or self.view.mover[0] < 0:  # (a render's LED write disarms it)
            self.view.arm()
        if not only:
            # 9. The press's record (a flash write: after the LEDs, the frames and the mover).
            jr = self.journal
            if jr.press:
                jr.record(now, drained, drained_us, deadline, self._next_render, self.wdt)
            # 10. The live feed: what this wakeup changed, as lines on the USB port (feed.py).
            if usb is not None:
                usb.report(now, g)
            # 11. The saves.
            if self.files.pending:
                self.files.flush(now)
                self._next_render = 0  # `now` is old, a write may have shown a message
            # 12. The journal's other writes; while no clock runs, the next journal made ready.
            if jr.press or 0 <= jr.due <= now:
                jr.record(now, drained, drained_us, deadline, self._next_render, self.wdt)
            elif jr.armed and g.state != E.RUNNING and g.state != E.FINISHED:
                jr.prepare(now, self.wdt)
        # A press queued since the render: its wakeup now, nested as above (locked again
        # as it began), not after the sleep's arithmetic and the loop's turn.
        if rings[0] != rings[2] or rings[1] != rings[3]:
            self.heap.relock(locked)
            return self.wake()
        # 13. Sleep until the next due instant, from a fresh reading at the end of this wakeup
        # (its own length, ms on the chip for a render, is not slept). The flag falls at its
        # exact us: when it comes first, sleep until that us, not the whole ms after it.
        nxt = self.dues.after(
            now, deadline, self._next_render, only, self._button_due, self._battery_due
        )
        mono = self.mono
        mono.update(time.ticks_us())
        wake = mono.ticks_at(nxt)
        if nxt == deadline:
            # The deadline step judges deadlines up to the reading less `settle_us`: wake
            # that long after the exact instant, on a whole ms too (du 0), or the wakeup
            # would find the flag not yet due and sleep again until the same instant.
            du = g.deadline_us()
            wake = time.ticks_add(wake, (du - 1000 if du else 0) + levers.settle_us)
        self._wake_us = wake
        self.rendered = only
        if rings[0] != rings[2] or rings[1] != rings[3]:  # a press queued in the sleep step
            self.heap.relock(locked)
            self.wake()

    # ------------------------------------------------------ the steps of a wakeup
    def _drain_levers(self, now):
        """The levers step: what the levers' IRQ lit recorded, the lever stamps into the
        engine in timestamp order, then the press's own render (the LEDs first, where the
        rule differs from what the IRQ lit). Returns the `now` the rest of the wakeup works
        with, or -1 when the levers were touched in a menu (dropped: such a touch must not
        start a game later)."""
        ui = self.ui
        levers = self.board.levers
        view = self.view
        # Recorded before the drain: every press the IRQ lit up to this look is in the engine
        # when the render compares the rule with what the LEDs show (recorded after it, a
        # press queued in between would be rendered with the game as it was before it).
        lit = levers.lit
        if lit[0] != view.lit_seen:
            view.lit_seen = lit[0]
            view.leds = lit[1]
        if ui.screen != ui_mod.S_GAME:
            levers.clear()
            return -1
        levers.drain(self._on_lever)
        g = ui.game
        # An edge whose IRQ ran after the clock reading is stamped after `now`: read the clock
        # again, so no engine event is later than the `now` this wakeup renders and schedules
        # with (a clock started 1 ms "in the future" looks stopped to next_change).
        if g.last_event > now:
            now = self.mono.update(time.ticks_us())
        # The press's own render at once: the LEDs (where the IRQ did not light them as the
        # rule says), the displays; what else is due comes after, rendering again if need be.
        self._next_render = view.render(now)
        return now

    def _deadline(self, g):
        """Game.deadline(), kept with the engine's last event (the deadline step)."""
        d = g.deadline()
        self._dl = d
        self._dl_ms = g.last_event
        self._dl_us = g.last_us
        return d

    def _tick(self, drained, drained_us):
        """The deadline step: the engine ticked to the reading before the drain (a flag or a
        period's end falls at its exact us). True when that was an event (its sound is started)."""
        ev = self.ui.game.tick_due(drained, drained_us)  # the deadline step found it due
        if ev:
            self._events(ev)
            return True
        return False

    def _buttons(self, now, edge):
        """The buttons step: poll the buttons, their events to the UI; True when there were
        any. After a button's edge (`edge`), a level found changed changed at its stamp."""
        buttons = self.board.buttons
        buttons.poll(now, self.mono.ms_of(self.board.bell.button_us[0]) if edge else None)
        any_event = False
        while True:
            event = buttons.pop()
            if not event:
                break
            any_event = True
            was = self.heap.unlock()  # a key may change screens, log, save: it may allocate
            req = self.ui.key(event >> 2, event & 3, now)  # buttons.py: button << 2 | kind
            if req:
                self.handle(req, now)
            self.heap.relock(was)
        wait = buttons.next_due(now)
        self._button_due = now + wait if wait >= 0 else -1
        return any_event

    def _events(self, ev):
        """Sound for engine events (a refused first press: the error sound), started by the
        render that shows the event, right after its frames (both within the chip's 3 ms of
        the instant; the displays first, as a flag is judged by what the clock shows); a flag that
        froze both clocks is saved in the same wakeup, right after the render (the clocks
        are stopped, so the flash write stalls no clock, but it would hold back the flag on
        the displays), so a power loss before the arbiter's ruling does not lose the fallen
        flag."""
        self.journal.press = True  # a record of the new period or the fallen flag
        if ev & E.EV_FLAG:
            self.view.sound = buzzer_mod.FLAG
            if self.ui.game.state == E.FLAGGED:
                self.files.pending |= ui_mod.REQ_SAVE_GAME  # at the saves step
        elif ev & E.EV_PERIOD:
            self.view.sound = buzzer_mod.MOVES_DONE
        elif ev & E.EV_REFUSED:  # a first press from White's side under draw odds
            self.view.sound = buzzer_mod.ERROR

    # ------------------------------------------------------ the monotonic count
    def _can_rebase(self, now):
        """True when no instant is kept in the monotonic count but the loop's own: a game
        ready (the engine holds no time yet) or finished (its instants are never used
        again), the game screen (no message), silent, no button down or settling (their
        pending instants would be in the old count). A game paused or flagged for days keeps
        the old count until it ends: ints stay small for 12.4 days, int32 for 24.8."""
        b = self.board
        return (
            self.ui.game.state in _REBASE_STATES
            and self.ui.screen == ui_mod.S_GAME
            and b.buzzer.next_due(now) < 0
            and b.buttons.next_due(now) < 0
        )

    def _rebase(self):
        """Restart the monotonic count at 0 (see monoclock.py); every due instant of the
        loop is recomputed at once. Returns the new `now`."""
        self.mono.rebase()
        self._next_render = 0
        self.dues.forget()
        self._battery_due = 0
        self._button_due = -1
        if self.usb is not None:
            self.usb.rebase()
        return 0

    # ------------------------------------------------------ requests
    def handle(self, req, now):
        """Act on the REQ_* bits a key gave: the beep, the settings and the resume at once;
        the file writes (appfiles.py), only while no clock runs, at the saves step
        (Files.pending, Files.flush)."""
        if req & ui_mod.REQ_BEEP:
            self.board.buzzer.play(buzzer_mod.ERROR, now)
        if req & ui_mod.REQ_APPLY_SETTINGS:
            self.view.apply(self.ui.settings)
            self._battery_due = 0  # the cells' kind or the brightness moves the warning
        if req & ui_mod.REQ_RESUMED and self.files.resumed(now):
            req |= ui_mod.REQ_SAVE_GAME  # game.json takes the journal's game
        if self.ui.game.state == E.RUNNING:
            return  # no file the UI asks for while a clock runs (the journal is the shell's)
        self.files.pending |= req


class View:
    """What the players see and hear, as the shell drives the board's outputs: the UI rendered
    to segments and out to the two TM1637 displays (a display writes only bytes that changed,
    tm1637.py), the side LEDs, the low-time alerts, an engine event's sound, the settings that
    drive the outputs (sound on or off, brightness), and the quiet board a USB host takes over.

    `App` calls `render` at a wakeup's render step and after a press's drain; it keeps the
    instant `render` returns (when the shown text next changes) for its sleep. The LEDs go
    first: after a press they are the quickest sign. They are the UI's rule (`ui.leds`),
    written only when it differs from `leds`, what they show: the last mask `render` wrote,
    or the one the levers' IRQ lit (levers.py; `App` records it before a drain, through
    `lit_seen`). A write clears the levers' `mover` first, so no IRQ lights them after it
    unarmed (the loop arms it again at the end of the wakeup). A press queued since the
    App's last look at the levers leaves the frames, the next change and the alerts (kept by
    the UI until seen) to that press's wakeup, which comes at once and renders again: asked
    before the UI's render, before the frames, after them and after the next change
    (`levers.waiting`, read inline from its `rings`).

    Allocation-free after the constructor, but for `hand_over`, which ends the loop.
    """

    def __init__(self, board, ui):
        self.board = board
        self.ui = ui
        n = ui.digits  # the displays' (4: the LED build's modules, 6: the LCD build's glass)
        self.segs = (bytearray(n), bytearray(n))  # the segment bytes last encoded, per side
        self.encode = segments.encode_ascii if n == 4 else segments.encode_ascii6
        self.leds = -1  # the LED mask they show (-1 = unknown: write at the next render)
        self.sound = None  # an engine event's sound, started by the render that shows it
        self.played = False  # `render` started a sound (App clears it: Dues)
        levers = board.levers
        self.rings = levers.rings  # a press waits: levers.waiting(), read inline
        self.mover = levers.mover  # the lever whose IRQ lights the LEDs (levers.py)
        self.lit = levers.lit  # [0] presses the IRQ lit, [1] the mask it lit
        self.lit_seen = 0  # lit[0] when `leds` was last set (App, render)

    def render(self, now):
        """Draw the UI for `now` (LEDs first), sound the low-time alerts, which fall on
        instants the running side's text changes, and an engine event's sound (`sound`,
        after its frames, over the alerts). Returns the first ms the shown text may change
        (-1: not by itself; `now`: a press is waiting, its wakeup renders)."""
        st = self.rings  # a press waits while a head differs from its tail (levers.py)
        if st[0] != st[2] or st[1] != st[3]:
            return now  # a press waits: its render, not this one
        b = self.board
        ui = self.ui
        ui.render(now)
        leds = ui.leds
        if leds != self.leds:
            self.mover[0] = -1  # no IRQ lights them after this write (armed again: App)
            self.lit_seen = self.lit[0]  # every lighting before it is overwritten
            b.set_leds(leds)
            self.leds = leds
        if st[0] != st[2] or st[1] != st[3]:
            return now  # a press waits: its render's frames, not these
        segs = self.segs
        text = ui.text
        points = ui.points
        displays = b.displays
        encode = self.encode
        encode(segs[0], text[0], points[0])
        encode(segs[1], text[1], points[1])
        icons = ui.icons
        displays[0].show(segs[0], icons[0])  # both handed over back to back: both wires at once
        displays[1].show(segs[1], icons[1])
        nxt = now  # a press waits: the press's wakeup, at once; the next change and the
        # alerts (kept by the UI until seen) are its
        if st[0] == st[2] and st[1] == st[3]:
            nxt = ui.next_change(now)
            if st[0] == st[2] and st[1] == st[3]:
                alert = ui.alerts(now)
                if alert:
                    pattern = buzzer_mod.LOW_TIME if alert == 1 else _LAST_SECONDS_BEEP
                    b.buzzer.play(pattern, now)
                    self.played = True
            else:
                nxt = now
        if self.sound is not None:
            b.buzzer.play(self.sound, now)
            self.sound = None
            self.played = True
        return nxt

    def arm(self):
        """The lever whose press is a move now, its IRQ lights the LEDs (levers.py): on the
        game screen the running side's; at the ready screen the one that may start the game
        (Black's under draw odds, White's press is refused; either lever otherwise), until
        a press was refused (the prompt: the render decides). Once a wakeup, after its
        render step."""
        ui = self.ui
        g = ui.game
        mover = -1
        if ui.screen == ui_mod.S_GAME:
            if g.state == E.RUNNING:
                mover = g.running
            elif g.state == E.READY and not g.refusals():
                mover = 1 - g.white_side if g.white_side >= 0 else _EITHER_LEVER
        self.mover[0] = mover

    def apply(self, settings):
        """The settings that drive the outputs: the sound on or off, the displays'
        brightness."""
        b = self.board
        b.buzzer.set_enabled(settings["sound"])
        for d in b.displays:
            d.set_brightness(settings["brightness"])

    def blank(self):
        """The board quiet for a dormant spell: the buzzer, the LEDs and both displays off
        (board.dormant may then unpower them: its drivers know)."""
        b = self.board
        b.buzzer.stop()
        b.levers.mover[0] = -1
        b.set_leds(0)
        self.leds = 0
        icons = self.ui.icons
        for side in (0, 1):
            d = b.displays[side]
            d.set_on(False)
            d.show(self.segs[side], icons[side])

    def unblank(self):
        """Back from a dormant spell: the displays on at the next render, the LEDs written
        again."""
        for d in self.board.displays:
            d.set_on(True)
        self.leds = -1

    def hand_over(self, usb):
        """The board goes to a USB host (not during a game): Ctrl-C back (`usb`, the board's
        usbguard.UsbGuard or None), the buzzer and the LEDs quiet, the displays say so."""
        b = self.board
        if usb is not None:
            usb.stop()
        b.buzzer.stop()
        b.levers.mover[0] = -1
        b.set_leds(0)
        self.leds = 0
        for side, text in ((0, b"USb "), (1, b"StoP")):
            segments.encode_points(self.segs[side], text, 0, self.ui.at)
            b.displays[side].show(self.segs[side], 0)


class Idle:
    """An idle clock's dormant spells: untouched (no button, no lever edge) for IDLE_MS at
    the ready screen or after a result, on cells, the displays, the LEDs and the buzzer off
    and the board dormant until a button or a lever closes (board.dormant, dormant.py;
    docs/battery.md has the current); the key that woke it does nothing else
    (Buttons.swallow), nor does the lever (levers.restart). RAM keeps the game, the
    settings and the screen; the µs timer stands still meanwhile. On USB power (the host's
    port and mpremote stay up), or on a board without `power`, the count starts again.
    `App` asks after each wakeup that did more than render (`sleep`: one that only rendered
    changed nothing it looks at, Dues); the edges are the doorbell's counts (`rung`),
    read there, off the wakeup's own path. There too the sleep between wakeups follows
    VBUS: deep, with the clocks no promise needs gated, on cells (board.gate, sleepgate.py)."""

    def __init__(self, board, view):
        self.board = board
        self.view = view
        self.rung = board.bell.rung  # [0] lever presses, [1] button edges (doorbell.py)
        self.seen = array("i", (0, 0))  # `rung` at the last look
        self.touched = 0  # the wakeup (ms) that first saw the last edge
        self.gate = getattr(board, "gate", None)  # sleepgate.SleepGate; None: a stand-in

    def sleep(self, now, state):
        """Dormant when idle (see the class doc) as of `now` (ms) with the game in `state`;
        True when it was (the loop then polls and draws everything at once)."""
        if self.gate is not None:
            self.gate.update()
        r = self.rung
        seen = self.seen
        if r[0] != seen[0] or r[1] != seen[1]:
            seen[0] = r[0]
            seen[1] = r[1]
            self.touched = now
        if now - self.touched < IDLE_MS or state not in _REBASE_STATES:
            return False
        self.touched = now
        b = self.board
        power = getattr(b, "power", None)
        if power is None or power.on_usb():
            return False
        self.view.blank()
        b.dormant()
        b.buttons.swallow(now)
        self.view.unblank()
        return True


class Dues:
    """The sleep step's arithmetic: the earliest instant (monotonic ms) at which a step of
    the loop has work, the loop sleeping until then, and until when a wakeup only renders.
    `App` hands it the render's, the buttons' and the battery's instants; the rest it asks
    the buzzer, the USB port and the journal.

    `only`: until then (ms; -1: none) a wakeup that nothing rang (no lever, button or
    readable stream) has nothing to do but its render, unless that render starts a tone
    (a low-time alert: `View.played`), whose next step the sleep step must then ask for.
    It holds while the clock runs on the game screen, before every other instant of the
    loop (the deadline's less a ms: the deadline step ticks a ms early, its rounding), the
    journal's next periodic step and the feed's next line (both look at every wakeup, so
    they are no instant of the sleep): nothing but a ring, a stream, a tone or one of those
    instants changes the steps' work, since the engine moves only at the steps such a
    wakeup skips; for the same reasons `Idle` has nothing new to look at after one (App
    skips it). Allocates nothing."""

    def __init__(self, board, ui, usb, journal):
        self.buzzer = board.buzzer
        self.ui = ui
        self.usb = usb  # usbguard.UsbGuard, its feed attached; None on a stand-in board
        self.journal = journal
        self.other = 0  # the earliest instant but the render's, as the last full step left it
        self.only = -1

    def after(self, now, deadline, render, only, buttons, battery):
        """The earliest due instant after a wakeup at `now` (ms): FEED_MS on at the latest,
        the engine's `deadline`, the `render`'s and the `buttons`' instants (-1: none), the
        `battery`'s while the game is ready (the battery step's), the buzzer's next step,
        the USB port's and the journal's quiet write (one not done for want of room waits
        for a later wakeup, not a spin). In a wakeup that only rendered (`only`), none but
        the render's has changed since the last."""
        if not only:
            nxt = now + FEED_MS
            if 0 <= deadline < nxt:
                nxt = deadline
            if 0 <= buttons < nxt:
                nxt = buttons
            if battery < nxt and self.ui.game.state == E.READY:
                nxt = battery
            d = self.buzzer.next_due(now)
            if 0 <= d and now + d < nxt:
                nxt = now + d
            usb = self.usb
            if usb is not None:
                d = usb.next_due()
                if 0 <= d < nxt:
                    nxt = d
            d = self.journal.wake_at
            if now < d < nxt:
                nxt = d
            self.other = nxt
            self.only = self._only(nxt, deadline)
        nxt = self.other
        if 0 <= render < nxt:
            nxt = render
        return nxt

    def forget(self):
        """The monotonic count restarted (App._rebase): the next step is a full one."""
        self.only = -1

    def _only(self, other, deadline):
        """`only` for a full step whose instants but the render's are at `other` or later."""
        if self.ui.game.state != E.RUNNING or self.ui.screen != ui_mod.S_GAME:
            return -1
        if 0 <= deadline <= other:
            other = deadline - 1
        d = self.journal.due
        if 0 <= d < other:
            other = d
        if self.usb is not None:
            d = self.usb.feed.until
            if d < other:
                other = d
        return other


class HeapLock:
    """The heap lock of a running clock's wakeups: the shell's unit that holds it, lets it go
    around the steps that may allocate, and turns it off after a MemoryError under it.

    Held from the wakeup's start through its render step (App.wake names the steps); the
    rest runs unlocked.
    Why: a running clock's wakeup on the game screen allocates nothing, and a locked heap
    (`micropython.heap_lock`) puts every call's frame on the C stack, where MicroPython otherwise
    takes a frame of more than 11 words from the GC heap by a first-fit search whose length
    grows with the garbage between collections (on the chip a render wakeup took 2.9 ms instead
    of 2.2, a press's render up to 3 ms more late in a game). The steps before the render that
    may allocate (a button's event, the USB port's service) run unlocked (`unlock` /
    `relock`); the wakeup unlocks for good after its render: the feed, the saves, the
    journal's record and the sleep's arithmetic are not proven allocation-free on every
    MicroPython release the chip tests run (docs/performance.md). A MemoryError under the
    lock (an allocation nobody proved absent) is the wakeup's error like any other (the
    shell logs it), and the lock stays off until the next power-up: slower, never wrong;
    the chip tests fail on any such error (errors.log).

    Allocation-free: no method allocates.
    """

    def __init__(self):
        self.on = True  # off for good after a MemoryError under the lock
        self.locked = False  # the heap is locked now (by wake)

    def wake(self, app, lock):
        """`app.wake()`, with the heap locked while it runs when `lock` (a running clock on
        the game screen: the shell's test) and the lock is on. A MemoryError turns it off."""
        if lock and self.on:
            heap_lock()
            self.locked = True
        try:
            app.wake()
        except MemoryError:
            self.on = False
            raise
        finally:
            if self.locked:
                self.locked = False
                heap_unlock()

    def unlock(self):
        """The heap unlocked, if `wake` locked it. Returns whether it was locked."""
        if self.locked:
            self.locked = False
            heap_unlock()
            return True
        return False

    def relock(self, was):
        """The heap locked again after a step `unlock` freed (`was`: its return)."""
        if was:
            heap_lock()
            self.locked = True
