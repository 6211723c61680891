#!/usr/bin/env python3
"""`make power-ledger`: where whole games spend their time on the chip, for `make energy`.

usage: power_ledger.py [--builds led,lcd] [--games fide,blitz,idle_hour] [--jobs N] [--out PATH]

Runs each game on the emulated RP2040 with its clock tree modelled (`clocks="model"`,
tools/chip/clocks.mjs) and the board on cells (VBUS low, so the core sleeps deep between
wakeups as on a real clock away from USB), driven only through the pins, and records for
the stretch the game is played (from the first lever press's release to the last's; the
idle hour: from the ready screen on):
- the chip's power-state ledger (awake at each clk_sys, asleep with which clocks on,
  dormant): seconds and entries per state;
- what the displays lit, from their own wires: on the LED build each TM1637's segment-
  seconds per brightness level (colon included) and the seconds it was on; on the LCD build
  each glass's seconds lit;
- the seconds each side's LED was on and the buzzer sounded.
The games are energy.GAMES (the FIDE 90/40+30 game the energy model counts, a Blitz 3+2
game) with bouncing levers at phases spread over the µs, and an idle hour at the ready
screen (the clock goes dormant after app.IDLE_MS). The firmware must log no error.

Each record names the MicroPython .uf2 and the firmware's commit it ran ("+changes": with
uncommitted changes under firmware/). The records go to tools/energy/ledger.json
(committed: a FIDE game is four and a half emulated hours, about half an hour of this
machine's time per build), which `make energy` turns into mA and hours of play
(energy.ledger_model). Re-run it after a change to the
loop, the sleep or the displays; host_tests/tools/test_energy.py checks that the file's
games are energy.GAMES. The emulator is deterministic: the same firmware and MicroPython
give the same file.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/: paths.py
import paths  # noqa: E402

paths.install(board=True)

import chip  # noqa: E402
import chip_bench  # noqa: E402
import energy  # noqa: E402
import inputs  # noqa: E402

from simboard.firmware import LED_PINS  # noqa: E402

ROOT = paths.ROOT
OUT = ROOT / "tools" / "energy" / "ledger.json"
IDLE_HOUR_MS = 3_600_000
SIDES = ("left", "right")  # energy.schedule's side 0 and 1
GAMES = tuple(energy.GAMES) + ("idle_hour",)


def _states(rows, seconds):
    """The ledger's rows as the file keeps them: the state, clk_sys, the branch clocks a deep
    sleep leaves on, seconds and entries; their seconds add up to `seconds`."""
    out = []
    for r in rows:
        row = {
            "state": r["state"],
            "clk_sys_hz": r.get("clk_sys_hz"),
            "s": r["ns"] / 1e9,
            "entries": r["entries"],
        }
        if r["state"] == "deep_sleep":
            row["clocks_on"] = sorted(r["clocks_on"])
        out.append(row)
    total = sum(r["s"] for r in out)
    if abs(total - seconds) > 1e-6:
        raise chip.ChipError("the ledger's rows add up to %.6f s of %.6f" % (total, seconds))
    return out


def tm1637_lit(trace, side, t0, t1):
    """{"segment_s": {brightness level: segment-seconds}, "on_s", "powered_s"} of TM1637
    `side` within [t0, t1) ns, from its wire and its supply: a lit segment (the colon
    included) counts the time it is lit at the level the display control command set."""
    seg_ns = {}
    on_ns = powered_ns = 0
    at, state = t0, None
    for t, _start, ram, ctrl, powered in trace.tm_states(side) + [(t1, 0, None, -1, False)]:
        if t > at and state is not None:
            span = min(t, t1) - at
            ram_was, ctrl_was, powered_was = state
            if powered_was:
                powered_ns += span
            if ctrl_was >= 0 and ctrl_was & 0x08:
                on_ns += span
                lit = sum(bin(b).count("1") for b in ram_was[:4])
                seg_ns[ctrl_was & 7] = seg_ns.get(ctrl_was & 7, 0) + lit * span
        if t >= t1:
            break
        at = max(at, t)
        state = (ram, ctrl, powered)
    return {
        "segment_s": {str(k): v / 1e9 for k, v in sorted(seg_ns.items())},
        "on_s": on_ns / 1e9,
        "powered_s": powered_ns / 1e9,
    }


def _on_s(changes, t0, t1):
    """Seconds within [t0, t1) ns that a signal given as [(t_ns, on)] changes was on."""
    total = 0
    on, since = False, t0
    for t, now_on in changes:
        if t >= t1:
            break
        if t > since:
            if on:
                total += t - since
            since = t
        on = bool(now_on)
    if on and t1 > since:
        total += t1 - since
    return total / 1e9


def glass_lit_s(trace, side, t0, t1):
    return _on_s([(x.t, x.text is not None) for x in trace.lcd_lit(side)], t0, t1)


def play(c, build, game, moves=None, log=None):
    """One game on the chip; returns its record (the module docstring). `moves` plays only
    the first moves of an energy.GAMES game (the chip test's short run)."""
    with c.session(display=build, clocks="model", vbus=False) as s:
        if game == "idle_hour":
            s.run_to(chip.BOOT_MS)
            before = s.ledger()
            s.run_ms(IDLE_HOUR_MS)
            presses = 0
        else:
            spec = dict(energy.GAMES[game])
            if moves is not None:
                spec["moves"] = moves
            plan, _end = energy.schedule(spec["moves"], spec["think_s"])
            t0 = chip_bench.start_game(s, spec["preset"])
            before = s.ledger()  # the first press's release: the game is on
            for k, (at_ms, side) in enumerate(plan[1:], 1):
                at = t0 + at_ms + 0.137 * k  # phases across the µs (the plan starts at 0)
                bounce = chip_bench.BOUNCES[k % len(chip_bench.BOUNCES)]
                chip_bench.bouncing_press(s, SIDES[side], at, bounce)
                s.run_to(at + 1)
                if log and k % 20 == 0:
                    log("%s %s: move %d of %d" % (build, game, k, len(plan) - 1))
            s.run_to(at + chip_bench.HOLD_MS + 10)
            presses = len(plan)
        after = s.ledger()
        tr = s.trace()
        errors = chip.read_file(s.save_flash(), "errors.log")
    if errors:
        raise chip.ChipError("%s %s: the firmware logged %r" % (build, game, errors[:300]))
    if tr.protocol_errors or tr.emulator_errors:
        raise chip.ChipError(
            "%s %s: %s" % (build, game, (tr.protocol_errors + tr.emulator_errors)[:3])
        )
    ns0, ns1 = before["now_ns"], after["now_ns"]
    seconds = (ns1 - ns0) / 1e9
    rec = {
        "seconds": seconds,
        "presses": presses,
        "states": _states(chip.ledger_between(before, after), seconds),
        "leds_s": [
            _on_s([(t, lvl) for t, g, lvl in tr.leds if g == gpio], ns0, ns1) for gpio in LED_PINS
        ],
        "buzzer_s": _on_s([(t, on) for t, on, _f in tr.buzzer], ns0, ns1),
    }
    if build == "lcd":
        rec["glasses_lit_s"] = [glass_lit_s(tr, side, ns0, ns1) for side in (0, 1)]
    else:
        rec["displays"] = [tm1637_lit(tr, side, ns0, ns1) for side in (0, 1)]
    if game != "idle_hour":
        rec["game"] = dict(energy.GAMES[game], moves=moves or energy.GAMES[game]["moves"])
        rec["game"]["think_s"] = list(rec["game"]["think_s"])
    return rec


def measure(c_of, jobs, builds, games, log):
    """{build: {game: record}}, the runs `jobs` at a time; c_of(build) -> chip.Chip."""
    todo = [(b, g) for g in games for b in builds]
    todo.sort(key=lambda bg: bg[1] != "fide")  # the long ones first
    out = {b: {} for b in builds}
    errors = []

    def run(build, game):
        started = time.time()
        try:
            rec = play(c_of(build), build, game, log=log)
        except chip.ChipError as exc:
            errors.append(str(exc))
            return
        out[build][game] = rec
        log(
            "%s %s: %.0f s emulated in %.0f s"
            % (build, game, rec["seconds"], time.time() - started)
        )

    chip_bench.in_parallel([lambda b=b, g=g: run(b, g) for b, g in todo], jobs)
    return out, errors


def _firmware_commit():
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "firmware"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:
        return None
    return head + ("+changes" if dirty else "") if head else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--builds", default="led,lcd")
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    builds = args.builds.split(",")
    games = args.games.split(",")
    for g in games:
        if g not in GAMES:
            ap.error("no game %s (%s)" % (g, ", ".join(GAMES)))

    def log(msg):
        print(msg, flush=True)

    commit = _firmware_commit()  # the firmware the flash images are built from
    try:
        found = inputs.obtain(ROOT, os.environ, sys.stdout)
        log(inputs.describe(found))
        chips = {b: chip.Chip(found.uf2, found.bootrom, ROOT, display=b) for b in builds}
        runs, errors = measure(chips.__getitem__, args.jobs, builds, games, log)
    except chip.ChipError as exc:
        print("power-ledger: %s" % exc)
        return 1
    for e in errors:
        print("power-ledger: %s" % e)
    path = Path(args.out)
    doc = json.loads(path.read_text()) if path.exists() else {"runs": {}}
    for b, recs in runs.items():
        for rec in recs.values():
            rec["micropython"] = Path(str(found.uf2)).name
            rec["firmware"] = commit
        doc["runs"].setdefault(b, {}).update(recs)
    path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    log("wrote %s" % path)
    return 1 if errors else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
