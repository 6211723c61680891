// A TM1637 on two GPIO lines of the emulated board (CLK, DIO; open drain, pull-ups on the
// module), modelled from the Titan Micro TM1637 datasheet, with every protocol rule
// checked so a wrong frame fails a run instead of passing silently.
//
// The wire protocol (datasheet, "interface interpretation"):
// - start: DIO falls while CLK is high; stop: DIO rises while CLK is high. Any other DIO
//   change while CLK is high is one of those two, so a start or stop inside a byte is an
//   error, and so is a start inside a frame (the chip has no repeated start).
// - data: 8 bits per byte, least significant first, sampled on CLK's rising edge; DIO must
//   be settled before CLK rises (setup time) and CLK pulses are at least 400 ns wide.
// - ACK: after the 8th bit's falling CLK edge the chip pulls DIO low, through the 9th
//   clock, and lets it go at the 9th falling edge.
// - commands, the first byte after a start: 0x40 | flags (data command; 0x04 fixed
//   address, 0x02 read keys, 0x08 test mode), alone in its frame; 0xC0 + address (0..5)
//   then the display bytes, written from that address (auto-increment unless fixed);
//   0x80 | 0x08 (on) | brightness 0..7 (display control), alone in its frame.
// Not supported here, so an error: reading keys, test mode, an address past 5.
//
// The supply (the LED build's switch in the modules' 3V3, board.py: `supply` high = off; from
// a reset until the firmware drives it, the pad's own pull-down holds it low, on): unpowered,
// the chip is dark and holds nothing, and the module's pull-ups, now to a dead rail, hold CLK and DIO
// low; a line the RP2040 pulls up or drives high then feeds the unpowered module through its
// input, an error. Powered again, the chip starts dark, and since the datasheet does not
// say which data mode it powers up in, digits before a data command are an error.
//
// A stop is CLK rising with DIO low, then DIO rising: that CLK rise is not a data bit.
// A stop with no start while idle is ignored, and so is a start followed at once by a stop
// (SoftI2C's constructor sends its stop sequence with CLK already high: DIO falls, rises).

import { GPIOPinState } from 'rp2040js';

const MIN_PULSE_NS = 400;
const MIN_SETUP_NS = 100;

export class TM1637 {
  constructor(board, clk, dio, name, supply = null) {
    this.board = board;
    this.clk = clk;
    this.dio = dio;
    this.name = name;
    this.ram = new Uint8Array(6);
    this.frames = []; // [start_ns, stop_ns, [bytes]]
    this.empty = 0; // start-stop pairs with no byte (SoftI2C's constructor sends one)
    this.errors = []; // [t_ns, message]
    this.bytes = [];
    this.acking = false;
    this.poweredUp();
    this.frameStart = 0;
    this.clkLevel = 1;
    this.dioLevel = 1;
    this.clkChanged = 0;
    this.dioChanged = 0;
    this.addr = -1; // write address while an address frame runs
    this.powered = true;
    this.power = []; // [t_ns, on] each time the supply switched
    board.pullUp(clk);
    board.pullUp(dio);
    board.watch(clk, (level, t) => this.onClk(level, t));
    board.watch(dio, (level, t) => this.onDio(level, t));
    if (supply !== null) {
      board.watch(supply, (level, t) => this.onSupply(!level, t));
      for (const g of [clk, dio]) board.mcu.gpio[g].addListener(() => this.checkFeed(g));
      board.resolve(supply);
      this.onSupply(!board.level[supply], 0);
    }
  }

  /** The chip as its supply comes: dark, empty, in no frame, no data mode set. */
  poweredUp() {
    if (this.acking) this.board.drive(this.dio, false);
    this.acking = false;
    this.ram.fill(0);
    this.ctrl = -1; // display control byte last received, -1 = none yet
    this.fixed = false;
    this.modeSet = false; // a data command since power-on
    this.inFrame = false;
    this.bit = 0; // rising edges seen in this byte (0..8; 8 = in the ACK clock)
    this.shift = 0;
  }

  onSupply(on, t) {
    if (on === this.powered) return;
    this.powered = on;
    this.power.push([t, on]);
    const board = this.board;
    for (const g of [this.clk, this.dio]) {
      board.extPullUp[g] = on ? 1 : 0;
      board.drive(g, !on); // the module's pull-ups to its dead rail hold the line low
    }
    this.poweredUp(); // what the next power-on finds
    if (on) {
      // the lines as they are now: what they did unpowered was not seen
      this.clkLevel = board.level[this.clk];
      this.dioLevel = board.level[this.dio];
      this.clkChanged = t;
      this.dioChanged = t;
    }
    this.checkFeed(this.clk);
    this.checkFeed(this.dio);
  }

  /** An unpowered module fed through a line the RP2040 pulls or drives high. */
  checkFeed(g) {
    if (this.powered) return;
    const state = this.board.mcu.gpio[g].value;
    if (state === GPIOPinState.InputPullUp || state === GPIOPinState.High) {
      this.error(this.board.clock.nanos, `GPIO ${g} feeds the unpowered module`);
    }
  }

  error(t, message) {
    this.errors.push([t, `${this.name}: ${message}`]);
  }

  onClk(level, t) {
    if (!this.powered) return;
    const width = t - this.clkChanged;
    if (this.inFrame && width < MIN_PULSE_NS) {
      this.error(t, `CLK ${level ? 'low' : 'high'} for only ${width} ns`);
    }
    this.clkLevel = level;
    this.clkChanged = t;
    if (!this.inFrame) return;
    if (level) {
      if (this.bit < 8) {
        if (t - this.dioChanged < MIN_SETUP_NS) this.error(t, 'DIO changed right before CLK rose');
        if (this.dioLevel && !this.acking) this.shift |= 1 << this.bit;
      }
      this.bit += 1;
      if (this.bit > 9) this.error(t, 'more than 9 clocks in a byte');
      return;
    }
    if (this.bit === 8 && !this.acking) {
      this.acking = true; // the 8th bit is in: acknowledge through the 9th clock
      this.board.drive(this.dio, true);
    } else if (this.bit === 9 && this.acking) {
      this.acking = false;
      this.board.drive(this.dio, false);
      this.byte(this.shift, t);
      this.bit = 0;
      this.shift = 0;
    }
  }

  onDio(level, t) {
    if (!this.powered) return;
    this.dioLevel = level;
    this.dioChanged = t;
    if (!this.clkLevel) return; // data may change while CLK is low
    if (level === 0) {
      if (this.inFrame) {
        this.error(t, 'start inside a frame');
        return;
      }
      this.inFrame = true;
      this.frameStart = t;
      this.bytes = [];
      this.bit = 0;
      this.shift = 0;
      this.addr = -1;
    } else {
      if (!this.inFrame) return; // a stop while idle: ignored
      // A stop's own CLK rise counts as the first clock of a byte that never comes.
      if (this.bit > 1 || this.acking) this.error(t, `stop after ${this.bit} clocks of a byte`);
      this.inFrame = false;
      this.stop(t);
    }
  }

  byte(value, t) {
    const first = this.bytes.length === 0;
    this.bytes.push(value);
    if (first) {
      const kind = value & 0xc0;
      if (kind === 0x40) {
        if (value & 0x02) this.error(t, 'key reading is not modelled');
        if (value & 0x08) this.error(t, 'test mode');
        if (value & 0x30) this.error(t, `unknown data command 0x${value.toString(16)}`);
        this.fixed = !!(value & 0x04);
        this.modeSet = true;
      } else if (kind === 0xc0) {
        this.addr = value & 0x3f;
        if (!this.modeSet) this.error(t, 'digits before a data command since power-on');
        if (this.addr > 5) this.error(t, `address ${this.addr} past the 6 digits`);
      } else if (kind === 0x80) {
        if (value & 0x30) this.error(t, `unknown display control 0x${value.toString(16)}`);
        this.ctrl = value & 0x0f;
      } else {
        this.error(t, `0x${value.toString(16)} is no command`);
      }
      return;
    }
    const command = this.bytes[0] & 0xc0;
    if (command !== 0xc0) {
      this.error(t, `a byte after command 0x${this.bytes[0].toString(16)}`);
      return;
    }
    if (this.addr > 5) {
      this.error(t, 'display data past address 5');
      return;
    }
    this.ram[this.addr] = value;
    if (!this.fixed) this.addr += 1;
  }

  stop(t) {
    if (this.bytes.length === 0) {
      this.empty += 1; // a start and a stop with nothing between: the chip ignores it
      return;
    }
    this.frames.push([this.frameStart, t, this.bytes]);
  }

  /** What the chip lights: four segment bytes, or null while the display is off. */
  shown() {
    if (this.ctrl < 0 || !(this.ctrl & 0x08)) return null;
    return Array.from(this.ram.subarray(0, 4));
  }
}
