"""Reading the scoresheet file (`--moves FILE`): every game in it, with its line numbers.

python-chess parses the games and checks every move's legality; this module adds what the
export needs on top, and refuses to drop anything silently:
- the line of each game's first tag and of each mainline move, for messages;
- per game, its problems: an illegal, ambiguous or unparsable move (python-chess's message,
  with the line), a bad FEN, a null move (`--`) in the mainline (a move not filled in), and
  any text python-chess skips without a word (its tokenizer ignores what it does not
  recognise: `Nf9`, `Ke9`, a stray `}`). A game with a problem is not exported; the others
  are;
- per game, warnings that do not stop it: a malformed tag pair (python-chess drops it).
Games are numbered 1, 2, ... in the order of FILE, whatever their problems, so the number
names the same game in every message and option.

FILE is read as UTF-8 (a byte-order mark is fine); a file that is not UTF-8 is read as
ISO 8859-1, the PGN standard's own character set, with a warning.
"""

import io
import re
from typing import NamedTuple

import chess
import chess.pgn

# Outside comments, once python-chess's tokens are taken out, only these may remain: move
# numbers ("12.", "12..."), check and mate signs, an "e.p." after a capture.
_ALLOWED_REST = re.compile(r"(?:\d+\.*|\.+|[+#]|e\.p\.)+")
_TAGS_IN_MOVES = "tag pairs among the moves (is the blank line before a game missing?)"


class Ply(NamedTuple):
    index: int  # 0-based half-move in the mainline
    node: chess.pgn.ChildNode  # python-chess's node of the move (comments, clock)
    line: int  # line of FILE the move is on
    label: str  # "17... Rd8" (move number and SAN, as a PGN reader writes it)


class Sheet:
    """One game of FILE. `game` is python-chess's Game; `plies` its mainline; `problems`
    (the game is not exported) and `warnings` (it is), each text naming its line."""

    def __init__(self, number, line):
        self.number = number  # 1-based position in FILE
        self.line = line  # line of its first tag (or first move)
        self.game = None
        self.plies = []
        self.final = None  # chess.Board after the last mainline move
        self.problems = []
        self.warnings = []

    def title(self):
        """'game 3 (line 41, Smith - Jones)': how messages name it."""
        names = ""
        if self.game is not None:
            white = self.game.headers.get("White", "?")
            black = self.game.headers.get("Black", "?")
            if (white, black) != ("?", "?"):
                names = ", %s - %s" % (white, black)
        return "game %d (line %d%s)" % (self.number, self.line, names)


class _Lines:
    """FILE read line by line, counting: `line` is the number of the line read last (the
    one python-chess is working on), `read` every line so far."""

    def __init__(self, text):
        self._buf = io.StringIO(text)
        self.line = 0
        self.read = []

    def readline(self):
        text = self._buf.readline()
        if text:
            self.line += 1
            self.read.append(text)
        return text

    def skip_game(self):
        """Read on to the next game: up to, not including, the next tag pair line that
        follows a blank line (or the end)."""
        blank = False
        while True:
            at = self._buf.tell()
            text = self._buf.readline()
            if not text or (blank and text.startswith("[")):
                self._buf.seek(at)
                return
            self.line += 1
            self.read.append(text)
            blank = not text.strip()


class _Builder(chess.pgn.GameBuilder):
    """python-chess's GameBuilder that notes lines and keeps errors quiet (no logging)."""

    def __init__(self, lines):
        super().__init__()
        self._lines = lines

    def begin_game(self):
        super().begin_game()
        self.first_line = self._lines.line
        self.tag_lines = {}
        self.move_lines = {}  # id(node) -> line
        self.errors = []  # (line, error)
        self.board_seen = False

    def visit_header(self, tagname, tagvalue):
        super().visit_header(tagname, tagvalue)
        self.tag_lines[tagname] = self._lines.line

    def visit_board(self, board):
        self.board_seen = True

    def visit_move(self, board, move):
        super().visit_move(board, move)
        self.move_lines[id(self.variation_stack[-1])] = self._lines.line

    def handle_error(self, error):
        line = self._lines.line
        if not self.board_seen:  # the start position: FEN or Variant
            line = self.tag_lines.get("FEN", self.tag_lines.get("Variant", self.first_line))
        self.game.errors.append(error)
        self.errors.append((line, error))


def decode(data):
    """FILE's bytes as text: (text, warning or None); see the module doc."""
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        where = data[: exc.start].count(b"\n") + 1
        return data.decode("latin-1"), "not UTF-8 (line %d): read as ISO 8859-1" % where


def _stray_text(lines, first):
    """(line, text) of everything in a game's lines that python-chess would skip without a
    word: text it cannot read, a ')' that closes nothing, a '(' never closed (the rest of
    the game would be a variation), tag pair lines it cannot read, tag pairs after the
    moves began (the blank line before the next game is missing: python-chess reads its
    tags as moves). `first` is the number of lines[0]."""
    stray, in_comment, opened, in_tags, run_end = [], False, [], True, -1
    for number, line in enumerate(lines, first):
        text = line.rstrip("\r\n")
        if not in_comment:
            if text.startswith("%"):
                continue  # an escape line
            if text.startswith("[") and in_tags:
                if not chess.pgn.TAG_REGEX.match(text):
                    stray.append((number, "malformed tag pair %s" % text.strip()))
                continue
            if text.startswith("["):
                if run_end != number - 1:
                    stray.append((number, _TAGS_IN_MOVES))  # once per run of such lines
                run_end = number
                continue
            if in_tags and (not text.strip() or text.startswith(";")):
                continue
            in_tags = False
        segments, pos = [], 0
        while pos < len(text):
            if in_comment:
                end = text.find("}", pos)
                if end < 0:
                    break
                in_comment, pos = False, end + 1
                continue
            cut = min(
                (i for i in (text.find("{", pos), text.find(";", pos)) if i >= 0), default=-1
            )
            if cut < 0:
                segments.append(text[pos:])
                break
            segments.append(text[pos:cut])
            if text[cut] == ";":
                break  # the rest of the line is a comment
            in_comment, pos = True, cut + 1
        for segment in segments:
            for token in chess.pgn.MOVETEXT_REGEX.finditer(segment):
                if token.group(0) == "(":
                    opened.append(number)
                elif token.group(0) == ")" and opened:
                    opened.pop()
                elif token.group(0) == ")":
                    stray.append((number, "a ')' that closes no variation"))
            rest = chess.pgn.MOVETEXT_REGEX.sub(" ", segment).split()
            for piece in rest:
                if not _ALLOWED_REST.fullmatch(piece):
                    stray.append((number, "unreadable text %r" % piece))
    for number in opened:
        stray.append((number, "a '(' never closed: the rest of the game reads as a variation"))
    return stray


def _label(board, move):
    number = (
        "%d." % board.fullmove_number
        if board.turn == chess.WHITE
        else ("%d..." % board.fullmove_number)
    )
    return "%s %s" % (number, board.san(move))


def _finish(sheet, game, builder, lines, first):
    sheet.game = game
    sheet.line = builder.first_line or first
    found = [(line, 1, str(error)) for line, error in builder.errors]
    for line, what in _stray_text(lines, first):
        if what.startswith("malformed tag pair"):
            sheet.warnings.append("line %d: %s, ignored" % (line, what))
        else:
            found.append((line, 0, what))  # first: text skipped explains the error after it
    sheet.problems += ["line %d: %s" % (line, what) for line, _order, what in sorted(found)]
    if builder.errors and not builder.board_seen:
        return  # no start position: no moves to look at
    board = game.board()
    for index, node in enumerate(game.mainline()):
        line = builder.move_lines.get(id(node), sheet.line)
        if not node.move:
            sheet.problems.append(
                "line %d: a null move (--) at ply %d: the scoresheet's move is missing"
                % (line, index + 1)
            )
            board.push(node.move)
            continue
        sheet.plies.append(Ply(index, node, line, _label(board, node.move)))
        board.push(node.move)
    sheet.final = board


def read_sheets(text):
    """Every game of FILE's text, in order, as Sheets."""
    lines = _Lines(text)
    sheets = []
    while True:
        start = lines.line + 1
        holder = {}

        def visitor(holder=holder):
            holder["builder"] = _Builder(lines)
            return holder["builder"]

        sheet = Sheet(len(sheets) + 1, start)
        try:
            game = chess.pgn.read_game(lines, Visitor=visitor)
        except Exception as exc:  # python-chess is forgiving; this is for what it is not
            sheet.problems.append("line %d: unreadable (%s)" % (lines.line, exc))
            lines.skip_game()
            sheets.append(sheet)
            continue
        if game is None:
            return sheets
        builder = holder["builder"]
        first = start
        while first <= lines.line and not lines.read[first - 1].strip():
            first += 1  # the blank lines before the game
        _finish(sheet, game, builder, lines.read[first - 1 : lines.line], first)
        sheets.append(sheet)
