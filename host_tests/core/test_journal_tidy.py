"""When littlefs next compacts the journal's folder, as journal_tidy.py learns it from the
writes' durations, and how many records a tidy writes.

Runs under CPython and MicroPython (plain unittest, firmware modules only)."""

import unittest

import journal_tidy as T

PAGE = 700  # µs: a page program
ERASE = 45_700  # µs: a compaction's erase and its page


def learned(period, since):
    """A learner that saw compactions `period` commits apart, the last `since` ago."""
    c = T.Compactions()
    c.wrote(1, ERASE)
    for _ in range(period - 1):
        c.wrote(1, PAGE)
    c.wrote(1, ERASE)
    for _ in range(since):
        c.wrote(1, PAGE)
    return c


class Learner(unittest.TestCase):
    def test_a_slow_write_is_a_compaction_and_a_quick_one_is_not(self):
        c = T.Compactions()
        self.assertFalse(c.wrote(1, T.SLOW_US - 1))
        self.assertFalse(c.seen)
        self.assertTrue(c.wrote(1, T.SLOW_US))
        self.assertTrue(c.seen)
        self.assertEqual(c.since, 0)

    def test_a_step_that_allocates_may_collect_the_garbage_and_is_no_compaction(self):
        c = T.Compactions()
        gc_ms = 25_000  # a collection on the chip's heap, and the commit
        self.assertFalse(c.wrote(1, gc_ms, True))
        self.assertFalse(c.seen)
        self.assertEqual(c.since, 1)
        self.assertTrue(c.wrote(1, gc_ms))  # a close allocates nothing: an erase
        self.assertTrue(c.wrote(1, T.SLOW_ALLOC_US, True))

    def test_the_period_is_the_commits_between_the_last_two_compactions(self):
        c = T.Compactions()
        for _ in range(5):
            c.wrote(1, PAGE)
        c.wrote(2, ERASE)  # the first one: where the block stood before is unknown
        self.assertEqual(c.period, 0)
        for _ in range(7):
            c.wrote(1, PAGE)
        c.wrote(2, ERASE)  # a new file's two commits, the compacting one taken as the last
        self.assertEqual(c.period, 9)
        for _ in range(3):
            c.wrote(1, PAGE)
        c.wrote(1, ERASE)
        self.assertEqual(c.period, 4)  # it follows the last period, shorter or longer

    def test_left_counts_down_to_the_compaction(self):
        c = learned(10, 0)
        self.assertEqual(c.left(), 10)
        c.wrote(1, PAGE)
        c.wrote(3, PAGE)
        self.assertEqual(c.left(), 6)
        for _ in range(6):
            c.wrote(1, PAGE)
        self.assertEqual(c.left(), 0)  # due
        c.wrote(1, PAGE)
        self.assertEqual(c.left(), 0)  # overdue

    def test_unknown_before_a_compaction_and_after_never_commits_without_one(self):
        c = T.Compactions()
        for _ in range(60):
            c.wrote(1, PAGE)
            self.assertEqual(c.left(), -1)
            self.assertEqual(c.tidy(3), 0)
        c = learned(8, T.NEVER - 1)
        self.assertEqual(c.left(), 0)
        c.wrote(1, PAGE)
        self.assertEqual(c.left(), -1)
        self.assertEqual(c.tidy(1), 0)
        for _ in range(300):
            c.wrote(1, PAGE)
        self.assertEqual(c.since, T.NEVER)  # the count stops there
        c.wrote(1, ERASE)  # seen again: known again, its period learned anew
        self.assertEqual(c.left(), T.GUESS)
        for _ in range(6):
            c.wrote(1, PAGE)
        c.wrote(1, ERASE)
        self.assertEqual((c.period, c.left()), (7, 7))

    def test_a_compaction_close_after_another_is_no_period(self):
        """An open that compacts and the flush after it that compacts again (the chip's
        littlefs): the block is fresh after the second, the period learned stays."""
        c = learned(15, 13)
        self.assertTrue(c.wrote(1, ERASE, True))
        self.assertEqual(c.period, 14)
        self.assertTrue(c.wrote(1, ERASE))
        self.assertEqual((c.period, c.since, c.left()), (14, 0, 14))
        for _ in range(T.SHORT - 2):
            c.wrote(1, PAGE)
        c.wrote(1, ERASE)  # SHORT - 1 commits: still none
        self.assertEqual(c.period, 14)
        for _ in range(T.SHORT - 1):
            c.wrote(1, PAGE)
        c.wrote(1, ERASE)
        self.assertEqual(c.period, T.SHORT)  # a real one, however short

    def test_a_new_folder_is_unknown_until_its_first_compaction_which_is_no_period(self):
        c = learned(14, 5)
        c.fresh()
        self.assertEqual((c.seen, c.since, c.period, c.left(), c.tidy(1)), (False, 0, 0, -1, 0))
        for _ in range(15):
            c.wrote(1, PAGE)
        c.wrote(1, ERASE)  # an empty block held more than a compacted one will
        self.assertEqual((c.seen, c.period), (True, 0))
        for _ in range(13):
            c.wrote(1, PAGE)
        c.wrote(1, ERASE)
        self.assertEqual(c.period, 14)

    def test_one_compaction_seen_takes_the_guess_for_the_period(self):
        c = T.Compactions()
        c.wrote(1, ERASE)
        self.assertEqual(c.left(), T.GUESS)


class Tidy(unittest.TestCase):
    def test_none_while_the_next_press_cannot_reach_the_compaction(self):
        for need in (1, 3):
            c = learned(10, 10 - need - T.MARGIN - 1)
            self.assertEqual(c.left(), need + T.MARGIN + 1)
            self.assertEqual(c.tidy(need), 0)

    def test_due_margin_commits_before_the_next_press_could_compact(self):
        c = learned(10, 10 - 1 - T.MARGIN)
        self.assertEqual(c.tidy(1), T.TIDY_MAX)  # it stops at the compaction
        c = learned(12, 12 - 3 - T.MARGIN)  # the next press completes a chunk
        self.assertEqual(c.tidy(3), T.TIDY_MAX)
        self.assertEqual(learned(10, 10).tidy(1), T.TIDY_MAX)  # overdue
        self.assertTrue(T.TIDY_MAX > 3 + T.MARGIN)  # room past the expected one

    def test_tidies_meet_the_compactions_of_a_block_whose_period_changes(self):
        """Replayed against a block whose period is 9, then 13 (its files removed), then
        shrinks by one every 20 presses: tidies of at most tidy() records each, stopping at
        the compaction, between presses of one commit; no press compacts but the first
        after the period grew, whose tidy could not reach it."""
        period = 9
        c = learned(period, 0)
        n = period
        compacted_presses = 0
        for i in range(200):
            if i == 50:
                period = 13
            elif i > 50 and i % 20 == 0:
                period -= 1
            n -= 1
            slow = n == 0
            c.wrote(1, ERASE if slow else PAGE)  # the press's record
            if slow:
                compacted_presses += 1
                n = period
            k = c.tidy(1)
            for _ in range(k):
                n -= 1
                slow = n == 0
                if c.wrote(1, ERASE if slow else PAGE):
                    n = period
                    break
        self.assertEqual(compacted_presses, 0)
        self.assertLessEqual(abs(c.period - period), 1)


if __name__ == "__main__":
    unittest.main()
