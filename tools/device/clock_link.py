#!/usr/bin/env python3
"""Is the clock in a game? One look at its USB serial port before mpremote touches it.

usage: clock_link.py --port PORT   (prints what the clock says; exit 2 in a game)

The firmware (firmware/drivers/usbguard.py) answers every burst of bytes on its USB serial port
with one status line, `chess-clock: <phase>; ...`:
  ready, finished                    the host tools go on: mpremote's Ctrl-C hands the
                                     board over, as it always did;
  game running / paused / flagged    a game is in progress: the clock ignores USB until the
                                     result is recorded. The tools stop and say so in one
                                     line, before mpremote has sent anything.
The probe (`probe`): open the port as mpremote does (pyserial, any port form mpremote
takes), wait SETTLE_S and drop what
arrived (MicroPython keeps up to 256 bytes of output for the next program that opens the
port: old status lines), send one carriage return (a REPL only prints a new prompt), then
read for up to WAIT_S. A status line decides; a REPL prompt (the app is not running) or
silence (a raw REPL, a firmware without the guard, a port that says nothing) lets the tool
go on to mpremote. A port that cannot be opened is left to mpremote to report.

mpremote's own failure is read too (`explain_failure`): if the clock started a game after
the probe, mpremote's Ctrl-C and raw-REPL request get status lines instead of a prompt,
mpremote gives up after 10 s ("could not enter raw repl") and prints what it got; the
status line in it, or that error alone, becomes the one-line explanation.

flash.resolve_port calls `busy_message` (so flash, repl, device-test, backup and export all
do) with the runner that starts mpremote: only a runner with `open_serial` (flash.Runner)
and the pinned mpremote get the probe; another MPREMOTE (the tests' fakes, a remote
setup) may have no local port at all, so it is left alone and only its failure is read.
"""

import argparse
import re
import sys
import time

SETTLE_S = 0.1  # the clock's kept output arrives within 16 USB frames of opening the port
WAIT_S = 1.0  # the clock answers within a few ms, or REPLY_MS (500) after its last line
PROBE = b"\r"
BAUD = 115200  # ignored by USB CDC; what mpremote passes
_PHASE = r"chess-clock: (ready|finished|game (running|paused|flagged))"
STATUS = re.compile(_PHASE.encode())
STATUS_TEXT = re.compile(_PHASE)
REPL_PROMPT = b">>> "
IN_GAME = {
    "running": "a clock is running",
    "paused": "paused",
    "flagged": "a flag has fallen",
}


def open_serial(port):
    """The port opened directly, as mpremote opens it (pyserial's serial_for_url: a device
    path, `socket://host:port`, `rfc2217://host:port`); OSError if it cannot be."""
    import serial  # installed with mpremote

    return serial.serial_for_url(port, BAUD, timeout=0.05, write_timeout=1, exclusive=True)


def status_of(data):
    """'ready' | 'finished' | 'running' | 'paused' | 'flagged' from the last status line in
    `data` (bytes or text), or None."""
    pattern = STATUS if isinstance(data, bytes) else STATUS_TEXT
    matches = list(pattern.finditer(data))
    if not matches:
        return None
    found = matches[-1]
    phase = found.group(2) or found.group(1)
    return phase.decode() if isinstance(phase, bytes) else phase


def probe(link, sleep=time.sleep, monotonic=time.monotonic):
    """What the clock on the open serial `link` says: a phase (status_of), 'repl' (a REPL
    prompt: the app is not running) or None (no answer within WAIT_S)."""
    sleep(SETTLE_S)
    link.reset_input_buffer()
    link.write(PROBE)
    end = monotonic() + WAIT_S
    data = b""
    while True:
        data += link.read(256)  # returns after the port's read timeout at the latest
        phase = status_of(data)
        if phase is not None:
            return phase
        if REPL_PROMPT in data:
            return "repl"
        if monotonic() >= end:
            return None


def busy_text(port, phase):
    """The one line a tool prints when the clock on `port` is in a game."""
    return (
        "the clock on %s is in a game (%s) and ignores USB until its result is recorded; "
        "nothing on it was read or changed. Finish the game and record the result, or pause "
        "it and switch the clock off and on (it offers the paused game again and lets the "
        "tools in), then run this again" % (port, IN_GAME[phase])
    )


def busy_message(runner, port, direct=True, sleep=time.sleep, monotonic=time.monotonic):
    """busy_text when the clock on `port` says it is in a game, else None (go on). `direct`:
    the tools run the pinned mpremote (see the module doc)."""
    opener = getattr(runner, "open_serial", None)
    if not direct or opener is None:
        return None
    try:
        link = opener(port)
    except (OSError, ImportError, ValueError):
        return None  # busy, missing or not a serial port: mpremote says which
    try:
        phase = probe(link, sleep, monotonic)
    except OSError:
        phase = None
    finally:
        link.close()
    return busy_text(port, phase) if phase in IN_GAME else None


def explain_failure(port, output):
    """One line for a failed first mpremote command (its stdout + stderr), or None: the
    clock's status line if mpremote printed one, else a hint for 'could not enter raw repl'."""
    phase = status_of(output)
    if phase in IN_GAME:
        return busy_text(port, phase)
    if "could not enter raw repl" in output:
        return (
            "no MicroPython REPL answered on %s: could not enter raw repl. A clock in a game "
            "ignores USB until its result is recorded (record it, or pause the game and "
            "switch the clock off and on); any other board: switch it off and on, then run "
            "this again" % port
        )
    return None


def main(argv=None, opener=open_serial, out=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", required=True, help="serial port, e.g. /dev/ttyACM0")
    args = parser.parse_args(argv)
    out = sys.stdout if out is None else out
    try:
        link = opener(args.port)
    except (OSError, ImportError, ValueError) as exc:
        print("cannot open %s: %s" % (args.port, exc), file=out)
        return 1
    try:
        phase = probe(link)
    finally:
        link.close()
    if phase in IN_GAME:
        print(busy_text(args.port, phase), file=out)
        return 2
    print("%s: %s" % (args.port, phase or "no answer"), file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
