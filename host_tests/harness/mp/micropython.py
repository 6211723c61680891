"""CPython stand-in for MicroPython's `micropython` module (only what the firmware uses)."""


def const(value):
    return value


def native(func):
    return func


def viper(func):
    return func


_heap_locked = 0


def heap_lock():
    global _heap_locked
    _heap_locked += 1


def heap_unlock():
    global _heap_locked
    _heap_locked = max(0, _heap_locked - 1)
    return _heap_locked


def schedule(func, arg):
    func(arg)


def alloc_emergency_exception_buf(size):
    pass
