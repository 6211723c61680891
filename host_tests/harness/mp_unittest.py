"""Run unittest modules under MicroPython (tools/bench/mp_run.mjs) or CPython, one summary line.

usage: mp_unittest.py MODULE [MODULE ...]

Prints 'mp-unittest: N passed, N failed' and exits 1 when any test failed or errored.
"""

import sys
import unittest


def main(names):
    ran = failed = 0
    for name in names:
        module = __import__(name)
        suite = unittest.TestSuite()
        for attr in dir(module):
            obj = getattr(module, attr)
            if isinstance(obj, type) and issubclass(obj, unittest.TestCase):
                suite.addTest(obj)
        result = unittest.TextTestRunner().run(suite)
        ran += result.testsRun
        failed += len(result.failures) + len(result.errors)
    print("mp-unittest: %d passed, %d failed" % (ran - failed, failed))
    if failed or not ran:
        raise SystemExit(1)


main(sys.argv[1:])
