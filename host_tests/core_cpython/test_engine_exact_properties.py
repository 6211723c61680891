"""Property tests (hypothesis) of the engine's exactness to the microsecond.

- Games of up to 300 half-moves in every mode, presses at random us instants (the same ms,
  within a two-lever slap, long thinks), wrong-side presses, ticks, pauses and corrections,
  against the independent us model of host_tests/core/exact_model.py: per side the time to
  the us, the exact sum of its intervals (start + bonuses + periods - intervals = time left),
  flags at their exact us, the record within 0.5 ms of exact at every move.
- Byo-yomi and Canadian games at us instants against OvertimeModel (test_engine_properties.py)
  run in us.
- Where the ms grid falls changes nothing: the same game started at any us of any ms gives the
  same times to the us, the same flags and the same record.
- Ticking at every ms, at random us or never gives the same game.
The seeded twin of the first property runs on both runtimes (core/test_engine_exact.py).
"""

import engine as E
import exact_model
from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine_properties import OvertimeModel, any_mode_controls, options, overtime_controls

US = 1000

KINDS = ["move"] * 8 + ["edge", "edge-1", "other", "tick", "pause", "add", "set"]


@st.composite
def games(draw, kinds=tuple(KINDS)):
    """0..300 actions at a pace of their own (the mean think time), now and then in the
    same ms as the last, around the 50 ms of a two-lever slap, or a long think."""
    n = draw(st.integers(0, 300))
    pace = draw(st.integers(1_000, 60_000_000))
    out = []
    for _ in range(n):
        r = draw(st.integers(0, 99))
        if r < 12:
            dt = draw(st.integers(0, 3_000))  # the same ms, the next
        elif r < 16:
            dt = draw(st.integers(45_000, 55_000))  # around min_move_ms
        elif r < 18:
            dt = draw(st.integers(0, 600_000_000))  # a long think, up to 10 min
        else:
            dt = draw(st.integers(0, 2 * pace))
        out.append((dt, draw(st.sampled_from(kinds)), draw(st.integers(0, 100_000_000))))
    return out


actions = games()
moves_only = games(("move", "move", "move", "other"))
bases = st.integers(0, (1 << 28) * US)  # any us of any ms
all_options = st.tuples(options, st.sampled_from([0, 50])).map(
    lambda x: dict(x[0], min_move_ms=x[1])
)


@settings(max_examples=250, deadline=None)
@given(any_mode_controls(), all_options, bases, actions)
def test_games_of_up_to_300_half_moves_match_the_us_model(control, opts, base, seq):
    exact_model.play(control, opts, base, seq)


def trace(control, opts, base, seq, tick_every_us=0, tick_phase=0):
    """The game as times relative to its start: per action the exact times, the flags and
    the moves; then the record."""
    g = E.Game(control, opts["freeze"], opts["inc_before"], opts["transition"], 50)
    g.press(0, base // US, base % US)
    t = 0
    out = []
    for dt, kind, _arg in seq:
        if tick_every_us:
            k = t + tick_phase
            while k < t + dt:
                g.tick((base + k) // US, (base + k) % US)
                k += tick_every_us
        t += dt
        now = base + t
        side = g.running if kind == "move" else 1 - g.running
        ev = g.press(side, now // US, now % US)
        row = [g.state, g.running, tuple(g.moves), tuple(g.period), tuple(g.ot_left)]
        for x in (0, 1):
            ms, us = g.remaining_exact(x, now // US, now % US)
            row.append(ms * US + us)
            row.append(g.flag_at[x] * US + g.flag_us[x] - base if g.flagged[x] else None)
        d = g.deadline_exact()
        row.append(None if d is None else d[0] * US + d[1] - base)
        out.append((ev & ~(E.EV_FLAG | E.EV_PERIOD | E.EV_MARKER), tuple(row)))
    return out, g.log_entries()


@settings(max_examples=200, deadline=None)
@given(any_mode_controls(), options, bases, bases, moves_only)
def test_where_the_ms_grid_falls_changes_nothing(control, opts, base_a, base_b, seq):
    assert trace(control, opts, base_a, seq) == trace(control, opts, base_b, seq)


@settings(max_examples=200, deadline=None)
@given(
    any_mode_controls(),
    options,
    bases,
    moves_only,
    st.sampled_from([1_000, 7_001, 999_999]),
    st.integers(0, 999),
)
def test_ticking_often_or_never_gives_the_same_game(control, opts, base, seq, every, phase):
    """The flag falls at its exact us, not when a tick happens to notice it."""
    assert trace(control, opts, base, seq) == trace(control, opts, base, seq, every, phase)


@settings(max_examples=300, deadline=None)
@given(overtime_controls(), options, bases, actions)
def test_overtime_matches_the_independent_model_in_us(control, opts, base, seq):
    """Byo-yomi and Canadian games against OvertimeModel run in us: the time of the phase to
    the us, the phase, the periods left / moves to make, flags at their exact us."""
    g = E.Game(control, **opts)
    model = OvertimeModel(control, opts["inc_before"] and control.periods[0][3] > 0, US)
    g.press(0, base // US, base % US)
    running = 1
    stopped = False
    t = 0

    def at(x):
        return (base + x) // US, (base + x) % US

    def advance(to):
        nonlocal stopped
        if stopped or to <= t:
            return
        flag = model.run(running, to - t)
        if flag is not None:
            model.flag_at[running] = t + flag
            if opts["freeze"] or model.flag_at[1 - running] is not None:
                stopped = True

    def compare():
        for x in (0, 1):
            ms, us = g.remaining_exact(x, *at(t))
            assert ms * US + us == model.left[x], (x, t)
            assert g.in_overtime(x) == model.over[x]
            assert g.ot_left[x] == model.ot[x]
            assert bool(g.flagged[x]) == (model.flag_at[x] is not None)
            if g.flagged[x]:
                assert g.flag_at[x] * US + g.flag_us[x] - base == model.flag_at[x]
        assert (g.state == E.FLAGGED) == stopped

    for dt, kind, arg in seq:
        advance(t + dt)
        t += dt
        if kind == "move":
            ev = g.press(g.running, *at(t))
            if not stopped:
                model.move(running)
                running = 1 - running
                assert ev & E.EV_MOVE
        elif kind == "other":
            g.press(1 - g.running, *at(t))
        elif kind == "tick":
            g.tick(*at(t))
        else:  # a pause at the next whole ms, nothing runs while paused
            whole = (base + t + US - 1) // US * US - base
            advance(whole)
            t = whole
            if g.pause(at(t)[0]) == E.OK:
                compare()
                t += (arg % 100_000) * US
                assert g.resume(at(t)[0]) == E.OK
        g.tick(*at(t))
        compare()
