"""The arbiter's corrections in `make export`: a PGN comment after the half-move each followed
(movesless, null-move and merged with a scoresheet) and arbiter.csv, from records the
firmware writes (firmware/shell/archive.py) and hand-made ones."""

import csv
import io
import json
import os

import archive
import chess.pgn
import engine as E
import export_games as ex
import game_state
import pgn_merge
import pytest
from game_record import GameError, arbiter_notes, arbiter_text, parse_game
from pgn_scoresheet import read_sheets
from timecontrol import BONUS_DELAY, from_seconds

# Right has White; 90 min + 30 s. After White's 3rd move the arbiter takes 15 minutes off
# Black (left), then Black's flag falls.
GAME = {
    "version": 1,
    "control": "90 min + 30 s",
    "white": 1,
    "result": "1-0",
    "reason": "flag",
    "plies": 6,
    "arbiter": [
        [5, 4, 0, -900_000, 5_306_412, 4_406_412],
        [6, 8, -1, 1, 0, 2],
    ],
    "moves": [
        [1, 1, 2000, 5428000],
        [0, 1, 3000, 5427000],
        [1, 2, 60000, 5398000],
        [0, 2, 150_588, 5_306_412],
        [1, 3, 10_000, 5_418_000],
        [0, 3, 4_406_412, 0],
    ],
}

PENALTY = "Arbiter: Black (left) time -0:15:00, 1:28:26.412 -> 1:13:26.412"
RESULT = "Arbiter: result 1-0 (flag)"


def test_each_correction_is_a_comment_after_its_half_move():
    text = ex.pgn_text(GAME, "g003.json")
    moves = text.split("\n\n", 1)[1].replace("\n", " ")
    assert moves == (
        "{1. [%clk 1:30:28]} {1... [%clk 1:30:27]} {2. [%clk 1:29:58]} {2... [%clk 1:28:26]}"
        " {3. [%clk 1:30:18]} {" + PENALTY + "} {3... [%clk 0:00:00]} {" + RESULT + "} 1-0 "
    )
    assert all(len(line) < 80 for line in text.splitlines())


def test_python_chess_reads_each_comment_on_its_half_move():
    game = chess.pgn.read_game(io.StringIO(ex.pgn_text(GAME, "g003.json", null_moves=True)))
    nodes = list(game.mainline())
    assert [n.comment for n in nodes[4:]] == [
        "[%clk 1:30:18] " + PENALTY,
        "[%clk 0:00:00] " + RESULT,
    ]
    assert nodes[4].clock() == 5418 and nodes[5].clock() == 0  # the clocks still read


def test_arbiter_csv_has_one_row_per_correction(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "g003.json").write_text(json.dumps(GAME))
    (tmp_path / "src" / "g004.json").write_text(json.dumps(dict(GAME, arbiter=[])))
    report = ex.export_files(ex.game_files(tmp_path / "src"), tmp_path / "out")
    assert report.problems == []
    rows = list(csv.reader(io.StringIO((tmp_path / "out" / "arbiter.csv").read_text())))
    assert rows == [
        list(ex.ARBITER_FIELDS),
        [
            "g003",
            "5",
            "3.",
            "left",
            "black",
            "time added",
            "-900000",
            "5306412",
            "4406412",
            PENALTY,
        ],
        ["g003", "6", "3...", "", "", "result", "1", "0", "2", RESULT],
    ]


def test_records_without_corrections_write_no_arbiter_csv(tmp_path):
    (tmp_path / "src").mkdir()
    plain = {k: v for k, v in GAME.items() if k not in ("plies", "arbiter")}
    (tmp_path / "src" / "g001.json").write_text(json.dumps(plain))
    ex.export_files(ex.game_files(tmp_path / "src"), tmp_path / "out")
    assert not (tmp_path / "out" / "arbiter.csv").exists()
    assert "Arbiter" not in (tmp_path / "out" / "g001.pgn").read_text()


def entry_text(action, side, value, before, after, white=0):
    return arbiter_text({"white": white}, [0, action, side, value, before, after])


def test_every_action_has_a_text():
    assert entry_text(3, 0, 900_000, 1_807_000, 900_000) == (
        "Arbiter: White (left) time set 0:30:07 -> 0:15:00"
    )
    assert entry_text(4, 1, 120_000, 60_000, 180_000) == (
        "Arbiter: Black (right) time +0:02:00, 0:01:00 -> 0:03:00"
    )
    assert entry_text(5, 0, 34, 33, 34) == "Arbiter: White (left) moves 33 -> 34"
    assert entry_text(6, 1, 1, 0, 1) == "Arbiter: Black (right) period 1 -> 2"
    assert entry_text(9, 1, 4, 2, 4) == "Arbiter: Black (right) overtime counter set 2 -> 4"
    assert entry_text(7, 1, BONUS_DELAY, 60_000, 180_000) == (
        "Arbiter: Appendix G.4 asked by Black (right), 5 s delay for both;"
        " White (left) time 0:01:00 -> 0:03:00"
    )
    assert entry_text(8, -1, 2, 0, 3) == "Arbiter: result 1/2-1/2 (dead position)"
    assert entry_text(8, -1, 256 + 2, 0, 2, white=1) == (
        "Arbiter: result 1-0 (draw odds, drawn by dead position)"
    )


def test_dropped_corrections_are_said_before_the_first_move():
    game = dict(GAME, arbiter_lost=3)
    assert arbiter_notes(game)[0] == [
        "Arbiter: 3 earlier correction(s) not kept (more than the clock's 64)"
    ]
    moves = ex.pgn_text(game, "g003.json").split("\n\n", 1)[1]
    assert moves.startswith("{Arbiter: 3 earlier correction(s) not kept")


def test_a_longer_game_places_them_by_the_whole_games_ply():
    game = dict(GAME, plies=606, arbiter=[[605, 5, 1, 40, 2, 40], [3, 5, 0, 10, 1, 10]])
    with pytest.raises(GameError):
        parse_game(json.dumps(dict(game, arbiter=[[1, 2, 3]])))
    game["arbiter"].sort()
    tokens = ex.movetext_tokens(ex.game_rows(game), False, arbiter_notes(game), 600)
    assert tokens[0] == "{Arbiter: Black (left) moves 1 -> 10}"  # before the kept rows
    assert tokens[-2:] == ["{Arbiter: White (right) moves 2 -> 40}", "{3... [%clk 0:00:00]}"]


@pytest.mark.parametrize(
    "bad",
    [
        {"arbiter": {}},
        {"arbiter": [[1, 2, 3, 4, 5]]},
        {"arbiter": [[1, 3, 2, 0, 0, 0]]},
        {"arbiter": [[-1, 3, 0, 0, 0, 0]]},
        {"arbiter": [[1, 3, 0, 0, 0, 1.5]]},
        {"plies": -1},
        {"arbiter_lost": "3"},
    ],
)
def test_a_bad_correction_is_reported(bad):
    with pytest.raises(GameError):
        parse_game(json.dumps(dict(GAME, **bad)))


MOVES = '[Event "x"]\n[White "A"]\n[Black "B"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n'


def test_a_merged_game_has_them_after_its_moves():
    sheet = read_sheets(MOVES)[0]
    merged = pgn_merge.merge(sheet, GAME, "g003.json", 1, pgn_merge.choice_of(sheet))
    game = chess.pgn.read_game(io.StringIO(merged.text))
    nodes = list(game.mainline())
    assert merged.timed == 6
    assert nodes[4].san() == "Bb5" and nodes[4].comment.endswith(PENALTY)
    assert nodes[5].comment.endswith(RESULT) and nodes[5].clock() == 0


def test_a_merge_without_times_keeps_them_in_the_games_comment():
    sheet = read_sheets(MOVES.replace(" 3. Bb5 a6", ""))[0]  # two half-moves short
    merged = pgn_merge.merge(sheet, GAME, "g003.json", 1, pgn_merge.choice_of(sheet))
    assert merged.timed == 0
    game = chess.pgn.read_game(io.StringIO(merged.text))
    assert PENALTY + " (after the clock's half-move 5)" in game.comment


# --- the clock's own writer --------------------------------------------------------------


def test_the_firmwares_record_exports_the_penalty(tmp_path):
    """A game played on the engine, corrected through game_state and recorded by
    archive.write_record (gamelog.py's file): the export says why the clock dropped."""
    g = E.Game(from_seconds(0, [[5400, 0, 1, 30]]))
    t = 1_000
    g.press(0, t)  # Black (left) starts White's clock
    for used in (2_000, 3_000, 60_000, 150_588, 10_000):
        t += used
        g.press(g.running, t)
    g.pause(t)
    before = g.remaining(0, t)
    assert game_state.add_time(g, 0, -900_000, t) == E.OK
    g.resume(t + 5_000)
    t = g.deadline()
    g.tick(t)
    assert g.state == E.FLAGGED
    assert game_state.finish(g, game_state.win_of(g, E.WHITE), E.REASON_FLAG, t) == E.OK
    assert archive.write_record(str(tmp_path), g, os) == "g000.json"
    rec = json.loads((tmp_path / "games" / "g000.json").read_text())
    assert rec["plies"] == 5  # the flag fell in Black's 3rd move: no press
    assert rec["arbiter"] == [
        [5, E.ACT_ADD_TIME, 0, -900_000, before, before - 900_000],
        [5, E.ACT_FINISH, -1, E.REASON_FLAG, 0, E.RESULT_RIGHT_WINS],
    ]
    report = ex.export_files(ex.game_files(tmp_path / "games"), tmp_path / "out")
    assert report.problems == []
    pgn = (tmp_path / "out" / "g000.pgn").read_text()
    text = pgn.replace("\n", " ")
    assert "{3. [%clk 1:30:18]} {Arbiter: Black (left) time -0:15:00, 1:28:" in text
    assert text.endswith("} {Arbiter: result 1-0 (flag)} 1-0 ")
    assert (tmp_path / "out" / "arbiter.csv").read_text().count("\n") == 3
