"""The battery warning on the simulated board (real firmware, fake rp2: VSYS on ADC3 through
the Pico's divider): it shows at power-up and on the ready screen, for the kind of cells and
the brightness set; a game in progress never shows it, nor reads the battery; the next
ready screen does. The brightness setting reaches both TM1637s on the wire at once."""

import json

import battery
import machine
import settings as settings_mod
from test_firmware_e2e import BATTERY_ADC, game, let_right_flag, long_set, shown_over, tap

from simboard.firmware import SimulatedClock

LOW = {"bAt "}  # what the left display blinks with the times


def boot(tmp_path, vsys_v, **options):
    if options:
        s = settings_mod.defaults()
        s.update(options)
        (tmp_path / "settings.json").write_text(json.dumps(s))
    clock = SimulatedClock(tmp_path)
    machine.set_adc_volts(BATTERY_ADC, vsys_v / 3)
    clock.run_ms(500)
    return clock


def warns(clock, ms=2_000):
    return bool(shown_over(clock, ms, 0) & LOW)


def alkaline_mv():
    return battery.threshold(battery.ALKALINE, settings_mod.defaults()["brightness"])


def test_power_up_with_low_cells_warns_on_the_ready_screen(tmp_path):
    clock = boot(tmp_path, (alkaline_mv() - 60) / 1000)
    assert shown_over(clock, 1_000, 1) >= {" Lo ", "1h30"}  # blinking with the time
    assert shown_over(clock, 1_000, 0) >= {"bAt ", "1h30"}
    assert not (tmp_path / "errors.log").exists()


def test_power_up_with_fresh_cells_does_not(tmp_path):
    clock = boot(tmp_path, 4.2)
    assert not warns(clock)
    assert clock.app.ui.battery_pct == battery.percent(4_200, battery.ALKALINE)


def test_usb_power_does_not(tmp_path):
    clock = boot(tmp_path, 4.75)  # VSYS from VBUS through the Pico's diode
    assert not warns(clock)


def test_nimh_cells_warn_where_their_curve_puts_it(tmp_path):
    # 3.47 V: a used alkaline set with 10 h and more to go, a NiMH set near its knee
    v = 3.47
    level = settings_mod.defaults()["brightness"]
    assert (
        battery.threshold(battery.ALKALINE, level) < 3470 < battery.threshold(battery.NIMH, level)
    )
    clock = boot(tmp_path, v)
    assert not warns(clock)
    long_set(clock)  # the settings menu: to its last item, the cells' kind
    while clock.display(0)[0] != "bAtt":
        tap(clock, "set")
    assert clock.display(1)[0] == "ALCA"
    tap(clock, "plus")
    assert clock.display(1)[0] == "ni-H"
    tap(clock, "play")  # save and leave: the ready screen reads the cells again at once
    assert warns(clock)
    saved = json.loads((tmp_path / "settings.json").read_text())
    assert saved["battery"] == 1
    clock.power_cycle(1_000)
    machine.set_adc_volts(BATTERY_ADC, v / 3)
    clock.run_ms(500)
    assert warns(clock)  # kept over power-off


def test_a_dimmer_display_moves_the_warning_down(tmp_path):
    # below the default brightness's threshold, above brightness 0's
    mv = (battery.threshold(battery.ALKALINE, 0) + alkaline_mv()) // 2
    clock = boot(tmp_path, mv / 1000)
    assert warns(clock)
    long_set(clock)
    while clock.display(0)[0] != "brIt":
        tap(clock, "set")
    while clock.display(1)[0] != "   0":
        tap(clock, "minus")
    assert clock.chips[0].brightness == clock.chips[1].brightness == 0  # on the wire, both
    tap(clock, "play")
    assert not warns(clock)


def test_a_game_never_shows_the_warning_nor_reads_the_cells(tmp_path):
    """The cells cross the threshold during a game: the players see nothing; the arbiter
    sees the warning on the next ready screen (the model leaves 10 h: the game finishes)."""
    clock = boot(tmp_path, 4.0)
    reads = []
    board = clock.app.board
    real = board.battery_mv

    def counting():
        reads.append(clock.vt.us)
        return real()

    board.battery_mv = counting
    let_right_flag(clock)  # a Bullet game, about a minute long
    g = game(clock)
    machine.set_adc_volts(BATTERY_ADC, 3.0 / 3)  # flat: well below any threshold
    assert g.state == 3  # flagged
    reads.clear()
    seen = shown_over(clock, 40_000, 0) | shown_over(clock, 2_000, 1)
    assert not seen & {"bAt ", " Lo "}
    assert reads == []  # nothing read while the game is on
    tap(clock, "set")  # material entry
    tap(clock, "play")
    tap(clock, "play")  # the result is confirmed
    assert g.state == 4
    assert not shown_over(clock, 4_000, 0) & LOW  # the result screen: still nothing
    tap(clock, "set")  # a new game: the ready screen
    assert g.state == 0
    assert warns(clock)
    assert len(reads) == 1
    assert not (tmp_path / "errors.log").exists()


def test_the_warning_stays_through_a_wobbling_reading(tmp_path):
    mv = alkaline_mv()
    clock = boot(tmp_path, (mv - 20) / 1000)
    assert warns(clock)
    machine.set_adc_volts(BATTERY_ADC, (mv + 20) / 3000)  # back above, within the hysteresis
    clock.run_ms(31_000)  # the next reading
    assert warns(clock)
    machine.set_adc_volts(BATTERY_ADC, (mv + battery.HYSTERESIS_MV + 30) / 3000)
    clock.run_ms(31_000)
    assert not warns(clock)
