"""The lever stamps on the emulated chip: PIO1's machines (lever_pio.py) against the edges.

Runs when MICROPYTHON_UF2 names a MicroPython rp2 .uf2 for the Pico (chip_env.require).
The emulator records every word PIO1's machines push and the instant the firmware started
them in step with the µs timer (tools/chip/run.mjs), so chip.Trace.stamps gives, for every
press, the stamp the firmware computes from the word and the closing edge it is for. The
emulator counts cycles: each run is the same, so the bounds are exact, not statistical.

- A stamp is the µs timer's count at its edge, or one more (never less), at every phase of
  the µs, whatever the bounce: |stamp instant - edge| <= 1 µs.
- An edge inside a flash erase, a flash program (the core stalled with interrupts off),
  back-to-back garbage collections and a REPL exchange over USB is stamped as exactly.
- A bouncing press costs the core one interrupt: one word a press, none per bounce edge.
- During a game, with bounce and at phases that put the press inside a render wakeup, the
  press's LED is lit within 1.5 ms of its first edge, and no press is lost.
"""

import json

import chip
import chip_bench as cb
import chip_env

pico = chip_env.chip_fixture()
MS = chip.MS
BOOT_MS = chip.BOOT_MS
BLITZ_3_2 = 6
LED_PINS = chip.LED_PINS
HOLD_MS = 6  # a press's hold before its release (the release bounces: chip_bench's)


def press(s, name, at_ms, bounce=()):
    """Close lever `name` at `at_ms` with `bounce`, open it HOLD_MS later, bouncing: the
    chip bench's lever (chip_bench.bouncing_press, its BOUNCES and RELEASE_BOUNCE)."""
    cb.bouncing_press(s, name, at_ms, bounce, HOLD_MS)


def handed_over(s):
    """Boot; a Ctrl-C at the ready screen hands the board over (usbguard.py): the lever
    machines run on, their words go to the ring nobody drains."""
    s.run_to(BOOT_MS)
    s.repl("lv = clock.board.levers")


def ring(s):
    """Every press queued in the board's ring: [(side, stamp)], in order."""
    code = "out = []\nwhile True:\n    side = lv.pop()\n    if side < 0:\n        break\n"
    code += "    out.append((side, lv.stamp_us))\nprint(json.dumps(out))"
    return [tuple(x) for x in s.repl_json("import json\n" + code)]


def check_stamps(tr, n):
    """`n` presses, one word each, every stamp within a µs of its edge (and the timer's
    count at the edge, or one more)."""
    assert len(tr.pushes) == n  # one word a press: no bounce edge reached the core
    assert len(tr.stamps) == n
    for edge, _gpio, instant, value in tr.stamps:
        assert -1_000 < instant - edge <= 1_000, (edge, instant)
        assert value - (edge // 1_000) & chip.TICKS_MASK in (0, 1), (edge, value)


def test_stamps_are_exact_at_every_phase_of_the_us_whatever_the_bounce(pico):
    with pico.session() as s:
        handed_over(s)
        t = s.t + 5
        n = 0
        for k in range(12):
            name = "left" if k % 2 else "right"
            at = t + k * 30 + (k * 0.0837) % 1  # phases across the µs and the ms
            press(s, name, at, cb.BOUNCES[k % len(cb.BOUNCES)])
            n += 1
        s.run_to(t + 12 * 30 + 40)
        tr = s.trace()
        check_stamps(tr, n)
        by_edge = sorted((e, 0 if g == chip.PINS["left"] else 1, v) for e, g, _i, v in tr.stamps)
        assert ring(s) == [(side, v) for _e, side, v in by_edge]  # timestamp order


def test_an_edge_while_the_core_is_stalled_or_busy_is_stamped_as_exactly(pico):
    with pico.session() as s:
        handed_over(s)
        # A flash erase (45 ms, interrupts off) and a page program (0.7 ms): the presses
        # come 17 ms and 0.3 ms into the next ones, while a file is written.
        s._ask(
            op="arm_flash_press",
            kind="erase",
            after_ns=17 * MS,
            hold_ns=5 * MS,
            gpio=chip.PINS["left"],
        )
        write = "f = open('x.bin', 'wb')\nf.write(bytes(9000))\nf.close()\nimport os\n"
        s.repl(write + "os.remove('x.bin')\n")
        s.run_ms(40)
        s._ask(
            op="arm_flash_press",
            kind="program",
            after_ns=MS * 3 // 10,
            hold_ns=5 * MS,
            gpio=chip.PINS["right"],
        )
        s.repl(write + "os.remove('x.bin')\n")
        s.run_ms(40)
        # Garbage collections back to back, and a REPL exchange over USB (the code's bytes
        # come in packets while the presses fall).
        t = s.t + 2
        for k in range(6):
            press(s, "left" if k % 2 else "right", t + 5 + k * 31 + k * 0.17, cb.BOUNCES[k % 4])
        junk = "import gc\nx = [bytearray(16) for i in range(300)]\n# %s\n" % ("z" * 3000)
        s.repl(junk + "for i in range(60):\n    gc.collect()\n")
        s.run_to(max(s.t, t + 6 * 31) + 40)
        tr = s.trace()
        assert [p[0] for p in tr.flash_presses] == ["erase", "program"]
        for kind, op_t, at, gpio in tr.flash_presses:
            ops = [o for o in tr.flash_ops if o[1] == kind and o[0] == op_t]
            assert ops, kind
            (stamp,) = [x for x in tr.stamps if x[0] == at and x[1] == gpio]
            assert -1_000 < stamp[2] - stamp[0] <= 1_000
        check_stamps(tr, 8)
        assert len(ring(s)) == 8


def test_a_bouncing_press_lights_its_led_within_1_5_ms_even_inside_a_render(pico):
    with pico.session() as s:
        s.run_to(BOOT_MS)
        s.choose_preset(BLITZ_3_2)
        press(s, "left", s.t)  # White's (right) clock starts
        s.run_ms(1_000)
        edges = []
        side = "right"
        for k in range(14):
            phase = (k * 0.2371) % 1
            if k % 2:
                # 0.1-1.9 ms after the start of a render wakeup: the last one the trace
                # shows plus whole half seconds (the running side's text and colon change
                # on its half seconds)
                prev = edges[-1][0] + 5 * MS  # after the last press's own wakeups
                renders = [b for b, e in s.trace().segments if e - b > 1.2 * MS and b > prev]
                last = renders[-1] / MS
                at = last + 500 * (int((s.t - last) / 500) + 1) + 0.1 + 1.8 * phase
            else:
                at = s.t + 3 + 400 * phase
            press(s, side, at, cb.BOUNCES[k % len(cb.BOUNCES)])
            edges.append((round(at * MS), side))
            s.run_to(at + 700)
            side = "left" if side == "right" else "right"
        tr = s.trace()
        assert tr.emulator_errors == [] and tr.reset is None
        lags = []
        inside = 0
        for at, who in edges:
            # the other side's clock starts: its LED goes on
            led = LED_PINS[1] if who == "left" else LED_PINS[0]
            lit = [t for t, g, level in tr.leds if g == led and level == 1 and t >= at]
            assert lit, (at, who)
            lags.append(lit[0] - at)
            inside += any(b < at < e for b, e in tr.segments)
        assert max(lags) <= 1.5 * MS, json.dumps([round(x / 1e6, 3) for x in lags])
        assert inside >= 5  # most of the aimed presses came while the loop was awake
        assert len(tr.pushes) == len(edges) + 1  # one word a press, none lost
