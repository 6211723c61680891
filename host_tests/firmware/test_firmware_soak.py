"""Soak: a long game on the simulated board, with the Python heap of the firmware watched.

The real firmware (main.py on the fake machine, virtual time) plays 300 moves a side with a
custom control that keeps both clocks above one hour, so the displays change once a minute
and the host spends its time in the firmware's loop, not in the TM1637 model. tracemalloc
counts only memory allocated by firmware/ code and still alive: between move 50 and move 300
it must not grow (the move log is a preallocated ring, the loop allocates nothing that
stays), apart from the int objects of a few counters (see the end of play()).

The default run plays the 600 half-moves at 5 s on average (50 min of game, about 15 s on the
host under tracemalloc); the full 10-hour game (60 s a move, a few minutes on the host) is
marked `slow` and runs only when selected with `pytest -m slow` (or RUN_SLOW=1 is set).
"""

import json
import os
import random
import tracemalloc
from pathlib import Path

import machine
import pytest
import settings

from simboard.firmware import SimulatedClock

FIRMWARE = str(Path(__file__).resolve().parents[2] / "firmware")
MOVES = 300  # per side
PRESS_MS = 140  # clock.press(): 80 ms held, 60 ms after
# 10 h for 40 moves, then 1 h, 30 s increment: both clocks stay above one hour throughout.
CONTROL = {"custom": {"mode": 0, "periods": [[36_000, 40, 1, 30], [3_600, 0, 1, 30]]}}


def hours(ms):
    """A countdown display from one hour up (timefmt.py legend): HhMM, or HHhM from 10 h,
    rounded up to the minute or to ten minutes."""
    if ms >= 10 * 3_600_000:
        return "%dh%d" % divmod(-(-ms // 600_000), 6)
    return "%dh%02d" % divmod(-(-ms // 60_000), 60)


def firmware_heap(snapshot):
    """The snapshot's memory still allocated by lines of firmware/ code."""
    return snapshot.filter_traces([tracemalloc.Filter(True, FIRMWARE + os.sep + "*")])


def play(tmp_path, mean_think_ms):
    saved = settings.defaults()
    saved["control"] = CONTROL
    (tmp_path / "settings.json").write_text(json.dumps(saved))
    rng = random.Random(300)
    tracemalloc.start()
    try:
        clock = SimulatedClock(tmp_path)
        machine.set_adc_volts(3, 4.2 / 3)
        clock.run_ms(500)
        assert clock.displays() == (("10h0", False), ("10h0", False))
        clock.press("left")  # White (right) starts
        expected = [36_000_000, 36_000_000]
        side = 1
        heap_at_50 = None
        for half in range(2 * MOVES):
            used = rng.randrange(1_000, 2 * mean_think_ms - 1_000)
            clock.run_ms(used - PRESS_MS)
            clock.press(("left", "right")[side])
            move_no = half // 2 + 1
            expected[side] += 30_000 - used
            if move_no == 40:
                expected[side] += 3_600_000
            if half == 99:
                heap_at_50 = firmware_heap(tracemalloc.take_snapshot())
            side = 1 - side
        heap_at_300 = firmware_heap(tracemalloc.take_snapshot())
    finally:
        tracemalloc.stop()
    g = clock.app.ui.game
    assert (g.moves[0], g.moves[1], g.log_count) == (MOVES, MOVES, 2 * MOVES)
    assert list(g.main) == expected
    for s in (0, 1):
        assert clock.display(s) == (hours(expected[s]), False)
    assert g.log_entries()[-1][3] == expected[0]
    assert machine.resets == [] and clock.app.errors == 0
    assert not (tmp_path / "errors.log").exists()
    # Counters (the move log's count, each display's frame count, the feed's sequence number,
    # moves and lines sent, the journal's sequence number and rows) hold one int object each,
    # and so does each slot of the feed's two lists (feed.py: the last line's 16 values, the
    # kept state line's 17); CPython shares ints up to 256 and allocates larger ones, so a
    # counter or a slot that passed 256 after move 50 shows as one new 32-byte object on its
    # line (the feed's sequence number, kept in both lists too: three). That is all that may
    # grow (MicroPython keeps them all in small ints: nothing).
    grown = [d for d in heap_at_300.compare_to(heap_at_50, "lineno") if d.size_diff > 0]
    assert all(d.count_diff <= 3 and d.size_diff <= 96 for d in grown), grown
    assert sum(d.size_diff for d in grown) <= 256 + (16 + 17) * 32, grown


def test_soak_600_half_moves(tmp_path):
    play(tmp_path, 5_000)


@pytest.mark.slow
def test_soak_ten_hour_game(tmp_path, request):
    """Runs when selected (`pytest -m slow`) or with RUN_SLOW=1; skipped in `make test`."""
    if "slow" not in (request.config.getoption("markexpr") or "") and not os.environ.get(
        "RUN_SLOW"
    ):
        pytest.skip("10-hour game (minutes on the host): select it with -m slow")
    play(tmp_path, 60_000)
