#!/usr/bin/env python3
"""`make chip-bench`: the clock's figures measured on the chip, against the goals.

usage: bench.py [--baseline REF] [--jobs N] [--json PATH]

Runs the firmware as `make flash` deploys it (tools/chip/chip.py builds the flash) on real
MicroPython rp2 inside rp2040js, driven only through the pins, and prints with pass/miss:
- CPU busy (the time the core is not in WFE/WFI) and wakeups per second (stretches the core
  is awake: untouched, each is one loop wakeup, since nothing else interrupts it) with the
  clock running in mm:ss, tenths and h:mm, untouched, and during play (Blitz 3+2, a move
  every ~1.7 s); mm:ss over five minutes, so the journal's periodic records, chunks and
  folder compactions come at their own pace (one compaction every two minutes or so);
- the lag from the exact instant a display's text becomes true to the stop that ends the
  frame writing it, for mm:ss digits, the colon's beat, tenths and h:mm, and whether any
  frame came early; for mm:ss also the worst over PHASES, games started a quarter ms
  apart (the lag holds the part of a ms from the exact instant to the whole ms the loop
  wakes at, so the start's phase against the app's ms grid moves it by up to 1 ms). The
  instant is the engine's, to the µs: the first ms at which the app's own UI shows the
  text (asked on the chip of the run's twin, see onchip.py and chip.Chip.twin), less the
  part of the ms before it at which the exact time left reached the whole ms that text
  shows (onchip.exact_instants: up to 1 ms earlier);
- the flag's exact instant (to the µs) to "FLAG" / " 0:0 " on the flagged side, and to the buzzer;
- a lever's first closing edge to the LEDs, and to the last frame of either display, for
  levers that bounce (0.8-2 ms of chatter, several patterns, none for some) pressed at
  phases spread over the µs and the ms, half of them 0.1-2 ms after the start of a render
  wakeup (inside it);
- the lever stamp's error (the stamp the firmware computes from its PIO word, as an
  instant, less the edge), for those presses and for edges inside a flash erase, a flash
  page program, back-to-back garbage collections and a REPL exchange over USB;
- the live heap after boot of the firmware alone (firmware imported, Board and App built;
  read by a three-line REPL snippet, none of the bench's probe code loaded);
- the cost of each piece of a wakeup (onchip.percall), median µs per call.
With --baseline REF the same runs are made for the firmware at git REF (its main.py is
replaced by this tree's when it does not keep the app in `clock`, which the probes need)
and both columns are printed. MICROPYTHON_UF2 and the boot ROM, or without them the pinned
downloads: see inputs.py.

The emulator is deterministic: the same firmware gives the same figures, to the cycle.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/: paths.py
import paths  # noqa: E402

paths.install(board=True)

import chip  # noqa: E402
import inputs  # noqa: E402

ROOT = chip.ROOT
ONCHIP = (Path(__file__).resolve().parent / "onchip.py").read_text()
MS = chip.MS

# Preset indexes (firmware/core/presets.py)
FIDE = 0
RAPID_15_10 = 3
BLITZ_3_2 = 6
BULLET_1_0 = 8

BOOT_MS = chip.BOOT_MS
MOVE_EVERY_MS = 1_700
PLAY_MS = 60_000
MMSS_MS = 300_000  # the journal's records, chunks and compactions at their own pace
LAGS_MS = 30_000  # the display lags of the mm:ss run: its first 30 s
PHASES = (0.0, 0.25, 0.5, 0.75)  # ms added before the first press: the start's phases
PHASE_MS = 10_000  # each phase's game: 10 s of mm:ss
HMM_MS = 150_000

GOALS = {
    "busy_mmss": ("CPU busy, mm:ss, nobody touching", "%", 0.5),
    "busy_play": ("CPU busy, Blitz 3+2, a move every ~1.7 s", "%", 1.0),
    "lag_digit": ("a mm:ss digit change → its last byte (max)", "ms", 3.0),
    "lag_beat": ("the colon's beat → its last byte (max)", "ms", 3.0),
    "lag_tenths": ("a tenths change → its last byte (max)", "ms", 3.0),
    "lag_hmm": ("an h:mm change → its last byte (max)", "ms", 3.0),
    "lag_digit_phases": ("… a mm:ss digit change, games started at 4 phases (max)", "ms", 3.0),
    "lag_beat_phases": ("… the colon's beat, games started at 4 phases (max)", "ms", 3.0),
    "early": ("frames written before their text was true", "", 0),
    "lag_flag": ('flag deadline → "FLAG" / " 0:0 " on the display', "ms", 3.0),
    "lag_flag_buzzer": ("flag deadline → the buzzer sounds", "ms", 3.0),
    "lag_led": ("bouncing lever's first edge → LEDs (max)", "ms", 1.5),
    "lag_led_render": ("… pressed inside a render wakeup → LEDs (max)", "ms", 1.5),
    "lag_displays": ("lever edge → last byte of both displays (max)", "ms", 3.0),
    "stamp": ("lever edge → its stamp, |error| (max), during play", "µs", 1.0),
    "stamp_stalled": ("… edges inside flash erase / program, GC, USB (max)", "µs", 1.0),
    "heap": ("live heap after boot, the firmware alone (Board + App built)", "%", 50.0),
    "wakeups_mmss": ("wakeups per second, mm:ss untouched", "/s", 2.05),
    "wakeups_hmm": ("wakeups per second, h:mm untouched", "/s", 0.3),
}
INFO = {
    "busy_tenths": ("CPU busy, tenths (under 10 s), untouched", "%"),
    "busy_hmm": ("CPU busy, h:mm, untouched", "%"),
    "wakeups_tenths": ("wakeups per second, tenths untouched", "/s"),
    "wakeups_play": ("wakeups per second, during play", "/s"),
    "lag_digit_mean": ("a mm:ss digit change → its last byte (mean)", "ms"),
    "lag_beat_mean": ("the colon's beat → its last byte (mean)", "ms"),
    "lag_tenths_mean": ("a tenths change → its last byte (mean)", "ms"),
    "lag_led_mean": ("lever edge → LEDs (mean)", "ms"),
    "lag_displays_mean": ("lever edge → last byte of both displays (mean)", "ms"),
    "stamp_min": ("lever edge → stamp, signed error (min)", "µs"),
    "stamp_cases": ("stamp errors: erase / program / GC and USB (µs, max)", ""),
    "lag_led_render_mean": ("… inside a render wakeup → LEDs (mean)", "ms"),
    "heap_kb": ("live heap after boot, KB of the total", "KB"),
    "render_wakeup_ms": ("an untouched mm:ss wakeup, awake (mean)", "ms"),
    "power_up_ms": ("power-up → the ready screen's first frame", "ms"),
}


def probe(session, call):
    return session.repl_json(ONCHIP + "\n" + call, timeout_ms=120_000)


def mono_ms(t_ns, origin_us):
    return (t_ns // 1000 - origin_us) // 1000


def start_game(s, preset, phase_ms=0.0):
    """Boot, choose `preset`, Black (left) starts White's (right) clock, `phase_ms` later
    than it would. Returns the ms of the lever edge."""
    s.run_to(BOOT_MS)
    if preset:
        s.choose_preset(preset)
    else:
        s.run_ms(200)
    if phase_ms:
        s.run_ms(phase_ms)
    edge = s.t
    s.press("left")
    return edge


def display_lags(s, tr, origin, side, t0_ns, t1_ns):
    """[(kind, lag_ns, early)] for every change lit on `side` within [t0, t1)."""
    lit = tr.lit(side)
    queries = []
    rows = []
    for k in range(1, len(lit)):
        cur, prev = lit[k], lit[k - 1]
        if not t0_ns <= cur.start < t1_ns or cur.segs is None or prev.segs is None:
            continue
        lo = mono_ms(prev.start, origin)
        hi = mono_ms(cur.start, origin)
        queries.append([side, lo, hi, cur.segs.hex()])
        if cur.text == prev.text:
            kind = "beat"  # only the colon changed
        elif "h" in cur.text:
            kind = "hmm"
        else:
            kind = "digit"
        rows.append((kind, cur))
    if not queries:
        return []
    firsts = probe(s, "first_true(clock, %s)" % json.dumps(queries))
    found = [[q[0], f] for q, f in zip(queries, firsts, strict=True) if f >= 0]
    exact = iter(probe(s, "exact_instants(clock, %s)" % json.dumps(found)) if found else [])
    out = []
    for (kind, cur), first in zip(rows, firsts, strict=True):
        if first < 0:
            out.append((kind, None, True))
            continue
        instant = (origin + next(exact)) * 1000
        out.append((kind, cur.t - instant, cur.start < instant))
    return out


# ---------------------------------------------------------------------------- scenarios
HEAP_ALONE = "import gc\ngc.collect()\nprint([gc.mem_alloc(), gc.mem_free()])"


def run_heap(c, out):
    with c.session() as s:
        s.run_to(BOOT_MS + 500)
        tr = s.trace()
        frames = tr.lcd_frames if c.display == "lcd" else tr.frames  # the build's displays
        first = min(side[0][0] for side in frames if side)
        alloc, free = s.repl_json(HEAP_ALONE)
    out["power_up_ms"] = first / MS
    out["heap"] = 100.0 * alloc / (alloc + free)
    out["heap_kb"] = "%.1f of %.1f" % (alloc / 1024, (alloc + free) / 1024)


def stamp_of(tr, edge_ms, name="left"):
    """The raw ticks_us the lever's hard IRQ read for the edge at `edge_ms`."""
    gpio = chip.PINS[name]
    for e, g, _read, value in tr.stamps:
        if e == round(edge_ms * MS) and g == gpio:
            return value
    raise chip.ChipError("no stamp for the lever edge at %s ms" % edge_ms)


def inside(c, s, tr, edge_ms, out, where):
    """The app of run `s` as it was right after its first lever press (at `edge_ms`): a twin
    stopped just before the edge, handed the same press (see onchip.py). Returns (twin
    session, its state)."""
    twin = c.twin(s, edge_ms)
    differs = chip.same_until(tr, twin.trace(), round(edge_ms * MS))
    if differs:
        out.setdefault("problems", []).append(
            "%s: the twin run differs before the press (%s)" % (where, differs)
        )
    probe(twin, "start(clock, %d)" % stamp_of(tr, edge_ms))
    return twin, probe(twin, "state(clock)")


def untouched(c, preset, lead_ms, window_ms, out, where, lags_ms=0, phase_ms=0.0):
    """Boot, start `preset` (`phase_ms` late), let it run `lead_ms`, measure `window_ms`.
    Returns (trace, t0_ns, t1_ns, twin session, twin state, lags of the running side's
    display over the window's first `lags_ms`, or all of it)."""
    with c.session() as s:
        edge = start_game(s, preset, phase_ms)
        s.run_to(edge + lead_ms)
        t0 = s.t * MS
        s.run_to(edge + lead_ms + window_ms)
        t1 = s.t * MS
        tr = s.trace()
        _errors(tr, s, out, where)
    twin, st = inside(c, s, tr, edge, out, where)
    end = t0 + lags_ms * MS if lags_ms else t1
    lags = display_lags(twin, tr, st["origin_us"], 1, t0, min(end, t1) - 10 * MS)
    return tr, t0, t1, twin, st, lags


def run_mmss(c, out):
    tr, t0, t1, twin, _st, lags = untouched(c, RAPID_15_10, 3_000, MMSS_MS, out, "mm:ss", LAGS_MS)
    with twin:
        out["percall"] = probe(twin, "percall(clock)")
    out["busy_mmss"] = 100.0 * tr.awake_ns(t0, t1) / (t1 - t0)
    wakes = tr.wakes(t0, t1)
    out["wakeups_mmss"] = len(wakes) / ((t1 - t0) / 1e9)
    out["render_wakeup_ms"] = sum(e - b for b, e in wakes) / len(wakes) / 1e6 if wakes else 0
    _lags(out, lags, "digit")
    _lags(out, lags, "beat")


def run_phases(c, out):
    """The mm:ss lags of games started at each of PHASES: the worst a player meets."""
    digit, beat = [], []
    for phase in PHASES:
        where = "mm:ss at +%.2f ms" % phase
        _tr, _t0, _t1, twin, _st, lags = untouched(
            c, RAPID_15_10, 3_000, PHASE_MS, out, where, 0, phase
        )
        twin.close()
        one = {}
        _lags(one, lags, "digit")
        _lags(one, lags, "beat")
        out["early"] = out.get("early", 0) + one["early"]
        digit.append(one["lag_digit"])
        beat.append(one["lag_beat"])
    out["lag_digit_phases"] = None if None in digit else max(digit)
    out["lag_beat_phases"] = None if None in beat else max(beat)
    out["lag_digit_by_phase"] = digit


def run_tenths(c, out):
    tr, t0, t1, twin, _st, lags = untouched(c, BULLET_1_0, 50_500, 9_000, out, "tenths")
    twin.close()
    out["busy_tenths"] = 100.0 * tr.awake_ns(t0, t1) / (t1 - t0)
    out["wakeups_tenths"] = len(tr.wakes(t0, t1)) / ((t1 - t0) / 1e9)
    _lags(out, [r for r in lags if r[0] == "digit"], "digit", "tenths")


def run_hmm(c, out):
    tr, t0, t1, twin, _st, lags = untouched(c, FIDE, 2_000, HMM_MS, out, "h:mm")
    twin.close()
    out["busy_hmm"] = 100.0 * tr.awake_ns(t0, t1) / (t1 - t0)
    out["wakeups_hmm"] = len(tr.wakes(t0, t1)) / ((t1 - t0) / 1e9)
    _lags(out, lags, "hmm")


# Bounce after a lever's first closing edge: gaps in ms between further edges (open, close,
# ...), an even number so it ends closed: none, and 0.8-2 ms of chatter in three patterns.
BOUNCES = (
    (),
    (0.05, 0.12, 0.3, 0.4),
    (0.02, 0.03, 0.2, 0.1, 0.5, 0.3, 0.6, 0.25),
    (0.4, 0.6, 0.3, 0.7),
)
RELEASE_BOUNCE = (0.1, 0.2, 0.4, 0.3)  # ends open
HOLD_MS = 80


def bouncing_press(s, name, at_ms, bounce, hold_ms=HOLD_MS):
    """Lever `name` closes at `at_ms` (any fraction of a ms) with `bounce`, opens `hold_ms`
    later with RELEASE_BOUNCE."""
    s.pin(name, True, at_ms)
    t, closed = at_ms, True
    for gap in bounce:
        t += gap
        closed = not closed
        s.pin(name, closed, t)
    t = max(t, at_ms) + hold_ms
    for k, gap in enumerate((0,) + RELEASE_BOUNCE):
        t += gap
        s.pin(name, k % 2 == 1, t)


def run_play(c, out):
    """Blitz 3+2, a move every ~1.7 s: bouncing levers at phases spread over the µs and the
    ms; every other press 0.1-2 ms after the start of the loop's last render wakeup plus
    whole half seconds (the running side's text and colon change on its half seconds), so
    inside the render wakeup it lands in."""
    with c.session() as s:
        start_game(s, BLITZ_3_2)
        s.run_ms(1_000)
        t0 = s.t * MS
        edges = []  # (ns, side, aimed inside a render)
        side = "right"  # White moves first: the right clock runs
        k = 0
        while s.t + MOVE_EVERY_MS < t0 / MS + PLAY_MS:
            s.run_ms(MOVE_EVERY_MS - 140 + (k * 37) % 200 - 100)
            phase = (k * 0.2371) % 1
            if k % 2:
                prev = edges[-1][0] + 5 * MS  # after the last press's own wakeups
                segs = s.trace().segments
                renders = [b for b, e in segs if e - b > 1.2 * MS and b > prev]
                last = renders[-1] / MS if renders else s.t
                at = last + 500 * (int((s.t - last) / 500) + 1) + 0.1 + 1.8 * phase
            else:
                at = s.t + 3 + 400 * phase
            bouncing_press(s, side, at, BOUNCES[k % len(BOUNCES)])
            edges.append((round(at * MS), side, k % 2 == 1))
            s.run_to(at + HOLD_MS + 5)
            side = "left" if side == "right" else "right"
            k += 1
        s.run_ms(500)
        t1 = s.t * MS
        tr = s.trace()
        _errors(tr, s, out, "play")
    out["busy_play"] = 100.0 * tr.awake_ns(t0, t1) / (t1 - t0)
    out["wakeups_play"] = len(tr.wakes(t0, t1)) / ((t1 - t0) / 1e9)
    led_lags, render_lags, disp_lags, stamps = [], [], [], []
    lit = [tr.lit(0), tr.lit(1)]
    inside = 0
    for edge, who, _aimed in edges:
        # What the press's own wakeup wrote: up to the end of the first awake stretch
        # that ends after the edge (a frame due anyway 40 ms later is not the press's).
        wake_end = min(e for _b, e in tr.segments if e > edge)
        wake_start = max(b for b, _e in tr.segments if b <= wake_end)
        in_render = wake_start < edge
        inside += in_render
        after = [t for t, _g, _lvl in tr.leds if edge <= t <= wake_end + 3 * MS]
        if after:
            (render_lags if in_render else led_lags).append(max(after) - edge)
        frames = [x.t for side in (0, 1) for x in lit[side] if edge <= x.start and x.t <= wake_end]
        if frames:
            disp_lags.append(max(frames) - edge)
        gpio = chip.PINS[who]
        for e, g, instant, _value in tr.stamps:
            if e >= edge and e < edge + 3 * MS and g == gpio:
                stamps.append(instant - e)
                break
    both = led_lags + render_lags
    out["lag_led"] = max(both) / 1e6
    out["lag_led_mean"] = sum(both) / len(both) / 1e6
    out["lag_led_render"] = max(render_lags) / 1e6 if render_lags else None
    out["lag_led_render_mean"] = sum(render_lags) / len(render_lags) / 1e6 if render_lags else None
    out["lag_displays"] = max(disp_lags) / 1e6
    out["lag_displays_mean"] = sum(disp_lags) / len(disp_lags) / 1e6
    out["stamp"] = max(abs(x) for x in stamps) / 1e3
    out["stamp_min"] = min(stamps) / 1e3
    out["moves_checked"] = (
        "%d bouncing presses, %d stamped, %d with LEDs, %d inside a wakeup, %d with frames"
        % (len(edges), len(stamps), len(both), inside, len(disp_lags))
    )


def run_stamps(c, out):
    """Edges while the core cannot take an interrupt or is busy: at the ready screen the
    app hands the board over (a Ctrl-C), the lever machines run on; a press 17 ms into a
    flash erase and one 0.3 ms into a page program (tools/chip/run.mjs arm_flash_press),
    then six bouncing presses while a REPL exchange comes in over USB and runs garbage
    collections back to back."""
    gpio = chip.PINS
    with c.session() as s:
        s.run_to(BOOT_MS)
        s.repl("pass")
        write = "f = open('x.bin', 'wb')\nf.write(bytes(9000))\nf.close()\n"
        write += "import os\nos.remove('x.bin')\n"
        for kind, after_ns, name in (
            ("erase", 17 * MS, "left"),
            ("program", 3 * MS // 10, "right"),
        ):
            s._ask(
                op="arm_flash_press", kind=kind, after_ns=after_ns, hold_ns=5 * MS, gpio=gpio[name]
            )
            s.repl(write)
            s.run_ms(40)
        t = s.t + 2
        for k in range(6):
            name = "left" if k % 2 else "right"
            bouncing_press(s, name, t + 5 + k * 31 + k * 0.17, BOUNCES[k % 4], hold_ms=6)
        junk = "import gc\nx = [bytearray(16) for i in range(300)]\n# %s\n" % ("z" * 3000)
        s.repl(junk + "for i in range(60):\n    gc.collect()\n")
        s.run_to(max(s.t, t + 6 * 31) + 40)
        tr = s.trace()
        _errors(tr, s, out, "stamps")
    errors = {}
    flash_edges = {at: kind for kind, _t, at, _g in tr.flash_presses}
    for e, _g, instant, _v in tr.stamps:
        kind = flash_edges.get(e, "GC and USB")
        errors[kind] = max(errors.get(kind, 0), abs(instant - e))
    out["stamp_stalled"] = max(errors.values()) / 1e3 if errors else None
    out["stamp_cases"] = " / ".join(
        "%.3f" % (errors[k] / 1e3) if k in errors else "-"
        for k in ("erase", "program", "GC and USB")
    )
    if len(tr.stamps) != 8 or len(tr.flash_presses) != 2:
        out.setdefault("problems", []).append(
            "stamps: %d stamps, %d flash presses (8 and 2 expected)"
            % (len(tr.stamps), len(tr.flash_presses))
        )


def run_flag(c, out):
    with c.session() as s:
        edge = start_game(s, BULLET_1_0)
        s.run_to(edge + 61_500)
        tr = s.trace()
        _errors(tr, s, out, "flag")
    twin, st = inside(c, s, tr, edge, out, "flag")
    twin.close()
    ms, us = st["deadline_exact"]  # the right's flag, exact to the us (engine.py)
    instant = (st["origin_us"] + ms * 1000 + us) * 1000
    shown = [x for x in tr.lit(1) if x.start >= instant - 50 * MS]
    out["flag_text"] = [(round((x.t - instant) / 1e6, 3), x.text, x.colon) for x in shown[:3]]
    shown = [x for x in shown if x.t >= instant]
    out["lag_flag"] = (shown[0].t - instant) / 1e6 if shown else None
    sound = [t for t, on, _f in tr.buzzer if on and t >= instant]
    out["lag_flag_buzzer"] = (sound[0] - instant) / 1e6 if sound else None


def _errors(tr, s, out, where):
    """Protocol and emulator errors of the trace, and the app's errors.log on the flash."""
    problems = out.setdefault("problems", [])
    for t, msg in tr.protocol_errors:
        problems.append("%s: TM1637 protocol at %.3f ms: %s" % (where, t / 1e6, msg))
    for msg in tr.emulator_errors:
        problems.append("%s: emulator: %s" % (where, msg))
    if tr.reset:
        problems.append("%s: the chip restarted: %s" % (where, tr.reset))
    log = chip.read_file(s.save_flash(), "errors.log")
    if log:
        problems.append("%s: errors.log: %s" % (where, log.decode(errors="replace")[:300]))


def _lags(out, lags, kind, name=None):
    name = name or kind
    rows = [r for r in lags if r[0] == kind]
    out.setdefault("early", 0)
    out["early"] += sum(1 for r in rows if r[2])
    vals = [r[1] for r in rows if r[1] is not None]
    out["lag_%s" % name] = max(vals) / 1e6 if vals else None
    out["lag_%s_mean" % name] = sum(vals) / len(vals) / 1e6 if vals else None
    out["n_%s" % name] = len(rows)


SCENARIOS = (run_heap, run_mmss, run_phases, run_tenths, run_hmm, run_play, run_flag, run_stamps)


def in_parallel(tasks, jobs):
    """Call each of `tasks` (callables of no argument), `jobs` at a time, in their order;
    returns once all have. Threads suffice: each chip session is its own Node process."""
    pending = list(tasks)
    lock = threading.Lock()

    def worker():
        while True:
            with lock:
                if not pending:
                    return
                task = pending.pop(0)
            task()

    threads = [threading.Thread(target=worker) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def measure(c, jobs=2):
    """Every figure for one firmware (a dict); the scenarios run `jobs` at a time."""
    results = [dict() for _ in SCENARIOS]
    errors = []

    def scenario(i, fn):
        try:
            fn(c, results[i])
        except Exception as exc:  # reported, the other scenarios go on
            errors.append("%s: %s" % (fn.__name__, exc))

    in_parallel([lambda i=i, fn=fn: scenario(i, fn) for i, fn in enumerate(SCENARIOS)], jobs)
    merged = {"problems": list(errors)}
    for r in results:
        for k, v in r.items():
            if k == "problems":
                merged["problems"] += v
            elif k == "early":
                merged["early"] = merged.get("early", 0) + v
            else:
                merged[k] = v
    return merged


# ---------------------------------------------------------------------------- baseline
def baseline_root(ref, tmp):
    """A project root holding firmware/ as at git `ref` (main.py from this tree when the
    ref's does not keep the app in `clock`). Returns (root, note)."""
    root = Path(tmp) / "baseline"
    (root / "firmware").mkdir(parents=True)
    names = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", ref, "firmware/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    note = ""
    for name in names:
        data = subprocess.run(
            ["git", "show", "%s:%s" % (ref, name)], cwd=ROOT, capture_output=True, check=True
        ).stdout
        if name == "firmware/main.py" and not re.search(rb"^clock = ", data, re.M):
            data = (ROOT / "firmware" / "main.py").read_bytes()
            note = "main.py of this tree (the probes read the app from its `clock` global)"
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root, note


# ---------------------------------------------------------------------------- report
def fmt(v, unit=""):
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    if unit == "%":
        return "%.2f %%" % v
    if unit == "µs":
        return "%.1f µs" % v
    if unit == "/s":
        return "%.2f" % v
    if unit == "ms":
        return "%.2f ms" % v
    return "%s" % v


def verdict(key, v):
    goal = GOALS[key][2]
    if v is None:
        return "miss"
    return "pass" if v <= goal else "miss"


def report(columns, out=sys.stdout):
    """columns: [(title, figures)]."""
    w = out.write
    heads = " | ".join(title for title, _ in columns)
    w("| figure on the chip | goal | %s |\n" % heads)
    w("| --- | --- | %s |\n" % " | ".join("---" for _ in columns))
    for key, (label, unit, goal) in GOALS.items():
        cells = []
        for _title, fig in columns:
            v = fig.get(key)
            cells.append("%s %s" % (fmt(v, unit), verdict(key, v)))
        goal_text = "0" if key == "early" else "≤ %s" % fmt(goal, unit)
        w("| %s | %s | %s |\n" % (label, goal_text, " | ".join(cells)))
    for key, (label, unit) in INFO.items():
        cells = [fmt(fig.get(key), unit) for _title, fig in columns]
        w("| %s | | %s |\n" % (label, " | ".join(cells)))
    w("\n| piece of a wakeup (median µs per call, mm:ss running) | %s |\n" % heads)
    w("| --- | %s |\n" % " | ".join("---" for _ in columns))
    names = [n for n, _ in columns[0][1].get("percall", [])]
    for name in names:
        cells = []
        for _title, fig in columns:
            costs = dict(fig.get("percall", []))
            v = costs.get(name)
            cells.append("-" if v is None else "%d" % v)
        w("| %s | %s |\n" % (name, " | ".join(cells)))
    for title, fig in columns:
        for p in fig.get("problems", []):
            w("\n%s: PROBLEM %s" % (title, p))
        if fig.get("note"):
            w("\n%s: %s" % (title, fig["note"]))
        if fig.get("moves_checked"):
            w("\n%s: play: %s" % (title, fig["moves_checked"]))
    w("\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="", help="also measure the firmware at this ref")
    parser.add_argument("--jobs", type=int, default=2, help="scenarios run at once")
    parser.add_argument("--json", default="", help="write the figures here as JSON")
    args = parser.parse_args(argv)
    try:
        found = inputs.obtain(ROOT, os.environ, sys.stdout)
        print(inputs.describe(found), flush=True)
        uf2, bootrom = found.uf2, found.bootrom
        columns = []
        with tempfile.TemporaryDirectory(prefix="chip-bench-") as tmp:
            if args.baseline:
                root, note = baseline_root(args.baseline, tmp)
                print("measuring %s ..." % args.baseline, flush=True)
                fig = measure(chip.Chip(uf2, bootrom, root), args.jobs)
                fig["note"] = note
                columns.append((args.baseline, fig))
            print("measuring this tree ...", flush=True)
            columns.append(("this tree", measure(chip.Chip(uf2, bootrom, ROOT), args.jobs)))
    except chip.ChipError as exc:
        print("chip-bench: %s" % exc)
        return 1
    report(columns)
    if args.json:
        Path(args.json).write_text(json.dumps(dict(columns), indent=1))
    problems = any(fig.get("problems") for _t, fig in columns)
    return 1 if problems else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
