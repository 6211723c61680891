"""The running side's LED on the simulated board, the real firmware and loop: the LCD build
flashes it (60 ms from the press that starts the turn, again every 2 s of the turn: the rule
of ui_game.py, host_tests/core/test_ui_led_pulse.py), the LED build keeps it lit all turn.
Sampled every ms of virtual time from the lever's edge."""

import engine as E
import machine
from test_firmware_e2e import BATTERY_ADC, G60, choose_preset, game

from simboard.firmware import LEVER, SimulatedClock

SLACK_MS = 2  # the loop's wakeup and render after an edge's exact ms, the sampling's ms


def started(tmp_path, display):
    """A clock of that build, G/60 chosen, Black's (right) lever pressed; returns the clock
    and the left LED sampled every ms for 4.5 s from the press, as (mono ms, lit)."""
    c = SimulatedClock(tmp_path, display=display)
    machine.set_adc_volts(BATTERY_ADC, 4.2 / 3)
    c.run_ms(500)
    choose_preset(c, G60)
    pin = LEVER["right"]
    machine.press(pin)
    samples = []
    for i in range(4_500):
        c.run_ms(1)
        if i == 80:
            machine.release(pin)
        samples.append((c.mono_ms(), c.leds()))
    g = game(c)
    assert g.state == E.RUNNING and g.running == 0
    return c, samples


def test_the_lcd_build_flashes_the_running_side(tmp_path):
    c, samples = started(tmp_path, "lcd")
    t0 = game(c).turn_start
    lit = 0
    for m, (left, right) in samples:
        assert right == 0
        p = (m - t0) % 2_000
        if left:
            lit += 1
            assert p < 60 + SLACK_MS, (m, p)
        elif SLACK_MS <= p < 60:
            raise AssertionError("off inside the pulse at %d (%d)" % (m, p))
    assert 3 * 60 - 3 * SLACK_MS <= lit <= 3 * 60 + 3 * SLACK_MS  # 3 pulses in 4.5 s


def test_the_led_build_keeps_it_lit(tmp_path):
    _c, samples = started(tmp_path, "led")
    assert all(leds == (1, 0) for _m, leds in samples)
