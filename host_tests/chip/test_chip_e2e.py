"""The whole firmware on the emulated chip: real MicroPython rp2 inside rp2040js, flashed as
`make uf2` / `make flash` leave it, driven only through its pins (tools/chip/chip.py).

Runs when MICROPYTHON_UF2 names a MicroPython rp2 .uf2 for the Pico (and the B1 boot ROM is
found, see chip.py); skipped otherwise, so a fresh clone passes. Everything is on the
emulator's clock, which counts cycles: the same firmware gives the same run every time, so
every assertion below is exact, not statistical. What no pin shows (the engine's instants)
is read from the app through the raw REPL: at the ready screen a Ctrl-C makes the app hand
the board over (usbguard.py; during a game it ignores USB), so a game's instants come from
the run's twin, stopped just before the game's first lever edge and handed the same press
(chip.Chip.twin: the emulator is deterministic, and the test checks the twin is the same
board up to that instant).
"""

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

import chip  # noqa: E402
import chip_env  # noqa: E402
from chip_env import clean, leds  # noqa: E402

ONCHIP = (ROOT / "tools" / "chip" / "onchip.py").read_text()
MS = chip.MS

pico = chip_env.chip_fixture()
clock = chip_env.booted_fixture()

BLITZ_5_3 = 5
PAUSE_DEBOUNCE_MS = 30  # buttons.Buttons.debounce_ms: a release is an event once this steady
BLITZ_5_0 = 7
BULLET_1_0 = 8
BOOT_MS = chip.BOOT_MS
RESUME_BOOT_MS = chip.RESUME_BOOT_MS


def state(s):
    return s.repl_json(ONCHIP + "\nstate(clock)")


def displays(tr, t_ns):
    return tr.shown_at(0, t_ns), tr.shown_at(1, t_ns)


def test_boots_to_the_default_preset(clock):
    tr = clock.trace()
    clean(tr)
    assert displays(tr, tr.now_ns) == (("1h30", False), ("1h30", False))
    assert leds(tr, tr.now_ns) == (0, 0)
    st = state(clock)
    assert (st["state"], st["errors"], st["moves"]) == (0, 0, [0, 0])


def test_a_lever_starts_the_other_clock(clock):
    clock.choose_preset(BLITZ_5_0)
    edge = clock.t
    clock.press("left")  # Black's lever: White's (right) clock starts
    clock.run_to(edge + 1_250)
    tr = clock.trace()
    clean(tr)
    at = tr.now_ns
    assert leds(tr, at) == (0, 1)
    assert displays(tr, at) == ((" 500", True), (" 459", True))
    # The running side: 5:00, its colon off half a second after the press, 4:59 with the
    # colon on one second after it (never before: the app's ms grid is at most 1 ms early
    # against the edge), its colon off again half a second later.
    lit = [x for x in tr.lit(1) if x.t >= edge * MS]
    assert [(x.text, x.colon) for x in lit] == [(" 500", False), (" 459", True)]
    assert (edge + 500 - 1) * MS <= lit[0].start < (edge + 510) * MS
    assert (edge + 1_000 - 1) * MS <= lit[1].start < (edge + 1_010) * MS
    with pytest.raises(chip.ChipError, match="USB ignored"):
        state(clock)  # a game in progress: the app keeps the board


def inside(pico, session, tr, edge_ms):
    """The app of `session` right after its first lever press (at `edge_ms`): its twin,
    stopped just before the edge, handed the same press. Returns the twin's state."""
    left = chip.PINS["left"]
    stamp = [v for e, g, _read, v in tr.stamps if e >= edge_ms * MS and g == left][0]
    with pico.twin(session, edge_ms) as twin:
        assert chip.same_until(tr, twin.trace(), edge_ms * MS) == ""
        twin.repl(ONCHIP + "\nstart(clock, %d)" % stamp)
        return state(twin), stamp


def test_the_flag_falls_at_its_instant(pico, clock):
    clock.choose_preset(BULLET_1_0)
    edge = clock.now()  # the press's instant (after a flash stall the run ended in)
    clock.press("left")
    clock.run_to(edge + 61_000)
    tr = clock.trace()
    clean(tr)
    st, stamp = inside(pico, clock, tr, edge)
    assert st["state"] == 1 and st["running"] == 1
    # The clock started at the press's stamp (the hard IRQ's ticks_us, exact to the us on
    # the app's monotonic clock) and White had exactly 60 s: the flag falls at the stamp +
    # 60 s; deadline() is the first whole ms at or after it.
    started_us = stamp - st["origin_us"]
    assert st["deadline"] == -(-(started_us + 60_000_000) // 1000)
    deadline = (stamp + 60_000_000) * 1000  # ns: the flag's exact instant
    before = [x for x in tr.lit(1) if x.start < deadline]
    after = [x for x in tr.lit(1) if x.start >= deadline]
    assert before[-1].text != after[0].text or before[-1].colon != after[0].colon
    assert before[-1].text != "FLAG"  # nothing flagged before the deadline
    assert after[0].t - deadline < 20 * MS
    assert [on for t, on, _f in tr.buzzer if t >= deadline][:1] == [True]


def test_pause_power_loss_and_resume(clock):
    clock.choose_preset(BLITZ_5_3)
    clock.run_ms(500)  # the chosen preset's save (littlefs: some 130 ms of writes) ends
    started = clock.t
    clock.press("left")  # White's clock runs
    clock.run_ms(6_860)
    clock.press("right")  # White moves: Black's clock runs
    clock.run_ms(3_360)  # Black's colon is off in this half of the second shown
    paused = clock.t
    clock.tap("play")  # the arbiter pauses on Black's move: the game is saved now
    clock.run_ms(500)  # littlefs: some 150 ms of erases and programs
    tr = clock.trace()
    clean(tr)
    before = displays(tr, tr.now_ns)
    # The pause is on the displays (Black's colon, off while it ran, lit: the first change
    # after the button's event, the release steady for the buttons' debounce) within 3 ms,
    # before the save's first flash operation.
    event_ns = (paused + 80 + PAUSE_DEBOUNCE_MS) * MS
    shown = [lit.t for side in (0, 1) for lit in tr.lit(side) if lit.t >= event_ns]
    first_write = min(t for t, *_ in tr.flash_ops if t >= event_ns)
    assert shown and min(shown) < first_write
    assert min(shown) - event_ns <= 3 * MS, (min(shown) - event_ns) / MS
    # While a clock ran only the journal wrote (files in /journal.d, after each press's LEDs:
    # test_chip_journal.py); the pause saved the game.
    assert [t for t, *_ in tr.flash_ops if started * MS <= t < paused * MS]
    assert [t for t, *_ in tr.flash_ops if t > paused * MS]
    clock.run_ms(500)  # the save's last writes (a block erase takes tens of ms)
    flash = clock.save_flash()
    saved = json.loads(chip.read_file(flash, "game.json"))
    assert saved["control"] == {"preset": BLITZ_5_3}
    # the journal retired once game.json held the paused game (the next one is made ready:
    # its slots, if there, hold no record)
    import journal

    for name in ("journal.d/s0", "journal.d/s1"):
        slot = chip.read_file(flash, name)
        assert slot is None or journal.decode_state(slot) is None

    clock.power_cycle()
    clock.run_to(RESUME_BOOT_MS)
    tr = clock.trace()
    clean(tr)
    assert displays(tr, tr.now_ns) == (("rE5 ", False), (" yE5", False))  # resume? yes
    clock.tap("play")
    tr = clock.trace()
    assert displays(tr, tr.now_ns) == before
    clock.tap("play")  # the left clock runs on from where it stopped
    clock.run_ms(1_000)
    tr = clock.trace()
    clean(tr)
    assert leds(tr, tr.now_ns) == (1, 0)
    assert displays(tr, tr.now_ns)[0] != before[0]
    assert chip.read_file(clock.save_flash(), "errors.log") is None


def test_an_undisturbed_poll_sleeps_its_whole_timeout(clock):
    """The loop's sleep on the rp2 port: the WFE's alarm is `timeout - elapsed` ms after it
    starts, in us (mp_wfe_or_timeout), not on the ticks_ms grid. So a poll nothing
    interrupts sleeps its whole timeout from whatever phase of a ms it starts at, except when
    a ms boundary passes during its first look at the doorbell (elapsed is then 1): that one
    ends up to 1 ms early. The host's fake select (simboard/mp_select.py) and make bench's
    loop model sleep the same way, and doorbell.wait_until, which the loop sleeps with,
    relies on it. The emulator is deterministic: these 12 phases give the same 12 sleeps
    each run."""
    out = clock.repl_json(
        "import json, time\n"
        "bell = clock.board.bell\n"
        "out = []\n"
        "for k in range(12):\n"
        "    time.sleep_us(k * 89)\n"
        "    t0 = time.ticks_us()\n"
        "    bell.wait(5)\n"
        "    out.append(time.ticks_diff(time.ticks_us(), t0))\n"
        "print(json.dumps(out))"
    )
    shown = " ".join(map(str, out))
    # never 1 ms early or more; late by the poll's own calls (the first, 0.2 ms more)
    assert all(4_000 < us <= 5_400 for us in out), shown
    # A poll whose first look straddles a ms boundary ends up to 1 ms early: 2 or 3 of
    # the 12 seen, which ones set by the phase the REPL's code starts at (any change of
    # the firmware moves it); the ms grid would cut 11 of them short
    assert sum(1 for us in out if us >= 5_000) >= 8, shown


def test_a_poll_cut_short_leaves_its_timer_to_wake_the_next_sleep(clock):
    """pico-sdk 2.x fires the timer of a poll's timeout even when the poll ended early
    (best_effort_wfe_or_timeout cancels the alarm but leaves the hardware timer set), so the
    next sleep is woken then for nothing and sleeps on: a short awake stretch 4-5 ms after
    the first poll began (its 5 ms less the part counted on the ms grid: a first look that
    straddles a ms boundary has used one already), then the second poll's own end, its
    rest counted on the ms grid from that look (at least 9 ms after its start;
    simboard/mp_select.py does the same)."""
    out = clock.repl_json(
        "import json, time\n"
        "bell = clock.board.bell\n"
        "alarm = bell._alarm\n"
        "time.sleep_ms(2)\n"
        "t0 = time.ticks_us()\n"
        "alarm.restart()\n"
        "alarm.put(1_000)\n"
        "bell.wait(5)\n"
        "t1 = time.ticks_us()\n"
        "bell.seen_a = bell.rung[2]\n"
        "bell.wait(10)\n"
        "t2 = time.ticks_us()\n"
        "print(json.dumps([t0, time.ticks_diff(t1, t0), time.ticks_diff(t2, t0)]))"
    )
    t0, first, second = out
    assert 1_000 <= first < 1_300  # the alarm cut the first poll short
    assert first + 9_000 <= second < first + 11_000  # the second slept on to its end
    tr = clock.trace()
    woke = [a for a, b in tr.segments if t0 * 1000 + 3_900_000 < a < t0 * 1000 + 5_300_000]
    assert len(woke) == 1, "woken by the first poll's timer 4-5 ms after it began"


def test_the_alarm_ends_the_sleep_at_its_us(clock):
    """The loop's sleep with the PIO alarm (alarm_pio.py, doorbell.wait_until): from any
    phase of a ms, for a few us or seconds, the sleep ends after the instant asked for and
    within the alarm's hard IRQ and the poll's return of it (under 0.2 ms), never before."""
    out = clock.repl_json(
        "import json, time\n"
        "bell = clock.board.bell\n"
        "out = []\n"
        "for k, left in enumerate((7, 450, 999, 1_000, 4_321, 250_000, 2_000_000)):\n"
        "    time.sleep_us(k * 137)\n"
        "    target = time.ticks_add(time.ticks_us(), left)\n"
        "    bell.wait_until(target)\n"
        "    out.append(time.ticks_diff(time.ticks_us(), target))\n"
        "print(json.dumps(out))"
    )
    assert all(0 <= late < 200 for late in out), out


def test_pio_runs_in_lock_step_with_the_core(clock):
    """A state machine on the emulated chip keeps the RP2040's timing (the bench steps PIO
    with the core's cycles, tools/chip/board.mjs): two instructions of 1 + 31 cycles at a
    2 MHz PIO clock (a fractional divider, 62.5) make a square wave of 16 µs half periods on
    GP16, while the core sleeps (time.sleep_ms) as well as while it runs (a busy loop)."""
    clock.repl(
        "import machine, rp2, time\n"
        "@rp2.asm_pio(set_init=rp2.PIO.OUT_LOW)\n"
        "def square():\n"
        "    set(pins, 1) [31]\n"
        "    set(pins, 0) [31]\n"
        "sm = rp2.StateMachine(0, square, freq=2_000_000, set_base=machine.Pin(16))\n"
        "sm.active(1)\n"
        "time.sleep_ms(1)\n"
        "t = time.ticks_us()\n"
        "while time.ticks_diff(time.ticks_us(), t) < 1000:\n"
        "    pass\n"
        "sm.active(0)\n"
    )
    tr = clock.trace()
    clean(tr)
    edges = [t for t, g, _level in tr.probes if g == 16]
    assert len(edges) >= 100
    # An edge is seen at the end of the core instruction its PIO cycle falls in (while
    # the core sleeps: exactly), so one gap is off by at most a long instruction or an
    # exception entry (< 100 ns), and they add up exactly.
    gaps = [b - a for a, b in zip(edges[1:], edges[2:], strict=False)]
    assert all(abs(g - 16_000) < 100 for g in gaps), sorted(set(gaps))
    assert abs(edges[-1] - edges[1] - 16_000 * (len(edges) - 2)) < 100


def test_the_displays_are_driven_by_the_pio(pico, clock):
    """The TM1637 frames come from PIO state machines (tm1637_pio.py), checked by the
    emulator's TM1637 model on each display's pins (tools/chip/tm1637.mjs: start/stop, LSB
    first, setup and pulse widths, the ACK, the command set): a game's frames are the three
    transactions of tm1637.py at 100 kHz (the address transaction's 5 bytes take 0.49 ms
    from start to stop); the data command first in the display's first frame, last in
    the ones that follow a whole frame; both displays' frames go out at once; every byte was
    acknowledged (the drivers' nacks); the CPU hands a frame over in a small fraction of
    its 0.7 ms on the wire."""
    clock.choose_preset(BLITZ_5_0)
    clock.run_ms(500)
    edge = clock.t
    clock.press("left")  # the right runs: its colon beats, its digits change
    clock.run_ms(2_000)
    tr = clock.trace()
    clean(tr)
    frames = [(s, e, bytes(d)) for s, e, d in tr.frames[1] if s >= edge * MS]
    assert len(frames) >= 3 * 3
    assert [d[0] & 0xC0 for _s, _e, d in tr.frames[1][:3]] == [0x40, 0xC0, 0x80]
    assert [d[0] & 0xC0 for _s, _e, d in frames[:3]] == [0xC0, 0x80, 0x40]
    addr = [(s, e, d) for s, e, d in frames if d[0] == 0xC0]
    assert all(len(d) == 5 and 480_000 <= e - s <= 500_000 for s, e, d in addr)
    ready = pico.session()  # at the ready screen the app hands the board to the REPL
    ready.run_to(BOOT_MS)
    mark = ready.t
    out = ready.repl_json(
        "import json, time, segments\n"
        "ds = clock.board.displays\n"
        "a, b = segments.encode('8888'), segments.encode('1234')\n"
        "time.sleep_ms(2)\n"
        "t0 = time.ticks_us()\n"
        "ds[0].show(a)\n"
        "t1 = time.ticks_us()\n"
        "ds[1].show(b)\n"
        "time.sleep_ms(2)\n"
        "ds[0].show(bytearray(segments.encode('4321')))\n"
        "time.sleep_ms(2)\n"
        "print(json.dumps([ds[0].nacks, ds[1].nacks, time.ticks_diff(t1, t0)]))"
    )
    assert out[:2] == [0, 0]
    # The CPU hands a frame of 700 us on the wire to the FIFO and goes on: its share is
    # about 150 us, a few us more or less with the layout of the firmware's bytecode and
    # heap (147 to 153 seen between builds); a CPU that waited for the wire would take
    # 700 or more (SoftI2C: 1070)
    assert out[2] < 250
    tr = ready.trace()
    ready.close()
    clean(tr)
    first = [[(s, e) for s, e, _d in tr.frames[side] if s >= mark * MS] for side in (0, 1)]
    assert first[1][0][0] < first[0][1][1]  # the right's frame starts before the left's
    # address transaction (the second of its three) has ended: both on the wire at once
    assert tr.lit(0)[-1].text == "4321" and tr.lit(1)[-1].text == "1234"


def test_a_game_started_over_an_info_page_runs_without_an_error(clock):
    """The ready screen's info page left open (PLUS, PLUS), then a lever starts the game:
    its running wakeups, under the heap lock, allocate nothing (errors.log stays empty)."""
    clock.tap("plus")
    clock.tap("plus")
    clock.press("left")
    clock.run_ms(3_000)
    clock.press("right")
    clock.run_ms(1_000)
    clock.tap("play")
    clock.run_ms(1_000)
    assert chip.read_file(clock.save_flash(), "errors.log") is None
