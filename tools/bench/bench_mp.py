"""The MicroPython half of `make bench`: speed and allocation of the firmware's hot paths.

Runs under real MicroPython 1.27 (tools/bench/mp_run.mjs, with firmware/ and tools/bench/
mounted and on sys.path); tools/bench/bench.py starts it and formats the results.

usage: bench_mp.py [--mpy BLOB] [N [ROOT]]
    --mpy   import the firmware from .mpy files (as on the board) instead of sources: BLOB
            (mpy_blob.json, written by tools/bench/bench.py) holds them; they are unpacked to
            /mpyfw, which goes first on sys.path
    N       calls per measurement (default 20000, at least 64)
    ROOT    writable folder for the App's settings (default /flash, created if missing)

Prints one line per figure: `BENCH {"key": ..., "value": ..., "unit": ..., "target": ...,
"label": ..., "method": ...}` (JSON), then `BENCH-DONE`. Any exception ends the run with a
non-zero exit code.

This entry owns the order of the run and the boot figure: it unpacks the .mpy files, takes
the heap baseline, boots the App on the stand-in board (tools/bench/bench_board.py) and reads the
heap after boot *before* it imports the bench's own modules (so their code is not counted),
then hands over to them, one job each:
    bench_measure   how a figure is measured (time, bytes, heap_lock proof) and printed
    bench_hot       the hot paths alone: engine press / tick, a UI frame, TM1637.show, timefmt
    bench_drive     the App's loop driven on virtual time (a fresh game, runs, counters)
    bench_loop      the loop's figures: wakeups, a move, 60 s under heap_lock, lags, scenarios
"""

import gc
import sys

_MPY_DIR = "/mpyfw"


def _unpack_mpy(blob):
    """Write the .mpy files packed in `blob` (see tools/bench/bench.py write_blob) to _MPY_DIR,
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

import os  # noqa: E402  (after the baseline: the boot figure counts only what follows)

import app as app_mod  # noqa: E402
import engine as E  # noqa: E402
import tm1637  # noqa: E402, F401  (the real board imports it: part of the boot heap)
from bench_board import BenchBoard, VirtualTime, install  # noqa: E402


def ensure_dir(path):
    try:
        os.mkdir(path)
    except OSError:
        pass  # exists


def main():
    n = int(_ARGS[0]) if _ARGS else 20_000
    root = _ARGS[1] if len(_ARGS) > 1 else "/flash"
    if _FROM_MPY and not getattr(E, "__file__", "").endswith(".mpy"):
        raise RuntimeError("--mpy: the firmware was not imported from .mpy files")
    if n < 64:
        raise ValueError("N must be at least 64")
    ensure_dir(root)

    # Boot: the App on the stand-in board, as main.py builds it on the real one.
    clock = VirtualTime((1 << 30) - 5_000_000)  # 5 s before the ticks wrap
    install(clock, app_mod)
    board = BenchBoard(clock)
    app = app_mod.App(board, root, os)
    app.journal.enabled = False  # the heap_lock proofs run the press path without its record
    gc.collect()
    used = gc.mem_alloc() - _HEAP_START

    import bench_hot  # the bench's own modules, after the boot figure
    import bench_loop
    from bench_measure import emit

    impl = sys.implementation
    emit(
        "runtime",
        "MicroPython %d.%d.%d (%s)"
        % (impl.version[0], impl.version[1], impl.version[2], impl._machine),
        "",
        "runtime",
        "sys.implementation",
    )
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

    bench_hot.bench_engine(n)
    bench_hot.bench_ui(n)
    bench_loop.bench_app(n, app, board, clock)
    print("BENCH-DONE")


main()
