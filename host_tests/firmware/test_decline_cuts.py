"""No game vanishes: a resume declined, a resume refused (`rES  Err`), a game abandoned by the
arbiter. Each is recorded in games/ exactly once as unfinished, and a power cut at any
operation of it (inside every write too) leaves the game offered exactly as it stood, or
recorded and not offered: never an older state of the game, never neither.

Swept as test_power_cuts.py and test_journal_cuts.py sweep their sequences, on the four
filesystem models, for the three places an offered game comes from: the journal alone (a
game cut while its clock ran), the journal on top of game.json (cut after a pause and a
resume: game.json holds an older state of the same game) and game.json alone (a pause).
"""

import json
import re

import engine as E
import offer
import presets
import pytest
import ui as U
import ui_arbiter
from test_journal_cuts import JPlay, dry, state
from test_power_cuts import (
    IDENT,
    CutCheck,
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

DECLINED = "declined after a power cut"
UNREADABLE = "unreadable after a power cut"
ABANDONED = "abandoned by the arbiter"


def slots(fs):
    """The journal's state slots on the flash."""
    return [p for p in fs.files if p.startswith("/journal.d/s")]


class OfferedOrRecorded(CutCheck):
    """The check after a cut while a game is given up: the power-up offers it exactly as it
    stood (`want`: state() of it), with no record; or it is recorded once, unfinished, for
    `reason`, with every move, and neither game.json nor the journal holds it. `then`: the
    engine states such a power-up may show (the ready clock after a decline; after an
    abandon the ` -- ` result when the power-up wrote the record, else the ready clock)."""

    def __init__(self, want, reason, then):
        super().__init__()
        self.want = want
        self.reason = reason
        self.then = then

    def __call__(self, fs, k):
        app, recs, offered = powered_up(fs)
        if offered:
            assert recs == [], k
            g = Play(app, 50_000_000).accept_offer().game
            assert state(g) == self.want, k
            self.seen.add("offered")
            return
        assert len(recs) == 1, (k, len(recs))
        rec = recs[0]
        assert (rec["result"], rec["reason"]) == ("*", self.reason), k
        assert rec["moves"] == self.want[1], k
        assert "/game.json" not in app.fs.files, k
        assert slots(app.fs) == [], k
        assert app.ui.game.state in self.then, k
        self.seen.add("recorded")


def decline(app):
    """At the resume offer: PLUS turns the answer to `  no`, PLAY confirms it."""
    p = Play(app, 60_000_000)
    assert app.ui.screen == U.S_RESUME
    p.key(U.PLUS)
    p.key(U.PLAY)


def journal_only(p):
    """A game cut while its clock ran: the journal alone holds it."""
    JPlay(p.app, p.t).moves(12)


def journal_on_pause(p):
    """Paused at 7 (game.json), resumed, 5 more moves: the journal continues from the pause."""
    q = JPlay(p.app, p.t).moves(7).pause().resume()
    q.moves(5)


def paused_only(p):
    p.moves(12).pause()


def offered_state(model, played):
    """state() of the game the power-up offers after `played`."""
    app = boot(flash_with(model, played).reboot())
    return state(Play(app, 50_000_000).accept_offer().game)


@pytest.mark.parametrize("model", FS_MODELS)
@pytest.mark.parametrize("played", [journal_only, journal_on_pause, paused_only])
def test_a_cut_in_a_decline_offers_the_game_as_it_stood_or_has_recorded_it(model, played):
    want = offered_state(model, played)
    assert len(want[1]) == 12
    check = OfferedOrRecorded(want, DECLINED, (E.READY,))
    flash = lambda m: flash_with(m, played)  # noqa: E731
    assert sweep(model, flash, lambda app: None, decline, check) > 10
    assert check.seen == {"offered", "recorded"}


def test_a_declined_game_is_recorded_with_its_times_and_the_clock_is_ready():
    fs = flash_with({"lfs": True}, journal_on_pause)
    app = boot(fs.reboot())
    g = Play(boot(fs.reboot()), 50_000_000).accept_offer().game
    times = (g.remaining(0, 0), g.remaining(1, 0))
    decline(app)
    assert app.ui.screen == U.S_GAME and app.ui.game.state == E.READY
    (rec,) = records(app.fs)
    assert (rec["result"], rec["reason"], rec["id"]) == ("*", DECLINED, IDENT)
    assert len(rec["moves"]) == 12
    left = {rec["white"]: "white", 1 - rec["white"]: "black"}
    assert rec["final"] == {left[0]: times[0], left[1]: times[1]}
    assert "/game.json" not in app.fs.files and slots(app.fs) == []
    again = boot(app.fs.reboot())
    assert again.ui.screen == U.S_GAME and again.ui.game.state == E.READY
    assert len(records(again.fs)) == 1


def unreadable(model):
    """A flash whose game.json holds a paused game the engine refuses (a time beyond what
    its control can hold) with a whole move log."""
    fs = flash_with(model, paused_only)
    doc = json.loads(fs.files["/game.json"])
    doc["snap"][12] = 10**9  # the left side's time: more than 90 min + 30 s a move can give
    fs.files["/game.json"] = json.dumps(doc).encode()
    return fs


@pytest.mark.parametrize("model", FS_MODELS)
@pytest.mark.parametrize("answer", ["yes", "no"])
def test_a_cut_while_an_unreadable_game_is_given_up_offers_it_again_or_has_recorded_it(
    model, answer
):
    moves = as_rows(dry(model, paused_only).game.log_entries())
    original = unreadable(model).files["/game.json"]
    seen = set()

    def check(fs, k):
        app, recs, offered = powered_up(fs)
        if offered:
            assert recs == [] and app.fs.files["/game.json"] == original, k
            seen.add("offered")
            return
        assert len(recs) == 1, k
        assert (recs[0]["result"], recs[0]["reason"]) == ("*", UNREADABLE), k
        assert recs[0]["moves"] == moves, k
        assert "/game.json" not in app.fs.files, k
        seen.add("recorded")

    def answer_it(app):
        p = Play(app, 60_000_000)
        if answer == "no":
            p.key(U.PLUS)
        p.key(U.PLAY)
        if answer == "yes":
            assert app.ui.screens[U.S_MESSAGE].shown == (b"rES ", b"Err ")

    assert sweep(model, unreadable, lambda app: None, answer_it, check) > 10
    assert seen == {"offered", "recorded"}


def abandon(p):
    """Paused: the arbiter menu's `AbAn`, switched to ` YES`, PLAY."""
    p.key(U.SET, U.LONG)
    menu = p.app.ui.screen_of(U.S_ARBITER)
    while menu.cursor != ui_arbiter.A_ABANDON:
        p.key(U.SET)
    p.app.ui.render(p.t)
    assert bytes(p.app.ui.text[0]) == b"AbAn" and bytes(p.app.ui.text[1]) == b"  no"
    p.key(U.PLAY)  # `  no`: PLAY leaves the menu, nothing happens
    assert p.game.state == E.PAUSED and p.app.ui.screen == U.S_GAME
    p.key(U.SET, U.LONG)
    while menu.cursor != ui_arbiter.A_ABANDON:
        p.key(U.SET)
    p.key(U.MINUS)
    p.app.ui.render(p.t)
    assert bytes(p.app.ui.text[1]) == b" YES"
    return p.key(U.PLAY)


@pytest.mark.parametrize("model", FS_MODELS)
def test_a_cut_while_the_arbiter_abandons_a_game_offers_it_or_has_recorded_it(model):
    want = state(dry(model, lambda p: p.moves(9).pause()).game)
    check = OfferedOrRecorded(want, ABANDONED, (E.FINISHED, E.READY))

    def prelude(app):
        app._play = JPlay(app).moves(9).pause()

    flash = lambda m: flash_with(m, lambda p: None)  # noqa: E731
    assert sweep(model, flash, prelude, lambda app: abandon(app._play), check) > 30
    assert check.seen == {"offered", "recorded"}


def test_an_abandoned_game_shows_no_result_then_a_new_game_starts():
    p = JPlay(boot(new_fs(lfs=True))).moves(9).pause()
    abandon(p)
    ui = p.app.ui
    assert p.game.state == E.FINISHED and p.game.result == E.RESULT_NONE
    ui.render(0)  # the result half of the result screen's cycle
    assert (bytes(ui.text[0]), bytes(ui.text[1])) == (b" -- ", b" -- ")
    (rec,) = records(p.app.fs)
    assert (rec["result"], rec["reason"]) == ("*", ABANDONED)
    p.key(U.SET)  # a new game
    assert p.game.state == E.READY and len(records(p.app.fs)) == 1


def test_abandoning_is_refused_before_the_first_press():
    """The arbiter menu opens on a paused or flagged game only; the engine refuses to give
    up a game nobody started (nothing to record)."""
    import game_state

    g = E.Game(Play(boot(new_fs())).game.control)
    assert game_state.finish(g, E.RESULT_NONE, E.REASON_ABANDONED, 0) == E.ERR_STATE
    g.press(0, 1_000)
    assert game_state.finish(g, E.RESULT_NONE, E.REASON_RESULT, 2_000) == E.ERR_RANGE
    assert game_state.finish(g, E.RESULT_DRAW, E.REASON_ABANDONED, 2_000) == E.ERR_RANGE
    assert game_state.finish(g, E.RESULT_NONE, E.REASON_ABANDONED, 2_000) == E.OK


def test_a_journal_whose_base_game_json_is_gone_is_stale():
    """The journal continued a paused game (its base, in game.json); with game.json gone
    (the game was given up or recorded and the cut fell before the journal went), what the
    journal holds is no state the game stood in for the clock to offer."""
    fs = flash_with({"lfs": True}, journal_on_pause)
    assert slots(fs) and "/game.json" in fs.files
    del fs.files["/game.json"]
    app = boot(fs.reboot())
    assert app.ui.screen == U.S_GAME and app.ui.game.state == E.READY
    assert slots(app.fs) == []


def test_give_up_refuses_nothing_it_can_record():
    """offer.give_up on a game.json the engine restores records it declined; the record's
    moves are the log's."""
    fs = flash_with({"lfs": True}, paused_only)
    import settings as settings_mod

    saved = settings_mod.load_game("/", fs, presets.COUNT)
    assert offer.give_up("/", saved, fs)
    (rec,) = records(fs)
    assert rec["reason"] == DECLINED and len(rec["moves"]) == 12
    assert "/game.json" not in fs.files


def test_a_declined_game_on_the_simulated_board_exports_unfinished(tmp_path):
    """main.py on the simulated board: a game cut while its clock ran is declined at the
    next power-up (PLUS, PLAY, as the displays say); `make export` writes it with every
    move, Result "*" and a Termination saying it was given up after a power cut."""
    import export_games
    import machine

    from simboard.firmware import SimulatedClock

    clock = SimulatedClock(tmp_path)

    def power_on():
        machine.set_adc_volts(3, 4.2 / 3)  # fresh batteries: no "bAt Lo"
        clock.run_ms(500)

    power_on()
    clock.press("left")  # Black starts White's clock
    for i in range(9):
        clock.run_ms(1_500 + 100 * i)
        clock.press("right" if clock.app.ui.game.running == 1 else "left")
    clock.run_ms(3_000)
    clock.power_cycle()  # the power goes while a clock runs
    power_on()
    assert clock.displays() == (("rE5 ", False), (" yE5", False))
    clock.press("plus")
    assert clock.displays() == (("rE5 ", False), ("  no", False))
    clock.press("play")
    assert clock.app.ui.game.state == E.READY
    assert sorted(p.name for p in tmp_path.rglob("*.json*")) == ["g000.json"]  # no game.json

    out = tmp_path / "export"
    assert export_games.main(["--from-dir", str(tmp_path / "games"), "--out", str(out)]) == 0
    pgn = (out / "g000.pgn").read_text()
    assert '[Result "*"]' in pgn and '[Termination "emergency"]' in pgn
    assert '[ClockReason "declined after a power cut"]' in pgn
    assert len(re.findall(r"\[%clk ", pgn)) == 9
