"""The Pico's USB serial port as MicroPython 1.27's rp2 port runs it, with a host at the
other end: what the firmware's sys.stdin.buffer / sys.stdout.buffer do, on virtual time.

Behaviour copied from the MicroPython sources (facts, not code: shared/tinyusb/mp_usbd_cdc.c,
shared/tinyusb/mp_usbd.h, ports/rp2/mphalport.c, shared/runtime/sys_stdio_mphal.c):
- Host to chip: what the host writes goes into TinyUSB's RX FIFO (256 bytes); the receive
  callback moves bytes into stdin's ring buffer (512 bytes) while it has room. A byte equal
  to the interrupt character (the fake micropython's, 3 unless kbd_intr changed it) empties
  the ring buffer and schedules KeyboardInterrupt instead of being stored; it is only
  looked at once the ring buffer has room for it. With the ring buffer full, bytes wait in
  the FIFO (a poll or a read tops the ring buffer up); with the FIFO full too the endpoint
  NAKs and the host's bytes wait on the host (`backlog`), going in as room appears.
- stdin poll (ioctl MP_STREAM_POLL): POLLIN while the ring buffer holds a byte; POLLOUT
  when no program on the host has the port open (no DTR) or the TX FIFO has a free byte.
- stdin.buffer.readinto(buf) / read(n): one byte after the other from the ring buffer; on
  the board a read with the ring buffer empty waits for the host (and the watchdog resets
  the board 8 s later if none comes). Here that raises `Blocked`, a BaseException the
  loop's error handler cannot swallow: the firmware must read only what POLLIN promised.
- stdout.buffer.write(buf[, off], n) (MicroPython's extension of write): with the port open
  (DTR) only as much as the TX FIFO (256 bytes) has room for; then it waits 1 ms at a time
  for room, up to 500 ms after the last progress, and returns short. Virtual time runs
  through the wait with only IRQ-level events (pins, timers, the watchdog): the host's own
  actions wait for Python, as for the cost model's charges, so a blocked write lasts 500 ms.
  With the port closed every byte goes into the FIFO and the oldest are overwritten
  (tx_overwritabe_if_not_connected); nothing waits. TX FIFO content outlives a close
  (tx_persistent) and reaches the next program that opens the port.
- Bytes leave the TX FIFO only for the IN endpoint's packet buffer (`packet`), at most
  64 at a time and all when fewer are left, when that buffer is free: after every write
  and whenever the host takes a packet (tud_cdc_n_write_flush; TinyUSB's
  cdc_device.c at the commit MicroPython 1.27 pins). So the FIFO's count changes by what
  is written and by 64 or to 0, never otherwise (usbguard.py's BLOCK rests on it).
- The host takes packets into `received` while it has the port open and `reading` (a
  real host does it a frame at a time; here all at once, at each write and each poll),
  or `take(k)` packets when told (a host that reads a little, then stops).
- sys.implementation._machine names an RP2040 (board.py then uses the watchdog scratch
  register, fake machine.mem32).

Host API (tests): `plug()` / `unplug()` (a host enumerates the board / the cable goes; a
charger or a power bank never plugs), `open()` / `close()` (a program takes the port:
DTR), `send(data)` (the host writes; returns how many bytes the chip took now, the rest
waits in `backlog`), `reading`, `take(k)`, `received`, `tx_wait_us` (virtual time writes
spent waiting for room), `sys` (the module board.py is handed as its `sys`).
"""

import types
from collections import deque

import machine
import micropython

RING = 512  # MICROPY_HW_STDIN_BUFFER_LEN
RX_FIFO = 256  # CFG_TUD_CDC_RX_BUFSIZE (full speed)
TX_FIFO = 256  # CFG_TUD_CDC_TX_BUFSIZE
PACKET = 64  # CFG_TUD_CDC_EP_BUFSIZE (full speed): the IN endpoint's buffer
TX_TIMEOUT_US = 500_000  # MICROPY_HW_USB_CDC_TX_TIMEOUT
POLLIN = 1
POLLOUT = 4
_MP_STREAM_POLL = 3
_MP_STREAM_CLOSE = 4
_EPERM = 1


class Blocked(BaseException):
    """A stdin read with no byte to read: the board would wait here for the host."""


class CdcPort:
    def __init__(self):
        self.mounted = False  # a USB host has enumerated the board
        self.dtr = False  # a program on the host has the port open
        self.reading = True  # ... and reads what arrives
        self.ring = deque()  # stdin ring buffer
        self.fifo = deque()  # RX FIFO
        self.backlog = deque()  # bytes the host wrote that the chip has not taken (NAK)
        self.tx = deque()  # TX FIFO
        self.packet = b""  # the IN endpoint's packet, armed, not yet taken by the host
        self.received = bytearray()  # what the host read
        self.tx_wait_us = 0
        self.sys = types.SimpleNamespace(
            stdin=_Text(_Stream(self, 0)),
            stdout=_Text(_Stream(self, 1)),
            implementation=types.SimpleNamespace(
                name="micropython", _machine="Raspberry Pi Pico with RP2040"
            ),
        )

    # ------------------------------------------------------------- host
    def plug(self):
        self.mounted = True

    def unplug(self):
        self.mounted = False
        self.dtr = False
        self.fifo.clear()
        self.backlog.clear()

    def open(self):
        if not self.mounted:
            raise RuntimeError("no USB host: plug() first")
        self.dtr = True
        self._flush()  # MicroPython's line-state callback flushes 16 frames after DTR
        self._host_read()

    def close(self):
        self.dtr = False

    def send(self, data):
        """The host writes `data`; returns how many bytes the chip took at once."""
        if not self.dtr:
            raise RuntimeError("the host writes only to an open port: open() first")
        before = len(self.backlog)
        self.backlog.extend(bytes(data))
        self._pump()
        return before + len(data) - len(self.backlog)

    def connected(self):
        """tud_cdc_connected(): enumerated and DTR set."""
        return self.mounted and self.dtr

    def take(self, k):
        """The host takes up to `k` packets now (whether or not it is `reading`)."""
        for _ in range(k):
            if not (self.connected() and self.packet):
                return
            self.received.extend(self.packet)
            self.packet = b""
            self._flush()

    def _host_read(self):
        if self.connected() and self.reading:
            while self.packet:
                self.take(1)

    def _flush(self):
        """tud_cdc_n_write_flush: the FIFO's first 64 bytes (or all) into a free packet."""
        if self.mounted and not self.packet and self.tx:
            n = min(PACKET, len(self.tx))
            self.packet = bytes(self.tx.popleft() for _ in range(n))

    # ------------------------------------------------------------- chip
    def _pump(self):
        """USB packets into the RX FIFO, the receive callback into the ring buffer."""
        while True:
            moved = False
            while self.backlog and len(self.fifo) < RX_FIFO:
                self.fifo.append(self.backlog.popleft())
                moved = True
            while self.fifo and len(self.ring) < RING:
                c = self.fifo.popleft()
                moved = True
                if c == micropython.interrupt_char():
                    self.ring.clear()
                    micropython.sched_keyboard_interrupt()
                else:
                    self.ring.append(c)
            if not moved:
                return

    def _poll(self, flags):
        self._pump()
        self._host_read()  # a host that reads again has emptied the FIFO by now
        ret = 0
        if flags & POLLIN and self.ring:
            ret |= POLLIN
        if flags & POLLOUT and (not self.connected() or len(self.tx) < TX_FIFO):
            ret |= POLLOUT
        return ret

    def _rx_chr(self):
        self._pump()
        if self.ring:
            return self.ring.popleft()
        micropython.handle_pending()
        raise Blocked("stdin read with nothing to read: the board would wait for the host")

    def _tx(self, data):
        """mp_usbd_cdc_tx_strn: returns how many bytes went into the FIFO."""
        i = 0
        last_us = machine.now_us()
        while i < len(data):
            n = len(data) - i
            if self.connected():
                n = min(n, TX_FIFO - len(self.tx))
            self.tx.extend(data[i : i + n])
            while len(self.tx) > TX_FIFO:  # not connected: the oldest are overwritten
                self.tx.popleft()
            self._flush()
            self._host_read()
            i += n
            if i < len(data):
                if n > 0:
                    last_us = machine.now_us()
                elif machine.now_us() - last_us >= TX_TIMEOUT_US:
                    break
                elif self.connected():
                    start = machine.now_us()
                    machine.advance(1000, irq_only=True)  # mp_event_wait_ms(1)
                    self.tx_wait_us += machine.now_us() - start
        return i


class _Stream:
    """sys.stdin.buffer / sys.stdout.buffer (fd 0 / 1): the stream protocol the firmware
    uses, with MicroPython's optional (off, max_len) / (max_len) arguments."""

    def __init__(self, port, fd):
        self._port = port
        self._fd = fd

    def ioctl(self, req, arg):
        if req == _MP_STREAM_POLL:
            return self._port._poll(arg)
        if req == _MP_STREAM_CLOSE:
            return 0
        return -1

    def readinto(self, buf, nbytes=None):
        if self._fd != 0:
            raise OSError(_EPERM)
        n = len(buf) if nbytes is None else min(nbytes, len(buf))
        for i in range(n):
            buf[i] = self._port._rx_chr()
        return n

    def read(self, n):
        buf = bytearray(n)
        self.readinto(buf)
        return bytes(buf)

    def write(self, buf, *args):
        if self._fd != 1:
            raise OSError(_EPERM)
        data = bytes(buf)
        off, max_len = 0, len(data)
        if len(args) == 1:
            max_len = args[0]
        elif len(args) == 2:
            off, max_len = min(args[0], len(data)), args[1]
        return self._port._tx(data[off : off + max_len])


class _Text:
    """sys.stdin / sys.stdout: only `.buffer` and the poll ioctl are used by the firmware."""

    def __init__(self, stream):
        self.buffer = stream

    def ioctl(self, req, arg):
        return self.buffer.ioctl(req, arg)
