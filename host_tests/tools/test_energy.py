"""The energy model (tools/energy/energy.py) and the firmware's battery tables
(firmware/core/battery.py): the thresholds and levels the clock uses are the ones the model
computes, and the model's promise holds: below the warning at least 10 h of play remain, with
the margin, at every brightness whose warning does not come at once; the game it counts the
segments of is the firmware's own."""

import re
import subprocess
import sys
from pathlib import Path

import battery
import pytest
import segments
import settings
import sleepgate

ROOT = Path(__file__).resolve().parents[2]

import energy  # noqa: E402


@pytest.fixture(scope="module")
def model():
    return energy.model()


def test_the_firmware_tables_are_the_models(model):
    want = energy.firmware_constants(model)
    assert battery.LOW_MV == want["LOW_MV"][0] + want["LOW_MV"][1]
    assert len(want["LOW_MV"][0]) == battery.GLASS + 1
    for kind in (battery.ALKALINE, battery.NIMH):
        flat = tuple(x for pair in want["LEVELS"][kind] for x in pair)
        assert battery.LEVELS[kind] == flat


def test_the_default_brightness_is_the_models(model):
    assert settings.defaults()["brightness"] == energy.DEFAULT_BRIGHTNESS


def test_ten_hours_remain_after_the_warning_with_the_margin(model):
    for row in model["levels"]:
        for name, curve, _mah in energy.KINDS:
            k = row[name]
            fresh_mv = energy.vsys_at(curve, 0.0) * 1000
            if k["warning"][2] >= fresh_mv:
                # the cells cannot promise 10 h at this brightness: the clock warns at once
                assert k["hours"] * energy.DERATE < energy.REMAINING_H * 1.05, (row, name)
                continue
            assert k["after_warning_derated"] >= energy.REMAINING_H - 0.05, (row["level"], name)
            assert k["after_warning"] > k["after_warning_derated"]


def test_at_the_default_brightness_both_kinds_warn_after_fresh_cells(model):
    row = model["levels"][energy.DEFAULT_BRIGHTNESS]
    for name, curve, _mah in energy.KINDS:
        assert row[name]["warning"][2] < energy.vsys_at(curve, 0.05) * 1000, name
        # and a 6-hour game and the next round fit after the warning, cold cells and all
        assert row[name]["after_warning_derated"] >= 10


def test_brighter_costs_hours(model):
    rows = model["levels"]
    for a, b in zip(rows, rows[1:], strict=False):
        assert b["mw"] > a["mw"]
        for name in ("alkaline", "NiMH"):
            assert b[name]["hours"] < a[name]["hours"]


def test_the_pico_alone_is_the_floor(model):
    # brightness 0 still pays the sleeping Pico: 19 mA at 5 V
    assert model["levels"][0]["mw"] > energy.PICO_SLEEP_MA * energy.PICO_MEASURED_AT_V


def test_the_game_lights_what_the_firmware_draws():
    # the profile's count is the firmware's glyphs: a game nobody plays (one press, no
    # moves) shows both starting times, 1h30 on each side, the colon off in h:mm
    p = energy.game_profile(moves=0)
    one = sum(bin(b).count("1") for b in segments.encode("1h30"))
    assert p["segments"] == pytest.approx(one)
    full = energy.game_profile()
    assert 8 < full["segments"] < 29  # some digits, never all segments
    assert sum(full["layout"].values()) == pytest.approx(1)
    assert 4 < full["hours"] < 6


def test_make_energy_prints_the_table():
    out = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "energy" / "energy.py")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "| brightness |" in out and "(default)" in out


def test_the_lcd_build_outlasts_the_led_build_and_keeps_ten_hours_after_the_warning(model):
    """Its glasses and flashing LED draw a fraction of the LED modules and the lit LED; the
    core (awake in WFE) is the same floor, so the hours rise but stay under the floor's."""
    lcd = model["lcd"]
    led = model["levels"][energy.DEFAULT_BRIGHTNESS]
    floor_mw = energy.PICO_MEASURED_AT_V * energy.PICO_SLEEP_MA
    assert floor_mw < lcd["mw"] < led["mw"]
    for name in ("alkaline", "NiMH"):
        assert lcd[name]["hours"] > led[name]["hours"]
        assert lcd[name]["after_warning_derated"] >= energy.REMAINING_H - 0.05
        # placed for its own load: 10 h with the margin, not the LED build's 35
        assert lcd[name]["after_warning_derated"] < energy.REMAINING_H + 0.5
        assert lcd[name]["warning"][2] < led[name]["warning"][2]
        # and its level table is the LED build's (battery.LEVELS serves both)
        assert lcd["tables"][name] == model["tables"][name]


def test_the_dormant_clock_is_the_picos_milliamp(model):
    """The idle clock's dormant state (app.Idle): the Pico's published 0.9 mA; the LED
    build's modules unpowered (their switch's leakage), the glasses in their power-down
    (microamps): either build is the Pico's alone, far longer in the box than awake."""
    import app

    assert energy.IDLE_MIN * 60_000 == app.IDLE_MS
    assert energy.PICO_DORMANT_MA <= 1.0
    idle = model["idle"]
    pico_mw = energy.PICO_MEASURED_AT_V * energy.PICO_DORMANT_MA
    awake_h = {
        "led": model["levels"][energy.DEFAULT_BRIGHTNESS]["alkaline"]["hours"],
        "lcd": model["lcd"]["alkaline"]["hours"],
    }
    for build in ("led", "lcd"):
        assert pico_mw < idle[build]["mw"] < 1.02 * pico_mw, build
        assert idle[build]["alkaline"] * 24 > 20 * awake_h[build], build
    # the supply switch is what keeps the LED build there: powered, the modules' own
    # current would double the Pico's
    powered = energy.V3V3 * 2 * energy.TM1637_IDLE_MA / energy.EFFICIENCY
    assert powered > pico_mw


def _en_names():
    """SLEEP_EN0's and SLEEP_EN1's bit names, bit 0 first, as the emulated chip has them."""
    src = (ROOT / "tools" / "chip" / "clocks.mjs").read_text()
    names = []
    for tag in ("const EN0 = (", "const EN1 = ("):
        body = src[src.index(tag) + len(tag) :]
        body = body[: body.index(").split")]
        names.append("".join(re.findall(r"'([^']*)'", body)).split())
    return names


def test_the_deep_sleep_current_is_the_published_base_and_the_clocks_sleepgate_keeps():
    en0, en1 = _en_names()
    assert len(en0) == 32 and len(en1) == 15
    on = {n for i, n in enumerate(en0) if sleepgate.SLEEP_EN0 >> i & 1}
    on |= {n for i, n in enumerate(en1) if sleepgate.SLEEP_EN1 >> i & 1}
    assert on == set(energy.SLEEPGATE_CLOCKS)
    assert [n for i, n in enumerate(en0) if sleepgate.PWM_EN0 >> i & 1] == ["sys_pwm"]
    # every name the table prices is one of the chip's clocks
    priced = {n for names in energy.DVDD_UA_PER_MHZ for n in names}
    assert priced <= set(en0 + en1)
    assert energy.deep_sleep_ma({"sys_timer"}) == energy.PICO_TIMER_ONLY_SLEEP_MA
    # a PIO block at 125 MHz: 12.3 µA/MHz of DVDD, from 3V3 through the buck-boost at 5 V
    pio = energy.deep_sleep_ma({"sys_timer", "sys_pio0"}) - energy.PICO_TIMER_ONLY_SLEEP_MA
    assert pio == pytest.approx(12.3 * 125 / 1000 * 3.3 / (5 * energy.EFFICIENCY))
    # IO and pads are one row of the table: counted once
    one = energy.deep_sleep_ma({"sys_io"})
    assert energy.deep_sleep_ma({"sys_io", "sys_pads"}) == one
    # the deep sleep sits between the measured timer-only sleep and MicroPython's sleep
    deep = energy.deep_sleep_ma(energy.SLEEPGATE_CLOCKS)
    assert energy.PICO_TIMER_ONLY_SLEEP_MA < deep < energy.PICO_SLEEP_MA
    with pytest.raises(ValueError):
        energy.deep_sleep_ma({"sys_timer"}, mhz=48)


def _record(build, seconds, deep_s, awake_s, wakeups, lit=None):
    rec = {
        "seconds": seconds,
        "presses": 0,
        "states": [
            {"state": "awake", "clk_sys_hz": 125_000_000, "s": awake_s, "entries": wakeups},
            {
                "state": "deep_sleep",
                "clk_sys_hz": 125_000_000,
                "s": deep_s,
                "entries": wakeups,
                "clocks_on": list(energy.SLEEPGATE_CLOCKS),
            },
            {"state": "dormant", "clk_sys_hz": 0, "s": seconds - deep_s - awake_s, "entries": 1},
        ],
        "leds_s": [seconds / 2, 0.0],
        "buzzer_s": 0.0,
    }
    if build == "lcd":
        rec["glasses_lit_s"] = [seconds, seconds / 2]
    else:
        rec["displays"] = [{"segment_s": {"2": lit * seconds}, "on_s": seconds}] * 2
    return rec


def test_a_runs_load_is_its_states_currents_and_what_its_wires_lit():
    rec = _record("led", 100.0, 90.0, 1.0, 200, lit=16)
    row = energy.run_load("led", rec)
    deep = energy.deep_sleep_ma(energy.SLEEPGATE_CLOCKS)
    pico = 0.9 * deep + 0.01 * energy.PICO_BUSY_MA + 0.09 * energy.PICO_DORMANT_MA
    assert row["pico_ma"] == pytest.approx(pico)
    assert row["displays_ma"] == pytest.approx(2 * energy.display_ma(2, 16))
    assert row["led_ma"] == pytest.approx(energy.LED_MA / 2)
    assert row["wakeups_per_s"] == 2
    assert row["shares"]["deep_sleep"] == pytest.approx(0.9)
    lcd = energy.run_load("lcd", _record("lcd", 100.0, 90.0, 1.0, 200))
    glasses = 1.5 * energy.HT1621_MA + 0.5 * energy.HT1621_STANDBY_MA
    assert lcd["displays_ma"] == pytest.approx(glasses)
    assert lcd["mw"] < row["mw"]
    slow = dict(rec["states"][0], clk_sys_hz=12_000_000)  # awake around a dormant spell
    assert energy.state_ma(slow) == energy.PICO_BUSY_MA
    bad = dict(rec, states=[dict(rec["states"][1], clk_sys_hz=48_000_000)])
    with pytest.raises(ValueError):
        energy.run_load("led", bad)


LEDGER = energy.read_ledger()


def test_the_ledger_holds_every_game_on_both_builds_as_energy_plays_them():
    assert LEDGER is not None, "tools/energy/ledger.json: run make power-ledger"
    for build in ("led", "lcd"):
        runs = LEDGER["runs"][build]
        assert set(runs) == {"fide", "blitz", "idle_hour"}, build
        for game, rec in runs.items():
            assert sum(r["s"] for r in rec["states"]) == pytest.approx(rec["seconds"]), game
            if game == "idle_hour":
                assert rec["seconds"] == pytest.approx(3600, abs=0.01)
                continue
            spec = energy.GAMES[game]
            assert rec["game"] == dict(spec, think_s=list(spec["think_s"])), (build, game)
            _plan, end_ms = energy.schedule(spec["moves"], spec["think_s"])
            assert abs(rec["seconds"] - end_ms / 1000) < 1, (build, game)
            assert rec["presses"] == 2 * spec["moves"] + 1


def test_the_measured_games_run_longer_than_the_planning_load_and_the_warning_holds(model):
    """The warnings are placed for the planning load (the Pico at its WFE floor); the games
    the chip measured draw less, so the hours rise and 10 h (cold) still remain after the
    warning."""
    measured = model["measured"]
    planned = {"led": model["levels"][energy.DEFAULT_BRIGHTNESS], "lcd": model["lcd"]}
    for build in ("led", "lcd"):
        for game in ("fide", "blitz"):
            row = measured[build][game]
            assert row["shares"]["deep_sleep"] > 0.95, (build, game)
            assert row["mw"] < planned[build]["mw"], (build, game)
            for name, curve, mah in energy.KINDS:
                warn = planned[build][name]["warning"]
                f = energy._fraction_at(curve, warn[2] / 1000 / (1 + energy.ADC_MARGIN))
                left = energy.hours_left(curve, mah, row["mw"], f, energy.DERATE)
                assert left >= energy.REMAINING_H - 0.01, (build, game, name)
        # an idle clock is dormant most of its hour
        idle = measured[build]["idle_hour"]
        assert idle["shares"].get("dormant", 0) + idle["shares"].get("stopped", 0) > 0.8


def test_the_bounds_are_the_models_loads_without_the_core(model):
    """The LED build's hours with a Pico drawing nothing exceed the measured game's and stay
    under 60 h at the default brightness; the LCD build's with the Pico at lightsleep's floor
    between wakeups exceed the deep sleep's several times over, and stay under 1000 h."""
    b = energy.bounds(model["profile"])
    rail = 2 * energy.display_ma(energy.DEFAULT_BRIGHTNESS, model["profile"]["segments"])
    assert b["led_mw"] == pytest.approx(energy.V3V3 * (rail + energy.LED_MA) / energy.EFFICIENCY)
    measured = model["measured"]
    assert measured["led"]["fide"]["alkaline"] < b["led_h"] < 60
    assert 4 * measured["lcd"]["fide"]["alkaline"] < b["lcd_h"] < 1000
