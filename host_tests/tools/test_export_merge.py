"""`make export MOVES=FILE.pgn` end to end: games played on the real firmware through the
simulated board's pins (simboard/firmware.py, with test_firmware_e2e.py's timing helpers),
the clock's own records taken from its flash folder, merged with the scoresheets written
for these tests (host_tests/data/scoresheets/), and the output read back with python-chess.

Every clock time is checked against the record the firmware wrote: node.clock() is the
record's left_ms // 1000 and node.emt() its used_ms // 1000 (both truncated, as %clk is),
on exactly the half-moves the record's presses belong to, and nowhere else.
"""

import io
import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import chess.pgn
import pytest
from test_firmware_e2e import PRESS_MS, choose_preset, long_set, power_on, tap

ROOT = Path(__file__).resolve().parents[2]

import export_games as ex  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data" / "scoresheets"
BLITZ_3_2 = 6  # firmware/core/presets.py: "Blitz 3+2", TimeControl 180+2
G60 = 14  # "Rapid G/60, no bonus"
SIDE = ("left", "right")
# Tags the merge adds to a scoresheet game (pgn_headers.py).
ADDED = ("TimeControl", "ClockControl", "ClockReason", "ClockResult", "ClockFile", "ClockNote")


def sheet(name):
    return (DATA / name).read_text()


def plies_of(text):
    game = chess.pgn.read_game(io.StringIO(text))
    return len(list(game.mainline_moves()))


class Table:
    """One clock on the simulated board. Black sits on the left and starts White's clock
    (right) with the first press; each think is the ms from one press's edge to the next."""

    def __init__(self, flash_dir, preset=BLITZ_3_2):
        self.flash_dir = Path(flash_dir)
        self.flash_dir.mkdir(parents=True, exist_ok=True)
        self.clock = power_on(self.flash_dir)
        if preset:
            choose_preset(self.clock, preset)
        self.side = 1

    def start(self):
        self.clock.press("left")
        self.side = 1

    def moves(self, thinks):
        for ms in thinks:
            self.clock.run_ms(ms - PRESS_MS)
            self.clock.press(SIDE[self.side])
            self.side = 1 - self.side

    def press_without_move(self, ms=700):
        self.moves([ms])

    def set_counters(self, left, right):
        """Paused: the arbiter sets both move counters (menu items `L  n`, `r  n`)."""
        long_set(self.clock)
        for _ in range(4):
            tap(self.clock, "set")
        for _ in range(left):
            tap(self.clock, "plus")
        tap(self.clock, "set")
        for _ in range(right):
            tap(self.clock, "plus")
        tap(self.clock, "play")  # apply and leave

    def pause(self):
        tap(self.clock, "play")

    def resume(self):
        tap(self.clock, "play")
        self.side = self.clock.app.ui.game.running

    def flag(self, lone_king=False):
        """The running side thinks until its flag falls; the arbiter answers the material
        entry (opponent: a pawn, rook or queen, or a lone king) and confirms."""
        self.clock.run_ms(400_000)
        assert self.clock.app.ui.game.state == 3  # a flag fell
        tap(self.clock, "set")
        if lone_king:
            tap(self.clock, "plus")
        tap(self.clock, "play")
        tap(self.clock, "play")

    def dead(self):
        """Pause, then the arbiter's dead-position item: the game ends drawn."""
        self.clock.run_ms(2_000)
        tap(self.clock, "play")
        long_set(self.clock)
        for _ in range(11):
            tap(self.clock, "set")
        tap(self.clock, "play")

    def next_game(self):
        tap(self.clock, "set")

    def games_dir(self):
        return self.flash_dir / "games"

    def record(self, name):
        return json.loads((self.games_dir() / name).read_text())


def thinks(n, seed, low=1_000, high=5_000):
    rng = random.Random(seed)
    return [rng.randrange(low, high) for _ in range(n)]


def export(tmp_path, games_dir, moves_text, *options, name="round.pgn"):
    """Run the tool as `make export MOVES=...` does (from a local copy of the flash)."""
    moves = tmp_path / name
    moves.write_text(moves_text)
    out = tmp_path / "out"
    argv = ["--from-dir", str(games_dir), "--out", str(out), "--moves", str(moves)]
    return ex.main(argv + list(options)), out


def read_all(path):
    handle = io.StringIO(Path(path).read_text())
    games = []
    while (game := chess.pgn.read_game(handle)) is not None:
        assert game.errors == []
        games.append(game)
    return games


def assert_times(game, record, first_ply=0, count=None):
    """The game's mainline carries the record's presses on plies first_ply.. (0-based), one
    press each, in order, and no clock time on any other half-move."""
    rows = record["moves"] if count is None else record["moves"][:count]
    nodes = list(game.mainline())
    for i, node in enumerate(nodes):
        k = i - first_ply
        if 0 <= k < len(rows):
            assert node.clock() == rows[k][3] // 1000, i
            assert node.emt() == rows[k][2] // 1000, i
        else:
            assert (node.clock(), node.emt()) == (None, None), i


def without_clock(game):
    """The game as the scoresheet had it: the clock's comments and tags taken out (the
    arbiter's corrections come last in a comment)."""
    for node in [game, *game.mainline()]:
        if node is not game:
            node.set_clock(None)
            node.set_emt(None)
        node.comment = re.sub(r"\s*Arbiter: .*$", "", node.comment, flags=re.S)
    for tag in ADDED:
        if tag in game.headers:
            del game.headers[tag]
    return game


# --------------------------------------------------------------- a round on one clock
@pytest.fixture(scope="module")
def round_games(tmp_path_factory):
    """Three games in a row on one clock (Blitz 3+2), as at a club evening:
    g000 the Opera game: White mates with 17. Rd8# and does not press; the arbiter records
         it the only way the clock has, a dead position (so the results disagree);
    g001 the Lasker trap: every move pressed, then White's flag falls (the scoresheet has
         no result);
    g002 a 110-ply game: Black makes 55... Re4 as the flag falls (no press); White has a
         lone king, so the arbiter enters a draw (6.9)."""
    table = Table(tmp_path_factory.mktemp("round") / "flash")
    table.start()
    table.moves(thinks(32, 1858))
    table.dead()
    table.next_game()
    table.start()
    table.moves(thinks(26, 1895))
    table.flag()
    table.next_game()
    table.start()
    table.moves(thinks(109, 2025, 700, 2_500))
    table.flag(lone_king=True)
    names = sorted(p.name for p in table.games_dir().iterdir())
    assert names == ["g000.json", "g001.json", "g002.json"]
    records = [table.record(n) for n in names]
    assert [(r["result"], r["reason"]) for r in records] == [
        ("1/2-1/2", "dead position"),
        ("0-1", "flag"),
        ("1/2-1/2", "flag"),
    ]
    assert [len(r["moves"]) for r in records] == [32, 26, 109]
    return table.games_dir(), records


ROUND = "\n".join(sheet(n) for n in ("opera.pgn", "lasker_trap.pgn", "long_flag.pgn"))


def test_a_round_gets_every_clock_time_on_its_move(tmp_path, round_games, capsys):
    games_dir, records = round_games
    status, out = export(tmp_path, games_dir, ROUND)
    assert status == 0
    merged = read_all(out / "round-clock.pgn")
    assert len(merged) == 3
    opera, lasker, long_game = merged
    assert_times(opera, records[0])  # 32 presses on plies 1..32, none on the mate
    assert_times(lasker, records[1])
    assert_times(long_game, records[2])  # 109 presses, none on 55... Re4
    assert list(opera.mainline())[-1].san() == "Rd8#"
    # gNNN.pgn is that game, all.pgn every record's game, oldest first
    for stem, game_text in zip(("g000", "g001", "g002"), merged, strict=True):
        assert read_all(out / (stem + ".pgn"))[0].headers == game_text.headers
        assert (out / (stem + ".csv")).exists() and (out / (stem + ".png")).exists()
    assert [g.headers["ClockFile"] for g in read_all(out / "all.pgn")] == [
        "g000.json",
        "g001.json",
        "g002.json",
    ]
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == [
        "game 1 (line 1, Morphy, Paul - Duke Karl of Brunswick and Count Isouard) + g000: "
        "clock times on 32 of 33 half-move(s)",
        "  note: results disagree: the clock recorded 1/2-1/2 (dead position), the scoresheet "
        "says 1-0 (kept)",
    ]
    assert "  note: the last move, 17. Rd8#, ended the game on the board: no press" in lines
    assert "  note: the last move, 55... Re4, was made as the flag fell: no press" in lines


def test_the_headers_the_scoresheet_and_the_clock_give(tmp_path, round_games):
    games_dir, _records = round_games
    export(tmp_path, games_dir, ROUND)
    opera, lasker, long_game = read_all(tmp_path / "out" / "round-clock.pgn")
    assert opera.headers["Event"] == "Paris Opera, Duke of Brunswick's box"
    assert opera.headers["ECO"] == "C41"  # every tag of the scoresheet kept
    assert (opera.headers["Result"], opera.headers["ClockResult"]) == ("1-0", "1/2-1/2")
    assert "Termination" not in opera.headers  # the clock's reason does not fit 1-0
    assert opera.headers["ClockNote"].startswith("results disagree: the clock recorded 1/2-1/2")
    # no result on the scoresheet: the clock's, and why
    assert (lasker.headers["Result"], lasker.headers["Termination"]) == ("0-1", "time forfeit")
    assert "ClockNote" not in lasker.headers
    assert (long_game.headers["Result"], long_game.headers["Termination"]) == (
        "1/2-1/2",
        "time forfeit",
    )
    for game, name in zip((opera, lasker, long_game), ("g000", "g001", "g002"), strict=True):
        assert game.headers["TimeControl"] == "180+2"
        assert game.headers["ClockControl"] == "Blitz 3+2"
        assert game.headers["ClockFile"] == name + ".json"


def test_the_scoresheet_survives_the_merge_whole(tmp_path, round_games):
    """Comments (before the first move, after moves, across lines), NAGs, variations, the
    promotions and the castling moves: the merged game less the clock's additions is the
    scoresheet's game."""
    games_dir, _records = round_games
    export(tmp_path, games_dir, ROUND)
    merged = read_all(tmp_path / "out" / "round-clock.pgn")
    handle = io.StringIO(ROUND)
    originals = [chess.pgn.read_game(handle) for _ in range(3)]
    originals[1].headers["Result"] = "0-1"  # taken from the clock (the test above)
    for original, game in zip(originals, merged, strict=True):
        if "Termination" in game.headers and "Termination" not in original.headers:
            del game.headers["Termination"]
        assert str(without_clock(game)) == str(original)
    text = " ".join((tmp_path / "out" / "round-clock.pgn").read_text().split())
    for piece in ("fxg1=N+ $3", "12. O-O-O", "4. O-O", "51... f1=Q", "( 4... dxe5 5. Qxd8+"):
        assert piece in text


def test_clock_comments_are_the_movesless_exports(tmp_path, round_games):
    """The %clk text python-chess writes is the one the movesless export writes (whole
    seconds, truncated), move for move."""
    games_dir, records = round_games
    export(tmp_path, games_dir, ROUND)
    text = (tmp_path / "out" / "g001.pgn").read_text()
    rows = ex.game_rows(records[1])
    assert re.findall(r"\[%clk ([0-9:]+)\]", text) == [r.clk for r in rows]
    assert re.findall(r"\[%emt ([0-9:]+)\]", text) == [ex.clock_text(r.used_ms) for r in rows]


# ------------------------------------------------------------------ pairing games
def test_more_games_than_records_pair_at_the_newest(tmp_path, round_games, capsys):
    """FILE's last game takes the newest record; a game older than every record gets none."""
    games_dir, records = round_games
    extra = sheet("broken.pgn").split("\n\n[")[0] + "\n"  # a game the clock never saw
    status, out = export(tmp_path, games_dir, extra + "\n" + ROUND)
    assert status == 0
    first, opera, lasker, long_game = read_all(out / "round-clock.pgn")
    assert first.headers["ClockNote"] == "no clock record left for it"
    assert all(n.clock() is None for n in first.mainline())
    assert_times(opera, records[0])
    assert_times(long_game, records[2])
    assert "game 1 (line 1, Good, One - Player, Two): no clock record left for it, exported" in (
        capsys.readouterr().out
    )


def test_records_named_by_tag_and_by_option(tmp_path, round_games, capsys):
    games_dir, records = round_games
    long_named = sheet("long_flag.pgn").replace("[Result", '[ClockFile "g002.json"]\n[Result')
    text = long_named + "\n" + sheet("opera.pgn")
    status, out = export(tmp_path, games_dir, text, "--record", "2=g000")
    assert status == 0
    long_game, opera = read_all(out / "round-clock.pgn")
    assert_times(long_game, records[2])
    assert_times(opera, records[0])
    captured = capsys.readouterr()
    assert "g001: no game in round.pgn for it, exported without moves" in captured.out
    assert captured.err == ""
    # the record nobody named keeps today's movesless export
    assert "{1. [%clk" in (out / "g001.pgn").read_text()


def test_naming_mistakes_are_reported(tmp_path, round_games, capsys):
    games_dir, _records = round_games
    opera = sheet("opera.pgn")
    text = "\n".join(
        [
            opera.replace("[ECO", '[ClockFile "g042"]\n[ECO'),
            opera.replace("[ECO", '[ClockFile "g000"]\n[ECO'),
            opera.replace("[ECO", '[ClockFile "g000"]\n[ECO'),
            opera.replace("[ECO", '[ClockFile "twelve"]\n[ECO'),
            opera.replace("[ECO", '[ClockFile "-"]\n[ECO'),
        ]
    )
    status, out = export(tmp_path, games_dir, text, "--offset", "9=1")
    assert status == 0
    err = capsys.readouterr().err
    assert "export: --offset 9=...: round.pgn has 5 game(s)" in err
    title = "game %d (line %d, Morphy, Paul - Duke Karl of Brunswick and Count Isouard)"
    assert "export: %s: g042 is not among the records" % (title % (1, 1)) in err
    assert "export: %s: g000 is game 2's" % (title % (3, 35)) in err
    assert "export: %s: 'twelve' is not a record's name (gNNN)" % (title % (4, 52)) in err
    games = read_all(out / "round-clock.pgn")
    assert [g.headers.get("ClockResult") for g in games] == [None, "1/2-1/2", None, None, None]
    assert games[0].headers["ClockNote"] == "no clock record: g042 is not among the records"
    assert games[4].headers["ClockNote"] == "no clock record (named '-')"


def test_an_unreadable_record_keeps_its_place(tmp_path, round_games, capsys):
    games_dir, records = round_games
    copy = tmp_path / "flash-copy"
    shutil.copytree(games_dir, copy)
    (copy / "g001.json").write_text('{"version": 1, "id": 3, "cont')
    status, out = export(tmp_path, copy, ROUND)
    assert status == 1  # g001.json was not exported
    opera, lasker, long_game = read_all(out / "round-clock.pgn")
    assert_times(opera, records[0])
    assert_times(long_game, records[2])
    assert lasker.headers["ClockNote"].startswith("its clock record g001.json cannot be read")
    assert all(n.clock() is None for n in lasker.mainline())
    assert "export: g001.json skipped: not valid JSON" in capsys.readouterr().err


def test_illegal_and_unreadable_moves_name_the_game_and_line(tmp_path, round_games, capsys):
    games_dir, records = round_games
    typo = sheet("lasker_trap.pgn").replace("10. Bc3 Bg4", "10. Bc3 Bg9")
    illegal = sheet("long_flag.pgn").replace("33. Kf1 Kh6", "33. Kf1 Kh1")
    text = "\n".join([sheet("opera.pgn"), typo, illegal])
    status, out = export(tmp_path, games_dir, text)
    assert status == 1  # games 2 and 3 of FILE were not exported
    line_typo = text.splitlines().index(next(x for x in text.splitlines() if "Bg9" in x)) + 1
    line_ill = text.splitlines().index(next(x for x in text.splitlines() if "Kf1 Kh1" in x)) + 1
    captured = capsys.readouterr()
    assert (
        "export: game 2 (line 17, Weiss, Anna - Schwarz, Bea) not exported: line %d: "
        "unreadable text 'Bg9'" % line_typo
    ) in captured.err
    assert (
        "export: game 3 (line 31, Left-hander, Lee - Right-hander, Rae) not exported: "
        "line %d: illegal san: 'Kh1'" % line_ill
    ) in captured.err
    assert "game 2 (line 17, Weiss, Anna - Schwarz, Bea): not exported; its record g001 is" in (
        captured.out
    )
    assert captured.err.endswith(
        "export: not exported (see above): game 2 (line 17, Weiss, Anna - Schwarz, Bea); "
        "game 3 (line 31, Left-hander, Lee - Right-hander, Rae)\n"
    )
    (opera,) = read_all(out / "round-clock.pgn")  # the good game is still exported
    assert_times(opera, records[0])
    assert "{1. [%clk" in (out / "g001.pgn").read_text()  # its record still is, movesless
    assert (out / "g002.csv").exists()


# ------------------------------------------------------------------ mismatches
OPERA = sheet("opera.pgn")
LASKER = sheet("lasker_trap.pgn")


def one_game(tmp_path, play, preset=BLITZ_3_2):
    """A fresh clock, `play(table)` on it; the flash's games folder and its one record."""
    table = Table(tmp_path / "flash", preset)
    table.start()
    play(table)
    names = sorted(p.name for p in table.games_dir().iterdir())
    assert names == ["g000.json"]
    return table.games_dir(), table.record("g000.json")


def test_clock_started_late_is_a_mismatch_until_offset(tmp_path, capsys):
    """The players made 1. e4 e5 before anybody started the clock: 31 presses for 33
    half-moves. Nothing in the record says where the two are missing, so no time is
    written; ClockOffset 2 (tag or option) then puts every press on its move."""
    games_dir, record = one_game(tmp_path, lambda t: (t.moves(thinks(31, 7)), t.dead()))
    status, out = export(tmp_path, games_dir, OPERA)
    assert status == 0
    (game,) = read_all(out / "round-clock.pgn")
    assert_times(game, record, count=0)
    err = capsys.readouterr().err
    title = "game 1 (line 1, Morphy, Paul - Duke Karl of Brunswick and Count Isouard) + g000"
    assert err.startswith(
        "export: %s: the clock has 31 press(es), the scoresheet 33 half-move(s); the clock's "
        "move numbers run on without a break, so the times do not show where; no clock times "
        'written; if the last 2 half-move(s) had no press: [ClockUpTo "16."] or --upto '
        '1=16.; if the first 2 half-move(s) had no press: [ClockOffset "2"] or --offset 1=2'
        % title
    )
    assert game.headers["ClockNote"].startswith("results disagree: ")
    assert "mismatch: the clock has 31 press(es), the scoresheet 33" in game.headers["ClockNote"]
    export(tmp_path, games_dir, OPERA, "--offset", "1=2")
    (by_option,) = read_all(out / "round-clock.pgn")
    assert_times(by_option, record, first_ply=2)
    assert 'times placed by ClockOffset "2": 31 of 33 half-move(s) (2. Nf3 to 17. Rd8#)' in (
        capsys.readouterr().out
    )
    export(tmp_path, games_dir, OPERA.replace("[ECO", '[ClockOffset "2"]\n[ECO'))
    (by_tag,) = read_all(out / "round-clock.pgn")
    assert_times(by_tag, record, first_ply=2)
    assert by_tag.headers["ClockOffset"] == "2"  # kept: it says what was done


def test_last_move_without_a_press_is_a_mismatch_until_upto(tmp_path, capsys):
    """White resigned after 13... Rxd1 before Black pressed: 25 presses, 26 half-moves,
    and the last move did not end the game on the board."""
    games_dir, record = one_game(tmp_path, lambda t: (t.moves(thinks(25, 8)), t.dead()))
    export(tmp_path, games_dir, LASKER)
    (game,) = read_all(tmp_path / "out" / "round-clock.pgn")
    assert_times(game, record, count=0)
    err = capsys.readouterr().err
    assert "the clock has 25 press(es), the scoresheet 26 half-move(s)" in err
    assert 'if the last 1 half-move(s) had no press: [ClockUpTo "13."] or --upto 1=13.' in err
    export(tmp_path, games_dir, LASKER, "--upto", "1=13.")
    (game,) = read_all(tmp_path / "out" / "round-clock.pgn")
    assert_times(game, record)
    assert capsys.readouterr().err == ""


def test_a_press_without_a_move_at_the_end(tmp_path, capsys):
    """After 13... Rxd1 White presses his lever without a move: 27 presses, 26 half-moves."""
    games_dir, record = one_game(
        tmp_path, lambda t: (t.moves(thinks(26, 9)), t.press_without_move(), t.dead())
    )
    export(tmp_path, games_dir, LASKER)
    (game,) = read_all(tmp_path / "out" / "round-clock.pgn")
    assert_times(game, record, count=0)
    err = capsys.readouterr().err
    assert "the clock has 27 press(es), the scoresheet 26 half-move(s)" in err
    assert 'if the last 1 press(es) had no move: [ClockUpTo "13..."] or --upto 1=13...' in err
    assert 'if the first 1 press(es) had no move: [ClockOffset "-1"] or --offset 1=-1' in err
    export(tmp_path, games_dir, LASKER.replace("[Result", '[ClockUpTo "13..."]\n[Result'))
    (game,) = read_all(tmp_path / "out" / "round-clock.pgn")
    assert_times(game, record, count=26)
    assert "1 of the clock's 27 press(es) fall on no move" in capsys.readouterr().err


def test_an_arbiters_counter_correction_shows_where(tmp_path, capsys):
    """The clock was started after 1. e4 e5; at Black's 10th move the arbiter set both move
    counters right (+1 each). The record's move numbers jump there: the report names that
    press and the scoresheet's move, and offers the offset the jump implies."""

    def play(t):
        t.moves(thinks(17, 10))  # presses for plies 3..19, the clock counting 1..9
        t.pause()
        t.set_counters(1, 1)  # Black (left) 8 -> 9, White (right) 9 -> 10: the board's count
        t.resume()
        t.moves(thinks(14, 11))  # plies 20..33
        t.dead()

    games_dir, record = one_game(tmp_path, play)
    numbers = [row[1] for row in record["moves"]]
    assert numbers[16:19] == [9, 10, 11]  # White's 9th ... then Black's 10th, White's 11th
    export(tmp_path, games_dir, OPERA)
    (game,) = read_all(tmp_path / "out" / "round-clock.pgn")
    assert_times(game, record, count=0)
    err = capsys.readouterr().err
    assert (
        "the clock's move numbers break at its press 18 (Black's move 10 after White's move "
        "9), so they diverge at 9... b5 (line 13) at the latest" in err
    )
    assert (
        "if the clock was 2 half-move(s) behind until the arbiter set its counters: "
        '[ClockOffset "2"] or --offset 1=2' in err
    )
    export(tmp_path, games_dir, OPERA, "--offset", "1=2")
    (game,) = read_all(tmp_path / "out" / "round-clock.pgn")
    assert_times(game, record, first_ply=2)
    assert "the clock's move numbers break at its press 18" in capsys.readouterr().err


def test_the_scoresheets_own_clock_times_show_where(tmp_path, capsys):
    """A scoresheet with clock times of its own (written in minutes, as on paper) that part
    from the clock's at 6... Nc6 (its times from there on are those one half-move later):
    the counts agree, but the times show the two do not fit."""

    def play(t):
        t.moves([70_000 if i % 2 == 0 else 5_000 for i in range(26)])
        t.dead()

    games_dir, record = one_game(tmp_path, play, preset=G60)
    game = chess.pgn.read_game(io.StringIO(LASKER))
    lefts = [row[3] for row in record["moves"]] + [record["moves"][-1][3]]
    for i, node in enumerate(game.mainline()):
        k = i if i < 11 else i + 1
        node.set_clock(lefts[k] // 60_000 * 60)  # whole minutes
    text = str(game) + "\n"
    export(tmp_path, games_dir, text)
    (merged,) = read_all(tmp_path / "out" / "round-clock.pgn")
    err = capsys.readouterr().err
    assert "the clock has 26 press(es), the scoresheet 26 half-move(s)" in err
    assert "the scoresheet's own clock times part from the clock's at 6... exf2+" in err
    assert 'to keep the times up to there: [ClockUpTo "6."] or --upto 1=6.' in err
    assert [n.clock() for n in merged.mainline()] == [n.clock() for n in game.mainline()]
    export(tmp_path, games_dir, text, "--upto", "1=6.")
    (merged,) = read_all(tmp_path / "out" / "round-clock.pgn")
    assert_times_first(merged, record, 11)


def assert_times_first(game, record, count):
    for node, row in zip(list(game.mainline())[:count], record["moves"], strict=False):
        assert (node.clock(), node.emt()) == (row[3] // 1000, row[2] // 1000)


def test_a_game_moved_to_a_new_clock_starts_where_its_counters_say(tmp_path, capsys):
    """At move 21 the game went on on a new clock, its counters set to 20 moves each before
    White's first press there: the record says which moves it holds, no option needed."""

    def play(t):
        t.pause()
        t.set_counters(20, 20)
        t.resume()
        t.moves(thinks(70, 12, 700, 2_000))  # plies 41..110
        t.dead()

    games_dir, record = one_game(tmp_path, play)
    assert record["moves"][0][:2] == [1, 21]
    long_game = sheet("long_flag.pgn")
    export(tmp_path, games_dir, long_game)
    (game,) = read_all(tmp_path / "out" / "round-clock.pgn")
    assert_times(game, record, first_ply=40)
    out = capsys.readouterr()
    assert out.err == ""
    assert "note: the clock's record starts at 21. Qxe5: no clock time before it" in out.out


def test_a_game_from_a_position_with_black_to_move(tmp_path):
    """A scoresheet that starts from a FEN with Black to move: the clock's first press is
    the scoresheet's first half-move, whoever the clock took for White."""
    text = (
        '[Event "Endgame training"]\n[SetUp "1"]\n'
        '[FEN "8/5k2/8/8/8/8/4PK2/8 b - - 0 40"]\n[Result "*"]\n\n'
        "40... Ke6 41. Ke3 Kd5 42. Kd3 Ke5 43. e4 Kf4 44. Kd4 Kg5 45. e5 Kf5 *\n"
    )
    games_dir, record = one_game(tmp_path, lambda t: (t.moves(thinks(11, 13)), t.dead()))
    export(tmp_path, games_dir, text)
    (game,) = read_all(tmp_path / "out" / "round-clock.pgn")
    assert_times(game, record)


def test_bad_way_out_values_are_reported(tmp_path, capsys):
    games_dir, record = one_game(tmp_path, lambda t: (t.moves(thinks(26, 14)), t.dead()))
    export(tmp_path, games_dir, LASKER, "--offset", "1=two")
    assert "ClockOffset 'two' is not a whole number; no clock times written" in (
        capsys.readouterr().err
    )
    (game,) = read_all(tmp_path / "out" / "round-clock.pgn")
    assert "ClockOffset 'two' is not a whole number" in game.headers["ClockNote"]
    assert all(n.clock() is None for n in game.mainline())
    export(tmp_path, games_dir, LASKER, "--upto", "1=40.")
    assert "ClockUpTo '40.' is not a move of this game; no clock times written" in (
        capsys.readouterr().err
    )
    export(tmp_path, games_dir, LASKER, "--upto", "1=soon")
    assert "ClockUpTo 'soon' is neither a move (30. or 30...) nor a count" in (
        capsys.readouterr().err
    )
    export(tmp_path, games_dir, LASKER, "--upto", "1=10")  # a count of half-moves
    (game,) = read_all(tmp_path / "out" / "round-clock.pgn")
    assert_times_first(game, record, 10)
    assert [n.clock() for n in list(game.mainline())[10:]] == [None] * 16


# ------------------------------------------------------------------ the front door
def test_a_moves_file_that_cannot_be_read_stops_before_the_board(tmp_path, capsys):
    calls = []

    class Runner:
        def run(self, argv):
            calls.append(argv)
            raise AssertionError("the board was touched")

    status = ex.main(["--moves", str(tmp_path / "none.pgn"), "--out", str(tmp_path)], Runner())
    assert status == 1 and calls == []
    assert "export: cannot read %s" % (tmp_path / "none.pgn") in capsys.readouterr().err


def test_per_game_options_need_moves(capsys):
    with pytest.raises(SystemExit):
        ex.main(["--from-dir", ".", "--offset", "1=2"])
    assert "--record, --offset and --upto need --moves" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        ex.main(["--from-dir", ".", "--moves", "x.pgn", "--upto", "0=3"])
    assert "'0=3' is not GAME=VALUE" in capsys.readouterr().err


def test_make_export_hands_moves_over():
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    result = subprocess.run(
        ["make", "-n", "export", "MOVES=round 3.pgn"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert re.search(
        r'tools/export/export_games.py +--out games --moves "round 3.pgn"', result.stdout
    )
    plain = subprocess.run(
        ["make", "-n", "export"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert "--moves" not in plain.stdout


def test_a_game_longer_than_the_clocks_log_keeps_its_newest_presses(tmp_path, capsys):
    """620 half-moves: the engine's log (a ring of LOG_CAPACITY) keeps the newest 600, and
    the record's first move number places them on plies 21..620. Played on the engine and
    written by gamelog, as the firmware does (600 presses through the pins take long)."""
    import engine
    import gamelog
    import presets

    assert engine.LOG_CAPACITY == 600
    control = presets.control(G60)
    game = engine.Game(control)
    at = 1_000
    game.press(0, at)  # Black (left) starts White's clock
    rng = random.Random(620)
    for ply in range(620):
        at += rng.randrange(500, 6_000)
        game.press(1 - ply % 2, at)  # White (right) first
    root = tmp_path / "flash"
    root.mkdir()
    assert gamelog.save_game_log(str(root), control.name, game.white, "*", "arbiter",
                                 game.log_entries()) == "g000.json"  # fmt: skip
    record = json.loads((root / "games" / "g000.json").read_text())
    assert len(record["moves"]) == 600 and record["moves"][0][:2] == [1, 11]
    shuffle = chess.pgn.Game()
    shuffle.headers["Event"] = "Knight shuffle"
    shuffle.add_line(chess.Move.from_uci(m) for m in ["g1f3", "g8f6", "f3g1", "f6g8"] * 155)
    export(tmp_path, root / "games", str(shuffle) + "\n")
    (merged,) = read_all(tmp_path / "out" / "round-clock.pgn")
    assert_times(merged, record, first_ply=20)
    out = capsys.readouterr()
    assert "clock times on 600 of 620 half-move(s)" in out.out
    assert "note: the clock's record starts at 11. Nf3: no clock time before it" in out.out
    assert out.err == ""


def test_an_export_read_back_as_file_gives_the_same_export(tmp_path, round_games):
    """FILE-clock.pgn is itself a FILE: its ClockFile tags name the records, its clock
    comments are the clock's own, so merging it again changes nothing."""
    games_dir, _records = round_games
    export(tmp_path, games_dir, ROUND)
    first = (tmp_path / "out" / "round-clock.pgn").read_text()
    export(tmp_path, games_dir, first)
    assert (tmp_path / "out" / "round-clock.pgn").read_text() == first
