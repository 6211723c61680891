"""`make live` end to end on the emulated chip (tools/chip/chip.py: real MicroPython rp2 in
rp2040js, its USB CDC read by the emulator's host as a program with the port open does):
lever presses on the chip's pins, the feed on its USB port, tools/live/live.py's hub fed each
USB packet at the emulated instant it arrived, and from that the live PGN and the page.

What it proves: the chip's feed rebuilds the game exactly as the chip's own record
(games/g000.json, read back through the REPL after the result) has it, moves to the ms
and the result; the PGN has one [%clk] per half-move from it; and at sampled instants the
hub's times, drawn as the page draws them (live_feed.display_text, and in chromium the
page itself when it is installed), are the chip's displays (the TM1637 bus as decoded).
Skipped, as the other chip tests, without MICROPYTHON_UF2.
"""

import io
import threading

import chess.pgn
import chip
import chip_env
import live
import live_feed
import pytest

MS = chip.MS
_UF2, _BOOTROM = chip_env.require()

BULLET_1_0 = 8
BOOT_MS = chip.BOOT_MS
SIDES = ("left", "right")


@pytest.fixture(scope="module")
def played():
    """Bullet 1+0 on the chip: Black (left) starts White's clock, 8 moves, a pause, White's
    flag, the result recorded. Returns (trace, record, sample instants in ns)."""
    pico = chip.Chip(_UF2, _BOOTROM)
    with pico.session() as s:
        s.run_to(BOOT_MS)
        s.choose_preset(BULLET_1_0)
        s.press("left")
        running = 1
        samples = []
        for k in range(8):
            s.run_ms(700 + 173 * k)
            samples.append((s.t - 311) * MS)  # inside the turn
            s.press(SIDES[running], after_ms=0)
            running = 1 - running
            s.run_ms(60)
        s.tap("play")  # pause
        samples.append((s.t + 500) * MS)
        s.run_ms(2_000)
        s.tap("play")  # resume
        s.run_ms(4_000)
        samples.append(s.t * MS)
        s.run_ms(60_000)  # White's flag
        samples.append(s.t * MS)
        s.tap("set")  # the material entry: the flag loses
        s.tap("play")
        s.tap("play")  # recorded
        s.run_ms(500)
        tr = s.trace()
        record = s.repl_json("import json\nprint(json.dumps(json.load(open('games/g000.json'))))")
        # A wakeup's error (a MemoryError under the heap lock, say) goes to errors.log
        record["errors.log"] = chip.read_file(s.save_flash(), "errors.log")
    return tr, record, samples


def chunks(tr):
    """[(ns, bytes)]: each USB packet the host read, at its emulated instant."""
    data = tr.serial.encode("latin1")
    out, prev = [], 0
    for ns, end in tr.serial_at:
        out.append((ns, data[prev:end]))
        prev = end
    return out


class ChipHub:
    """A live.Hub fed the chip's packets up to an instant; its clock is the chip's."""

    def __init__(self, tr, tmp_path):
        self.t = 0.0
        self.board = live.Board(1, "chip")
        self.hub = live.Hub([self.board], tmp_path / "live.pgn", clock=lambda: self.t)
        self.hub.set_link(self.board, "connected")
        self.todo = chunks(tr)

    def run_to(self, ns):
        while self.todo and self.todo[0][0] <= ns:
            at, data = self.todo.pop(0)
            self.t = at / 1e9
            self.hub.data(self.board, data)
        self.t = ns / 1e9


def test_the_chips_feed_is_its_record(played, tmp_path):
    tr, record, _ = played
    assert tr.reset is None and tr.emulator_errors == []
    assert record.get("errors.log") is None
    h = ChipHub(tr, tmp_path)
    h.run_to(tr.now_ns)
    g = h.board.game
    assert g.lost == 0
    assert g.record()["moves"] == record["moves"]  # every half-move, to the ms
    assert (g.result_text(), g.reason_text(), g.white()) == (
        record["result"],
        record["reason"],
        record["white"],
    )
    assert [e for _, e in g.events][:2] == ["pause", "resume"]
    pgn = chess.pgn.read_game(io.StringIO((tmp_path / "live.pgn").read_text()))
    assert pgn.headers["Result"] == record["result"] and pgn.headers["TimeControl"] == "60"
    assert [n.clock() for n in pgn.mainline()] == [m[3] // 1000 for m in record["moves"]]
    assert "Traceback" not in tr.serial


def test_the_page_shows_the_chips_displays(played, tmp_path):
    tr, _, samples = played
    h = ChipHub(tr, tmp_path)
    drv = None
    try:
        from test_live_page import Driver, _missing

        if _missing() is None:
            stop = threading.Event()
            server = live.serve(h.hub, 0, stop)
            drv = Driver()
            drv.ask(cmd="open", url="http://127.0.0.1:%d/" % server.server_address[1])
        for ns in samples:
            h.run_to(ns)
            view = h.hub.state()["boards"][0]
            # the displays 10 ms either side: a sample is taken where they stand still, for
            # longer than a line's lag behind its instant (a press's record goes to the flash
            # first, within 10 ms: docs/journal.md)
            shown = [tr.shown_at(side, ns) for side in (0, 1)]
            assert shown == [tr.shown_at(side, ns - 10 * MS) for side in (0, 1)]
            assert shown == [tr.shown_at(side, ns + 10 * MS) for side in (0, 1)]
            texts = [live_feed.display_text(view["times"][side], True) for side in (0, 1)]
            if view["flags"] == 0:
                assert texts == [x[0] for x in shown], (ns, view)
            if drv is not None:
                with h.hub.lock:
                    h.hub.lock.notify_all()
                assert drv.ask(cmd="wait", version=h.hub.version, limit_ms=10_000)["ok"]
                page = drv.ask(cmd="read", at=h.t)["boards"][0]
                assert [s["text"] for s in page["sides"]] == texts
                if view["flags"] == 0:
                    # the colons of the sides not on move (the running side's beat on the
                    # page is not held to the chip's phase here: its lines come after the
                    # press's record, which moves the page's phase)
                    for side, s in enumerate(page["sides"]):
                        if not s["on"]:
                            assert s["colon"] == shown[side][1], (side, ns)
                else:
                    assert "FLAG" in page["sides"][view["first_flag"]]["info"]
    finally:
        if drv is not None:
            stop.set()
            drv.close()
            server.shutdown()
