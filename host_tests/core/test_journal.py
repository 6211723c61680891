"""The journal's record format and recovery (journal.py), its files (journal_files.py) on
the runtime's real filesystem, and game_state.snapshot_at.

Runs under CPython and MicroPython (plain unittest, firmware modules only)."""

import unittest

import engine as E
import game_state
import journal as J
import journal_files
import presets
import timecontrol as tc
from scratch import fresh_dir, remove_tree

IDENT = 0x2345678


def running(half_moves, control=None):
    """A game of preset 5 (blitz 5+3), started, `half_moves` moves of 1.0-1.9 s at odd us;
    its clock runs. Returns (game, the instant of the last press: ms, us)."""
    g = E.Game(control or presets.control(5))
    g.set_ident(IDENT)
    t = 1_000
    g.press(0, t, 317)
    u = 317
    for i in range(half_moves):
        t += 1_000 + (i * 97) % 900
        u = (u + 211) % 1000
        g.press(g.running, t, u)
    return g, t, u


def flat_log(g):
    out = []
    for row in g.log_rows(True):
        out.extend(row)
    return out


class StateRecord(unittest.TestCase):
    def setUp(self):
        g, t, u = running(13)
        self.game = g
        self.snap = game_state.snapshot_at(g, t + 4_321, 999)
        self.rec = J.encode_state(12, IDENT, g.log_count, self.snap, g, 8)

    def test_a_record_reads_back_with_its_rows(self):
        rows = list(self.game.log_rows(True))[8:]
        self.assertEqual(J.decode_state(self.rec), (12, IDENT, 13, self.snap, 8, rows))
        bare = J.encode_state(3, IDENT, 13, self.snap)
        self.assertEqual(J.decode_state(bare), (3, IDENT, 13, self.snap, 13, []))

    def test_a_record_reads_back_with_the_tail_of_a_longer_one_after_it(self):
        """A slot is rewritten in place, which never shrinks it: the bytes after a record
        are not read, and a record torn over a longer one never reads."""
        rows = list(self.game.log_rows(True))[8:]
        longer = J.encode_state(11, IDENT, 13, self.snap, self.game, 1)
        bare = J.encode_state(13, IDENT, 13, self.snap)
        self.assertTrue(len(longer) > len(self.rec))
        self.assertEqual(
            J.decode_state(self.rec + longer[len(self.rec) :]), (12, IDENT, 13, self.snap, 8, rows)
        )
        self.assertEqual(J.decode_state(bare + longer[len(bare) :])[0], 13)
        for n in range(len(bare)):  # the new record's first n bytes over the old one
            got = J.decode_state(bare[:n] + longer[n:])
            self.assertTrue(got is None or got[0] == 11, n)

    def test_no_proper_prefix_reads(self):
        for n in range(len(self.rec)):
            self.assertIsNone(J.decode_state(self.rec[:n]), n)

    def test_no_record_with_one_byte_changed_reads(self):
        for i in range(len(self.rec)):
            for x in (0x01, 0x80, 0xFF):
                b = bytearray(self.rec)
                b[i] ^= x
                self.assertIsNone(J.decode_state(bytes(b)), (i, x))

    def test_the_biggest_state_fits_its_slot_and_one_page(self):
        import journal_files

        g, t, u = running(E.LOG_CAPACITY + 7, presets.control(0))
        big = game_state.snapshot_at(g, t + 86_000_000, 999)
        first = g.log_count - journal_files.CARRY  # the rows a record carries at most
        rec = J.encode_state(1 << 29, 1 << 29, g.log_count, big, g, first)
        self.assertLessEqual(len(rec), J.STATE_MAX)
        self.assertLessEqual(len(rec), 230)  # with littlefs's tags, one 256-byte commit

    def test_the_newest_whole_slot_of_the_game_wins(self):
        older = J.encode_state(11, IDENT, 6, [3, 2])
        other = J.encode_state(99, IDENT + 1, 6, [3, 2])
        mine = J.newest([self.rec, older], IDENT)
        self.assertEqual(mine[:3], (12, 13, self.snap))
        self.assertEqual(J.newest([older, self.rec], IDENT), mine)
        self.assertEqual(J.newest([self.rec[:-1], older], IDENT), (11, 6, [3, 2], 6, []))
        self.assertEqual(J.newest([other, older], IDENT), (11, 6, [3, 2], 6, []))
        self.assertIsNone(J.newest([b"", other], IDENT))


class Chunks(unittest.TestCase):
    def test_a_chunk_reads_back_and_a_torn_or_misplaced_one_does_not(self):
        g, t, u = running(20)
        data = J.encode_chunk(IDENT, g, 8, 16)
        self.assertLessEqual(len(data), J.CHUNK_MAX)
        rows = list(g.log_rows(True))[8:16]
        self.assertEqual(J.decode_chunk(IDENT, 1, data), (8, rows))
        for n in range(len(data)):
            self.assertIsNone(J.decode_chunk(IDENT, 1, data[:n]), n)
        self.assertIsNone(J.decode_chunk(IDENT, 2, data))  # another place
        self.assertIsNone(J.decode_chunk(IDENT + 1, 1, data))  # another game
        late = J.encode_chunk(IDENT, g, 11, 16)  # the journal started at half-move 11
        self.assertEqual(J.decode_chunk(IDENT, 1, late), (11, rows[3:]))

    def test_row_of_is_what_log_rows_gives(self):
        g, t, u = running(13)
        self.assertEqual([J.row_of(g, k) for k in range(13)], list(g.log_rows(True)))


def journal_of(g, first):
    """(chunks, record first, record rows) of a journal of game g that started at half-move
    `first`."""
    n = g.log_count
    whole = n - n % J.ROWS_PER_CHUNK
    chunks = {}
    k = first
    while k < whole:
        c = k // J.ROWS_PER_CHUNK
        end = (c + 1) * J.ROWS_PER_CHUNK
        chunks[c] = J.encode_chunk(IDENT, g, k, end)
        k = end
    rec = J.decode_state(J.encode_state(1, IDENT, n, [3], g, max(k, first)))
    return chunks, rec[4], rec[5]


class Gather(unittest.TestCase):
    def test_rows_from_the_base_log_the_chunks_and_the_record(self):
        g, t, u = running(30)
        full = flat_log(g)
        base = full[: 3 * 11]  # game.json held the first 11 half-moves
        ch, first, rows = journal_of(g, 11)
        self.assertEqual((sorted(ch), first, len(rows)), ([1, 2], 24, 6))
        self.assertEqual(J.gather(IDENT, 11, 30, first, rows, ch, base), full)
        ch0, first0, rows0 = journal_of(g, 0)
        self.assertEqual(J.gather(IDENT, 0, 30, first0, rows0, ch0, None), full)
        self.assertIsNone(J.gather(IDENT, 11, 30, first, rows, ch, None))
        self.assertEqual(list(J.chunks_for(11, 30, first)), [1, 2])

    def test_a_missing_chunk_is_no_log(self):
        g, t, u = running(30)
        ch, first, rows = journal_of(g, 0)
        ch[2] = ch[2][:-1]  # torn
        self.assertIsNone(J.gather(IDENT, 0, 30, first, rows, ch, None))
        del ch[2]
        self.assertIsNone(J.gather(IDENT, 0, 30, first, rows, ch, None))

    def test_the_ring_keeps_the_newest_rows(self):
        g, t, u = running(E.LOG_CAPACITY + 50)
        n = g.log_count
        ch, first, rows = journal_of(g, 48)
        self.assertEqual(list(J.chunks_for(0, n, first)), list(range(50 // 8, first // 8)))
        self.assertEqual(J.gather(IDENT, 0, n, first, rows, ch, None), flat_log(g))
        ch, first, rows = journal_of(g, 60)  # 50..59 never written
        self.assertIsNone(J.gather(IDENT, 0, n, first, rows, ch, None))


class SnapshotAt(unittest.TestCase):
    def test_a_running_game_as_if_paused_at_the_instant(self):
        for control in (presets.control(5), presets.control(0), presets.control(8)):
            for later in (1, 2_345, 7_777):
                g, t, u = running(9, control)
                snap = game_state.snapshot_at(g, t + later, 0)
                self.assertEqual(g.state, E.RUNNING)  # unchanged
                self.assertEqual(g.pause(t + later), E.OK)
                self.assertEqual(snap, game_state.snapshot(g))

    def test_an_instant_before_the_press_is_the_press(self):
        g, t, u = running(6)
        self.assertEqual(game_state.snapshot_at(g, t, 0), game_state.snapshot_at(g, t, u))
        self.assertEqual(game_state.snapshot_at(g, t, u)[4], 0)  # nothing of the next move charged

    def test_at_the_press_the_times_are_exact(self):
        g, t, u = running(4)
        snap = game_state.snapshot_at(g, t, u)
        r = E.Game(presets.control(5))
        self.assertEqual(game_state.restore(r, snap), E.OK)
        self.assertEqual(
            (r.remaining_exact(0, 0), r.remaining_exact(1, 0)),
            (g.remaining_exact(0, t, u), g.remaining_exact(1, t, u)),
        )
        self.assertEqual((r.running, r.state, list(r.moves)), (g.running, E.PAUSED, [2, 2]))

    def test_in_byo_yomi_the_period_and_the_periods_left(self):
        c = tc.TimeControl([(10_000, 0, tc.BONUS_NONE, 0)], tc.MODE_BYOYOMI, "b", (3, 5_000))
        g, t, u = running(2, c)
        at = t + 12_500  # main time out at +10 s less what was used: in the first period
        g.tick(at)
        snap = game_state.snapshot_at(g, at, 0)
        r = E.Game(c)
        self.assertEqual(game_state.restore(r, snap), E.OK)
        s = g.running
        self.assertEqual(r.remaining_exact(s, 0), g.remaining_exact(s, at))
        self.assertEqual((r.ot_left[s], r.period[s]), (g.ot_left[s], g.period[s]))
        self.assertEqual(r.period[s], 1)


class Files(unittest.TestCase):
    def setUp(self):
        self.root = fresh_dir("/tmp/clock-journal")

    def tearDown(self):
        remove_tree(self.root)

    def test_records_read_back_as_a_saved_game(self):
        g, t, u = running(0)
        j = journal_files.Journal(self.root)
        j.start(g, {"preset": 5}, None)
        j.write(g, t, u)
        for i in range(21):
            t += 1_500 + i
            g.press(g.running, t, i)
            j.write(g, t, i)
        j.write(g, t + 9_000, 5)  # the move in progress, 9 s on
        got = j.load(None, presets.COUNT)
        self.assertEqual(got["id"], IDENT)
        self.assertEqual(got["control"], {"preset": 5})
        self.assertEqual(got["n"], 21)
        self.assertEqual(got["snap"], game_state.snapshot_at(g, t + 9_000, 5))
        self.assertEqual(got["log"], flat_log(g))
        self.assertEqual(got["opts"], [1, 0, 0])
        self.assertTrue(j.clear())
        self.assertIsNone(j.load(None, presets.COUNT))

    def test_a_journal_that_continues_a_saved_game_takes_its_first_rows_from_it(self):
        g, t, u = running(12)
        g.pause(t + 100)
        game_state.set_time(g, g.running, 61_000, t + 100)  # a correction while paused
        snap = game_state.snapshot(g)
        arb = game_state.corrections(g)
        saved = {"id": IDENT, "n": 12, "snap": snap, "log": flat_log(g), "arb": arb}
        g.resume(t + 60_000)
        j = journal_files.Journal(self.root)
        j.start(g, {"preset": 5}, (12, J.tag(snap)))
        for _ in range(5):
            t = g.last_event + 2_000
            g.press(g.running, t, 7)
            j.write(g, t, 7)
        got = j.load(saved, presets.COUNT)
        self.assertEqual(got["log"], flat_log(g))
        self.assertEqual(got["base"], J.tag(snap))
        self.assertEqual(got["arb"], arb)  # the base's corrections: the game's
        self.assertEqual(arb[1:4], [12, E.ACT_SET_TIME, g.white])
        other = dict(saved)
        other["snap"] = snap[:4] + [snap[4] + 1] + snap[5:]  # saved again since: not the base
        self.assertIsNone(j.load(other, presets.COUNT)["log"])
        self.assertIsNone(j.load(other, presets.COUNT)["arb"])


if __name__ == "__main__":
    unittest.main()
