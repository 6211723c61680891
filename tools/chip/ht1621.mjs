// An HT1621 LCD controller (the PDC-6X1 glass module) on GPIO lines of the emulated board:
// its own CS, and WR and DATA shared with the other glass. Modelled from the Holtek HT1621
// datasheet (timing diagrams, command summary, A.C. characteristics at 3 V), with every
// protocol and timing rule checked so a wrong frame fails a run instead of passing silently.
// The module is write-only (no RD line): the model never drives a line. The chip's inputs
// have pull-ups of their own, so the lines idle high.
//
// The wire:
// - CS low opens a transaction, CS high ends it and resets the serial interface; while CS
//   is low the chip takes DATA on each rising edge of WR.
// - a transaction starts with a 3-bit mode ID: 100 command mode (then 9-bit commands: the
//   8-bit code first bit first, then a don't-care bit), 101 write mode (a 6-bit address,
//   A5 first, then 4-bit nibbles D0 first, written from that address up). 110 (read) has no
//   line here, and any other ID is no mode: errors. So is a transaction cut inside its ID,
//   address, a command or a nibble, a write with no nibble, an address past 31, and every
//   command the module's driver has no use for (crystal or external clock, the tone, the
//   timer, watchdog and IRQ outputs on, test mode, a bias other than 1/3 with 4 COMs).
// - timing (3 V): WR low and high at least 3.34 µs while CS is low; DATA settled 120 ns
//   before WR rises and held 120 ns after; CS low 100 ns before WR first falls and high no
//   sooner than 100 ns after WR last rose; CS high at least 250 ns between transactions; WR
//   high when CS changes.
//
// The glass is lit when the chip has had SYS EN, LCD ON and BIAS 1/3 4 COM. What it shows
// is the RAM's nibbles 0..11 (digit i at addresses 10-2i and 11-2i: firmware/drivers/
// ht1621.py has the map); the Python side (tools/chip/chip.py) turns them into characters.

const MIN_WR_NS = 3340;
const MIN_SETUP_NS = 120;
const MIN_HOLD_NS = 120;
const MIN_CS_SETUP_NS = 100;
const MIN_CS_HOLD_NS = 100;
const MIN_CS_HIGH_NS = 250;

const NAMES = {
  0x00: 'SYS DIS',
  0x01: 'SYS EN',
  0x02: 'LCD OFF',
  0x03: 'LCD ON',
  0x04: 'TIMER DIS',
  0x05: 'WDT DIS',
  0x06: 'TIMER EN',
  0x07: 'WDT EN',
  0x08: 'TONE OFF',
  0x09: 'TONE ON',
  0xe0: 'TEST',
  0xe3: 'NORMAL',
};

/** The lines both glasses share: WR and DATA levels and when they last changed. */
export class HT1621Bus {
  constructor(board, wr, data) {
    this.wr = 1;
    this.data = 1;
    this.wrChanged = -1e12;
    this.dataChanged = -1e12;
    this.chips = [];
    board.pullUp(wr);
    board.pullUp(data);
    board.watch(wr, (level, t) => this.onWr(level, t));
    board.watch(data, (level, t) => this.onData(level, t));
  }

  onWr(level, t) {
    for (const c of this.chips) c.onWr(level, t, t - this.wrChanged);
    this.wr = level;
    this.wrChanged = t;
  }

  onData(level, t) {
    for (const c of this.chips) c.onData(level, t);
    this.data = level;
    this.dataChanged = t;
  }
}

export class HT1621 {
  constructor(board, bus, cs, name) {
    this.bus = bus;
    this.name = name;
    this.ram = new Uint8Array(32);
    this.sysEn = false;
    this.lcdOn = false;
    this.bias = ''; // 'third4' once BIAS 1/3 4 COM came
    this.frames = []; // [start_ns, end_ns, mode, bits, [ram 0..11], lit] per transaction
    this.commands = []; // names, in order
    this.errors = []; // [t_ns, message]
    this.inTx = false;
    this.csHighSince = -1e12;
    this.txStart = 0;
    this.firstFall = -1;
    this.lastRise = -1e12;
    this.bits = 0;
    this.field = 0;
    this.mode = '';
    this.addr = 0;
    this.nibbles = 0;
    bus.chips.push(this);
    board.pullUp(cs);
    board.watch(cs, (level, t) => this.onCs(level, t));
  }

  error(t, message) {
    this.errors.push([t, `${this.name}: ${message}`]);
  }

  lit() {
    return this.sysEn && this.lcdOn && this.bias === 'third4';
  }

  onCs(level, t) {
    if (!this.bus.wr && (this.inTx || !level)) {
      this.error(t, `CS ${level ? 'rose' : 'fell'} while WR is low`);
    }
    if (!level) {
      if (t - this.csHighSince < MIN_CS_HIGH_NS) {
        this.error(t, `CS high for only ${t - this.csHighSince} ns`);
      }
      this.inTx = true;
      this.txStart = t;
      this.firstFall = -1;
      this.lastRise = -1e12;
      this.bits = 0;
      this.field = 0;
      this.mode = '';
      this.nibbles = 0;
      return;
    }
    this.csHighSince = t;
    if (!this.inTx) return;
    this.inTx = false;
    if (this.bits && t - this.lastRise < MIN_CS_HOLD_NS) {
      this.error(t, `CS rose ${t - this.lastRise} ns after WR`);
    }
    this.end(t);
  }

  onWr(level, t, width) {
    if (!this.inTx) return;
    if (this.firstFall >= 0 && width < MIN_WR_NS) {
      this.error(t, `WR ${level ? 'low' : 'high'} for only ${width} ns`);
    }
    if (!level) {
      if (this.firstFall < 0) {
        this.firstFall = t;
        if (t - this.txStart < MIN_CS_SETUP_NS) {
          this.error(t, `WR fell ${t - this.txStart} ns after CS`);
        }
      }
      return;
    }
    if (this.firstFall < 0) return; // WR was low when CS fell: reported there
    if (t - this.bus.dataChanged < MIN_SETUP_NS) {
      this.error(t, `DATA changed ${t - this.bus.dataChanged} ns before WR rose`);
    }
    this.lastRise = t;
    this.bit(this.bus.data ? 1 : 0, t);
  }

  onData(level, t) {
    if (this.inTx && t - this.lastRise < MIN_HOLD_NS) {
      this.error(t, `DATA changed ${t - this.lastRise} ns after WR rose`);
    }
  }

  bit(b, t) {
    this.bits += 1;
    this.field = (this.field << 1) | b;
    const n = this.bits;
    if (n <= 3) {
      if (n === 3) {
        if (this.field === 0b100) this.mode = 'command';
        else if (this.field === 0b101) this.mode = 'write';
        else {
          this.mode = 'bad';
          this.error(t, `mode ID ${this.field.toString(2).padStart(3, '0')}`);
        }
        this.field = 0;
      }
      return;
    }
    if (this.mode === 'command') {
      if ((n - 3) % 9 === 0) {
        this.command(this.field >> 1, t);
        this.field = 0;
      }
    } else if (this.mode === 'write') {
      if (n === 9) {
        this.addr = this.field;
        this.field = 0;
      } else if (n > 9 && (n - 9) % 4 === 0) {
        const f = this.field; // D0 came first: the field's bit 3
        const nib = ((f >> 3) & 1) | (((f >> 2) & 1) << 1) | (((f >> 1) & 1) << 2) | ((f & 1) << 3);
        this.field = 0;
        if (this.addr > 31) this.error(t, `address ${this.addr} past the RAM`);
        else this.ram[this.addr] = nib;
        this.addr += 1;
        this.nibbles += 1;
      }
    }
  }

  command(c, t) {
    let name = NAMES[c];
    if (c === 0x01) this.sysEn = true;
    else if (c === 0x00) {
      this.sysEn = false;
      this.lcdOn = false;
    } else if (c === 0x03) this.lcdOn = true;
    else if (c === 0x02) this.lcdOn = false;
    else if (c === 0x04 || c === 0x05 || c === 0x08 || c === 0xe3) {
      // TIMER DIS, WDT DIS, TONE OFF, NORMAL: the power-on state
    } else if ((c & 0xfc) === 0x18) name = 'RC 256K';
    else if ((c & 0xf0) === 0x20) {
      const third = c & 1;
      const coms = ((c >> 2) & 3) + 2;
      name = `BIAS 1/${third ? 3 : 2} ${coms} COM`;
      this.bias = third && coms === 4 && !(c & 2) ? 'third4' : 'other';
      if (this.bias !== 'third4') this.error(t, `${name}: the glass is 1/3 bias, 4 COM`);
    } else if ((c & 0xe8) === 0x80) name = 'IRQ DIS';
    else {
      name = name || `0x${c.toString(16).padStart(2, '0')}`;
      this.error(t, `command ${name} is not for this module`);
    }
    this.commands.push(name);
  }

  end(t) {
    const n = this.bits;
    if (n === 0) return; // a CS pulse with no bit: resets the interface, nothing else
    if (n < 3) this.error(t, 'transaction ended inside its mode ID');
    else if (this.mode === 'command' && (n - 3) % 9) {
      this.error(t, `transaction ended inside a command (${n} bits)`);
    } else if (this.mode === 'write') {
      if (n < 9) this.error(t, 'write ended inside its address');
      else if ((n - 9) % 4) this.error(t, `write ended inside a nibble (${n} bits)`);
      else if (this.nibbles === 0) this.error(t, 'write with no data');
    }
    this.frames.push([this.txStart, t, this.mode, n, Array.from(this.ram.subarray(0, 12)), this.lit()]);
  }
}
