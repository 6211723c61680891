"""The whole firmware, started from main.py, driven only through pins, TM1637 traffic decoded."""

import pytest

from harness.firmware import SimulatedClock


@pytest.fixture
def clock(tmp_path):
    c = SimulatedClock(tmp_path)
    c.run_ms(500)
    return c


def test_boots_to_the_default_preset(clock):
    (left, lc), (right, rc) = clock.displays()
    assert left == "1h30" and right == "1h30"


def test_a_first_move(clock):
    clock.press("left")  # Black starts White's clock
    clock.run_ms(5_000)
    assert clock.leds() == (0, 1)
    clock.press("right")
    assert clock.leds() == (1, 0)
    assert clock.app.ui.game.moves[1] == 1
