"""Merging a scoresheet game with its clock record: which record goes with which game,
which press with which half-move, and the game's PGN with each move's [%clk] and [%emt].

Pairing (pair()). Games are numbered in the order of FILE. A game names its record with
the tag `[ClockFile "g012"]` (or "g012.json", as the export writes it; "-": no record for
this game), or with `--record 3=g012` (the option wins over the tag). The other games take
the records nobody named, in order, game for game, the last game with the newest record:
FILE usually holds the last few games played on the clock, and the clock keeps its last 20.
Records that cannot be read keep their place in that order (a broken file does not shift
every game after it); their game gets no times.

Alignment (align()). The clock's k-th press (in the record) is the half-move its move
number says: White's move n is ply 2n-1 of the game, Black's 2n (plies counted from the
first move of the scoresheet, whatever its FEN). Normally that is press k on ply k; a game
longer than 600 half-moves keeps only its newest 600 presses, and an arbiter may set the
move counters before the first press (a game moved to a new clock), so the first press may
sit later. The clock's times are written when the record fits the scoresheet exactly:
- its move numbers run on without a break, and the last press is the scoresheet's last
  half-move; or
- one half-move more on the scoresheet, and the game ended with it on the board (mate,
  stalemate, insufficient material, fivefold repetition, 75 moves: nobody presses after
  that) or the clock's record ends in a flag (the move was made as the flag fell): that
  move gets no time, and a note says so;
- and, where the scoresheet carries clock times of its own ([%clk]), none is a minute or
  more from the clock's (a misfit the times show; handwritten times are in minutes).
Anything else is a mismatch, never silent: the report names the game and the record, both
counts, where they diverge as far as the record shows it (a break in the clock's move
numbers; the scoresheet's own clock times parting from the clock's), writes no clock time
into that game, and prints the way out for it:
- `[ClockOffset "K"]` / `--offset N=K`: the presses go K half-moves later (K < 0: earlier,
  the first -K presses then belong to no move), where the move numbers put them;
- `[ClockUpTo "30..."]` / `--upto N=30...`: clock times only up to and with that move
  (`30.` White's 30th, `30...` Black's; a plain number counts half-moves).
With either, the times are written where the presses fall on moves, and what is left over
(presses without a move, moves without a press) is reported, not refused.

%clk is the player's remaining time after the move, %emt the time the move took, both in
whole seconds truncated (H:MM:SS), so python-chess reads back node.clock() ==
left_ms // 1000 and node.emt() == used_ms // 1000. A scoresheet's own %clk/%emt on a move
that gets the clock's time is replaced; on the other moves it stays, as do every comment,
NAG and variation (the clock's times go on the mainline only). The arbiter's corrections
the record holds become comments after the moves their presses fell on
(arbiter_comments).
"""

import re
from typing import NamedTuple

import chess.pgn
import pgn_headers
from game_record import arbiter_notes, clock_seconds, clock_text, first_ply, game_rows

DISAGREE_S = 60  # the scoresheet's own %clk this far from the clock's: they do not fit
RECORD_NAME = re.compile(r"(g\d{3})(?:\.json(?:\.tmp)?)?")
NO_RECORD = "-"


class Choice(NamedTuple):
    """What the user said about one game (a tag in FILE, or an option, which wins)."""

    record: str | None = None  # "gNNN", NO_RECORD, or None (the order decides)
    offset: str | None = None  # ClockOffset text
    upto: str | None = None  # ClockUpTo text


class Merge(NamedTuple):
    text: str  # the game's PGN
    timed: int  # half-moves that got the clock's time
    notes: list  # what the merge did that is worth knowing (also in ClockNote)
    problems: list  # mismatches and bad options: no times written, or some left out


def choice_of(sheet, record=None, offset=None, upto=None):
    """The Choice for a game: its ClockFile / ClockOffset / ClockUpTo tags, each replaced by
    the option given for it."""
    headers = sheet.game.headers if sheet.game is not None else {}
    return Choice(
        record if record is not None else headers.get("ClockFile"),
        offset if offset is not None else headers.get("ClockOffset"),
        upto if upto is not None else headers.get("ClockUpTo"),
    )


def record_stem(text):
    """'g012' for 'g012', 'g012.json' or 'g012.json.tmp'; NO_RECORD for '-'; else None."""
    text = text.strip()
    if text == NO_RECORD:
        return NO_RECORD
    match = RECORD_NAME.fullmatch(text)
    return match.group(1) if match else None


def pair(sheets, stems, choices):
    """({game number: record stem or None}, {game number: why it has none}, problems) (see
    the module doc). `stems`: every record's gNNN, oldest first; `choices`: {number: Choice}."""
    paired, why, named, problems = {}, {}, {}, []
    for sheet in sheets:
        want = choices[sheet.number].record
        if want is None:
            continue
        stem = record_stem(want)
        paired[sheet.number] = None
        if stem is None:
            why[sheet.number] = "no clock record: %r is not a record's name (gNNN)" % want
        elif stem == NO_RECORD:
            why[sheet.number] = "no clock record (named '-')"
        elif stem not in stems:
            why[sheet.number] = "no clock record: %s is not among the records" % stem
        elif stem in named:
            why[sheet.number] = "no clock record: %s is game %d's" % (stem, named[stem])
        else:
            named[stem] = sheet.number
            paired[sheet.number] = stem
        if stem != NO_RECORD and paired[sheet.number] is None:
            problems.append(
                "%s: %s" % (sheet.title(), why[sheet.number][len("no clock record: ") :])
            )
    free_sheets = [s.number for s in sheets if s.number not in paired]
    free_stems = [s for s in stems if s not in named]
    k = min(len(free_sheets), len(free_stems))
    for number in free_sheets[: len(free_sheets) - k]:
        paired[number] = None
        why[number] = "no clock record left for it"
    for number, stem in zip(
        free_sheets[len(free_sheets) - k :], free_stems[len(free_stems) - k :], strict=True
    ):
        paired[number] = stem
    return paired, why, problems


def clock_plies(rows):
    """The ply (0-based) each press says it is, from its colour and move number."""
    return [2 * (r.move_no - 1) + (r.colour == "black") for r in rows]


def _first_break(plies):
    """Index of the first press whose ply does not follow the one before, or None; a first
    press before ply 1 (move number 0) breaks at once."""
    if plies and plies[0] < 0:
        return 0
    for i in range(1, len(plies)):
        if plies[i] != plies[i - 1] + 1:
            return i
    return None


def _parting(pairs):
    """The first (ply, row) whose scoresheet %clk is DISAGREE_S or more from the clock's."""
    for ply, row in pairs:
        theirs = ply.node.clock()
        if theirs is not None and abs(theirs - clock_seconds(row.left_ms)) >= DISAGREE_S:
            return ply, row
    return None


def _press_label(row):
    return "%s's move %d" % (row.colour.capitalize(), row.move_no)


def upto_plies(text, sheet):
    """ClockUpTo / --upto text -> how many half-moves from the start get times; ValueError."""
    match = re.fullmatch(r"\s*(\d+)(\.|\.\.\.)?\s*", text)
    if not match:
        raise ValueError("ClockUpTo %r is neither a move (30. or 30...) nor a count" % text)
    if match.group(2) is None:
        return int(match.group(1))
    want = match.group(1) + match.group(2) + " "
    for ply in sheet.plies:
        if ply.label.startswith(want):
            return ply.index + 1
    raise ValueError("ClockUpTo %r is not a move of this game" % text.strip())


def _suggest(sheet, presses, number, c0):
    """The ways out for a mismatch, as tags and options, with what each assumes."""
    plies, n = sheet.plies, len(sheet.plies)
    ways = []
    if not n:
        return ways  # a scoresheet without moves: nothing to place the times on

    def upto(count, why):
        if 0 < count <= n:
            move = plies[count - 1].label.split(" ")[0]
            ways.append('%s: [ClockUpTo "%s"] or --upto %d=%s' % (why, move, number, move))

    def offset(k, why):
        ways.append('%s: [ClockOffset "%d"] or --offset %d=%d' % (why, k, number, k))

    end = c0 + presses
    if end < n:
        upto(end, "if the last %d half-move(s) had no press" % (n - end))
        offset(n - end, "if the first %d half-move(s) had no press" % (n - end))
    elif end > n:
        upto(n, "if the last %d press(es) had no move" % (end - n))
        offset(n - end, "if the first %d press(es) had no move" % (end - n))
    return ways


def _where(sheet, rows, plies, broken, pairs):
    """Where they diverge as far as the record shows it: (text, ply count before it)."""
    if broken is not None and broken == 0:
        return "the clock's first press says it is %s" % _press_label(rows[0]), None
    if broken is not None:
        at = plies[0] + broken
        text = "the clock's move numbers break at its press %d (%s after %s)" % (
            broken + 1,
            _press_label(rows[broken]),
            _press_label(rows[broken - 1]),
        )
        if at < len(sheet.plies):
            text += ", so they diverge at %s (line %d) at the latest" % (
                sheet.plies[at].label,
                sheet.plies[at].line,
            )
        return text, at
    parted = _parting(pairs)
    if parted is not None:
        ply, row = parted
        text = (
            "the scoresheet's own clock times part from the clock's at %s (line %d: %s on "
            "the scoresheet, %s on the clock), so they diverge there at the latest"
        ) % (ply.label, ply.line, clock_text(int(ply.node.clock() * 1000)), row.clk)
        return text, ply.index
    return "the clock's move numbers run on without a break, so the times do not show where", None


def align(sheet, game, number):
    """(pairs of (Ply, Row), notes, problems) for the scoresheet game `sheet` and the
    record `game` (see the module doc); `number` is the game's number for the options."""
    rows = game_rows(game)
    plies = clock_plies(rows)
    n, m = len(sheet.plies), len(rows)
    c0 = plies[0] if rows and plies[0] >= 0 else 0
    broken = _first_break(plies)
    pairs = [(sheet.plies[c0 + i], r) for i, r in enumerate(rows) if c0 + i < n]
    notes = []
    if c0:
        notes.append(
            "the clock's record starts at %s: no clock time before it" % sheet.plies[c0].label
            if c0 < n
            else "the clock's record starts after the scoresheet's last move"
        )
    if broken is None and c0 + m == n and _parting(pairs) is None:
        return pairs, notes, []
    if broken is None and c0 + m == n - 1 and _parting(pairs) is None and n:
        last = sheet.plies[-1].label
        if sheet.final is not None and sheet.final.outcome() is not None:
            notes.append("the last move, %s, ended the game on the board: no press" % last)
            return pairs, notes, []
        if game["reason"] == "flag":
            notes.append("the last move, %s, was made as the flag fell: no press" % last)
            return pairs, notes, []
    counts = "the clock has %d press(es), the scoresheet %d half-move(s)" % (m, n)
    if not m:
        return [], ["the clock recorded no press"], [counts + "; no clock times written"]
    if c0:
        counts += " (the record starts at the clock's %s)" % _press_label(rows[0])
    where, before = _where(sheet, rows, plies, broken, pairs)
    problem = "%s; %s; no clock times written" % (counts, where)
    ways = _suggest(sheet, m, number, c0)
    if broken:
        jump = plies[broken] - plies[broken - 1] - 1
        if jump > 0 and c0 + jump + m == n:
            ways.insert(
                0,
                "if the clock was %d half-move(s) behind until the arbiter set its counters: "
                '[ClockOffset "%d"] or --offset %d=%d' % (jump, jump, number, jump),
            )
    if before and before <= n:
        move = sheet.plies[before - 1].label.split(" ")[0]
        ways.insert(
            0,
            'to keep the times up to there: [ClockUpTo "%s"] or --upto %d=%s'
            % (move, number, move),
        )
    if ways:
        problem += "; " + "; ".join(ways)
    return [], ["mismatch: %s, %s; no clock times written" % (counts, where)], [problem]


def align_by_hand(sheet, game, choice):
    """(pairs, notes, problems) under the game's ClockOffset / ClockUpTo (module doc)."""
    rows = game_rows(game)
    plies = clock_plies(rows)
    n = len(sheet.plies)
    try:
        if choice.offset is not None and not re.fullmatch(r"\s*[+-]?\d+\s*", choice.offset):
            raise ValueError("ClockOffset %r is not a whole number" % choice.offset)
        k = int(choice.offset) if choice.offset is not None else 0
        limit = upto_plies(choice.upto, sheet) if choice.upto is not None else n
    except ValueError as exc:
        return [], ["%s; no clock times written" % exc], ["%s; no clock times written" % exc]
    limit = min(limit, n)
    c0 = plies[0] if rows and plies[0] >= 0 else 0
    pairs = [(sheet.plies[c0 + i + k], r) for i, r in enumerate(rows) if 0 <= c0 + i + k < limit]
    said = ", ".join(
        '%s "%s"' % (tag, value)
        for tag, value in (("ClockOffset", choice.offset), ("ClockUpTo", choice.upto))
        if value is not None
    )
    notes = ["times placed by %s: %d of %d half-move(s)" % (said, len(pairs), n)]
    if pairs:
        notes[0] += " (%s to %s)" % (pairs[0][0].label, pairs[-1][0].label)
    problems = []
    unused = len(rows) - len(pairs)
    if unused:
        problems.append("%d of the clock's %d press(es) fall on no move" % (unused, len(rows)))
    broken = _first_break(plies)
    if broken is not None:
        problems.append(
            "the clock's move numbers break at its press %d (%s after %s)"
            % (broken + 1, _press_label(rows[broken]), _press_label(rows[broken - 1]))
            if broken
            else "the clock's first press says it is %s" % _press_label(rows[0])
        )
    parted = _parting(pairs)
    if parted is not None:
        problems.append(
            "the scoresheet's own clock times part from the clock's at %s (line %d)"
            % (parted[0].label, parted[0].line)
        )
    return pairs, notes, problems


def merge(sheet, game, name, number, choice):
    """The Merge of scoresheet game `sheet` (a pgn_scoresheet.Sheet without problems) with
    the record `game` (game_record.parse_game) named `name` (gNNN.json). Changes sheet.game."""
    if choice.offset is None and choice.upto is None:
        pairs, notes, problems = align(sheet, game, number)
    else:
        pairs, notes, problems = align_by_hand(sheet, game, choice)
    for ply, row in pairs:
        ply.node.set_clock(clock_seconds(row.left_ms))
        ply.node.set_emt(clock_seconds(row.used_ms))
    arbiter_comments(sheet.game, game, pairs)
    notes = pgn_headers.merge_tags(sheet.game.headers, game, name) + notes
    pgn_headers.note_tags(sheet.game.headers, notes)
    return Merge(write(sheet.game), len(pairs), notes, problems)


def _comment(node, text):
    """`text` after the node's comment, unless it has it (a merged file merged again)."""
    if not node.comment:
        node.comment = text
    elif text not in node.comment:
        node.comment = node.comment + " " + text


def arbiter_comments(root, game, pairs):
    """The record's arbiter corrections (game_record.arbiter_notes) as comments in the
    game `root` (python-chess): each after the move its press fell on (before the first
    paired move: after the move before it, or the game's own comment); one whose
    half-move has no move (no clock times were written, or it falls outside them) goes in
    the game's comment, saying after which of the clock's half-moves it came."""
    notes = arbiter_notes(game)
    if not notes:
        return
    first = first_ply(game)
    nodes = {row.ply: ply.node for ply, row in pairs}
    if pairs:
        nodes[pairs[0][1].ply - 1] = pairs[0][0].node.parent
    for p in sorted(notes):
        node = nodes.get(p - first)
        for text in notes[p]:
            if node is None:
                _comment(root, "%s (after the clock's half-move %d)" % (text, p))
            else:
                _comment(node, text)


def without_record(sheet, why):
    """The scoresheet game as it is, with a ClockNote saying why it has no clock times."""
    pgn_headers.note_tags(sheet.game.headers, [why])
    return write(sheet.game)


def write(game):
    """python-chess's PGN of `game` (tags, comments, NAGs, variations), one newline after."""
    exporter = chess.pgn.StringExporter(headers=True, variations=True, comments=True)
    return game.accept(exporter) + "\n"
