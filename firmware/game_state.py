"""A Game as a list of ints and back: what a power cut or the archive keeps of a game.

Owns the saved form of a game (/game.json's "snap", the journal's records, the archive's
record): `snapshot(game)` of a stopped game, `snapshot_at(game, at, at_us)` of a running one
as if paused at that instant (the journal), `restore(game, snap)` and, after it, the move log
(`restore_log(game, count, flat)`). Plain functions of the game, imported where a game is
first saved or restored (a power-up without a saved game never loads it). Pure: no clock,
no file. A restored game is paused (or
ready, flagged, finished as saved), its times exact to the us; times of past events restart
at 0 (a new power-up). Anything out of range is refused as a whole (ERR_RANGE, the game
unchanged): a file is never trusted. Why the bounds are what they are:
docs/timing.md#saved-games.
"""

from engine import (
    ERR_RANGE,
    FINISHED,
    FLAGGED,
    LOG_CAPACITY,
    MAX_SET_MS,
    OK,
    PAUSED,
    READY,
    RUNNING,
)
from micropython import const
from timecontrol import BONUS_DELAY, BONUS_FISCHER, MODE_COUNTDOWN, MODE_HOURGLASS, MODE_UPCOUNT

SNAPSHOT_VERSION = const(3)  # 3: + the us parts; 2: + ot_left; 1 and 2 are still restored
_SNAP_LEN = const(29)
_SNAP_LEN_V2 = const(26)
_SNAP_LEN_V1 = const(24)
_INT32 = const(0x7FFFFFFF)  # the log's "i" arrays hold 32-bit ints
_CEILING_MS = const(1 << 29)  # restore's bound on any saved time (6.2 days): sums stay small
_US = const(1000)  # us per ms: the us part of a pair is 0.._US - 1


def snapshot(game):
    """The game as a list of ints (for /game.json); restore() reads it back paused. The
    12 scalars, the per-side pairs of _saved_pairs(), then (version 3) the us parts:
    paused_us, main_us[0], main_us[1]."""
    if game.state == RUNNING:
        raise ValueError("pause before saving")
    return _snap(game, game.state, game.paused_elapsed, game.paused_us)


def snapshot_at(game, at, at_us=0):
    """The snapshot of this game as if paused at the instant at.at_us (ms, us 0..999),
    without changing it: a running game's move is charged up to that instant (the last
    event when it is earlier), exactly as pause() would. A stopped game gives
    snapshot(). For the journal (app.py): call it after tick(at, at_us), so no
    deadline before the instant is pending. Allocates the list."""
    if game.state != RUNNING:
        return snapshot(game)
    game._elapsed(at, at_us)
    return _snap(game, PAUSED, game._em, game._eu)


def _snap(game, state, paused_ms, paused_us):
    snap = [
        SNAPSHOT_VERSION,
        state,
        game.running,
        game.white,
        paused_ms,
        game.first_flag,
        game.first_passed,
        game.override_bonus,
        game.override_ms,
        1 if game.g4_applied else 0,
        game.result,
        game.reason,
    ]
    for arr in _saved_pairs(game):
        snap.append(arr[0])
        snap.append(arr[1])
    snap.append(paused_us)
    snap.append(game.main_us[0])
    snap.append(game.main_us[1])
    return snap


def _saved_pairs(game):
    """The per-side arrays a snapshot holds, in its order (after the 12 scalars)."""
    return (
        game.main,
        game.moves,
        game.period,
        game.flagged,
        game.markers,
        game.marker_moves,
        game.ot_left,
    )


def _most(game, s, moves, g4):
    """The most time side s can hold after `moves` moves in any game of its control:
    the arbiter's largest setting (24 h) plus every period its control grants, its
    largest increment for each move and one more (inc_before), G.4's extra two minutes
    and its 5 s a move when `g4`, and in an hourglass all that the other side can hold
    on top (restore()'s bound)."""
    most = MAX_SET_MS
    inc = 0
    for p in game.controls[s].periods:  # the overtime stage's time included
        most += p[0]
        if p[2] == BONUS_FISCHER and p[3] > inc:
            inc = p[3]
    most += inc * (moves + 1)
    if g4:
        from arbiter import G4_BONUS_MS, G4_EXTRA_MS  # only for a game G.4 was applied to

        most += G4_EXTRA_MS + G4_BONUS_MS * (moves + 1)
    if game.mode == MODE_HOURGLASS:
        most += MAX_SET_MS + game.controls[1 - s].periods[0][0]
    elif game.mode == MODE_UPCOUNT:
        most = _CEILING_MS  # the stopwatch: used time, as long as the game lasts
    return most


def restore(game, snap):
    """Load a snapshot() into this game (same control, both sides). Returns OK or
    ERR_RANGE, in which case nothing changed. A time is refused only above what its side
    can hold under its control (_most): carry-over, byo-yomi periods re-based during a
    long move and increments may each pass 24 h in a valid game. Times of past events
    restart at 0 (a new power-up); the times held come back exact to the us. Version 2
    snapshots (whole ms) are restored with us parts 0; version 1 ones
    (before overtime modes, no ot_left) too, for controls without overtime, and refused
    for byo-yomi / Canadian ones."""
    ot = game.ot_mode
    if not isinstance(snap, list) or not snap:
        return ERR_RANGE
    if snap[0] == 1 and len(snap) == _SNAP_LEN_V1 and not ot:
        snap = snap + [0, 0, 0, 0, 0]  # no overtime: ot_left is 0; whole ms
    elif snap[0] == 2 and len(snap) == _SNAP_LEN_V2:
        snap = snap + [0, 0, 0]  # whole ms
    elif snap[0] != SNAPSHOT_VERSION or len(snap) != _SNAP_LEN:
        return ERR_RANGE
    for v in snap:
        if not isinstance(v, int):
            return ERR_RANGE
    state, running, white = snap[1], snap[2], snap[3]
    if state not in (READY, PAUSED, FLAGGED, FINISHED) or not -1 <= running <= 1:
        return ERR_RANGE
    if not -1 <= white <= 1 or (state != READY and running < 0):
        return ERR_RANGE
    pairs = snap[12:]
    if not 0 <= snap[4] <= _CEILING_MS:
        return ERR_RANGE
    for s in (0, 1):
        if not 0 <= pairs[2 + s] <= MAX_SET_MS:
            return ERR_RANGE  # moves
        if not 0 <= pairs[4 + s] <= game.controls[s].last():
            return ERR_RANGE  # period
        # main: what the side holds (for the side on move of a paused game: at the
        # start of its move, so that move's part so far is over it) within what it can
        # hold under its control
        held = pairs[s]
        if state == PAUSED and s == running:
            held -= snap[4]
        if not (0 <= pairs[s] <= _CEILING_MS and held <= _most(game, s, pairs[2 + s], snap[9])):
            return ERR_RANGE
    if pairs[6] not in (0, 1) or pairs[7] not in (0, 1):
        return ERR_RANGE  # flagged: 0/1 (a byte array would wrap or reject the rest)
    if not (-1 <= snap[5] <= 1 and -1 <= snap[6] <= 1):
        return ERR_RANGE  # the first flag / first to pass a control: a side or -1
    for s in (0, 1):
        v = pairs[12 + s]
        count = game.controls[s].ot_count
        if not (1 <= v <= count if count else v == 0):
            return ERR_RANGE
    for v in pairs[14:]:
        if not 0 <= v < _US:
            return ERR_RANGE  # the us parts
    game.reset(game.control)
    game.state, game.running, game.white = state, running, white
    game.paused_elapsed = snap[4]
    game.paused_us = pairs[14]
    game.main_us[0] = pairs[15]
    game.main_us[1] = pairs[16]
    game.first_flag, game.first_passed = snap[5], snap[6]
    game.override_bonus, game.override_ms = snap[7], snap[8]
    if game.override_bonus == BONUS_DELAY and game.mode == MODE_COUNTDOWN:
        game._delay = True  # G.4's delay, for the rest of the game
    game.g4_applied = bool(snap[9])
    game.result, game.reason = snap[10], snap[11]
    for i, arr in enumerate(_saved_pairs(game)):
        arr[0] = pairs[2 * i]
        arr[1] = pairs[2 * i + 1]
    return OK


def restore_log(game, count, flat):
    """Load a move log saved beside a snapshot; call it after restore(), which empties the
    log. `count`: half-moves logged in the whole game (log_count); `flat`: the newest
    min(count, LOG_CAPACITY) of them, oldest first, three ints each as log_rows(True)
    yields them (packed = side | move_no << 1 | ot << 16 with move_no >= 1 and ot the
    overtime counter of log_entries, 0 in other modes; used_ms >= 0; left_ms >= 0; each
    below 2**31). Returns OK, or ERR_RANGE and nothing changed."""
    if type(count) is not int or count < 0 or count > _INT32:
        return ERR_RANGE
    kept = count if count < LOG_CAPACITY else LOG_CAPACITY
    try:
        if len(flat) != 3 * kept:
            return ERR_RANGE
    except TypeError:
        return ERR_RANGE
    for j in range(3 * kept):
        v = flat[j]
        if type(v) is not int or not 0 <= v <= _INT32:
            return ERR_RANGE
        if j % 3 == 0 and not (2 <= v & 0xFFFF and v >> 16 <= 0xFF):
            return ERR_RANGE  # move_no >= 1 in the ring's 16 bits; ot in log_ot's 8
    first = count - kept
    for j in range(kept):
        i = (first + j) % LOG_CAPACITY
        game.log_move[i] = flat[3 * j] & 0xFFFF
        game.log_ot[i] = flat[3 * j] >> 16
        game.log_used[i] = flat[3 * j + 1]
        game.log_left[i] = flat[3 * j + 2]
    game.log_count = count
    return OK
