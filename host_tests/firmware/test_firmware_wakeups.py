"""The event-driven loop on virtual time: how often the firmware wakes, and that
each display change is written at or after the exact instant its text becomes true and
within 5 ms of it; levers, flags and long presses are served within the same bound.

The real firmware runs on the simulated board (simboard/firmware.py). Time is virtual: the
firmware's own code takes no time here except the TM1637's bit delays (sleep_us), so these
tests check the loop's scheduling (when it wakes and writes), not the chip's speed; `make
bench` turns the measured work into chip figures (tools/bench/bench.py). The reference for "what
should be shown at ms t" is the UI's own render(t) on the live engine, over a stretch with
no key and no press, where the engine's state does not change.
"""

import json

import engine as E
import machine
import pytest
import segments
import settings as settings_mod
from test_firmware_e2e import (
    BATTERY_ADC,
    BLITZ_5_0,
    BULLET_1_0,
    FIDE,
    choose_preset,
    game,
    power_on,
    tap,
)

from simboard import tm1637_decode
from simboard.firmware import LED_PINS

LAG_US = 5_000  # a change is written within 5 ms of its exact instant
RAPID_15_10 = 3
US_G60_D5 = 10
HOURGLASS = 15
STOPWATCH = 16


def expected(clock, side, t_ms):
    """(text, colon) the UI renders on `side` at monotonic ms `t_ms` (leaves the live UI as
    it was by rendering `now` again)."""
    ui = clock.app.ui
    ui.render(t_ms)
    segs = bytearray(4)
    segments.encode_into(segs, ui.text[side], ui.colon[side])
    return tm1637_decode.text(bytes(segs))


def restore(clock):
    clock.app.ui.render(clock.mono_ms())


def check_window(clock, start_ms, end_ms, sides=(0, 1)):
    """Every change of the expected text in [start_ms, end_ms] is written within LAG_US
    after its exact instant, and nothing written in the window shows a text before it is
    true. Returns the number of changes checked."""
    changes = 0
    for side in sides:
        want = [expected(clock, side, t) for t in range(start_ms, end_ms + 1)]
        frames = [
            (t_us, tm1637_decode.text(lit))
            for t_us, lit in clock.chips[side].timeline
            if clock.at_us(start_ms) <= t_us <= clock.at_us(end_ms)
        ]
        for k in range(1, len(want)):
            if want[k] == want[k - 1]:
                continue
            instant_us = clock.at_us(start_ms + k)
            if instant_us + LAG_US > clock.at_us(end_ms):
                continue  # too close to the end of the window to judge
            written = [t for t, shown in frames if shown == want[k] and t >= instant_us]
            assert written, "side %d: %r (due at ms %d) never written" % (
                side,
                want[k],
                start_ms + k,
            )
            lag = written[0] - instant_us
            assert 0 <= lag <= LAG_US, "side %d: %r written %d us late" % (side, want[k], lag)
            changes += 1
        for t_us, shown in frames:
            # Written at t_us: true at some ms within the 5 ms before, never only later.
            now_ms = clock.mono_ms(t_us)
            lo = max(start_ms, now_ms - 5)
            window = want[lo - start_ms : now_ms - start_ms + 1]
            assert shown in window, "side %d: %r written at ms %d before it was true" % (
                side,
                shown,
                now_ms,
            )
    restore(clock)
    return changes


def wakeups_over(clock, ms):
    before = clock.app.wakeups
    clock.run_ms(ms)
    return clock.app.wakeups - before


@pytest.fixture
def clock(tmp_path):
    c = power_on(tmp_path)
    yield c
    assert not (tmp_path / "errors.log").exists(), (tmp_path / "errors.log").read_text()


def start(clock, preset):
    """Choose `preset` and start it: Black (left) presses, White's (right) clock runs."""
    choose_preset(clock, preset)
    clock.press("left")
    assert game(clock).state == E.RUNNING and game(clock).running == 1


# ------------------------------------------------------------------ how often it wakes
def test_ready_screen_sleeps_between_watchdog_feeds(clock):
    n = wakeups_over(clock, 600_000)
    assert n <= 600 // 4 + 25  # the watchdog feed every 4 s, the battery every 30 s


def test_hmm_display_wakes_a_few_times_a_minute(clock):
    start(clock, FIDE)  # 1h30: the right side shows h:mm for the whole 10 minutes
    n = wakeups_over(clock, 600_000)
    assert n <= 600 // 4 + 10 + 5, n  # feeds, one digit change a minute


def test_mmss_display_wakes_twice_a_second(clock):
    start(clock, RAPID_15_10)  # 15:00 on the right: mm:ss, the colon beats
    clock.run_ms(1_000)
    n = wakeups_over(clock, 600_000)
    assert 1_190 <= n <= 1_210, n  # the digits and the beat's half second


def test_tenths_display_wakes_ten_times_a_second(clock):
    start(clock, BULLET_1_0)
    clock.run_ms(50_500)  # 9.36 s left
    n = wakeups_over(clock, 9_000)
    # 90 tenths, the ends of the five last-seconds beeps, one when run_ms() resumes the loop
    assert 90 <= n <= 97, n


def test_paused_clock_wakes_for_the_blinking_led_only(clock):
    start(clock, RAPID_15_10)
    tap(clock, "play")
    assert game(clock).state == E.PAUSED
    n = wakeups_over(clock, 60_000)
    assert n <= 2 * 60 + 2, n


# ------------------------------------------------------------------ on time, never early
def test_mmss_and_beat_changes_on_time(clock):
    start(clock, RAPID_15_10)
    t0 = clock.mono_ms()
    clock.run_ms(12_000)
    # the right side: each second its digits (colon on) and half a second later the beat
    assert check_window(clock, t0 + 10, clock.mono_ms()) >= 22


def test_tenths_and_flag_on_time(clock):
    start(clock, BULLET_1_0)
    clock.run_ms(48_000)
    t0 = clock.mono_ms()
    clock.run_ms(11_800)  # down to 0.2 s: the last 10 s in tenths
    assert check_window(clock, t0, clock.mono_ms()) >= 100
    clock.run_ms(2_000)  # through the flag
    g = game(clock)
    assert g.state == E.FLAGGED and g.flag_at[1] > t0
    # The flag itself: the right display leaves " 0:1 " within 5 ms of the deadline.
    flag_us = clock.at_us(g.flag_at[1])
    after = [(t, tm1637_decode.text(lit)) for t, lit in clock.chips[1].timeline if t >= flag_us]
    assert after and after[0][0] - flag_us <= LAG_US
    assert after[0][1][0] in (" 0:0 ", "FLAG")


def test_hourglass_both_sides_on_time(clock):
    start(clock, HOURGLASS)
    clock.run_ms(3_000)
    t0 = clock.mono_ms()
    clock.run_ms(8_000)
    # right: digits and beat each second; left (gaining): its digits each second
    assert check_window(clock, t0, clock.mono_ms()) >= 22


def test_delay_then_main_time_on_time(clock):
    start(clock, US_G60_D5)  # 5 s of delay (1h00 stays, the colon... none in h:mm), then
    t0 = clock.mono_ms()  # the main time falls below 1 h: 59:59 and the beat
    clock.run_ms(9_000)
    assert check_window(clock, t0, clock.mono_ms()) >= 6


def test_stopwatch_on_time(clock):
    start(clock, STOPWATCH)
    t0 = clock.mono_ms()
    clock.run_ms(13_000)
    assert check_window(clock, t0, clock.mono_ms()) >= 60


# ------------------------------------------------------------------ inputs
def lever_edge_us(clock, name):
    pin = machine.Pin({"left": 6, "right": 7}[name])
    return [t for _, t, level in pin.trace if level == 0][-1]


def test_lever_press_shows_within_5_ms(clock):
    start(clock, BLITZ_5_0)
    clock.run_ms(3_717)  # the right side's beat is off: the press turns its colon on
    assert clock.display(1) == (" 457", False)
    machine.press(7)  # White (right) moves: the left clock starts
    edge = machine.now_us()
    clock.run_ms(5)
    assert clock.leds() == (1, 0)
    led = machine.Pin(LED_PINS[0])
    lit = [t for _, t, level in led.trace if level == 1 and t >= edge]
    assert lit and lit[0] - edge <= LAG_US
    now = clock.mono_ms()
    for side in (0, 1):
        assert clock.display(side) == expected(clock, side, now), side
    restore(clock)
    assert clock.display(1) == (" 457", True)  # stopped: the colon stays on
    frames = [t for t, _ in clock.chips[1].timeline if t >= edge]
    assert frames and frames[0] - edge <= LAG_US
    machine.release(7)
    clock.run_ms(100)
    assert game(clock).moves[1] == 1


def test_flag_buzzer_and_display_within_5_ms(clock):
    start(clock, BULLET_1_0)
    clock.run_ms(61_000)
    g = game(clock)
    assert g.state == E.FLAGGED
    flag_us = clock.at_us(g.flag_at[1])
    pwm = clock.app.board.buzzer._pwm
    sound = [row[0] for row in pwm.trace if row[3] and row[0] >= flag_us]
    assert sound and sound[0] - flag_us <= LAG_US


def test_long_press_still_two_seconds(clock):
    button = machine.Pin(11)  # SET
    machine.press(11)
    pressed_us = machine.now_us()
    seen = None
    for _ in range(250):
        clock.run_ms(10)
        if clock.display(0)[0] == "5nd ":  # the settings menu's first item ("Snd ")
            seen = machine.now_us()
            break
    machine.release(11)
    clock.run_ms(100)
    assert button.value() == 1
    assert seen is not None
    assert 2_000_000 <= seen - pressed_us <= 2_000_000 + 30_000 + 10_000


def test_buttons_are_not_polled_while_untouched(clock):
    start(clock, RAPID_15_10)
    polls = []
    buttons = clock.app.board.buttons
    real = buttons.poll

    def counting(now, since=None):
        polls.append(now)
        return real(now, since)

    buttons.poll = counting
    clock.run_ms(30_000)
    assert polls == []
    tap(clock, "minus")  # mashed during a game: ignored, but polled while settling
    assert 2 <= len(polls) <= 12, polls
    assert game(clock).state == E.RUNNING


def test_an_untouched_clocks_wakeups_only_render_between_the_feeds_and_records(clock):
    """A running clock nobody touches: most wakeups only render (the feed's step and the
    sleep step's full arithmetic skipped: app.Dues), yet the feed's state line still comes
    every 5 s, the journal writes when due (its records every 10 s, its tidies) and every
    change is on time."""
    start(clock, RAPID_15_10)
    clock.usb.plug()  # a host reads the live feed
    clock.usb.open()
    clock.run_ms(3_000)
    app = clock.app
    mark = len(clock.usb.received)
    feeds, full, records = [], [], []
    report, after, record = app.usb.report, app.dues.after, app.journal.record

    def counted_report(now, g):
        feeds.append(now)
        return report(now, g)

    def counted_after(now, deadline, render, only, buttons, battery):
        if not only:
            full.append(now)
        return after(now, deadline, render, only, buttons, battery)

    def counted_record(now, *args):
        records.append(now - app.journal.due)  # how late after its instant
        return record(now, *args)

    app.usb.report, app.dues.after = counted_report, counted_after
    app.journal.record = counted_record
    t0 = clock.mono_ms()
    n = wakeups_over(clock, 180_000)  # three minutes: the journal's tidies move its phase
    assert 359 <= n <= 363, n  # the digits and the beat
    assert len(full) == len(feeds) and len(feeds) < n // 4, (len(feeds), n)
    assert len(records) >= 18 and all(0 <= late < 500 for late in records), records
    assert check_window(clock, t0 + 10, clock.mono_ms()) >= 358
    sent = bytes(clock.usb.received)[mark:].split(b"\n")
    # the state lines: the right side's time (running) every 5 s
    times = [int(line.split()[6]) for line in sent if line[:5] == b"#CLK1" and b" T " in line]
    assert len(times) == 36, times
    assert [a - b for a, b in zip(times, times[1:], strict=False)] == [5_000] * 35, times


def test_the_low_time_beeps_last_their_patterns(clock):
    """The low-time beep and the last seconds' beeps start in render wakeups (the alerts
    fall on the running side's changes): each tone ends when its pattern says, however few
    of the next wakeups have more to do than render."""
    start(clock, BULLET_1_0)
    clock.run_ms(45_000)  # 15 s left on the right
    pwm = clock.app.board.buzzer._pwm
    t0 = clock.vt.us
    clock.run_ms(14_500)
    tones, on = [], None
    for t, freq, _duty, sounding in pwm.trace:
        if t < t0:
            continue
        if on is not None and (not sounding or freq != on[1]):
            tones.append((on[1], round((t - on[0]) / 1000)))
            on = None
        if sounding and on is None:
            on = (t, freq)
    # the low-time pattern at 10 s (two 60 ms tones), then one 40 ms tone for each of 5..1 s
    assert tones == [(2500, 60), (2500, 60)] + [(3000, 40)] * 5, tones


def test_a_release_counts_its_debounce_from_its_edge(clock):
    """The arbiter's pause comes 30 ms (the debounce) after the release edge, on the ms grid,
    however late the loop first looked at it: the edge's stamp, not the look, starts it."""
    start(clock, BLITZ_5_0)
    clock.run_ms(2_000)
    machine.press(10)  # PLAY
    clock.run_ms(80)
    machine.advance(300)  # the release inside a ms of the app's grid
    machine.release(10)
    edge_ms = clock.mono_ms()
    machine.advance(6_000, irq_only=True)  # the loop busy (a flash write): it looks 6 ms late
    clock.run_ms(100)
    g = game(clock)
    assert g.state == E.PAUSED
    assert g.last_event == edge_ms + 30


def test_battery_read_on_the_ready_screen(clock):
    machine.set_adc_volts(BATTERY_ADC, 3.4 / 3)  # nearly empty
    clock.run_ms(31_000)
    shown = {clock.display(0)[0] for _ in range(4) if clock.run_ms(250) is None}
    assert "bAt " in shown


def test_byoyomi_counter_alternation_on_time(tmp_path):
    """The overtime counter of the side waiting (in byo-yomi) alternates with its time every
    2 s of the running side's time, even while that side shows h:mm (one change a minute):
    the loop must wake for the alternation itself."""
    s = settings_mod.defaults()
    s["control"] = {"custom": {"mode": 3, "periods": [[7200, 0, 0, 0]], "overtime": [5, 30]}}
    (tmp_path / "settings.json").write_text(json.dumps(s))
    clock = power_on(tmp_path)
    clock.press("left")  # Black starts White's (right) clock
    clock.press("right")  # White moves at once: the left clock runs its 2 h
    clock.run_ms(7_200_000 + 10_000)  # left's main time is over: 10 s into its first period
    g = game(clock)
    assert g.in_overtime(0) and not g.in_overtime(1)
    clock.press("left")  # left moves within the period: the right (2 h left, h:mm) runs
    assert g.running == 1 and clock.display(1)[0] == "2h00"
    t0 = clock.mono_ms()
    n = wakeups_over(clock, 20_000)
    assert check_window(clock, t0, clock.mono_ms()) >= 9  # left: time <-> counter, 2 s each
    assert n <= 20 // 2 + 3, n  # the alternation and the watchdog, nothing else
    assert not (tmp_path / "errors.log").exists()
