"""`make sim`: the real firmware (firmware/main.py, unmodified) on a simulated board, in a
terminal.

Owns the terminal front end of tools/simboard/firmware.py's SimulatedClock: it runs the
firmware in real time (virtual time follows the wall clock times --speed), draws both
displays (the LED build's TM1637 modules, or with --display lcd the LCD build's HT1621
glasses) as big seven-segment digits from the segment bytes the chip models hold (so the
screen shows exactly what the chips would light, colon, points and battery bars included),
the side LEDs and the buzzer, and turns keys into lever and button presses.

Usage:
    make sim [SIMARGS="--speed 10 --bell"]
    make sim DISPLAY=lcd          the LCD build (--display lcd): two 6-digit glasses
    make sim SIMARGS=--usb        the clock's USB port on socket://127.0.0.1:8131 (--usb N:
                                  port N), for `make live PORT=socket://127.0.0.1:8131`
                                  (docs/live.md, "The rehearsal"; tools/sim/usb_side.py)
    .venv/bin/python tools/sim/sim.py [--speed N] [--flash DIR] [--battery-mv MV] [--bell]
                                      [--ascii] [--usb [PORT]] [--display led|lcd]
    .venv/bin/python tools/sim/sim.py --script FILE [--changes] [--print-every MS]
    .venv/bin/python tools/sim/sim.py --help      the options and the keys

Keys (interactive; the same keys are used in scripts). KEY_TABLE below is the one list:
the key map, the keys drawn on the screen and --help are built from it
(host_tests/tools/test_manual.py checks that these lines are what it builds):
    z left lever                        m right lever
    space lever of the running side     p PLAY
    P PLAY held 2.2 s                   s SET
    S SET held 2.2 s (long press)       - or , MINUS
    _ or < MINUS held 1.5 s (repeat)    = or + or . PLUS
    > PLUS held 1.5 s (repeat)          o power off / on (the flash stays)
    q quit

Ending: `q`, Ctrl-C (SIGINT), SIGTERM and the terminal's end (SIGHUP; with SIGHUP ignored,
as under make or nohup, stdin's EOF or EIO) end the simulator at once, in the middle of a
firmware wakeup too, one that never ends included (no virtual time passes, so the firmware
never hands control back): each raises `Quit` where the main thread is, from a signal
handler; while the firmware runs a SIGALRM every 0.1 s of wall time reads the keys for it.
`Quit` is a BaseException and no KeyboardInterrupt, so the firmware's loop does not take it
(its in-game KeyboardInterrupt handler is for a USB host's Ctrl-C, and the simulated board
has no host). Ctrl-C ends script mode too. Exit status: 0 after `q` or the terminal's end,
128 + the signal's number after a signal. Like a power cut, an end in the middle of a wakeup
may leave a file write half done: the firmware's power-up repair settles it.

Script format (--script FILE; runs in virtual time as fast as possible, no terminal UI).
One command per line; `#` starts a comment; times are in virtual ms since the start:
    wait MS          run the firmware for MS
    at MS            run until t = MS
    MS KEY           same as `at MS` then KEY
    KEY              press a key from the table above (or a name: left right play set minus
                     plus); the script then runs until that key is released again
                     (80 ms for a tap, 2200 / 1500 ms for the held keys)
    hold NAME MS     hold a lever or button (by name or key) for MS
    show             print the state line now
    off / on         power off / on (while off, `wait` still passes time)
A state line: `t=12345 L='1h30' R=' 5:07' leds=01 buzz=0` (a ':' is inserted where the
colon is lit; leds = left, right; buzz = 1 while the buzzer sounds). Lines are printed for
`show`, every --print-every MS, on every change with --changes (sampled each 10 ms), and
once at the end.
"""

import argparse
import os
import signal
import sys
import time as _wall
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/: paths.py
import paths  # noqa: E402

paths.install(board=True)
ROOT = paths.ROOT

import machine  # noqa: E402  (the fake one, from tools/simboard/mp)
from usb_side import DEFAULT_PORT as USB_PORT  # noqa: E402
from usb_side import attach as attach_usb  # noqa: E402

from simboard import ht1621_decode, tm1637_decode, vtime  # noqa: E402
from simboard.firmware import SimulatedClock  # noqa: E402

DEFAULT_FLASH = ROOT / "build" / "sim-flash"
TAP_MS = 80
LONG_MS = 2_200
REPEAT_MS = 1_500
_BATTERY_ADC = 3  # ADC channel of VSYS / 3 (firmware/board.py)
SAMPLE_MS = 10  # change detection step in script mode, ms (tenths change every 100 ms)
_FRAME_BUDGET_S = 0.05  # wall time the UI spends running the firmware per frame, s
_CHUNK_MS = 100  # virtual time run at once in the UI, ms

# The keys: (keys, input name, hold ms, what it does); "lever" means the lever of the side
# whose clock runs. The one list: KEYS (the key map), key_lines() (the screen's lines,
# --help's and the module doc's) are built from it.
KEY_TABLE = (
    ("z", "left", TAP_MS, "left lever"),
    ("m", "right", TAP_MS, "right lever"),
    (" ", "lever", TAP_MS, "lever of the running side"),
    ("p", "play", TAP_MS, "PLAY"),
    ("P", "play", LONG_MS, "PLAY held 2.2 s"),
    ("s", "set", TAP_MS, "SET"),
    ("S", "set", LONG_MS, "SET held 2.2 s (long press)"),
    ("-,", "minus", TAP_MS, "MINUS"),
    ("_<", "minus", REPEAT_MS, "MINUS held 1.5 s (repeat)"),
    ("=+.", "plus", TAP_MS, "PLUS"),
    (">", "plus", REPEAT_MS, "PLUS held 1.5 s (repeat)"),
)
# Keys that press nothing: (key, what it does)
OTHER_KEYS = (
    ("o", "power off / on (the flash stays)"),
    ("q", "quit"),
)
KEYS = {k: (name, hold) for keys, name, hold, _what in KEY_TABLE for k in keys}
NAMES = ("left", "right", "play", "set", "minus", "plus")
_KEY_COLUMN = 36  # the width of the first column of key_lines()


def key_lines():
    """The keys, two to a line (the screen, --help and the module doc show these lines)."""
    entries = [
        "%s %s" % (" or ".join("space" if k == " " else k for k in keys), what)
        for keys, _name, _hold, what in KEY_TABLE
    ]
    entries += ["%s %s" % (k, what) for k, what in OTHER_KEYS]
    lines = []
    for i in range(0, len(entries), 2):
        pair = entries[i : i + 2]
        if len(pair) == 2 and len(pair[0]) < _KEY_COLUMN:
            lines.append(pair[0].ljust(_KEY_COLUMN) + pair[1])
        else:
            lines.extend(pair)
    return lines


# ------------------------------------------------------------------ the simulated clock


class Sim:
    """The board plus a power switch, with time counted in ms since the simulator started
    (`t_ms`, it keeps running while the power is off)."""

    def __init__(self, flash_dir, battery_mv=4_400, display="led"):
        self.flash_dir = Path(flash_dir)
        self.flash_dir.mkdir(parents=True, exist_ok=True)
        self.battery_mv = battery_mv  # VSYS; the board reads it as VSYS / 3 on ADC3
        self.display = display  # "led": the TM1637 modules, "lcd": the HT1621 glasses
        self.clock = SimulatedClock(self.flash_dir, display=display)
        self._set_battery()
        self.t_ms = 0
        self.powered = True
        self.off_since = 0
        self.resets = 0  # firmware resets (watchdog or machine.reset) seen

    def run(self, ms):
        """Let `ms` of virtual time pass (the firmware runs only while powered)."""
        if ms <= 0:
            return
        self.t_ms += ms
        if not self.powered:
            return
        try:
            self.clock.run_ms(ms)
        except (machine.WatchdogReset, machine.Reset):
            self.resets += 1
            self.clock.power_cycle(0)
            self._set_battery()

    def _set_battery(self):
        machine.set_adc_volts(_BATTERY_ADC, self.battery_mv / 3000)

    def power(self):
        """Toggle the power switch."""
        if self.powered:
            self.powered = False
            self.off_since = self.t_ms
        else:
            self.powered = True
            self.clock.power_cycle(self.t_ms - self.off_since)
            self._set_battery()

    def key(self, ch):
        """Act on a key from KEYS (or an input name). Returns the hold time in ms, 0 if
        nothing was pressed."""
        if ch == "o":
            self.power()
            return 0
        if ch in NAMES:
            name, hold = ch, TAP_MS
        elif ch in KEYS:
            name, hold = KEYS[ch]
        else:
            return 0
        return self.press(name, hold)

    def press(self, name, hold_ms):
        """Press a lever/button for `hold_ms` without blocking. Returns hold_ms, or 0 when
        nothing was pressed (power off, no side running, or that input is still held)."""
        if not self.powered:
            return 0
        if name == "lever":
            left, right = self.clock.leds()
            if left == right:
                return 0
            name = "left" if left else "right"
        if self.clock.is_pressed(name):
            return 0
        self.clock.press_for(name, hold_ms)
        return hold_ms

    def state(self):
        """(left segments, right segments, (led L, led R), (sounding, Hz), powered)."""
        if not self.powered:
            n = 6 if self.display == "lcd" else 4
            return bytes(n), bytes(n), (0, 0), (False, 0), False
        c = self.clock
        return c.segments(0), c.segments(1), c.leds(), c.buzzer(), True

    def line(self):
        left, right, leds, (buzz, _hz), _on = self.state()
        return "t=%d L='%s' R='%s' leds=%d%d buzz=%d" % (
            self.t_ms,
            _label(left),
            _label(right),
            leds[0],
            leds[1],
            1 if buzz else 0,
        )


def _label(segs):
    """The display's text as one line: the LED build's colon as ":", the LCD glass's points
    as "." after their digit."""
    if len(segs) == 4:
        text, colon = tm1637_decode.text(segs)
        return text[:2] + ":" + text[2:] if colon else text
    text, points, _icons = ht1621_decode.text(segs)
    return "".join(c + ("." if points >> i & 1 else "") for i, c in enumerate(text))


# ------------------------------------------------------------------ big digits (pure)

DIGIT_W = 6  # columns per digit cell (segments only; cells are separated by one space)
DIGIT_H = 5  # text rows
# (segment bit, row, first column, last column): a top, b top right, c bottom right,
# d bottom, e bottom left, f top left, g middle.
_SEGMENT_CELLS = (
    (0x01, 0, 1, 4),
    (0x02, 1, 5, 5),
    (0x04, 3, 5, 5),
    (0x08, 4, 1, 4),
    (0x10, 3, 0, 0),
    (0x20, 1, 0, 0),
    (0x40, 2, 1, 4),
)
# The corners light when a segment touching them does, so strokes join up.
_CORNERS = (
    (0, 0, 0x21),
    (0, 5, 0x03),
    (2, 0, 0x70),
    (2, 5, 0x46),
    (4, 0, 0x18),
    (4, 5, 0x0C),
)


def big_digit(seg, on="#"):
    """DIGIT_H strings of DIGIT_W characters drawing one segment byte (bit 7 ignored)."""
    rows = [[" "] * DIGIT_W for _ in range(DIGIT_H)]
    for bit, row, c0, c1 in _SEGMENT_CELLS:
        if seg & bit:
            for c in range(c0, c1 + 1):
                rows[row][c] = on
    for row, col, bits in _CORNERS:
        if seg & bits:
            rows[row][col] = on
    return ["".join(r) for r in rows]


def big_display(segs, on="#"):
    """DIGIT_H strings drawing a 4-digit display: digit, space, digit, colon column,
    digit, space, digit. The colon is lit by bit 7 of byte 1. Six bytes draw the LCD glass:
    six digits, a point column after each, lit at its foot by that digit's bit 7."""
    if len(segs) == 6:
        cells = [big_digit(s, on) for s in segs]
        return [
            "".join(
                c[r] + (on if r == DIGIT_H - 1 and segs[i] & 0x80 else " ")
                for i, c in enumerate(cells)
            )
            for r in range(DIGIT_H)
        ]
    cells = [big_digit(s, on) for s in segs[:4]]
    colon = [" ", on if segs[1] & 0x80 else " ", " ", on if segs[1] & 0x80 else " ", " "]
    out = []
    for r in range(DIGIT_H):
        out.append(
            cells[0][r]
            + " "
            + cells[1][r]
            + " "
            + colon[r]
            + " "
            + cells[2][r]
            + " "
            + cells[3][r]
        )
    return out


# ------------------------------------------------------------------ script mode


def run_script(sim, lines, out, print_every_ms=0, changes=False):
    """Replay script `lines` (see the module doc) on `sim`, writing state lines to `out`."""
    last = [None]
    next_print = [print_every_ms if print_every_ms > 0 else None]
    printed = [None]

    def emit(final=False):
        text = sim.line()
        if not (final and text == printed[0]):
            out.write(text + "\n")
        printed[0] = text

    def run_to(target):
        while sim.t_ms < target:
            step = target - sim.t_ms
            if changes:
                step = min(step, SAMPLE_MS - sim.t_ms % SAMPLE_MS)
            if next_print[0] is not None:
                step = min(step, next_print[0] - sim.t_ms)
            sim.run(step)
            if next_print[0] is not None and sim.t_ms >= next_print[0]:
                emit()
                next_print[0] += print_every_ms
            elif changes:
                st = sim.state()
                if st[:4] != last[0]:
                    last[0] = st[:4]
                    emit()

    for number, raw in enumerate(lines, 1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        try:
            _script_command(sim, words, run_to, emit)
        except (ValueError, KeyError, IndexError) as exc:
            msg = "script line %d: %r: %s" % (number, raw.rstrip("\n"), exc)
            raise SystemExit(msg) from None
    emit(final=True)


def _script_command(sim, words, run_to, emit):
    cmd = words[0]
    if cmd.isdigit():
        run_to(int(cmd))
        words = words[1:]
        if not words:
            return
        cmd = words[0]
    if cmd == "wait":
        run_to(sim.t_ms + int(words[1]))
    elif cmd == "at":
        run_to(int(words[1]))
    elif cmd == "show":
        emit()
    elif cmd in ("off", "on"):
        if sim.powered == (cmd == "off"):
            sim.power()
    elif cmd == "hold":
        name = words[1] if words[1] in NAMES else KEYS[words[1]][0]
        held = sim.press(name, int(words[2]))
        run_to(sim.t_ms + held)
    else:
        key = " " if cmd == "space" else cmd
        if key not in KEYS and key not in NAMES and key != "o":
            raise ValueError("unknown command or key")
        held = sim.key(key)
        run_to(sim.t_ms + held)


# ------------------------------------------------------------------ terminal UI


class Quit(BaseException):
    """Ends the simulator from wherever the main thread is, the firmware's wakeup included: a
    BaseException that is no KeyboardInterrupt, so neither the loop's `except Exception` nor
    its in-game KeyboardInterrupt handler (app.py: a USB host's Ctrl-C must not stop a
    clock; the simulated board has no USB host) takes it. `code` is the exit status."""

    def __init__(self, code=0):
        super().__init__(code)
        self.code = code


def _quit(code):
    """Raise Quit(code), the keys' watch stopped first (no SIGALRM after the screen ends)."""
    signal.setitimer(signal.ITIMER_REAL, 0)
    raise Quit(code)


def _quit_on(signum, _frame):
    _quit(128 + signum)


def quit_on_signals():
    """SIGINT (Ctrl-C) and SIGTERM end the simulator, and SIGHUP (its terminal hung up)
    unless it was ignored when the simulator started (nohup, or a shell's `trap '' HUP`:
    then the terminal's end is seen on stdin, `_Keys`)."""
    signal.signal(signal.SIGINT, _quit_on)
    signal.signal(signal.SIGTERM, _quit_on)
    if signal.getsignal(signal.SIGHUP) != signal.SIG_IGN:
        signal.signal(signal.SIGHUP, _quit_on)


class _Keys:
    """The keys typed, read between frames and, while the firmware runs, every WATCH_S of
    wall time by a SIGALRM (`watch`): `q`, and a terminal gone (stdin no longer a terminal:
    a read gives EOF or EIO), raise Quit there, so they end the simulator even while a
    wakeup of the firmware never ends; other keys wait in `typed` for the next frame."""

    WATCH_S = 0.1

    def __init__(self, scr):
        self.scr = scr
        self.typed = []

    def take(self, ch):
        """Keep key `ch` (a getch result; -1: none)."""
        if ch == -1:
            if not os.isatty(0):
                # The terminal hung up (its window closed, its tmux session killed) without
                # a SIGHUP reaching this process (`make sim`: make takes it and the child
                # stays): getch no longer waits, the loop would spin.
                _quit(0)
            return False
        if ch == ord("q"):
            _quit(0)
        if 0 <= ch < 256:
            self.typed.append(chr(ch))
        return True

    def read(self):
        """Every key already typed, without waiting."""
        scr = self.scr
        scr.timeout(0)
        try:
            while self.take(scr.getch()):
                pass
        finally:
            scr.timeout(15)

    def _alarm(self, _signum, _frame):
        self.read()

    @contextmanager
    def watch(self):
        """While the firmware runs: the keys read every WATCH_S of wall time."""
        old = signal.signal(signal.SIGALRM, self._alarm)
        signal.setitimer(signal.ITIMER_REAL, self.WATCH_S, self.WATCH_S)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)


def run_terminal(sim, speed, bell, ascii_only):
    """The terminal UI until `q`, a signal or the terminal's end (Quit); its exit status."""
    import curses
    import locale

    locale.setlocale(locale.LC_ALL, "")
    utf8 = not ascii_only and "utf" in (locale.getpreferredencoding(False) or "").lower()
    try:
        curses.wrapper(_ui, sim, speed, bell, utf8)  # the terminal restored, however it ends
    except Quit as q:
        return q.code
    return 0


def _ui(scr, sim, speed, bell, utf8):
    import curses

    curses.curs_set(0)
    scr.timeout(15)  # ms: getch waits at most this long, the frame period
    lit = "\u2588" if utf8 else "#"
    red = green = 0
    if curses.has_colors():
        curses.start_color()
        curses.use_default_colors()
        curses.init_pair(1, curses.COLOR_RED, -1)
        curses.init_pair(2, curses.COLOR_GREEN, -1)
        red, green = curses.color_pair(1), curses.color_pair(2)
    wall0 = _wall.monotonic()
    was_sounding = False
    last_key = ""
    keys = _Keys(scr)
    while True:
        if keys.take(scr.getch()):  # waits up to one frame
            keys.read()  # then every key already typed
        typed, keys.typed = keys.typed, []
        for k in typed:
            if k == "o" or k in KEYS:
                sim.key(k)
                last_key = "space" if k == " " else k
        now = _wall.monotonic()
        behind = int((now - wall0) * 1000 * speed) - sim.t_ms
        budget_end = now + _FRAME_BUDGET_S
        with keys.watch():
            while behind > 0 and _wall.monotonic() < budget_end:
                step = min(behind, _CHUNK_MS)
                sim.run(step)
                behind -= step
        lagging = behind > _CHUNK_MS
        if behind > 0:  # the host cannot keep up with --speed: drop the rest, stay responsive
            wall0 += behind / 1000 / speed
        left, right, leds, (sounding, hz), powered = sim.state()
        if bell and sounding and not was_sounding:
            curses.beep()
        was_sounding = sounding
        _draw(scr, sim, speed, lit, red, green, left, right, leds, sounding, hz, powered, last_key)
        if lagging:
            scr.addstr(1, 60, "(host too slow: running slower)")
            scr.refresh()


def _draw(scr, sim, speed, lit, red, green, left, right, leds, sounding, hz, powered, last):
    import curses

    scr.erase()
    h, w = scr.getmaxyx()

    def put(y, x, text, attr=0):
        if 0 <= y < h and x < w:
            try:
                scr.addstr(y, x, text[: max(0, w - x - 1)], attr)
            except curses.error:
                pass

    put(0, 1, "Chess clock simulator: firmware/main.py on a simulated Pico", curses.A_BOLD)
    put(1, 1, "t=%8.1f s   speed x%g   flash %s" % (sim.t_ms / 1000, speed, sim.flash_dir))
    led_on, led_off = ("\u25cf", "\u25cb") if lit != "#" else ("*", "o")
    for side, segs, x in ((0, left, 2), (1, right, 48)):
        led = led_on if leds[side] else led_off
        title = "%s LEFT" % led if side == 0 else "RIGHT %s" % led
        put(3, x, title, (green | curses.A_BOLD) if leds[side] else 0)
        icons = sim.clock.icons(side) if powered and sim.display == "lcd" else 0
        if icons:  # the glass's battery symbol: its bars (segments.ICON_BAT1..3)
            put(3, x + 14, "battery [%s]" % ("|" * bin(icons).count("1")).ljust(3))
        for r, row in enumerate(big_display(segs, lit)):
            put(5 + r, x, row, red | curses.A_BOLD)
        put(11, x, "[%s]" % _label(segs))
    put(13, 2, "power: %s" % ("on" if powered else "OFF (press o)"))
    buzz = "BEEP %d Hz" % hz if sounding else "silent"
    put(13, 24, "buzzer: %s" % buzz, curses.A_REVERSE if sounding else 0)
    if last:
        put(13, 56, "last key: %s" % last)
    if sim.resets:
        put(14, 2, "firmware resets: %d" % sim.resets)
    put(16, 1, "Keys:", curses.A_BOLD)
    for i, text in enumerate(key_lines()):
        put(17 + i, 3, text)
    scr.refresh()


# ------------------------------------------------------------------ entry point


def help_epilog():
    """--help's list of the keys (key_lines), and how scripts name them."""
    return (
        "keys (a script uses the same keys, or the names %s):\n" % " ".join(NAMES)
        + "\n".join("  " + line for line in key_lines())
        + "\n\nthe buttons' meaning on each screen: docs/manual.md"
    )


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=help_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--speed", type=float, default=1.0, help="virtual time per wall time")
    ap.add_argument("--flash", default=str(DEFAULT_FLASH), help="the board's filesystem folder")
    ap.add_argument("--bell", action="store_true", help="terminal bell when the buzzer starts")
    ap.add_argument("--ascii", action="store_true", help="draw with ASCII only")
    ap.add_argument("--battery-mv", type=int, default=4_400, help="VSYS (3 x AA), mV")
    ap.add_argument(
        "--display",
        choices=("led", "lcd"),
        default="led",
        help="the build: led (two 4-digit TM1637 modules) or lcd (two 6-digit HT1621 glasses)",
    )
    ap.add_argument("--script", help="replay this script in virtual time, no terminal UI")
    ap.add_argument("--print-every", type=int, default=0, metavar="MS", help="(script mode)")
    ap.add_argument("--changes", action="store_true", help="(script mode) print each change")
    ap.add_argument(
        "--usb",
        nargs="?",
        type=int,
        const=USB_PORT,
        metavar="PORT",
        help="offer the clock's USB port as socket://127.0.0.1:PORT (default %d; make live "
        "PORT=socket://127.0.0.1:%d; tools/sim/usb_side.py)" % (USB_PORT, USB_PORT),
    )
    args = ap.parse_args(argv)
    if args.speed <= 0:
        ap.error("--speed must be positive")
    quit_on_signals()
    try:
        vtime.install()  # SimulatedClock installs its own clock at each power-on as well
        sim = Sim(args.flash, args.battery_mv, args.display)
        if args.usb is not None:
            attach_usb(sim, args.usb)
        if args.script:
            with open(args.script) as f:
                lines = f.readlines()
            try:
                run_script(sim, lines, sys.stdout, args.print_every, args.changes)
                sys.stdout.flush()
            except BrokenPipeError:  # e.g. piped into `head`
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        if not sys.stdin.isatty():
            ap.error("the interactive simulator needs a terminal (or use --script FILE)")
        os.environ.setdefault("ESCDELAY", "25")
        return run_terminal(sim, args.speed, args.bell, args.ascii)
    except Quit as q:  # a signal before or after the terminal UI, or in script mode
        return q.code


if __name__ == "__main__":
    sys.exit(main())
