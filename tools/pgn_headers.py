"""Every PGN tag the export writes from a clock record, in one place.

Two callers: the movesless export (export_games.pgn_text: the whole tag list) and the merge
with a scoresheet (pgn_merge: the scoresheet's tags kept, the clock's added). Tags owned
here:
  Termination   "time forfeit" after a flag, "adjudication" for an arbiter's result,
                "unterminated" for "*", else "normal" (the PGN standard's values);
  TimeControl   the PGN standard's form (section 9.6.1) of the clock's preset, see below;
  ClockControl  the record's "control" (the preset's name, or "custom"), as the clock has it;
  ClockReason   the record's "reason" ("flag", "dead position", "arbiter");
  ClockResult   (merge only) the record's result, whatever the scoresheet says;
  ClockFile     the record's file name, gNNN.json (the merge reads it back to name a record);
  ClockNote     (merge only) what the merge found: results that disagree, a count mismatch,
                a last move without a press (pgn_merge.py says which).

TimeControl from the preset table (firmware/presets.py, looked up by the record's name):
periods as `moves/seconds`, the last as `seconds`, joined by ':'; an increment as `+S`;
a simple (US) delay and a Bronstein delay both as `+Sd`, the delay form python-chess reads
(the PGN standard has none; ClockControl names which); hourglass `*S` (the standard's
sandclock); the stopwatch `-` (no control). Byo-yomi and Canadian overtime have no PGN form,
and a custom control is not in the record: `?` (unknown), with ClockControl saying what it
was. FIDE 90/40 + 30, 30 s from move 1: `40/5400+30:1800+30`.

Values are written escaped (backslash before `"` and `\\`, non-printable characters as
spaces); python-chess keeps tag values as they stand in the file, so the escaped form is
what goes into its Headers too.
"""

import sys
from pathlib import Path

from game_record import RESULTS, SIDES

FIRMWARE = Path(__file__).resolve().parent.parent / "firmware"
TERMINATIONS = {"flag": "time forfeit", "arbiter": "adjudication"}
UNKNOWN = "?"  # the PGN standard's "unknown" value
NO_RESULT = "*"


def pgn_string(value):
    """A PGN tag value: non-printable characters (newlines, tabs) become spaces, and
    backslash and double quote are escaped with a backslash."""
    value = "".join(c if c.isprintable() else " " for c in value)
    return value.replace("\\", "\\\\").replace('"', '\\"')


def tag_line(name, value):
    """One tag pair as a line of PGN, its value escaped."""
    return '[%s "%s"]' % (name, pgn_string(value))


def termination(game):
    """The PGN Termination value of the record's result and reason."""
    if game["result"] == NO_RESULT:
        return "unterminated"
    return TERMINATIONS.get(game["reason"], "normal")


def _presets():
    """firmware/presets.py and firmware/timecontrol.py, imported as the host tests do; the
    only MicroPython name they need outside the board is micropython.const."""
    try:
        import micropython  # noqa: F401  (the host tests' stand-in, when on sys.path)
    except ImportError:
        import types

        stub = types.ModuleType("micropython")
        stub.const = lambda value: value
        sys.modules["micropython"] = stub
    if str(FIRMWARE) not in sys.path:
        sys.path.append(str(FIRMWARE))
    import presets
    import timecontrol

    return presets, timecontrol


def _part(tc, time_s, moves, bonus, bonus_s):
    text = "%d/%d" % (moves, time_s) if moves else "%d" % time_s
    if bonus_s and bonus == tc.BONUS_FISCHER:
        text += "+%d" % bonus_s
    elif bonus_s and bonus in (tc.BONUS_DELAY, tc.BONUS_BRONSTEIN):
        text += "+%dd" % bonus_s
    return text


def time_control(control_name):
    """The PGN TimeControl value of the preset named `control_name` (see the module doc);
    '?' for 'custom', a name not in the table, and overtime controls."""
    presets, tc = _presets()
    for row in presets.PRESETS:
        if row[0] != control_name:
            continue
        mode, periods = row[2], row[3]
        if mode == tc.MODE_UPCOUNT:
            return "-"
        if mode == tc.MODE_HOURGLASS:
            return "*%d" % periods[0][0]
        if mode != tc.MODE_COUNTDOWN:
            return UNKNOWN
        return ":".join(_part(tc, *period) for period in periods)
    return UNKNOWN


def clock_tags(game, name):
    """The tags that carry the record itself, in the order written: TimeControl,
    ClockControl, ClockReason, ClockFile (`name`: the record's file name)."""
    return [
        ("TimeControl", time_control(game["control"])),
        ("ClockControl", game["control"]),
        ("ClockReason", game["reason"]),
        ("ClockFile", name),
    ]


def movesless_tags(game, name):
    """Every tag of the movesless export: the seven-tag roster (White and Black named after
    the clock's sides), Termination, then clock_tags()."""
    white, black = SIDES[game["white"]], SIDES[1 - game["white"]]
    return [
        ("Event", UNKNOWN),
        ("Site", UNKNOWN),
        ("Date", "????.??.??"),
        ("Round", UNKNOWN),
        ("White", white.capitalize()),
        ("Black", black.capitalize()),
        ("Result", game["result"]),
        ("Termination", termination(game)),
    ] + clock_tags(game, name)


def merge_tags(headers, game, name):
    """Add the record's tags to a scoresheet's python-chess `headers` (changed in place;
    the scoresheet's own tags are kept). Returns the notes on where they disagree:
    - Result: the clock's result and Termination where the scoresheet has none (missing or
      `*`); where both have one and they differ, the scoresheet's stays and a note says so;
    - TimeControl: the clock's where the scoresheet has none (missing, empty or `?`); a note
      where both are known and differ (the scoresheet's stays);
    - ClockControl, ClockReason, ClockResult, ClockFile: always the record's;
    - ClockNote: an earlier one (FILE is an earlier export) is removed; note_tags() writes
      this merge's."""
    notes = []
    if "ClockNote" in headers:
        del headers["ClockNote"]  # an earlier merge's (FILE was an export): notes are redone
    sheet, clock = headers.get("Result", NO_RESULT), game["result"]
    if sheet not in RESULTS or sheet == NO_RESULT:
        if clock != NO_RESULT:
            headers["Result"] = clock
            headers.setdefault("Termination", termination(game))
    elif clock != NO_RESULT and clock != sheet:
        notes.append(
            "results disagree: the clock recorded %s (%s), the scoresheet says %s (kept)"
            % (clock, game["reason"] or "no reason", sheet)
        )
    elif clock == sheet:
        headers.setdefault("Termination", termination(game))
    tags = dict(clock_tags(game, name))
    ours, theirs = tags.pop("TimeControl"), headers.get("TimeControl", "").strip()
    if theirs in ("", UNKNOWN):
        headers["TimeControl"] = ours
    elif ours != UNKNOWN and theirs != ours:
        notes.append(
            "the scoresheet's TimeControl %s is not the clock's %s (kept)" % (theirs, ours)
        )
    for tag in ("ClockControl", "ClockReason"):
        headers[tag] = pgn_string(tags[tag])
    headers["ClockResult"] = clock
    headers["ClockFile"] = pgn_string(tags["ClockFile"])
    return notes


def note_tags(headers, notes):
    """The merge's notes as one ClockNote tag ('; ' between them); none, no tag."""
    if notes:
        headers["ClockNote"] = pgn_string("; ".join(notes))
