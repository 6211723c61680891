#!/usr/bin/env python3
"""The journal's cost on the chip: what each press and each periodic record writes to the
flash while a clock runs, and how long the core is stalled for it.

usage: journal_bench.py [--moves N] [--json PATH]

Plays a game of N half-moves (default 90, Rapid 25+10) on the emulated RP2040 (chip.py: real
MicroPython rp2 1.27 in rp2040js, the firmware as `make flash` leaves it; every flash erase
and program is trapped and charged the W25Q16JV's typical time, 45 ms a 4 KiB sector, 0.7 ms
a 256-byte page, with interrupts off as on the chip), moves 1.1-3.7 s apart and every 9th
one 23 s (two periodic records inside it), then prints per press: the erases, the pages
programmed and the stall (the flash time from the press's edge to the next edge), as a
distribution (median, 95th percentile, worst), the erases for the whole game, and the
sectors of the filesystem erased most. The emulator is deterministic: the same firmware
gives the same figures.
"""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import chip  # noqa: E402

MS = chip.MS
RAPID_25_10 = 2  # presets.py
BOOT_MS = 1_000
ERASE_NS = 45 * MS
PAGE_NS = 700_000
SIDES = ("left", "right")


def op_ns(op):
    return ERASE_NS * op[3] // 4096 if op[1] == "erase" else PAGE_NS * op[3] // 256


def play(session, moves):
    """The game; returns the ns of each lever press's first edge."""
    session.choose_preset(RAPID_25_10)
    session.run_ms(1_000)  # the preset's save ends
    presses = []
    side = 0
    for i in range(moves + 1):
        presses.append(session.t)
        session.press(SIDES[side], 80, 60)
        side = 1 - side
        gap = 23_000 if i % 9 == 8 else 1_100 + (i * 389) % 2_600
        session.run_ms(gap - 140)
    session.run_ms(500)
    return [round(t * MS) for t in presses]


def per_window(ops, starts, end_ns):
    rows = []
    for i, t0 in enumerate(starts):
        t1 = starts[i + 1] if i + 1 < len(starts) else end_ns
        mine = [op for op in ops if t0 <= op[0] < t1]
        rows.append(
            {
                "erases": sum(1 for op in mine if op[1] == "erase"),
                "pages": sum(op[3] // 256 for op in mine if op[1] == "program"),
                "stall_ms": sum(op_ns(op) for op in mine) / MS,
                "longest_ms": longest(mine) / MS,
            }
        )
    return rows


def longest(ops):
    """The longest run of flash ops back to back (each starting within 2 ms of the end of
    the one before): one write's stall, as the core sees it."""
    best = 0
    run_end = None
    run = 0
    for op in ops:
        d = op_ns(op)
        if run_end is not None and op[0] - run_end <= 2 * MS:
            run += d
        else:
            run = d
        run_end = op[0] + d
        best = max(best, run)
    return best


def pct(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moves", type=int, default=90)
    ap.add_argument("--json")
    args = ap.parse_args()
    pico = chip.Chip.from_environment()
    with pico.session() as s:
        s.run_to(BOOT_MS)
        starts = play(s, args.moves)
        tr = s.trace()
        s.tap("play")  # pause: the game is saved, the journal retired
        s.run_ms(2_000)
        tr_end = s.trace()
    ops = [op for op in tr.flash_ops if op[0] >= starts[0]]
    rows = per_window(ops, starts, tr.now_ns)
    press_rows = rows[1:]  # each move's press (the first one only started the clock)
    stalls = [r["longest_ms"] for r in press_rows]
    sectors = {}
    for op in ops:
        if op[1] == "erase":
            sectors[op[2]] = sectors.get(op[2], 0) + 1
    out = {
        "moves": args.moves,
        "erases_game": sum(r["erases"] for r in rows),
        "pages_game": sum(r["pages"] for r in rows),
        "stall_median_ms": pct(stalls, 0.5),
        "stall_p95_ms": pct(stalls, 0.95),
        "stall_worst_ms": max(stalls),
        "per_press_erases_worst": max(r["erases"] for r in press_rows),
        "presses_with_erase": sum(1 for r in press_rows if r["erases"]),
        "sector_most_erased": max(sectors.values()) if sectors else 0,
        "sectors_erased": len(sectors),
        "pause_ops": len([op for op in tr_end.flash_ops if op[0] >= tr.now_ns]),
        "errors": tr_end.serial[-400:] if "Traceback" in tr_end.serial else "",
    }
    for k, v in out.items():
        print("%-24s %s" % (k, v))
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": out, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
