"""Exact to the microsecond through the pins: the real firmware on the simulated
board, lever edges at chosen virtual us, each stamped by the lever's hard IRQ.

Each test knows the exact instant of every edge it makes (virtual time), so it knows each
move's exact interval and each side's exact time, independently of the firmware: the engine's
times must equal them to the us, the record must be within 0.5 ms at every move, the displays
must show them rounded up. The us within the ms are relative to the app's monotonic clock
(`clock.boot_us`), the ms grid a clock that rounds its stamps would round to.
"""

import json
import random

import engine as E
import machine
from test_engine_exact import V2_GAME_JSON
from test_firmware_e2e import BATTERY_ADC

from harness.loop_check import LoopRecorder
from simboard.firmware import LEVER, SimulatedClock

US = 1000
HOLD_US = 80_000  # how long a lever is held down
SIDE = ("left", "right")
FIDE = 0
BULLET_1_0 = 8


def boot(tmp_path, control=None, **options):
    """A clock booted for 500 ms with `control` and these settings (settings.defaults())."""
    if control is not None or options:
        from settings import defaults

        s = defaults()
        if control is not None:
            s["control"] = control
        s.update(options)
        (tmp_path / "settings.json").write_text(json.dumps(s))
    clock = SimulatedClock(tmp_path)
    machine.set_adc_volts(BATTERY_ADC, 4.2 / 3)
    clock.run_ms(500)
    return clock


def run_to(clock, t_us):
    """Run the firmware until virtual time t_us (or the first whole ms after it)."""
    if t_us > clock.vt.us:
        clock.run_ms(-(-(t_us - clock.vt.us) // US))


def lever_at(clock, name, t_us, hold_us=HOLD_US):
    """Lever `name` goes down at virtual t_us and up hold_us later; the firmware runs until
    20 ms after the release. Returns t_us."""
    pin = LEVER[name]
    assert t_us > clock.vt.us
    machine.after(t_us - clock.vt.us, lambda: machine.press(pin))
    machine.after(t_us + hold_us - clock.vt.us, lambda: machine.release(pin))
    run_to(clock, t_us + hold_us + 20_000)
    return t_us


def mono(clock, t_us):
    """The instant t_us on the app's monotonic clock, in us."""
    return t_us - clock.boot_us


def on_grid(clock, after_us, sub_us):
    """The first virtual instant after `after_us` whose us within the monotonic ms is sub_us."""
    t = after_us + 1
    return t + (sub_us - mono(clock, t)) % US


def game(clock):
    return clock.app.ui.game


def held(g, side):
    """The engine's exact time for `side` (the clock stopped or not running for it), us."""
    return g.main[side] * US + g.main_us[side]


def countdown(us):
    """What a countdown display shows for `us` left (>= 10 s), from timefmt's legend written
    out independently: HhMM from one hour (minutes rounded up), else MM:SS (seconds rounded
    up, blank leading zero)."""
    s = -(-us // 1_000_000)
    assert s >= 10
    if s >= 3600:
        h, m = divmod(-(-us // 60_000_000), 60)
        return "%dh%02d" % (h, m), False
    return "%2d%02d" % divmod(s, 60), True


def check_record(g, rows):
    """Every logged row within 0.5 ms of the exact (used, left) the test worked out."""
    log = g.log_entries()
    assert len(log) == len(rows)
    for k, (row, (side, used, left)) in enumerate(zip(log, rows, strict=True)):
        assert row[0] == side, k
        assert abs(row[2] * US - used) <= 500, (k, row, used)
        assert abs(row[3] * US - left) <= 500, (k, row, left)


# ------------------------------------------------------------------ the game
def test_a_fide_game_of_90_half_moves_over_thirteen_wraps_is_exact_to_the_us(tmp_path):
    """The issue's game: FIDE 90/40 + 30 min, 30 s a move, 45 moves a side at odd think
    times (5 s to 5 min, any us), about 4 h and 13 wraps of ticks_us. After every move the
    mover holds exactly start + increments + period - the exact sum of its intervals; the
    record is within 0.5 ms at every move; the displays show the exact times rounded up."""
    clock = boot(tmp_path)
    rng = random.Random(21)
    t = lever_at(clock, "left", clock.vt.us + rng.randrange(1_000, 2_000_000))  # Black starts
    first = t
    g = game(clock)
    given = [5_400_000 * US, 5_400_000 * US]
    spent = [0, 0]
    rows = []
    side = 1  # White (right) runs
    for half in range(90):
        think = rng.randrange(5_000_000, 300_000_000)
        think = min(think, given[side] - spent[side] - 60_000_000)  # no flag in this game
        t = lever_at(clock, SIDE[side], t + think)
        move_no = half // 2 + 1
        spent[side] += think
        given[side] += 30_000 * US + (1_800_000 * US if move_no == 40 else 0)
        left = given[side] - spent[side]
        assert held(g, side) == left, (half, side, held(g, side), left)
        assert g.period[side] == (1 if move_no >= 40 else 0)
        rows.append((side, think, left))
        assert clock.display(side) == countdown(left), (half, side)
        side = 1 - side
    assert g.moves[0] == g.moves[1] == 45 and not (g.flagged[0] or g.flagged[1])
    assert (t - first) // (1 << 30) >= 12  # ticks_us wrapped every 17.9 min
    check_record(g, rows)
    # White (right) runs again: its time at an instant is its time after move 45, less the
    # exact time since Black's last edge.
    now = t + 12_345_678
    run_to(clock, now)
    ms, us = g.remaining_exact(1, mono(clock, now) // US, mono(clock, now) % US)
    assert ms * US + us == given[1] - spent[1] - (now - t)


# ------------------------------------------------------------------ the defect, deterministic
def test_stamps_alternating_999_and_000_neither_drift_nor_decide_the_flag(tmp_path):
    """The worst case for rounded stamps: Black's edges at .999 of a monotonic ms, White's at
    .000, so each of White's turns is 1 000.001 ms and each of Black's 1 000.999 ms. Rounded
    stamps charge them 1 001 and 1 000 ms: after 49 moves each White's clock held
    48.95 ms too little. White makes its 50th move with 20 ms left: rounded stamps would have
    dropped White's flag 28.95 ms before that; the exact firmware counts the move, and
    Black's flag falls at its exact us."""
    clock = boot(tmp_path, {"preset": BULLET_1_0})
    t = lever_at(clock, "left", on_grid(clock, clock.vt.us + 500_000, 999))
    g = game(clock)
    spent = [0, 0]
    rows = []
    for k in range(98):
        side = 1 if k % 2 == 0 else 0
        d = 1_000_001 if side == 1 else 1_000_999
        t = lever_at(clock, SIDE[side], t + d)
        assert mono(clock, t) % US == (0 if side == 1 else 999)
        spent[side] += d
        rows.append((side, d, 60_000 * US - spent[side]))
        assert held(g, side) == 60_000 * US - spent[side]
    check_record(g, rows)
    assert held(g, 1) == 10_999_951  # rounded stamps: 10 951 000
    t = lever_at(clock, "right", t + 10_999_951 - 20_000, hold_us=40_000)
    assert g.moves[1] == 50 and g.state == E.RUNNING and g.running == 0  # Black's clock
    assert held(g, 1) == 20_000
    flag = t + held(g, 0)  # Black's exact flag instant
    run_to(clock, flag + 50_000)
    assert g.state == E.FLAGGED and g.first_flag == 0  # Black's flag, not White's
    assert mono(clock, flag) == g.flag_at[0] * US + g.flag_us[0]
    assert (g.flag_at[1], g.flagged[1]) == (0, 0)


# ------------------------------------------------------------------ the loop at the us
def test_a_press_inside_a_ms_does_not_hold_back_the_next_display_change(tmp_path):
    """Black presses at .700 of a ms and leans on the lever: White's 9 s shows 9.0 and must
    turn 8.9 100 ms later, within the loop's few ms, although the press bent the time inside
    the ms the loop rendered in (the loop looks again 1 ms later; without that, the next
    wakeup was the lever's release or the 4 s watchdog feed)."""
    clock = boot(tmp_path, {"custom": {"mode": 0, "periods": [[9, 0, 0, 0]]}})
    rec = LoopRecorder(clock)
    t = on_grid(clock, clock.vt.us + 300_000, 700)
    machine.after(t - clock.vt.us, lambda: machine.press(LEVER["left"]))
    run_to(clock, t + 50_000)
    assert clock.display(1) == (" 90 ", True)  # 9.0 (the colon is apart)
    run_to(clock, t + 100_000 + 3_000)
    assert clock.display(1) == (" 89 ", True)
    machine.release(LEVER["left"])
    run_to(clock, clock.vt.us + 500_000)
    rec.check()


def test_ninety_half_moves_at_random_us_with_the_loops_invariants(tmp_path):
    """Blitz 5 + 3, 90 half-moves of 0.2 to 4 s at random us, the loop's invariants checked
    over the whole game (harness/loop_check.py: every display change on time, every armed
    press reaching the engine with its exact stamp), and every time exact."""
    clock = boot(tmp_path, {"preset": 5})
    rec = LoopRecorder(clock)
    rng = random.Random(90)
    t = lever_at(clock, "left", clock.vt.us + rng.randrange(1_000, 500_000))
    g = game(clock)
    given = [300_000 * US, 300_000 * US]
    spent = [0, 0]
    rows = []
    side = 1
    for _ in range(90):
        think = rng.randrange(200_000, 4_000_000)
        t = lever_at(clock, SIDE[side], t + think, hold_us=rng.randrange(30_000, 150_000))
        spent[side] += think
        given[side] += 3_000 * US
        rows.append((side, think, given[side] - spent[side]))
        assert held(g, side) == given[side] - spent[side]
        assert clock.display(side) == countdown(given[side] - spent[side])
        side = 1 - side
    check_record(g, rows)
    rec.check()


def test_a_press_stamped_during_the_drain_before_the_flag_is_a_move(tmp_path):
    """The wakeup that drains a press reads the clock again afterwards. A lever edge whose IRQ
    runs in between (tens of us on the chip) is in the ring only for the next drain; the
    flag deadline passed by that second reading must wait for it, or the move stamped before
    the flag would be thrown away. Here White's flag is due at .990 of a ms: Black touches
    his lever 30 us before it (the wakeup), White's edge comes 20 us before the flag during
    that wakeup's drain, and the second reading is 20 us after the flag, in the next ms."""
    clock = boot(tmp_path, {"preset": BULLET_1_0})
    start = lever_at(clock, "left", on_grid(clock, clock.vt.us + 300_000, 990))
    g = game(clock)
    flag = start + 60_000_000
    assert g.deadline_exact() == (mono(clock, flag) // US, 990)
    levers = clock.app.board.levers
    drain = levers.drain
    done = []

    def drain_with_an_edge_inside(callback):
        n = drain(callback)
        if not done:
            done.append(1)
            machine.advance(10, irq_only=True)  # the wakeup's own work (IRQs run)
            machine.press(LEVER["right"])  # White's edge: its machine stamps it now
            machine.advance(40, irq_only=True)
        return n

    levers.drain = drain_with_an_edge_inside
    # Black's machine rings the loop settle_us after his edge: the wakeup is 30 us early
    lead = 30 + levers.settle_us
    machine.after(flag - lead - clock.vt.us, lambda: machine.press(LEVER["left"]))
    run_to(clock, flag + 1_000)
    machine.release(LEVER["left"])
    machine.release(LEVER["right"])
    run_to(clock, flag + 100_000)
    assert done
    assert (g.moves[1], g.state, g.running, g.flagged[1]) == (1, E.RUNNING, 0, 0)
    assert held(g, 1) == 20  # 20 us left, exactly
    assert abs(g.log_entries()[-1][2] * US - (60_000_000 - 20)) <= 500


# ------------------------------------------------------------------ today's saved game
def test_a_game_json_of_snapshot_version_2_resumes_and_plays_on_exactly(tmp_path):
    """A paused game saved in snapshot version 2 (whole ms, as an older firmware writes it) is
    offered at power-up, resumed with its times and moves, and played on to the us; its next
    save is version 3 with the us parts."""
    (tmp_path / "game.json").write_text(V2_GAME_JSON)
    clock = boot(tmp_path)
    assert clock.displays() == (("rE5 ", False), (" yE5", False))  # resume? yes
    clock.press("play")
    clock.run_ms(100)
    g = game(clock)
    assert (g.state, g.running, g.moves[0], g.moves[1]) == (E.PAUSED, 0, 2, 3)
    assert (g.remaining_exact(0, 0), g.remaining_exact(1, 0)) == ((5_307_780, 0), (5_413_211, 0))
    assert clock.displays() == (countdown(5_307_780_000), countdown(5_413_211_000))
    assert g.log_entries()[-1] == (1, 3, 3_210, 5_413_211)
    clock.press("play")  # resume: the left (Black) is on move, 7.777 s already used
    assert g.state == E.RUNNING
    start = g.turn_start * US + g.turn_us  # the resume, 7.777 s back
    t = lever_at(clock, "left", on_grid(clock, clock.vt.us + 100_000, 333))
    left = 5_315_557_000 + 30_000_000 - (mono(clock, t) - start)
    assert g.moves[0] == 3 and held(g, 0) == left and left % US == 667
    assert abs(g.log_entries()[-1][2] * US - (mono(clock, t) - start)) <= 500
    clock.press("play")  # pause: saved
    snap = json.loads((tmp_path / "game.json").read_text())["snap"]
    assert (snap[0], len(snap)) == (3, 29)  # version 3: + paused_us, main_us[0], main_us[1]
    assert snap[12] * US + snap[27] == left  # main[0] and main_us[0]
