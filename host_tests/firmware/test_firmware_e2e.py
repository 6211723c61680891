"""The whole firmware, started from main.py, driven only through pins, TM1637 traffic decoded.

Every test runs the real firmware on the simulated board (simboard/firmware.py) in virtual
time, starting 3 s before the ticks_us wrap. Assertions go to what a player or arbiter can
see (the two displays, the LEDs) and to the files in the flash folder; the live engine
(`clock.app.ui.game`) is read only for what no display shows to the millisecond.

Timing of the helpers: `clock.press(name)` holds for 80 ms and then runs 60 ms more
(PRESS_MS in all); the lever press counts at its first edge. So `think(clock, ms)` followed by
a press makes the moves exactly `ms` apart, edge to edge.
"""

import json
import math
import random

import machine
import pytest

from simboard.firmware import LEVER, SimulatedClock

PRESS_MS = 140  # what clock.press() takes in virtual time: 80 ms held, 60 ms after
SETTLE_MS = 100  # a button acts 30-40 ms after release, the displays follow within 50 ms
LONG_MS = 2_300  # a SET long press (the buttons fire LONG at 2 s)
BATTERY_ADC = 3  # ADC3 reads VSYS / 3
SIDE = ("left", "right")

# Preset indexes (firmware/core/presets.py)
FIDE = 0
BLITZ_5_3 = 5
BLITZ_5_0 = 7
BULLET_1_0 = 8
G60 = 14


def power_on(tmp_path):
    """A clock with fresh batteries (4.2 V: no "bAt Lo" warning), booted for 500 ms."""
    c = SimulatedClock(tmp_path)
    machine.set_adc_volts(BATTERY_ADC, 4.2 / 3)
    c.run_ms(500)
    return c


def power_cycle(c, off_ms=1_000):
    c.power_cycle(off_ms)
    machine.set_adc_volts(BATTERY_ADC, 4.2 / 3)
    c.run_ms(500)


@pytest.fixture
def clock(tmp_path):
    c = power_on(tmp_path)
    yield c
    # No step of the loop raised (the shell logs every exception to errors.log).
    assert not (tmp_path / "errors.log").exists(), (tmp_path / "errors.log").read_text()


# ------------------------------------------------------------------ helpers
def countdown(ms):
    """What a countdown display shows for `ms` left (>= 10 s), from the timefmt.py legend
    written out independently: HhMM from one hour (minutes rounded up), else MM:SS (seconds
    rounded up, blank leading zero). Returns (text, colon): the four digits, colon apart."""
    s = math.ceil(ms / 1000)
    assert s >= 10, "the tenths layout is not modelled here"
    if s >= 3600:
        h, m = divmod(math.ceil(ms / 60_000), 60)
        return "%dh%02d" % (h, m), False
    return "%2d%02d" % divmod(s, 60), True


def texts(clock):
    return clock.display(0)[0], clock.display(1)[0]


def think(clock, ms):
    """Let `ms` pass since the last press's edge (the last action must be a press)."""
    clock.run_ms(ms - PRESS_MS)


def tap(clock, name, hold_ms=80):
    """Press and release a button, then wait until the displays show its effect."""
    clock.press(name, hold_ms)
    clock.run_ms(SETTLE_MS)


def long_set(clock):
    tap(clock, "set", LONG_MS)


def choose_preset(clock, index):
    """Ready screen: SET short, PLUS up to `index` (from preset 0), PLAY."""
    tap(clock, "set")
    for _ in range(index):
        tap(clock, "plus")
    tap(clock, "play")


def flash_json(tmp_path, name):
    return json.loads((tmp_path / name).read_text())


def game(clock):
    return clock.app.ui.game


def sounded(clock, since_us, until_us=None):
    """True if the buzzer's PWM started a sound within [since_us, until_us) of virtual
    time (the buzzer cannot be seen: read the PWM's recorded output)."""
    trace = clock.app.board.buzzer._pwm.trace
    end = until_us if until_us is not None else clock.vt.us + 1
    return any(row[3] for row in trace if since_us <= row[0] < end)


def shown_over(clock, ms, side, step_ms=50):
    """The set of texts display `side` shows over the next `ms` (sampled)."""
    seen = set()
    for _ in range(ms // step_ms):
        clock.run_ms(step_ms)
        seen.add(clock.display(side)[0])
    return seen


def files(tmp_path):
    return sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())


# ------------------------------------------------------------------ boot
def test_boots_to_the_default_preset(clock):
    assert clock.displays() == (("1h30", False), ("1h30", False))
    assert clock.leds() == (0, 0)


def test_a_first_move(clock):
    clock.press("left")  # Black starts White's clock
    clock.run_ms(5_000)
    assert clock.leds() == (0, 1)
    clock.press("right")
    assert clock.leds() == (1, 0)
    assert game(clock).moves[1] == 1


# ------------------------------------------------------------ full games
def test_fide_classical_game_grants_the_second_period_after_move_40(clock):
    """Preset 0: 90 min for 40 moves, then 30 min, 30 s increment from move 1. 42 moves
    each at varied, realistic intervals; after each move the mover's display and exact time
    follow from the intervals alone, and the 30 minutes arrive with White's and Black's
    40th move, not before."""
    rng = random.Random(1940)
    clock.press("left")  # Black (left) starts White's clock (right)
    expected = [5_400_000, 5_400_000]
    side = 1
    for half in range(84):
        used = rng.randrange(2_000, 60_000)
        think(clock, used)
        clock.press(SIDE[side])
        move_no = half // 2 + 1
        expected[side] += 30_000 - used
        if move_no == 40:
            expected[side] += 1_800_000
        assert game(clock).main[side] == expected[side], (half, side)
        assert game(clock).period[side] == (1 if move_no >= 40 else 0)
        assert clock.display(side) == countdown(expected[side]), (half, side)
        assert clock.leds() == ((1, 0) if side == 1 else (0, 1))
        side = 1 - side
    # The clock is back on White (right). Pause and read the info pages.
    tap(clock, "play")
    assert clock.display(0) == countdown(expected[0])
    tap(clock, "plus")
    assert texts(clock) == ("n 42", "n 42")
    tap(clock, "plus")
    assert texts(clock) == ("P  2", "P -2")  # "-": White (right) passed the control first
    tap(clock, "minus")
    tap(clock, "minus")
    assert clock.displays() == (countdown(expected[0]), countdown(expected[1]))


def test_twenty_minute_move_across_the_ticks_wrap_is_exact(clock):
    """One move of 20 min spans more than one full 2**30 us wrap of ticks_us (17.9 min);
    the remaining time is right to the second on the display and to the ms in the log."""
    choose_preset(clock, G60)
    assert texts(clock) == ("1h00", "1h00")
    clock.press("left")  # White = right runs
    start_us = clock.vt.us
    think(clock, 20 * 60_000 + 1_500)
    assert clock.vt.us - start_us > 2**30 + 100_000_000
    clock.press("right")
    assert clock.display(1) == ("3959", True)  # 2398.5 s, rounded up
    assert game(clock).main[1] == 3_600_000 - 1_201_500
    assert game(clock).log_entries()[-1] == (1, 1, 1_201_500, 2_398_500)
    think(clock, 30_000)
    clock.press("left")
    assert clock.display(0) == countdown(3_570_000)
    assert texts(clock)[1] == "3959"  # runs again, its colon beating


# ---------------------------------------------------------------- levers
def test_lever_bounce_is_one_press_stamped_at_the_first_edge(clock):
    start_us = clock.vt.us
    clock.press("left")  # right runs
    clock.run_ms(10_000)
    pin = LEVER["right"]
    first_edge_us = clock.vt.us
    for _ in range(4):  # a bouncing contact: edges 1-2 ms apart
        machine.press(pin)
        clock.run_ms(1)
        machine.release(pin)
        clock.run_ms(2)
    machine.press(pin)
    clock.run_ms(80)
    for _ in range(3):  # it bounces on release too
        machine.release(pin)
        clock.run_ms(1)
        machine.press(pin)
        clock.run_ms(1)
    machine.release(pin)
    clock.run_ms(100)
    g = game(clock)
    assert g.log_count == 1 and g.moves[1] == 1 and g.running == 0
    used = g.log_entries()[0][2]
    assert used == (first_edge_us - start_us) // 1000 == 10_000 + PRESS_MS
    assert clock.leds() == (1, 0)
    # The lever re-armed: the next real press of the right lever (later, on its move) counts.
    clock.run_ms(3_000)
    clock.press("left")
    clock.run_ms(3_000)
    clock.press("right")
    assert g.moves[1] == 2 and g.log_count == 3


def both_levers(clock, hold_ms=80):
    """Both levers go down in the same microsecond (one hand on each, or a slap)."""
    machine.press(LEVER["left"])
    machine.press(LEVER["right"])
    clock.run_ms(hold_ms)
    machine.release(LEVER["left"])
    machine.release(LEVER["right"])
    clock.run_ms(60)


def test_both_levers_at_once_while_running_complete_one_move(clock):
    clock.press("left")  # right (White) runs
    think(clock, 7_000)
    both_levers(clock)
    g = game(clock)
    assert (g.moves[0], g.moves[1], g.running) == (0, 1, 0)
    assert clock.leds() == (1, 0)
    clock.run_ms(5_000)
    both_levers(clock)
    assert (g.moves[0], g.moves[1], g.running) == (1, 1, 1)
    assert clock.leds() == (0, 1)
    assert [e[2] for e in g.log_entries()] == [7_000, 5_000 + PRESS_MS]


def test_both_levers_at_once_before_the_start_only_start_the_game(clock):
    both_levers(clock)  # the left press comes first on an exact tie: White is right
    g = game(clock)
    assert (g.log_count, g.running, g.white) == (0, 1, 1)
    clock.run_ms(2_000)
    assert clock.display(1)[0] == "1h30" and clock.display(0) == ("1h30", False)
    assert clock.leds() == (0, 1)


def test_second_lever_a_few_ms_after_the_first_is_not_a_move(clock):
    """A slap: the player on move presses, the opponent's lever follows 5 ms later."""
    clock.press("left")  # right runs
    think(clock, 4_000)
    machine.press(LEVER["right"])
    clock.run_ms(5)
    machine.press(LEVER["left"])
    clock.run_ms(80)
    machine.release(LEVER["right"])
    machine.release(LEVER["left"])
    clock.run_ms(60)
    g = game(clock)
    assert (g.moves[0], g.moves[1], g.running) == (0, 1, 0)
    # A real reply, a human interval later, counts.
    clock.run_ms(1_000)
    clock.press("left")
    assert (g.moves[0], g.moves[1], g.running) == (1, 1, 1)


# ------------------------------------------------------------- buttons
def test_buttons_mashed_during_a_running_game_change_nothing(clock, tmp_path):
    t0 = clock.vt.us
    clock.press("left")  # right runs
    settings = dict(clock.app.ui.settings)
    for name in ("set", "minus", "plus", "set", "minus", "plus"):
        tap(clock, name)
    long_set(clock)
    tap(clock, "plus", 1_500)  # held: auto-repeat
    tap(clock, "minus", 1_500)
    machine.press(10 + 1)  # SET and PLUS together
    machine.press(10 + 3)
    clock.run_ms(2_500)
    machine.release(10 + 1)
    machine.release(10 + 3)
    clock.run_ms(200)
    g = game(clock)
    assert (g.state, g.running, g.moves[0], g.moves[1]) == (1, 1, 0, 0)
    assert clock.app.ui.screen == 0 and clock.app.ui.settings == settings
    # nothing but the running game's journal is written (no settings, no game.json)
    assert [f for f in files(tmp_path) if not f.startswith("journal.d/")] == []
    assert clock.leds() == (0, 1)
    clock.run_ms(5_000)
    used = (clock.vt.us - t0) // 1000
    clock.press("right")  # the levers still work, and the move took all that time
    assert g.log_entries() == [(1, 1, used, 5_400_000 - used + 30_000)]
    assert clock.leds() == (1, 0)


# --------------------------------------------------------------- menus
def test_preset_choice(clock, tmp_path):
    tap(clock, "set")
    assert clock.displays() == (("FIdE", False), ("1h30", False))
    tap(clock, "minus")  # wraps round to the custom entry
    assert texts(clock) == ("CU5t", "    ")
    tap(clock, "plus")
    tap(clock, "plus")
    assert clock.displays() == (("9030", False), ("1h30", False))
    for _ in range(BULLET_1_0 - 1):
        tap(clock, "plus")
    assert clock.displays() == ((" 1 0", False), (" 100", True))
    tap(clock, "play")
    assert clock.displays() == ((" 100", True), (" 100", True))
    assert flash_json(tmp_path, "settings.json")["control"] == {"preset": BULLET_1_0}
    # The chooser opens on the current preset; SET long cancels (nothing chosen), SET short
    # edits the preset shown.
    tap(clock, "set")
    assert texts(clock)[0] == " 1 0"
    tap(clock, "plus")
    long_set(clock)
    assert clock.displays() == ((" 100", True), (" 100", True))
    tap(clock, "set")
    tap(clock, "plus")
    tap(clock, "play")
    assert clock.displays() == (countdown(5_400_000), countdown(5_400_000))  # US G/90;d5
    assert flash_json(tmp_path, "settings.json")["control"] == {"preset": BULLET_1_0 + 1}


def test_custom_editor(clock, tmp_path):
    choose_preset(clock, BLITZ_5_3)
    tap(clock, "set")
    tap(clock, "set")  # the editor starts from the preset shown: 5 min, sudden death, +3 s
    assert clock.displays() == (("t1 n", False), (" 500", True))
    tap(clock, "plus")  # +1 min
    assert texts(clock) == ("t1 n", " 600")
    tap(clock, "set")
    assert texts(clock) == ("t1 5", " 600")
    for _ in range(5):
        tap(clock, "plus")  # +1 s
    assert texts(clock) == ("t1 5", " 605")
    tap(clock, "set")
    assert texts(clock) == ("1 n ", "  5d")  # moves: sudden death
    tap(clock, "set")
    assert texts(clock) == ("1 b ", "Inc ")
    tap(clock, "plus")
    assert texts(clock) == ("1 b ", "br  ")  # Bronstein
    tap(clock, "set")
    assert texts(clock) == ("b1 5", "   3")
    tap(clock, "plus")
    tap(clock, "plus")
    assert texts(clock) == ("b1 5", "   5")
    tap(clock, "play")
    assert clock.displays() == ((" 605", True), (" 605", True))
    saved = flash_json(tmp_path, "settings.json")["control"]
    assert saved == {"custom": {"mode": 0, "periods": [[365, 0, 2, 5]]}}
    # Bronstein 5 s: a 2 s move gets its 2 s back, a 9 s move gets 5 s.
    clock.press("left")
    think(clock, 2_000)
    clock.press("right")
    assert clock.display(1) == (" 605", True)
    think(clock, 9_000)
    clock.press("left")
    assert clock.display(0) == (" 601", True)
    # It survives a power cycle: the running game's journal is offered; declined, a fresh
    # game of the custom control.
    power_cycle(clock)
    assert texts(clock) == ("rE5 ", " yE5")
    tap(clock, "plus")
    tap(clock, "play")
    assert clock.displays() == ((" 605", True), (" 605", True))
    # the declined journal is gone: the new game's is made ready, its slots blank
    import journal

    for name in ("s0", "s1"):
        slot = tmp_path / "journal.d" / name
        assert not slot.exists() or journal.decode_state(slot.read_bytes()) is None


def test_settings_menu_saves_and_survives_a_power_cycle(clock, tmp_path):
    long_set(clock)
    assert texts(clock) == ("5nd ", " on ")
    tap(clock, "plus")
    assert texts(clock) == ("5nd ", " oFF")
    for label in ("FrEE", "Inc ", "PEr ", "rULE", "brIt"):
        tap(clock, "set")
        assert texts(clock)[0] == label
    assert texts(clock)[1] == "   2"  # the default
    tap(clock, "plus")
    assert texts(clock) == ("brIt", "   3")
    assert clock.chips[0].brightness == 3 and clock.chips[1].brightness == 3  # at once
    tap(clock, "play")
    assert clock.displays() == (("1h30", False), ("1h30", False))
    saved = flash_json(tmp_path, "settings.json")
    assert saved["sound"] is False and saved["brightness"] == 3
    power_cycle(clock)
    assert clock.displays() == (("1h30", False), ("1h30", False))
    assert clock.chips[0].brightness == 3 and clock.chips[1].brightness == 3
    long_set(clock)
    assert texts(clock) == ("5nd ", " oFF")
    tap(clock, "play")
    # Sound off: a flag falls in silence.
    choose_preset(clock, BULLET_1_0)
    t0 = clock.vt.us
    clock.press("left")
    clock.run_ms(62_000)
    assert game(clock).state == 3
    assert not sounded(clock, t0)


def test_sound_on_by_default_the_flag_beeps(clock):
    choose_preset(clock, BULLET_1_0)
    t0 = clock.vt.us
    clock.press("left")
    clock.run_ms(62_000)
    assert not sounded(clock, t0, t0 + 49_900_000)
    assert sounded(clock, t0 + 49_900_000, t0 + 50_100_000)  # 10 s left: low-time warning
    assert not sounded(clock, t0 + 50_500_000, t0 + 54_900_000)
    assert sounded(clock, t0 + 55_000_000, t0 + 59_900_000)  # each of the last 5 s
    assert sounded(clock, t0 + 60_000_000)  # the flag


# ------------------------------------------------------------- arbiter
def test_arbiter_corrects_times_while_paused(clock, tmp_path):
    choose_preset(clock, BLITZ_5_3)
    clock.press("left")  # right (White) runs
    think(clock, 20_000)
    clock.press("right")  # 300 - 20 + 3 s
    assert clock.display(1) == (" 443", True)
    think(clock, 10_000)
    tap(clock, "play")  # pause on the left's move
    g = game(clock)
    left = g.remaining(0, 0)  # paused: the time does not matter
    assert g.state == 2 and 289_000 < left < 290_000
    assert clock.display(0) == countdown(left)
    assert flash_json(tmp_path, "game.json")["snap"]  # a pause saves the game
    long_set(clock)
    assert clock.displays() == (("Lt n", False), countdown(left))
    tap(clock, "plus")  # +1 min
    assert clock.display(1) == countdown(left + 60_000)
    tap(clock, "set")
    assert texts(clock)[0] == "Lt 5"
    for _ in range(3):
        tap(clock, "minus")  # -1 s each
    assert clock.display(1) == countdown(left + 57_000)
    tap(clock, "set")
    assert clock.displays() == (("rt n", False), (" 443", True))
    tap(clock, "plus")
    tap(clock, "set")
    assert texts(clock) == ("rt 5", " 543")
    tap(clock, "set")
    assert texts(clock) == ("L  n", "   0")  # the left player's completed moves
    tap(clock, "play")  # apply and leave
    assert clock.displays() == (countdown(left + 57_000), (" 543", True))
    assert (g.state, g.running) == (2, 0)
    assert [a[1:4] for a in g.arbiter_log[-2:]] == [(3, 0, left + 57_000), (3, 1, 343_000)]
    saved = flash_json(tmp_path, "game.json")["snap"]
    # main times at the start of the move, less the part of the left's move already played
    assert [saved[12] - saved[4], saved[13]] == [left + 57_000, 343_000]
    tap(clock, "play")  # resume: the left clock runs on from the corrected time
    think(clock, 5_000)
    clock.press("left")
    # 5 s of thinking after the resume (less the part of the tap after the button acted)
    after = left + 57_000 - 5_000 + 3_000
    assert after < g.main[0] < after + SETTLE_MS + PRESS_MS
    assert clock.display(0) == countdown(g.main[0])


def open_arbiter_item(clock, index):
    """Paused game: SET long opens the arbiter menu, SET short `index` times."""
    long_set(clock)
    for _ in range(index):
        tap(clock, "set")


def test_appendix_g4_through_the_menu(clock, tmp_path):
    """Blitz 5+0: White (right) is down to 1:50 on move, asks for a 5 s increment (G.4);
    Black gets 2 extra minutes, and from then on every move earns 5 s."""
    choose_preset(clock, BLITZ_5_0)
    clock.press("left")
    think(clock, 190_000)
    tap(clock, "play")
    g = game(clock)
    right = g.remaining(1, 0)
    assert 109_000 < right < 110_000
    open_arbiter_item(clock, 10)
    assert texts(clock) == ("G4  ", "Inc ")
    tap(clock, "plus")
    assert texts(clock) == ("G4  ", "dLy ")
    tap(clock, "minus")
    tap(clock, "play")
    assert texts(clock) == ("G4  ", "donE")
    clock.run_ms(2_000)
    assert texts(clock) == ("G4  ", "Inc ")  # back in the menu after the message
    tap(clock, "play")  # a second request is refused
    assert texts(clock) == ("G4  ", " no ")
    clock.run_ms(2_000)
    long_set(clock)  # leave
    assert clock.displays() == ((" 700", True), countdown(right))  # 5 min + 2 min
    assert flash_json(tmp_path, "game.json")["snap"][7:10] == [1, 5_000, 1]  # Fischer 5 s
    tap(clock, "play")
    think(clock, 3_000)
    clock.press("right")
    used = g.log_entries()[-1][2]
    assert 3_000 - SETTLE_MS - PRESS_MS < used < 3_000
    assert g.main[1] == right - used + 5_000
    assert clock.display(1) == countdown(right - used + 5_000)
    think(clock, 4_000)
    clock.press("left")
    assert clock.display(0) == countdown(420_000 - 4_000 + 5_000)


def test_appendix_g4_is_refused_with_an_increment(clock):
    choose_preset(clock, BLITZ_5_3)
    clock.press("left")
    think(clock, 200_000)
    tap(clock, "play")
    before = clock.displays()
    open_arbiter_item(clock, 10)
    tap(clock, "play")
    assert texts(clock) == ("G4  ", " no ")
    clock.run_ms(2_000)
    tap(clock, "play")  # on the G4 item PLAY only ever applies G.4: still refused
    clock.run_ms(2_000)
    long_set(clock)
    assert clock.displays() == before
    assert not game(clock).g4_applied


def let_right_flag(clock):
    """Bullet 1+0: two moves, then White (right) lets its flag fall."""
    choose_preset(clock, BULLET_1_0)
    clock.press("left")
    think(clock, 2_000)
    clock.press("right")
    think(clock, 3_000)
    clock.press("left")
    clock.run_ms(58_500)


def test_flag_then_material_entry_then_result_and_game_log(clock, tmp_path):
    let_right_flag(clock)
    g = game(clock)
    assert (g.state, g.first_flag) == (3, 1)
    assert shown_over(clock, 2_000, 1) == {"FLAG", " 00 "}  # blinking with 0:0
    assert shown_over(clock, 1_000, 0) == {" 057"}  # 60 - 3 s, frozen
    assert clock.leds() == (0, 1)
    tap(clock, "set")  # material entry: what is left to the opponent (left)?
    assert texts(clock) == ("0PP ", "Prq ")
    tap(clock, "play")  # a pawn, rook or queen: the flag loses
    assert texts(clock) == ("  1 ", "  0 ")
    assert "games" not in files(tmp_path)
    tap(clock, "play")  # confirm
    assert g.state == 4
    assert shown_over(clock, 4_000, 0) == {"  1 ", " 057"}  # result and times in turn
    assert files(tmp_path) == ["games/g000.json", "settings.json"]  # no game.json left
    log = flash_json(tmp_path, "games/g000.json")
    assert (log["white"], log["result"], log["reason"]) == (1, "0-1", "flag")
    assert log["moves"] == [[1, 1, 2_000, 58_000], [0, 1, 3_000, 57_000]]
    tap(clock, "set")  # a new game, same preset
    assert clock.displays() == ((" 100", True), (" 100", True))


def test_flag_with_a_lone_king_opposite_is_a_draw(clock, tmp_path):
    let_right_flag(clock)
    tap(clock, "set")
    tap(clock, "plus")
    assert texts(clock) == ("0PP ", "  h ")
    tap(clock, "play")
    assert texts(clock) == ("1-2 ", "1-2 ")
    tap(clock, "plus")  # back to the entry: changed my mind
    assert texts(clock) == ("0PP ", "  h ")
    tap(clock, "play")
    tap(clock, "play")
    log = flash_json(tmp_path, "games/g000.json")
    assert (log["result"], log["reason"]) == ("1/2-1/2", "flag")


def test_dead_position_through_the_arbiter_menu(clock, tmp_path):
    clock.press("left")
    think(clock, 30_000)
    clock.press("right")
    think(clock, 40_000)
    tap(clock, "play")
    open_arbiter_item(clock, 11)
    assert texts(clock) == ("dEAd", "PLAy")  # "PLAY": press PLAY to apply
    tap(clock, "play")
    g = game(clock)
    assert (g.state, g.result) == (4, 3)
    assert shown_over(clock, 4_000, 0) == {"1-2 ", "1h30"}  # result, times
    log = flash_json(tmp_path, "games/g000.json")
    assert (log["result"], log["reason"]) == ("1/2-1/2", "dead position")
    assert "game.json" not in files(tmp_path)


def test_dead_position_through_the_material_entry(clock, tmp_path):
    let_right_flag(clock)
    tap(clock, "set")
    tap(clock, "minus")  # wraps round to the last choice
    assert texts(clock) == ("0PP ", "dEAd")
    tap(clock, "play")
    assert texts(clock) == ("1-2 ", "1-2 ")
    tap(clock, "play")
    log = flash_json(tmp_path, "games/g000.json")
    assert (log["result"], log["reason"]) == ("1/2-1/2", "dead position")


# ------------------------------------------------------- power and flash
def test_corrupt_settings_boot_with_defaults_and_say_so(tmp_path):
    (tmp_path / "settings.json").write_bytes(b'\x00\xff{"sound": tr\x9c\x00junk')
    clock = power_on(tmp_path)
    assert texts(clock) == ("5Et ", "dEF ")
    clock.run_ms(2_000)
    assert clock.displays() == (("1h30", False), ("1h30", False))
    assert clock.app.ui.settings["sound"] is True
    clock.press("left")
    clock.run_ms(1_000)
    assert clock.leds() == (0, 1)


def test_resume_after_power_loss(clock, tmp_path):
    choose_preset(clock, BLITZ_5_3)
    clock.press("left")
    think(clock, 65_000)
    clock.press("right")
    think(clock, 30_000)
    tap(clock, "play")  # paused on the left's move: the game is saved now
    before = clock.displays()
    g = game(clock)
    times = (g.remaining(0, 0), g.remaining(1, 0))
    power_cycle(clock)
    assert clock.displays() == (("rE5 ", False), (" yE5", False))  # resume? yes
    tap(clock, "play")
    assert clock.displays() == before
    g = game(clock)
    assert (g.state, g.running, g.white, g.moves[1]) == (2, 0, 1, 1)
    assert (g.remaining(0, 0), g.remaining(1, 0)) == times
    tap(clock, "play")  # the left clock runs on
    think(clock, 10_000)
    clock.press("left")
    assert clock.display(0) == countdown(g.main[0])
    assert times[0] - 10_000 + 3_000 < g.main[0] < times[0] - 10_000 + 3_000 + 300


def test_a_fallen_flag_survives_a_power_loss(clock, tmp_path):
    let_right_flag(clock)
    assert "game.json" in files(tmp_path)  # saved when both clocks froze
    power_cycle(clock)
    assert clock.displays() == (("rE5 ", False), (" yE5", False))
    tap(clock, "play")
    g = game(clock)
    assert (g.state, g.first_flag, g.remaining(1, 0), g.remaining(0, 0)) == (3, 1, 0, 57_000)
    assert shown_over(clock, 2_000, 1) == {"FLAG", " 00 "}
    tap(clock, "set")  # the arbiter rules as before the power loss
    assert texts(clock) == ("0PP ", "Prq ")


def test_resume_declined_starts_afresh(clock, tmp_path):
    clock.press("left")
    think(clock, 5_000)
    tap(clock, "play")
    power_cycle(clock)
    tap(clock, "plus")
    assert texts(clock) == ("rE5 ", "  no")
    tap(clock, "play")
    assert clock.displays() == (("1h30", False), ("1h30", False))
    assert game(clock).state == 0
    assert "game.json" not in files(tmp_path)


def test_arbiter_adds_two_minutes(clock, tmp_path):
    """FIDE 7.5: after an illegal move the opponent gets two extra minutes."""
    choose_preset(clock, BLITZ_5_3)
    clock.press("left")
    think(clock, 20_000)
    tap(clock, "play")
    open_arbiter_item(clock, 8)
    assert texts(clock) == ("AddL", "PLAy")
    tap(clock, "play")
    assert texts(clock) == ("Add ", "donE")
    clock.run_ms(2_000)
    long_set(clock)
    assert clock.display(0) == (" 700", True)
    assert [a[1:4] for a in game(clock).arbiter_log[-1:]] == [(4, 0, 120_000)]


def test_arbiter_lifts_a_fallen_flag(clock, tmp_path):
    """A flag fell after a clock malfunction: the arbiter gives the right 1 minute back and
    the game goes on from a pause."""
    let_right_flag(clock)
    long_set(clock)
    tap(clock, "set")
    tap(clock, "set")
    assert clock.displays() == (("rt n", False), (" 000", True))
    tap(clock, "plus")
    tap(clock, "play")
    g = game(clock)
    assert (g.state, g.flagged[1], g.first_flag) == (2, 0, -1)
    assert clock.displays() == ((" 057", True), (" 100", True))
    tap(clock, "play")  # resume: White (right) is still on move
    think(clock, 4_500)  # from the tap: the clock ran 4.3-4.4 s of it
    clock.press("right")
    assert clock.display(1) == (" 056", True)
    assert clock.leds() == (1, 0)
