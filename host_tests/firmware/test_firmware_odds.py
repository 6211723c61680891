"""Time odds end to end: the real firmware on the simulated board, driven only
through its pins (simboard/firmware.py), the displays decoded from the TM1637 traffic.

The arbiter picks the Armageddon preset by its label in the manual's preset table, sees
5:00 and 4:00 on the two displays, swaps them (the board was set up the other way round),
the game is played past move 61 (the increment arrives), White's flag falls, the material
entry says Black cannot mate (a draw: Black's win by draw odds), the record is written, and
`make export`'s tool turns the flash's games folder into PGN and CSV that say each colour's
control. Deterministic: fixed move times, virtual time.
"""

import csv
import io
import re
from pathlib import Path

import pytest
from test_firmware_e2e import (
    PRESS_MS,
    countdown,
    flash_json,
    game,
    power_cycle,
    power_on,
    shown_over,
    tap,
    texts,
    think,
)

ROOT = Path(__file__).resolve().parents[2]

import export_games  # noqa: E402

LABEL = "Armageddon 5 v 4, 2 s from move 61"


@pytest.fixture
def clock(tmp_path):
    c = power_on(tmp_path)
    yield c
    assert not (tmp_path / "errors.log").exists(), (tmp_path / "errors.log").read_text()


def readme_preset(label):
    """The preset number the manual's preset table gives `label`, and its display code."""
    text = (ROOT / "docs" / "manual.md").read_text()
    section = text.split("\n## Presets\n", 1)[1].split("\n## ", 1)[0]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[2] == label:
            return int(cells[0]), cells[1].strip("`")
    raise AssertionError("no preset %r in the manual's table" % label)


def test_armageddon_picked_by_its_readme_label_swapped_played_flagged_exported(clock, tmp_path):
    index, code = readme_preset(LABEL)
    tap(clock, "set")  # the chooser, on preset 0
    for _ in range(index):
        tap(clock, "plus")
    # The chooser shows the code as the manual gives it (the decoder reads glyphs: A5-4)
    assert texts(clock) == (code, " 500")
    tap(clock, "play")
    assert clock.displays() == ((" 500", True), (" 400", True))  # each side its own time
    assert flash_json(tmp_path, "settings.json")["control"] == {"preset": index}
    tap(clock, "play")  # Black sits on the left: the ready screen's PLAY swaps the sides
    assert clock.displays() == ((" 400", True), (" 500", True))
    assert flash_json(tmp_path, "settings.json")["control"] == {"preset": index, "swap": True}

    clock.press("left")  # Black (left) starts White's clock (right)
    g = game(clock)
    assert (g.white, g.running) == (1, 1)
    expected = [240_000, 300_000]  # left (Black), right (White)
    side = 1
    for half in range(122):  # 61 moves each, 1.5 s a move
        think(clock, 1_500)
        clock.press(("left", "right")[side])
        move_no = half // 2 + 1
        expected[side] += -1_500 + (2_000 if move_no >= 61 else 0)
        assert g.main[side] == expected[side], (half, side)
        assert clock.display(side) == countdown(expected[side]), (half, side)
        side = 1 - side
    assert expected == [240_000 - 91_500 + 2_000, 300_000 - 91_500 + 2_000]
    assert (g.period[0], g.period[1]) == (1, 1)

    # White (right) thinks until the flag falls; Black has only a king left: a draw, which
    # the draw odds give to Black.
    clock.run_ms(expected[1] - PRESS_MS + 500)
    assert (g.state, g.first_flag) == (3, 1)
    assert shown_over(clock, 2_000, 1) == {"FLAG", " 00 "}
    tap(clock, "set")
    assert texts(clock) == ("0PP ", "Prq ")  # what has the opponent (Black, left)?
    tap(clock, "plus")
    assert texts(clock) == ("0PP ", "  h ")  # a lone king
    tap(clock, "play")
    assert texts(clock) == ("  1 ", "  0 ")  # not 1-2: Black (left) wins by draw odds
    tap(clock, "play")
    assert g.state == 4
    record = flash_json(tmp_path, "games/g000.json")
    assert (record["white"], record["result"], record["reason"]) == (1, "0-1", "draw odds")
    assert (record["drawn_by"], record["draw_odds"]) == ("flag", "black")
    assert record["controls"] == {
        "white": {"mode": 0, "periods": [[300, 60, 0, 0], [0, 0, 1, 2]]},
        "black": {"mode": 0, "periods": [[240, 60, 0, 0], [0, 0, 1, 2]]},
    }
    assert record["moves"][-1] == [0, 61, 1_500, expected[0]]

    out = tmp_path / "export"
    log = io.StringIO()
    assert (
        export_games.main(["--from-dir", str(tmp_path / "games"), "--out", str(out)], out=log) == 0
    )
    pgn = (out / "g000.pgn").read_text()
    tags = dict(re.findall(r'^\[(\w+) "(.*)"\]$', pgn, re.M))
    assert tags["White"] == "Right" and tags["Black"] == "Left"
    assert (tags["Result"], tags["Termination"]) == ("0-1", "normal")
    assert (tags["TimeControl"], tags["BlackTimeControl"]) == ("60/300:0+2", "60/240:0+2")
    assert (tags["ClockControl"], tags["ClockReason"]) == (LABEL, "draw odds")
    assert (tags["ClockDrawOdds"], tags["ClockDrawnBy"]) == ("Black", "flag")
    rows = list(csv.reader(io.StringIO((out / "g000.csv").read_text())))
    assert rows[0][-1] == "control"
    assert rows[1][1:3] + rows[1][-1:] == ["right", "white", "60/300:0+2"]
    assert rows[2][1:3] + rows[2][-1:] == ["left", "black", "60/240:0+2"]
    assert len(rows) == 1 + 122
    assert Path(out / "g000.png").stat().st_size > 0


def test_a_swapped_armageddon_game_survives_a_power_loss(clock, tmp_path):
    """Both controls and the swap come back with the paused game (game.json keeps the
    settings' control beside the engine snapshot)."""
    index, _code = readme_preset("Armageddon 10 v 7")
    tap(clock, "set")
    for _ in range(index):
        tap(clock, "plus")
    tap(clock, "play")
    tap(clock, "play")  # swapped: Black's 7:00 on the left
    assert clock.displays() == ((" 700", True), ("1000", True))
    clock.press("left")  # Black (left) starts White's clock
    think(clock, 30_000)
    clock.press("right")  # White: 9:30 left
    think(clock, 20_000)
    tap(clock, "play")  # paused on Black's move: saved
    before = clock.displays()
    assert flash_json(tmp_path, "game.json")["control"] == {"preset": index, "swap": True}
    power_cycle(clock)
    assert texts(clock) == ("rE5 ", " yE5")
    tap(clock, "play")
    assert clock.displays() == before
    g = game(clock)
    assert (g.white, g.draw_odds) == (1, 2)
    assert [g.controls[s].periods[0][0] for s in (0, 1)] == [420_000, 600_000]
    tap(clock, "play")  # resume: the left (Black) runs on
    think(clock, 10_000)
    clock.press("left")
    assert 420_000 - 31_000 < g.main[0] < 420_000 - 30_000
    assert clock.display(1) == countdown(570_000)
