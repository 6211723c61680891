"""Every PGN tag the export writes from a clock record, in one place.

Two callers: the movesless export (export_games.pgn_text: the whole tag list) and the merge
with a scoresheet (pgn_merge: the scoresheet's tags kept, the clock's added). Tags owned
here:
  Termination   "time forfeit" after a flag, "adjudication" for an arbiter's result,
                "abandoned" for a game the arbiter abandoned, "emergency" for one given
                up after a power cut (its resume declined, or unreadable), "unterminated"
                for any other "*", else "normal" (the PGN standard's values);
  TimeControl   the PGN standard's form (section 9.6.1) of White's control, see below;
  BlackTimeControl  the same for Black's, only when it differs from White's (time odds:
                Armageddon, handicap games). The standard has one TimeControl for the game;
                this tag follows its naming (as WhiteElo / BlackElo do) and its value form,
                and readers that do not know it keep it as an unknown tag;
  ClockControl  the record's "control" (the preset's name, or "custom"), as the clock has it;
  ClockReason   the record's "reason" ("flag", "dead position", "on the board", "draw odds",
                "arbiter", "abandoned by the arbiter", "declined after a power cut",
                "unreadable after a power cut");
  ClockDrawOdds the colour the control gave a draw to ("White" / "Black"), when it did;
  ClockDrawnBy  with reason "draw odds": how the game was drawn ("flag": the material at the
                flag could not mate, "dead position", "on the board");
  ClockResult   (merge only) the record's result, whatever the scoresheet says;
  ClockFile     the record's file name, gNNN.json (the merge reads it back to name a record);
  ClockNote     (merge only) what the merge found: results that disagree, a count mismatch,
                a last move without a press (pgn_merge.py says which).

TimeControl from the record's "controls" (the control of each colour), or
for an older record from the preset table (firmware/core/presets.py, looked up by the record's
name): periods as `moves/seconds`, the last as `seconds`, joined by ':'; an increment as `+S`;
a simple (US) delay and a Bronstein delay both as `+Sd`, the delay form python-chess reads
(the PGN standard has none; ClockControl names which); hourglass `*S` (the standard's
sandclock); the stopwatch `-` (no control). Byo-yomi and Canadian overtime have no PGN form:
`?` (unknown), as for a custom control in an older record (it did not keep the control),
with ClockControl saying what it was. FIDE 90/40 + 30, 30 s from move 1:
`40/5400+30:1800+30`; Armageddon 5 v 4 with 2 s from move 61: TimeControl `60/300:0+2`,
BlackTimeControl `60/240:0+2`.

Values are written escaped (backslash before `"` and `\\`, non-printable characters as
spaces); python-chess keeps tag values as they stand in the file, so the escaped form is
what goes into its Headers too.
"""

from game_record import RESULTS, SIDES, control_of, time_odds

TERMINATIONS = {"flag": "time forfeit", "arbiter": "adjudication"}
# the unfinished games' reasons (firmware/shell/archive.py writes them with result "*")
UNFINISHED = {
    "abandoned by the arbiter": "abandoned",
    "declined after a power cut": "emergency",
    "unreadable after a power cut": "emergency",
}
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
        return UNFINISHED.get(game["reason"], "unterminated")
    return TERMINATIONS.get(game["reason"], "normal")


def _presets():
    """firmware/core/presets.py and timecontrol.py, on sys.path through
    paths.install(core=True) (make export, make live) or the tests' simulated board."""
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


def spec_time_control(spec):
    """The PGN TimeControl value of a control in the settings' form ({"mode", "periods"
    [, "overtime"]}, as a record's "controls" hold it; see the module doc)."""
    _presets_mod, tc = _presets()
    mode, periods = spec["mode"], spec["periods"]
    if mode == tc.MODE_UPCOUNT:
        return "-"
    if mode == tc.MODE_HOURGLASS:
        return "*%d" % periods[0][0]
    if mode != tc.MODE_COUNTDOWN:
        return UNKNOWN
    return ":".join(_part(tc, *period) for period in periods)


def time_control(control_name):
    """The PGN TimeControl value of the preset named `control_name` (see the module doc),
    the left side's of a preset with time odds; '?' for 'custom', a name not in the table,
    and overtime controls."""
    presets, _tc = _presets()
    for row in presets.PRESETS:
        if row[0] == control_name:
            return spec_time_control({"mode": row[2], "periods": row[3]})
    return UNKNOWN


def colour_time_control(game, colour):
    """The PGN TimeControl value of the control `colour` played under: from the record's
    "controls", else (an older record) from the preset it names."""
    spec = control_of(game, colour)
    return time_control(game["control"]) if spec is None else spec_time_control(spec)


def clock_tags(game, name):
    """The tags that carry the record itself, in the order written: TimeControl (White's),
    BlackTimeControl (only with time odds), ClockControl, ClockReason, ClockDrawOdds and
    ClockDrawnBy (only under draw odds), ClockFile (`name`: the record's file name)."""
    tags = [("TimeControl", colour_time_control(game, "white"))]
    if time_odds(game):
        tags.append(("BlackTimeControl", colour_time_control(game, "black")))
    tags += [("ClockControl", game["control"]), ("ClockReason", game["reason"])]
    if "draw_odds" in game:
        tags.append(("ClockDrawOdds", game["draw_odds"].capitalize()))
    if "drawn_by" in game:
        tags.append(("ClockDrawnBy", game["drawn_by"]))
    tags.append(("ClockFile", name))
    return tags


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
    - TimeControl (and BlackTimeControl under time odds): the clock's where the scoresheet
      has none (missing, empty or `?`); a note where both are known and differ (the
      scoresheet's stays);
    - ClockControl, ClockReason, ClockDrawOdds, ClockDrawnBy, ClockResult, ClockFile:
      always the record's (the draw-odds ones where it has them);
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
    for tag in ("TimeControl", "BlackTimeControl"):
        if tag not in tags:
            continue
        ours, theirs = tags.pop(tag), headers.get(tag, "").strip()
        if theirs in ("", UNKNOWN):
            headers[tag] = ours
        elif ours != UNKNOWN and theirs != ours:
            notes.append(
                "the scoresheet's %s %s is not the clock's %s (kept)" % (tag, theirs, ours)
            )
    for tag in ("ClockControl", "ClockReason", "ClockDrawOdds", "ClockDrawnBy"):
        if tag in tags:
            headers[tag] = pgn_string(tags[tag])
    headers["ClockResult"] = clock
    headers["ClockFile"] = pgn_string(tags["ClockFile"])
    return notes


def note_tags(headers, notes):
    """The merge's notes as one ClockNote tag ('; ' between them); none, no tag."""
    if notes:
        headers["ClockNote"] = pgn_string("; ".join(notes))
