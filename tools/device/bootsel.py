"""A Pico in BOOTSEL mode: finding its RPI-RP2 drive, copying a .uf2 onto it, waiting.

Held in BOOTSEL while plugged in (or with no program in flash), the RP2040's boot ROM shows
a USB drive labelled RPI-RP2 holding INFO_UF2.TXT with the line "Board-ID: RPI-RP2"
(pico-bootrom-rp2040, bootrom/info_uf2.txt). A directory counts as that drive only when its
INFO_UF2.TXT says so: an RP2350 (Board-ID: RP2350) or any other UF2 bootloader must not get
an RP2040 image.

Where to look, in order: the drive named by the user (`make flash DRIVE=path`); the mount
points in /proc/mounts (Linux); /Volumes/* (macOS); /media/*/* and /run/media/*/* (Linux
desktops that mount removable drives there); the drive letters D: to Z: (Windows). Every
source is an argument, so tests hand in a fake drive and a fake mount table.

Copying: the boot ROM writes each 512-byte UF2 block to flash as it arrives and restarts
the chip when it has seen all of them, so the drive can vanish while the host is still
flushing; an error at that point is reported as a note, and success is judged by
MicroPython's serial port appearing afterwards (flash.py waits for it).
"""

import glob
import os
import re
import string
import time
from pathlib import Path

INFO_FILE = "INFO_UF2.TXT"
BOARD_ID = "RPI-RP2"
WAIT_S = 60  # writing ~250 KiB, restarting, MicroPython's first boot: about 10 s
POLL_S = 0.5
DESKTOP_GLOBS = ("/Volumes/*", "/media/*/*", "/media/*", "/run/media/*/*")


def is_rp2040_drive(path):
    """True when `path` is a mounted RPI-RP2 boot ROM drive."""
    try:
        text = (Path(path) / INFO_FILE).read_text(errors="replace")
    except OSError:
        return False
    return re.search(r"^Board-ID:\s*%s\s*$" % BOARD_ID, text, re.M) is not None


def mount_points(text):
    """Mount points listed in a /proc/mounts text (octal escapes such as \\040 decoded)."""
    points = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 2:
            points.append(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[1]))
    return points


def candidates(proc_mounts="/proc/mounts", globs=DESKTOP_GLOBS, windows=None):
    """Directories that might be the drive, most likely first, without duplicates."""
    found = []
    try:
        found += mount_points(Path(proc_mounts).read_text())
    except OSError:
        pass
    for pattern in globs:
        found += sorted(glob.glob(pattern))
    if windows if windows is not None else os.name == "nt":
        found += ["%s:\\" % letter for letter in string.ascii_uppercase[3:]]
    unique = []
    for path in found:
        if path not in unique:
            unique.append(path)
    return unique


def find_drives(paths):
    """The RPI-RP2 drives among `paths` (each real directory once)."""
    drives, seen = [], set()
    for path in paths:
        if is_rp2040_drive(path):
            key = os.path.realpath(path)
            if key not in seen:
                seen.add(key)
                drives.append(Path(path))
    return drives


def copy_to_drive(source, drive):
    """Copy the .uf2 onto the drive; returns a note when the drive went away while the host
    was still flushing (normal: the Pico restarts once it has every block), else ""."""
    target = Path(drive) / Path(source).name
    data = Path(source).read_bytes()
    handle = open(target, "wb")  # an error here (drive gone, read-only) is the caller's
    try:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    except OSError as exc:
        return "the drive went away during the copy (%s); that is how it looks when " % exc + (
            "the Pico restarts early"
        )
    finally:
        try:
            handle.close()
        except OSError:
            pass
    return ""


def wait_for(probe, timeout=WAIT_S, poll=POLL_S, sleep=time.sleep, monotonic=time.monotonic):
    """Call probe() every `poll` seconds until it returns something truthy (returned) or
    `timeout` seconds have passed (None)."""
    deadline = monotonic() + timeout
    while True:
        found = probe()
        if found:
            return found
        if monotonic() >= deadline:
            return None
        sleep(poll)
