"""The parts of `make export MOVES=FILE.pgn` that need no clock: reading FILE (every
problem named with its game and line, nothing python-chess would drop silently), the
TimeControl of every preset as python-chess reads it back, the tags a record adds to a
scoresheet, pairing games with records, the ClockUpTo forms, and a property of the merge
over random legal games."""

import io
from pathlib import Path

import chess
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]

import pgn_headers  # noqa: E402
import pgn_merge  # noqa: E402
import pgn_scoresheet as ps  # noqa: E402
import presets  # noqa: E402
import timecontrol as tc  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data" / "scoresheets"


def one(movetext, tags='[Event "t"]\n'):
    (sheet,) = ps.read_sheets(tags + "\n" + movetext + "\n")
    return sheet


# ----------------------------------------------------------------- reading FILE
def test_a_broken_file_names_each_problem_and_reads_the_rest():
    sheets = ps.read_sheets((DATA / "broken.pgn").read_text())
    assert [s.title() for s in sheets] == [
        "game 1 (line 1, Good, One - Player, Two)",
        "game 2 (line 8, Illegal, Move - Player, Two)",
        "game 3 (line 16, Typo, Square - Player, Two)",
        "game 4 (line 24, Good, Three - Player, Two)",
    ]
    assert [len(s.plies) for s in sheets] == [7, 5, 5, 4]
    assert sheets[0].problems == [] and sheets[3].problems == []
    assert sheets[1].problems == [
        "line 14: illegal san: 'Ng4' in "
        "rnbqkbnr/ppp2ppp/4p3/3p4/2PP4/2N5/PP2PPPP/R1BQKBNR b KQkq - 1 3"
    ]
    # the typo python-chess skips silently comes first: it explains the error after it
    assert sheets[2].problems[0] == "line 22: unreadable text 'Nf9'"
    assert sheets[2].problems[1].startswith("line 22: illegal san: 'Nxd4'")
    assert [p.label for p in sheets[3].plies] == ["1. f3", "1... e5", "2. g4", "2... Qh4#"]
    assert [p.line for p in sheets[3].plies] == [29] * 4


def test_move_lines_follow_the_file():
    sheet = ps.read_sheets((DATA / "opera.pgn").read_text())[0]
    lines = {p.label: p.line for p in sheet.plies}
    assert (lines["1. e4"], lines["3... Bg4"], lines["9... b5"], lines["17. Rd8#"]) == (
        10,
        11,
        13,
        15,
    )


@pytest.mark.parametrize(
    "movetext",
    [
        "1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Ba4 Nf6 5.O-O Be7 *",
        "1. e4 e5 2. Nf3+ Nc6 3. Bb5!? a6 $1 *",
        "1. e4 d5 2. e5 f5 3. exf6 e.p. Nxf6 *",
        "1. e4 e5 ; a comment to the end of the line: Xx9 }\n2. Nf3 *",
        "1. e4 {a comment { with a brace and Xx9 } e5 *",
        "1. e4 {a comment\nacross ) lines} e5 (1... c5 (1... e6) 2. Nf3) 2. Nf3 *",
        "%an escape line: Xx9\n1. e4 e5 *",
        "1. e4 e5 2. Nf3 Nc6 1/2-1/2",
    ],
)
def test_what_python_chess_reads_passes(movetext):
    sheet = one(movetext)
    assert (sheet.problems, sheet.warnings) == ([], [])


@pytest.mark.parametrize(
    "movetext, problem",
    [
        ("1. e4 e5 2. Ke9 *", "line 3: unreadable text 'Ke9'"),
        ("1. e4 e5 } 2. Nf3 *", "line 3: unreadable text '}'"),
        ("1. e4 e5 2. Nf3 Nc6 +- *", "line 3: unreadable text '+-'"),
        ("1. e4 e5 2. Nf3 N *", "line 3: unreadable text 'N'"),
        ("1. e4 e5 2. Nf3 Nc6 ½-½", "line 3: unreadable text '½-½'"),
        ("1. e4 e5\n2. Nf3 ) Nc6 *", "line 4: a ')' that closes no variation"),
        (
            "1. e4 (1. d4 d5\n2. c4 *",
            "line 3: a '(' never closed: the rest of the game reads as a variation",
        ),
        (
            "1. e4 e5 2. -- Nc6 *",
            "line 3: a null move (--) at ply 3: the scoresheet's move is missing",
        ),
        ("1. e4 e5\n2. Nf3 Nf3 *", "line 4: illegal san: 'Nf3' in "),
        ("1. e4 e5 2. Nbd2 *", "line 3: illegal san: 'Nbd2' in "),
    ],
)
def test_each_problem_is_named_with_its_line(movetext, problem):
    sheet = one(movetext)
    assert any(p.startswith(problem) for p in sheet.problems), sheet.problems


def test_a_bad_start_position_names_the_fen_tag():
    sheet = one("1. e4 *", '[Event "t"]\n[SetUp "1"]\n[FEN "8/8/9/8 w - - 0 1"]\n')
    assert sheet.problems[0].startswith("line 3: ")
    assert sheet.plies == []


def test_a_malformed_tag_is_a_warning_only():
    sheet = one("1. e4 e5 *", '[Event "t"]\n[White "Smith]\n')
    assert sheet.problems == []
    assert sheet.warnings == ['line 2: malformed tag pair [White "Smith], ignored']
    assert len(sheet.plies) == 2


def test_a_file_that_is_not_utf8_is_read_as_latin1():
    data = '[Event "t"]\n[White "Ren\xe9"]\n\n1. e4 *\n'.encode("latin-1")
    text, warning = ps.decode(data)
    assert warning == "not UTF-8 (line 2): read as ISO 8859-1"
    assert ps.read_sheets(text)[0].game.headers["White"] == "René"
    text, warning = ps.decode('\ufeff[White "Ren\xe9"]\n\n1. e4 *\n'.encode())
    assert (warning, ps.read_sheets(text)[0].title()) == (None, "game 1 (line 1, René - ?)")


def test_a_game_python_chess_cannot_read_is_skipped_whole(monkeypatch):
    """python-chess is forgiving; should it raise all the same, that game is reported and
    the next one read from its first tag (a fake read_game that fails mid-tags)."""
    real = chess.pgn.read_game
    calls = []

    def flaky(handle, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            handle.readline()
            raise RuntimeError("parser failure")
        return real(handle, **kwargs)

    monkeypatch.setattr(chess.pgn, "read_game", flaky)
    text = '[Event "a"]\n[White "A"]\n\n1. e4 *\n\n[Event "b"]\n[White "B"]\n\n1. d4 *\n'
    first, second = ps.read_sheets(text)
    assert first.problems == ["line 1: unreadable (parser failure)"]
    assert (second.title(), [p.label for p in second.plies]) == (
        "game 2 (line 6, B - ?)",
        ["1. d4"],
    )


# ----------------------------------------------------------------- tags
@pytest.mark.parametrize("index", range(presets.COUNT))
def test_every_presets_time_control_reads_back(index):
    """python-chess's TimeControl parser gives back each period's moves, seconds and
    increment or delay; hourglass is the standard's sandclock, the stopwatch no control,
    overtime unknown."""
    name, _code, mode, periods = presets.PRESETS[index][:4]
    text = pgn_headers.time_control(name)
    if mode == tc.MODE_HOURGLASS:
        assert text == "*%d" % periods[0][0]
    elif mode == tc.MODE_UPCOUNT:
        assert text == "-"
    elif mode in (tc.MODE_BYOYOMI, tc.MODE_CANADIAN):
        assert text == "?"
    else:
        parts = chess.pgn.parse_time_control(text).parts
        assert len(parts) == len(periods)
        for part, (time_s, moves, bonus, bonus_s) in zip(parts, periods, strict=True):
            assert (part.moves, part.time) == (moves, time_s)
            fischer = bonus_s if bonus == tc.BONUS_FISCHER else 0
            delay = bonus_s if bonus in (tc.BONUS_DELAY, tc.BONUS_BRONSTEIN) else 0
            assert (part.increment, part.delay) == (fischer, delay)


def test_fide_classical_time_control():
    assert pgn_headers.time_control("FIDE 90/40+30, 30 s inc") == "40/5400+30:1800+30"
    assert pgn_headers.time_control("custom") == "?"
    assert pgn_headers.time_control("a preset of another firmware") == "?"


RECORD = {"control": "Blitz 3+2", "result": "0-1", "reason": "flag", "white": 1, "moves": []}


def headers(**tags):
    game = chess.pgn.Game()
    for key, value in tags.items():
        game.headers[key] = value
    return game.headers


def test_merge_tags_fill_what_the_scoresheet_lacks():
    h = headers(Result="*")
    assert pgn_headers.merge_tags(h, RECORD, "g004.json") == []
    assert (h["Result"], h["Termination"], h["TimeControl"]) == ("0-1", "time forfeit", "180+2")
    assert (h["ClockControl"], h["ClockReason"], h["ClockResult"], h["ClockFile"]) == (
        "Blitz 3+2",
        "flag",
        "0-1",
        "g004.json",
    )


def test_merge_tags_keep_the_scoresheets_and_say_where_they_disagree():
    h = headers(Result="1-0", TimeControl="40/5400+30:1800+30", Termination="normal")
    notes = pgn_headers.merge_tags(h, RECORD, "g004.json")
    assert notes == [
        "results disagree: the clock recorded 0-1 (flag), the scoresheet says 1-0 (kept)",
        "the scoresheet's TimeControl 40/5400+30:1800+30 is not the clock's 180+2 (kept)",
    ]
    assert (h["Result"], h["TimeControl"], h["Termination"]) == (
        "1-0",
        "40/5400+30:1800+30",
        "normal",
    )
    h = headers(Result="1-0", TimeControl="?")
    unfinished = dict(RECORD, result="*", reason="")
    assert pgn_headers.merge_tags(h, unfinished, "g005.json") == []  # "*" disagrees with none
    assert (h["Result"], h["TimeControl"], "Termination" in h) == ("1-0", "180+2", False)
    custom = dict(RECORD, control='my "odd" one')
    h = headers(Result="0-1", TimeControl="300")
    assert pgn_headers.merge_tags(h, custom, "g006.json") == []  # unknown: no quarrel
    assert (h["TimeControl"], h["Termination"]) == ("300", "time forfeit")
    assert h["ClockControl"] == 'my \\"odd\\" one'  # stored escaped, as python-chess keeps tags


# ----------------------------------------------------------------- pairing
def sheets_of(n):
    return [ps.Sheet(i, 10 * i) for i in range(1, n + 1)]


def choices(n, **named):
    return {i: pgn_merge.Choice(named.get("g%d" % i)) for i in range(1, n + 1)}


def test_pairing_in_order_ends_with_the_newest_record():
    stems = ["g997", "g998", "g999", "g000"]  # oldest first
    paired, why, problems = pgn_merge.pair(sheets_of(2), stems, choices(2))
    assert paired == {1: "g999", 2: "g000"} and why == {} and problems == []
    paired, why, _ = pgn_merge.pair(sheets_of(5), stems, choices(5))
    assert paired == {1: None, 2: "g997", 3: "g998", 4: "g999", 5: "g000"}
    assert why == {1: "no clock record left for it"}


def test_pairing_by_name_takes_those_records_out_of_the_order():
    stems = ["g001", "g002", "g003", "g004"]
    paired, why, problems = pgn_merge.pair(sheets_of(4), stems, choices(4, g1="g004.json", g3="-"))
    assert paired == {1: "g004", 2: "g002", 3: None, 4: "g003"}
    assert why == {3: "no clock record (named '-')"} and problems == []


def test_record_names_read():
    assert [pgn_merge.record_stem(t) for t in ("g012", " g012.json ", "g012.json.tmp")] == [
        "g012"
    ] * 3
    assert [pgn_merge.record_stem(t) for t in ("-", "g12", "game 12", "g012.pgn")] == [
        "-",
        None,
        None,
        None,
    ]


# ----------------------------------------------------------------- ClockUpTo
def test_upto_reads_moves_and_counts():
    sheet = ps.read_sheets((DATA / "opera.pgn").read_text())[0]
    assert pgn_merge.upto_plies("16.", sheet) == 31
    assert pgn_merge.upto_plies(" 16... ", sheet) == 32
    assert pgn_merge.upto_plies("12", sheet) == 12
    for bad in ("18.", "16.. ", "x", ""):
        with pytest.raises(ValueError):
            pgn_merge.upto_plies(bad, sheet)


# ----------------------------------------------------------------- a property
@st.composite
def games_and_records(draw):
    """A random legal game of 0..40 half-moves and a record of as many presses, or up to
    two more or fewer (presses dropped or added at the end)."""
    board = chess.Board()
    sans = []
    for _ in range(draw(st.integers(0, 40))):
        moves = sorted(board.legal_moves, key=lambda m: m.uci())
        if not moves:
            break
        move = moves[draw(st.integers(0, len(moves) - 1))]
        sans.append(board.san(move))
        board.push(move)
    delta = draw(st.sampled_from([0, 0, -2, -1, 1, 2]))
    presses = max(0, len(sans) + delta)
    white = draw(st.integers(0, 1))
    rows = []
    for ply in range(presses):
        side = white if ply % 2 == 0 else 1 - white
        used = draw(st.integers(0, 3_600_000))
        rows.append([side, ply // 2 + 1, used, draw(st.integers(-5_000, 36_000_000))])
    record = {
        "version": 1,
        "control": "Rapid 25+10",
        "white": white,
        "result": "*",
        "reason": "arbiter",
        "moves": rows,
    }
    text = '[Event "p"]\n\n' + " ".join(sans + ["*"]) + "\n"
    return text, record, board.outcome() is not None


@settings(max_examples=80, deadline=None)
@given(games_and_records())
def test_times_are_written_exactly_when_the_record_fits(case):
    text, record, ended = case
    (sheet,) = ps.read_sheets(text)
    assert sheet.problems == []
    n, m = len(sheet.plies), len(record["moves"])
    result = pgn_merge.merge(sheet, record, "g000.json", 1, pgn_merge.Choice())
    game = chess.pgn.read_game(io.StringIO(result.text))
    assert game.errors == []
    clocks = [node.clock() for node in game.mainline()]
    if m == n or (m == n - 1 and ended):
        assert clocks[:m] == [max(row[3], 0) // 1000 for row in record["moves"]]
        assert clocks[m:] == [None] * (n - m)
        assert [node.emt() for node in game.mainline()][:m] == [
            row[2] // 1000 for row in record["moves"]
        ]
        assert result.problems == []
    else:
        assert clocks == [None] * n
        assert result.problems[0].startswith(
            "the clock has %d press(es), the scoresheet %d half-move(s)" % (m, n)
        )


def test_a_merge_replaces_an_earlier_merges_note():
    h = headers(Result="1-0", ClockNote="results disagree: an earlier export's note")
    assert pgn_headers.merge_tags(h, dict(RECORD, result="1-0"), "g004.json") == []
    assert "ClockNote" not in h


def test_a_missing_blank_line_between_games_is_named_once():
    """Without the blank line python-chess reads the next game's tags as moves of this one
    (`[Site "Board e4"]` would even give it a move e4): the game is refused, with the line."""
    text = '[Event "a"]\n\n1. e4 e5 1-0\n[Event "b"]\n[Site "Board d4"]\n[White "B"]\n\n1. d4 *\n'
    first, second = ps.read_sheets(text)
    assert first.problems == [
        "line 4: tag pairs among the moves (is the blank line before a game missing?)"
    ]
    assert (second.title(), [p.label for p in second.plies]) == ("game 2 (line 8)", ["1. d4"])
