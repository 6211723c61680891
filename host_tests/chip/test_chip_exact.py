"""Exact to the microsecond on the emulated chip: real MicroPython rp2 in rp2040js,
flashed as `make flash` leaves it, a game of 80 half-moves driven through the lever pins at
chosen ns (tools/chip/chip.py).

The test knows each press's stamp: the value of `ticks_us()` the lever's hard IRQ read (the
trace records it), so it knows each move's exact interval and each side's exact time without
the firmware. After the game (a flag, the result confirmed: the app then hands the board
over to the REPL) it checks the record in games/g000.json row by row (within 0.5 ms of exact
at every move) and the engine's own times: the side that moved last holds exactly its start
minus the exact sum of its intervals, and the flag fell at the exact us the other side's time
ran out. The emulator counts cycles, so the run is the same every time: nothing here is
statistical.

Runs when MICROPYTHON_UF2 names a MicroPython rp2 .uf2 (and the B1 boot ROM is found, see
chip.py); skipped otherwise.
"""

import json
import random

import chip
import chip_env

_UF2, _BOOTROM = chip_env.require()

BULLET_1_0 = 8
BOOT_MS = chip.BOOT_MS
US = 1000
TICKS = 1 << 30

# Read on the chip after the result, through the raw REPL (`clock` is main.py's App): the
# engine's exact times and flags, and the monotonic clock's origin in raw ticks_us.
PROBE = """
import json, time
m = clock.mono
g = clock.ui.game
origin = time.ticks_add(m._last_us, -(m.ms * 1000 + m.rem_us))
print(json.dumps({"origin_us": origin, "state": g.state, "first_flag": g.first_flag,
    "main": list(g.main), "main_us": list(g.main_us), "flagged": list(g.flagged),
    "flag_at": list(g.flag_at), "flag_us": list(g.flag_us), "moves": list(g.moves),
    "errors": clock.errors}))
"""


def test_eighty_half_moves_at_odd_instants_are_exact_to_the_us():
    rng = random.Random(2121)
    with chip.Chip(_UF2, _BOOTROM).session() as s:
        s.run_to(BOOT_MS)
        s.choose_preset(BULLET_1_0)
        # Black (left) starts, then 80 half-moves of 0.25 to 1.2 s at any ns.
        t = s.t + 200 + rng.randrange(1_000_000) / 1e6
        presses = []
        side = 0
        for _ in range(81):
            s.pin(chip.LEVER[("left", "right")[side]], True, t)
            s.pin(chip.LEVER[("left", "right")[side]], False, t + 80)
            presses.append((side, t))
            side = 1 - side
            t += 250 + rng.randrange(950_000_000) / 1e6
        s.run_to(t + 61_000)  # White (right) runs from the 81st press: its flag falls
        tr = s.trace()
        assert tr.protocol_errors == [] and tr.emulator_errors == [] and tr.reset is None
        s.tap("set")  # the material entry: what is left to Black?
        s.tap("play")  # a pawn, rook or queen: the flag loses
        s.tap("play")  # the result confirmed: recorded
        s.run_ms(2_000)  # the record's flash writes
        record = json.loads(chip.read_file(s.save_flash(), "/games/g000.json"))
        st = s.repl_json(PROBE)

    # Each press's stamp: what the lever's IRQ read, in the order of the presses.
    levers = {chip.LEVER["left"]: 0, chip.LEVER["right"]: 1}
    stamps = [(levers[g], v) for e, g, _read, v in tr.stamps if g in levers]
    assert [x for x, _v in stamps] == [x for x, _t in presses]  # every press, once, in order
    mono = [((v - st["origin_us"]) % TICKS) for _x, v in stamps]  # us on the app's clock

    # The record: the time each move took and the time left after it, within 0.5 ms.
    left = [60_000 * US, 60_000 * US]
    rows = record["moves"]
    assert len(rows) == 80
    for k, row in enumerate(rows):
        mover = stamps[k + 1][0]
        used = mono[k + 1] - mono[k]
        left[mover] -= used
        assert row[0] == mover and row[1] == k // 2 + 1
        assert abs(row[2] * US - used) <= 500, (k, row, used)
        assert abs(row[3] * US - left[mover]) <= 500, (k, row, left[mover])

    # The engine: Black (left) moved last and holds exactly its start minus its intervals;
    # White's flag fell at the exact us its time ran out after Black's last press.
    assert (st["state"], st["first_flag"], st["errors"], st["moves"]) == (4, 1, 0, [40, 40])
    assert st["main"][0] * US + st["main_us"][0] == left[0]
    assert st["flagged"] == [0, 1]
    assert st["flag_at"][1] * US + st["flag_us"][1] == mono[-1] + left[1]
    assert (st["main"][1], st["main_us"][1]) == (0, 0)
    assert any(u % US for u in mono)  # the stamps fell inside ms, as a lever's do
