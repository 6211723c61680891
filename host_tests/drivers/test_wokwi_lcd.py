"""The LCD build's glass for Wokwi (hardware/wokwi-lcd/ht1621.chip.c), compiled with the
host's C compiler against a stand-in of Wokwi's chip API (the functions it calls, as the
API's reference declares them) and driven with the real firmware's traffic from the
simulated board: its framebuffer lights exactly the segments, points and battery bars the
project's glass model (tools/simboard/ht1621_decode.py) decodes from the same wires, and it
reports the protocol errors that model finds. The Wokwi diagram wires the LCD build's pins.

Skipped where the machine has no C compiler (`cc`)."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import machine
import pytest
from test_hardware import PICO_PINS, README

from simboard import ht1621_decode
from simboard.firmware import SimulatedClock

ROOT = Path(__file__).resolve().parents[2]
WOKWI = ROOT / "hardware" / "wokwi-lcd"
CHIP_C = WOKWI / "ht1621.chip.c"
LCD_PINS = {"CS": "GP2", "WR": "GP3", "DATA": "GP4"}, {"CS": "GP5", "WR": "GP3", "DATA": "GP4"}
BATTERY_ADC = 3  # ADC3 reads VSYS / 3 (test_firmware_e2e.py)

API = """
#include <stdbool.h>
#include <stdint.h>
enum pin_value { LOW = 0, HIGH = 1 };
enum pin_mode { INPUT = 0, OUTPUT = 1, INPUT_PULLUP = 2, INPUT_PULLDOWN = 3, ANALOG = 4 };
enum edge { RISING = 1, FALLING = 2, BOTH = 3 };
typedef int32_t pin_t;
#define NO_PIN ((pin_t)-1)
typedef struct {
  void *user_data;
  uint32_t edge;
  void (*pin_change)(void *user_data, pin_t pin, uint32_t value);
} pin_watch_config_t;
typedef uint32_t buffer_t;
void chip_init(void);
pin_t pin_init(const char *name, uint32_t mode);
uint32_t pin_read(pin_t pin);
bool pin_watch(pin_t pin, const pin_watch_config_t *config);
buffer_t framebuffer_init(uint32_t *pixel_width, uint32_t *pixel_height);
void buffer_write(buffer_t buffer, uint32_t offset, void *data, uint32_t data_len);
uint64_t get_sim_nanos(void);
"""

# Reads "t_ns line level" rows (line 0 CS, 1 WR, 2 DATA), plays them into the chip, then
# prints the framebuffer a character a pixel: '#' a lit segment, '+' an unlit one.
HARNESS = """
#include "wokwi-api.h"
#include <stdio.h>
#include <string.h>
static const char *names[3] = {"CS", "WR", "DATA"};
static uint32_t level[3] = {1, 1, 1};
static pin_watch_config_t watch[3];
static bool watched[3];
static uint64_t now_ns;
static uint32_t fb[W * H];
pin_t pin_init(const char *name, uint32_t mode) {
  (void)mode;
  for (int i = 0; i < 3; i++) if (!strcmp(name, names[i])) return i;
  return NO_PIN;
}
uint32_t pin_read(pin_t pin) { return level[pin]; }
bool pin_watch(pin_t pin, const pin_watch_config_t *config) {
  watch[pin] = *config;
  watched[pin] = true;
  return true;
}
buffer_t framebuffer_init(uint32_t *w, uint32_t *h) { *w = W; *h = H; return 1; }
void buffer_write(buffer_t b, uint32_t offset, void *data, uint32_t len) {
  (void)b;
  memcpy((char *)fb + offset, data, len);
}
uint64_t get_sim_nanos(void) { return now_ns; }
int main(void) {
  unsigned long long t;
  int p;
  unsigned v;
  chip_init();
  while (scanf("%llu %d %u", &t, &p, &v) == 3) {
    now_ns = t;
    if (level[p] == v) continue;
    level[p] = v;
    if (watched[p] && (watch[p].edge & (v ? RISING : FALLING)))
      watch[p].pin_change(watch[p].user_data, p, v);
  }
  printf("PICTURE\\n");
  for (int y = 0; y < H; y++) {
    for (int x = 0; x < W; x++)
      putchar(fb[y * W + x] == DARK ? '#' : fb[y * W + x] == FAINT ? '+' : '.');
    putchar('\\n');
  }
  return 0;
}
"""


def defines():
    """The chip's #define constants that are plain numbers."""
    found = re.findall(r"^#define (\w+) (\d+)\b", CHIP_C.read_text(), re.M)
    return {k: int(v) for k, v in found}


@pytest.fixture(scope="module")
def chip_program(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler on this machine")
    spec = json.loads((WOKWI / "ht1621.chip.json").read_text())
    w, h = spec["display"]["width"], spec["display"]["height"]
    tmp = tmp_path_factory.mktemp("wokwi")
    (tmp / "wokwi-api.h").write_text(API)
    (tmp / "harness.c").write_text(HARNESS)
    out = tmp / "chip"
    cmd = [cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", str(tmp), "-DW=%d" % w]
    cmd += ["-DH=%d" % h, str(CHIP_C), str(tmp / "harness.c"), "-o", str(out)]
    colours = re.findall(r"^#define (DARK|FAINT) (0x[0-9a-f]+)u", CHIP_C.read_text(), re.M)
    cmd[1:1] = ["-D%s=%su" % (name, value) for name, value in colours]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return out, w, h


def play(program, rows):
    """The chip's console lines and its picture (rows of characters) after `rows`."""
    text = "".join("%d %d %d\n" % r for r in rows)
    res = subprocess.run([str(program)], input=text, capture_output=True, text=True, check=True)
    lines = res.stdout.splitlines()
    k = lines.index("PICTURE")
    return lines[:k], lines[k + 1 :]


def lit_segments(picture):
    """What the picture lights, read at each segment's middle: (6 segment bytes with the
    points in bit 7 of digits 2, 3, 4, the battery bars as ht1621_decode's icons mask)."""
    d = defines()
    w, h, st, pitch, m = d["DIGIT_W"], d["DIGIT_H"], d["STROKE"], d["PITCH"], d["MARGIN"]
    half, ln = h // 2, w - 2 * st
    rects = (  # the chip's segment(): (x, y, w, h) from the digit's box, a..g
        (st, 0, ln, st),
        (w - st, st, st, half - st - 1),
        (w - st, half + 1, st, half - st - 1),
        (st, h - st, ln, st),
        (0, half + 1, st, half - st - 1),
        (0, st, st, half - st - 1),
        (st, half - 1, ln, st),
    )
    segs = bytearray(6)
    for i in range(6):
        x = m + i * pitch
        for s, (rx, ry, rw, rh) in enumerate(rects):
            if picture[m + ry + rh // 2][x + rx + rw // 2] == "#":
                segs[i] |= 1 << s
        if i >= 3 and picture[m + h - st + 1][x - (pitch - w) + 2] == "#":
            segs[i - 1] |= 0x80
    icons = 0
    bx = m + 6 * pitch + 4
    for bar in range(3):
        if picture[m + 7][bx + 3 + bar * 6 + 2] == "#":
            icons |= 1 << bar
    return bytes(segs), icons


def wires(clock, cs_gpio):
    """The rows a glass on CS `cs_gpio` saw: (t_ns, line, level), in the order of the
    simulated board's level changes (its traces' sequence numbers)."""
    lines = ((cs_gpio, 0), (3, 1), (4, 2))
    rows = [(seq, t * 1000, k, lv) for g, k in lines for seq, t, lv in machine.Pin(g).trace]
    return [(t, k, lv) for _seq, t, k, lv in sorted(rows)]


def test_the_glass_draws_what_the_firmware_wrote(chip_program, tmp_path):
    program, _w, _h = chip_program
    c = SimulatedClock(tmp_path, display="lcd")
    machine.set_adc_volts(BATTERY_ADC, 4.6 / 3)
    c.run_ms(31_500)  # the ready screen, a battery reading: three bars on the left glass
    c.press("right")  # the left clock runs: seconds and the dot's beat
    c.run_ms(2_700)
    for side, cs in ((0, 2), (1, 5)):
        console, picture = play(program, wires(c, cs))
        assert console == []  # the firmware keeps every rule
        model = c.chips[side]
        assert model.errors == []
        assert lit_segments(picture) == model.shown()
        assert "#" in "".join(picture)


def test_a_broken_transaction_is_reported_as_the_model_reports_it(chip_program):
    program, _w, _h = chip_program
    model = ht1621_decode.Chip("glass", clock=None)
    rows, t = [], 0

    def edge(line, level):
        nonlocal t
        t += 5_000
        rows.append((t, line, level))
        model.edge(line, level)

    for bits in ("110", "10100"):  # a read ID (no such line here), a write cut in its address
        edge(0, 0)
        for b in bits:
            edge(2, int(b))
            edge(1, 0)
            edge(1, 1)
        edge(0, 1)
    console, _picture = play(program, rows)
    assert len(console) == len(model.errors) == 2
    assert all(line.startswith("HT1621: ") for line in console)


def test_the_diagram_wires_the_lcd_build(chip_program):
    d = json.loads((WOKWI / "diagram.json").read_text())
    spec = json.loads((WOKWI / "ht1621.chip.json").read_text())
    wired = {}
    for a, b, _colour, _route in d["connections"]:
        for x, y in ((a, b), (b, a)):
            if x.startswith("glass_"):
                part, pin = x.split(":")
                assert y.startswith("pico:") and y[5:] in PICO_PINS, y
                wired.setdefault(part, {})[pin] = y[5:]
    assert {p["id"] for p in d["parts"] if p["type"] == "chip-ht1621"} == set(wired)
    for part, pins in zip(("glass_left", "glass_right"), LCD_PINS, strict=True):
        assert set(wired[part]) == set(spec["pins"])
        assert {k: wired[part][k] for k in pins} == pins
        assert wired[part]["VCC"] == "3V3" and wired[part]["GND"].startswith("GND")
    table = README.read_text()
    for gpio in ("CS GP2", "WR GP3, DATA GP4", "CS GP5"):
        assert gpio in table
