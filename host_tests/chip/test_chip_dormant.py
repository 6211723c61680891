"""An idle clock goes dormant on the emulated chip, real MicroPython rp2 with the clock tree
modelled (clocks "model", tools/chip/clocks.mjs: the crystal's dormant stops clk_sys, the
PIO and the µs timer until a dormant-wake edge on a GPIO, then restarts after its start-up
time). On cells (GP24 low), untouched for app.IDLE_MS at the ready screen, the displays go
off and the chip dormant, and the power-state ledger says so; a button wakes it to the
ready screen (the button acting on nothing), and the next lever press starts the game with
its stamp exact to the µs timer (the lever machines put in step again: levers.restart).
A cable plugged in (GP24 rising) wakes it too, and on USB power the same wait leaves it
awake. The LED build's display modules are unpowered through the dormant spell (their
supply switch on GP14, tm1637.mjs models it).

Runs when MICROPYTHON_UF2 names a MicroPython rp2 .uf2 (chip_env.require).
"""

import chip
import chip_env
from chip_env import clean

pico = chip_env.chip_fixture()
MS = chip.MS
IDLE_MS = 600_000  # app.IDLE_MS
READY = ("1h30", False)  # the default preset, either side
VBUS_GPIO = 24  # the Pico's VBUS sense (board.py)
POWER_ON_MS = 10  # board._POWER_ON_MS: a module's start-up before its first frame


def dormant_ns(ledger_rows):
    return sum(r["ns"] for r in ledger_rows if r["state"] == "dormant")


def test_idle_on_cells_it_goes_dormant_and_wakes_to_the_ready_screen(pico):
    with pico.session(clocks="model", vbus=False) as s:
        s.run_to(chip.BOOT_MS)
        boot = s.ledger()
        dark_at = chip.BOOT_MS + IDLE_MS + 40_000  # the idle count, and a wakeup after it
        s.run_to(dark_at)
        dark = s.ledger()
        s.run_to(dark_at + 60_000)  # a minute in the box
        asleep = s.ledger()
        s.tap("plus")  # wakes it: no info page
        s.run_ms(1_000)
        woken_at = s.t
        woke = s.ledger()  # the timer's count against the board's time, from the wake on
        s.press("left")  # White's clock starts
        s.run_ms(2_000)
        tr = s.trace()
        clean(tr)
        assert chip.read_file(s.save_flash(), "errors.log") in (None, b"")
    # Dark: both displays off, the chip dormant for the whole minute and more; the modules'
    # supply (on from the reset: the pad's pull-down holds the switch's gate low) switched
    # off (tm1637.mjs: no line fed them meanwhile, or clean() fails) and on again at the
    # wake, the first frame after the chips' start-up time
    for side in (0, 1):
        assert tr.shown_at(side, dark_at * MS) == (None, False), side
        power = tr.tm_power[side]
        assert [on for _t, on in power] == [False, True], power
        off_at, on_at = power[0][0], power[1][0]
        assert (dark_at - IDLE_MS) * MS < off_at < dark_at * MS < (dark_at + 60_000) * MS < on_at
        first = min(start for start, _stop, _data in tr.frames[side] if start > on_at)
        assert first - on_at >= POWER_ON_MS * MS, (side, first - on_at)
    assert dormant_ns(chip.ledger_between(dark, asleep)) == 60_000 * MS
    assert dormant_ns(chip.ledger_between(boot, dark)) > 20_000 * MS
    # The timer stood still meanwhile: it is behind the board's time by the dormant spell
    assert asleep["now_ns"] // 1_000 - asleep["timer_us"] > 60_000_000
    # PLUS woke it to the ready screen and opened nothing
    assert tr.shown_at(0, woken_at * MS) == READY and tr.shown_at(1, woken_at * MS) == READY
    # The next press started the game, its stamp the µs timer's count at its edge (or one
    # more: lever_pio.py), the timer read off the ledger after the wake (it runs at 1 µs a
    # µs from then on); chip.pio_stamps agrees, from the restart's origin
    assert tr.led_at(chip.LED_PINS[1], s.t * MS) == 1
    edge, _gpio, instant, value = tr.stamps[-1]
    assert edge >= woken_at * MS
    timer_at_edge = woke["timer_us"] + (edge - woke["now_ns"]) // 1_000
    assert (value - timer_at_edge) & chip.TICKS_MASK in (0, 1), (value, timer_at_edge)
    assert -1_000 < instant - edge <= 1_000


def test_a_cable_plugged_in_wakes_it_and_on_usb_power_it_stays_awake(pico):
    with pico.session(clocks="model") as s:
        s.pin(VBUS_GPIO, True)  # on cells from the power-up: VBUS held low
        s.run_to(chip.BOOT_MS)
        dark_at = chip.BOOT_MS + IDLE_MS + 40_000
        s.run_to(dark_at)
        dark = s.ledger()
        s.run_ms(10_000)
        plugged = s.t
        s.pin(VBUS_GPIO, False)  # the cable: VBUS rises
        s.run_ms(1_000)
        back = s.ledger()
        s.run_to(plugged + IDLE_MS + 60_000)  # on USB power the idle count ends awake
        end = s.ledger()
        tr = s.trace()
        clean(tr)
    assert tr.shown_at(0, dark_at * MS) == (None, False)
    asleep = dormant_ns(chip.ledger_between(dark, back))
    assert 10_000 * MS <= asleep < 10_010 * MS  # dark until the cable came, not after
    assert tr.shown_at(0, (plugged + 1_000) * MS) == READY
    assert dormant_ns(chip.ledger_between(back, end)) == 0
    assert tr.shown_at(0, s.t * MS) == READY
