"""Reading the clock's game records (games/gNNN.json): validation and one Row per half-move.

The clock writes them (firmware/shell/gamelog.py owns the format; this module only reads it):
  {"version": 1, "id": <the game's identity>, "control": "<preset name or 'custom'>",
   "white": 0 | 1, "result": "1-0" | "0-1" | "1/2-1/2" | "*", "reason": "<short text>",
   "moves": [[side, move_no, used_ms, left_ms], ...]}
side 0 = left, 1 = right; "white" names the side that had White; move_no counts that
player's moves from 1; left_ms is that player's remaining time right after the move,
increment included. All times are integer milliseconds. In byo-yomi and Canadian games a
row has a fifth item, overtime: 0 while the player is in main time, else the byo-yomi
periods left / the Canadian moves still to make in the block after the move (left_ms is
then the period's time / the time left in the block). "id" (absent in older files) ties the
record to the clock's saved game state; the export does not need it. A game given up
unfinished has result "*" and the reason "abandoned by the arbiter", "declined after a power
cut" (its resume was declined) or "unreadable after a power cut" (what the clock held could
not be restored: its moves are kept when they could be read). "final": {"white": ms,
"black": ms}, the times on the clocks when the game ended (absent from older records and
from an unreadable game's).

With time odds a record also has, before "moves":
  "controls": {"white": C, "black": C}   the control each colour played under, C in the
      settings' form {"mode": 0..4, "periods": [[time_s, moves, bonus_kind, bonus_s], ...]
      [, "overtime": [count, time_s]]} (firmware/shell/settings.py); with time odds they differ;
  "draw_odds": "white" | "black"         the colour the control gave a draw to;
  "drawn_by": "<reason>"                 with reason "draw odds": how the game was drawn.
Older records have none of them (control_of() then returns None).

With the arbiter's corrections (a game that had any), before "moves":
  "plies": N                             the half-moves of the whole game;
  "arbiter": [[ply, action, side, value, before, after], ...]   each correction, oldest
      first: `ply` the half-moves before it (0: before the first), `action` 3 time set,
      4 time added, 5 moves set, 6 period set, 7 Appendix G.4, 8 result entered, 9
      overtime counter set; `side` 0 left / 1 right (-1: a result); times in ms as the
      clock showed them, counts, periods from 0; G.4: value the bonus kind (1 increment,
      3 delay), before / after the opponent's time; a result: value the reason code (1
      flag, 2 dead position, 3 on the board, + 256 draw odds), after the result (1 left
      wins, 2 right wins, 3 draw);
  "arbiter_lost": K                      the oldest K corrections a full log dropped.
arbiter_notes() gives each its text; docs/export.md shows where the export puts them.
A game resumed after a
power cut holds every move, before and after the cut; a game of more than 600 half-moves
keeps its newest 600 (engine.LOG_CAPACITY), so its first row is then not move 1.

Lenient where the firmware is: move_no 0 and a negative left_ms pass gamelog.py's own
checks, so they pass here too (a negative time reads 0:00:00).
"""

import json
from typing import NamedTuple

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
SIDES = ("left", "right")
COLOURS = ("white", "black")


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


def clock_seconds(ms):
    """Milliseconds -> whole seconds, truncated, as %clk and %emt carry them; a clock has no
    negative time, so anything below 0 is 0."""
    return ms // 1000 if ms > 0 else 0


def clock_text(ms):
    """Milliseconds -> 'H:MM:SS' (whole seconds, truncated), as %clk writes it."""
    s = clock_seconds(ms)
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
    _check_odds(game)
    _check_arbiter(game)
    for i, move in enumerate(game["moves"]):
        if not (isinstance(move, list) and len(move) in (4, 5) and all(_is_int(v) for v in move)):
            raise GameError(
                "move %d is not [side, move_no, used_ms, left_ms(, overtime)]: %r" % (i + 1, move)
            )
        side, move_no, used_ms = move[:3]
        if side not in (0, 1) or move_no < 0 or used_ms < 0 or min(move[4:] + [0]) < 0:
            raise GameError("move %d is out of range: %r" % (i + 1, move))
    return game


def _check_arbiter(game):
    """The keys of the arbiter's corrections (see the module doc), where present."""
    for key in ("plies", "arbiter_lost"):
        if key in game and not (_is_int(game[key]) and game[key] >= 0):
            raise GameError("%r is not a count: %r" % (key, game[key]))
    entries = game.get("arbiter", [])
    if not isinstance(entries, list):
        raise GameError("'arbiter' is not a list")
    for i, e in enumerate(entries):
        if not (isinstance(e, list) and len(e) == 6 and all(_is_int(v) for v in e)):
            raise GameError("correction %d is not 6 ints: %r" % (i + 1, e))
        if e[0] < 0 or e[2] not in (-1, 0, 1):
            raise GameError("correction %d is out of range: %r" % (i + 1, e))


def _check_control(c, what):
    if not (isinstance(c, dict) and _is_int(c.get("mode")) and isinstance(c.get("periods"), list)):
        raise GameError("%s is not a control {mode, periods[, overtime]}: %r" % (what, c))
    for p in c["periods"]:
        if not (isinstance(p, list) and len(p) == 4 and all(_is_int(v) for v in p)):
            raise GameError("%s has a period that is not 4 ints: %r" % (what, p))
    ot = c.get("overtime")
    if ot is not None and not (isinstance(ot, list) and len(ot) == 2 and all(map(_is_int, ot))):
        raise GameError("%s has an overtime that is not [count, time_s]: %r" % (what, ot))


def _check_odds(game):
    """The keys of time odds (see the module doc), where present."""
    controls = game.get("controls")
    if controls is not None:
        if not isinstance(controls, dict):
            raise GameError("'controls' is not an object")
        for colour in COLOURS:
            _check_control(controls.get(colour), "controls.%s" % colour)
    if game.get("draw_odds", "white") not in COLOURS:
        raise GameError("'draw_odds' must be 'white' or 'black', not %r" % game["draw_odds"])
    if not isinstance(game.get("drawn_by", ""), str):
        raise GameError("'drawn_by' is not a string")


def control_of(game, colour):
    """The control `colour` ("white" / "black") played under, as the record has it (the
    settings' form), or None for a record without "controls"."""
    controls = game.get("controls")
    return None if controls is None else controls[colour]


def time_odds(game):
    """True when the record says the two colours played under different controls."""
    return control_of(game, "white") != control_of(game, "black")


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


# ------------------------------------------------------------------ the arbiter's corrections
ACTIONS = {
    3: "time set",
    4: "time added",
    5: "moves set",
    6: "period set",
    7: "Appendix G.4",
    8: "result",
    9: "overtime counter set",
}
REASONS = {1: "flag", 2: "dead position", 3: "on the board"}  # firmware/core/engine.py REASON_*
BY_DRAW_ODDS = 256
BONUSES = {1: "5 s increment", 3: "5 s delay"}  # timecontrol.BONUS_FISCHER, BONUS_DELAY


def exact_clock(ms):
    """ms -> 'H:MM:SS', with '.mmm' when the time is not whole seconds: the arbiter's
    corrections are written to the ms (a %clk truncates)."""
    text = clock_text(ms)
    return text + ".%03d" % (ms % 1000) if ms > 0 and ms % 1000 else text


def first_ply(game):
    """The half-moves of the game before the record's first row (0 unless the game had
    more than the 600 the clock keeps: "plies" - len(moves))."""
    return max(0, game.get("plies", len(game["moves"])) - len(game["moves"]))


def _player(game, side):
    colour = "White" if side == game["white"] else "Black"
    return "%s (%s)" % (colour, SIDES[side])


def _result_text(game, result):
    if result == 3:
        return "1/2-1/2"
    winner = 0 if result == 1 else 1
    return "1-0" if winner == game["white"] else "0-1"


def arbiter_text(game, entry):
    """The text of one correction (the module doc's entry), as the PGN comment and the
    CSV's `text` have it: 'Arbiter: White (left) time set 0:30:07 -> 0:15:07'."""
    _ply, action, side, value, before, after = entry
    what = ACTIONS.get(action, "action %d" % action)
    if action == 8:
        reason = REASONS.get(value & ~BY_DRAW_ODDS, "arbiter")
        if value & BY_DRAW_ODDS:
            reason = "draw odds, drawn by %s" % reason
        return "Arbiter: result %s (%s)" % (_result_text(game, after), reason)
    if side not in (0, 1):
        return "Arbiter: %s %d -> %d" % (what, before, after)
    who = _player(game, side)
    if action == 3:
        return "Arbiter: %s time set %s -> %s" % (who, exact_clock(before), exact_clock(after))
    if action == 4:
        sign = "+" if value >= 0 else "-"
        return "Arbiter: %s time %s%s, %s -> %s" % (
            who,
            sign,
            exact_clock(abs(value)),
            exact_clock(before),
            exact_clock(after),
        )
    if action == 7:
        return "Arbiter: Appendix G.4 asked by %s, %s for both; %s time %s -> %s" % (
            who,
            BONUSES.get(value, "bonus %d" % value),
            _player(game, 1 - side),
            exact_clock(before),
            exact_clock(after),
        )
    if action == 6:
        return "Arbiter: %s period %d -> %d" % (who, before + 1, after + 1)
    if action == 5:
        return "Arbiter: %s moves %d -> %d" % (who, before, after)
    return "Arbiter: %s %s %d -> %d" % (who, what, before, after)


def arbiter_notes(game):
    """{ply: [text, ...]}: each correction's text (arbiter_text) by the half-move it
    followed (0: before the first), oldest first; the count a full log dropped, when any,
    as a note at ply 0."""
    notes = {}
    lost = game.get("arbiter_lost", 0)
    if lost:
        notes[0] = ["Arbiter: %d earlier correction(s) not kept (more than the clock's 64)" % lost]
    for entry in game.get("arbiter", []):
        notes.setdefault(entry[0], []).append(arbiter_text(game, entry))
    return notes
