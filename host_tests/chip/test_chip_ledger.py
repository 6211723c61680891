"""chip.ledger_between: the power-state rows of a stretch between two of the emulator's
ledger answers (tools/chip/chip.py, docs/chip.md#the-ledger). Runs without the chip."""

import chip
import pytest


def row(state, hz, ns, entries, clocks_on=None):
    return {
        "state": state,
        "clk_sys_hz": hz,
        "clk_ref_hz": 12_000_000,
        "oscillators": ["xosc"],
        "starting": [],
        "clocks_on": clocks_on,
        "sleep_en": None,
        "ns": ns,
        "entries": entries,
    }


BEFORE = {
    "mode": "model",
    "now_ns": 1_000,
    "timer_us": 1,
    "rows": [row("awake", 125_000_000, 600, 3), row("sleep", 125_000_000, 400, 2)],
}
AFTER = {
    "mode": "model",
    "now_ns": 5_000,
    "timer_us": 5,
    "rows": [
        row("awake", 125_000_000, 900, 4),
        row("sleep", 125_000_000, 400, 2),
        row("deep_sleep", 12_000_000, 3_000, 1, ["sys_timer"]),
        row("awake", 12_000_000, 700, 2),
    ],
}


def test_the_stretch_holds_each_state_once_with_its_share():
    got = chip.ledger_between(BEFORE, AFTER)
    assert [(r["state"], r["clk_sys_hz"], r["ns"], r["entries"]) for r in got] == [
        ("awake", 125_000_000, 300, 1),
        ("deep_sleep", 12_000_000, 3_000, 1),
        ("awake", 12_000_000, 700, 2),
    ]
    assert sum(r["ns"] for r in got) == AFTER["now_ns"] - BEFORE["now_ns"]
    assert got[1]["clocks_on"] == ["sys_timer"]


def test_a_state_told_apart_by_any_field():
    """The same state at another rate, or with other clocks on, is another row."""
    after = dict(AFTER, rows=AFTER["rows"] + [row("deep_sleep", 12_000_000, 5, 1, ["sys_io"])])
    after["now_ns"] += 5
    got = chip.ledger_between(BEFORE, after)
    assert [r["clocks_on"] for r in got if r["state"] == "deep_sleep"] == [
        ["sys_timer"],
        ["sys_io"],
    ]


def test_the_ledgers_in_the_wrong_order_are_refused():
    with pytest.raises(ValueError):
        chip.ledger_between(AFTER, BEFORE)
