"""The HT1621 driver (the LCD build's two glasses) on the fake board: ht1621_pio.program run
by the fake `rp2` on GP2-GP5 as board.py builds it, read back by two live HT1621 models
(simboard/ht1621_decode.py) that check the protocol and the datasheet's timing. Every
segment pattern, point and battery bar round-trips; a show writes only the digits that
changed; invalidate sets the chip up again; the CPU never waits for the wire after the
first frames; and the models catch what a wrong driver would send. Virtual time only."""

import ht1621_pio
import machine
import pytest
import rp2
import segments
from ht1621 import HT1621, ICON_BAT1, ICON_BAT2, ICON_BAT3, pair

from simboard import ht1621_decode
from simboard.firmware import LCD_PINS, SimulatedClock

ALL_ICONS = ICON_BAT1 | ICON_BAT2 | ICON_BAT3


class Rig:
    """The pair as board.py builds it, with a live model per glass."""

    def __init__(self, freq=ht1621_pio.PIO_HZ):
        Pin = machine.Pin
        self.pins = [Pin(g) for g in LCD_PINS]
        self.chips = ht1621_decode.attach_pair(*self.pins, clock=machine.now_us)
        self.sm = rp2.StateMachine(
            0,
            ht1621_pio.program,
            freq=freq,
            set_base=self.pins[0],
            sideset_base=self.pins[1],
            out_base=self.pins[2],
        )
        self.sm.active(1)
        self.displays = pair(self.sm)

    def wire(self, us=4_000):
        """Let what was handed to the machine go out."""
        machine.advance(us)

    def errors(self):
        return self.chips[0].errors + self.chips[1].errors


@pytest.fixture
def rig(vt):
    machine.host_reset()
    r = Rig()
    yield r
    assert r.errors() == []


def glyphs(text):
    return bytearray(segments.glyph(ord(c)) for c in text)


def test_the_contract_attributes():
    assert (HT1621.digits, HT1621.points) == (6, 0b11100)
    import tm1637

    assert (tm1637.TM1637.digits, tm1637.TM1637.points) == (4, 0b10)


def test_the_program_fits_pio0_beside_the_alarm():
    import alarm_pio

    assert len(ht1621_pio.program[0]) == 14
    assert len(ht1621_pio.program[0]) + len(alarm_pio.program[0]) <= 32


def test_first_frame_sets_the_chip_up_and_lights_the_glass(rig):
    left, right = rig.displays
    assert left.show(glyphs("123456"), ICON_BAT1)
    assert right.show(glyphs("AbcdEF"), ALL_ICONS)
    rig.wire()
    assert rig.chips[0].text() == ("123456", 0, ICON_BAT1)
    assert rig.chips[1].text() == ("AbcdEF", 0, ALL_ICONS)
    setup = ["RC 256K", "BIAS 1/3 4 COM", "TIMER DIS", "WDT DIS", "IRQ DIS", "TONE OFF"]
    for chip in rig.chips:
        assert chip.commands == setup + ["SYS EN", "LCD ON"]
        assert chip.writes == [(0, 12)]  # the whole glass, from digit 5's address up
    assert left.nacks == right.nacks == 0  # write-only: nothing ever comes back


def test_every_segment_pattern_round_trips_at_every_position(rig):
    left, right = rig.displays
    left.show(bytes(6))
    right.show(bytes(6))
    rig.wire()  # the setup
    for p in range(128):
        segs = bytearray((p + 37 * i) % 128 for i in range(6))
        left.show(segs)
        right.show(segs[::-1])
        rig.wire(2_000)
        assert rig.chips[0].shown() == (bytes(segs), 0), p
        assert rig.chips[1].shown() == (bytes(segs[::-1]), 0), p


def test_every_glyph_reads_back_as_its_character(rig):
    left = rig.displays[0]
    chars = "0123456789AbCcdEFGHhIiJLnoPqrtUuy -_="  # each glyph's canonical character
    for k in range(0, len(chars), 6):
        text = "".join(chars[k : k + 6]).ljust(6)
        left.show(glyphs(text))
        rig.wire(2_000)
        assert rig.chips[0].text()[0] == text


@pytest.mark.parametrize("points", range(8))
def test_points_and_battery_bars(rig, points):
    """Bit 7 of digits 2, 3, 4 lights the point after them; bit 7 of digits 0, 1, 5 has no
    point on this glass and is ignored; each battery bar has its own bit."""
    left = rig.displays[0]
    for icons in range(8):
        segs = glyphs("888888")
        for i in range(6):
            if i in (2, 3, 4) and points >> (i - 2) & 1:
                segs[i] |= 0x80
            elif i in (0, 1, 5):
                segs[i] |= 0x80  # no point there
        left.show(segs, icons)
        rig.wire(2_000)
        text, mask, shown_icons = rig.chips[0].text()
        assert (text, mask, shown_icons) == ("888888", points << 2, icons)


def test_writes_only_what_changed(rig):
    left, right = rig.displays
    segs = glyphs("000000")
    left.show(segs)
    rig.wire()
    chip = rig.chips[0]
    n = chip.transactions
    assert not left.show(segs)
    assert not left.show(bytes(segs))
    rig.wire()
    assert chip.transactions == n and left.frames == 1
    segs[5] = segments.glyph(ord("1"))
    assert left.show(segs)
    rig.wire()
    assert chip.writes[-1] == (0, 2)  # digit 5 alone: addresses 0 and 1
    segs[1] = segments.glyph(ord("2"))
    segs[4] = segments.glyph(ord("3"))
    assert left.show(segs)
    rig.wire()
    assert chip.writes[-1] == (2, 8)  # digits 4..1: from address 2, 4 bytes
    assert left.show(segs, ICON_BAT3)  # the third bar is digit 0's bit 7
    rig.wire()
    assert chip.writes[-1] == (10, 2)
    assert chip.text() == ("020031", 0, ICON_BAT3)
    assert rig.chips[1].transactions == 0  # the right glass's CS never fell
    assert chip.commands.count("SYS EN") == 1


def test_invalidate_sets_up_and_resends_everything(rig):
    left = rig.displays[0]
    segs = glyphs("12  34")
    left.show(segs, ICON_BAT1)
    rig.wire()
    chip = rig.chips[0]
    chip.ram[:] = bytes(32)  # the module lost power: its RAM and setup are gone
    chip.sys_en = chip.lcd_on = False
    chip.bias = None
    assert not left.show(segs, ICON_BAT1)  # the driver cannot know
    left.invalidate()
    assert left.show(segs, ICON_BAT1)
    rig.wire()
    assert chip.commands.count("SYS EN") == 2 and chip.commands[-1] == "LCD ON"
    assert chip.writes[-1] == (0, 12)
    assert chip.text() == ("12  34", 0, ICON_BAT1)


def test_set_on_switches_the_glass_and_keeps_its_ram(rig):
    left = rig.displays[0]
    segs = glyphs("555555")
    left.show(segs)
    rig.wire()
    chip = rig.chips[0]
    writes = len(chip.writes)
    left.set_on(False)
    assert left.show(segs)
    rig.wire()
    assert chip.shown() == (bytes(6), 0) and chip.commands[-2:] == ["LCD OFF", "SYS DIS"]
    assert not chip.sys_en  # powered down: oscillator and bias generator off
    left.set_on(True)
    assert left.show(segs)
    rig.wire()
    assert chip.text()[0] == "555555" and len(chip.writes) == writes  # no data resent
    assert not left.show(segs)


def test_brightness_is_kept_and_changes_nothing(rig):
    left = rig.displays[0]
    left.show(glyphs("000000"))
    rig.wire()
    n = rig.chips[0].transactions
    left.set_brightness(9)
    assert left.brightness() == 7
    left.set_brightness(-1)
    assert left.brightness() == 0
    assert not left.show(glyphs("000000"))
    rig.wire()
    assert rig.chips[0].transactions == n


def test_wire_times_and_the_cpu_never_waits_after_the_first_frames(rig):
    """A show hands its words to the FIFO and returns (the fake rp2's put lets virtual time
    pass only while the FIFO is full). The first frames of both glasses (10 words) wait for
    the machine to take one; every later show returns at once, even a whole glass on both
    plus on/off on both (8 words). The glass shows a change well within 10 ms."""
    left, right = rig.displays
    t0 = machine.now_us()
    left.show(glyphs("000000"))
    right.show(glyphs("000000"))
    waited = machine.now_us() - t0
    assert 0 < waited <= 400
    rig.wire(10_000)
    for segs_text, expect_us in (("000001", 200), ("123456", 600)):
        for chip in rig.chips:
            chip.timeline.clear()
        t0 = machine.now_us()
        left.show(glyphs(segs_text))
        right.show(glyphs(segs_text))
        assert machine.now_us() == t0  # no wait
        rig.wire(10_000)
        done = [chip.timeline[-1][0] - t0 for chip in rig.chips]
        assert done[0] <= expect_us
        assert done[1] <= 2 * expect_us + 20  # after the left's, on the shared wire
    left.set_on(False)
    right.set_on(False)
    t0 = machine.now_us()
    left.show(glyphs("654321"))
    right.show(glyphs("654321"))
    assert machine.now_us() == t0
    rig.wire(10_000)


def test_replaying_the_traces_gives_what_the_live_models_saw(rig):
    left, right = rig.displays
    left.show(glyphs("9 8 7 "), 3)
    right.show(glyphs("AAAAAA"))
    left.show(glyphs("9 8 76"), 3)
    rig.wire()
    replay = ht1621_decode.decode_pair(*rig.pins)
    for live, again in zip(rig.chips, replay, strict=True):
        assert again.shown() == live.shown()
        assert again.errors == []


def test_the_models_check_the_timing():
    """The real program clocked 4 times too fast: WR pulses of 1.25 µs, under the 3.34 µs
    the chip needs at 3 V."""
    machine.host_reset()
    r = Rig(freq=4 * ht1621_pio.PIO_HZ)
    r.displays[0].show(glyphs("000000"))
    r.wire()
    assert any("WR low for only" in e for e in r.chips[0].errors)


class Wire:
    """Hand-made traffic on one model, µs by µs, to show what it refuses."""

    def __init__(self):
        self.t = 0
        self.chip = ht1621_decode.Chip("glass", clock=lambda: self.t)

    def level(self, line, level, dt=5):
        self.t += dt
        self.chip.edge(line, level)

    def bits(self, value, n):
        for k in range(n - 1, -1, -1):
            self.level(1, 0)  # WR low
            self.level(2, value >> k & 1, dt=0)  # DATA as WR falls
            self.level(1, 1)  # WR high: taken

    def send(self, *fields):
        self.level(0, 0)
        for value, n in fields:
            self.bits(value, n)
        self.level(0, 1)
        return self.chip.errors


@pytest.mark.parametrize(
    "fields, error",
    [
        (((0b110, 3), (0, 6), (0, 4)), "mode ID 110"),
        (((0b111, 3),), "mode ID 111"),
        (((0b10, 2),), "inside its mode ID"),
        (((0b100, 3), (0x01 << 1, 9), (0, 4)), "inside a command"),
        (((0b101, 3), (0, 4)), "inside its address"),
        (((0b101, 3), (0, 6), (0, 3)), "inside a nibble"),
        (((0b101, 3), (3, 6)), "write with no data"),
        (((0b101, 3), (31, 6), (0, 8)), "address 32 past the RAM"),
        (((0b100, 3), (0x28 << 1, 9)), "the glass is 1/3 bias, 4 COM"),
        (((0b100, 3), (0x21 << 1, 9)), "the glass is 1/3 bias, 4 COM"),
        (((0b100, 3), (0xE0 << 1, 9)), "TEST is not for this module"),
        (((0b100, 3), (0x09 << 1, 9)), "TONE ON is not for this module"),
        (((0b100, 3), (0x14 << 1, 9)), "0x14 is not for this module"),
        (((0b100, 3), (0x88 << 1, 9)), "0x88 is not for this module"),
    ],
)
def test_the_models_catch_protocol_violations(fields, error):
    errors = Wire().send(*fields)
    assert any(error in e for e in errors), errors


def test_a_good_transaction_is_no_violation():
    w = Wire()
    assert w.send((0b100, 3), (0x01 << 1, 9), (0x29 << 1, 9), (0x03 << 1, 9)) == []
    assert w.send((0b101, 3), (10, 6), (0xF, 4), (0x0, 4)) == []
    assert w.chip.lit() and w.chip.ram[10] == 0xF


def test_the_models_catch_timing_violations():
    w = Wire()
    w.level(0, 0)
    w.level(1, 0, dt=2)  # WR low 2 µs
    w.level(1, 1, dt=2)
    assert any("WR high for only 2" in e or "WR low for only 2" in e for e in w.chip.errors)
    w = Wire()
    w.level(0, 0)
    w.level(1, 0)
    w.level(2, 0)
    w.level(1, 1, dt=0)  # DATA changed in the µs WR rose
    assert any("(setup)" in e for e in w.chip.errors)
    w.level(2, 1, dt=0)
    assert any("(hold)" in e for e in w.chip.errors)
    w = Wire()
    w.level(1, 0)
    w.level(0, 0)  # CS falls while WR is low
    assert any("CS fell while WR is low" in e for e in w.chip.errors)


def test_the_simulated_board_hosts_the_lcd_pair(tmp_path):
    """SimulatedClock(display="lcd") puts the two glass models on GP2-GP5: a pair built on
    those pins as board.py builds it shows on `display(side)`."""
    clock = SimulatedClock(tmp_path, display="lcd")
    Pin = machine.Pin
    sm = rp2.StateMachine(
        0,
        ht1621_pio.program,
        freq=ht1621_pio.PIO_HZ,
        set_base=Pin(2),
        sideset_base=Pin(3),
        out_base=Pin(4),
    )
    sm.active(1)
    left, right = pair(sm)
    left.show(glyphs("1 00 0"), ICON_BAT1 | ICON_BAT2)
    right.show(glyphs("9 5959"))
    machine.advance(5_000)
    assert clock.display(0) == ("1 00 0", 0, 3)
    assert clock.icons(0) == 3 and clock.brightness(0) is None
    assert clock.segments(1) == bytes(glyphs("9 5959"))
    assert clock.chips[0].errors == clock.chips[1].errors == []
    with pytest.raises(ValueError):
        SimulatedClock(tmp_path, display="oled")
