"""material.py on both runtimes: the law's own examples, entry design, bad input, no allocation.

Material tuples are (pawns, knights, light_bishops, dark_bishops, rooks, queens).
"""

import unittest

import material as m
import micropython
from material import DRAW, FIDE, LOSS, USCHESS

K = (0, 0, 0, 0, 0, 0)
KP = (1, 0, 0, 0, 0, 0)
KN = (0, 1, 0, 0, 0, 0)
KNN = (0, 2, 0, 0, 0, 0)
KNNN = (0, 3, 0, 0, 0, 0)
KLB = (0, 0, 1, 0, 0, 0)
KDB = (0, 0, 0, 1, 0, 0)
KLBLB = (0, 0, 2, 0, 0, 0)
KBB = (0, 0, 1, 1, 0, 0)
KNB = (0, 1, 0, 1, 0, 0)
KR = (0, 0, 0, 0, 1, 0)
KQ = (0, 0, 0, 0, 0, 1)
KQQ = (0, 0, 0, 0, 0, 2)
KRP = (1, 0, 0, 0, 1, 0)
KBP = (1, 0, 1, 0, 0, 0)
FULL = (8, 2, 1, 1, 2, 1)

# (opponent, flagged, result for the flagged player, why); FIDE 6.9, the seed text's cases
# first, then the helpmate cases that make the flagged player's own men matter.
FIDE_CASES = (
    (K, K, DRAW, "lone king cannot mate"),
    (K, FULL, DRAW, "lone king cannot mate, whatever the flagged player has"),
    (KLB, K, DRAW, "lone bishop vs bare king"),
    (KN, K, DRAW, "lone knight vs bare king"),
    (KQ, K, LOSS, "queen mates"),
    (KR, K, LOSS, "rook mates"),
    (KP, K, LOSS, "pawn promotes"),
    (KNB, K, LOSS, "two pieces: B+N mate"),
    (KBB, K, LOSS, "two pieces: bishops of both colours mate"),
    (KNN, K, LOSS, "two knights: helpmate Kh8 / Kg6 Nf6 Nf7"),
    (KNNN, K, LOSS, "three knights"),
    (KN, KR, LOSS, "helpmate: black Kh8 Rg8, white Kh6 Nf7"),
    (KN, KP, LOSS, "helpmate with the pawn blocking"),
    (KN, KN, LOSS, "helpmate with the knight blocking"),
    (KN, KLB, LOSS, "helpmate with a light bishop blocking"),
    (KN, KDB, LOSS, "helpmate with a dark bishop blocking"),
    (KN, KQ, DRAW, "a queen cannot block for a knight mate"),
    (KN, KQQ, DRAW, "nor can two queens"),
    (KLB, KLB, DRAW, "bishops on same-coloured squares"),
    (KDB, KDB, DRAW, "bishops on same-coloured squares (dark)"),
    (KLB, KDB, LOSS, "opposite colours: black Kh1 Bh2, white Kf1 Bg2"),
    (KDB, KLB, LOSS, "opposite colours: black Ka1 Ba2, white Kc1 Bb2"),
    (KLB, KN, LOSS, "knight blocks: black Kh1 Nh2, white Kf2 Bg2"),
    (KLB, KP, LOSS, "pawn blocks: black Kh1 Ph2, white Kf1 Bg2"),
    (KLB, KR, DRAW, "a rook beside its king attacks the check line"),
    (KLB, KQ, DRAW, "a queen beside its king attacks the check line"),
    (KLB, (0, 0, 0, 0, 2, 1), DRAW, "rooks and queen cannot block a bishop mate"),
    (KLBLB, KR, DRAW, "more bishops of one colour still cover no dark square"),
    (KLBLB, KDB, LOSS, "a dark bishop blocks"),
    (KBP, KQ, LOSS, "a pawn decides"),
)

# (opponent, flagged, result, rule); US Chess 14E and 14D4.
US_CASES = (
    (K, FULL, DRAW, "14E1 lone king"),
    (KLB, K, DRAW, "14E2 king and bishop"),
    (KDB, KRP, DRAW, "14E2 king and bishop, even with a helpmate possible"),
    (KLB, KDB, DRAW, "14E2 even with opposite-coloured bishops"),
    (KN, K, DRAW, "14E2 king and knight"),
    (KN, KR, DRAW, "14E2 king and knight vs rook (FIDE: loss)"),
    (KN, FULL, DRAW, "14E2 king and knight, whatever the flagged player has"),
    (KNN, K, DRAW, "14E3 two knights, flagged player without pawns"),
    (KNN, (0, 2, 1, 1, 2, 1), DRAW, "14E3 two knights, flagged player has pieces, no pawns"),
    (KNN, KP, LOSS, "14E3 two knights, flagged player has a pawn"),
    (KNNN, K, LOSS, "three knights are not in 14E"),
    (KNB, K, LOSS, "knight and bishop are not in 14E"),
    (KBB, K, LOSS, "bishops of both colours are not in 14E"),
    (KBP, K, LOSS, "bishop and pawn: not 'only'"),
    (KP, K, LOSS, "pawn"),
    (KR, K, LOSS, "rook"),
    (KQ, KQ, LOSS, "queen"),
    (KLBLB, K, DRAW, "14D4 same-coloured bishops cannot mate"),
    (KLBLB, KR, DRAW, "14D4 same-coloured bishops cannot mate a rook's king"),
    (KLBLB, KP, LOSS, "not 14E, and a helpmate exists"),
    # Forum case: white Kh8 Ph5, black Kf8 Nf3, white's flag falls: 14E2 draw.
    (KN, KP, DRAW, "14E2: white Kh8 Ph5 vs black Kf8 Nf3"),
)


def small_armies(max_knights=3):
    # Every army with p,r,q in 0..1, knights 0..max_knights, bishops 0..2 per colour
    # (288 tuples by default). test_material_python_chess.py uses it too.
    out = []
    for p in range(2):
        for n in range(max_knights + 1):
            for lb in range(3):
                for db in range(3):
                    for r in range(2):
                        for q in range(2):
                            out.append((p, n, lb, db, r, q))
    return out


def flagged_armies():
    # Every presence pattern of P, N, LB, DB, R, Q (64 tuples): what the table can see.
    out = []
    for bits in range(64):
        out.append(tuple((bits >> i) & 1 for i in range(6)))
    return out


class TestFide(unittest.TestCase):
    def test_examples(self):
        for opp, flagged, want, why in FIDE_CASES:
            self.assertEqual(m.flag_result(opp, flagged), want, why)
            self.assertEqual(m.flag_result(opp, flagged, FIDE), want, why)
            self.assertEqual(m.flag_result(opp, flagged, "fide"), want, why)
            self.assertEqual(m.can_mate(opp, flagged), want == LOSS, why)

    def test_starting_armies_lose(self):
        self.assertEqual(m.flag_result(FULL, FULL), LOSS)
        self.assertEqual(m.flag_result(FULL, FULL, USCHESS), LOSS)

    def test_lists_are_accepted(self):
        self.assertTrue(m.can_mate([0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0]))


class TestUsChess(unittest.TestCase):
    def test_examples(self):
        for opp, flagged, want, why in US_CASES:
            self.assertEqual(m.flag_result(opp, flagged, USCHESS), want, why)
            self.assertEqual(m.flag_result(opp, flagged, "uschess"), want, why)
            self.assertEqual(m.can_mate(opp, flagged, USCHESS), want == LOSS, why)

    def test_us_only_adds_draws(self):
        # Every US win on time is a FIDE win on time (14E only turns losses into draws).
        for opp in small_armies():
            for flagged in flagged_armies():
                if m.can_mate(opp, flagged, USCHESS):
                    self.assertTrue(m.can_mate(opp, flagged, FIDE), (opp, flagged))


class TestMonotone(unittest.TestCase):
    def test_more_material_never_saves_the_mating_side_or_hurts_it(self):
        # Adding one man to either army never turns a possible mate into an impossible one.
        # (Opponent armies with a pawn, rook or queen always mate, so minors suffice there.)
        minors = [a for a in small_armies() if not (a[0] or a[4] or a[5])]
        for rules in (FIDE, USCHESS):
            for opp in minors:
                for flagged in flagged_armies():
                    if not m.can_mate(opp, flagged, rules):
                        continue
                    for i in range(6):
                        more = list(flagged)
                        more[i] += 1
                        self.assertTrue(m.can_mate(opp, more, rules), (rules, opp, more))
                        more = list(opp)
                        more[i] += 1
                        self.assertTrue(m.can_mate(more, flagged, rules), (rules, more, flagged))


class TestDeadPosition(unittest.TestCase):
    def test_override_draws_whatever_the_material(self):
        for rules in (FIDE, USCHESS, "fide", "uschess"):
            self.assertEqual(m.flag_result(FULL, K, rules, True), DRAW)
            self.assertEqual(m.flag_result(KQ, KQ, rules, dead_position=True), DRAW)
            self.assertEqual(m.flag_result(None, None, rules, dead_position=True), DRAW)

    def test_override_still_checks_the_rules(self):
        with self.assertRaises(ValueError):
            m.flag_result(KQ, K, "lichess", dead_position=True)


class TestBadInput(unittest.TestCase):
    BAD = (
        (0, 0, 0, 0, 0),  # too short
        (0, 0, 0, 0, 0, 0, 0),  # too long
        (-1, 0, 0, 0, 0, 0),
        (0, 0, 0, 0, 0, -1),
        (9, 0, 0, 0, 0, 0),  # nine pawns
        (8, 3, 1, 1, 2, 1),  # a third knight needs a promoted pawn
        (1, 0, 0, 0, 2, 9),  # eight extra queens need all eight pawns
        (0, 11, 0, 0, 0, 0),  # nine extra knights
        (0, 0, 9, 9, 0, 0),  # sixteen extra bishops
    )
    GOOD = (
        K,
        FULL,
        (0, 10, 1, 1, 2, 1),
        (0, 2, 1, 1, 2, 9),
        (0, 0, 9, 1, 0, 0),
        (7, 2, 1, 2, 2, 1),
    )

    def test_is_valid(self):
        for bad in self.BAD:
            self.assertFalse(m.is_valid(bad), bad)
        for good in self.GOOD:
            self.assertTrue(m.is_valid(good), good)

    def test_bad_material_raises(self):
        for bad in self.BAD:
            with self.assertRaises(ValueError):
                m.can_mate(bad, K)
            with self.assertRaises(ValueError):
                m.can_mate(K, bad)
            with self.assertRaises(ValueError):
                m.flag_result(bad, K)
            with self.assertRaises(ValueError):
                m.flag_result(KQ, bad, USCHESS)
            with self.assertRaises(ValueError):
                m.choice_of(bad)

    def test_bad_rules_raise(self):
        for rules in (2, -1, "FIDE", "uscf", None):
            with self.assertRaises(ValueError):
                m.can_mate(KQ, K, rules)
            with self.assertRaises(ValueError):
                m.flag_result(KQ, K, rules)
            with self.assertRaises(ValueError):
                m.question(m.OPP_N, rules)
            with self.assertRaises(ValueError):
                m.entry_result(m.OPP_N, True, rules)

    def test_bad_choice_raises(self):
        for choice in (-1, m.N_CHOICES, 99):
            with self.assertRaises(ValueError):
                m.question(choice)
            with self.assertRaises(ValueError):
                m.entry_result(choice, True)

    def test_answers_are_unchanged_after_bad_input(self):
        for bad in self.BAD:
            try:
                m.flag_result(bad, bad)
            except ValueError:
                pass
        self.assertEqual(m.flag_result(KN, KR), LOSS)
        self.assertEqual(m.flag_result(KN, KQ), DRAW)


def truthful_answer(ask, opp, flagged):
    # The answer an arbiter gives to `ask`, read off the board (independent of material.py).
    p, n, lb, db, r, _q = flagged
    if ask == m.ASK_NOT_QUEENS:
        return bool(p or n or lb or db or r)
    if ask == m.ASK_PAWN:
        return bool(p)
    if ask == m.ASK_BISHOP_HELP:
        other_colour = db if opp[2] else lb  # opp's bishops are all on one colour here
        return bool(p or n or other_colour)
    return False


class TestEntry(unittest.TestCase):
    # What the UI asks after each choice; the documented design, row by row.
    QUESTIONS = (
        # choice, FIDE, USCHESS
        (m.OPP_PRQ, m.ASK_NONE, m.ASK_NONE),
        (m.OPP_KING, m.ASK_NONE, m.ASK_NONE),
        (m.OPP_N, m.ASK_NOT_QUEENS, m.ASK_NONE),
        (m.OPP_B, m.ASK_BISHOP_HELP, m.ASK_NONE),
        (m.OPP_NN, m.ASK_NONE, m.ASK_PAWN),
        (m.OPP_NB, m.ASK_NONE, m.ASK_NONE),
        (m.OPP_BB, m.ASK_NONE, m.ASK_NONE),
        (m.OPP_BS, m.ASK_BISHOP_HELP, m.ASK_BISHOP_HELP),
        (m.OPP_NNN, m.ASK_NONE, m.ASK_NONE),
        (m.OPP_DEAD, m.ASK_NONE, m.ASK_NONE),
    )

    def test_questions(self):
        self.assertEqual(len(self.QUESTIONS), m.N_CHOICES)
        for i, (choice, fide, us) in enumerate(self.QUESTIONS):
            self.assertEqual(choice, i)
            self.assertEqual(m.question(choice), fide, choice)
            self.assertEqual(m.question(choice, "uschess"), us, choice)

    def test_fixed_results(self):
        for rules in (FIDE, USCHESS):
            self.assertEqual(m.entry_result(m.OPP_PRQ, False, rules), LOSS)
            self.assertEqual(m.entry_result(m.OPP_KING, True, rules), DRAW)
            self.assertEqual(m.entry_result(m.OPP_DEAD, False, rules), DRAW)
            self.assertEqual(m.entry_result(m.OPP_NB, False, rules), LOSS)
        self.assertEqual(m.entry_result(m.OPP_N, True), LOSS)
        self.assertEqual(m.entry_result(m.OPP_N, False), DRAW)
        self.assertEqual(m.entry_result(m.OPP_N, True, USCHESS), DRAW)
        self.assertEqual(m.entry_result(m.OPP_NN, True, USCHESS), LOSS)
        self.assertEqual(m.entry_result(m.OPP_NN, False, USCHESS), DRAW)

    def test_entry_agrees_with_the_table(self):
        # For every opponent army and every presence pattern of the flagged army, the entry
        # (choice + truthful answer) gives the same ruling as the full material would.
        for rules in (FIDE, USCHESS):
            for opp in small_armies():
                choice = m.choice_of(opp)
                ask = m.question(choice, rules)
                for flagged in flagged_armies():
                    want = m.flag_result(opp, flagged, rules)
                    yes = truthful_answer(ask, opp, flagged)
                    got = m.entry_result(choice, yes, rules)
                    self.assertEqual(got, want, (rules, opp, flagged))


class TestNoAllocation(unittest.TestCase):
    def test_decision_allocates_nothing(self):
        # On MicroPython any allocation inside heap_lock() raises MemoryError.
        armies = small_armies()
        flagged = flagged_armies()
        n = len(armies)
        out = bytearray(n * 4)
        micropython.heap_lock()
        try:
            i = 0
            while i < n:
                a = armies[i]
                f = flagged[i % 64]
                out[4 * i] = m.flag_result(a, f)
                out[4 * i + 1] = m.flag_result(a, f, "uschess")
                out[4 * i + 2] = m.flag_result(f, a, USCHESS, dead_position=True)
                out[4 * i + 3] = m.can_mate(a, f, rules=FIDE)
                i += 1
        finally:
            micropython.heap_unlock()
        for i in range(n):
            a, f = armies[i], flagged[i % 64]
            self.assertEqual(out[4 * i], m.flag_result(a, f))
            self.assertEqual(out[4 * i + 2], DRAW)
            self.assertEqual(out[4 * i + 3], m.can_mate(a, f))


if __name__ == "__main__":
    unittest.main()
