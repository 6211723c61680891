"""The MicroPython part of the release .uf2: which file (the pin), where its bytes come from
(the cache, a download), and pinning it at its first download, as a lock file does.

The pin is tools/release/micropython_release.json: {"version", "board", "file", "url", "sha256",
"sha256_note"}. "sha256" is the hex digest of the file, or null until the first download
takes it (npm's package-lock integrity, pip's --require-hashes and Cargo.lock work the same
way: the first resolution records the hash, every later one verifies it).

`obtain` gives the bytes to build with, in this order:
1. MICROPYTHON_UF2=path (or --micropython): used as given (a newer release, a custom
   build); release.py still inspects it. It never pins and is never cached.
2. Pinned: build/cache/FILE when its sha256 is the pin's; otherwise a download from the
   pin's url (or MICROPYTHON_UF2_URL / --url: a mirror, a copy on the local network) that
   must have the pin's sha256, then cached. A cached file or a download with another sha256
   stops the build with both hashes, and nothing is written.
3. Not pinned yet: the cache is not trusted (only a pin vouches for it); the file is
   downloaded and must be the pinned release (`check_release`: an RP2040 .uf2 for the Pico
   that ends below the filesystem, its binary info saying MicroPython, board "pico", the
   pin's version, and its filesystem where the image goes). Then its sha256 goes into the
   pin file (written whole, through a temporary file), the bytes into the cache, and the
   build says "pinned: ... commit this file". With `locked` (CI's release job, like cargo's
   --locked or `npm ci`) an unpinned file is an error before anything is downloaded.
`pin_file` does 3 with a file already downloaded (release.py --pin FILE).

A download that fails, is cut, or brings a file that fails a check writes nothing: the
bytes are held in memory (download.py) until they have passed, and the cache file is
written through FILE.part and renamed (a .part left by a killed run is removed first).
Tests never touch the network beyond 127.0.0.1: host_tests/tools/test_uf2_pin.py serves the
placeholder .uf2 from a local http.server.
"""

import json
import os
import re
from pathlib import Path
from typing import NamedTuple

import download
import micropython_uf2
from micropython_uf2 import ReleaseError, sha256_hex, version_tuple

ROOT = Path(__file__).resolve().parents[2]
PIN_FILE = ROOT / "tools" / "release" / "micropython_release.json"
CACHE_DIR = "build/cache"  # relative to the project root (build/ is git-ignored)
ENV_OVERRIDE = "MICROPYTHON_UF2"  # a file to use as given
ENV_URL = "MICROPYTHON_UF2_URL"  # where to download the pinned file from instead
# A .uf2 carries 256 bytes of flash in each 512-byte block: one for the Pico's whole 2 MiB
# is 4 MiB, so a larger download is not the file.
MAX_UF2_BYTES = 2 * 2 * 1024 * 1024


class Obtained(NamedTuple):
    data: bytes
    source: str  # where the bytes came from, for the build's output
    pinned: bool  # the bytes are the pinned release (sha256 equal to the pin's)


def load_pin(path=PIN_FILE):
    """The pin as a dict; ReleaseError when the file is missing keys or malformed."""
    try:
        pin = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ReleaseError("cannot read the MicroPython pin %s: %s" % (path, exc)) from None
    if not isinstance(pin, dict):
        raise ReleaseError("%s is not a JSON object" % path)
    for key in ("version", "board", "file", "url", "sha256"):
        if key not in pin:
            raise ReleaseError("%s has no %r" % (path, key))
    sha = pin["sha256"]
    if sha is not None and not re.fullmatch(r"[0-9a-f]{64}", str(sha)):
        raise ReleaseError("%s: sha256 must be 64 lower-case hex digits or null" % path)
    if "/" in pin["file"] or not pin["file"].endswith(".uf2"):
        raise ReleaseError("%s: file must be a plain .uf2 file name" % path)
    return pin


def write_pin(path, pin, sha256, origin):
    """Put `sha256` into the pin file, keys in their order, through a temporary file."""
    pin = dict(pin)
    pin["sha256"] = sha256
    pin["sha256_note"] = (
        "taken from %s at the first download (tools/release/micropython_pin.py); every later "
        "download and the cached file must have this sha256" % origin
    )
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    try:
        temporary.write_text(json.dumps(pin, indent=2) + "\n")
        os.replace(temporary, path)
    except OSError as exc:
        raise ReleaseError("cannot write the sha256 into %s: %s" % (path, exc)) from None
    finally:
        temporary.unlink(missing_ok=True)
    return pin


def check_release(data, pin, inspect, source):
    """The Firmware of `data` when it is the pinned release, as far as the file itself can
    tell; ReleaseError otherwise. `inspect(data, source)` is release.py's (it knows where
    the filesystem goes); on top of it a file to pin must say in its binary info that it
    is MicroPython, the pin's version, for the Pico, with its filesystem declared."""
    firmware = inspect(data, source)
    if firmware.name != "MicroPython":
        raise ReleaseError(
            "%s carries no picotool binary info naming it MicroPython: it cannot be "
            "confirmed as MicroPython %s for the Raspberry Pi Pico, so it is not pinned"
            % (source, pin["version"])
        )
    if version_tuple(firmware.version) != version_tuple(pin["version"]):
        raise ReleaseError(
            "%s is MicroPython %s, the pin is %s"
            % (source, firmware.version or "?", pin["version"])
        )
    if firmware.board != micropython_uf2.PICO_BOARD or not firmware.filesystem:
        raise ReleaseError(
            "%s does not declare the Raspberry Pi Pico board and its filesystem in its "
            "binary info, so it is not pinned" % source
        )
    return firmware


def shown(path):
    """A path for messages: relative to the project root when it is inside it."""
    path = Path(path)
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def unlocked_message(pin, pin_path):
    return (
        "%s has no sha256 for MicroPython %s yet, and the release job (--locked) does not "
        "pin one: a release is built only from a pin someone committed.\nOn a machine with "
        "network run `make uf2` (it downloads %s, checks it and writes its sha256 into the "
        "file), commit %s, and tag the commit that has it."
        % (shown(pin_path), pin["version"], pin["url"], shown(pin_path))
    )


def obtain(
    root,
    environ,
    out,
    inspect,
    override=None,
    url=None,
    locked=False,
    pin_path=PIN_FILE,
    fetch=download.download,
):
    """The MicroPython .uf2 to build with, as Obtained (see the module docstring for the
    order). `fetch(url, out, limit)` returns the bytes or raises download.DownloadError."""
    override = override or environ.get(ENV_OVERRIDE, "")
    pin = load_pin(pin_path)
    if override:
        try:
            data = Path(override).read_bytes()
        except OSError as exc:
            raise ReleaseError("cannot read %s=%s: %s" % (ENV_OVERRIDE, override, exc)) from None
        pinned = pin["sha256"] is not None and sha256_hex(data) == pin["sha256"]
        return Obtained(data, "%s=%s" % (ENV_OVERRIDE, override), pinned)
    url = url or environ.get(ENV_URL, "") or pin["url"]
    cached = Path(root) / CACHE_DIR / pin["file"]
    partial = cached.with_name(cached.name + ".part")
    partial.unlink(missing_ok=True)  # left by a run killed while writing the cache
    if pin["sha256"] is None:
        if locked:
            raise ReleaseError(unlocked_message(pin, pin_path))
        data = _download(fetch, url, out, pin)
        check_release(data, pin, inspect, url)
        return _pin(data, pin, pin_path, cached, url, out)
    if cached.is_file():
        data = cached.read_bytes()
        got = sha256_hex(data)
        if got != pin["sha256"]:
            raise ReleaseError(
                "the cached %s is not the pinned file: sha256 %s, the pin %s says %s.\n"
                "Nothing was written. Delete the cached file to download it again."
                % (cached, got, pin_path, pin["sha256"])
            )
        return Obtained(data, "%s (cached, sha256 checked)" % cached, True)
    data = _download(fetch, url, out, pin)
    got = sha256_hex(data)
    if got != pin["sha256"]:
        raise ReleaseError(
            "the download of %s is not the pinned file: sha256 %s, the pin %s says %s.\n"
            "Nothing was written. If MicroPython replaced the file, check the new one and "
            "set sha256 to null in the pin to take it again." % (url, got, pin_path, pin["sha256"])
        )
    store(cached, data)
    return Obtained(data, "%s (downloaded to %s, sha256 checked)" % (url, cached), True)


def pin_file(root, path, out, inspect, pin_path=PIN_FILE):
    """release.py --pin FILE: pin (and cache) a MicroPython .uf2 downloaded by other means;
    a pin that already holds another sha256 is an error with both hashes."""
    pin = load_pin(pin_path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ReleaseError("cannot read %s: %s" % (path, exc)) from None
    firmware = check_release(data, pin, inspect, str(path))
    if Path(path).name != pin["file"]:
        print(
            "note: the file is named %s, the pin says %s" % (Path(path).name, pin["file"]),
            file=out,
        )
    print(
        "%s: MicroPython %s, board %s, 0x%08X-0x%08X, filesystem at 0x%08X (%d KiB)"
        % (
            path,
            firmware.version,
            firmware.board,
            firmware.start,
            firmware.end,
            firmware.filesystem[0],
            firmware.filesystem[1] // 1024,
        ),
        file=out,
    )
    cached = Path(root) / CACHE_DIR / pin["file"]
    got = sha256_hex(data)
    if pin["sha256"] is None:
        return _pin(data, pin, pin_path, cached, "the file %s" % Path(path).name, out)
    if got != pin["sha256"]:
        raise ReleaseError(
            "%s is not the pinned file: sha256 %s, the pin %s says %s. Nothing was written."
            % (path, got, pin_path, pin["sha256"])
        )
    store(cached, data)
    print("%s is the pinned file (sha256 %s); cached as %s" % (path, got, cached), file=out)
    return Obtained(data, str(path), True)


def _download(fetch, url, out, pin):
    try:
        return fetch(url, out, MAX_UF2_BYTES)
    except download.DownloadError as exc:
        raise ReleaseError(
            "could not download %s: %s.\nNothing was written. Without network, download it "
            "elsewhere and give it as MICROPYTHON_UF2=path (or pin it with "
            "`python tools/release/release.py --pin path/to/%s`), or name a copy on your "
            "network with %s=url." % (url, exc, pin["file"], ENV_URL)
        ) from None


def _pin(data, pin, pin_path, cached, origin, out):
    sha = sha256_hex(data)
    write_pin(pin_path, pin, sha, origin)
    store(cached, data)
    print(
        "pinned: MicroPython %s (%s), sha256 %s, written into %s: commit this file"
        % (pin["version"], pin["file"], sha, shown(pin_path)),
        file=out,
    )
    return Obtained(data, "%s (pinned, cached as %s)" % (origin, cached), True)


def store(cached, data):
    """Write the cache file whole: FILE.part, then renamed into place."""
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_name(cached.name + ".part")
    try:
        partial.write_bytes(data)
        os.replace(partial, cached)
    finally:
        partial.unlink(missing_ok=True)
