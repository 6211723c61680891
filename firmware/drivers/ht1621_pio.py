"""The HT1621's write-only serial interface as an RP2040 PIO program: both LCD glasses' frames
go out on the wire from one FIFO while the CPU does other things or sleeps.

Owns the program (`program`, assembled at import; board.py makes one machine for both
glasses) and its clock. The words it reads are ht1621.py's (that module's docstring has
their use and why one machine drives both glasses); this one only turns them into levels.

Pins: the four are consecutive, CS left at `base`, WR `base + 1`, DATA `base + 2`, CS right
`base + 3` (GP2..GP5 on the LCD build). `set` covers all four (set_base = CS left,
`set_init` 4 pins), side-set is WR (sideset_base = WR), `out` is DATA (out_base = DATA). All
push-pull, idling high (the chip's inputs have pull-ups of their own). A `set` that frames
a transaction also writes WR and DATA: always high, as the side-set of that instruction.

The wire (HT1621 datasheet, "Timing diagrams", write and command modes): CS low opens a
transaction, CS high ends it and resets the chip's serial interface; while CS is low the
chip takes DATA on each rising edge of WR, most significant bit of each field first (the
ID, the address, a command; the data nibbles go D0 first: ht1621.py orders them).

A transaction is 1 or 2 FIFO words, read most significant bit first (OSR shifts left):
bit 31 the glass (0 left, 1 right), bits 30..25 the transaction's bit count less one (1..64
bits), then its bits: 25 in the first word, up to 32 more in a second. The program pulls
the second word only when the count goes past the first; what is left of a word after the
count is dropped with it.

Timing: `PIO_HZ` = 1 MHz, a cycle a µs. A bit is WR low 5 µs (DATA changes as WR falls:
setup 5 µs) then WR high 5 µs (7 µs where the next bit is in the next word; hold: DATA keeps
its level until WR falls again): `BUS_HZ` = 100 kHz, within the datasheet's limits at 3 V
(WR clock at most 150 kHz; WR low and high each at least 3.34 µs; DATA setup and hold
120 ns; CS to WR setup and hold 100 ns; the CS high pulse that resets the interface 250
ns): here CS falls 3 µs before WR does, rises 5 µs after the last WR rise, and stays high
at least 6 µs between transactions. A transaction of n bits holds CS low 10 n + 3 µs (2 more
when it spans two words): a whole glass, 57 bits, 0.575 ms; one digit, 17 bits, 0.173 ms.

14 instruction words of PIO0's 32 (alarm_pio.py has 7 more).
"""

# The body of an asm_pio function is PIO assembly: rp2 supplies its names (pull, block,
# pins...), which ruff cannot see.
# ruff: noqa: F821

import rp2
from micropython import const

PIO_HZ = const(1_000_000)  # a cycle a µs
BUS_HZ = const(100_000)  # the WR clock: 10 cycles a bit
FIRST_BITS = const(25)  # a transaction's bits in its first word (after the 7-bit header)
MAX_BITS = const(57)  # in two words
# `set` patterns on base..base+3 (CS left, WR, DATA, CS right), for the docs and tests.
SET_LEFT = const(0b1110)
SET_RIGHT = const(0b0111)
SET_IDLE = const(0b1111)


@rp2.asm_pio(
    set_init=(rp2.PIO.OUT_HIGH,) * 4,
    sideset_init=rp2.PIO.OUT_HIGH,
    out_init=rp2.PIO.OUT_HIGH,
    out_shiftdir=rp2.PIO.SHIFT_LEFT,
    fifo_join=rp2.PIO.JOIN_TX,
)
def program():
    wrap_target()
    pull(block).side(1)  # idle: CS high, WR high, until a transaction's first word
    out(y, 1).side(1)  # the glass: 0 left, 1 right
    out(x, 6).side(1)  # its bits less one
    jmp(not_y, "left").side(1)
    set(pins, 0b0111).side(1)[1]  # right: CS right low (SET_RIGHT)
    jmp("bit").side(1)
    label("left")
    set(pins, 0b1110).side(1)[2]  # left: CS left low (SET_LEFT); 3 µs to the first WR fall
    label("bit")
    out(pins, 1).side(0)[2]  # WR low, DATA = the bit
    jmp(x_dec, "more").side(0)[1]  # WR low 5 µs in all
    nop().side(1)[4]  # the last bit: WR rises, the chip takes it; 5 µs of hold
    set(pins, 0b1111).side(1)[1]  # CS high: the transaction ends (SET_IDLE)
    wrap()
    label("more")
    jmp(not_osre, "bit").side(1)[4]  # WR high 5 µs: the chip takes the bit
    pull(block).side(1)  # the first word is used up: the second
    jmp("bit").side(1)
