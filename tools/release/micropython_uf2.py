"""Whether a .uf2 is a MicroPython for this board (`inspect`), read from the file itself.

It must be an RP2040 .uf2 the boot ROM accepts (uf2.rp2040_pages), starting at the flash
start (boot stage 2) and ending below the filesystem. What the firmware says about itself
is read from its picotool "binary info" (pico-sdk
src/common/pico_binary_info/include/pico/binary_info/{defs,structure}.h): the header
(0x7188EBF2, info start, info end, address mapping table, 0xE71AA390) lies in the 256 bytes
after boot stage 2; its entries give the program version, the pico-sdk board ("pico") and
the block device MicroPython declares for its filesystem (rp2_flash.c:
bi_block_device("MicroPython", XIP_BASE + storage base, storage bytes)). A firmware that
declares its filesystem anywhere else than release.FS_ADDRESS / FS_BYTES, or a board other
than "pico", or a MicroPython older than 1.23 (it cannot load .mpy files of version 6.3,
which mpy-cross 1.27 writes) is refused; a firmware without binary info gets a warning.

Which file is used and where it comes from (the pin, the cache, the download) is
micropython_pin.py's job.
"""

import hashlib
import re
import struct
from typing import NamedTuple

import uf2

OLDEST_USABLE = (1, 23)  # .mpy 6.3 (mpy-cross 1.27) loads on MicroPython 1.23 and later

BI_MARKER_START = 0x7188EBF2
BI_MARKER_END = 0xE71AA390
BI_SEARCH = (0x10000100, 0x10000200)  # "within the first 256 bytes after boot stage 2"
BI_TYPE_ID_AND_STRING = 6
BI_TYPE_BLOCK_DEVICE = 7
BI_TAG_RASPBERRY_PI = ord("R") | ord("P") << 8  # the ids below are Raspberry Pi's
BI_ID_PROGRAM_NAME = 0x02031C86
BI_ID_PROGRAM_VERSION = 0x11A9BC3A
BI_ID_PICO_BOARD = 0xB63CFFBB
PICO_BOARD = "pico"  # pico-sdk board name of the RPI_PICO build (mpconfigboard.cmake)


class ReleaseError(Exception):
    """A problem the user has to fix; the message says what and how."""


class Firmware(NamedTuple):
    pages: list  # [(address, 256-byte payload)] in file order
    start: int  # lowest address
    end: int  # end of the highest page (exclusive)
    name: str  # from binary info, "" when unknown
    version: str
    board: str
    filesystem: tuple  # (address, bytes) declared by the firmware, () when not declared
    warnings: list


def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


class _Image:
    """Flash contents of a list of pages, readable by address (0xFF where nothing is)."""

    def __init__(self, pages):
        self.pages = dict(pages)

    def read(self, address, size):
        out = bytearray()
        while len(out) < size:
            at = address + len(out)
            base = at - at % uf2.PAGE_BYTES
            page = self.pages.get(base, uf2.ERASED_PAGE)
            out += page[at - base : at - base + size - len(out)]
        return bytes(out)

    def u32(self, address):
        return struct.unpack("<I", self.read(address, 4))[0]

    def has(self, address):
        return address - address % uf2.PAGE_BYTES in self.pages


def binary_info(pages):
    """{"name", "version", "board", "filesystem": [(name, address, size)]} from the picotool
    binary info of an RP2040 flash image, or None when it has none."""
    image = _Image(pages)
    header = None
    for at in range(BI_SEARCH[0], BI_SEARCH[1], 4):
        if image.u32(at) == BI_MARKER_START and image.u32(at + 16) == BI_MARKER_END:
            header = at
            break
    if header is None:
        return None
    start, end, table = image.u32(header + 4), image.u32(header + 8), image.u32(header + 12)
    mapping = []
    for i in range(64):  # data copy table: (source, dest start, dest end), 0-terminated
        source = image.u32(table + 12 * i)
        if source == 0:
            break
        mapping.append((source, image.u32(table + 12 * i + 4), image.u32(table + 12 * i + 8)))

    def place(address):
        for source, lo, hi in mapping:
            if lo <= address < hi:
                return source + address - lo
        return address if image.has(address) else None

    def c_string(address):
        where = place(address)
        if where is None:
            return ""
        raw = image.read(where, 128)
        return raw.split(b"\0", 1)[0].decode("utf-8", "replace")

    info = {"name": "", "version": "", "board": "", "filesystem": []}
    if not (BI_SEARCH[0] <= start <= end and end - start <= 4 * 1024):
        return info
    for slot in range(start, end, 4):
        entry = place(image.u32(slot))
        if entry is None:
            continue
        kind, tag = struct.unpack("<HH", image.read(entry, 4))
        if kind == BI_TYPE_ID_AND_STRING and tag == BI_TAG_RASPBERRY_PI:
            ident, text = image.u32(entry + 4), c_string(image.u32(entry + 8))
            key = {
                BI_ID_PROGRAM_NAME: "name",
                BI_ID_PROGRAM_VERSION: "version",
                BI_ID_PICO_BOARD: "board",
            }.get(ident)
            if key:
                info[key] = text
        elif kind == BI_TYPE_BLOCK_DEVICE:
            name = c_string(image.u32(entry + 4))
            info["filesystem"].append((name, image.u32(entry + 8), image.u32(entry + 12)))
    return info


def version_tuple(text):
    """(major, minor, patch) from e.g. "v1.27.0" or "v1.28.0-preview.1.gabc"; None if none."""
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text or "")
    if not match:
        return None
    return tuple(int(g or 0) for g in match.groups())


def inspect(data, fs_address, fs_bytes, source="the MicroPython .uf2"):
    """Check the MicroPython .uf2 for this board and return its Firmware; ReleaseError
    names what is wrong."""
    try:
        pages = uf2.rp2040_pages(data)
    except uf2.UF2Error as exc:
        raise ReleaseError("%s is not a usable RP2040 .uf2: %s" % (source, exc)) from None
    start = min(a for a, _ in pages)
    end = max(a for a, _ in pages) + uf2.PAGE_BYTES
    if start != uf2.RP2040_FLASH_START:
        raise ReleaseError(
            "%s starts at 0x%08X, not at the flash start 0x%08X: not a complete firmware"
            % (source, start, uf2.RP2040_FLASH_START)
        )
    if end > fs_address:
        raise ReleaseError(
            "%s ends at 0x%08X, past the filesystem start 0x%08X: it is too big for the "
            "Raspberry Pi Pico's layout (or built for another board)" % (source, end, fs_address)
        )
    warnings = []
    info = binary_info(pages)
    if info is None:
        warnings.append(
            "%s carries no picotool binary info: cannot confirm it is MicroPython for the "
            "Raspberry Pi Pico" % source
        )
        info = {"name": "", "version": "", "board": "", "filesystem": []}
    if info["board"] and info["board"] != PICO_BOARD:
        raise ReleaseError(
            "%s is built for the board %r, not the Raspberry Pi Pico (%r)"
            % (source, info["board"], PICO_BOARD)
        )
    declared = [(a, n) for name, a, n in info["filesystem"] if name == "MicroPython"]
    if declared and declared[0] != (fs_address, fs_bytes):
        raise ReleaseError(
            "%s keeps its filesystem at 0x%08X (%d KiB), not at 0x%08X (%d KiB) where this "
            "image puts it"
            % (source, declared[0][0], declared[0][1] // 1024, fs_address, fs_bytes // 1024)
        )
    if info["name"] and info["name"] != "MicroPython":
        raise ReleaseError("%s is %r, not MicroPython" % (source, info["name"]))
    version = version_tuple(info["version"])
    if version is not None and version[:2] < OLDEST_USABLE:
        raise ReleaseError(
            "%s is MicroPython %s; the firmware's .mpy files need %d.%d or later"
            % ((source, info["version"]) + OLDEST_USABLE)
        )
    if info["name"] and not declared:
        warnings.append("%s declares no filesystem in its binary info" % source)
    return Firmware(
        pages,
        start,
        end,
        info["name"],
        info["version"],
        info["board"],
        declared[0] if declared else (),
        warnings,
    )
