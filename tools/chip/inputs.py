"""Where the emulated chip's two inputs come from: the MicroPython rp2 .uf2 and the RP2040 B1
boot ROM, for `make chip-bench`, `make test CHIP=1` and .ci/run.

`given(environ)` is what the environment names, nothing fetched: `MICROPYTHON_UF2` and
`RP2040_BOOTROM` (or `bootrom.bin` / `bootrom.ts` beside the .uf2), as chip.py finds them.
`obtain(root, environ, out)` completes it from pinned downloads into build/cache/:
- MicroPython: the file of tools/release/micropython_release.json, through micropython_pin.obtain,
  the same pin, cache, mirror (`MICROPYTHON_UF2_URL`) and checks as `make uf2` (pinned at
  its first download when the pin has no sha256 yet).
- The boot ROM: the rp2040js repository's demo/bootrom.ts at the commit of bootrom_pin.json
  (the B1 ROM as a table of 32-bit words), or the same bytes from `RP2040_BOOTROM_URL` (a
  mirror). The file's sha256 is pinned there too, and its words must be the
  B1 ROM chip.py checks (chip.BOOTROM_B1_SHA256): a download or a cached file that is
  anything else stops the run with both hashes and writes nothing.
A download is held in memory until it has passed its checks, then written whole through
FILE.part (micropython_pin.store), so a failed or cut one leaves no file behind.
"""

import hashlib
import json
from pathlib import Path
from typing import NamedTuple

import chip
import download
import micropython_pin
import release
from micropython_uf2 import ReleaseError

# rp2040js's demo/bootrom.ts at a fixed commit: url, sha256, cache file name (a JSON file
# of its own, so CI's cache is keyed by the two pins' contents)
BOOTROM_PIN_FILE = Path(__file__).resolve().parent / "bootrom_pin.json"
_PIN = json.loads(BOOTROM_PIN_FILE.read_text())
BOOTROM_COMMIT = _PIN["commit"]
BOOTROM_URL = _PIN["url"]
BOOTROM_SHA256 = _PIN["sha256"]
BOOTROM_FILE = _PIN["file"]
BOOTROM_URL_ENV = "RP2040_BOOTROM_URL"
MAX_BOOTROM_BYTES = 256 * 1024  # the table of 4096 words is about 50 KB


class Inputs(NamedTuple):
    uf2: Path
    bootrom: Path
    uf2_source: str  # where each came from, for the run's first lines
    bootrom_source: str


def given(environ):
    """(uf2, bootrom) named by the environment, each a Path or None (nothing fetched)."""
    uf2 = chip.uf2_path(environ)
    return uf2, chip.bootrom_path(environ, uf2)


def obtain(root, environ, out, fetch=download.download, pin_path=micropython_pin.PIN_FILE):
    """Inputs for the chip: what the environment names, the rest from the pinned downloads
    (cached in root/build/cache). ChipError says what is wrong and that nothing was written.
    `fetch(url, out, limit)` is download.download's contract (tests pass a loopback one)."""
    uf2, bootrom = given(environ)
    uf2_source = "%s=%s" % (chip.UF2_ENV, uf2)
    if uf2 is None:
        uf2, uf2_source = _micropython(root, environ, out, fetch, pin_path)
    if bootrom is None:
        bootrom, bootrom_source = _bootrom(root, environ, out, fetch)
    else:
        bootrom_source = str(bootrom)
    return Inputs(Path(uf2), Path(bootrom), uf2_source, bootrom_source)


def describe(inputs):
    return "MicroPython: %s\nboot ROM: %s" % (inputs.uf2_source, inputs.bootrom_source)


def _micropython(root, environ, out, fetch, pin_path):
    # without MICROPYTHON_UF2, micropython_pin.obtain takes only the pinned file
    try:
        got = micropython_pin.obtain(
            root, environ, out, release.check_micropython, pin_path=pin_path, fetch=fetch
        )
    except ReleaseError as exc:
        raise chip.ChipError(str(exc)) from None
    pin = micropython_pin.load_pin(pin_path)
    return Path(root) / micropython_pin.CACHE_DIR / pin["file"], got.source


def _bootrom(root, environ, out, fetch):
    cached = Path(root) / micropython_pin.CACHE_DIR / BOOTROM_FILE
    cached.with_name(cached.name + ".part").unlink(missing_ok=True)
    if cached.is_file():
        got = hashlib.sha256(cached.read_bytes()).hexdigest()
        if got != BOOTROM_SHA256:
            raise chip.ChipError(
                "the cached %s is not the pinned boot ROM file: sha256 %s, tools/chip/"
                "bootrom_pin.json says %s.\nNothing was written. Delete the cached file to "
                "download it again." % (cached, got, BOOTROM_SHA256)
            )
        return cached, "%s (cached, sha256 checked)" % cached
    url = environ.get(BOOTROM_URL_ENV, "") or BOOTROM_URL
    try:
        data = fetch(url, out, MAX_BOOTROM_BYTES)
    except download.DownloadError as exc:
        raise chip.ChipError(
            "could not download the RP2040 boot ROM from %s: %s.\nNothing was written. "
            "Without network, give a copy as %s=path (a 16384-byte dump of the B1 ROM, or "
            "rp2040js's demo/bootrom.ts), or name a copy on your network with %s=url."
            % (url, exc, chip.BOOTROM_ENV, BOOTROM_URL_ENV)
        ) from None
    got = hashlib.sha256(data).hexdigest()
    if got != BOOTROM_SHA256:
        raise chip.ChipError(
            "the download of %s is not the pinned boot ROM file: sha256 %s, tools/chip/"
            "bootrom_pin.json says %s.\nNothing was written." % (url, got, BOOTROM_SHA256)
        )
    chip.bootrom_from(data, url)  # its words are the B1 ROM (a pin is checked, not trusted)
    micropython_pin.store(cached, data)
    return cached, "%s (downloaded to %s, sha256 checked)" % (url, cached)
