"""A running clock nobody touches writes its journal quietly on the chip: a record every
10 s, a compaction of the journal folder's metadata now and then (brought forward onto a
quiet wakeup, journal_tidy.py), never an erase at every record. On MicroPython's littlefs a
file opened before a compaction that a new file's commit causes makes every later flush
compact again (51 ms a record); the state slots reopen after each compaction
(journal_files.Journal._close), and this test fails when they do not."""

import chip
import chip_bench as cb
import chip_env

pico = chip_env.chip_fixture()
MS = 1_000_000  # ns


def test_an_untouched_game_erases_rarely_and_stays_near_its_cpu_goal(pico):
    with pico.session() as s:
        edge = cb.start_game(s, cb.RAPID_15_10)
        s.run_to(edge + 3_000)
        t0 = s.t * MS
        s.run_to(edge + 63_000)
        t1 = s.t * MS
        tr = s.trace()
        chip_env.clean(tr)
        assert chip.read_file(s.save_flash(), "errors.log") in (None, b"")
    long_wakes = [(b - edge * MS) / MS for b, e in tr.wakes(t0, t1) if e - b > 20 * MS]
    busy = 100.0 * tr.awake_ns(t0, t1) / (t1 - t0)
    print("\nuntouched 60 s: busy %.2f %%, wakeups over 20 ms at %s" % (busy, long_wakes))
    assert len(long_wakes) <= 2  # a compaction's tidy, at most one more
    assert busy < 0.8  # the renders' 0.42 %, records, a compaction (the goal: 0.5 %)
