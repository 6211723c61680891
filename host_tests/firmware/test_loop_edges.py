"""Edge cases of the event-driven loop on the simulated board: an edge that comes
in the middle of a wakeup, an exception inside a wakeup, a lever held for minutes, a press at
the flag's exact instant, a button held through a game start, a message that expires, the
brightness setting, the board's display frames on the fake rp2's PIO. Each run is checked with
harness/loop_check.py where the errors.log rule allows it (see test_loop_properties.py).
"""

import json

import engine as E
import machine
import pytest
from test_firmware_e2e import BATTERY_ADC, countdown, game, power_cycle, tap

from harness.loop_check import LoopRecorder
from simboard import tm1637_decode, vtime
from simboard.firmware import BUTTON, LEVER, SimulatedClock

FIDE = 0
BULLET_1_0 = 8


def boot(tmp_path, control=None, start_us=vtime.TICKS_PERIOD - 3_000_000, **options):
    if control is not None or options:
        from settings import defaults

        s = defaults()
        if control is not None:
            s["control"] = control
        s.update(options)
        (tmp_path / "settings.json").write_text(json.dumps(s))
    clock = SimulatedClock(tmp_path, start_us=start_us)
    machine.set_adc_volts(BATTERY_ADC, 4.2 / 3)
    clock.run_ms(300)
    return clock


def lever(clock, name, hold_ms=60):
    machine.press(LEVER[name])
    clock.run_ms(hold_ms)
    machine.release(LEVER[name])
    clock.run_ms(40)


def no_errors(tmp_path):
    log = tmp_path / "errors.log"
    assert not log.exists(), log.read_text()


# ------------------------------------------------------------ an edge inside a wakeup
def test_a_press_stamped_after_the_wakeups_clock_reading_still_moves_the_display(tmp_path):
    """A lever edge whose hard IRQ runs between the wakeup's clock reading and the drain
    (a few us on the chip) is stamped in the next ms: the engine starts the new clock 1 ms
    after the `now` the loop renders and schedules with. The next display change must still
    be found (here the tenths of the side that starts with 9 s), not left to the 4 s feed."""
    clock = boot(tmp_path, {"preset": BULLET_1_0})
    lever(clock, "left")  # right (White) runs 1:00
    clock.run_ms(51_000)
    lever(clock, "right")  # left runs 1:00, right keeps about 9 s
    clock.run_ms(1_200)
    mono = clock.app.mono
    update = mono.update
    armed = [True]

    def reading_then_an_edge(t_us):
        now = update(t_us)
        if armed[0]:  # the next wakeup's clock reading (its first step)
            armed[0] = False
            # The wakeup's own work before the drain passes the next ms boundary (on the
            # chip a wakeup that read the clock late in its ms needs only a few us).
            vtime.current.advance_us(1_010 - mono.rem_us)
            machine.press(LEVER["left"])  # the left player moves: its IRQ runs now
        return now

    mono.update = reading_then_an_edge
    rec = LoopRecorder(clock)
    clock.run_ms(1_000)  # the next wakeup (a digit or beat of the left's 0:59) takes it
    machine.release(LEVER["left"])
    assert not armed[0]
    g = game(clock)
    assert g.running == 1 and g.moves[0] == 1
    clock.run_ms(3_000)
    rec.check()  # every tenth of the right's countdown on time
    no_errors(tmp_path)


# ------------------------------------------------------------ an exception in a wakeup
def test_after_an_exception_in_a_wakeup_the_next_one_redraws(tmp_path):
    """A wakeup that fails half way (here the first frame after a lever press) is logged and
    the loop goes on: the next wakeup (10 ms later) must draw what the failed one did not
    (the new times), not wait for the next scheduled change, which in h:mm can be a minute
    away, and later presses are served as usual; the LEDs the lever's IRQ lit stand."""
    clock = boot(tmp_path)  # FIDE 90/40: h:mm on both sides
    lever(clock, "left")  # right runs
    clock.run_ms(5_000)
    display = clock.app.board.displays[1]
    show = display.show
    fail = [True]

    def flaky_show(segs, icons=0):
        if fail[0]:
            fail[0] = False
            raise RuntimeError("injected")
        return show(segs, icons)

    display.show = flaky_show
    machine.press(LEVER["right"])  # White moves: the left clock starts
    edge_ms = clock.mono_ms()
    clock.run_ms(20)
    assert not fail[0] and clock.app.errors == 1
    assert "injected" in (tmp_path / "errors.log").read_text()
    g = game(clock)
    assert g.running == 0 and g.moves[1] == 1
    assert clock.leds() == (1, 0), "the LEDs still show the side that moved"
    left = machine.Pin(8)
    lit = [t for _, t, level in left.trace if level == 1]
    assert lit and clock.mono_ms(lit[-1]) - edge_ms <= 1
    assert clock.display(1) == countdown(g.main[1])  # its time after the move, increment in
    machine.release(LEVER["right"])
    clock.run_ms(3_000)
    lever(clock, "left")  # the loop serves presses as before
    assert g.running == 1 and g.moves[0] == 1 and clock.leds() == (0, 1)


def test_after_a_failed_led_write_the_next_wakeup_writes_them(tmp_path):
    """A paused clock's blinking LEDs come from the render (no lever's IRQ lights them). A
    wakeup whose LED write fails is logged, and the next one (10 ms later) writes them."""
    clock = boot(tmp_path)
    lever(clock, "left")  # right (White) runs
    clock.run_ms(2_000)
    board = clock.app.board
    set_leds = board.set_leds
    fail = [True]
    written = []

    def flaky_set_leds(mask):
        if fail[0]:
            fail[0] = False
            raise RuntimeError("injected")
        written.append((clock.mono_ms(), mask))
        set_leds(mask)

    board.set_leds = flaky_set_leds
    tap(clock, "play")  # paused: the running side's LED blinks
    clock.run_ms(1_500)
    assert not fail[0] and clock.app.errors == 1
    assert "injected" in (tmp_path / "errors.log").read_text()
    g = game(clock)
    assert g.state == E.PAUSED
    masks = [m for _, m in written]
    assert masks[:3] in ([2, 0, 2], [0, 2, 0])  # the blink, from the wakeup after the error
    no_blink = [b - a for (a, _), (b, _) in zip(written, written[1:], strict=False)]
    assert all(400 <= d <= 600 for d in no_blink[1:]), written


def test_a_fault_in_every_wakeup_is_survived_and_the_display_comes_back(tmp_path):
    """A fault that makes every wakeup fail (a display's state machine that raises when
    handed a frame) is logged, the loop still feeds the watchdog and keeps the clock's time;
    when the fault goes, the display shows the right time again at once, not only at its
    next change (a frame that was not handed over leaves the chip's content unknown)."""
    clock = boot(tmp_path)
    lever(clock, "left")
    sm = clock.app.board.displays[1]._sm
    put = sm.put
    broken = [True]

    def failing_put(words):
        if broken[0]:
            raise RuntimeError("PIO fault")
        return put(words)

    sm.put = failing_put
    clock.run_ms(70_000)  # more than the 8 s watchdog; the right's minute digit changes
    assert clock.app.errors > 0
    broken[0] = False
    clock.run_ms(100)
    g = game(clock)
    now = clock.mono_ms()
    assert g.state == E.RUNNING
    assert clock.display(1) == countdown(g.remaining(1, now))


# ------------------------------------------------------------ levers
def test_a_press_s_leds_are_written_by_one_decider(tmp_path):
    """The game screen's rule decides the LEDs; the lever's IRQ lights a move's at once and
    the loop only records that, so no press's LEDs are written twice: a move's (the first
    press of a game's too) by the IRQ alone, an ignored press's by nobody, and a move the
    engine refuses (a flag that fell first) is put right by its render."""
    clock = boot(tmp_path, {"preset": BULLET_1_0})
    board = clock.app.board
    set_leds = board.set_leds
    written = []

    def counted_set_leds(mask):
        written.append(mask)
        set_leds(mask)

    board.set_leds = counted_set_leds
    lever(clock, "left")  # the first press, a move of either lever: the IRQ lights them
    assert clock.leds() == (0, 1) and written == [] and board.levers.lit[0] == 1
    lever(clock, "right")  # a move: the IRQ lights the left LED
    assert clock.leds() == (1, 0) and written == []
    lever(clock, "right")  # not the running side: the engine ignores it
    assert clock.leds() == (1, 0) and written == []
    g = game(clock)
    assert g.running == 0 and g.moves[1] == 1
    lever(clock, "left")  # right runs
    clock.run_ms(g.deadline() - clock.mono_ms() - 5)
    assert written == []
    levers = board.levers
    mono = clock.app.mono
    update = mono.update
    du = g.deadline_us()  # the flag's exact instant: its us within the ms before deadline()
    deadline_us = clock.at_us(g.deadline()) + (du - 1_000 if du else 0)

    def press_after_the_flag(t_us):  # the flag's wakeup: a press stamped after the flag fell
        now = update(t_us)
        if mono.update is press_after_the_flag and machine.now_us() >= deadline_us:
            mono.update = update
            machine.press(LEVER["right"])  # the IRQ lights the left LED, for a move
            machine.advance(levers.settle_us, irq_only=True)  # the press in its ring
        return now

    mono.update = press_after_the_flag
    lit = levers.lit[0]
    clock.run_ms(10)
    assert mono.update is update and levers.lit[0] == lit + 1  # the IRQ lit them
    machine.release(LEVER["right"])
    clock.run_ms(100)
    assert g.state == E.FLAGGED and g.first_flag == 1 and g.moves[1] == 1  # refused
    assert clock.leds() == (0, 1) and written == [2]  # the render: the flag's side
    no_errors(tmp_path)


@pytest.mark.parametrize("during", ["unlocking", "sleep"])
def test_a_press_after_the_renders_last_look_is_served_before_any_sleep(tmp_path, during):
    """A press whose IRQ runs after the render step's last look at the levers (while the
    heap lock is let go for the steps after the render, or in the sleep step's arithmetic)
    starts the wakeup over at once: the loop does not go round to its sleep first, so at
    its next sleep the move is in the engine and on both displays."""
    clock = boot(tmp_path, {"preset": BULLET_1_0})
    lever(clock, "left")  # right (White) runs
    clock.run_ms(2_000)
    app = clock.app
    levers = app.board.levers
    g = game(clock)
    owner, name = (app.heap, "unlock") if during == "unlocking" else (app.mono, "ticks_at")
    step = getattr(owner, name)
    pressed = []

    def step_with_a_press(*args):
        if not pressed:
            pressed.append(True)
            machine.press(LEVER["right"])  # White moves: its IRQ runs now
            machine.advance(levers.settle_us, irq_only=True)  # the press in its ring
        return step(*args)

    bell = app.board.bell
    wait_until = bell.wait_until
    at_sleep = []

    def recorded_wait_until(target_us):
        if pressed and not at_sleep:
            now = app.mono.ms
            shown = tuple(countdown(g.remaining(side, now)) for side in (0, 1))
            at_sleep.append((g.moves[1], clock.display(0), clock.display(1), shown))
        return wait_until(target_us)

    bell.wait_until = recorded_wait_until
    setattr(owner, name, step_with_a_press)
    clock.run_ms(600)  # a render wakeup or two
    setattr(owner, name, step)
    machine.release(LEVER["right"])
    clock.run_ms(50)
    assert pressed and g.moves[1] == 1 and g.running == 0
    moves, left, right, shown = at_sleep[0]
    assert moves == 1 and (left, right) == shown
    no_errors(tmp_path)


def test_a_lever_held_for_ten_minutes_then_released_rearms(tmp_path):
    """The press counts at its first edge; held for 10 minutes (longer than ticks_diff's
    2**29 us range, across a ticks_us wrap) while buttons are tapped, then released, the
    lever re-arms and its next press counts."""
    clock = boot(tmp_path)
    rec = LoopRecorder(clock)
    lever(clock, "left")  # right runs
    clock.run_ms(2_000)
    machine.press(LEVER["right"])  # right moves and keeps the lever down
    for _ in range(6):
        clock.run_ms(100_000)
        tap(clock, "minus")  # a button edge rings the bell: the levers are looked at
    machine.release(LEVER["right"])
    clock.run_ms(50)
    g = game(clock)
    assert g.moves[1] == 1 and g.running == 0
    lever(clock, "left")
    clock.run_ms(1_000)
    lever(clock, "right")
    assert g.moves[1] == 2 and g.moves[0] == 1
    rec.check()
    no_errors(tmp_path)


@pytest.mark.parametrize("early_us", [1, 0])
def test_a_press_at_the_flag_deadline(tmp_path, early_us):
    """A press stamped 1 us before the flag's exact instant is a move; one stamped at the
    instant is not: the flag falls at it (the remaining time is then 0)."""
    clock = boot(tmp_path, {"preset": BULLET_1_0})
    rec = LoopRecorder(clock)
    lever(clock, "left")  # right runs 1:00
    g = game(clock)
    deadline_ms, deadline_sub = g.deadline_exact()  # exact to the us
    deadline_us = clock.at_us(deadline_ms) + deadline_sub
    machine.after(deadline_us - early_us - clock.vt.us, lambda: machine.press(LEVER["right"]))
    clock.run_ms(60_000)
    machine.release(LEVER["right"])
    clock.run_ms(100)
    if early_us:
        assert g.moves[1] == 1 and g.state == E.RUNNING and g.running == 0
        assert (g.main[1], g.main_us[1]) == (0, 1)  # 1 us left, exactly
        assert g.log_entries()[0][3] == 0  # the record: the nearest ms
    else:
        assert g.moves[1] == 0 and g.state == E.FLAGGED and g.first_flag == 1
        assert (g.flag_at[1], g.flag_us[1]) == (deadline_ms, deadline_sub)
    rec.check()
    no_errors(tmp_path)


class Spin(BaseException):
    """The loop woke again and again at one instant (BaseException: no wakeup catches it)."""


@pytest.mark.parametrize("after_ms", [0, 1])
def test_a_flag_on_a_whole_ms_falls_and_the_loop_sleeps_until_it(tmp_path, after_ms):
    """A deadline on a whole ms of the loop's clock (du 0) and one a few us past it: the
    wakeup for the flag comes `settle_us` after the exact instant (the deadline step looks
    only that far back), so the flag falls at once and no wakeup repeats an instant."""
    clock = boot(tmp_path, {"preset": BULLET_1_0})
    app = clock.app
    # a press on a whole ms of the loop's clock, or 3 us past one (the assert checks it)
    ms = (clock.vt.us - clock.at_us(0)) // 1000 + 50  # 50 ms from now on the loop's clock
    at = clock.at_us(ms) + after_ms * 3
    machine.after(at - clock.vt.us, lambda: machine.press(LEVER["left"]))
    clock.run_ms(100)
    machine.release(LEVER["left"])
    g = game(clock)
    assert g.state == E.RUNNING
    assert g.deadline_exact()[1] == after_ms * 3
    wake = app.wake
    seen = [-1, 0]  # the virtual us of the last wakeup, how many wakeups at it

    def watched():
        us = clock.vt.us
        seen[1] = seen[1] + 1 if us == seen[0] else 0
        seen[0] = us
        if seen[1] > 50:
            raise Spin()
        return wake()

    app.wake = watched
    clock.run_ms(61_000)
    assert g.state == E.FLAGGED and g.first_flag == 1
    no_errors(tmp_path)


# ------------------------------------------------------------ buttons
def test_set_held_through_the_game_start_does_nothing_to_the_game(tmp_path):
    """SET goes down on the ready screen, Black starts the clock, SET stays down past its
    2 s long press: the running game ignores it (no settings menu, nothing written)."""
    clock = boot(tmp_path)
    rec = LoopRecorder(clock)
    machine.press(BUTTON["set"])
    clock.run_ms(500)
    lever(clock, "left")
    clock.run_ms(3_000)
    machine.release(BUTTON["set"])
    clock.run_ms(500)
    g = game(clock)
    assert g.state == E.RUNNING and clock.app.ui.screen == 0
    assert not (tmp_path / "settings.json").exists()
    rec.check()
    no_errors(tmp_path)


# ------------------------------------------------------------ screens and settings
def test_a_message_expires_on_time(tmp_path):
    """Unreadable settings: `SEt  dEF` for 2 s from power-up, then the ready screen within
    5 ms (the loop wakes for the message's end)."""
    (tmp_path / "settings.json").write_text("{not json")
    clock = SimulatedClock(tmp_path)
    machine.set_adc_volts(BATTERY_ADC, 4.2 / 3)
    clock.run_ms(300)
    rec = LoopRecorder(clock)
    assert clock.display(0)[0] == "5Et "
    clock.run_ms(2_000)
    assert clock.display(0)[0] == "1h30"
    ready = [t for t, lit in clock.chips[0].timeline if tm1637_decode.text(lit)[0] == "1h30"]
    assert ready and 0 <= ready[0] - clock.at_us(2_000) <= 5_000
    rec.check()


def test_brightness_takes_effect_at_once_and_after_a_power_cycle(tmp_path):
    clock = boot(tmp_path)
    assert clock.brightness(0) == clock.brightness(1) == 2  # the default
    tap(clock, "set", 2_300)  # the settings menu
    for _ in range(5):
        tap(clock, "set")
    assert clock.display(0)[0] == "brIt"
    rec = LoopRecorder(clock)
    machine.press(BUTTON["plus"])
    clock.run_ms(100)
    machine.release(BUTTON["plus"])
    clock.run_ms(50)  # released and settled: one step
    assert clock.brightness(0) == clock.brightness(1) == 3
    # Written within 5 ms of the key's wakeup (30 ms of debounce after the edge).
    for chip in clock.chips:
        changed = [i for i, h in enumerate(chip.history) if h[2] == 3]
        assert changed
    rec.check()
    tap(clock, "play")  # save and leave
    power_cycle(clock)
    assert clock.brightness(0) == clock.brightness(1) == 3
    no_errors(tmp_path)


# ------------------------------------------------------------ the fakes
def test_the_boards_frames_go_out_while_the_loop_sleeps(tmp_path):
    """board.py's displays on the fake rp2 (the PIO program run instruction by instruction):
    show() takes no time of the CPU's, both machines of a press's render send at once, and
    the address transaction ends 0.6 ms after the words were put (tm1637_pio.py)."""
    clock = boot(tmp_path)
    lever(clock, "left")  # right runs
    clock.run_ms(1_500)
    tms = clock.app.board.displays
    for tm in tms:
        tm.invalidate()
    before = clock.vt.us
    assert tms[0].show(bytes((0x3F, 0x06, 0x5B, 0x4F)))
    assert tms[1].show(bytes((0x3F, 0x06, 0x5B, 0x4F)))
    assert clock.vt.us == before
    machine.advance(1_000)
    for side in (0, 1):
        t, lit = clock.chips[side].timeline[-1]
        assert tm1637_decode.text(lit) == ("0123", False)
        assert 580 <= t - before <= 620
    assert tms[0].nacks == tms[1].nacks == 0


def test_a_frame_cut_short_by_any_exception_is_rewritten():
    """tm1637.py: an exception from the state machine while a frame is handed over must not
    leave the driver believing the chip holds the new bytes."""
    from tm1637 import TM1637

    class Machine:
        fail = False

        def rx_fifo(self):
            return 0

        def put(self, words):
            if self.fail:
                raise RuntimeError("cut")

    sm = Machine()
    tm = TM1637(sm)
    assert tm.show(bytes(4))
    sm.fail = True
    with pytest.raises(RuntimeError):
        tm.show(b"\x3f\x3f\x3f\x3f")
    sm.fail = False
    assert tm.show(b"\x3f\x3f\x3f\x3f"), "the same bytes again: the chip never got them"


def test_a_persistent_fault_writes_the_flash_rarely(tmp_path):
    clock = boot(tmp_path)
    lever(clock, "left")
    storage = clock.module("storage")  # the board's own: what its firmware calls

    writes = []
    append_log = storage.append_log

    def counting(*args, **kwargs):
        writes.append(clock.mono_ms())
        return append_log(*args, **kwargs)

    storage.append_log = counting
    try:
        board = clock.app.board

        def broken(_pct=None):
            raise RuntimeError("a buzzer that raises")

        board.buzzer.next_due = broken
        clock.run_ms(60_000)
    finally:
        storage.append_log = append_log
    assert clock.app.errors > 1_000  # every wakeup failed
    assert len(writes) <= 20, "%d writes of errors.log in a minute of play" % len(writes)


def test_a_flag_still_falls_after_25_days_of_power(tmp_path):
    clock = boot(tmp_path, {"preset": BULLET_1_0})
    # As if the board had been powered for 24.8 days: the app's clock reads 2**31 - 30 s.
    # (Simulating the 535 000 watchdog wakeups of those days would take minutes.)
    clock.app.mono.ms += 2**31 - 30_000
    clock.run_ms(100)
    lever(clock, "left")
    clock.run_ms(65_000)
    g = game(clock)
    assert clock.app.errors == 0
    assert g.state == E.FLAGGED and g.first_flag == 1


def test_a_lever_edge_during_a_display_frame_is_stamped_at_once(tmp_path):
    clock = boot(tmp_path, {"preset": BULLET_1_0})
    lever(clock, "left")  # right runs 1:00 in mm:ss: a frame at each half second
    g = game(clock)
    change_us = clock.at_us(g.turn_start + 1_000)  # 0:59 and the beat: a frame written
    # The wakeup comes at the instant (Python takes no time here, the sleep ends on it) and
    # the PIO puts the frame on the wire for 0.7 ms: the edge comes in the middle of it.
    edge_us = change_us + 300
    machine.after(edge_us - clock.vt.us, lambda: machine.press(LEVER["right"]))
    clock.run_ms(1_500)
    machine.release(LEVER["right"])
    clock.run_ms(50)
    shown = [t for t, _ in clock.chips[1].timeline if change_us <= t <= change_us + 5_000]
    assert shown and shown[0] > edge_us  # the frame was on the wires at the edge
    assert g.moves[1] == 1
    pin = machine.Pin(LEVER["right"])
    stamped_us = [t for _, t, level in pin.trace if level == 0][-1]
    assert stamped_us == edge_us, "stamped %d us late" % (stamped_us - edge_us)


def test_power_lost_while_a_clock_runs_offers_the_last_pause(tmp_path):
    """The power goes while the loop sleeps with a clock running: the game comes back as it
    was saved at its last pause, and the loop keeps its invariants after the resume."""
    clock = boot(tmp_path, {"preset": 7})  # blitz 5+0
    lever(clock, "left")
    clock.run_ms(4_000)
    tap(clock, "play")  # paused: saved
    g = game(clock)
    saved = (g.remaining(0, 0), g.remaining(1, 0))
    tap(clock, "play")  # runs again
    clock.run_ms(7_321)  # asleep between two changes
    power_cycle(clock)
    assert clock.display(0)[0] == "rE5 "
    tap(clock, "play")  # yes
    g = game(clock)
    assert g.state == E.PAUSED and (g.remaining(0, 0), g.remaining(1, 0)) == saved
    rec = LoopRecorder(clock)
    tap(clock, "play")
    clock.run_ms(3_000)
    lever(clock, "right")
    clock.run_ms(2_000)
    rec.check()
    no_errors(tmp_path)


# ------------------------------------------------------------ flash writes take time
FLASH_WRITE_US = 30_000  # game.json on littlefs: a 4 KB sector erase is ~45 ms typical


def slow_flash(clock, monkeypatch):
    """archive.save (game.json at a pause or a flag) takes FLASH_WRITE_US of virtual time,
    with the CPU busy and interrupts off (the rp2 port keeps them off while it erases and
    programs: IRQ handlers wait), as on the chip, while the PIO runs on (a frame handed to
    it goes out); the host's file writes take no time otherwise."""
    archive = clock.module("archive")  # the board's own: what its firmware calls
    save = archive.save

    def slow_save(*args, **kwargs):
        ok = save(*args, **kwargs)
        state = machine.disable_irq()
        machine.advance(FLASH_WRITE_US, irq_only=True)
        machine.enable_irq(state)
        return ok

    monkeypatch.setattr(archive, "save", slow_save)


def test_the_flag_is_shown_before_it_is_saved(tmp_path, monkeypatch):
    """At a flag (freeze on) the game is saved at once so a power cut keeps it; the save is
    a flash write of tens of ms on the chip. The flag must still be on the display and the
    LED within 5 ms of the deadline, so the save comes after the render."""
    clock = boot(tmp_path, {"preset": BULLET_1_0})
    slow_flash(clock, monkeypatch)
    lever(clock, "left")  # right runs 1:00
    g = game(clock)
    du = g.deadline_us()  # the flag's exact instant: its us within the ms before deadline()
    deadline_us = clock.at_us(g.deadline()) + (du - 1_000 if du else 0)
    clock.run_ms(61_000)
    assert g.state == E.FLAGGED and (tmp_path / "game.json").exists()
    shown = [(t, tm1637_decode.text(lit)[0]) for t, lit in clock.chips[1].timeline]
    zero = [t for t, text in shown if t >= deadline_us and text in (" 00 ", "FLAG")]
    assert zero and zero[0] - deadline_us <= 5_000, "flag shown %d us late" % (
        zero[0] - deadline_us
    )
    no_errors(tmp_path)


def test_the_clock_rebases_on_the_result_screen_and_the_next_game_runs(tmp_path):
    clock = boot(tmp_path, {"preset": BULLET_1_0})
    lever(clock, "left")
    clock.run_ms(61_000)  # the right flag falls
    g = game(clock)
    assert g.state == E.FLAGGED
    clock.app.mono.ms += 2**30  # as if the result of a long day had sat there for 12 days
    clock.press("set")  # material entry ...
    clock.press("play")  # ... "PrQ": the opponent can mate: a loss on time
    clock.press("play")  # confirm the result
    clock.run_ms(200)
    assert g.state == E.FINISHED
    clock.run_ms(1_000)
    assert clock.app.mono.ms < 10_000  # re-based while the result shows
    clock.press("set")  # a new game
    lever(clock, "left")
    clock.run_ms(61_000)
    assert g.state == E.FLAGGED and clock.app.errors == 0
