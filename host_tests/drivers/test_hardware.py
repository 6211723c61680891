"""hardware/diagram.json (Wokwi) and the pin table in hardware/README.md wire exactly the
pin map of the contract, with no shorts and only real Wokwi part/pin names."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DIAGRAM = ROOT / "hardware" / "diagram.json"
README = ROOT / "hardware" / "README.md"

# The contract: part id in the diagram -> (README row, {part pin: Pico pin}).
DISPLAYS = {
    "disp_left": ("left display", {"CLK": "GP2", "DIO": "GP3"}),
    "disp_right": ("right display", {"CLK": "GP4", "DIO": "GP5"}),
}
SWITCHES = {  # switch from the GPIO to GND, internal pull-up
    "lever_left": ("left lever", "GP6"),
    "lever_right": ("right lever", "GP7"),
    "btn_play": ("PLAY/PAUSE", "GP10"),
    "btn_set": ("SET", "GP11"),
    "btn_minus": ("MINUS", "GP12"),
    "btn_plus": ("PLUS", "GP13"),
}
# GPIO -> resistor -> load pin; load's other pin to GND.
SERIES = {
    "led_left": ("left LED", "GP8", "r_led_left", "330", "A", "C"),
    "led_right": ("right LED", "GP9", "r_led_right", "330", "A", "C"),
    "buzzer": ("buzzer", "GP15", "r_buzzer", "100", "2", "1"),
}
SERIAL_MONITOR = {"GP0": "$serialMonitor:RX", "GP1": "$serialMonitor:TX"}

# Pin names from Wokwi's part reference pages.
PICO_PINS = (
    {"GP%d" % n for n in list(range(23)) + [26, 27, 28]}
    | {"GND.%d" % n for n in range(1, 9)}
    | {"VSYS", "VBUS", "3V3", "3V3_EN", "RUN", "ADC_VREF"}
)
PART_PINS = {
    "wokwi-pi-pico": PICO_PINS,
    "wokwi-tm1637-7segment": {"CLK", "DIO", "VCC", "GND"},
    "wokwi-pushbutton": {"1.l", "1.r", "2.l", "2.r"},
    "wokwi-led": {"A", "C"},
    "wokwi-resistor": {"1", "2"},
    "wokwi-buzzer": {"1", "2"},
}
PART_COUNTS = {
    "wokwi-pi-pico": 1,
    "wokwi-tm1637-7segment": 2,
    "wokwi-pushbutton": 6,
    "wokwi-led": 2,
    "wokwi-resistor": 3,
    "wokwi-buzzer": 1,
}


class Nets:
    """Union-find over 'part:pin' endpoints; wires, pushbutton contacts and the Pico's GND
    pins join nets, resistors do not."""

    def __init__(self, diagram):
        self.parent = {}
        for a, b, *_rest in diagram["connections"]:
            self.join(a, b)
        for part in diagram["parts"]:
            pid = part["id"]
            if part["type"] == "wokwi-pushbutton":
                self.join(pid + ":1.l", pid + ":1.r")
                self.join(pid + ":2.l", pid + ":2.r")
            if part["type"] == "wokwi-pi-pico":
                for n in range(2, 9):
                    self.join(pid + ":GND.1", "%s:GND.%d" % (pid, n))

    def find(self, x):
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def join(self, a, b):
        self.parent[self.find(a)] = self.find(b)

    def net(self, x):
        root = self.find(x)
        return {y for y in list(self.parent) if self.find(y) == root}

    def pico_pins(self, x):
        """The Pico pins on x's net, with all GND pins reported as 'GND'."""
        pins = {y.split(":", 1)[1] for y in self.net(x) if y.startswith("pico:")}
        return {"GND" if p.startswith("GND.") else p for p in pins}


@pytest.fixture(scope="module")
def diagram():
    return json.loads(DIAGRAM.read_text())


@pytest.fixture(scope="module")
def nets(diagram):
    return Nets(diagram)


@pytest.fixture(scope="module")
def parts(diagram):
    return {p["id"]: p for p in diagram["parts"]}


def test_diagram_is_a_wokwi_diagram(diagram):
    assert diagram["version"] == 1
    assert isinstance(diagram["parts"], list) and isinstance(diagram["connections"], list)
    for conn in diagram["connections"]:
        assert len(conn) == 4, conn
        a, b, color, hints = conn
        assert isinstance(a, str) and isinstance(b, str) and isinstance(color, str)
        assert isinstance(hints, list)


def test_parts_are_the_ones_of_the_contract(diagram, parts):
    assert len(parts) == len(diagram["parts"]), "duplicate part ids"
    counts = {}
    for part in diagram["parts"]:
        counts[part["type"]] = counts.get(part["type"], 0) + 1
    assert counts == PART_COUNTS
    assert parts["pico"]["type"] == "wokwi-pi-pico"
    expected_ids = {"pico"} | set(DISPLAYS) | set(SWITCHES) | set(SERIES)
    expected_ids |= {s[2] for s in SERIES.values()}
    assert set(parts) == expected_ids


def test_every_endpoint_is_a_real_pin(diagram, parts):
    for conn in diagram["connections"]:
        for end in conn[:2]:
            pid, pin = end.split(":", 1)
            if pid == "$serialMonitor":
                assert pin in ("RX", "TX")
                continue
            assert pid in parts, end
            assert pin in PART_PINS[parts[pid]["type"]], end


def test_displays(nets):
    for pid, (_row, pins) in DISPLAYS.items():
        for pin, gp in pins.items():
            assert nets.pico_pins(pid + ":" + pin) == {gp}, (pid, pin)
        assert nets.pico_pins(pid + ":VCC") == {"3V3"}, "%s must run on 3V3" % pid
        assert nets.pico_pins(pid + ":GND") == {"GND"}


def test_levers_and_buttons_switch_their_gpio_to_ground(nets):
    for pid, (_row, gp) in SWITCHES.items():
        assert nets.pico_pins(pid + ":1.l") == {gp}, pid
        assert nets.pico_pins(pid + ":2.l") == {"GND"}, pid


def test_leds_and_buzzer_hang_from_their_gpio_through_a_resistor(nets, parts):
    for pid, (_row, gp, rid, ohms, hot, cold) in SERIES.items():
        assert parts[rid]["attrs"]["value"] == ohms, rid
        near = [p for p in ("1", "2") if gp in nets.pico_pins("%s:%s" % (rid, p))]
        assert len(near) == 1, "%s must connect %s to one end of %s" % (pid, gp, rid)
        far = "%s:%s" % (rid, "2" if near[0] == "1" else "1")
        assert "%s:%s" % (pid, hot) in nets.net(far), pid
        assert nets.pico_pins(far) == set(), "%s: resistor bypassed" % pid
        assert nets.pico_pins("%s:%s" % (pid, cold)) == {"GND"}, pid


def test_no_shorts_and_no_other_gpio(diagram, nets):
    expected = {gp for _r, pins in DISPLAYS.values() for gp in pins.values()}
    expected |= {gp for _r, gp in SWITCHES.values()} | {s[1] for s in SERIES.values()}
    used = set()
    for conn in diagram["connections"]:
        for end in conn[:2]:
            for pin in nets.pico_pins(end):
                if pin.startswith("GP"):
                    used.add(pin)
                    assert len(nets.pico_pins(end)) == 1, "short on %s: %s" % (end, nets.net(end))
    assert used == expected | set(SERIAL_MONITOR)
    for gp, monitor in SERIAL_MONITOR.items():
        assert nets.net("pico:" + gp) == {"pico:" + gp, monitor}


def _readme_rows():
    """{function: Pico pin cell}, {function: part cell} from README's pin table."""
    rows, parts = {}, {}
    for line in README.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and line.startswith("|"):
            rows[cells[0]] = cells[2]
            parts[cells[0]] = cells[1]
    return rows, parts


def test_readme_pin_table_says_the_same():
    rows, parts = _readme_rows()
    for row, pins in DISPLAYS.values():
        assert set(re.findall(r"GP\d+", rows[row])) == set(pins.values()), row
        for pin, gp in pins.items():
            assert "%s %s" % (pin, gp) in rows[row], row
    for row, gp in SWITCHES.values():
        assert re.findall(r"GP\d+", rows[row]) == [gp], row
    for row, gp, _rid, ohms, _hot, _cold in SERIES.values():
        match = [k for k in rows if k.startswith(row)]
        assert len(match) == 1, row
        assert re.findall(r"GP\d+", rows[match[0]]) == [gp], row
        assert "%s Ω" % ohms in parts[match[0]], row
    assert "ADC3 (GP29)" in rows["battery level"]


def test_readme_lcd_table_says_the_lcd_wiring():
    """The LCD build's table (its own row names, so the LED table above keeps its rows) wires
    the pins the simulated board's and the emulated chip's HT1621 models watch."""
    from simboard.firmware import LCD_PINS

    rows, parts = _readme_rows()
    cs_left, wr, data, cs_right = ("GP%d" % g for g in LCD_PINS)
    assert rows["left glass CS (LCD build)"] == "CS %s" % cs_left
    assert rows["glass bus (LCD build)"] == "WR %s, DATA %s" % (wr, data)
    assert rows["right glass CS (LCD build)"] == "CS %s" % cs_right
    for row in ("left glass CS (LCD build)", "right glass CS (LCD build)"):
        assert "HT1621" in parts[row]
