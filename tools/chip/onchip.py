"""Probes the chip bench runs in MicroPython on the emulated board, through the raw REPL.

Not part of the firmware image: tools/chip/chip.py sends this file's text, then one call,
after a Ctrl-C has made the app hand the board over (at the ready screen or after a result;
during a game it ignores USB, usbguard.py). `clock` is the App main.py built (a global of
the REPL), so every probe sees the state the loop left. To look inside a game, the bench
stops a twin of the run just before the game's first lever edge (chip.Chip.twin: the
emulator is deterministic) and hands the app the same press: `start(clock, stamp)`. Each
probe prints one JSON line.

MicroPython 1.27 code (it also parses under CPython, for ruff and the host tests' import).
"""

import gc
import json
import time

ticks_us = time.ticks_us
ticks_diff = time.ticks_diff


def state(clock):
    """The app's monotonic clock (its origin in raw ticks_us: the instant its ms count was
    0), its counters, and the game's instants."""
    m = clock.mono
    g = clock.ui.game
    rem = getattr(m, "rem_us", None)
    rem = m._rem_us if rem is None else rem  # (its name in older firmware: BASELINE=ref)
    origin = time.ticks_add(m._last_us, -(m.ms * 1000 + rem))
    print(
        json.dumps(
            {
                "origin_us": origin,
                "ms": m.ms,
                "wakeups": clock.wakeups,
                "errors": clock.errors,
                "state": g.state,
                "running": g.running,
                "flagged": list(g.flagged),
                "flag_at": list(g.flag_at),
                "deadline": g.deadline(),
                "deadline_exact": _exact(g),
                "moves": list(g.moves),
            }
        )
    )


def _exact(g):
    """The pending deadline's exact instant as [ms, us] (an engine
    without deadline_exact keeps whole ms: [deadline(), 0]), or None."""
    fn = getattr(g, "deadline_exact", None)
    if fn is None:
        d = g.deadline()
        return [d, 0] if d >= 0 else None
    d = fn()
    return list(d) if d is not None else None


def start(clock, stamp_us, side=0):
    """The press of lever `side` stamped `stamp_us` (raw ticks_us, read from the run's own
    trace), as the loop hands it to the engine."""
    clock.on_lever(side, stamp_us)
    print(json.dumps(clock.ui.game.state))


def heap():
    """Live heap after a full collection: (allocated, free) bytes."""
    gc.collect()
    print(json.dumps([gc.mem_alloc(), gc.mem_free()]))


def _segs(clock, side, t):
    import segments

    ui = clock.ui
    ui.render(t)
    out = bytearray(4)
    segments.encode_into(out, ui.text[side], ui.colon[side])
    return bytes(out)


def first_true(clock, queries):
    """For each (side, lo, hi, hex): the first monotonic ms m in (lo, hi + 5000] at which the
    UI renders those segment bytes on that side, searching (lo, hi] first (binary search:
    the text there goes from old to new once), then forward; -1 when never. The live UI's
    render(t) at a past t is what the display should have shown then, as long as no event
    came in between (the host loop tests use the same reference)."""
    out = []
    for side, lo, hi, want in queries:
        target = bytes.fromhex(want)
        if _segs(clock, side, hi) == target:
            a, b = lo, hi  # invariant: the text at b is the target
            while b - a > 1:
                mid = (a + b) // 2
                if _segs(clock, side, mid) == target:
                    b = mid
                else:
                    a = mid
            out.append(b)
            continue
        found = -1
        for m in range(hi + 1, hi + 5001):  # written before it was true: how early?
            if _segs(clock, side, m) == target:
                found = m
                break
        out.append(found)
    print(json.dumps(out))


def exact_instants(clock, queries):
    """For each (side, ms): the exact instant (monotonic µs) at which the text that ms
    `ms` first shows became true. The UI's text is a function of the time left in whole
    ms rounded up (Game.remaining), so on the running side, where that steps down by one a
    ms, the text changed when the exact time left (Game.remaining_exact) reached the whole
    ms that `ms` shows: up to 1 ms before `ms`.000. Elsewhere (the side not running, a
    message) the ms itself."""
    g = clock.ui.game
    out = []
    for side, ms in queries:
        t = ms * 1000
        if (
            g.state == 1
            and side == g.running
            and g.remaining(side, ms - 1) - 1 == (g.remaining(side, ms))
        ):
            rm, ru = g.remaining_exact(side, ms, 0)
            t -= g.remaining(side, ms) * 1000 - (rm * 1000 + ru)
        out.append(t)
    print(json.dumps(out))


def _median(fn, n, setup=None):
    """Median µs of one fn() call (setup() before each, not timed)."""
    ts = []
    for _ in range(n):
        if setup is not None:
            setup()
        t0 = ticks_us()
        fn()
        ts.append(ticks_diff(ticks_us(), t0))
    ts.sort()
    return ts[n // 2]


class _Empty:
    def method(self):
        pass


def percall(clock, n=15):
    """Median µs per call of the pieces of a wakeup, clock running in mm:ss, minus the
    timing lambda's own call (measured first). A piece the firmware no longer has is
    reported as null."""
    import engine as E
    import segments
    import timefmt

    app = clock
    ui = app.ui
    g = ui.game
    b = app.board
    side = g.running if g.running in (0, 1) else 1
    disp = b.displays[side]
    now = app.mono.update(ticks_us())
    view = getattr(app, "view", app)  # the presenter (app.View); an App that renders itself
    view.render(now)
    buf = bytearray(4)
    segs = bytearray(view.segs[side])
    empty = _Empty()
    scratch = E.Game(g.control)
    tt = [0]

    def press_setup():
        tt[0] += 1000

    def press():
        scratch.press(scratch.running if scratch.running in (0, 1) else 0, tt[0])

    def idle_wire():
        """The last frame has left the wire (a PIO's FIFO takes a frame at once only when
        the one before is out: back-to-back frames would time the wire, not the CPU)."""
        time.sleep_us(1_500)

    def new_frame():
        idle_wire()
        disp.invalidate()

    def wake_setup():
        idle_wire()
        app._next_render = 0
        disp.invalidate()

    def render():
        view.render(now)

    def encode():
        segments.encode_into(buf, ui.text[side], ui.colon[side])

    dues = getattr(app, "dues", None)  # the sleep step (app.Dues); older firmware: a method

    def next_due():
        dues.after(now, g.deadline(), app._next_render, False, app._button_due, app._battery_due)

    if dues is None:

        def next_due():
            (getattr(app, "_next_due", None) or app._until_next)(now, g.deadline())

    else:
        try:
            next_due()
        except TypeError:  # older firmware: App kept the battery's instant

            def next_due():
                dues.after(now, g.deadline(), app._next_render, False, app._button_due)

    base = _median(lambda: None, n)
    cases = (
        ("an empty Python method call", lambda: empty.method(), None),
        ("App.wake(), nothing due", lambda: app.wake(), None),
        ("App.wake() at a display instant (1 frame)", lambda: app.wake(), wake_setup),
        ("View.render(now), text unchanged (no frame)", render, None),
        ("View.render(now), running side changed (1 frame)", render, new_frame),
        ("Ui.render(now)", lambda: ui.render(now), None),
        ("Ui.next_change(now)", lambda: ui.next_change(now), None),
        ("Ui.alerts(now)", lambda: ui.alerts(now), None),
        ("TM1637.show, bytes changed (1 frame)", lambda: disp.show(segs), new_frame),
        ("TM1637.show, bytes unchanged", lambda: disp.show(segs), None),
        ("segments.encode_into, one side", encode, None),
        ("timefmt.countdown_into, mm:ss", lambda: timefmt.countdown_into(buf, 754_321), None),
        ("Game.press, a real move", press, press_setup),
        ("Game.remaining", lambda: g.remaining(side, now), None),
        ("Game.tick, nothing due", lambda: g.tick(now), None),
        ("Game.deadline", lambda: g.deadline(), None),
        ("the sleep step (Dues.after)", next_due, None),
        ("buttons.poll, nothing pressed", lambda: b.buttons.poll(now), None),
        ("buttons.next_due", lambda: b.buttons.next_due(now), None),
        ("levers.drain, nothing queued", lambda: b.levers.drain(app._on_lever), None),
        ("levers.waiting", lambda: b.levers.waiting(), None),
        ("mono.update", lambda: app.mono.update(ticks_us()), None),
        ("doorbell take(), not rung", lambda: b.bell.take(), None),
        ("buzzer.next_due, silent", lambda: b.buzzer.next_due(now), None),
    )  # fmt: skip
    result = []
    for name, fn, setup in cases:
        gc.collect()
        try:
            us = _median(fn, n, setup) - base
        except (AttributeError, TypeError):
            us = None
        result.append((name, us))
        if app.wdt is not None:
            app.wdt.feed()
    print(json.dumps(result))
