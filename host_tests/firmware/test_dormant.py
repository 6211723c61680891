"""An idle clock goes dormant, on the simulated board with the real firmware: untouched for
app.IDLE_MS at the ready screen on cells (VBUS low), the displays and LEDs go off and the
chip is dormant (board.dormant, dormant.py: the fake machine's lightsleep stops the chip's
timer and watchdog until a wake pin falls); a button or a lever wakes it to where it was,
that key or lever doing nothing else; on USB power, or while a game runs, it never goes
dormant."""

import machine
import pytest
from test_firmware_e2e import BULLET_1_0, choose_preset

from simboard.firmware import BUTTON, LEVER, SimulatedClock

BATTERY_ADC = 3  # ADC3 reads VSYS / 3
HOUR_MS = 3_600_000


def booted(tmp_path, cells=True):
    c = SimulatedClock(tmp_path)
    machine.set_adc_volts(BATTERY_ADC, 4.2 / 3)
    machine.set_vbus(not cells)
    c.run_ms(500)
    return c


def at_ms(ms, fn):
    """`fn` as an event of the outside world `ms` from now (it runs while the chip is
    dormant too)."""
    machine.after(ms * 1000, fn)


def tap_at(ms, pin, hold_ms=80):
    at_ms(ms, lambda: machine.press(pin))
    at_ms(ms + hold_ms, lambda: machine.release(pin))


@pytest.fixture
def idle_ms(tmp_path):
    c = booted(tmp_path)
    yield c, c.module("app").IDLE_MS
    assert not (tmp_path / "errors.log").exists(), (tmp_path / "errors.log").read_text()


def test_idle_on_cells_it_goes_dormant_and_a_key_wakes_it_to_where_it_was(idle_ms):
    c, idle = idle_ms
    before = c.displays()
    seen = []
    at_ms(idle - 5_000, lambda: seen.append((c.segments(0), c.segments(1), c.leds())))
    at_ms(idle + 40_000, lambda: seen.append((c.segments(0), c.segments(1), c.leds())))
    tap_at(idle + HOUR_MS, BUTTON["plus"])  # an hour in the box, then PLUS
    mono0 = c.app.mono.ms
    c.run_ms(idle + 40_000)  # the run ends at the wake: no Python runs before it
    assert machine.now_us() >= c.at_us(0) + (idle + HOUR_MS) * 1000
    assert c.app.board.power.wakes == 1
    awake, asleep = seen
    assert any(awake[0]) and awake[2] == (0, 0)
    assert asleep == (bytes(4), bytes(4), (0, 0))  # both displays off, the LEDs too
    # The chip's timer stood still through the hour: the app's clock moved by the idle
    # time and the wakeups around it, not by the hour.
    c.run_ms(1_000)
    assert idle <= c.app.mono.ms - mono0 < idle + 60_000
    # Back where it was: the ready screen (PLUS, the key that woke it, opened no info page)
    assert c.displays() == before
    # and the clock plays as ever: a lever starts White's clock.
    c.press("left")
    c.run_ms(2_000)
    assert c.leds() == (0, 1)
    assert c.app.ui.game.running == 1


def test_the_led_modules_are_unpowered_while_dormant_and_start_afresh(idle_ms):
    """The LED build switches its display modules' supply off for the dormant spell (board.py:
    a TM1637 switched off keeps drawing its own current), the lines' pull-ups off first so
    nothing feeds the unpowered modules; woken, the supply and the pull-ups come back and
    the modules, which start dark and empty, get whole frames."""
    from simboard.firmware import DISPLAY_PINS, DISPLAY_SUPPLY

    c, idle = idle_ms
    supply = machine.Pin(DISPLAY_SUPPLY)
    lines = [machine.Pin(g) for pair in DISPLAY_PINS for g in pair]
    seen = []

    def look():
        seen.append((supply.value(), [p.pull() for p in lines], [x.powered for x in c.chips]))

    at_ms(idle - 5_000, look)
    at_ms(idle + 40_000, look)
    tap_at(idle + 60_000, BUTTON["plus"])
    before = c.displays()
    c.run_ms(idle + 40_000)
    c.run_ms(1_000)
    awake, asleep = seen
    assert awake == (0, [machine.Pin.PULL_UP] * 4, [True, True])
    assert asleep == (1, [0] * 4, [False, False])  # off, no pull-up feeding them
    assert supply.value() == 0 and [p.pull() for p in lines] == [machine.Pin.PULL_UP] * 4
    for chip in c.chips:
        assert chip.power_cycles == 1 and chip.backfed == 0 and chip.errors == 0
    assert c.displays() == before  # the ready screen again, on modules that forgot it


def test_the_lever_that_wakes_it_starts_no_game(idle_ms):
    c, idle = idle_ms
    tap_at(idle + 60_000, LEVER["left"])
    c.run_ms(idle + 40_000)
    c.run_ms(1_000)
    g = c.app.ui.game
    assert c.app.board.power.wakes == 1
    assert g.state == c.module("engine").READY and c.leds() == (0, 0)
    c.run_ms(100)
    c.press("left")  # the next press is the game's start
    c.run_ms(1_000)
    assert g.running == 1 and c.leds() == (0, 1)


def test_each_idle_spell_goes_dormant_again(idle_ms):
    c, idle = idle_ms
    tap_at(idle + 60_000, BUTTON["set"])
    tap_at(2 * idle + 120_000, BUTTON["set"])
    c.run_ms(idle + 40_000)
    c.run_ms(idle + 40_000)
    assert c.app.board.power.wakes == 2


def test_on_usb_power_it_stays_awake(tmp_path):
    c = booted(tmp_path, cells=False)
    idle = c.module("app").IDLE_MS
    c.run_ms(idle + 60_000)
    assert c.app.board.power.wakes == 0
    assert c.displays() == (("1h30", False), ("1h30", False))


def test_a_running_game_never_goes_dormant(idle_ms):
    c, idle = idle_ms
    c.press("left")  # White (right) thinks for longer than the idle time
    c.run_ms(idle + 60_000)
    g = c.app.ui.game
    assert c.app.board.power.wakes == 0
    assert g.state == c.module("engine").RUNNING and c.leds() == (0, 1)


def test_a_touch_starts_the_idle_count_again(idle_ms):
    c, idle = idle_ms
    tap_at(idle - 60_000, BUTTON["minus"])  # an info page, a minute before the count ends
    tap_at(2 * idle, BUTTON["set"])  # the wake, once dormant
    c.run_ms(idle + 30_000)
    assert c.app.board.power.wakes == 0  # 90 s since the touch
    c.run_ms(idle)
    assert c.app.board.power.wakes == 1


def test_a_cable_plugged_in_wakes_it_and_it_stays_awake(idle_ms):
    """USB power coming (VBUS rises) ends the dormant spell: the host finds the port up."""
    c, idle = idle_ms
    at_ms(idle + 60_000, lambda: machine.set_vbus(True))
    c.run_ms(idle + 40_000)  # dark until the cable comes
    c.run_ms(1_000)
    assert c.app.board.power.wakes == 1
    assert c.displays() == (("1h30", False), ("1h30", False))
    c.run_ms(idle + 60_000)  # on USB power the count ends awake
    assert c.app.board.power.wakes == 1
    assert c.displays() == (("1h30", False), ("1h30", False))


def test_the_cable_coming_and_going_mid_game_moves_nothing(tmp_path):
    """The same presses with VBUS toggled at odd instants and with it steady: the same
    frames at the same instants, the same game."""

    def play(toggle):
        root = tmp_path / ("toggled" if toggle else "steady")
        root.mkdir()
        c = booted(root)
        power = []
        if toggle:
            for k, ms in enumerate((1_234, 2_501, 4_999, 7_003, 9_870)):
                at_ms(ms, lambda on=k % 2 == 0: machine.set_vbus(on))
                at_ms(ms + 1, lambda: power.append(c.app.board.power.on_usb()))
        c.press("left")
        c.run_ms(3_000)
        c.press("right")
        c.run_ms(4_000)
        c.press("left")
        c.run_ms(5_000)
        g = c.app.ui.game
        assert power == ([True, False, True, False, True] if toggle else [])
        assert g.moves[0] + g.moves[1] == 2 and g.state == c.module("engine").RUNNING
        return [list(chip.timeline) for chip in c.chips], list(g.main), list(g.main_us)

    assert play(True) == play(False)


SCR = 0xE000ED10
SLEEP_EN0 = 0x400080A8


def test_between_wakeups_deep_sleep_on_cells_only(tmp_path):
    """The loop's sleep follows VBUS (sleepgate.py): SCR.SLEEPDEEP and SLEEP_EN's few
    clocks on cells, SLEEPDEEP clear on USB power; written again after a dormant spell,
    whose lightsleep set every SLEEP_EN bit."""
    c = booted(tmp_path)
    gate = c.module("sleepgate")
    assert machine.mem32[SCR] & 4 and machine.mem32[SLEEP_EN0] == gate.SLEEP_EN0
    c.run_ms(5_000)  # the ready screen's longest sleep begins
    machine.set_vbus(True)
    c.run_ms(1)  # the cable's edge rang: the loop looked at once
    assert not machine.mem32[SCR] & 4
    machine.set_vbus(False)
    c.run_ms(1)
    assert machine.mem32[SCR] & 4
    idle = c.module("app").IDLE_MS
    tap_at(idle + 60_000, BUTTON["set"])
    c.run_ms(idle + 40_000)
    c.run_ms(1_000)
    assert c.app.board.power.wakes == 1
    assert machine.mem32[SLEEP_EN0] == gate.SLEEP_EN0 and machine.mem32[SCR] & 4


def test_the_last_seconds_beeps_sound_through_deep_sleep(tmp_path):
    """The last seconds' beeps start in wakeups that only render (app.Dues, View.played):
    each sounds on with the PWM's clock kept on in the deep sleeps of its 40 ms, and the
    clock is gated again once it ends."""
    c = booted(tmp_path)
    gate = c.module("sleepgate")
    choose_preset(c, BULLET_1_0)
    c.press("left")  # White's minute runs
    c.run_ms(54_500)
    sounding = quiet = 0
    for _ in range(5_000):  # 54.6 .. 59.6 s: the beeps at 4, 3, 2, 1 s left
        c.run_ms(1)
        on = c.buzzer()[0]
        en0 = machine.mem32[SLEEP_EN0]
        if on:
            sounding += 1
            assert en0 == gate.SLEEP_EN0 | gate.PWM_EN0, hex(en0)
        elif en0 == gate.SLEEP_EN0:
            quiet += 1
    assert c.app.ui.game.state == c.module("engine").RUNNING
    assert 4 * 35 <= sounding <= 5 * 45, sounding
    assert quiet > 4_500, quiet


def test_asleep_on_cells_the_pwm_runs_only_while_the_buzzer_sounds(tmp_path):
    """The flag's sound plays on through the deep sleeps between its steps (sleepgate.py: the
    PWM's clock on while the buzzer sounds); silent, the PWM's clock is gated too."""
    c = booted(tmp_path)
    gate = c.module("sleepgate")
    choose_preset(c, BULLET_1_0)
    c.press("left")  # White's minute runs out
    seen = []
    for ms in (30_000, 60_400, 60_900, 64_000):
        at_ms(ms, lambda: seen.append((c.buzzer()[0], machine.mem32[SLEEP_EN0])))
    c.run_ms(65_000)
    assert c.app.ui.game.state == c.module("engine").FLAGGED
    quiet, *flag, after = seen
    assert quiet == (False, gate.SLEEP_EN0)
    for sounding, en0 in flag:
        assert sounding and en0 == gate.SLEEP_EN0 | gate.PWM_EN0, (sounding, hex(en0))
    assert after == (False, gate.SLEEP_EN0)
