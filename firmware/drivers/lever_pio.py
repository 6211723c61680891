"""A lever as an RP2040 PIO program: its press is stamped by a state machine, to the µs.

Owns the program (`program`, assembled at import; board.py makes PIO1's machines 0 and 1
run it, one per lever, the lever's pin as the machine's `jmp_pin`), its clock and the start
that puts both machines in step with the µs timer (`start_in_step`). levers.py owns the
use: the word a machine takes at its start and the arithmetic from its words to
`ticks_us()` instants (`quiet_word`, `stamp`: this docstring says why they are so). Why a
state machine and not a hard IRQ per edge, and what a press costs the CPU:
docs/levers-and-bench.md.

The count: X runs down by one every µs, from 0 at the start, for as long as the machine
runs: every path through the program takes exactly two cycles at `PIO_HZ` = 2 MHz per
`jmp x--` (the ones whose target is the next instruction, so X's passing 0 changes no
path). The clock is clk_sys / 62.5, and the µs timer counts clk_ref / 12: both come from
the one crystal (125 MHz = 12 MHz x 125 / 12), so the count keeps step with `ticks_us()`
for ever once its origin is known. X's low 30 bits (`in x, 30`) wrap exactly when
`ticks_us()` does (2**30 µs), so the word is a small int and the arithmetic is modular.

The origin: `start_in_step` (native code, viper) spins on the timer's raw count (TIMERAWL,
which `ticks_us()` reads) until it ticks, then enables both machines and restarts their
clock dividers in one register write, a few cycles after the tick; it returns that tick's
`ticks_us()` value. Cycle 0 of both machines is then that µs plus those few cycles (δ).

States (the pin reads high while the lever is up):
- armed: a pin look every µs (cycle 2 + 2m after the start, at µs 1 + m);
- the first low look is the press: X (= -m) is pushed to the RX FIFO (`push noblock`: a
  full FIFO, which the IRQ handler keeps empty, would drop it; the machine never stalls),
  the machine's IRQ flag rings the core (one interrupt a press), then it waits for the
  release, looking every 2 µs;
- released: it counts `debounce_us` (Y, from the word put at the start) of the line high
  without a break; a low look (bounce, a new touch) goes back to waiting for the release.
  Then armed.
So a lever held at the start is armed only once released and quiet.

The instant: the press's look is at µs 1 + m after the origin (plus δ), and the one before
it, a µs earlier, read high: the edge fell in (m + δ, m + 1 + δ]. The stamp
(levers.stamp) is origin + 1 + m = origin + 1 - word (mod 2**30): the timer's count at
the edge, or one more when the edge falls after the first δ of its µs; within 1 µs of the
edge either way (the chip bench measures it: docs/levers-and-bench.md). 25 instruction
words of PIO1's 32.

The quiet word: the loop is 2 µs a pass and ends on the pass that finds Y at 0, so Y =
debounce_us / 2 - 1 (levers.quiet_word).
"""

# The body of an asm_pio function is PIO assembly, and a viper function's ptr32 is native
# code's: MicroPython supplies their names, which ruff cannot see.
# ruff: noqa: F821

import micropython
import rp2
from micropython import const

PIO_HZ = const(2_000_000)  # two cycles a µs: every loop is two cycles per X decrement
TIMERAWL = 0x40054028  # TIMER: the raw low word of the µs count (ticks_us reads it)
PIO1_CTRL_SET = 0x50302000  # PIO1 CTRL, atomic-set alias (RP2040 datasheet 2.1.2)
START_BITS = const(0x303)  # CTRL: SM_ENABLE and CLKDIV_RESTART of machines 0 and 1


@micropython.viper
def start_in_step(timer_addr: int, ctrl_addr: int, bits: int) -> int:
    """Enable the machines `bits` names (CTRL, written at `ctrl_addr`) right after the µs
    timer at `timer_addr` ticks; returns that tick's ticks_us() value. Spins for up to a
    µs; native code, so the write comes a few cycles after the tick."""
    timer = ptr32(timer_addr)
    ctrl = ptr32(ctrl_addr)
    t0 = timer[0]
    t = t0
    while t == t0:
        t = timer[0]
    ctrl[0] = bits
    return t & 0x3FFFFFFF


@rp2.asm_pio()
def program():
    pull(block)  # cycle 0: the quiet count (quiet_word), kept in the OSR
    mov(x, null)  # cycle 1: the count's origin
    jmp(pin, "armed")  # cycle 2: up, armed; held at the start: wait for its release
    wrap_target()
    label("held")  # the lever is down: a look every 2 µs for its release
    jmp(x_dec, "h1")
    label("h1")
    jmp(pin, "released")
    jmp(x_dec, "h2")
    label("h2")
    jmp("held")
    label("released")  # up: count the quiet time
    mov(y, osr)
    jmp(x_dec, "quiet")
    label("quiet")
    jmp(x_dec, "q1")
    label("q1")
    jmp(pin, "q2")
    jmp(x_dec, "q3")  # down again (bounce): wait for the release again
    label("q3")
    jmp("held")
    label("q2")
    jmp(x_dec, "q4")
    label("q4")
    jmp(y_dec, "quiet")
    nop()  # quiet for the whole count: armed
    jmp(x_dec, "armed")
    label("armed")  # a look every µs
    jmp(x_dec, "a1")
    label("a1")
    jmp(pin, "armed")
    in_(x, 30)  # the press: the count at this look
    push(noblock)
    irq(rel(0))  # the machine's own flag: its IRQ handler takes the word
    jmp(x_dec, "p1")
    label("p1")
    jmp(x_dec, "p2")
    label("p2")
    jmp(x_dec, "held")  # the wrap top: taken or not, the next is "held"
    wrap()
