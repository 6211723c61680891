"""A flag on a whole ms of the app's clock, on the emulated chip: no wakeup more than the flag's.

An arbiter's correction to whole seconds, then PLAY, puts the flag on a whole ms (the resume
is at the button wakeup's `now`, a whole ms): the sleep step must wake `settle_us` after it
(app.py's `wake`), once. The test plays it through the pins (Bullet 1+0: the right lever
starts the left clock; PLAY pauses; SET long opens the arbiter menu; MINUS on the left
minutes, SET to the left seconds, PLUS five times; PLAY applies and leaves, PLAY resumes),
lets the flag fall, ends the game (material: the flag loses) and reads the engine's flag
instant and the app's clock through the raw REPL. Then, on the core's awake stretches (the
emulator records each time the core leaves WFE/WFI): none begins in the 50 ms before the
flag's exact instant (nothing else is due then: the tenths stand at 0.1), and one begins in
the ms after it, no earlier than that instant, within the alarm's 0.2 ms: the flag's
wakeup, with nothing that wakes the loop again before its time. The emulator counts cycles:
the same run every time (measured: the flag's wakeup begins 29.7 us after the instant, the
two before it 100 and 200 ms earlier, the tenths).

The chip's alarm ends a sleep some 28 us after the instant it was given, more than
`settle_us` (2 us), so a sleep aimed at the whole ms itself would find the flag due as well:
the aim that leaves the deadline step nothing to do is caught on the simulated board, whose
sleeps end at their exact us (test_loop_deadlines.py, test_loop_edges.py); here the count of
wakeups around the flag is held on the chip.

Runs when MICROPYTHON_UF2 names a MicroPython rp2 .uf2 (and the B1 boot ROM is found, see
chip.py); skipped otherwise.
"""

import chip
import chip_env
from chip_env import clean

pico = chip_env.chip_fixture()
clock = chip_env.booted_fixture()

BULLET_1_0 = 8
MS = chip.MS
US = 1000

PROBE = """
import json, time
m = clock.mono
g = clock.ui.game
origin = time.ticks_add(m._last_us, -(m.ms * 1000 + m.rem_us))
print(json.dumps({"origin_us": origin, "state": g.state, "flagged": list(g.flagged),
    "flag_at": list(g.flag_at), "flag_us": list(g.flag_us), "errors": clock.errors,
    "wakeups": clock.wakeups}))
"""


def test_a_flag_on_a_whole_ms_after_a_correction_wakes_the_loop_once(clock):
    clock.choose_preset(BULLET_1_0)
    clock.press("right")  # White's lever: Black's (left) clock runs
    clock.run_ms(2_000)
    clock.tap("play")  # paused
    clock.tap("set", hold_ms=2_200)  # the arbiter menu: the left minutes
    clock.tap("minus")
    clock.tap("set")  # the left seconds
    for _ in range(5):
        clock.tap("plus")
    clock.tap("play")  # applied, the menu left
    clock.tap("play")  # resumed
    clock.run_ms(20_000)  # the left flag falls (some 12.5 s after the resume)
    tr = clock.trace()
    clean(tr)
    clock.tap("set")  # the material entry: what is left to White?
    clock.tap("play")  # a pawn, rook or queen: the flag loses
    clock.tap("play")  # the result confirmed
    clock.run_ms(2_000)
    st = clock.repl_json(PROBE)
    assert st["errors"] == 0 and st["flagged"] == [1, 0]
    assert st["flag_us"][0] == 0  # the flag's exact instant is a whole ms
    flag_ns = (st["origin_us"] + st["flag_at"][0] * US) * US
    before = tr.wakes(flag_ns - 50 * MS, flag_ns)
    after = tr.wakes(flag_ns, flag_ns + MS)
    assert before == []
    assert len(after) == 1
    assert 2 * US <= after[0][0] - flag_ns < 200 * US
