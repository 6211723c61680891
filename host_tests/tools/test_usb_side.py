"""The simulator's USB side (tools/sim/usb_side.py, `make sim SIMARGS=--usb`): the simulated
clock's USB port on a TCP socket, opened by the host tools as `socket://127.0.0.1:PORT`
through pyserial, as they open a clock on USB.

In-process: the simulator (tools/sim/sim.py's Sim, virtual time) runs in this thread and the
host's reads and writes go over a real socket in between. A program on the port gets the
feed's lines and the status line answering its bytes; the tools' in-game probe
(clock_link) and `make live`'s opener take the socket URL as a device path; the clock
powered off drops the connection and refuses new ones until it is on again; a port that
is taken is one line.
"""

import socket

import clock_link
import live
import live_feed
import micropython
import pytest
import serial
import sim
import usb_side


@pytest.fixture(autouse=True)
def no_interrupt_left_behind():
    yield
    micropython.host_reset()


@pytest.fixture
def simulated(tmp_path):
    s = sim.Sim(tmp_path / "flash")
    side = usb_side.attach(s, 0)  # a free port
    s.run(500)
    yield s, side
    side.close()


def run_until(s, pred, limit_ms=20_000, step_ms=20):
    """Run the simulator (virtual time) until `pred()` holds, at most `limit_ms`."""
    for _ in range(limit_ms // step_ms):
        if pred():
            return True
        s.run(step_ms)
    return pred()


def read_while_running(s, link, pred, limit_ms=20_000):
    """What `link` reads while the simulator runs, until `pred(data)` holds (bounded)."""
    data = bytearray()

    def got():
        data.extend(link.read(4096))
        return pred(bytes(data))

    assert run_until(s, got, limit_ms), bytes(data)
    return bytes(data)


def test_a_program_on_the_socket_reads_the_feed_and_gets_the_status_line(simulated):
    s, side = simulated
    assert side.url.startswith("socket://127.0.0.1:")
    link = live.open_serial(side.url)  # make live's opener: any pyserial URL
    try:
        assert run_until(s, lambda: side.conn is not None)
        assert s.clock.usb.connected()
        s.key("z")  # Black presses: White's (right) clock runs
        data = read_while_running(s, link, lambda d: b"#CLK1 " in d and b" T " in d)
        lines = [live_feed.parse_line(x) for x in data.split(b"\n")]
        kinds = [x.kind for x in lines if x is not None]
        assert kinds[:2] == ["G", "T"]
        link.write(b"\r")
        data = read_while_running(s, link, lambda d: clock_link.status_of(d) is not None)
        assert clock_link.status_of(data) == "running"
    finally:
        link.close()
    assert run_until(s, lambda: side.conn is None)  # the program closed the port: no DTR
    assert not s.clock.usb.connected()


class SimLink:
    """The port clock_link opens (pyserial on the socket URL), with the simulator running
    20 ms of virtual time before each read: the probe's wait is the simulator's."""

    def __init__(self, s, port):
        self.s = s
        self.link = clock_link.open_serial(port)

    def reset_input_buffer(self):
        self.link.reset_input_buffer()

    def write(self, data):
        return self.link.write(data)

    def read(self, n):
        self.s.run(20)
        return self.link.read(n)

    def close(self):
        self.link.close()


def test_the_tools_probe_opens_a_socket_url_and_sees_the_game(simulated):
    s, side = simulated

    class Runner:
        @staticmethod
        def open_serial(port):
            return SimLink(s, port)

    def sleep(seconds):
        s.run(int(seconds * 1000))

    def monotonic():
        return s.t_ms / 1000

    assert clock_link.busy_message(Runner, side.url, True, sleep, monotonic) is None  # ready
    s.key("z")
    s.run(500)
    busy = clock_link.busy_message(Runner, side.url, True, sleep, monotonic)
    assert busy.startswith("the clock on %s is in a game (a clock is running)" % side.url)


def test_power_off_drops_the_connection_and_power_on_takes_one_again(simulated):
    s, side = simulated
    link = live.open_serial(side.url)
    try:
        assert run_until(s, lambda: side.conn is not None)
        s.key("o")  # off
        s.run(20)
        with pytest.raises(serial.SerialException):
            for _ in range(200):
                link.read(4096)  # the port is gone, as a Pico's is when its power goes
    finally:
        link.close()
    again = live.open_serial(side.url)  # while off: taken and closed at once
    try:
        s.run(20)
        with pytest.raises(serial.SerialException):
            for _ in range(200):
                again.read(4096)
    finally:
        again.close()
    s.key("o")  # on
    link = live.open_serial(side.url)
    try:
        assert run_until(s, lambda: side.conn is not None)
        assert side.usb is s.clock.usb and s.clock.usb.connected()
        assert side.connections == 2
    finally:
        link.close()


def test_a_port_in_use_is_one_line(tmp_path):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    try:
        with pytest.raises(SystemExit) as exc:
            usb_side.attach(sim.Sim(tmp_path / "flash"), port)
        text = str(exc.value)
        assert text == usb_side.listen_problem(OSError(98, "Address already in use"), port)
        assert "port %d on 127.0.0.1 is in use" % port in text and "\n" not in text
    finally:
        taken.close()
