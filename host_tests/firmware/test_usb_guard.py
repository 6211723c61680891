"""A game is immune to the USB port. The real firmware on the simulated board,
with a host on its USB serial port (simboard/usb_cdc.py: MicroPython 1.27's CDC receive and
send paths; the fake micropython raises a Ctrl-C's KeyboardInterrupt at the next line of
firmware unless kbd_intr(-1) is in force, as the VM does).

In every game phase (running, paused, flagged) a host's Ctrl-C, other bytes, mpremote's
raw-REPL sequence and a flood change nothing: the loop runs on, the displays keep exact
time, a lever still hands over, and each burst gets one status line. At the ready screen
and after a result a Ctrl-C hands the board over between two wakeups (the REPL gets the
bytes after it); other bytes only get the status line. Also: a port opened and closed over
and over, a host that has the port open but does not read, no host at all (batteries, a
power bank), the cable plugged and pulled, a KeyboardInterrupt that gets in anyway.
"""

import re
import time
import traceback

import machine
import micropython
import pytest
import usbguard
from test_firmware_e2e import (
    BATTERY_ADC,
    BULLET_1_0,
    countdown,
    game,
    power_cycle,
    shown_over,
    tap,
    texts,
)
from test_firmware_e2e import choose_preset as choose

from simboard import usb_cdc
from simboard.firmware import SimulatedClock

CTRL_C = b"\x03"
MPREMOTE = (b"\r\x03", b"\r\x01")  # mpremote's enter_raw_repl: two writes, no pause
LINE = {
    "ready": usbguard.LINES[usbguard.READY],
    "running": usbguard.LINES[usbguard.RUNNING],
    "paused": usbguard.LINES[usbguard.PAUSED],
    "flagged": usbguard.LINES[usbguard.FLAGGED],
    "finished": usbguard.LINES[usbguard.FINISHED],
}
GAME_PHASES = ("running", "paused", "flagged")
HANDED_OVER = ("U5b ", "5toP")  # `USb  StoP` as the TM1637 decoder reads it (S and 5 alike)


@pytest.fixture(autouse=True)
def no_interrupt_left_behind():
    """A KeyboardInterrupt left pending by a failing test must not reach pytest."""
    yield
    micropython.host_reset()


def boot(tmp_path):
    clock = SimulatedClock(tmp_path)
    machine.set_adc_volts(BATTERY_ADC, 4.2 / 3)
    clock.run_ms(500)
    choose(clock, BULLET_1_0)
    return clock


def to_phase(clock, phase):
    """Bullet 1+0 from the ready screen to `phase`. Running: right (White) runs, 1 move
    each made. Flagged: right's flag fell (freeze on). Finished: that flag, result recorded."""
    if phase == "ready":
        return
    clock.press("left")  # White's clock starts
    clock.run_ms(1_860)
    clock.press("right")
    clock.run_ms(2_860)
    clock.press("left")  # right runs again with 58 s
    if phase == "paused":
        tap(clock, "play")
    elif phase in ("flagged", "finished"):
        clock.run_ms(58_500)
        assert game(clock).state == usbguard.FLAGGED
        if phase == "finished":
            tap(clock, "set")  # material entry
            tap(clock, "play")  # a pawn, rook or queen: the flag loses
            tap(clock, "play")  # confirm: recorded
    assert game(clock).state == getattr(usbguard, phase.upper())


def connect(clock):
    clock.usb.plug()
    clock.usb.open()


def send_later(clock, data, delay_us=1):
    """The host writes `data` that many us from now (while the loop sleeps)."""
    machine.after(delay_us, lambda: clock.usb.send(data), irq=False)


def status(clock):
    """The status lines the host received, without the live feed's lines (feed.py; the
    feed has its own tests in test_feed.py)."""
    return b"".join(re.findall(rb"chess-clock: [^\r\n]*\r\n", bytes(clock.usb.received)))


def lines(clock):
    return status(clock).count(b"\n")


def running_side_follows_the_time(clock):
    """The running side's display shows what its remaining time says, now and 1.3 s later
    (the loop is alive and the time exact), and the other side's is frozen."""
    g = game(clock)
    side = g.running
    for _ in range(2):
        left = g.remaining(side, clock.mono_ms())
        assert clock.display(side)[0] == countdown(left)[0], (clock.display(side), left)
        clock.run_ms(1_300)


def a_lever_hands_over(clock):
    g = game(clock)
    side = g.running
    clock.press(("left", "right")[side])
    assert g.running == 1 - side
    assert clock.leds() == ((1, 0) if side == 1 else (0, 1))


# ---------------------------------------------------------------- during a game
@pytest.mark.parametrize("phase", GAME_PHASES)
@pytest.mark.parametrize("what", ["ctrl-c", "bytes", "mpremote", "thonny"])
def test_nothing_from_the_host_touches_a_game(tmp_path, phase, what):
    clock = boot(tmp_path)
    to_phase(clock, phase)
    connect(clock)
    g = game(clock)
    before = (g.state, texts(clock), g.moves[:], clock.leds())
    frozen = g.remaining(0, clock.mono_ms()), g.remaining(1, clock.mono_ms())
    if what == "ctrl-c":
        send_later(clock, CTRL_C)
    elif what == "bytes":
        send_later(clock, b"print('hi')\r\x04\x01\x02\x05")
    elif what == "mpremote":
        send_later(clock, MPREMOTE[0])
        send_later(clock, MPREMOTE[1], 2)
    else:  # Thonny's interrupt: Ctrl-C, then Ctrl-C again after a moment
        send_later(clock, CTRL_C)
        send_later(clock, CTRL_C, 200_000)
    clock.run_ms(1_000)
    assert not clock.at_repl and not clock.app.handed_over
    assert clock.app.interrupts == 0
    assert micropython.kbd_intr_calls == [-1]  # off at the loop's start, never back on
    assert micropython.interrupt_char() == -1
    assert status(clock) == LINE[phase] * lines(clock) and lines(clock) >= 1
    assert g.state == before[0] and g.moves == before[2]
    if phase == "running":
        running_side_follows_the_time(clock)
        a_lever_hands_over(clock)
        running_side_follows_the_time(clock)
    else:
        assert (g.remaining(0, clock.mono_ms()), g.remaining(1, clock.mono_ms())) == frozen
        assert clock.leds() == before[3]
        if phase == "paused":
            assert texts(clock) == before[1]
            tap(clock, "play")  # the game goes on where it was
            assert g.state == usbguard.RUNNING
            a_lever_hands_over(clock)
        else:
            assert shown_over(clock, 1_000, 1) == {"FLAG", " 00 "}  # still blinking
    assert not (tmp_path / "errors.log").exists()


def test_each_burst_gets_one_line_at_most_one_per_reply_interval(tmp_path):
    clock = boot(tmp_path)
    to_phase(clock, "running")
    connect(clock)
    send_later(clock, b"a")
    clock.run_ms(10)
    assert status(clock) == LINE["running"]  # answered at once
    send_later(clock, b"b")
    clock.run_ms(100)
    assert lines(clock) == 1  # inside REPLY_MS: owed, not yet written
    clock.run_ms(usbguard.REPLY_MS)
    assert lines(clock) == 2  # ... and written when the interval ended
    clock.run_ms(2_000)
    assert lines(clock) == 2  # silence gets no line


def test_a_flood_during_a_game_is_read_in_small_slices(tmp_path):
    """A host that sends without pause: 64 bytes per 100 ms are read and dropped, the rest
    waits in the ring buffer, the FIFO and then the host (USB flow control). The loop
    sleeps in between: its wakeups stay few, the clock keeps exact time."""
    clock = boot(tmp_path)
    to_phase(clock, "running")
    connect(clock)
    flood = bytes(range(256)) * 40  # 10 KB, Ctrl-C among them
    taken = clock.usb.send(flood)
    assert taken == usb_cdc.RING + usb_cdc.RX_FIFO  # the rest waits on the host (NAK)
    guard = clock.app.board.usb
    wakeups = clock.app.wakeups
    clock.run_ms(3_000)
    slices = 3_000 // usbguard.MUTE_MS + 1
    assert guard.bytes_in <= usbguard.DRAIN_MAX * slices
    assert guard.bytes_in >= usbguard.DRAIN_MAX * (slices - 2)
    assert clock.app.wakeups - wakeups <= 2 * slices + 20  # not a busy loop
    assert lines(clock) <= 3_000 // usbguard.REPLY_MS + 1
    running_side_follows_the_time(clock)
    a_lever_hands_over(clock)
    assert not clock.app.handed_over and clock.app.interrupts == 0


def test_a_port_opened_and_closed_over_and_over(tmp_path):
    clock = boot(tmp_path)
    to_phase(clock, "running")
    clock.usb.plug()
    for i in range(200):  # every 10 ms: open, a byte, close (a serial monitor's scan)
        machine.after(i * 10_000 + 1, clock.usb.open, irq=False)
        machine.after(i * 10_000 + 2, lambda: clock.usb.send(CTRL_C), irq=False)
        machine.after(i * 10_000 + 5_000, clock.usb.close, irq=False)
    clock.run_ms(2_100)
    assert clock.usb.tx_wait_us == 0
    running_side_follows_the_time(clock)
    a_lever_hands_over(clock)
    assert not clock.app.handed_over


def test_a_host_that_opens_the_port_and_never_reads(tmp_path):
    """With DTR set and nobody reading, a plain write would wait up to 500 ms for FIFO
    room (the fake models it, see test_usb_cdc_fake_*); the status lines go out a block per
    POLLOUT (usbguard.BLOCK: the FIFO holds whole blocks), so once the FIFO is full they
    are cut, and the loop never waits."""
    clock = boot(tmp_path)
    to_phase(clock, "running")
    connect(clock)
    clock.usb.reading = False
    for i in range(20):
        send_later(clock, b"?", i * 100_000 + 1)
    clock.run_ms(2_100)
    guard = clock.app.board.usb
    assert len(clock.usb.tx) == usb_cdc.TX_FIFO  # full
    assert guard.lines_cut >= 1
    assert clock.usb.tx_wait_us == 0
    running_side_follows_the_time(clock)
    a_lever_hands_over(clock)


@pytest.mark.parametrize("supply", ["batteries", "power bank", "cable plugged and pulled"])
def test_no_host_or_a_cable_that_comes_and_goes(tmp_path, supply):
    """A charger or power bank enumerates nothing: the port is never mounted, nothing
    arrives, a status line (none here) would go into the overwritable FIFO. Plugging and
    pulling a host's cable during a game changes nothing either (the power is diode-ORed:
    hardware/README.md)."""
    clock = boot(tmp_path)
    to_phase(clock, "running")
    if supply == "cable plugged and pulled":
        for i in range(10):
            machine.after(i * 200_000 + 1, clock.usb.plug, irq=False)
            machine.after(i * 200_000 + 50_000, clock.usb.open, irq=False)
            machine.after(i * 200_000 + 60_000, lambda: clock.usb.send(CTRL_C), irq=False)
            machine.after(i * 200_000 + 100_000, clock.usb.unplug, irq=False)
    clock.run_ms(2_100)
    assert clock.usb.tx_wait_us == 0
    running_side_follows_the_time(clock)
    a_lever_hands_over(clock)
    assert not clock.app.handed_over and clock.app.interrupts == 0


def test_ctrl_c_with_the_first_lever_press_starts_the_game(tmp_path):
    """The press and the Ctrl-C in the same instant (the instant the press's stamp reaches
    the ring, in its machine's IRQ): the game starts (the wakeup drains the lever first,
    then reads the port with the game running); Ctrl-C is ignored."""
    clock = boot(tmp_path)
    connect(clock)
    levers = clock.app.board.levers
    take = levers._take

    def take_and_ctrl_c(side, sm):
        take(side, sm)
        clock.usb.send(CTRL_C)

    levers._take = take_and_ctrl_c
    machine.after(1_000, lambda: machine.press(6), irq=False)
    clock.run_ms(80)
    machine.release(6)
    clock.run_ms(500)
    assert game(clock).state == usbguard.RUNNING
    assert not clock.app.handed_over
    assert status(clock) == LINE["running"]


def test_bytes_left_from_a_game_never_hand_the_board_over_later(tmp_path):
    """A flood that ends with Ctrl-C, sent just before the result is confirmed: what is
    still buffered on the chip when the game ends is dropped unread."""
    clock = boot(tmp_path)
    to_phase(clock, "flagged")
    connect(clock)
    tap(clock, "set")
    tap(clock, "play")  # the result is shown, not yet confirmed: still a game
    clock.usb.send(b"x" * 599 + CTRL_C)  # all of it on the chip (ring buffer + FIFO)
    tap(clock, "play")  # confirmed: the game is over
    clock.run_ms(2_000)
    assert game(clock).state == usbguard.FINISHED
    assert not clock.app.handed_over
    assert not clock.usb.ring and not clock.usb.fifo
    assert (tmp_path / "games" / "g000.json").exists()


# ---------------------------------------------------------------- ready, after the result
@pytest.mark.parametrize("phase", ["ready", "finished"])
def test_ctrl_c_at_ready_or_after_the_result_hands_the_board_over(tmp_path, phase):
    clock = boot(tmp_path)
    to_phase(clock, phase)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    connect(clock)
    send_later(clock, MPREMOTE[0])
    send_later(clock, MPREMOTE[1], 2)
    clock.run_ms(50)
    assert clock.at_repl and clock.app.handed_over and clock.exit_exception is None
    assert micropython.kbd_intr_calls == [-1, 3]  # given back for the REPL
    assert texts(clock) == HANDED_OVER and clock.leds() == (0, 0)
    assert not clock.buzzer()[0]
    assert bytes(clock.usb.ring) == MPREMOTE[1]  # after the Ctrl-C: left for the REPL
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing written
    clock.run_ms(7_000)  # the REPL: nobody feeds the watchdog (the tools stop it)
    with pytest.raises(machine.WatchdogReset):
        clock.run_ms(2_000)


@pytest.mark.parametrize("phase", ["ready", "finished"])
def test_other_bytes_at_ready_only_get_the_status_line(tmp_path, phase):
    clock = boot(tmp_path)
    to_phase(clock, phase)
    connect(clock)
    send_later(clock, b"\r")
    clock.run_ms(100)
    assert status(clock) == LINE[phase]
    assert not clock.app.handed_over
    if phase == "finished":
        tap(clock, "set")  # a new game
    clock.press("left")  # ... and it starts
    assert game(clock).state == usbguard.RUNNING


def test_ctrl_c_while_the_clock_boots_reaches_the_resume_offer(tmp_path):
    """A host that sends Ctrl-C while the clock powers up gets the board at the resume
    offer (not a game in progress: the paused game is on the flash); after a power cycle
    the game is offered again with its times."""
    clock = boot(tmp_path)
    to_phase(clock, "paused")
    times = game(clock).remaining(0, 0), game(clock).remaining(1, 0)
    clock.power_cycle()
    machine.set_adc_volts(BATTERY_ADC, 4.2 / 3)
    clock.usb.plug()
    clock.usb.open()
    machine.after(1, lambda: clock.usb.send(CTRL_C), irq=False)
    clock.run_ms(500)
    assert clock.at_repl
    power_cycle(clock)
    assert texts(clock) == ("rE5 ", " yE5")  # the decoder reads S as 5, Y as y
    tap(clock, "play")
    g = game(clock)
    assert g.state == usbguard.PAUSED
    assert (g.remaining(0, 0), g.remaining(1, 0)) == times


# ---------------------------------------------------------------- Ctrl-C with kbd_intr(3)
def force_ctrl_c_on(clock, delay_us):
    """As if something had given Ctrl-C back during the run (nothing in the firmware does):
    the next Ctrl-C raises KeyboardInterrupt in the firmware, as the report saw it."""
    machine.after(delay_us, lambda: micropython.kbd_intr(3), irq=False)


@pytest.mark.parametrize("phase", GAME_PHASES)
def test_a_keyboard_interrupt_that_gets_in_during_a_game_is_ignored(tmp_path, phase):
    clock = boot(tmp_path)
    to_phase(clock, phase)
    connect(clock)
    force_ctrl_c_on(clock, 1)
    send_later(clock, CTRL_C, 2)
    clock.run_ms(500)
    assert micropython.interrupt_char() == 3
    assert clock.app.interrupts == 1 and not clock.at_repl
    assert game(clock).state == getattr(usbguard, phase.upper())
    if phase == "running":
        running_side_follows_the_time(clock)
        a_lever_hands_over(clock)
    elif phase == "paused":
        tap(clock, "play")
        a_lever_hands_over(clock)


def test_the_reports_traceback_came_from_the_doorbells_ioctl(tmp_path):
    """With Ctrl-C on, a Ctrl-C while the loop sleeps is raised in the first Python the
    poll runs: the doorbell's ioctl, where the report's traceback pointed. At ready it ends
    main.py (the REPL starts), after the hand-over screen."""
    clock = boot(tmp_path)
    connect(clock)
    force_ctrl_c_on(clock, 1)
    send_later(clock, CTRL_C, 2)
    clock.run_ms(100)
    assert clock.at_repl and isinstance(clock.exit_exception, KeyboardInterrupt)
    frames = traceback.extract_tb(clock.exit_exception.__traceback__)
    last = [f for f in frames if "/simboard/" not in f.filename][-1]  # the fake VM's check
    assert (last.filename.endswith("doorbell.py"), last.name) == (True, "ioctl")
    assert texts(clock) == HANDED_OVER


# ---------------------------------------------------------------- blocks (usbguard.BLOCK)
SCRATCH0 = 0x4005800C  # board.UsbMark's word


def test_from_power_up_lines_go_a_block_per_poll_and_the_fifo_stays_whole_blocks(tmp_path):
    clock = boot(tmp_path)
    guard = clock.app.board.usb
    assert guard._blocks and machine.mem32[SCRATCH0] == 0  # nothing but the loop wrote
    connect(clock)
    to_phase(clock, "running")
    clock.usb.reading = False
    full = 0
    for _ in range(12):  # a host that takes a packet now and then, the FIFO never empty
        send_later(clock, b"?")
        clock.run_ms(400)
        clock.press(("left", "right")[game(clock).running])
        assert len(clock.usb.tx) % usbguard.BLOCK == 0
        full += len(clock.usb.tx) == usb_cdc.TX_FIFO
        clock.usb.take(1)
    assert guard._blocks and clock.usb.tx_wait_us == 0
    assert full and guard.feed.dropped  # it filled up meanwhile: lines were cut, none waited
    running_side_follows_the_time(clock)


def test_after_a_soft_reboot_a_byte_per_poll_until_the_fifo_is_seen_full(tmp_path):
    """A soft reboot keeps the mark of the run before (its hand-over) and the bytes its
    REPL wrote that nobody read: their count is no whole number of blocks, and a block
    written into the last few bytes of room would wait for a host that does not read."""
    clock = SimulatedClock(tmp_path)
    machine.set_adc_volts(BATTERY_ADC, 4.2 / 3)
    machine.mem32[SCRATCH0] = int(time.time()) - 60  # the run before handed over
    connect(clock)
    clock.usb.reading = False
    assert clock.usb.sys.stdout.buffer.write(b"MPY: soft reboot\r\n" * 6) == 108
    clock.run_ms(500)
    guard = clock.app.board.usb
    assert not guard._blocks and machine.mem32[SCRATCH0] == 0  # the loop runs: cleared
    choose(clock, BULLET_1_0)
    to_phase(clock, "running")
    for _ in range(8):
        clock.run_ms(900)
        clock.press(("left", "right")[game(clock).running])
    assert len(clock.usb.tx) == usb_cdc.TX_FIFO and guard._blocks  # seen full: blocks now
    assert clock.usb.tx_wait_us == 0
    running_side_follows_the_time(clock)
    clock.usb.reading = True  # the host reads at last: blocks from here, whole
    clock.run_ms(6_000)
    assert clock.usb.tx_wait_us == 0 and len(clock.usb.tx) % usbguard.BLOCK == 0


def test_blocks_into_a_fifo_of_no_whole_blocks_would_wait(tmp_path):
    """Why the mark and the byte path: the same start with blocks from the first line."""
    clock = SimulatedClock(tmp_path)
    machine.set_adc_volts(BATTERY_ADC, 4.2 / 3)
    connect(clock)
    clock.usb.reading = False
    clock.usb.sys.stdout.buffer.write(b"MPY: soft reboot\r\n" * 6)
    clock.run_ms(500)
    clock.app.board.usb._blocks = True  # what a guard without the mark would assume
    choose(clock, BULLET_1_0)
    to_phase(clock, "running")
    for _ in range(8):
        clock.run_ms(900)
        clock.press(("left", "right")[game(clock).running])
    assert clock.usb.tx_wait_us == usb_cdc.TX_TIMEOUT_US  # one write waited 500 ms


def test_the_mark_is_set_while_anything_else_may_write(tmp_path):
    clock = boot(tmp_path)
    assert machine.mem32[SCRATCH0] == 0  # the loop runs
    connect(clock)
    send_later(clock, CTRL_C)
    clock.run_ms(50)
    assert clock.at_repl and machine.mem32[SCRATCH0] != 0  # the REPL's turn
    assert not clock.app.board.usb._blocks


# ---------------------------------------------------------------- the fake, against MicroPython
def test_usb_cdc_fake_ctrl_c_empties_the_ring_buffer_unless_kbd_intr_is_off(vt):
    machine.host_reset()
    port = usb_cdc.CdcPort()
    port.plug()
    port.open()
    micropython.kbd_intr(-1)
    port.send(b"ab\x03c")
    assert bytes(port.ring) == b"ab\x03c" and not micropython.pending()
    micropython.kbd_intr(3)
    port.send(b"de\x03f")
    assert bytes(port.ring) == b"f" and micropython.pending()
    micropython.handle_pending()  # the host looking between runs: nothing is raised
    with pytest.raises(KeyboardInterrupt), micropython.chip():
        micropython.handle_pending()
    assert not micropython.pending()


def test_usb_cdc_fake_flow_control_and_blocking_write(vt):
    machine.host_reset()
    port = usb_cdc.CdcPort()
    port.plug()
    port.open()
    assert port.send(b"x" * 1000) == usb_cdc.RING + usb_cdc.RX_FIFO
    out = port.sys.stdout.buffer
    port.reading = False
    start = machine.now_us()
    # the FIFO and the packet it hands the endpoint, then it waits 500 ms, returns short
    assert out.write(b"y" * 400) == usb_cdc.TX_FIFO + usb_cdc.PACKET
    assert machine.now_us() - start == usb_cdc.TX_TIMEOUT_US == port.tx_wait_us
    port.close()  # no DTR: the FIFO keeps the newest bytes, nothing waits
    start = machine.now_us()
    assert out.write(b"z" * 10) == 10 and machine.now_us() == start
    assert bytes(port.tx)[-10:] == b"z" * 10 and len(port.tx) == usb_cdc.TX_FIFO
    port.reading = True
    port.open()  # the next program that opens the port gets what the FIFO kept
    assert port.received.endswith(b"z" * 10) and not port.tx


def test_the_guards_phases_are_the_engines_states():
    import engine as E

    assert (usbguard.READY, usbguard.RUNNING, usbguard.PAUSED) == (E.READY, E.RUNNING, E.PAUSED)
    assert (usbguard.FLAGGED, usbguard.FINISHED) == (E.FLAGGED, E.FINISHED)
    assert len(usbguard.LINES) == 5
