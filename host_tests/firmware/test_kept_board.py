"""The custom controls kept over a power cycle, on the simulated board (main.py, real pins,
virtual time, the settings file on the host's disk)."""

import json

import machine
from test_firmware_e2e import tap

from simboard.firmware import SimulatedClock


def power_on(clock):
    machine.set_adc_volts(3, 4.2 / 3)  # fresh batteries: no "bAt Lo"
    clock.run_ms(500)


def test_a_custom_control_comes_back_as_a_slot_after_a_power_cycle(tmp_path):
    clock = SimulatedClock(tmp_path)
    power_on(clock)
    tap(clock, "set")  # the chooser, on FIDE
    for _ in range(3):
        tap(clock, "plus")  # Rapid 15+10
    tap(clock, "set")  # the editor, from it
    for _ in range(4):
        tap(clock, "set")
    for _ in range(5):
        tap(clock, "minus")  # increment 10 s -> 5 s
    tap(clock, "play")  # 15 + 5 starts: kept
    tap(clock, "set")  # the chooser, on the control in use: CUS1
    assert clock.display(0)[0] == "CU51"
    tap(clock, "plus")  # FIdE, the first preset ...
    tap(clock, "play")  # ... chosen
    kept = json.loads((tmp_path / "settings.json").read_text())["kept"]
    assert kept == [{"custom": {"mode": 0, "periods": [[900, 0, 1, 5]]}}]
    clock.power_cycle()
    power_on(clock)
    assert clock.displays() == (("1h30", False), ("1h30", False))
    tap(clock, "set")
    tap(clock, "minus")
    assert clock.displays() == (("CU51", False), ("1500", True))
    tap(clock, "play")
    assert clock.displays() == (("1500", True), ("1500", True))
