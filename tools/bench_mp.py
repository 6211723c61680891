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
import tm1637  # noqa: E402, F401  (the real board imports it: part of the boot heap)
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
def bench_app(n, app, board, clock):
    pins = board.lever_pins
    period_us = 1_000_000 // app_mod.LOOP_HZ
    ui = app.ui
    g = ui.game
    if g.state != E.READY or ui.screen != ui_mod.S_GAME:
        raise RuntimeError("app bench: the app did not boot to a ready game")
    pins[0].fire()  # Black presses: White's (right) clock starts
    clock.advance(period_us)
    app.step()
    if g.state != E.RUNNING:
        raise RuntimeError("app bench: the first lever press did not start the game")

    # three closed-over variables (see bench_ui)
    def steps(n):
        g = app.ui.game
        while n:
            n -= 1
            clock.advance(period_us)
            if not n & 63:
                pins[g.running].fire()  # a move every 64 steps (0.64 s)
            app.step()

    def steps_bare(n):
        g = app.ui.game
        while n:
            n -= 1
            clock.advance(period_us)
            if not n & 63:
                pins[g.running]  # noqa: B018

    steps(200)  # warm up
    moves = g.log_count
    measure(
        "step",
        "App.step()",
        steps,
        steps_bare,
        n,
        "App.step() with a running game on the stand-in board (tools/bench_board.py: real "
        "levers/buttons/buzzer drivers on fake pins, virtual clock +10 ms per step), a lever "
        "press every 64 steps, render every %d steps, N steps" % app_mod.RENDER_EVERY,
    )
    want = 2 * (n // 64) + min(n, _LOCKED_CALLS) // 64
    if g.state != E.RUNNING or g.log_count - moves < want:
        raise RuntimeError(
            "app bench: the injected presses were not counted (state %d, %d of %d moves)"
            % (g.state, g.log_count - moves, want)
        )
    if board.displays[0].shows == 0:
        raise RuntimeError("app bench: nothing was shown")


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
    board = BenchBoard()
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
