#!/usr/bin/env python3
"""Copy a clock's records off the board before an update (`make backup`).

usage: backup.py [--port PORT] [--out DIR] [--root DIR]

Pulls, over USB with mpremote, whichever of these the board has: /settings.json (the
settings), /game.json (the game saved for resume), /errors.log, and the whole /games folder
(the move logs that `make export` turns into PGN), into DIR/clock-YYYYMMDD-HHMMSS[-SERIAL]/
(DIR defaults to ./backups; SERIAL is the end of the Pico's USB serial number when the board
was found by itself, so ten clocks backed up in a row stay apart). The board is reset
afterwards so the clock app runs again (the probe that proves MicroPython stops it).

Exit status 0 when everything listed on the board arrived (or the board holds nothing to
keep), 1 when the board cannot be reached or a listed file did not arrive: a backup that
misses a file must not look like a good one. Dragging the release .uf2 onto a Pico erases
all of this; `make flash` keeps it.
"""

import argparse
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/: paths.py
import paths  # noqa: E402

paths.install()

import flash  # noqa: E402

KEEP_FILES = ("settings.json", "game.json", "errors.log")
KEEP_DIRS = ("games",)
DEFAULT_OUT = "backups"


def folder_name(stamp, serial):
    tail = re.sub(r"[^A-Za-z0-9]", "", serial or "")[-8:]
    return "clock-%s%s" % (stamp, "-" + tail if tail and tail != "None" else "")


def backup(runner, mpremote, port, out_dir, out, now=time.localtime):
    """Pull the records into a new dated folder; returns (folder, problems)."""
    devices = None if port else flash.list_devices(runner, mpremote)
    port = flash.resolve_port(runner, mpremote, port, out, devices, tool="backup")
    serial = next((d.serial for d in devices or () if d.port == port), "")
    board = mpremote + ["connect", port]
    try:
        root = flash.board_listing(runner, board)
        files = [n for n in KEEP_FILES if root.get(n) is False]
        dirs = [n for n in KEEP_DIRS if root.get(n) is True]
        wanted = list(files)
        for name in dirs:
            wanted += [
                "%s/%s" % (name, n)
                for n, d in flash.board_listing(runner, board, ":" + name).items()
                if not d
            ]
        if not wanted:
            print(
                "nothing to back up on %s (no settings, saved game or game logs)" % port, file=out
            )
            return None, []
        dest = Path(out_dir).resolve() / folder_name(time.strftime("%Y%m%d-%H%M%S", now()), serial)
        dest.mkdir(parents=True)
        problems = []
        if files:
            result = runner.run(
                board + ["fs", "cp"] + [":" + n for n in files] + [str(dest) + "/"]
            )
            if result.returncode != 0:
                problems.append("fs cp reported an error: %s" % flash.last_line(result))
        for name in dirs:
            result = runner.run(board + ["fs", "cp", "-r", ":" + name, str(dest)])
            if result.returncode != 0:
                problems.append(
                    "fs cp -r :%s reported an error: %s" % (name, flash.last_line(result))
                )
    finally:
        runner.run(board + ["reset"])  # the probe stopped the clock app: start it again
    missing = [n for n in wanted if not (dest / n).is_file()]
    problems += ["%s is on the board but did not arrive" % n for n in missing]
    print(
        "backed up %d of %d files from %s to %s"
        % (len(wanted) - len(missing), len(wanted), port, dest),
        file=out,
    )
    return dest, problems


def main(argv=None, runner=None, environ=None, out=None, err=None, now=time.localtime):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", default="", help="serial port of the clock (default: find it)")
    parser.add_argument("--out", default=DEFAULT_OUT, help="where the dated folders go")
    parser.add_argument("--root", default=str(flash.ROOT), help="project root (for mpremote)")
    args = parser.parse_args(argv)
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    runner = flash.Runner(args.root) if runner is None else runner
    mpremote = flash.mpremote_command(environ)
    try:
        _dest, problems = backup(runner, mpremote, args.port, args.out, out, now)
    except flash.FlashError as exc:
        print("backup: %s" % exc, file=err)
        return 1
    for problem in problems:
        print("backup: %s" % problem, file=err)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
