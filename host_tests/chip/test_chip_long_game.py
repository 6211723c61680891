"""A whole game on the emulated chip across a dozen `ticks_us` wraps: 90 half-moves of
Classic 40/120, 20/60, 30 over 3.7 hours of play with the journal on, then a power cut
mid-move and the resume: every time exact to the µs, the move in progress charged up to the
journal's newest record.

Real MicroPython rp2 in rp2040js (tools/chip/chip.py). About 3.7 h of emulated time takes
the emulator about twenty minutes (18.5 on a busy 2-core machine), so the test runs only
with CHIP_LONG=1 beside a MicroPython .uf2 (`CHIP_LONG=1 make test CHIP=1`, or
MICROPYTHON_UF2=...); the deterministic emulator gives the same run every time. It prints
how far each move's stamps lie from the emulator's edges (within 1 µs when it last ran).
"""

import json
import os
import random

import chip
import chip_env
import pytest

if os.environ.get("CHIP_LONG", "") != "1":
    pytest.skip("the long chip game runs with CHIP_LONG=1", allow_module_level=True)

_UF2, _BOOTROM = chip_env.require()

MS = chip.MS
US = 1000
S = 1_000_000  # us
TICKS = 1 << 30  # ticks_us wraps here on the rp2 port
CLASSIC_40_120 = 13  # presets.py: 120 min for 40 moves, 60 min for 20, then 30 min
BOOT_MS = chip.BOOT_MS
RESUME_BOOT_MS = chip.RESUME_BOOT_MS
HALF_MOVES = 90
CUT_AFTER_MS = 25_400  # the cut, this long after the last press: two periodic records in


def test_ninety_half_moves_across_a_dozen_wraps_resume_exact_to_the_us():
    rng = random.Random(90)
    with chip.Chip(_UF2, _BOOTROM).session() as s:
        s.run_to(BOOT_MS)
        s.choose_preset(CLASSIC_40_120)
        s.run_ms(600)
        t = s.t + 200 + rng.randrange(1_000_000) / 1e6
        side = 0
        presses = []
        for _ in range(HALF_MOVES + 1):
            name = ("left", "right")[side]
            s.pin(chip.LEVER[name], True, t)
            s.pin(chip.LEVER[name], False, t + 80)
            presses.append(side)
            side = 1 - side
            s.run_to(t + 100)
            t += 144_000 + rng.randrange(8_000_000_000) / 1e6
        cut = s.t - 100 + CUT_AFTER_MS
        s.run_to(cut)
        tr = s.trace()
        assert tr.protocol_errors == [] and tr.emulator_errors == [] and tr.reset is None
        s.power_cycle()
        s.run_to(RESUME_BOOT_MS)
        tr2 = s.trace()
        shown = (tr2.shown_at(0, tr2.now_ns)[0], tr2.shown_at(1, tr2.now_ns)[0])
        assert shown == ("rE5 ", " yE5"), (shown, tr2.serial[-1500:])
        s.tap("play")
        s.run_ms(1_500)
        saved = json.loads(chip.read_file(s.save_flash(), "game.json"))
        assert s.trace().reset is None

    levers = {chip.LEVER["left"]: 0, chip.LEVER["right"]: 1}
    stamps = [(levers[g], v, e) for e, g, _read, v in tr.stamps if g in levers]
    assert [x for x, _v, _e in stamps] == presses
    span_us = (stamps[-1][2] - stamps[0][2]) // 1000
    assert span_us >= 12 * TICKS, "the game spans %.2f wraps" % (span_us / TICKS)
    left = [7200 * S, 7200 * S]
    moves = [0, 0]
    used = []
    off = []  # each move as the stamps give it less the emulator's edges, ns
    for k in range(1, len(stamps)):
        mover = stamps[k][0]
        d = (stamps[k][1] - stamps[k - 1][1]) % TICKS  # each move is under half a wrap
        off.append(d * 1000 - (stamps[k][2] - stamps[k - 1][2]))
        left[mover] -= d
        moves[mover] += 1
        if moves[mover] == 40:
            left[mover] += 3600 * S  # the second period
        used.append(d)
    print("stamps less edges per move: %d to %d ns" % (min(off), max(off)))
    snap = saved["snap"]
    assert snap[12] * US + snap[27] == left[0]
    assert snap[13] * US + snap[28] == left[1]
    assert (snap[14], snap[15]) == (moves[0], moves[1])
    assert (snap[16], snap[17]) == (1, 1)  # both in the second period
    charged_us = snap[4] * US + snap[26]
    since_us = (cut * MS - stamps[-1][2]) // 1000
    assert since_us - 10_600_000 <= charged_us < since_us, (charged_us, since_us)
    assert snap[2] == 1 - presses[-1]
    assert saved["n"] == HALF_MOVES
    log = saved["log"]
    assert len(log) == 3 * HALF_MOVES
    for k in range(HALF_MOVES):
        assert log[3 * k] & 1 == stamps[k + 1][0]
        assert abs(log[3 * k + 1] * US - used[k]) <= 500, (k, log[3 * k + 1], used[k])
