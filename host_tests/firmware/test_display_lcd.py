"""The LCD build on the simulated board: the real firmware with two HT1621 glasses on the
display pins (board.DISPLAY_FILE says "lcd", as `make flash DISPLAY=lcd` leaves it), read
back through the glass model (tools/simboard/ht1621_decode.py). The six-digit layouts
themselves are timefmt6's (host_tests/core/test_timefmt6.py); here the whole clock."""

import engine as E
import machine
from test_firmware_e2e import BATTERY_ADC, BULLET_1_0, choose_preset, game, tap

from simboard.firmware import SimulatedClock

DOTS = 0b11100  # the PDC-6X1 glass's points: after digits 2, 3 and 4


def lcd_clock(tmp_path, volts=4.2):
    c = SimulatedClock(tmp_path, display="lcd")
    machine.set_adc_volts(BATTERY_ADC, volts / 3)
    c.run_ms(500)
    return c


def test_the_lcd_build_boots_on_the_glasses_and_shows_hours_minutes_seconds(tmp_path):
    c = lcd_clock(tmp_path)
    assert c.app.ui.digits == 6
    assert type(c.app.board.displays[0]).__name__ == "HT1621"
    # the default control (FIDE 90/40+30): 1:30:00 on both glasses, h, then a dot
    for side in (0, 1):
        text, points, _icons = c.display(side)
        assert text == "1h3000" and points == 0b1000
        assert points & ~DOTS == 0


def test_a_game_on_the_glasses_counts_seconds_and_tenths_to_the_flag(tmp_path):
    c = lcd_clock(tmp_path)
    choose_preset(c, BULLET_1_0)
    assert c.displays() == (("   100", 0b1000, 0b111), ("   100", 0b1000, 0))  # 1.00
    c.press("right")  # Black presses: White's (left) clock starts
    assert game(c).state == E.RUNNING and game(c).running == 0
    c.run_ms(1_500)  # 0.59, the dot standing (no beat on the glass)
    assert c.display(0) == ("   059", 0b1000, 0b111) and c.display(1)[:2] == ("   100", 0b1000)
    c.run_ms(52_000)  # under 10 s: seconds and tenths, the dot before the tenths
    assert c.display(0)[:2] == ("    64", 0b10000)
    c.run_ms(10_000)
    assert game(c).state == E.FLAGGED
    assert c.display(0)[0] == " FLAG "
    for side in (0, 1):
        assert c.display(side)[1] & ~DOTS == 0


def test_the_battery_symbol_shows_the_level_on_the_left_glass(tmp_path):
    c = lcd_clock(tmp_path, volts=4.6)
    c.run_ms(31_000)  # a battery reading
    assert c.icons(0) == 0b111  # full: three bars
    assert c.icons(1) == 0


def test_the_menus_are_readable_on_six_digits(tmp_path):
    c = lcd_clock(tmp_path)
    tap(c, "set")  # the preset chooser: a 4-character name in digits 1..4
    assert c.display(0)[:2] == (" FIdE ", 0)
