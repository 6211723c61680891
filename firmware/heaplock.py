"""The heap lock of a running clock's wakeups: the shell's unit that holds it, lets it go
around the steps that may allocate, and turns it off after a MemoryError under it.

Why: a running clock's wakeup on the game screen allocates nothing, and a locked heap
(`micropython.heap_lock`) puts every call's frame on the C stack, where MicroPython otherwise
takes a frame of more than 11 words from the GC heap by a first-fit search whose length
grows with the garbage between collections (on the chip a render wakeup took 2.9 ms instead
of 2.2, a press's render up to 3 ms more late in a game). The steps that may allocate (a
button's event, the USB port's service, a file write, the journal's record) run unlocked
(`unlock` / `relock`). A MemoryError under the lock (an allocation nobody proved absent) is
the wakeup's error like any other (the shell logs it), and the lock stays off until the
next power-up: slower, never wrong.

Allocation-free: no method allocates, and `wake` adds no call to a wakeup (it replaces the
shell's own unlock after it).
"""

from micropython import heap_lock, heap_unlock


class HeapLock:
    def __init__(self):
        self.on = True  # off for good after a MemoryError under the lock
        self.locked = False  # the heap is locked now (by wake)

    def wake(self, app, lock):
        """`app.wake()`, with the heap locked while it runs when `lock` (a running clock on
        the game screen: the shell's test) and the lock is on. A MemoryError turns it off."""
        if lock and self.on:
            heap_lock()
            self.locked = True
        try:
            app.wake()
        except MemoryError:
            self.on = False
            raise
        finally:
            if self.locked:
                self.locked = False
                heap_unlock()

    def unlock(self):
        """The heap unlocked, if `wake` locked it. Returns whether it was locked."""
        if self.locked:
            self.locked = False
            heap_unlock()
            return True
        return False

    def relock(self, was):
        """The heap locked again after a step `unlock` freed (`was`: its return)."""
        if was:
            heap_lock()
            self.locked = True
