"""Owns the guess of when littlefs next compacts the journal directory's metadata pair, so
that the shell (appjournal.py) brings a record forward onto a quiet moment and the
compaction's sector erase (45 ms typical, interrupts off) falls in that record, not in a
press's. Pure module: told how many commits each write made and how long it took (µs),
it answers how many records a tidy writes now.

Every journal file is inline (journal_files.py): each commit appends a page to the folder's
metadata block, and the commit that does not fit compacts the pair (erases the other block,
copies what is live). littlefs does not say how full the block is, and MicroPython exposes
nothing of it; reading the block through the flash's block device would tie the firmware to
littlefs's on-disk format. A commit's duration says it instead: a page program is at most 3
ms on the W25Q16JV, an erase 45 ms typical, so a file's close that takes SLOW_US or more
compacted. The other steps that commit (a new file's open, a removal, the folder's
creation) allocate, and a garbage collection there takes about half an erase on the chip:
their threshold is SLOW_ALLOC_US. The commits since the last compaction, and between the
last two (the period), tell when the next one comes. The period shrinks as a game grows
(its chunk files are copied at every compaction, about a page more per 16 half-moves), and
a new file makes two commits: a tidy is due MARGIN commits before the next press's record
could reach the compaction, and writes records until one compacts (TIDY_MAX at most: a few
past the expected one, for a period that grew). A compaction fewer than SHORT commits
after the one before is no period: littlefs leaves a compacted block at most half full (it
splits a folder past that), so on the chip's 4 KiB blocks and 256-byte commits the next
compaction is at least 8 commits away. Two erases that close are the creation of a folder
and its subfolder's, or a file's open that compacted followed by its first flush, which
compacts once more (MicroPython 1.27's littlefs on the chip); the block is fresh after the
second, the period stays. A folder just made (fresh()) has an empty block, whose first
compaction copies nothing and comes later than the period: the learner starts again as at
power-up. Until a compaction is seen after power-up (or the folder's creation),
where the block stands is unknown and no tidy is due (that first compaction falls on
whichever write reaches it); until two are, the period is taken as GUESS. A compaction
overdue by NEVER commits means the commits do not show their compactions (a quicker flash,
another filesystem): no tidy until a slow one is seen again, and the period is learned anew.
"""

from micropython import const

SLOW_US = const(20_000)  # a commit this slow erased a sector: a compaction
# ... when the step allocates: MicroPython may collect the garbage in it first, 24 ms on the
# chip's heap (a sector erase and its copy take 50 ms)
SLOW_ALLOC_US = const(40_000)
GUESS = const(12)  # commits between compactions before two are seen (the chip: 15 to 9)
MARGIN = const(1)  # commits of slack for a period that shrank, or a compaction's 2nd commit
SHORT = const(4)  # commits since a compaction below which the next one is no period
TIDY_MAX = const(6)  # records a tidy writes at most (a page and 3 ms of Python each)
NEVER = const(40)  # commits since a compaction without another: they do not show


class Compactions:
    def __init__(self):
        self.since = 0  # commits since the last compaction (power-up before one), to NEVER
        self.seen = False  # a compaction seen since power-up
        self.period = 0  # commits between the last two compactions, 0: not learned yet

    def wrote(self, commits, us, allocates=False):
        """A step of `commits` commits took `us` µs (one that `allocates` may have spent
        some of it collecting the garbage). True when it compacted (then the count starts
        again after it: the compacting commit is taken as its last; the period is the
        count, unless it is under SHORT or none was seen before it)."""
        if us < (SLOW_ALLOC_US if allocates else SLOW_US):
            if self.since < NEVER:  # past it, the count says nothing more
                self.since += commits
            return False
        n = self.since + commits
        if not self.seen or self.since >= NEVER:
            self.period = 0
        elif n >= SHORT:
            self.period = n
        self.seen = True
        self.since = 0
        return True

    def fresh(self):
        """The folder was just made: nothing known, as at power-up (its empty block's first
        compaction is no period)."""
        self.seen = False
        self.since = 0
        self.period = 0

    def left(self):
        """The commits up to the next compaction, the compacting one included: 0 when it is
        overdue, -1 when unknown (none seen since power-up, or none in NEVER commits)."""
        if not self.seen or self.since >= NEVER:
            return -1
        n = (self.period or GUESS) - self.since
        return n if n > 0 else 0

    def tidy(self, need):
        """The records a tidy writes now, at most (it stops at the one that compacts), 0
        when none is due: the next press's record makes `need` commits."""
        left = self.left()
        if left < 0 or left > need + MARGIN:
            return 0
        return TIDY_MAX
