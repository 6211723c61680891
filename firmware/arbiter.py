"""The arbiter's actions on a Game: corrections, Appendix G.4, the result.

Owns what the arbiter changes beyond pause and resume: the corrections of a stopped clock (a
side's time, moves, period, overtime counter: articles 6.10b, 7.5, G.6), Appendix G.4's
bonus for both players and the opponent's two extra minutes, and the result (`finish`, with
draw odds: `draw_result`, `win_of`). Plain functions of the game, `set_time(game, side, ms,
at)`: not on the hot path, so the module is imported where an action is taken (the arbiter
menu, the material entry): a power-up without a saved game never loads it. Pure, like
engine.py: every call takes the instant `at` in ms, nothing here reads a clock. Each action
returns an engine error code (engine.OK, ERR_STATE, ERR_RANGE, ERR_SIDE, ERR_NOT_APPLICABLE)
and, when it acted, is noted in the game's `arbiter_log`; a refused one changes nothing. The
rules each action follows and why: docs/timing.md#the-arbiter.
"""

from engine import (
    ACT_ADD_TIME,
    ACT_FINISH,
    ACT_G4,
    ACT_SET_MOVES,
    ACT_SET_OVERTIME,
    ACT_SET_PERIOD,
    ACT_SET_TIME,
    BLACK,
    BY_DRAW_ODDS,
    ERR_NOT_APPLICABLE,
    ERR_RANGE,
    ERR_SIDE,
    ERR_STATE,
    FINISHED,
    FLAGGED,
    MAX_SET_MOVES,
    MAX_SET_MS,
    OK,
    PAUSED,
    READY,
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
_US = const(1000)  # us per ms (engine.py's pairs)


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
    _set_remaining(game, side, ms, 0)
    game._note(at, ACT_SET_TIME, side, ms)
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
    _set_remaining(game, side, new, us)
    game._note(at, ACT_ADD_TIME, side, ms)
    return OK


def set_moves(game, side, n, at):
    """Arbiter: correct side's completed-move counter."""
    err = _correctable(game, side)
    if err:
        return err
    if not (isinstance(n, int) and 0 <= n <= MAX_SET_MOVES):
        return ERR_RANGE
    game.moves[side] = n
    game._note(at, ACT_SET_MOVES, side, n)
    return OK


def set_period(game, side, p, at):
    """Arbiter: correct side's current period (its time is set separately)."""
    err = _correctable(game, side)
    if err:
        return err
    if not (isinstance(p, int) and 0 <= p <= game.controls[side].last()):
        return ERR_RANGE
    game.period[side] = p
    game._note(at, ACT_SET_PERIOD, side, p)
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
    game.ot_left[side] = n
    game._note(at, ACT_SET_OVERTIME, side, n)
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
    other = 1 - requester
    game._elapsed(at, 0)
    game._left(other)
    _set_remaining(game, other, game._rm + G4_EXTRA_MS, game._ru)
    game._note(at, ACT_G4, requester, kind)
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
    bits still say how the game was drawn)."""
    if result not in (RESULT_LEFT_WINS, RESULT_RIGHT_WINS, RESULT_DRAW):
        return ERR_RANGE
    if not isinstance(reason, int) or not 0 <= reason < BY_DRAW_ODDS:
        return ERR_RANGE
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
    game._note(at, ACT_FINISH, -1, result)
    return OK
