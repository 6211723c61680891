"""The journal on the simulated board: the real firmware (main.py) plays, the power goes at
seeded instants of play, and the next power-up offers the game (`rES  YES`) as of its newest
journal record: both times exact to the us as of the last press, or with the move in
progress charged up to the last periodic record (app.JOURNAL_MS), the counters, the move
log and the side to move."""

import random

from test_firmware_e2e import (
    BLITZ_5_3,
    PRESS_MS,
    choose_preset,
    files,
    game,
    power_cycle,
    power_on,
    tap,
    texts,
)

SIDES = ("left", "right")


def exact(g):
    """Both sides' exact times (ms, us) as a paused game holds them, and what else the
    resume must give back."""
    return (
        g.remaining_exact(0, g.last_event, g.last_us),
        g.remaining_exact(1, g.last_event, g.last_us),
        tuple(g.moves),
        tuple(g.period),
        g.running,
        g.white,
        g.log_count,
        g.log_entries(),
    )


def test_a_cut_just_after_a_press_resumes_exact_as_of_that_press(tmp_path):
    clock = power_on(tmp_path)
    choose_preset(clock, BLITZ_5_3)
    clock.press("left")  # White's (right) clock starts
    rng = random.Random(5)
    for _ in range(9):
        clock.run_ms(rng.randrange(300, 4_000) - PRESS_MS)
        clock.press(SIDES[game(clock).running])
    g = game(clock)
    want = exact(g)
    assert "journal/s1" in files(tmp_path) or "journal/s0" in files(tmp_path)
    power_cycle(clock)
    assert texts(clock) == ("rE5 ", " yE5")
    tap(clock, "play")
    g = game(clock)
    assert g.state == 2
    assert exact(g)[:7] == want[:7]
    assert g.log_entries() == want[7]
