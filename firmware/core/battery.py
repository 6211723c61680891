"""The battery's level and its low-battery warning, from VSYS: for the two kinds of cells the
clock takes, 3 x AA alkaline or 3 x AA NiMH in series into VSYS through a Schottky diode
(hardware/README.md). The kind is a setting ("battery"): by voltage alone a half-used
alkaline set and a charged NiMH set look the same.

Pure module: integer mV of VSYS in (board.battery_mv()), integers and bools out.

The numbers are the energy model's (tools/energy/energy.py, `make energy`;
host_tests/tools/test_energy.py checks that they are still what it computes):
- LOW_MV: the warning threshold per kind and load, VSYS as the clock reads it: below it at
  most 10 h of play remain with the model's margin (the capacity at 70 % for cold cells and
  cell spread, the reading 2 % high). The load is the LED build's brightness level (0..7:
  a brighter display draws more, so its warning comes at a higher voltage) or GLASS, the
  LCD build's (no brightness, a lighter load: its warning comes later on the same cells).
  A level whose threshold is above fresh cells warns at once: at that brightness the cells
  cannot promise 10 h with the margin.
- LEVELS: (mV, % of the hours of play left) from full to empty at the default brightness:
  the level the info page shows (`bA nn`); the model gives the LCD build's load the same
  table.
HYSTERESIS_MV keeps a reading that wobbles around the threshold from switching the warning
on and off; the cells are changed with the clock off, so a warning once shown stays until
the reading rises clearly above the threshold (a new power-up, USB power, another setting).
"""

from micropython import const

ALKALINE = const(0)
NIMH = const(1)
GLASS = const(8)  # the load of the LCD build, after the LED build's brightness levels
_LOADS = const(9)
HYSTERESIS_MV = const(50)

# fmt: off
# LOW_MV[kind * 9 + load], mV of VSYS: brightness 0..7, then GLASS
LOW_MV = (
    3244, 3319, 3429, 3820, 3899, 4017, 4241, 4274, 3112,  # alkaline
    3463, 3484, 3517, 3645, 3896, 3907, 3907, 3907, 3408,  # NiMH
)
# LEVELS[kind]: mV, % pairs, falling
LEVELS = (
    (4190, 100, 3793, 85, 3620, 71, 3470, 58, 3350, 45, 3230, 33, 3080, 21, 2885, 10, 2450, 0),
    (3830, 100, 3522, 87, 3485, 74, 3459, 61, 3440, 48, 3402, 36, 3350, 23, 3215, 11, 2750, 0),
)
# fmt: on


def percent(mv, kind):
    """The battery level shown (0..100): the share of the hours of play left, for a VSYS of
    `mv` and cells of `kind` (ALKALINE / NIMH; anything else counts as ALKALINE)."""
    t = LEVELS[1] if kind == NIMH else LEVELS[0]
    if mv >= t[0]:
        return 100
    i = 2
    n = len(t)
    while i < n:
        v1 = t[i]
        if mv >= v1:
            v0 = t[i - 2]
            p0 = t[i - 1]
            p1 = t[i + 1]
            return p1 + (p0 - p1) * (mv - v1) // (v0 - v1)
        i += 2
    return 0


def threshold(kind, level):
    """The warning threshold (mV of VSYS) for cells of `kind` at load `level`: GLASS, or
    a brightness level (0..7, clamped)."""
    if level < 0:
        level = 0
    elif level > 7 and level != GLASS:
        level = 7
    return LOW_MV[(_LOADS if kind == NIMH else 0) + level]


def low(mv, kind, level, was_low):
    """Whether the clock warns, for a VSYS of `mv`, cells of `kind`, load `level` (GLASS or
    the brightness), and `was_low` the answer of the last reading (hysteresis: see the
    module doc)."""
    limit = threshold(kind, level)
    if was_low:
        limit += HYSTERESIS_MV
    return mv < limit
