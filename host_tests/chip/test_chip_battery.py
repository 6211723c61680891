"""The battery warning on the emulated chip: real MicroPython rp2 in rp2040js reads VSYS
through ADC3 (the Pico's divider: VSYS / 3), and the ready screen blinks `bAt  Lo` below the
threshold of firmware/core/battery.py for the default cells (alkaline) and brightness; a reading
back above it (new cells, USB power) ends the warning at the next reading, 30 s later.

Runs when MICROPYTHON_UF2 names a MicroPython rp2 .uf2 (see test_chip_e2e.py)."""

import battery
import chip
import chip_env
import settings

pico = chip_env.chip_fixture()
MS = chip.MS
READ_MS = 30_000  # firmware/shell/app.py BATTERY_MS


def texts(tr, side, t0_ms, t1_ms):
    """The texts display `side` lit within [t0_ms, t1_ms)."""
    return {x.text for x in tr.lit(side) if t0_ms * MS <= x.t < t1_ms * MS}


def test_vsys_on_adc3_below_the_threshold_warns_and_above_it_does_not(pico):
    limit = battery.threshold(battery.ALKALINE, settings.defaults()["brightness"])
    with pico.session() as s:
        s.set_vsys((limit - 80) / 1000)  # before the firmware boots
        s.run_to(4_000)
        tr = s.trace()
        assert tr.reset is None and tr.protocol_errors == [] and tr.emulator_errors == []
        assert {"bAt ", "1h30"} <= texts(tr, 0, 1_000, 4_000)  # blinking with the time
        assert {" Lo ", "1h30"} <= texts(tr, 1, 1_000, 4_000)
        first = min(x.t for x in tr.lit(0) if x.text == "bAt ")
        s.set_vsys(4.2)  # fresh cells (or USB): the next reading ends the warning
        s.run_to(first / MS + READ_MS + 2_000)
        tr = s.trace()
        assert "bAt " not in texts(tr, 0, first / MS + READ_MS + 600, s.t)
        assert texts(tr, 0, first / MS + READ_MS + 600, s.t) <= {"1h30"}
        assert tr.reset is None


def test_vsys_above_the_threshold_never_warns(pico):
    limit = battery.threshold(battery.ALKALINE, settings.defaults()["brightness"])
    with pico.session() as s:
        s.set_vsys((limit + 80) / 1000)
        s.run_to(4_000)
        tr = s.trace()
        assert texts(tr, 0, 0, 4_000) & {"bAt "} == set()
        assert "1h30" in texts(tr, 0, 0, 4_000)
