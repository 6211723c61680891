"""The TM1637's two-wire protocol as an RP2040 PIO program: a frame goes out on the wire
from a FIFO while the CPU does other things or sleeps.

Owns the program (`program`, assembled at import, for rp2.StateMachine: board.py makes one
machine per display) and its clock. The words it reads are tm1637.py's (that module's
docstring has their format and why the bus is a PIO's); this one only turns them into the
wire's levels.

The wire (TM1637 datasheet): CLK and DIO are open drain with pull-ups, so the program never
drives a line high: its output levels stay 0 and it switches the pins' *directions* (out =
pulled low, in = released). CLK is the side-set pin (`side_pindir`), DIO the `set`, `out`
and `in` pin. A start is DIO falling while CLK is high, a stop DIO rising while CLK is high;
bits go least significant first (the OSR shifts right), DIO changes only while CLK is low
and the chip samples it on CLK's rising edge; after 8 bits the chip pulls DIO low through
the 9th clock (the ACK), which the program samples into the ISR.

Timing: `PIO_HZ` = 10 x `BUS_HZ`, so a bit is 10 PIO cycles: CLK low 5 (DIO set 2
cycles after CLK fell), high 5. At 100 kHz a frame (3 transactions, 7 bytes) is about
0.7 ms on the wire; the address transaction ends about 0.6 ms after the words are put.

Acknowledgements: at each stop, if any byte of that transaction went unacknowledged (DIO
high at the 9th clock: no chip, a broken wire, a line held low), the ISR (one bit per byte,
1 = missing) is pushed to the RX FIFO; all acknowledged, nothing is pushed. `push noblock`:
a full RX FIFO drops it, so the program never stalls on it.

22 instruction words of PIO0's 32 (alarm_pio.py has 7 more); both displays' machines share them.
"""

# The body of an asm_pio function is PIO assembly: rp2 supplies its names (pull, block,
# pindirs...), which ruff cannot see.
# ruff: noqa: F821

import rp2
from micropython import const

BUS_HZ = const(100_000)  # the wire's clock (tm1637.py says why this rate)
PIO_HZ = const(10 * BUS_HZ)  # 10 PIO cycles a bit


@rp2.asm_pio(
    sideset_init=rp2.PIO.IN_LOW,
    set_init=rp2.PIO.IN_LOW,
    out_init=rp2.PIO.IN_LOW,
    side_pindir=True,
    out_shiftdir=rp2.PIO.SHIFT_RIGHT,
    in_shiftdir=rp2.PIO.SHIFT_LEFT,
)
def program():
    wrap_target()
    pull(block).side(0)  # idle: both lines released (high) until a word comes
    set(pindirs, 1).side(0)[4]  # start: DIO falls while CLK is high
    label("byte")
    set(x, 7).side(1)[1]  # CLK low
    label("bit")
    out(pindirs, 1)[2]  # DIO: a data bit inverted (1 = pulled low = a 0 on the wire)
    nop().side(0)[4]  # CLK high: the chip samples DIO
    jmp(x_dec, "bit").side(1)[1]  # CLK low (after the 8th bit: the chip pulls DIO, ACK)
    set(pindirs, 0)[2]  # DIO released
    nop().side(0)[3]  # the 9th clock
    in_(pins, 1).side(0)  # the ACK: 0 = acknowledged
    out(y, 1).side(1)[1]  # CLK low (the chip lets DIO go); y = stop after this byte
    jmp(not_y, "more")
    set(pindirs, 1)[2]  # DIO low
    nop().side(0)[4]  # CLK high
    set(pindirs, 0)[4]  # stop: DIO rises while CLK is high
    mov(y, isr)
    jmp(not_y, "acked")
    push(noblock)  # some byte of this transaction was not acknowledged
    label("acked")
    mov(isr, null)
    wrap()
    label("more")
    out(y, 1)  # another byte in this word?
    jmp(y_dec, "byte")
    pull(block)  # no: the next byte is in the next word
    jmp("byte")
