"""make bench, MicroPython half: how one figure is measured and reported.

Runs under MicroPython 1.27 (imported by tools/bench/bench_mp.py). Owns the output format (one
`BENCH {json}` line per figure, parsed by tools/bench/bench.py) and the three measurements every
hot path gets (`measure`): its time per call, its bytes allocated per call, and a heap_lock
proof.

Method: the wasm port's ticks_us() has 1 ms resolution, so each figure times N calls in one
stretch and divides; the cost of the bare loop (measured the same way) is subtracted. Timings
are the host's wasm speed, not the RP2040's: compare them with each other and between
commits, not with the board. Allocation is gc.mem_alloc() before/after the same N calls with
gc disabled, divided by N (deterministic), and separately a shorter run inside
micropython.heap_lock() (any allocation raises MemoryError) gives the "locked" proof; the
latter also catches memory allocated and freed at once (m_new/m_del), which mem_alloc misses.
Note: in this wasm build gc.collect() frees nothing within a run (measured: 20 MB of
garbage stays counted), so mem_alloc() counts every allocation made so far.

Each `body(n)` runs its operation n times in a `while n:` loop (no range object) and returns
nothing; `bare(n)` is the same loop without the operation.
"""

import gc
import io
import json
import sys
import time

import micropython

LOCKED_CALLS = 200  # calls run inside heap_lock for the proof


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


def where(exc):
    """The traceback of `exc` as one line (for an allocation caught by heap_lock)."""
    buf = io.StringIO()
    sys.print_exception(exc, buf)
    return " | ".join(line.strip() for line in buf.getvalue().split("\n") if line.strip())


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
    ok = locked_ok(body, min(n, LOCKED_CALLS))
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
        "%d calls inside micropython.heap_lock(); 1 = no MemoryError" % min(n, LOCKED_CALLS),
        1,
    )
