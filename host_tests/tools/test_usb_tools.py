"""The USB port, host side: `make flash`, `make repl`, `make device-test`, `make backup` and
`make export` facing a clock in a game stop in one clear line before mpremote has sent it
anything (tools/device/clock_link.py, called from flash.resolve_port), and read mpremote's own
failure when a game starts after the probe.

The serial links are fakes: a scripted one, and one wired to the real firmware on the
simulated board (simboard/usb_cdc.py), so the tool's reading of the status lines is tested
against the lines the firmware writes. mpremote is a fake runner as in test_flash.py.
"""

import io
from pathlib import Path

import machine
import pytest
import usbguard
from test_firmware_e2e import BATTERY_ADC, BULLET_1_0, tap
from test_firmware_e2e import choose_preset as choose

from simboard.firmware import SimulatedClock

ROOT = Path(__file__).resolve().parents[2]

import backup  # noqa: E402
import clock_link  # noqa: E402
import export_games  # noqa: E402
import flash  # noqa: E402

PORT = "/dev/ttyACM0"
MP = flash.mpremote_command({})  # the pinned mpremote: the probe runs
LISTING = "/dev/ttyACM0 E66138935F4B2E2C 2e8a:0005 MicroPython Board in FS mode\n"
PHASES = ("ready", "running", "paused", "flagged", "finished")
LINE = dict(zip(PHASES, usbguard.LINES, strict=True))
MICROPYTHON = flash.Result(0, "micropython 1.27.0\n", "")


class FakeLink:
    """A serial port as pyserial gives it: `stale` is waiting when it opens (what the
    clock's FIFO kept), `answer` comes after each write. Time is a fake clock: a read with
    nothing to give takes the 50 ms read timeout."""

    def __init__(self, answer=b"", stale=b""):
        self.answer = answer
        self.buffer = bytearray(stale)
        self.written = bytearray()
        self.closed = False
        self.now = 0.0

    def reset_input_buffer(self):
        self.buffer.clear()

    def write(self, data):
        self.written += data
        self.buffer += self.answer

    def read(self, n):
        if not self.buffer:
            self.now += 0.05
            return b""
        data, self.buffer[:] = bytes(self.buffer[:n]), self.buffer[n:]
        return data

    def close(self):
        self.closed = True

    def sleep(self, s):
        self.now += s

    def monotonic(self):
        return self.now


class Runner:
    """mpremote as a fake (argv recorded) and the probe's port as `link`."""

    def __init__(self, link, probe_answer=MICROPYTHON):
        self.link = link
        self.calls = []
        self.opened = []
        self.probe_answer = probe_answer

    def open_serial(self, port):
        self.opened.append(port)
        if isinstance(self.link, Exception):
            raise self.link
        return self.link

    def run(self, argv):
        self.calls.append(list(argv))
        if argv == MP + ["connect", "list"]:
            return flash.Result(0, LISTING, "")
        if argv[-2:] == ["exec", flash.IMPL_PROBE]:
            return self.probe_answer
        return flash.Result(0, "", "")

    def interactive(self, argv):
        self.calls.append(list(argv))
        return 0


@pytest.fixture(autouse=True)
def fake_time(monkeypatch):
    """The probe's sleep and clock come from the link under test (no wall-clock waits)."""
    state = {"link": None}

    def sleep(s):
        state["link"].sleep(s)

    def monotonic():
        return state["link"].monotonic()

    monkeypatch.setattr(
        clock_link, "busy_message", _with_defaults(clock_link.busy_message, sleep, monotonic)
    )
    return state


def _with_defaults(fn, sleep, monotonic):
    def call(runner, port, direct=True):
        return fn(runner, port, direct, sleep, monotonic)

    return call


def use(fake_time, link):
    fake_time["link"] = link
    return link


# ---------------------------------------------------------------- the probe
@pytest.mark.parametrize("phase", sorted(LINE))
def test_each_firmware_line_names_its_phase(phase):
    assert clock_link.status_of(LINE[phase]) == phase
    assert clock_link.status_of(repr(b"junk" + LINE[phase])) == phase  # as mpremote prints


@pytest.mark.parametrize("phase", sorted(LINE))
def test_the_probe_reads_the_clocks_answer(fake_time, phase):
    link = use(fake_time, FakeLink(answer=LINE[phase]))
    assert clock_link.probe(link, link.sleep, link.monotonic) == phase
    assert link.written == b"\r"


def test_old_output_kept_for_the_port_is_dropped_before_the_probe(fake_time):
    link = use(fake_time, FakeLink(answer=LINE["finished"], stale=LINE["running"] * 3))
    assert clock_link.probe(link, link.sleep, link.monotonic) == "finished"


def test_a_repl_prompt_or_silence_lets_the_tool_go_on(fake_time):
    link = use(fake_time, FakeLink(answer=b"\r\n>>> "))
    assert clock_link.probe(link, link.sleep, link.monotonic) == "repl"
    link = use(fake_time, FakeLink())
    assert clock_link.probe(link, link.sleep, link.monotonic) is None
    assert link.now == pytest.approx(clock_link.SETTLE_S + clock_link.WAIT_S, abs=0.06)


def test_busy_message_only_for_a_game_and_the_port_is_always_closed(fake_time):
    for phase in ("running", "paused", "flagged"):
        link = use(fake_time, FakeLink(answer=LINE[phase]))
        text = clock_link.busy_message(Runner(link), PORT)
        assert text.startswith(
            "the clock on /dev/ttyACM0 is in a game (%s)" % clock_link.IN_GAME[phase]
        )
        assert "\n" not in text and link.closed
    for phase in ("ready", "finished"):
        link = use(fake_time, FakeLink(answer=LINE[phase]))
        assert clock_link.busy_message(Runner(link), PORT) is None and link.closed


def test_no_probe_without_open_serial_another_mpremote_or_a_port_that_will_not_open(fake_time):
    link = use(fake_time, FakeLink(answer=LINE["running"]))
    runner = Runner(link)
    assert clock_link.busy_message(runner, PORT, direct=False) is None
    assert runner.opened == [] and link.written == b""

    class Plain:
        pass

    assert clock_link.busy_message(Plain(), PORT) is None
    assert clock_link.busy_message(Runner(OSError(16, "Device or resource busy")), PORT) is None


# ---------------------------------------------------------------- the tools, in a game
def run_tool(tool, argv, runner):
    out, err = io.StringIO(), io.StringIO()
    if tool == "flash":
        status = flash.main(argv, runner, {}, out, err)
    elif tool == "backup":
        status = backup.main(argv, runner, {}, out, err)
    else:
        status = export_games.main(argv, runner, {}, out, err)
    return status, out.getvalue(), err.getvalue()


TOOLS = [
    ("flash", ["flash"], "flash"),
    ("flash", ["repl"], "repl"),
    ("flash", ["device-test"], "device-test"),
    ("backup", [], "backup"),
    ("export", [], "export"),
]


@pytest.mark.parametrize("tool,argv,name", TOOLS)
@pytest.mark.parametrize("phase", ["running", "paused", "flagged"])
def test_every_tool_stops_in_one_line_before_mpremote_sends_anything(
    fake_time, tmp_path, tool, argv, name, phase
):
    link = use(fake_time, FakeLink(answer=LINE[phase]))
    runner = Runner(link)
    if tool in ("backup", "export"):
        argv = argv + ["--out", str(tmp_path / "out")]
    status, _out, err = run_tool(tool, argv, runner)
    assert status == 1
    assert err.count("\n") == 1
    assert err.startswith(
        "%s: the clock on /dev/ttyACM0 is in a game (%s)" % (name, clock_link.IN_GAME[phase])
    )
    assert "record the result" in err and "switch the clock off and on" in err
    assert runner.calls == [MP + ["connect", "list"]]  # only the host's own port list
    assert link.written == b"\r" and link.closed
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("phase", ["ready", "finished"])
def test_at_ready_the_tools_go_on_to_mpremote(fake_time, tmp_path, phase):
    link = use(fake_time, FakeLink(answer=LINE[phase]))
    runner = Runner(link)
    status, out, err = run_tool("export", ["--port", PORT, "--out", str(tmp_path / "g")], runner)
    assert status == 0, err
    assert runner.calls[0] == MP + ["connect", PORT, "exec", flash.IMPL_PROBE]
    assert runner.calls[-1] == MP + ["connect", PORT, "reset"]


# ---------------------------------------------------------------- mpremote's own failure
def test_a_game_that_started_after_the_probe_is_read_from_mpremotes_output(fake_time):
    link = use(fake_time, FakeLink(answer=LINE["ready"]))  # ready at the probe ...
    printed = repr(LINE["running"] + LINE["running"]) + "\n"  # ... then a lever was pressed
    runner = Runner(link, flash.Result(1, printed, "mpremote: could not enter raw repl\n"))
    with pytest.raises(flash.FlashError) as exc:
        flash.resolve_port(runner, MP, PORT, io.StringIO())
    assert str(exc.value).startswith("the clock on /dev/ttyACM0 is in a game (a clock is running)")


def test_could_not_enter_raw_repl_alone_gets_a_hint():
    text = clock_link.explain_failure(PORT, "mpremote: could not enter raw repl\n")
    assert text.startswith(
        "no MicroPython REPL answered on /dev/ttyACM0: could not enter raw repl"
    )
    assert "A clock in a game ignores USB" in text and "\n" not in text
    assert clock_link.explain_failure(PORT, "mpremote: failed to access /dev/ttyACM0") is None


def test_the_command_line_probe(fake_time):
    out = io.StringIO()
    link = use(fake_time, FakeLink(answer=LINE["paused"]))
    assert clock_link.main(["--port", PORT], lambda port: link, out) == 2
    assert "is in a game (paused)" in out.getvalue()
    out = io.StringIO()
    link = use(fake_time, FakeLink(answer=LINE["ready"]))
    assert clock_link.main(["--port", PORT], lambda port: link, out) == 0
    assert out.getvalue() == "/dev/ttyACM0: ready\n"


# ---------------------------------------------------------------- against the firmware
class SimLink:
    """The simulated clock's USB port as the tool's serial link: opening it plugs the host
    and raises DTR; the firmware runs in virtual time while the tool waits."""

    def __init__(self, clock):
        self.clock = clock
        if not clock.usb.mounted:
            clock.usb.plug()
        clock.usb.open()
        self.closed = False

    def reset_input_buffer(self):
        self.clock.usb.received.clear()

    def write(self, data):
        machine.after(1, lambda: self.clock.usb.send(data), irq=False)

    def read(self, n):
        got = self.clock.usb.received
        if not got:
            self.clock.run_ms(50)  # pyserial's read timeout
        data = bytes(got[:n])
        del got[:n]
        return data

    def close(self):
        self.clock.usb.close()
        self.closed = True

    def sleep(self, s):
        self.clock.run_ms(int(s * 1000))

    def monotonic(self):
        return self.clock.vt.us / 1e6


def sim_clock(tmp_path):
    clock = SimulatedClock(tmp_path)
    machine.set_adc_volts(BATTERY_ADC, 4.2 / 3)
    clock.run_ms(500)
    choose(clock, BULLET_1_0)
    return clock


def test_the_probe_against_the_firmware_in_every_phase(fake_time, tmp_path):
    clock = sim_clock(tmp_path)

    def ask():
        link = use(fake_time, SimLink(clock))
        return clock_link.busy_message(Runner(link), PORT), link

    assert ask()[0] is None  # ready
    clock.press("left")
    busy, link = ask()
    assert "(a clock is running)" in busy and link.closed
    tap(clock, "play")
    assert "(paused)" in ask()[0]
    tap(clock, "play")
    clock.run_ms(61_000)
    assert "(a flag has fallen)" in ask()[0]
    assert not clock.app.handed_over and clock.app.ui.game.state == usbguard.FLAGGED


def test_a_stale_game_line_left_in_the_clocks_fifo_is_not_believed(fake_time, tmp_path):
    """During the game a host sent a byte and closed the port before the answer: the line
    waits in the FIFO. After the result, the next tool gets it on opening, drops it, and
    hears "finished"."""
    clock = sim_clock(tmp_path)
    clock.press("left")
    clock.run_ms(61_000)  # right's flag falls
    clock.usb.plug()
    clock.usb.open()
    clock.usb.send(b"?")
    clock.usb.close()
    clock.run_ms(100)
    # kept for the next program: the IN endpoint's packet, the rest in the FIFO
    assert clock.usb.packet + bytes(clock.usb.tx) == LINE["flagged"]
    tap(clock, "set")
    tap(clock, "play")
    tap(clock, "play")  # result recorded
    link = use(fake_time, SimLink(clock))
    assert clock_link.probe(link, link.sleep, link.monotonic) == "finished"


def mpremote_enter_raw_repl(link, timeout_s=10.0):
    """What mpremote 1.27 does first (transport_serial.enter_raw_repl): Ctrl-C, flush the
    input, Ctrl-A, read until the raw REPL banner or 10 s; returns what it read."""
    link.write(b"\r\x03")
    link.reset_input_buffer()
    link.write(b"\r\x01")
    end = link.monotonic() + timeout_s
    data = b""
    while not data.endswith(b"raw REPL; CTRL-B to exit\r\n>") and link.monotonic() < end:
        data += link.read(1)
    return data


def test_mpremote_against_a_clock_in_a_game_gets_status_lines_not_a_repl(fake_time, tmp_path):
    clock = sim_clock(tmp_path)
    clock.press("left")
    link = use(fake_time, SimLink(clock))
    data = mpremote_enter_raw_repl(link)
    assert b"raw REPL" not in data and not clock.at_repl
    assert clock_link.status_of(data) == "running"
    text = clock_link.explain_failure(PORT, repr(data) + "\nmpremote: could not enter raw repl\n")
    assert "(a clock is running)" in text
    assert clock.app.ui.game.state == usbguard.RUNNING


def test_mpremote_at_ready_gets_the_board(fake_time, tmp_path):
    clock = sim_clock(tmp_path)
    link = use(fake_time, SimLink(clock))
    mpremote_enter_raw_repl(link, timeout_s=0.2)  # the fake REPL gives no banner
    assert clock.at_repl and clock.app.handed_over
    assert bytes(clock.usb.ring) == b"\r\x01"  # waiting for MicroPython's REPL
