"""Deadlines at every us phase: the loop never spins and never misses a due event, whatever
the deadline's phase against the ms grid of the loop's clock and against the levers'
`settle_us` (the deadline step looks that far back from its reading, app.py's `wake`).

Games on the simulated board (virtual time, the firmware unmodified) whose deadlines land
at a drawn us phase: a move's lever edge is placed so the side it starts has its flag (or
its period's end) at that phase; arbiter corrections of a paused or flagged game, through
the arbiter menu's keys or the engine's game_state functions (set_time: a whole ms from the
resume; add_time: the us part kept), Fischer and Bronstein increments, US delay, byo-yomi
periods, moves-based periods granted by moves or at the flag. The phases drawn include
each one next to the ms boundary and `settle_us` (0..4, 996..999) besides any other.

Every wakeup is watched (`Watch`) and asserts:
- no spin: at most SAME_INSTANT_MAX wakeups at one virtual us (each sleep advances time),
  at most RATE_MAX wakeups in any virtual second;
- nothing missed: a running deadline pending when a wakeup starts, at or before that start
  less settle_us, is processed by it (one that the wakeup's own keys or presses set is the
  next wakeup's, which comes at once: the next check);
- nothing late: the wakeup after a running deadline D starts by D + settle_us + LATE_US
  (the alarm's bound, alarm_pio.py), or that long after the wakeup before it ended, if later
  (LATE_COSTS_US with the firmware's work charged at the chip's rates, harness/costs.py);
- exact: a flag falls (a period ends) at the deadline's exact (ms, us), in a wakeup that
  starts no earlier than settle_us after it.
Then, in the property test, harness/loop_check.py's checks of the whole run: every display
and LED change on time and true, every lever press delivered. A sweep puts byo-yomi period
ends at each of the 1000 phases in turn.
"""

import json
import os
import tempfile
from pathlib import Path

import engine as E
import game_state
import machine
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from test_firmware_e2e import BATTERY_ADC

from harness.costs import chip_model
from harness.loop_check import LoopRecorder
from simboard import vtime
from simboard.firmware import BUTTON, LEVER, SimulatedClock

US = 1000
SAME_INSTANT_MAX = 3  # wakeups at one virtual us (a flag's save asks for one at once)
RATE_MAX = 400  # wakeups in any virtual second
LATE_US = 200  # the alarm ends a sleep this soon after its instant (alarm_pio.py)
# With the firmware's work charged at the chip's rates (harness/costs.py), the wakeup's own
# start (the poll's return, safe_wake) comes on top: about 0.22 ms.
LATE_COSTS_US = 500
SIDE = ("left", "right")

CONTROLS = (
    {"preset": 8},  # bullet 1+0
    {"custom": {"mode": 0, "periods": [[4, 0, 1, 2]]}},  # 4 s + 2 s Fischer
    {"custom": {"mode": 0, "periods": [[5, 0, 2, 3]]}},  # 5 s, Bronstein 3 s
    {"custom": {"mode": 0, "periods": [[3, 0, 3, 2]]}},  # 3 s, US delay 2 s
    {"custom": {"mode": 0, "periods": [[0, 0, 3, 1]]}},  # the delay only
    {"custom": {"mode": 0, "periods": [[3, 2, 0, 0], [4, 0, 1, 1]]}},  # 2 moves in 3 s, then
    {"custom": {"mode": 0, "periods": [[2, 1, 3, 1], [3, 1, 2, 2], [2, 0, 0, 0]]}},
    {"custom": {"mode": 3, "periods": [[2, 0, 0, 0]], "overtime": [5, 1]}},  # byo-yomi 5 x 1 s
    {"custom": {"mode": 4, "periods": [[1, 0, 0, 0]], "overtime": [2, 3]}},  # Canadian
)

# A us phase: every one of the 1000, those next to the ms boundary and settle_us first.
PHASE = st.one_of(st.sampled_from((0, 1, 2, 3, 4, 996, 997, 998, 999)), st.integers(0, 999))
STEP = st.one_of(
    st.tuples(st.just("move"), st.integers(0, 5_000), PHASE),
    st.tuples(st.just("wait"), st.integers(0, 6_000)),
    st.tuples(
        st.just("correct"),
        st.integers(0, 1),
        st.sampled_from(("set", "add")),
        st.one_of(st.integers(0, 6).map(lambda s: s * 1_000), st.integers(-3_000, 6_000)),
        st.integers(1, 2_000),
    ),
    # the arbiter menu (SET long on a paused or flagged game): a side's minutes and seconds
    st.tuples(st.just("keys"), st.sampled_from(("-s=====", "s=", "s-", "-", "ss-s===", "sss="))),
)


class Spin(BaseException):
    """The loop woke again and again at one instant (BaseException: no wakeup catches it)."""


class Fault(BaseException):
    """A wakeup broke the loop's contract (BaseException: no wakeup catches it)."""


def check(ok, *why):
    if not ok:
        raise Fault(*why)


class Watch:
    """Wraps the app's wakeups (after the LoopRecorder's) and checks each one."""

    def __init__(self, clock):
        self.clock = clock
        self.late_us = LATE_US if clock.costs is None else LATE_COSTS_US
        app = clock.app
        self.app = app
        self.settle = app.board.levers.settle_us
        self.origin = origin(clock)
        self.wakeups = []  # virtual us of each wakeup
        self.pending = None  # a running deadline after the last wakeup: (ms, us, virtual us)
        self.end = 0  # when the last wakeup ended: virtual us
        self.events = []  # (kind, virtual us of the deadline, wakeup us - deadline us)
        self.phases = set()  # us phases of the deadlines the loop met
        self.resumed = False  # the harness resumed the loop: its first wakeup is the harness's
        wake = app.wake
        resume = clock._boot_and_run

        def watched():
            self.before()
            wake()
            self.after()

        def resumed():
            self.resumed = True
            resume()

        app.wake = watched
        clock._boot_and_run = resumed

    def _exact(self, g):
        """The running deadline as (ms, us, virtual us), or None."""
        if g.state != E.RUNNING:
            return None
        d = g.deadline_exact()
        if d is None:
            return None
        return d[0], d[1], self.origin + d[0] * US + d[1]

    def before(self):
        t = self.clock.vt.us
        self.start = t
        if self.resumed:
            # run_loop starts with a wakeup (app.py) at whatever instant the test stopped
            # it: the test's wakeup, not the loop's, so neither the spin nor the rate counts it
            self.resumed = False
        else:
            w = self.wakeups
            same = 0
            for u in reversed(w):
                if u != t:
                    break
                same += 1
            if same >= SAME_INSTANT_MAX:
                raise Spin("%d wakeups at virtual us %d" % (same + 1, t))
            w.append(t)
            i = len(w) - 1 - RATE_MAX
            check(i < 0 or t - w[i] >= 1_000_000, "%d wakeups within 1 s" % (RATE_MAX + 1), t)
        if self.pending is not None:
            at = self.pending[2]
            late = t - max(at + self.settle, self.end)  # a wakeup still at work is not asleep
            check(late <= self.late_us, "a deadline's wakeup late (us)", self.pending, late)
        self.pre = self._state()

    def _state(self):
        g = self.app.ui.game
        return (
            self._exact(g),
            g.running,
            tuple(g.moves),
            tuple(g.period),
            tuple(g.ot_left),
            tuple(g.flagged),
        )

    def after(self):
        t = self.clock.vt.us  # the wakeup's end (its own work takes time with `costs`)
        g = self.app.ui.game
        exact, running, moves, period, ot_left, flagged = self.pre
        if exact is not None:
            ms, us, at = exact
            s = running
            if g.flagged[s] and not flagged[s]:  # the flag fell in this wakeup
                check((g.flag_at[s], g.flag_us[s]) == (ms, us), "a flag off its instant")
                self._met("flag", at, us)
            elif tuple(g.moves) == moves and (
                tuple(g.period) != period or tuple(g.ot_left) != ot_left
            ):  # a period ended at the deadline, no move in this wakeup
                check((g.last_event, g.last_us) == (ms, us), "a period's end off its instant")
                self._met("period", at, us)
        now = self._exact(g)
        if now is not None and now == exact:
            # due at the reading (at or after the wakeup's start): the deadline step's; one
            # this wakeup's keys or presses set is the next wakeup's, at once (`before`)
            check(now[2] > self.start - self.settle, "a due deadline missed", now, self.start)
        self.pending = now
        self.end = t

    def _met(self, kind, at, us):
        t = self.start
        check(at + self.settle <= t, "a deadline met before its instant", kind, at, t)
        self.events.append((kind, at, t - at))
        self.phases.add(us)


def origin(clock):
    """The virtual us at which the loop's monotonic clock read 0 (MonoClock: a reading's
    raw ticks and the ms.us it counted; with `costs` a little after the harness's boot_us)."""
    mono = clock.app.mono
    vt = clock.vt
    return vt.us - ((vt.us - mono._last_us) & vtime.TICKS_MAX) - mono.ms * US - mono.rem_us


def boot(flash, control, transition, inc_before, freeze, costs=None):
    s = {
        "sound": True,
        "freeze": freeze,
        "inc_before": inc_before,
        "transition": transition,
        "rules": 0,
        "brightness": 4,
        "low_time_s": 10,
        "control": control,
    }
    (Path(flash) / "settings.json").write_text(json.dumps(s))
    clock = SimulatedClock(flash, costs=costs)
    machine.set_adc_volts(BATTERY_ADC, 4.2 / 3)
    clock.run_ms(300)
    return clock


def run_to(clock, t_us):
    if t_us > clock.vt.us:
        clock.run_ms(-(-(t_us - clock.vt.us) // US))


def tap(clock, name, hold_ms=80):
    machine.press(BUTTON[name])
    clock.run_ms(hold_ms)
    machine.release(BUTTON[name])
    clock.run_ms(120)


def move(clock, wait_ms, phase, skew=0):
    """The lever that starts the other side (the running side's, or Black's at the ready
    screen), pressed at the virtual us that puts the started side's deadline at `phase` us
    of a ms of the loop's clock (its exact time's us part, the delay being whole ms), a
    stamp `skew` us after its edge."""
    g = clock.app.ui.game
    side = g.running if g.state == E.RUNNING else 0
    nxt = 1 - side
    sub = (phase - skew - g.main_us[nxt]) % US
    t = clock.vt.us + wait_ms * US + 1
    t += (sub - (t - origin(clock))) % US
    pin = LEVER[SIDE[side]]
    machine.after(t - clock.vt.us, lambda: machine.press(pin))
    machine.after(t + 30_000 - clock.vt.us, lambda: machine.release(pin))
    run_to(clock, t + 55_000)


def correct(clock, side, kind, value, wait_ms):
    """An arbiter's correction of a stopped game through the engine's game_state (as the
    arbiter menu makes it; the screen redrawn as after its key), then PLAY to resume."""
    app = clock.app
    g = app.ui.game
    if g.state == E.RUNNING:
        tap(clock, "play")
    if g.state not in (E.PAUSED, E.FLAGGED):
        return
    at = clock.mono_ms()
    if kind == "set":
        game_state.set_time(g, side, max(0, value), at)
    else:
        game_state.add_time(g, side, value, at)
    app._next_render = 0  # what the arbiter menu's key asks: a render
    clock.run_ms(wait_ms)
    if g.state == E.PAUSED:
        tap(clock, "play")


KEYS = {"-": "minus", "=": "plus", "s": "set", "p": "play"}


def arbiter_keys(clock, keys):
    """PLAY to pause a running game, SET long into the arbiter menu, `keys`, then PLAY:
    apply and leave; PLAY again resumes a paused game."""
    g = clock.app.ui.game
    if g.state == E.RUNNING:
        tap(clock, "play")
    if g.state not in (E.PAUSED, E.FLAGGED):
        return
    tap(clock, "set", 2_200)
    for k in keys:
        tap(clock, KEYS[k])
    tap(clock, "play")
    if g.state == E.PAUSED:
        tap(clock, "play")


def run_step(clock, step):
    kind = step[0]
    if kind == "move":
        move(clock, step[1], step[2])
    elif kind == "wait":
        clock.run_ms(step[1])
    elif kind == "correct":
        correct(clock, *step[1:])
    else:
        arbiter_keys(clock, step[1])


@settings(
    max_examples=int(os.environ.get("DEADLINE_EXAMPLES", "25")),  # more to hunt
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    control=st.sampled_from(CONTROLS),
    options=st.tuples(st.integers(0, 1), st.booleans(), st.booleans()),
    first=PHASE,
    steps=st.lists(STEP, max_size=8),
)
@example(  # Bullet 1+0: the left side runs, a correction of its time to whole seconds
    # through the arbiter menu, then PLAY resumes: its flag on a whole ms
    control={"preset": 8},
    options=(0, False, True),
    first=500,
    steps=[("move", 1_000, 500), ("keys", "-s====="), ("wait", 10_000)],
)
@example(  # a flag at each phase next to the ms boundary, moves in between
    control={"custom": {"mode": 0, "periods": [[1, 0, 1, 1]]}},
    options=(0, False, False),
    first=0,
    steps=[("move", 300, p) for p in (1, 2, 3, 999, 998, 997)] + [("wait", 3_000)],
)
@example(  # byo-yomi periods ending on a whole ms, after a correction and a resume
    control={"custom": {"mode": 3, "periods": [[2, 0, 0, 0]], "overtime": [5, 1]}},
    options=(0, False, False),
    first=2,
    steps=[("correct", 1, "set", 1_000, 7), ("wait", 4_000), ("move", 100, 0)],
)
def test_deadlines_at_any_us_phase_are_met_without_a_spin(control, options, first, steps):
    """The loop meets every deadline of games whose deadlines land at drawn us phases
    (the module doc lists the checks)."""
    transition, inc_before, freeze = options
    with tempfile.TemporaryDirectory() as flash:
        clock = boot(flash, control, transition, inc_before, freeze)
        rec = LoopRecorder(clock)
        watch = Watch(clock)
        move(clock, 0, first)
        for step in steps:
            run_step(clock, step)
        clock.run_ms(12_000)
        for kind, _at, _lag in watch.events:
            event("a %s at its deadline" % kind)
        for phase in sorted(watch.phases):
            if phase <= 4 or phase >= 996:
                event("a deadline met at us phase %d" % phase)
        rec.check()
        assert not (Path(flash) / "errors.log").exists()


BYO_1S = {"custom": {"mode": 3, "periods": [[0, 0, 0, 0]], "overtime": [99, 1]}}
EDGES = set(range(5)) | set(range(995, 1000))  # next to the ms boundary and settle_us


@pytest.mark.parametrize("costs", [False, True], ids=["free", "chip-costs"])
def test_a_period_ends_at_every_us_phase(tmp_path, costs):
    """Byo-yomi of 1 s periods: each move puts the period end of the side it starts at the
    next phase, all 1000 us of the ms; each ends at its exact us, met by a wakeup settle_us
    later (Watch's bounds), and no wakeup repeats an instant. A side's 99th period ends in
    its flag, at its phase too. With the firmware's work charged at the chip's rates
    (harness/costs.py) the same for the phases next to the ms boundary and settle_us and
    every 37th. (There the fake PIO's stamp count sits a fixed few us off ticks_us, its
    start at boot charged too: a first move measures that skew, the others allow for it.)"""
    phases = sorted(EDGES | set(range(0, 1000, 37))) if costs else list(range(1000))
    met = set()  # phases of the period ends (flags) the loop met
    aimed = set()  # phases of the deadlines the moves set
    for n in range(0, len(phases), 189):  # 99 periods a side: a fresh game every 190 moves
        flash = tmp_path / str(n)
        flash.mkdir()
        clock = boot(str(flash), BYO_1S, 0, False, False, chip_model() if costs else None)
        watch = Watch(clock)
        g = clock.app.ui.game
        move(clock, 0, 500)
        skew = (g.deadline_exact()[1] - 500) % US  # 0 but with the costs
        clock.run_ms(1_000)
        for p in phases[n : n + 189]:
            move(clock, 0, p, skew)
            aimed.add(g.deadline_exact()[1])
            clock.run_ms(1_000)
        met |= watch.phases
        assert not (flash / "errors.log").exists()
    assert aimed == set(phases)
    assert met >= aimed
