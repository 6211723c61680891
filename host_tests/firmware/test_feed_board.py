"""The live feed on the simulated board: the real firmware, a host on its USB serial port
(simboard/usb_cdc.py: MicroPython 1.27's CDC paths, a TX FIFO of 256 bytes, DTR), and the
host's reader (tools/live/live_feed.py) rebuilding the game from the lines.

What a broadcast relies on: every event of a game reaches the host, the moves with the
exact-ms values of the clock's own record (games/gNNN.json, compared item by item), the
result as the record has it; a host that reads slowly or stops reading blocks nothing (the
loop never waits, the displays keep exact time) and still gets every move once it reads
again; a host that connects mid-game has the state within a few seconds and the controls
soon after; a flood from the host during a feed changes nothing in the game or the feed.
"""

import json
from pathlib import Path

import feed as feed_mod
import machine
import micropython
import pytest
from test_firmware_e2e import choose_preset, countdown, game, tap, think
from test_usb_guard import boot, connect, running_side_follows_the_time

from simboard import usb_cdc

ROOT = Path(__file__).resolve().parents[2]

import live  # noqa: E402
import live_feed  # noqa: E402


@pytest.fixture(autouse=True)
def no_interrupt_left_behind():
    yield
    micropython.host_reset()


def feed_lines(clock):
    """The whole feed lines the host received, parsed (status lines and cut lines: None,
    left out)."""
    raw = bytes(clock.usb.received).split(b"\n")
    return [x for x in (live_feed.parse_line(r) for r in raw) if x is not None]


def rebuilt(clock):
    b = live_feed.BoardGame()
    for i, line in enumerate(feed_lines(clock)):
        b.apply(line, i)
    return b


def record(tmp_path):
    names = sorted((tmp_path / "games").glob("g*.json"))
    assert names, "no game record"
    return json.loads(names[-1].read_text())


def play_moves(clock, n, think_ms=1_300):
    for _ in range(n):
        clock.run_ms(think_ms)
        clock.press(("left", "right")[game(clock).running])


def flag_and_result(clock):
    """Bullet: let the running side's flag fall, then the material entry records the
    result (SET; PLAY: a pawn, rook or queen, the flag loses; PLAY: confirm)."""
    clock.run_ms(70_000)
    assert game(clock).state == 3  # flagged
    tap(clock, "set")
    tap(clock, "play")
    tap(clock, "play")
    assert game(clock).state == feed_mod._FINISHED


def test_a_whole_game_reaches_the_host_as_the_record_has_it(tmp_path):
    clock = boot(tmp_path)
    connect(clock)
    clock.press("left")  # right (White) runs
    play_moves(clock, 7)
    tap(clock, "play")  # pause
    clock.run_ms(3_000)
    tap(clock, "play")  # resume
    play_moves(clock, 4, 900)
    flag_and_result(clock)
    clock.run_ms(5_000)
    rec = record(tmp_path)
    b = rebuilt(clock)
    assert b.lost == 0 and not clock.app.board.usb.feed.dropped
    assert b.record()["moves"] == rec["moves"]  # every half-move, exact ms
    assert (b.result_text(), b.reason_text(), b.white()) == (
        rec["result"],
        rec["reason"],
        rec["white"],
    )
    assert b.record()["controls"] == rec["controls"]
    kinds = [x.kind for x in feed_lines(clock)]
    assert kinds[0] == "G" and kinds[-1] == "E"
    assert {"M", "A", "F", "T"} <= set(kinds)
    events = [e for _, e in b.events]
    assert events[:2] == ["pause", "resume"] and "finish" in events
    assert any(e.endswith("flag") for e in events)
    # nothing after the result
    n = len(clock.usb.received)
    clock.run_ms(10_000)
    assert feed_lines(clock)[-1].kind == "E" and len(clock.usb.received) == n


def test_the_state_line_comes_every_period_with_the_displayed_times(tmp_path):
    clock = boot(tmp_path)
    connect(clock)
    clock.press("left")
    clock.run_ms(20_000)
    ts = [x for x in feed_lines(clock) if x.kind == "T"]
    assert len(ts) >= 20_000 // feed_mod.PERIOD_MS - 1
    g = game(clock)
    last = ts[-1].fields
    # the right side runs; its time in the last line is at most PERIOD_MS + a wakeup old
    now = g.remaining(1, clock.mono_ms())
    assert 0 <= last[3] - now <= feed_mod.PERIOD_MS + 1_000
    assert last[2] == g.remaining(0, clock.mono_ms()) == 60_000
    assert countdown(last[2]) == clock.display(0)


FIDE = 0  # presets.py: 90 min + 30 s, shown as h:mm: the loop's slowest wakeups


@pytest.mark.parametrize("preset", [FIDE, None])
def test_an_untouched_game_never_looks_silent_to_make_live(tmp_path, preset):
    """Nobody touches the clock for a minute (h:mm: the loop wakes only every few seconds;
    the default preset in mm:ss): a feed line reaches the host at least every PERIOD_MS
    plus one of the loop's wakeups, well inside the gap after which make live calls a
    clock silent; the state line's times are those of the clock."""
    clock = boot(tmp_path)
    if preset is not None:
        choose_preset(clock, preset)
    connect(clock)
    clock.press("left")
    arrivals, seen = [], 0
    for t in range(60):
        clock.run_ms(1_000)
        n = len(feed_lines(clock))
        if n > seen:
            arrivals.append(t)
            seen = n
    gaps = [arrivals[i + 1] - arrivals[i] for i in range(len(arrivals) - 1)]
    assert len(arrivals) >= 60_000 // (feed_mod.PERIOD_MS + 4_000)
    assert max(gaps) * 1_000 <= feed_mod.PERIOD_MS + 4_000 < live.SILENT_S * 1_000
    last = [x for x in feed_lines(clock) if x.kind == "T"][-1].fields
    assert last[2] == game(clock).remaining(0, clock.mono_ms())  # the left side waits


def test_arbiter_corrections_are_on_the_feed(tmp_path):
    clock = boot(tmp_path)
    connect(clock)
    clock.press("left")
    think(clock, 5_000)
    clock.press("right")
    tap(clock, "play")  # pause on the left's move
    tap(clock, "set", 2_300)  # arbiter: left's time
    tap(clock, "plus")  # + 1 min
    tap(clock, "play")  # apply and leave
    g = game(clock)
    b = rebuilt(clock)
    corrections = [x.fields for x in feed_lines(clock) if x.kind == "A" and x.fields[0] == 3]
    assert corrections and corrections[-1][1] == 0
    assert corrections[-1][2] == g.remaining(0, clock.mono_ms())
    assert b.times[0] == g.remaining(0, clock.mono_ms()) and b.state == live_feed.PAUSED


def test_a_host_that_stops_reading_blocks_nothing_and_gets_every_move_later(tmp_path):
    clock = boot(tmp_path)
    connect(clock)
    clock.press("left")
    clock.usb.reading = False
    play_moves(clock, 10, 700)
    running_side_follows_the_time(clock)  # the loop never waited: exact time shown
    assert clock.usb.tx_wait_us == 0
    assert clock.app.board.usb.feed.dropped > 0
    clock.usb.reading = True
    clock.run_ms(6_000)  # the next wakeups write what is owed
    b = rebuilt(clock)
    g = game(clock)
    assert b.plies == g.log_count == 10
    assert b.record()["moves"] == [list(r) for r in g.log_entries()]


def test_a_host_that_reads_slowly_gets_every_move(tmp_path):
    clock = boot(tmp_path)
    connect(clock)
    clock.press("left")
    for i in range(40):  # reads 300 ms of every second
        machine.after(i * 1_000_000 + 1, lambda: setattr(clock.usb, "reading", False))
        machine.after(i * 1_000_000 + 700_000, lambda: setattr(clock.usb, "reading", True))
    play_moves(clock, 20, 600)
    clock.run_ms(20_000)
    g = game(clock)
    b = rebuilt(clock)
    assert clock.usb.tx_wait_us == 0
    assert b.record()["moves"] == [list(r) for r in g.log_entries()]


def test_a_host_that_takes_a_packet_now_and_then_gets_every_move(tmp_path):
    """The TX FIFO never empties: the guard's blocks (usbguard.BLOCK) keep it a whole
    number of blocks, so no block is written into less room than a block."""
    clock = boot(tmp_path)
    connect(clock)
    clock.press("left")
    clock.usb.reading = False
    for i in range(20):  # a packet (64 bytes) a second: less than the feed writes
        machine.after(i * 1_000_000 + 1, lambda: clock.usb.take(1), irq=False)
    play_moves(clock, 16, 600)
    guard = clock.app.board.usb
    assert clock.usb.tx_wait_us == 0 and guard._blocks and guard.feed.dropped > 0
    running_side_follows_the_time(clock)
    clock.usb.reading = True
    clock.run_ms(6_000)
    g = game(clock)
    b = rebuilt(clock)
    assert b.record()["moves"] == [list(r) for r in g.log_entries()]
    assert clock.usb.tx_wait_us == 0


def test_a_host_that_never_reads_or_none_at_all(tmp_path):
    clock = boot(tmp_path)
    clock.usb.plug()  # a host that never opens the port: the FIFO overwrites its oldest
    clock.press("left")
    play_moves(clock, 10, 700)
    running_side_follows_the_time(clock)
    assert clock.usb.tx_wait_us == 0 and clock.app.errors == 0
    clock.usb.open()
    clock.usb.reading = False  # opened, never read
    play_moves(clock, 6, 700)
    running_side_follows_the_time(clock)
    assert clock.usb.tx_wait_us == 0 and clock.app.errors == 0
    assert len(clock.usb.tx) == usb_cdc.TX_FIFO


def test_a_host_that_connects_mid_game_has_the_state_within_seconds(tmp_path):
    clock = boot(tmp_path)
    clock.press("left")
    play_moves(clock, 6, 1_000)
    connect(clock)
    clock.usb.received.clear()  # what the FIFO kept from before (no host): not counted
    clock.run_ms(feed_mod.PERIOD_MS + 1_100)
    b = rebuilt(clock)
    g = game(clock)
    assert b.plies == g.log_count == 6 and b.running == g.running
    assert b.times[1 - g.running] == g.remaining(1 - g.running, clock.mono_ms())
    clock.run_ms(feed_mod.PERIOD_MS * feed_mod.HEADER_EVERY + 1_000)
    b = rebuilt(clock)
    assert b.controls()["white"]["periods"] == [[60, 0, 0, 0]]


def test_a_flood_from_the_host_changes_nothing_in_the_feed(tmp_path):
    clock = boot(tmp_path)
    connect(clock)
    clock.press("left")
    clock.usb.send(bytes(range(256)) * 40)  # 10 KB, Ctrl-C among them
    for i in range(30):
        machine.after(i * 100_000 + 1, lambda: clock.usb.send(b"\x03" * 300), irq=False)
    play_moves(clock, 8, 800)
    clock.run_ms(3_000)
    g = game(clock)
    b = rebuilt(clock)
    assert not clock.app.handed_over and clock.app.interrupts == 0
    assert b.record()["moves"] == [list(r) for r in g.log_entries()]
    assert b.lost == 0
