"""The emulated chip's clock tree and power-state ledger (tools/chip/clocks.mjs, the
"model" clocks mode; docs/chip.md#clocks-sleep-and-the-power-state-ledger): MicroPython's own
clock calls (machine.freq, machine.lightsleep) and register writes on the RP2040 take the
emulated time the datasheet gives them, and the ledger says where the time went. The
default "fixed" mode keeps every cycle at 8 ns, whatever the firmware writes.

Runs when MICROPYTHON_UF2 names a MicroPython rp2 .uf2 (and the B1 boot ROM is found, see
chip.py); skipped otherwise. The emulator counts cycles, so every figure is the same at
every run.
"""

import chip
import chip_env
import pytest
from chip_env import clean

pico = chip_env.chip_fixture()

MS = chip.MS
PLL_LOCK_NS = 50_000  # clocks.mjs PLL_LOCK_NS
XOSC_START_NS = 6_016_000  # pico-sdk 2.1.1's STARTUP.DELAY (282) x 256 / 12 MHz
PROBE = chip.PROBE_GPIOS[0]

# A busy loop timed by the µs timer at 125 MHz, at 48 MHz (machine.freq) and at 125 MHz again.
BUSY = """
import machine, time
def loop(n):
    t0 = time.ticks_us()
    for i in range(n):
        pass
    return time.ticks_diff(time.ticks_us(), t0)
a = loop(2000)
machine.freq(48_000_000)
b = loop(2000)
f = machine.freq()
machine.freq(125_000_000)
c = loop(2000)
print(a, b, c, f)
"""

# The same loop with CLK_SYS_DIV's INT at 3 (run after BUSY: `loop` is defined).
DIVIDED = """
from machine import mem32
mem32[0x40008040] = 3 << 8
d = loop(2000)
mem32[0x40008040] = 1 << 8
print(d, machine.freq())
"""

# PLL_SYS reset, configured and powered again while clk_sys runs from clk_ref (the XOSC,
# 12 MHz), interrupts off; the wait for CS.LOCK in Thumb code polls every 8 cycles and
# reads the µs timer before the power-up and after the lock: [polls, µs].
PLL = """
import machine, micropython
from machine import mem32

@micropython.asm_thumb
def power_and_wait(r0, r1, r2):
    ldr(r4, [r2, 40])
    mov(r3, 0x21)
    str(r3, [r1, 0])
    mov(r3, 0)
    label(poll)
    add(r3, 1)
    ldr(r5, [r0, 0])
    cmp(r5, 0)
    bge(poll)
    ldr(r5, [r2, 40])
    sub(r5, r5, r4)
    lsl(r5, r5, 16)
    orr(r5, r3)
    mov(r0, r5)

CLK_SYS_CTRL = 0x4000803C
CLK_SYS_SELECTED = 0x40008044
PLL = 0x40028000
RESETS = 0x4000C000
st = machine.disable_irq()
mem32[CLK_SYS_CTRL | 0x3000] = 1
while mem32[CLK_SYS_SELECTED] != 1:
    pass
prim, fbdiv = mem32[PLL + 0xC], mem32[PLL + 8]
mem32[RESETS | 0x2000] = 1 << 12
mem32[RESETS | 0x3000] = 1 << 12
while not mem32[RESETS + 8] & (1 << 12):
    pass
reset_pwr = mem32[PLL + 4]
mem32[PLL] = 1
mem32[PLL + 8] = fbdiv
r = power_and_wait(PLL, (PLL + 4) | 0x3000, 0x40054000)
mem32[PLL + 0xC] = prim
mem32[(PLL + 4) | 0x3000] = 0x8
mem32[CLK_SYS_CTRL | 0x2000] = 1
while mem32[CLK_SYS_SELECTED] != 2:
    pass
machine.enable_irq(st)
print(reset_pwr, r & 0xFFFF, r >> 16, machine.freq())
"""

# A square wave on the probe pin: two instructions of 1 + 31 PIO cycles at a 2 MHz PIO
# clock (divider 62.5 of 125 MHz), 16 µs a half period.
SQUARE = (
    """
import machine, rp2, time
@rp2.asm_pio(set_init=rp2.PIO.OUT_LOW)
def square():
    set(pins, 1) [31]
    set(pins, 0) [31]
sm = rp2.StateMachine(0, square, freq=2_000_000, set_base=machine.Pin(%d))
sm.active(1)
"""
    % PROBE
)


@pytest.fixture
def modelled(pico):
    """A board on the clock tree model, at the ready screen."""
    with pico.session(clocks="model") as s:
        s.run_to(chip.BOOT_MS)
        yield s


def rows(ledger, **match):
    """The rows (of a ledger, or a list of rows) whose fields equal `match`."""
    got = ledger["rows"] if isinstance(ledger, dict) else ledger
    return [r for r in got if all(r[k] == v for k, v in match.items())]


def total_ns(ledger, **match):
    return sum(r["ns"] for r in rows(ledger, **match))


def test_the_ledger_adds_up_and_the_boot_starts_on_the_rosc(modelled):
    """From power-up clk_sys runs on the ROSC (6.5 MHz) while the XOSC starts (its
    STARTUP delay) and each PLL locks; then on PLL_SYS at 125 MHz; every ns of the board's
    time is in exactly one row."""
    led = modelled.ledger()
    assert led["mode"] == "model"
    assert sum(r["ns"] for r in led["rows"]) == led["now_ns"]
    assert rows(led, state="awake")[0]["clk_sys_hz"] == 6_500_000
    assert total_ns(led, starting=["xosc"]) == XOSC_START_NS
    assert total_ns(led, starting=["pll_sys"]) == PLL_LOCK_NS
    assert total_ns(led, starting=["pll_usb"]) == PLL_LOCK_NS
    assert total_ns(led, state="awake", clk_sys_hz=125_000_000) > 1000 * MS
    assert total_ns(led, state="sleep", clk_sys_hz=125_000_000) > 0


def test_a_slower_clk_sys_slows_the_core_and_the_timer_stays_exact(modelled):
    """machine.freq(48 MHz): the same busy loop takes 125/48 as long by the µs timer, and
    as long again at 125 MHz afterwards; the timer counts every µs of the board's time
    across both changes (its tick comes from clk_ref, which machine.freq leaves on the
    XOSC); the ledger holds the time at 48 MHz and PLL_SYS's two relocks. CLK_SYS_DIV
    divides clk_sys too."""
    before = modelled.ledger()
    a, b, c, f = map(int, modelled.repl(BUSY).split())
    after = modelled.ledger()
    assert f == 48_000_000
    assert abs(a - c) <= 1  # the same cycles, read in whole µs of the timer at two phases
    assert abs(b / a - 125 / 48) < 0.01 * 125 / 48, (a, b)
    # whole µs of the timer against the board's ns: the two snapshots' fractions of a µs
    # differ, so the difference is exact to one µs
    timer = after["timer_us"] - before["timer_us"]
    assert abs(timer - (after["now_ns"] - before["now_ns"]) / 1000) < 1, timer
    stretch = chip.ledger_between(before, after)
    assert total_ns(stretch, state="awake", clk_sys_hz=48_000_000) >= b * 1000
    assert total_ns(stretch, starting=["pll_sys"]) == 2 * PLL_LOCK_NS
    # CLK_SYS_DIV: INT 3 divides clk_sys (PLL_SYS, 125 MHz) by 3
    d, f = map(int, modelled.repl(DIVIDED).split())
    assert abs(d / a - 3) < 0.03, (a, d)
    assert f == 125_000_000


def test_the_fixed_mode_ignores_the_clock_tree(pico):
    """The default: every cycle 8 ns whatever the firmware writes, so machine.freq(48 MHz)
    leaves the busy loop's time as it was (the chip tests' timing), and the ledger holds
    only 125 MHz."""
    with pico.session() as s:
        s.run_to(chip.BOOT_MS)
        a, b, c, f = map(int, s.repl(BUSY).split())
        led = s.ledger()
    assert f == 48_000_000  # what MicroPython believes
    # the same cycles each time, read in whole µs of the timer at three phases
    assert max(a, b, c) - min(a, b, c) <= 1, (a, b, c)
    assert led["mode"] == "fixed"
    assert {r["clk_sys_hz"] for r in led["rows"]} == {125_000_000}
    assert sum(r["ns"] for r in led["rows"]) == led["now_ns"]


def test_a_pll_locks_after_its_lock_time(modelled):
    """PLL_SYS held in reset comes back with its reset values (PWR 0x2d); powered with
    REFDIV 1 and FBDIV 125 it sets CS.LOCK 50 µs later (the model's lock time), not
    before: the first poll sees it clear, the µs timer sees 50 µs (up to 3 more for
    where the reads fall in their µs and their own cycles at 12 MHz), and the ledger holds
    exactly 50 µs waiting for it."""
    before = modelled.ledger()
    reset_pwr, polls, us, freq = map(int, modelled.repl(PLL).split())
    after = modelled.ledger()
    assert reset_pwr == 0x2D
    assert polls > 1
    assert 50 <= us <= 53  # never before the lock; each timer read costs µs at 12 MHz
    assert abs(polls * 8 / 12 - 50) < 2  # 8 cycles a poll at 12 MHz
    assert freq == 125_000_000
    stretch = chip.ledger_between(before, after)
    assert total_ns(stretch, starting=["pll_sys"]) == PLL_LOCK_NS
    assert total_ns(stretch, state="awake", clk_sys_hz=12_000_000, starting=["pll_sys"]) > 0


def test_pio_timing_follows_clk_sys(modelled):
    """A state machine's divider divides clk_sys: the square wave's 16 µs half period at
    125 MHz becomes 16 x 125 / 48 µs once machine.freq(48 MHz) slows clk_sys (MicroPython
    leaves the divider as it was)."""
    modelled.repl(SQUARE + "time.sleep_ms(1)\n")
    mark = modelled.board_ms
    # sleep_us: the µs timer's 2 ms whatever the phase (a sleep_ms ends when ticks_ms has
    # counted 2, which an interrupt's early wake can make 1.x ms: MicroPython's rp2 delay)
    modelled.repl("machine.freq(48_000_000)\ntime.sleep_us(2_000)\nsm.active(0)\n")
    tr = modelled.trace()
    clean(tr)
    edges = [t for t, g, _level in tr.probes if g == PROBE]
    fast = [t for t in edges if t < mark * MS]
    slow = [t for t in edges if t > mark * MS]
    fast_gaps = [b - a for a, b in zip(fast[1:], fast[2:], strict=False)]
    assert fast_gaps and all(abs(g - 16_000) < 100 for g in fast_gaps)
    # after the change: a run of half periods of 16 x 125 / 48 µs
    half = 16_000 * 125 / 48
    slow_gaps = [b - a for a, b in zip(slow, slow[1:], strict=False)]
    steady = [g for g in slow_gaps if abs(g - half) < 100]
    assert len(steady) >= 40, sorted(set(slow_gaps))


def test_lightsleep_sleeps_deeply_with_the_timer_on_and_the_pio_gated(modelled):
    """machine.lightsleep(100) (ports/rp2/modmachine.c): clk_sys on the XOSC (12 MHz),
    PLL_SYS and the ROSC off, SLEEP_EN leaving the timer (and, with the USB host mounted,
    the USB controller and PLL_USB's bus clock) on, SCR.SLEEPDEEP, WFI. The timer's alarm
    ends it 100 ms later by the timer; the ledger holds the deep sleep with those clocks;
    the PIO, whose clock SLEEP_EN0 leaves off, makes no edge while it lasts."""
    modelled.repl(SQUARE)
    before = modelled.ledger()
    out = modelled.repl(
        "t0 = time.ticks_us()\n"
        "machine.lightsleep(100)\n"
        "t1 = time.ticks_us()\n"
        "sm.active(0)\n"
        "print(time.ticks_diff(t1, t0), machine.freq())\n"
    )
    slept_us, freq = map(int, out.split())
    after = modelled.ledger()
    assert freq == 125_000_000
    assert 100_000 <= slept_us < 101_000
    deep = rows(chip.ledger_between(before, after), state="deep_sleep", clk_sys_hz=12_000_000)
    assert len(deep) == 1
    assert sorted(deep[0]["clocks_on"]) == ["sys_pll_usb", "sys_timer", "usb_usbctrl"]
    assert deep[0]["oscillators"] == ["xosc", "pll_usb"]
    assert 99 * MS < deep[0]["ns"] <= 100 * MS
    tr = modelled.trace()
    clean(tr)
    edges = [t for t, g, _level in tr.probes if g == PROBE]
    gaps = sorted(b - a for a, b in zip(edges, edges[1:], strict=False))
    assert gaps[-1] > deep[0]["ns"]  # no edge inside the deep sleep
    # the other gaps are half periods at 125 MHz, or longer while clk_sys is 12 MHz (the
    # XOSC, around the sleep) or 6.5 MHz (the ROSC, while the clocks come back): 16 x 125
    # / 6.5 µs at most
    assert gaps[-2] <= 16_000 * 125 / 6.5 + 100


def test_dormant_until_a_gpio_wake_edge(modelled):
    """machine.lightsleep() puts the XOSC (clocking clk_sys and clk_ref) dormant: the
    chip stops, the µs timer too (its tick comes from clk_ref), until the dormant-wake
    edge enabled in IO_BANK0 (a lever closing, falling edge); the XOSC then takes its
    start-up delay before the core runs again. The ledger holds the dormant stretch up to
    the edge and the XOSC's restart."""
    gpio = chip.PINS["left"]
    reg = 0x40014160 + (gpio >> 3) * 4
    modelled.repl("import machine, time\nfrom machine import mem32\n")
    edge_ms = modelled.t + 500
    modelled.pin("left", True, at_ms=edge_ms)
    modelled.pin("left", False, at_ms=edge_ms + 100)
    before = modelled.ledger()
    out = modelled.repl(
        "mem32[%d] = 4 << %d\n"
        "t0 = time.ticks_us()\n"
        "machine.lightsleep()\n"
        "t1 = time.ticks_us()\n"
        "mem32[%d] = 0\n"
        "print(time.ticks_diff(t1, t0))\n" % (reg, (gpio & 7) * 4, reg)
    )
    after = modelled.ledger()
    ticks = int(out)
    stretch = chip.ledger_between(before, after)
    dormant = total_ns(stretch, state="dormant")
    restart = total_ns(stretch, state="stopped", starting=["xosc"])
    assert 200 * MS < dormant < 500 * MS
    assert restart == XOSC_START_NS
    assert ticks < 5_000  # the timer stood still while the chip was dormant
    tr = modelled.trace()
    assert [t for t, g, level in tr.edges if g == gpio and level == 0] == [edge_ms * MS]


def test_a_timer_gated_in_deep_sleep_stands_still(modelled):
    """WFI with SCR.SLEEPDEEP and SLEEP_EN1 without clk_sys_timer: the µs timer stops for
    as long as the core sleeps (here until a lever's edge, 500 ms on, wakes it through its
    GPIO interrupt), and the ledger holds that deep sleep with the timer's clock off."""
    gpio = chip.PINS["left"]
    modelled.repl("import machine, time, micropython\nfrom machine import mem32, Pin\n")
    edge_ms = modelled.t + 500
    modelled.pin("left", True, at_ms=edge_ms)
    modelled.pin("left", False, at_ms=edge_ms + 100)
    before = modelled.ledger()
    out = modelled.repl(
        "@micropython.asm_thumb\n"
        "def wfi():\n"
        "    wfi()\n"
        "hit = bytearray(1)\n"
        "def edge(pin):\n"
        "    hit[0] = 1\n"
        "p = Pin(%d, Pin.IN)\n"
        "p.irq(edge, Pin.IRQ_FALLING, hard=True)\n"
        "en1 = mem32[0x400080AC]\n"
        "mem32[0x400080AC] = en1 & ~0x20\n"
        "mem32[0xE000ED10] |= 4\n"
        "t0 = time.ticks_us()\n"
        "while not hit[0]:\n"
        "    wfi()\n"
        "t1 = time.ticks_us()\n"
        "mem32[0xE000ED10] &= ~4\n"
        "mem32[0x400080AC] = en1\n"
        "p.irq(None)\n"
        "print(time.ticks_diff(t1, t0))\n" % gpio
    )
    after = modelled.ledger()
    new = rows(chip.ledger_between(before, after), state="deep_sleep")
    assert len(new) == 1
    assert "sys_timer" not in new[0]["clocks_on"]
    assert "sys_io" in new[0]["clocks_on"]
    assert new[0]["clk_sys_hz"] == 125_000_000
    assert 200 * MS < new[0]["ns"] < 500 * MS
    assert int(out) < 1000  # the timer counted only the awake instructions around it


MASKED_WFI = """
@micropython.asm_thumb
def wfi():
    wfi()
hit = bytearray(1)
def edge(pin):
    hit[0] = 1
p = Pin(%d, Pin.IN)
p.irq(edge, Pin.IRQ_FALLING, hard=True)
st = machine.disable_irq()
while not hit[0] and not mem32[0xE000E200] & (1 << 13):
    wfi()
inside = hit[0]
machine.enable_irq(st)
after = hit[0]
p.irq(None)
print(inside, after)
"""


@pytest.mark.parametrize(("mode", "inside"), [("model", 0), ("fixed", 1)])
def test_wfi_with_interrupts_masked_wakes_without_taking_the_interrupt(pico, mode, inside):
    """WFI with PRIMASK set (machine.disable_irq): a lever's GPIO interrupt (IO_IRQ_BANK0,
    NVIC 13) ends the sleep; in the model its handler runs only when PRIMASK clears, as on
    the chip (ARMv6-M), while rp2040js (the fixed mode) runs it at once."""
    with pico.session(clocks=mode) as s:
        s.run_to(chip.BOOT_MS)
        s.repl("import machine, micropython\nfrom machine import mem32, Pin\n")
        s.pin("left", True, at_ms=s.t + 300)
        s.pin("left", False, at_ms=s.t + 400)
        out = s.repl(MASKED_WFI % chip.PINS["left"])
    assert list(map(int, out.split())) == [inside, 1]
