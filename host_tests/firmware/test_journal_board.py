"""The journal on the simulated board: the real firmware (main.py) plays, the power goes at
seeded instants of play, and the next power-up offers the game (`rES  YES`) as of its newest
journal record: both times exact to the us as of the last press, or with the move in
progress charged up to the last periodic record (appjournal.JOURNAL_MS), the counters, the
periods, the bonus state, the move log and the side to move."""

import random

import appjournal
import engine as E
import game_state
import journal
import pytest
from test_firmware_e2e import (
    BLITZ_5_3,
    FIDE,
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
G60_D5 = 10  # presets.py: US Chess G/60;d5 (a delay: the bonus state is in the snapshot)


def resumed(clock):
    """Power cycle, see the offer, accept it: the resumed (paused) game."""
    power_cycle(clock)
    assert texts(clock) == ("rE5 ", " yE5")
    tap(clock, "play")
    g = game(clock)
    assert g.state == E.PAUSED
    return g


def record_instant(g):
    """The instant (ms, us) a resumed game was recorded at, on the old power-up's clock:
    the start of the move in progress plus what of it the record charged; with the old
    game's turn start (ms, us)."""
    return g.paused_elapsed, g.paused_us


def slot_records(tmp_path):
    """The journal's state slots that hold a record (a slot made ready holds none)."""
    found = []
    for name in ("s0", "s1"):
        p = tmp_path / "journal.d" / name
        if p.exists() and journal.decode_state(p.read_bytes()) is not None:
            found.append(name)
    return found


def log_flat(g):
    return [v for row in g.log_rows(True) for v in row]


@pytest.mark.parametrize("seed", range(8))
def test_a_cut_at_a_seeded_instant_resumes_as_of_the_newest_record(tmp_path, seed):
    rng = random.Random(seed)
    clock = power_on(tmp_path)
    choose_preset(clock, (BLITZ_5_3, G60_D5)[seed % 2])
    clock.press("left")  # White's (right) clock starts
    for _ in range(rng.randrange(2, 14)):
        clock.run_ms(rng.choice((300, 1_200, 4_000, 12_500)) + rng.randrange(997) - PRESS_MS)
        clock.press(SIDES[game(clock).running])
    cut_after = rng.choice((0, 5, 3_000, 9_000, 10_500, 14_000, 23_000, 31_000))
    clock.run_ms(cut_after)  # the power goes this long after the press's wakeup
    old = game(clock)
    assert old.state == E.RUNNING
    since_ms = clock.mono_ms() - old.last_event  # since the last press, at the cut
    turn = (old.turn_start, old.turn_us)
    g = resumed(clock)
    charged_ms, charged_us = record_instant(g)
    # the record: the press itself within JOURNAL_MS, else a periodic one, at most
    # JOURNAL_MS + the display's 1 s step before the cut
    if since_ms < appjournal.JOURNAL_MS:
        assert (charged_ms, charged_us) == (0, 0)
    else:
        assert since_ms - appjournal.JOURNAL_MS - 1_000 <= charged_ms <= since_ms
    at_ms = turn[0] + charged_ms
    at_us = turn[1] + charged_us
    if at_us >= 1000:
        at_ms, at_us = at_ms + 1, at_us - 1000
    assert game_state.snapshot(g) == game_state.snapshot_at(
        old, at_ms, at_us
    )  # times to the us, counters...
    assert g.log_count == old.log_count
    assert log_flat(g) == log_flat(old)
    assert not slot_records(tmp_path)  # taken in


def test_a_cut_just_after_the_press_that_passes_the_time_control(tmp_path):
    """FIDE 90/40+30: the 40th move of each side grants the second period; a cut just
    after that press resumes in the second period, exact."""
    clock = power_on(tmp_path)
    choose_preset(clock, FIDE)
    clock.press("left")
    for _ in range(80):
        clock.run_ms(310 - PRESS_MS)
        clock.press(SIDES[game(clock).running])
    old = game(clock)
    assert list(old.period) == [1, 1]
    clock.run_ms(3)
    want = game_state.snapshot_at(old, old.last_event, old.last_us)
    g = resumed(clock)
    assert game_state.snapshot(g) == want
    assert list(g.period) == [1, 1] and list(g.moves) == [40, 40]
    assert log_flat(g) == log_flat(old)


def test_a_resumed_journal_game_plays_on_and_survives_a_second_cut(tmp_path):
    clock = power_on(tmp_path)
    choose_preset(clock, BLITZ_5_3)
    clock.press("left")
    for _ in range(7):
        clock.run_ms(1_500 - PRESS_MS)
        clock.press(SIDES[game(clock).running])
    g = resumed(clock)
    assert g.log_count == 7
    tap(clock, "play")  # resume: the side on move runs on
    for _ in range(5):
        clock.run_ms(2_000 - PRESS_MS)
        clock.press(SIDES[game(clock).running])
    old = game(clock)
    want = game_state.snapshot_at(old, old.last_event, old.last_us)
    g = resumed(clock)
    assert game_state.snapshot(g) == want
    assert g.log_count == 12 and log_flat(g) == log_flat(old)


def test_a_cut_after_a_flag_offers_the_fallen_flag(tmp_path):
    clock = power_on(tmp_path)
    choose_preset(clock, BLITZ_5_3)
    clock.press("left")
    clock.run_ms(2_000 - PRESS_MS)
    clock.press("right")
    clock.run_ms(310_000)  # the left's 5 min + 3 s run out: both clocks freeze
    assert game(clock).state == E.FLAGGED
    assert not slot_records(tmp_path)  # retired
    power_cycle(clock)
    assert texts(clock) == ("rE5 ", " yE5")
    tap(clock, "play")
    g = game(clock)
    assert (g.state, g.first_flag, g.log_count) == (E.FLAGGED, 0, 1)


def test_declining_the_journals_game_forgets_it(tmp_path):
    clock = power_on(tmp_path)
    clock.press("left")
    clock.run_ms(4_000)
    power_cycle(clock)
    assert texts(clock) == ("rE5 ", " yE5")
    tap(clock, "plus")
    tap(clock, "play")
    assert game(clock).state == E.READY
    clock.run_ms(appjournal.PREPARE_AFTER_MS + 100)
    # the declined game's records are gone; the ready game's head is written ahead, its
    # slots blank
    assert [f for f in files(tmp_path) if f.startswith("journal.d/")] == [
        "journal.d/h",
        "journal.d/s0",
        "journal.d/s1",
    ]
    assert not slot_records(tmp_path)
    assert "game.json" not in files(tmp_path)
    power_cycle(clock)
    assert game(clock).state == E.READY and clock.app.ui.screen == 0


def test_no_folder_the_firmware_makes_hides_a_module():
    """MicroPython imports a directory on sys.path ("" is the flash's root) as a package:
    a folder named like a firmware module would hide that module at the next boot."""
    import gamelog
    import journal_files

    from simboard.firmware import FIRMWARE

    modules = {p.stem for p in FIRMWARE.rglob("*.py")}
    for folder in (gamelog.GAMES_DIR, journal_files.DIR):
        assert folder not in modules, folder


def test_a_press_record_comes_in_its_wakeup_before_the_feed_and_the_first_writes_no_head(
    tmp_path,
):
    """The real firmware's loop: every press's wakeup (the first press's included) writes
    the press's record right after its LEDs and frames, before the live feed's lines, and
    the first press's record finds the head written at the ready screen."""
    clock = power_on(tmp_path)
    app = clock.app
    assert app.usb is not None
    order = []  # (wakeup, what)
    record, report = app.journal.record, app.usb.report
    start = app.journal.store.start
    started = []

    def spy_record(now, *args):
        if app.journal.press:
            order.append((app.wakeups, "record"))
        record(now, *args)

    def spy_report(now, g):
        order.append((app.wakeups, "feed"))
        report(now, g)

    def spy_start(*args):
        started.append(app.journal.store.ready is not None)
        start(*args)

    app.journal.record = spy_record
    app.usb.report = spy_report
    app.journal.store.start = spy_start
    choose_preset(clock, 2)
    clock.run_ms(500)
    assert app.journal.store.ready  # the head, written ahead
    for i in range(12):
        clock.press(SIDES[i % 2])
        clock.run_ms(900 + 97 * i)
    recorded = [w for w, what in order if what == "record"]
    assert len(recorded) == 12
    for w in recorded:
        assert (w, "feed") in order and order.index((w, "record")) < order.index((w, "feed"))
    assert started == [True]  # the first press found its head ready
    assert app.journal.store.seq >= 12
