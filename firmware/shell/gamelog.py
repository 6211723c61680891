"""Owns the move logs of the last games: ROOT/games/gNNN.json, NNN counting 000..999 and
wrapping, only the newest KEEP_GAMES kept.

File format (tools read it; only add keys, never change one):
  {"version": 1, "id": <the game's identity (archive.py), 0 = none>,
   "control": "<preset name or 'custom'>", "white": 0|1 (side that played
   White: 0 left, 1 right), "result": "1-0"|"0-1"|"1/2-1/2"|"*", "reason": "<short text>",
   "controls": {"white": <control>, "black": <control>}, ["final": {"white": ms, "black":
   ms},] ["draw_odds": "white"|"black", "drawn_by": "<reason of the draw>",] ["plies":
   <half-moves of the whole game>, "arbiter": [[ply, action, side, value, before, after],
   ...], "arbiter_lost": <count>,] "moves": [[side, move_no, used_ms, left_ms], ...]}
"reason": "flag", "dead position", "on the board" (the arbiter entered the result of a game
decided on the board: mate, resignation, agreed draw), "draw odds" (a drawn game that the
control gave to one colour: "drawn_by" then says how it was drawn, one of the others),
"arbiter", or for an unfinished game (result "*") "abandoned by the arbiter", "declined
after a power cut", "unreadable after a power cut" (archive.py). "final": both times when
the game ended (absent when it could not be restored). "controls": the control each colour
played under, in the settings' form (settings.py: {"mode", "periods": [[time_s, moves,
bonus, bonus_s], ...] [, "overtime": [count, time_s]]}); with time odds they differ.
"draw_odds": the colour a draw was given to, when the control gave one. "arbiter": the
arbiter's corrections, oldest first, in a game that had any (archive.py;
docs/timing.md#the-arbiters-record): `ply` the half-moves of the game before it (0: before
the first; the rows' ply counts from "plies" - len(moves), as the newest 600 are kept),
`action` engine.py's ACT_* (3 time set, 4 time added, 5 moves set, 6 period set, 7 Appendix
G.4, 8 result, 9 overtime counter set), `side` 0 left / 1 right (-1 for a result), `value`,
`before`, `after` as game_state.py's table has them (times in ms as the clock showed them,
counts, periods from 0; a result: value the reason code, after engine.RESULT_*);
"arbiter_lost", only when not 0, the count of the oldest corrections a full log dropped
(more than 64 in one game). Older records have
none of these keys.
used_ms and left_ms are the engine's exact times (to the us) each rounded to the nearest ms,
so every row is within 0.5 ms of exact however long the game (engine.py).
In byo-yomi and Canadian games each row has a fifth item, `ot` (engine.Game.log_entries):
0 when the move left the player in main time, else the byo-yomi periods left / the
Canadian moves still to make in the block after it (additive: chess rows stay as they are).
"id" is always the second key, so find_game() reads only a file's first bytes. The file is
streamed row by row into gNNN.json.tmp and renamed into place (storage.write_atomic), so a
long game never needs one big string in RAM. A whole file ends with "\n]}\n" and holds that
sequence nowhere else (json.dumps escapes newlines inside strings); repair() tells a whole
gNNN.json.tmp (left by a power cut before its rename: renamed into place) from a cut one
(removed) by that tail alone, reading 4 bytes, not the file.

No counter file: the numbers in use form one short run on the 1000-number circle, and the
newest is the one just before the widest gap (so 998, 999, 000 orders 000 as newest).
"""

import json
import os

import storage
from micropython import const

KEEP_GAMES = const(20)
GAMES_DIR = "games"
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")

_SPAN = const(1000)  # file numbers 000..999
_RETRIES = const(3)  # full flash: delete this many oldest logs at most, then give up
_END = b"\n]}\n"  # the last bytes of a whole file, and only there
_HEAD = b'{"version": 1, '  # its first bytes


def _number(name):
    """NNN of "gNNN.json", or -1 for any other name."""
    if len(name) != 9 or name[0] != "g" or not name.endswith(".json"):
        return -1
    digits = name[1:4]
    if not digits.isdigit():
        return -1
    return int(digits)


def _name(n):
    return "g%03d.json" % n


def _newest_first(numbers):
    """The numbers in use, newest first (see module doc)."""
    nums = sorted(numbers)
    if not nums:
        return []
    last = len(nums) - 1
    newest = last  # the gap from the highest back round to the lowest wins ties
    widest = nums[0] + _SPAN - nums[last]
    for i in range(last):
        gap = nums[i + 1] - nums[i]
        if gap > widest:
            widest = gap
            newest = i
    out = []
    for k in range(len(nums)):
        out.append(nums[(newest - k) % len(nums)])
    return out


def list_games(root, fs=os):
    """File names ("gNNN.json") of the stored game logs, newest first; [] when none."""
    try:
        entries = fs.listdir(storage.join(root, GAMES_DIR))
    except OSError:
        return []
    numbers = []
    for e in entries:
        n = _number(e)
        if n >= 0:
            numbers.append(n)
    return [_name(n) for n in _newest_first(numbers)]


def _whole(path, fs):
    """True when `path` holds a whole game file as _chunks() writes it (see module doc)."""
    n = storage.size(path, fs)
    if n < len(_HEAD) + len(_END):
        return False
    head = storage.peek(path, 0, len(_HEAD), fs)
    return head == _HEAD and storage.peek(path, n - len(_END), len(_END), fs) == _END


def _tidy(folder, fs):
    """Rename a whole gNNN.json.tmp left by a power cut into place; drop cut ones."""
    try:
        entries = fs.listdir(folder)
    except OSError:
        return
    for e in entries:
        if e.endswith(storage.TMP) and _number(e[: -len(storage.TMP)]) >= 0:
            tmp = storage.join(folder, e)
            try:
                if _whole(tmp, fs):
                    storage.replace(tmp, tmp[: -len(storage.TMP)], fs)
                else:
                    fs.remove(tmp)
            except OSError:
                pass  # settled at the next power-up or save


def repair(root, fs=os):
    """At power-up: settle the gNNN.json.tmp files a power cut left in games/ (whole ones
    renamed into place, cut ones removed), so list_games() and the export see every
    record. Never raises."""
    try:
        _tidy(storage.join(root, GAMES_DIR), fs)
    except Exception:
        pass


def find_game(root, ident, fs=os):
    """The name ("gNNN.json") of the record whose "id" is `ident` (> 0), or None. Reads the
    first bytes of each record only; call repair() first so no whole record hides in a
    .tmp. Never raises."""
    if type(ident) is not int or ident <= 0:
        return None
    want = ('{"version": 1, "id": %d,' % ident).encode()
    folder = storage.join(root, GAMES_DIR)
    for name in list_games(root, fs):
        if storage.peek(storage.join(folder, name), 0, len(want), fs) == want:
            return name
    return None


def _row(row):
    if not isinstance(row, (list, tuple)) or not 4 <= len(row) <= 5:
        raise ValueError("move row")
    for x in row:
        if type(x) is not int:
            raise ValueError("move row")
    side, move_no, used_ms, left_ms = row[0], row[1], row[2], row[3]
    if side not in (0, 1) or move_no < 0 or used_ms < 0:
        raise ValueError("move row")
    if len(row) == 5:
        if row[4] < 0:
            raise ValueError("move row")
        return "[%d, %d, %d, %d, %d]" % (side, move_no, used_ms, left_ms, row[4])
    return "[%d, %d, %d, %d]" % (side, move_no, used_ms, left_ms)


def _chunks(ident, control_name, white, result, reason, moves, extra):
    """The file's text in small pieces: the header, the extra keys, one row at a time, the
    end."""
    yield (
        '{"version": 1, "id": %d, "control": %s, "white": %d, "result": %s, "reason": %s, '
        % (
            ident,
            json.dumps(control_name),
            white,
            json.dumps(result),
            json.dumps(reason),
        )
    )
    if extra:
        for key in extra:
            yield "%s: %s, " % (json.dumps(key), json.dumps(extra[key]))
    yield '"moves": ['

    sep = "\n"
    for row in moves:
        yield sep + _row(row)
        sep = ",\n"
    yield "\n]}\n"


def save_game_log(root, control_name, white, result, reason, moves, fs=os, ident=0, extra=None):
    """Write the next game log; returns its file name ("gNNN.json") or None when nothing
    was written (bad arguments, a bad move row, or the flash failed). `moves` yields
    [side, move_no, used_ms, left_ms] rows, or with a fifth item `ot` >= 0 in overtime
    games (ints; side 0/1, move_no and used_ms >= 0). `ident` is the game's identity
    (0..2**31-1), written as "id". `extra`: more header keys (a dict of JSON values:
    "controls", "draw_odds", "drawn_by", "plies", "arbiter", "arbiter_lost"), written
    before "moves".
    After a success only the KEEP_GAMES newest logs remain. On a full flash the oldest logs
    are deleted to make room (at most 3 of them), if `moves` can be iterated again (a list
    or tuple, not a generator)."""
    if not isinstance(control_name, str) or not isinstance(reason, str):
        return None
    if type(white) is not int or white not in (0, 1) or result not in RESULTS:
        return None
    if type(ident) is not int or not 0 <= ident <= 0x7FFFFFFF:
        return None
    if extra is not None and not isinstance(extra, dict):
        return None
    folder = storage.join(root, GAMES_DIR)
    try:
        fs.mkdir(folder)
    except OSError:
        pass  # already there (or the write below reports the failure)
    _tidy(folder, fs)
    names = list_games(root, fs)
    number = (_number(names[0]) + 1) % _SPAN if names else 0
    name = _name(number)
    names = [n for n in names if n != name]  # only with 1000 logs: it gets overwritten
    path = storage.join(folder, name)
    again = iter(moves) is not moves
    tries = 0
    while True:
        try:
            chunks = _chunks(ident, control_name, white, result, reason, moves, extra)
            storage.write_atomic(path, chunks, fs)
            break
        except OSError as e:
            tries += 1
            if storage.errno_of(e) != storage.ENOSPC or not again or not names:
                return None
            if tries > _RETRIES:
                return None
            storage.delete(storage.join(folder, names.pop()), fs)
        except Exception:
            return None  # ValueError from a bad row, MemoryError
    for old in names[KEEP_GAMES - 1 :]:
        storage.delete(storage.join(folder, old), fs)
    return name
