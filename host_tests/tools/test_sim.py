"""tools/sim/sim.py (`make sim`): script mode, the big-digit drawing, and the terminal UI in tmux.

The tmux test drives the simulator the way a person would (keys in, screen out) and reads
the big digits back from the screen with its own decoder, so it checks the whole path from
the firmware's TM1637 traffic to the characters drawn.
"""

import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SIM = ROOT / "tools" / "sim" / "sim.py"
LINE = re.compile(r"^t=(\d+) L='([^']*)' R='([^']*)' leds=([01])([01]) buzz=([01])$")


def run_script(tmp_path, text, *args):
    script = tmp_path / "script.txt"
    script.write_text(text)
    return subprocess.run(
        [sys.executable, str(SIM), "--flash", str(tmp_path / "flash"), "--script", str(script)]
        + list(args),
        capture_output=True,
        text=True,
        timeout=60,
    )


def states(stdout):
    out = []
    for line in stdout.splitlines():
        m = LINE.match(line)
        assert m, line
        t, left, right, led_l, led_r, buzz = m.groups()
        out.append((int(t), left, right, (int(led_l), int(led_r)), buzz == "1"))
    return out


# ------------------------------------------------------------------ script mode


def test_script_lever_starts_the_right_clock_counting_down(tmp_path):
    r = run_script(
        tmp_path,
        "wait 500\nshow\nz   # Black presses: White's clock (right) runs\nwait 125000\nshow\n",
    )
    assert r.returncode == 0, r.stderr
    (t0, l0, r0, leds0, _), (t1, l1, r1, leds1, _) = states(r.stdout)
    assert (t0, l0, r0, leds0) == (500, "1h30", "1h30", (0, 0))
    assert t1 == 500 + 80 + 125_000  # a tap holds the lever 80 ms
    assert leds1 == (0, 1)
    assert l1 == "1h30"  # the left clock did not move
    assert r1 == "1h28"  # 125 s off 1 h 30 min: 1 h 27 min 55 s left, shown as h:mm


def test_script_display_lcd_runs_the_lcd_build(tmp_path):
    """`make sim DISPLAY=lcd`: the same script on the LCD build's glasses, h:mm:ss with the
    glass's points (a "." after its digit)."""
    r = run_script(
        tmp_path,
        "wait 500\nshow\nz   # Black presses: White's clock (right) runs\nwait 125000\nshow\n",
        "--display",
        "lcd",
    )
    assert r.returncode == 0, r.stderr
    (t0, l0, r0, leds0, _), (t1, l1, r1, leds1, _) = states(r.stdout)
    assert (l0, r0, leds0) == ("1h30.00", "1h30.00", (0, 0))
    assert leds1[0] == 0  # the right LED flashes on this build (ui_game.py): off between
    assert l1 == "1h30.00"
    assert r1 in ("1h27.55", "1h2755")  # 125 s off 1:30:00; the running side's dot beats


def test_every_lcd_segment_pattern_draws_its_digits_and_points():
    sim = _load_sim()
    for seg in range(256):
        segs = bytes((seg,) * 6)
        rows = sim.big_display(segs, "#")
        assert len(rows) == sim.DIGIT_H
        cell = sim.DIGIT_W + 1  # a digit and its point column
        for i in range(6):
            digit = [row[i * cell : i * cell + sim.DIGIT_W] for row in rows]
            assert digit == sim.big_digit(seg, "#")
            point = [row[i * cell + sim.DIGIT_W] for row in rows]
            assert point == [" "] * (sim.DIGIT_H - 1) + ["#" if seg & 0x80 else " "]


def test_script_changes_and_print_every(tmp_path):
    r = run_script(tmp_path, "wait 300\n100000 m\n", "--changes")
    assert r.returncode == 0, r.stderr
    seen = states(r.stdout)
    assert [s[0] for s in seen] == sorted(s[0] for s in seen)
    # The loop draws at its first wakeup, at boot: the first sample (10 ms) shows the times.
    assert seen[0][0] == 10 and seen[0][1:3] == ("1h30", "1h30")
    assert seen[-1][3] == (1, 0)  # White's lever press started Black's (left) clock

    r = run_script(tmp_path, "wait 1000\n", "--print-every", "250")
    assert [s[0] for s in states(r.stdout)] == [250, 500, 750, 1000]


def test_script_power_cycle_keeps_the_flash_and_boots_again(tmp_path):
    r = run_script(tmp_path, "wait 500\noff\nwait 2000\nshow\non\nwait 500\nshow\n")
    assert r.returncode == 0, r.stderr
    off, on = states(r.stdout)
    assert off[1:] == ("    ", "    ", (0, 0), False)
    assert on[0] == 3000 and on[1] != "    "


@pytest.mark.parametrize("bad", ["wait\n", "wait soon\n", "jump\n", "hold nobody 100\n"])
def test_script_bad_line_is_reported_with_its_number(tmp_path, bad):
    r = run_script(tmp_path, "wait 100\n" + bad)
    assert r.returncode != 0
    assert "script line 2" in r.stderr


def test_ctrl_c_ends_script_mode_during_a_game(tmp_path):
    """SIGINT while a script's game runs ends the simulator (exit status 130), though the
    firmware ignores a KeyboardInterrupt during a game (a USB host's Ctrl-C)."""
    script = tmp_path / "script.txt"
    # a game, its state line, then days of it in one run of the firmware: the signal comes
    # inside the firmware's loop
    script.write_text("wait 300\nz\nshow\nwait 100000000\n")
    cmd = [sys.executable, str(SIM), "--flash", str(tmp_path / "flash"), "--script", str(script)]
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        for line in proc.stdout:  # the right clock runs: its LED
            if "leds=01" in line:
                break
        else:
            pytest.fail("the game never started: " + proc.stderr.read())
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=END_S) == 130
    finally:
        proc.kill()
        proc.wait()


# ------------------------------------------------------------------ the drawing


def _load_sim():
    spec = importlib.util.spec_from_file_location("sim_under_test", SIM)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# Where each segment shows in a digit cell (row, column); anything but a space is lit.
PROBES = ((0x01, 0, 2), (0x02, 1, 5), (0x04, 3, 5), (0x08, 4, 2), (0x10, 3, 0), (0x20, 1, 0))
PROBES += ((0x40, 2, 2),)
DIGIT_COLUMNS = (0, 7, 16, 23)  # digit cells of a drawn display; the colon is column 14
COLON_COLUMN = 14


def decode_display(rows, x):
    """The 4 segment bytes (colon in bit 7 of byte 1) drawn in `rows` from column x."""

    def lit(r, c):
        line = rows[r]
        return x + c < len(line) and line[x + c] != " "

    segs = []
    for dx in DIGIT_COLUMNS:
        segs.append(sum(bit for bit, r, c in PROBES if lit(r, dx + c)))
    if lit(1, COLON_COLUMN) and lit(3, COLON_COLUMN):
        segs[1] |= 0x80
    return bytes(segs)


def test_every_segment_pattern_draws_and_reads_back():
    sim = _load_sim()
    for seg in range(256):
        segs = bytes((seg & 0x7F, seg, seg & 0x7F, seg & 0x7F))  # only digit 1 has bit 7
        rows = sim.big_display(segs, "#")
        assert len(rows) == sim.DIGIT_H
        assert decode_display(rows, 0) == segs


# ------------------------------------------------------------------ the terminal UI, in tmux


def _screen(tmux, target):
    return subprocess.run(
        tmux + ["capture-pane", "-p", "-t", target], capture_output=True, text=True
    ).stdout.splitlines()


def _displays(lines):
    """Text and colon of both big displays on a captured screen, or None if not drawn."""
    from simboard import tm1637_decode

    titles = [i for i, line in enumerate(lines) if "LEFT" in line and "RIGHT" in line]
    if not titles or titles[0] + 8 >= len(lines):
        return None
    top = titles[0] + 2
    label_row = lines[top + 6]
    xs = [i for i, ch in enumerate(label_row) if ch == "["]
    if len(xs) != 2:
        return None
    rows = lines[top : top + 5]
    return tuple(tm1637_decode.text(decode_display(rows, x)) for x in xs)


def _running_below(lines, start):
    """The right display shows an h:mm time below `start` (h:mm texts compare as strings)."""
    shown = _displays(lines)
    if shown is None:
        return False
    right = shown[1][0]
    return len(right) == 4 and right[1] == "h" and right < start


def _wait_for(predicate, tmux, target, timeout_s=30.0):
    deadline = time.monotonic() + timeout_s
    lines = []
    while time.monotonic() < deadline:
        lines = _screen(tmux, target)
        if predicate(lines):
            return lines
        time.sleep(0.05)
    pytest.fail("screen never matched:\n" + "\n".join(lines))


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_terminal_ui_in_tmux(tmp_path):
    tmux = ["tmux", "-L", "sim-test-" + uuid.uuid4().hex[:8], "-f", "/dev/null"]
    name = "sim"
    cmd = "%s %s --flash %s --speed 120" % (sys.executable, SIM, tmp_path / "flash")
    subprocess.run(
        tmux + ["new-session", "-d", "-s", name, "-x", "100", "-y", "40", cmd],
        check=True,
        env={"PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8"},
    )
    try:
        lines = _wait_for(lambda s: _displays(s) == (("1h30", False),) * 2, tmux, name)
        screen = "\n".join(lines)
        for key_help in ("z left lever", "m right lever", "S SET held", "o power", "q quit"):
            assert key_help in screen

        subprocess.run(tmux + ["send-keys", "-t", name, "z"], check=True)
        # x120: one virtual minute every half second; the right (White's) clock runs. Any
        # time below 1h30 will do: a loaded machine may capture the screen too late for
        # a particular minute.
        lines = _wait_for(lambda s: _running_below(s, "1h30"), tmux, name, timeout_s=60.0)
        assert _displays(lines)[0] == ("1h30", False)
        assert "RIGHT \u25cf" in "\n".join(lines)  # the right LED is lit

        subprocess.run(tmux + ["send-keys", "-t", name, "o"], check=True)
        _wait_for(lambda s: _displays(s) == (("    ", False),) * 2, tmux, name)
        subprocess.run(tmux + ["send-keys", "-t", name, "o"], check=True)
        _wait_for(lambda s: (_displays(s) or (("    ",),))[0][0].strip() != "", tmux, name)

        subprocess.run(tmux + ["send-keys", "-t", name, "q"], check=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            alive = subprocess.run(tmux + ["has-session", "-t", name], capture_output=True)
            if alive.returncode != 0:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the simulator did not quit on q")
    finally:
        subprocess.run(tmux + ["kill-server"], capture_output=True)


def _alive(pid):
    """The process runs (an exited one nobody has reaped yet is a zombie: not alive)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc")
def test_terminal_ui_quits_when_its_terminal_hangs_up(tmp_path):
    """As under `make sim`: the window closes, the SIGHUP never reaches the simulator (make
    takes it; here the shell ignores it and the simulator inherits that), the terminal is
    gone. The simulator must end, not spin on a getch that no longer waits."""
    tmux = ["tmux", "-L", "sim-test-" + uuid.uuid4().hex[:8], "-f", "/dev/null"]
    pidfile = tmp_path / "pid"
    cmd = "trap '' HUP; echo $$ > %s; exec %s %s --flash %s" % (
        pidfile,
        sys.executable,
        SIM,
        tmp_path / "flash",
    )
    subprocess.run(
        tmux + ["new-session", "-d", "-s", "sim", "-x", "100", "-y", "40", "sh", "-c", cmd],
        check=True,
        env={"PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8"},
    )
    try:
        _wait_for(lambda s: _displays(s) == (("1h30", False),) * 2, tmux, "sim")
        pid = int(pidfile.read_text())
    finally:
        subprocess.run(tmux + ["kill-server"], capture_output=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.05)
    if _alive(pid):
        os.kill(pid, 9)
        pytest.fail("the simulator kept running after its terminal hung up")


# The simulator, its firmware stuck in a wakeup that never ends once a game runs (after the
# lever `z`): a file says when. argv: the marker file, then the simulator's own arguments.
STUCK_DRIVER = """
import runpy, sys
sim = runpy.run_path(%r)
key = sim["Sim"].key
def stuck_key(self, ch):
    held = key(self, ch)
    app = self.clock.app
    if ch == "z" and app is not None:
        wake = app.wake
        def stuck():
            wake()
            if app.ui.game.state == 1:  # RUNNING
                open(sys.argv[1], "w").close()
                while True:
                    pass
        app.wake = stuck
    return held
sim["Sim"].key = stuck_key
sys.exit(sim["main"](sys.argv[2:]))
"""


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc")
@pytest.mark.parametrize("end", ["q", "ctrl-c", "hangup", "hangup-ignored"])
def test_the_simulator_ends_while_its_firmware_is_stuck_in_a_game(tmp_path, end):
    """A game runs and the firmware's wakeup never ends (no virtual time passes, so the
    harness never gets control back): `q`, Ctrl-C (SIGINT: the firmware's in-game
    KeyboardInterrupt handler must not take it) and the terminal's end (SIGHUP; or, with
    SIGHUP ignored as under make, stdin's EOF / EIO) each end the simulator within
    END_S of wall time."""
    tmux = ["tmux", "-L", "sim-test-" + uuid.uuid4().hex[:8], "-f", "/dev/null"]
    driver = tmp_path / "driver.py"
    driver.write_text(STUCK_DRIVER % str(SIM))
    pidfile, marker = tmp_path / "pid", tmp_path / "stuck"
    trap = "trap '' HUP; " if end == "hangup-ignored" else ""
    cmd = "%secho $$ > %s; exec %s %s %s --flash %s" % (
        trap,
        pidfile,
        sys.executable,
        driver,
        marker,
        tmp_path / "flash",
    )
    subprocess.run(
        tmux + ["new-session", "-d", "-s", "sim", "-x", "100", "-y", "40", "sh", "-c", cmd],
        check=True,
        env={"PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8"},
    )
    try:
        _wait_for(lambda s: _displays(s) == (("1h30", False),) * 2, tmux, "sim")
        pid = int(pidfile.read_text())
        subprocess.run(tmux + ["send-keys", "-t", "sim", "z"], check=True)
        deadline = time.monotonic() + 30
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists(), "the game never started"
        assert _alive(pid)
        ended_at = time.monotonic()
        if end == "q":
            subprocess.run(tmux + ["send-keys", "-t", "sim", "q"], check=True)
        elif end == "ctrl-c":
            subprocess.run(tmux + ["send-keys", "-t", "sim", "C-c"], check=True)
        else:
            subprocess.run(tmux + ["kill-server"], capture_output=True)
        while _alive(pid) and time.monotonic() < ended_at + END_S:
            time.sleep(0.05)
        if _alive(pid):
            os.kill(pid, 9)
            pytest.fail("the simulator kept running after %s" % end)
    finally:
        subprocess.run(tmux + ["kill-server"], capture_output=True)


END_S = 10.0
