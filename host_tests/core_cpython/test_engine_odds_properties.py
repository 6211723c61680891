"""Property tests (hypothesis) of time odds: each side under its own control.

- Equal sides are one control: a control the same for both sides, as timecontrol.Odds(c, c),
  plays every game of moves, ticks, pauses and time corrections as the independent us model
  of host_tests/core/exact_model.py says (each side's time to the us, flags at their exact
  us, the record within 0.5 ms), as the same control given plain does. And in every game,
  with the arbiter's other corrections (moves, period, overtime counter), G.4, snapshot and
  restore, the two forms give the same observable state after every action, to the us.
- Per-side conservation of time: games with time odds in every mode against the independent
  us model of host_tests/core/exact_model.py, which plays each side under its own control:
  per side its time to the us, flags at their exact us, and (countdown, increment or none)
  start + bonuses + periods - the exact sum of its intervals = its time left, under its own
  control.
- The hourglass with odds moves time, never creates it: the two clocks never hold more
  than the two starting times together.
- The set-up check leaves no trace: under draw odds, any number of first presses from
  White's side, at any us before Black's, are refused and the game then plays every action
  exactly as a game nobody pressed wrongly, to the us (only `refused` counts them).
The seeded scenario tests of the same rules run on both runtimes (core/test_engine_odds.py).
"""

import engine as E
import exact_model
import game_state
from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine_exact_properties import all_options, bases, games
from test_engine_properties import any_mode_controls, controls
from timecontrol import (
    BONUS_DELAY,
    BONUS_FISCHER,
    BONUS_NONE,
    DRAW_ODDS_BLACK,
    DRAW_ODDS_WHITE,
    MODE_BYOYOMI,
    MODE_CANADIAN,
    MODE_HOURGLASS,
    Odds,
    TimeControl,
)

US = 1000
ARBITER = ["pause", "add", "set", "moves", "period", "ot", "g4", "snap"]
KINDS = ["move"] * 8 + ["edge", "edge-1", "other", "tick"] + ARBITER


# ------------------------------------------------------- equal sides = one control
def state(g, now, now_us):
    """Everything a caller can observe of a game at the instant now.now_us."""
    out = [
        g.state,
        g.running,
        g.white,
        g.first_flag,
        g.first_passed,
        g.override_bonus,
        g.override_ms,
        g.g4_applied,
        g.result,
        g.reason,
        g.log_count,
        g.deadline(),
        g.deadline_exact(),
        g.turn_start,
        g.turn_us,
        g.paused_elapsed,
        g.paused_us,
        g.last_event,
        g.last_us,
    ]
    for arr in (g.main, g.main_us, g.moves, g.period, g.flagged, g.flag_at, g.flag_us):
        out.append(tuple(arr))
    for arr in (g.markers, g.marker_moves, g.passed_at, g.ot_left):
        out.append(tuple(arr))
    for s in (0, 1):
        out += [
            g.remaining_exact(s, now, now_us),
            g.remaining(s, now),
            g.delay_left(s, now),
            g.bonus_kind(s),
            g.bonus_ms(s),
            g.is_last_period(s),
            g.in_overtime(s),
        ]
    out.append(tuple(g.log_entries()))
    out.append(tuple(a[1:] for a in g.arbiter_log))
    return tuple(out)


def act(g, kind, arg, at, at_us):
    """One action on game `g` at at.at_us; returns what the calls returned (and `g`, which
    a restore replaces with a fresh game of the same control)."""
    if kind in ("move", "other"):
        side = g.running if kind == "move" else 1 - g.running
        return g, (g.press(side, at, at_us),)
    if kind == "tick":
        return g, (g.tick(at, at_us),)
    got = [g.pause(at)]
    s = g.running
    if kind == "add":
        got.append(game_state.add_time(g, arg % 3, (arg % 11 - 5) * 7_001, at))
    elif kind == "set":
        got.append(game_state.set_time(g, s, arg % 200_000, at))
    elif kind == "moves":
        got.append(game_state.set_moves(g, arg % 2, arg % 70, at))
    elif kind == "period":
        got.append(game_state.set_period(g, arg % 2, arg % 4, at))
    elif kind == "ot":
        got.append(game_state.set_overtime(g, arg % 2, arg % 7, at))
    elif kind == "g4":
        got.append(game_state.appendix_g4(g, s, BONUS_FISCHER if arg % 2 else BONUS_DELAY, at))
    elif kind == "snap" and g.state != E.RUNNING:
        snap = game_state.snapshot(g)
        h = type(g)(g.control, g.freeze, g.inc_before, g.transition, g.min_move_ms)
        got += [snap, game_state.restore(h, snap)]
        g = h
    got.append(g.resume(at + 1 + arg % 5_000))
    return g, tuple(got)


def play_all(games_, base, seq):
    """Play `seq` on every game of `games_` in step; the traces of each, one per action."""
    gs = list(games_)
    traces = [[] for _ in gs]
    t = 0
    for i, g in enumerate(gs):
        traces[i].append(state(g, base // US, base % US))
        g.press(0, base // US, base % US)
    for dt, kind, arg in seq:
        if kind in ("edge", "edge-1"):
            d = gs[0].deadline_exact()
            if d is not None:
                to = d[0] * US + d[1] - base - (1 if kind == "edge-1" else 0)
                if to >= t:
                    dt = to - t
            kind = "move"
        t += dt
        now = base + t
        for i in range(len(gs)):
            gs[i], got = act(gs[i], kind, arg, now // US, now % US)
            traces[i].append((got, state(gs[i], now // US, now % US)))
    results = []
    for i, g in enumerate(gs):
        end = base + t + 1_000
        g.pause(end // US)
        traces[i].append(
            (game_state.finish(g, E.RESULT_DRAW, 2, end // US), state(g, end // US, 0))
        )
        results.append(traces[i])
    return results


equal_actions = games(tuple(KINDS))
model_actions = games()  # the kinds exact_model plays: moves, ticks, pauses, time corrections


@settings(max_examples=300, deadline=None)
@given(any_mode_controls(), all_options, bases, model_actions)
def test_equal_sides_play_every_game_as_the_us_model(control, opts, base, seq):
    exact_model.play(Odds(control, control), opts, base, seq)


@settings(max_examples=300, deadline=None)
@given(any_mode_controls(), all_options, bases, equal_actions)
def test_equal_sides_and_the_plain_control_give_the_same_game(control, opts, base, seq):
    args = (opts["freeze"], opts["inc_before"], opts["transition"], opts["min_move_ms"])
    plain = E.Game(control, *args)
    paired = E.Game(Odds(control, control), *args)
    one, two = play_all((plain, paired), base, seq)
    assert two == one


# ------------------------------------------------------ per-side conservation of time
@st.composite
def odds_controls(draw):
    """Two controls of one mode, each drawn on its own: countdown (any bonus, 1-3 periods),
    hourglass, byo-yomi (an increment or none), Canadian."""
    mode = draw(st.sampled_from(["countdown", MODE_HOURGLASS, MODE_BYOYOMI, MODE_CANADIAN]))
    sides = []
    for _ in range(2):
        if mode == "countdown":
            sides.append(draw(controls()))
        elif mode == MODE_HOURGLASS:
            sides.append(
                TimeControl([(draw(st.integers(1_000, 120_000)), 0, BONUS_NONE, 0)], mode)
            )
        else:
            main = draw(st.sampled_from([0, draw(st.integers(1_000, 120_000))]))
            bonus, bonus_ms = BONUS_NONE, 0
            if mode == MODE_BYOYOMI and main and draw(st.booleans()):
                bonus, bonus_ms = BONUS_FISCHER, draw(st.integers(0, 10_000))
            ot = (draw(st.integers(1, 5)), draw(st.integers(1_000, 60_000)))
            sides.append(TimeControl([(main, 0, bonus, bonus_ms)], mode, overtime=ot))
    return Odds(sides[0], sides[1], draw(st.integers(0, 2)))


odds_actions = games()


@settings(max_examples=300, deadline=None)
@given(odds_controls(), all_options, bases, odds_actions)
def test_time_odds_games_match_the_us_model_side_by_side(control, opts, base, seq):
    """Each side's time to the us under its own control, flags at their exact us, the
    record within 0.5 ms; conservation per side (exact_model.Referee)."""
    exact_model.play(control, opts, base, seq)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1_000, 600_000),
    st.integers(1_000, 600_000),
    bases,
    games(("move", "move", "other", "tick")),
)
def test_the_hourglass_with_odds_never_holds_more_than_both_starts(a, b, base, seq):
    g = E.Game(Odds(*(TimeControl([(x, 0, BONUS_NONE, 0)], MODE_HOURGLASS) for x in (a, b))))
    g.press(0, base // US, base % US)
    t = 0
    for dt, kind, _arg in seq:
        t += dt
        now = base + t
        side = g.running if kind == "move" else 1 - g.running
        if kind == "tick":
            g.tick(now // US, now % US)
        else:
            g.press(side, now // US, now % US)
        held = [g.remaining_exact(s, now // US, now % US) for s in (0, 1)]
        total = sum(ms * US + us for ms, us in held)
        assert total <= (a + b) * US
        if not (g.flagged[0] or g.flagged[1]):
            assert total == (a + b) * US  # what one loses the other gains, to the us


@settings(max_examples=200, deadline=None)
@given(
    odds_controls(),
    st.sampled_from([DRAW_ODDS_BLACK, DRAW_ODDS_WHITE]),
    st.booleans(),
    all_options,
    bases,
    st.lists(st.integers(0, 3_000_000), min_size=1, max_size=4),
    equal_actions,
)
def test_refused_first_presses_leave_no_trace(control, draw_odds, swap, opts, base, gaps, seq):
    control = Odds(control.sides[0], control.sides[1], draw_odds)
    if swap:
        control = control.swapped()
    white = control.white
    args = (opts["freeze"], opts["inc_before"], opts["transition"], opts["min_move_ms"])
    wrong = E.Game(control, *args)
    right = E.Game(control, *args)
    before = state(wrong, base // US, base % US)
    t = base
    for gap in gaps:
        t += gap
        assert wrong.press(white, t // US, t % US) == E.EV_REFUSED
        assert state(wrong, t // US, t % US) == before
    t += 51_000  # Black's press, after the last slap's window (min_move_ms: 0 or 50)
    got = [g.press(1 - white, t // US, t % US) for g in (wrong, right)]
    assert got == [E.EV_START, E.EV_START]
    assert wrong.refusals() == len(gaps) and right.refusals() == 0
    gs = [wrong, right]
    for dt, kind, arg in seq:
        if kind in ("edge", "edge-1"):
            d = gs[0].deadline_exact()
            if d is not None:
                to = d[0] * US + d[1] - (1 if kind == "edge-1" else 0)
                if to >= t:
                    dt = to - t
            kind = "move"
        t += dt
        out = []
        for i in (0, 1):
            gs[i], ret = act(gs[i], kind, arg, t // US, t % US)
            out.append((ret, state(gs[i], t // US, t % US)))
        assert out[0] == out[1], kind
