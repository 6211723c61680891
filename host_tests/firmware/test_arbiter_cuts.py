"""Power cuts at every write after an arbiter's correction: the correction stays with the game.

As test_power_cuts.py and test_journal_cuts.py do (the App on the fault-injecting
filesystem, a dry run logging every file operation, then one run per cut point and a fresh
App booted on what the flash holds): a game saved at a pause after 12 half-moves is resumed
at power-up, the arbiter takes 20 seconds off the left player (the menu, leaving it saves
the game), the game goes on with its journal for four half-moves, is paused (saved) and
ruled a dead position (recorded). At every cut, the power-up gives the game back or its
record, exactly once, and:

- an offered game has the correction exactly when its times have it (the old save before
  the correction was saved, else the correction with its half-move and both times), the
  journal's game included (its corrections come from game.json, its base);
- a recorded game's record lists the correction and the result, each at its half-move.

And corrections in game.json that make no sense resume the game without them, saying so.
"""

import json

import engine as E
import game_state
import pytest
import ui as U
from test_journal_cuts import JPlay
from test_power_cuts import (
    CutCheck,
    Play,
    as_rows,
    boot,
    fixed_ident,  # noqa: F401 (the fixture)
    flash_with,
    message,
    new_fs,
    powered_up,
    records,
    sweep,
)

from harness.fakefs import FS_MODELS

PENALTY_S = 20  # seconds the arbiter takes off (the default control is a short one)


def paused_at_12(p):
    j = JPlay(p.app, p.t).moves(12).pause()
    p.t = j.t


def correct(p):
    """The arbiter menu: the left's time, 20 seconds less (`Lt S`, the second item); PLAY
    applies it and leaves."""
    p.key(U.SET, U.LONG)
    assert p.app.ui.screen == U.S_ARBITER
    p.key(U.SET)
    for _ in range(PENALTY_S):
        p.key(U.MINUS)
    return p.key(U.PLAY)


def go_on(p):
    """Resume, four half-moves with the journal's records, pause (saved)."""
    j = JPlay(p.app, p.t)
    j.resume().moves(4).pause()
    p.t = j.t
    return p


def kept(g):
    return [list(e[4:5] + e[1:4] + e[5:]) for e in g.arbiter_log if e[1] > E.ACT_RESUME]


class Kept(CutCheck):
    """The check after a cut (see the module doc)."""

    def __init__(self, old, entry, moves):
        super().__init__()
        self.old = old  # the game's snapshot as saved before the correction
        self.entry = entry  # the correction as the game keeps it
        self.moves = moves  # every half-move of the whole game

    def __call__(self, fs, k):
        app, recs, offered = powered_up(fs)
        assert offered != (len(recs) == 1), (k, offered, len(recs))
        if not offered:
            rec = recs[0]
            assert rec["moves"] == self.moves, k
            assert rec["arbiter"] == [self.entry, [16, E.ACT_FINISH, -1, E.REASON_DEAD, 0, 3]], k
            assert rec["plies"] == 16, k
            self.seen.add("recorded")
            return
        g = Play(app, 50_000_000).accept_offer().game
        if kept(g) == []:
            assert game_state.snapshot(g) == self.old, k  # the correction was not saved yet
            self.seen.add("before")
            return
        assert kept(g) == [self.entry], k
        self.seen.add("journal" if g.log_count > 12 and g.state == E.PAUSED else "saved")
        # and once more saved and recorded: the record has it
        Play(app, 60_000_000).dead_position()
        assert records(fs)[0]["arbiter"][0] == self.entry, k


@pytest.mark.parametrize("model", FS_MODELS)
def test_a_correction_survives_a_cut_at_every_write_after_it(model):
    dry = Play(boot(new_fs(**model)))
    paused_at_12(dry)
    old = game_state.snapshot(dry.game)
    left = dry.game.remaining(0, 0)
    correct(dry)
    entry = kept(dry.game)
    after = left - PENALTY_S * 1_000
    assert after > 10_000
    assert entry == [[12, E.ACT_SET_TIME, 0, after, left, after]]
    go_on(dry).dead_position()
    moves = as_rows(dry.game.log_entries())
    assert len(moves) == 16
    check = Kept(old, entry[0], moves)

    def prelude(app):
        app._play = Play(app, 5_000_000).accept_offer()

    def sequence(app):
        go_on(correct(app._play)).dead_position()

    flash = lambda m: flash_with(m, paused_at_12)  # noqa: E731
    assert sweep(model, flash, prelude, sequence, check) > 150
    assert check.seen == {"before", "saved", "journal", "recorded"}, check.seen


def test_corrections_that_do_not_fit_the_engine_resume_the_game_and_say_so():
    fs = flash_with({}, paused_at_12, correct)
    doc = json.loads(fs.files["/game.json"])
    assert doc["arb"][1:4] == [12, E.ACT_SET_TIME, 0]
    doc["arb"][2] = E.ACT_PAUSE  # not a correction
    fs.files["/game.json"] = json.dumps(doc).encode()
    p = Play(boot(fs), 5_000_000).accept_offer()
    assert message(p.app) == (b"LOG ", b"Err ")
    assert p.game.state == E.PAUSED and p.game.log_count == 12 and kept(p.game) == []
