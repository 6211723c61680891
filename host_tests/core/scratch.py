"""Scratch folders for the core tests, on CPython and on MicroPython (no tempfile there).

`fresh_dir(prefix)` makes `prefix-0`, or `prefix-1` if that exists, and so on: `os.mkdir`
either creates the folder or fails, so two runs at once (or a folder left by a killed run)
never share one, and the names do not depend on chance."""

import os


def fresh_dir(prefix):
    n = 0
    while True:
        path = "%s-%d" % (prefix, n)
        try:
            os.mkdir(path)
            return path
        except OSError:
            n += 1
            if n > 100_000:
                raise


def remove_tree(path):
    """Removes `path` and everything below it."""
    for name in os.listdir(path):
        child = path + "/" + name
        try:
            os.remove(child)
        except OSError:
            remove_tree(child)
    os.rmdir(path)
