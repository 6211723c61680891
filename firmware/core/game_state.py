"""A game's state outside play: what the arbiter changes, and the game saved as ints.

Owns the changes to a game other than play, pause and resume, and its saved form:
- the arbiter's corrections of a stopped clock (a side's time, moves, period, overtime
  counter: articles 6.10b, 7.5, G.6), Appendix G.4's bonus for both players and the
  opponent's two extra minutes, and the result (`finish`; with draw odds `draw_result`,
  `win_of`). Each returns an engine error code (engine.OK, ERR_STATE, ERR_RANGE, ERR_SIDE,
  ERR_NOT_APPLICABLE) and, when it acted, is noted in the game's `arbiter_log` with the
  half-move it followed and the values before and after it (the table below); a refused
  one changes nothing.
- the saved form (/game.json's "snap", the journal's records, the archive's record):
  `snapshot(game)` of a stopped game, `snapshot_at(game, at, at_us)` of a running one as if
  paused at that instant (the journal), `restore(game, snap)` and, after it, the move log
  (`restore_log(game, count, flat)`). A restored game is as saved (a running one: paused),
  its times exact to the us; times of past events restart at 0 (a new power-up). A
  snapshot out of range is refused whole (ERR_RANGE, the game unchanged): a file is never
  trusted. The corrections are saved beside it: `corrections(game)`, and after restore()
  `restore_corrections(game, flat)`.
The corrections' entries (engine.Game._note; the saved form has the same ints):
  action            side        value              before / after
  ACT_SET_TIME      the side    ms set             its time (ms, as shown: rounded up)
  ACT_ADD_TIME      the side    ms added (+/-)     its time
  ACT_SET_MOVES     the side    moves set          its completed moves
  ACT_SET_PERIOD    the side    period set         its period index (0 the first)
  ACT_SET_OVERTIME  the side    count set          its overtime counter
  ACT_G4            requester   bonus kind         the opponent's time (+2 minutes)
  ACT_FINISH        -1          reason (+ bits)    0 / the result (engine.RESULT_*)
Why they are kept, and what the record and the export make of them:
docs/timing.md#the-arbiters-record.
Plain functions of the game, `set_time(game, side, ms, at)`, off the hot path: imported
where a game is corrected, finished, saved or restored (a power-up without a saved game
never loads it), in one module since every file in the flash's root adds to each import's
lookup at boot. Pure, like engine.py: every call takes its instant, nothing here reads a
clock or a file. The rules and the bounds, and why: docs/timing.md#the-arbiter and
docs/timing.md#saved-games.
"""

import journal as _journal
from engine import (
    ACT_ADD_TIME,
    ACT_FINISH,
    ACT_G4,
    ACT_LOST,
    ACT_PAUSE,
    ACT_RESUME,
    ACT_SET_MOVES,
    ACT_SET_OVERTIME,
    ACT_SET_PERIOD,
    ACT_SET_TIME,
    ARBITER_LOG_CAPACITY,
    BLACK,
    BY_DRAW_ODDS,
    ERR_NOT_APPLICABLE,
    ERR_RANGE,
    ERR_SIDE,
    ERR_STATE,
    FINISHED,
    FLAGGED,
    LOG_CAPACITY,
    MAX_SET_MOVES,
    MAX_SET_MS,
    OK,
    PAUSED,
    READY,
    REASON_ABANDONED,
    REASON_UNREADABLE,
    RESULT_DRAW,
    RESULT_LEFT_WINS,
    RESULT_NONE,
    RESULT_RIGHT_WINS,
    RUNNING,
    WHITE,
)
from micropython import const
from timecontrol import (
    BONUS_DELAY,
    BONUS_FISCHER,
    DRAW_ODDS_NONE,
    DRAW_ODDS_WHITE,
    MODE_COUNTDOWN,
    MODE_HOURGLASS,
    MODE_UPCOUNT,
)

G4_LIMIT_MS = const(120_000)  # Appendix G.4/G.5: "less than two minutes"
G4_BONUS_MS = const(5_000)
G4_EXTRA_MS = const(120_000)
SNAPSHOT_VERSION = _journal.SNAPSHOT_VERSION  # 3: + the us parts; 2: + ot_left (restored)
_snap = _journal._snap
_saved_pairs = _journal._saved_pairs
_SNAP_LEN = const(29)
_SNAP_LEN_V2 = const(26)
_SNAP_LEN_V1 = const(24)
_INT32 = const(0x7FFFFFFF)  # the log's "i" arrays hold 32-bit ints
_CEILING_MS = const(1 << 29)  # restore's bound on any saved time (6.2 days): sums stay small
_US = const(1000)  # us per ms: the us part of a pair is 0.._US - 1


# ------------------------------------------------------------------------- the arbiter
def _correctable(game, side):
    if side != 0 and side != 1:
        return ERR_SIDE
    if game.state in (RUNNING, FINISHED):
        return ERR_STATE
    return OK


def set_time(game, side, ms, at):
    """Arbiter: side `side` shall have `ms` left (6.10b, 7.5). Allowed before the start,
    while paused and after a flag; a positive time lifts that side's fallen flag and
    leaves the game paused."""
    err = _correctable(game, side)
    if err:
        return err
    if not (isinstance(ms, int) and 0 <= ms <= MAX_SET_MS):
        return ERR_RANGE
    before = game.remaining(side, at)
    _set_remaining(game, side, ms, 0)
    game._note(at, ACT_SET_TIME, side, ms, before, ms)
    return OK


def _set_remaining(game, side, ms, us):
    """Side's exact time (or used time) := ms + us (us 0..999)."""
    mode = game.mode
    game._elapsed(0, 0)  # not running: the instant does not matter
    if (mode == MODE_HOURGLASS or mode == MODE_UPCOUNT) and game.state == PAUSED:
        # Fold the paused move into both clocks first, so that correcting one side
        # cannot change what the hourglass moves to the other (no delay to lose here),
        # and a stopwatch set below its paused move's time keeps main >= 0 (a snapshot
        # with a negative main time would not be restored).
        game._fold()
        game.paused_elapsed = 0
        game.paused_us = 0
        game._elapsed(0, 0)
    game._offset(side)
    m = ms + game._om
    u = us + game._ou
    if u >= _US:
        u -= _US
        m += 1
    game.main[side] = m
    game.main_us[side] = u
    if (ms > 0 or us > 0) and game.flagged[side]:
        game.flagged[side] = 0
        game.first_flag = (1 - side) if game.flagged[1 - side] else -1
        if game.state == FLAGGED:
            game.paused_elapsed = 0
            game.paused_us = 0
            game.state = PAUSED


def add_time(game, side, ms, at):
    """Arbiter: add `ms` (may be negative, not below zero) to side's time (7.5, G.6)."""
    err = _correctable(game, side)
    if err:
        return err
    if not isinstance(ms, int):
        return ERR_RANGE
    game._elapsed(at, 0)
    game._left(side)
    new = game._rm + ms  # the exact time's us part stays
    us = game._ru
    if new < 0 or new > MAX_SET_MS or (new == MAX_SET_MS and us):
        return ERR_RANGE
    before = game.remaining(side, at)
    _set_remaining(game, side, new, us)
    game._note(at, ACT_ADD_TIME, side, ms, before, game.remaining(side, at))
    return OK


def set_moves(game, side, n, at):
    """Arbiter: correct side's completed-move counter."""
    err = _correctable(game, side)
    if err:
        return err
    if not (isinstance(n, int) and 0 <= n <= MAX_SET_MOVES):
        return ERR_RANGE
    before = game.moves[side]
    game.moves[side] = n
    game._note(at, ACT_SET_MOVES, side, n, before, n)
    return OK


def set_period(game, side, p, at):
    """Arbiter: correct side's current period (its time is set separately)."""
    err = _correctable(game, side)
    if err:
        return err
    if not (isinstance(p, int) and 0 <= p <= game.controls[side].last()):
        return ERR_RANGE
    before = game.period[side]
    game.period[side] = p
    game._note(at, ACT_SET_PERIOD, side, p, before, p)
    return OK


def set_overtime(game, side, n, at):
    """Arbiter: correct side's byo-yomi periods left (the current one included) or its
    Canadian moves still to make in the block: 1..the control's count. Its time is set
    separately (set_time); ERR_NOT_APPLICABLE without overtime."""
    err = _correctable(game, side)
    if err:
        return err
    count = game.controls[side].ot_count
    if not count:
        return ERR_NOT_APPLICABLE
    if not (isinstance(n, int) and 1 <= n <= count):
        return ERR_RANGE
    before = game.ot_left[side]
    game.ot_left[side] = n
    game._note(at, ACT_SET_OVERTIME, side, n, before, n)
    return OK


def appendix_g4(game, requester, kind, at):
    """Appendix G.4: the player on move, with less than two minutes left, asks for a 5 s
    increment (`BONUS_FISCHER`) or delay (`BONUS_DELAY`) for both players for the rest of
    the game; the opponent gets two extra minutes. Only while paused, only in a countdown
    game without any increment or delay. The new bonus applies from this instant on."""
    if requester != 0 and requester != 1:
        return ERR_SIDE
    if game.state != PAUSED:
        return ERR_STATE
    if kind != BONUS_FISCHER and kind != BONUS_DELAY:
        return ERR_RANGE
    if (
        game.mode != MODE_COUNTDOWN
        or game.controls[0].has_bonus()
        or game.controls[1].has_bonus()  # either side's control: G.4 is for both
        or game.g4_applied
        or game.flagged[0]
        or game.flagged[1]  # a fallen flag is ruled on, not given time
        or requester != game.running
    ):
        return ERR_NOT_APPLICABLE
    other = 1 - requester
    before = game.remaining(other, at)
    game._elapsed(at, 0)
    game._left(requester)
    if game._rm >= G4_LIMIT_MS:  # exactly: 119 999.999 ms is less than two minutes
        return ERR_NOT_APPLICABLE
    # Fold the part of the move already played so the delay is not applied to it.
    s = game.running
    game.main[s] = game._rm
    game.main_us[s] = game._ru
    game.paused_elapsed = 0
    game.paused_us = 0
    game.override_bonus = kind
    game.override_ms = G4_BONUS_MS
    game.g4_applied = True
    if kind == BONUS_DELAY:
        game._delay = True
    game._elapsed(at, 0)
    game._left(other)
    _set_remaining(game, other, game._rm + G4_EXTRA_MS, game._ru)
    game._note(at, ACT_G4, requester, kind, before, game.remaining(other, at))
    return OK


def win_of(game, colour):
    """The result of a win for `colour` (WHITE / BLACK): RESULT_LEFT_WINS or
    RESULT_RIGHT_WINS by the side that has it, RESULT_NONE before the first press (who
    has White is not known yet)."""
    if game.white < 0 or (colour != WHITE and colour != BLACK):
        return RESULT_NONE
    side = game.white if colour == WHITE else 1 - game.white
    return RESULT_LEFT_WINS if side == 0 else RESULT_RIGHT_WINS


def draw_result(game):
    """What finish() records for a draw: RESULT_DRAW, or with draw odds (and White
    known) the win of the colour that has them. The UI shows it before it is
    confirmed."""
    if game.draw_odds == DRAW_ODDS_NONE or game.white < 0:
        return RESULT_DRAW
    return win_of(game, WHITE if game.draw_odds == DRAW_ODDS_WHITE else BLACK)


def finish(game, result, reason, at):
    """Record the result the arbiter confirmed; the clocks stop for good. `reason` is the
    shell's (a small int, kept as it is). Refused (ERR_STATE) before the first press and
    once finished. A draw in a game whose control gives draw odds to a colour is that
    colour's win: `result` becomes it and `reason` gets the bit BY_DRAW_ODDS (its other
    bits still say how the game was drawn). RESULT_NONE ends a game without a result (given
    up: REASON_ABANDONED, REASON_DECLINED, REASON_UNREADABLE, and only with them), its
    times as they stood."""
    if result not in (RESULT_LEFT_WINS, RESULT_RIGHT_WINS, RESULT_DRAW, RESULT_NONE):
        return ERR_RANGE
    if not isinstance(reason, int) or not 0 <= reason < BY_DRAW_ODDS:
        return ERR_RANGE
    if (result == RESULT_NONE) != (REASON_ABANDONED <= reason <= REASON_UNREADABLE):
        return ERR_RANGE  # no result exactly when the game is given up
    if game.state == READY or game.state == FINISHED:
        return ERR_STATE
    if result == RESULT_DRAW:
        result = draw_result(game)
        if result != RESULT_DRAW:
            reason |= BY_DRAW_ODDS
    if game.state == RUNNING:
        game.pause(at)
    if game.state == PAUSED:
        game._elapsed(at, 0)
        game._fold()  # both at once: the hourglass opponent's share needs the mover's
        game.paused_elapsed = 0
        game.paused_us = 0
    game.result = result
    game.reason = reason
    game.state = FINISHED
    game._note(at, ACT_FINISH, -1, reason, RESULT_NONE, result)
    return OK


# ---------------------------------------------------------------------- the saved game
def snapshot(game):
    """The game as a list of ints (for /game.json); restore() reads it back paused. The
    12 scalars, the per-side pairs of _saved_pairs(), then (version 3) the us parts:
    paused_us, main_us[0], main_us[1]."""
    if game.state == RUNNING:
        raise ValueError("pause before saving")
    return _snap(game, game.state, game.paused_elapsed, game.paused_us)


# snapshot_at, _snap and _saved_pairs live in journal.py (loaded at boot): the journal's
# record of a press takes a snapshot while a clock runs, and importing this module there
# would cost that press 25 ms on the chip
snapshot_at = _journal.snapshot_at


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


# ------------------------------------------------------------------ the corrections kept
_ENTRY = const(6)  # ints of a saved correction: ply, action, side, value, before, after


def corrections(game):
    """The game's corrections (its arbiter log without pauses and resumes) as a flat list
    of ints, the saved form: the count of corrections dropped from a full log (ACT_LOST,
    engine.py), then six ints each, oldest first: ply, action, side, value, before, after
    (the module doc's table). Allocates: for saving, while the clocks are stopped."""
    flat = [0]
    for e in game.arbiter_log:
        a = e[1]
        if a == ACT_LOST:
            flat[0] = e[3]
        elif a != ACT_PAUSE and a != ACT_RESUME:
            flat.extend((e[4], a, e[2], e[3], e[5], e[6]))
    return flat


def restore_corrections(game, flat):
    """Load corrections saved by corrections() into the game's arbiter log (after
    restore(), which empties it); their instants restart at 0, as every past event's.
    Returns OK, or ERR_RANGE and nothing changed: not a list of ints, a length that is not
    1 + 6 per entry or beyond the log's capacity, an unknown action, a side that is not
    -1, 0 or 1, a negative ply or one before an earlier entry's (the ply is not held to
    the game's log_count: a log refused by restore_log leaves the corrections good)."""
    try:
        n = len(flat)
    except TypeError:
        return ERR_RANGE
    if n < 1 or (n - 1) % _ENTRY or (n - 1) // _ENTRY > ARBITER_LOG_CAPACITY:
        return ERR_RANGE
    for v in flat:
        if type(v) is not int or not -_INT32 - 1 <= v <= _INT32:
            return ERR_RANGE
    lost = flat[0]
    if lost < 0 or (lost and (n - 1) // _ENTRY >= ARBITER_LOG_CAPACITY):
        return ERR_RANGE
    ply = 0
    for j in range(1, n, _ENTRY):
        p, a, side = flat[j], flat[j + 1], flat[j + 2]
        if p < ply or not -1 <= side <= 1:
            return ERR_RANGE
        if a <= ACT_RESUME or a >= ACT_LOST:
            return ERR_RANGE
        ply = p
    log = []
    if lost:
        log.append((0, ACT_LOST, -1, lost, 0, 0, 0))
    for j in range(1, n, _ENTRY):
        log.append((0, flat[j + 1], flat[j + 2], flat[j + 3], flat[j], flat[j + 4], flat[j + 5]))
    game.arbiter_log = log
    return OK
