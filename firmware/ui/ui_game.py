"""The game screen: both times, the flags, the result, the side LEDs; the low-time alerts.

Pure module. The screen the clock spends its life on, in every engine state (ready, running,
paused, flagged, finished). Its keys (the others do nothing):

    state      PLAY     SET short        SET long        MINUS / PLUS
    ready      swap     choose preset    settings        info pages (battery, version)
    running    pause    -                -               -
    paused     resume   -                arbiter menu    info pages (moves, periods)
    flagged    -        material entry   arbiter menu    info pages
    finished   -        new game         new game, then settings

The low-battery warning (`ui.battery_low`: `Ui.set_battery`, from the shell's reading and
battery.py) blinks `bAt  Lo` on the ready screen (at width 6 with the battery symbol: on with
`bAt  Lo`, off with the times), the screen of power-up and of the setup
before a game; during a game (running, paused, flagged) nothing shows it: the warning leaves
at least 10 h of play, more than any game, so it waits for the next ready screen rather
than distract the players (docs/battery.md).

The info pages are their own unit (ui_info.InfoPages), drawn here instead of the times while
one is chosen. Levers act on this screen only (the shell drains them only here). Each side
shows its own time from the ready screen on (time odds: each its own starting time, so the
arbiter places the clock by looking at it); PLAY there exchanges the two sides' controls
(ui.Ui.swap_sides), when they differ or a colour has draw odds.

The set-up check (draw odds, engine.py has the rule): a first press from White's side is
refused by the engine (`Game.refusals()` counts it) and the shell beeps. From then on Black's
side shows `bLAc` and `PrES` in turn, a second each from the refused press ("Black: press
here": the text stands over the lever that must be pressed), while White's side keeps its
starting time, so the arbiter sees at once which time the player who pressed would get. It
stays until the game starts (Black's press) or any button (PLAY swaps the sides, as always;
SET, MINUS, PLUS do what they do on the ready screen), and it shows over an info page the
arbiter had open: a message that timed out would leave a ready screen that looks right on a
board that is not.

The side LEDs: while a clock runs, the running side's; paused, the side on move's blinks;
after a flag (freeze), the first flag's. At width 6 (the LCD build, on cells) the running
side's flashes instead of staying lit while no flag is down (_pulse: 60 ms from the turn's
start and from each even second of its counting time, 3 % of the current); a flag, a
pause, the ready screen and the result are as at width 4. `next_change` has the LED's edges
too. Width 6 shows no beat: its seconds always show.

Rendering is a pure function of the engine state, this screen's state and `now`, and
allocates nothing (the steady state: it runs at every change of the running clock). It asks
the engine for each side's time once: `next_change` and `alerts` (called right after
`render(now)`) reuse them while the clock runs and nothing has happened since (the same
`now`, no engine event: `last_event` moves with every press, flag, period and resume).
"""

import engine as E
from micropython import const
from timecontrol import MODE_HOURGLASS, MODE_UPCOUNT
from ui_base import Screen, copy, overtime_count
from ui_info import InfoPages

# ui.py's codes, copied: const() inlines them here (test_ui_codes checks they match)
_LONG = const(2)
_MINUS = const(2)
_PLAY = const(0)
_PLUS = const(3)
_REQ_CLEAR_GAME = const(4)
_REQ_SAVE_GAME = const(2)
_S_ARBITER = const(4)
_S_CHOOSE = const(1)
_S_MATERIAL = const(5)
_S_SETTINGS = const(3)
_SET = const(1)
_SHORT = const(1)

_BLINK_MS = const(500)
_RESULT_MS = const(2_000)  # the result screen alternates with the final times
_ASK = const(2)  # _time_change's trend not known: asked of the engine (a trend is -1, 0 or 1)
# Texts packed as ui_base.copy reads them (one bytes object: one heap object)
_TEXTS = (
    b"FLAG"  # 0: this side's flag fell (blinks with its time)
    b"FL 1"  # 4: both fell, this side's first
    b"FL 2"  # 8: both fell, this side's second
    b"bAt "  # 12: low battery (the ready screen blinks it), left display
    b" Lo "  # 16: right display
    b"bLAc"  # 20: a first press from White's side was refused: Black's side, in turn with
    b"PrES"  # 24: ... this (see the module doc)
)
_PROMPT_MS = const(1_000)  # each text of the refused-press prompt shows this long
_ICON_BAT1 = const(1)  # segments.ICON_BAT1: the battery symbol with one bar
# Width 6 (the LCD build, on cells): the running side's LED flashes, lit _LED_PULSE_MS from
# the start of its turn and from each time its seconds reach an even number (see _pulse)
_LED_PULSE_MS = const(60)
_LED_PERIOD_MS = const(2_000)


def _phase(rs, d, rising):
    """ms since the running side's counting time last reached an even second: its delay `d`
    while that lasts, else `rs`, the time left (`rising`: the stopwatch's, which counts up);
    0 .. _LED_PERIOD_MS - 1, growing 1 ms a ms (the LED's flash, GameScreen._pulse)."""
    if rising:
        return rs % _LED_PERIOD_MS
    return -(d or rs) % _LED_PERIOD_MS


class GameScreen(Screen):
    def __init__(self, ui):
        super().__init__(ui)
        self.game = ui.game  # cached with the buffers: render runs at every change
        self.text = ui.text
        self.points = ui.points
        # The width's time layouts (ui.Ui.time_into, inline here: render runs at every
        # change): the format and its shift into `points`, the next change, the beat's
        # separator and the digit that is blank in the tenths layout at width 4
        self._format = ui.format_into
        self._shift = ui.shift
        self._next = ui.time_next_change
        self._beat_point = ui.beat_point
        self._last = ui.digits - 1
        self._flash = ui.digits == 6  # the running side's LED flashes (see _pulse)
        self.info = InfoPages(ui)
        self._alert_second = -1  # the last of the last 5 s beeped for
        self._alert_low = False  # the low-time beep sounded (re-armed above the threshold)
        self._beating = False  # the running side shows MM:SS, so its separator beats
        # The times of the last render while the clock ran (see the module doc): valid for
        # `now` == _at with the engine's last event still (_ev_ms, _ev_us); _d the running
        # side's delay left, -1 when the render did not ask.
        self._at = -1
        self._ev_ms = self._ev_us = 0
        self._r0 = self._r1 = 0
        self._d = -1
        # The stopped side's text, points and time (_r0/_r1) of the last render hold while
        # the engine's last event is still (_ev_ms, _ev_us): the next render redoes only the
        # running side (see render). Off on any screen change (Ui.go).
        self.kept = False
        self._up = True  # the last render's rounding: countdown (True) or the stopwatch's
        # The beat's second half (see next_change): at _half_at (ms; -1: none) the running
        # side's separator goes off and nothing else changes; its time then is _half_r and
        # the next change comes at _half_next.
        self._half_at = -1
        self._half_r = 0
        self._half_next = -1

    def open(self):
        """A new game: the times, the alerts re-armed."""
        self.info.page = 0
        self._alert_second = -1
        self._alert_low = False

    # -------------------------------------------------------------- keys
    def key(self, button, kind, now):
        g = self.game
        ui = self.ui
        state = g.state
        if state == E.RUNNING:
            if button == _PLAY and kind == _SHORT:
                g.pause(now)
                self.info.page = 0
                return _REQ_SAVE_GAME
            return 0  # buttons mashed during a game do nothing
        if state == E.FINISHED:
            if button == _SET and kind in (_SHORT, _LONG):
                ui.new_game()
                if kind == _LONG:
                    ui.open(_S_SETTINGS)
                return _REQ_CLEAR_GAME
            return 0
        if state == E.READY and g.refusals():
            g.answer_refused()  # the arbiter has the clock: the prompt ends
        if button in (_MINUS, _PLUS):
            return self.info.key(button, kind, now)  # ready, paused, flagged
        if state == E.READY:
            if button == _PLAY and kind == _SHORT:
                return ui.swap_sides()
            if button == _SET and kind == _SHORT:
                ui.open(_S_CHOOSE)
            elif button == _SET and kind == _LONG:
                ui.open(_S_SETTINGS)
        elif state == E.PAUSED:
            if button == _PLAY and kind == _SHORT:
                g.resume(now)
                self.info.page = 0
            elif button == _SET and kind == _LONG:
                ui.open(_S_ARBITER)
        elif state == E.FLAGGED:
            if button == _SET and kind == _SHORT:
                ui.open(_S_MATERIAL)
            elif button == _SET and kind == _LONG:
                ui.open(_S_ARBITER)
        return 0

    # ------------------------------------------------------------ alerts
    def alerts(self, now):
        """Low-time beeps for the shell, once per event: 1 = the running side crossed the
        low-time threshold (10 s by default), 2 = one of the last 5 s began. 0 otherwise."""
        g = self.game
        settings = self.ui.settings
        if g.state != E.RUNNING or g.control.mode == MODE_UPCOUNT or not settings["sound"]:
            return 0
        if self._fresh(now):
            r = self._r1 if g.running else self._r0
        else:
            r = g.remaining(g.running, now)
        low = settings["low_time_s"] * 1000
        if low and r <= low and not self._alert_low:
            self._alert_low = True
            return 1
        if r > low:
            self._alert_low = False
        if 0 < r <= 5_000:
            second = (r + 999) // 1000
            if second != self._alert_second:
                self._alert_second = second
                return 2
        return 0

    # ------------------------------------------------------------ render
    def _fresh(self, now):
        """True when the times of the last render are still the engine's at `now`."""
        g = self.game
        return (
            now == self._at
            and g.state == E.RUNNING
            and g.last_event == self._ev_ms
            and g.last_us == self._ev_us
        )

    def render(self, now):
        """While a clock runs, the texts change only when `Game.remaining()` of a side crosses
        a rounding step of the width's time layouts (timefmt / timefmt6, per side), plus these
        instants:
        - at width 4 the running side's colon of MM:SS beats: on for the first half of each
          second of the time that counts, off for the second half (the delay while it
          lasts, else the main time; the stopwatch counts up), so it changes together with
          the digits, not on a phase of its own (width 6 has no beat: its seconds show);
        - a fallen flag blinks `FLAG` with its time, at the half-seconds of `now`;
        - overtime counters (byo-yomi / Canadian only): see _overtime.
        So while a clock runs with no flag down, no overtime counter and no hourglass, the
        stopped side's text stands from one engine event to the next: a render with the
        same last event (`kept`) redoes only the running side's."""
        g = self.game
        state = g.state
        if self.kept and state == E.RUNNING and g.last_event == self._ev_ms:
            if g.last_us == self._ev_us:
                s = g.running
                if now == self._half_at:  # the separator alone goes off (next_change)
                    self.points[s] = 0
                    if s:
                        self._r1 = self._half_r
                    else:
                        self._r0 = self._half_r
                    self._at = now
                    return
                rs = g.remaining(s, now)
                self.points[s] = self._format(self.text[s], rs, self._up) << self._shift
                if s:
                    self._r1 = rs
                else:
                    self._r0 = rs
                self._beat(now, s, rs)
                if self._flash:
                    self._pulse(now, s, rs)
                return
        ui = self.ui
        ui.leds = 0
        self._at = -1
        self._half_at = -1
        self.kept = False
        if state == E.FINISHED:
            self._render_result(now)
            return
        # Not `state in (...)`: a tuple of module attributes is built at each test, an
        # allocation a running clock's locked wakeup refuses (a page left open at the start)
        if self.info.page and state != E.RUNNING and not self._prompting():
            self.info.render(now)
            return
        text = self.text
        points = self.points
        r0 = g.remaining(0, now)
        r1 = g.remaining(1, now)
        c = g.control
        up = c.mode != MODE_UPCOUNT  # countdown rounding, else the stopwatch's
        self._up = up
        fmt = self._format
        points[0] = fmt(text[0], r0, up) << self._shift
        points[1] = fmt(text[1], r1, up) << self._shift
        running = state == E.RUNNING
        if running and c.ot_count:
            self._overtime(r1 if g.running else r0)
        flags = g.flagged[0] or g.flagged[1]
        if flags:
            self._flags(now)
        if running:
            self._ev_ms = g.last_event
            self._ev_us = g.last_us
            self._r0 = r0
            self._r1 = r1
            s = g.running
            rs = r1 if s else r0
            self._beat(now, s, rs)
            if self._flash and not flags:
                self._pulse(now, s, rs)
            self.kept = not (flags or c.ot_count or c.mode == MODE_HOURGLASS)
        elif state == E.PAUSED:
            ui.leds = (1 << g.running) if (now // _BLINK_MS) & 1 else 0
        elif state == E.FLAGGED:
            ui.leds = 1 << g.first_flag if g.first_flag >= 0 else 0
        elif state == E.READY:
            if g.refusals():
                self._prompt(now)
            elif ui.battery_low:
                on = (now // _BLINK_MS) & 1
                if on:
                    copy(text[0], _TEXTS, 12)
                    copy(text[1], _TEXTS, 16)
                    points[0] = points[1] = 0
                if ui.digits == 6:  # the battery symbol blinks with them
                    ui.icons[0] = (ui.battery_icons or _ICON_BAT1) if on else 0

    def _beat(self, now, s, rs):
        """The running side `s` (`rs` ms left, its text rendered at `now`): the LED, and its
        separator's beat once a second at width 4 in MM:SS (width 6 shows no beat: its
        seconds always show). The delay left is asked where the beat or the LED's flash
        needs it (`_d`)."""
        self._at = now
        self._d = -1
        self.ui.leds = 1 << s
        points = self.points
        beating = self.text[s][self._last] != 32 and points[s] & self._beat_point
        self._beating = beating
        if self._up and (beating or self._flash):
            self._d = self.game.delay_left(s, now)
        if beating:
            if self._up:
                d = self._d
                on = ((d or rs) - 1) % 1000 >= 500
            else:
                on = rs % 1000 < 500
            if not on:
                points[s] = 0

    def _pulse(self, now, s, rs):
        """Width 6, the clock running with no flag down: the running side `s`'s LED (`rs` ms
        left at `now`, `_beat` done) flashes, lit for _LED_PULSE_MS from the start of its
        turn (the press lights it: levers.py, app.py; this keeps it lit for the pulse) and
        from each time its counting time reaches an even second, off otherwise (3 % of the
        time: the cells' season; seen from across the hall all the same). The flash comes
        with a change of the seconds' digits, so it needs no wakeup of its own."""
        if now - self.game.turn_start < _LED_PULSE_MS:
            return
        if _phase(rs, self._d, not self._up) >= _LED_PULSE_MS:
            self.ui.leds = 0

    def _prompting(self):
        """True while the refused-press prompt shows (off the running clock's path)."""
        return self.game.state == E.READY and self.game.refusals()

    def _prompt(self, now):
        """The refused-press prompt (see the module doc): Black's side shows `bLAc`, then
        `PrES`, _PROMPT_MS each from the refused press; White's side keeps its time."""
        g = self.game
        side = 1 - g.white_side
        copy(self.text[side], _TEXTS, 24 if (self._prompt_t(now) // _PROMPT_MS) & 1 else 20)
        self.points[side] = 0

    def _prompt_t(self, now):
        """ms since the refused press, or since 0 when the monotonic count restarted after it
        (monoclock.py: its ms are in the old count)."""
        at = self.game.last_refusal()
        return now - at if now >= at else now

    def _overtime(self, rs):
        """Overtime counters (byo-yomi / Canadian only, the clock running): a side in overtime
        whose flag has not fallen shows its counter (`bY n` / `c nn`,
        ui_base.overtime_count) instead of its time while `(ceil(rs / 1000) >> 1) & 1` is 1,
        rs = `remaining()` of the *running* side: 2 s of time, 2 s of counter, switching at
        the instants rs falls to an odd multiple of 1000 ms (..., 5000, 3000, 1000; in the
        MM:SS layout exactly when the running side's seconds digit changes to an odd
        number). The running side shows its time without interruption while it shows under
        10 s (ceil(rs / 1000) < 10, the tenths layout). The counter itself changes only at
        engine events (a period used up, a move, a new block). Paused, ready or flagged: no
        alternation (the counters are on the MINUS/PLUS info page)."""
        g = self.game
        shown_s = (rs + 999) // 1000
        if not (shown_s >> 1) & 1:
            return
        for side in (0, 1):
            if (
                g.in_overtime(side)
                and not g.flagged[side]
                and (side != g.running or shown_s >= 10)
            ):
                overtime_count(self.text[side], g, side)
                self.points[side] = 0

    def _flags(self, now):
        """A fallen flag blinks `FLAG` (both fallen: `FL 1` / `FL 2`, in the order they fell)
        with its time, at the half-seconds of `now`."""
        if not (now // _BLINK_MS) & 1:
            return
        g = self.game
        both = g.flagged[0] and g.flagged[1]
        for side in (0, 1):
            if g.flagged[side]:
                if not both:
                    copy(self.text[side], _TEXTS, 0)
                else:
                    copy(self.text[side], _TEXTS, 4 if g.first_flag == side else 8)
                self.points[side] = 0

    def _time(self, side, now):
        g = self.game
        buf = self.text[side]
        r = g.remaining(side, now)
        self.points[side] = self._format(buf, r, g.control.mode != MODE_UPCOUNT) << self._shift

    def _render_result(self, now):
        g = self.game
        if (now // _RESULT_MS) & 1:
            for side in (0, 1):
                self._time(side, now)
            return
        if g.result == E.RESULT_DRAW:
            self.put_result(2)
        elif g.result == E.RESULT_NONE:
            self.put_result(3)  # abandoned
        else:
            self.put_result(0 if g.result == E.RESULT_LEFT_WINS else 1)

    def _time_change(self, side, r, now, countdown, nxt, trend=_ASK):
        """`nxt` (ms, -1 = none), or the earlier instant at which side's shown time, `r` ms
        at `now`, next changes: 1 ms later it falls (`trend` -1), stands (0: a delay, or 0
        left) or rises (1: the stopwatch); `trend` is asked of the engine unless the caller
        knows it."""
        if trend == _ASK:
            trend = self.game.remaining(side, now + 1) - r
        if trend:
            n = self._next(r, trend > 0, countdown)
            if n > 0 and (nxt < 0 or now + n < nxt):
                return now + n
        return nxt

    def next_change(self, now):
        """See ui_base. Earlier than the real change only at a delay's end, where the beat
        changes its reference."""
        g = self.game
        state = g.state
        if state == E.FINISHED:
            return (now // _RESULT_MS + 1) * _RESULT_MS
        if state == E.READY and g.refusals():  # (a running clock: one compare)
            t = self._prompt_t(now)  # the prompt's next text
            return now - t + (t // _PROMPT_MS + 1) * _PROMPT_MS
        if self.info.page and state != E.RUNNING:  # ready, paused, flagged (render's test)
            return self.info.next_change(now)
        nxt = -1
        if (
            state == E.PAUSED
            or g.flagged[0]
            or g.flagged[1]
            or (state == E.READY and self.ui.battery_low)
        ):
            nxt = (now // _BLINK_MS + 1) * _BLINK_MS
        if state != E.RUNNING:
            return nxt
        mode = g.control.mode
        stopwatch = mode == MODE_UPCOUNT
        s = g.running
        fresh = self._fresh(now)
        if fresh and now == self._half_at:
            self._half_at = -1
            return self._half_next
        self._half_at = -1
        if fresh:
            rs = self._r1 if s else self._r0
        else:
            rs = g.remaining(s, now)
        trend = _ASK
        if fresh and self.kept and self._d == 0 and rs > 0 and not stopwatch:
            trend = -1  # the render's beat found no delay: the time falls 1 ms a ms
        nxt = self._time_change(s, rs, now, not stopwatch, nxt, trend)
        shown = nxt  # the running side's text changes then (-1: never), kept or not
        if mode == MODE_HOURGLASS:  # only the hourglass moves the other side's time
            o = 1 - s
            if fresh:
                r = self._r1 if o else self._r0
            else:
                r = g.remaining(o, now)
            nxt = self._time_change(o, r, now, True, nxt)
        d = self._d if fresh and self._d >= 0 else g.delay_left(s, now)
        if d and (nxt < 0 or now + d < nxt):
            nxt = now + d  # the main time starts to fall; the beat changes reference
        if g.control.ot_count and (g.in_overtime(0) or g.in_overtime(1)) and not d:
            # Overtime counters alternate with the time when the running side's remaining
            # time falls to an odd multiple of 1000 ms (see _overtime).
            if rs > 1_000:
                b = (rs - 1) // 1_000  # the next whole second below rs
                if not b & 1:
                    b -= 1
                if nxt < 0 or now + rs - b * 1_000 < nxt:
                    nxt = now + rs - b * 1_000
        if self._beating:
            # The beat flips at the next half second of the counting time (see render).
            if stopwatch:
                n = 500 - rs % 500
            else:
                n = ((d or rs) - 1) % 500 + 1
            if nxt < 0 or now + n < nxt:
                nxt = now + n
            # A countdown falling 1 ms a ms (no delay) with the separator on: its going off
            # at `nxt` changes nothing else on the kept screen (no flag, no overtime
            # counter, no hourglass; width 4, so no LED flash), and the next change is the
            # text's or the separator's coming back, 500 ms on. The render and this call
            # then need no engine time (render's and this one's first test).
            if (
                fresh
                and self.kept
                and not stopwatch
                and not d
                and self.points[s]
                and nxt == now + n
                and (shown < 0 or nxt < shown)
            ):
                self._half_at = nxt
                self._half_r = rs - n
                self._half_next = nxt + 500 if shown < 0 or nxt + 500 < shown else shown
        if self._flash and not (g.flagged[0] or g.flagged[1]):
            # The LED's next edge (see _pulse): its counting time's pulse ends, or the next
            # one starts, or the turn's own pulse ends (no later than the real edge)
            p = _phase(rs, d, stopwatch)
            n = now + (_LED_PULSE_MS - p if p < _LED_PULSE_MS else _LED_PERIOD_MS - p)
            e = g.turn_start + _LED_PULSE_MS
            if now < e < n:
                n = e
            if nxt < 0 or n < nxt:
                nxt = n
        return nxt
