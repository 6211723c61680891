"""Invariant checks of the event-driven loop over a whole run of the simulated board.

`LoopRecorder(clock)` hooks a booted `SimulatedClock`'s app: after every wakeup it keeps a
deep copy of the UI (with its engine) and the wakeup's start time; it records each lever
press handed to the engine (with the engine state before and after) and each press thrown
away by `Levers.clear()` in a menu. `check()` then replays the copies and asserts:

(a) every change of what a display (or the pair of LEDs) shows was true, per `Ui.render` on
    the engine as the firmware had it (ticked to each ms, so deadlines fall at their exact
    instants), at some ms within the 5 ms before it was written, never only later;
(b) a change of what should be shown is on the display within LAG_US of its exact instant
    (the ms it becomes true, or the wakeup that changed the state), unless it changes again
    within that time;
(c) every press edge of an armed lever (released and quiet for ARMED_US before it) reaches
    the engine with its exact stamp, in order, or is thrown away because a menu was open;
    nothing else reaches it (no press from bounce); a press of the running side at least
    the engine's min_move_ms after its clock started and before its flag deadline is a
    move;
(d) is (b) for the LEDs: after a press the running side's LED within LAG_US.

Time is the harness's virtual time; the reference texts come from the UI's own render (the
pure function of the engine state and `now` the loop must follow), not from the firmware's
output.
"""

import bisect
import copy
import time
from array import array

import engine as E
import machine
import segments
from levers import Levers

from simboard import tm1637_decode
from simboard.firmware import LED_PINS, LEVER
from simboard.vtime import TICKS_MAX

LAG_US = 5_000
ARMED_US = 25_000  # quiet time that surely re-armed a lever (20 ms + the loop's 1-2 ms grid)
DEBOUNCE_US = Levers.debounce_us


def _render(ui, t):
    ui.game.tick(t)
    ui.render(t)
    out = []
    buf = bytearray(4)
    for side in (0, 1):
        segments.encode_into(buf, ui.text[side], ui.colon[side])
        out.append(bytes(buf))
    out.append(ui.leds)
    return tuple(out)


class LoopRecorder:
    def __init__(self, clock):
        self.clock = clock
        app = clock.app
        self.app = app
        self.start_ms = clock.mono_ms()
        self.start_us = clock.vt.us
        self.states = [(self.start_ms, self.start_us, copy.deepcopy(app.ui))]
        self.delivered = []  # (side, stamp_us, pre, post)
        self.cleared = []  # stamps thrown away in a menu
        wake = app.wake
        instant = array("i", (0, 0))  # MonoClock.instant's (ms, us)

        def recorded_wake():
            us = machine.now_us()
            ticks = time.ticks_us()
            try:
                wake()
            finally:
                # The state is valid from the wakeup's own `now` (its start: the loop reads
                # the clock again at its end, for the sleep), unless it re-based the count.
                app.mono.instant(ticks, instant)
                at = instant[0]
                self.states.append((at if at >= 0 else app.mono.ms, us, copy.deepcopy(app.ui)))

        app.wake = recorded_wake
        on_lever = app._on_lever

        def recorded_on_lever(side, stamp_us):
            g = app.ui.game
            app.mono.instant(stamp_us, instant)
            at = max((instant[0], instant[1]), (g.last_event, g.last_us))  # exact: (ms, us)
            start = (g.turn_start, g.turn_us)
            pre = (g.state, g.running, start, g.deadline_exact(), g.moves[side], g.flagged[side])
            on_lever(side, stamp_us)
            post = (g.state, g.running, g.moves[side])
            self.delivered.append((side, stamp_us, at, pre, post, g.min_move_ms))

        app._on_lever = recorded_on_lever
        levers = app.board.levers
        clear = levers.clear

        def recorded_clear():
            # levers.py: a ring per lever, heads at st[0 + side], tails at st[2 + side]
            st = levers._st
            n = levers._n
            for side in (0, 1):
                i = st[2 + side]
                while i != st[side]:
                    self.cleared.append((side, levers._stamps[i]))
                    i += 1
                    if i == (side + 1) * n:
                        i = side * n
            clear()

        levers.clear = recorded_clear

    # ------------------------------------------------------------------ reference
    def _expected(self, end_ms):
        """final[k]: what should show at ms start+k (the latest state); allowed[k]: every
        value some state valid at that ms renders; since[k]: the exact instant (us) the final
        value of ms start+k became true when a state began in that ms, else None."""
        start = self.start_ms
        n = end_ms - start + 1
        final = [None] * n
        allowed = [set() for _ in range(n)]
        since = [None] * n
        states = self.states
        for i, (t0, us, ui) in enumerate(states):
            t1 = states[i + 1][0] if i + 1 < len(states) else end_ms + 1
            t1 = min(t1, end_ms + 1)
            for t in range(t0, t1):
                v = _render(ui, t)
                final[t - start] = v
                allowed[t - start].add(v)
                if t == t0:
                    since[t - start] = us
            if t1 <= end_ms:
                allowed[t1 - start].add(_render(ui, t1))  # true until the next wakeup
        return final, allowed, since

    # ------------------------------------------------------------------ shown
    def _display_timeline(self, side):
        tl = self.clock.chips[side].timeline
        return [t for t, _ in tl], [bytes(v) for _, v in tl]

    def _led_timeline(self):
        pins = [machine.Pin(p) for p in LED_PINS]
        rows = []
        for bit, pin in enumerate(pins):
            rows += [(seq, t, bit, level) for seq, t, level in pin.trace]
        rows.sort()
        mask = 0
        times, values = [], []
        for _seq, t, bit, level in rows:
            mask = (mask | 1 << bit) if level else (mask & ~(1 << bit))
            if times and times[-1] == t:
                values[-1] = mask  # one set_leds() call: only its end is ever lit
            else:
                times.append(t)
                values.append(mask)
        return times, values

    @staticmethod
    def _at(times, values, us, initial):
        i = bisect.bisect_right(times, us) - 1
        return values[i] if i >= 0 else initial

    # ------------------------------------------------------------------ checks
    def check(self):
        clock = self.clock
        end_us = clock.vt.us
        end_ms = clock.mono_ms(end_us)
        final, allowed, since = self._expected(end_ms)
        start = self.start_ms
        names = ("left display", "right display", "LEDs")
        timelines = [self._display_timeline(0), self._display_timeline(1), self._led_timeline()]
        initial = (bytes(4), bytes(4), 0)
        for ch in range(3):
            times, values = timelines[ch]
            # (a) every change written was true within the 5 ms before
            for t_w, v in zip(times, values, strict=True):
                if t_w < self.start_us or t_w > end_us:
                    continue
                m = clock.mono_ms(t_w)
                ok = any(
                    v == w[ch] for k in range(max(start, m - 5), m + 1) for w in allowed[k - start]
                )
                assert ok, "%s: %r written at ms %d, not true in the 5 ms before (want %r)" % (
                    names[ch],
                    _show(ch, v),
                    m,
                    _show(ch, final[m - start][ch]),
                )
            # (b) every change of what should show is shown within LAG_US
            for k in range(1, len(final)):
                want = final[k][ch]
                if want == final[k - 1][ch]:
                    continue
                instant = since[k] if since[k] is not None else clock.at_us(start + k)
                by = instant + LAG_US
                if by > end_us:
                    continue
                last_k = clock.mono_ms(by) - start
                if any(final[j][ch] != want for j in range(k, min(last_k, len(final) - 1) + 1)):
                    continue  # changed again before the deadline
                shown = self._at(times, values, by, initial[ch])
                assert shown == want, "%s: %r due at ms %d (us %d) not shown %d us later" % (
                    names[ch],
                    _show(ch, want),
                    start + k,
                    instant,
                    LAG_US,
                )
        self._check_levers(end_us)
        assert self.app.errors == 0

    def _check_levers(self, end_us):
        reached = [(s, st) for s, st, *_ in self.delivered] + list(self.cleared)
        got = {}
        for side, stamp in reached:
            got.setdefault(side, []).append(stamp)
        for side, name in enumerate(("left", "right")):
            pin = machine.Pin(LEVER[name])
            edges = [(t, level) for _seq, t, level in pin.trace]
            armed, possible = [], set()
            prev_t = None
            for t, level in edges:
                if level == 0 and prev_t is not None and t <= end_us - 10_000:
                    quiet = t - prev_t
                    if quiet >= DEBOUNCE_US:
                        possible.add(t & TICKS_MAX)
                    if quiet >= ARMED_US and t > self.start_us:
                        armed.append(t & TICKS_MAX)
                prev_t = t
            stamps = got.get(side, [])
            for s in stamps:
                assert s in possible, "%s lever: a press at %d from no armed edge" % (name, s)
            missing = [a for a in armed if a not in stamps]
            assert not missing, "%s lever: armed presses lost: %r" % (name, missing)
            assert len(set(stamps)) == len(stamps), "%s lever: a press twice" % name
        # Order: presses reach the engine in stamp order.
        ats = [at for _s, _st, at, *_ in self.delivered]
        assert ats == sorted(ats), "presses out of order"
        # The engine counts what it should.
        for side, _stamp, at, pre, post, min_move in self.delivered:
            state, running, turn_start, deadline, moves, flagged = pre
            if state == E.READY:
                assert post[0] == E.RUNNING and post[1] == 1 - side
            elif (
                state == E.RUNNING
                and side == running
                and not flagged
                and (at[0] - turn_start[0]) * 1000 + at[1] - turn_start[1] >= min_move * 1000
                and (deadline is None or at < deadline)
            ):
                assert post[2] == moves + 1, "a move by side %d at %r not counted" % (side, at)


def _show(ch, v):
    return v if ch == 2 else tm1637_decode.text(v)
