"""The one place the host tools start processes: Runner, its Result, and last_line for
error messages.

flash.py (mpremote), release.py (mpy-cross), backup.py and export_games.py take a Runner as
an argument, so their tests hand in a fake that records the argv lists instead.
"""

import subprocess
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[2]


class Result(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


class ProcessError(Exception):
    """A program could not be started for an interactive run."""


class Runner:
    """Runs argv lists in the project root."""

    def __init__(self, cwd=ROOT):
        self.cwd = cwd

    def run(self, argv):
        """Run to completion with output captured; a missing program gives returncode 127."""
        try:
            proc = subprocess.run(argv, cwd=self.cwd, capture_output=True, text=True)
        except OSError as exc:
            return Result(127, "", "%s: %s" % (argv[0], exc))
        return Result(proc.returncode, proc.stdout, proc.stderr)

    def interactive(self, argv):
        """Run attached to this terminal (the REPL); returns the exit status, ProcessError
        when the program cannot be started."""
        try:
            return subprocess.call(argv, cwd=self.cwd)
        except OSError as exc:
            raise ProcessError("%s: %s" % (argv[0], exc)) from None


def last_line(result):
    """The last non-empty line of a command's stderr (else stdout), for error messages."""
    for text in (result.stderr, result.stdout):
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        if lines:
            return lines[-1]
    return "exit status %d" % result.returncode
