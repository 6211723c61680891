"""The journal's tidies (appjournal.py, journal_tidy.py): littlefs's compactions of the
journal's folder, timed by a model of its metadata pair (harness/fakefs.py MetadataPair: a
page a commit, a sector erase when the block is full), move off the presses' records onto
quiet wakeups; a tidy waits for room, comes at most once a TIDY_EVERY_MS, stops when the
compactions do not show; a cut inside a tidy's records offers the press's record or the
tidy's, as test_journal_cuts.py sweeps them.

The wakeups are driven as the App's are (test_journal_cuts.JPlay's calls): the press's,
a lever's re-arm REARM_MS after it, the display's once a second (or more often)."""

import appjournal as AJ
import engine as E
import journal_tidy as T
import pytest
from test_journal_cuts import JPlay, Offered, as_paused, make_ready
from test_power_cuts import boot, fixed_ident, flash_with, sweep  # noqa: F401 (the fixture)

from harness.fakefs import FS_MODELS, MetadataPair, fs_sizes, new_fs
from simboard import vtime

FOLDER = "/journal.d"
REARM_MS = 100


def bench_gaps(n):
    """The chip bench's moves (tools/chip/journal_bench.py): 1.1-3.7 s, every 9th 23 s."""
    return [23_000 if i % 9 == 8 else 1_100 + (i * 389) % 2_600 for i in range(n)]


def timed(fs, pages=16):
    """The metadata pair of the journal's folder on FakeFS `fs`, timing its commits."""
    advance = lambda us: vtime.current.advance_us(us)  # noqa: E731
    pair = MetadataPair(FOLDER, fs_sizes(fs, FOLDER), advance, pages)
    fs.on_commit = pair
    return pair


class Wakeups(JPlay):
    """JPlay with the App's wakeups: each calls Journaling.record when the App would (a
    press, or `due` reached), the display's every `step_ms` with the next change that far
    on. `calls`: (t, press, the compacted flag of each commit it made)."""

    def __init__(self, app, pair, t=1_000, step_ms=1_000):
        super().__init__(app, t)
        self.pair = pair
        self.step_ms = step_ms
        self.calls = []

    def wake(self, t, press=False):
        j = self.app.journal
        if press:
            j.press = True
        if not (j.press or 0 <= j.due <= t):
            return
        g = self.game
        g.tick(t)
        k = len(self.pair.at) if self.pair else 0
        was = j.press
        j.record(t, t, 0, g.deadline(), t + self.step_ms, None)
        made = [slow for _, slow in self.pair.at[k:]] if self.pair else []
        self.calls.append((t, was, made))

    def play(self, gaps):
        """A move, then `gap` ms of its wakeups, for each gap."""
        g = self.game
        for gap in gaps:
            self.t += 1
            if g.state == E.READY:
                g.press(0, self.t, 123)
            else:
                assert g.press(g.running, self.t, (7 * g.log_count) % 1000) & E.EV_MOVE
            t0 = self.t
            self.wake(t0, press=True)
            self.wake(t0 + REARM_MS)
            step = self.step_ms
            for k in range(1, gap // step + 1):
                self.wake(t0 + step * k - 1)
            self.t = t0 + gap - 1
        return self

    def presses(self):
        return [c for c in self.calls if c[1]]

    def quiet(self):
        return [c for c in self.calls if not c[1]]


def played(gaps, pages=16):
    """The game of `gaps` on a fresh flash, its journal made ready first (as the App does
    at the ready screen)."""
    fs = new_fs(lfs=True)
    pair = timed(fs, pages)
    app = boot(fs)
    make_ready(app, delayed=False)
    p = Wakeups(app, pair)
    p.ready_commits = len(pair.at)  # the preparation's (its compactions learnt)
    return p.play(gaps), pair


def test_the_learner_reads_the_compactions_off_the_writes_durations():
    p, pair = played(bench_gaps(40))
    learner = p.app.journal.store.flash
    at = pair.compactions()
    assert len(at) >= 4
    assert learner.period == at[-1] - at[-2]
    assert learner.since == len(pair.at) - 1 - at[-1]


def test_made_ready_on_a_fresh_flash_the_journal_knows_its_period_and_starts_compacted():
    """The folders' creation erases blocks (no compaction of the journal's block) and the
    fresh block's first compaction comes later than the period: the preparation learns the
    period from the next and ends on a compaction, so the game's first records have the
    whole period before the next one."""
    p, pair = played([])
    learner = p.app.journal.store.flash
    at = pair.compactions()
    assert len(at) == 2 and at[-1] == p.ready_commits - 1
    assert (learner.period, learner.since) == (at[1] - at[0], 0)


def test_the_compactions_fall_in_tidies_not_in_the_presses_records():
    p, pair = played(bench_gaps(120))
    presses = p.presses()
    # The preparation saw two compactions: none is blind, none falls on a press.
    assert not [c for c in presses if any(c[2])]
    during = [i for i in pair.compactions() if i >= p.ready_commits]
    assert len(during) >= 10
    assert sum(1 for c in p.quiet() if any(c[2])) == len(during)
    # A press's record is its own: the state (two commits while its slot is a new file; the
    # head at the start, not made ready here); never a tidy's records nor a chunk in the
    # press's wakeup.
    assert max(len(c[2]) for c in presses[1:]) <= 2
    assert len(presses) == 120


def test_a_tidy_comes_after_the_presss_record_never_in_its_wakeup():
    p, _pair = played(bench_gaps(60))
    last_press = None
    tidies = 0
    for t, press, made in p.calls:
        if press:
            last_press = t
            continue
        assert t > last_press + REARM_MS  # the re-arm's wakeup is too soon
        if len(made) > 1 or any(made):
            tidies += 1
    assert tidies >= 5


def test_a_tidy_waits_for_room_before_the_display_change_and_the_flag():
    p, _pair = played(bench_gaps(30))
    j = p.app.journal
    learner = j.store.flash
    # a tidy due: the next press's record would reach the compaction
    learner.since = (learner.period or T.GUESS) - 1
    g = p.game
    t = p.t + 1
    g.press(g.running, t, 0)
    p.wake(t, press=True)
    assert j.due == t + AJ.TIDY_AFTER_MS
    seq = j.store.seq
    j.record(j.due, j.due, 0, -1, j.due + AJ.TIDY_ROOM_MS - 1, None)
    assert j.store.seq == seq  # the display change is too near: not now
    j.record(j.due, j.due, 0, j.due + AJ.JOURNAL_GUARD_MS - 1, -1, None)
    assert j.store.seq == seq  # the flag is near
    j.record(j.due, j.due, 0, -1, j.due + AJ.TIDY_ROOM_MS, None)
    assert j.store.seq > seq


def test_a_tidy_that_meets_no_compaction_tries_again_once_a_second_and_converges():
    """The block grows (its period becomes longer than learned): the tidies meet no
    compaction, so they come again, at most one a TIDY_EVERY_MS (the display's wakeups
    four times as often), each at most TIDY_MAX records, until one compacts."""
    fs = new_fs(lfs=True)
    pair = timed(fs)
    p = Wakeups(boot(fs), pair, step_ms=250).play(bench_gaps(30))
    assert p.app.journal.store.flash.period
    pair.pages = 24  # 8 commits more before the next compaction
    n = len(p.calls)
    p.play(bench_gaps(30))
    calls = p.calls[n:]
    # the quiet wakeups that wrote into the folder (not the chunks', a collection's)
    quiet = [c for c in calls if not c[1] and c[2]]
    assert len(quiet) >= 4
    for a, b in zip(quiet, quiet[1:], strict=False):
        assert b[0] - a[0] >= 1_000
    assert max(len(c[2]) for c in quiet) <= T.TIDY_MAX
    first = next(c for c in calls if any(c[2]))
    assert not first[1]  # the longer period's compaction came in a tidy
    assert sum(1 for c in calls if c[1] and any(c[2])) <= 1


def test_no_tidy_when_the_compactions_stop_showing():
    """A flash whose compactions are quick (or none come): after NEVER commits without one,
    the quiet records are the periodic ones only."""
    fs = new_fs(lfs=True)
    pair = timed(fs)
    p = Wakeups(boot(fs), pair).play(bench_gaps(30))
    pair.ERASE_US = 0  # erases as quick as a page: no write is slow any more
    n = len(p.calls)
    p.play(bench_gaps(60))
    quiet = [c for c in p.calls[n:] if not c[1]]
    learner = p.app.journal.store.flash
    assert learner.left() == -1
    # (a quiet write of chunks commits into the chunks' folder only: none here)
    late = [c for c in quiet if c[0] > quiet[0][0] + 60_000 and c[2]]
    assert late and all(len(c[2]) == 1 for c in late)
    press_t = [c[0] for c in p.calls if c[1]]
    for t, _press, _made in late:  # JOURNAL_MS after the last record only
        assert t - max(x for x in press_t if x < t) >= AJ.JOURNAL_MS - 1


def test_without_a_compaction_seen_no_tidy():
    p, _pair = played(bench_gaps(20), pages=10**6)
    assert p.app.journal.store.flash.left() == -1
    quiet = [c for c in p.quiet() if c[2]]  # (the chunks' writes: in their own folder)
    assert all(len(c[2]) == 1 for c in quiet)
    assert len(quiet) == sum(1 for g in bench_gaps(20) if g > AJ.JOURNAL_MS) * 2


# ------------------------------------------------------------------ power cuts in a tidy
def due_tidy(app):
    """The learner as if the press after the next could reach the compaction: after the
    next press's record a tidy is due (none of its records compacts on FakeFS without a
    MetadataPair: it writes TIDY_MAX)."""
    learner = app.journal.store.flash
    learner.seen = True
    learner.period = 12
    learner.since = 12 - 1 - T.MARGIN - 1


@pytest.mark.parametrize("model", FS_MODELS)
def test_a_cut_inside_a_tidy_offers_the_presss_record_or_the_tidys(model):
    def setup(p):
        p.moves(6)
        due_tidy(p.app)
        p.moves(1)

    before = JPlay(boot(new_fs(**model)))
    setup(before)
    assert before.app.journal.due == before.t + AJ.TIDY_AFTER_MS
    at = before.t + 1_000
    press_state = as_paused(before.game, before.t)
    tidy_state = as_paused(before.game, at)
    check = Offered(press_state, tidy_state)

    def prelude(app):
        app._play = JPlay(app)
        setup(app._play)

    def sequence(app):
        j = app.journal
        seq = j.store.seq
        j.record(at, at, 0, app._play.game.deadline(), -1, None)
        assert j.store.seq == seq + T.TIDY_MAX  # none compacts: all of the tidy's records

    flash = lambda m: flash_with(m, lambda p: None)  # noqa: E731
    assert sweep(model, flash, prelude, sequence, check) > 10
    assert check.seen == {0, 1}


# ------------------------------------------------------------------ on the simulated board
RAPID_25_10 = 2  # presets.py


def test_on_the_board_the_compactions_fall_in_tidies_after_the_presses_wakeups(tmp_path):
    """The real firmware's loop (main.py on the simulated board), the journal's folder timed
    as littlefs's metadata pair on the chip: the presses' wakeups write their own record
    only, the tidies come TIDY_AFTER_MS after the press at the soonest, in other wakeups,
    and they take the compactions. Moves 1.1-3.7 s apart and no long think (a periodic
    record would take some compactions without any tidy)."""
    import machine
    from test_firmware_e2e import PRESS_MS, choose_preset, power_on

    from harness.fakefs import TimedOS, os_sizes

    clock = power_on(tmp_path)
    app = clock.app
    folder = "./journal.d"  # the App's root is the board's folder, "."
    pair = MetadataPair(folder, os_sizes(folder), lambda us: machine.advance(us, irq_only=True))
    app.journal.store.fs = TimedOS(pair)
    calls = []  # (wakeup, now, press, the compacted flag of each commit)
    first = []  # the commits before the first record (the journal made ready)
    drained = set()  # the wakeups that took a lever's press
    record = app.journal.record
    drain = app._drain_levers

    def spy_record(now, *args):
        k = len(pair.at)
        if not calls:
            first.append(k)
        press = app.journal.press
        record(now, *args)
        calls.append((app.wakeups, now, press, [slow for _, slow in pair.at[k:]]))

    def spy_drain(now):
        drained.add(app.wakeups)
        return drain(now)

    app.journal.record = spy_record
    app._drain_levers = spy_drain
    choose_preset(clock, RAPID_25_10)
    clock.run_ms(AJ.PREPARE_AFTER_MS + 200)  # the journal made ready
    for i in range(50):
        gap = 1_100 + (i * 389) % 2_600
        clock.press(("left", "right")[i % 2])
        clock.run_ms(gap - PRESS_MS)
    presses = [c for c in calls if c[2] and c[3]]  # each press's wakeup writes its record
    quiet = [c for c in calls if not c[2] and c[3]]
    assert len(presses) == 50
    # the state slot only (two commits while it is a new file), the first press's too:
    # the head was written at the ready screen, the chunks at quiet wakeups
    assert max(len(c[3]) for c in presses) <= 2
    # none: the journal made ready at the ready screen learnt where the block stands
    assert sum(1 for c in presses if any(c[3])) == 0
    during = [i for i in pair.compactions() if i >= first[0]]
    assert len(during) >= 4
    assert sum(1 for c in quiet if any(c[3])) == len(during)
    last = None
    for wakeup, now, press, _made in calls:
        if press:
            last = now
        else:
            assert wakeup not in drained
            assert now >= last + 150


def test_a_tidy_stops_between_its_records_for_a_lever_press():
    """A tidy writes up to TIDY_MAX records (about 0.7 ms each, and the erase): a press
    waiting in the levers' rings stops it after the record in hand, so the press's LEDs
    and frames wait for one record, not all of them."""
    for pending_after, want in ((None, T.TIDY_MAX), (1, 1), (2, 2)):
        fs = new_fs()
        p = Wakeups(boot(fs), None).play(bench_gaps(4))
        j = p.app.journal
        due_tidy(p.app)
        p.play([1])  # a press: its record; a tidy due after it
        assert j.store.flash.tidy(j.store.press_commits(p.game))
        writes = []
        real = j.store.write

        def write(g, at, at_us, real=real, writes=writes):
            writes.append(at)
            real(g, at, at_us)
            return False  # never compacts: the tidy goes on while nothing is pending

        j.store.write = write
        if pending_after is not None:
            j.waiting = lambda writes=writes, n=pending_after: len(writes) >= n
        t = p.t + 1_000
        p.game.tick(t)
        j.record(t, t, 0, p.game.deadline(), t + 900, None)
        assert len(writes) == want, (pending_after, writes)


# ------------------------------------------------------------------ a long game
CHUNKS = FOLDER + "/c/"


class Chunked(Wakeups):
    """Wakeups, noting how many chunk files each call wrote (`chunked`: (t, press, n))."""

    def __init__(self, app, pair, fs, t=1_000, step_ms=1_000):
        super().__init__(app, pair, t, step_ms)
        self.fs = fs
        self.chunked = []
        self.folder_bytes = 0  # the most the journal folder's own files held

    def wake(self, t, press=False):
        before = self.chunks()
        n = len(self.calls)
        super().wake(t, press)
        if len(self.calls) > n:
            self.chunked.append((t, self.calls[-1][1], self.chunks() - before))
        live = sum(n + 40 for n in fs_sizes(self.fs, FOLDER)())
        self.folder_bytes = max(self.folder_bytes, live)

    def chunks(self):
        return sum(1 for p in self.fs.files if p.startswith(CHUNKS))


def offered_log(fs):
    """The move log of the game the power-up offers on `fs`, accepted."""
    app = boot(fs.reboot())
    from test_power_cuts import Play

    return Play(app, 50_000_000).accept_offer().game.log_entries()


def test_a_long_game_keeps_the_chunks_off_the_presses_and_the_folder_small():
    """220 half-moves without a pause: the chunks go to their own folder at quiet wakeups,
    never in a press's; the journal folder holds its head and two slots (far under the half
    block past which littlefs splits a folder), so its compactions stay in the tidies."""
    fs = new_fs(lfs=True)
    pair = timed(fs)
    p = Chunked(boot(fs), pair, fs).play([1_100 + (i * 389) % 2_600 for i in range(221)])
    assert p.game.log_count == 220
    assert not [c for c in p.chunked if c[1] and c[2]]  # no press wrote a chunk
    assert p.chunks() == 220 // 8
    assert p.folder_bytes < 1024
    assert sorted(k for k in fs.files if k.startswith(FOLDER) and not k.startswith(CHUNKS)) == [
        FOLDER + "/h",
        FOLDER + "/s0",
        FOLDER + "/s1",
    ]
    presses = p.presses()
    assert max(len(c[2]) for c in presses[1:]) <= 2
    assert sum(1 for c in presses if any(c[2])) <= 1  # the blind first one (not made ready)
    assert offered_log(fs) == p.game.log_entries()


def test_without_a_quiet_wakeup_a_press_writes_the_chunk_its_record_cannot_carry():
    """The display changes every 100 ms (tenths): no quiet wakeup ever comes, so each
    record carries the rows no chunk holds, up to journal_files.CARRY; past that the
    press's record writes the oldest chunk first. Every record stays a small file, and the
    power-up gives back the whole log."""
    import journal as J
    import journal_files as JF

    fs = new_fs(lfs=True)
    p = Chunked(boot(fs), None, fs, step_ms=100).play([1_000] * 41)
    assert not [c for c in p.chunked if not c[1] and c[2]]  # no quiet write
    assert [c for c in p.chunked if c[1] and c[2]]  # the presses wrote them
    for name in ("s0", "s1"):
        data = fs.files[FOLDER + "/" + name]
        rec = J.decode_state(data)
        assert len(rec[5]) <= JF.CARRY and len(data) <= J.STATE_MAX
    assert offered_log(fs) == p.game.log_entries()


def test_a_press_record_is_written_at_once_however_near_the_next_display_change():
    """A press's record never waits for room before a display change: the press's wakeup
    writes it (a periodic record would wait for the change's render)."""
    p = JPlay(boot(new_fs(lfs=True))).moves(3)
    j = p.app.journal
    g = p.game
    for wait_ms in (1, 59, 0):
        seq = j.store.seq
        p.t += 1_000
        assert g.press(g.running, p.t, 0) & E.EV_MOVE
        j.press = True
        j.record(p.t, p.t, 0, g.deadline(), p.t + wait_ms, None)
        assert j.store.seq == seq + 1 and not j.press
    p.t += AJ.JOURNAL_MS + 1
    g.tick(p.t)
    seq = j.store.seq
    j.record(p.t, p.t, 0, g.deadline(), p.t + 1, None)
    assert j.store.seq == seq  # the periodic one: after the change's render
