"""Property test (hypothesis) for timefmt.next_change: the loop sleeps until the answer, so
it must never be early (the text really is the same until then) and never late (the text
really changes then), for any time, direction, rounding and tenths threshold."""

import timefmt
from hypothesis import given, settings
from hypothesis import strategies as st

TIMES = st.one_of(
    st.integers(0, 12_000),
    st.integers(0, 4_000_000),
    st.integers(0, 40_000_000),
)


def text(t, up, tenths):
    return (timefmt.countdown if up else timefmt.countup)(t, tenths)


@settings(max_examples=3_000, deadline=None)
@given(TIMES, st.booleans(), st.booleans(), st.integers(-2, 12))
def test_next_change_is_exact(t, rising, up, tenths):
    if not rising and not up:
        return  # a falling stopwatch does not happen; next_change answers 1 (safe)
    n = timefmt.next_change(t, rising, up, tenths)
    step = 1 if rising else -1
    here = text(t, up, tenths)
    if n < 0:
        assert not rising and t <= 0
        return
    assert n >= 1
    # Monotonic display: equal at both ends means equal at every ms in between.
    assert text(t + step * (n - 1), up, tenths) == here
    assert text(t + step * n, up, tenths) != here or t + step * n > 99 * 3_600_000
