"""Property test of the event-driven loop through the simulated board: random
lever presses (with contact bounce, slaps on both levers), button taps and long presses,
pauses and resumes, menus and flags, across time controls that exercise every instant the
loop must wake for (delay, hourglass, stopwatch, byo-yomi, Canadian, increments, tenths,
flags), started at random offsets before the ticks_us wrap and with random ms grids.

After each run `harness.loop_check.LoopRecorder.check()` asserts the loop's invariants
(see its docstring): every display and LED change written was true within the 5 ms before,
every change is shown within 5 ms, no armed lever press is lost or invented, the engine
counts every move it should, the LED follows a press within 5 ms; no errors.log, no
watchdog reset (the harness raises WatchdogReset).
"""

import json
import os
import tempfile
from pathlib import Path

import machine
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from test_firmware_e2e import BATTERY_ADC

from harness.loop_check import LoopRecorder
from simboard import vtime
from simboard.firmware import BUTTON, LEVER, SimulatedClock

CONTROLS = (
    {"preset": 10},  # US Chess G/60;d5: 1h00 held by the delay, then 59:59 and the beat
    {"preset": 15},  # hourglass 1 min
    {"preset": 16},  # stopwatch
    {"preset": 17},  # byo-yomi 60 min + 5 x 30 s
    {"preset": 18},  # Canadian 60 min + 25 / 10 min
    {"preset": 8},  # bullet 1+0: tenths, flag
    {"custom": {"mode": 0, "periods": [[12, 0, 3, 5]]}},  # 12 s, 5 s delay
    {"custom": {"mode": 0, "periods": [[0, 0, 3, 3]]}},  # no main time, 3 s delay
    {"custom": {"mode": 0, "periods": [[11, 0, 1, 2]]}},  # 11 s + 2 s increment
    {"custom": {"mode": 0, "periods": [[13, 0, 2, 3]]}},  # 13 s, Bronstein 3 s
    {"custom": {"mode": 0, "periods": [[9, 2, 0, 0], [7, 0, 1, 1]]}},  # two periods
    {"custom": {"mode": 1, "periods": [[12, 0, 0, 0]]}},  # hourglass 12 s
    {"custom": {"mode": 3, "periods": [[6, 0, 0, 0]], "overtime": [3, 3]}},
    {"custom": {"mode": 3, "periods": [[0, 0, 0, 0]], "overtime": [2, 13]}},
    {"custom": {"mode": 3, "periods": [[4, 0, 1, 2]], "overtime": [2, 12]}},
    {"custom": {"mode": 4, "periods": [[5, 0, 0, 0]], "overtime": [3, 6]}},
    {"custom": {"mode": 4, "periods": [[0, 0, 0, 0]], "overtime": [2, 14]}},
)

BOUNCE = st.lists(st.integers(20, 3_000), max_size=6).map(lambda g: tuple(g[: len(g) // 2 * 2]))
STEP = st.one_of(
    st.tuples(
        st.just("lever"),
        st.integers(0, 1),
        st.integers(0, 4_000),
        st.integers(1, 500),
        BOUNCE,
        BOUNCE,
    ),
    st.tuples(
        st.just("button"),
        st.sampled_from(sorted(BUTTON)),
        st.integers(0, 3_000),
        st.sampled_from((5, 40, 80, 300, 700, 2_100, 2_600)),
    ),
    st.tuples(st.just("slap"), st.integers(0, 1), st.integers(0, 3_000), st.integers(0, 60)),
    st.tuples(st.just("wait"), st.integers(0, 12_000)),
)


def run_step(clock, step):
    kind = step[0]
    if kind == "wait":
        clock.run_ms(step[1])
    elif kind == "lever":
        _, side, gap, hold, down, up = step
        pin = LEVER[("left", "right")[side]]
        clock.run_ms(gap)
        machine.press(pin, down)
        clock.run_ms(max(hold, sum(down) // 1_000 + 2))
        machine.release(pin, up)
        clock.run_ms(sum(up) // 1_000 + 2)
    elif kind == "button":
        _, name, gap, hold = step
        clock.run_ms(gap)
        machine.press(BUTTON[name])
        clock.run_ms(hold)
        machine.release(BUTTON[name])
        clock.run_ms(1)
    else:  # both levers, `offset` ms apart
        _, first, gap, offset = step
        a, b = LEVER[("left", "right")[first]], LEVER[("left", "right")[1 - first]]
        clock.run_ms(gap)
        machine.press(a)
        clock.run_ms(offset)
        machine.press(b)
        clock.run_ms(80)
        machine.release(a)
        machine.release(b)
        clock.run_ms(1)


def boot(flash, control, options, start_before_wrap_us, battery_v):
    s = {
        "sound": options[0],
        "freeze": options[1],
        "inc_before": options[2],
        "transition": options[3],
        "rules": 0,
        "brightness": 4,
        "low_time_s": 10,
        "control": control,
    }
    (Path(flash) / "settings.json").write_text(json.dumps(s))
    clock = SimulatedClock(flash, start_us=vtime.TICKS_PERIOD - start_before_wrap_us)
    machine.set_adc_volts(BATTERY_ADC, battery_v / 3)
    clock.run_ms(300)
    return clock


@settings(
    max_examples=int(os.environ.get("LOOP_EXAMPLES", "50")),  # more to hunt
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    control=st.sampled_from(CONTROLS),
    options=st.tuples(st.booleans(), st.booleans(), st.booleans(), st.integers(0, 1)),
    start_before_wrap_us=st.integers(0, 6_000_000),
    battery_v=st.sampled_from((4.2, 3.4)),
    start_game=st.booleans(),
    steps=st.lists(STEP, max_size=10),
)
@example(  # presses dropped by a menu (SET) opening: the recorder counts each lever's ring
    control={"custom": {"mode": 0, "periods": [[0, 0, 3, 3]]}},
    options=(False, True, False, 0),
    start_before_wrap_us=0,
    battery_v=4.2,
    start_game=True,
    steps=[
        ("lever", 0, 2386, 1, (), ()),
        ("button", "minus", 465, 5),
        ("lever", 0, 0, 1, (), ()),
        ("lever", 0, 0, 1, (), ()),
        ("button", "set", 0, 40),
        ("wait", 29),
        ("lever", 0, 0, 1, (), ()),
    ],
)
def test_loop_invariants_under_random_play(
    control, options, start_before_wrap_us, battery_v, start_game, steps
):
    with tempfile.TemporaryDirectory() as flash:
        clock = boot(flash, control, options, start_before_wrap_us, battery_v)
        rec = LoopRecorder(clock)
        if start_game:
            run_step(clock, ("lever", 0, 0, 60, (), ()))
        for step in steps:
            run_step(clock, step)
        clock.run_ms(300)
        g = clock.app.ui.game
        event("final state %s" % ("ready", "running", "paused", "flagged", "finished")[g.state])
        if g.flagged[0] or g.flagged[1]:
            event("a flag fell")
        if g.in_overtime(0) or g.in_overtime(1):
            event("overtime reached")
        event("wakeups checked: %s" % ("< 100" if len(rec.states) < 100 else ">= 100"))
        rec.check()
        assert not (Path(flash) / "errors.log").exists()
