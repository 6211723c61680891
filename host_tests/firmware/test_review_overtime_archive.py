"""Byo-yomi and Canadian games across power cuts, the
exactly-once record in sequences the main sweep does not cover, and the messages and
rules a resumed game keeps.

Built on the power-cut harness of test_power_cuts.py (the real App on the fault-injecting
filesystem, driven through Ui.key() as the buttons would).
"""

import csv
import io
import json
import re
from pathlib import Path

import app as app_mod
import engine as E
import game_state
import gamelog
import pytest
import settings
import ui as U
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from test_engine_properties import any_controls, any_mode_controls, options
from test_power_cuts import (
    ExactlyOnce,
    Play,
    assert_clean,
    boot,
    cut_points,
    key,
    message,
    records,
    sweep,
)

from harness.fakefs import FS_MODELS, PowerLoss, new_fs

ROOT = Path(__file__).resolve().parents[2]

import export_games  # noqa: E402

IDENT = 0x1234567
BYOYOMI = {"custom": {"mode": 3, "periods": [[3, 0, 0, 0]], "overtime": [3, 10]}}
CANADIAN = {"custom": {"mode": 4, "periods": [[3, 0, 0, 0]], "overtime": [3, 20]}}
LFS = {"lfs": True}


class Idents:
    """Identities handed out in order (reset before each run, so a sweep's dry run and its
    cut runs give the same games the same identities)."""

    def __init__(self):
        self.next = IDENT

    def __call__(self):
        self.next += 1
        return self.next - 1


@pytest.fixture(autouse=True)
def idents(monkeypatch):
    ids = Idents()
    monkeypatch.setattr(app_mod.appfiles.archive, "new_ident", ids)
    monkeypatch.setattr(app_mod.appfiles.gc, "collect", lambda: None)
    return ids


# ------------------------------------------------------------------ playing overtime games
def use(control):
    """A step: the clock's control becomes `control` (saved), a new game on it."""

    def step(p):
        p.app.ui.settings["control"] = control
        assert settings.save("/", p.app.ui.settings, p.app.fs)
        p.app.ui.new_game()

    return step


# ms each half-move takes: some long ones use up a byo-yomi period / more of a block
THINK = [900, 1_200, 1_700, 800, 13_000, 1_100, 2_500, 600, 700, 14_500, 3_000, 1_000]
THINK += [1_900, 400, 12_400, 2_200, 800, 3_300, 600, 1_500, 900, 2_000]


def half_moves(first, last):
    """A step: the half-moves THINK[first:last], in order (the first starts the game)."""

    def step(p):
        g = p.game
        if g.state == E.READY:
            p.t += 500
            g.press(0, p.t)
        for ms in THINK[first:last]:
            p.t += ms
            assert g.press(g.running, p.t) & E.EV_MOVE, ms
        return p

    return step


def pause(p):
    p.pause()


def resume_offered(p):
    p.accept_offer().resume()


def play_game(model, control, *steps):
    """Play the steps on a fresh flash with `control`; returns (fs, Play)."""
    fs = new_fs(**model)
    p = Play(boot(fs))
    use(control)(p)
    for step in steps:
        step(p)
    return fs, p


def reference_rows(control):
    """The 22 half-moves of THINK played without any cut, as record rows."""
    _fs, p = play_game(LFS, control, half_moves(0, 22), pause)
    rows = [list(e) for e in p.game.log_entries()]
    assert len(rows) == 22 and all(len(r) == 5 for r in rows)
    return rows


@pytest.mark.parametrize("control", [BYOYOMI, CANADIAN], ids=["byo-yomi", "Canadian"])
def test_an_overtime_game_resumed_after_a_cut_keeps_its_counters_in_record_and_export(
    control, tmp_path
):
    """12 half-moves into overtime (a byo-yomi period used up / Canadian blocks), pause,
    power cut, resume, 10 more, a draw: the record holds all 22 rows with the overtime
    counter of each, as the same game played without a cut; the CSV has the column."""
    want = reference_rows(control)
    ots = [r[4] for r in want]
    assert any(ots[:12]) and any(ots[12:]) and 0 in ots  # main time and overtime rows
    fs, p = play_game(LFS, control, half_moves(0, 12), pause)
    app = boot(fs.reboot())
    p = Play(app, 5_000_000)
    resume_offered(p)
    assert [list(e) for e in p.game.log_entries()] == want[:12]
    p.t -= 300  # the move paused 300 ms in goes on: the same move times as the reference
    half_moves(12, 22)(p)
    p.pause().dead_position()
    fs = app.fs
    (rec,) = records(fs, p.game.ident)
    assert rec["moves"] == want
    games = tmp_path / "games"
    games.mkdir()
    for path, data in fs.files.items():
        if path.startswith("/games/"):
            (games / path[len("/games/") :]).write_bytes(data)
    out = tmp_path / "out"
    assert export_games.main(["--from-dir", str(games), "--out", str(out)]) == 0
    rows = list(csv.DictReader(io.StringIO((out / "g000.csv").read_text())))
    assert [int(r["overtime"]) for r in rows] == ots
    assert [int(r["left_ms"]) for r in rows] == [r[3] for r in want]
    assert len(re.findall(r"\[%clk ", (out / "g000.pgn").read_text())) == 22


@pytest.mark.parametrize("model", [FS_MODELS[0], FS_MODELS[3]])
@pytest.mark.parametrize("control", [BYOYOMI, CANADIAN], ids=["byo-yomi", "Canadian"])
def test_recording_a_resumed_overtime_game_is_exactly_once(model, control, idents):
    """The result-recording sweep of test_power_cuts on an overtime game: at every cut the
    record (or the resumed game's log) holds every row with its overtime counter."""
    want = reference_rows(control)
    check = ExactlyOnce(want)

    def flash(m):
        idents.next = IDENT  # the identity ExactlyOnce looks for
        fs, _p = play_game(m, control, half_moves(0, 12), pause)
        return fs.reboot()

    def prelude(app):
        p = Play(app, 5_000_000)
        resume_offered(p)
        p.t -= 300
        half_moves(12, 22)(p)
        p.pause()
        app._play = p

    assert sweep(model, flash, prelude, lambda app: app._play.dead_position(), check) > 100
    assert check.seen == {"offered", "recorded"}


# ------------------------------------------------------------------ sequences of files
@pytest.mark.parametrize("model", [FS_MODELS[1], FS_MODELS[2]])
def test_two_games_in_a_row_a_cut_while_the_second_is_recorded(model, idents):
    """Game 1 is recorded (g000), a new game is played and its draw recorded: a cut at any
    step leaves game 1's record as it was and game 2 recorded or offered, exactly once."""

    def first_game(app):
        idents.next = IDENT  # the same identities in every run of the sweep
        p = Play(app)
        half_moves(0, 6)(p)
        p.pause().dead_position().key(U.SET)  # recorded; SET: a new game
        assert app.ui.game.state == E.READY
        half_moves(6, 12)(p)
        p.pause()
        app._play = p

    seen = set()
    first = {}

    def check(fs, k):
        app = boot(fs)
        assert_clean(fs)
        (one,) = records(fs, IDENT)
        first.setdefault("rec", one)
        assert one == first["rec"], k  # game 1's record never changes
        two = records(fs, IDENT + 1)
        offered = app.ui.screen == U.S_RESUME
        assert offered != (len(two) == 1) and len(two) <= 1, (k, offered, len(two))
        seen.add(offered)
        if offered:
            Play(app, 9_000_000).accept_offer().dead_position()
            assert len(records(fs, IDENT + 1)) == 1
        assert len(records(fs, IDENT)) == 1
        assert sorted(gamelog.list_games("/", fs)) == ["g000.json", "g001.json"]

    flash = lambda m: new_fs(**m)  # noqa: E731
    assert sweep(model, flash, first_game, lambda app: app._play.dead_position(), check) > 40
    assert seen == {True, False}


# ------------------------------------------------------------------ identities and the wrap
def numbered_records(fs, numbers, ids):
    fs.dirs.add("/games")
    for n, ident in zip(numbers, ids, strict=True):
        doc = {"version": 1, "id": ident, "control": "x", "white": 0, "result": "*"}
        text = json.dumps(doc)[:-1] + ', "reason": "arbiter", "moves": [\n[0, 1, 5, 5]\n]}\n'
        fs.files["/games/g%03d.json" % n] = text.encode()


WRAP = list(range(990, 1000)) + list(range(0, 10))  # 20 records, oldest g990, newest g009


def finished_unrecorded(model=LFS):
    """A flash whose game.json holds a finished game (draw) that has no record yet, as a
    failed or cut record leaves it."""
    fs, p = play_game(model, BYOYOMI, half_moves(0, 12), pause)
    real = gamelog.save_game_log
    gamelog.save_game_log = lambda *a, **k: None  # the record fails
    try:
        p.dead_position()
    finally:
        gamelog.save_game_log = real
    assert records(fs) == [] and json.loads(fs.files["/game.json"])["snap"][1] == E.FINISHED
    return fs.reboot(), [list(e) for e in p.game.log_entries()]


def test_a_full_flash_at_the_power_up_repair_keeps_the_game_for_the_next():
    fs, rows = finished_unrecorded()
    fs.capacity = fs.used() + 200  # the record (about 700 bytes) does not fit
    app = boot(fs)
    assert (app.ui.screen, message(app)) == (U.S_MESSAGE, (b"LOG ", b"Err "))
    assert records(fs) == [] and "/game.json" in fs.files
    assert_clean(fs)
    app = boot(fs.reboot())  # room again (a reboot clears the fault)
    (rec,) = records(app.fs)
    assert rec["moves"] == rows and "/game.json" not in app.fs.files
    assert app.ui.game.state == E.FINISHED


def test_settings_reset_and_a_record_that_failed_at_power_up_both_say_so():
    """SEt dEF first, then LOG Err, then the result: no message hides the other."""
    fs, _rows = finished_unrecorded()
    fs.files["/settings.json"] = b'{"sound": tr\x00'
    fs.capacity = fs.used() + 200
    app = boot(fs)
    assert (app.ui.screen, message(app)) == (U.S_MESSAGE, (b"SEt ", b"dEF "))
    app.ui.render(2_000)  # shown 2 s
    assert (app.ui.screen, message(app)) == (U.S_MESSAGE, (b"LOG ", b"Err "))
    key(app, U.MINUS, now=2_500)  # a key ends it early
    assert app.ui.screen == U.S_GAME and app.ui.game.state == E.FINISHED


def test_a_full_flash_during_the_sweep_of_power_up_repairs():
    """Every cut of a power-up that records a finished game on a nearly full flash (the
    first try fails, an old record is deleted to make room): the next power-up, on the
    same full flash, leaves no half file and the game recorded exactly once."""
    fs, rows = finished_unrecorded()
    numbered_records(fs, [997, 998, 999], [50, 51, 52])  # old records to make room from
    roomy = fs.reboot()
    boot(roomy)
    size = len(roomy.files["/games/g000.json"])
    fs.capacity = fs.used() + size - 40  # one old record deleted makes room
    dry = fs.reboot()
    dry.capacity = fs.capacity
    dry.ops = []
    boot(dry)
    assert len(records(dry)) == 1 and "/games/g997.json" not in dry.files  # made room
    cuts = 0
    for k in cut_points(dry.ops, 0, dry.steps):
        cut = fs.reboot()
        cut.capacity = fs.capacity
        cut.die_at = k
        try:
            boot(cut)
        except PowerLoss:
            pass
        after = cut.reboot()
        after.capacity = fs.capacity  # still nearly full: the repair must make room again
        boot(after)
        assert_clean(after)
        recs = records(after)
        assert len(recs) == 1 and recs[0]["moves"] == rows, k
        assert "/game.json" not in after.files, k
        cuts += 1
    assert cuts > 30


def test_a_record_that_failed_is_not_lost_when_the_next_game_starts():
    """After LOG Err the finished game waits in game.json; the next new game records it
    first (App._retry_record) instead of clearing it."""
    fs, p = play_game(LFS, BYOYOMI, half_moves(0, 12), pause)
    real = gamelog.save_game_log
    gamelog.save_game_log = lambda *a, **k: None  # the flash is full
    try:
        p.dead_position()
    finally:
        gamelog.save_game_log = real
    assert message(p.app) == (b"LOG ", b"Err ")
    p.key(U.PLAY)  # the message goes
    p.key(U.SET)  # a new game (the flash has room again, as after deleting a file)
    assert p.game.state == E.READY
    assert len(records(fs)) == 1 and "/game.json" not in fs.files


def test_a_record_that_still_fails_keeps_the_game_and_says_so_again():
    fs, p = play_game(LFS, BYOYOMI, half_moves(0, 12), pause)
    real = gamelog.save_game_log
    gamelog.save_game_log = lambda *a, **k: None  # the flash is full, and stays full
    try:
        p.dead_position()
        p.key(U.PLAY)  # the message goes
        p.key(U.SET)  # a new game: the record is tried again and fails again
        assert message(p.app) == (b"LOG ", b"Err ")
        assert json.loads(fs.files["/game.json"])["snap"][1] == E.FINISHED  # kept
    finally:
        gamelog.save_game_log = real
    assert records(fs) == []
    boot(fs)  # the next power-up (room again) records it
    assert len(records(fs)) == 1 and "/game.json" not in fs.files


def test_a_finished_game_recorded_just_after_the_wrap_is_not_recorded_twice():
    fs, _rows = finished_unrecorded()
    ident = json.loads(fs.files["/game.json"])["id"]
    numbered_records(fs, WRAP, [1000 + n for n in WRAP[:-1]] + [ident])
    app = boot(fs)
    assert "/game.json" not in fs.files and app.ui.game.state == E.FINISHED
    assert gamelog.list_games("/", fs)[0] == "g009.json"
    assert len(gamelog.list_games("/", fs)) == 20 and len(records(fs, ident)) == 1


def test_a_finished_game_after_the_wrap_gets_the_next_number_and_the_oldest_goes():
    fs, rows = finished_unrecorded()
    ident = json.loads(fs.files["/game.json"])["id"]
    numbered_records(fs, WRAP, [1000 + n for n in WRAP])
    boot(fs)
    names = gamelog.list_games("/", fs)
    assert names[0] == "g010.json" and "g990.json" not in names and len(names) == 20
    assert gamelog.find_game("/", ident, fs) == "g010.json"
    assert records(fs, ident)[0]["moves"] == rows


def test_an_unrestorable_game_json_already_recorded_is_removed_not_offered():
    """game.json whose snapshot the engine refuses (e.g. written by another firmware) but
    whose identity is in games/: it was recorded, so it is removed, not offered."""
    fs, p = play_game(LFS, BYOYOMI, half_moves(0, 6), pause)
    paused = json.loads(fs.files["/game.json"])
    p.dead_position()
    assert len(records(fs)) == 1
    paused["snap"][0] = 99  # a snapshot version this engine does not know
    fs.files["/game.json"] = json.dumps(paused).encode()
    app = boot(fs.reboot())
    assert app.ui.screen == U.S_GAME and app.ui.game.state == E.READY
    assert "/game.json" not in app.fs.files


def test_an_unrestorable_game_says_res_err():
    fs, _p = play_game(LFS, BYOYOMI, half_moves(0, 6), pause)
    doc = json.loads(fs.files["/game.json"])
    doc["snap"][1] = 9  # no such state
    fs.files["/game.json"] = json.dumps(doc).encode()
    app = boot(fs.reboot())
    assert app.ui.screen == U.S_RESUME
    key(app, U.PLAY, now=100)  # yes
    assert (app.ui.screen, message(app)) == (U.S_MESSAGE, (b"rES ", b"Err "))
    app.ui.render(2_100)
    assert app.ui.screen == U.S_GAME and app.ui.game.state == E.READY


# ------------------------------------------------------------------ a resumed game's rules
def test_a_resumed_game_keeps_the_rules_it_was_started_with():
    """Freeze off and the flag-fall transition were set when the game began; the settings
    file is then lost (SEt dEF: defaults). The resumed game keeps its own rules (game.json
    "opts"), and a second flag is still recorded with freeze off."""
    fs = new_fs(**LFS)
    p = Play(boot(fs))
    p.app.ui.settings.update(freeze=False, transition=E.TRANSITION_FLAG)
    use({"preset": 13})(p)  # Classic 40/120, 20/60, 30
    half_moves(0, 4)(p)
    p.pause()
    assert json.loads(fs.files["/game.json"])["opts"] == [0, 0, 1]
    fs = fs.reboot()
    fs.files["/settings.json"] = b"{garbage"
    app = boot(fs)
    assert message(app) == (b"SEt ", b"dEF ")
    key(app, U.PLAY, now=10)  # the message goes; the offer
    p = Play(app, 1_000)
    p.accept_offer()
    g = p.game
    assert (g.freeze, g.transition) == (False, E.TRANSITION_FLAG)
    p.resume()
    p.t = g.deadline()
    assert g.tick(p.t) == E.EV_PERIOD | E.EV_MARKER  # the 40/120 period ends by the flag
    assert g.state == E.RUNNING and g.period[g.running] == 1


# ------------------------------------------------------------------ engine: snapshots
ARBITER = st.sampled_from(["move", "tick", "pause", "time", "overtime", "period", "add"])


@hsettings(max_examples=1000, deadline=None)
@given(
    st.one_of(any_controls, any_mode_controls()),
    options,
    st.lists(st.tuples(st.integers(0, 120_000), ARBITER), max_size=30),
)
def test_snapshot_and_log_at_every_stop_change_nothing(control, opts, actions):
    """A game saved (snapshot + packed log) and restored at every pause or flag, with
    arbiter corrections inside overtime, plays on exactly as the same game never saved:
    times, phases, counters, flags and the whole log. Controls of every kind, overtime
    included; every option."""
    a = E.Game(control, **opts)
    b = E.Game(control, **opts)
    a.press(0, 0)
    b.press(0, 0)
    t = off = 0  # b's clock reads t + off (a restored game starts its times at 0)
    for dt, act in actions:
        t += dt
        if act == "move":
            assert a.press(a.running, t) == b.press(b.running, t + off)
        elif act == "tick":
            assert a.tick(t) == b.tick(t + off)
        else:
            assert a.pause(t) == b.pause(t + off)
            if a.state in (E.PAUSED, E.FLAGGED):
                side, v = dt % 2, dt // 2
                for g, now in ((a, t), (b, t + off)):
                    if act == "time":
                        game_state.set_time(g, side, v, now)
                    elif act == "overtime":
                        game_state.set_overtime(g, side, v % 7, now)
                    elif act == "period":
                        game_state.set_period(g, side, v % 3, now)
                    elif act == "add":
                        game_state.add_time(g, side, 120_000, now)
                c = E.Game(control, **opts)
                assert game_state.restore(c, game_state.snapshot(b)) == E.OK
                flat = [x for row in b.log_rows(True) for x in row]
                assert game_state.restore_log(c, b.log_count, flat) == E.OK
                b, off = c, -t
            if a.state == E.PAUSED:
                assert a.resume(t) == b.resume(t + off) == E.OK
        assert a.state == b.state
        for s in (0, 1):
            assert a.remaining(s, t) == b.remaining(s, t + off)
            assert (a.period[s], a.ot_left[s], a.flagged[s], a.moves[s]) == (
                b.period[s],
                b.ot_left[s],
                b.flagged[s],
                b.moves[s],
            )
        assert a.log_entries() == b.log_entries()


# ------------------------------------------------------------------ export
def test_export_of_old_and_new_records_and_leftovers_together(tmp_path):
    """An old record (no "id", chess rows), a new overtime record, a whole leftover tmp (a
    flash copied before its power-up) and a cut one: three games, oldest first, one
    problem; only the overtime game's CSV has the overtime column."""
    src = tmp_path / "src"
    src.mkdir()
    old = {"version": 1, "control": "Blitz 5+3", "white": 0, "result": "1-0"}
    old.update(reason="flag", moves=[[1, 1, 2_000, 301_000], [0, 1, 3_000, 300_000]])
    (src / "g998.json").write_text(json.dumps(old))
    fs, _rows = finished_unrecorded()
    boot(fs)  # the power-up records it as g000.json, with its id and overtime rows
    new = fs.files["/games/g000.json"]
    (src / "g999.json").write_bytes(new)
    (src / "g000.json.tmp").write_bytes(new)  # whole: exported as g000
    (src / "g001.json.tmp").write_bytes(new[:-7])  # cut short: reported
    out = tmp_path / "out"
    report = export_games.export_files(export_games.game_files(src), out)
    assert report.exported == ["g998", "g999", "g000"]
    assert len(report.problems) == 1 and "g001.json.tmp" in report.problems[0]
    head = lambda name: (out / name).read_text().splitlines()[0]  # noqa: E731
    assert not head("g998.csv").endswith("overtime")
    assert head("g999.csv").endswith(",overtime") and head("g000.csv").endswith(",overtime")
    assert (out / "all.pgn").read_text().count('[ClockFile "') == 3


@pytest.mark.parametrize("model", [FS_MODELS[0], FS_MODELS[3]])
def test_a_cut_while_the_power_up_repairs_a_big_record(model):
    """A 650-half-move byo-yomi game whose record (the newest 600 rows) was whole in its
    .tmp when the power went before the rename: the power-up renames it and removes
    game.json; a cut at any step of that power-up is repaired by the next one."""
    long_byo = {"custom": {"mode": 3, "periods": [[36000, 0, 0, 0]], "overtime": [5, 30]}}
    fs = new_fs(**model)
    p = Play(boot(fs))
    use(long_byo)(p)
    p.t += 500
    p.game.press(0, p.t)
    for i in range(650):
        p.t += 1_000 + i % 7
        assert p.game.press(p.game.running, p.t) & E.EV_MOVE
    p.pause()
    rows = [list(e) for e in p.game.log_entries()]
    assert len(rows) == E.LOG_CAPACITY and rows[-1][1] == 325
    real_rename = fs.rename

    def rename(src, dst):
        if src.startswith("/games/"):
            fs.dead = True  # the record's tmp is whole; the power goes before its rename
        real_rename(src, dst)

    fs.rename = rename
    with pytest.raises(PowerLoss):
        p.dead_position()
    state = fs.reboot()
    assert len(state.files["/games/g000.json.tmp"]) > 12_000
    dry = state.reboot()
    dry.ops = []
    boot(dry)
    points = cut_points(dry.ops, 0, dry.steps)
    for k in points:
        cut = state.reboot()
        cut.die_at = k
        try:
            boot(cut)
        except PowerLoss:
            pass
        after = cut.reboot()
        app = boot(after)
        assert_clean(after)
        (rec,) = records(after, IDENT)
        assert rec["moves"] == rows and "/game.json" not in after.files, k
        assert app.ui.screen != U.S_RESUME
    assert len(points) > 5
