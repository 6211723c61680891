#!/usr/bin/env python3
"""Host tool that talks to the Pico over USB: `make flash`, `make repl`, `make device-test`.

usage: flash.py {flash,repl,device-test} [--port PORT] [--root DIR]
                [--drive DIR] [--yes] [--micropython PATH]

This module owns everything the host does to the board through mpremote:
- finding the board (USB VID:PID 2e8a:0005 is a Raspberry Pi Pico running MicroPython)
  and proving it runs MicroPython before anything is written to it; a clock in a game is
  refused in one line first (clock_link.py), for every tool that connects through here;
- flash: the firmware is compiled with mpy-cross as firmware_build.py says (every module
  into build/NAME.mpy, main.py and boot.py kept as source); all of it is copied to the
  board's root, then NAME.py leftovers of modules now shipped as NAME.mpy
  are removed (MicroPython's import looks for NAME.py before NAME.mpy, so a stale source
  would shadow the new module), and the board is hard-reset so main.py starts. Settings and
  saved games on the board stay. It prints the version (firmware/core/version.py) it is about
  to copy and, at the end, the version the board now runs;
- flash on a blank or BOOTSEL Pico: when no port is given, no MicroPython board answers and
  one RPI-RP2 drive is mounted (bootsel.py finds it, or --drive names it), the release .uf2
  is built (release.py, as `make uf2`), copied onto the drive after a yes (asked on a
  terminal; --yes / YES=1 otherwise), and the tool waits for MicroPython's serial port to
  appear and says so. That path replaces the whole filesystem (settings, saved games);
- repl: an interactive REPL on the board;
- device-test: the shared core suite (host_tests/core) run by the board itself.

Dependencies run one way: flash.py uses release.py (the .uf2 for BOOTSEL), firmware_build.py
(what goes onto the board) and runner.py, and none of them imports flash.py.
The logic is plain functions that turn the file tree into the exact list of commands
(argv lists: plan_flash, plan_device_test); only runner.Runner starts processes, and it is
injected everywhere, so host_tests/tools/test_flash.py runs all of it against a fake mpremote.
The mpremote command is `python -m mpremote` from this interpreter (the pinned one in .venv)
unless the MPREMOTE environment variable names another one (split like a shell would).
"""

import argparse
import os
import re
import shlex
import sys
import time
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/: paths.py
import paths  # noqa: E402

paths.install()

import bootsel  # noqa: E402
import clock_link  # noqa: E402
import download  # noqa: E402
import release  # noqa: E402
import runner  # noqa: E402
from firmware_build import (  # noqa: E402
    BUILD,
    VersionError,
    compile_command,
    firmware_sources,
    firmware_split,
    firmware_version,
    shipped_names,
)
from micropython_uf2 import ReleaseError  # noqa: E402
from runner import ProcessError, Result, last_line  # noqa: E402, F401 (flash.Result: fakes)

# last_line and Result come from runner.py; backup.py and export_games.py use them as
# flash.last_line, and the fakes in their tests answer with flash.Result.


class Runner(runner.Runner):
    """runner.Runner that can also open the board's serial port for clock_link's probe
    (backup.py and export_games.py use it as flash.Runner)."""

    open_serial = staticmethod(clock_link.open_serial)


ROOT = Path(__file__).resolve().parents[2]

PICO_USB_ID = "2e8a:0005"  # Raspberry Pi's USB vendor id, product id of MicroPython's CDC REPL
BOOTSEL_USB_ID = "2e8a:0003"  # the RP2040 boot ROM (USB drive RPI-RP2): no MicroPython yet
TARGET_VERSION = (1, 27)  # the MicroPython release the firmware is written for
DEVICE_TEST_BUILD = BUILD + "/device-test"
DEVICE_TEST_DIR = "/tests"  # where device-test puts the core suite on the board
DEVICE_TEST_MARK = "device-test: "  # prefix of the lines the on-board runner prints
DISPLAY_FILE = "display.cfg"  # board.DISPLAY_FILE: the build's displays, "lcd" or "led"

# The firmware starts the RP2040 watchdog (5 s). MicroPython cannot stop it, and neither
# mpremote's Ctrl-C nor a soft reset does, so a board interrupted for flashing would reset
# itself in the middle of a copy. The probe therefore clears the ENABLE bit (30) of the
# watchdog's CTRL register through the RP2040's atomic-clear alias (WATCHDOG_BASE
# 0x40058000 + 0x3000, RP2040 datasheet); only on an RP2040, since other chips have
# other things at that address. The next hard reset starts the app and its watchdog again.
WATCHDOG_CTRL_CLEAR = 0x40058000 + 0x3000
WATCHDOG_ENABLE = 1 << 30
# Prints e.g. "micropython 1.27.0"; CircuitPython would say "circuitpython ...".
IMPL_PROBE = (
    "import sys\n"
    "i = sys.implementation\n"
    "if i.name == 'micropython' and 'RP2040' in getattr(i, '_machine', ''):\n"
    "    import machine\n"
    "    machine.mem32[0x%X] = 0x%X\n"
    "print(i.name, '%%d.%%d.%%d' %% i.version[:3])\n" % (WATCHDOG_CTRL_CLEAR, WATCHDOG_ENABLE)
)


class FlashError(Exception):
    """A problem the user has to fix; main() prints the message and exits with status 1."""


class Device(NamedTuple):
    port: str
    serial: str
    usb_id: str  # "vvvv:pppp", lower-case hex
    description: str


def mpremote_command(environ=None):
    """The argv prefix that runs mpremote."""
    environ = os.environ if environ is None else environ
    value = environ.get("MPREMOTE", "").strip()
    return shlex.split(value) if value else [sys.executable, "-m", "mpremote"]


def parse_devices(listing):
    """Parse `mpremote connect list` output: 'PORT SERIAL VID:PID MANUFACTURER PRODUCT'."""
    devices = []
    for line in listing.splitlines():
        parts = line.split(None, 3)
        if len(parts) >= 3 and re.fullmatch(r"[0-9a-fA-F]{4}:[0-9a-fA-F]{4}", parts[2]):
            rest = parts[3] if len(parts) > 3 else ""
            devices.append(Device(parts[0], parts[1], parts[2].lower(), rest))
    return devices


def list_devices(runner, mpremote):
    """The serial devices `mpremote connect list` sees; FlashError when it cannot list."""
    result = runner.run(mpremote + ["connect", "list"])
    if result.returncode != 0:
        raise FlashError("could not list serial ports with mpremote: %s" % last_line(result))
    return parse_devices(result.stdout)


def find_port(runner, mpremote, devices=None, tool="flash"):
    """The serial port of the one MicroPython Pico plugged in; FlashError otherwise, with
    advice for `tool` (only `flash` is told of the RPI-RP2 drive: a .uf2 copied there
    replaces the clock's settings and games, which the other tools are run to read)."""
    devices = list_devices(runner, mpremote) if devices is None else devices
    picos = [d for d in devices if d.usb_id == PICO_USB_ID]
    if len(picos) == 1:
        return picos[0].port
    if picos:
        raise FlashError(
            "several MicroPython boards found (%s); choose one with PORT=..."
            % ", ".join(d.port for d in picos)
        )
    seen = ", ".join("%s (%s)" % (d.port, d.usb_id) for d in devices) or "none"
    found = "no Raspberry Pi Pico running MicroPython found (USB id %s); serial ports seen: %s.\n"
    found %= (PICO_USB_ID, seen)
    if tool != "flash":
        raise FlashError(
            found + "Check that the clock is plugged in with a data cable (a charging-only "
            "cable powers it and shows nothing) and that BOOTSEL was not held while plugging "
            "it in (it then shows up as a USB drive named RPI-RP2, USB id %s): unplug it and "
            "plug it in again without touching BOOTSEL; its settings and games stay on it. Or "
            "name its port: `make %s PORT=/dev/ttyACM0` (--port here)." % (BOOTSEL_USB_ID, tool)
        )
    raise FlashError(
        found + "Plug the Pico in with a data cable. If it shows up as a USB drive named RPI-RP2 "
        "(USB id %s) it has no MicroPython yet, or BOOTSEL was held while plugging it in: a "
        "clock that has settings and games is plugged in again without touching BOOTSEL "
        "(and `make backup` first), since `make flash` onto that drive installs MicroPython "
        "%d.%d and the clock and replaces all of them (it asks first; name the drive with "
        "DRIVE=/path/to/RPI-RP2 if it is not found). Or name the port: PORT=/dev/ttyACM0 with "
        "make, --port here." % ((BOOTSEL_USB_ID,) + TARGET_VERSION)
    )


def port_missing(port):
    """True when `port` names a device path that is not there (a URL, `socket://...`, and
    Windows' COM names are left to pyserial)."""
    return "://" not in port and os.name != "nt" and not os.path.exists(port)


def access_failure(port, output, tool="flash"):
    """One line for mpremote's 'failed to access PORT' (it adds "it may be in use by
    another program" whatever the cause), or None for any other failure."""
    if "failed to access" not in output:
        return None
    if port_missing(port):
        return (
            "there is no serial port %s: nothing is plugged in there. Plug the clock in, or "
            "leave PORT out and `make %s` finds it" % (port, tool)
        )
    if "://" in port:
        return "nothing answers at %s (is the program that offers that port running?)" % port
    return (
        "cannot open %s: another program has it open (`make live`, a serial terminal, an "
        "editor's REPL; end it and run this again) or you may not open it (on Linux, "
        "membership of the dialout group)" % port
    )


def check_micropython(runner, mpremote, port, tool="flash"):
    """Ask the board what it runs; returns the version string, FlashError unless MicroPython."""
    result = runner.run(mpremote + ["connect", port, "exec", IMPL_PROBE])
    if result.returncode != 0:
        output = result.stdout + result.stderr
        raise FlashError(
            access_failure(port, output, tool)
            or clock_link.explain_failure(port, output)
            or "no MicroPython REPL answered on %s: %s" % (port, last_line(result))
        )
    words = result.stdout.split()
    name = words[-2] if len(words) >= 2 else (words[-1] if words else "nothing")
    version = words[-1] if len(words) >= 2 else "?"
    if name != "micropython":
        raise FlashError(
            "the board on %s runs %s, not MicroPython; install MicroPython %d.%d first"
            % ((port, name) + TARGET_VERSION)
        )
    return version


def resolve_port(runner, mpremote, port, out, devices=None, tool="flash"):
    """The given port or the one found (among `devices` when already listed), after proving
    it runs MicroPython; FlashError, before mpremote touches it, for a clock in a game.
    `tool` (flash, repl, device-test, backup, export) chooses the advice of find_port."""
    if not port:
        port = find_port(runner, mpremote, devices, tool)
        print("found a MicroPython Pico on %s" % port, file=out)
    busy = clock_link.busy_message(runner, port, mpremote == mpremote_command({}))
    if busy:
        raise FlashError(busy)
    version = check_micropython(runner, mpremote, port, tool)
    try:
        numbers = tuple(int(x) for x in version.split(".")[:2])
    except ValueError:
        numbers = TARGET_VERSION
    if numbers < TARGET_VERSION:
        print(
            "warning: the board runs MicroPython %s; the firmware is written for %d.%d"
            % ((version,) + TARGET_VERSION),
            file=out,
        )
    return port


def board_listing(runner, board, path=":", missing_ok=False):
    """{name: is_dir} of one directory on the board (`mpremote fs ls`); {} for a missing
    directory when `missing_ok`, else FlashError when it cannot be listed."""
    result = runner.run(board + ["fs", "ls", path])
    if result.returncode != 0:
        text = result.stdout + "\n" + result.stderr
        if missing_ok and ("No such file" in text or "ENOENT" in text):
            return {}
        raise FlashError("could not list %s on the board: %s" % (path, last_line(result)))
    entries = {}
    for line in result.stdout.splitlines():
        match = re.fullmatch(r"\s*\d+\s+(.+?)(/?)\s*", line)
        if match:
            entries[match.group(1)] = bool(match.group(2))
    return entries


def stale_source_script(module_names):
    """MicroPython code that deletes /NAME.py for each NAME.mpy shipped; absent files are fine."""
    targets = ", ".join(repr("/" + n) for n in module_names)
    return (
        "import os\n"
        "for f in (%s,):\n"
        "    try:\n"
        "        os.remove(f)\n"
        "        print('removed stale', f)\n"
        "    except OSError:\n"
        "        pass\n" % targets
    )


def display_script(display):
    """The board-side script that makes the build's displays `display` ("lcd" or "led"):
    board.DISPLAY_FILE holds the word (the board reads it at power-up; without it, "led")."""
    return "f = open(%r, 'w')\nf.write(%r)\nf.close()\n" % (DISPLAY_FILE, display + "\n")


def plan_flash(root, port, mpremote, python=sys.executable, display=""):
    """The exact commands of `flash`, in order; paths are relative to `root`. `display`
    ("lcd", "led" or "" to keep the board's) is written before the reset."""
    root = Path(root)
    compiled, kept = firmware_split(root / "firmware")
    if "main.py" not in kept:
        raise FlashError("firmware/main.py is missing; nothing would start on the board")
    sources = firmware_sources(root / "firmware")
    source = {n: sources[n].relative_to(root).as_posix() for n in sources}
    board = mpremote + ["connect", port]
    steps = [
        compile_command(python, source[n], "%s/%s.mpy" % (BUILD, n[:-3]), n) for n in compiled
    ]
    uploads = ["%s/%s.mpy" % (BUILD, n[:-3]) for n in compiled] + [source[n] for n in kept]
    steps.append(board + ["fs", "cp"] + uploads + [":"])
    if compiled:
        steps.append(board + ["exec", stale_source_script(compiled)])
    if display:
        steps.append(board + ["exec", display_script(display)])
    steps.append(board + ["reset"])
    return steps


def _run_steps(runner, steps, out):
    for argv in steps:
        print("$ " + _short(argv), file=out)
        result = runner.run(argv)
        if result.returncode != 0:
            detail = (result.stderr or result.stdout).strip()
            raise FlashError(
                "command failed (exit %d): %s\n%s" % (result.returncode, _short(argv), detail)
            )
        if result.stdout.strip():
            print(result.stdout.rstrip(), file=out)


def _short(argv):
    """One-line rendering of a command for the log (multi-line scripts are abbreviated)."""
    words = [(a.splitlines()[0] + " ...") if "\n" in a else a for a in argv]
    return shlex.join(words)


class ViaBootsel(NamedTuple):
    """What `flash` needs to install the release .uf2 on a Pico in BOOTSEL mode; main()
    builds the real one, tests hand in fakes."""

    drives: object  # () -> [Path] of mounted RPI-RP2 drives
    confirm: object  # (question) -> True | False, or None when there is nobody to ask
    environ: dict  # for release.build (MICROPYTHON_UF2, MICROPYTHON_UF2_URL)
    micropython: str  # a MicroPython .uf2 to use instead of the pinned one, "" for the pin
    fetch: object = download.download  # release.build's download function
    sleep: object = time.sleep
    monotonic: object = time.monotonic


def flash(root, port, runner, mpremote, out, python=sys.executable, via_bootsel=None, display=""):
    """Compile, copy, clean up, set the displays (`display`: "lcd", "led", "" keeps the
    board's) and reset; or, with no MicroPython board but an RPI-RP2 drive (and via_bootsel
    given), install the release .uf2 on it, which starts as the LED build. Returns the exit
    status."""
    root = Path(root)
    compiled, _kept = firmware_split(root / "firmware")
    if not (root / "firmware" / "main.py").is_file():
        raise FlashError("firmware/main.py is missing; nothing would start on the board")
    version = version_of(root)
    devices = None
    if not port and via_bootsel is not None:
        devices = list_devices(runner, mpremote)
        if not any(d.usb_id == PICO_USB_ID for d in devices):
            drives = via_bootsel.drives()
            if len(drives) == 1:
                status = install_release(
                    root, drives[0], runner, mpremote, out, python, via_bootsel
                )
                if display == "lcd" and status == 0:
                    print(
                        "the release starts as the LED build: once it is up, run "
                        "make flash DISPLAY=lcd for the LCD build's displays",
                        file=out,
                    )
                return status
            if drives:
                raise FlashError(
                    "several RPI-RP2 drives found (%s); choose one with DRIVE=..."
                    % ", ".join(str(d) for d in drives)
                )
    port = resolve_port(runner, mpremote, port, out, devices)
    print("flashing firmware version %s onto %s" % (version, port), file=out)
    if compiled:
        (root / BUILD).mkdir(exist_ok=True)
    _run_steps(runner, plan_flash(root, port, mpremote, python, display), out)
    if display:
        print("displays: the %s build (%s on the board)" % (display, DISPLAY_FILE), file=out)
    print("copied to %s: %s" % (port, ", ".join(shipped_names(root))), file=out)
    print("firmware version: %s (the board on %s restarted into it)" % (version, port), file=out)
    return 0


def version_of(root):
    """firmware/core/version.py's VERSION (firmware_build.firmware_version), or FlashError."""
    try:
        return firmware_version(root)
    except VersionError as exc:
        raise FlashError(str(exc)) from None


def install_release(root, drive, runner, mpremote, out, python, via_bootsel):
    """Build the release .uf2, copy it onto the RPI-RP2 drive after a yes, and wait until
    MicroPython's serial port is there. Returns the exit status."""
    print("no MicroPython board answers, but a Pico in BOOTSEL mode does: %s" % drive, file=out)
    try:
        target = release.build(
            root,
            runner,
            via_bootsel.environ,
            out,
            via_bootsel.fetch,
            via_bootsel.micropython or None,
            python,
        )
    except ReleaseError as exc:
        raise FlashError("cannot build the release .uf2 for it: %s" % exc) from None
    answer = via_bootsel.confirm(
        "Copy %s onto %s? It installs MicroPython and the clock and replaces the Pico's "
        "filesystem: settings and saved games on it are lost. [y/N] " % (target.name, drive)
    )
    if answer is None:
        raise FlashError(
            "nothing copied: there is no terminal to ask. `make flash YES=1` copies %s onto "
            "%s without asking" % (target.name, drive)
        )
    if not answer:
        print("nothing copied", file=out)
        return 1
    try:
        note = bootsel.copy_to_drive(target, drive)
    except OSError as exc:
        raise FlashError("could not copy onto %s: %s" % (drive, exc)) from None
    print("copied %s onto %s; the Pico writes it and restarts" % (target.name, drive), file=out)
    if note:
        print("note: " + note, file=out)

    def micropython_ports():
        try:
            devices = list_devices(runner, mpremote)
        except FlashError:
            return None
        return [d.port for d in devices if d.usb_id == PICO_USB_ID]

    ports = bootsel.wait_for(
        micropython_ports, sleep=via_bootsel.sleep, monotonic=via_bootsel.monotonic
    )
    if not ports:
        raise FlashError(
            "copied, but no MicroPython serial port appeared within %d s. If the RPI-RP2 "
            "drive is still there, copy %s onto it again" % (bootsel.WAIT_S, target)
        )
    print(
        "MicroPython is up on %s: the clock runs (firmware version %s, settings at their "
        "defaults)" % (ports[0], version_of(root)),
        file=out,
    )
    return 0


def ask_on_terminal(question, stdin=None, out=None):
    """True/False from a y/N answer on the terminal; None when stdin is not a terminal."""
    stdin = sys.stdin if stdin is None else stdin
    out = sys.stdout if out is None else out
    if not stdin.isatty():
        return None
    print(question, end="", file=out, flush=True)
    return stdin.readline().strip().lower() in ("y", "yes")


def drive_finder(drive):
    """() -> [RPI-RP2 drives]: the one named (FlashError if it is not one), else a search."""

    def named():
        if not bootsel.is_rp2040_drive(drive):
            raise FlashError(
                "%s is not an RPI-RP2 drive (no %s with Board-ID: %s)"
                % (drive, bootsel.INFO_FILE, bootsel.BOARD_ID)
            )
        return [Path(drive)]

    return named if drive else lambda: bootsel.find_drives(bootsel.candidates())


def repl(port, runner, mpremote, out):
    """An interactive REPL on the board (Ctrl-] or Ctrl-x leaves it). The probe stops the
    clock app and its watchdog first, or the watchdog would reset the board under you."""
    port = resolve_port(runner, mpremote, port, out, tool="repl")
    print("the clock app is stopped; machine.reset() in the REPL starts it again", file=out)
    try:
        return runner.interactive(mpremote + ["connect", port, "repl"])
    except ProcessError as exc:
        raise FlashError(str(exc)) from None


def core_suite(root):
    """(test module names, every module of host_tests/core), sorted."""
    core = Path(root) / "host_tests" / "core"
    names = sorted(p.stem for p in core.glob("*.py") if p.stem != "__init__")
    return [n for n in names if n.startswith("test_")], names


def device_test_runner_source(modules):
    """The MicroPython script device-test runs on the board: each module's TestCase classes,
    then a line 'device-test: PASS|FAIL MODULE (...)' per module and a closing
    'device-test: N passed, N failed' counting tests. Memory is freed between modules."""
    return (
        '"""device-test runner, written by tools/device/flash.py; runs on the board."""\n'
        "import gc\n"
        "import sys\n"
        "import unittest\n"
        "\n"
        "sys.path.insert(0, %r)\n"
        "MODULES = %r\n"
        "\n"
        "\n"
        "def run_module(name):\n"
        "    module = __import__(name)\n"
        "    suite = unittest.TestSuite()\n"
        "    for attr in dir(module):\n"
        "        obj = getattr(module, attr)\n"
        "        if (isinstance(obj, type) and issubclass(obj, unittest.TestCase)\n"
        "                and obj is not unittest.TestCase):\n"
        "            suite.addTest(obj)\n"
        "    result = unittest.TextTestRunner().run(suite)\n"
        "    return result.testsRun, len(result.failures) + len(result.errors)\n"
        "\n"
        "\n"
        "def main():\n"
        "    ran = failed = 0\n"
        "    for name in MODULES:\n"
        "        try:\n"
        "            count, bad = run_module(name)\n"
        "        except Exception as exc:\n"
        "            print('%%sFAIL %%s (cannot import: %%r)' %% (%r, name, exc))\n"
        "            failed += 1\n"
        "            continue\n"
        "        finally:\n"
        "            sys.modules.pop(name, None)\n"
        "            gc.collect()\n"
        "        ran += count\n"
        "        failed += bad\n"
        "        if bad or not count:\n"
        "            print('%%sFAIL %%s (%%d of %%d failed)' %% (%r, name, bad, count))\n"
        "        else:\n"
        "            print('%%sPASS %%s (%%d tests)' %% (%r, name, count))\n"
        "    print('%%s%%d passed, %%d failed' %% (%r, ran - failed, failed))\n"
        "\n"
        "\n"
        "main()\n"
    ) % ((DEVICE_TEST_DIR, tuple(modules)) + (DEVICE_TEST_MARK,) * 4)


def prepare_tests_dir_script():
    """MicroPython code that creates DEVICE_TEST_DIR and empties it of earlier copies."""
    return (
        "import os\n"
        "try:\n"
        "    os.mkdir(%r)\n"
        "except OSError:\n"
        "    pass\n"
        "for f in os.listdir(%r):\n"
        "    os.remove(%r + '/' + f)\n" % ((DEVICE_TEST_DIR,) * 3)
    )


def plan_device_test(root, port, mpremote, python=sys.executable):
    """The exact commands of `device-test`: compile the core suite for the board, install
    unittest with mip, put the suite in DEVICE_TEST_DIR, run the generated runner, reset."""
    tests, modules = core_suite(root)
    if not tests:
        raise FlashError("no tests found in host_tests/core (test_*.py)")
    board = mpremote + ["connect", port]
    steps = [
        compile_command(
            python, "host_tests/core/%s.py" % n, "%s/%s.mpy" % (DEVICE_TEST_BUILD, n), n + ".py"
        )
        for n in modules
    ]
    steps.append(board + ["mip", "install", "unittest"])
    steps.append(board + ["exec", prepare_tests_dir_script()])
    uploads = ["%s/%s.mpy" % (DEVICE_TEST_BUILD, n) for n in modules]
    steps.append(board + ["fs", "cp"] + uploads + [":%s/" % DEVICE_TEST_DIR])
    steps.append(board + ["run", "%s/run_tests.py" % DEVICE_TEST_BUILD])
    steps.append(board + ["reset"])  # back to the clock app
    return steps


def summarize_device_test(output):
    """(per-module lines, tests passed, tests failed) from the runner's output;
    the counts are None when the closing line is missing (the run died)."""
    modules, passed, failed = [], None, None
    for line in output.splitlines():
        line = line.strip()
        if not line.startswith(DEVICE_TEST_MARK):
            continue
        body = line[len(DEVICE_TEST_MARK) :]
        closing = re.fullmatch(r"(\d+) passed, (\d+) failed", body)
        if closing:
            passed, failed = int(closing.group(1)), int(closing.group(2))
        elif body.startswith(("PASS ", "FAIL ")):
            modules.append(body)
    return modules, passed, failed


def device_test(root, port, runner, mpremote, out, python=sys.executable):
    """Run the core suite on the board; returns 0 only when every test passed."""
    root = Path(root)
    tests, _modules = core_suite(root)
    if not tests:
        raise FlashError("no tests found in host_tests/core (test_*.py)")
    port = resolve_port(runner, mpremote, port, out, tool="device-test")
    steps = plan_device_test(root, port, mpremote, python)
    build = root / DEVICE_TEST_BUILD
    build.mkdir(parents=True, exist_ok=True)
    (build / "run_tests.py").write_text(device_test_runner_source(tests))
    print(
        "testing the firmware now on %s (run `make flash` first to test new code)" % port, file=out
    )
    _run_steps(runner, steps[:-2], out)
    print("$ " + _short(steps[-2]), file=out)
    result = runner.run(steps[-2])
    print(result.stdout.rstrip(), file=out)
    if result.stderr.strip():
        print(result.stderr.rstrip(), file=out)
    print("$ " + _short(steps[-1]), file=out)
    runner.run(steps[-1])
    modules, passed, failed = summarize_device_test(result.stdout)
    print("---", file=out)
    for line in modules:
        print(line, file=out)
    if passed is None or result.returncode != 0:
        print("device-test: FAIL (the run on the board did not finish)", file=out)
        return 1
    verdict = "PASS" if failed == 0 and passed > 0 else "FAIL"
    print("device-test: %s (%d passed, %d failed)" % (verdict, passed, failed), file=out)
    return 0 if verdict == "PASS" else 1


def main(argv=None, runner=None, environ=None, out=None, err=None, via_bootsel=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("flash", "repl", "device-test"))
    parser.add_argument("--port", default="", help="serial port, e.g. /dev/ttyACM0 or COM3")
    parser.add_argument("--root", default=str(ROOT), help="project root (default: this repo)")
    parser.add_argument("--drive", default="", help="the RPI-RP2 drive of a BOOTSEL Pico")
    parser.add_argument("--yes", action="store_true", help="copy onto RPI-RP2 without asking")
    parser.add_argument("--micropython", default="", help="MicroPython .uf2 for RPI-RP2")
    parser.add_argument(
        "--display",
        choices=("led", "lcd"),
        default="",
        help="flash: the build's displays (default: keep the board's; a new board is led)",
    )
    args = parser.parse_args(argv)
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    runner = Runner(args.root) if runner is None else runner
    mpremote = mpremote_command(environ)
    if via_bootsel is None:
        via_bootsel = ViaBootsel(
            drive_finder(args.drive),
            (lambda question: True) if args.yes else ask_on_terminal,
            dict(os.environ if environ is None else environ),
            args.micropython,
        )
    try:
        if args.command == "flash":
            return flash(
                args.root,
                args.port,
                runner,
                mpremote,
                out,
                via_bootsel=via_bootsel,
                display=args.display,
            )
        if args.command == "repl":
            return repl(args.port, runner, mpremote, out)
        return device_test(args.root, args.port, runner, mpremote, out)
    except FlashError as exc:
        print("%s: %s" % (args.command, exc), file=err)
        return 1


if __name__ == "__main__":
    sys.exit(main())
