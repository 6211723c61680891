#!/usr/bin/env python3
"""The journal's cost on the chip: what each press's record and each quiet write (chunks, a
tidy, a periodic record) puts on the flash while a clock runs, how long the core is stalled,
and how soon after its lever's edge each press's record is whole on flash.

usage: journal_bench.py [--moves N] [--gap MS] [--preset P] [--next M] [--check] [--json PATH]

Plays a game of N half-moves (default 90) of preset P (default Rapid 25+10) on the emulated
RP2040 (chip.py: real MicroPython rp2 in rp2040js, the firmware as `make flash` leaves it;
every flash erase and program is trapped and charged the W25Q16JV's typical time, 45 ms a 4
KiB sector, 0.7 ms a 256-byte page, with interrupts off as on the chip): a press every MS ms
with --gap, else 1.1-3.7 s apart and every 9th one 23 s (two periodic records inside it).
Then it pauses; with --next it ends the game (the arbiter's dead position), starts the next
and plays M half-moves of it. The flash ops are grouped into writes (ops back to back,
BURST_GAP_NS apart at most); after each press's edge, the first write is the press's own
record and the later ones until the next press are quiet writes. It prints, per game, the
press's window (its edge to the end of its record's last page: the record whole on flash),
the press's own stall (the flash time of its record) as a distribution (median, 95th
percentile, worst) and the presses whose record erased; the quiet writes, their erases, the
longest (its first op to the end of its last) and how long after the press the first came;
the lever edges that fell inside an erase (the core stalled, interrupts off); the erases and
pages and the sectors erased most. --check exits 1 unless every press's window is at most
WINDOW_MS and no press's record erased. `--json` also writes the rows, the ops and the
presses' instants. The emulator is deterministic: the same firmware gives the same figures.
"""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/: paths.py
import paths  # noqa: E402

paths.install(board=True)

import chip  # noqa: E402

MS = chip.MS
RAPID_25_10 = 2  # presets.py
BOOT_MS = chip.BOOT_MS
ERASE_NS = 45 * MS
PAGE_NS = 700_000
# Flash ops this close (ns) after the end of the one before are one write: a record's files
# with its Python work between them, a tidy's records (a garbage collection between two of
# them takes 25 ms); a tidy comes 150 ms after a press's record at the soonest.
BURST_GAP_NS = 60 * MS
SIDES = ("left", "right")
WINDOW_MS = 10  # a press's edge to its record whole on flash, at most (docs/journal.md)
LEVER_GPIOS = (chip.PINS["left"], chip.PINS["right"])


def op_ns(op):
    return ERASE_NS * op[3] // 4096 if op[1] == "erase" else PAGE_NS * op[3] // 256


def gaps_of(moves, gap_ms):
    """The ms from each press to the next: `gap_ms` each, or the bench's pattern (1.1 to 3.7
    s, every 9th 23 s) when 0."""
    if gap_ms:
        return [gap_ms] * (moves + 1)
    return [23_000 if i % 9 == 8 else 1_100 + (i * 389) % 2_600 for i in range(moves + 1)]


def play(session, moves, gap_ms=0):
    """A game of `moves` half-moves after the press that starts it, on the preset set up;
    returns the ns of each lever press's first edge."""
    presses = []
    side = 0
    for gap in gaps_of(moves, gap_ms):
        presses.append(session.t)
        session.press(SIDES[side], 80, 60)
        side = 1 - side
        session.run_ms(gap - 140)
    session.run_ms(500)
    return [round(t * MS) for t in presses]


def end_and_new_game(session):
    """The paused game ended by the arbiter (SET long, the menu's 12th item `dEAd`, PLAY:
    drawn, recorded), then SET: a new game of the same control, ready."""
    session.press("set", 2_100, 300)
    for _ in range(11):
        session.tap("set")
    session.tap("play")
    session.run_ms(3_000)
    session.tap("set")
    session.run_ms(1_000)


def bursts(ops):
    """The flash ops grouped into writes: a run of ops each starting within BURST_GAP_NS of
    the end of the one before (one record's files, with its Python work between them, or a
    tidy's records). [(start_ns, end_ns, ops)]."""
    out = []
    for op in ops:
        end = op[0] + op_ns(op)
        if out and op[0] - out[-1][1] <= BURST_GAP_NS:
            out[-1][1] = end
            out[-1][2].append(op)
        else:
            out.append([op[0], end, [op]])
    return out


def summed(ops):
    return sum(op_ns(op) for op in ops)


def per_window(ops, starts, end_ns):
    """Per press (from its edge to the next press's): the press's own record (the first
    write after the edge: the press's wakeup writes it, or a later one within
    JOURNAL_WAIT_MS) and the quiet writes after it (tidies, periodic records)."""
    rows = []
    groups = bursts(ops)
    for i, t0 in enumerate(starts):
        t1 = starts[i + 1] if i + 1 < len(starts) else end_ns
        mine = [b for b in groups if t0 <= b[0] < t1]
        own = mine[0][2] if mine else []
        quiet = mine[1:]
        rows.append(
            {
                "erases": sum(1 for b in mine for op in b[2] if op[1] == "erase"),
                "pages": sum(op[3] // 256 for b in mine for op in b[2] if op[1] == "program"),
                "press_ms": summed(own) / MS,
                "press_erases": sum(1 for op in own if op[1] == "erase"),
                "press_after_ms": (mine[0][0] - t0) / MS if mine else None,
                # the lever's edge to the end of its record's last program: whole on flash
                "press_whole_ms": (mine[0][1] - t0) / MS if mine else None,
                "quiet": [
                    {
                        "after_ms": (b[0] - t0) / MS,
                        "span_ms": (b[1] - b[0]) / MS,
                        "ms": summed(b[2]) / MS,
                        "erases": sum(1 for op in b[2] if op[1] == "erase"),
                        "pages": sum(op[3] // 256 for op in b[2] if op[1] == "program"),
                    }
                    for b in quiet
                ],
            }
        )
    return rows


def edges_in_erases(ops, edges):
    """Lever edges (either way) that came while an erase held the core."""
    spans = [(op[0], op[0] + op_ns(op)) for op in ops if op[1] == "erase"]
    levers = [e for e in edges if e[1] in LEVER_GPIOS]
    return [e for e in levers if any(s <= e[0] < t for s, t in spans)]


def pct(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


def game_figures(ops, starts, end_ns):
    """The figures of one game's presses (`starts`: each press's edge, ns) and of the
    quiet writes until `end_ns`."""
    rows = per_window(ops, starts, end_ns)
    press_rows = rows[1:]  # each move's press (the first one only started the clock)
    stalls = [r["press_ms"] for r in rows]
    windows = [r["press_whole_ms"] for r in rows if r["press_whole_ms"] is not None]
    quiet = [q for r in rows for q in r["quiet"]]
    tidies = [q for q in quiet if q["erases"]]
    first = [r["quiet"][0]["after_ms"] for r in press_rows if r["quiet"]]
    return rows, {
        "presses": len(rows),
        "press_stall_median_ms": pct(stalls, 0.5),
        "press_stall_p95_ms": pct(stalls, 0.95),
        "press_stall_worst_ms": max(stalls),
        "presses_with_erase": sum(1 for r in rows if r["press_erases"]),
        "press_to_record_whole_ms": "%.2f / %.2f / %.2f"
        % (min(windows), pct(windows, 0.5), max(windows)),
        "press_to_record_whole_worst_ms": max(windows),
        "presses_without_record": len(rows) - len(windows),
        "quiet_writes": len(quiet),
        "quiet_writes_with_erase": len(tidies),
        "quiet_erases": sum(q["erases"] for q in quiet),
        "quiet_longest_span_ms": max((q["span_ms"] for q in quiet), default=0),
        "quiet_first_after_ms": "%s / %s" % (min(first), pct(first, 0.5)) if first else "-",
        "erasing_quiet_after_ms": (
            "%s / %s" % (min(q["after_ms"] for q in tidies), max(q["after_ms"] for q in tidies))
            if tidies
            else "-"
        ),
        "erases_game": sum(r["erases"] for r in rows),
        "pages_game": sum(r["pages"] for r in rows),
        "minutes": round((end_ns - starts[0]) / MS / 60_000, 2),
    }


def sectors_of(ops):
    sectors = {}
    for op in ops:
        if op[1] == "erase":
            sectors[op[2]] = sectors.get(op[2], 0) + 1
    return sectors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moves", type=int, default=90)
    ap.add_argument("--gap", type=int, default=0, help="ms between presses (0: the pattern)")
    ap.add_argument("--preset", type=int, default=RAPID_25_10)
    ap.add_argument("--next", type=int, default=0, help="half-moves of a next game")
    ap.add_argument("--check", action="store_true", help="fail unless the goals are met")
    ap.add_argument("--json")
    args = ap.parse_args()
    pico = chip.Chip.from_environment()
    with pico.session() as s:
        s.run_to(BOOT_MS)
        s.choose_preset(args.preset)
        s.run_ms(1_000)  # the preset's save ends, the journal is made ready
        starts = play(s, args.moves, args.gap)
        end1 = round(s.t * MS)
        s.tap("play")  # pause: the game is saved, the journal retired
        s.run_ms(2_000)
        pause_end = round(s.t * MS)
        starts2 = []
        if args.next:
            end_and_new_game(s)
            starts2 = play(s, args.next, args.gap)
        tr = s.trace()
    ops = [op for op in tr.flash_ops if op[0] >= starts[0]]
    rows, out = game_figures(ops, starts, end1)
    out["moves"] = args.moves
    out["lever_edges_in_erases"] = len(edges_in_erases(ops, tr.edges))
    game1 = [op for op in ops if op[0] < end1]
    sectors = sectors_of(game1)
    out["sector_most_erased"] = max(sectors.values()) if sectors else 0
    out["sectors_erased"] = len(sectors)
    out["pause_ops"] = len([op for op in ops if end1 <= op[0] < pause_end])
    out["errors"] = tr.serial[-400:] if "Traceback" in tr.serial else ""
    for k, v in out.items():
        print("%-32s %s" % (k, v))
    rows2 = []
    if starts2:
        rows2, out2 = game_figures(ops, starts2, tr.now_ns)
        print("-- the next game")
        for k, v in out2.items():
            print("%-32s %s" % (k, v))
        out["next"] = out2
    if args.check:
        games = [out] + ([out["next"]] if starts2 else [])
        bad = [
            g
            for g in games
            if g["press_to_record_whole_worst_ms"] > WINDOW_MS
            or g["presses_with_erase"]
            or g["presses_without_record"]
        ]
        if bad or out["errors"]:
            print("FAILED: a press's record took an erase, none, or more than %d ms" % WINDOW_MS)
            sys.exit(1)
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {"summary": out, "rows": rows, "rows2": rows2, "ops": ops, "starts": starts},
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
