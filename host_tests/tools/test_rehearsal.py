"""The organiser's rehearsal of a broadcast without a board (docs/live.md), end to end, as
separate programs: `make sim SIMARGS=--usb` (the simulator in tmux, at speed 1, its USB port
on a socket), `make live PORT=socket://...` (tools/live/live.py), the live PGN, and the page
in headless Chromium (harness/page_driver.mjs).

Lever presses typed into the simulator reach the PGN (Date, clock tags, a [%clk] per
half-move) and the page, whose digits are the simulator's displays; a second `make live` on
the same listen port ends in one line with exit status 1 and leaves the first one's PGN
alone; the simulator quit, the board says "unplugged" and its times stand; Ctrl-C ends
`make live` with exit status 0. Skipped without tmux, chromium or playwright-core.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from test_live_page import Driver, _missing
from test_sim import _displays, _screen, _wait_for

ROOT = Path(__file__).resolve().parents[2]
SIM = ROOT / "tools" / "sim" / "sim.py"
LIVE = ROOT / "tools" / "live" / "live.py"

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.skipif(_missing() is not None, reason=str(_missing())),
]


PACE_S = 0.3  # the least time between two typed levers, s of the simulator's time


def sim_seconds(lines):
    """The simulator's own time (its "t=" line, s) on a captured screen; -1 if not drawn."""
    for line in lines:
        m = re.search(r"\bt=\s*([0-9.]+) s\b", line)
        if m:
            return float(m.group(1))
    return -1.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(pred, limit_s=30.0):
    """Poll `pred` (bounded): True as soon as it holds."""
    ev = threading.Event()
    for _ in range(int(limit_s / 0.05)):
        if pred():
            return True
        ev.wait(0.05)
    return pred()


def _ctrl_c_as_at_a_terminal():
    """SIGINT at its default in the child, as for a command typed at a terminal, so Python
    turns it into KeyboardInterrupt: a test run started in the background by a
    non-interactive shell inherits SIGINT ignored, and Python keeps it ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Live:
    """tools/live/live.py as `make live` starts it, its output collected."""

    def __init__(self, *argv):
        self.p = subprocess.Popen(
            [sys.executable, str(LIVE), *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=str(ROOT),
            preexec_fn=_ctrl_c_as_at_a_terminal,
        )
        self.out = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.out.append(line)

    def said(self, text):
        return any(text in line for line in self.out)

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)  # Ctrl-C
        try:
            return self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            raise


def test_the_makefile_passes_a_socket_url_to_make_live():
    dry = subprocess.run(
        ["make", "-n", "-o", ".venv/.deps-installed", "live", "PORT=socket://127.0.0.1:8131"],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
    )
    assert dry.returncode == 0, dry.stderr
    assert '--port "socket://127.0.0.1:8131"' in dry.stdout


def test_a_broadcast_rehearsed_on_the_simulator(tmp_path):
    usb, http = free_port(), free_port()
    tmux = ["tmux", "-L", "rehearsal-" + uuid.uuid4().hex[:8], "-f", "/dev/null"]
    cmd = "%s %s --flash %s --usb %d" % (sys.executable, SIM, tmp_path / "flash", usb)
    subprocess.run(
        tmux + ["new-session", "-d", "-s", "sim", "-x", "100", "-y", "40", cmd],
        check=True,
        env={"PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8"},
    )
    pgn = tmp_path / "live.pgn"
    url = "socket://127.0.0.1:%d" % usb
    live = drv = None
    try:
        _wait_for(lambda s: _displays(s) == (("1h30", False),) * 2, tmux, "sim")
        day = time.strftime("%Y.%m.%d")
        live = Live("--port", url, "--out", str(pgn), "--http-port", str(http))
        assert wait_until(lambda: live.said("board 1: connected")), live.out

        # a second `make live` on the same listen port: one line, status 1, PGN untouched
        before = pgn.read_text()
        second = subprocess.run(
            [sys.executable, str(LIVE), "--port", url, "--out", str(pgn)]
            + ["--http-port", str(http)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 1
        assert second.stderr.splitlines() == [
            "live.py: port %d on 127.0.0.1 is in use (another `make live`?): end that one, "
            "or give this one another port: HTTP_PORT=%d (--http-port)" % (http, http + 1)
        ]
        assert pgn.read_text() == before

        def keys(k):
            """Lever `k` typed at a player's pace: at least PACE_S of the simulator's own
            time after the previous key's effect was seen. A lever typed sooner after the
            other one's press (the feed's line reaches the PGN in a few ms of wall time) is
            the firmware's two-lever slap (BOTH_LEVERS_MS), rightly ignored."""
            since = sim_seconds(_screen(tmux, "sim"))
            assert wait_until(lambda: sim_seconds(_screen(tmux, "sim")) >= since + PACE_S)
            subprocess.run(tmux + ["send-keys", "-t", "sim", k], check=True)

        keys("z")  # Black presses: White's (right) clock runs
        assert wait_until(lambda: "ReferenceTime" in pgn.read_text()), pgn.read_text()
        keys("m")  # White's move: Black's (left) clock runs
        assert wait_until(lambda: pgn.read_text().count("[%clk") == 1), pgn.read_text()
        keys("z")  # Black's move
        assert wait_until(lambda: pgn.read_text().count("[%clk") == 2), pgn.read_text()
        text = pgn.read_text()
        assert '[Board "1"]' in text and '[Result "*"]' in text
        assert '[Date "%s"]' % day in text or '[Date "%s"]' % time.strftime("%Y.%m.%d") in text
        assert '[ReferenceTime "W/' in text  # White moved at "m", Black at "z": White runs

        drv = Driver()
        drv.ask(cmd="open", url="http://127.0.0.1:%d/" % http)
        assert drv.ask(cmd="wait", version=1, limit_ms=10_000)["ok"]

        def page_is_the_simulator():
            shown = _displays(_screen(tmux, "sim"))
            b = drv.ask(cmd="read", at=None)["boards"][0]
            page = tuple((s["text"], s["colon"]) for s in b["sides"])
            return shown is not None and page == tuple(shown) and b["link"] == ""

        assert wait_until(page_is_the_simulator, 20.0)  # h:mm: equal but at a minute's turn

        subprocess.run(tmux + ["kill-server"], capture_output=True)  # the simulator gone
        assert wait_until(lambda: live.said("board 1: unplugged")), live.out
        state = json.loads(
            urllib.request.urlopen("http://127.0.0.1:%d/state.json" % http, timeout=10).read()
        )
        board = state["boards"][0]
        assert board["link"] == "unplugged" and board["fresh_ms"] == 0
        assert wait_until(lambda: drv.ask(cmd="read", at=None)["boards"][0]["link"] == "unplugged")
        again = json.loads(
            urllib.request.urlopen("http://127.0.0.1:%d/state.json" % http, timeout=10).read()
        )
        assert again["now"] > state["now"] and again["boards"][0]["times"] == board["times"]
        assert live.stop() == 0  # Ctrl-C
        live = None
    finally:
        subprocess.run(tmux + ["kill-server"], capture_output=True)
        if drv is not None:
            drv.close()
        if live is not None:
            live.stop()
    assert os.path.exists(pgn)
