"""The release path: tools/release/ci_release.py (the tag is firmware/core/version.py's
version, the MicroPython pin is committed, the release notes), the release job's steps run here in
order on a copy of the project, and the workflow files in .github/workflows (pinned
actions, the steps the issue asks for, and zizmor catching a broken workflow)."""

import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness import placeholder_uf2

ROOT = Path(__file__).resolve().parents[2]

import ci_release  # noqa: E402
import firmware_build  # noqa: E402
import micropython_uf2  # noqa: E402

PY = sys.executable
WORKFLOWS = ROOT / ".github" / "workflows"
ZIZMOR = Path(sys.executable).parent / "zizmor"
MP_UF2 = placeholder_uf2.uf2_file()
MP_SHA = micropython_uf2.sha256_hex(MP_UF2)
FILE = "RPI_PICO-20251209-v1.27.0.uf2"


def project_with(path, version="0.1.0"):
    shutil.copytree(ROOT / "firmware", path / "firmware", ignore=shutil.ignore_patterns("__*"))
    (path / "firmware" / "core" / "version.py").write_text(
        '"""The firmware version."""\n\nVERSION = "%s"\n' % version
    )
    return path


def pin_copy(path, sha256=MP_SHA):
    pin = json.loads((ROOT / "tools" / "release" / "micropython_release.json").read_text())
    pin["sha256"] = sha256
    path.write_text(json.dumps(pin, indent=2) + "\n")
    return path


def run_tool(*args):
    err = io.StringIO()
    out = io.StringIO()
    status = ci_release.main(list(args), out, err)
    return status, out.getvalue(), err.getvalue()


# --- the one version --------------------------------------------------------------------------


def test_the_repository_version_is_a_release_version():
    version = firmware_build.firmware_version(ROOT)
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    assert (ROOT / "firmware" / "core" / "version.py").read_text().count("VERSION =") == 1


def test_check_accepts_the_tag_of_the_version_and_prints_the_outputs(tmp_path):
    project = project_with(tmp_path)
    pin = pin_copy(tmp_path / "pin.json")
    status, out, err = run_tool("--root", str(project), "--pin-file", str(pin), "check", "v0.1.0")
    assert (status, err) == (0, "")
    assert out == "version=0.1.0\nprerelease=false\n"


def test_a_version_with_a_suffix_is_a_prerelease(tmp_path):
    project = project_with(tmp_path, "1.2.0-rc.1")
    pin = pin_copy(tmp_path / "pin.json")
    status, out, _err = run_tool(
        "--root", str(project), "--pin-file", str(pin), "check", "v1.2.0-rc.1"
    )
    assert status == 0 and out == "version=1.2.0-rc.1\nprerelease=true\n"


@pytest.mark.parametrize("tag", ["v0.1.1", "0.1.0", "v0.1.0-rc.1", "v0.1", "release-0.1.0"])
def test_check_refuses_a_tag_that_is_not_the_version(tmp_path, tag):
    project = project_with(tmp_path)
    pin = pin_copy(tmp_path / "pin.json")
    status, out, err = run_tool("--root", str(project), "--pin-file", str(pin), "check", tag)
    assert status == 1 and out == ""
    assert err.startswith("release: the tag %s is not the firmware's version" % tag)
    assert "VERSION = '0.1.0', so the tag must be v0.1.0" in err


def test_check_refuses_an_unpinned_micropython(tmp_path):
    project = project_with(tmp_path)
    pin = pin_copy(tmp_path / "pin.json", sha256=None)
    status, out, err = run_tool("--root", str(project), "--pin-file", str(pin), "check", "v0.1.0")
    assert status == 1 and out == ""
    assert "has no sha256 for MicroPython 1.27.0 yet" in err and "run `make uf2`" in err


def test_check_refuses_a_tree_without_a_version(tmp_path):
    project = project_with(tmp_path)
    (project / "firmware" / "core" / "version.py").write_text("VERSION = None\n")
    status, _out, err = run_tool(
        "--root", str(project), "--pin-file", str(pin_copy(tmp_path / "p.json")), "check", "v1"
    )
    assert status == 1 and 'has no line VERSION = "X.Y.Z"' in err


# --- the release job's steps, in order, on a copy of the project --------------------------------


def test_the_release_job_builds_a_file_its_notes_and_sha256sum_agree_on(tmp_path):
    """check, make uf2 LOCKED=1 (the pinned MicroPython already in the cache, as the job's
    download would leave it), the pin unchanged, the notes; then the published pair is
    checked the way a Linux user would (`sha256sum -c`)."""
    project = project_with(tmp_path / "project", "0.4.2")
    pin = pin_copy(tmp_path / "pin.json")
    pinned = pin.read_bytes()
    (project / "build" / "cache").mkdir(parents=True)
    (project / "build" / "cache" / FILE).write_bytes(MP_UF2)
    common = ["--root", str(project), "--pin-file", str(pin)]
    status, out, err = run_tool(*common, "check", "v0.4.2")
    assert status == 0, err
    proc = subprocess.run(
        [PY, str(ROOT / "tools" / "release" / "release.py"), *common, "--locked"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert pin.read_bytes() == pinned  # `git diff --exit-code` of the pin passes
    status, notes, err = run_tool(*common, "notes", "0.4.2")
    assert status == 0, err
    built = project / "build" / "chess-clock-0.4.2.uf2"
    sha = micropython_uf2.sha256_hex(built.read_bytes())
    assert "\n    %s\n" % sha in notes
    assert "certutil -hashfile chess-clock-0.4.2.uf2 SHA256" in notes
    assert "Get-FileHash chess-clock-0.4.2.uf2" in notes
    assert "shasum -a 256 chess-clock-0.4.2.uf2" in notes
    assert "sha256sum -c chess-clock-0.4.2.uf2.sha256" in notes
    assert "MicroPython 1.27.0 (`%s`, sha256 `%s`)" % (FILE, MP_SHA) in notes
    if shutil.which("sha256sum"):
        check = subprocess.run(
            ["sha256sum", "-c", "chess-clock-0.4.2.uf2.sha256"],
            cwd=built.parent,
            capture_output=True,
            text=True,
        )
        assert check.returncode == 0 and check.stdout == "chess-clock-0.4.2.uf2: OK\n"


def test_notes_refuse_a_file_whose_sha256_file_does_not_match(tmp_path):
    project = project_with(tmp_path)
    pin = pin_copy(tmp_path / "pin.json")
    build = project / "build"
    build.mkdir()
    (build / "chess-clock-0.1.0.uf2").write_bytes(b"the file")
    (build / "chess-clock-0.1.0.uf2.sha256").write_text("%s  chess-clock-0.1.0.uf2\n" % ("0" * 64))
    status, out, err = run_tool("--root", str(project), "--pin-file", str(pin), "notes", "0.1.0")
    assert status == 1 and out == "" and "does not hold the sha256" in err
    (build / "chess-clock-0.1.0.uf2.sha256").unlink()
    status, _out, err = run_tool("--root", str(project), "--pin-file", str(pin), "notes", "0.1.0")
    assert status == 1 and "run `make uf2` first" in err


# --- the workflow files -------------------------------------------------------------------------


def workflow(name):
    return (WORKFLOWS / name).read_text()


def test_every_action_is_pinned_to_a_commit():
    for path in WORKFLOWS.glob("*.yml"):
        uses = re.findall(r"uses:\s*(\S+)(.*)", path.read_text())
        assert uses, path
        for ref, comment in uses:
            assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", ref), (path.name, ref)
            assert re.fullmatch(r"\s*# v\d+\.\d+\.\d+", comment), (path.name, ref)


def test_the_test_workflow_runs_make_test_on_pushes_and_pull_requests():
    text = workflow("test.yml")
    assert re.search(r"^on:\n  push:\n    branches: \[\"\*\*\"\]\n  pull_request:\n", text, re.M)
    assert "run: make test CHIP=1\n" in text


def test_the_test_workflow_caches_the_chip_downloads_by_their_pins():
    """build/cache (tools/chip/inputs.py's downloads) is restored before `make test CHIP=1`,
    under a key that changes with either pin, so a new pin never runs on an old file."""
    text = workflow("test.yml")
    cache = text.index("uses: actions/cache@")
    assert cache < text.index("run: make test CHIP=1")
    step = text[cache : text.index("- name:", cache)]
    assert re.search(r"^\s+path: build/cache$", step, re.M)
    key = re.search(r"^\s+key: (.+)$", step, re.M).group(1)
    assert (
        "hashFiles('tools/release/micropython_release.json', 'tools/chip/bootrom_pin.json')" in key
    )


def test_the_release_workflow_checks_the_tag_first_then_tests_builds_and_publishes():
    text = workflow("release.yml")
    assert re.search(r"^on:\n  push:\n    tags: \[\"v\*\"\]\n", text, re.M)
    steps = [
        'run: python3 tools/release/ci_release.py check "$GITHUB_REF_NAME" >> "$GITHUB_OUTPUT"',
        "run: make test",
        "run: make uf2 LOCKED=1",
        "run: git diff --exit-code -- tools/release/micropython_release.json",
        'run: python3 tools/release/ci_release.py notes "$VERSION" > build/release-notes.md',
        'gh release create "$GITHUB_REF_NAME"',
    ]
    where = [text.index(step) for step in steps]
    assert where == sorted(where)
    assert '"build/chess-clock-$VERSION.uf2" "build/chess-clock-$VERSION.uf2.sha256"' in text
    assert "contents: write" in text and "permissions: {}" in text


BROKEN = {
    "a misspelt key": ("runs-on:", "runs-onn:"),
    "an unpinned action": ("@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1", "@v7"),
    "a template in a script": (
        'check "$GITHUB_REF_NAME"',
        'check "${{ github.event.head_commit.message }}"',
    ),
    "write permissions for everything": ("permissions: {}", "permissions: write-all"),
}


def zizmor(path):
    return subprocess.run(
        [str(ZIZMOR), "--offline", "--strict-collection", "--persona=pedantic", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.skipif(not ZIZMOR.exists(), reason="zizmor is installed by requirements.txt")
def test_the_workflows_pass_the_linter():
    proc = zizmor(WORKFLOWS)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.skipif(not ZIZMOR.exists(), reason="zizmor is installed by requirements.txt")
@pytest.mark.parametrize("fault", sorted(BROKEN))
def test_the_linter_fails_a_broken_workflow(tmp_path, fault):
    old, new = BROKEN[fault]
    text = workflow("release.yml")
    assert old in text
    broken = tmp_path / "release.yml"
    broken.write_text(text.replace(old, new, 1))
    assert zizmor(broken).returncode != 0, fault
