"""make bench, MicroPython half: the hot paths alone (engine press and tick, a UI frame,
TM1637.show, timefmt), each timed, its allocation counted and proved under heap_lock.

Runs under MicroPython 1.27 (imported by tools/bench/bench_mp.py); figures through
bench_measure.measure.
"""

import engine as E
import presets
import segments
import settings as settings_mod
import timefmt
import tm1637
import ui as ui_mod
from bench_measure import LOCKED_CALLS, measure


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
    if g.state != E.RUNNING or g.log_count < min(n, LOCKED_CALLS) + 8:
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

    from bench_board import FakeMachine

    disp = tm1637.TM1637(FakeMachine())
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
        "TM1637.show(segs) with the bytes changed every call: the CPU's part of a frame "
        "(the state machine stand-in's calls count as the rp2 port's C calls; the PIO puts "
        "the frame on the wire), N calls",
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
