"""The chip's inputs from the pinned downloads (tools/chip/inputs.py), through the real urllib
download against an http.server on 127.0.0.1: the placeholder MicroPython .uf2 of a pin copy,
and a boot ROM table made here (4096 seeded words in bootrom.ts's layout) that stands for the
B1 ROM: the test pins its file sha256 and its words' sha256 in place of the real ones, which
belong to a file the repository does not hold. Every case that must stop a run writes nothing
into the cache; chip_env's skip line and CHIP=1 are checked too."""

import hashlib
import http.server
import io
import json
import random
import threading
from pathlib import Path

import pytest

from harness import placeholder_uf2

ROOT = Path(__file__).resolve().parents[2]

import chip  # noqa: E402
import chip_env  # noqa: E402
import download  # noqa: E402
import inputs  # noqa: E402
import micropython_uf2  # noqa: E402

REAL_PIN = ROOT / "tools" / "release" / "micropython_release.json"
MP_FILE = json.loads(REAL_PIN.read_text())["file"]
MP_UF2 = placeholder_uf2.uf2_file()
MP_SHA = micropython_uf2.sha256_hex(MP_UF2)


def rom_table(seed):
    """(file bytes, the 16384 bytes its words stand for), laid out as rp2040js's file."""
    rnd = random.Random(seed)
    words = [rnd.getrandbits(32) for _ in range(chip.BOOTROM_BYTES // 4)]
    rows = [
        "  " + ", ".join("0x%08x" % w for w in words[i : i + 8]) + ","
        for i in range(0, len(words), 8)
    ]
    text = "// a B1 boot ROM table\n\nexport const bootromB1 = new Uint32Array([\n%s\n]);\n" % (
        "\n".join(rows)
    )
    return text.encode(), b"".join(w.to_bytes(4, "little") for w in words)


ROM_TS, ROM = rom_table(1)
OTHER_TS, OTHER_ROM = rom_table(2)  # a well-formed table of other words


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def body(self, data, length=None):
        self.send_response(200)
        self.send_header("Content-Length", str(len(data) if length is None else length))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.server.requests.append(self.path)
        name = self.path.rsplit("/", 1)[-1]
        if name == MP_FILE:
            self.body(MP_UF2)
        elif name == "bootrom.ts":
            self.body(ROM_TS)
        elif name == "other.ts":
            self.body(OTHER_TS)
        elif name == "cut.ts":  # announces the whole file, sends half, closes
            self.body(ROM_TS[: len(ROM_TS) // 2], length=len(ROM_TS))
        else:
            self.send_error(404, "Not Found")


@pytest.fixture(scope="module")
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.requests = []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    httpd.base = "http://127.0.0.1:%d" % httpd.server_address[1]
    yield httpd
    httpd.shutdown()
    httpd.server_close()
    thread.join(10)


@pytest.fixture(autouse=True)
def pinned_rom(monkeypatch):
    """The made-up table is the pinned file and its words the B1 ROM; no proxy in the way;
    the repository's pin is never modified."""
    before = REAL_PIN.read_bytes()
    monkeypatch.setattr(inputs, "BOOTROM_SHA256", hashlib.sha256(ROM_TS).hexdigest())
    monkeypatch.setattr(chip, "BOOTROM_B1_SHA256", hashlib.sha256(ROM).hexdigest())
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    yield
    assert REAL_PIN.read_bytes() == before, (
        "a test modified tools/release/micropython_release.json"
    )


def pin_copy(path, url, sha256):
    pin = json.loads(REAL_PIN.read_text())
    pin["url"] = url
    pin["sha256"] = sha256
    path.write_text(json.dumps(pin, indent=2) + "\n")
    return path


def cache_files(project):
    cache = project / "build" / "cache"
    return sorted(p.name for p in cache.iterdir()) if cache.is_dir() else []


def obtain(server, tmp_path, environ=None, sha=MP_SHA, rom="bootrom.ts", fetch=None):
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    pin = pin_copy(tmp_path / "pin.json", server.base + "/mp/" + MP_FILE, sha)
    env = {inputs.BOOTROM_URL_ENV: server.base + "/rom/" + rom}
    env.update(environ or {})
    out = io.StringIO()
    got = inputs.obtain(project, env, out, fetch or download.download, pin)
    return project, got, out.getvalue(), pin


def no_network(url, out, limit):
    raise AssertionError("no download expected, asked for %s" % url)


def test_nothing_given_downloads_both_then_runs_from_the_cache(server, tmp_path):
    project, got, out, _pin = obtain(server, tmp_path)
    assert got.uf2 == project / "build" / "cache" / MP_FILE
    assert got.uf2.read_bytes() == MP_UF2
    assert got.bootrom == project / "build" / "cache" / inputs.BOOTROM_FILE
    assert chip.bootrom_bytes(got.bootrom) == ROM
    assert "downloaded" in got.uf2_source and "downloaded" in got.bootrom_source
    assert "downloading %s/rom/bootrom.ts" % server.base in out
    assert cache_files(project) == sorted([MP_FILE, inputs.BOOTROM_FILE])
    _p, again, _out, _pin = obtain(server, tmp_path, fetch=no_network)
    assert again.uf2 == got.uf2 and again.bootrom == got.bootrom
    assert "cached, sha256 checked" in again.uf2_source
    assert "cached, sha256 checked" in again.bootrom_source


def test_an_unpinned_micropython_is_pinned_at_its_first_download_as_make_uf2_does(
    server, tmp_path
):
    _project, got, out, pin = obtain(server, tmp_path, sha=None)
    assert json.loads(pin.read_text())["sha256"] == MP_SHA
    assert "pinned: MicroPython" in out and "commit this file" in out
    assert got.uf2.read_bytes() == MP_UF2


def test_given_files_are_used_without_any_download(server, tmp_path):
    uf2 = tmp_path / "mine.uf2"
    uf2.write_bytes(b"any MicroPython")
    rom = tmp_path / "rom.ts"
    rom.write_bytes(ROM_TS)
    env = {chip.UF2_ENV: str(uf2), chip.BOOTROM_ENV: str(rom)}
    project, got, _out, _pin = obtain(server, tmp_path, env, fetch=no_network)
    assert (got.uf2, got.bootrom) == (uf2, rom)
    assert cache_files(project) == []
    beside = tmp_path / "bootrom.ts"  # without RP2040_BOOTROM: the one beside the .uf2
    beside.write_bytes(ROM_TS)
    _p, got, _o, _pin = obtain(server, tmp_path, {chip.UF2_ENV: str(uf2)}, fetch=no_network)
    assert got.bootrom == beside


def test_a_given_micropython_still_gets_the_pinned_boot_rom(server, tmp_path):
    uf2 = tmp_path / "mine.uf2"
    uf2.write_bytes(b"any MicroPython")
    project, got, _out, _pin = obtain(server, tmp_path, {chip.UF2_ENV: str(uf2)})
    assert got.uf2 == uf2
    assert cache_files(project) == [inputs.BOOTROM_FILE]


@pytest.mark.parametrize(
    "rom, says",
    [
        ("other.ts", "is not the pinned boot ROM file"),
        ("cut.ts", "the connection was cut after"),
        ("missing.ts", "the server answered 404"),
    ],
)
def test_a_wrong_or_failed_boot_rom_download_stops_and_writes_nothing(server, tmp_path, rom, says):
    uf2 = tmp_path / "mine.uf2"
    uf2.write_bytes(b"any MicroPython")
    with pytest.raises(chip.ChipError, match=says) as failed:
        obtain(server, tmp_path, {chip.UF2_ENV: str(uf2)}, rom=rom)
    assert "Nothing was written" in str(failed.value)
    assert cache_files(tmp_path / "project") == []


def test_a_pin_whose_words_are_not_the_b1_rom_is_refused(server, tmp_path, monkeypatch):
    """The file's sha256 is checked, and then its words: a wrong pin cannot vouch for a ROM."""
    monkeypatch.setattr(inputs, "BOOTROM_SHA256", hashlib.sha256(OTHER_TS).hexdigest())
    uf2 = tmp_path / "mine.uf2"
    uf2.write_bytes(b"any MicroPython")
    with pytest.raises(chip.ChipError, match="not the RP2040 B1 boot ROM"):
        obtain(server, tmp_path, {chip.UF2_ENV: str(uf2)}, rom="other.ts")
    assert cache_files(tmp_path / "project") == []


def test_a_changed_cached_boot_rom_stops_with_both_hashes(server, tmp_path):
    cache = tmp_path / "project" / "build" / "cache"
    cache.mkdir(parents=True)
    (cache / inputs.BOOTROM_FILE).write_bytes(OTHER_TS)
    (cache / (inputs.BOOTROM_FILE + ".part")).write_bytes(b"left by a killed run")
    uf2 = tmp_path / "mine.uf2"
    uf2.write_bytes(b"any MicroPython")
    with pytest.raises(chip.ChipError, match="Delete the cached file") as failed:
        obtain(server, tmp_path, {chip.UF2_ENV: str(uf2)}, fetch=no_network)
    assert hashlib.sha256(OTHER_TS).hexdigest() in str(failed.value)
    assert cache_files(tmp_path / "project") == [inputs.BOOTROM_FILE]  # the .part is gone


def test_a_micropython_download_that_fails_names_the_way_out(server, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    pin = pin_copy(tmp_path / "pin.json", server.base + "/gone.uf2", MP_SHA)
    env = {inputs.BOOTROM_URL_ENV: server.base + "/rom/bootrom.ts"}
    with pytest.raises(chip.ChipError, match="404") as failed:
        inputs.obtain(project, env, io.StringIO(), download.download, pin)
    assert "MICROPYTHON_UF2=path" in str(failed.value)
    assert cache_files(project) == []


def test_the_boot_rom_pin_names_the_raw_file_at_its_commit():
    """bootrom_pin.json: the url is the raw demo/bootrom.ts at the pinned commit, and the
    cache file is named by that commit (a new pin never reads an old pin's cache)."""
    pin = json.loads(inputs.BOOTROM_PIN_FILE.read_text())
    assert pin["url"] == (
        "https://raw.githubusercontent.com/wokwi/rp2040js/%s/demo/bootrom.ts" % pin["commit"]
    )
    assert len(pin["commit"]) == 40 and pin["commit"][:12] in pin["file"]
    assert len(pin["sha256"]) == 64 and pin["bytes"] < inputs.MAX_BOOTROM_BYTES


def test_without_files_or_chip_1_the_chip_tests_skip_with_one_line(monkeypatch):
    for name in (chip.UF2_ENV, chip.BOOTROM_ENV, chip_env.DOWNLOAD_ENV):
        monkeypatch.delenv(name, raising=False)
    found = chip_env.find()
    assert isinstance(found, str) and found.startswith("chip tests skipped: set")
    assert "CHIP=1" in found


def test_chip_1_turns_a_failed_download_into_a_failure_not_a_skip(tmp_path, monkeypatch):
    uf2 = tmp_path / "mine.uf2"
    uf2.write_bytes(b"any MicroPython")
    refused = "http://127.0.0.1:9/bootrom.ts"  # the discard port: nothing listens
    monkeypatch.setenv(chip_env.DOWNLOAD_ENV, "1")
    monkeypatch.setenv(chip.UF2_ENV, str(uf2))
    monkeypatch.delenv(chip.BOOTROM_ENV, raising=False)
    monkeypatch.setenv(inputs.BOOTROM_URL_ENV, refused)
    monkeypatch.setattr(chip_env, "ROOT", tmp_path)
    chip_env._downloaded.cache_clear()
    with pytest.raises(pytest.fail.Exception, match="CHIP=1: could not download"):
        chip_env.find()
    assert not (tmp_path / "build").exists()
