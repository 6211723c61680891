#!/usr/bin/env python3
"""The clocks on the broadcast (`make live`): each clock's live feed read from its USB port,
a live PGN rewritten at every event, and a page of every board's clocks, on 127.0.0.1.

usage: live.py [--port [BOARD=]PORT ...] [--pairings FILE] [--moves FILE.pgn]
               [--out live.pgn] [--http-port 8130] [--event NAME] [--round N]

One game per clock, one clock per board. Boards are numbered in the order of --port
(`--port 3=/dev/ttyACM0` names it); a port is any form mpremote (`make flash`) takes: a
device path or a pyserial URL (`socket://host:port`, `rfc2217://host:port`; `make sim
SIMARGS=--usb` offers the simulator's USB side as one, tools/sim/usb_side.py). Without
--port every Raspberry Pi Pico on USB is taken, in the order of their USB serial numbers,
a clock plugged in later becomes the next board, and a clock that comes back is known by
its serial number; with none on USB yet the tool waits for them. The firmware writes its
feed from the first lever press until the result is recorded (firmware/core/feed.py,
docs/live.md); this tool sends nothing to a clock.

The PGN (--out, default live.pgn): one game per board, in board order, rewritten through a
temporary file and a rename, so a broadcast that reads it never sees half a file. Tags:
Event, Site, Date (the host's date when the tool first heard the game), Round, Board,
White, Black (the pairings file, else the options, else "?"), Result, Termination,
TimeControl, WhiteClock, BlackClock and ReferenceTime (the times and the UTC instant they
were true at; `W/` or `B/` says whose clock runs, no ReferenceTime while the clocks
stand), then one `[%clk H:MM:SS]` per half-move. The moves:
with --moves, game N of that file (what an e-board program or an operator keeps writing,
read again when it changes) goes with board N through the export's scoresheet merge
(pgn_merge.py), whose mismatch reports are printed; without it, or for a board it has no
game for, null moves (`--`) stand for the moves.

The page: http://127.0.0.1:8130/ shows every board (?transparent=1 for a stream overlay:
no background); /live.pgn is the PGN (what a broadcast relay polls); /state.json the
boards as JSON; /events the same as Server-Sent Events at every line from a clock.

Pairings file: lines `Event: NAME`, `Round: N`, and `N: White Name - Black Name` per board.

A clock unplugged: its board says "unplugged" and keeps its game on the page and in the
PGN; the tool opens its port again every RETRY_S and reads on where the feed is. A port
that has never opened is "waiting". A clock in a game that says nothing for SILENT_S:
"silent" (the page says "no signal"). A board that is not heard (silent or unplugged) has
its times stand, on the page and in the PGN, at the last instant they were known to run
(SILENT_S after its last line, or the unplugging if sooner): never a clock run down to 0
that the board did not flag. One board's trouble never stops the others.

A listen port already taken (another `make live`) ends the tool in one line, before the
PGN is touched.
"""

import argparse
import datetime
import errno
import io
import json
import os
import re
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/: paths.py
import paths  # noqa: E402

paths.install(core=True)

import chess.pgn  # noqa: E402
import export_games  # noqa: E402
import game_record  # noqa: E402
import live_feed  # noqa: E402
import pgn_headers  # noqa: E402
from pgn_scoresheet import decode, read_sheets  # noqa: E402

RETRY_S = 1.0  # an unplugged clock's port is opened again this often (and USB looked at)
# A clock in a game writes a state line at its first wakeup PERIOD_S after the last line
# and wakes at least every WAKE_S (firmware/core/feed.py PERIOD_MS, firmware/shell/app.py
# FEED_MS): lines are never more than 9 s apart. A second more (the host's reading) and a
# board in a game is "silent".
FEED_PERIOD_S = 5.0
FEED_WAKE_S = 4.0
SILENT_S = FEED_PERIOD_S + FEED_WAKE_S + 1.0
READ_S = 0.02  # a port read waits at most this long (the page follows within 100 ms)
PICO_VID = 0x2E8A  # Raspberry Pi
PAGE = Path(__file__).with_name("live_page.html")
HTTP_PORT = 8130


def open_serial(port):
    """The port opened as mpremote opens it: a device path or a pyserial URL."""
    import serial  # pyserial (mpremote's dependency)

    return serial.serial_for_url(port, 115200, timeout=READ_S)


def pico_ports():
    """{USB serial number: device} of the Picos on USB."""
    from serial.tools import list_ports

    return {
        p.serial_number or p.device: p.device for p in list_ports.comports() if p.vid == PICO_VID
    }


def utc_text(wall):
    return (
        datetime.datetime.fromtimestamp(wall, datetime.UTC).isoformat(timespec="milliseconds")[:-6]
        + "Z"
    )


def date_text(wall):
    """Epoch seconds -> the PGN's Date (YYYY.MM.DD, the host's local date)."""
    return time.strftime("%Y.%m.%d", time.localtime(wall))


def hms2(ms):
    """ms -> HH:MM:SS (whole seconds truncated), as WhiteClock / BlackClock carry it."""
    s = max(ms, 0) // 1000
    return "%02d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60)


def read_pairings(text):
    """The pairings file -> (event, round, {board: (white, black)})."""
    event = rnd = None
    boards = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key, value = key.strip(), value.strip()
        if key.lower() == "event":
            event = value
        elif key.lower() == "round":
            rnd = value
        elif key.isdigit():
            names = re.split(r"\s+-(?:\s+|$)", value, maxsplit=1) + ["?"]
            boards[int(key)] = (names[0].strip() or "?", names[1].strip() or "?")
    return event, rnd, boards


class Board:
    """One board: its clock's game (live_feed.BoardGame) and the link's state."""

    def __init__(self, number, port):
        self.number = number
        self.port = port
        self.game = live_feed.BoardGame()
        self.link = "waiting"  # waiting | connected | unplugged
        self.partial = b""
        self.ever = False  # its port has opened once: a failure to open is "unplugged"
        self.down_at = None  # hub instant the link was lost (None: connected or never)
        self.date = None  # the PGN's Date of its game: the host's date when first heard

    def status(self, now):
        if self.link != "connected":
            return self.link
        g = self.game
        in_game = g.state in (live_feed.RUNNING, live_feed.PAUSED, live_feed.FLAGGED)
        if in_game and g.heard is not None and now - g.heard > SILENT_S:
            return "silent"
        return "connected"

    def known_at(self, now):
        """The hub instant up to which this board's times are known to run: `now`, or
        SILENT_S after its last line, or when its link was lost, whichever is first."""
        at = now
        if self.game.heard is not None:
            at = min(at, self.game.heard + SILENT_S)
        if self.link != "connected" and self.down_at is not None:
            at = min(at, self.down_at)
        return at


class Hub:
    """Every board, the PGN and the page's state. `clock()` (monotonic s) and `wall()`
    (epoch s) are the host's; tests give their own."""

    def __init__(
        self, boards, out, pairings=None, moves=None, event=None, rnd=None, clock=None, wall=None
    ):
        self.boards = boards
        self.out = Path(out)
        self.moves = Path(moves) if moves else None
        self._moves_seen = None
        self._moves_text = None
        self.pairings = pairings or (None, None, {})
        self.event = event or self.pairings[0] or "?"
        self.round = rnd or self.pairings[1] or "?"
        self.clock = clock or time.monotonic
        self.wall = wall or time.time
        self.lock = threading.Condition()
        self.version = 0
        self.problems = []  # the merge's reports of the last rewrite
        self.err = sys.stderr

    # ------------------------------------------------------------ lines
    def data(self, board, data):
        """Bytes read from `board`'s port: whole lines are applied; the PGN is rewritten
        when any was a feed line."""
        with self.lock:
            chunks = (board.partial + data).split(b"\n")
            board.partial = chunks.pop()[-4096:]
            now = self.clock()
            changed = False
            for raw in chunks:
                line = live_feed.parse_line(raw)
                if line is None:
                    continue
                if board.game.apply(line, now) or board.date is None:
                    board.date = date_text(self.wall())
                changed = True
            if changed:
                self._changed()

    def set_link(self, board, link):
        with self.lock:
            if board.link != link:
                if link == "connected":
                    board.ever = True
                    board.down_at = None
                elif board.link == "connected":
                    board.down_at = self.clock()
                board.link = link
                if link != "connected":
                    board.partial = b""
                self._changed()

    def add_board(self, board):
        """A board joins (a clock plugged in while the tool runs)."""
        with self.lock:
            self.boards.append(board)
            self._changed()

    def _changed(self):
        self.version += 1
        try:
            self.write_pgn()
        except OSError as exc:
            print("live.py: cannot write %s: %s" % (self.out, exc), file=self.err)
        self.lock.notify_all()

    # ------------------------------------------------------------ PGN
    def names(self, number):
        return self.pairings[2].get(number, ("?", "?"))

    def board_tags(self, board):
        g = board.game
        rec = g.record()
        white_name, black_name = self.names(board.number)
        w = g.white()
        now = self.clock()
        at = board.known_at(now)
        times = g.times_at(at)
        wt, bt = (times[w], times[1 - w]) if w >= 0 else (times[0], times[1])
        tags = [
            ("Event", self.event),
            ("Site", "?"),
            ("Date", board.date or "????.??.??"),
            ("Round", self.round),
            ("Board", str(board.number)),
            ("White", white_name),
            ("Black", black_name),
            ("Result", rec["result"]),
        ]
        if rec["result"] != "*":
            tags.append(("Termination", pgn_headers.termination(rec)))
        tags.append(
            ("TimeControl", pgn_headers.colour_time_control(rec, "white") if g.start else "?")
        )
        if g.at is not None:
            tags += [("WhiteClock", hms2(wt)), ("BlackClock", hms2(bt))]
            if g.state == live_feed.RUNNING and w >= 0 and at == now:
                on_move = "W" if g.running == w else "B"
                tags.append(("ReferenceTime", "%s/%s" % (on_move, utc_text(self.wall()))))
        return rec, tags

    def null_movetext(self, board, result, rec):
        """The null-move movetext of a board's game: each half-move `--` with its %clk,
        the arbiter's corrections of the record `rec` (game_record.arbiter_notes) a comment
        after the half-move each followed, as the export writes them."""
        g = board.game
        notes = game_record.arbiter_notes(rec)
        tokens = ["{%s}" % t for t in notes.get(0, ())]
        for ply in range(1, g.plies + 1):
            if ply % 2:
                tokens.append("%d." % ((ply + 1) // 2))
            tokens.append("--")
            m = g.moves.get(ply)
            if m is not None:
                tokens.append("{[%%clk %s]}" % live_feed.clock_hms(m[3]))
            tokens += ["{%s}" % t for t in notes.get(ply, ())]
        tokens += ["{%s}" % t for p in sorted(notes) if p > g.plies for t in notes[p]]
        return "\n".join(export_games._wrap(tokens + [result]))

    def _read_moves(self):
        """The MOVES file's text, read again when its size or time changed."""
        if self.moves is None:
            return None
        try:
            st = self.moves.stat()
            seen = (st.st_mtime_ns, st.st_size)
            if seen != self._moves_seen:
                self._moves_text = decode(self.moves.read_bytes())
                self._moves_seen = seen
        except OSError:
            return None
        return self._moves_text

    def _uptos(self, text):
        """ClockUpTo for each board whose game in MOVES is a half-move ahead of its clock
        (the move is on the board, the clock not yet pressed) or behind it (the operator
        has not typed the last move yet): the times go on the moves both have."""
        uptos = {}
        try:
            sheets = read_sheets(text)
        except Exception:
            return uptos
        for b in self.boards:
            if b.number - 1 < len(sheets):
                sheet = sheets[b.number - 1]
                if sheet.game is None or "ClockUpTo" in sheet.game.headers:
                    continue
                n, presses = len(sheet.plies), b.game.plies
                if presses and n and abs(n - presses) == 1:
                    uptos[sheet.number] = str(min(n, presses))
        return uptos

    def pgn_text(self):
        stems = {"board%d" % b.number: b for b in self.boards}
        merged = {}
        moves = self._read_moves()
        problems = []
        if moves is not None:
            records = [
                export_games.Record(stem, stem + ".json", b.game.record(), None)
                for stem, b in stems.items()
            ]
            m = export_games.Moves(self.moves, moves[0], moves[1], {}, {}, self._uptos(moves[0]))
            try:
                merged, _texts, problems, _lines = export_games.merge_moves(records, m)
            except Exception as exc:  # a file being written: the next rewrite reads it again
                problems = ["%s: %s" % (self.moves.name, exc)]
        # Reported when they change, not at every press: a report that differs only in
        # its counts is the same one.
        keys = [re.sub(r"\d+", "#", p) for p in problems]
        if keys != self.problems:
            self.problems = keys
            for p in problems:
                print("live.py: %s" % p, file=self.err)
        games = []
        for stem, board in stems.items():
            rec, tags = self.board_tags(board)
            if stem in merged:
                pgn = chess.pgn.read_game(io.StringIO(merged[stem]))
                for k, v in tags:
                    if k in ("Result", "Termination", "TimeControl") and pgn.headers.get(k):
                        continue  # the merge's (it notes where the two disagree)
                    if v == "?" and pgn.headers.get(k, "?") != "?":
                        continue  # the moves file's names where the pairings have none
                    pgn.headers[k] = v
                for k in ("ClockFile", "ClockControl"):
                    pgn.headers.pop(k, None)
                games.append(str(pgn).strip() + "\n")
                continue
            head = "\n".join(pgn_headers.tag_line(k, v) for k, v in tags)
            games.append(head + "\n\n" + self.null_movetext(board, rec["result"], rec) + "\n")
        return "\n".join(games)

    def write_pgn(self):
        text = self.pgn_text()
        self.out.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=str(self.out.parent), prefix=".live-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, self.out)
        self.pgn = text

    def link_news(self):
        """Lines for the terminal: each board whose link state changed since the last call
        (connected, unplugged, silent)."""
        out = []
        with self.lock:
            now = self.clock()
            for b in self.boards:
                status = b.status(now)
                if status != getattr(b, "told", "waiting"):
                    b.told = status
                    what = {
                        "silent": "silent: a game in progress and no line for %d s" % SILENT_S,
                        "unplugged": "unplugged (%s): its game stays; opening it again" % b.port,
                    }.get(status, status)
                    out.append("board %d: %s" % (b.number, what))
        return out

    # ------------------------------------------------------------ page
    def state(self):
        with self.lock:
            now = self.clock()
            boards = []
            for b in self.boards:
                at = b.known_at(now)
                v = b.game.view(at)
                v["board"] = b.number
                v["names"] = self.names(b.number)
                v["link"] = b.status(now)
                # how long after `now` the page may count the times on by itself (ms)
                heard = b.game.heard
                fresh = 0.0 if at < now or heard is None else heard + SILENT_S - now
                v["fresh_ms"] = int(fresh * 1000)
                boards.append(v)
            return {
                "version": self.version,
                "now": now,  # the instant the times are for (the hub's clock, s)
                "event": self.event,
                "round": self.round,
                "boards": boards,
            }


class Reader(threading.Thread):
    """Reads one board's port until `stop` is set; reopens it when it goes away."""

    def __init__(self, hub, board, opener, stop, find=None):
        super().__init__(daemon=True, name="board%d" % board.number)
        self.hub, self.board, self.opener, self.stop, self.find = hub, board, opener, stop, find

    def run(self):
        while not self.stop.is_set():
            port = self.find(self.board.port) if self.find else self.board.port
            try:
                if port is None:
                    raise OSError("not on USB")
                link = self.opener(port)
            except Exception:
                self.hub.set_link(self.board, "unplugged" if self.board.ever else "waiting")
                self.stop.wait(RETRY_S)
                continue
            self.hub.set_link(self.board, "connected")
            try:
                while not self.stop.is_set():
                    data = link.read(4096)
                    if data:
                        self.hub.data(self.board, data)
            except Exception:
                pass  # unplugged: open it again
            finally:
                try:
                    link.close()
                except Exception:
                    pass
            self.hub.set_link(self.board, "unplugged")
            self.stop.wait(RETRY_S)


def handler_for(hub, stop):
    page = PAGE.read_bytes()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _send(self, body, kind):
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Cache-Control", "no-store")
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            path = self.path.split("?")[0]
            if path == "/":
                self._send(page, "text/html; charset=utf-8")
            elif path == "/live.pgn":
                with hub.lock:
                    text = hub.pgn_text()
                self._send(text.encode(), "application/x-chess-pgn; charset=utf-8")
            elif path == "/state.json":
                self._send(json.dumps(hub.state()).encode(), "application/json")
            elif path == "/events":
                self._events()
            else:
                self.send_error(404)

        def _events(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            seen = -1
            try:
                while not stop.is_set():
                    with hub.lock:
                        if hub.version == seen:
                            hub.lock.wait(1.0)  # at least once a second: the links age
                    state = hub.state()
                    seen = state["version"]
                    self.wfile.write(b"data: " + json.dumps(state).encode() + b"\n\n")
                    self.wfile.flush()
            except OSError:
                pass  # the page went away

    return Handler


def serve(hub, port, stop):
    server = ThreadingHTTPServer(("127.0.0.1", port), handler_for(hub, stop))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True, name="http").start()
    return server


def parse_ports(specs):
    """['/dev/a', '3=/dev/b'] -> [(1, '/dev/a'), (3, '/dev/b')] (numbers in order)."""
    out, n = [], 0
    for spec in specs:
        for item in spec.split():
            number, sep, port = item.partition("=")
            if sep and number.isdigit():
                n = int(number)
            else:
                n, port = n + 1, item
            out.append((n, port))
    return out


class Discovery:
    """Without --port: every Pico on USB is a board, numbered in the order of their USB
    serial numbers, and one plugged in later becomes the next board. `ports()` is
    pico_ports (tests give their own); `start(board)` starts its reader."""

    def __init__(self, hub, ports, start):
        self.hub, self.ports, self.start = hub, ports, start
        self.known = set()

    def find(self, serial_number):
        return self.ports().get(serial_number)

    def look(self):
        """Adds a board for each Pico not seen before; returns the new boards."""
        added = []
        for serial_number in sorted(self.ports()):
            if serial_number in self.known:
                continue
            self.known.add(serial_number)
            number = max((b.number for b in self.hub.boards), default=0) + 1
            board = Board(number, serial_number)
            self.hub.add_board(board)
            self.start(board)
            added.append(board)
        return added


def listen_problem(exc, port):
    """The one line for a listen port that cannot be had."""
    if exc.errno == errno.EADDRINUSE:
        return (
            "live.py: port %d on 127.0.0.1 is in use (another `make live`?): end that one, "
            "or give this one another port: HTTP_PORT=%d (--http-port)" % (port, port + 1)
        )
    return "live.py: cannot listen on 127.0.0.1:%d: %s" % (port, exc.strerror or exc)


def main(argv=None, opener=open_serial, out=sys.stdout, ports=pico_ports, stop=None, err=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", action="append", default=[], help="[BOARD=]PORT, repeatable")
    parser.add_argument("--pairings", default="", help="pairings file (see the module doc)")
    parser.add_argument("--moves", default="", help="PGN an e-board program keeps writing")
    parser.add_argument("--out", default="live.pgn", help="the live PGN (default live.pgn)")
    parser.add_argument("--http-port", type=int, default=HTTP_PORT)
    parser.add_argument("--event", default="")
    parser.add_argument("--round", default="")
    args = parser.parse_args(argv)
    err = sys.stderr if err is None else err
    pairings = None
    if args.pairings:
        pairings = read_pairings(Path(args.pairings).read_text(encoding="utf-8"))
    specs = parse_ports(args.port)
    boards = [Board(n, p) for n, p in specs]
    hub = Hub(boards, args.out, pairings, args.moves or None, args.event, args.round)
    stop = threading.Event() if stop is None else stop
    try:
        server = serve(hub, args.http_port, stop)
    except OSError as exc:
        print(listen_problem(exc, args.http_port), file=err)
        return 1
    discovery = None
    try:
        hub.write_pgn()
        for b in boards:
            Reader(hub, b, opener, stop).start()
        if not specs:
            discovery = Discovery(
                hub, ports, lambda b: Reader(hub, b, opener, stop, discovery.find).start()
            )
            discovery.look()
        print(
            "live: page http://127.0.0.1:%d/  PGN http://127.0.0.1:%d/live.pgn  and %s "
            "(Ctrl-C ends)" % (args.http_port, args.http_port, args.out),
            file=out,
        )
        for b in hub.boards:
            print("live: board %d: %s" % (b.number, b.port), file=out)
        if discovery is not None and not hub.boards:
            print("live: no clock on USB yet: each one plugged in becomes a board", file=out)
        out.flush()
        while not stop.wait(RETRY_S):
            if discovery is not None:
                for b in discovery.look():
                    print("live: board %d: the Pico %s" % (b.number, b.port), file=out, flush=True)
            for line in hub.link_news():
                print("live: %s" % line, file=out, flush=True)
            with hub.lock:
                hub.lock.notify_all()
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
