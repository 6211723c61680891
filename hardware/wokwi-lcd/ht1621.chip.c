// The LCD build's glass for the Wokwi simulator: an HT1621 on a PDC-6X1 module (six
// seven-segment digits, points after digits 3, 4 and 5, a battery symbol with three bars),
// write-only (CS, WR, DATA), drawn on the chip's framebuffer.
//
// The same write path as the project's other two models of the chip (the simulated board's
// tools/simboard/ht1621_decode.py, the emulated RP2040's tools/chip/ht1621.mjs), from the
// Holtek HT1621 datasheet: CS low opens a transaction and CS high ends it; while CS is low
// the chip takes DATA at each rising edge of WR. A 3-bit mode ID comes first: 100 command
// mode (then 9-bit commands, the 8-bit code first, a don't-care bit), 101 write mode (a
// 6-bit address, A5 first, then 4-bit nibbles, D0 first, from that address up). The glass
// is lit after SYS EN, LCD ON and BIAS 1/3 with 4 COMs. RAM nibbles 0..11 hold the digits:
// digit i (0 = left) at addresses 10-2i (COM0 point or bar, COM1 c, COM2 b, COM3 a) and
// 11-2i (COM0 d, COM1 e, COM2 g, COM3 f), firmware/drivers/ht1621.py's map. Every rule
// the firmware must keep is checked and a broken one is printed to the simulator's
// console: a wrong mode ID, a transaction cut inside a field, an address past the RAM, a
// command the module has no use for, WR low or high under 3.34 us (the 3 V limit).
//
// host_tests/drivers/test_wokwi_lcd.py compiles this file against a stand-in of
// wokwi-api.h and checks it against ht1621_decode.py, bit for bit and pixel by pixel.

#include "wokwi-api.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_WR_NS 3340
#define DIGITS 6
#define DIGIT_W 20 // a digit's box (px); segments STROKE wide
#define DIGIT_H 36
#define STROKE 3
#define PITCH 26 // from one digit's left edge to the next's
#define MARGIN 8
#define WIDTH (MARGIN * 2 + PITCH * DIGITS + 30) // the battery symbol right of the digits
#define HEIGHT (MARGIN * 2 + DIGIT_H)
#define GLASS 0xffa0b4b8u // the glass (RGBA in memory: R, G, B, A)
#define DARK 0xff202020u // a lit segment
#define FAINT 0xff98aaafu // an unlit one, as a glass shows it

typedef struct {
  pin_t cs, wr, data;
  bool in;         // CS is low
  int bits;        // bits taken in this transaction
  uint32_t field;  // the bits of the field being read
  int mode;        // 0 none yet, 1 command, 2 write, 3 no mode
  int addr;        // the next nibble's address
  int nibbles;     // nibbles written in this transaction
  uint64_t t_wr;   // when WR last changed (ns)
  int falls;       // WR falls in this transaction
  uint8_t ram[32]; // nibbles, bit k = COMk
  bool sys_en, lcd_on, bias_ok;
  buffer_t fb;
  uint32_t fb_w, fb_h;
  uint32_t pixels[WIDTH * HEIGHT];
} chip_t;

static void report(const char *what, int value) {
  printf("HT1621: %s (%d)\n", what, value);
}

static void fill(chip_t *c, int x0, int y0, int w, int h, uint32_t rgba) {
  for (int y = y0; y < y0 + h; y++) {
    for (int x = x0; x < x0 + w; x++) {
      if (x >= 0 && y >= 0 && x < (int)c->fb_w && y < (int)c->fb_h && x < WIDTH && y < HEIGHT) {
        c->pixels[y * WIDTH + x] = rgba;
      }
    }
  }
}

// Segment s (0 a, 1 b, 2 c, 3 d, 4 e, 5 f, 6 g) of the digit whose box starts at x, y.
static void segment(chip_t *c, int x, int y, int s, bool on) {
  uint32_t k = on ? DARK : FAINT;
  int half = DIGIT_H / 2;
  int len = DIGIT_W - 2 * STROKE;
  switch (s) {
  case 0: fill(c, x + STROKE, y, len, STROKE, k); break;
  case 1: fill(c, x + DIGIT_W - STROKE, y + STROKE, STROKE, half - STROKE - 1, k); break;
  case 2: fill(c, x + DIGIT_W - STROKE, y + half + 1, STROKE, half - STROKE - 1, k); break;
  case 3: fill(c, x + STROKE, y + DIGIT_H - STROKE, len, STROKE, k); break;
  case 4: fill(c, x, y + half + 1, STROKE, half - STROKE - 1, k); break;
  case 5: fill(c, x, y + STROKE, STROKE, half - STROKE - 1, k); break;
  default: fill(c, x + STROKE, y + half - 1, len, STROKE, k); break;
  }
}

// The glass as the RAM says, blank while it is not lit.
static void draw(chip_t *c) {
  bool lit = c->sys_en && c->lcd_on && c->bias_ok;
  fill(c, 0, 0, WIDTH, HEIGHT, GLASS);
  for (int i = 0; i < DIGITS; i++) {
    int e = lit ? c->ram[10 - 2 * i] : 0;
    int o = lit ? c->ram[11 - 2 * i] : 0;
    int x = MARGIN + i * PITCH;
    bool seg[7] = {e >> 3 & 1, e >> 2 & 1, e >> 1 & 1, o & 1, o >> 1 & 1, o >> 3 & 1, o >> 2 & 1};
    for (int s = 0; s < 7; s++) {
      segment(c, x, MARGIN, s, seg[s]);
    }
    if (i >= 3) { // the point left of digit i (after digit i - 1): COM0 of its even nibble
      fill(c, x - (PITCH - DIGIT_W) + 1, MARGIN + DIGIT_H - STROKE, STROKE, STROKE,
           (e & 1) ? DARK : FAINT);
    }
  }
  // The battery symbol: its body, then bars 1 (digit 2's COM0), 2 (digit 1's), 3 (digit 0's)
  int bx = MARGIN + DIGITS * PITCH + 4, by = MARGIN;
  fill(c, bx, by, 22, 2, FAINT);
  fill(c, bx, by + 12, 22, 2, FAINT);
  fill(c, bx, by, 2, 14, FAINT);
  fill(c, bx + 20, by, 2, 14, FAINT);
  fill(c, bx + 22, by + 4, 2, 6, FAINT);
  for (int bar = 0; bar < 3; bar++) {
    int e = lit ? c->ram[10 - 2 * (2 - bar)] : 0;
    fill(c, bx + 3 + bar * 6, by + 3, 4, 8, (e & 1) ? DARK : FAINT);
  }
  buffer_write(c->fb, 0, c->pixels, sizeof(c->pixels));
}

static void command(chip_t *c, uint32_t code) {
  if (code == 0x01) {
    c->sys_en = true;
  } else if (code == 0x00) {
    c->sys_en = false;
    c->lcd_on = false;
  } else if (code == 0x03) {
    c->lcd_on = true;
  } else if (code == 0x02) {
    c->lcd_on = false;
  } else if (code == 0x04 || code == 0x05 || code == 0x08 || code == 0xe3) {
    // TIMER DIS, WDT DIS, TONE OFF, NORMAL: what the module wants anyway
  } else if ((code & 0xfc) == 0x18) {
    // RC 256K: the on-chip oscillator
  } else if ((code & 0xf0) == 0x20) {
    c->bias_ok = (code & 0x0f) == 0x09; // BIAS 1/3, 4 COM: 0010 1001
    if (!c->bias_ok) {
      report("a bias other than 1/3 with 4 COMs", (int)code);
    }
  } else if ((code & 0xe8) == 0x80) {
    // IRQ DIS
  } else {
    report("a command this module has no use for", (int)code);
  }
}

static void bit(chip_t *c, int b) {
  c->bits++;
  c->field = c->field << 1 | (uint32_t)b;
  int n = c->bits;
  if (n <= 3) {
    if (n == 3) {
      c->mode = c->field == 4 ? 1 : c->field == 5 ? 2 : 3;
      if (c->mode == 3) {
        report("a mode ID other than 100 and 101", (int)c->field);
      }
      c->field = 0;
    }
    return;
  }
  if (c->mode == 1 && (n - 3) % 9 == 0) {
    command(c, c->field >> 1);
    c->field = 0;
  } else if (c->mode == 2) {
    if (n == 9) {
      c->addr = (int)c->field;
      c->field = 0;
    } else if (n > 9 && (n - 9) % 4 == 0) {
      uint32_t f = c->field; // D0 came first: the field's bit 3
      int nib = (f >> 3 & 1) | (f >> 2 & 1) << 1 | (f >> 1 & 1) << 2 | (f & 1) << 3;
      c->field = 0;
      if (c->addr > 31) {
        report("an address past the RAM", c->addr);
      } else {
        c->ram[c->addr] = (uint8_t)nib;
      }
      c->addr++;
      c->nibbles++;
    }
  }
}

static void end(chip_t *c) {
  int n = c->bits;
  c->in = false;
  if (n == 0) {
    return; // CS pulsed with no bit: the interface reset, nothing else
  }
  if (n < 3) {
    report("a transaction cut inside its mode ID", n);
  } else if (c->mode == 1 && (n - 3) % 9) {
    report("a transaction cut inside a command", n);
  } else if (c->mode == 2 && (n < 9 || (n - 9) % 4 || c->nibbles == 0)) {
    report("a write cut inside its address or a nibble, or with no nibble", n);
  }
  draw(c);
}

static void on_cs(void *user, pin_t pin, uint32_t value) {
  chip_t *c = user;
  (void)pin;
  if (value) {
    if (c->in) {
      end(c);
    }
  } else if (!c->in) {
    c->in = true;
    c->bits = 0;
    c->field = 0;
    c->mode = 0;
    c->nibbles = 0;
    c->falls = 0;
  }
}

static void on_wr(void *user, pin_t pin, uint32_t value) {
  chip_t *c = user;
  (void)pin;
  uint64_t t = get_sim_nanos();
  if (c->in && c->falls && t - c->t_wr < MIN_WR_NS) {
    report(value ? "WR low under 3.34 us (ns)" : "WR high under 3.34 us (ns)", (int)(t - c->t_wr));
  }
  c->t_wr = t;
  if (!c->in) {
    return;
  }
  if (value) {
    bit(c, pin_read(c->data) ? 1 : 0);
  } else {
    c->falls++;
  }
}

void chip_init(void) {
  chip_t *c = calloc(1, sizeof(chip_t));
  c->cs = pin_init("CS", INPUT_PULLUP);
  c->wr = pin_init("WR", INPUT_PULLUP);
  c->data = pin_init("DATA", INPUT_PULLUP);
  c->fb = framebuffer_init(&c->fb_w, &c->fb_h);
  const pin_watch_config_t cs = {.user_data = c, .edge = BOTH, .pin_change = on_cs};
  const pin_watch_config_t wr = {.user_data = c, .edge = BOTH, .pin_change = on_wr};
  pin_watch(c->cs, &cs);
  pin_watch(c->wr, &wr);
  draw(c);
}
