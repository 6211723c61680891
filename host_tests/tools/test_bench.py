"""Smoke test of `make bench` (tools/bench/bench.py + bench_mp.py under MicroPython 1.27).

Runs the MicroPython half with very few iterations and checks that its output parses and that
the hot paths allocate nothing (allocation is deterministic; timings are never asserted)."""

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

import bench  # noqa: E402

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
N = 64  # the smallest N bench_mp.py accepts


@needs_node
def test_micropython_half_parses_and_press_allocates_nothing():
    records = bench.run_micropython(N, mpy=False)
    assert set(bench.EXPECTED) <= set(records)
    assert records["runtime"]["value"].startswith("MicroPython 1.27")
    for key in (
        "press",
        "tick",
        "frame",
        "show",
        "timefmt",
        "wake_idle",
        "wake_move",
        "wake_refused",
    ):
        assert records[key + "_bytes"]["value"] == 0, key
        assert records[key + "_locked"]["value"] == 1, key
        assert records[key + "_us"]["value"] >= 0
    assert records["boot_heap"]["value"] > 0
    # The event-driven loop: no allocation per wakeup or press, and the wakeup counts of
    # virtual time (deterministic, unlike the timings).
    assert records["loop_locked"]["value"] == 1
    assert records["loop_bytes"]["value"] == 0
    # A journal record may allocate (file objects, its bytes): bounded, and freed at once.
    assert 0 < records["journal_bytes"]["value"] <= 4096
    assert records["mmss_wakeups"]["value"] <= 2.05
    assert records["hmm_wakeups"]["value"] <= 0.3
    assert 10 <= records["tenths_wakeups"]["value"] <= 11
    for key in ("mmss_lag", "tenths_lag", "hmm_lag", "flag_lag", "lever_lag"):
        assert 0 <= records[key]["value"] <= 2_000, key  # virtual us: the poll's 1 ms grid


@needs_node
def test_main_from_mpy_writes_markdown(tmp_path, capsys):
    out = tmp_path / "bench.md"
    assert bench.main(["-n", str(N), "--out", str(out), "--build", str(tmp_path / "b")]) == 0
    text = out.read_text()
    assert "| engine press: bytes allocated | 0 B | <= 0 B | ok |" in text
    assert "mpy-cross .mpy files" in text
    assert "| engine.mpy |" in text
    out = capsys.readouterr().out
    assert "engine press: time" in out
    assert "mmss: CPU busy on the RP2040 (estimate)" in out
    assert "lever: edge to written, RP2040 (estimate)" in out


def test_incomplete_output_is_an_error():
    line = 'BENCH {"key": "press_us", "value": 1.0, "unit": "us", "target": null}'
    with pytest.raises(bench.BenchError):
        bench.parse(line + "\nBENCH-DONE\n")


def test_missed_target_is_reported_not_an_error():
    heap = {"value": 50_000, "unit": "B", "target": 40_960}
    assert bench.status(heap) == "MISSES"
    assert bench.status({"value": 0, "unit": "B", "target": 0}) == "ok"
    assert bench.status({"value": 0, "unit": "ok", "target": 1}) == "MISSES"
    assert bench.status({"value": 3.5, "unit": "us", "target": None}) == ""


def test_broken_micropython_run_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(bench, "mp_command", lambda *a: ["node", "-e", "process.exit(3)"])
    assert (
        bench.main(["-n", str(N), "--out", str(tmp_path / "x.md"), "--build", str(tmp_path)]) == 1
    )
