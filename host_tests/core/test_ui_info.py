"""ui_info.py: the ready screen's info pages (battery and periods, the firmware version) and
the version's 4-digit rendering, through the Ui's keys and buffers.

Runs under CPython and MicroPython (see host_tests/core_cpython/test_micropython_core.py)."""

import sys
import unittest

import settings
import ui as U
import version


def shown(u, now=0):
    u.render(now)
    return bytes(u.text[0]), bytes(u.text[1])


def expected_digits(v):
    """The reference rule (the README's legend): the version's digits up to its first
    character that is neither a digit nor a dot, dots left out, the first 4, right-aligned."""
    out = ""
    for c in v:
        if c == ".":
            continue
        if not "0" <= c <= "9":
            break
        out += c
    out = out[:4]
    return (" " * (4 - len(out)) + out).encode()


def digits_of(v):
    """ui_info's rendering of the version string `v`: the module imported afresh with
    version.VERSION = v (the original module is put back afterwards)."""
    ver = __import__("version")  # the one in sys.modules (the host harness re-imports it)
    original_module = sys.modules.get("ui_info")
    original_version = ver.VERSION
    try:
        sys.modules.pop("ui_info", None)
        ver.VERSION = v
        return __import__("ui_info")._VERSION
    finally:
        ver.VERSION = original_version
        if original_module is None:
            sys.modules.pop("ui_info", None)
        else:
            sys.modules["ui_info"] = original_module


class ReadyPages(unittest.TestCase):
    def setUp(self):
        self.u = U.Ui(settings.defaults())  # FIDE 90/40 + 30: two periods
        self.u.battery_pct = 87

    def test_plus_walks_battery_version_times(self):
        u = self.u
        times = shown(u)
        self.assertEqual(times, (b"1h30", b"1h30"))
        u.key(U.PLUS, U.SHORT, 0)
        self.assertEqual(shown(u), (b"bA87", b"P  2"))
        u.key(U.PLUS, U.SHORT, 0)
        self.assertEqual(shown(u), (b"UEr ", expected_digits(version.VERSION)))
        self.assertEqual((u.colon[0], u.colon[1]), (0, 0))
        u.key(U.PLUS, U.SHORT, 0)
        self.assertEqual(shown(u), times)

    def test_minus_goes_back(self):
        u = self.u
        u.key(U.MINUS, U.SHORT, 0)
        self.assertEqual(shown(u)[0], b"UEr ")
        u.key(U.MINUS, U.SHORT, 0)
        self.assertEqual(shown(u), (b"bA87", b"P  2"))

    def test_pages_change_on_keys_only(self):
        u = self.u
        u.key(U.PLUS, U.SHORT, 0)
        u.key(U.PLUS, U.SHORT, 0)
        shown(u, 1_000)
        self.assertEqual(u.next_change(1_000), -1)

    def test_held_keys_do_not_turn_pages(self):
        u = self.u
        u.key(U.PLUS, U.REPEAT, 0)
        u.key(U.MINUS, U.LONG, 0)
        self.assertEqual(shown(u), (b"1h30", b"1h30"))

    def test_a_new_game_shows_the_times(self):
        u = self.u
        u.key(U.PLUS, U.SHORT, 0)
        u.new_game()
        self.assertEqual(shown(u), (b"1h30", b"1h30"))


class VersionDigits(unittest.TestCase):
    def test_the_shipped_version(self):
        self.assertEqual(digits_of(version.VERSION), expected_digits(version.VERSION))

    def test_rule(self):
        for v, want in (
            ("0.1.0", b" 010"),
            ("1.2.10-rc1", b"1210"),
            ("12.3.45", b"1234"),
            ("2", b"   2"),
            ("3.1+g0abc12", b"  31"),
            ("dev", b"    "),
            ("", b"    "),
        ):
            self.assertEqual(digits_of(v), want, v)
            self.assertEqual(expected_digits(v), want, v)


if __name__ == "__main__":
    unittest.main()
