"""MicroPython pinned at its first download (tools/release/micropython_pin.py, download.py),
through the real urllib download against an http.server on 127.0.0.1 (port 0, in a thread)
that serves the placeholder .uf2, a cut connection, a 404, a wrong Content-Length and wrong
files. Every test works on a copy of the pin (the json path is a parameter); a guard checks
that tools/release/micropython_release.json itself is never modified."""

import functools
import http.server
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from harness import placeholder_uf2

ROOT = Path(__file__).resolve().parents[2]

import download  # noqa: E402
import micropython_uf2  # noqa: E402
import release  # noqa: E402
from runner import Runner  # noqa: E402

PY = sys.executable
FILE = "RPI_PICO-20251209-v1.27.0.uf2"
MP_UF2 = placeholder_uf2.uf2_file()
MP_SHA = micropython_uf2.sha256_hex(MP_UF2)
OTHER_UF2 = placeholder_uf2.uf2_file(seed=2)  # a valid MicroPython 1.27, not the pinned one
REAL_PIN = ROOT / "tools" / "release" / "micropython_release.json"
SEND_BYTES = 8 * 1024  # the server writes the body in pieces of this size


class Handler(http.server.BaseHTTPRequestHandler):
    """Answers by path (HTTP/1.0: the connection closes after each answer)."""

    def log_message(self, *args):  # quiet
        pass

    def body(self, data, length=None):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if length is not False:
            self.send_header("Content-Length", str(len(data) if length is None else length))
        self.end_headers()
        for at in range(0, len(data), SEND_BYTES):
            self.wfile.write(data[at : at + SEND_BYTES])
            self.wfile.flush()

    def do_GET(self):
        self.server.requests.append(self.path)
        name = self.path.rsplit("/", 1)[-1]
        if name == FILE or name == "mirror.uf2":
            self.body(MP_UF2)
        elif name == "other.uf2":
            self.body(OTHER_UF2)
        elif name == "nolength.uf2":
            self.body(MP_UF2, length=False)
        elif name == "cut.uf2":  # announces the whole file, sends half, closes
            self.body(MP_UF2[: len(MP_UF2) // 2], length=len(MP_UF2))
        elif name == "short.uf2":  # a Content-Length one block short of the real file
            self.body(MP_UF2[:-512])
        elif name == "huge.uf2":  # announces 50 MB, sends nothing
            self.body(b"", length=50 * 1024 * 1024)
        elif name == "page.html":
            self.body(b"<html><body>Downloads moved</body></html>\n")
        elif name == "v128.uf2":
            self.body(placeholder_uf2.uf2_file(version="v1.28.0"))
        elif name == "picow.uf2":
            self.body(placeholder_uf2.uf2_file(board="pico_w"))
        elif name == "nobinaryinfo.uf2":
            self.body(placeholder_uf2.uf2_file(binary_info=False))
        elif name == "stall.uf2":  # headers and 1 KiB, then silence until the test ends
            self.send_response(200)
            self.send_header("Content-Length", str(len(MP_UF2)))
            self.end_headers()
            self.wfile.write(MP_UF2[:1024])
            self.wfile.flush()
            self.server.release.wait(10)
        else:
            self.send_error(404, "Not Found")


class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """A client that hangs up early (the huge and stall answers) is expected: quiet."""


@pytest.fixture(scope="module")
def server():
    httpd = Server(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.requests = []
    httpd.release = threading.Event()
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    httpd.base = "http://127.0.0.1:%d" % httpd.server_address[1]
    yield httpd
    httpd.release.set()
    httpd.shutdown()
    httpd.server_close()
    thread.join(10)


@pytest.fixture(autouse=True)
def real_pin_untouched(monkeypatch):
    """No test may change the repository's pin; and no proxy stands between the tests and
    127.0.0.1."""
    before = REAL_PIN.read_bytes()
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    yield
    assert REAL_PIN.read_bytes() == before, (
        "a test modified tools/release/micropython_release.json"
    )


def make_project(path):
    shutil.copytree(ROOT / "firmware", path / "firmware", ignore=shutil.ignore_patterns("__*"))
    return path


def pin_copy(path, url, sha256=None):
    """A copy of the repository's pin with another url (and sha256)."""
    pin = json.loads(REAL_PIN.read_text())
    pin["url"] = url
    pin["sha256"] = sha256
    path.write_text(json.dumps(pin, indent=2) + "\n")
    return path


def build(project, pin, environ=None, fetch=download.download, locked=False):
    out = io.StringIO()
    target = release.build(
        project, Runner(project), environ or {}, out, fetch, None, PY, pin, locked=locked
    )
    return target, out.getvalue()


def leftovers(project):
    """Every file under build/ (the cache, a .part, an output)."""
    build_dir = project / "build"
    return sorted(str(p.relative_to(build_dir)) for p in build_dir.rglob("*") if p.is_file())


# --- the first download pins ------------------------------------------------------------------


def test_the_first_download_pins_the_file_and_builds(server, tmp_path):
    project = make_project(tmp_path / "project")
    url = server.base + "/resources/firmware/" + FILE
    pin = pin_copy(tmp_path / "pin.json", url)
    original = json.loads(pin.read_text())
    before = len(server.requests)
    target, text = build(project, pin)
    assert server.requests[before:] == ["/resources/firmware/" + FILE]
    assert "downloading %s\n" % url in text
    assert "  %d of %d bytes (100 %%)\n" % (len(MP_UF2), len(MP_UF2)) in text
    assert (
        "pinned: MicroPython 1.27.0 (%s), sha256 %s, written into %s: commit this file\n"
        % (FILE, MP_SHA, pin)
    ) in text
    written = json.loads(pin.read_text())
    assert written["sha256"] == MP_SHA
    assert url in written["sha256_note"]
    assert list(written) == list(original)  # same keys, same order
    assert {k: v for k, v in written.items() if not k.startswith("sha256")} == {
        k: v for k, v in original.items() if not k.startswith("sha256")
    }
    assert (project / "build" / "cache" / FILE).read_bytes() == MP_UF2
    assert "the pinned release" in text and target.is_file()
    # the next build uses the cache and the pin: no request
    before = len(server.requests)
    again, text2 = build(project, pin, locked=True)
    assert server.requests[before:] == []
    assert again.read_bytes() == target.read_bytes()
    assert "(cached, sha256 checked)" in text2 and "pinned:" not in text2


def test_once_pinned_a_different_file_stops_the_build_with_both_hashes(server, tmp_path):
    project = make_project(tmp_path / "project")
    pin = pin_copy(tmp_path / "pin.json", server.base + "/other.uf2", MP_SHA)
    before = pin.read_bytes()
    with pytest.raises(micropython_uf2.ReleaseError) as info:
        build(project, pin)
    text = str(info.value)
    assert (
        "is not the pinned file: sha256 %s, the pin %s says %s"
        % (
            micropython_uf2.sha256_hex(OTHER_UF2),
            pin,
            MP_SHA,
        )
        in text
    )
    assert "Nothing was written" in text
    assert pin.read_bytes() == before
    assert not (project / "build").exists()


def test_once_pinned_the_same_file_from_a_mirror_is_used_and_cached(server, tmp_path):
    project = make_project(tmp_path / "project")
    pin = pin_copy(tmp_path / "pin.json", server.base + "/gone/" + "missing.uf2", MP_SHA)
    environ = {"MICROPYTHON_UF2_URL": server.base + "/lan/mirror.uf2"}
    before = len(server.requests)
    _target, text = build(project, pin, environ)
    assert server.requests[before:] == ["/lan/mirror.uf2"]
    assert "/lan/mirror.uf2 (downloaded to" in text and "the pinned release" in text
    assert (project / "build" / "cache" / FILE).read_bytes() == MP_UF2
    assert json.loads(pin.read_text())["sha256"] == MP_SHA


def test_a_mirror_pins_when_nothing_is_pinned_and_the_note_says_where_from(server, tmp_path):
    project = make_project(tmp_path / "project")
    pin = pin_copy(tmp_path / "pin.json", "http://127.0.0.1:9/never-used.uf2")
    mirror = server.base + "/lan/mirror.uf2"
    _target, text = build(project, pin, {"MICROPYTHON_UF2_URL": mirror})
    written = json.loads(pin.read_text())
    assert written["sha256"] == MP_SHA and mirror in written["sha256_note"]
    assert written["url"] == "http://127.0.0.1:9/never-used.uf2"  # the pin's url stays
    assert "commit this file" in text


def test_a_download_without_content_length_shows_bytes_and_pins(server, tmp_path):
    project = make_project(tmp_path / "project")
    pin = pin_copy(tmp_path / "pin.json", server.base + "/nolength.uf2")
    _target, text = build(project, pin)
    assert "  %d bytes\n" % len(MP_UF2) in text
    assert json.loads(pin.read_text())["sha256"] == MP_SHA


def test_an_untrusted_cache_is_not_used_while_nothing_is_pinned(server, tmp_path):
    """A cache is vouched for only by a pin: with sha256 null it is downloaded again."""
    project = make_project(tmp_path / "project")
    cache = project / "build" / "cache"
    cache.mkdir(parents=True)
    (cache / FILE).write_bytes(OTHER_UF2)
    (cache / (FILE + ".part")).write_bytes(b"left by a killed run")
    pin = pin_copy(tmp_path / "pin.json", server.base + "/" + FILE)
    build(project, pin)
    assert json.loads(pin.read_text())["sha256"] == MP_SHA
    assert (cache / FILE).read_bytes() == MP_UF2
    assert not (cache / (FILE + ".part")).exists()


# --- every failure writes nothing ------------------------------------------------------------

FAILURES = [
    ("missing.uf2", "could not download {url}: the server answered 404 Not Found"),
    (
        "cut.uf2",
        "could not download {url}: the connection was cut after %d of %d bytes"
        % (len(MP_UF2) // 2, len(MP_UF2)),
    ),
    (
        "short.uf2",
        "is not a usable RP2040 .uf2: block 0 is numbered 0 of %d" % (len(MP_UF2) // 512),
    ),
    (
        "huge.uf2",
        "could not download {url}: the server announces 52428800 bytes, more than the 4194304",
    ),
    ("page.html", "{url} is not a usable RP2040 .uf2: not a UF2 file"),
    ("v128.uf2", "{url} is MicroPython v1.28.0, the pin is 1.27.0"),
    ("picow.uf2", "{url} is built for the board 'pico_w'"),
    ("nobinaryinfo.uf2", "{url} carries no picotool binary info naming it MicroPython"),
]


@pytest.mark.parametrize("name, message", FAILURES, ids=[f[0] for f in FAILURES])
def test_a_failed_download_or_wrong_file_pins_nothing_and_leaves_no_file(
    server, tmp_path, name, message
):
    project = make_project(tmp_path / "project")
    url = server.base + "/" + name
    pin = pin_copy(tmp_path / "pin.json", url)
    before = pin.read_bytes()
    with pytest.raises(micropython_uf2.ReleaseError) as info:
        build(project, pin)
    assert message.format(url=url) in str(info.value)
    assert pin.read_bytes() == before
    assert not (project / "build").exists() or leftovers(project) == []
    assert not list(tmp_path.glob("pin.json.*"))


@pytest.mark.parametrize("name", ["missing.uf2", "cut.uf2", "short.uf2", "other.uf2"])
def test_a_failed_download_of_a_pinned_file_leaves_no_file(server, tmp_path, name):
    project = make_project(tmp_path / "project")
    pin = pin_copy(tmp_path / "pin.json", server.base + "/" + name, MP_SHA)
    before = pin.read_bytes()
    with pytest.raises(micropython_uf2.ReleaseError, match="Nothing was written"):
        build(project, pin)
    assert pin.read_bytes() == before
    assert not (project / "build").exists() or leftovers(project) == []


def test_a_refused_connection_says_so(tmp_path):
    project = make_project(tmp_path / "project")
    with socket.socket() as bound:  # bound, never listening: connections are refused
        bound.bind(("127.0.0.1", 0))
        url = "http://127.0.0.1:%d/%s" % (bound.getsockname()[1], FILE)
        pin = pin_copy(tmp_path / "pin.json", url)
        with pytest.raises(micropython_uf2.ReleaseError) as info:
            build(project, pin)
    text = str(info.value)
    assert "could not download %s: cannot reach the server:" % url in text
    assert "Connection refused" in text
    assert "MICROPYTHON_UF2=path" in text and "MICROPYTHON_UF2_URL=url" in text
    assert json.loads(pin.read_text())["sha256"] is None


def test_a_server_that_stops_sending_times_out(server, tmp_path):
    project = make_project(tmp_path / "project")
    pin = pin_copy(tmp_path / "pin.json", server.base + "/stall.uf2")
    with pytest.raises(micropython_uf2.ReleaseError, match="no data for 0.3 s"):
        build(project, pin, fetch=functools.partial(download.download, timeout=0.3))
    assert json.loads(pin.read_text())["sha256"] is None
    assert not (project / "build").exists() or leftovers(project) == []


def test_locked_refuses_to_pin_before_any_request(server, tmp_path):
    project = make_project(tmp_path / "project")
    pin = pin_copy(tmp_path / "pin.json", server.base + "/" + FILE)
    before = len(server.requests)
    with pytest.raises(micropython_uf2.ReleaseError, match="--locked"):
        build(project, pin, locked=True)
    assert server.requests[before:] == []
    assert json.loads(pin.read_text())["sha256"] is None


# --- the download's progress and limits -------------------------------------------------------


class Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_on_a_terminal_rewrites_one_line(server):
    out = Tty()
    data = download.download(server.base + "/" + FILE, out, 1 << 22)
    assert data == MP_UF2
    lines = out.getvalue().split("\n")
    assert lines[0] == "downloading %s/%s" % (server.base, FILE)
    steps = lines[1].split("\r")[1:]
    assert steps[0] == "  16384 of %d bytes (20 %%)" % len(MP_UF2)
    assert steps[-1] == "  %d of %d bytes (100 %%)" % (len(MP_UF2), len(MP_UF2))
    assert lines[2:] == [""]  # the line is ended


def test_a_cut_on_a_terminal_ends_the_progress_line_first(server):
    out = Tty()
    with pytest.raises(download.DownloadError, match="cut after"):
        download.download(server.base + "/cut.uf2", out, 1 << 22)
    text = out.getvalue()
    assert text.endswith("%)\n") and "\r  %d of %d bytes" % (len(MP_UF2) // 2, len(MP_UF2)) in text


def test_progress_in_a_log_prints_a_line_per_quarter(server):
    out = io.StringIO()
    download.download(server.base + "/" + FILE, out, 1 << 22)
    lines = out.getvalue().splitlines()[1:]
    assert 1 <= len(lines) <= 4
    assert lines[-1] == "  %d of %d bytes (100 %%)" % (len(MP_UF2), len(MP_UF2))


def test_more_than_the_limit_without_content_length_is_refused(server):
    with pytest.raises(download.DownloadError, match="more than 20000 bytes arrived"):
        download.download(server.base + "/nolength.uf2", io.StringIO(), 20000)


# --- the command line, as `make uf2` runs it ---------------------------------------------------


def run_release(*args, env_extra=None):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "no_proxy": "127.0.0.1"}
    env.update(env_extra or {})
    return subprocess.run(
        [PY, str(ROOT / "tools" / "release" / "release.py"), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_cli_pins_at_the_first_download_then_builds_locked_from_the_cache(server, tmp_path):
    project = make_project(tmp_path / "project")
    pin = pin_copy(tmp_path / "pin.json", "http://127.0.0.1:9/unused.uf2")
    args = ("--root", str(project), "--pin-file", str(pin))
    cut = run_release(*args, env_extra={"MICROPYTHON_UF2_URL": server.base + "/cut.uf2"})
    assert cut.returncode == 1
    assert cut.stderr.startswith(
        "uf2: could not download %s/cut.uf2: the connection" % server.base
    )
    assert not (project / "build").exists() or leftovers(project) == []
    good = run_release(*args, env_extra={"MICROPYTHON_UF2_URL": server.base + "/" + FILE})
    assert good.returncode == 0, good.stderr
    assert "pinned: MicroPython 1.27.0" in good.stdout and "commit this file" in good.stdout
    assert json.loads(pin.read_text())["sha256"] == MP_SHA
    before = len(server.requests)
    locked = run_release(*args, "--locked")
    assert locked.returncode == 0, locked.stderr
    assert server.requests[before:] == []
    assert leftovers(project) == [
        "cache/" + FILE,
        "chess-clock-0.1.0.uf2",
        "chess-clock-0.1.0.uf2.sha256",
    ] + sorted("release/" + n for n in os.listdir(project / "build" / "release"))
