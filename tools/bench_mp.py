"""The MicroPython half of `make bench`: speed and allocation of the firmware's hot paths.

Runs under real MicroPython 1.27 (tools/mp_run.mjs, with firmware/ and tools/ mounted and on
sys.path); tools/bench.py starts it and formats the results.

usage: bench_mp.py [--mpy BLOB] [N [ROOT]]
    --mpy   import the firmware from .mpy files (as on the board) instead of sources: BLOB
            (mpy_blob.json, written by tools/bench.py) holds them; they are unpacked to
            /mpyfw, which goes first on sys.path
    N       calls per measurement (default 20000, at least 64)
    ROOT    writable folder for the App's settings (default /flash, created if missing)

Prints one line per figure: `BENCH {"key": ..., "value": ..., "unit": ..., "target": ...,
"label": ..., "method": ...}` (JSON), then `BENCH-DONE`. Any exception ends the run with a
non-zero exit code.

Method, common to all timings: the wasm port's ticks_us() has 1 ms resolution, so each figure
times N calls in one stretch and divides; the cost of the bare loop (measured the same way) is
subtracted. Timings are the host's wasm speed, not the RP2040's: compare them with each other
and between commits, not with the board. Allocation is gc.mem_alloc() before/after the same N
calls with gc disabled, divided by N (deterministic), and separately a shorter run inside
micropython.heap_lock() (any allocation raises MemoryError) gives the "locked" proof; the
latter also catches memory allocated and freed at once (m_new/m_del), which mem_alloc misses.
Note: in this wasm build gc.collect() frees nothing within one run (measured: 20 MB of
garbage stays counted), so mem_alloc() counts every allocation made so far.
"""

import gc
import sys
from array import array

_MPY_DIR = "/mpyfw"


def _unpack_mpy(blob):
    """Write the .mpy files packed in `blob` (see tools/bench.py write_blob) to _MPY_DIR,
    streaming: only small, short-lived objects (the wasm port's GC is conservative)."""
    import os
    from binascii import unhexlify

    try:
        os.mkdir(_MPY_DIR)
    except OSError:
        pass
    out = None
    with open(blob) as f:
        for line in f:
            item = line.strip().rstrip(",").strip('"')
            if item.startswith("F "):
                if out:
                    out.close()
                out = open(_MPY_DIR + "/" + item[2:], "wb")
            elif item.startswith("D "):
                out.write(unhexlify(item[2:]))
    if out:
        out.close()
    sys.path.insert(0, _MPY_DIR)


_ARGS = sys.argv[1:]
_FROM_MPY = "--mpy" in _ARGS
if _FROM_MPY:
    _i = _ARGS.index("--mpy")
    _unpack_mpy(_ARGS[_i + 1])
    del _ARGS[_i : _i + 2]
gc.collect()
_HEAP_START = gc.mem_alloc()  # interpreter + runner + this script's bytecode

import io  # noqa: E402  (after the baseline: the boot figure counts only what follows)
import json  # noqa: E402
import os  # noqa: E402
import time  # noqa: E402

import app as app_mod  # noqa: E402
import engine as E  # noqa: E402
import micropython  # noqa: E402
import presets  # noqa: E402
import segments  # noqa: E402
import settings as settings_mod  # noqa: E402
import timefmt  # noqa: E402
import tm1637  # noqa: E402  (the real board imports it: part of the boot heap)
import ui as ui_mod  # noqa: E402
from bench_board import BenchBoard, VirtualTime, install  # noqa: E402

_LOCKED_CALLS = 200  # calls run inside heap_lock for the proof


def emit(key, value, unit, label, method, target=None):
    rec = {
        "key": key,
        "value": value,
        "unit": unit,
        "target": target,
        "label": label,
        "method": method,
    }
    print("BENCH " + json.dumps(rec))


def engine_file():
    return getattr(E, "__file__", "")


def ensure_dir(path):
    try:
        os.mkdir(path)
    except OSError:
        pass  # exists


def where(exc):
    """The traceback of `exc` as one line (for an allocation caught by heap_lock)."""
    buf = io.StringIO()
    sys.print_exception(exc, buf)
    return " | ".join(line.strip() for line in buf.getvalue().split("\n") if line.strip())


# ---------------------------------------------------------------- runners
# Each `body(n)` runs its operation n times in a `while n:` loop (no range object) and
# returns nothing; `bare(n)` is the same loop without the operation.


def per_call_us(body, bare, n):
    t0 = time.ticks_us()
    body(n)
    t1 = time.ticks_us()
    bare(n)
    t2 = time.ticks_us()
    net = time.ticks_diff(t1, t0) - time.ticks_diff(t2, t1)
    return round(max(net, 0) / n, 2)


def bytes_per_call(body, n):
    gc.collect()
    gc.disable()
    try:
        before = gc.mem_alloc()
        body(n)
        after = gc.mem_alloc()
    finally:
        gc.enable()
    return (after - before) / n


def locked_ok(body, n):
    """1 if `body(n)` ran inside heap_lock, else 0 (and the allocating line on stderr)."""
    gc.collect()
    micropython.heap_lock()
    try:
        body(n)
    except MemoryError as exc:
        micropython.heap_unlock()
        print("heap_lock caught an allocation: " + where(exc), file=sys.stderr)
        return 0
    micropython.heap_unlock()
    return 1


def measure(prefix, what, body, bare, n, method, setup=None):
    """Time, allocation and heap_lock proof of `body`; `setup()` (if given) runs before
    each of the three, outside what is measured."""
    if setup:
        setup()
    us = per_call_us(body, bare, n)
    if setup:
        setup()
    alloc = bytes_per_call(body, n)
    if setup:
        setup()
    ok = locked_ok(body, min(n, _LOCKED_CALLS))
    emit(prefix + "_us", us, "us", what + ": time", method)
    emit(
        prefix + "_bytes",
        alloc,
        "B",
        what + ": bytes allocated",
        "gc.mem_alloc() delta over %d calls, gc disabled" % n,
        0,
    )
    emit(
        prefix + "_locked",
        ok,
        "ok",
        what + ": heap_lock proof",
        "%d calls inside micropython.heap_lock(); 1 = no MemoryError" % min(n, _LOCKED_CALLS),
        1,
    )


# ---------------------------------------------------------------- engine
def bench_engine(n):
    control = presets.control(0)
    inc = control.periods[0][3]  # a move as long as the increment keeps the times constant
    g = E.Game(control)
    st = [0]  # time of the last press (ms); a list cell so the closures can move it

    def setup():
        # a fresh game each run keeps t a small int; 8 warm-up moves
        g.reset(control)
        st[0] = 1_000
        g.press(0, st[0])  # the right side (White) runs
        for _ in range(8):
            st[0] += inc
            g.press(g.running, st[0])

    def press(n):
        t = st[0]
        while n:
            n -= 1
            t += inc
            g.press(g.running, t)
        st[0] = t

    def press_bare(n):
        t = st[0]
        while n:
            n -= 1
            t += inc
            g.running  # noqa: B018 (the attribute lookup the timed loop does too)

    if inc * (n + 10) >= 1 << 30:  # t must stay a small int
        raise ValueError("N too large for the press bench")
    measure(
        "press",
        "engine press",
        press,
        press_bare,
        n,
        "Game.press(side on move, t) with t += 30 s (preset 0, Fischer 30 s), N calls",
        setup,
    )
    if g.state != E.RUNNING or g.log_count < min(n, _LOCKED_CALLS) + 8:
        raise RuntimeError("press bench: moves were not counted (state %d)" % g.state)

    def tick(n):
        base = g.turn_start
        while n:
            n -= 1
            g.tick(base + (n & 1023))

    def tick_bare(n):
        base = g.turn_start
        while n:
            n -= 1
            base + (n & 1023)  # noqa: B018

    measure(
        "tick",
        "engine tick",
        tick,
        tick_bare,
        n,
        "Game.tick(now) while running, now within the first second of a move, N calls",
    )
    if g.state != E.RUNNING:
        raise RuntimeError("tick bench: the game stopped")


# ---------------------------------------------------------------- ui
def bench_ui(n):
    ui = ui_mod.Ui(settings_mod.defaults())
    ui.game.press(0, 0)
    segs = (bytearray(4), bytearray(4))
    st = [0]

    # At most 5 closed-over variables + arguments: a bigger closure call allocates its
    # argument array (objclosure.c) and heap_lock would blame the bench, not the firmware.
    def frame(n):
        now = st[0]
        text = ui.text
        colon = ui.colon
        while n:
            n -= 1
            now += 37
            ui.render(now)
            segments.encode_into(segs[0], text[0], colon[0])
            segments.encode_into(segs[1], text[1], colon[1])
        st[0] = now

    def frame_bare(n):
        now = st[0]
        while n:
            n -= 1
            now += 37
            segs[0]  # noqa: B018
            segs[1]  # noqa: B018

    frame(100)  # warm up
    measure(
        "frame",
        "ui frame",
        frame,
        frame_bare,
        n,
        "Ui.render(now) on the running game screen + 2 x segments.encode_into, N frames",
    )
    if ui.screen != ui_mod.S_GAME or ui.game.state != E.RUNNING:
        raise RuntimeError("ui bench: not on the running game screen")
    if segments.encode_into(segs[0], ui.text[0], ui.colon[0]) != 0:
        raise RuntimeError("ui bench: unencodable text %r" % bytes(ui.text[0]))

    from bench_board import FakeBus

    disp = tm1637.TM1637(FakeBus())
    segs_a = bytearray(segments.encode(" 123", True))
    segs_b = bytearray(segments.encode(" 124", True))

    def show(n):
        while n:
            n -= 1
            disp.show(segs_a if n & 1 else segs_b)

    def show_bare(n):
        while n:
            n -= 1
            segs_a if n & 1 else segs_b  # noqa: B018

    measure(
        "show",
        "TM1637.show, changed",
        show,
        show_bare,
        n,
        "TM1637.show(segs) with the bytes changed every call: the Python part of a frame "
        "(the bus stand-in's three calls count as SoftI2C's C calls; the bit time is added "
        "by tools/bench.py), N calls",
    )

    buf = bytearray(4)
    t_start = 5_400_000  # 90 min, MM:SS and HhMM layouts

    def fmt(n):
        t = t_start
        while n:
            n -= 1
            t -= 997
            timefmt.countdown_into(buf, t)

    def fmt_bare(n):
        t = t_start
        while n:
            n -= 1
            t -= 997

    measure(
        "timefmt",
        "timefmt",
        fmt,
        fmt_bare,
        n,
        "timefmt.countdown_into(buf, t) with t falling from 90 min by 997 ms, N calls",
    )


# ---------------------------------------------------------------- app
# The loop is event-driven (app.py): these runs drive App.safe_wake() and the stand-in bell
# (tools/bench_board.py) exactly as App.run_loop() does, on virtual time.
RAPID_15 = 3  # presets.py: Rapid 15+10, mm:ss from the first second
BULLET = 8  # Bullet 1+0: the last 10 s in tenths, then the flag
FIDE = 0  # 90 min: h:mm


def fresh(app, board, clock, preset):
    """A new game of `preset`, started by Black (left): White's (right) clock runs."""
    app.ui.settings["control"] = {"preset": preset}
    app.ui.new_game()
    clock.total_us = 0  # keep it a small int
    clock.advance(30_000)  # quiet levers re-arm
    app.safe_wake()
    board.lever_pins[0].fire()
    board.lever_pins[0].release()
    app.safe_wake()
    if app.ui.game.state != E.RUNNING:
        raise RuntimeError("app bench: the first lever press did not start the game")


class Run:
    """Counters of one run of the loop (preallocated: the loop itself must not allocate)."""

    def __init__(self):
        self.c = array("i", [0] * 8)  # wakeups, frames, worst display lag us, worst press
        #                              lag us, flag lag us, presses, -, -


def loop(app, board, clock, run_us, run, press_every_us=0):
    """Run the loop for `run_us` of virtual time; count wakeups and frames and the
    scheduling lag (virtual us from the due instant to the wakeup that served it). Small
    ints only (the heap_lock proof runs it): times relative to the start of the run, lags
    from the app's monotonic clock."""
    c = run.c
    bell = board.bell
    g = app.ui.game
    mono = app.mono
    clock.total_us = 0
    bell.press_us = -1
    next_press = press_every_us if press_every_us else -1
    while clock.total_us < run_us:
        due = app._next_render  # the instant this wakeup may be for (ms, -1 = none)
        deadline = g.deadline()
        pressed = bell.press_us
        frames = board.frames()
        bell.wait(app._sleep_ms)
        if pressed >= 0 and bell.press_us < 0:
            lag = clock.total_us - pressed
            if lag > c[3]:
                c[3] = lag
            c[5] += 1
        app.safe_wake()
        c[0] += 1
        wrote = board.frames() - frames
        c[1] += wrote
        if wrote and 0 <= due <= mono.ms:
            lag = (mono.ms - due) * 1000 + mono._rem_us
            if lag > c[2]:
                c[2] = lag
        if 0 <= deadline <= mono.ms and g.state != E.RUNNING:
            lag = (mono.ms - deadline) * 1000 + mono._rem_us
            if lag > c[4]:
                c[4] = lag
        if next_press >= 0 and bell.press_us < 0:
            # the next move, a whole period from now, at an odd us offset
            bell.press_at(clock.total_us + press_every_us + 379, board.lever_pins[g.running])


def play(app, clock, run_us):
    """The bare loop: sleep as the app asks (the bell stand-in's arithmetic, inline), wake;
    returns the wakeups. Nothing else, so its real time is the loop's work."""
    clock.total_us = 0
    n = 0
    while clock.total_us < run_us:
        us = app._sleep_ms * 1000 - clock.us % 1000  # the poll's ticks_ms grid
        clock.advance(us if us > 0 else 0)
        app.safe_wake()
        n += 1
    return n


def scenario(name, label, app, board, clock, preset, lead_ms, play_ms, target, reps=3):
    """Wakeups, frames and work per second of play with nobody touching: `reps` runs of
    `play_ms`, each `lead_ms` into a fresh game; the work is the least of the runs (the
    host's other load only ever adds). Then a run with bookkeeping for the lags."""
    best_ms = -1
    for _ in range(reps):
        fresh(app, board, clock, preset)
        loop(app, board, clock, lead_ms * 1000, Run())
        frames = board.frames()
        gc.collect()
        t0 = time.ticks_ms()
        wakeups = play(app, clock, play_ms * 1000)
        work_ms = time.ticks_diff(time.ticks_ms(), t0)
        frames = board.frames() - frames
        if best_ms < 0 or work_ms < best_ms:
            best_ms = work_ms
    fresh(app, board, clock, preset)
    loop(app, board, clock, lead_ms * 1000, Run())
    run = Run()
    loop(app, board, clock, play_ms * 1000, run)
    seconds = play_ms / 1000
    how = "%s, %d s of play from %d s in, nobody touching, on virtual time" % (
        label,
        play_ms // 1000,
        lead_ms // 1000,
    )
    emit(
        name + "_wakeups", round(wakeups / seconds, 3), "/s", name + ": wakeups per s", how, target
    )
    emit(name + "_frames", round(frames / seconds, 3), "/s", name + ": TM1637 frames per s", how)
    emit(
        name + "_work",
        round(best_ms * 1000 / seconds, 1),
        "us/s",
        name + ": loop work per s (wasm)",
        "real time of the bare loop (App.safe_wake() and the sleep's arithmetic) per second "
        "of play, least of %d runs (ticks_ms)" % reps,
    )
    emit(
        name + "_lag",
        run.c[2],
        "us",
        name + ": display lag (virtual)",
        "worst virtual us "
        "from a text's exact instant to the wakeup that wrote it, over a further run",
    )


def bench_app(n, app, board, clock):
    ui = app.ui
    if ui.game.state != E.READY or ui.screen != ui_mod.S_GAME:
        raise RuntimeError("app bench: the app did not boot to a ready game")

    # A wakeup with nothing due: the same instant again (the cost of a spurious wakeup).
    fresh(app, board, clock, RAPID_15)

    # (app.safe_wake() is called, never kept: a bound method object would be allocated)
    def idle(n):
        while n:
            n -= 1
            app.safe_wake()

    def idle_bare(n):
        while n:
            n -= 1
            app  # noqa: B018

    measure(
        "wake_idle",
        "wakeup, nothing due",
        idle,
        idle_bare,
        n,
        "App.safe_wake() again at the same instant, clock running (Rapid 15+10), N calls",
    )
    if app.errors:
        raise RuntimeError("app bench: a wakeup raised")

    # A move: the lever's wakeup (drain, engine press, render) and its re-arm wakeup 25 ms
    # later, with 1.5 s of play before the next move.
    def moves(n):
        pins = board.lever_pins
        g = app.ui.game
        while n:
            n -= 1
            clock.advance(1_500_000)
            app.safe_wake()
            pins[g.running].fire()
            pins[g.running].release()
            app.safe_wake()
            clock.advance(25_000)
            app.safe_wake()

    def moves_bare(n):
        pins = board.lever_pins
        g = app.ui.game
        while n:
            n -= 1
            clock.advance(1_500_000)
            pins[g.running]  # noqa: B018
            clock.advance(25_000)

    m = min(n, 300)  # 300 moves of 1.5 s: inside one 15 min game
    measure(
        "wake_move",
        "a move (3 wakeups)",
        moves,
        moves_bare,
        m,
        "per move: a wakeup 1.5 s on, the lever's wakeup (drain, Game.press, render of both "
        "displays), the re-arm wakeup 25 ms later; Rapid 15+10, %d moves" % m,
        lambda: fresh(app, board, clock, RAPID_15),
    )
    if ui.game.log_count < min(m, _LOCKED_CALLS) or app.errors:
        raise RuntimeError("app bench: the moves were not counted")

    # The loop itself, allocation: the event-driven run with moves, under heap_lock.
    fresh(app, board, clock, RAPID_15)
    run = Run()
    loop(app, board, clock, 5_000_000, run, 1_700_000)
    errors = app.errors
    gc.collect()
    before = gc.mem_alloc()
    micropython.heap_lock()
    try:
        loop(app, board, clock, 60_000_000, run, 1_700_000)
    finally:
        micropython.heap_unlock()
    after = gc.mem_alloc()
    ok = 1 if app.errors == errors and run.c[5] >= 30 else 0
    emit(
        "loop_locked",
        ok,
        "ok",
        "the loop: heap_lock proof",
        "60 s of play with a move every 1.7 s (%d wakeups, %d presses) inside "
        "micropython.heap_lock(); 1 = no wakeup raised" % (run.c[0], run.c[5]),
        1,
    )
    emit(
        "loop_bytes",
        after - before,
        "B",
        "the loop: bytes allocated",
        "gc.mem_alloc() delta over the same 60 s",
        0,
    )

    # Lever presses through the bell: scheduling lag from the edge to its wakeup.
    emit(
        "lever_lag",
        run.c[3],
        "us",
        "lever: press to wakeup (virtual)",
        "worst virtual us from a lever edge (odd us offsets) to the wakeup that drained it",
    )

    # Nobody touching: mm:ss (colon beat), tenths, h:mm.
    scenario("mmss", "mm:ss", app, board, clock, RAPID_15, 1_000, 600_000, 2.05)
    scenario("tenths", "tenths", app, board, clock, BULLET, 50_500, 9_000, None)
    flag = Run()
    loop(app, board, clock, 2_000_000, flag)
    if app.ui.game.state != E.FLAGGED:
        raise RuntimeError("app bench: bullet did not flag")
    emit(
        "flag_lag",
        flag.c[4],
        "us",
        "flag: deadline to wakeup (virtual)",
        "virtual us from the flag's exact deadline to the wakeup that flagged it",
    )
    scenario("hmm", "h:mm", app, board, clock, FIDE, 1_000, 600_000, 0.3)
    if app.errors:
        raise RuntimeError("app bench: %d wakeups raised" % app.errors)


def main():
    n = int(_ARGS[0]) if _ARGS else 20_000
    root = _ARGS[1] if len(_ARGS) > 1 else "/flash"
    if _FROM_MPY and not engine_file().endswith(".mpy"):
        raise RuntimeError("--mpy: the firmware was not imported from .mpy files")
    if n < 64:
        raise ValueError("N must be at least 64")
    ensure_dir(root)
    impl = sys.implementation
    emit(
        "runtime",
        "MicroPython %d.%d.%d (%s)"
        % (impl.version[0], impl.version[1], impl.version[2], impl._machine),
        "",
        "runtime",
        "sys.implementation",
    )

    # Boot: the App on the stand-in board, as main.py builds it on the real one.
    clock = VirtualTime((1 << 30) - 5_000_000)  # 5 s before the ticks wrap
    install(clock, app_mod)
    board = BenchBoard(clock)
    app = app_mod.App(board, root, os)
    gc.collect()
    used = gc.mem_alloc() - _HEAP_START
    emit(
        "boot_heap",
        used,
        "B",
        "heap after boot (firmware + App)",
        "gc.mem_alloc() after importing the firmware (from %s) and building App on the "
        "stand-in board, minus gc.mem_alloc() before. This port's gc.collect() frees "
        "nothing within a run, so boot garbage counts too: an upper bound of the live heap"
        % ("mpy-cross .mpy files" if _FROM_MPY else "sources"),
        40_960,
    )
    emit(
        "boot_heap_base",
        _HEAP_START,
        "B",
        "heap before the firmware (not on the board)",
        "gc.mem_alloc() at the start: wasm runtime, this script, unpacking the .mpy files",
    )

    bench_engine(n)
    bench_ui(n)
    bench_app(n, app, board, clock)
    print("BENCH-DONE")


main()
