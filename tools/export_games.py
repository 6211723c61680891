#!/usr/bin/env python3
"""Export the clock's game logs (`make export`): PGN with clock times, CSV, and a PNG plot.

usage: export_games.py [--port PORT | --from-dir DIR] [--out DIR] [--null-moves]

The clock keeps its last games as /games/gNNN.json (NNN = 000..999, the oldest overwritten):
  {"version": 1, "id": <the game's identity>, "control": "<preset name or 'custom'>",
   "white": 0 | 1, "result": "1-0" | "0-1" | "1/2-1/2" | "*", "reason": "<short text>",
   "moves": [[side, move_no, used_ms, left_ms], ...]}
side 0 = left, 1 = right; "white" names the side that had White; move_no counts that
player's moves from 1; left_ms is that player's remaining time right after the move,
increment included. All times are integer milliseconds. In byo-yomi and Canadian games a
row has a fifth item, overtime: 0 while the player is in main time, else the byo-yomi
periods left / the Canadian moves still to make in the block after the move (left_ms is
then the period's time / the time left in the block); the CSV then gets an "overtime"
column. "id" (absent in older files) ties the record to the clock's saved game state; the
export does not need it. A game resumed after a power cut holds every move, before and
after the cut.

A power cut between writing a record and renaming it into place leaves gNNN.json.tmp; the
clock renames it at its next power-up, but a flash copied before that (a backup) may still
hold one. When gNNN.json is missing, a gNNN.json.tmp that is a whole record is exported as
gNNN (a tmp cut short never parses: it is reported and skipped).

This tool owns turning those files into, per game, in --out (default ./games):
  gNNN.json  the file as pulled from the board (kept even when it cannot be read),
  gNNN.pgn   the game with one clock comment per half-move, {[%clk H:MM:SS]},
  gNNN.csv   ply, side, colour, move_no, used_ms, left_ms, clk,
  gNNN.png   both players' remaining time per move,
and all.pgn, every exported game in one file, oldest first (the numbers wrap round at
999, so the order is worked out from the gap in the numbering, as the clock does).
Files are pulled over USB with mpremote (`fs ls :games`, `fs cp :games/gNNN.json ...`),
after which the board is reset so the clock app runs again, unless --from-dir names a
local copy.
A file that is missing, empty, not JSON or not version 1 is reported and skipped; the
others are still exported (exit status 0). Not reaching the board is exit status 1.

PGN and unknown moves: the clock records times, not moves. %clk is the clock command that
lichess, ChessBase and python-chess read, in H:MM:SS with the seconds truncated. A PGN
clock comment belongs after a move, so a placeholder is needed:
- default, a comment-only game: no move tokens at all, one comment per half-move labelled
  with its move number, e.g. {1. [%clk 1:29:43]} {1... [%clk 1:29:50]}. Standard PGN;
  lichess imports games without moves (but refuses null moves) and keeps the comments;
- --null-moves: `1. -- {[%clk 1:29:43]} -- {[%clk 1:29:50]}`, the null move `--` that
  ChessBase, SCID and python-chess accept, so each %clk is attached to its half-move and
  the `--` can later be replaced by the moves from the scoresheet. lichess rejects this.
"""

import argparse
import csv
import io
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

import flash

GAME_NAME = re.compile(r"g\d{3}\.json")
TMP_NAME = re.compile(r"g\d{3}\.json\.tmp")  # a record a power cut left before its rename
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
SIDES = ("left", "right")
COLOURS = ("white", "black")
CSV_FIELDS = ("ply", "side", "colour", "move_no", "used_ms", "left_ms", "clk")
OVERTIME_FIELD = "overtime"  # CSV column of byo-yomi / Canadian games
TERMINATIONS = {"flag": "time forfeit", "arbiter": "adjudication"}  # PGN Termination tag
SPAN = 1000  # the clock numbers its logs 000..999, then wraps
PGN_LINE = 79  # PGN export format keeps movetext lines under 80 characters
PLOT_SIZE_IN = (8.0, 4.5)
PLOT_DPI = 100  # -> an 800 x 450 pixel PNG


class GameError(ValueError):
    """A game file that cannot be exported; the message says why."""


class Row(NamedTuple):
    ply: int  # 1-based position in the log
    side: str  # "left" | "right"
    colour: str  # "white" | "black"
    move_no: int  # that player's move number, from 1
    used_ms: int  # time the move took
    left_ms: int  # the player's remaining time after the move, increment included
    clk: str  # left_ms as H:MM:SS, seconds truncated
    overtime: int = -1  # byo-yomi periods left / Canadian moves to make (0 main time), -1 none


def clock_text(ms):
    """Milliseconds -> 'H:MM:SS' (whole seconds, truncated), as %clk writes it; a clock
    has no negative time, so anything below 0 reads 0:00:00."""
    s = ms // 1000 if ms > 0 else 0
    return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60)


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def parse_game(text):
    """Validate the text of one game file and return its object; GameError says what is wrong."""
    if not text.strip():
        raise GameError("empty file")
    try:
        game = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GameError("not valid JSON (%s)" % exc) from None
    if not isinstance(game, dict):
        raise GameError("not a JSON object")
    if game.get("version") != 1:
        raise GameError("unsupported version %r (this tool reads version 1)" % game.get("version"))
    for key in ("control", "white", "result", "reason", "moves"):
        if key not in game:
            raise GameError("missing %r" % key)
    for key in ("control", "reason"):
        if not isinstance(game[key], str):
            raise GameError("%r is not a string" % key)
    if game["white"] not in (0, 1) or isinstance(game["white"], bool):
        raise GameError("'white' must be 0 or 1, not %r" % game["white"])
    if game["result"] not in RESULTS:
        raise GameError(
            "'result' must be one of %s, not %r" % (", ".join(RESULTS), game["result"])
        )
    if not isinstance(game["moves"], list):
        raise GameError("'moves' is not a list")
    for i, move in enumerate(game["moves"]):
        if not (isinstance(move, list) and len(move) in (4, 5) and all(_is_int(v) for v in move)):
            raise GameError(
                "move %d is not [side, move_no, used_ms, left_ms(, overtime)]: %r" % (i + 1, move)
            )
        side, move_no, used_ms = move[:3]
        if side not in (0, 1) or move_no < 0 or used_ms < 0 or min(move[4:] + [0]) < 0:
            raise GameError("move %d is out of range: %r" % (i + 1, move))
    return game


def game_rows(game):
    """One Row per logged half-move, in log order."""
    rows = []
    for ply, move in enumerate(game["moves"], 1):
        side, move_no, used_ms, left_ms = move[:4]
        overtime = move[4] if len(move) == 5 else -1
        colour = COLOURS[0] if side == game["white"] else COLOURS[1]
        rows.append(
            Row(
                ply,
                SIDES[side],
                colour,
                move_no,
                used_ms,
                left_ms,
                clock_text(left_ms),
                overtime,
            )
        )
    return rows


def pgn_string(value):
    """A PGN tag value: non-printable characters (newlines, tabs) become spaces, and
    backslash and double quote are escaped with a backslash."""
    value = "".join(c if c.isprintable() else " " for c in value)
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _tag(name, value):
    return '[%s "%s"]' % (name, pgn_string(value))


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


def movetext_tokens(rows, null_moves=False):
    """PGN movetext for the log, without the result (see the module docstring)."""
    tokens = []
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
        previous = row
    return tokens


def pgn_text(game, name, null_moves=False):
    """The PGN of one game: the seven-tag roster, Termination, three Clock* tags, movetext."""
    white, black = SIDES[game["white"]], SIDES[1 - game["white"]]
    if game["result"] == "*":
        termination = "unterminated"
    else:
        termination = TERMINATIONS.get(game["reason"], "normal")
    tags = [
        ("Event", "?"),
        ("Site", "?"),
        ("Date", "????.??.??"),
        ("Round", "?"),
        ("White", white.capitalize()),
        ("Black", black.capitalize()),
        ("Result", game["result"]),
        ("Termination", termination),
        ("ClockControl", game["control"]),
        ("ClockReason", game["reason"]),
        ("ClockFile", name),
    ]
    tokens = movetext_tokens(game_rows(game), null_moves) + [game["result"]]
    return "\n".join([_tag(k, v) for k, v in tags] + [""] + _wrap(tokens)) + "\n"


def csv_text(game):
    """CSV with a header row and one row per half-move."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    rows = game_rows(game)
    overtime = any(r.overtime >= 0 for r in rows)
    writer.writerow(CSV_FIELDS + ((OVERTIME_FIELD,) if overtime else ()))
    for r in rows:
        writer.writerow(tuple(r) if overtime else tuple(r)[: len(CSV_FIELDS)])
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
    first). On a tie the gap across the wrap wins, as in firmware/gamelog.py."""
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
    problems: list  # "gNNN.json skipped: why"


def export_files(paths, out_dir, null_moves=False):
    """Export each gNNN.json in `paths` into out_dir, oldest first; bad files are reported,
    not fatal."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    exported, problems, pgns = [], [], []
    for path in chronological(paths):
        path = Path(path)
        stem = record_stem(path)
        leftover = TMP_NAME.fullmatch(path.name) is not None
        try:
            try:
                text = path.read_bytes().decode("utf-8")
            except FileNotFoundError:
                raise GameError("missing") from None
            except UnicodeDecodeError:
                raise GameError("not UTF-8 text") from None
            game = parse_game(text)
        except GameError as exc:
            if leftover:
                exc = "cut short by a power loss (%s)" % exc
            problems.append("%s skipped: %s" % (path.name, exc))
            continue
        pgn = pgn_text(game, stem + ".json", null_moves)
        (out_dir / (stem + ".pgn")).write_text(pgn)
        (out_dir / (stem + ".csv")).write_text(csv_text(game))
        write_plot(game, stem, out_dir / (stem + ".png"))
        pgns.append(pgn)
        exported.append(stem)
    if pgns:
        (out_dir / "all.pgn").write_text("\n".join(pgns))
    return Report(exported, problems)


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


def main(argv=None, runner=None, environ=None, out=None, err=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--port", default="", help="serial port of the clock (default: find it)")
    source.add_argument("--from-dir", default="", help="read gNNN.json files from this directory")
    parser.add_argument("--out", default="games", help="output directory (default: ./games)")
    parser.add_argument(
        "--null-moves", action="store_true", help="PGN with `--` placeholder moves (not lichess)"
    )
    args = parser.parse_args(argv)
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    out_dir = Path(args.out)
    problems = []
    try:
        if args.from_dir:
            if not Path(args.from_dir).is_dir():
                raise flash.FlashError("no such directory: %s" % args.from_dir)
            paths = game_files(args.from_dir)
            report = export_files(paths, out_dir, args.null_moves)
        else:
            runner = flash.Runner() if runner is None else runner
            mpremote = flash.mpremote_command(environ)
            port = flash.resolve_port(runner, mpremote, args.port, out)
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
            report = export_files(paths, out_dir, args.null_moves)
    except flash.FlashError as exc:
        print("export: %s" % exc, file=err)
        return 1
    for problem in problems + report.problems:
        print("export: %s" % problem, file=err)
    skipped = sum(" skipped: " in p for p in problems + report.problems)
    print(
        "exported %d game(s) to %s%s"
        % (len(report.exported), out_dir, ", skipped %d (see above)" % skipped if skipped else ""),
        file=out,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
