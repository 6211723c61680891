"""The MicroPython part of the release .uf2: which file, where it comes from, and what it is.

Owns:
- the pin, tools/micropython_release.json: {"version", "board", "file", "url", "sha256"}.
  "sha256" is the hex digest of the official file, or null while nobody has checked one;
- obtaining the bytes (`obtain`): MICROPYTHON_UF2=path (a newer release, a custom build)
  is used as given; otherwise the pinned file from the cache build/cache/FILE, downloaded
  once from the pinned url when it is not there. A download or cached file whose sha256
  differs from the pin is an error and nothing is written; with the sha256 unknown nothing
  is downloaded and the error says how to supply the file;
- checking that the bytes are a MicroPython for this board (`inspect`): an RP2040 .uf2 the
  boot ROM accepts (uf2.rp2040_pages), starting at the flash start (boot stage 2) and ending
  below the filesystem, and what the firmware says about itself in its picotool "binary
  info" (pico-sdk src/common/pico_binary_info/include/pico/binary_info/{defs,structure}.h):
  the header (0x7188EBF2, info start, info end, address mapping table, 0xE71AA390) lies in
  the 256 bytes after boot stage 2; its entries give the program version, the pico-sdk board
  ("pico") and the block device MicroPython declares for its filesystem (rp2_flash.c:
  bi_block_device("MicroPython", XIP_BASE + storage base, storage bytes)). A firmware that
  declares its filesystem anywhere else than release.FS_ADDRESS / FS_BYTES, or a board other
  than "pico", or a MicroPython older than 1.23 (it cannot load .mpy files of version 6.3,
  which mpy-cross 1.27 writes) is refused; a firmware without binary info gets a warning.

Tests never touch the network: `fetch` is injected; the default one is urllib.
"""

import hashlib
import json
import re
import struct
import urllib.request
from pathlib import Path
from typing import NamedTuple

import uf2

ROOT = Path(__file__).resolve().parent.parent
PIN_FILE = ROOT / "tools" / "micropython_release.json"
CACHE_DIR = "build/cache"  # relative to the project root (build/ is git-ignored)
ENV_OVERRIDE = "MICROPYTHON_UF2"
OLDEST_USABLE = (1, 23)  # .mpy 6.3 (mpy-cross 1.27) loads on MicroPython 1.23 and later
DOWNLOAD_TIMEOUT_S = 60

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


def load_pin(path=PIN_FILE):
    """The pin as a dict; ReleaseError when the file is missing keys or malformed."""
    try:
        pin = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ReleaseError("cannot read the MicroPython pin %s: %s" % (path, exc)) from None
    for key in ("version", "board", "file", "url", "sha256"):
        if key not in pin:
            raise ReleaseError("%s has no %r" % (path, key))
    sha = pin["sha256"]
    if sha is not None and not re.fullmatch(r"[0-9a-f]{64}", str(sha)):
        raise ReleaseError("%s: sha256 must be 64 lower-case hex digits or null" % path)
    if "/" in pin["file"] or not pin["file"].endswith(".uf2"):
        raise ReleaseError("%s: file must be a plain .uf2 file name" % path)
    return pin


def default_fetch(url):
    """The bytes at url (the one place that touches the network)."""
    with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as response:
        return response.read()


def unknown_sha_message(pin, pin_path=PIN_FILE):
    return (
        "the sha256 of the pinned MicroPython %s (%s) is not known yet, so it is not "
        "downloaded.\nEither give the file yourself:  make uf2 MICROPYTHON_UF2=path/to/%s\n"
        "or download %s once, check it, and put its sha256 into %s "
        "(`python tools/release.py --pin path/to/%s` checks the file and prints the line)."
        % (pin["version"], pin["board"], pin["file"], pin["url"], pin_path, pin["file"])
    )


def obtain(root, pin, environ, fetch=default_fetch, override=None, pin_path=PIN_FILE):
    """(bytes, source text) of the MicroPython .uf2 to use. `override` (or MICROPYTHON_UF2 in
    environ) is read as given; otherwise the pinned file from the cache, downloaded and
    checked first if needed. Nothing is written unless a download matched the pin."""
    override = override or environ.get(ENV_OVERRIDE, "")
    if override:
        try:
            return Path(override).read_bytes(), "%s=%s" % (ENV_OVERRIDE, override)
        except OSError as exc:
            raise ReleaseError("cannot read %s=%s: %s" % (ENV_OVERRIDE, override, exc)) from None
    if pin["sha256"] is None:
        raise ReleaseError(unknown_sha_message(pin, pin_path))
    cached = Path(root) / CACHE_DIR / pin["file"]
    if cached.is_file():
        data = cached.read_bytes()
        if sha256_hex(data) != pin["sha256"]:
            raise ReleaseError(
                "the cached %s does not match the pinned sha256 (%s); delete it to "
                "download it again" % (cached, pin["sha256"])
            )
        return data, "%s (cached, sha256 checked)" % cached
    try:
        data = fetch(pin["url"])
    except Exception as exc:  # any failure to download is the same advice
        raise ReleaseError(
            "could not download %s: %s\nWithout network, download it elsewhere and give it "
            "as MICROPYTHON_UF2=path" % (pin["url"], exc)
        ) from None
    got = sha256_hex(data)
    if got != pin["sha256"]:
        raise ReleaseError(
            "the download of %s does not match the pin: sha256 %s, expected %s; nothing "
            "was written" % (pin["url"], got, pin["sha256"])
        )
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_name(cached.name + ".part")
    partial.write_bytes(data)
    partial.replace(cached)
    return data, "%s (downloaded to %s, sha256 checked)" % (pin["url"], cached)


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
