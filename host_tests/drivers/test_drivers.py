"""Drivers on the fake board: TM1637 traffic, levers (the PIO program on the fake `rp2`, as
board.py builds them), buttons, buzzer, and the fake `machine` itself (pins, IRQs, timers,
PWM, ADC, watchdog). Virtual time only; nothing sleeps."""

import dormant
import machine
import pytest
import rp2
import segments
import sleepgate
import timefmt
from buttons import LONG, MINUS, PLAY, PLUS, REPEAT, SET, SHORT, Buttons, button_of, kind_of
from buzzer import BEEP, CONFIRM, FLAG, Buzzer
from hypothesis import example, given, settings
from hypothesis import strategies as st
from levers import Levers
from tm1637 import TM1637

from simboard import tm1637_decode
from simboard.firmware import import_board

board_mod = import_board()

CLK, DIO = 16, 17
LEFT_PIN, RIGHT_PIN = board_mod._LEFT_LEVER, board_mod._RIGHT_LEVER  # the board's levers
QUIET_MS = Levers.debounce_us // 1000 + 1


@pytest.fixture
def board(vt):
    machine.host_reset()
    return vt


def ticks(vt):
    return vt.ticks_us()


# ---------------------------------------------------------------------------- fake machine


class TestFakePin:
    def test_pull_up_reads_high_until_driven(self, board):
        p = machine.Pin(5, machine.Pin.IN, machine.Pin.PULL_UP)
        assert p.value() == 1
        machine.press(5)
        assert p.value() == 0 and p() == 0
        machine.release(5)
        assert p.value() == 1

    def test_power_up_state_is_input_with_pull_down(self, board):
        p = machine.Pin(6)
        assert p.mode() == machine.Pin.IN and p.value() == 0

    def test_same_gpio_same_object_and_plain_pin_keeps_config(self, board):
        p = machine.Pin(7, machine.Pin.OUT, value=1)
        q = machine.Pin(7)
        assert q is p and q.mode() == machine.Pin.OUT and q.value() == 1
        assert machine.Pin("GP7") is p
        assert machine.Pin("LED") is machine.Pin(25)

    def test_invalid_pins(self, board):
        for bad in (-1, 30, "GPX", "D4"):
            with pytest.raises(ValueError):
                machine.Pin(bad)

    def test_init_without_pull_disables_the_pull(self, board):
        p = machine.Pin(8, machine.Pin.IN, machine.Pin.PULL_UP)
        p.init(machine.Pin.IN)  # pull=None: no pull, the floating line keeps its level
        assert p.pull() == 0 and p.value() == 1
        p.drive(0)
        p.drive(None)
        assert p.value() == 0

    def test_out_value_on_off_toggle(self, board):
        p = machine.Pin(9, machine.Pin.OUT)
        p.on()
        assert p.value() == 1
        p.off()
        assert p.value() == 0
        p.toggle()
        assert p.value() == 1
        p(0)
        assert p.value() == 0

    def test_value_on_input_is_latched_for_later_output(self, board):
        p = machine.Pin(10, machine.Pin.IN, machine.Pin.PULL_DOWN)
        p.value(1)
        assert p.value() == 0
        p.init(machine.Pin.OUT)
        assert p.value() == 1

    def test_open_drain(self, board):
        p = machine.Pin(11, machine.Pin.OPEN_DRAIN, machine.Pin.PULL_UP)
        assert p.value() == 1  # default value=1: released
        p.value(0)
        assert p.value() == 0 and p.is_driving()
        p.value(1)
        assert p.value() == 1 and not p.is_driving()
        p.drive(0, source="chip")  # someone else pulls the released line low
        assert p.value() == 0 and p.contention == 0

    def test_push_pull_contention_is_counted(self, board):
        p = machine.Pin(12, machine.Pin.OUT, value=1)
        p.drive(0)
        assert p.value() == 1 and p.contention == 1

    def test_irq_fires_on_the_right_edge_only(self, board):
        p = machine.Pin(13, machine.Pin.IN, machine.Pin.PULL_UP)
        seen = []
        p.irq(
            lambda pin: seen.append((pin, pin.irq().flags())), machine.Pin.IRQ_FALLING, hard=True
        )
        machine.press(13)
        machine.press(13)  # no change, no edge
        machine.release(13)
        assert seen == [(p, machine.Pin.IRQ_FALLING)]
        p.irq(None)
        machine.press(13)
        assert len(seen) == 1

    def test_irq_default_trigger_is_both_edges(self, board):
        p = machine.Pin(14, machine.Pin.IN, machine.Pin.PULL_UP)
        seen = []
        p.irq(lambda pin: seen.append(pin.value()))
        machine.press(14)
        machine.release(14)
        assert seen == [0, 1]

    def test_irq_waits_while_disabled(self, board):
        p = machine.Pin(15, machine.Pin.IN, machine.Pin.PULL_UP)
        seen = []
        p.irq(lambda pin: seen.append(machine.irq_enabled()), machine.Pin.IRQ_FALLING, hard=True)
        state = machine.disable_irq()
        machine.press(15)
        assert seen == []
        machine.enable_irq(state)
        assert seen == [True]

    def test_nested_disable_irq(self, board):
        outer = machine.disable_irq()
        inner = machine.disable_irq()
        machine.enable_irq(inner)
        assert not machine.irq_enabled()
        machine.enable_irq(outer)
        assert machine.irq_enabled()

    def test_trace_orders_changes_across_pins(self, board):
        a = machine.Pin(18, machine.Pin.OUT, value=0)
        b = machine.Pin(19, machine.Pin.OUT, value=0)
        a.on()
        b.on()
        a.off()
        seqs = sorted(
            [(s, "a", lv) for s, _, lv in a.trace] + [(s, "b", lv) for s, _, lv in b.trace]
        )
        assert [(n, lv) for _, n, lv in seqs] == [("a", 1), ("b", 1), ("a", 0)]

    def test_watchers_see_level_changes(self, board):
        p = machine.Pin(20, machine.Pin.OUT, value=0)
        seen = []
        p.watch(lambda gpio, level: seen.append((gpio, level)))
        p.on()
        p.on()
        assert seen == [(20, 1)]


class TestFakeTimer:
    def test_periodic_fires_at_virtual_deadlines(self, board):
        hits = []
        t = machine.Timer(-1)
        t.init(mode=machine.Timer.PERIODIC, period=10, callback=lambda tm: hits.append(board.us))
        start = board.us
        machine.advance_ms(35)
        assert [h - start for h in hits] == [10_000, 20_000, 30_000]
        assert board.us == start + 35_000
        t.deinit()
        machine.advance_ms(50)
        assert len(hits) == 3

    def test_one_shot_and_freq(self, board):
        hits = []
        machine.Timer(-1, mode=machine.Timer.ONE_SHOT, freq=1000, callback=hits.append)
        machine.advance(5_000)
        assert len(hits) == 1

    def test_only_virtual_timer_exists(self, board):
        with pytest.raises(ValueError):
            machine.Timer(0)

    def test_init_takes_keywords_only(self, board):
        with pytest.raises(TypeError):
            machine.Timer(-1).init(machine.Timer.PERIODIC)

    def test_events_run_in_time_then_creation_order(self, board):
        order = []
        machine.after(2_000, lambda: order.append("b"))
        machine.Timer(
            -1, mode=machine.Timer.ONE_SHOT, period=1, callback=lambda t: order.append("a")
        )
        machine.after(1_000, lambda: order.append("a2"))
        cancelled = machine.after(500, lambda: order.append("never"))
        cancelled.cancel()
        machine.advance(3_000)
        assert order == ["a", "a2", "b"]

    def test_timer_waits_while_irq_disabled(self, board):
        hits = []
        machine.Timer(-1, mode=machine.Timer.ONE_SHOT, period=1, callback=hits.append)
        state = machine.disable_irq()
        machine.advance(2_000)
        assert hits == []
        machine.enable_irq(state)
        assert len(hits) == 1

    def test_hook_sleep_fires_timers(self, board):
        import time

        hits = []
        machine.Timer(-1, mode=machine.Timer.ONE_SHOT, period=1, callback=hits.append)
        machine.hook_sleep()
        time.sleep_us(1_500)
        assert len(hits) == 1


class TestFakePWM:
    def test_freq_duty_and_trace(self, board):
        pwm = machine.PWM(machine.Pin(22))
        assert not pwm.sounding()
        pwm.freq(2000)
        assert not pwm.sounding()  # no duty yet
        pwm.duty_u16(32768)
        assert pwm.sounding() and pwm.freq() == 2000 and pwm.duty_u16() == 32768
        pwm.deinit()
        assert not pwm.sounding()
        pwm.duty_u16(1000)  # a duty set restarts the slice
        assert pwm.sounding()
        assert [row[1:] for row in pwm.trace][-3:] == [
            (2000, 32768, True),
            (2000, 32768, False),
            (2000, 1000, True),
        ]

    def test_freq_range(self, board):
        pwm = machine.PWM(22)
        with pytest.raises(ValueError):
            pwm.freq(7)
        with pytest.raises(ValueError):
            pwm.freq(100_000_000)
        pwm.freq(8)
        with pytest.raises(ValueError):
            pwm.duty_u16(65536)
        with pytest.raises(ValueError):
            pwm.duty_u16(-1)

    def test_channels_of_a_slice_share_the_frequency(self, board):
        a = machine.PWM(machine.Pin(4), freq=1000, duty_u16=100)
        b = machine.PWM(machine.Pin(5), freq=3000, duty_u16=100)
        assert a.freq() == b.freq() == 3000

    def test_real_divider_frequency_is_read_back(self, board):
        pwm = machine.PWM(0, freq=2400, duty_u16=1)
        assert abs(pwm.freq() - 2400) <= 1


class TestFakeADC:
    def test_channels_and_values(self, board):
        assert machine.ADC(machine.Pin(29)).channel == 3
        assert machine.ADC(26).channel == 0
        assert machine.ADC(4).channel == 4
        machine.set_adc_u16(3, 40_000)
        assert machine.ADC(3).read_u16() == 40_000

    def test_volts_are_quantized_like_the_rp2_port(self, board):
        machine.set_adc_volts(3, 3.3)
        assert machine.ADC(3).read_u16() == 0xFFFF
        machine.set_adc_volts(3, 1.65)
        raw = round(1.65 / 3.3 * 4095)
        assert machine.ADC(3).read_u16() == raw << 4 | raw >> 8

    def test_bad_adc(self, board):
        with pytest.raises(ValueError):
            machine.ADC(5)
        with pytest.raises(ValueError):
            machine.ADC(machine.Pin(2))
        with pytest.raises(ValueError):
            machine.set_adc_u16(0, 70_000)


class TestFakeWDT:
    def test_fed_in_time_never_bites(self, board):
        wdt = machine.WDT(timeout=1000)
        for _ in range(10):
            machine.advance_ms(1000)  # exactly at the deadline is still in time
            wdt.feed()
        assert machine.resets == []

    def test_not_fed_bites_at_its_deadline(self, board):
        machine.WDT(timeout=500)
        start = board.us
        with pytest.raises(machine.WatchdogReset):
            machine.advance_ms(2000)
        assert machine.resets == [("wdt", start + 500_000)]
        assert machine.reset_cause() == machine.WDT_RESET
        machine.advance_ms(2000)  # the board "rebooted": no watchdog any more

    def test_late_feed_bites(self, board):
        wdt = machine.WDT(timeout=100)
        board.advance_ms(150)  # time moved without machine.advance
        with pytest.raises(machine.WatchdogReset):
            wdt.feed()

    def test_timeout_limit(self, board):
        with pytest.raises(ValueError):
            machine.WDT(timeout=8389)

    def test_misc(self, board):
        assert len(machine.unique_id()) == 8
        assert machine.freq() == 125_000_000
        assert machine.reset_cause() == machine.PWRON_RESET
        with pytest.raises(machine.Reset):
            machine.reset()


# ---------------------------------------------------------------------------- TM1637


def make_display(live=False, sm_id=0, clk_gpio=CLK, dio_gpio=DIO):
    """A TM1637 as board.py builds it: the pins with their pull-ups, handed to a PIO state
    machine running tm1637_pio.program (the fake rp2 runs it instruction by instruction)."""
    import tm1637_pio

    clk = machine.Pin(clk_gpio, machine.Pin.IN, machine.Pin.PULL_UP)
    dio = machine.Pin(dio_gpio, machine.Pin.IN, machine.Pin.PULL_UP)
    chip = tm1637_decode.attach(clk, dio, machine.now_us) if live else None
    sm = rp2.StateMachine(
        sm_id,
        tm1637_pio.program,
        freq=tm1637_pio.PIO_HZ,
        sideset_base=clk,
        set_base=dio,
        out_base=dio,
        in_base=dio,
    )
    sm.active(1)
    return TM1637(sm), clk, dio, chip


def wire():
    """Let a frame handed to the state machine go out (0.7 ms at 100 kHz)."""
    machine.advance(2_000)


class TestTM1637:
    def test_traffic_decodes_to_the_bytes_written(self, board):
        disp, clk, dio, chip = make_display(live=True)
        segs = segments.encode(" 507", True)
        assert disp.show(segs)
        wire()
        replay = tm1637_decode.decode(clk, dio)
        for c in (chip, replay):
            assert c.segments() == segs
            assert c.on and c.brightness == 7
            assert c.errors == 0 and c.frames == 1 and c.transactions == 3
        assert chip.text() == (" 507", True)
        assert disp.nacks == 0

    def test_no_chip_counts_missing_acks_and_retries(self, board):
        """Every byte goes out (the program does not stop at a missing ACK); each
        transaction that missed one reports it, read at the next show, which rewrites."""
        disp, clk, dio, _ = make_display()
        segs = segments.encode(" 507", True)
        assert disp.show(segs)
        wire()
        assert disp.nacks == 0  # not read yet
        assert disp.show(segs)  # the chip missed the frame: written again
        assert disp.nacks == 7
        wire()
        assert disp.show(segs) and disp.nacks == 14
        assert tm1637_decode.decode(clk, dio).segments() == segs

    def test_live_chip_acknowledges(self, board):
        disp, clk, dio, chip = make_display(live=True)
        disp.show(segments.encode("SEt "))
        wire()
        assert not disp.show(segments.encode("SEt "))
        assert disp.nacks == 0
        assert chip.text() == ("5Et ", False)
        assert dio.contention == 0 and clk.contention == 0 and chip.errors == 0
        assert tm1637_decode.decode(clk, dio).segments() == chip.segments()

    def test_no_rewrite_when_unchanged(self, board):
        disp, clk, dio, chip = make_display(live=True)
        segs = bytearray(segments.encode("1h29"))
        assert disp.show(segs)
        wire()
        n = len(clk.trace)
        assert not disp.show(segs)
        assert not disp.show(bytes(segs))
        wire()
        assert len(clk.trace) == n and disp.frames == 1 and chip.frames == 1

    def test_changes_are_written(self, board):
        disp, clk, dio, chip = make_display(live=True)
        disp.show(segments.encode("1234"))
        disp.show(segments.encode("1235"))  # queued behind the first: put waits for room
        wire()
        assert chip.text() == ("1235", False) and chip.frames == 2
        disp.set_brightness(2)
        assert disp.show(segments.encode("1235"))
        wire()
        assert chip.brightness == 2
        disp.set_on(False)
        assert disp.show(segments.encode("1235"))
        wire()
        assert chip.shown() == bytes(4) and chip.segments() == segments.encode("1235")
        assert chip.frames == 4

    def test_brightness_is_clamped(self, board):
        disp, clk, dio, chip = make_display(live=True)
        disp.set_brightness(99)
        disp.show(bytes(4))
        wire()
        assert chip.brightness == 7
        disp.set_brightness(-3)
        disp.show(bytes(4))
        wire()
        assert chip.brightness == 0

    def test_invalidate_forces_a_rewrite(self, board):
        disp, clk, dio, chip = make_display(live=True)
        disp.show(segments.encode("8888"))
        disp.invalidate()
        assert disp.show(segments.encode("8888"))
        wire()
        assert chip.frames == 2

    def test_a_stuck_line_is_counted_not_raised_and_healed(self, board):
        disp, clk, dio, chip = make_display(live=True)
        clk.drive(0, source="short")  # CLK shorted to ground: the chip sees no clock
        assert disp.show(segments.encode("0:00"))
        wire()
        clk.drive(None, source="short")
        assert disp.show(segments.encode("0:00"))  # unacknowledged: rewritten
        assert disp.nacks == 7
        wire()
        assert chip.segments() == segments.encode("0:00")

    def test_a_frame_costs_the_cpu_nothing_and_the_wire_0_7_ms(self, board):
        """show() hands 4 words over and returns at once (no virtual time passes); the frame
        takes 0.7 ms on the wire (10 PIO cycles a bit at 1 MHz: tm1637_pio.py). The first
        frame lights the display at its end (its control switches it on); a frame that
        follows a whole one sends the data command last (tm1637.py), so its digits are
        shown 0.49 ms after; after `invalidate()` it goes first again: 0.6 ms."""
        disp, clk, dio, chip = make_display(live=True)
        for text, lo, hi in (("1111", 680, 720), ("8888", 470, 510), ("0000", 580, 620)):
            if text == "0000":
                disp.invalidate()
            start = board.us
            disp.show(segments.encode(text))
            assert board.us == start
            wire()
            t, lit = chip.timeline[-1]
            assert lit == segments.encode(text)
            assert lo <= t - start <= hi, text
            last = max(t for _seq, t, _level in dio.trace)
            assert 680 <= last - start <= 720

    def test_the_data_command_goes_first_until_the_chip_took_a_frame_whole(self, board):
        """The data command (tm1637.py): first in the first frame, after `invalidate()` and
        after a missing acknowledgement; last in a frame that follows a whole one."""
        disp, clk, dio, chip = make_display(live=True)
        data = 0x1BF  # the data command's word (0x40 inverted, a stop after it)

        def first_then_last(text):
            disp.show(segments.encode(text))
            wire()
            return disp._words[0] == data, disp._words[3] == data

        assert first_then_last("1111") == (True, False)
        assert first_then_last("2222") == (False, True)
        disp.invalidate()
        assert first_then_last("2222") == (True, False)
        assert first_then_last("3333") == (False, True)
        clk.drive(0, source="short")  # no clock: the chip acknowledges nothing
        disp.show(segments.encode("4444"))
        wire()
        clk.drive(None, source="short")
        assert first_then_last("4444") == (True, False)  # the missing ACKs seen: rewritten
        assert chip.segments() == segments.encode("4444")
        assert first_then_last("5555") == (False, True)
        assert chip.segments() == segments.encode("5555")

    def test_both_displays_at_once(self, board):
        """Two state machines of one PIO share the program and run at the same time."""
        left, *_, chip_l = make_display(live=True)
        right, *_, chip_r = make_display(True, 1, CLK + 2, DIO + 2)
        start = board.us
        left.show(segments.encode("1111"))
        right.show(segments.encode("2222"))
        wire()
        assert chip_l.timeline[-1][0] == chip_r.timeline[-1][0] < start + 800
        assert chip_l.text()[0] == "1111" and chip_r.text()[0] == "2222"

    @settings(max_examples=60, deadline=None)
    @given(st.binary(min_size=4, max_size=4), st.integers(0, 7), st.booleans())
    def test_any_bytes_round_trip(self, segs, level, on):
        machine.host_reset()
        disp, clk, dio, chip = make_display(live=True)
        disp.set_brightness(level)
        disp.set_on(on)
        disp.show(segs)
        wire()
        assert not disp.show(segs)
        assert chip.segments() == segs
        assert (chip.brightness, chip.on, chip.errors, disp.nacks) == (level, on, 0, 0)
        assert tm1637_decode.decode(clk, dio).segments() == segs


class TestDecodeText:
    def test_inverse_of_segments(self):
        for word in ("1h29", " 507", "PLAy", "bLit", "- -_", "10h3"):
            assert tm1637_decode.text(segments.encode(word)) == (word, False)

    def test_shared_glyphs_decode_to_the_canonical_character(self):
        assert tm1637_decode.text(segments.encode("SOlo", True)) == ("50Io", True)

    def test_unknown_pattern(self):
        assert tm1637_decode.text(bytes((0x01, 0x00, 0x00, 0x00)))[0] == "?   "


# ---------------------------------------------------------------------------- levers


def make_levers(**kw):
    """The levers as the board builds them (board.levers), past their arming."""
    levers = board_mod.levers(**kw)
    machine.advance_ms(QUIET_MS)  # a lever arms once quiet for debounce_us after the start
    return levers


def events(lv):
    """The presses drained, as the loop does it (app.py), once the machines have seen the
    last edge (a press reaches its ring within Levers.settle_us of its stamp)."""
    machine.advance(Levers.settle_us + 1)
    out = []
    lv.drain(lambda side, stamp: out.append((side, stamp)))
    return out


def bounce(gpio, gaps_us, end_level):
    """Bounce the switch on `gpio` through the fake board's one model of it (machine.press /
    release with `bounce`: edges scheduled in virtual time): edges alternate, the first one
    towards `end_level` (0 = closed), with the given gaps (us) between them, an even number
    so that it ends at `end_level`; time passes over them."""
    (machine.press if end_level == 0 else machine.release)(gpio, bounce=tuple(gaps_us))
    machine.advance(sum(gaps_us))


class TestLevers:
    def test_bounce_gives_one_stamp_at_the_first_edge(self, board):
        lv = make_levers()
        machine.advance_ms(100)
        first = ticks(board)
        bounce(LEFT_PIN, [80, 150, 40, 900, 300, 2_000], 0)
        machine.advance_ms(50)
        assert events(lv) == [(0, first)]

    def test_scheduled_bounce_through_the_fake_board(self, board):
        lv = make_levers()
        machine.press(LEFT_PIN, bounce=(120, 300, 80, 4_000))
        first = ticks(board)
        left = machine.Pin(LEFT_PIN)
        assert [lvl for _, _, lvl in left.trace][-1:] == [0]
        machine.advance_ms(10)
        assert [lvl for _, _, lvl in left.trace][-5:] == [0, 1, 0, 1, 0]
        machine.release(LEFT_PIN, bounce=(50, 50))
        machine.advance_ms(40)
        assert events(lv) == [(0, first)]
        assert left.value() == 1
        with pytest.raises(ValueError):
            machine.press(LEFT_PIN, bounce=(10,))

    def test_stamp_is_taken_at_irq_time_not_drain_time(self, board):
        lv = make_levers()
        machine.press(RIGHT_PIN)
        t = ticks(board)
        machine.advance_ms(750)
        assert lv.pop() == 1 and lv.stamp_us == t
        assert lv.pop() == -1

    def test_release_bounce_is_not_a_press(self, board):
        lv = make_levers()
        machine.press(LEFT_PIN)
        machine.advance_ms(300)
        bounce(LEFT_PIN, [60, 200, 90, 1_500], 1)  # release, bouncing
        machine.advance_ms(5)
        assert len(events(lv)) == 1
        machine.advance_ms(30)
        assert events(lv) == []

    def test_press_after_release_and_quiet_counts(self, board):
        lv = make_levers()
        machine.press(LEFT_PIN)
        machine.advance_ms(100)
        machine.release(LEFT_PIN)
        machine.advance_ms(25)
        machine.press(LEFT_PIN)
        t2 = ticks(board)
        evs = events(lv)
        assert len(evs) == 2 and evs[1] == (0, t2)

    def test_not_rearmed_while_held(self, board):
        lv = make_levers()
        machine.press(LEFT_PIN)
        for _ in range(10):
            machine.advance_ms(50)
        bounce(LEFT_PIN, [50, 50], 0)  # glitch while held
        assert len(events(lv)) == 1

    def test_lever_held_at_start_up_needs_a_release(self, board):
        machine.press(LEFT_PIN)
        machine.Pin(LEFT_PIN, machine.Pin.IN, machine.Pin.PULL_UP)
        lv = make_levers()
        assert lv.pressed(0) and not lv.pressed(1)
        bounce(LEFT_PIN, [30, 30], 0)
        assert events(lv) == []
        machine.release(LEFT_PIN)
        machine.advance_ms(30)
        machine.press(LEFT_PIN)
        assert len(events(lv)) == 1

    def test_both_levers_in_the_same_millisecond(self, board):
        lv = make_levers()
        machine.press(RIGHT_PIN)
        tr = ticks(board)
        machine.advance(400)
        machine.press(LEFT_PIN)
        tl = ticks(board)
        assert events(lv) == [(1, tr), (0, tl)]

    def test_exact_tie_puts_side_0_first(self, board):
        lv = make_levers()
        machine.press(RIGHT_PIN)
        machine.press(LEFT_PIN)  # same virtual microsecond
        t = ticks(board)
        assert events(lv) == [(0, t), (1, t)]

    def test_ring_overflow_drops_new_presses_and_keeps_the_old(self, board):
        lv = make_levers(ring_size=4)  # a ring per lever
        stamps = []
        for _ in range(6):
            side = 0
            gpio = LEFT_PIN
            machine.press(gpio)
            stamps.append((side, ticks(board)))
            machine.advance_ms(10)
            machine.release(gpio)
            machine.advance_ms(25)
        assert lv.waiting() and lv.dropped() == 2
        assert events(lv) == stamps[:4]
        assert not lv.waiting()

    def test_clear_discards_queued_presses(self, board):
        lv = make_levers()
        machine.press(LEFT_PIN)
        lv.clear()
        assert lv.pop() == -1

    def test_quiet_test_survives_long_idle_across_the_wrap(self, board):
        lv = make_levers()
        machine.press(LEFT_PIN)
        machine.advance_ms(10)
        machine.release(LEFT_PIN)
        machine.advance_ms(30)
        assert len(events(lv)) == 1  # re-armed after the drain
        machine.advance_ms(20 * 60 * 1000)  # 20 min, no main loop: ticks_diff would fold
        machine.press(LEFT_PIN)
        t = ticks(board)
        assert events(lv) == [(0, t)]

    def test_stamps_across_the_ticks_wrap(self, board):
        lv = make_levers()
        import time

        machine.advance(time.ticks_diff(0, ticks(board)) - 100)  # 100 us before ticks_us wraps
        machine.press(LEFT_PIN)
        t1 = ticks(board)
        machine.advance(300)
        machine.press(RIGHT_PIN)
        t2 = ticks(board)
        assert t2 < t1  # wrapped
        evs = events(lv)
        assert evs == [(0, t1), (1, t2)]
        assert time.ticks_diff(t2, t1) == 300

    def test_every_press_rings_the_bell_once(self, board):
        from array import array

        bell = array("i", (0,))
        lv = make_levers(bell=bell)
        machine.press(LEFT_PIN, bounce=(100, 200))  # 3 falling/rising edges of bounce
        machine.advance_ms(5)
        assert bell[0] == 1  # the press; its bounce stays inside the machine
        machine.release(RIGHT_PIN)  # no change of level: no edge
        machine.release(LEFT_PIN, bounce=(100, 200))
        machine.advance_ms(QUIET_MS + 5)
        assert bell[0] == 1  # a release never rings
        machine.press(RIGHT_PIN)
        machine.advance_ms(1)
        assert bell[0] == 2
        assert len(events(lv)) == 2

    def test_restart_after_a_dormant_spell_keeps_stamps_exact(self, board):
        """The chip dormant (the fake's lightsleep: its timer stands still for the spell):
        restart() puts the machines in step with the timer again; the lever that woke it,
        still held, is no press; the next press is stamped at its edge."""
        lv = make_levers()
        machine.press(LEFT_PIN)
        first = ticks(board)
        machine.advance_ms(100)
        machine.release(LEFT_PIN)
        machine.advance_ms(50)
        assert events(lv) == [(0, first)]
        masks = dormant.wake_masks((LEFT_PIN,))
        machine.mem32[0x40014160] = masks[0]
        machine.after(3_000_000, lambda: machine.press(LEFT_PIN))
        machine.lightsleep()
        machine.mem32[0x40014160] = 0
        assert board.stopped == 3_000_000  # the spell: the timer stood still
        lv.restart()
        machine.advance_ms(200)
        assert events(lv) == []  # held through the restart: armed once released
        machine.release(LEFT_PIN)
        machine.advance_ms(QUIET_MS)
        machine.advance(7)
        machine.press(RIGHT_PIN)
        t = ticks(board)
        assert events(lv) == [(1, t)]

    def test_release_bounce_restarts_the_quiet_time(self, board):
        lv = make_levers()
        machine.press(LEFT_PIN)
        machine.advance_ms(50)
        machine.release(LEFT_PIN)
        machine.advance_ms(15)
        bounce(LEFT_PIN, [300, 300], 1)  # chatter as the contact opens
        machine.advance_ms(19)
        machine.press(LEFT_PIN)  # too soon after the last edge: not a press
        assert len(events(lv)) == 1

    @settings(max_examples=80, deadline=None)
    @given(
        st.lists(
            st.tuples(
                # Bounce gaps (us) from the machine's look on: it looks every 2 us while it
                # waits for a release (lever_pio.py), so a shorter contact or break is seen
                # or not by its phase, as on the chip; one as long is always seen.
                st.lists(st.integers(2, 19_999), max_size=6),  # press bounce gaps
                st.integers(1_000, 500_000),  # hold, us
                st.lists(st.integers(2, 19_999), max_size=6),  # release bounce gaps
                st.integers(Levers.debounce_us + 5, 300_000),  # quiet after the release, us (+ the
                # machine's look, every 2 us in its quiet loop: lever_pio.py)
            ),
            min_size=1,
            max_size=6,
        ),
        st.integers(0, 1),
    )
    # a 2 us contact inside the quiet time after a bouncing release: seen at any phase
    @example(presses=[([], 100_000, [19_877, 2, 123], 20_100)] * 2, side=0)
    def test_every_press_once_at_its_first_edge(self, presses, side):
        from simboard import vtime

        vt = vtime.install(vtime.VirtualTime())
        machine.host_reset()
        lv = make_levers()
        gpio = (LEFT_PIN, RIGHT_PIN)[side]
        want = []
        for press_gaps, hold, release_gaps, quiet in presses:
            want.append((side, vt.ticks_us()))
            gaps = list(press_gaps)
            if len(gaps) % 2:
                gaps.append(50)  # end closed
            bounce(gpio, gaps, 0)
            machine.advance(hold)
            gaps = list(release_gaps)
            if len(gaps) % 2:
                gaps.append(50)
            bounce(gpio, gaps, 1)
            machine.advance(quiet)
        assert events(lv) == want


# ---------------------------------------------------------------------------- buttons


def bit(b):
    return 1 << b


def run(btn, mask, start, stop, step=10):
    """Poll every `step` ms with a constant mask from start to stop (exclusive); returns the
    (time, event) pairs."""
    out = []
    t = start
    while t < stop:
        btn.update(t, mask)
        ev = btn.pop()
        while ev:
            out.append((t, ev))
            ev = btn.pop()
        t += step
    return out


class TestDormant:
    """dormant.py: the wake edges enabled around MicroPython's lightsleep, VBUS read."""

    def test_the_wake_pins_edge_low_bits(self):
        assert dormant.wake_masks((6, 7, 10, 11, 12, 13)) == (0x44000000, 0x00444400, 0, 0)
        assert dormant.wake_masks((24,)) == (0, 0, 0, 4)
        assert dormant.wake_masks((6,), (24,)) == (0x04000000, 0, 0, 8)  # VBUS: an edge high

    def test_sleep_clears_old_edges_enables_the_wake_and_disables_it_after(self):
        mem = {}
        writes = []

        class Mem:
            def __setitem__(self, addr, v):
                writes.append((addr, v))
                mem[addr] = v

        def lightsleep():
            assert mem[0x40014160] == 0x44000000 and mem[0x40014164] == 0x00440000
            assert mem[0x4001416C] == 8  # GP24 (VBUS) rising: a cable plugged in
            writes.append("sleep")

        class Vbus:
            level = 0

            def value(self):
                return self.level

        vbus = Vbus()
        d = dormant.Dormant(vbus, 24, (6, 7, 12, 13), Mem(), lightsleep)
        assert not d.on_usb()
        vbus.level = 1
        assert d.on_usb()
        d.sleep()
        assert writes[:2] == [(0x400140F0, 0x44000000), (0x40014160, 0x44000000)]
        assert writes[6] == "sleep"
        assert mem[0x40014160] == mem[0x40014164] == mem[0x4001416C] == 0 and d.wakes == 1


class TestSleepGate:
    """sleepgate.py: deep sleep (SCR.SLEEPDEEP, SLEEP_EN's few clocks) on cells only."""

    SCR = 0xE000ED10
    EN0 = 0x400080A8
    EN1 = 0x400080AC

    def gate(self):
        mem = {self.SCR: 0x10, self.EN0: 0xFFFFFFFF, self.EN1: 0x7FFF}  # SEVONPEND kept
        writes = []

        class Mem:
            def __getitem__(self, addr):
                return mem[addr]

            def __setitem__(self, addr, v):
                writes.append(addr)
                mem[addr] = v

        class Vbus:
            level = 0

            def value(self):
                return self.level

        vbus = Vbus()
        self.beeping = False
        g = sleepgate.SleepGate(lambda: vbus.level == 1, Mem(), lambda: self.beeping)
        return g, vbus, mem, writes

    def test_on_cells_deep_sleep_with_the_pio_timer_and_io_clocks_on(self):
        g, _vbus, mem, _writes = self.gate()
        g.update()
        assert mem[self.SCR] == 0x14
        en0, en1 = mem[self.EN0], mem[self.EN1]
        for bit in (12, 13, 8, 23):  # sys_pio0, sys_pio1, sys_io, sys_sio
            assert en0 >> bit & 1, bit
        assert not en0 >> 17 & 1  # sys_pwm: the buzzer is silent
        for bit in (5, 12, 14):  # sys_timer, sys_watchdog, sys_xosc
            assert en1 >> bit & 1, bit
        for bit in (19, 28, 29, 30, 31):  # the ROM and SRAM0-3 gated
            assert not en0 >> bit & 1, bit
        for bit in (0, 1, 10, 11, 13):  # SRAM4-5, USB, XIP gated
            assert not en1 >> bit & 1, bit
        assert en0 < 1 << 30 and en1 < 1 << 30  # small ints: nothing on the heap

    def test_it_follows_vbus_and_writes_only_on_a_change(self):
        g, vbus, mem, writes = self.gate()
        g.update()
        n = len(writes)
        g.update()
        assert len(writes) == n  # nothing changed: nothing written
        vbus.level = 1  # the cable: the chip sleeps as MicroPython leaves it
        g.update()
        assert mem[self.SCR] == 0x10 and g.deep == 0
        vbus.level = 0
        g.update()
        assert mem[self.SCR] == 0x14 and g.deep == 1

    def test_the_pwm_runs_asleep_only_while_the_buzzer_sounds(self):
        g, _vbus, mem, writes = self.gate()
        g.update()
        assert mem[self.EN0] == sleepgate.SLEEP_EN0 and not mem[self.EN0] >> 17 & 1
        self.beeping = True
        g.update()
        assert mem[self.EN0] == sleepgate.SLEEP_EN0 | sleepgate.PWM_EN0 and mem[self.EN0] >> 17 & 1
        assert mem[self.SCR] == 0x14
        n = len(writes)
        g.update()
        assert len(writes) == n
        self.beeping = False
        g.update()
        assert mem[self.EN0] == sleepgate.SLEEP_EN0

    def test_forget_writes_again_after_a_dormant_spell(self):
        g, _vbus, mem, _writes = self.gate()
        g.update()
        mem[self.EN0] = 0xFFFFFFFF  # what lightsleep leaves
        g.forget()
        g.update()
        assert mem[self.EN0] == sleepgate.SLEEP_EN0


class TestButtons:
    def test_short_press_fires_on_release(self):
        b = Buttons()
        assert run(b, bit(PLAY), 0, 200) == []
        assert b.held(PLAY) and b.held_mask == bit(PLAY)
        evs = run(b, 0, 200, 300)
        assert evs == [(230, PLAY << 2 | SHORT)]
        assert button_of(evs[0][1]) == PLAY and kind_of(evs[0][1]) == SHORT

    def test_a_swallowed_button_gives_no_event_until_released(self):
        levels = [1, 0, 0, 1]  # SET (1) and MINUS (2) down (active low)
        b = Buttons([lambda i=i: levels[i] for i in range(4)])
        b.swallow(1_000)
        assert b.muted == bit(SET) | bit(MINUS)
        for t in range(1_000, 4_000, 10):  # no LONG, no REPEAT while held
            assert b.poll(t) == 0
            assert b.next_due(t) == -1
        levels[1] = levels[2] = 1  # released: nothing either
        assert run(b, 0, 4_000, 4_100) == []
        assert b.muted == 0 and b.held_mask == 0
        levels[1] = 0  # the next press is a press
        b.poll(4_100)
        b.poll(4_140)
        levels[1] = 1
        b.poll(4_200)
        b.poll(4_240)
        assert b.pop() == (SET << 2 | SHORT)

    def test_bounce_is_filtered(self):
        b = Buttons()
        for t, m in ((0, 1), (5, 0), (10, 1), (15, 0), (20, 1)):
            b.update(t, m << SET)
        assert not b.held(SET)
        b.update(49, bit(SET))
        assert not b.held(SET)
        b.update(50, bit(SET))
        assert b.held(SET)
        b.update(60, 0)
        b.update(65, bit(SET))  # release glitch shorter than the debounce
        b.update(100, bit(SET))
        assert b.held(SET) and b.pop() == 0

    def test_next_due_polls_only_while_needed(self):
        b = Buttons()
        assert b.next_due(0) == -1  # nothing down, nothing settling
        b.update(0, bit(SET))
        assert b.next_due(10) == 20  # settling: debounce ends at 30 ms
        b.update(30, bit(SET))
        assert b.held(SET) and b.next_due(30) == 1_970  # LONG at 2 s from the press
        b.update(2_000, bit(SET))
        assert b.pop() == SET << 2 | LONG
        assert b.next_due(2_000) == -1  # LONG fired: only the release edge matters
        b.update(2_500, 0)
        assert b.next_due(2_510) == 20
        b.update(2_530, 0)
        assert b.next_due(2_530) == -1 and b.pop() == 0
        b.update(3_000, bit(PLUS))
        b.update(3_030, bit(PLUS))
        assert b.next_due(3_030) == 470  # first REPEAT at 500 ms
        b.update(3_500, bit(PLUS))
        assert b.next_due(3_500) == 150  # then every 150 ms while held
        assert b.next_due(4_000) == 0  # overdue: poll now

    def test_long_press_fires_once_while_held(self):
        b = Buttons()
        evs = run(b, bit(SET), 0, 5_000)
        assert evs == [(2_000, SET << 2 | LONG)]
        assert run(b, 0, 5_000, 5_100) == []  # no SHORT after a LONG

    def test_repeat_on_plus_and_minus(self):
        b = Buttons()
        evs = run(b, bit(PLUS), 0, 1_000)
        assert [t for t, _ in evs] == [500, 650, 800, 950]
        assert all(e == PLUS << 2 | REPEAT for _, e in evs)
        assert run(b, 0, 1_000, 1_100) == []  # no SHORT after repeats
        assert run(b, bit(MINUS), 2_000, 2_100) == []
        assert run(b, 0, 2_100, 2_200) == [(2_130, MINUS << 2 | SHORT)]

    def test_repeat_buttons_never_fire_long(self):
        b = Buttons()
        evs = run(b, bit(MINUS), 0, 3_000)
        assert {kind_of(e) for _, e in evs} == {REPEAT}

    def test_stalled_loop_gives_one_repeat_not_a_burst(self):
        b = Buttons()
        run(b, bit(PLUS), 0, 600)  # one REPEAT at 500
        b.update(5_000, bit(PLUS))
        assert b.pop() == PLUS << 2 | REPEAT and b.pop() == 0
        b.update(5_100, bit(PLUS))
        assert b.pop() == 0
        b.update(5_150, bit(PLUS))
        assert b.pop() == PLUS << 2 | REPEAT

    def test_two_buttons_and_combination(self):
        b = Buttons()
        run(b, bit(PLAY) | bit(SET), 0, 100)
        assert b.held_mask == bit(PLAY) | bit(SET)
        evs = run(b, 0, 100, 200)
        assert [e for _, e in evs] == [PLAY << 2 | SHORT, SET << 2 | SHORT]

    def test_full_queue_drops_and_counts(self):
        b = Buttons(queue=2)
        for i in range(3):
            b.update(i * 100, bit(PLAY))
            b.update(i * 100 + 40, bit(PLAY))
            b.update(i * 100 + 50, 0)
            b.update(i * 100 + 90, 0)
        assert b.dropped == 1
        assert b.pop() == PLAY << 2 | SHORT and b.pop() == PLAY << 2 | SHORT and b.pop() == 0

    def test_time_may_wrap(self):
        b = Buttons()
        start = (1 << 30) - 1_000
        b.update(start, bit(SET))
        b.update(start + 40, bit(SET))
        b.update((start + 2_100) & ((1 << 30) - 1), bit(SET))
        assert b.pop() == SET << 2 | LONG

    def test_poll_reads_pins_and_callables(self, board):
        pins = [machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in (6, 7, 8)]
        level = [1]
        b = Buttons(pins + [lambda: level[0]])
        machine.press(7)
        level[0] = 0
        b.poll(0)
        b.poll(40)
        assert b.held_mask == bit(SET) | bit(PLUS)
        machine.release(7)
        level[0] = 1
        b.poll(100)
        b.poll(140)
        assert [b.pop(), b.pop(), b.pop()] == [SET << 2 | SHORT, PLUS << 2 | SHORT, 0]

    def test_active_high_sources(self):
        b = Buttons([lambda: 0, lambda: 1, lambda: 0, lambda: 0], active_low=False)
        b.poll(0)
        b.poll(40)
        assert b.held_mask == bit(SET)


# ---------------------------------------------------------------------------- buzzer


def make_buzzer(**kw):
    pwm = machine.PWM(machine.Pin(21))
    return Buzzer(pwm, **kw), pwm


class TestBuzzer:
    def test_beep_pattern_timing(self, board):
        bz, pwm = make_buzzer()
        assert not pwm.sounding()
        bz.play(BEEP, 1_000)
        assert pwm.sounding() and pwm.freq() == 2000 and bz.busy()
        bz.update(1_079)
        assert pwm.sounding()
        bz.update(1_080)
        assert not pwm.sounding() and not bz.busy()

    def test_steps_and_rests(self, board):
        bz, pwm = make_buzzer()
        bz.play(CONFIRM, 0)  # 1500 Hz 60 ms, rest 40 ms, 2500 Hz 90 ms
        seen = []
        for t in range(0, 250, 10):
            bz.update(t)
            seen.append((t, pwm.freq() if pwm.sounding() else 0))
        assert seen[0] == (0, 1500) and seen[5] == (50, 1500)
        assert seen[6] == (60, 0) and seen[9] == (90, 0)
        assert seen[10] == (100, 2500) and seen[18] == (180, 2500)
        assert seen[19] == (190, 0) and not bz.busy()

    def test_next_due_follows_the_steps(self, board):
        bz, _ = make_buzzer()
        assert bz.next_due(0) == -1
        bz.play(CONFIRM, 0)
        assert bz.next_due(0) == 60 and bz.next_due(59) == 1 and bz.next_due(70) == 0
        bz.update(60)
        assert bz.next_due(60) == 40
        bz.update(190)
        assert bz.next_due(190) == -1

    def test_update_never_blocks(self, board):
        bz, _ = make_buzzer()
        start = board.us
        bz.play(FLAG, 0)
        for t in range(0, 3_000, 7):
            bz.update(t)
        assert board.us == start

    def test_a_late_frame_keeps_the_pattern_timing(self, board):
        bz, pwm = make_buzzer()
        bz.play(CONFIRM, 0)
        bz.update(130)  # missed the 60 ms and 100 ms steps: now in the 2500 Hz step
        assert pwm.freq() == 2500 and pwm.sounding()
        bz.update(189)
        assert bz.busy()
        bz.update(190)
        assert not bz.busy()

    def test_long_stall_reanchors(self, board):
        bz, pwm = make_buzzer()
        bz.play(FLAG, 0, repeats=100)
        bz.update(60_000)  # a minute late: no 60 s catch-up loop
        assert bz.busy()
        assert 0 < len(pwm.trace) < 10

    def test_repeats(self, board):
        bz, pwm = make_buzzer()
        bz.play(BEEP, 0, repeats=3)
        for t in range(0, 400, 10):
            bz.update(t)
        assert not bz.busy()
        # three 80 ms tones back to back: freq stays, one start and one final stop
        assert pwm.trace[-1][3] is False

    def test_sound_off_is_silent(self, board):
        bz, pwm = make_buzzer(enabled=False)
        bz.play(FLAG, 0)
        bz.beep(0)
        assert not bz.busy() and not pwm.sounding()
        bz.set_enabled(True)
        bz.play(FLAG, 0)
        assert pwm.sounding()
        bz.set_enabled(False)
        assert not pwm.sounding() and not bz.busy()

    def test_beep_custom_tone(self, board):
        bz, pwm = make_buzzer()
        bz.beep(0, 3000, 20)
        assert pwm.freq() == 3000
        bz.update(20)
        assert not pwm.sounding()

    def test_bad_patterns_do_not_raise(self, board):
        bz, pwm = make_buzzer()
        bz.play((), 0)
        assert not bz.busy()
        bz.play((2000, 0, 5, 50, 90_000, 50, 1234), 0)  # zero duration, out of range, odd
        for t in range(0, 200, 5):
            bz.update(t)
        assert not bz.busy() and not pwm.sounding()


# ---------------------------------------------------------------------------- timefmt


def shown_ms(chars):
    if "h" in chars:
        hours, rest = chars.split("h")
        if len(rest) == 1:
            return (int(hours) * 60 + int(rest) * 10) * 60_000
        return (int(hours) * 60 + int(rest)) * 60_000
    if chars[3] == " ":
        return int(chars[1]) * 1000 + int(chars[2]) * 100
    return int(chars[:2].replace(" ", "0")) * 60_000 + int(chars[2:]) * 1000


LIMIT = 99 * 3_600_000 + 50 * 60_000


class TestTimefmtProperties:
    @given(st.integers(0, LIMIT), st.integers(0, LIMIT), st.integers(0, 10))
    def test_countdown_is_monotonic_and_never_below(self, a, b, tenths):
        lo, hi = sorted((a, b))
        d_lo = timefmt.countdown(lo, tenths)[0]
        d_hi = timefmt.countdown(hi, tenths)[0]
        assert shown_ms(d_lo) <= shown_ms(d_hi)
        assert shown_ms(d_lo) >= lo
        assert (shown_ms(d_lo) == 0) == (lo == 0)

    @given(st.integers(0, LIMIT), st.integers(0, LIMIT), st.integers(0, 10))
    def test_countup_is_monotonic_and_never_above(self, a, b, tenths):
        lo, hi = sorted((a, b))
        assert shown_ms(timefmt.countup(lo, tenths)[0]) <= shown_ms(timefmt.countup(hi, tenths)[0])
        assert shown_ms(timefmt.countup(hi, tenths)[0]) <= hi

    @given(st.integers(-(10**12), 10**12), st.integers(-100, 100))
    def test_any_input_gives_four_representable_characters(self, t, tenths):
        for fmt in (timefmt.countdown, timefmt.countup):
            chars, colon = fmt(t, tenths)
            assert len(chars) == 4 and colon in (0, 1)
            out = bytearray(4)
            assert segments.encode_into(out, chars, colon) == 0
            assert tm1637_decode.text(out) == (chars, bool(colon))


# ---------------------------------------------------------------------------- fake rp2


class TestFakePIO:
    """simboard/mp/rp2.py against the RP2040 datasheet (instruction words, timing) and the
    chip (the square wave of test_chip_e2e.py::test_pio_runs_in_lock_step_with_the_core)."""

    def test_instruction_words_are_the_datasheets(self, board):
        @rp2.asm_pio(sideset_init=rp2.PIO.OUT_LOW)
        def prog():
            label("top")  # noqa: F821
            set(pins, 1).side(1)[3]  # noqa: F821
            nop()  # noqa: F821
            pull(block)  # noqa: F821
            push(noblock)  # noqa: F821
            out(pindirs, 1)  # noqa: F821
            in_(pins, 1)  # noqa: F821
            mov(isr, null)  # noqa: F821
            jmp(x_dec, "top")  # noqa: F821
            jmp(not_y, "top")  # noqa: F821

        # side-set optional (not every word has it): bit 12 enables, bit 11 the value,
        # bits 10:8 the delay
        assert list(prog[0]) == [
            0xE001 | 1 << 12 | 1 << 11 | 3 << 8,
            0xA042,
            0x80A0,
            0x8000,
            0x6081,
            0x4001,
            0xA0C3,
            0x0040,
            0x0060,
        ]
        assert prog[4] >> 30 & 1 and prog[4] >> 12 & 0x1F == 8 and prog[4] >> 7 & 0x1F == 0

    def test_a_square_wave_keeps_the_chips_timing(self, board):
        """Two instructions of 1 + 31 cycles at 2 MHz (a divider of 62.5): 16 us half
        periods, as the emulated chip measures."""

        @rp2.asm_pio(set_init=rp2.PIO.OUT_LOW)
        def square():
            set(pins, 1)[31]  # noqa: F821
            set(pins, 0)[31]  # noqa: F821

        pin = machine.Pin(16)
        sm = rp2.StateMachine(4, square, freq=2_000_000, set_base=pin)
        sm.active(1)
        machine.advance(1_000)
        sm.active(0)
        edges = [t for _seq, t, _level in pin.trace]
        assert len(edges) >= 60
        assert {b - a for a, b in zip(edges, edges[1:], strict=False)} == {16}

    def test_put_waits_for_room_and_the_machine_takes_words_in_order(self, board):
        @rp2.asm_pio(set_init=rp2.PIO.OUT_LOW)
        def echo():
            pull(block)  # noqa: F821
            mov(isr, osr)[7]  # noqa: F821
            push(block)  # noqa: F821

        sm = rp2.StateMachine(5, echo, freq=1_000_000, set_base=machine.Pin(17))
        sm.active(1)
        start = board.us
        sm.put(array_of(range(1, 10)))  # 9 words: a 4-deep FIFO, a pull every 10 us
        assert board.us > start  # the CPU waited for room in the FIFO
        got = []
        for _ in range(9):
            got.append(sm.get())
        assert got == list(range(1, 10))
        assert sm.rx_fifo() == 0 and sm.tx_fifo() == 0


def array_of(values):
    from array import array

    return array("I", values)


# ---------------------------------------------------------------------------- fake select


class TestFakeSelect:
    """simboard/mp_select.py against what MicroPython's poll does (doorbell.py relies on it)."""

    def make_bell(self):
        import sys

        from simboard import firmware

        sys.modules.pop("doorbell", None)  # a fresh import binds the fake select
        firmware._import_with_fake_select("doorbell")
        import doorbell

        return doorbell.Doorbell()

    def test_an_undisturbed_timeout_is_slept_whole_from_its_start(self, board):
        """The rp2 port's WFE alarm is `timeout - elapsed` ms after the first look, to the
        us: from any phase of a ms, 5 ms is 5 ms (the chip test measures the same)."""
        bell = self.make_bell()
        for phase in (0, 1, 700, 999):
            board.advance_us(1_000 - board.us % 1_000 + phase)
            start = board.us
            assert not bell.wait(5)
            assert board.us - start == 5_000

    def slow_look(self, bell, us):
        """The doorbell's first look takes `us` (its ioctl is Python: on the chip it takes
        time), so a ms boundary can pass during it."""
        ioctl = bell.ioctl

        def slow(req, arg):
            board_us = machine.now_us()
            machine.advance(us, irq_only=True)
            assert machine.now_us() == board_us + us
            return ioctl(req, arg)

        bell.ioctl = slow

    def test_a_first_look_that_straddles_a_ms_ends_up_to_1_ms_sooner(self, board):
        """elapsed is 1 after the first look, so the alarm comes `timeout - 1` ms after it:
        counted from the start, 0.7 + 0.4 + 4 ms + the second look's 0.4 = 4.8 ms."""
        bell = self.make_bell()
        self.slow_look(bell, 400)
        board.advance_us(1_000 - board.us % 1_000 + 700)
        start = board.us
        assert not bell.wait(5)
        assert board.us - start == 4_800

    def test_an_interrupt_that_readies_nothing_counts_the_rest_on_the_grid(self, board):
        """A pin edge with no handler ends the WFE; the poll looks again (nothing ready) and
        sleeps `timeout - elapsed` ms from then, elapsed counted on the ticks_ms grid."""
        bell = self.make_bell()
        board.advance_us(1_000 - board.us % 1_000 + 700)
        start = board.us
        machine.after(1_500, lambda: machine.press(RIGHT_PIN))  # 2.2 ms on the grid
        assert not bell.wait(5)
        assert board.us - start == 1_500 + 3_000  # elapsed 2 at the look: 3 ms more

    def test_wait_until_never_ends_before_its_instant(self, board):
        """wait_until asks for the us left rounded up to whole ms, and sleeps again when the
        poll came back early (a straddled first look): 0-1 ms after the instant."""
        import time

        bell = self.make_bell()
        board.advance_us(1_000 - board.us % 1_000 + 100)
        target = time.ticks_add(time.ticks_us(), 4_300)
        bell.wait_until(target)
        assert time.ticks_diff(time.ticks_us(), target) == 700  # 5 ms from the call
        self.slow_look(bell, 400)
        board.advance_us(1_000 - board.us % 1_000 + 700)
        target = time.ticks_add(time.ticks_us(), 5_000)
        # The first poll ends 0.2 ms short (at 5.5: straddled, then a second 0.4 ms look);
        # one more ms asked from there: a look (to 5.9), the alarm at 6.9, a look to 7.3.
        bell.wait_until(target)
        assert time.ticks_diff(time.ticks_us(), target) == 1_600

    def test_a_poll_cut_short_leaves_its_timer_to_wake_the_next_sleep(self, board):
        """pico-sdk fires the timer of a WFE's timeout even after the poll ended early: the
        next sleep is woken then for nothing, looks again, and sleeps on to its own end."""
        bell = self.make_bell()
        looks = []
        ioctl = bell.ioctl
        bell.ioctl = lambda req, arg: looks.append(machine.now_us()) or ioctl(req, arg)
        board.advance_us(1_000 - board.us % 1_000)
        start = board.us
        machine.after(1_000, bell.ring)
        assert bell.wait(5)  # rung at 1 ms: its timer stays set for 5 ms
        assert bell.take() == 2
        del looks[:]
        assert not bell.wait(10)
        assert board.us - start == 1_000 + 10_000
        assert [t - start for t in looks] == [1_000, 5_000, 11_000]

    def make_alarmed_bell(self):
        """A doorbell with the board's alarm: PIO0's machine 2 running alarm_pio.program on
        the fake rp2 (board.py builds the same)."""
        import sys

        import alarm_pio

        from simboard import firmware

        sys.modules.pop("doorbell", None)
        firmware._import_with_fake_select("doorbell")
        import doorbell

        assert doorbell._ALARM_OVERHEAD == alarm_pio.OVERHEAD_CYCLES
        sm = rp2.StateMachine(2, alarm_pio.program, freq=alarm_pio.PIO_HZ)
        sm.active(1)
        return doorbell.Doorbell(sm), sm

    def test_the_alarm_ends_the_sleep_at_its_us(self, board):
        """The PIO counts the us left (1 MHz) and its IRQ rings the bell's third cell: the
        poll (whose own timeout is a ms later) ends at the instant, whatever its phase."""
        import time

        import alarm_pio

        bell, _sm = self.make_alarmed_bell()
        for phase, left in ((0, 4_300), (999, 1), (123, 3_999_000), (500, 17)):
            board.advance_us(1_000 - board.us % 1_000 + phase)
            target = time.ticks_add(time.ticks_us(), left)
            bell.wait_until(target)
            late = time.ticks_diff(time.ticks_us(), target)
            assert late == max(0, alarm_pio.OVERHEAD_CYCLES - left)  # the program's own
        assert bell.take() == 0  # the alarm is no source the loop looks at

    def test_with_the_alarm_the_poll_has_no_timeout(self, board):
        """Late in a ms, with a slow first look (which would straddle a ms boundary and end
        a timed poll a ms early), and after a poll cut short (whose timer would wake the
        next sleep): one poll, without a timeout, and the alarm ends it at its instant."""
        import time

        bell, _sm = self.make_alarmed_bell()
        self.slow_look(bell, 400)
        polls = []
        wait = bell.wait
        bell.wait = lambda t: polls.append(t) or wait(t)
        board.advance_us(1_000 - board.us % 1_000 + 900)
        target = time.ticks_add(time.ticks_us(), 5_000)
        bell.wait_until(target)
        assert polls == [-1]
        assert time.ticks_diff(time.ticks_us(), target) == 400  # the look after the ring
        assert machine.next_wake() is None  # no timer left to wake a later sleep

    def test_a_count_cut_short_does_not_end_the_next_sleep(self, board):
        """A lever wakes the loop before its alarm: the count still running (and any ring it
        made since) is void when the next sleep sets its own."""
        import time

        bell, _sm = self.make_alarmed_bell()
        pin = machine.Pin(LEFT_PIN, machine.Pin.IN, machine.Pin.PULL_UP)
        pin.irq(bell.ring, machine.Pin.IRQ_FALLING, True)
        machine.after(1_000, lambda: machine.press(LEFT_PIN))
        start = board.us
        bell.wait_until(time.ticks_add(time.ticks_us(), 2_000))
        assert board.us - start == 1_000 and bell.take() == 2
        board.advance_us(1_500)  # the loop works past the first alarm's instant
        target = time.ticks_add(time.ticks_us(), 3_000)
        bell.wait_until(target)
        assert time.ticks_diff(time.ticks_us(), target) == 0

    def test_a_ring_since_the_last_take_ends_the_sleep_before_it_starts(self, board):
        """A button (or lever) rang while the loop's wakeup worked, after its take: the sleep
        returns at once and sets no alarm; the next sleep sets its own and ends at its
        instant."""
        import time

        bell, sm = self.make_alarmed_bell()
        puts = []
        put = sm.put
        sm.put = lambda n: puts.append(n) or put(n)
        pin = machine.Pin(LEFT_PIN, machine.Pin.IN, machine.Pin.PULL_UP)
        pin.irq(bell.ring, machine.Pin.IRQ_FALLING, True)
        machine.press(LEFT_PIN)
        start = board.us
        bell.wait_until(time.ticks_add(time.ticks_us(), 2_000))
        assert board.us == start and puts == []
        assert bell.take() == 2
        target = time.ticks_add(time.ticks_us(), 3_000)
        bell.wait_until(target)
        assert time.ticks_diff(time.ticks_us(), target) == 0 and len(puts) == 1

    def test_an_edge_ends_the_sleep_at_once(self, board):
        bell = self.make_bell()
        pin = machine.Pin(LEFT_PIN, machine.Pin.IN, machine.Pin.PULL_UP)
        pin.irq(bell.ring, machine.Pin.IRQ_FALLING, True)
        machine.after(1_234, lambda: machine.press(LEFT_PIN))
        start = board.us
        bell.wait(10_000)
        assert board.us - start == 1_234
        assert bell.take() and not bell.take()
        start = board.us
        bell.wait(3)  # taken: sleeps again
        assert board.us - start >= 2_000

    def test_rung_before_the_wait_returns_at_once(self, board):
        bell = self.make_bell()
        bell.ring()
        start = board.us
        bell.wait(1_000)
        assert board.us == start

    def test_no_timeout_and_nothing_scheduled_is_a_deadlock(self, board):
        from simboard import mp_select

        bell = self.make_bell()
        with pytest.raises(mp_select.Deadlock):
            bell.wait(-1)


def test_the_app_s_copy_of_the_either_lever_code_is_the_driver_s():
    import app
    import levers

    assert app._EITHER_LEVER == levers.EITHER
