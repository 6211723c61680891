"""A running clock's wakeups run with the heap locked (App.safe_wake, app.HeapLock): where the
lock is held, where it is let go, and what a MemoryError under it does.

CPython cannot refuse an allocation, so these tests read the fake `micropython` module's
lock depth at the calls that matter (the allocation proofs themselves run under real
MicroPython: `make bench`, host_tests/core/*_alloc.py, and the chip bench's runs, whose
errors.log stays empty). The real firmware runs on the simulated board.
"""

import engine as E
import micropython
import pytest
from test_firmware_e2e import BULLET_1_0, choose_preset, game, power_on, tap
from test_firmware_wakeups import RAPID_15_10


@pytest.fixture
def clock(tmp_path):
    c = power_on(tmp_path)
    yield c
    assert micropython.heap_locked() == 0  # every lock undone, never one unlock too many


def spy(obj, name, seen, result=None):
    """Replace obj.name by a wrapper that notes the heap's lock depth at each call."""
    real = getattr(obj, name)

    def call(*args):
        seen.append(micropython.heap_locked())
        return real(*args) if result is None else result

    setattr(obj, name, call)
    return real


def start(clock):
    choose_preset(clock, RAPID_15_10)
    clock.press("left")
    assert game(clock).state == E.RUNNING


def test_a_running_clock_renders_and_presses_under_the_lock(clock):
    start(clock)
    app = clock.app
    renders, presses = [], []
    spy(app.ui, "render", renders)
    spy(app.ui.game, "press", presses)
    clock.run_ms(3_000)
    clock.press("right")
    clock.run_ms(2_000)
    assert renders and presses
    assert set(renders) == {1} and set(presses) == {1}


def test_the_steps_after_the_render_run_unlocked(clock):
    start(clock)
    app = clock.app
    reports, dues = [], []
    spy(app.usb, "report", reports)
    spy(app.dues, "after", dues)
    clock.run_ms(3_000)
    clock.press("right")
    clock.run_ms(6_000)  # a periodic state line of the feed, a journal record
    assert reports and dues
    assert set(reports) == {0} and set(dues) == {0}


def test_the_journal_and_file_writes_run_unlocked(clock, tmp_path):
    start(clock)
    app = clock.app
    records, saves = [], []
    spy(app.journal, "record", records)
    spy(app.files, "save_game", saves)
    clock.run_ms(11_000)  # the journal's record of the start, then a periodic one
    clock.press("right")
    clock.run_ms(1_000)
    tap(clock, "play")  # the pause saves the game
    clock.run_ms(500)
    assert game(clock).state == E.PAUSED
    assert len(records) >= 2 and set(records) == {0}
    assert saves and set(saves) == {0}


def test_a_fallen_flag_is_saved_unlocked(clock):
    choose_preset(clock, BULLET_1_0)
    clock.press("left")
    saves = []
    spy(clock.app.files, "save_game", saves)
    clock.run_ms(61_000)
    assert game(clock).state == E.FLAGGED
    assert saves and set(saves) == {0}


def test_a_key_during_a_running_game_runs_unlocked(clock):
    start(clock)
    keys = []
    spy(clock.app.ui, "key", keys)
    tap(clock, "minus")  # ignored while the clock runs, but a key all the same
    tap(clock, "play")
    assert keys and set(keys) == {0}
    assert game(clock).state == E.PAUSED


def test_the_lock_is_not_taken_off_the_game_screen_or_while_stopped(clock):
    renders = []
    spy(clock.app.ui, "render", renders)
    clock.run_ms(2_000)  # the ready screen
    choose_preset(clock, RAPID_15_10)  # menus
    assert renders and set(renders) == {0}


def test_a_memory_error_under_the_lock_is_logged_and_the_lock_stays_off(clock, tmp_path):
    start(clock)
    app = clock.app
    real = app.ui.render
    failed = []

    def render(now):
        if micropython.heap_locked() and not failed:
            failed.append(now)
            raise MemoryError("memory allocation failed, heap is locked")
        return real(now)

    app.ui.render = render
    clock.run_ms(2_000)
    assert failed
    assert not app.heap.on
    assert "MemoryError" in (tmp_path / "errors.log").read_text()
    # The clock goes on, unlocked, and shows its time again.
    renders = []
    spy(app.ui, "render", renders)
    before = clock.display(1)
    clock.run_ms(2_000)
    assert renders and set(renders) == {0}
    assert clock.display(1) != before and game(clock).state == E.RUNNING
    (tmp_path / "errors.log").unlink()
