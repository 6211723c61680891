"""The power ledger's run (tools/chip/power_ledger.py, `make power-ledger`) on the emulated chip:
the first moves of its Blitz game on each build, on cells with the clock tree modelled. Its
record adds up (the states to the stretch, the lit displays and LEDs to what the wires saw)
and `make energy` turns it into a load (energy.run_load); the LCD build's LED flashes for
the share of a turn energy.LCD_LED_DUTY says, the LED build's is lit the whole game.

Runs when MICROPYTHON_UF2 names a MicroPython rp2 .uf2 (chip_env.require).
"""

import chip
import chip_env
import energy
import power_ledger
import pytest

uf2, bootrom = chip_env.require()
MOVES = 3


@pytest.mark.parametrize("build", ["led", "lcd"])
def test_the_ledgers_run_records_what_the_chip_did(build):
    c = chip.Chip(uf2, bootrom, display=build)
    rec = power_ledger.play(c, build, "blitz", moves=MOVES)
    spec = energy.GAMES["blitz"]
    plan, end_ms = energy.schedule(MOVES, spec["think_s"])
    assert rec["presses"] == len(plan)
    # the stretch: from the first press's release to the last's
    assert abs(rec["seconds"] - end_ms / 1000) < 0.2, rec["seconds"]
    assert sum(r["s"] for r in rec["states"]) == pytest.approx(rec["seconds"])
    shares = {r["state"]: r["s"] / rec["seconds"] for r in rec["states"]}
    assert set(shares) == {"awake", "deep_sleep"}  # on cells: no MicroPython sleep
    assert shares["deep_sleep"] > 0.97, shares
    for r in rec["states"]:
        assert r["clk_sys_hz"] == 125_000_000
        if r["state"] == "deep_sleep":
            assert set(r["clocks_on"]) == set(energy.SLEEPGATE_CLOCKS)
    led_share = sum(rec["leds_s"]) / rec["seconds"]
    if build == "led":
        # one side's LED lit at every instant of the game (to a lever's handover)
        assert 0.99 < led_share <= 1.0, led_share
        for d in rec["displays"]:
            assert d["on_s"] == pytest.approx(rec["seconds"])
            assert set(d["segment_s"]) == {"2"}  # the default brightness
            lit = d["segment_s"]["2"] / rec["seconds"]
            assert 8 < lit < 29, lit  # digits and the colon's beat, never all segments
    else:
        assert rec["glasses_lit_s"] == [pytest.approx(rec["seconds"])] * 2
        assert led_share == pytest.approx(energy.LCD_LED_DUTY, rel=0.25), led_share
    row = energy.run_load(build, rec)
    assert energy.deep_sleep_ma(energy.SLEEPGATE_CLOCKS) < row["pico_ma"] < energy.PICO_SLEEP_MA
    # the seconds (and on the LED build the colon's beat, on the LCD build the LED's
    # flashes' ends) and the moves
    assert (2 if build == "led" else 1.2) < row["wakeups_per_s"] < 4
