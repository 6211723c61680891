"""make bench, MicroPython half: the loop's figures: a wakeup with nothing due, a move, the
loop under heap_lock for 60 s of play, the lever's and the flag's lags, and per scenario
(mm:ss, tenths, h:mm, nobody touching) wakeups, frames and work per second.

Runs under MicroPython 1.27 (imported by tools/bench/bench_mp.py), on the App the entry booted;
drives it with bench_drive, reports with bench_measure.
"""

import gc
import time

import engine as E
import micropython
import ui as ui_mod
from bench_drive import ARMAGEDDON, BULLET, FIDE, RAPID_15, Run, fresh, loop, play, ready
from bench_measure import LOCKED_CALLS, emit, measure


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


def journal_record_bytes(app, board, clock):
    """The most one journal record allocates (Journaling.record: the record's bytes, the file
    objects, the snapshot list), over 24 press records of a fresh game (a chunk's write
    every 8th) and 3 periodic ones, each in a wakeup with room before the next change."""
    jr = app.journal
    jr.enabled = True
    fresh(app, board, clock, RAPID_15)
    g = app.ui.game
    worst = 0
    for i in range(27):
        clock.advance(1_300_000)
        app.safe_wake()
        if i < 24:
            board.lever_pins[g.running].fire()
            board.lever_pins[g.running].release()
            clock.advance(1_000)
            app.safe_wake()
        now = app.mono.ms
        gc.collect()
        before = gc.mem_alloc()
        jr.press = i < 24
        jr.due = -1 if i < 24 else 0
        jr.record(now, now, 0, -1, -1, None)
        used = gc.mem_alloc() - before
        if used > worst:
            worst = used
    records = jr.store.seq  # the records of this journal
    jr.enabled = False
    jr.store.clear()
    return worst, records


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
    if ui.game.log_count < min(m, LOCKED_CALLS) or app.errors:
        raise RuntimeError("app bench: the moves were not counted")

    # The set-up check: a first press from White's side under draw odds, refused (the
    # engine's refusal, the error sound, the prompt's render), its re-arm wakeup 25 ms
    # later and a wakeup 1.5 s on, which the prompt's alternation asks for anyway.
    def refusals(n):
        pins = board.lever_pins
        while n:
            n -= 1
            clock.advance(1_500_000)
            app.safe_wake()
            pins[0].fire()
            pins[0].release()
            app.safe_wake()
            clock.advance(25_000)
            app.safe_wake()

    def refusals_bare(n):
        pins = board.lever_pins
        while n:
            n -= 1
            clock.advance(1_500_000)
            pins[0]  # noqa: B018
            clock.advance(25_000)

    measure(
        "wake_refused",
        "a refused first press (3 wakeups)",
        refusals,
        refusals_bare,
        m,
        "per press: a wakeup 1.5 s on, the lever's wakeup (drain, Game.press refused, the "
        "error sound, the prompt's render), the re-arm wakeup 25 ms later; Armageddon 5 v 4 "
        "ready, the left lever (White's side), %d presses" % m,
        lambda: ready(app, board, clock, ARMAGEDDON),
    )
    g = ui.game
    if g.state != E.READY or g.refusals() < min(m, LOCKED_CALLS) or app.errors:
        raise RuntimeError("app bench: the refused presses were not counted")

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

    # The journal's record (off in the heap_lock runs above): what one allocates.
    worst, records = journal_record_bytes(app, board, clock)
    emit(
        "journal_bytes",
        worst,
        "B",
        "journal: bytes a record allocates",
        "the most gc.mem_alloc() grew over one Journaling.record, of %d (24 press "
        "records, a chunk every 8th, 3 periodic)" % records,
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
