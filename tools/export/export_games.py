#!/usr/bin/env python3
"""Export the clock's game logs (`make export`): PGN with clock times, CSV, and a PNG plot;
with a scoresheet (`make export MOVES=FILE.pgn`), the games' moves with each move's times.

usage: export_games.py [--port PORT | --from-dir DIR] [--out DIR] [--null-moves]
                       [--moves FILE [--record N=gNNN] [--offset N=K] [--upto N=MOVE]]

The clock keeps its last games as /games/gNNN.json (NNN = 000..999, the oldest overwritten;
the format: tools/export/game_record.py, owned by firmware/shell/gamelog.py).

A power cut between writing a record and renaming it into place leaves gNNN.json.tmp; the
clock renames it at its next power-up, but a flash copied before that (a backup) may still
hold one. When gNNN.json is missing, a gNNN.json.tmp that is a whole record is exported as
gNNN (a tmp cut short never parses: it is reported and skipped).

This tool owns turning those files into, per game, in --out (default ./games):
  gNNN.json  the file as pulled from the board (kept even when it cannot be read),
  gNNN.pgn   the game with one clock comment per half-move, {[%clk H:MM:SS]} (with
             --moves, the scoresheet's game with [%clk] and [%emt] on its moves),
  gNNN.csv   ply, side, colour, move_no, used_ms, left_ms, clk (and overtime in byo-yomi
             and Canadian games; and control, the mover's TimeControl as the PGN tag
             writes it, in games with time odds),
  gNNN.png   both players' remaining time per move,
and all.pgn, every exported game in one file, oldest first (the numbers wrap round at
999, so the order is worked out from the gap in the numbering, as the clock does). The
arbiter's corrections a record holds are in its PGN, a comment after the half-move each
followed ({Arbiter: White (left) time set 0:30:07 -> 0:15:07}; game_record.arbiter_text),
and in arbiter.csv, one row each for every exported game (ARBITER_FIELDS; written when a
game has any).
With --moves FILE also FILE-clock.pgn (FILE's name without .pgn): every game of FILE in
FILE's order, with the clock's times where its record fits (tools/export/pgn_merge.py says when,
and what is done when it does not; tools/export/pgn_scoresheet.py what is refused in FILE). The
tags written from a record: tools/export/pgn_headers.py.
Files are pulled over USB with mpremote (`fs ls :games`, `fs cp :games/gNNN.json ...`),
after which the board is reset so the clock app runs again, unless --from-dir names a
local copy.
A file that is missing, empty, not JSON or not version 1 is reported and skipped; the
others are still exported; so is a game of FILE with an illegal or unreadable move. Exit
status 0 when every record (and every game of FILE) was exported; 1 when one was not (the
last line names each), when the board cannot be reached or FILE cannot be read.

PGN and unknown moves: the clock records times, not moves. %clk is the clock command that
lichess, ChessBase and python-chess read, in H:MM:SS with the seconds truncated. A PGN
clock comment belongs after a move, so without a scoresheet a placeholder is needed:
- default, a comment-only game: no move tokens at all, one comment per half-move labelled
  with its move number, e.g. {1. [%clk 1:29:43]} {1... [%clk 1:29:50]}. Standard PGN;
  lichess imports games without moves (but refuses null moves) and keeps the comments;
- --null-moves: `1. -- {[%clk 1:29:43]} -- {[%clk 1:29:50]}`, the null move `--` that
  ChessBase, SCID and python-chess accept, so each %clk is attached to its half-move and
  the `--` can later be replaced by the moves from the scoresheet. lichess rejects this.
  Such a file, its `--` replaced, is a FILE for --moves: its ClockFile tags name the
  records.
"""

import argparse
import csv
import io
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/: paths.py
import paths  # noqa: E402

paths.install(core=True)

import flash  # noqa: E402
import pgn_merge  # noqa: E402
from game_record import (  # noqa: E402, F401  (the names this tool has always offered)
    ACTIONS,
    COLOURS,
    RESULTS,
    SIDES,
    GameError,
    Row,
    arbiter_notes,
    arbiter_text,
    clock_text,
    first_ply,
    game_rows,
    parse_game,
    time_odds,
)
from pgn_headers import colour_time_control, movesless_tags, tag_line  # noqa: E402
from pgn_scoresheet import decode, read_sheets  # noqa: E402

GAME_NAME = re.compile(r"g\d{3}\.json")
TMP_NAME = re.compile(r"g\d{3}\.json\.tmp")  # a record a power cut left before its rename
CSV_FIELDS = ("ply", "side", "colour", "move_no", "used_ms", "left_ms", "clk")
OVERTIME_FIELD = "overtime"  # CSV column of byo-yomi / Canadian games
CONTROL_FIELD = "control"  # CSV column of games with time odds: the mover's TimeControl
ARBITER_CSV = "arbiter.csv"
# game: gNNN; ply: half-moves before the correction; move: the half-move it followed (as
# 12... ; empty before the first); side, colour of the player it concerns (empty: none);
# action: game_record.ACTIONS's; value, before, after: the record's ints; text: the comment
ARBITER_FIELDS = (
    "game",
    "ply",
    "move",
    "side",
    "colour",
    "action",
    "value",
    "before",
    "after",
    "text",
)
SPAN = 1000  # the clock numbers its logs 000..999, then wraps
PGN_LINE = 79  # PGN export format keeps movetext lines under 80 characters
PLOT_SIZE_IN = (8.0, 4.5)
PLOT_DPI = 100  # -> an 800 x 450 pixel PNG


def _wrap(tokens, width=PGN_LINE):
    lines, line = [], ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > width:
            lines.append(line)
            line = token
        else:
            line = token if not line else line + " " + token
    if line:
        lines.append(line)
    return lines


def movetext_tokens(rows, null_moves=False, notes=None, first=0):
    """PGN movetext for the log, without the result (see the module docstring). `notes`:
    {ply: [text, ...]} (game_record.arbiter_notes), each a comment after the half-move
    `ply` of the whole game, the log's first row being half-move `first` + 1; those before
    it lead the movetext."""
    notes = notes or {}
    tokens = ["{%s}" % t for p in sorted(notes) if p <= first for t in notes[p]]
    previous = None
    for row in rows:
        white = row.colour == "white"
        if not null_moves:
            label = "%d." % row.move_no if white else "%d..." % row.move_no
            tokens.append("{%s [%%clk %s]}" % (label, row.clk))
        else:
            follows_white = previous is not None and (
                previous.colour == "white" and previous.move_no == row.move_no
            )
            if white:
                tokens.append("%d." % row.move_no)
            elif not follows_white:
                tokens.append("%d..." % row.move_no)
            tokens += ["--", "{[%%clk %s]}" % row.clk]
        tokens += ["{%s}" % t for t in notes.get(first + row.ply, ())]
        previous = row
    last = first + len(rows)
    return tokens + ["{%s}" % t for p in sorted(notes) if p > last for t in notes[p]]


def pgn_text(game, name, null_moves=False):
    """The movesless PGN of one game: pgn_headers.movesless_tags(), then the movetext."""
    rows = game_rows(game)
    notes = arbiter_notes(game)
    tokens = movetext_tokens(rows, null_moves, notes, first_ply(game)) + [game["result"]]
    tags = [tag_line(k, v) for k, v in movesless_tags(game, name)]
    return "\n".join(tags + [""] + _wrap(tokens)) + "\n"


def csv_text(game):
    """CSV with a header row and one row per half-move (the module doc has the columns)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    rows = game_rows(game)
    overtime = any(r.overtime >= 0 for r in rows)
    odds = time_odds(game)
    controls = {c: colour_time_control(game, c) for c in COLOURS} if odds else {}
    writer.writerow(
        CSV_FIELDS + ((OVERTIME_FIELD,) if overtime else ()) + ((CONTROL_FIELD,) if odds else ())
    )
    for r in rows:
        row = tuple(r) if overtime else tuple(r)[: len(CSV_FIELDS)]
        writer.writerow(row + ((controls[r.colour],) if odds else ()))
    return buf.getvalue()


def arbiter_rows(game, stem):
    """The rows of arbiter.csv for one game (ARBITER_FIELDS), oldest first."""
    rows = game_rows(game)
    first = first_ply(game)
    out = []
    for entry in game.get("arbiter", []):
        ply, action, side, value, before, after = entry
        k = ply - first
        move = ""
        if 1 <= k <= len(rows):
            r = rows[k - 1]
            move = "%d%s" % (r.move_no, "." if r.colour == "white" else "...")
        colour = ""
        if side in (0, 1):
            colour = COLOURS[0] if side == game["white"] else COLOURS[1]
        out.append(
            (
                stem,
                ply,
                move,
                SIDES[side] if side in (0, 1) else "",
                colour,
                ACTIONS.get(action, str(action)),
                value,
                before,
                after,
                arbiter_text(game, entry),
            )
        )
    return out


def arbiter_csv_text(games):
    """arbiter.csv for [(stem, game), ...]: a header row, then every correction."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(ARBITER_FIELDS)
    for stem, game in games:
        writer.writerows(arbiter_rows(game, stem))
    return buf.getvalue()


def _tick_step_s(max_s):
    """A clock-friendly tick step giving at most 8 ticks up to max_s seconds."""
    for step in (10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200):
        if max_s / step <= 8:
            return step
    return 3600 * (int(max_s // (8 * 3600)) + 1)


def write_plot(game, name, path):
    """PNG of both players' remaining time (y, H:MM:SS) against their move number (x)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, MaxNLocator, MultipleLocator

    rows = game_rows(game)
    fig = Figure(figsize=PLOT_SIZE_IN, dpi=PLOT_DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    styles = {"white": dict(color="#b8860b", marker="o"), "black": dict(color="black", marker="s")}
    for colour in COLOURS:
        mine = [r for r in rows if r.colour == colour]
        side = SIDES[game["white"]] if colour == "white" else SIDES[1 - game["white"]]
        ax.plot(
            [r.move_no for r in mine],
            [r.left_ms / 1000 for r in mine],
            label="%s (%s)" % (colour.capitalize(), side),
            markersize=3,
            linewidth=1.5,
            **styles[colour],
        )
    top_s = max([r.left_ms / 1000 for r in rows] + [60])
    ax.set_ylim(0, top_s * 1.05)
    ax.yaxis.set_major_locator(MultipleLocator(_tick_step_s(top_s)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: clock_text(int(v * 1000))))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("move")
    ax.set_ylabel("remaining time")
    title = "%s  %s  %s (%s)" % (name, game["control"], game["result"], game["reason"] or "-")
    ax.set_title(title, parse_math=False)  # a '$' in a preset name is not TeX
    ax.grid(True, alpha=0.3)
    if rows:
        ax.legend(loc="lower left")
    else:
        ax.text(0.5, 0.5, "no moves recorded", ha="center", va="center", transform=ax.transAxes)
    fig.tight_layout()
    fig.savefig(path, format="png", metadata={"Software": None})


def chronological(names):
    """gNNN names (any suffix) oldest first. The clock numbers its logs 000..999 and wraps
    round, keeping the newest few, so the numbers in use form one run on that circle: the
    oldest is the one just after the widest gap between neighbours (998, 999, 000 -> 998
    first). On a tie the gap across the wrap wins, as in firmware/shell/gamelog.py."""
    named = sorted((int(Path(n).name[1:4]), n) for n in names)
    if not named:
        return []
    oldest = 0
    widest = named[0][0] + SPAN - named[-1][0]
    for i in range(len(named) - 1):
        gap = named[i + 1][0] - named[i][0]
        if gap > widest:
            widest, oldest = gap, i + 1
    return [n for _num, n in named[oldest:] + named[:oldest]]


def record_stem(path):
    """'gNNN' for gNNN.json and for its leftover gNNN.json.tmp."""
    return Path(path).name[:4]


def with_leftovers(names):
    """The gNNN.json names, plus each gNNN.json.tmp whose gNNN.json is not there."""
    mains = {n for n in names if GAME_NAME.fullmatch(Path(n).name)}
    main_names = {Path(n).name for n in mains}
    tmps = {
        n
        for n in names
        if TMP_NAME.fullmatch(Path(n).name) and Path(n).name[: -len(".tmp")] not in main_names
    }
    return sorted(mains | tmps, key=lambda n: Path(n).name)


class Report(NamedTuple):
    exported: list  # names (gNNN) written, oldest first
    problems: list  # "gNNN.json skipped: why", and the scoresheet's problems
    lines: list = []  # what became of each game of the scoresheet (standard output)


class Moves(NamedTuple):
    """--moves FILE, read, with the per-game options ({game number: text})."""

    path: Path
    text: str
    warning: str | None = None  # FILE was not UTF-8
    records: dict = {}
    offsets: dict = {}
    uptos: dict = {}


class Record(NamedTuple):
    stem: str  # gNNN
    file: str  # the file's name as found (gNNN.json or a leftover gNNN.json.tmp)
    game: dict | None  # parse_game's object, None when it cannot be read
    problem: str | None  # why not


def read_records(paths):
    """Every record in `paths`, oldest first, read or with the reason it cannot be."""
    records = []
    for path in chronological(paths):
        path = Path(path)
        leftover = TMP_NAME.fullmatch(path.name) is not None
        try:
            try:
                text = path.read_bytes().decode("utf-8")
            except FileNotFoundError:
                raise GameError("missing") from None
            except UnicodeDecodeError:
                raise GameError("not UTF-8 text") from None
            records.append(Record(record_stem(path), path.name, parse_game(text), None))
        except GameError as exc:
            why = "cut short by a power loss (%s)" % exc if leftover else str(exc)
            records.append(Record(record_stem(path), path.name, None, why))
    return records


def merge_moves(records, moves):
    """The scoresheet's games merged with `records` (tools/export/pgn_merge.py): returns
    ({stem: merged PGN}, [PGN of every exportable game of FILE, in order], problems, lines)."""
    problems, lines = [], []
    if moves.warning:
        problems.append("%s: %s" % (moves.path.name, moves.warning))
    sheets = read_sheets(moves.text)
    numbers = {s.number for s in sheets}
    for option, given in (
        ("--record", moves.records),
        ("--offset", moves.offsets),
        ("--upto", moves.uptos),
    ):
        for number in sorted(set(given) - numbers):
            problems.append(
                "%s %d=...: %s has %d game(s)" % (option, number, moves.path.name, len(sheets))
            )
    choices = {
        s.number: pgn_merge.choice_of(
            s, moves.records.get(s.number), moves.offsets.get(s.number), moves.uptos.get(s.number)
        )
        for s in sheets
    }
    paired, why_none, pair_problems = pgn_merge.pair(sheets, [r.stem for r in records], choices)
    problems += pair_problems
    by_stem = {r.stem: r for r in records}
    merged, texts = {}, []
    for sheet in sheets:
        title, stem = sheet.title(), paired[sheet.number]
        record = by_stem.get(stem)
        problems += ["%s: %s" % (title, w) for w in sheet.warnings]
        if sheet.problems:
            problems += ["%s not exported: %s" % (title, p) for p in sheet.problems]
            if record is not None:
                lines.append("%s: not exported; its record %s is, without moves" % (title, stem))
            continue
        if record is None:
            why = why_none[sheet.number]
            texts.append(pgn_merge.without_record(sheet, why))
            lines.append("%s: %s, exported without clock times" % (title, why))
            continue
        if record.game is None:
            why = "its clock record %s cannot be read (%s)" % (record.file, record.problem)
            texts.append(pgn_merge.without_record(sheet, why))
            lines.append("%s: %s, exported without clock times" % (title, why))
            continue
        result = pgn_merge.merge(
            sheet, record.game, stem + ".json", sheet.number, choices[sheet.number]
        )
        merged[stem] = result.text
        texts.append(result.text)
        lines.append(
            "%s + %s: clock times on %d of %d half-move(s)"
            % (title, stem, result.timed, len(sheet.plies))
        )
        lines += ["  note: %s" % n for n in result.notes]
        problems += ["%s + %s: %s" % (title, stem, p) for p in result.problems]
    for record in records:
        if record.game is not None and record.stem not in paired.values():
            lines.append(
                "%s: no game in %s for it, exported without moves" % (record.stem, moves.path.name)
            )
    return merged, texts, problems, lines


def export_files(paths, out_dir, null_moves=False, moves=None):
    """Export each gNNN.json in `paths` into out_dir, oldest first; bad files are reported,
    not fatal. With `moves` (a Moves), the scoresheet's games get the records' times."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    records = read_records(paths)
    merged, problems, lines = {}, [], []
    if moves is not None:
        merged, texts, problems, lines = merge_moves(records, moves)
        (out_dir / (moves.path.stem + "-clock.pgn")).write_text("\n".join(texts))
    exported, skipped, pgns, corrected = [], [], [], []
    for record in records:
        if record.game is None:
            skipped.append("%s skipped: %s" % (record.file, record.problem))
            continue
        stem, game = record.stem, record.game
        pgn = merged.get(stem) or pgn_text(game, stem + ".json", null_moves)
        (out_dir / (stem + ".pgn")).write_text(pgn)
        (out_dir / (stem + ".csv")).write_text(csv_text(game))
        write_plot(game, stem, out_dir / (stem + ".png"))
        pgns.append(pgn)
        exported.append(stem)
        if game.get("arbiter"):
            corrected.append((stem, game))
    if pgns:
        (out_dir / "all.pgn").write_text("\n".join(pgns))
    if corrected:
        (out_dir / ARBITER_CSV).write_text(arbiter_csv_text(corrected))
    return Report(exported, skipped + problems, lines)


def game_files(directory):
    """The gNNN.json files in a local directory, sorted, with leftover tmps (see above)."""
    return [Path(p) for p in with_leftovers([str(p) for p in Path(directory).iterdir()])]


def list_board_games(runner, board):
    """Names of the gNNN.json files in :games on the board, with leftover tmps (see above);
    [] when there is no such dir."""
    listing = flash.board_listing(runner, board, ":games", missing_ok=True)
    names = [n for n in listing if re.fullmatch(r"g\d{3}\.json(?:\.tmp)?", n)]
    return with_leftovers(names)


def pull_games(runner, board, dest):
    """Copy every :games/gNNN.json into the existing directory dest with one `fs cp`.
    Returns (paths copied, problems); a listed file that did not arrive is a problem."""
    names = list_board_games(runner, board)
    if not names:
        return [], []
    result = runner.run(board + ["fs", "cp"] + [":games/" + n for n in names] + [str(dest)])
    paths, problems = [], []
    for name in names:
        if (Path(dest) / name).is_file():
            paths.append(Path(dest) / name)
        else:
            problems.append("%s skipped: listed on the board but not copied" % name)
    if result.returncode != 0:
        problems.append("fs cp reported an error: %s" % flash.last_line(result))
    return paths, problems


def _per_game(text):
    """'N=VALUE' (an option for the game numbered N in FILE) -> (N, VALUE)."""
    number, sep, value = text.partition("=")
    if not sep or not number.strip().isdigit() or int(number) < 1:
        raise argparse.ArgumentTypeError("%r is not GAME=VALUE (GAME: 1, 2, ... in FILE)" % text)
    return int(number), value.strip()


def read_moves(args):
    """The Moves of --moves FILE; FlashError when FILE cannot be read (exit status 1)."""
    path = Path(args.moves)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise flash.FlashError("cannot read %s: %s" % (path, exc.strerror or exc)) from None
    text, warning = decode(data)
    return Moves(path, text, warning, dict(args.record), dict(args.offset), dict(args.upto))


def main(argv=None, runner=None, environ=None, out=None, err=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--port", default="", help="serial port of the clock (default: find it)")
    source.add_argument("--from-dir", default="", help="read gNNN.json files from this directory")
    parser.add_argument("--out", default="games", help="output directory (default: ./games)")
    parser.add_argument(
        "--null-moves", action="store_true", help="PGN with `--` placeholder moves (not lichess)"
    )
    parser.add_argument("--moves", default="", help="PGN of the games' moves (the scoresheets)")
    for name, what in (
        ("--record", "N=gNNN: game N of FILE has that record ('-': none)"),
        ("--offset", "N=K: game N's presses go K half-moves later"),
        ("--upto", "N=MOVE: game N gets clock times up to MOVE only (30. / 30... / plies)"),
    ):
        parser.add_argument(name, action="append", type=_per_game, default=[], help=what)
    args = parser.parse_args(argv)
    if (args.record or args.offset or args.upto) and not args.moves:
        parser.error("--record, --offset and --upto need --moves")
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    out_dir = Path(args.out)
    problems = []
    try:
        moves = read_moves(args) if args.moves else None
        if args.from_dir:
            if not Path(args.from_dir).is_dir():
                raise flash.FlashError("no such directory: %s" % args.from_dir)
            paths = game_files(args.from_dir)
            report = export_files(paths, out_dir, args.null_moves, moves)
        else:
            runner = flash.Runner() if runner is None else runner
            mpremote = flash.mpremote_command(environ)
            port = flash.resolve_port(runner, mpremote, args.port, out, tool="export")
            board = mpremote + ["connect", port]
            try:
                with tempfile.TemporaryDirectory() as tmp:
                    pulled, problems = pull_games(runner, board, tmp)
                    out_dir.mkdir(parents=True, exist_ok=True)
                    paths = []
                    for path in pulled:
                        shutil.copyfile(path, out_dir / path.name)
                        paths.append(out_dir / path.name)
            finally:
                runner.run(board + ["reset"])  # the probe stopped the clock app: restart it
            report = export_files(paths, out_dir, args.null_moves, moves)
    except flash.FlashError as exc:
        print("export: %s" % exc, file=err)
        return 1
    for line in report.lines:
        print(line, file=out)
    for problem in problems + report.problems:
        print("export: %s" % problem, file=err)
    failed = not_exported(problems + report.problems)
    skipped = sum(" skipped: " in p for p in problems + report.problems)
    print(
        "exported %d game(s) to %s%s"
        % (len(report.exported), out_dir, ", skipped %d (see above)" % skipped if skipped else ""),
        file=out,
    )
    if moves is not None:
        print(
            "%s: the games of %s, with the clock's times where they fit"
            % (out_dir / (moves.path.stem + "-clock.pgn"), moves.path),
            file=out,
        )
    if failed:
        print("export: not exported (see above): %s" % "; ".join(failed), file=err)
        return 1
    return 0


def not_exported(problems):
    """What the problems say was not exported: records ('gNNN.json skipped: ...') and
    games of FILE ('game N (...) not exported: ...'), by name, in order, once each."""
    names = []
    for p in problems:
        for mark in (" skipped: ", " not exported: "):
            if mark in p:
                name = p.split(mark, 1)[0]
                if name not in names:
                    names.append(name)
    return names


if __name__ == "__main__":
    sys.exit(main())
