"""The clock on an emulated RP2040: real MicroPython rp2 in rp2040js, driven through its pins.

Owns the Python side of the chip bench (tools/chip/bench.py) and of the end-to-end tests on
the chip (host_tests/test_chip_*.py): finding the MicroPython .uf2 and the boot ROM, building
the flash exactly as `make uf2` / `make flash` leave it (MicroPython, then a littlefs image
at 0xA0000 holding every firmware module as .mpy from mpy-cross and main.py as source:
tools/release.py's own builder), writing a scenario for tools/chip/run.mjs (Node, rp2040js
from package-lock.json), and reading back what the pins saw, with emulated timestamps.

What it needs, outside the repository (nothing fetched is committed):
- `MICROPYTHON_UF2`: a MicroPython rp2 .uf2 for the Raspberry Pi Pico (the README says how
  the bench's was built from the public v1.27.0 sources).
- the RP2040 B1 boot ROM (16 KiB). rp2040js needs it and no npm package ships it, so it is
  taken by path: `RP2040_BOOTROM`, or else `bootrom.bin` / `bootrom.ts` beside the .uf2.
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

ROOT = Path(__file__).resolve().parents[2]
for _p in (ROOT / "tools", ROOT / "host_tests", ROOT / "host_tests/harness/mp", ROOT / "firmware"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

import flash  # noqa: E402  (tools/flash.py)
import micropython_uf2  # noqa: E402
import release  # noqa: E402
from harness import tm1637_decode  # noqa: E402
from harness.firmware import BUTTON, DISPLAY_PINS, LED_PINS, LEVER  # noqa: E402

UF2_ENV = micropython_uf2.ENV_OVERRIDE  # "MICROPYTHON_UF2"
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
    raw = Path(path).read_bytes()
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
    return release.firmware_files(Path(root), flash.Runner(str(root)), python)


def flash_image(uf2_data, files, source="the MicroPython .uf2"):
    """The 2 MiB flash of a Pico after dragging `make uf2`'s file onto it: MicroPython's
    pages, erased flash elsewhere, the littlefs image of `files` at 0xA0000."""
    fw = micropython_uf2.inspect(uf2_data, release.FS_ADDRESS, release.FS_BYTES, source)
    image, _blocks = release.build_filesystem(files)
    out = bytearray(b"\xff" * release.FLASH_BYTES)
    base = release.FS_ADDRESS - release.FS_OFFSET
    for address, payload in fw.pages:
        out[address - base : address - base + len(payload)] = payload
    out[release.FS_OFFSET : release.FS_OFFSET + len(image)] = image
    return bytes(out)


def wiring():
    return {
        "displays": [list(p) for p in DISPLAY_PINS],
        "switches": sorted(PINS.values()),
        "leds": list(LED_PINS),
        "buzzer": BUZZER_GPIO,
        "adc": {str(BATTERY_ADC): FRESH_BATTERY_ADC},
    }


# ---------------------------------------------------------------------------- scenario
class Script:
    """Steps for run.mjs, written in the order they happen. `t` is the board's time in ms
    (0 at power-up; a power cycle starts again at 0). Inputs are placed at exact instants."""

    def __init__(self):
        self.steps = []
        self.t = 0.0

    def run_to(self, t_ms):
        if t_ms < self.t:
            raise ValueError("time does not run backwards")
        self.t = t_ms
        self.steps.append({"op": "run", "until_ms": t_ms})

    def wait(self, ms):
        self.run_to(self.t + ms)

    def pin(self, name_or_gpio, pressed, at_ms=None):
        gpio = PINS.get(name_or_gpio, name_or_gpio)
        at = self.t if at_ms is None else at_ms
        if at < self.t:
            raise ValueError("an input in the past")
        self.steps.append({"op": "pin", "at_ms": at, "gpio": gpio, "pressed": bool(pressed)})

    def press(self, name, hold_ms=80, after_ms=60):
        """Close the switch now, open it `hold_ms` later, then run `after_ms` more."""
        self.pin(name, True)
        self.pin(name, False, self.t + hold_ms)
        self.wait(hold_ms + after_ms)

    def tap(self, name, hold_ms=80, settle_ms=100):
        """A button press and the time for its effect to show (as the host e2e tests)."""
        self.press(name, hold_ms, 60 + settle_ms)

    def choose_preset(self, index):
        """Ready screen: SET, PLUS `index` times (from preset 0), PLAY."""
        self.tap("set")
        for _ in range(index):
            self.tap("plus")
        self.tap("play")

    def repl(self, code, timeout_ms=20_000):
        """Stop main.py (Ctrl-C) and run `code` in the raw REPL; its output is the next
        entry of the board's `repl` list."""
        self.steps.append({"op": "repl", "code": code, "timeout_ms": timeout_ms})

    def power_cycle(self):
        self.steps.append({"op": "power_cycle"})
        self.t = 0.0


# ---------------------------------------------------------------------------- results
class Trace:
    """What one power-up of the board showed on its pins (times in ns of its clock)."""

    def __init__(self, rec):
        self.rec = rec
        self.frames = [[(s, e, bytes(b)) for s, e, b in side] for side in rec["frames"]]
        self.leds = [tuple(x) for x in rec["leds"]]
        self.buzzer = [tuple(x) for x in rec["buzzer"]]
        self.edges = [tuple(x) for x in rec["edges"]]
        self.stamps = [tuple(x) for x in rec["stamps"]]  # (edge_ns, gpio, read_ns, value)
        self.segments = rec["segments"]
        self.repl = rec["repl"]
        self.end_ns = rec["end_ns"]
        self.serial = rec["serial"]
        self.reset = rec["reset"]
        self.protocol_errors = rec["tm_errors"]
        self.emulator_errors = rec["emulator_errors"]
        self.flash_ops = rec["flash_ops"]

    def lit(self, side):
        """[(t_ns, text, colon, start_ns)]: each time what the display lights changes, at
        the stop that ends the frame changing it (start_ns: that frame's start; for the
        digits, the address frame's own start)."""
        ram = bytearray(6)
        ctrl = -1
        shown = None
        out = []
        addr_start = 0
        for start, stop, data in self.frames[side]:
            cmd = data[0] & 0xC0
            if cmd == 0xC0:
                a = data[0] & 0x3F
                for b in data[1:]:
                    ram[a] = b
                    a += 1
                addr_start = start
            elif cmd == 0x80:
                ctrl = data[0] & 0x0F
            now = bytes(ram[:4]) if ctrl >= 0 and ctrl & 0x08 else None
            if now != shown:
                shown = now
                if now is None:
                    out.append((stop, None, False, start))
                else:
                    text, colon = tm1637_decode.text(now)
                    out.append((stop, text, colon, addr_start if cmd == 0xC0 else start))
        return out

    def shown_at(self, side, t_ns):
        """(text, colon) lit at t_ns (None, False before the first frame)."""
        current = (None, False)
        for t, text, colon, _ in self.lit(side):
            if t > t_ns:
                break
            current = (text, colon)
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

    def repl_out(self, i=-1):
        entry = self.repl[i]
        if entry["err"]:
            raise ChipError("on the chip: %s\n%s" % (entry["err"], entry["out"]))
        return entry["out"]

    def repl_json(self, i=-1):
        return json.loads(self.repl_out(i).strip().splitlines()[-1])


class Chip:
    """A prepared emulated clock: the MicroPython .uf2, the boot ROM, the firmware image."""

    def __init__(self, uf2, bootrom, root=ROOT, files=None, node="node"):
        self.uf2 = Path(uf2)
        if not self.uf2.exists():
            raise ChipError("%s=%s: no such file" % (UF2_ENV, uf2))
        if bootrom is None:
            raise ChipError(
                "no RP2040 boot ROM: set %s (see tools/chip/chip.py), or put %s beside %s"
                % (BOOTROM_ENV, " or ".join(BOOTROM_NAMES), self.uf2)
            )
        self.bootrom = bootrom_bytes(bootrom)
        self.files = firmware_files(root) if files is None else files
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

    def run(self, script, flash=None, timeout_s=1_800):
        """Run `script` on a fresh board; returns ([Trace per power-up], final flash)."""
        with tempfile.TemporaryDirectory(prefix="chip-") as tmp:
            tmp = Path(tmp)
            (tmp / "bootrom.bin").write_bytes(self.bootrom)
            (tmp / "flash.bin").write_bytes(self.flash if flash is None else flash)
            scenario = {
                "bootrom": str(tmp / "bootrom.bin"),
                "flash": str(tmp / "flash.bin"),
                "flash_out": str(tmp / "flash_out.bin"),
                "wiring": wiring(),
                "steps": script.steps,
            }
            (tmp / "scenario.json").write_text(json.dumps(scenario))
            try:
                proc = subprocess.run(
                    [self.node, str(NODE_RUNNER), str(tmp / "scenario.json")],
                    cwd=str(ROOT),
                    capture_output=True,
                    timeout=timeout_s,
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise ChipError("the emulator did not run: %s" % exc) from None
            if proc.returncode != 0:
                raise ChipError(
                    "the emulator failed (exit %d):\n%s"
                    % (proc.returncode, proc.stderr.decode(errors="replace")[-3000:])
                )
            result = json.loads(proc.stdout)
            final = (tmp / "flash_out.bin").read_bytes()
        return [Trace(rec) for rec in result["boards"]], final


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
