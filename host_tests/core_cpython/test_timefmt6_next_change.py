"""Property tests (hypothesis) for timefmt6: next_change is never early (the text really is
the same until then) and never late (the text really changes then), and the display is
monotonic in the time, never below the time counting down, never above it counting up, for
any time, direction, rounding and tenths threshold."""

import timefmt6
from hypothesis import given, settings
from hypothesis import strategies as st

H = 3_600_000
TIMES = st.one_of(
    st.integers(0, 12_000),
    st.integers(0, 4_000_000),
    st.integers(0, 40_000_000),
    st.integers(0, 90_000_000),
)


def text(t, up, tenths):
    return (timefmt6.countdown if up else timefmt6.countup)(t, tenths)


def value(disp):
    """The time (ms) a 6-digit display stands for."""
    chars, points = disp
    s = chars.strip()
    if "h" in s:
        h, rest = s.split("h")
        if points == 0:  # _HHhMM
            return int(h) * H + int(rest) * 60_000
        return int(h) * H + int(rest[:2]) * 60_000 + int(rest[2:]) * 1_000
    if points == 16:  # S.t
        return int(s[:-1]) * 1_000 + int(s[-1]) * 100
    return int(s[:-2]) * 60_000 + int(s[-2:]) * 1_000


@settings(max_examples=3_000, deadline=None)
@given(TIMES, st.booleans(), st.booleans(), st.integers(-2, 12))
def test_next_change_is_exact(t, rising, up, tenths):
    if not rising and not up:
        return  # a falling stopwatch does not happen; next_change answers 1 (safe)
    n = timefmt6.next_change(t, rising, up, tenths)
    step = 1 if rising else -1
    here = text(t, up, tenths)
    if n < 0:
        assert not rising and t <= 0
        return
    assert n >= 1
    # Monotonic display: equal at both ends means equal at every ms in between.
    assert text(t + step * (n - 1), up, tenths) == here
    assert text(t + step * n, up, tenths) != here or t + step * n > 99 * H + 59 * 60_000


@settings(max_examples=2_000, deadline=None)
@given(TIMES, st.integers(0, 200_000), st.integers(-2, 12))
def test_monotonic_and_on_the_right_side_of_the_time(t, d, tenths):
    for up in (True, False):
        a = value(text(t, up, tenths))
        b = value(text(t + d, up, tenths))
        assert a <= b
        if up:
            assert a >= t
        else:
            assert a <= t
