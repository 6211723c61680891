"""Owns a game's way onto the flash: its resume state (/game.json, through settings.py) and
its record in /games (gNNN.json, through gamelog.py), so that a power cut at any instant
leaves each game offered again or recorded, exactly one of the two, never both, never
neither. Shell module: file I/O through an os-like `fs`; called only while the clocks are
stopped.

Identity: a game gets a random non-zero 30-bit number (Game.ident) at its first save. The
resume state ("id" in game.json) and the record ("id" in gNNN.json) both carry it, so the
power-up can tell whether the game it finds in game.json is already in games/.

Recording a result (record()), each step one atomic write or remove (storage.py):
  1. game.json := the finished game (state FINISHED, result, reason, move log, id)
  2. games/gNNN.json := the record, with the id (written as gNNN.json.tmp, then renamed)
  3. game.json removed
If step 1 fails without a power cut (full flash), steps 2 and 3 still run: the id alone
keeps the guarantee. If step 2 fails, game.json stays finished and the next power-up
writes the record.

At power-up (settle(), after gamelog.repair() has renamed a whole gNNN.json.tmp into place
and removed a cut one), by what game.json holds and whether games/ has its id:

  game.json            its id in games/   power was cut         power-up does         shows
  none                 -                  before the game was   nothing               ready
                                          saved, or after 3
  paused or flagged    no                 before 1 was whole    offers it             rES YES
  finished             no                 in 2                  writes the record,    result
                                                                then removes game.json
  finished             yes                in 3                  removes game.json     result
  paused or flagged    yes                in 3, 1 had failed    removes game.json     ready
  not restorable       yes                -                     removes game.json     ready

Every step of settle() is itself one atomic write or remove and the table is re-read at the
next power-up, so a cut while it repairs only repeats it.
"""

import os

import engine as E
import gamelog
import settings as settings_mod
from micropython import const
from timecontrol import DRAW_ODDS_WHITE

# settle() results: what the power-up found in game.json
NONE = const(0)  # no game to show (none saved, or it was already recorded)
OFFER = const(1)  # a stopped game: offer to resume it (the caller does, ui.offer_resume)
RESULT = const(2)  # a finished game, now recorded: restored into the engine to show it
RESULT_UNSAVED = const(3)  # as RESULT, but its record could not be written (tried again)

_IDENT_MASK = const(0x3FFFFFFF)  # 30 bits: a small int on every port
_REASON_FLAG = const(1)  # engine.py's reason codes (game_state.finish)
_REASON_DEAD = const(2)
_REASON_RESULT = const(3)
_REASON_ABANDONED = const(4)
_REASON_DECLINED = const(5)
_REASON_UNREADABLE = const(6)


def new_ident():
    """A random number 1..2**30-1 from the chip's random source (os.urandom on the rp2;
    random.getrandbits where a port has no urandom)."""
    try:
        b = os.urandom(4)
        n = (b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24) & _IDENT_MASK
    except Exception:
        import random

        n = random.getrandbits(30)
    return n if n else 1


def save(root, game, control, fs=os):
    """Write the stopped `game` (PAUSED, FLAGGED or FINISHED) to game.json with its move
    log, giving it an identity first if it has none. `control` is the settings' control
    dict it was started with. True when written."""
    import game_state  # here, not at boot: its code takes RAM only once a game is saved

    if not game.ident:
        game.set_ident(new_ident())
    state = {
        "v": 1,
        "id": game.ident,
        "control": control,
        "snap": game_state.snapshot(game),
        "opts": [int(game.freeze), int(game.inc_before), game.transition],
        "n": game.log_count,
        "arb": game_state.corrections(game),
    }
    return settings_mod.save_game(root, state, fs, game.log_rows(True))


class _Moves:
    """The game's log as record rows; iterable again and again (gamelog retries a write on a
    full flash), one small row at a time."""

    def __init__(self, game):
        self.game = game

    def __iter__(self):
        return self.game.log_rows()


def _reason(code):
    """The record's text for a finish() reason (engine.py's REASON_*, without E.BY_DRAW_ODDS)."""
    if code == _REASON_FLAG:
        return "flag"
    if code == _REASON_DEAD:
        return "dead position"
    if code == _REASON_RESULT:
        return "on the board"
    if code == _REASON_ABANDONED:
        return "abandoned by the arbiter"
    if code == _REASON_DECLINED:
        return "declined after a power cut"
    if code == _REASON_UNREADABLE:
        return "unreadable after a power cut"
    return "arbiter"


def write_record(root, game, fs=os, reason=-1):
    """Archive the finished `game` in games/ with its identity, the control each colour had
    and, under draw odds, what they did (gamelog.py's format). `reason`: engine.py's
    REASON_* the record gives, when not the game's own (a game that could not be restored
    has none). The file name, or None."""
    if game.result == E.RESULT_DRAW:
        result = "1/2-1/2"
    elif game.white < 0 or game.result == E.RESULT_NONE:
        result = "*"
    else:
        left_won = game.result == E.RESULT_LEFT_WINS
        result = "1-0" if left_won == (game.white == 0) else "0-1"
    white = game.white if game.white >= 0 else 0
    extra = {
        "controls": {
            "white": game.controls[white].spec(),
            "black": game.controls[1 - white].spec(),
        }
    }
    if game.state == E.FINISHED:  # the times on the clocks when the game ended
        extra["final"] = {"white": game.remaining(white, 0), "black": game.remaining(1 - white, 0)}
    if game.draw_odds:
        extra["draw_odds"] = "white" if game.draw_odds == DRAW_ODDS_WHITE else "black"
    reason = _reason((game.reason if reason < 0 else reason) & ~E.BY_DRAW_ODDS)
    if game.reason & E.BY_DRAW_ODDS:
        extra["drawn_by"] = reason
        reason = "draw odds"
    _corrections(game, extra)
    return gamelog.save_game_log(
        root, game.control.name, white, result, reason, _Moves(game), fs, game.ident, extra
    )


def _corrections(game, extra):
    """The record's keys of the arbiter's corrections (gamelog.py's format), when it made
    any: "arbiter" one row each, "arbiter_lost" the count a full log dropped, "plies" the
    half-moves of the whole game (a row's ply counts from its first)."""
    import game_state  # here, not at boot: its code takes RAM only once a game is saved

    flat = game_state.corrections(game)
    if len(flat) == 1 and not flat[0]:
        return
    extra["plies"] = game.log_count
    extra["arbiter"] = [flat[j : j + 6] for j in range(1, len(flat), 6)]
    if flat[0]:
        extra["arbiter_lost"] = flat[0]


def record(root, game, control, fs=os):
    """Record the result of the finished `game` by the three steps of the module doc. True
    when it is in games/ and game.json is gone; False when the record could not be written
    (game.json then holds the finished game, and the next power-up tries again)."""
    save(root, game, control, fs)  # 1 (on failure the identity still guards 2 and 3)
    if write_record(root, game, fs) is None:  # 2
        return False
    settings_mod.clear_game(root, fs)  # 3
    return True


def settle(root, game, saved, fs=os):
    """At power-up, with `saved` the state settings.load_game() found and `game` reset to
    its control: carry out the table of the module doc. Returns NONE, OFFER, RESULT or
    RESULT_UNSAVED; for RESULT* the finished game (with its log) is left in `game`, for the
    others `game` holds the saved state and the caller resets or offers it."""
    import game_state  # here, not at boot: its code takes RAM only once a game is restored

    ident = saved["id"]
    recorded = gamelog.find_game(root, ident, fs) is not None
    if game_state.restore(game, saved["snap"]) != E.OK:
        if recorded:  # already in games/: nothing to offer, whatever the snapshot says
            settings_mod.clear_game(root, fs)
            return NONE
        return OFFER  # the resume offer reports it (rES Err)
    game.set_ident(ident)
    if game.state == E.FINISHED:
        game_state.restore_log(game, saved["n"], saved["log"])  # refused: recorded without moves
        game_state.restore_corrections(game, saved["arb"])  # refused: recorded without them
        if not recorded and write_record(root, game, fs) is None:
            return RESULT_UNSAVED
        settings_mod.clear_game(root, fs)
        if game.reason == _REASON_DECLINED:
            return NONE  # the decline's power-up goes on to the ready screen
        return RESULT
    if recorded:
        settings_mod.clear_game(root, fs)
        return NONE
    return OFFER
