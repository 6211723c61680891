"""The resume state with its move log and the game records, on the runtime's real files.

Runs under CPython and MicroPython (plain unittest, firmware modules only): on MicroPython
json.load() parses game.json straight from the file, and the records' heads and tails are
read with seek(), as on the board."""

import os
import unittest

import archive
import engine as E
import game_state
import gamelog
import presets
import settings
import storage
from scratch import fresh_dir, remove_tree


def played(half_moves):
    """A paused game of preset 5 (blitz 5+3) with `half_moves` moves of 1.0-1.9 s."""
    g = E.Game(presets.control(5))
    t = 1_000
    g.press(0, t)
    for i in range(half_moves):
        t += 1_000 + (i * 97) % 900
        g.press(g.running, t)
    g.pause(t + 5_000)
    return g


class GameFile(unittest.TestCase):
    def setUp(self):
        self.root = fresh_dir("/tmp/clock-core")

    def tearDown(self):
        remove_tree(self.root)

    def test_the_saved_log_holds_what_the_ring_holds(self):
        self.assertEqual(settings.LOG_ROWS, E.LOG_CAPACITY)

    def test_a_long_game_comes_back_with_its_whole_log(self):
        g = played(E.LOG_CAPACITY + 11)
        self.assertTrue(archive.save(self.root, g, {"preset": 5}))
        size = storage.size(self.root + "/game.json")
        self.assertTrue(8_000 < size < settings.GAME_READ_LIMIT)
        saved = settings.load_game(self.root)
        self.assertEqual(saved["n"], E.LOG_CAPACITY + 11)
        self.assertEqual(saved["id"], g.ident)
        h = E.Game(presets.control(5))
        self.assertEqual(game_state.restore(h, saved["snap"]), E.OK)
        self.assertEqual(game_state.restore_log(h, saved["n"], saved["log"]), E.OK)
        self.assertEqual(h.log_entries(), g.log_entries())
        self.assertEqual(h.remaining(0, 0), g.remaining(0, 0))

    def test_records_are_found_by_identity_and_leftovers_repaired(self):
        g = played(6)
        g.set_ident(123_456_789)
        game_state.finish(g, E.RESULT_DRAW, 2, 60_000)
        self.assertEqual(archive.write_record(self.root, g, os), "g000.json")
        self.assertEqual(gamelog.find_game(self.root, 123_456_789), "g000.json")
        self.assertEqual(gamelog.find_game(self.root, 12_345_678), None)
        folder = self.root + "/games/"
        os.rename(folder + "g000.json", folder + "g000.json.tmp")  # a cut before the rename
        with open(folder + "g001.json.tmp", "wb") as f:
            f.write(b'{"version": 1, "id": 5, "control": "x", "moves": [\n[0, 1, 5, 5]')
        self.assertEqual(gamelog.find_game(self.root, 123_456_789), None)
        gamelog.repair(self.root)
        self.assertEqual(sorted(os.listdir(folder)), ["g000.json"])
        self.assertEqual(gamelog.find_game(self.root, 123_456_789), "g000.json")
