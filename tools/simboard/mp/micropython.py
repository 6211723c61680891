"""CPython stand-in for MicroPython's `micropython` module (only what the firmware uses).

Keyboard interrupt, as MicroPython 1.27 does it (py/scheduler.c, shared/runtime/pyexec.c,
shared/tinyusb/mp_usbd_cdc.c): pyexec sets the interrupt character to 3 (Ctrl-C) before it
runs main.py; `kbd_intr(c)` changes it, -1 turns it off. The USB serial port's receive
path (simboard/usb_cdc.py) compares every byte with it: a match empties stdin's ring buffer
and calls `sched_keyboard_interrupt()`, which leaves a KeyboardInterrupt pending. It is
raised at the next check of the VM, i.e. at the next line of Python that runs on the chip
(a frame whose code is in one of CHIP_CODE's folders: the firmware; harness code stands for
MicroPython's C and never sees it), or by `handle_pending()`, which the fake `select` and
the fake stdin call where MicroPython's waits call mp_handle_pending. That is how the
report's KeyboardInterrupt came out of the doorbell's ioctl: the first Python the poll ran.
The chip runs only inside `with chip():` (simboard/firmware.py wraps the firmware's run in
it): a test that reads firmware objects between runs is the host looking, not the chip
running, so the exception waits for the next run.

Host API (not in MicroPython): `kbd_intr_calls` (every kbd_intr argument, in order),
`interrupt_char()`, `sched_keyboard_interrupt()`, `handle_pending()`, `pending()`,
`chip()`, `host_reset()` (a fresh VM: character 3, nothing pending, no calls; machine.host_reset
calls it).
"""

import os
import sys
from contextlib import contextmanager

CHIP_CODE = [  # firmware/ and every layer folder below it
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "firmware")
]
CHIP_CODE = [os.path.normcase(os.path.realpath(p)) + os.sep for p in CHIP_CODE]


def const(value):
    return value


def native(func):
    return func


def viper(func):
    return func


# The heap's lock depth. CPython cannot refuse an allocation, so the host tests look at the
# depth instead (where the firmware holds the lock); like MicroPython's gc_unlock, an unlock
# without its lock is not refused: the depth goes negative, which those tests catch.
_heap_locked = 0


def heap_lock():
    global _heap_locked
    _heap_locked += 1


def heap_unlock():
    global _heap_locked
    _heap_locked -= 1
    return _heap_locked


def heap_locked():
    """Host API (MicroPython has it only with MICROPY_PY_MICROPYTHON_HEAP_LOCKED): the depth."""
    return _heap_locked


def schedule(func, arg):
    func(arg)


def alloc_emergency_exception_buf(size):
    pass


# ---------------------------------------------------------------- keyboard interrupt

_interrupt_char = 3
_pending = None  # the exception waiting for the VM's next check
_saved_trace = None
_running = 0  # depth of `with chip():`
kbd_intr_calls = []


@contextmanager
def chip():
    """Host API: the firmware runs on the chip inside this block (pending exceptions are
    raised at its checks)."""
    global _running
    _running += 1
    try:
        yield
    finally:
        _running -= 1


def kbd_intr(chr):
    """Set the character that raises KeyboardInterrupt (-1: none)."""
    global _interrupt_char
    kbd_intr_calls.append(chr)
    _interrupt_char = chr


def interrupt_char():
    """Host API: the character the USB receive path compares bytes with (-1: none)."""
    return _interrupt_char


def pending():
    """Host API: True while a KeyboardInterrupt waits for the VM's next check."""
    return _pending is not None


def host_reset():
    """Host API: a fresh VM, as pyexec leaves it when main.py starts."""
    global _interrupt_char
    _disarm()
    _interrupt_char = 3
    del kbd_intr_calls[:]


def sched_keyboard_interrupt():
    """Host API: mp_sched_keyboard_interrupt: raise KeyboardInterrupt at the next check."""
    global _pending, _saved_trace
    if _pending is None:
        _saved_trace = sys.gettrace()
    _pending = KeyboardInterrupt()
    sys.settrace(_global_trace)
    frame = sys._getframe(1)
    while frame is not None:  # frames already running get their next line checked too
        if _on_chip(frame.f_code):
            frame.f_trace = _local_trace
        frame = frame.f_back


def handle_pending():
    """Host API: mp_handle_pending(true): raise the pending exception, if any."""
    if _pending is not None and _running:
        exc = _disarm()
        raise exc


def _on_chip(code):
    name = os.path.normcase(code.co_filename)
    return any(name.startswith(d) for d in CHIP_CODE)


def _disarm():
    global _pending
    exc, _pending = _pending, None
    sys.settrace(_saved_trace)
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_trace is _local_trace:
            frame.f_trace = None
        frame = frame.f_back
    return exc


def _global_trace(frame, event, arg):
    if _pending is not None and _on_chip(frame.f_code):
        return _local_trace
    return None


def _local_trace(frame, event, arg):
    if _pending is not None and _running and event == "line":
        exc = _disarm()
        raise exc
    return _local_trace if _pending is not None else None
