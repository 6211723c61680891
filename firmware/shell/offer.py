"""Owns what becomes of the game offered at power-up (game.json's, or the journal's: the
dict settings.load_game gives): taken in when the engine restored it (resumed), or given up
and recorded in games/ as unfinished (declined, or unreadable). Shell module, imported only
when the offer is answered: its code takes no RAM in a clock that boots to the ready screen.
"""

import os

import archive
import engine as E
import settings as settings_mod
from micropython import const

# engine.py's reason codes (game_state.finish)
_REASON_DECLINED = const(5)
_REASON_UNREADABLE = const(6)


def take_in(game, saved):
    """Give `game`, restored from the snapshot of `saved` (settings.load_game's form: from
    game.json or the journal), what is kept beside that snapshot: its identity, its rules
    (freeze, increment timing, period transition: the settings may have been reset since),
    its move log and the arbiter's corrections. True when both were taken; False: the
    times stand, the moves or the corrections are lost (they do not fit the engine)."""
    import game_state  # here, not at boot: its code takes RAM only once a game is restored

    game.set_ident(saved["id"])
    opts = saved["opts"]
    if len(opts) >= 3 and opts[2] in (E.TRANSITION_MOVES, E.TRANSITION_FLAG):
        game.set_rules(opts[0], opts[1], opts[2])
    ok = game_state.restore_log(game, saved["n"], saved["log"]) == E.OK
    arb = saved.get("arb")  # None: a journal without its base (journal_files)
    if arb is not None and game_state.restore_corrections(game, arb) != E.OK:
        ok = False  # the corrections lost
    return ok


def give_up(root, saved, fs=os):
    """The game `saved` (settings.load_game's form) was offered at power-up and not resumed:
    record it in games/ as unfinished ("*"), exactly once, and forget it. A game the engine
    restores is recorded by archive.record() with the reason "declined after a power cut",
    its times as they stood; the first of its writes (game.json := the game, given up: one
    atomic rename) is the commit that makes the decline take, since a journal whose game
    game.json holds in another state is stale (appjournal.py). One the engine refuses
    (rES Err) is recorded with its moves when they fit and the reason "unreadable after a
    power cut", then game.json is removed. True when the game is in games/ (False: a flash
    too full for the record; game.json then keeps it as archive.record() does)."""
    import game_state  # here, not at boot: its code takes RAM only once a game is restored
    import presets

    game = E.Game(presets.control_of(saved["control"]))
    if game_state.restore(game, saved["snap"]) == E.OK:
        take_in(game, saved)
        game_state.finish(game, E.RESULT_NONE, _REASON_DECLINED, 0)
        return archive.record(root, game, saved["control"], fs)
    take_in(game, saved)  # what fits: refused moves or corrections are recorded without
    if archive.write_record(root, game, fs, _REASON_UNREADABLE) is None:
        return False
    settings_mod.clear_game(root, fs)
    return True
