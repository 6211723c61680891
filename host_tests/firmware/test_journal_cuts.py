"""Power cuts inside every write of the journal, then the next power-up.

As test_power_cuts.py does for the saves at a pause or a flag and for the records: the App
runs on the fault-injecting filesystem (harness/fakefs.py, its four models), a dry run logs
every file operation of a sequence, then the sequence runs again from the same flash for each
cut point (before every operation, inside every write at no byte, one byte, half, all but
one) and a fresh App boots on what the flash holds. The moves go through Journaling.record as the
press's wakeup calls it (a record as of the press), the thinking time through its periodic
record (as of the instant the engine was ticked to). Asserted at each power-up:

- the game is offered (`rES  YES`) as of the newest whole record: the record before the cut
  write or the one it wrote, never anything else (times to the us, counters, side to move,
  the move log whole); before the journal's first whole record, what was there before (the
  ready clock, or the game saved at the last pause);
- exactly once across the journal and the records: a game in games/ is never offered;
- no file is left half-written: no *.tmp, every .json parses.
"""

import appjournal as AJ
import engine as E
import game_state
import pytest
import ui as U
from test_power_cuts import (
    CutCheck,
    ExactlyOnce,
    Play,
    as_rows,
    boot,
    fixed_ident,  # noqa: F401 (the fixture)
    flash_with,
    new_fs,
    powered_up,
    records,
    sweep,
)

from harness.fakefs import FS_MODELS

READY = "ready"


class JPlay(Play):
    """Play, with the journal's records where the press's wakeup and the periodic wakeup
    write them (Journaling.record)."""

    def moves(self, n):
        g = self.game
        if g.state == E.READY:
            self.t += 500
            g.press(0, self.t, 123)
            self.record()
        for _ in range(n):
            self.t += 1_000 + 37 * g.log_count
            assert g.press(g.running, self.t, (7 * g.log_count) % 1000) & E.EV_MOVE
            self.record()
        return self

    def think(self, ms):
        """The running side thinks `ms`: the periodic records fall due on the way."""
        g = self.game
        end = self.t + ms
        while self.t < end:
            self.t = min(end, self.t + 1_000)  # the display's wakeups, once a second
            g.tick(self.t)
            if 0 <= self.app.journal.due <= self.t:
                self.app.journal.record(self.t, self.t, 0, g.deadline(), -1, None)
        return self

    def record(self):
        """The press's record, in a wakeup with room before the next display change."""
        app = self.app
        app.journal.press = True
        app.journal.record(self.t, self.t, 0, self.game.deadline(), -1, None)


def state(g):
    """What a resume must give back: the snapshot (times to the us, counters, side to move,
    periods, bonus state) and the move log."""
    return (game_state.snapshot(g), as_rows(g.log_entries()))


def as_paused(g, at, at_us=0):
    """state() of the running game g as if paused at at.at_us."""
    snap = game_state.snapshot_at(g, at, at_us)
    r = E.Game(g.control)
    assert game_state.restore(r, snap) == E.OK
    game_state.restore_log(r, g.log_count, [v for row in g.log_rows(True) for v in row])
    return state(r)


class Offered(CutCheck):
    """The check after a cut: the power-up offers one of `states` (READY: shows the ready
    clock), and accepted the game is exactly that state."""

    def __init__(self, *states):
        super().__init__()
        self.states = states

    def __call__(self, fs, k):
        app, recs, offered = powered_up(fs)
        assert recs == [], k
        if not offered:
            assert READY in self.states, k
            assert app.ui.game.state == E.READY, k
            self.seen.add(READY)
            return
        g = Play(app, 50_000_000).accept_offer().game
        got = state(g)
        assert got in self.states, (k, got[0], [s[0] for s in self.states if s != READY])
        self.seen.add(self.states.index(got))
        # accepted: game.json holds it, the journal is retired
        assert not [p for p in fs.files if p.startswith("/journal.d/s")], k


def dry(model, *steps):
    """The App after `steps` on a fresh flash, no cut (for the states to expect)."""
    p = JPlay(boot(new_fs(**model)))
    for step in steps:
        step(p)
    return p


@pytest.mark.parametrize("model", FS_MODELS)
def test_a_cut_in_the_first_record_leaves_the_ready_clock_or_the_started_game(model):
    after = dry(model, lambda p: p.moves(0))
    new = as_paused(after.game, after.t)
    check = Offered(READY, new)
    flash = lambda m: flash_with(m, lambda p: None)  # noqa: E731
    n = sweep(model, flash, lambda app: None, lambda app: JPlay(app).moves(0), check)
    assert n > 15
    assert check.seen == {READY, 1}


@pytest.mark.parametrize("model", FS_MODELS)
@pytest.mark.parametrize("moves", [5, 8, 16])  # inside a chunk, a chunk's first row, the 3rd
def test_a_cut_in_a_press_record_leaves_the_move_before_or_after(model, moves):
    before = dry(model, lambda p: p.moves(moves - 1))
    after = dry(model, lambda p: p.moves(moves))
    check = Offered(as_paused(before.game, before.t), as_paused(after.game, after.t))

    def prelude(app):
        app._play = JPlay(app).moves(moves - 1)

    flash = lambda m: flash_with(m, lambda p: None)  # noqa: E731
    assert sweep(model, flash, prelude, lambda app: app._play.moves(1), check) >= 8
    assert check.seen == {0, 1}


@pytest.mark.parametrize("model", FS_MODELS)
def test_a_cut_in_a_periodic_record_charges_the_move_up_to_a_whole_record(model):
    think_ms = 21_500  # two periodic records: at +10 s and +20 s
    before = dry(model, lambda p: p.moves(6).think(10_000))
    after = dry(model, lambda p: p.moves(6).think(think_ms))
    want_before = as_paused(before.game, before.t)
    want_after = as_paused(after.game, after.t - 1_500)  # the record at +20 s
    check = Offered(want_before, want_after)

    def prelude(app):
        app._play = JPlay(app).moves(6).think(10_000)

    def sequence(app):
        app._play.think(think_ms - 10_000)

    flash = lambda m: flash_with(m, lambda p: None)  # noqa: E731
    assert sweep(model, flash, prelude, sequence, check) > 6
    assert check.seen == {0, 1}


def paused_at_12(p):
    p.moves(12).pause()


@pytest.mark.parametrize("model", FS_MODELS)
def test_a_cut_as_the_journal_restarts_after_a_resume_keeps_the_paused_game(model):
    """Resumed from game.json: the journal's first record (head with its base, the row,
    the state) cut anywhere offers the game as saved at the pause or as of the move."""
    flash = lambda m: flash_with(m, paused_at_12)  # noqa: E731

    def prelude(app):
        app._play = Play(app, 5_000_000).accept_offer()
        app._old = state(app._play.game)
        app._play = JPlay(app, app._play.t).resume()

    app = boot(flash(model).reboot())
    prelude(app)
    app._play.moves(1)
    check = Offered(app._old, as_paused(app._play.game, app._play.t))
    n = sweep(model, flash, prelude, lambda app: app._play.moves(1), check)
    assert n > 15
    assert check.seen == {0, 1}


@pytest.mark.parametrize("model", FS_MODELS)
def test_a_cut_while_a_pause_saves_offers_the_pause_or_the_last_record(model):
    before = dry(model, lambda p: p.moves(9))
    last_record = as_paused(before.game, before.t)
    after = dry(model, lambda p: p.moves(9).pause())
    check = Offered(last_record, state(after.game))

    def prelude(app):
        app._play = JPlay(app).moves(9)

    flash = lambda m: flash_with(m, lambda p: None)  # noqa: E731
    assert sweep(model, flash, prelude, lambda app: app._play.pause(), check) > 20
    assert check.seen == {0, 1}


@pytest.mark.parametrize("model", FS_MODELS)
def test_a_cut_while_a_flag_saves_offers_the_flag_or_the_last_record(model):
    before = dry(model, lambda p: p.moves(5))
    last_record = as_paused(before.game, before.t)
    after = dry(model, lambda p: p.moves(5).flag().save_at_flag())
    check = Offered(last_record, state(after.game))

    def prelude(app):
        app._play = JPlay(app).moves(5).flag()

    flash = lambda m: flash_with(m, lambda p: None)  # noqa: E731
    assert sweep(model, flash, prelude, lambda app: app._play.save_at_flag(), check) > 20
    assert check.seen == {0, 1}


@pytest.mark.parametrize("model", FS_MODELS)
def test_recording_a_result_after_a_journal_is_exactly_once(model):
    """The game ran with its journal, was paused (saved) and is ruled a draw: offered or
    recorded, exactly one, at every cut; the journal never brings a recorded game back."""

    def played(p):
        p.moves(11).pause()

    moves = as_rows(dry(model, played).game.log_entries())
    check = ExactlyOnce(moves)

    def prelude(app):
        p = JPlay(app)
        played(p)
        app._play = p

    flash = lambda m: flash_with(m, lambda p: None)  # noqa: E731
    assert sweep(model, flash, prelude, lambda app: app._play.dead_position(), check) > 100
    assert check.seen == {"offered", "recorded"}


@pytest.mark.parametrize("model", FS_MODELS)
def test_a_cut_while_the_journals_game_is_taken_in_keeps_it(model):
    """The power-up offers the journal's game; accepted, game.json takes it and the journal
    retires: a cut at any step of that offers the same game again."""

    def played(p):
        p.moves(10).think(3_000)

    p = dry(model, played)
    want = as_paused(p.game, p.t - 3_000)  # the press record: the periodic one is 10 s on
    check = Offered(want)

    def make(m):
        fs = new_fs(**m)
        played(JPlay(boot(fs)))
        return fs.reboot()

    def prelude(app):
        assert app.ui.screen == U.S_RESUME

    def sequence(app):
        Play(app, 40_000_000).accept_offer()

    assert sweep(model, make, prelude, sequence, check) > 10
    assert check.seen == {0}


def test_a_journal_of_a_recorded_game_is_not_offered(monkeypatch):
    """A cut after the record was written and game.json removed, before the journal went:
    the power-up finds the journal's game in games/ and removes the journal."""
    fs = new_fs(lfs=True)
    app = boot(fs)
    p = JPlay(app).moves(4).pause()
    monkeypatch.setattr(app.journal, "retire", lambda: None)
    p.resume()
    JPlay(app, p.t).record()
    assert "/journal.d/s1" in fs.files or "/journal.d/s0" in fs.files
    p.t += 20
    p.pause().dead_position()
    assert len(records(fs)) == 1
    assert [k for k in fs.files if k.startswith("/journal.d/s")]
    app = boot(fs.reboot())
    assert app.ui.screen != U.S_RESUME
    assert not [k for k in app.fs.files if k.startswith("/journal.d/s")]


# ------------------------------------------------------------------ the journal made ready
def make_ready(app, t=0, delayed=True):
    """Journaling.prepare as the App's wakeups call it: armed by a key (`delayed`), the
    first finds it armed and the one PREPARE_AFTER_MS later makes the journal ready; armed
    at power-up, the first."""
    j = app.journal
    j.prepare(t, None)
    if delayed:
        assert j.armed and not j.store.ready  # not in the wakeup that armed it
        j.prepare(t + AJ.PREPARE_AFTER_MS, None)
    assert not j.armed and j.store.ready


def nine_then_paused(p):
    p.moves(9).pause()


@pytest.mark.parametrize("model", FS_MODELS)
def test_a_cut_while_the_journal_is_made_ready_offers_the_paused_game(model):
    """Paused (game.json holds the game, the journal retired): the next journal is made
    ready (the old files removed, the head written, its compactions learnt); a cut at any
    step of it offers the paused game, as game.json holds it."""
    after = dry(model, nine_then_paused)
    check = Offered(state(after.game))

    def prelude(app):
        app._play = JPlay(app)
        nine_then_paused(app._play)
        assert app.journal.armed

    def sequence(app):
        make_ready(app)
        assert app.journal.store.ready

    flash = lambda m: flash_with(m, lambda p: None)  # noqa: E731
    assert sweep(model, flash, prelude, sequence, check) > 20
    assert check.seen == {0}


@pytest.mark.parametrize("model", FS_MODELS)
def test_after_the_journal_was_made_ready_the_resuming_press_writes_its_state_only(model):
    """Resumed from game.json with the journal made ready at the pause: the press's record
    writes its state slot and nothing else (the head is there), and a cut anywhere in it
    offers the game as saved at the pause or as of the press."""
    flash = lambda m: flash_with(m, paused_at_12)  # noqa: E731

    def prelude(app):
        app._play = Play(app, 5_000_000).accept_offer()
        app._old = state(app._play.game)
        make_ready(app)
        app._play = JPlay(app, app._play.t).resume()

    fs = flash(model).reboot()
    app = boot(fs)
    prelude(app)
    k = len(fs.ops)
    app._play.moves(1)
    assert app.journal.store.ready is None and app.journal.store.active()
    # s1, made blank and kept open at the preparation, rewritten in place: one commit
    assert [op[1] for op in fs.ops[k:]] == ["seek", "write", "flush"]
    check = Offered(app._old, as_paused(app._play.game, app._play.t))
    n = sweep(model, flash, prelude, lambda app: app._play.moves(1), check)
    assert n >= 4
    assert check.seen == {0, 1}


@pytest.mark.parametrize("model", FS_MODELS)
def test_a_head_made_ready_for_another_game_is_written_again_at_the_press(model):
    """The game set up again after its journal was made ready (another ident): the first
    press's record writes the head of the game it starts, and the power-up offers that."""
    fs = new_fs(**model)
    app = boot(fs)
    make_ready(app, delayed=False)
    ready = app.journal.store.ready
    app.ui.game.set_ident(app.ui.game.ident + 1)
    p = JPlay(app).moves(3)
    assert app.journal.store.ready is None
    assert fs.files["/journal.d/h"].decode() != ready
    want = as_paused(p.game, p.t)
    assert Offered(want)(fs.reboot(), 0) is None
