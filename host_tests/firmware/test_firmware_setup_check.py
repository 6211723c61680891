"""The set-up check under draw odds end to end: the real firmware on the simulated board,
driven only through its pins (simboard/firmware.py), the displays decoded from the TM1637
traffic, the buzzer read from its PWM.

Both Armageddon presets set up right and wrong, swapped and not; a custom control with draw
odds built in the editor; a slap of both levers; a wrong press then the right one; buttons
meanwhile; power cuts at the prompt and with a paused swapped game. A refused first press
starts nothing, writes nothing and sounds the error tone; the displays say it until the
game starts or a button. Deterministic: virtual time, fixed presses. (The decoder reads
glyphs: `PrES` comes back as `PrE5`.)
"""

import pytest
from test_firmware_e2e import (
    PRESS_MS,
    both_levers,
    choose_preset,
    countdown,
    files,
    flash_json,
    game,
    power_cycle,
    power_on,
    sounded,
    tap,
    texts,
    think,
)

A54 = 19  # Armageddon 5 v 4: White 5:00 on the left, draw odds to Black
A107 = 20  # Armageddon 10 v 7
ARMAGEDDON = ((A54, " 500", " 400", 300_000), (A107, "1000", " 700", 600_000))
ERROR_HZ = 400  # buzzer.ERROR
BLITZ_5_0 = 7


@pytest.fixture
def clock(tmp_path):
    c = power_on(tmp_path)
    yield c
    assert not (tmp_path / "errors.log").exists(), (tmp_path / "errors.log").read_text()


def tones(clock, since_us):
    """The frequencies the buzzer started since `since_us` (virtual)."""
    trace = clock.app.board.buzzer._pwm.trace
    return {row[1] for row in trace if row[0] >= since_us and row[3]}


def refused(clock, since_us):
    """The first press since `since_us` was refused: nothing started, the error tone sounded."""
    g = game(clock)
    assert (g.state, g.log_count, g.white, g.running) == (0, 0, -1, -1)
    assert sounded(clock, since_us)
    assert ERROR_HZ in tones(clock, since_us)
    assert clock.leds() == (0, 0)


@pytest.mark.parametrize("index,white,black,white_ms", ARMAGEDDON)
def test_set_up_right_black_presses_and_whites_clock_runs(
    clock, tmp_path, index, white, black, white_ms
):
    choose_preset(clock, index)
    assert texts(clock) == (white, black)
    t = clock.vt.us
    clock.press("right")
    g = game(clock)
    assert (g.state, g.white, g.running) == (1, 0, 0)
    assert clock.leds() == (1, 0)
    assert not sounded(clock, t)  # a start has no sound
    think(clock, 10_000)
    clock.press("left")
    assert clock.display(0) == countdown(white_ms - 10_000)
    assert g.log_entries()[0][2] == 10_000


@pytest.mark.parametrize("index,white,black,white_ms", ARMAGEDDON)
def test_set_up_wrong_the_left_press_is_refused_until_play_swaps(
    clock, tmp_path, index, white, black, white_ms
):
    choose_preset(clock, index)
    clock.run_ms(1_000)  # the next game's journal made ready (appjournal.PREPARE_AFTER_MS)
    before = files(tmp_path)
    settings_before = (tmp_path / "settings.json").read_text()
    t = clock.vt.us
    clock.press("left")  # the player on the left presses first: White's side
    refused(clock, t)
    assert clock.displays() == ((white, True), ("bLAc", False))
    clock.run_ms(1_000)
    assert clock.displays() == ((white, True), ("PrE5", False))
    clock.run_ms(30_000)  # it stays: no timing out to a ready screen that looks right
    assert texts(clock)[1] in ("bLAc", "PrE5") and texts(clock)[0] == white
    assert files(tmp_path) == before  # nothing written
    assert (tmp_path / "settings.json").read_text() == settings_before
    # The player on the left is Black: the arbiter swaps the sides
    tap(clock, "play")
    assert texts(clock) == (black, white)
    assert flash_json(tmp_path, "settings.json")["control"] == {"preset": index, "swap": True}
    clock.press("left")  # Black (left) starts White's clock, now on the right
    g = game(clock)
    assert (g.state, g.white, g.running) == (1, 1, 1)
    assert clock.leds() == (0, 1)
    think(clock, 5_000)
    clock.press("right")
    assert clock.display(1) == countdown(white_ms - 5_000)


@pytest.mark.parametrize("index,white,black,white_ms", ARMAGEDDON)
def test_swapped_the_right_press_is_refused_and_the_left_starts(
    clock, index, white, black, white_ms
):
    choose_preset(clock, index)
    tap(clock, "play")  # swapped: White's time on the right
    assert texts(clock) == (black, white)
    t = clock.vt.us
    clock.press("right")
    refused(clock, t)
    assert clock.displays() == (("bLAc", False), (white, True))
    clock.run_ms(1_000)
    assert texts(clock) == ("PrE5", white)
    clock.press("left")  # Black: the game starts
    g = game(clock)
    assert (g.state, g.white, g.running) == (1, 1, 1)
    think(clock, 2_000)
    assert clock.display(0) == (black, True)  # Black's clock stands
    assert clock.display(1)[0] == countdown(white_ms - 2_000 + PRESS_MS)[0]  # (its colon beats)


def test_swap_toggled_twice_is_back_and_the_left_is_refused(clock, tmp_path):
    choose_preset(clock, A54)
    tap(clock, "play")
    tap(clock, "play")
    assert texts(clock) == (" 500", " 400")
    assert flash_json(tmp_path, "settings.json")["control"] == {"preset": A54}
    t = clock.vt.us
    clock.press("left")
    refused(clock, t)
    clock.press("right")
    assert (game(clock).state, game(clock).white) == (1, 0)


def test_a_custom_control_with_draw_odds_built_in_the_editor(clock, tmp_path):
    """Blitz 5+0 with a draw counted as White's win: the same times, the colours count."""
    choose_preset(clock, BLITZ_5_0)
    tap(clock, "set")
    tap(clock, "set")  # the editor
    for _ in range(6):
        tap(clock, "set")
    tap(clock, "plus")
    assert texts(clock) == ("1-2=", "1-0 ")
    tap(clock, "play")
    assert texts(clock) == (" 500", " 500")
    assert flash_json(tmp_path, "settings.json")["control"]["custom"]["draw_odds"] == 1
    t = clock.vt.us
    clock.press("left")
    refused(clock, t)
    assert texts(clock) == (" 500", "bLAc")
    tap(clock, "play")  # White to the right: the displays look the same
    assert texts(clock) == (" 500", " 500")
    assert flash_json(tmp_path, "settings.json")["control"]["swap"] is True
    t = clock.vt.us
    clock.press("right")
    refused(clock, t)
    assert texts(clock) == ("bLAc", " 500")
    clock.press("left")
    assert (game(clock).state, game(clock).white) == (1, 1)


def test_time_odds_without_draw_odds_start_from_either_side(clock, tmp_path):
    """The editor: Blitz 5+0, time odds on, the right 4:00, no draw odds."""
    choose_preset(clock, BLITZ_5_0)
    tap(clock, "set")
    tap(clock, "set")  # the editor
    for _ in range(7):
        tap(clock, "set")
    tap(clock, "plus")
    assert texts(clock) == ("0dd5", " yE5")
    tap(clock, "set")
    tap(clock, "minus")
    tap(clock, "play")
    assert texts(clock) == (" 500", " 400")
    t = clock.vt.us
    clock.press("left")  # the left's player is Black: White (right) has 4:00, as set
    g = game(clock)
    assert (g.state, g.white, g.running) == (1, 1, 1)
    assert ERROR_HZ not in tones(clock, t)


def test_a_slap_of_both_levers_at_the_start_is_refused(clock, tmp_path):
    choose_preset(clock, A107)
    t = clock.vt.us
    both_levers(clock)  # an exact tie resolves left first: White's side, refused
    refused(clock, t)
    assert texts(clock) == ("1000", "bLAc")
    clock.run_ms(500)
    clock.press("right")  # Black, deliberately
    g = game(clock)
    assert (g.state, g.white) == (1, 0)


def test_a_wrong_press_then_at_once_the_right_one(clock):
    choose_preset(clock, A54)
    clock.press("left")
    clock.press("right")  # 140 ms after the refused press
    g = game(clock)
    assert (g.state, g.white, g.running) == (1, 0, 0)
    think(clock, 3_000)
    clock.press("left")
    assert g.log_entries()[0][2] == 3_000  # timed from Black's press, the refused one aside
    assert clock.display(0) == countdown(297_000)


def test_buttons_meanwhile_end_the_prompt_and_do_their_job(clock, tmp_path):
    choose_preset(clock, A54)
    clock.press("left")
    assert texts(clock)[1] == "bLAc"
    tap(clock, "plus")  # the info page (battery), as on any ready screen
    assert texts(clock)[0].startswith("b")
    tap(clock, "minus")
    assert texts(clock) == (" 500", " 400")  # the prompt has ended
    clock.run_ms(3_000)
    assert texts(clock) == (" 500", " 400")
    clock.press("left")  # refused again: the prompt again
    assert texts(clock) == (" 500", "bLAc")
    tap(clock, "set")  # the chooser, on the preset
    assert texts(clock) == ("A5-4", " 500")
    tap(clock, "play")
    assert texts(clock) == (" 500", " 400")
    assert game(clock).state == 0


def test_a_power_cut_at_the_prompt_comes_back_ready_with_the_same_rule(clock, tmp_path):
    choose_preset(clock, A54)
    tap(clock, "play")  # swapped
    clock.press("right")
    assert texts(clock) == ("bLAc", " 500")
    power_cycle(clock)
    assert texts(clock) == (" 400", " 500")  # ready, the swap kept, nothing to resume
    assert not (tmp_path / "game.json").exists()
    t = clock.vt.us
    clock.press("right")
    refused(clock, t)
    clock.press("left")
    assert (game(clock).state, game(clock).white) == (1, 1)


def test_a_paused_swapped_game_resumes_and_a_new_game_keeps_the_rule(clock, tmp_path):
    choose_preset(clock, A107)
    tap(clock, "play")  # swapped: White's 10:00 on the right
    clock.press("right")  # refused
    clock.press("left")  # Black starts
    think(clock, 20_000)
    clock.press("right")  # White's first move
    think(clock, 4_000)
    tap(clock, "play")  # paused on Black's move: saved
    before = clock.displays()
    power_cycle(clock)
    assert texts(clock) == ("rE5 ", " yE5")
    tap(clock, "play")  # yes: the game as it was, no check (it has started)
    assert clock.displays() == before
    g = game(clock)
    assert (g.state, g.white, g.running, g.refusals()) == (2, 1, 0, 0)
    tap(clock, "play")  # resume
    think(clock, 1_000)
    clock.press("left")  # Black's move
    assert g.moves[0] == 1 and g.state == 1
    # Paused again, the power cut, and the arbiter says no: a new game, the same way round
    think(clock, 1_000)
    tap(clock, "play")
    power_cycle(clock)
    tap(clock, "minus")
    tap(clock, "play")
    assert texts(clock) == (" 700", "1000")
    t = clock.vt.us
    clock.press("right")
    refused(clock, t)
    clock.press("left")
    assert (game(clock).state, game(clock).white) == (1, 1)
