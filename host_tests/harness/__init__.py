"""The CPython harness: MicroPython look-alikes (machine, micropython, time.ticks_*),
virtual time and decoders, shared by the host tests and the terminal simulator."""
