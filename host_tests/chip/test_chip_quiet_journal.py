"""The journal's compactions on the chip (MicroPython's littlefs, the W25Q16JV's erase
times): journal_tidy.py learns the journal folder's period from the writes' durations, so
that a running clock nobody touches writes its journal quietly (a record every 10 s, a
compaction brought forward onto a quiet wakeup now and then, never a tidy every second) and
no press's record meets a compaction, from the first press after a fresh flash on. Erases
that are no period (the folders' creation, an open that compacts and the flush after it
that compacts again) must not be learnt as one: a period of one commit asks for a tidy at
every quiet wakeup and lets the real compaction fall on a press."""

import chip
import chip_bench as cb
import chip_env

pico = chip_env.chip_fixture()
MS = chip.MS
BULLET_1_0 = 8
SIDES = ("left", "right")


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
    assert len(long_wakes) <= 1  # the tidy that meets the first compaction
    erases = [op for op in tr.flash_ops if op[1] == "erase" and t0 <= op[0] < t1]
    assert len(erases) <= 1
    assert busy < 0.8  # the renders' 0.42 %, records, a compaction (the goal: 0.5 %)


def test_from_a_fresh_flash_no_press_record_meets_a_compaction(pico):
    """Bullet 1+0 on a fresh flash, the first press 200 ms after the set-up (before the
    journal is made ready: its record starts it), then a move every 0.7-2 s: each press's
    record is a page, and no erase comes within 30 ms of a lever's edge."""
    with pico.session() as s:
        s.run_to(chip.BOOT_MS)
        s.choose_preset(BULLET_1_0)
        presses = [s.t]
        s.press("left")
        running = 1
        for k in range(12):
            s.run_ms(700 + 173 * k)
            presses.append(s.t)
            s.press(SIDES[running], after_ms=0)
            running = 1 - running
            s.run_ms(60)
        s.run_ms(1_000)
        tr = s.trace()
        chip_env.clean(tr)
        assert chip.read_file(s.save_flash(), "errors.log") in (None, b"")
    erases = [op[0] for op in tr.flash_ops if op[1] == "erase" and op[0] >= presses[0] * MS]
    assert erases  # the game's writes reach a compaction (else this proves nothing)
    for t in presses:
        near = [(e - t * MS) / MS for e in erases if 0 <= e - t * MS < 30 * MS]
        assert not near, "an erase %s ms after the press at %.0f ms" % (near, t)
