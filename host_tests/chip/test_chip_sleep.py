"""The core asleep between wakeups on cells, on the emulated chip with the clock tree modelled
(clocks "model", tools/chip/clocks.mjs: deep sleep gates the PIO blocks and the timer unless
SLEEP_EN keeps them). A Blitz game's moves, bouncing levers at odd phases of the µs and the
ms, on cells with the USB cable plugged in and pulled out twice mid-game, and the same moves
on USB power: on cells the chip spends the time between wakeups in deep sleep with
sleepgate.py's clocks on, on USB power in MicroPython's own sleep; either way every stamp
is exact to the µs timer and the displays show the same texts at the same instants (to
50 µs; a frame handed over while a press's IRQ ran, to that IRQ's length).

Runs when MICROPYTHON_UF2 names a MicroPython rp2 .uf2 (chip_env.require).
"""

import chip
import chip_bench
import chip_env
from chip_env import clean

pico = chip_env.chip_fixture()
MS = chip.MS
VBUS_GPIO = 24  # the Pico's VBUS sense (board.py)
BLITZ_3_2 = 6  # presets.py
MOVES = 12
CABLE = (9_000.3, 15_000.7)  # ms after the first move: the cable in, then out again
LEVER_IRQ_US = 250  # a lever press's hard IRQ on the chip, with its entry and exit, at most
PRESS_REACH_US = 1_000  # a frame handed over during that IRQ is shown within this of the edge


def play(pico, on_cells):
    """The game; returns (trace, ledger at the first move, at the end, first move's ms)."""
    with pico.session(clocks="model") as s:
        if on_cells:
            s.pin(VBUS_GPIO, True)  # VBUS held low from the power-up: on cells
        chip_bench.start_game(s, BLITZ_3_2)
        s.run_ms(1_000)
        t0 = s.t
        start = s.ledger()
        if on_cells:
            s.pin(VBUS_GPIO, False, t0 + CABLE[0])
            s.pin(VBUS_GPIO, True, t0 + CABLE[1])
        side = "right"
        for k in range(MOVES):
            at = t0 + 1_700 * k + 0.137 * k + 0.0133 * k * k  # phases across the µs and ms
            bounce = chip_bench.BOUNCES[k % len(chip_bench.BOUNCES)]
            chip_bench.bouncing_press(s, side, at, bounce)
            side = "left" if side == "right" else "right"
        s.run_to(t0 + 1_700 * MOVES + 1_000)
        end = s.ledger()
        tr = s.trace()
        clean(tr)
        assert chip.read_file(s.save_flash(), "errors.log") in (None, b"")
    return tr, start, end, t0


def shown(tr, t0_ms):
    return [
        (side, lit.text, lit.colon, lit.t // 1_000)
        for side in (0, 1)
        for lit in tr.lit(side)
        if lit.t >= t0_ms * MS
    ]


def test_on_cells_the_core_sleeps_deep_and_every_promise_holds(pico):
    cells, start, end, t0 = play(pico, on_cells=True)
    usb, _s, _e, t0_usb = play(pico, on_cells=False)
    rows = chip.ledger_between(start, end)
    deep = [r for r in rows if r["state"] == "deep_sleep"]
    total = sum(r["ns"] for r in rows)
    deep_ns = sum(r["ns"] for r in deep)
    plain_ns = sum(r["ns"] for r in rows if r["state"] == "sleep")
    awake_ns = sum(r["ns"] for r in rows if r["state"] == "awake")
    print(
        "\nthe game's %.1f s on cells: deep sleep %.2f %%, MicroPython's sleep %.2f %%, awake"
        " %.2f %%"
        % (total / 1e9, 100 * deep_ns / total, 100 * plain_ns / total, 100 * awake_ns / total)
    )
    # Asleep deep most of the game, the PIO blocks and the timer on, the ROM and SRAM off
    assert deep_ns > 0.6 * total, (deep_ns, total)
    for r in deep:
        on = set(r["clocks_on"])
        assert {"sys_pio0", "sys_pio1", "sys_timer", "sys_io"} <= on, on
        assert not on & {"sys_rom", "sys_sram0", "sys_xip", "usb_usbctrl"}, on
    # The cable's six seconds: MicroPython's own sleep, the USB controller's clock on
    assert 5_000 * MS < plain_ns < 6_500 * MS, plain_ns / MS
    # Every press stamped to the µs timer's count at its edge, as on USB power
    for trace in (cells, usb):
        assert len(trace.stamps) >= MOVES
        for edge, _gpio, instant, _value in trace.stamps:
            assert -1_000 < instant - edge <= 1_000, (edge, instant)
    # The same texts in the same order as the game on USB power, each at the same instant
    # within 50 µs (the loop's own few instructions more or less on each path)
    assert t0 == t0_usb
    a = shown(cells, t0)
    b = shown(usb, t0)
    assert [x[:3] for x in a] == [x[:3] for x in b]
    worst = max(abs(x[3] - y[3]) for x, y in zip(a, b, strict=True))
    print("\nframes on cells vs on USB power: %d changes, at most %d µs apart" % (len(a), worst))
    assert len(a) > 2 * MOVES
    # A frame handed over while a press's hard IRQ runs (lever_pio.py) waits for it: a few µs
    # more or less on one path decide whether the IRQ comes before or after the hand-over,
    # so a frame shown within a wire's time of a press's edge may be one IRQ apart
    edges = [edge // 1_000 for edge, _gpio, _instant, _value in cells.stamps]
    for x, y in zip(a, b, strict=True):
        near = any(0 <= x[3] - e <= PRESS_REACH_US for e in edges)
        assert abs(x[3] - y[3]) <= (LEVER_IRQ_US if near else 50), (x, y)
