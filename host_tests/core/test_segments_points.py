"""segments.py for any width: the points mask, the icons, encode_points and the 6-digit hot
path encode_ascii6 (the 4-digit encoders are test_segments.py's).

Runs under CPython and MicroPython (see host_tests/core_cpython/test_micropython_core.py)."""

import sys
import unittest

import segments

MICROPYTHON = sys.implementation.name == "micropython"


class TestIcons(unittest.TestCase):
    def test_the_display_contracts_values(self):
        self.assertEqual((segments.ICON_BAT1, segments.ICON_BAT2, segments.ICON_BAT3), (1, 2, 4))


class TestEncodePoints(unittest.TestCase):
    def test_six_digits_with_points(self):
        out = bytearray(6)
        self.assertEqual(segments.encode_points(out, "1h2959", 1 << 3), 0)
        want = bytearray(segments.encode("1h29") + segments.encode("59")[:2])
        want[3] |= 0x80
        self.assertEqual(out, want)

    def test_every_point_is_bit_7_of_its_digit(self):
        for i in range(6):
            out = bytearray(6)
            segments.encode_points(out, "888888", 1 << i)
            for j in range(6):
                self.assertEqual(out[j], 0x7F | (0x80 if i == j else 0))

    def test_at_shifts_the_text_and_blanks_around_it(self):
        out = bytearray(b"\xff" * 6)
        self.assertEqual(segments.encode_points(out, "USb ", 0, 1), 0)
        self.assertEqual(bytes(out), b"\x00" + segments.encode("USb ") + b"\x00")

    def test_four_digits_with_the_colon_bit_is_encode_with_the_colon(self):
        out = bytearray(4)
        for text in ("1234", " 5:0", "bAt ", "    "):
            for colon in (0, 1):
                segments.encode_points(out, text, colon << 1)
                self.assertEqual(bytes(out), segments.encode(text, colon))

    def test_bad_characters_are_blank_and_counted(self):
        out = bytearray(6)
        self.assertEqual(segments.encode_points(out, "KM1W.5"), 4)
        self.assertEqual(bytes(out), bytes((0, 0, 0x06, 0, 0, 0x6D)))


class TestEncodeAscii6(unittest.TestCase):
    def test_encode_ascii6_is_encode_points_for_every_code_and_point(self):
        a = bytearray(6)
        b = bytearray(6)
        for code in range(256):
            for pos in range(6):
                text = bytearray(b"1h2959")
                text[pos] = code
                points = (code * 5 + pos) & 0x3F
                segments.encode_ascii6(a, text, points)
                segments.encode_points(b, bytes(text), points)
                self.assertEqual(a, b)

    def test_encode_ascii_takes_a_4_digit_points_mask_as_its_colon(self):
        a = bytearray(4)
        b = bytearray(4)
        for text in (b" 5:0", b"1h29", b"bAt "):
            for colon in (0, 1):
                segments.encode_ascii(a, text, colon << 1)
                segments.encode_ascii(b, text, colon)
                self.assertEqual(a, b)

    def test_no_allocation(self):
        if not MICROPYTHON:
            return  # heap_lock is a no-op on CPython
        import micropython

        out = bytearray(6)
        text = bytearray(b"1h2959")
        segments.encode_ascii6(out, text, 8)
        micropython.heap_lock()
        try:
            segments.encode_ascii6(out, text, 8)
            segments.encode_points(out, b"USb ", 0, 1)
            segments.encode_points(out, text, 8)
        finally:
            micropython.heap_unlock()
        self.assertEqual(out[3], segments.encode("9")[0] | 0x80)


if __name__ == "__main__":
    unittest.main()
