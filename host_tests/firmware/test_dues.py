"""The sleep step's arithmetic (app.Dues) on its own, with stand-ins for what it asks: the
earliest due instant is the earliest of every step's, and a wakeup only renders (`only`)
strictly before each instant at which another step has work: the deadline less a ms, the
journal's next periodic step, the feed's next line. On the simulated board the journal's
records fall on the feed's instants, so there a missing bound would go unseen; here each
bound is the earliest in turn."""

import app as app_mod
import engine as E
import pytest
import ui as U

NOW = 10_000
FAR = 0x3FFFFFFF  # feed.py's "no line before a change"


class Stub:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def dues(deadline_free=True, journal_due=-1, wake_at=-1, feed_until=FAR, usb_due=-1, buzz=-1):
    game = Stub(state=E.RUNNING)
    ui = Stub(game=game, screen=U.S_GAME)
    buzzer = Stub(next_due=lambda now: buzz)
    usb = Stub(feed=Stub(until=feed_until), next_due=lambda: usb_due)
    journal = Stub(due=journal_due, wake_at=wake_at)
    return app_mod.Dues(Stub(buzzer=buzzer), ui, usb, journal), game, ui


def after(d, deadline=-1, render=-1, buttons=-1, battery=0, only=False):
    return d.after(NOW, deadline, render, only, buttons, battery)


def test_nothing_due_sleeps_until_the_watchdogs_bound_and_only_renders_until_then():
    d, _g, _ui = dues()
    assert after(d) == NOW + app_mod.FEED_MS
    assert d.only == NOW + app_mod.FEED_MS  # no deadline, no journal step, no line to make


@pytest.mark.parametrize(
    "kw, only",
    [
        ({"journal_due": NOW + 3_000}, NOW + 3_000),
        ({"feed_until": NOW + 2_000}, NOW + 2_000),
        ({"journal_due": NOW + 2_000, "feed_until": NOW + 3_000}, NOW + 2_000),
        ({"journal_due": NOW + 3_000, "feed_until": NOW + 2_500}, NOW + 2_500),
    ],
)
def test_each_other_steps_instant_bounds_the_render_only_wakeups(kw, only):
    d, _g, _ui = dues(**kw)
    after(d)
    assert d.only == only


def test_the_deadline_bounds_them_a_ms_early():
    d, _g, _ui = dues(journal_due=NOW + 3_500)
    assert after(d, deadline=NOW + 3_000) == NOW + 3_000
    assert d.only == NOW + 2_999  # the deadline step ticks a ms early (its rounding)


def test_no_render_only_wakeups_off_the_game_screen_or_with_no_clock_running():
    for state, screen in ((E.PAUSED, U.S_GAME), (E.READY, U.S_GAME), (E.RUNNING, U.S_CHOOSE)):
        d, g, ui = dues()
        g.state, ui.screen = state, screen
        after(d)
        assert d.only == -1, (state, screen)


def test_the_earliest_instant_of_every_step():
    cases = [
        ({"buzz": 40}, {}, NOW + 40),  # the buzzer's next step: ms from now
        ({"usb_due": NOW + 30}, {}, NOW + 30),
        ({"wake_at": NOW + 20}, {}, NOW + 20),  # the journal's quiet write
        ({}, {"deadline": NOW + 50}, NOW + 50),
        ({}, {"buttons": NOW + 60}, NOW + 60),
        ({}, {"render": NOW + 70}, NOW + 70),
    ]
    for kw, args, want in cases:
        d, _g, _ui = dues(**kw)
        assert after(d, **args) == want, (kw, args)


def test_the_battery_only_while_the_game_is_ready():
    d, g, _ui = dues()
    assert after(d, battery=NOW + 80) == NOW + app_mod.FEED_MS  # a running clock: not read
    g.state = E.READY
    assert after(d, battery=NOW + 80) == NOW + 80


def test_a_render_only_wakeup_keeps_the_last_full_steps_instants():
    d, _g, _ui = dues(usb_due=NOW + 900)
    assert after(d, render=NOW + 500) == NOW + 500
    d.usb = None  # asked only in a full step: a render-only one does not look
    assert after(d, render=NOW + 1_500, only=True) == NOW + 900
    assert after(d, render=NOW + 700, only=True) == NOW + 700
