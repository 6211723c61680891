"""Owns the clock's settings (/settings.json) and its resume-after-power-loss state
(/game.json): the schema, its validation, and loading/saving them through storage.

Pure part (no I/O, never raises on any JSON value): defaults(), validate(), check_control(),
check_game(). Shell part: load(), save(), save_game(), load_game(), clear_game(); they take
the directory `root` and an os-like `fs` (see storage.py) and never raise on a bad file.

Settings schema (defaults in brackets):
  "sound" bool [True]; "freeze" bool [True] (FIDE: both clocks stop at the first flag in the
  last period); "inc_before" bool [False] (Fischer increment added after the move);
  "transition" 0 next period by move count / 1 at flag fall [0]; "rules" 0 FIDE / 1 US Chess
  [0]; "brightness" 0..7 [2] (the TM1637's eight levels: docs/battery.md has the hours of
  each); "low_time_s" 0..600 s, 0 = off [10]; "battery" 0 alkaline / 1 NiMH [0] (the cells'
  kind, for the level and the warning: battery.py; a file without it loads with 0 and no
  complaint);
  "control" [{"preset": 0}]: {"preset": index 0..n_presets-1} or
  {"custom": {"mode": 0 countdown / 1 hourglass / 2 upcount / 3 byo-yomi / 4 Canadian,
              "periods": [[time_s, moves, bonus_kind, bonus_s], ...],
              "overtime": [count, time_s],
              "right": {"periods": [...], "overtime": [count, time_s]},
              "draw_odds": 0 none / 1 White / 2 Black}}
  ("overtime" in modes 3 and 4 only), either with "swap": true beside "preset" / "custom";
  "kept" [[]]: the custom controls last started, newest first, at most presets.KEPT, each
  a control as above with "custom" (the preset chooser's slots; a file without it loads
  with none and no complaint, an entry that is not valid is dropped).
Time odds: "periods" / "overtime" are the left side's; "right", when given, the
right side's own (same mode, same rules; absent: the same as the left); "draw_odds" [0]
gives a drawn game to a colour, and White's side is then the left's ("periods"); "swap"
[false]: the two sides' controls exchanged, and with them White's side (the ready screen's
PLAY). Files without these keys load as before.
A custom control has 1..4 periods; time_s 0..36000, moves 0..200 (0 = rest of the game:
the last period, and only it), bonus_kind 0 none / 1 Fischer / 2 Bronstein / 3 delay,
bonus_s 0..300. As in timecontrol.TimeControl, a countdown needs starting time in its first
period (or a delay), and hourglass/upcount have exactly one period without bonus.
Byo-yomi and Canadian have one period (the main time, 0 allowed) and "overtime": byo-yomi
[periods 1..99, period_s 1..3600], its main time with no bonus or an increment (then main
time > 0); Canadian [moves per block 1..200, block_s 1..36000], no bonus. Settings files
written before these modes existed stay valid as they are.
Integers are JSON integers: true/false or 4.0 are not a brightness, 1 is not a bool.

Resume state (/game.json; written by archive.py while the clocks are stopped):
  {"v": 1, "id": <game identity, 0..2**31-1; 0 = none>, "control": <control as above>,
   "snap": [<game_state.snapshot() ints>], "opts": [freeze, inc_before, transition],
   "n": <half-moves logged in the whole game>, "arb": [lost, ply, action, side, value,
   before, after, ...], "log": [packed, used_ms, left_ms, ...]}
"arb" holds the arbiter's corrections (game_state.corrections(): the count dropped from a
full log, then six ints each; at most 1 + 6 * ARB_ENTRIES ints); files without it load
with [0] (none).
"log" holds the newest min(n, LOG_ROWS) half-moves, oldest first, three ints each in the
engine ring's own form (packed = side | move_no << 1 | ot << 16, ot the overtime counter;
Game.log_rows(True) / game_state.restore_log()). Files from before the log (no "id", "n", "log")
load with 0, 0, [].
The file is written in small chunks and parsed straight from flash (storage.read_json with
stream=True), never held as one string: at most about 17 KB for a 600-half-move log and
5 KB for 64 corrections of the longest ints (GAME_READ_LIMIT bounds it), about 11 KB for a
typical one; parsing it at power-up allocates about 10 KB for 600 half-moves (measured
under MicroPython 1.27: one list of 1800 small ints and the state), freed once the game is
resumed or declined.
"""

import json
import os

import storage
from micropython import const
from presets import KEPT

# load() status
OK = const(0)
DEFAULTS_MISSING = const(1)  # no settings file yet: defaults
DEFAULTS_CORRUPT = const(2)  # file unreadable or not a JSON object: defaults
FIXED_INVALID = const(3)  # some keys were missing or bad and now hold their defaults

# validate() problem codes: problems maps a key to one of these
MISSING = "missing"
TYPE = "type"
RANGE = "range"
WHOLE = "*"  # the problems key used when the value is not an object at all

SETTINGS_FILE = "settings.json"
GAME_FILE = "game.json"

_MAX_PERIODS = const(4)
_MAX_TIME_S = const(36000)  # 10 h
_MAX_MOVES = const(200)
_MAX_BONUS = const(3)  # bonus kinds 0..3
_BONUS_DELAY = const(3)
_MAX_BONUS_S = const(300)
_MAX_MODE = const(4)
_MODE_COUNTDOWN = const(0)
_MODE_BYOYOMI = const(3)
_MODE_CANADIAN = const(4)
_BONUS_FISCHER = const(1)
_MAX_BYO_PERIODS = const(99)
_MAX_BYO_S = const(3600)
_MAX_DRAW_ODDS = const(2)  # timecontrol.DRAW_ODDS_BLACK

_GAME_VERSION = const(1)
_MAX_SNAP = const(64)  # ints in a game snapshot
LOG_ROWS = const(600)  # half-moves kept in the saved log: engine.LOG_CAPACITY
GAME_READ_LIMIT = const(24576)  # bytes: a 600-row log of 10-digit times is ~17 KB
_ROWS_PER_CHUNK = const(8)  # log rows per write (a small string each)
_ARB_PER_CHUNK = const(18)  # "arb" ints per write: three corrections
_MAX_OPTS = const(16)
ARB_ENTRIES = const(64)  # corrections in "arb" at most: engine.ARBITER_LOG_CAPACITY
_INT32 = const(0x7FFFFFFF)  # snapshot ints must fit in 32 bits
_ANY_PRESET = const(256)  # preset bound when the caller gives none

_BOOL = const(0)
_INT = const(1)
# key, kind, low, high, default (low/high unused for bools)
_SIMPLE = (
    ("sound", _BOOL, 0, 1, True),
    ("freeze", _BOOL, 0, 1, True),
    ("inc_before", _BOOL, 0, 1, False),
    ("transition", _INT, 0, 1, 0),
    ("rules", _INT, 0, 1, 0),
    ("brightness", _INT, 0, 7, 2),
    ("low_time_s", _INT, 0, 600, 10),
    ("battery", _INT, 0, 1, 0),
)
# Keys a settings file written without them is still complete without: their default,
# and no FIXED_INVALID for their absence (a wrong value is still refused)
_OPTIONAL = ("battery",)


def defaults():
    """A fresh settings dict holding every default."""
    s = {}
    for key, _kind, _lo, _hi, default in _SIMPLE:
        s[key] = default
    s["control"] = {"preset": 0}
    s["kept"] = []
    return s


def _is_int(v):
    return type(v) is int  # bool is not an int here (JSON true is not 1)


def _check_simple(v, kind, lo, hi):
    if kind == _BOOL:
        return None if type(v) is bool else TYPE
    if not _is_int(v):
        return TYPE
    return None if lo <= v <= hi else RANGE


def _custom(c):
    """(normalized custom dict, None) or (None, TYPE / RANGE)."""
    if not isinstance(c, dict) or "mode" not in c or "periods" not in c:
        return None, TYPE
    mode = c["mode"]
    if not _is_int(mode):
        return None, TYPE
    if not 0 <= mode <= _MAX_MODE:
        return None, RANGE
    out, code = _side(mode, c)
    if code:
        return None, code
    out["mode"] = mode
    if "right" in c:
        right, code = _side(mode, c["right"])
        if code:
            return None, code
        out["right"] = right
    odds = c.get("draw_odds", 0)
    if not _is_int(odds):
        return None, TYPE
    if not 0 <= odds <= _MAX_DRAW_ODDS:
        return None, RANGE
    if odds:
        out["draw_odds"] = odds
    return out, None


def _side(mode, c):
    """One side's control of a custom one: ({"periods"[, "overtime"]} normalized, None) or
    (None, TYPE / RANGE)."""
    if not isinstance(c, dict) or "periods" not in c:
        return None, TYPE
    periods = c["periods"]
    if not isinstance(periods, (list, tuple)):
        return None, TYPE
    n = len(periods)
    if not 1 <= n <= _MAX_PERIODS:
        return None, RANGE
    out = []
    for i in range(n):
        p = periods[i]
        if not isinstance(p, (list, tuple)) or len(p) != 4:
            return None, TYPE
        for x in p:
            if not _is_int(x):
                return None, TYPE
        time_s, moves, bonus, bonus_s = p
        if not (
            0 <= time_s <= _MAX_TIME_S
            and 0 <= moves <= _MAX_MOVES
            and 0 <= bonus <= _MAX_BONUS
            and 0 <= bonus_s <= _MAX_BONUS_S
        ):
            return None, RANGE
        if (moves == 0) != (i == n - 1):
            return None, RANGE  # only the last period is "rest of the game", and it must be
        out.append([time_s, moves, bonus, bonus_s])
    first = out[0]
    if mode == _MODE_BYOYOMI or mode == _MODE_CANADIAN:
        if "overtime" not in c:
            return None, TYPE
        overtime, code = _overtime(mode, n, first, c["overtime"])
        if code:
            return None, code
        return {"periods": out, "overtime": overtime}, None
    if "overtime" in c:
        return None, RANGE  # overtime only in byo-yomi and Canadian
    if mode == _MODE_COUNTDOWN:
        if first[0] == 0 and first[2] != _BONUS_DELAY:
            return None, RANGE  # a countdown from zero flags at once
    elif n != 1 or first[2] != 0:
        return None, RANGE  # hourglass / upcount: one period, no bonus
    return {"periods": out}, None


def _overtime(mode, n, first, ot):
    """(normalized [count, time_s], None) or (None, TYPE / RANGE) for byo-yomi / Canadian."""
    if (
        not isinstance(ot, (list, tuple))
        or len(ot) != 2
        or not (_is_int(ot[0]) and _is_int(ot[1]))
    ):
        return None, TYPE
    count, time_s = ot
    if mode == _MODE_BYOYOMI:
        high_count, high_s = _MAX_BYO_PERIODS, _MAX_BYO_S
        bonus_ok = first[2] == 0 or (first[2] == _BONUS_FISCHER and first[0] > 0)
    else:
        high_count, high_s = _MAX_MOVES, _MAX_TIME_S
        bonus_ok = first[2] == 0
    if n != 1 or not bonus_ok or not (1 <= count <= high_count and 1 <= time_s <= high_s):
        return None, RANGE
    return [count, time_s], None


def _control(c, n_presets):
    """(normalized control, None) or (None, TYPE / RANGE)."""
    if not isinstance(c, dict):
        return None, TYPE
    has_preset = "preset" in c
    if has_preset == ("custom" in c):
        return None, TYPE  # exactly one of the two
    swap = c.get("swap", False)
    if type(swap) is not bool:
        return None, TYPE
    if has_preset:
        i = c["preset"]
        if not _is_int(i):
            return None, TYPE
        if not 0 <= i < n_presets:
            return None, RANGE
        out = {"preset": i}
    else:
        custom, code = _custom(c["custom"])
        if code:
            return None, code
        out = {"custom": custom}
    if swap:
        out["swap"] = True
    return out, None


def _kept_controls(v, n_presets):
    """(the valid custom controls of the list `v`, at most KEPT, normalized; None) or
    (those, TYPE / RANGE) when `v` is not a list or something in it was dropped."""
    if not isinstance(v, list):
        return [], TYPE
    out = []
    code = RANGE if len(v) > KEPT else None
    for c in v[:KEPT]:
        c, bad = _control(c, n_presets)
        if bad or "custom" not in c:
            code = RANGE
        else:
            out.append(c)
    return out, code


def check_control(c, n_presets):
    """A fresh, normalized copy of the control `c`, or None when it is not valid."""
    return _control(c, n_presets)[0]


def validate(raw, n_presets):
    """(settings, problems): `settings` has every key, each valid; `problems` maps each key
    that was missing, wrong-typed or out of range (and so replaced by its default) to
    MISSING / TYPE / RANGE, or is {WHOLE: TYPE} when `raw` is not a dict. Unknown keys are
    dropped silently. Never raises; `n_presets` >= 1 (preset 0 is the default)."""
    out = defaults()
    problems = {}
    if not isinstance(raw, dict):
        problems[WHOLE] = TYPE
        return out, problems
    for key, kind, lo, hi, _default in _SIMPLE:
        if key not in raw:
            if key not in _OPTIONAL:
                problems[key] = MISSING
            continue
        v = raw[key]
        code = _check_simple(v, kind, lo, hi)
        if code:
            problems[key] = code
        else:
            out[key] = v
    if "control" not in raw:
        problems["control"] = MISSING
    else:
        c, code = _control(raw["control"], n_presets)
        if code:
            problems["control"] = code
        else:
            out["control"] = c
    if "kept" in raw:
        out["kept"], code = _kept_controls(raw["kept"], n_presets)
        if code:
            problems["kept"] = code
    return out, problems


def _int_list(v, low, high):
    if not isinstance(v, (list, tuple)) or not low <= len(v) <= high:
        return None
    for x in v:
        if not _is_int(x) or not -_INT32 - 1 <= x <= _INT32:
            return None
    return list(v)


def _check_state(obj, n_presets):
    """check_game() without the "log" key: the normalized dict, or None."""
    if not isinstance(obj, dict):
        return None
    v = obj.get("v")
    if not _is_int(v) or v != _GAME_VERSION:
        return None
    control = check_control(obj.get("control"), n_presets)
    snap = _int_list(obj.get("snap"), 1, _MAX_SNAP)
    opts = _int_list(obj.get("opts"), 0, _MAX_OPTS)
    ident = obj.get("id", 0)
    n = obj.get("n", 0)
    arb = _int_list(obj.get("arb", [0]), 1, 1 + 6 * ARB_ENTRIES)
    if control is None or snap is None or opts is None or arb is None:
        return None
    if not _is_int(ident) or not _is_int(n) or not 0 <= ident <= _INT32 or not 0 <= n <= _INT32:
        return None
    return {
        "v": _GAME_VERSION,
        "id": ident,
        "control": control,
        "snap": snap,
        "opts": opts,
        "n": n,
        "arb": arb,
    }


def _kept(n):
    return n if n < LOG_ROWS else LOG_ROWS


def check_game(obj, n_presets=_ANY_PRESET):
    """The resume state (see the module doc) as a normalized dict with every key ("id", "n",
    "arb" and "log" default to 0, 0, [0], []; other keys dropped), or None when `obj` is anything
    else: "snap" 1..64 ints, "opts" 0..16 ints, "log" exactly 3 * min(n, LOG_ROWS) ints, all
    within 32 bits (the engine checks what they mean). Fresh lists, except "log": it is
    passed on as it is (up to 1800 ints; a copy would double them in RAM). Never raises."""
    game = _check_state(obj, n_presets)
    if game is None:
        return None
    log = obj.get("log", [])
    if not isinstance(log, (list, tuple)) or len(log) != 3 * _kept(game["n"]):
        return None
    for x in log:
        if not _is_int(x) or not 0 <= x <= _INT32:
            return None
    game["log"] = log
    return game


def load(root, n_presets, fs=os):
    """(settings, status) with status OK / DEFAULTS_MISSING / DEFAULTS_CORRUPT /
    FIXED_INVALID; the settings are always complete and valid. Never raises."""
    try:
        raw, st = storage.read_json(storage.join(root, SETTINGS_FILE), fs)
    except Exception:
        raw, st = None, storage.CORRUPT
    if st == storage.MISSING:
        return defaults(), DEFAULTS_MISSING
    if raw is None:
        return defaults(), DEFAULTS_CORRUPT
    s, problems = validate(raw, n_presets)
    return s, FIXED_INVALID if problems else OK


def save(root, settings, fs=os):
    """Write `settings` atomically. False when it could not be written (full flash, I/O
    error, not JSON-serializable); the previous file is then left as it was."""
    try:
        text = json.dumps(settings)
        storage.write_atomic(storage.join(root, SETTINGS_FILE), text, fs)
    except (OSError, TypeError, ValueError, MemoryError):
        return False
    return True


def _log_row(row):
    if not isinstance(row, (list, tuple)) or len(row) != 3:
        raise ValueError("log row")
    for x in row:
        if not _is_int(x) or not 0 <= x <= _INT32:
            raise ValueError("log row")
    return "%d,%d,%d" % (row[0], row[1], row[2])


def _game_chunks(game, rows):
    """The resume state's text in small pieces: the state, the arbiter's corrections and
    the log rows a few at a time. Raises ValueError when `rows` is not exactly min(n,
    LOG_ROWS) good rows, so the write is abandoned (storage.write_atomic keeps the old
    file)."""
    arb = game["arb"]  # up to 385 ints: in chunks too
    state = dict(game)
    del state["arb"]
    head = json.dumps(state)
    yield head[:-1] + ', "arb": ['  # json.dumps of a dict ends with its "}"
    for i in range(0, len(arb), _ARB_PER_CHUNK):
        yield ("," if i else "") + ",".join(["%d" % v for v in arb[i : i + _ARB_PER_CHUNK]])
    yield '], "log": ['
    want = _kept(game["n"])
    count = 0
    part = []
    for row in rows:
        count += 1
        if count > want:
            raise ValueError("more log rows than n says")
        part.append(_log_row(row))
        if len(part) == _ROWS_PER_CHUNK:
            yield ("," if count > _ROWS_PER_CHUNK else "") + ",".join(part)
            part = []
    if count != want:
        raise ValueError("fewer log rows than n says")
    if part:
        yield ("," if count > len(part) else "") + ",".join(part)
    yield "]}\n"


def save_game(root, obj, fs=os, log=()):
    """Write the resume state atomically: `obj` is the state of the module doc without
    "log"; `log` yields its rows, (packed, used_ms, left_ms) each, min(obj["n"], LOG_ROWS)
    of them (Game.log_rows(True)); it is streamed, never built as one string. False (and the
    previous file kept) when the state fails validation, a row is bad or missing, or the
    write fails."""
    game = _check_state(obj, _ANY_PRESET)
    if game is None:
        return False
    try:
        storage.write_atomic(storage.join(root, GAME_FILE), _game_chunks(game, log), fs)
    except (OSError, MemoryError, ValueError, TypeError):
        return False
    return True


def load_game(root, fs=os, n_presets=_ANY_PRESET):
    """The saved resume state (see check_game), or None for no file, a corrupt file or
    anything that does not validate. The file is parsed straight from flash. Never
    raises."""
    try:
        raw, _st = storage.read_json(
            storage.join(root, GAME_FILE), fs, GAME_READ_LIMIT, stream=True
        )
    except Exception:
        return None
    return check_game(raw, n_presets)


def clear_game(root, fs=os):
    """Forget the resume state. True when no game file is left."""
    try:
        return storage.delete(storage.join(root, GAME_FILE), fs)
    except Exception:
        return False
