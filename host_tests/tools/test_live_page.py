"""The live page (tools/live/live_page.html) in a real headless browser: Debian's chromium driven
by playwright-core (harness/page_driver.mjs), served by tools/live/live.py on 127.0.0.1 and fed
by the simulated board's feed through the USB fake (test_live.Linked).

At sampled instants of a game (the simulation stands while the page is read) the page's
four characters and colon on each side are the clock's own displays (the TM1637 decoder's
reading); the side on move is marked; a fallen flag and the result appear; a line from the
clock reaches the page within a bounded time (the figure measured is printed); the
transparent option clears the background. Skipped, with one line, without chromium or
playwright-core. LIVE_SCREENSHOT=PATH writes the screenshot there (docs/live.png).
"""

import json
import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from test_feed_board import play_moves
from test_firmware_e2e import game, tap
from test_live import Linked

ROOT = Path(__file__).resolve().parents[2]
DRIVER = ROOT / "host_tests" / "harness" / "page_driver.mjs"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")

import live  # noqa: E402  (test_live put tools/ on the path)


def _missing():
    if not (shutil.which(CHROMIUM) or Path(CHROMIUM).exists()):
        return "chromium not installed (apt-get install chromium)"
    if not (ROOT / "node_modules" / "playwright-core").exists():
        return "playwright-core not installed (npm ci)"
    if not shutil.which("node"):
        return "node not installed"
    return None


pytestmark = pytest.mark.skipif(_missing() is not None, reason=str(_missing()))


class Driver:
    def __init__(self):
        env = dict(os.environ, CHROMIUM=CHROMIUM)
        self.p = subprocess.Popen(
            ["node", str(DRIVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=str(ROOT),
        )

    def ask(self, **cmd):
        self.p.stdin.write(json.dumps(cmd) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        assert line, "the page driver ended"
        out = json.loads(line)
        assert "error" not in out, out["error"]
        return out

    def close(self):
        try:
            self.p.stdin.write(json.dumps({"cmd": "quit"}) + "\n")
            self.p.stdin.flush()
            self.p.wait(timeout=30)
        except Exception:
            self.p.kill()


@pytest.fixture
def served(tmp_path):
    pairings = live.read_pairings(
        "Event: Club Open\nRound: 4\n"
        "1: Ada Lovelace - Alan Turing\n2: Emanuel Lasker - Jose Capablanca\n"
    )
    link = Linked(tmp_path, boards=2, pairings=pairings)
    stop = threading.Event()
    server = live.serve(link.hub, 0, stop)
    drv = Driver()
    link.url = "http://127.0.0.1:%d/" % server.server_address[1]
    link.stop = stop
    try:
        yield link, drv
    finally:
        stop.set()
        drv.close()
        server.shutdown()


def settle(link, drv, limit_ms=10_000):
    """Wait (bounded) until the page has the hub's newest state; returns the ms it took."""
    with link.hub.lock:
        link.hub.lock.notify_all()
    out = drv.ask(cmd="wait", version=link.hub.version, limit_ms=limit_ms)
    assert out["ok"], "the page did not get version %d in %d ms" % (link.hub.version, limit_ms)
    return out["ms"]


def page_sides(link, drv, board=0):
    return drv.ask(cmd="read", at=link.now())["boards"][board]


def assert_page_is_the_clock(link, drv):
    settle(link, drv)
    b = page_sides(link, drv)
    clock = link.clock
    for side in (0, 1):
        shown = clock.display(side)
        assert (b["sides"][side]["text"], b["sides"][side]["colon"]) == shown, (side, b)
    return b


def test_the_page_shows_what_the_clock_shows(served, tmp_path):
    link, drv = served
    clock = link.clock
    drv.ask(cmd="open", url=link.url)
    clock.press("left")  # right has White
    for k in range(8):
        play_moves(clock, 1, 650 + 211 * k)
        clock.run_ms(97 + 389 * k % 900)
        b = assert_page_is_the_clock(link, drv)
        g = game(clock)
        assert [s["on"] for s in b["sides"]] == [g.running == 0, g.running == 1]
    assert b["sides"][1]["name"] == "Ada Lovelace"  # right has White
    clock.run_ms(game(clock).remaining(game(clock).running, clock.mono_ms()) - 4_321)
    assert game(clock).state == 1
    assert_page_is_the_clock(link, drv)  # the tenths layout
    clock.run_ms(10_000)
    settle(link, drv)
    b = page_sides(link, drv)
    g = game(clock)
    assert g.state == 3
    assert "FLAG" in b["sides"][g.first_flag]["info"]
    assert b["sides"][g.first_flag]["text"] == " 00 "
    tap(clock, "set")
    tap(clock, "play")
    tap(clock, "play")  # the result recorded
    settle(link, drv)
    b = page_sides(link, drv)
    assert b["result"] in ("1-0 (flag)", "0-1 (flag)")


def test_a_line_reaches_the_page_quickly_and_the_overlay_is_transparent(served, tmp_path):
    link, drv = served
    clock = link.clock
    drv.ask(cmd="open", url=link.url + "?transparent=1")
    assert drv.ask(cmd="background")["color"] in ("rgba(0, 0, 0, 0)", "transparent")
    clock.press("left")
    waits = []
    for _ in range(5):
        play_moves(clock, 1, 1_000)
        waits.append(settle(link, drv, limit_ms=5_000))  # the page polls with a bound only
    print("the page had each move's line %d ms (max) after the port" % max(waits))
    # board 2: a clock that is unplugged
    link.hub.set_link(link.boards[1], "unplugged")
    settle(link, drv)
    assert drv.ask(cmd="read", at=None)["boards"][1]["link"] == "unplugged"


def test_screenshot(served, tmp_path):
    """The page with two boards: one live from the simulated clock, one fed canned lines
    (a flag has fallen there)."""
    link, drv = served
    clock = link.clock
    hub = link.hub
    b2 = link.boards[1]
    hub.set_link(b2, "connected")
    drv.ask(cmd="open", url=link.url, width=1280, height=400)
    clock.press("left")
    play_moves(clock, 9, 2_300)
    clock.run_ms(1_250)
    for line in (
        b"#CLK1 0 G 0 0 0 300000,0,1,3000 300000,0,1,3000 0 *",
        b"#CLK1 1 T 3 0 0 41700 0 0 0 0 0 1 0 31 30 61 *",
        b"#CLK1 2 F 0 0 900000 31 *",
    ):
        hub.data(b2, line + b"\r\n")
    settle(link, drv)
    drv.ask(cmd="read", at=link.now())
    path = os.environ.get("LIVE_SCREENSHOT") or str(tmp_path / "live.png")
    drv.ask(cmd="shot", path=path)
    assert Path(path).stat().st_size > 10_000


def test_a_board_not_heard_stands_and_says_no_signal(served, tmp_path):
    """Board 2's clock says it runs (right: 15 s, then 3 s) and then nothing more: the
    page counts its time on for the silence limit only, then the clock stands and the
    board says "no signal"; a clock the page counts down never reaches 0 by itself."""
    link, drv = served
    hub, b2 = link.hub, link.boards[1]
    hub.set_link(b2, "connected")
    drv.ask(cmd="open", url=link.url)
    hub.data(b2, b"#CLK1 0 G 1 0 0 60000,0,0,0 60000,0,0,0 0 *\r\n")
    hub.data(b2, b"#CLK1 1 T 1 1 60000 15000 0 0 0 0 0 0 -1 0 0 0 *\r\n")
    settle(link, drv)
    link.clock.run_ms(4_000)  # board 1's clock only: board 2 hears nothing
    b = page_sides(link, drv, 1)
    assert (b["link"], b["sides"][1]["text"]) == ("", " 011")  # 11 s, counted on
    link.clock.run_ms(int(live.SILENT_S * 1000))
    for _ in range(2):
        settle(link, drv)
        b = page_sides(link, drv, 1)
        assert b["link"] == "no signal"
        assert b["sides"][1]["text"] == " 50 "  # 15 s - the silence limit
        assert "FLAG" not in b["sides"][1]["info"] and "stand" in b["result"]
        link.clock.run_ms(30_000)
    hub.data(b2, b"#CLK1 2 T 1 1 60000 3000 0 0 0 0 0 0 -1 0 0 0 *\r\n")  # heard again
    settle(link, drv)
    b = page_sides(link, drv, 1)
    assert (b["link"], b["sides"][1]["text"], b["sides"][1]["on"]) == ("", " 30 ", True)
    link.clock.run_ms(5_000)  # past its 3 s, no flag from the board
    b = page_sides(link, drv, 1)
    assert b["sides"][1]["text"] == " 01 "
    hub.data(b2, b"#CLK1 3 F 1 1 0 0 *\r\n#CLK1 4 T 3 1 60000 0 0 0 0 0 0 2 1 0 0 0 *\r\n")
    settle(link, drv)
    b = page_sides(link, drv, 1)
    assert (b["sides"][1]["text"], "FLAG" in b["sides"][1]["info"]) == (" 00 ", True)


def test_the_page_that_hears_nothing_from_make_live_stands_and_says_no_signal(served):
    """`make live` gone (here: its event streams end and none starts again): after GONE_MS
    without a message every board says "no signal" and its running clock stands."""
    link, drv = served
    drv.ask(cmd="open", url=link.url)
    link.clock.press("left")
    play_moves(link.clock, 2, 900)
    settle(link, drv)
    assert drv.ask(cmd="read", at=None)["boards"][0]["link"] == ""
    link.stop.set()  # every /events stream ends; the page's reconnections get nothing

    def standing():
        b = drv.ask(cmd="read", at=None)["boards"][0]
        return b["link"] == "no signal" and b

    b = None
    for _ in range(200):  # bounded: GONE_MS (3 s) and the page's 50 ms redraw
        b = standing()
        if b:
            break
        drv.ask(cmd="wait", version=10**9, limit_ms=50)  # waits 50 ms in the page
    assert b, "the page never said no signal"
    ms = [s["shown"] for s in b["sides"]]
    drv.ask(cmd="wait", version=10**9, limit_ms=1_500)
    again = standing()
    assert again and [s["shown"] for s in again["sides"]] == ms  # stands
