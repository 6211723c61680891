"""tools/export/export_games.py: PGN/CSV/PNG from synthetic game logs, bad files reported and
skipped, and pulling the logs over mpremote (an injected fake runner)."""

import csv
import io
import json
import re
import struct
from pathlib import Path

import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]

import export_games as ex  # noqa: E402
import flash  # noqa: E402

# Right side has White; 90 min + 30 s. Black (left) spends 10 min on move 2; White flags.
GAME = {
    "version": 1,
    "control": "90 min + 30 s",
    "white": 1,
    "result": "0-1",
    "reason": "flag",
    "moves": [
        [1, 1, 2000, 5428000],
        [0, 1, 3000, 5427000],
        [1, 2, 60000, 5398000],
        [0, 2, 600500, 4856500],
        [1, 3, 5397999, 0],
    ],
}

PGN_TAGS = """\
[Event "?"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "Right"]
[Black "Left"]
[Result "0-1"]
[Termination "time forfeit"]
[TimeControl "5400+30"]
[ClockControl "90 min + 30 s"]
[ClockReason "flag"]
[ClockFile "g007.json"]

"""

PGN_COMMENTS = PGN_TAGS + (
    "{1. [%clk 1:30:28]} {1... [%clk 1:30:27]} {2. [%clk 1:29:58]}\n"
    "{2... [%clk 1:20:56]} {3. [%clk 0:00:00]} 0-1\n"
)

PGN_NULL = PGN_TAGS + (
    "1. -- {[%clk 1:30:28]} -- {[%clk 1:30:27]} 2. -- {[%clk 1:29:58]} --\n"
    "{[%clk 1:20:56]} 3. -- {[%clk 0:00:00]} 0-1\n"
)

CSV_ROWS = [
    ["ply", "side", "colour", "move_no", "used_ms", "left_ms", "clk"],
    ["1", "right", "white", "1", "2000", "5428000", "1:30:28"],
    ["2", "left", "black", "1", "3000", "5427000", "1:30:27"],
    ["3", "right", "white", "2", "60000", "5398000", "1:29:58"],
    ["4", "left", "black", "2", "600500", "4856500", "1:20:56"],
    ["5", "right", "white", "3", "5397999", "0", "0:00:00"],
]


def write_game(directory, name, game):
    path = Path(directory) / name
    path.write_text(game if isinstance(game, str) else json.dumps(game))
    return path


def png_size(path):
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


# --- formats -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ms, text",
    [
        (0, "0:00:00"),
        (999, "0:00:00"),
        (1000, "0:00:01"),
        (59999, "0:00:59"),
        (3599999, "0:59:59"),
        (3600000, "1:00:00"),
        (5428000, "1:30:28"),
        (36000000, "10:00:00"),
        (-1, "0:00:00"),
        (-3500, "0:00:00"),
    ],
)
def test_clock_text_truncates_to_whole_seconds(ms, text):
    assert ex.clock_text(ms) == text


def test_pgn_comment_only_game_exact():
    assert ex.pgn_text(GAME, "g007.json") == PGN_COMMENTS


def test_pgn_null_move_game_exact():
    assert ex.pgn_text(GAME, "g007.json", null_moves=True) == PGN_NULL


def test_python_chess_attaches_each_clock_to_its_half_move():
    game = chess.pgn.read_game(io.StringIO(PGN_NULL))
    assert game.errors == []
    nodes = list(game.mainline())
    assert [bool(n.move) for n in nodes] == [False] * 5  # all null moves
    assert [n.clock() for n in nodes] == [5428, 5427, 5398, 4856, 0]
    assert game.headers["White"] == "Right" and game.headers["Result"] == "0-1"


def test_comment_only_game_is_valid_pgn_without_moves():
    game = chess.pgn.read_game(io.StringIO(PGN_COMMENTS))
    assert game.errors == []
    assert list(game.mainline_moves()) == []
    assert game.comment.count("[%clk") == 5
    assert game.headers["ClockControl"] == "90 min + 30 s"


def test_null_move_numbers_follow_an_irregular_log():
    irregular = dict(GAME, white=0, moves=[[1, 1, 5, 1000], [0, 2, 5, 2000], [0, 3, 5, 3000]])
    text = ex.pgn_text(irregular, "g000.json", null_moves=True)
    movetext = text.split("\n\n", 1)[1]
    assert movetext == (
        "1... -- {[%clk 0:00:01]} 2. -- {[%clk 0:00:02]} 3. -- {[%clk 0:00:03]} 0-1\n"
    )


def test_pgn_tag_values_stay_on_one_line():
    text = ex.pgn_text(dict(GAME, control="blitz\n5+3\t"), "g005.json")
    assert '[ClockControl "blitz 5+3 "]' in text


def test_pgn_tags_escape_and_terminations():
    draw = dict(GAME, control='my "blitz" \\ 5+3', result="1/2-1/2", reason="material")
    text = ex.pgn_text(draw, "g001.json")
    assert '[ClockControl "my \\"blitz\\" \\\\ 5+3"]' in text
    assert '[Termination "normal"]' in text
    unfinished = dict(GAME, result="*", reason="")
    assert '[Termination "unterminated"]' in ex.pgn_text(unfinished, "g002.json")
    arbiter = dict(GAME, result="1-0", reason="arbiter")
    assert '[Termination "adjudication"]' in ex.pgn_text(arbiter, "g003.json")


def test_pgn_lines_stay_under_80_characters():
    long_game = dict(GAME, moves=[[i % 2, i // 2 + 1, 1000, 3600000 - i] for i in range(120)])
    for line in ex.pgn_text(long_game, "g004.json", null_moves=True).splitlines():
        assert len(line) <= 79


def test_lenient_where_the_clock_firmware_is():
    """move_no 0 and a negative left_ms pass firmware/shell/gamelog.py's own checks, so they
    are exported too (a negative time shows as 0:00:00)."""
    odd = dict(GAME, moves=[[1, 0, 10, -20], [0, 1, 10, 1500]])
    game = ex.parse_game(json.dumps(odd))
    assert [r.clk for r in ex.game_rows(game)] == ["0:00:00", "0:00:01"]
    assert ex.csv_text(game).splitlines()[1] == "1,right,white,0,10,-20,0:00:00"


@pytest.mark.parametrize(
    "numbers, oldest_first",
    [
        ([], []),
        ([5], [5]),
        ([0, 1, 2], [0, 1, 2]),
        ([999, 998, 0], [998, 999, 0]),
        ([3, 4, 990, 995, 999, 0, 1, 2], [990, 995, 999, 0, 1, 2, 3, 4]),
        ([0, 500], [0, 500]),  # a tie: the gap across the wrap wins, as on the clock
    ],
)
def test_chronological_order_follows_the_wrap(numbers, oldest_first):
    names = ["g%03d.json" % n for n in numbers]
    assert ex.chronological(names) == ["g%03d.json" % n for n in oldest_first]


def test_all_pgn_is_oldest_first_across_the_wrap(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for n in (998, 999, 0, 1):
        write_game(src, "g%03d.json" % n, GAME)
    report = ex.export_files(ex.game_files(src), tmp_path / "out")
    assert report.exported == ["g998", "g999", "g000", "g001"]
    games = (tmp_path / "out" / "all.pgn").read_text()
    files = [line for line in games.splitlines() if line.startswith("[ClockFile")]
    assert files == ['[ClockFile "g%s.json"]' % n for n in ("998", "999", "000", "001")]


def test_csv_rows_exact():
    assert list(csv.reader(io.StringIO(ex.csv_text(GAME)))) == CSV_ROWS


# Byo-yomi 60 s + 3 x 10 s: the right (White) reaches overtime on move 2, uses a period up on
# move 3 and flags in its last period; rows carry the periods left (0 = main time).
BYOYOMI_GAME = dict(
    GAME,
    control="custom",
    moves=[
        [1, 1, 30000, 30000, 0],
        [0, 1, 20000, 40000, 0],
        [1, 2, 35000, 10000, 3],
        [0, 2, 2000, 38000, 0],
        [1, 3, 13000, 10000, 2],
    ],
)


def test_overtime_games_get_an_overtime_column():
    rows = list(csv.reader(io.StringIO(ex.csv_text(BYOYOMI_GAME))))
    assert rows[0] == list(ex.CSV_FIELDS) + ["overtime"]
    assert rows[3] == ["3", "right", "white", "2", "35000", "10000", "0:00:10", "3"]
    assert [r[-1] for r in rows[1:]] == ["0", "0", "3", "0", "2"]
    pgn = ex.pgn_text(BYOYOMI_GAME, "g030.json")
    assert "{2. [%clk 0:00:10]}" in pgn


def test_plot_is_a_png(tmp_path):
    ex.write_plot(GAME, "g007", tmp_path / "g007.png")
    assert png_size(tmp_path / "g007.png") == (800, 450)


def test_plot_title_is_plain_text(tmp_path):
    odd = dict(GAME, control="$\\frac{$ 5+3\n", reason="a_b^c")
    ex.write_plot(odd, "g009", tmp_path / "g009.png")
    assert png_size(tmp_path / "g009.png") == (800, 450)


def test_plot_of_a_game_without_moves(tmp_path):
    ex.write_plot(dict(GAME, moves=[]), "g008", tmp_path / "g008.png")
    assert png_size(tmp_path / "g008.png") == (800, 450)


# --- files: good ones exported, bad ones reported and skipped -----------------------------

BAD_FILES = {
    "g010.json": ("{not json", "not valid JSON"),
    "g011.json": ("", "empty file"),
    "g012.json": ("[1, 2]", "not a JSON object"),
    "g013.json": (dict(GAME, version=2), "unsupported version 2"),
    "g014.json": ({k: v for k, v in GAME.items() if k != "moves"}, "missing 'moves'"),
    "g015.json": (dict(GAME, white=2), "'white' must be 0 or 1"),
    "g016.json": (dict(GAME, result="1-1"), "'result' must be one of"),
    "g017.json": (dict(GAME, moves=[[0, 1, 100]]), "move 1 is not [side, move_no"),
    "g018.json": (dict(GAME, moves=[[0, 1, True, 100]]), "move 1 is not [side, move_no"),
    "g019.json": (dict(GAME, moves=[[0, 1, 5, 1], [1, 1, -5, 100]]), "move 2 is out of range"),
    "g020.json": (dict(GAME, white=True), "'white' must be 0 or 1"),
    "g021.json": (dict(GAME, reason=None), "'reason' is not a string"),
    "g024.json": (dict(GAME, moves=[[0, 1, 5, 1, -1]]), "move 1 is out of range"),
    "g025.json": (dict(GAME, moves=[[0, 1, 5, 1, 2, 3]]), "move 1 is not [side, move_no"),
}


def test_bad_files_are_reported_and_skipped(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    write_game(src, "g007.json", GAME)
    for name, (content, _why) in BAD_FILES.items():
        write_game(src, name, content)
    (src / "g022.json").write_bytes(b'{"version": 1, "control": "\xff"}')
    (src / "notes.txt").write_text("ignored")
    out = tmp_path / "out"
    report = ex.export_files(ex.game_files(src) + [src / "g099.json"], out)
    assert report.exported == ["g007"]
    problems = dict(p.split(" skipped: ", 1) for p in report.problems)
    assert set(problems) == set(BAD_FILES) | {"g022.json", "g099.json"}
    for name, (_content, why) in BAD_FILES.items():
        assert problems[name].startswith(why), (name, problems[name])
    assert problems["g022.json"] == "not UTF-8 text"
    assert problems["g099.json"] == "missing"
    assert sorted(p.name for p in out.iterdir()) == ["all.pgn", "g007.csv", "g007.pgn", "g007.png"]
    assert (out / "all.pgn").read_text() == (out / "g007.pgn").read_text()


def test_main_from_dir(tmp_path, capsys):
    src = tmp_path / "src"
    src.mkdir()
    write_game(src, "g007.json", GAME)
    write_game(src, "g001.json", dict(GAME, white=0, result="1-0"))
    write_game(src, "g002.json", "{broken")
    out = tmp_path / "games"
    assert ex.main(["--from-dir", str(src), "--out", str(out)]) == 1  # one was not exported
    captured = capsys.readouterr()
    assert "exported 2 game(s) to %s, skipped 1 (see above)" % out in captured.out
    assert captured.err.startswith("export: g002.json skipped: not valid JSON")
    assert captured.err.endswith("export: not exported (see above): g002.json\n")
    assert (out / "g007.pgn").read_text() == PGN_COMMENTS
    games = (out / "all.pgn").read_text()
    assert games.index("g001.json") < games.index("g007.json")
    assert len(list(chess.pgn.read_game(io.StringIO(games)).headers)) == 12


def test_main_null_moves_option(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    write_game(src, "g007.json", GAME)
    assert ex.main(["--from-dir", str(src), "--out", str(tmp_path / "o"), "--null-moves"]) == 0
    assert (tmp_path / "o" / "g007.pgn").read_text() == PGN_NULL


def test_main_from_missing_dir(tmp_path, capsys):
    assert ex.main(["--from-dir", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 1
    assert "no such directory" in capsys.readouterr().err


# --- pulling from the board --------------------------------------------------------------

MP = ["mpremote"]
ENV = {"MPREMOTE": "mpremote"}
PORT = "/dev/ttyACM0"
LISTING = "/dev/ttyACM0 E661 2e8a:0005 MicroPython Board in FS mode\n"


class FakeBoard:
    """A fake runner answering like mpremote for a board holding `files` in /games
    (None = no /games directory); `lost` names files that `fs cp` fails to deliver."""

    def __init__(self, files, lost=(), ls_error=None, listing=LISTING):
        self.files, self.lost, self.ls_error, self.listing = files, set(lost), ls_error, listing
        self.calls = []

    def run(self, argv):
        self.calls.append(list(argv))
        if argv == MP + ["connect", "list"]:
            return flash.Result(0, self.listing, "")
        cmd = argv[3:]
        if cmd[:1] == ["exec"]:
            return flash.Result(0, "micropython 1.27.0\n", "")
        if cmd == ["fs", "ls", ":games"]:
            if self.ls_error:
                return flash.Result(1, "ls :games\n", self.ls_error)
            if self.files is None:
                return flash.Result(1, "ls :games\n", "mpremote: ls: No such file or directory.\n")
            lines = ["ls :games"] + ["%12d %s" % (len(v), k) for k, v in self.files.items()]
            return flash.Result(0, "\n".join(lines) + "\n", "")
        if cmd[:2] == ["fs", "cp"]:
            dest = Path(cmd[-1])
            for src in cmd[2:-1]:
                name = src.split("/")[-1]
                if name not in self.lost:
                    (dest / name).write_text(self.files[name])
            return flash.Result(1 if self.lost else 0, "", "cp: failed" if self.lost else "")
        return flash.Result(0, "", "")


def test_pull_and_export(tmp_path, capsys):
    files = {"g000.json": json.dumps(GAME), "g001.json": "{bro", "g001.tmp": "x"}
    fake = FakeBoard(files)
    out = tmp_path / "games"
    assert ex.main(["--out", str(out)], fake, ENV) == 1  # g001.json was not exported
    assert fake.calls[:3] == [
        MP + ["connect", "list"],
        MP + ["connect", PORT, "exec", flash.IMPL_PROBE],
        MP + ["connect", PORT, "fs", "ls", ":games"],
    ]
    cp = fake.calls[3]
    assert cp[:6] == MP + ["connect", PORT, "fs", "cp", ":games/g000.json"]
    assert cp[6] == ":games/g001.json" and len(cp) == 8  # one command, then the local dir
    assert fake.calls[4:] == [MP + ["connect", PORT, "reset"]]  # the clock app runs again
    assert (out / "g000.json").read_text() == files["g000.json"]
    assert (out / "g001.json").read_text() == "{bro"  # kept for inspection
    assert (out / "g000.pgn").read_text() == PGN_COMMENTS.replace("g007.json", "g000.json")
    captured = capsys.readouterr()
    assert "export: g001.json skipped: not valid JSON" in captured.err
    assert "exported 1 game(s)" in captured.out


def test_pull_with_explicit_port_skips_detection(tmp_path):
    fake = FakeBoard({"g000.json": json.dumps(GAME)})
    assert ex.main(["--port", "COM4", "--out", str(tmp_path / "o")], fake, ENV) == 0
    assert fake.calls[0] == MP + ["connect", "COM4", "exec", flash.IMPL_PROBE]
    assert all(c[1:3] == ["connect", "COM4"] for c in fake.calls)


def test_pull_reports_files_that_did_not_arrive(tmp_path, capsys):
    files = {"g000.json": json.dumps(GAME), "g001.json": json.dumps(GAME)}
    fake = FakeBoard(files, lost={"g001.json"})
    assert ex.main(["--out", str(tmp_path / "o")], fake, ENV) == 1
    err = capsys.readouterr().err
    assert err.endswith("export: not exported (see above): g001.json\n")
    assert "export: g001.json skipped: listed on the board but not copied" in err
    assert "export: fs cp reported an error: cp: failed" in err
    assert (tmp_path / "o" / "g000.pgn").exists() and not (tmp_path / "o" / "g001.pgn").exists()


def test_pull_from_a_board_without_games(tmp_path, capsys):
    fake = FakeBoard(None)
    assert ex.main(["--out", str(tmp_path / "o")], fake, ENV) == 0
    assert not any(c[4:6] == ["fs", "cp"] for c in fake.calls)
    assert fake.calls[-1] == MP + ["connect", PORT, "reset"]
    assert "exported 0 game(s)" in capsys.readouterr().out


def test_pull_fails_when_listing_fails(tmp_path, capsys):
    fake = FakeBoard({}, ls_error="mpremote: could not enter raw repl\n")
    assert ex.main(["--out", str(tmp_path / "o")], fake, ENV) == 1
    assert fake.calls[-1] == MP + ["connect", PORT, "reset"]
    assert "could not list :games on the board: mpremote: could not enter raw repl" in (
        capsys.readouterr().err
    )


def test_pull_without_a_board(tmp_path, capsys):
    fake = FakeBoard({}, listing="")
    assert ex.main(["--out", str(tmp_path / "o")], fake, ENV) == 1
    assert "no Raspberry Pi Pico running MicroPython found" in capsys.readouterr().err
    assert len(fake.calls) == 1


# --- properties --------------------------------------------------------------------------

ms = st.integers(min_value=0, max_value=10 * 3600 * 1000)
left = st.integers(min_value=-5000, max_value=10 * 3600 * 1000)


@st.composite
def games(draw):
    white = draw(st.integers(0, 1))
    n = draw(st.integers(0, 60))
    moves = []
    for ply in range(n):
        side = white if ply % 2 == 0 else 1 - white
        moves.append([side, ply // 2 + 1, draw(ms), draw(left)])
    return {
        "version": 1,
        "control": draw(st.text(max_size=12)),
        "white": white,
        "result": draw(st.sampled_from(ex.RESULTS)),
        "reason": draw(st.sampled_from(["flag", "material", "arbiter", ""])),
        "moves": moves,
    }


@settings(max_examples=60, deadline=None)
@given(games())
def test_every_valid_log_round_trips_through_all_formats(game):
    assert ex.parse_game(json.dumps(game)) == game
    rows = list(csv.reader(io.StringIO(ex.csv_text(game))))[1:]
    assert [int(r[5]) for r in rows] == [m[3] for m in game["moves"]]
    parsed = chess.pgn.read_game(io.StringIO(ex.pgn_text(game, "g000.json", null_moves=True)))
    assert parsed.errors == []
    printable = "".join(c if c.isprintable() else " " for c in game["control"])
    # python-chess hands tag values over still escaped (PGN: backslash before " and \)
    assert re.sub(r"\\(.)", r"\1", parsed.headers["ClockControl"]) == printable
    assert [n.clock() for n in parsed.mainline()] == [max(m[3], 0) // 1000 for m in game["moves"]]
    plain = chess.pgn.read_game(io.StringIO(ex.pgn_text(game, "g000.json")))
    assert plain.errors == [] and list(plain.mainline_moves()) == []
    assert plain.headers["Result"] == game["result"]


# --- the clock's own writer --------------------------------------------------------------


def test_reads_what_the_firmware_writes(tmp_path):
    """firmware/shell/gamelog.py writes the logs on the board; the tool reads them unchanged."""
    import os

    import gamelog

    moves = [list(m) for m in GAME["moves"]]
    for _ in range(3):
        assert gamelog.save_game_log(str(tmp_path), "90 min + 30 s", 1, "0-1", "flag", moves, os)
    folder = tmp_path / gamelog.GAMES_DIR
    report = ex.export_files(ex.game_files(folder), tmp_path / "out")
    assert report.problems == []
    assert report.exported == ["g000", "g001", "g002"]
    expected = PGN_COMMENTS.replace("g007.json", "g002.json")
    assert (tmp_path / "out" / "g002.pgn").read_text() == expected


# --- records left by a power cut before their rename ------------------------------------


def test_a_whole_leftover_tmp_is_exported_and_a_cut_one_reported(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    write_game(src, "g000.json", GAME)
    write_game(src, "g001.json.tmp", dict(GAME, id=77))  # whole: the rename was cut
    write_game(src, "g002.json.tmp", json.dumps(GAME)[:40])  # cut while written
    write_game(src, "g003.json", dict(GAME, result="1-0"))
    write_game(src, "g003.json.tmp", "{stale")  # the record is there: the tmp is ignored
    names = [p.name for p in ex.game_files(src)]
    assert names == ["g000.json", "g001.json.tmp", "g002.json.tmp", "g003.json"]
    out = tmp_path / "out"
    report = ex.export_files(ex.game_files(src), out)
    assert report.exported == ["g000", "g001", "g003"]
    assert [p.split(":")[0] for p in report.problems] == ["g002.json.tmp skipped"]
    assert "cut short by a power loss" in report.problems[0]
    assert (out / "g001.pgn").read_text() == PGN_COMMENTS.replace("g007.json", "g001.json")


def test_pull_takes_a_leftover_tmp_only_without_its_record(tmp_path):
    files = {
        "g000.json": json.dumps(GAME),
        "g000.json.tmp": "{",
        "g001.json.tmp": json.dumps(GAME),
    }
    fake = FakeBoard(files)
    assert ex.main(["--out", str(tmp_path / "games")], fake, ENV) == 0
    cp = fake.calls[3]
    assert cp[5:7] == [":games/g000.json", ":games/g001.json.tmp"] and len(cp) == 8
    assert sorted(p.name for p in (tmp_path / "games").glob("*.pgn")) == [
        "all.pgn",
        "g000.pgn",
        "g001.pgn",
    ]
