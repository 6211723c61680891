"""The simulator's USB side (`make sim SIMARGS=--usb`): the simulated clock's USB serial port
offered to programs on this computer as a TCP port on 127.0.0.1, which pyserial and mpremote
open as `socket://127.0.0.1:PORT` (default DEFAULT_PORT). With it `make live
PORT=socket://127.0.0.1:8131` and the live page run against the simulator: the organiser's
rehearsal of a broadcast without a board (docs/live.md).

Owns the bridge between one TCP connection and the simulated board's port
(simboard/usb_cdc.py, what the firmware's USB guard and feed write to):
- a program that connects is a USB host that enumerated the board and opened its port
  (plug + DTR); it gets what the clock writes from then on, and what the port kept for the
  next program (as MicroPython's TinyUSB buffer does); its bytes go to the clock's stdin;
- its connection closed: the port is closed (no DTR); the next program may connect;
- the clock powered off (`o`): the connection is closed (the port vanishes from the host,
  as a Pico's does), and while it is off a program that connects is disconnected at once;
- a program that connects but does not read: the socket fills and the clock's writes back
  up in its buffer as over USB (the host side stops taking packets).
One program at a time: a second connection waits until the first closes.

The simulator has no MicroPython REPL: the feed and the status lines (the clock is in a
game, or not) are all its port says, so `make flash`, `make export` and `make backup`
need a real board; a host's Ctrl-C at the ready screen hands the board over as on a
real one (`USb StoP`), and `o` twice starts the clock app again.

Time: the bridge runs after each slice of virtual time the simulator runs (`attach` wraps
`Sim.run`), so a line reaches the program at most one frame (15 ms at speed 1) after the
clock wrote it; at --speed other than 1 the host's clock and the simulated one part.
"""

import errno
import socket

DEFAULT_PORT = 8131
HOST = "127.0.0.1"
_CHUNK = 4096


class UsbSide:
    """The listening socket and the one connection, bridged to `sim.clock.usb` by `pump`."""

    def __init__(self, sim, port=DEFAULT_PORT, host=HOST):
        self.sim = sim
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.server.bind((host, port))
            self.server.listen(1)
        except OSError:
            self.server.close()
            raise
        self.server.setblocking(False)
        self.port = self.server.getsockname()[1]
        self.url = "socket://%s:%d" % (host, self.port)
        self.conn = None
        self.usb = None  # the board's port the connection is plugged into
        self.seen = 0  # how much of usb.received the connection has been given
        self.pending = b""  # given, not yet taken by the socket
        self.connections = 0

    def pump(self):
        """Move bytes both ways, take a new connection, follow the power switch."""
        usb = self.sim.clock.usb if self.sim.powered else None
        if self.conn is not None and usb is not self.usb:
            self._drop()  # powered off or on again: that port is gone
        if self.conn is None:
            self._accept(usb)
        if self.conn is None:
            return
        try:
            data = self.conn.recv(_CHUNK)
        except BlockingIOError:
            data = None
        except OSError:
            data = b""
        if data == b"":  # the program closed the port
            self._drop()
            return
        if data:
            usb.send(data)
        self.pending += bytes(usb.received[self.seen :])
        self.seen = len(usb.received)
        if self.pending:
            try:
                sent = self.conn.send(self.pending)
            except BlockingIOError:
                sent = 0
            except OSError:
                self._drop()
                return
            self.pending = self.pending[sent:]
        usb.reading = not self.pending

    def _accept(self, usb):
        try:
            conn, _addr = self.server.accept()
        except BlockingIOError:
            return
        if usb is None:  # powered off: no port on the host
            conn.close()
            return
        conn.setblocking(False)
        self.conn, self.usb = conn, usb
        self.connections += 1
        self.seen = len(usb.received)
        self.pending = b""
        usb.reading = True
        usb.plug()
        usb.open()

    def _drop(self):
        try:
            self.conn.close()
        except OSError:
            pass
        if self.usb is not None:
            self.usb.close()
            self.usb.reading = True
        self.conn = self.usb = None
        self.pending = b""

    def close(self):
        if self.conn is not None:
            self._drop()
        self.server.close()


def listen_problem(exc, port):
    """The one line for a USB side port that cannot be had."""
    if exc.errno == errno.EADDRINUSE:
        return (
            "sim.py: port %d on %s is in use (another `make sim SIMARGS=--usb`?): end that "
            "one, or give another: --usb %d" % (port, HOST, port + 1)
        )
    return "sim.py: cannot listen on %s:%d: %s" % (HOST, port, exc.strerror or exc)


def attach(sim, port=DEFAULT_PORT):
    """Offer `sim`'s USB port on `port` and bridge it after every `sim.run`. Returns the
    UsbSide; a port that cannot be had ends the simulator in one line."""
    try:
        side = UsbSide(sim, port)
    except OSError as exc:
        raise SystemExit(listen_problem(exc, port)) from None
    run = sim.run

    def run_and_bridge(ms):
        run(ms)
        side.pump()

    sim.run = run_and_bridge
    return side
