"""Byo-yomi and Canadian overtime end to end: the real firmware on the simulated board, built
in the custom editor, played into overtime through the lever and button pins, read from the
TM1637 traffic (see test_firmware_e2e.py for the harness and its timing helpers).

Display rules under test (README, display legend): a side in overtime shows its counter
(`by n` byo-yomi periods left, `c nn` Canadian moves to make) instead of its time during 2 s
of every 4 s of the *running* side's shown seconds; the running side keeps its time under
10 s; paused, the counters are on the second info page.
"""

import re

import engine as E
import pytest
from test_firmware_e2e import (
    PRESS_MS,
    choose_preset,
    flash_json,
    game,
    long_set,
    power_cycle,
    power_on,
    shown_over,
    sounded,
    tap,
    texts,
    think,
)

BYOYOMI = 17  # firmware/core/presets.py: 60 min + 5 x 30 s
CANADIAN = 18  # 60 min + 25 moves in 10 min


@pytest.fixture
def clock(tmp_path):
    c = power_on(tmp_path)
    yield c
    assert not (tmp_path / "errors.log").exists(), (tmp_path / "errors.log").read_text()


def taps(clock, name, n):
    for _ in range(n):
        tap(clock, name)


def edit_overtime_control(clock, preset, code, main_min_down):
    """Ready screen: choose `preset`, open the custom editor on it, take `main_min_down`
    minutes off its main time and walk to the overtime kind field."""
    choose_preset(clock, preset)
    assert clock.displays() == (("1h00", False), ("1h00", False))
    tap(clock, "set")
    assert texts(clock) == (code, "1h00")  # the chooser shows the preset's code
    tap(clock, "set")  # the chooser's SET: the editor, opened on the preset shown
    assert texts(clock) == ("t1 n", "1h00")
    taps(clock, "minus", main_min_down)
    for label in ("t1 5", "1 n ", "1 b ", "b1 5"):
        tap(clock, "set")
        assert texts(clock)[0] == label
    tap(clock, "set")


def test_byoyomi_game_into_overtime(clock, tmp_path):
    """1 min + 3 x 10 s from the editor; the right reaches overtime, keeps a period, uses
    one up, the arbiter gives it back, and the last period runs out: a flag at the instant."""
    edit_overtime_control(clock, BYOYOMI, "byo ", 59)
    assert texts(clock) == ("ot  ", "byo ")
    tap(clock, "set")
    assert texts(clock) == ("o n ", "   5")  # periods
    taps(clock, "minus", 2)
    assert texts(clock) == ("o n ", "   3")
    tap(clock, "set")
    assert clock.displays() == (("to n", False), (" 030", True))  # period time, minutes
    tap(clock, "set")
    taps(clock, "minus", 20)  # seconds
    assert clock.displays() == (("to 5", False), (" 010", True))
    tap(clock, "play")
    assert clock.displays() == ((" 100", True), (" 100", True))
    saved = flash_json(tmp_path, "settings.json")["control"]
    assert saved == {"custom": {"mode": 3, "periods": [[60, 0, 0, 0]], "overtime": [3, 10]}}

    g = game(clock)
    clock.press("left")  # White (right) runs
    think(clock, 30_000)
    clock.press("right")  # 30 s of main time left
    think(clock, 20_000)
    clock.press("left")  # 40 s left; the right runs
    clock.run_ms(30_500 - PRESS_MS)  # its main time ran out 0.5 s ago: period 1 of 3
    assert g.in_overtime(1) and g.ot_left[1] == 3
    # 9.5 s left shows as 10 s: the running side's counter (its shown seconds are >= 10)
    assert clock.displays() == ((" 040", True), ("by 3", False))
    clock.run_ms(1_500)  # under 10 s the running side shows its time, tenths
    assert re.fullmatch(r" [78]\d ", texts(clock)[1])
    clock.run_ms(2_000)
    clock.press("right")  # 4 s into the period: kept, full again
    assert (g.main[1], g.ot_left[1]) == (10_000, 3)
    assert g.log_entries()[-1] == (1, 2, 34_000, 10_000, 3)
    # While the left thinks (main time), the right's display alternates period and count.
    assert shown_over(clock, 4_000, 1) == {" 010", "by 3"}
    assert texts(clock)[0] in (" 036", " 035")  # the left's main time is never replaced
    clock.run_ms(5_000 - PRESS_MS - 4_000)
    clock.press("left")  # 5 s used: 35 s left
    period_ends_us = clock.vt.us - PRESS_MS * 1000 + 10_000_000
    clock.run_ms(10_500 - PRESS_MS)
    assert g.ot_left[1] == 2  # period 1 used up at its instant, period 2 started at once
    assert texts(clock)[1] == "by 2"
    assert sounded(clock, period_ends_us, period_ends_us + 100_000)
    clock.run_ms(2_500)
    clock.press("right")  # 3 s into period 2
    assert (g.main[1], g.ot_left[1]) == (10_000, 2)
    assert g.log_entries()[-1] == (1, 3, 13_000, 10_000, 2)

    tap(clock, "play")  # pause while the left thinks
    tap(clock, "plus")
    assert texts(clock) == ("n  2", "n  3")
    tap(clock, "plus")
    assert texts(clock) == ("by 3", "by 2")  # the left is still in main time
    long_set(clock)  # the arbiter menu: the right's periods are corrected to 3
    taps(clock, "set", 8)
    assert texts(clock) == ("Lby ", "   3")
    tap(clock, "set")
    assert texts(clock) == ("rby ", "   2")
    tap(clock, "plus")
    assert texts(clock) == ("rby ", "   3")
    tap(clock, "play")
    assert g.ot_left[1] == 3
    assert g.arbiter_log[-1][1:4] == (E.ACT_SET_OVERTIME, 1, 3)
    snap = flash_json(tmp_path, "game.json")["snap"]
    assert (snap[0], snap[24:26]) == (3, [3, 3])  # version 3: the us parts follow
    assert texts(clock) == (" 035", " 010")  # leaving the menu: the corrected times
    tap(clock, "plus")
    tap(clock, "plus")
    assert texts(clock) == ("by 3", "by 3")  # the second info page: both have 3 periods
    power_cycle(clock)  # power lost while paused in overtime: the saved game is offered
    assert texts(clock) == ("rE5 ", " yE5")
    tap(clock, "play")
    g = game(clock)  # the engine of the new boot, restored from the snapshot
    assert (g.state, g.ot_left[1], g.in_overtime(1), g.in_overtime(0)) == (
        E.PAUSED,
        3,
        True,
        False,
    )
    assert clock.displays() == ((" 035", True), (" 010", True))
    tap(clock, "play")  # resume
    clock.press("left")
    clock.run_ms(30_500)  # the right runs through its three periods
    assert (g.state, g.first_flag) == (E.FLAGGED, 1)
    assert g.flag_at[1] - g.turn_start == 30_000
    assert shown_over(clock, 1_000, 1) == {"FLAG", " 00 "}
    tap(clock, "set")  # the material entry, as in chess: PrQ is the loss on time
    assert texts(clock) == ("0PP ", "Prq ")
    tap(clock, "play")
    tap(clock, "play")
    log = flash_json(tmp_path, "games/g000.json")
    assert (log["result"], log["reason"]) == ("0-1", "flag")  # White (right) lost on time
    # Rows carry the overtime counter; the left's last move left it in main time (0). (The
    # log kept across the power cut is tested elsewhere: only the last row is checked here.)
    assert all(len(row) == 5 for row in log["moves"])
    assert log["moves"][-1][:2] == [0, 3] and log["moves"][-1][4] == 0


def test_canadian_block_completed_then_failed(clock, tmp_path):
    """No main time, 2 moves in 20 s from the editor: the right completes a block (a new
    full one, unused time lost), then fails the next; the counters show while clocks run
    and on the info page."""
    edit_overtime_control(clock, CANADIAN, "CAnA", 60)
    assert texts(clock) == ("ot  ", "CAnA")
    tap(clock, "set")
    assert texts(clock) == ("o n ", "  25")  # moves per block
    taps(clock, "minus", 23)
    tap(clock, "set")
    assert clock.displays() == (("to n", False), ("1000", True))  # block time, minutes
    taps(clock, "minus", 9)  # 1 min
    tap(clock, "set")
    taps(clock, "minus", 40)  # 20 s
    assert clock.displays() == (("to 5", False), (" 020", True))
    tap(clock, "play")
    assert clock.displays() == ((" 020", True), (" 020", True))
    saved = flash_json(tmp_path, "settings.json")["control"]
    assert saved == {"custom": {"mode": 4, "periods": [[0, 0, 0, 0]], "overtime": [2, 20]}}

    g = game(clock)
    clock.press("left")  # the right runs its first block
    assert shown_over(clock, 4_000, 1) == {" 020", "c  2", " 017", " 016"}  # 19, 18: count
    clock.run_ms(5_000 - PRESS_MS - 4_000)
    clock.press("right")  # one of two moves made in 5 s: 15 s left in the block
    assert (g.main[1], g.ot_left[1]) == (15_000, 1)
    assert shown_over(clock, 4_000, 1) == {" 015", "c  1"}
    clock.run_ms(5_000 - PRESS_MS - 4_000)
    clock.press("left")
    think(clock, 6_000)
    clock.press("right")  # the block is done: a new full block, 9 s not carried
    assert (g.main[1], g.ot_left[1]) == (20_000, 2)
    assert g.log_entries()[-1] == (1, 2, 6_000, 20_000, 2)
    think(clock, 1_000)
    clock.press("left")
    think(clock, 5_000)
    clock.press("right")
    think(clock, 1_000)
    clock.press("left")
    clock.run_ms(16_000)  # 15 s left in the block, one move still to make: the flag
    assert (g.state, g.first_flag, g.ot_left[1]) == (E.FLAGGED, 1, 1)
    assert g.flag_at[1] - g.turn_start == 15_000
    tap(clock, "plus")
    tap(clock, "plus")
    assert texts(clock) == ("c  1", "c  1")  # moves still to make in each block
