"""The simulated board's firmware modules and a test's own never meet, in any test order.

Every power-on of a `SimulatedClock` imports the firmware afresh (a boot on the board starts
from nothing). Those modules are the board's: they are in `sys.modules` only while its
firmware runs. A test module imports the firmware at collection, and what it builds (a Ui,
an engine Game, a control) must keep meeting its own modules afterwards, also through the
firmware's lazy imports (ui_custom imports ui_draft when the editor opens): a class from one
set and an `isinstance` from the other fail (`'Odds' object has no attribute 'periods'`).
`pytest --random-order` runs the whole suite shuffled; these tests keep the check in every
ordinary run.
"""

import sys
import unittest

import engine
import test_ui_odds
import timecontrol
import ui

from simboard.firmware import SimulatedClock

FIRMWARE_MODULES = ("engine", "timecontrol", "ui", "ui_custom", "ui_draft", "app", "settings")


def boot_and_play(tmp_path):
    clock = SimulatedClock(tmp_path)
    clock.run_ms(1_000)
    clock.press("right")  # a game starts on the board's own modules
    clock.run_ms(2_000)
    return clock


def test_a_boot_leaves_the_tests_modules_in_sys_modules(tmp_path):
    mine = {name: sys.modules.get(name) for name in FIRMWARE_MODULES}
    clock = boot_and_play(tmp_path)
    assert {name: sys.modules.get(name) for name in FIRMWARE_MODULES} == mine
    assert sys.modules["engine"] is engine and sys.modules["timecontrol"] is timecontrol
    # The board runs on its own copy, a fresh one per power-on.
    board_engine = clock.module("engine")
    assert board_engine is not engine
    assert type(clock.app.ui.game) is board_engine.Game
    clock.power_cycle()
    clock.run_ms(1_000)
    assert clock.module("engine") is not board_engine


def test_the_editor_builds_time_odds_after_a_boot(tmp_path):
    """What a test module's Ui does after a board booted: the custom editor's lazy import of
    ui_draft builds an Odds its own engine knows."""
    boot_and_play(tmp_path)
    result = unittest.TestResult()
    test_ui_odds.Editor("test_armageddon_5_v_4_in_23_presses_from_blitz_5_0").run(result)
    assert result.wasSuccessful(), result.errors + result.failures
    u = ui.Ui(test_ui_odds.settings.defaults())
    assert isinstance(u.game, engine.Game)
