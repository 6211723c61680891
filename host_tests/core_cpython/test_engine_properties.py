"""Property tests (hypothesis) for the engine: conserved time, no negative time, delay never
adds main time, flags at the exact deadline, independence from where the clock starts, no
time to a fallen flag, the hourglass never creates time, and byo-yomi / Canadian overtime
against an independent model of their rules."""

import engine as E
from hypothesis import event, example, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context
from timecontrol import (
    BONUS_BRONSTEIN,
    BONUS_DELAY,
    BONUS_FISCHER,
    BONUS_NONE,
    MODE_BYOYOMI,
    MODE_CANADIAN,
    MODE_COUNTDOWN,
    MODE_HOURGLASS,
    MODE_UPCOUNT,
    TimeControl,
)

# Counts kept by the properties' bodies. The coverage tests below read them after running
# explicit inputs only (deterministic); random runs report what they reached through
# hypothesis's event() statistics (`pytest --hypothesis-show-statistics`), never a threshold.
COVERAGE = {"conserved_moves": 0, "transitions": 0, "overtime_rules": set()}


def note(what):
    """Records `what` for hypothesis's statistics when called inside a property run."""
    if currently_in_test_context():
        event(what)


BONUS = st.sampled_from([BONUS_NONE, BONUS_FISCHER, BONUS_BRONSTEIN, BONUS_DELAY])


@st.composite
def controls(draw):
    n = draw(st.integers(1, 3))
    bonus = draw(BONUS)
    bonus_ms = draw(st.integers(0, 30_000)) if bonus else 0
    periods = []
    for i in range(n):
        last = i == n - 1
        periods.append(
            (
                draw(st.integers(1_000, 3_600_000)),
                0 if last else draw(st.integers(1, 6)),
                bonus,
                bonus_ms,
            )
        )
    return TimeControl(periods, MODE_COUNTDOWN)


@st.composite
def overtime_controls(draw):
    """Byo-yomi (with or without a main-time increment) and Canadian controls, main time 0
    included."""
    mode = draw(st.sampled_from([MODE_BYOYOMI, MODE_CANADIAN]))
    main = draw(st.sampled_from([0, draw(st.integers(1_000, 120_000))]))
    bonus, bonus_ms = BONUS_NONE, 0
    if mode == MODE_BYOYOMI and main and draw(st.booleans()):
        bonus, bonus_ms = BONUS_FISCHER, draw(st.integers(0, 10_000))
    count = draw(st.integers(1, 5))
    ot_ms = draw(st.integers(1_000, 60_000))
    return TimeControl([(main, 0, bonus, bonus_ms)], mode, overtime=(count, ot_ms))


any_controls = st.one_of(controls(), overtime_controls())

options = st.fixed_dictionaries(
    {
        "freeze": st.booleans(),
        "inc_before": st.booleans(),
        "transition": st.sampled_from([E.TRANSITION_MOVES, E.TRANSITION_FLAG]),
    }
)
# (ms until the press, which side presses: True = the side on move)
durations = st.one_of(st.integers(0, 20_000), st.integers(0, 400_000))
presses = st.lists(st.tuples(durations, st.booleans()), max_size=40)


def run(control, opts, seq, base, tick_every=0):
    """Play `seq` from `base`; return a trace of everything observable, times relative to base."""
    g = E.Game(control, **opts)
    g.press(0, base)
    t = base
    trace = []
    for dt, right_side in seq:
        if tick_every:
            for k in range(1, dt // tick_every + 1):
                g.tick(t + k * tick_every)
        t += dt
        side = g.running if right_side else 1 - g.running
        ev = g.press(side, t)
        trace.append(
            (ev, g.state, g.running, tuple(g.main), tuple(g.moves), tuple(g.period), g.deadline())
        )
    g.tick(t + 10_000_000)
    flags = tuple(g.flag_at[s] - base if g.flagged[s] else None for s in (0, 1))
    log = g.log_entries()
    return g, trace, flags, log


@settings(max_examples=300, deadline=None)
@given(any_controls, options, presses, st.integers(0, 2**29))
def test_start_offset_changes_nothing(control, opts, seq, offset):
    _, trace_a, flags_a, log_a = run(control, opts, seq, 0)
    _, trace_b, flags_b, log_b = run(control, opts, seq, offset)
    strip = [(e, s, r, m, mv, p) for e, s, r, m, mv, p, _d in trace_a]
    strip_b = [(e, s, r, m, mv, p) for e, s, r, m, mv, p, _d in trace_b]
    assert strip == strip_b
    assert flags_a == flags_b
    assert log_a == log_b


@settings(max_examples=300, deadline=None)
@given(any_controls, options, presses, st.sampled_from([0, 7, 1000]))
def test_ticking_often_or_never_gives_the_same_game(control, opts, seq, tick_every):
    """The flag falls at the deadline, not when a tick happens to notice it."""
    _, trace_a, flags_a, log_a = run(control, opts, seq, 5_000)
    _, trace_b, flags_b, log_b = run(control, opts, seq, 5_000, tick_every=tick_every)
    assert flags_a == flags_b
    assert log_a == log_b
    # Event bits may be reported by the tick instead of the press; the state may not differ.
    assert [x[1:6] for x in trace_a] == [x[1:6] for x in trace_b]


def _opts(freeze=True, inc_before=False, transition=E.TRANSITION_MOVES):
    return {"freeze": freeze, "inc_before": inc_before, "transition": transition}


# Inputs the conservation property must reach on every run, whatever the random draws:
# (control, options, presses, moves it checks, period transitions it checks).
_TWO_PERIODS = [(60_000, 2, BONUS_FISCHER, 3_000), (30_000, 0, BONUS_FISCHER, 3_000)]
CONSERVATION_EXAMPLES = [
    # 40/90-style: the next period's time arrives with the last required move, each side
    (TimeControl(_TWO_PERIODS, MODE_COUNTDOWN), _opts(), [(1_500, True)] * 6, 6, 2),
    # a wrong-side press between moves is ignored and charges nothing
    (
        TimeControl(_TWO_PERIODS, MODE_COUNTDOWN),
        _opts(inc_before=True),
        [(2_000, True), (700, False), (900, True), (4_000, True)],
        3,
        1,
    ),
    # simple delay: moves inside and beyond the delay
    (
        TimeControl([(60_000, 0, BONUS_DELAY, 5_000)], MODE_COUNTDOWN),
        _opts(),
        [(3_000, True), (7_000, True), (5_000, True), (12_345, True)],
        4,
        0,
    ),
    # Bronstein: gives back the time used up to the delay
    (
        TimeControl([(60_000, 0, BONUS_BRONSTEIN, 5_000)], MODE_COUNTDOWN),
        _opts(transition=E.TRANSITION_FLAG),
        [(3_000, True), (7_000, True), (0, True), (5_001, True)],
        4,
        0,
    ),
    # no bonus, three periods of one move each
    (
        TimeControl(
            [(10_000, 1, BONUS_NONE, 0), (10_000, 1, BONUS_NONE, 0), (10_000, 0, BONUS_NONE, 0)],
            MODE_COUNTDOWN,
        ),
        _opts(freeze=False),
        [(9_000, True)] * 5,
        5,
        4,
    ),
]


def _with_examples(cases, arity):
    """Adds each case's first `arity` items as an explicit @example of the property."""

    def wrap(test):
        for case in reversed(cases):
            test = example(*case[:arity])(test)
        return test

    return wrap


@_with_examples(CONSERVATION_EXAMPLES, 3)
@settings(max_examples=400, deadline=None)
@given(controls(), options, presses)
def test_time_is_conserved_to_the_millisecond(control, opts, seq):
    """start + periods granted + bonuses = main time charged + time left, for each side,
    computed by an independent model of the rules, as long as no flag fell."""
    g = E.Game(control, **opts)
    g.press(0, 0)
    inc_before = opts["inc_before"] and control.periods[0][2] == BONUS_FISCHER
    expected = [
        p0 + (control.periods[0][3] if inc_before else 0) for p0 in (control.periods[0][0],) * 2
    ]
    moves = [0, 0]
    period = [0, 0]
    t = 0
    move_start = 0
    for dt, right_side in seq:
        s = g.running
        kind, amount = g.bonus_kind(s), g.bonus_ms(s)
        e = t + dt - move_start  # the whole move so far, wrong-side presses included
        if e >= g.deadline() - move_start:
            return  # a deadline comes first: not this property's business
        t += dt
        if not right_side:
            assert g.press(1 - s, t) == 0
            continue
        charged = max(0, e - amount) if kind == BONUS_DELAY else e
        bonus = {BONUS_FISCHER: amount, BONUS_BRONSTEIN: min(e, amount)}.get(kind, 0)
        expected[s] += bonus - charged
        moves[s] += 1
        p = period[s]
        if (
            opts["transition"] == E.TRANSITION_MOVES
            and p < control.last()
            and moves[s] == control.ends[p]
        ):
            period[s] += 1
            expected[s] += control.periods[p + 1][0]
        g.press(s, t)
        move_start = t
        assert g.state == E.RUNNING
        for x in (0, 1):
            assert g.remaining(x, t) == expected[x] >= 0
        COVERAGE["conserved_moves"] += 1
        note("a move checked, bonus kind %d" % kind)
        if period[s] != p:
            COVERAGE["transitions"] += 1
            note("a period transition checked")


@settings(max_examples=300, deadline=None)
@given(any_controls, options, presses, st.integers(0, 500_000))
def test_remaining_never_negative_and_never_rises_while_running(control, opts, seq, probe):
    g2 = E.Game(control, **opts)
    g2.press(0, 0)
    t = 0
    for dt, right_side in seq:
        side = g2.running if right_side else 1 - g2.running
        before = [g2.remaining(x, t) for x in (0, 1)]
        mid = t + dt // 2
        during = [g2.remaining(x, mid) for x in (0, 1)]
        for x in (0, 1):
            assert during[x] >= 0
            if g2.state == E.RUNNING and control.mode == MODE_COUNTDOWN:
                assert during[x] <= before[x]
        t += dt
        g2.press(side, t)
    for x in (0, 1):
        assert g2.remaining(x, t + probe) >= 0


@settings(max_examples=300, deadline=None)
@given(controls(), options, presses)
def test_delay_never_increases_the_main_time(control, opts, seq):
    if control.periods[0][2] not in (BONUS_DELAY, BONUS_BRONSTEIN):
        return
    g = E.Game(control, **opts)
    g.press(0, 0)
    t = 0
    for dt, right_side in seq:
        s = g.running
        side = s if right_side else 1 - s
        before_main = g.main[s]  # main time at the start of this move
        before_period = g.period[s]
        before_moves = g.moves[s]
        t += dt
        g.press(side, t)
        if g.moves[s] > before_moves and g.period[s] == before_period:
            assert g.main[s] <= before_main


@settings(max_examples=300, deadline=None)
@given(controls(), options, presses)
def test_flag_instant_is_the_deadline(control, opts, seq):
    g = E.Game(control, **opts)
    g.press(0, 0)
    t = 0
    for dt, right_side in seq:
        s = g.running
        d = g.deadline()
        was_flagged = g.flagged[s]
        side = s if right_side else 1 - s
        t += dt
        g.press(side, t)
        if not was_flagged and g.flagged[s] and opts["transition"] == E.TRANSITION_MOVES:
            assert g.flag_at[s] == d
            assert d <= t
        if g.state != E.RUNNING:
            break


def test_the_conservation_property_checked_real_moves():
    """Guards against a property made vacuous (an early return, a changed body): its own
    body, run on the explicit examples, checks every move and every period transition."""
    body = test_time_is_conserved_to_the_millisecond.hypothesis.inner_test
    for control, opts, seq, moves, transitions in CONSERVATION_EXAMPLES:
        COVERAGE["conserved_moves"] = COVERAGE["transitions"] = 0
        body(control, opts, seq)
        assert (COVERAGE["conserved_moves"], COVERAGE["transitions"]) == (moves, transitions)


# ------------------------------------------------ fallen flags and the hourglass
@st.composite
def any_mode_controls(draw):
    """Countdown controls of every bonus, the hourglass, the stopwatch, byo-yomi, Canadian."""
    mode = draw(st.sampled_from([MODE_COUNTDOWN, MODE_HOURGLASS, MODE_UPCOUNT, MODE_BYOYOMI]))
    if mode == MODE_COUNTDOWN:
        return draw(controls())
    if mode == MODE_BYOYOMI:
        return draw(overtime_controls())
    if mode == MODE_HOURGLASS:
        return TimeControl([(draw(st.integers(1_000, 120_000)), 0, BONUS_NONE, 0)], mode)
    return TimeControl([(0, 0, BONUS_NONE, 0)], mode)


# (ms until the action, action): press by the side on move / by the other side / a tick /
# pause and resume (the second number: ms paused)
ACTIONS = st.lists(
    st.tuples(
        st.one_of(st.integers(0, 5_000), st.integers(0, 200_000)),
        st.sampled_from(["move", "other", "tick", "pause"]),
        st.integers(0, 100_000),
    ),
    max_size=40,
)


def _start_total(control, opts):
    first = control.periods[0]
    extra = first[3] if opts["inc_before"] and first[2] == BONUS_FISCHER else 0
    if control.ot_count and first[0] == 0:
        return 2 * control.ot_ms
    return 2 * (first[0] + extra)


def check_flags_and_hourglass(control, opts, actions):
    """Plays `actions` and checks, at every action and halfway between actions:
    - no time reaches a fallen flag: a flagged side shows 0 (and its main time is 0 once
      both clocks froze), until the end (no arbiter correction happens here);
    - a fallen flag stays fallen, and the first flag stays the first;
    - the hourglass never creates time: both clocks together never hold more than at the
      start, and exactly that as long as no flag has fallen."""
    g = E.Game(control, **opts)
    g.press(0, 0)
    total = _start_total(control, opts)
    hourglass = control.mode == MODE_HOURGLASS
    flagged_seen = [False, False]
    first = -1
    t = 0

    def check(now):
        nonlocal first
        for s in (0, 1):
            if flagged_seen[s]:
                assert g.flagged[s], "a fallen flag was lifted without the arbiter"
            if g.flagged[s]:
                flagged_seen[s] = True
                assert g.remaining(s, now) == 0, ("time reached a fallen flag", s, now)
                if g.state == E.FLAGGED:
                    assert g.main[s] == 0  # folded when the clocks stopped
            assert g.remaining(s, now) >= 0
        if g.first_flag >= 0:
            if first < 0:
                first = g.first_flag
            assert g.first_flag == first
            assert g.flagged[first]
        if hourglass:
            both = g.remaining(0, now) + g.remaining(1, now)
            assert both <= total, ("the hourglass created time", both, total)
            if not (g.flagged[0] or g.flagged[1]):
                assert both == total

    for dt, action, paused_ms in actions:
        check(t + dt // 2)
        t += dt
        if action == "move":
            g.press(g.running, t)
        elif action == "other":
            g.press(1 - g.running, t)
        elif action == "tick":
            g.tick(t)
        elif g.pause(t) == E.OK:
            check(t + paused_ms // 2)
            t += paused_ms
            assert g.resume(t) == E.OK
        check(t)
    g.tick(t + 50_000_000)
    check(t + 50_000_000)
    return g


@settings(max_examples=500, deadline=None)
@given(any_mode_controls(), options, ACTIONS)
def test_no_time_reaches_a_fallen_flag_and_the_hourglass_creates_none(control, opts, actions):
    check_flags_and_hourglass(control, opts, actions)


def test_the_issue_hourglass_case_is_in_the_property():
    """The reported example (hourglass 1 min, freeze off) through the property's checks."""
    control = TimeControl([(60_000, 0, BONUS_NONE, 0)], MODE_HOURGLASS)
    opts = {"freeze": False, "inc_before": False, "transition": E.TRANSITION_MOVES}
    g = check_flags_and_hourglass(control, opts, [(7_290_192, "move", 0), (10_000, "tick", 0)])
    assert g.first_flag == 1 and g.state == E.FLAGGED


# ------------------------------------------------ byo-yomi and Canadian: an independent model
class OvertimeModel:
    """The overtime rules written out from their statement, step by step in time (no
    deadlines, no re-basing): per side the phase, the time left in it *now*, the periods
    left / moves to make, the flag."""

    def __init__(self, control, inc_before, unit=1):
        """`unit`: 1 for times in ms, 1000 for us (test_engine_exact_properties.py)."""
        main, _moves, bonus, bonus_ms = control.periods[0]
        main, bonus_ms = main * unit, bonus_ms * unit
        self.byo = control.mode == MODE_BYOYOMI
        self.count, self.t = control.ot_count, control.ot_ms * unit
        self.inc = bonus_ms if bonus == BONUS_FISCHER else 0
        start = main + (self.inc if inc_before else 0)
        over = main == 0
        self.over = [over, over]
        self.left = [self.t if over else start] * 2
        self.ot = [self.count, self.count]
        self.flag_at = [None, None]
        self.events = 0  # periods entered / used up / blocks renewed by the last action
        self.name = "byo-yomi" if self.byo else "Canadian"
        self.reached = set()  # the rules this game went through, by name

    def run(self, s, ms):
        """Side s's clock runs for `ms`; returns the instant offset of its flag or None."""
        used = 0
        while self.flag_at[s] is None and ms - used >= self.left[s]:
            used += self.left[s]
            if not self.over[s]:
                self.over[s] = True  # main time over: the first period / block starts
                self.left[s] = self.t
                self.reached.add(self.name + ": main time over")
            elif self.byo and self.ot[s] > 1:
                self.ot[s] -= 1  # a period used up, the next starts at once
                self.left[s] = self.t
                self.reached.add("byo-yomi: a period used up")
            else:
                self.left[s] = 0
                self.reached.add(self.name + ": flag")
                return used  # the flag
            self.events += 1
        if self.flag_at[s] is None:
            self.left[s] -= ms - used
        return None

    def move(self, s):
        """Side s completes a move now."""
        if self.flag_at[s] is not None:
            return
        if not self.over[s]:
            self.left[s] += self.inc
            if self.inc:
                self.reached.add("byo-yomi: an increment in main time")
        elif self.byo:
            self.left[s] = self.t
            self.reached.add("byo-yomi: a move keeps the period")
        else:
            self.ot[s] -= 1
            self.reached.add("Canadian: a move counted in the block")
            if self.ot[s] == 0:
                self.ot[s] = self.count
                self.left[s] = self.t
                self.events += 1
                self.reached.add("Canadian: a block renewed")


OVERTIME_RULES = {
    "byo-yomi: main time over",
    "byo-yomi: an increment in main time",
    "byo-yomi: a move keeps the period",
    "byo-yomi: a period used up",
    "byo-yomi: paused in overtime",
    "byo-yomi: flag",
    "Canadian: main time over",
    "Canadian: a move counted in the block",
    "Canadian: a block renewed",
    "Canadian: paused in overtime",
    "Canadian: flag",
}


def _byo(main, count, ot_ms, inc=0):
    bonus = BONUS_FISCHER if inc else BONUS_NONE
    return TimeControl([(main, 0, bonus, inc)], MODE_BYOYOMI, overtime=(count, ot_ms))


def _canadian(main, count, ot_ms):
    return TimeControl([(main, 0, BONUS_NONE, 0)], MODE_CANADIAN, overtime=(count, ot_ms))


# Inputs the overtime property must go through on every run, whatever the random draws:
# (control, options, actions, the rules of OVERTIME_RULES the game goes through).
OVERTIME_EXAMPLES = [
    # main 10 s then 3 x 5 s: White's move at 12 s keeps its period; Black's at 3 s is in
    # main time; White then pauses in a period and lets two periods go by and flags
    (
        _byo(10_000, 3, 5_000),
        _opts(),
        [(12_000, "move", 0), (3_000, "move", 0), (2_000, "pause", 60_000), (17_000, "tick", 0)],
        {
            "byo-yomi: main time over",
            "byo-yomi: a move keeps the period",
            "byo-yomi: paused in overtime",
            "byo-yomi: a period used up",
            "byo-yomi: flag",
        },
    ),
    # an increment in main time, given before the first move too, freeze off
    (
        _byo(5_000, 1, 3_000, inc=2_000),
        _opts(freeze=False, inc_before=True),
        [(1_000, "move", 0), (1_000, "other", 0), (500, "move", 0), (12_000, "tick", 0)],
        {"byo-yomi: an increment in main time", "byo-yomi: main time over", "byo-yomi: flag"},
    ),
    # Canadian from the first move (main time 0): blocks of 2 moves in 20 s
    (
        _canadian(0, 2, 20_000),
        _opts(),
        [(1_000, "move", 0), (1_000, "move", 0), (1_000, "move", 0), (30_000, "tick", 0)],
        {"Canadian: a move counted in the block", "Canadian: a block renewed", "Canadian: flag"},
    ),
    # main 5 s, then blocks of 3 moves in 10 s; a pause within the block
    (
        _canadian(5_000, 3, 10_000),
        _opts(transition=E.TRANSITION_FLAG),
        [(6_000, "move", 0), (1_000, "move", 0), (1_000, "pause", 5_000), (4_000, "move", 0)],
        {
            "Canadian: main time over",
            "Canadian: a move counted in the block",
            "Canadian: paused in overtime",
        },
    ),
]


@_with_examples(OVERTIME_EXAMPLES, 3)
@settings(max_examples=600, deadline=None)
@given(overtime_controls(), options, ACTIONS)
def test_overtime_matches_an_independent_model(control, opts, actions):
    """Byo-yomi and Canadian games, with pauses, late ticks and wrong-side presses, agree
    with OvertimeModel at every action: times to the ms, phase, periods left / moves to
    make, flags at their exact instants, frozen clocks. The total time each side was given
    is accounted for: time used in the main time + in overtime + left."""
    g = E.Game(control, **opts)
    model = OvertimeModel(control, opts["inc_before"] and control.periods[0][3] > 0)
    g.press(0, 0)
    running = 1  # the model's running side
    stopped = False
    t = 0

    def advance(to):
        nonlocal stopped
        if stopped or to <= t:
            return
        flag = model.run(running, to - t)
        if flag is not None:
            model.flag_at[running] = t + flag
            if opts["freeze"] or model.flag_at[1 - running] is not None:
                stopped = True

    def compare(now):
        for x in (0, 1):
            assert g.remaining(x, now) == model.left[x], (x, now)
            assert g.in_overtime(x) == model.over[x]
            assert g.ot_left[x] == model.ot[x]
            assert bool(g.flagged[x]) == (model.flag_at[x] is not None)
            if g.flagged[x]:
                assert g.flag_at[x] == model.flag_at[x]
        assert (g.state == E.FLAGGED) == stopped

    for dt, action, paused_ms in actions:
        advance(t + dt)
        t += dt
        if action == "move":
            ev = g.press(g.running, t)
            if not stopped:
                model.move(running)
                running = 1 - running
                assert ev & E.EV_MOVE
        elif action == "other":
            g.press(1 - g.running, t)
        elif action == "tick":
            g.tick(t)
        else:
            if g.pause(t) == E.OK:
                if model.over[running]:
                    model.reached.add(model.name + ": paused in overtime")
                compare(t)
                t += paused_ms  # nothing runs
                g.resume(t)
        g.tick(t)
        compare(t)
    COVERAGE["overtime_rules"] |= model.reached
    for rule in sorted(model.reached):
        note(rule)


def test_the_overtime_model_property_saw_periods_and_blocks():
    """Guards against a property that never reaches the overtime rules: its own body, run
    on the explicit examples alone, goes through every rule of both modes."""
    body = test_overtime_matches_an_independent_model.hypothesis.inner_test
    for control, opts, actions, rules in OVERTIME_EXAMPLES:
        COVERAGE["overtime_rules"] = set()
        body(control, opts, actions)
        assert COVERAGE["overtime_rules"] == rules, (control.mode, actions)
    assert set().union(*(case[3] for case in OVERTIME_EXAMPLES)) == OVERTIME_RULES
