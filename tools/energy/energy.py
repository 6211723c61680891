"""`make energy`: the clock's energy model: its current from its parts, the hours of play on
3 AA cells, and where the low-battery warning goes so that at least 10 h of play remain.

Owns the model and its sources; firmware/core/battery.py holds the thresholds and level tables it
computes (host_tests/tools/test_energy.py checks that they agree), docs/battery.md its hours
of play, hardware/README.md its table of consumers. Host tool (CPython, floats allowed); it
imports the firmware's pure modules (ui, engine, segments) to count the segments the clock
really lights.

Every input is one of the constants below, each with where it comes from. "Published" means
a document found and read; "estimate" a figure read off a curve or derived from one;
"assumption" a figure no source was found for, chosen on the safe side. No current has been
measured on this build: the model is a planning figure, to be replaced by a multimeter
reading of a real clock (docs/battery.md says how).

The load, from VSYS (the Pico's buck-boost regulator makes 3V3 for everything else):
    P_vsys = P_pico(busy) + 3.3 V * (I_displays + I_led + I_buzzer) / EFFICIENCY
drawn from the cells through the Schottky diode, as a constant power (the regulator's), so
the cells' current rises as they run down. Hours of play: that current integrated over the
cells' discharge curve (voltage per cell against the fraction of the capacity delivered).

Usage:
    .venv/bin/python tools/energy/energy.py            the tables (markdown) and the thresholds
    .venv/bin/python tools/energy/energy.py --firmware the constants of firmware/core/battery.py
"""

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/: paths.py
import paths  # noqa: E402

paths.install(board=True)
ROOT = paths.ROOT

# ---------------------------------------------------------------------------- the Pico
# Current into a Pico at 125 MHz, at VBUS 5 V: 19 mA with the core asleep in WFE (the rp2
# port's sleep does not gate the clocks), 23 mA busy. Published measurements of a Pico, the
# figures hardware/README.md gives; a thread of the rp-hal project
# (github.com/rp-rs/rp-hal/issues/659) reports the same order: a Pico at about 20 mA in
# WFE/WFI, 14 mA in BOOTSEL mode. Taken as power at the regulator's input (5 V x I), which
# is what a battery at any voltage has to supply.
PICO_SLEEP_MA = 19.0
PICO_BUSY_MA = 23.0
PICO_MEASURED_AT_V = 5.0
# Busy fraction of the core per display layout, measured on the emulated chip (make
# chip-bench, real MicroPython rp2 in rp2040js; hardware/README.md): a clock running in
# h:mm, in mm:ss, under 10 s with tenths. Weighted below by the time the game spends in each.
BUSY = {"h:mm": 0.0002, "mm:ss": 0.0044, "tenths": 0.022}

# On cells the core sleeps between wakeups in the RP2040's deep sleep (sleepgate.py): clk_sys
# stays at 125 MHz on PLL_SYS, SCR.SLEEPDEEP is set and SLEEP_EN leaves on only the branch
# clocks the stamps, the alarm and the frames need. Its current is built from two published
# figures: a Pico at 5 V asleep that way with the timer's clock alone left on, 6.68 mA
# (github.com/cpottle9/RP2-PowerControl, POWER_MEASUREMENTS.md, "timer only sleep_ms" at
# 125 MHz: MicroPython 1.23 on a Pico, a USB power meter; the same table has 21.24 mA busy
# and 18.80 mA in MicroPython's sleep_ms, close to PICO_BUSY_MA and PICO_SLEEP_MA), plus each
# further clock's DVDD current per MHz of clk_sys (RP2040 datasheet, 5.7.1, Table 635
# "Baseline power consumption", typical), taken through the RP2040's core regulator (DVDD
# from 3V3: the same current) and the Pico's buck-boost (EFFICIENCY) to 5 V. Clocks with no
# row in that table (the bus fabric, the register blocks of the clocks, PLL, PSM, resets,
# ROSC, XOSC, syscfg) are not counted: the figure is rather low than high by them.
PICO_TIMER_ONLY_SLEEP_MA = 6.68
# MicroPython's machine.lightsleep() on a Pico (clk_sys on the 12 MHz crystal, the PLLs off,
# the timer's clock alone on): 1.29 mA at 5 V, the same published table. The floor of any
# sleep that keeps the µs timer running; the model's bound for the LCD build (bounds()).
PICO_LIGHTSLEEP_MA = 1.29
# SLEEP_EN bit names (tools/chip/clocks.mjs) -> Table 635's rows; the timer's row is in the
# measured base
DVDD_UA_PER_MHZ = {
    ("sys_io", "sys_pads"): 23.6,  # "IO + Pads": one row for both clocks
    ("sys_pio0",): 12.3,
    ("sys_pio1",): 12.5,
    ("sys_pwm",): 5.0,
    ("sys_rtc", "rtc_rtc"): 1.1,
    ("sys_sio",): 1.9,
    ("sys_watchdog",): 1.0,
    ("sys_dma",): 2.6,
    ("sys_i2c0",): 3.9,
    ("sys_i2c1",): 3.8,
    ("sys_spi0", "peri_spi0"): 1.7,
    ("sys_spi1", "peri_spi1"): 1.8,
    ("sys_uart0", "peri_uart0"): 3.5,
    ("sys_uart1", "peri_uart1"): 3.7,
    ("sys_xip",): 37.6,
}
CLK_SYS_MHZ = 125


def deep_sleep_ma(clocks_on, mhz=CLK_SYS_MHZ):
    """The Pico's current at 5 V (mA) in deep sleep with the branch clocks `clocks_on`
    (SLEEP_EN's names) running at clk_sys = `mhz` (only 125 MHz has a measured base)."""
    if mhz != CLK_SYS_MHZ:
        raise ValueError("no published deep-sleep figure at %s MHz" % mhz)
    on = set(clocks_on)
    dvdd_ua = sum(ua for names, ua in DVDD_UA_PER_MHZ.items() if on & set(names)) * mhz
    # DVDD comes from 3V3 through the RP2040's linear core regulator: the same current
    return PICO_TIMER_ONLY_SLEEP_MA + dvdd_ua / 1000 * V3V3 / (PICO_MEASURED_AT_V * EFFICIENCY)


# The clocks sleepgate.py leaves on (its SLEEP_EN0/1) with the buzzer silent.
SLEEPGATE_CLOCKS = (
    "sys_clocks sys_busctrl sys_busfabric sys_io sys_vreg_and_chip_reset sys_pads sys_pio0 "
    "sys_pio1 sys_pll_sys sys_psm sys_resets sys_rosc rtc_rtc sys_rtc sys_sio "
    "sys_syscfg sys_timer sys_watchdog sys_xosc"
).split()

# ---------------------------------------------------------------------------- regulator
# The Pico's RT6150 buck-boost, 3V3 out at 30-80 mA from 3-4.5 V in. Assumption: 85 %
# (no efficiency curve for this load was found through the project's sources; buck-boost
# converters of this class are quoted at 85-90 % at tens of mA; the lower end is used).
EFFICIENCY = 0.85
V3V3 = 3.3

# ---------------------------------------------------------------------------- TM1637 modules
# The TM1637's brightness levels 0..7 are the pulse widths 1/16, 2/16, 4/16, 10/16, 11/16,
# 12/16, 13/16, 14/16 of each grid's time. Published: Titan Micro TM1637 datasheet V2.4,
# "Display control command set" table (the same table in the ErriezTM1637 wiki's copy).
PULSE_16 = (1, 2, 4, 10, 11, 12, 13, 14)
# The chip scans 6 grids (its display mode is 8 segments x 6 bits, same datasheet); the
# module wires 4, so each digit is driven 1/6 of the time. (That the scan always covers
# the six grids is an assumption consistent with the datasheet's display-cycle figure.)
GRIDS = 6
# Current of one lit segment while its grid is driven. Assumption: 20 mA. The module's
# segments have no series resistors on the common boards, so the drivers set it. The TM1637
# datasheet (V2.4, electrical characteristics, at VDD 4.5-5.5 V) gives the segment outputs'
# sink current as 20 mA minimum, 30 typical, 50 maximum at 0.3 V, and the grids' source
# current as 80-180 mA at VDD - 2 V; it has no figure at 3.3 V. Here VDD is 3.3 V and a red
# segment (about 1.9 V) leaves both drivers 1.4 V together, so a segment gets less than at
# 5 V: the datasheet's minimum at 5 V is taken.
SEGMENT_MA = 20.0
# The chip's own supply current, segments off. Assumption: 1 mA. The datasheet gives only a
# maximum, 5 mA ("dynamic current", no load, display off, at 4.5-5.5 V).
TM1637_IDLE_MA = 1.0

# ---------------------------------------------------------------------------- the rest
# Side LED: red, 330 ohm from a 3.3 V pin. Kingbright WP7113SRD datasheet: forward voltage
# 1.85 V typical (at 20 mA; a little less at 4 mA, so the current here is a little more:
# 4.4 mA taken, the README's "about 4 mA"). One LED is on while a clock runs.
LED_MA = (V3V3 - 1.85) / 330 * 1000
# Piezo: a capacitor of about 10 nF (TDK PS1240 class; estimate) charged to 3.3 V at each
# edge of a 2-4 kHz square wave: C * V * f = about 0.13 mA while it sounds; it sounds a few
# seconds a game (the low-time beep, the flag). Assumption: 10 s an hour, an upper bound.
BUZZER_MA = 10e-9 * V3V3 * 4000 * 1000
BUZZER_DUTY = 10 / 3600

# ---------------------------------------------------------------------------- LCD build
# An HT1621 glass (the PDC-6X1 module, backlight unconnected), LCD on, its on-chip RC
# oscillator, no load on its tone output: 0.3 mA. Published: Holtek HT1621 datasheet (Rev
# 3.21, D.C. characteristics, IDD1 "no load, LCD ON, on-chip RC oscillator"): 150 µA
# typical and 300 µA maximum at 3 V, 300 and 600 µA at 5 V; the maximum at 3 V is taken
# (the glasses run at 3.3 V). The glass itself (a few nF of segments switched at the frame
# rate) adds microamps.
HT1621_MA = 0.3
# ---------------------------------------------------------------------------- dormant
# A Pico in MicroPython's machine.lightsleep() without a period (the XOSC dormant the idle
# clock uses: App's Idle, dormant.py): about 0.9 mA from its USB port. Published: the
# measurement in the commit that added lightsleep to MicroPython's rp2 port (its author,
# 2022: 0.9 mA dormant, 1.5 mA in a timed lightsleep). Taken at 5 V as the figures above.
PICO_DORMANT_MA = 0.9
IDLE_MIN = 10  # app.IDLE_MS (host_tests/tools/test_energy.py checks it)
# While dormant the displays are switched off but stay powered from 3V3: a TM1637 keeps its
# own supply current (TM1637_IDLE_MA, an assumption); an HT1621 is in its power-down (SYS
# DIS: oscillator and bias generator stopped, ht1621.py): 5 µA a glass. Published: the
# HT1621 datasheet's standby current ISTB (same table), 0.1 µA typical and 5 µA maximum at
# 3 V; the maximum is taken.
HT1621_STANDBY_MA = 0.005
# The LED build switches its modules' supply off while dormant (board.py: a P-MOSFET in their
# 3V3 line, hardware/README.md): what is left is the switch's leakage, at most 1 µA (AO3401A
# datasheet, Alpha & Omega Rev 3 2011: zero-gate-voltage drain current at -30 V).
SUPPLY_SWITCH_OFF_MA = 0.001
# The LCD build's running-side LED flashes (ui_game.py): 60 ms from each even second of
# the running side's time (every 2 s), instead of being lit the whole game.
LCD_LED_DUTY = 60 / 2000
# The core's busy fraction on the LCD build, measured on the emulated chip (MicroPython
# 1.27, the LCD build, an untouched clock 40-100 s into a game, after the journal's first
# compaction; 50.5-59.5 s into Bullet for the tenths): 0.80 % in h:mm.ss and in mm:ss (its
# glasses change every second in every layout; 2.5 wakeups a second with the LED's flash),
# 2.87 % with tenths (docs/performance.md).
LCD_BUSY = {"h:mm": 0.0080, "mm:ss": 0.0080, "tenths": 0.0287}

# ---------------------------------------------------------------------------- the cells
# The 1N5817 Schottky diode between the cells and VSYS: 0.2-0.3 V at these currents
# (onsemi 1N5817 datasheet, forward characteristic; hardware/README.md). 0.25 V taken.
DIODE_V = 0.25
CELLS = 3
# Discharge curves: (fraction of the capacity delivered, volts per cell under load), and the
# capacity to the curve's last point at about 70-100 mA, 20 C.
# Alkaline: Duracell MN1500 / Energizer E91 constant-current curves at 100 mA, shape read
# off the figures (estimate, +-0.03 V). Capacity: 2.2 Ah at 100 mA, PowerStream's published
# discharge test of Duracell Coppertop AA (powerstream.com/AA-tests.htm, to 0.1 V; Duracell's
# own Procell figures, as quoted by rightbattery.com: 2.9 Ah at 50 mA, 2.7 Ah at 100 mA):
# the lowest of these, and taken to 0.9 V only, so the cells have more in them than used.
ALKALINE_CURVE = (
    (0.00, 1.48),
    (0.05, 1.40),
    (0.10, 1.36),
    (0.20, 1.31),
    (0.30, 1.27),
    (0.40, 1.23),
    (0.50, 1.20),
    (0.60, 1.17),
    (0.70, 1.13),
    (0.80, 1.09),
    (0.90, 1.03),
    (0.95, 0.98),
    (1.00, 0.90),
)
ALKALINE_MAH = 2200.0
# NiMH: Panasonic eneloop BK-3MCC, 1900 mAh minimum (2000 typical; the datasheet's rated
# capacity, from memory of the maker's sheet: not found through the project's sources).
# Curve shape: the datasheet's discharge figure at 0.2 It, read off (estimate, +-0.02 V):
# flat at 1.2-1.25 V, then a knee in the last tenth.
NIMH_CURVE = (
    (0.00, 1.36),
    (0.05, 1.28),
    (0.10, 1.26),
    (0.20, 1.25),
    (0.30, 1.24),
    (0.40, 1.235),
    (0.50, 1.23),
    (0.60, 1.22),
    (0.70, 1.21),
    (0.80, 1.19),
    (0.85, 1.17),
    (0.90, 1.14),
    (0.95, 1.09),
    (1.00, 1.00),
)
NIMH_MAH = 1900.0
KINDS = (("alkaline", ALKALINE_CURVE, ALKALINE_MAH), ("NiMH", NIMH_CURVE, NIMH_MAH))

# ---------------------------------------------------------------------------- the warning
REMAINING_H = 10.0  # FIDE equipment standard 3.1.3: at least 10 h after the warning
# Margin: the capacity is taken at 70 % of the figures above when placing the warning: cold
# cells (a hall at 10-15 C: an alkaline cell gives 10-20 % less at moderate drain, Energizer's
# Alkaline Handbook, "Temperature effects") and the spread between cells and makers (+-10 %).
DERATE = 0.70
# The reading itself: the ADC's reference is the Pico's 3V3 and the divider is 1 % parts;
# the threshold is raised by this much so that a reading up to 2 % high still warns in time.
ADC_MARGIN = 0.02
DEFAULT_BRIGHTNESS = 2  # firmware/shell/settings.py's default (docs/battery.md says why)
LEVEL_POINTS = 9  # points of each firmware level table


def _interp(points, x):
    """Linear interpolation in (x, y) points sorted by x (clamped at both ends)."""
    if x <= points[0][0]:
        return points[0][1]
    for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return points[-1][1]


# ---------------------------------------------------------------------------- a whole game
# The games the model plays on the firmware's UI (game_profile) and the chip's power ledger
# plays on the emulated board (tools/chip/power_ledger.py): a preset of presets.py, `moves`
# moves each, each side thinking think_s[i % len] seconds on its i-th move. "fide": a
# 4.5-hour FIDE 90/40+30 classical game; "blitz": Blitz 3+2 at about 5 s a move.
GAMES = {
    "fide": {"preset": 0, "moves": 60, "think_s": (60, 150, 240, 120, 90, 180, 45, 200)},
    "blitz": {"preset": 6, "moves": 40, "think_s": (3, 5, 2, 8, 4, 6)},
}


def schedule(moves, think_s):
    """The lever presses of a game: ([(ms, side)], end ms). Black (side 0, left) starts
    White's clock at 0, then the sides press in turn, `moves` each."""
    presses = [(0, 0)]
    t = 0
    side = 1
    for i in range(2 * moves):
        t += 1000 * think_s[(i // 2) % len(think_s)]
        presses.append((t, side))
        side = 1 - side
    return presses, t


def game_profile(game="fide", moves=None):
    """Play energy.GAMES[`game`] (its first `moves` moves each, if given) on the firmware's
    own UI (no board: engine, ui, segments) and return what its displays lit, weighted by
    time: {"segments": average lit segments of one display (colon included), "layout":
    {layout: share of the running time}, "hours": the game's length}."""
    import engine as E
    import segments
    import settings as settings_mod
    import ui as ui_mod

    spec = GAMES[game]
    s = settings_mod.defaults()
    s["control"] = {"preset": spec["preset"]}
    ui = ui_mod.Ui(s)
    g = ui.game
    plan, end = schedule(spec["moves"] if moves is None else moves, spec["think_s"])
    presses = [(1000 + t, side) for t, side in plan]
    end += 1000
    seg = bytearray(4)
    lit_ms = 0
    layout_ms = {"h:mm": 0, "mm:ss": 0, "tenths": 0}
    now = 0
    k = 0
    while now < end:
        while k < len(presses) and presses[k][0] <= now:
            g.press(presses[k][1], presses[k][0])
            k += 1
        ui.render(now)
        nxt = ui.next_change(now)
        if nxt < 0 or nxt > presses[k][0]:
            nxt = presses[k][0] if k < len(presses) else end
        span = nxt - now
        for i in (0, 1):
            segments.encode_ascii(seg, ui.text[i], ui.colon[i])
            lit_ms += span * sum(bin(b).count("1") for b in seg)
        if g.state == E.RUNNING:
            # the running side's layout (timefmt.py): h:mm from 1 h, tenths under 10 s
            r = g.remaining(g.running, now)
            key = "h:mm" if r >= 3_600_000 else "mm:ss" if r >= 10_000 else "tenths"
            layout_ms[key] += span
        now = nxt
    total = sum(layout_ms.values()) or 1
    return {
        "segments": lit_ms / (2 * end),
        "layout": {k: v / total for k, v in layout_ms.items()},
        "hours": end / 3_600_000,
    }


# ---------------------------------------------------------------------------- the load
def display_ma(level, lit_segments):
    """One TM1637 module's average current at brightness `level` lighting `lit_segments`
    segments on average (over its 4 digits, colon included)."""
    return TM1637_IDLE_MA + SEGMENT_MA * PULSE_16[level] / 16 * lit_segments / GRIDS


def pico_mw(busy, asleep_ma=PICO_SLEEP_MA):
    """The Pico's power (mW) busy a fraction `busy` of the time, at `asleep_ma` otherwise."""
    return PICO_MEASURED_AT_V * (asleep_ma + (PICO_BUSY_MA - asleep_ma) * busy)


def load_mw(level, profile, asleep_ma=PICO_SLEEP_MA):
    """The clock's power at VSYS (mW) during the game `profile` at brightness `level`, the
    Pico at `asleep_ma` between wakeups."""
    busy = sum(BUSY[k] * share for k, share in profile["layout"].items())
    pico = pico_mw(busy, asleep_ma)
    rail_ma = 2 * display_ma(level, profile["segments"]) + LED_MA + BUZZER_MA * BUZZER_DUTY
    return pico + V3V3 * rail_ma / EFFICIENCY


def lcd_load_mw(profile, asleep_ma=PICO_SLEEP_MA):
    """The LCD build's power at VSYS (mW) during the game `profile`: the core (at
    `asleep_ma` between wakeups), two glasses, the LED's flashes, the buzzer."""
    busy = sum(LCD_BUSY[k] * share for k, share in profile["layout"].items())
    pico = pico_mw(busy, asleep_ma)
    rail_ma = 2 * HT1621_MA + LED_MA * LCD_LED_DUTY + BUZZER_MA * BUZZER_DUTY
    return pico + V3V3 * rail_ma / EFFICIENCY


def lcd_model(profile):
    """The LCD build's hours of play per cell kind, its warning (placed for its own load, as
    battery.py's GLASS row: the glass has no brightness) and the hours left after it, and
    its battery level table."""
    p = lcd_load_mw(profile)
    out = {"mw": p, "total_ma": cell_ma(p, 1.2), "tables": {}}
    for name, curve, mah in KINDS:
        warn = warning(curve, mah, p)
        f = _fraction_at(curve, warn[2] / 1000 / (1 + ADC_MARGIN))
        out[name] = {
            "hours": hours_left(curve, mah, p, 0.0),
            "warning": warn,
            "after_warning": hours_left(curve, mah, p, f),
            "after_warning_derated": hours_left(curve, mah, p, f, DERATE),
        }
        out["tables"][name] = level_table(curve, mah, p)
    return out


# ---------------------------------------------------------------------------- the ledger
# Where whole games spend their time on the emulated chip, by power state, and what the
# displays and LEDs lit there: tools/chip/power_ledger.py (`make power-ledger`) writes it.
LEDGER = ROOT / "tools" / "energy" / "ledger.json"


def state_ma(row):
    """The Pico's current at 5 V (mA) in one of the ledger's power states."""
    state, hz = row["state"], row.get("clk_sys_hz")
    if state in ("dormant", "stopped"):
        return PICO_DORMANT_MA
    if state == "awake" and hz <= CLK_SYS_MHZ * 1_000_000:
        # a slower clk_sys (the µs pico-sdk spends switching the clocks around a dormant
        # spell): the 125 MHz figure, an upper bound
        return PICO_BUSY_MA
    if hz != CLK_SYS_MHZ * 1_000_000:
        raise ValueError("no published figure for %s at clk_sys %s Hz" % (state, hz))
    if state == "sleep":
        return PICO_SLEEP_MA
    if state == "deep_sleep":
        return deep_sleep_ma(row["clocks_on"])
    raise ValueError("no current for the power state %r" % state)


def run_load(build, rec):
    """One ledger run's average load: {"pico_ma" (at 5 V), "displays_ma", "led_ma" (3V3),
    "mw" (at VSYS), and the state shares}. The TM1637s' segments count at the levels the
    chip's wires saw."""
    total = rec["seconds"]
    shares = {}
    pico = 0.0
    for row in rec["states"]:
        shares[row["state"]] = shares.get(row["state"], 0.0) + row["s"] / total
        pico += row["s"] / total * state_ma(row)
    if build == "lcd":
        displays = sum(
            HT1621_MA * lit / total + HT1621_STANDBY_MA * (1 - lit / total)
            for lit in rec["glasses_lit_s"]
        )
    else:
        displays = 0.0
        for d in rec["displays"]:
            pulses = sum(s * PULSE_16[int(k)] / 16 for k, s in d["segment_s"].items())
            powered = d.get("powered_s", total) / total  # its supply switch (board.py)
            displays += TM1637_IDLE_MA * powered + SUPPLY_SWITCH_OFF_MA * (1 - powered)
            displays += SEGMENT_MA * pulses / GRIDS / total
    led = LED_MA * sum(rec["leds_s"]) / total
    buzzer = BUZZER_MA * rec["buzzer_s"] / total
    mw = PICO_MEASURED_AT_V * pico + V3V3 * (displays + led + buzzer) / EFFICIENCY
    return {
        "pico_ma": pico,
        "displays_ma": displays,
        "led_ma": led,
        "mw": mw,
        "shares": shares,
        "wakeups_per_s": sum(r["entries"] for r in rec["states"] if r["state"] == "awake") / total,
    }


def bounds(profile):
    """What the hours are bounded by, on fresh alkaline cells, for the game `profile`: the LED
    build at the default brightness with a Pico drawing nothing ("led_h"), and the LCD build
    with the Pico at PICO_LIGHTSLEEP_MA between wakeups (awake the LCD_BUSY share: "lcd_h").
    """
    led = V3V3 * (2 * display_ma(DEFAULT_BRIGHTNESS, profile["segments"]) + LED_MA) / EFFICIENCY
    lcd = lcd_load_mw(profile, PICO_LIGHTSLEEP_MA)
    curve, mah = ALKALINE_CURVE, ALKALINE_MAH
    return {
        "led_mw": led,
        "led_h": hours_left(curve, mah, led, 0.0),
        "lcd_mw": lcd,
        "lcd_h": hours_left(curve, mah, lcd, 0.0),
    }


def ledger_model(ledger):
    """Every run of `ledger` (ledger.json's contents) as a load and its hours on fresh cells:
    {build: {game: run_load(...) + {kind: hours}}}."""
    out = {}
    for build, runs in sorted(ledger["runs"].items()):
        for game, rec in runs.items():
            row = run_load(build, rec)
            for name, curve, mah in KINDS:
                row[name] = hours_left(curve, mah, row["mw"], 0.0)
            out.setdefault(build, {})[game] = row
    return out


def read_ledger(path=LEDGER):
    """ledger.json's contents, or None when it is not there."""
    import json

    try:
        return json.loads(Path(path).read_text())
    except FileNotFoundError:
        return None


def idle_model():
    """The dormant clock per build: its power at VSYS (mW), the cells' current at 1.2 V a
    cell (mA), and the days fresh cells of each kind last in the box."""
    out = {}
    for build, displays_ma in (("led", SUPPLY_SWITCH_OFF_MA), ("lcd", 2 * HT1621_STANDBY_MA)):
        p = PICO_MEASURED_AT_V * PICO_DORMANT_MA + V3V3 * displays_ma / EFFICIENCY
        row = {"mw": p, "total_ma": cell_ma(p, 1.2)}
        for name, curve, mah in KINDS:
            row[name] = hours_left(curve, mah, p, 0.0) / 24
        out[build] = row
    return out


def cell_ma(p_mw, v_cell):
    """The cells' current (mA) for `p_mw` at VSYS when each cell is at v_cell."""
    vsys = CELLS * v_cell - DIODE_V
    return p_mw / vsys


def hours_left(curve, mah, p_mw, delivered, derate=1.0):
    """Hours of play from the fraction `delivered` to the curve's end, at constant power."""
    steps = 400
    h = 0.0
    for i in range(steps):
        f = delivered + (1 - delivered) * (i + 0.5) / steps
        h += (1 - delivered) / steps * mah * derate / cell_ma(p_mw, _interp(curve, f))
    return h


def vsys_at(curve, delivered):
    return CELLS * _interp(curve, delivered) - DIODE_V


def warning(curve, mah, p_mw):
    """(fraction delivered, VSYS mV of the model, VSYS mV with the ADC margin) at which
    REMAINING_H hours remain with the derated capacity."""
    lo, hi = 0.0, 1.0
    for _ in range(40):
        mid = (lo + hi) / 2
        if hours_left(curve, mah, p_mw, mid, DERATE) > REMAINING_H:
            lo = mid
        else:
            hi = mid
    v = vsys_at(curve, lo)
    # rounded up: a threshold never below the model's voltage
    return lo, math.ceil(v * 1000), math.ceil(v * (1 + ADC_MARGIN) * 1000)


def level_table(curve, mah, p_mw):
    """[(VSYS mV, % of the hours of play left)] from full to empty at `p_mw`, LEVEL_POINTS
    points: what the clock shows as its battery level (`bA nn`)."""
    total = hours_left(curve, mah, p_mw, 0.0)
    out = []
    for i in range(LEVEL_POINTS):
        f = i / (LEVEL_POINTS - 1)
        left = hours_left(curve, mah, p_mw, f)
        out.append((round(vsys_at(curve, f) * 1000), round(100 * left / total)))
    return out


def model(profile=None):
    """Everything the tables show: {"profile", "levels": [per brightness level: {"level",
    "display_ma", "mw", "total_ma", kind: {"hours", "warning": (fraction delivered, VSYS mV
    of the model, VSYS mV threshold), "after_warning", "after_warning_derated"}}],
    "tables": {kind: level_table at the default brightness}}. The warning of each level is
    placed for that level's load: the clock knows its brightness."""
    profile = profile or game_profile()
    levels = []
    for level in range(8):
        p = load_mw(level, profile)
        row = {
            "level": level,
            "display_ma": display_ma(level, profile["segments"]),
            "mw": p,
            "total_ma": cell_ma(p, 1.2),
        }
        for name, curve, mah in KINDS:
            warn = warning(curve, mah, p)
            # where a reading of VSYS at the threshold (the ADC margin included) is
            f = _fraction_at(curve, warn[2] / 1000 / (1 + ADC_MARGIN))
            row[name] = {
                "hours": hours_left(curve, mah, p, 0.0),
                "warning": warn,
                "after_warning": hours_left(curve, mah, p, f),
                "after_warning_derated": hours_left(curve, mah, p, f, DERATE),
            }
        levels.append(row)
    p_default = load_mw(DEFAULT_BRIGHTNESS, profile)
    tables = {name: level_table(curve, mah, p_default) for name, curve, mah in KINDS}
    ledger = read_ledger()
    return {
        "profile": profile,
        "levels": levels,
        "tables": tables,
        "lcd": lcd_model(profile),
        "ledger": ledger,
        "measured": ledger_model(ledger) if ledger else None,
        "idle": idle_model(),
    }


def _fraction_at(curve, vsys):
    """The fraction delivered at which the curve's VSYS falls to `vsys`."""
    lo, hi = 0.0, 1.0
    for _ in range(40):
        mid = (lo + hi) / 2
        if vsys_at(curve, mid) > vsys:
            lo = mid
        else:
            hi = mid
    return lo


def markdown(m):
    p = m["profile"]
    lines = [
        "Game: FIDE 90/40 + 30, 30 s increment, %.1f h; each display lights %.1f segments on"
        " average (colon included); the running side shows h:mm %.0f %% of the time, mm:ss"
        " %.0f %%."
        % (p["hours"], p["segments"], 100 * p["layout"]["h:mm"], 100 * p["layout"]["mm:ss"]),
        "",
        "| brightness | pulse | one display | clock (VSYS) | cells at 1.2 V"
        " | alkaline | warns below | then | NiMH | warns below | then |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in m["levels"]:
        cells = []
        for name in ("alkaline", "NiMH"):
            k = r[name]
            thr = k["warning"][2]
            if thr >= vsys_at(dict((n, c) for n, c, _m in KINDS)[name], 0.0) * 1000:
                cells += ["%.0f h" % k["hours"], "%.2f V (at once)" % (thr / 1000), "-"]
            else:
                cells += [
                    "%.0f h" % k["hours"],
                    "%.2f V" % (thr / 1000),
                    "%.0f h (%.0f h cold)" % (k["after_warning"], k["after_warning_derated"]),
                ]
        lines.append(
            "| %d%s | %d/16 | %.1f mA | %.0f mW | %.0f mA | %s |"
            % (
                r["level"],
                " (default)" if r["level"] == DEFAULT_BRIGHTNESS else "",
                PULSE_16[r["level"]],
                r["display_ma"],
                r["mw"],
                r["total_ma"],
                " | ".join(cells),
            )
        )
    lines += [
        "",
        "Hours: from fresh cells to the end of the curve, nominal capacity. Warns below: VSYS"
        " as the clock reads it, placed where %d h of play remain with the capacity at %d %%"
        " (cold cells, spread), raised %d %% for the reading's error. Then: the hours of play"
        " after the warning, nominal (and with the capacity at %d %%)."
        % (REMAINING_H, round(DERATE * 100), round(ADC_MARGIN * 100), round(DERATE * 100)),
    ]
    lcd = m["lcd"]
    lines += [
        "",
        "LCD build (two HT1621 glasses, the LED flashing %.0f %% of a turn, the core in WFE):"
        " %.0f mW, %.0f mA from cells at 1.2 V; alkaline %.0f h, warns below %.2f V, then"
        " %.0f h (%.0f h cold); NiMH %.0f h, warns below %.2f V, then %.0f h (%.0f h cold)."
        % (
            100 * LCD_LED_DUTY,
            lcd["mw"],
            lcd["total_ma"],
            lcd["alkaline"]["hours"],
            lcd["alkaline"]["warning"][2] / 1000,
            lcd["alkaline"]["after_warning"],
            lcd["alkaline"]["after_warning_derated"],
            lcd["NiMH"]["hours"],
            lcd["NiMH"]["warning"][2] / 1000,
            lcd["NiMH"]["after_warning"],
            lcd["NiMH"]["after_warning_derated"],
        ),
    ]
    lines += ["", *ledger_markdown(m)]
    idle = m["idle"]
    lines += [
        "",
        "Dormant (idle %d min at the ready screen on cells): the Pico %.1f mA at 5 V, the LED"
        " build's modules unpowered, the glasses in their power-down; LED build %.1f mA from"
        " cells at 1.2 V (%.0f days on alkaline cells, %.0f on NiMH), LCD build %.1f mA (%.0f"
        " and %.0f days)."
        % (
            IDLE_MIN,
            PICO_DORMANT_MA,
            idle["led"]["total_ma"],
            idle["led"]["alkaline"],
            idle["led"]["NiMH"],
            idle["lcd"]["total_ma"],
            idle["lcd"]["alkaline"],
            idle["lcd"]["NiMH"],
        ),
    ]
    return "\n".join(lines)


GAME_NAMES = {"fide": "FIDE 90/40+30", "blitz": "Blitz 3+2", "idle_hour": "idle hour"}


def _each(ledger, key):
    """The distinct values of `key` over the ledger's records, sorted."""
    return sorted({str(r.get(key)) for runs in ledger["runs"].values() for r in runs.values()})


def ledger_markdown(m):
    """The table of the chip's power ledger: each build's games, their power states and
    hours of play on fresh cells."""
    ledger, measured = m["ledger"], m["measured"]
    if not measured:
        return ["No power ledger (%s): `make power-ledger` measures one." % LEDGER.name]
    lines = [
        "Measured on the emulated chip (the power ledger, %s; %s, firmware %s), on cells, the"
        " LED build at the default brightness; the Pico's current per state: awake %.0f mA,"
        " deep sleep %.1f mA (built from published figures, see energy.py), dormant %.1f mA,"
        " at 5 V:"
        % (
            LEDGER.name,
            " and ".join(_each(ledger, "micropython")),
            " and ".join(_each(ledger, "firmware")),
            PICO_BUSY_MA,
            deep_sleep_ma(SLEEPGATE_CLOCKS),
            PICO_DORMANT_MA,
        ),
        "",
        "| build | game | length | awake | deep sleep | dormant | wakeups/s | Pico (5 V)"
        " | displays (3V3) | LED | clock (VSYS) | alkaline | NiMH |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for build in sorted(measured):
        for game in ("fide", "blitz", "idle_hour"):
            row = measured[build].get(game)
            if row is None:
                continue
            rec = ledger["runs"][build][game]
            sh = row["shares"]
            lines.append(
                "| %s | %s | %.2f h | %.2f %% | %.1f %% | %.1f %% | %.2f | %.2f mA | %.2f mA"
                " | %.2f mA | %.0f mW | %.0f h | %.0f h |"
                % (
                    build.upper(),
                    GAME_NAMES[game],
                    rec["seconds"] / 3600,
                    100 * sh.get("awake", 0),
                    100 * sh.get("deep_sleep", 0),
                    100 * (sh.get("dormant", 0) + sh.get("stopped", 0)),
                    row["wakeups_per_s"],
                    row["pico_ma"],
                    row["displays_ma"],
                    row["led_ma"],
                    row["mw"],
                    row["alkaline"],
                    row["NiMH"],
                )
            )
    b = bounds(m["profile"])
    lines += [
        "",
        "Bounds, alkaline cells, the FIDE game: the LED build's modules and LED alone (a Pico"
        " drawing nothing) %.0f mW, %.0f h; the LCD build with the Pico at lightsleep's %.2f mA"
        " between wakeups %.0f mW, %.0f h."
        % (b["led_mw"], b["led_h"], PICO_LIGHTSLEEP_MA, b["lcd_mw"], b["lcd_h"]),
    ]
    lines += [
        "",
        "Hours: fresh cells to the end of the curve at that game's average load, all day"
        " long (the idle hour's: a clock left at the ready screen, dormant after %d min)."
        " The warnings stay placed for the load in the table above (the Pico at its WFE"
        " floor): on the measured load more than 10 h remain after them." % IDLE_MIN,
    ]
    return lines


def firmware_constants(m):
    """firmware/core/battery.py's tables: LOW_MV[kind][load] (the LED build's brightness
    levels 0..7, then the LCD build's GLASS row), LEVELS[kind] at the LED build's default
    brightness (the LCD build's load gives the same table: the share of the hours left
    follows the share of the charge at either load)."""
    lcd = m["lcd"]
    kinds = ("alkaline", "NiMH")
    return {
        "LOW_MV": tuple(
            tuple(r[name]["warning"][2] for r in m["levels"]) + (lcd[name]["warning"][2],)
            for name in kinds
        ),
        "LEVELS": tuple(tuple(m["tables"][name]) for name in kinds),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--firmware", action="store_true", help="firmware/core/battery.py's constants")
    args = ap.parse_args(argv)
    m = model()
    if args.firmware:
        for k, v in firmware_constants(m).items():
            print(k, "=", v)
    else:
        print(markdown(m))
    return 0


if __name__ == "__main__":
    sys.exit(main())
