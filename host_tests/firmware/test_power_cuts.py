"""Power cuts at every single operation of every file sequence, then the next power-up.

The firmware's App is built on the fault-injecting filesystem (harness/fakefs.py) with the
real board module on the fake `machine`, and driven through Ui.key() as the buttons would.
For each sequence (settings save, game save at a pause, game save at a flag, recording a
result, and the power-up's own repairs), a dry run logs every file operation; then, for each
cut point (before every operation, and inside every write: no byte, one byte, half, all but
one), the sequence runs again from the same flash, the power goes at that step, and a fresh
App boots on what the flash holds. Asserted at each power-up:

- exactly once: the game is offered again and has no record, or it has exactly one record
  in games/ and is not offered; never both, never neither;
- a resumed game's log is whole (every half-move before the cut, with its times);
- no file is left half-written: no *.tmp remains and every .json file parses.
Each model of filesystem is swept: FAT-like (bytes reach the medium one by one) and
littlefs-like (a file changes at close), each with and without rename over a file.
"""

import csv
import io
import json
import re
from pathlib import Path

import app as app_mod
import engine as E
import gamelog
import machine
import pytest
import settings
import ui as U
import ui_arbiter
import ui_settings

from harness.fakefs import FS_MODELS, PowerLoss, cut_points, new_fs
from simboard.firmware import SimulatedClock, import_board

board_mod = import_board()

ROOT = Path(__file__).resolve().parents[2]

IDENT = 0x1234567  # the identity new games get here (archive.new_ident is patched)
MOVE_MS = 1_000


@pytest.fixture(autouse=True)
def fixed_ident(monkeypatch):
    """Same identity in the dry run and in every cut run, so their steps line up. And no
    full gc.collect() at each of the thousands of power-ups (3 ms each on the host's big
    heap; it frees RAM on the chip and changes nothing on the flash)."""
    monkeypatch.setattr(app_mod.appfiles.archive, "new_ident", lambda: IDENT)
    monkeypatch.setattr(app_mod.appfiles.gc, "collect", lambda: None)


def message(app):
    """The (left, right) texts of the message the App shows (or showed last)."""
    return app.ui.screens[U.S_MESSAGE].shown


# ------------------------------------------------------------------ driving the App
def boot(fs):
    """Power-up: a fresh board and App on the flash `fs` (root "/")."""
    machine.host_reset()
    return app_mod.App(board_mod.Board(), "/", fs)


def key(app, button, kind=U.SHORT, now=0):
    req = app.ui.key(button, kind, now)
    if req:
        app.handle(req, now)
        app.files.flush(now)  # the loop's saves step


class Play:
    """Moves and button presses at increasing instants (ms)."""

    def __init__(self, app, t=1_000):
        self.app = app
        self.t = t

    @property
    def game(self):
        return self.app.ui.game

    def moves(self, n):
        g = self.game
        if g.state == E.READY:
            self.t += 500
            g.press(0, self.t)  # Black (left) starts White's clock
        for _ in range(n):
            self.t += MOVE_MS + 37 * g.log_count  # every move a different time
            assert g.press(g.running, self.t) & E.EV_MOVE
        return self

    def key(self, button, kind=U.SHORT):
        self.t += 300
        key(self.app, button, kind, self.t)
        return self

    def pause(self):
        assert self.game.state == E.RUNNING
        return self.key(U.PLAY)

    def resume(self):
        assert self.game.state == E.PAUSED
        return self.key(U.PLAY)

    def accept_offer(self):
        assert self.app.ui.screen == U.S_RESUME
        return self.key(U.PLAY)

    def flag(self):
        """Let the running side's flag fall; both clocks freeze (FIDE)."""
        g = self.game
        self.t = g.deadline() + 1
        assert g.tick(self.t) & E.EV_FLAG and g.state == E.FLAGGED
        return self

    def save_at_flag(self):
        self.app.files.save_game(self.t)  # what the shell does when both clocks froze
        return self

    def dead_position(self):
        """Paused: the arbiter declares a dead position (the menu's last item), a draw."""
        self.key(U.SET, U.LONG)
        assert self.app.ui.screen == U.S_ARBITER
        while self.app.ui.screen_of(U.S_ARBITER).cursor != ui_arbiter.A_DEAD:
            self.key(U.SET)
        return self.key(U.PLAY)

    def flag_loss(self):
        """Flagged: material entry, the opponent has a pawn, rook or queen: PLAY, PLAY."""
        self.key(U.SET)
        assert self.app.ui.screen == U.S_MATERIAL
        self.key(U.PLAY)
        return self.key(U.PLAY)


# ------------------------------------------------------------------ what the flash holds
def records(fs, ident=IDENT):
    """The records in games/ that carry `ident` (parsed)."""
    out = []
    for path, data in sorted(fs.files.items()):
        if path.startswith("/games/g") and path.endswith(".json"):
            doc = json.loads(data)
            if doc["id"] == ident:
                out.append(doc)
    return out


def assert_clean(fs):
    """No file half-written: no tmp left, every JSON file parses."""
    for path, data in fs.files.items():
        assert not path.endswith(".tmp"), path
        if path.endswith(".json"):
            json.loads(data)


def powered_up(fs):
    """The power-up after a cut, on flash `fs`, its files checked whole (assert_clean):
    (app, the game's records, whether it offers a game to resume)."""
    app = boot(fs)
    assert_clean(fs)
    return app, records(fs), app.ui.screen == U.S_RESUME


class CutCheck:
    """A sweep's check after each cut (`sweep` calls it with the flash and the cut's step):
    a subclass's __call__ powers up (`powered_up`) and checks what it offers and records;
    `seen` collects the outcomes met, for the test to ask that each was."""

    def __init__(self):
        self.seen = set()


def as_rows(entries):
    return [list(e) for e in entries]


def saved_ident(fs):
    return json.loads(fs.files["/game.json"])["id"]


# ------------------------------------------------------------------ the sweep
def sweep(model, make_flash, prelude, sequence, check):
    """Cut the power at every cut point of `sequence` (run after `prelude` on an App booted
    from make_flash(model)); `check(fs, k)` judges the flash after the cut at step k.
    Returns the number of cuts made."""
    base = make_flash(model)
    fs = base.reboot()
    app = boot(fs)
    prelude(app)
    start = fs.steps
    fs.ops = []
    sequence(app)
    end = fs.steps
    assert end > start, "the sequence wrote nothing"
    points = cut_points(fs.ops, start, end)
    for k in points:
        fs = base.reboot()
        app = boot(fs)
        prelude(app)
        assert fs.steps == start
        fs.die_at = k
        try:
            sequence(app)
        except PowerLoss:
            pass
        else:
            assert k == end
        check(fs.reboot(), k)
    return len(points)


def flash_with(model, *steps):
    """A flash on which a game was played by `steps` (callables on Play), then power off."""
    fs = new_fs(**model)
    p = Play(boot(fs))
    for step in steps:
        step(p)
    return fs.reboot()


# ------------------------------------------------------------------ result recording
def twelve_then_paused(p):
    p.moves(12).pause()


def resumed_then_paused(p):
    """Power-up: resume the saved 12 moves, play 10 more, pause."""
    p.accept_offer().resume().moves(10).pause()


class ExactlyOnce(CutCheck):
    """The check after a cut while a result was recorded (or repaired at power-up)."""

    def __init__(self, moves):
        super().__init__()
        self.moves = moves  # every half-move of the game, as the record must hold them

    def __call__(self, fs, k):
        app, recs, offered = powered_up(fs)
        assert offered != (len(recs) == 1), (k, offered, len(recs))
        assert len(recs) <= 1, k
        if not offered:
            self.seen.add("recorded")
            assert recs[0]["moves"] == self.moves, k
            assert "/game.json" not in fs.files, k
            assert app.ui.game.state in (E.READY, E.FINISHED), k
            return
        self.seen.add("offered")
        p = Play(app, 10_000_000).accept_offer()
        assert as_rows(p.game.log_entries()) == self.moves, k  # the log is whole
        # Ruling it again gives one record, not two.
        if p.game.state == E.FLAGGED:
            p.flag_loss()
        else:
            p.dead_position()
        assert len(records(fs)) == 1, k
        assert records(fs)[0]["moves"] == self.moves, k
        assert "/game.json" not in fs.files, k


def full_moves(model, *steps):
    """The log of the game the steps play, as record rows (from a run without cuts)."""
    fs = new_fs(**model)
    p = Play(boot(fs))
    for step in steps:
        step(p)
    return as_rows(p.game.log_entries())


@pytest.mark.parametrize("model", FS_MODELS)
def test_recording_a_draw_after_a_resume_is_exactly_once(model):
    moves = full_moves(model, twelve_then_paused, lambda p: p.resume().moves(10).pause())
    assert len(moves) == 22
    flash = lambda m: flash_with(m, twelve_then_paused)  # noqa: E731
    check = ExactlyOnce(moves)

    def prelude(app):
        p = Play(app, 5_000_000)
        resumed_then_paused(p)
        app._play = p

    assert sweep(model, flash, prelude, lambda app: app._play.dead_position(), check) > 150
    assert check.seen == {"offered", "recorded"}


@pytest.mark.parametrize("model", FS_MODELS)
def test_recording_a_flag_loss_is_exactly_once(model):
    moves = full_moves(model, lambda p: p.moves(7).flag().save_at_flag())
    flash = lambda m: flash_with(m, lambda p: p.moves(7).flag().save_at_flag())  # noqa: E731
    check = ExactlyOnce(moves)

    def prelude(app):
        app._play = Play(app, 5_000_000).accept_offer()

    assert sweep(model, flash, prelude, lambda app: app._play.flag_loss(), check) > 70
    assert check.seen == {"offered", "recorded"}


# ------------------------------------------------------------------ saving the game
class Resumable(CutCheck):
    """The check after a cut while a stopped game was saved: it is offered, and comes back
    as the old save or the new one, whole (times and log agree)."""

    def __init__(self, old, new):
        super().__init__()
        self.states = (old, new)  # (state, log rows, remaining times)

    def __call__(self, fs, k):
        app, recs, offered = powered_up(fs)
        assert offered, k
        assert recs == [], k
        g = Play(app).accept_offer().game
        got = (g.state, as_rows(g.log_entries()), (g.remaining(0, 0), g.remaining(1, 0)))
        assert got in self.states, k
        assert g.log_count == g.moves[0] + g.moves[1]
        self.seen.add(self.states.index(got))


def snapshot_of(g):
    return (g.state, as_rows(g.log_entries()), (g.remaining(0, 0), g.remaining(1, 0)))


def state_after(model, *steps):
    fs = new_fs(**model)
    p = Play(boot(fs))
    for step in steps:
        step(p)
    return snapshot_of(p.game)


@pytest.mark.parametrize("model", FS_MODELS)
def test_saving_at_a_pause_keeps_the_old_or_the_new_game(model):
    old = state_after(model, twelve_then_paused)
    new = state_after(model, twelve_then_paused, lambda p: p.resume().moves(6).pause())
    check = Resumable(old, new)

    def prelude(app):
        app._play = Play(app, 5_000_000).accept_offer().resume().moves(6)

    flash = lambda m: flash_with(m, twelve_then_paused)  # noqa: E731
    assert sweep(model, flash, prelude, lambda app: app._play.pause(), check) > 25
    assert check.seen == {0, 1}


@pytest.mark.parametrize("model", FS_MODELS)
def test_saving_at_a_flag_keeps_the_old_or_the_new_game(model):
    old = state_after(model, twelve_then_paused)
    new = state_after(model, twelve_then_paused, lambda p: p.resume().moves(3).flag())
    check = Resumable(old, new)

    def prelude(app):
        app._play = Play(app, 5_000_000).accept_offer().resume().moves(3).flag()

    flash = lambda m: flash_with(m, twelve_then_paused)  # noqa: E731
    assert sweep(model, flash, prelude, lambda app: app._play.save_at_flag(), check) > 20
    assert check.seen == {0, 1}


# ------------------------------------------------------------------ settings
@pytest.mark.parametrize("model", FS_MODELS)
def test_saving_settings_keeps_the_old_or_the_new_ones(model):
    def change_brightness(p):
        p.key(U.SET, U.LONG)  # settings menu from the ready screen
        assert p.app.ui.screen == U.S_SETTINGS
        while ui_settings.ITEMS[p.app.ui.screen_of(U.S_SETTINGS).cursor][1] != "brightness":
            p.key(U.SET)
        p.key(U.PLUS).key(U.PLAY)

    old = settings.defaults()
    new = dict(old, brightness=old["brightness"] + 1)
    seen = set()

    def check(fs, k):
        app, _recs, _offered = powered_up(fs)
        assert app.ui.screen == U.S_GAME, k  # no "SEt dEF" / "SEt FIX" message
        assert app.ui.settings in (old, new), k
        seen.add(app.ui.settings == new)

    flash = lambda m: flash_with(m, lambda p: None)  # noqa: E731
    assert (
        sweep(model, flash, lambda app: None, lambda app: change_brightness(Play(app)), check)
        >= 10
    )
    assert seen == {False, True}


# ------------------------------------------------------------------ the power-up's repairs
def kind_of(fs):
    """What a power-up can tell of a flash: each file's name and its text when it is whole
    JSON ("cut" when not): cuts at different bytes of one write leave the same kind."""
    kind = []
    for path, data in sorted(fs.files.items()):
        try:
            json.loads(data)
        except ValueError:
            data = "cut"
        kind.append((path, data))
    return tuple(kind)


def cut_states(model):
    """Every kind of flash a cut while recording a resumed game's draw can leave."""
    states = {}
    flash = lambda m: flash_with(m, twelve_then_paused)  # noqa: E731

    def prelude(app):
        p = Play(app, 5_000_000)
        resumed_then_paused(p)
        app._play = p

    def keep(fs, k):
        states.setdefault(kind_of(fs), fs)

    sweep(model, flash, prelude, lambda app: app._play.dead_position(), keep)
    return list(states.values())


@pytest.mark.parametrize("model", FS_MODELS)
def test_a_power_up_cut_while_it_repairs_repeats_the_repair(model):
    moves = full_moves(model, twelve_then_paused, lambda p: p.resume().moves(10).pause())
    check = ExactlyOnce(moves)
    cuts = 0
    repairing = 0
    for state in cut_states(model):
        fs = state.reboot()
        fs.ops = []
        boot(fs)
        end = fs.steps
        if not any(name in ("write", "rename", "remove") for _s, name, _n in fs.ops):
            continue  # this power-up repairs nothing
        repairing += 1
        for k in cut_points(fs.ops, 0, end):
            fs = state.reboot()
            fs.die_at = k
            try:
                boot(fs)
            except PowerLoss:
                pass
            check(fs.reboot(), k)
            cuts += 1
    assert repairing >= 3  # a record's tmp, a finished game.json, a finished game.json's tmp
    assert cuts > 400


# ------------------------------------------------------------------ single cases
def test_a_record_cut_before_its_rename_is_listed_after_the_power_up():
    fs = flash_with({"lfs": True}, twelve_then_paused)
    app = boot(fs)
    p = Play(app, 5_000_000).accept_offer()
    real_rename = fs.rename

    def rename(src, dst):
        if src.startswith("/games/"):
            fs.dead = True  # the record's tmp is whole; its rename never happens
        real_rename(src, dst)

    fs.rename = rename
    with pytest.raises(PowerLoss):
        p.dead_position()
    fs = fs.reboot()
    assert "/games/g000.json.tmp" in fs.files
    assert gamelog.list_games("/", fs) == []
    app = boot(fs)
    assert gamelog.list_games("/", fs) == ["g000.json"]
    assert sorted(fs.files) == ["/games/g000.json"]
    assert app.ui.game.state == E.FINISHED  # the result shows, as before the cut
    assert records(fs)[0]["result"] == "1/2-1/2"


def test_a_finished_game_whose_record_failed_is_recorded_at_the_next_power_up(monkeypatch):
    fs = flash_with({}, twelve_then_paused)
    p = Play(boot(fs), 5_000_000).accept_offer()
    with monkeypatch.context() as m:
        m.setattr(
            app_mod.appfiles.archive.gamelog, "save_game_log", lambda *a, **k: None
        )  # flash full
        p.dead_position()
    assert p.app.ui.screen == U.S_MESSAGE and message(p.app) == (b"LOG ", b"Err ")
    assert records(fs) == []
    assert json.loads(fs.files["/game.json"])["snap"][1] == E.FINISHED
    fs = fs.reboot()
    app = boot(fs)
    assert len(records(fs)) == 1 and "/game.json" not in fs.files
    assert app.ui.game.state == E.FINISHED


def test_settings_message_comes_before_the_resume_offer():
    fs = flash_with({}, twelve_then_paused)
    fs.files["/settings.json"] = b'{"sound": tr\x00junk'
    app = boot(fs)
    assert (app.ui.screen, message(app)) == (U.S_MESSAGE, (b"SEt ", b"dEF "))
    app.ui.render(2_000)  # the message has been shown 2 s
    assert app.ui.screen == U.S_RESUME
    fs.files["/settings.json"] = json.dumps(dict(settings.defaults(), brightness=99)).encode()
    app = boot(fs.reboot())
    assert message(app) == (b"SEt ", b"FIX ")
    key(app, U.MINUS)  # any key ends the message early: the offer is still there
    assert app.ui.screen == U.S_RESUME


def test_a_log_that_does_not_fit_the_engine_resumes_the_times_and_says_so():
    fs = flash_with({}, twelve_then_paused)
    doc = json.loads(fs.files["/game.json"])
    doc["log"][0] = 0  # move number 0: no such move
    fs.files["/game.json"] = json.dumps(doc).encode()
    p = Play(boot(fs), 5_000_000).accept_offer()
    assert message(p.app) == (b"LOG ", b"Err ")
    assert p.game.state == E.PAUSED and p.game.log_count == 0
    assert p.game.moves[0] + p.game.moves[1] == 12


def test_a_game_json_already_recorded_is_not_offered():
    """game.json still paused but its identity is in games/ (recording's step 1 failed):
    the power-up removes it."""
    fs = flash_with({}, twelve_then_paused)
    paused = fs.files["/game.json"]
    p = Play(boot(fs), 5_000_000).accept_offer()
    p.dead_position()
    fs.files["/game.json"] = paused
    app = boot(fs.reboot())
    assert app.ui.screen == U.S_GAME and app.ui.game.state == E.READY


def test_games_have_different_identities(monkeypatch):
    monkeypatch.undo()  # the real random identities
    fs = new_fs()
    for _ in range(3):
        Play(boot(fs)).moves(2).pause().dead_position().key(U.SET)
    ids = [json.loads(d)["id"] for p, d in sorted(fs.files.items()) if p.startswith("/games/")]
    assert len(ids) == 3 and len(set(ids)) == 3 and all(0 < i < 2**30 for i in ids)


# ------------------------------------------------------------------ end to end
def test_a_game_resumed_after_a_power_cut_exports_every_move(tmp_path):
    """On the simulated board (main.py, real pins, virtual time): 12 moves, pause, power
    cut, resume, 10 more moves, the arbiter rules a draw; `make export` on the flash's
    games/ gives a PGN with all 22 half-moves and their clock times."""
    import export_games

    def power_on():
        machine.set_adc_volts(3, 4.2 / 3)  # fresh batteries: no "bAt Lo"
        clock.run_ms(500)

    def moves(n):
        for i in range(n):
            clock.run_ms(2_000 + 150 * i)
            clock.press("right" if game().running == 1 else "left")

    def game():
        return clock.app.ui.game

    clock = SimulatedClock(tmp_path)
    power_on()
    clock.press("left")  # Black starts White's clock (preset 0, FIDE 90/40+30)
    moves(12)
    clock.press("play")
    before = game().log_entries()
    assert len(before) == 12 and (tmp_path / "game.json").exists()
    clock.power_cycle()  # the power goes while paused
    power_on()
    assert clock.displays() == (("rE5 ", False), (" yE5", False))
    clock.press("play")  # resume? yes
    clock.press("play")  # the clock runs on
    moves(10)
    clock.press("play")
    clock.press("set", 2_300)  # arbiter menu
    for _ in range(ui_arbiter.A_DEAD):
        if clock.display(0)[0] == "dEAd":
            break
        clock.press("set")  # the next item (the overtime items are skipped in chess)
    assert clock.display(0)[0] == "dEAd"
    clock.press("play")  # dead position: a draw, recorded
    log = game().log_entries()
    assert len(log) == 22 and log[:12] == before
    assert sorted(p.name for p in tmp_path.rglob("*.json*")) == ["g000.json"]  # no game.json

    out = tmp_path / "export"
    assert export_games.main(["--from-dir", str(tmp_path / "games"), "--out", str(out)]) == 0
    pgn = (out / "g000.pgn").read_text()
    clocks = re.findall(r"\[%clk (\d+:\d\d:\d\d)\]", pgn)
    assert clocks == [export_games.clock_text(e[3]) for e in log]
    assert len(clocks) == 22 and len(set(clocks)) > 11  # the times differ move by move
    assert '[Result "1/2-1/2"]' in pgn
    rows = list(csv.DictReader(io.StringIO((out / "g000.csv").read_text())))
    assert [(int(r["used_ms"]), int(r["left_ms"])) for r in rows] == [(e[2], e[3]) for e in log]


def test_the_settings_message_then_the_offer_on_the_displays(tmp_path):
    clock = SimulatedClock(tmp_path)
    machine.set_adc_volts(3, 4.2 / 3)
    clock.run_ms(500)
    clock.press("left")
    clock.run_ms(3_000)
    clock.press("play")  # paused: saved
    (tmp_path / "settings.json").write_bytes(b'{"sound": tr\x9c')  # and the settings broke
    clock.power_cycle()
    clock.run_ms(500)
    assert [t for t, _colon in clock.displays()] == ["5Et ", "dEF "]
    clock.run_ms(2_000)
    assert [t for t, _colon in clock.displays()] == ["rE5 ", " yE5"]
