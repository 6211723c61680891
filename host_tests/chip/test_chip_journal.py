"""The journal on the emulated chip: real MicroPython rp2 in rp2040js (tools/chip/chip.py),
the power cut mid-game, a new board from the flash the cut left (Session.power_cycle).

Runs when MICROPYTHON_UF2 names a MicroPython rp2 .uf2 (chip_env.require); skipped
otherwise. The emulator is deterministic: every run of a commit is the same."""

import json
import random

import chip
import chip_env
import pytest

_UF2, _BOOTROM = chip_env.require()

MS = chip.MS
US = 1000
TICKS = 1 << 30  # ticks_us wraps here on the rp2 port
BULLET_1_0 = 8
BOOT_MS = chip.BOOT_MS
RESUME_BOOT_MS = chip.RESUME_BOOT_MS
PAGE_NS = 700_000  # the emulator's charge for a 256-byte page program (board.mjs)
RECORD_WHOLE_MS = 10  # a lever's edge to its record whole on flash, at most (journal.md)


@pytest.mark.parametrize("seed", [7, 31])
def test_a_cut_mid_game_resumes_every_move_exact_to_the_us(seed):
    rng = random.Random(seed)
    moves = 20 + seed % 9  # half-moves after the start
    with chip.Chip(_UF2, _BOOTROM).session() as s:
        s.run_to(BOOT_MS)
        s.choose_preset(BULLET_1_0)
        s.run_ms(600)  # the preset's save
        t = s.t + 200 + rng.randrange(1_000_000) / 1e6
        side = 0
        presses = []
        for _ in range(moves + 1):
            s.pin(chip.LEVER[("left", "right")[side]], True, t)
            s.pin(chip.LEVER[("left", "right")[side]], False, t + 80)
            presses.append(side)
            side = 1 - side
            t += 250 + rng.randrange(950_000_000) / 1e6
        cut = t - 250 + 600  # 600 ms after the last press: its record is on the flash
        s.run_to(cut)
        tr = s.trace()
        assert tr.protocol_errors == [] and tr.emulator_errors == [] and tr.reset is None
        during = [op for op in tr.flash_ops if op[0] >= tr.edges[0][0]]
        before = s.save_flash()
        held = {
            n: chip.read_file(before, n) for n in ("journal.d/h", "journal.d/s0", "journal.d/s1")
        }
        s.power_cycle()  # the cut: a new board from the flash as it is
        s.run_to(RESUME_BOOT_MS)
        tr2 = s.trace()
        shown = (tr2.shown_at(0, tr2.now_ns)[0], tr2.shown_at(1, tr2.now_ns)[0])
        assert shown == ("rE5 ", " yE5"), (shown, held, len(during), tr2.serial[-1500:])
        offer_ns = min(lit.t for lit in tr2.lit(0) if lit.text == "rE5 ")
        print("the offer is on the left display %.1f ms after the power-up" % (offer_ns / MS))
        s.tap("play")  # yes: the game comes back paused, game.json takes it
        s.run_ms(1_500)
        saved = json.loads(chip.read_file(s.save_flash(), "game.json"))
        tr3 = s.trace()
        assert tr3.reset is None

    levers = {chip.LEVER["left"]: 0, chip.LEVER["right"]: 1}
    stamps = [(levers[g], v) for e, g, _read, v in tr.stamps if g in levers]
    assert [x for x, _v in stamps] == presses
    left = [60_000 * US, 60_000 * US]
    used = []
    for k in range(1, len(stamps)):
        mover = stamps[k][0]
        d = (stamps[k][1] - stamps[k - 1][1]) % TICKS
        left[mover] -= d
        used.append(d)
    snap = saved["snap"]
    # both sides' times exact to the us as of the last press (main + main_us), the move in
    # progress charged up to the newest record (paused ms + us): the press's (nothing), or a
    # tidy's (appjournal.TIDY_AFTER_MS after it at the soonest, before the cut), the side to
    # move, the counters
    assert snap[12] * US + snap[27] == left[0]
    assert snap[13] * US + snap[28] == left[1]
    charged_us = snap[4] * US + snap[26]
    last_edge_ns = max(e for e, g, _read, _v in tr.stamps if g in levers)
    assert charged_us == 0 or 150_000 <= charged_us < (cut * MS - last_edge_ns) // 1000
    assert snap[2] == 1 - presses[-1]
    assert snap[14] + snap[15] == moves
    assert saved["n"] == moves
    log = saved["log"]  # three ints a half-move: packed, used ms, left ms
    assert len(log) == 3 * moves
    for k in range(moves):
        assert log[3 * k] & 1 == stamps[k + 1][0]  # the side that moved
        assert abs(log[3 * k + 1] * US - used[k]) <= 500, (k, log[3 * k + 1], used[k])
    # the journal wrote while the clocks ran, after each press's LEDs: no flash op between
    # an edge and the LED change that answers it
    led_changes = [t for t, _g, _lvl in tr.leds]
    for e, g, _read, _v in tr.stamps:
        if g not in levers:
            continue
        answer = min((x for x in led_changes if x >= e), default=None)
        if answer is not None:
            assert not [op for op in during if e <= op[0] < answer], e
    assert during  # the journal did write
    # every press's record (the first press's too: its head was written at the ready
    # screen) is whole on flash within RECORD_WHOLE_MS of the lever's edge: its one page
    # programmed, no erase
    for e, g, _read, _v in tr.stamps:
        if g not in levers:
            continue
        op = min((op for op in during if op[0] >= e), default=None)
        assert op is not None and op[1] == "program", (e, op)
        whole_ns = op[0] + PAGE_NS * op[3] // 256 - e
        assert whole_ns <= RECORD_WHOLE_MS * MS, (e, whole_ns / MS)
