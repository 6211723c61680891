"""The USB serial port while the clock app runs: nothing a host sends touches a game.

Owns the board's USB serial port (MicroPython's REPL port, sys.stdin/sys.stdout) from the
loop's start until the app hands the board to a USB host. While a game is in progress
(RUNNING, PAUSED, FLAGGED: from the first lever press until the result is recorded or a
new game is set up) every byte from the host is read and dropped, Ctrl-C included, and
each burst is answered with one status line. At the ready screen (menus and the resume
offer included) and after a result, a Ctrl-C from the host hands the board over: the loop
returns, main.py ends and the REPL starts, so mpremote, Thonny and the project's tools get
in as they always did; other bytes are answered with the status line.

Why Ctrl-C is off for the whole loop, not only during a game: `micropython.kbd_intr(-1)`
at the loop's start makes Ctrl-C a byte like any other, and this module reads it between
two wakeups. A KeyboardInterrupt therefore never lands in the middle of a wakeup (an
engine update, a file write), and there is no window at the first lever press in which a
Ctrl-C could still stop the game. `stop()` gives Ctrl-C back (3) when the app hands over.

Facts from MicroPython 1.27 this relies on (ports/rp2/mphalport.c,
shared/tinyusb/mp_usbd_cdc.c, shared/runtime/sys_stdio_mphal.c, py/scheduler.c):
- Bytes from the host go from TinyUSB's 256-byte RX FIFO into a 512-byte stdin ring
  buffer (tud_cdc_rx_cb, run by the USB task). With the ring buffer full they wait in the
  FIFO, and with both full the endpoint NAKs: the host's writes stall (USB flow control);
  nothing on the chip blocks. Nobody else reads stdin while the app runs (the REPL reads
  it only after main.py returns).
- A byte equal to the interrupt character (Ctrl-C = 3 while a script runs) empties the ring
  buffer and schedules KeyboardInterrupt, raised wherever Python runs next: the VM checks
  at jumps and calls, and the loop's poll calls the doorbell's Python ioctl first, which is
  where the report's traceback pointed. kbd_intr(-1) turns that off.
- stdin.buffer.readinto(b) waits until it has len(b) bytes: read one byte per POLLIN.
- stdout.buffer.write(b, off, n), while a host has the port open (DTR), puts into
  TinyUSB's 256-byte TX FIFO as many of the n bytes as it has room for and returns at once
  when all went in; only when some did not fit does it wait for room, 1 ms at a time up to
  500 ms after the last byte that went in (MICROPY_HW_USB_CDC_TX_TIMEOUT): a host that
  does not read costs that wait. With no host (port closed, a charger, batteries) the FIFO
  overwrites its oldest bytes and never waits. POLLOUT means "no host, or at least one
  byte free": nothing on the port says how many.
- Bytes leave the FIFO only for the IN endpoint's 64-byte packet buffer, 64 at a time or
  all of them when fewer are left (tud_cdc_n_write_flush, after every write and at every
  packet the host takes); a bus reset keeps them (tx_persistent); with no DTR a write
  that overflows leaves it full. So while everything written into it is a whole number
  of BLOCK bytes (BLOCK divides 64 and 256), it holds a whole number of blocks, and a
  POLLOUT promises a whole block of room: `send` then writes a block per POLLOUT, and a
  line that does not fit is cut at a block's end. Every line sent (status and feed) is a
  whole number of blocks (feed.py pads its lines, LINES are padded here). Until that
  holds (`_blocks` False) a line goes out one byte per POLLOUT, which never waits either.
  It holds from the loop's start when nothing else has written to the port since the
  chip's reset (`mark`, board.py: not after a soft reboot, whose REPL may have left bytes
  in the FIFO), and from the first POLLOUT that finds the FIFO full (256 bytes). It
  assumes nothing else writes to the port while the loop runs (the firmware prints
  nothing; MicroPython would print an IRQ handler's uncaught exception).

Bounded work: at most DRAIN_MAX bytes per wakeup; a flood (more still waiting after that)
takes stdin out of the loop's poll for MUTE_MS, so a host that sends without pause costs
about DRAIN_MAX reads per MUTE_MS and the rest waits in the buffers, then in the host;
at most one status line per REPLY_MS (a burst inside that time is answered when it ends).
Bytes still buffered on the chip when a game ends are dropped unread (up to FLUSH_MAX),
so a Ctrl-C sent during a game never hands over later. Bytes the host's own buffers hold
back (flow control) arrive after that and count as sent then.

The live feed (feed.py) goes out through `send` as well, written by `report(now, game)`
once per wakeup (the feed is the shell's, handed over by `attach`): the same rule, so a
feed line never waits either; a cut one is made again or repaired by the feed's next state
line.

Contract with the loop: `attach(feed)` once, before the loop starts (the shell builds the
live feed, a feed.Feed of BLOCK and this guard as its port); `start()` when the loop starts;
each wakeup, `due(now, phase)` and if True `service(now, phase)` (phase = the engine's game
state), then `report(now, game)` (the live feed's lines for `game`, an engine.Game, at
`now`: what is new since the last wakeup; `attach` binds it to the feed's own step, so a
wakeup pays one call);
`next_due()` joins the loop's sleep; `rebase()` when the loop's count restarts at 0;
`service` returning True means "hand the board over": the loop ends and calls `stop()`.
Nothing here allocates after the constructor (each poll's result tuple is made at its
first ipoll). Not IRQ code.
"""

import select

from micropython import const

# The phases are the engine's game states, same numbers (engine.py READY..FINISHED; a test
# checks), so the loop passes `game.state` as it is.
READY = const(0)
RUNNING = const(1)
PAUSED = const(2)
FLAGGED = const(3)
FINISHED = const(4)

CTRL_C = const(3)
BLOCK = const(32)  # bytes written per POLLOUT once the TX FIFO holds whole blocks (divides 64)
DRAIN_MAX = const(64)  # bytes read per wakeup
FLUSH_MAX = const(1024)  # bytes dropped when a game ends (ring buffer 512 + RX FIFO 256)
REPLY_MS = const(500)  # at most one status line per this many ms
MUTE_MS = const(100)  # after a full drain with more waiting: stdin out of the poll this long


def _padded(text):
    """`text` and CR LF, spaces before them to a whole number of BLOCK bytes."""
    return text + b" " * (-(len(text) + 2) % BLOCK) + b"\r\n"


# One line per phase: what a serial monitor shows and what tools/device/clock_link.py reads.
LINES = tuple(
    _padded(x)
    for x in (
        b"chess-clock: ready; Ctrl-C hands the board to the host",
        b"chess-clock: game running; USB ignored until its result is recorded",
        b"chess-clock: game paused; USB ignored until its result is recorded",
        b"chess-clock: game flagged; USB ignored until its result is recorded",
        b"chess-clock: finished; Ctrl-C hands the board to the host",
    )
)


def in_game(phase):
    """True from the first lever press until the result (paused and flagged included)."""
    return RUNNING <= phase <= FLAGGED


class UsbGuard:
    def __init__(self, stdin, stdout, bell, kbd_intr, mark=None):
        """`stdin`/`stdout`: the port's byte streams (sys.stdin.buffer / sys.stdout.buffer),
        `bell`: the loop's doorbell (it listens to stdin), `kbd_intr`: micropython.kbd_intr,
        `mark`: board.UsbMark (whether anything but the loop has written to the port since
        the chip's reset; None: assume so)."""
        self._in = stdin
        self._out = stdout
        self._bell = bell
        self._kbd_intr = kbd_intr
        self._rd = select.poll()
        self._rd.register(stdin, select.POLLIN)
        self._wr = select.poll()
        self._wr.register(stdout, select.POLLOUT)
        self._out_write = stdout.write  # bound here, once: send() makes two calls a byte
        self._wr_ipoll = self._wr.ipoll
        self._byte = bytearray(1)
        self._mark = mark
        self._blocks = False  # the TX FIFO holds whole BLOCKs: `send` a block per POLLOUT
        if mark is not None:
            self._blocks = mark.fresh()
            mark.set()  # until the loop starts: a traceback would be written
        self._game = False  # the phase at the last service was a game
        self._owed = False  # bytes came in since the last status line
        self._reply_at = 0  # no status line before this instant (ms)
        self._mute_until = -1  # stdin is out of the loop's poll until then (ms); -1 = in it
        self.bytes_in = 0  # bytes read and dropped since boot
        self.lines_out = 0  # status lines written whole
        self.lines_cut = 0  # status lines cut short: a host that has the port open, not reading
        self.feed = None  # the game's live lines (feed.py), written by report(): `attach`

    def attach(self, feed):
        """The live feed `feed` (a feed.Feed writing through this guard, in BLOCKs) is the
        one `report` writes: report(now, game) is its step itself, one call a wakeup."""
        self.feed = feed
        self.report = feed.step

    def start(self):
        """The loop starts: Ctrl-C becomes an ordinary byte, and bytes wake the loop."""
        self._kbd_intr(-1)
        self._bell.listen(self._in)
        if self._mark is not None:
            self._mark.clear()  # from here only the loop writes to the port

    def stop(self):
        """The board goes to the host (the REPL reads stdin next): Ctrl-C interrupts again."""
        self._bell.mute(self._in, True)
        self._kbd_intr(CTRL_C)
        self._blocks = False  # the REPL writes next
        if self._mark is not None:
            self._mark.set()

    def due(self, now, phase):
        """True when `service` has work: the loop's poll found stdin readable, a game began
        or ended, or a muted port or an owed status line is due."""
        if self._bell.heard or (RUNNING <= phase <= FLAGGED) != self._game:
            return True  # (inline: this runs at every wakeup of the loop)
        d = self._mute_until
        if 0 <= d <= now:
            return True
        return self._owed and self._reply_at <= now

    def next_due(self):
        """The next instant (ms) `service` must run by itself, -1 = only when bytes come."""
        d = self._mute_until
        if self._owed and (d < 0 or self._reply_at < d):
            d = self._reply_at
        return d

    def rebase(self):
        """The loop's monotonic count restarts at 0 (app.py): instants kept here follow."""
        self._reply_at = 0
        if self._mute_until >= 0:
            self._mute_until = 0

    def service(self, now, phase):
        """Read what the host sent (bounded), answer with the status line of `phase` (the
        engine's game state). True when the host asked for the board: a Ctrl-C read while
        no game is in progress (the bytes after it stay for the REPL)."""
        self._bell.heard = False
        game = in_game(phase)
        if self._game and not game:
            self._drop(FLUSH_MAX)  # a game just ended: its bytes never act later
        self._game = game
        muted = self._mute_until >= 0
        if muted and self._mute_until <= now:
            muted = False
            self._mute_until = -1
            self._bell.mute(self._in, False)
        n = 0
        byte = self._byte
        while not muted and n < DRAIN_MAX and self._readable():
            self._in.readinto(byte)
            n += 1
            if byte[0] == CTRL_C and not game:
                self.bytes_in += n
                return True
        if n:
            self.bytes_in += n
            self._owed = True
            if n == DRAIN_MAX and self._mute_until < 0 and self._readable():
                self._mute_until = now + MUTE_MS  # a flood: read again after MUTE_MS
                self._bell.mute(self._in, True)
        if self._owed and now >= self._reply_at:
            self._owed = False
            self._reply_at = now + REPLY_MS
            self._write(LINES[phase])
        return False

    def _readable(self):
        for _obj, _ev in self._rd.ipoll(0):
            return True
        return False

    def _drop(self, limit):
        n = 0
        while n < limit and self._readable():
            self._in.readinto(self._byte)
            n += 1
        self.bytes_in += n

    def writable(self):
        """True when a byte (with _blocks, a block) can go out now (feed.py asks it after
        a line of which nothing went out)."""
        for _ready in self._wr_ipoll(0):
            return True
        return False

    def send(self, line, n):
        """Write the first `n` bytes of `line` (a whole number of BLOCKs) a block per
        POLLOUT while the TX FIFO holds whole blocks, else a byte per POLLOUT, and stop at
        the first that does not fit: never waits for a host that does not read. Returns how
        many bytes went out."""
        write = self._out_write
        ipoll = self._wr_ipoll
        i = 0
        if self._blocks:
            while n - i >= BLOCK:
                for _ready in ipoll(0):
                    break
                else:
                    return i
                write(line, i, BLOCK)
                i += BLOCK
            if i == n:
                return n
            self._blocks = False  # a tail shorter than a block: the FIFO's phase is lost
        while i < n:
            for _ready in ipoll(0):
                break
            else:
                self._blocks = True  # no room: the FIFO is full, 256 bytes, whole blocks
                return i
            write(line, i, 1)
            i += 1
        return n

    def _write(self, line):
        n = len(line)
        if self.send(line, n) == n:
            self.lines_out += 1
        else:
            self.lines_cut += 1
