"""make bench, MicroPython half: driving the App's event-driven loop on virtual time.

Runs under MicroPython 1.27 (imported by tools/bench/bench_loop.py). The loop is event-driven
(app.py): these runs drive App.safe_wake() and the stand-in bell (tools/bench/bench_board.py)
exactly as App.run_loop() does, on virtual time. Nothing here allocates once a run has
started: the heap_lock proof of the loop runs `loop` itself.
"""

from array import array

import engine as E

RAPID_15 = 3  # presets.py: Rapid 15+10, mm:ss from the first second
BULLET = 8  # Bullet 1+0: the last 10 s in tenths, then the flag
FIDE = 0  # 90 min: h:mm
ARMAGEDDON = 19  # Armageddon 5 v 4: draw odds, White's side on the left


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


def ready(app, board, clock, preset):
    """A new game of `preset`, ready (nobody has pressed), the levers quiet."""
    app.ui.settings["control"] = {"preset": preset}
    app.ui.new_game()
    clock.total_us = 0
    clock.advance(30_000)
    app.safe_wake()
    if app.ui.game.state != E.READY:
        raise RuntimeError("app bench: the new game is not ready")


class Run:
    """Counters of one run of the loop (preallocated: the loop itself must not allocate)."""

    def __init__(self):
        self.c = array("i", [0] * 8)  # wakeups, frames, worst display lag us, worst press


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
        bell.wait_until(app._wake_us)
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
            lag = (mono.ms - due) * 1000 + mono.rem_us
            if lag > c[2]:
                c[2] = lag
        if 0 <= deadline <= mono.ms and g.state != E.RUNNING:
            lag = (mono.ms - deadline) * 1000 + mono.rem_us
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
        left = clock.ticks_diff(app._wake_us, clock.us)  # the bell's alarm, inline
        clock.advance(left if left > 0 else 0)
        app.safe_wake()
        n += 1
    return n
