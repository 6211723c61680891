"""An engine event that a *tick* makes inside the ms `now`.

The loop's alarm wakes it at a deadline's exact us and ticks the engine to that us
(`tick(drained, drained_us)`), so a flag-fall transition (or a byo-yomi / Canadian period)
lands at `now`.du, du > 0: inside the ms `now`, as otherwise only a press can. engine.py's
contract then asks the caller to look at next_change again from `now` + 1 (the times bend
inside the ms: remaining(now) and remaining(now + 1) round to the same ms), which app.py
does after a press and after such a tick. Without it a new period shown as HhMM (no colon
beat, no overtime counter to wake the loop) never changes by itself: `1h00` until the next
press. (Byo-yomi and Canadian periods, and MM:SS layouts, were saved by those other
wakeups.)
"""

from test_firmware_exact import boot, countdown, lever_at, on_grid

US = 1000


def test_the_next_period_granted_at_a_flag_inside_a_ms_counts_down_on_the_display(tmp_path):
    # 10 s for 40 moves, then 1 h; the next period at flag fall. White's clock starts at
    # .400 of a ms, so its flag falls at .400 of a ms too, and the 1 h period starts there.
    control = {"custom": {"mode": 0, "periods": [[10, 40, 0, 0], [3600, 0, 0, 0]]}}
    clock = boot(tmp_path, control, transition=1)
    start = lever_at(clock, "left", on_grid(clock, clock.vt.us + 1_000, 400))
    g = clock.app.ui.game
    flag = start + 10_000 * US
    assert g.deadline_exact()[1] == 400
    for after_s in (2, 5, 30):
        t = flag + after_s * 1_000_000 + 500_000
        clock.run_ms(-(-(t - clock.vt.us) // US))
        assert g.period[1] == 1  # the transition happened, at its instant
        left = 3_600_000 * US - (clock.vt.us - flag)
        assert clock.display(1) == countdown(left), after_s
