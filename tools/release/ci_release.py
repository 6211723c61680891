#!/usr/bin/env python3
"""What the release workflow (.github/workflows/release.yml) checks and says about a tag.

usage: ci_release.py check TAG       the tag is "v" + firmware/core/version.py's VERSION and the
                                     MicroPython pin has its sha256; prints "version=X.Y.Z"
                                     and "prerelease=true|false" (lines for $GITHUB_OUTPUT)
       ci_release.py notes VERSION   the release notes for build/chess-clock-VERSION.uf2

The workflow runs `check` first, so a tag that does not match the firmware (v0.2.0 on a
tree whose version.py still says 0.1.0) or a tree whose MicroPython pin is still null
fails in seconds, before the tests, and nothing is published. A release is never built from
an unpinned MicroPython (the release job does not pin, `make uf2 LOCKED=1`): the pin is a
lock file someone committed after the first download on their machine, so the tag alone
says which MicroPython is in the file. A version with a suffix (1.2.0-rc.1) is published
as a pre-release.
"""

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/: paths.py
import paths  # noqa: E402

paths.install()

import firmware_build  # noqa: E402
import micropython_pin  # noqa: E402
from micropython_uf2 import ReleaseError, sha256_hex  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


class TagError(Exception):
    """The tag cannot be released; the message says why and what to do."""


def check(tag, root=ROOT, pin_path=micropython_pin.PIN_FILE):
    """(version, prerelease) of a tag that may be released; TagError otherwise."""
    try:
        version = firmware_build.firmware_version(root)
    except firmware_build.VersionError as exc:
        raise TagError(str(exc)) from None
    if tag != "v" + version:
        raise TagError(
            "the tag %s is not the firmware's version: %s says VERSION = %r, so the tag must "
            "be v%s. Set the version, commit, and tag that commit (delete the wrong tag: "
            "git push origin :refs/tags/%s)"
            % (tag, firmware_build.VERSION_FILE, version, version, tag)
        )
    try:
        pin = micropython_pin.load_pin(pin_path)
    except ReleaseError as exc:
        raise TagError(str(exc)) from None
    if pin["sha256"] is None:
        raise TagError(micropython_pin.unlocked_message(pin, pin_path))
    return version, "-" in version


def notes(version, root=ROOT, pin_path=micropython_pin.PIN_FILE):
    """Markdown release notes for build/chess-clock-VERSION.uf2, whose .sha256 must match."""
    name = "chess-clock-%s.uf2" % version
    built = Path(root) / firmware_build.BUILD / name
    try:
        data = built.read_bytes()
        line = built.with_name(name + ".sha256").read_text()
    except OSError as exc:
        raise TagError("run `make uf2` first: %s" % exc) from None
    sha = sha256_hex(data)
    if line != "%s  %s\n" % (sha, name):
        raise TagError("%s.sha256 does not hold the sha256 of %s (%s)" % (name, name, sha))
    pin = micropython_pin.load_pin(pin_path)
    return "\n".join(
        [
            "Chess clock %s for the Raspberry Pi Pico (RP2040, 2 MB): MicroPython %s and the "
            "clock in one file." % (version, pin["version"]),
            "",
            "**Flash a clock:** unplug the Pico, hold its BOOTSEL button while you plug the "
            "USB cable in, then copy `%s` onto the drive **RPI-RP2** that appears. The drive "
            "disappears when the Pico has written the file. This replaces everything on the "
            "Pico: settings and saved games on it are lost." % name,
            "",
            "**Check the download** before you flash it. Its sha256 is",
            "",
            "    %s" % sha,
            "",
            "- Windows (Command Prompt): `certutil -hashfile %s SHA256`, or in PowerShell "
            "`Get-FileHash %s`" % (name, name),
            "- macOS: `shasum -a 256 %s`" % name,
            "- Linux: `sha256sum -c %s.sha256` (prints `%s: OK`)" % (name, name),
            "",
            "Inside: MicroPython %s (`%s`, sha256 `%s`) and firmware %s as `.mpy` modules "
            "on a fresh filesystem." % (pin["version"], pin["file"], pin["sha256"], version),
            "",
        ]
    )


def main(argv=None, out=None, err=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(ROOT), help="project root (default: this repo)")
    parser.add_argument(
        "--pin-file", default=str(micropython_pin.PIN_FILE), help="the pin (tests use a copy)"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("check").add_argument("tag")
    sub.add_parser("notes").add_argument("version")
    args = parser.parse_args(argv)
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    try:
        if args.command == "check":
            version, prerelease = check(args.tag, args.root, args.pin_file)
            print("version=%s" % version, file=out)
            print("prerelease=%s" % ("true" if prerelease else "false"), file=out)
        else:
            if not re.fullmatch(firmware_build.VERSION_FORMAT, args.version):
                raise TagError("%r is not a version" % args.version)
            print(notes(args.version, args.root, args.pin_file), end="", file=out)
    except TagError as exc:
        print("release: %s" % exc, file=err)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
