"""What an arbiter's key changes is on the displays before any flash write it causes: the
saves step comes after the render (App.wake). Checked on the simulated board (main.py, real
pins, virtual time) by looking, at the instant each file write begins, at the frame each
display driver has handed to its PIO machine (tm1637.py: the whole frame fits the TX FIFO,
so it goes out on the wire while the core writes the flash): it is the frame the display
shows once the key's effect has settled."""

import machine
from test_firmware_e2e import choose_preset, tap

from simboard.firmware import SimulatedClock


def start(tmp_path):
    clock = SimulatedClock(tmp_path)
    machine.set_adc_volts(3, 4.2 / 3)  # fresh batteries: no "bAt Lo"
    clock.run_ms(500)
    choose_preset(clock, 7)  # Blitz 5+0: m:ss, the running side's colon beats
    clock.run_ms(500)
    return clock


def handed(clock):
    """The segment bytes each display's driver has put in its PIO machine's FIFO."""
    return [bytes(d._shown) for d in clock.app.board.displays]


def shown(clock):
    return [bytes(clock.segments(side)) for side in (0, 1)]


def watch_writes(clock):
    """handed() at the start of every file write the shell makes."""
    seen = []
    files = clock.app.files
    write, save = files.write, files.save_game

    def writing(req, now):
        seen.append(handed(clock))
        return write(req, now)

    def saving(now):
        seen.append(handed(clock))
        return save(now)

    files.write = writing
    files.save_game = saving
    return seen


def test_a_pause_is_on_the_displays_before_its_save(tmp_path):
    clock = start(tmp_path)
    clock.press("left")
    clock.run_ms(1_300)
    clock.press("right")
    clock.run_ms(450)  # the running left's colon is off in this part of its second
    running = shown(clock)
    seen = watch_writes(clock)
    tap(clock, "play")
    assert clock.app.ui.game.state == 2  # paused
    paused = shown(clock)
    assert paused != running  # the paused left's colon is lit
    assert seen and seen[0] == paused


def test_a_result_is_on_the_displays_before_its_record(tmp_path):
    clock = start(tmp_path)
    clock.press("left")
    clock.run_ms(1_300)
    clock.press("right")
    tap(clock, "play")  # paused
    tap(clock, "set", 2_300)  # the arbiter menu
    while clock.display(0)[0] != "dEAd":
        tap(clock, "set")
    seen = watch_writes(clock)
    tap(clock, "play")  # dead position: a draw, recorded
    assert clock.app.ui.game.state == 4  # finished
    assert seen and seen[0] == shown(clock)  # the result screen, not the menu's `dEAd`
