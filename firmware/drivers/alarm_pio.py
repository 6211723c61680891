"""The loop's alarm as an RP2040 PIO program: its sleep ends at the microsecond it asked for.

Owns the program (`program`, assembled at import) and its clock; doorbell.py owns the use
(`Doorbell.wait_until`), board.py makes the state machine (PIO0's machine 2, beside the
displays' two) and hands it over.

Why: the loop sleeps in `select.poll` (doorbell.py), whose timeout is whole ms counted from
the poll's start, so on its own a sleep ends 0-1 ms after the instant it is for (the µs
left rounded up), and a poll whose first look straddles a ms boundary returns a ms early
and has to sleep again. MicroPython has no µs alarm of its own (machine.Timer counts ms),
but a state machine counts µs exactly: handed a count, it runs down one per cycle at
`PIO_HZ` = 1 MHz, then sets its IRQ flag, whose hard IRQ rings the doorbell: the poll ends
within the IRQ's own few tens of µs of the instant. The poll has no timeout of its own
(doorbell.py says why); the watchdog is the backstop should the alarm never ring.

A word put in the TX FIFO is the count, minus `OVERHEAD_CYCLES` (the five instructions
before the count and the loop's last jmp, which falls through): the `irq` instruction runs
`word + OVERHEAD_CYCLES` cycles after the machine takes the word, and sets the flag by the
end of that cycle, so the alarm rings at the instant asked for or within a µs after it,
never before. A word behind it in the FIFO (a sleep set again before the machine took the
first: the host's stand-in CPU takes no time) replaces it, the newest counts. `restart()`
abandons a count (the machine goes back to waiting for a word). 7 instruction words.
"""

# The body of an asm_pio function is PIO assembly: rp2 supplies its names, which ruff
# cannot see.
# ruff: noqa: F821

import rp2
from micropython import const

PIO_HZ = const(1_000_000)  # a cycle a µs
OVERHEAD_CYCLES = const(6)


@rp2.asm_pio()
def program():
    wrap_target()
    pull(block)  # a count
    label("newest")
    mov(x, osr)
    pull(noblock)  # another behind it? (an empty FIFO gives X back)
    mov(y, osr)
    jmp(x_not_y, "newest")  # then that one
    label("count")
    jmp(x_dec, "count")  # x + 1 cycles
    irq(rel(0))  # the machine's own flag: its IRQ handler rings the doorbell
    wrap()
