"""`make live` (tools/live/live.py) against the simulated board: the real firmware's feed, read
by a host at the instant it is written (the USB fake's host side hands each byte to the
tool as it reads it, on virtual time), turned into the live PGN and the page's state.

What an organiser relies on: the PGN has the broadcast's tags and one [%clk] per half-move
equal to the clock's own record; it is a whole PGN at every rewrite; a MOVES file that an
e-board program keeps writing is merged (and read again when it changes), with the
merge's report when it does not fit; the page's state shows the times the displays show;
a clock unplugged and plugged in again is read on, its board says so, the others go on;
the HTTP server answers on 127.0.0.1 only.
"""

import datetime
import io
import json
import re
import socket
import threading
import urllib.request
from pathlib import Path

import chess.pgn
import feed as feed_mod
import machine
import micropython
import pytest
from test_feed_board import flag_and_result, play_moves, record
from test_firmware_e2e import game, tap
from test_usb_guard import boot, connect

ROOT = Path(__file__).resolve().parents[2]

import game_record  # noqa: E402
import live  # noqa: E402
import live_feed  # noqa: E402


@pytest.fixture(autouse=True)
def no_interrupt_left_behind():
    yield
    micropython.host_reset()


class Linked:
    """A simulated clock whose USB host is a live.Hub: every byte the host reads goes to
    the hub at that virtual instant. `now()` is the virtual time in seconds."""

    def __init__(self, tmp_path, boards=1, **hub_opts):
        self.clock = boot(tmp_path)
        self.boards = [live.Board(n + 1, "sim%d" % n) for n in range(boards)]
        self.hub = live.Hub(
            self.boards, tmp_path / "live.pgn", clock=self.now, wall=self.wall, **hub_opts
        )
        self.hub.err = io.StringIO()
        self.hub.set_link(self.boards[0], "connected")
        self.seen = 0
        usb = self.clock.usb
        original = usb._host_read

        def host_read():
            original()
            data = bytes(usb.received[self.seen :])
            self.seen = len(usb.received)
            if data:
                self.hub.data(self.boards[0], data)

        usb._host_read = host_read
        connect(self.clock)

    @staticmethod
    def now():
        return machine.now_us() / 1e6

    @staticmethod
    def wall():
        return 1_800_000_000 + machine.now_us() / 1e6

    def pgn(self):
        return (self.hub.out).read_text()


def test_the_live_pgn_has_the_tags_and_every_clock_time(tmp_path):
    pairings = live.read_pairings("Event: Club Open\nRound: 4\n1: Ada Lovelace - Alan Turing\n")
    link = Linked(tmp_path, pairings=pairings)
    clock = link.clock
    clock.press("left")  # right has White
    play_moves(clock, 9, 1_100)
    pgn = chess.pgn.read_game(io.StringIO(link.pgn()))
    h = pgn.headers
    assert (h["Event"], h["Round"], h["Board"]) == ("Club Open", "4", "1")
    assert (h["White"], h["Black"], h["Result"], h["TimeControl"]) == (
        "Ada Lovelace",
        "Alan Turing",
        "*",
        "60",
    )
    g = game(clock)
    white = g.white
    assert h["ReferenceTime"].startswith("B/" if g.running != white else "W/")
    # the clocks as they were at the ReferenceTime (the instant the PGN was written)
    ref = datetime.datetime.fromisoformat(h["ReferenceTime"][2:].replace("Z", "+00:00"))
    at_us = round((ref.timestamp() - 1_800_000_000) * 1e6)
    at = clock.mono_ms(at_us)
    assert h["WhiteClock"] == live.hms2(g.remaining(white, at))
    assert h["BlackClock"] == live.hms2(g.remaining(1 - white, at))
    clocks = [n.clock() for n in pgn.mainline()]
    assert clocks == [r[3] // 1000 for r in g.log_entries()]
    assert all(n.move == chess.Move.null() for n in pgn.mainline())
    flag_and_result(clock)
    pgn = chess.pgn.read_game(io.StringIO(link.pgn()))
    rec = record(tmp_path)
    assert pgn.headers["Result"] == rec["result"] != "*"
    assert [n.clock() for n in pgn.mainline()] == [m[3] // 1000 for m in rec["moves"]]
    assert "ReferenceTime" not in pgn.headers  # the clocks stand


def test_the_state_shows_the_displayed_times_at_sampled_instants(tmp_path):
    link = Linked(tmp_path)
    clock = link.clock
    clock.press("left")
    for k in range(12):
        play_moves(clock, 1, 700 + 137 * k)
        clock.run_ms(333 * k % 1000 + 41)  # a sample instant inside a turn
        view = link.hub.state()["boards"][0]
        for side in (0, 1):
            text = live_feed.display_text(view["times"][side], True)
            assert text == clock.display(side)[0], (k, side, view["times"])
    tap(clock, "play")  # paused: the times stand
    view = link.hub.state()["boards"][0]
    assert view["state"] == "paused"
    assert [live_feed.display_text(t, True) for t in view["times"]] == [
        clock.display(s)[0] for s in (0, 1)
    ]


def test_the_live_pgn_says_what_the_arbiter_corrected_as_the_record_does(tmp_path):
    link = Linked(tmp_path)
    clock = link.clock
    clock.press("left")  # right has White
    play_moves(clock, 4, 1_000)
    tap(clock, "play")  # pause on White's 3rd move
    tap(clock, "set", 2_300)  # arbiter menu: the left's time
    tap(clock, "plus")  # + 1 min
    tap(clock, "play")  # apply and leave
    tap(clock, "play")  # resume
    play_moves(clock, 2, 1_000)
    live_rec = link.boards[0].game.record()
    (entry,) = live_rec["arbiter"]
    assert entry[:3] == [4, 3, 0] and entry[5] == entry[4] + 60_000  # after 2...: Black's
    text = game_record.arbiter_text(live_rec, entry)
    assert text.startswith("Arbiter: Black (left) time set ")
    nodes = list(chess.pgn.read_game(io.StringIO(link.pgn())).mainline())
    assert nodes[3].comment.endswith(text) and "Arbiter" not in nodes[4].comment
    flag_and_result(clock)
    rec = record(tmp_path)
    assert link.boards[0].game.record()["arbiter"] == rec["arbiter"]  # the result's too
    assert [e[1] for e in rec["arbiter"]] == [3, 8]


def test_corrections_sent_again_after_a_power_up_are_kept_once():
    b = live_feed.BoardGame()
    for raw in (
        b"#CLK1 1 A 1 0 0 500 4 0 0 *",
        b"#CLK1 2 A 3 0 90000 600 4 50000 90000 *",
        b"#CLK1 3 A 3 0 90000 0 4 50000 90000 *",  # restored: its instant restarts at 0
        b"#CLK1 4 A 10 -1 2 0 0 0 0 *",
    ):
        b.apply(live_feed.parse_line(raw), 1.0)
    rec = b.record()
    assert rec["arbiter"] == [[4, 3, 0, 90000, 50000, 90000]]
    assert rec["arbiter_lost"] == 2


MOVES_6 = '[Event "e-board"]\n[White "A"]\n[Black "B"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n'
MOVES_7 = MOVES_6.replace("a6 *", "a6 4. Ba4 *")


def test_moves_from_an_eboard_file_are_merged_and_read_again(tmp_path):
    moves = tmp_path / "board.pgn"
    moves.write_text(MOVES_6)
    link = Linked(tmp_path, moves=moves)
    clock = link.clock
    clock.press("left")
    play_moves(clock, 6, 1_000)
    pgn = chess.pgn.read_game(io.StringIO(link.pgn()))
    sans = [n.san() for n in pgn.mainline()]
    assert sans == ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]
    assert [n.clock() for n in pgn.mainline()] == [r[3] // 1000 for r in game(clock).log_entries()]
    assert pgn.headers["Board"] == "1" and "WhiteClock" in pgn.headers
    assert (pgn.headers["White"], pgn.headers["Black"]) == ("A", "B")  # the file's names
    moves.write_text(MOVES_7)  # the e-board saw White's 4th move before the press
    moves.touch()
    clock.run_ms(feed_mod.PERIOD_MS + 500)  # the next state line rewrites the PGN
    pgn = chess.pgn.read_game(io.StringIO(link.pgn()))
    assert [n.san() for n in pgn.mainline()][-1] == "Ba4"
    clock.press(("left", "right")[game(clock).running])
    clock.run_ms(100)
    pgn = chess.pgn.read_game(io.StringIO(link.pgn()))
    assert len([n for n in pgn.mainline() if n.clock() is not None]) == 7
    moves.write_text(
        MOVES_6.replace("2. Nf3", "2. Nf3 Nc6 3. Nc3 Nf6 4. Bb5 Bb4 5. O-O O-O 6. d3")
    )
    clock.run_ms(feed_mod.PERIOD_MS + 500)
    assert "not exported: line 5: illegal san: 'Nc6'" in link.hub.err.getvalue()
    pgn = chess.pgn.read_game(io.StringIO(link.pgn()))
    assert all(n.move == chess.Move.null() for n in pgn.mainline())  # null moves again


def test_every_rewrite_is_a_whole_pgn(tmp_path):
    link = Linked(tmp_path)
    texts = []
    original = link.hub.write_pgn

    def keep():
        original()
        texts.append(link.hub.out.read_text())

    link.hub.write_pgn = keep
    link.clock.press("left")
    play_moves(link.clock, 5, 900)
    assert len(texts) > 5
    for t in texts:
        assert chess.pgn.read_game(io.StringIO(t)) is not None and t.rstrip().endswith("*")
    assert not list(tmp_path.glob(".live-*"))  # no temporary file left behind


# ------------------------------------------------------------ ports and links
class FakeSerial:
    """A port the Reader reads: lines queued by the test; `gone` makes reads raise, as
    pyserial does when the cable is pulled."""

    def __init__(self, owner):
        self.owner = owner
        self.lock = threading.Lock()

    def read(self, n):
        with self.owner.cv:
            if self.owner.gone:
                raise OSError("device disconnected")
            if not self.owner.queue:
                self.owner.cv.wait(0.01)
                return b""
            return self.owner.queue.pop(0)

    def close(self):
        pass


class FakeClock:
    def __init__(self):
        self.cv = threading.Condition()
        self.queue = []
        self.gone = False
        self.opens = 0

    def opener(self, port):
        with self.cv:
            if self.gone:
                raise OSError("no such port")
            self.opens += 1
            return FakeSerial(self)

    def say(self, data):
        with self.cv:
            self.queue.append(data)
            self.cv.notify_all()


def wait_for(pred, limit_s=10.0):
    """Poll `pred` (bounded): True as soon as it holds."""
    ev = threading.Event()
    for _ in range(int(limit_s / 0.01)):
        if pred():
            return True
        ev.wait(0.01)
    return pred()


def test_an_unplugged_clock_is_read_again_and_the_others_go_on(tmp_path, monkeypatch):
    monkeypatch.setattr(live, "RETRY_S", 0.02)
    clocks = {"a": FakeClock(), "b": FakeClock()}
    boards = [live.Board(1, "a"), live.Board(2, "b")]
    hub = live.Hub(boards, tmp_path / "live.pgn")
    stop = threading.Event()
    for b in boards:
        live.Reader(hub, b, clocks[b.port].opener, stop).start()
    try:
        g = b"#CLK1 0 G 1 0 0 60000,0,0,0 60000,0,0,0 0 *\r\n"
        t = b"#CLK1 1 T 1 1 60000 59000 0 0 0 0 0 0 -1 0 0 0 *\r\n"
        for c in clocks.values():
            c.say(g + t)
        assert wait_for(lambda: all(b.game.at is not None for b in boards))
        with clocks["a"].cv:
            clocks["a"].gone = True  # board 1's cable pulled
        assert wait_for(lambda: boards[0].link == "unplugged")
        clocks["b"].say(b"#CLK1 2 M 1 1 1 2000 58000 60000 0 *\r\n")
        assert wait_for(lambda: boards[1].game.plies == 1)  # board 2 goes on
        assert hub.state()["boards"][0]["link"] == "unplugged"
        with clocks["a"].cv:
            clocks["a"].gone = False  # plugged in again
        clocks["a"].say(b"#CLK1 9 M 1 1 1 3000 57000 60000 0 *\r\n")
        assert wait_for(lambda: boards[0].link == "connected" and boards[0].game.plies == 1)
        assert clocks["a"].opens >= 2
        assert boards[0].game.lost == 7  # seq 2..8 never came
    finally:
        stop.set()


def test_a_silent_clock_in_a_game_is_named(tmp_path):
    t = [100.0]
    board = live.Board(1, "x")
    hub = live.Hub([board], tmp_path / "live.pgn", clock=lambda: t[0])
    hub.set_link(board, "connected")
    hub.data(board, b"#CLK1 0 G 1 0 0 60000,0,0,0 60000,0,0,0 0 *\r\n")
    hub.data(board, b"#CLK1 1 T 1 1 60000 59000 0 0 0 0 0 0 -1 0 0 0 *\r\n")
    assert hub.state()["boards"][0]["link"] == "connected"
    assert hub.link_news() == ["board 1: connected"]
    t[0] += live.SILENT_S + 1
    assert hub.state()["boards"][0]["link"] == "silent"
    assert hub.link_news() == ["board 1: silent: a game in progress and no line for 10 s"]
    assert hub.link_news() == []  # said once


def test_lines_split_across_reads_and_noise_are_taken_whole(tmp_path):
    board = live.Board(1, "x")
    hub = live.Hub([board], tmp_path / "live.pgn", clock=lambda: 5.0)
    data = (
        b"chess-clock: game running; USB ignored until its result is recorded\r\n"
        b"#CLK1 0 G 1 0 0 60000,0,0,0 60000,0,0,0 0 *\r\n"
        b"#CLK1 1 M 1 1 1 2000 58000 60000 0\r\n"  # cut: no *
        b"#CLK1 2 T 1 0 60000 58000 0 0 0 0 0 0 -1 0 1 1 *\r\n"
    )
    for i in range(0, len(data), 7):
        hub.data(board, data[i : i + 7])
    g = board.game
    assert g.start is not None and g.moves == {} and g.plies == 1 and g.times == [60000, 58000]
    assert g.lost == 1


def test_the_http_server_serves_the_page_pgn_state_and_events(tmp_path):
    board = live.Board(1, "x")
    hub = live.Hub([board], tmp_path / "live.pgn")
    hub.write_pgn()
    stop = threading.Event()
    server = live.serve(hub, 0, stop)
    try:
        host, port = server.server_address[:2]
        assert host == "127.0.0.1"
        base = "http://127.0.0.1:%d" % port
        page = urllib.request.urlopen(base + "/", timeout=10).read().decode()
        assert "EventSource" in page
        hub.data(board, b"#CLK1 0 G 1 0 0 60000,0,0,0 60000,0,0,0 0 *\r\n")
        pgn = urllib.request.urlopen(base + "/live.pgn", timeout=10).read().decode()
        assert '[Board "1"]' in pgn and '[TimeControl "60"]' in pgn
        state = json.loads(urllib.request.urlopen(base + "/state.json", timeout=10).read())
        assert state["boards"][0]["board"] == 1
        with urllib.request.urlopen(base + "/events", timeout=10) as ev:
            first = ev.readline()
            assert first.startswith(b"data: ")
            hub.data(board, b"#CLK1 1 T 1 1 60000 59000 0 0 0 0 0 0 -1 0 0 0 *\r\n")
            ev.readline()
            nxt = json.loads(ev.readline()[6:])
            assert nxt["boards"][0]["times"][1] <= 59000
    finally:
        stop.set()
        server.shutdown()


def test_ports_are_numbered_in_order_or_by_name():
    assert live.parse_ports(["/dev/a /dev/b", "5=/dev/c", "/dev/d"]) == [
        (1, "/dev/a"),
        (2, "/dev/b"),
        (5, "/dev/c"),
        (6, "/dev/d"),
    ]
    ev, rnd, boards = live.read_pairings("Event: X\nRound: 2\n1: A B - C D\n2: E -\n")
    assert (ev, rnd, boards[1], boards[2]) == ("X", "2", ("A B", "C D"), ("E", "?"))


def test_an_abandoned_game_reads_unfinished_on_the_page_and_in_the_pgn(tmp_path):
    link = Linked(tmp_path)
    clock = link.clock
    clock.press("left")
    play_moves(clock, 5, 900)
    tap(clock, "play")  # pause
    clock.press("set", 2_300)  # the arbiter menu
    while clock.display(0)[0] != "AbAn":
        tap(clock, "set")
    tap(clock, "minus")  # ` YES`
    tap(clock, "play")
    clock.run_ms(3_000)
    rec = record(tmp_path)
    assert (rec["result"], rec["reason"]) == ("*", "abandoned by the arbiter")
    view = link.hub.state()["boards"][0]
    assert (view["result"], view["reason"]) == ("*", "abandoned by the arbiter")
    pgn = chess.pgn.read_game(io.StringIO(link.pgn()))
    assert pgn.headers["Result"] == "*"
    assert [n.clock() for n in pgn.mainline()] == [m[3] // 1000 for m in rec["moves"]]


# ------------------------------------------------------------ the organiser's morning
G_LINE = b"#CLK1 0 G 1 0 0 60000,0,0,0 60000,0,0,0 0 *\r\n"
T_RUNNING = b"#CLK1 1 T 1 1 60000 15000 0 0 0 0 0 0 -1 0 0 0 *\r\n"  # right runs, 15 s


def test_the_pgn_date_is_the_hosts_date_of_the_game(tmp_path):
    wall = [1_800_000_000.0]
    board = live.Board(1, "x")
    hub = live.Hub([board], tmp_path / "live.pgn", clock=lambda: 5.0, wall=lambda: wall[0])
    hub.write_pgn()
    assert '[Date "????.??.??"]' in hub.out.read_text()  # no game heard yet
    hub.data(board, G_LINE)
    day = live.date_text(1_800_000_000.0)
    assert '[Date "%s"]' % day in hub.out.read_text()
    wall[0] += 3 * 86_400  # the same game, days later: its date stays
    hub.data(board, T_RUNNING)
    assert '[Date "%s"]' % day in hub.out.read_text()
    hub.data(board, b"#CLK1 2 E 1 1 1 *\r\n")
    hub.data(board, b"#CLK1 3 G 0 0 0 300000,0,0,0 300000,0,0,0 0 *\r\n")  # the next game
    assert '[Date "%s"]' % live.date_text(wall[0]) in hub.out.read_text() != day


def test_a_board_not_heard_has_its_times_stand_in_the_state_and_the_pgn(tmp_path):
    t = [100.0]
    board = live.Board(1, "x")
    hub = live.Hub([board], tmp_path / "live.pgn", clock=lambda: t[0])
    hub.set_link(board, "connected")
    hub.data(board, G_LINE + T_RUNNING)
    view = hub.state()["boards"][0]
    assert view["fresh_ms"] == live.SILENT_S * 1000 and view["times"] == [60000, 15000]
    t[0] += 4.0  # heard 4 s ago: the times run
    assert hub.state()["boards"][0]["times"] == [60000, 11000]
    t[0] += 20.0  # 24 s without a line: past the silence limit, and past 15 s
    view = hub.state()["boards"][0]
    assert view["link"] == "silent" and view["fresh_ms"] == 0
    assert view["times"] == [60000, int(15000 - live.SILENT_S * 1000)]  # stood at the limit
    pgn = chess.pgn.read_game(io.StringIO(hub.pgn_text()))
    assert pgn.headers["WhiteClock"] == live.hms2(15000 - live.SILENT_S * 1000)
    assert "ReferenceTime" not in pgn.headers  # nothing says it runs
    hub.data(board, b"#CLK1 2 T 1 1 60000 9000 0 0 0 0 0 0 -1 0 0 0 *\r\n")  # heard again
    view = hub.state()["boards"][0]
    assert (view["link"], view["times"]) == ("connected", [60000, 9000])
    t[0] += 2.0
    hub.set_link(board, "unplugged")  # the cable pulled: the times stand at once
    t[0] += 3.0
    assert hub.state()["boards"][0]["times"] == [60000, 7000]


def test_the_silence_limit_comes_from_the_feeds_line_rate():
    app = (ROOT / "firmware" / "shell" / "app.py").read_text()
    wake = re.search(r"\nFEED_MS = const\(([\d_]+)\)", app).group(1)
    assert int(wake.replace("_", "")) == live.FEED_WAKE_S * 1000
    assert feed_mod.PERIOD_MS == live.FEED_PERIOD_S * 1000
    assert live.SILENT_S > live.FEED_PERIOD_S + live.FEED_WAKE_S


def run_main(tmp_path, argv, **kw):
    """live.main in a thread; returns (thread, out, err, stop)."""
    out, err = io.StringIO(), io.StringIO()
    stop = threading.Event()
    result = {}

    def go():
        result["rc"] = live.main(argv, out=out, err=err, stop=stop, **kw)

    th = threading.Thread(target=go, daemon=True)
    th.start()
    return th, out, err, stop, result


def test_without_clocks_it_waits_and_takes_each_one_plugged_in(tmp_path, monkeypatch):
    monkeypatch.setattr(live, "RETRY_S", 0.02)
    on_usb = {}
    clocks = {"/dev/ttyACM0": FakeClock(), "/dev/ttyACM1": FakeClock()}

    def opener(port):
        return clocks[port].opener(port)

    argv = ["--out", str(tmp_path / "live.pgn"), "--http-port", "0"]
    th, out, err, stop, result = run_main(tmp_path, argv, opener=opener, ports=lambda: on_usb)
    try:
        assert wait_for(lambda: "no clock on USB yet" in out.getvalue())
        on_usb["E6614C"] = "/dev/ttyACM0"  # the first clock plugged in
        assert wait_for(lambda: "board 1: the Pico E6614C" in out.getvalue())
        clocks["/dev/ttyACM0"].say(G_LINE)
        assert wait_for(lambda: '[Board "1"]' in (tmp_path / "live.pgn").read_text())
        on_usb["A0B1C2"] = "/dev/ttyACM1"  # a second one
        assert wait_for(lambda: "board 2: the Pico A0B1C2" in out.getvalue())
        clocks["/dev/ttyACM1"].say(G_LINE)
        assert wait_for(lambda: '[Board "2"]' in (tmp_path / "live.pgn").read_text())
    finally:
        stop.set()
        th.join(10)
    assert result["rc"] == 0 and err.getvalue() == ""


def test_a_given_port_that_is_not_there_yet_is_waited_for(tmp_path, monkeypatch):
    monkeypatch.setattr(live, "RETRY_S", 0.02)
    clock = FakeClock()
    clock.gone = True
    argv = ["--port", "/dev/ttyACM0", "--out", str(tmp_path / "live.pgn"), "--http-port", "0"]
    th, out, err, stop, result = run_main(tmp_path, argv, opener=clock.opener)
    try:
        assert wait_for(lambda: "board 1: /dev/ttyACM0" in out.getvalue())
        with clock.cv:
            clock.gone = False
        assert wait_for(lambda: "board 1: connected" in out.getvalue())
        assert "unplugged" not in out.getvalue()  # it never was: it was waited for
    finally:
        stop.set()
        th.join(10)
    assert result["rc"] == 0


def test_a_listen_port_in_use_is_one_line_and_the_pgn_is_not_touched(tmp_path):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    pgn = tmp_path / "live.pgn"
    pgn.write_text("the first make live's PGN\n")
    out, err = io.StringIO(), io.StringIO()
    try:
        argv = ["--port", "/dev/x", "--out", str(pgn), "--http-port", str(port)]
        rc = live.main(argv, opener=FakeClock().opener, out=out, err=err)
    finally:
        taken.close()
    assert rc == 1
    assert err.getvalue() == (
        "live.py: port %d on 127.0.0.1 is in use (another `make live`?): end that one, or "
        "give this one another port: HTTP_PORT=%d (--http-port)\n" % (port, port + 1)
    )
    assert pgn.read_text() == "the first make live's PGN\n"
