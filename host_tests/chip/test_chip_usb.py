"""The USB port on the emulated chip: whatever the USB host sends during a game, the clock keeps
counting exactly and the levers work; at the ready screen and after the result the host
tools get in (tools/chip/chip.py: real MicroPython rp2 in rp2040js, driven through its pins).

Each game is played twice on the same deterministic emulator, once with the host's bytes and
once without: the displays and LEDs must show the same texts at the same instants (within
the few ms the USB handling may shift a frame), and both clocks the times the press stamps
give. Skipped, as the other chip tests, without MICROPYTHON_UF2."""

import chip
import chip_env
import pytest
from chip_env import clean

MS = chip.MS
pico = chip_env.chip_fixture()

BLITZ_5_0 = 7
BULLET_1_0 = 8
BOOT_MS = chip.BOOT_MS
LED_LEFT, LED_RIGHT = chip.LED_PINS
# What a host sends when it connects: mpremote (Ctrl-C twice, then raw REPL and a command),
# a serial monitor's stray bytes, a paste, then a flood of every byte value with Ctrl-Cs.
MPREMOTE = b"\r\x03\x03\r\x01import machine; machine.reset()\x04"
FLOOD = bytes(range(256)) * 8 + b"\x03" * 64 + b"\x04\x02\x05\x01"


def play_blitz(pico, host_bytes):
    """Blitz 5+0: Black (left) starts White's clock; at +1.25 s the host sends `host_bytes`;
    White moves at +10.25 s; the run ends at +12.5 s. Returns (trace, first edge in ms)."""
    with pico.session() as s:
        s.run_to(BOOT_MS)
        s.choose_preset(BLITZ_5_0)
        edge = s.t
        s.press("left")
        s.run_to(edge + 1_250)
        if host_bytes:
            s.usb_write(host_bytes)
        s.run_to(edge + 10_250)
        s.press("right", after_ms=0)
        s.run_to(edge + 12_500)
        return s.trace(), edge


def shown(tr, side, t0_ns, t1_ns):
    return [(x.text, x.colon, x.start) for x in tr.lit(side) if t0_ns <= x.start < t1_ns]


def test_a_host_connecting_during_a_game_changes_nothing(pico):
    quiet, edge = play_blitz(pico, b"")
    noisy, edge2 = play_blitz(pico, MPREMOTE + FLOOD)
    assert edge == edge2
    clean(quiet)
    clean(noisy)
    t0, t1 = edge * MS, (edge + 12_500) * MS
    for side in (0, 1):
        a, b = shown(quiet, side, t0, t1), shown(noisy, side, t0, t1)
        assert [x[:2] for x in a] == [x[:2] for x in b], side
        # the USB work and the ms grid may move a frame by a few ms either way
        assert all(abs(nb - na) < 3 * MS for (_, _, na), (_, _, nb) in zip(a, b, strict=True))
    # and no frame is early: the k-th change of the running side's text or colon comes
    # k half seconds after the press (the app's ms grid is at most 1 ms early on the edge)
    white = shown(noisy, 1, t0, (edge + 10_250) * MS)
    assert len(white) == 20
    assert all(x[2] >= (edge + 500 * (k + 1) - 1) * MS for k, x in enumerate(white))
    # The clock ran on: White's 5:00 minus 10.25 s shows 4:50 (rounded up) before the move;
    # then White's move handed over: the left LED, Black's clock counting from 5:00.
    at = (edge + 10_200) * MS
    assert noisy.shown_at(1, at)[0] == " 450"
    end = noisy.now_ns
    assert (noisy.led_at(LED_LEFT, end), noisy.led_at(LED_RIGHT, end)) == (1, 0)
    assert noisy.shown_at(0, end)[0] == " 458"  # Black: 5:00 minus 2.25 s, rounded up
    # The host was told, in one line, and nothing reset the chip (the pasted reset did not run).
    assert "chess-clock: game" in noisy.serial
    assert "Traceback" not in noisy.serial


def test_the_tools_get_in_at_ready_and_after_the_result(pico):
    with pico.session() as s:
        s.run_to(BOOT_MS)
        assert s.repl("print(6 * 7)").strip().endswith("42")  # ready: the REPL is there
    with pico.session() as s:
        s.run_to(BOOT_MS)
        s.choose_preset(BULLET_1_0)
        edge = s.t
        s.press("left")
        s.run_to(edge + 61_000)  # White's flag fell at +60 s
        with pytest.raises(chip.ChipError, match="USB ignored"):
            s.repl("print(1)")  # a flag fallen: still a game
        s.tap("set")  # the material entry: PrQ, a loss on time
        s.tap("play")  # the result shows
        s.tap("play")  # recorded: the game is over
        s.run_ms(500)
        tr = s.trace()
        clean(tr)
        assert (
            s.repl("import os\nprint(sorted(os.listdir('games')))")
            .strip()
            .endswith("['g000.json']")
        )


def test_a_host_that_stops_reading_costs_no_wakeup_a_wait(pico):
    """A program keeps the port open and stops reading (the emulated host takes no IN
    packet: tools/chip/board.mjs): TinyUSB's buffer fills behind the endpoint's packet, the
    feed's lines are cut, then none is made. A write into too little room would wait up to
    500 ms (whole lines written at a POLLOUT do: twice here); none does, and the clock keeps
    exact time. Once the host reads again it
    gets every move (usbguard.py: whole blocks, a block per POLLOUT, from power-up)."""
    import live_feed

    with pico.session() as s:
        s.run_to(BOOT_MS)
        s.choose_preset(BLITZ_5_0)
        edge = s.t
        s.press("left")  # White (right) runs
        s.run_to(edge + 1_000)
        s.usb_reads(False)
        t0 = s.t
        side = 1
        for k in range(10):
            s.run_ms(1_200)
            s.press(("left", "right")[side], after_ms=0)
            side = 1 - side
            if k == 1:
                s.usb_write(b"?")  # a status line (96 bytes): lines of 32, 64, 96 bytes
        s.run_ms(8_000)
        t1 = s.t
        stalled = len(s.trace().serial)
        s.usb_reads(True)
        s.run_ms(3_000)
        tr = s.trace()
    clean(tr)
    # A write that waits for room sleeps 1 ms at a time (mp_event_wait_ms): a wait shows
    # as a run of 1 ms wakes (a 500 ms one, about 500). The loop's own wakes here: 2 a
    # second and a few per press (as many as with a host that reads: 52).
    wakes = tr.wakes(t0 * MS, t1 * MS)
    assert len(wakes) < 80, len(wakes)
    flash = [t for t, *_ in tr.flash_ops]
    # the journal's flash writes stall some (an erase: 45 ms); no other wakeup is long
    plain = [e - b for b, e in wakes if not any(b <= t <= e for t in flash)]
    assert max(plain) < 20 * MS, max(plain) / MS
    assert len(tr.serial) > stalled  # it read again and got what was owed
    parsed = [live_feed.parse_line(x.encode("latin1")) for x in tr.serial.split("\n")]
    plies = sorted({x.fields[0] for x in parsed if x is not None and x.kind == "M"})
    assert plies == list(range(1, 11))
    # the running side's display went on with the time: a change every half second
    frames = shown(tr, side, (t1 - 8_000) * MS, t1 * MS)
    assert len(frames) >= 15, frames


def packets(tr, from_ns=0):
    """The sizes of the USB packets the host read from `from_ns` on."""
    sizes, prev = [], 0
    for ns, end in tr.serial_at:
        if ns >= from_ns:
            sizes.append(end - prev)
        prev = end
    return sizes


def test_blocks_from_power_up_bytes_after_a_soft_reboot_until_the_fifo_was_full(pico):
    """usbguard.py on real MicroPython: from power-up the feed goes a 32-byte block per
    POLLOUT (each block its own USB packet, the host reading); after the REPL's soft
    reboot (board.UsbMark: the watchdog scratch register kept the hand-over's mark) a byte
    per POLLOUT, until a host that stopped reading let TinyUSB's buffer fill: blocks again.
    No write waits at any time."""
    with pico.session() as s:
        s.run_to(BOOT_MS)
        s.choose_preset(BLITZ_5_0)
        t = s.t
        s.press("left")
        s.run_ms(6_000)
        assert set(packets(s.trace(), t * MS)) == {32}
    with pico.session() as s:
        s.run_to(BOOT_MS)
        s.usb_write(b"\x03")  # ready: the board is handed over, the REPL starts
        s.run_ms(200)
        s.usb_write(b"\x04")  # the REPL's soft reboot: main.py, the loop again
        s.run_ms(1_500)
        assert "MPY: soft reboot" in s.trace().serial
        s.choose_preset(BLITZ_5_0)
        t = s.t
        s.press("left")
        s.run_ms(6_000)
        assert set(packets(s.trace(), t * MS)) == {1}  # a byte per POLLOUT
        s.usb_reads(False)
        t0 = s.t
        side = 1
        for _ in range(8):
            s.run_ms(1_500)
            s.press(("left", "right")[side], after_ms=0)
            side = 1 - side
        t1 = s.t
        s.usb_reads(True)
        s.run_ms(8_000)
        tr = s.trace()
    clean(tr)
    assert len(tr.wakes(t0 * MS, t1 * MS)) < 60  # no write waited (1 ms wakes)
    assert set(packets(tr, (t1 + 2_000) * MS)) == {32}  # the buffer was full: blocks
