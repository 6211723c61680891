"""segments.py: the glyph table, the colon bit, padding, bad characters, no allocation.

Runs under CPython and MicroPython (see host_tests/core_cpython/test_micropython_core.py)."""

import sys
import unittest

import segments

MICROPYTHON = sys.implementation.name == "micropython"

# Segment bits: a=0x01 b=0x02 c=0x04 d=0x08 e=0x10 f=0x20 g=0x40.
DIGITS = (0x3F, 0x06, 0x5B, 0x4F, 0x66, 0x6D, 0x7D, 0x07, 0x7F, 0x6F)
MENU_LETTERS = "AbCdEFGHhIJLnoPrStUy"


class TestGlyphs(unittest.TestCase):
    def test_digits(self):
        for d in range(10):
            self.assertEqual(segments.glyph(48 + d), DIGITS[d])

    def test_symbols(self):
        self.assertEqual(segments.glyph(ord(" ")), 0)
        self.assertEqual(segments.glyph(ord("-")), 0x40)  # g only
        self.assertEqual(segments.glyph(ord("_")), 0x08)  # d only

    def test_menu_letters_are_representable_and_not_blank(self):
        for ch in MENU_LETTERS:
            with self.subTest(ch=ch):
                self.assertTrue(segments.glyph(ord(ch)) > 0)

    def test_some_letters(self):
        self.assertEqual(segments.glyph(ord("A")), 0x77)
        self.assertEqual(segments.glyph(ord("b")), 0x7C)
        self.assertEqual(segments.glyph(ord("h")), 0x74)
        self.assertEqual(segments.glyph(ord("H")), 0x76)
        self.assertEqual(segments.glyph(ord("t")), 0x78)

    def test_case_fallback(self):
        # Upper case without a glyph of its own draws the lower-case one, and vice versa.
        for a, b in ("Bb", "Dd", "Nn", "Rr", "Tt", "Yy", "aA", "eE", "sS"):
            self.assertEqual(segments.glyph(ord(a)), segments.glyph(ord(b)))

    def test_case_variants_that_differ(self):
        for a, b in ("Cc", "Hh", "Oo", "Uu", "Ii"):
            self.assertTrue(segments.glyph(ord(a)) != segments.glyph(ord(b)))

    def test_not_representable(self):
        for ch in "KkMmVvWwXxZz.:!?":
            with self.subTest(ch=ch):
                self.assertEqual(segments.glyph(ord(ch)), -1)
        self.assertEqual(segments.glyph(-1), -1)
        self.assertEqual(segments.glyph(128), -1)
        self.assertEqual(segments.glyph(0xE9), -1)

    def test_no_glyph_uses_bit_7(self):
        for c in range(128):
            g = segments.glyph(c)
            self.assertTrue(g < 0x80)


class TestEncode(unittest.TestCase):
    def test_four_digits(self):
        self.assertEqual(segments.encode("1234"), bytes((0x06, 0x5B, 0x4F, 0x66)))

    def test_colon_is_bit_7_of_digit_1_only(self):
        plain = segments.encode("8888")
        lit = segments.encode("8888", True)
        self.assertEqual(lit[1], plain[1] | 0x80)
        self.assertEqual(lit[0], plain[0])
        self.assertEqual(lit[2], plain[2])
        self.assertEqual(lit[3], plain[3])
        self.assertEqual(segments.encode("    ", True), bytes((0, 0x80, 0, 0)))

    def test_short_text_is_padded_blank_on_the_right(self):
        self.assertEqual(segments.encode("E"), bytes((0x79, 0, 0, 0)))
        self.assertEqual(segments.encode(""), bytes(4))

    def test_window_start(self):
        self.assertEqual(segments.encode("--1234", start=2), segments.encode("1234"))
        self.assertEqual(segments.encode("12", start=5), bytes(4))

    def test_str_bytes_bytearray_agree(self):
        for t in (" 5:0", "10h3", "SEt ", "PLAy"):
            want = segments.encode(t)
            self.assertEqual(segments.encode(t.encode()), want)
            self.assertEqual(segments.encode(bytearray(t.encode())), want)

    def test_bad_characters_are_blank_and_counted(self):
        out = bytearray(b"\xff\xff\xff\xff")
        self.assertEqual(segments.encode_into(out, "KM1W"), 3)
        self.assertEqual(bytes(out), bytes((0, 0, 0x06, 0)))
        self.assertEqual(segments.encode_into(out, b"\xe9\x001"), 2)
        self.assertEqual(bytes(out), bytes((0, 0, 0x06, 0)))

    def test_good_text_counts_zero(self):
        out = bytearray(4)
        self.assertEqual(segments.encode_into(out, "bLit"), 0)

    def test_only_the_window_is_counted(self):
        out = bytearray(4)
        self.assertEqual(segments.encode_into(out, "MMMM1234", start=4), 0)

    def test_encode_into_overwrites_previous_colon(self):
        out = bytearray(4)
        segments.encode_into(out, "1234", True)
        segments.encode_into(out, "1234", False)
        self.assertEqual(bytes(out), segments.encode("1234"))

    def test_encode_ascii_is_encode_into_for_every_code(self):
        """The hot path's table gives what encode_into gives, for every byte value in
        every position, with and without the colon."""
        a = bytearray(4)
        b = bytearray(4)
        for code in range(256):
            for pos in range(4):
                text = bytearray(b"8 :0")
                text[pos] = code
                for colon in (0, 1):
                    segments.encode_ascii(a, text, colon)
                    segments.encode_into(b, bytes(text), colon)
                    self.assertEqual(a, b)

    def test_no_allocation(self):
        if not MICROPYTHON:
            return  # heap_lock is a no-op on CPython
        import micropython

        out = bytearray(4)
        text_b = b" 9:59"
        text_s = "SEt "
        segments.encode_into(out, text_b, True)
        micropython.heap_lock()
        try:
            segments.encode_into(out, text_b, True)
            segments.encode_into(out, text_s, False, 0)
            segments.glyph(65)
            segments.encode_ascii(out, b"SEt ", 0)
        finally:
            micropython.heap_unlock()
        self.assertEqual(bytes(out), segments.encode("SEt "))


if __name__ == "__main__":
    unittest.main()
