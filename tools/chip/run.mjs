// Runs one scenario on the emulated clock and prints what the pins saw, as JSON.
//
// usage: node tools/chip/run.mjs SCENARIO.json > RESULT.json
//
// The scenario (written by tools/chip/chip.py, which owns the policy: which files, which
// pins, what to check) is
//   { "bootrom": path of the 16 KiB boot ROM, "flash": path of the 2 MiB flash at power-up,
//     "wiring": { "displays": [[clk, dio], ...], "switches": [gpio...], "leds": [gpio...],
//                 "buzzer": gpio, "adc": { "channel": value12 } },
//     "flash_out": optional path: the flash at the end is written there,
//     "steps": [ ... ] }
// and each step one of
//   { "op": "run", "until_ms": t }            run the board to its own time t (ms since power-up)
//   { "op": "pin", "at_ms": t, "gpio": g, "pressed": bool }
//                                            a switch to GND closes/opens at exactly t
//   { "op": "repl", "code": text, "timeout_ms": t }
//                                            Ctrl-C, then run `code` in the raw REPL; stdout
//                                            and stderr go into the board's "repl" list
//   { "op": "power_cycle" }                  cut the power: a new board boots from the flash
//                                            (nothing on a Pico keeps time while it is off)
// Times are the board's own (a new board starts at 0). Everything the result holds is in
// ns of that board's clock. An unexpected reset (watchdog, machine.reset()) ends the run.

import fs from 'fs';
import { Board, bootromWords, CYCLE_NS } from './board.mjs';
import { TM1637 } from './tm1637.mjs';

const MS = 1_000_000;

function loadScenario(path) {
  return JSON.parse(fs.readFileSync(path, 'utf8'));
}

class Session {
  constructor(scenario) {
    this.scenario = scenario;
    this.bootrom = bootromWords(fs.readFileSync(scenario.bootrom));
    this.boards = [];
    this.seed = 0x5eed;
  }

  powerOn(flash) {
    const board = new Board({ bootrom: this.bootrom, flash, seed: this.seed++ });
    const w = this.scenario.wiring;
    const rec = {
      frames: [],
      tm_errors: [],
      leds: [],
      buzzer: [],
      edges: [],
      stamps: [],
      repl: [],
      reset: null,
    };
    board.rec = rec;
    board.displays = w.displays.map(
      ([clk, dio], i) => new TM1637(board, clk, dio, i === 0 ? 'left' : 'right'),
    );
    for (const g of w.switches) board.pullUp(g); // released switch: the line idles high
    for (const g of w.switches) {
      board.watch(g, (level, t) => rec.edges.push([t, g, level]));
    }
    for (const g of w.leds) {
      board.watch(g, (level, t) => rec.leds.push([t, g, level]));
    }
    // The lever stamp: the first read of the timer after a switch closes is the hard IRQ's
    // ticks_us() (nothing else reads the timer while the core sleeps).
    let pendingEdge = null;
    board.onTimerRead = (t, value) => {
      if (pendingEdge !== null) {
        rec.stamps.push([pendingEdge[0], pendingEdge[1], t, value]);
        pendingEdge = null;
      }
    };
    board.onSwitch = (g, t) => {
      pendingEdge = [t, g];
    };
    const buzzerChannel = board.mcu.pwm.channels[(w.buzzer >> 1) & 7];
    const buzzerPin = board.mcu.gpio[w.buzzer];
    let last = '';
    board.onPwm = (t) => {
      const ch = buzzerChannel;
      const duty = w.buzzer & 1 ? ch.cc >>> 16 : ch.cc & 0xffff;
      const on = !!(ch.csr & 1) && duty > 0 && buzzerPin.functionSelect === 4;
      const intPart = (ch.div >> 4) & 0xff;
      const prescaler = (intPart || 256) + (ch.div & 0xf) / 16;
      const freq = on ? Math.round(125e6 / prescaler / (ch.top + 1)) : 0;
      const key = `${on}/${freq}`;
      if (key !== last) {
        last = key;
        rec.buzzer.push([t, on, freq]);
      }
    };
    for (const [channel, value] of Object.entries(w.adc || {})) {
      board.mcu.adc.channelValues[Number(channel)] = value;
    }
    board.mcu.core.PC = 0x10000000; // boot stage 2 at the start of flash, as the ROM does
    this.boards.push(board);
    this.board = board;
    this.rawRepl = false;
    return board;
  }

  pin(step) {
    const board = this.board;
    const at = Math.round(step.at_ms * MS);
    const g = step.gpio;
    board.at(at, () => {
      board.drive(g, step.pressed);
      if (step.pressed) board.onSwitch(g, board.nanos);
    });
  }

  /** Run in 1 ms slices until `done()` or `timeoutMs` of emulated time; false on timeout. */
  runFor(timeoutMs, done) {
    const board = this.board;
    const end = board.nanos + timeoutMs * MS;
    while (board.nanos < end) {
      this.pump();
      board.runUntil(Math.min(end, board.nanos + MS));
      if (board.resetReason !== null) return false;
      if (done()) return true;
    }
    return false;
  }

  /** Move queued host bytes into the CDC FIFO as it has room (it drops what overflows). */
  pump() {
    const board = this.board;
    if (!this.outQueue || this.outQueue.length === 0) return;
    const fifo = board.cdc.txFIFO;
    const room = fifo.size - fifo.itemCount;
    if (room <= 0) return;
    const chunk = this.outQueue.splice(0, Math.min(room, 64));
    board.sendSerial(chunk);
  }

  write(bytes) {
    this.outQueue = (this.outQueue || []).concat(Array.from(bytes));
  }

  waitFor(text, from, timeoutMs) {
    const board = this.board;
    let found = -1;
    const ok = this.runFor(timeoutMs, () => {
      const s = board.serialText(from);
      found = s.indexOf(text);
      return found >= 0;
    });
    return ok ? from + found + text.length : -1;
  }

  repl(step) {
    const board = this.board;
    const timeout = step.timeout_ms || 10_000;
    const entry = { at_ns: board.nanos, out: '', err: '', ok: false };
    board.rec.repl.push(entry);
    let pos = board.serial.length;
    if (!this.rawRepl) {
      this.write([3, 3]); // Ctrl-C twice: out of main.py, to the prompt
      pos = this.waitFor('>>> ', pos, timeout);
      if (pos < 0) {
        entry.err = 'no prompt after Ctrl-C';
        return;
      }
      this.write([1]); // Ctrl-A: raw REPL
      pos = this.waitFor('raw REPL; CTRL-B to exit\r\n>', pos, timeout);
      if (pos < 0) {
        entry.err = 'no raw REPL';
        return;
      }
      this.rawRepl = true;
    }
    entry.start_ns = board.nanos;
    this.write(Buffer.from(step.code, 'utf8'));
    this.write([4]);
    pos = this.waitFor('OK', pos, timeout);
    if (pos < 0) {
      entry.err = 'raw REPL did not take the code';
      return;
    }
    const outEnd = this.waitFor('\x04', pos, timeout);
    if (outEnd < 0) {
      entry.err = 'timeout';
      entry.out = board.serialText(pos);
      return;
    }
    const errEnd = this.waitFor('\x04', outEnd, timeout);
    const prompt = errEnd < 0 ? -1 : this.waitFor('>', errEnd, timeout);
    entry.out = board.serialText(pos).slice(0, outEnd - pos - 1);
    entry.err = errEnd < 0 ? 'timeout' : board.serialText(outEnd).slice(0, errEnd - outEnd - 1);
    entry.ok = prompt >= 0;
    entry.end_ns = board.nanos;
  }

  summary(board) {
    const rec = board.rec;
    board.closeSegment();
    for (const d of board.displays) {
      rec.frames.push(d.frames);
      for (const e of d.errors) rec.tm_errors.push(e);
    }
    rec.segments = board.segments;
    rec.busy_cycles = board.busyCycles;
    rec.end_ns = board.nanos;
    rec.flash_ops = board.flashOps;
    rec.serial = board.serialText();
    rec.reset = board.resetReason === null ? null : [board.resetReason, board.resetAt];
    rec.warnings = Object.fromEntries(board.logger.counts);
    rec.emulator_errors = board.logger.errors;
    rec.cycle_ns = CYCLE_NS;
    return rec;
  }

  run() {
    const scenario = this.scenario;
    let flash = new Uint8Array(fs.readFileSync(scenario.flash));
    this.powerOn(flash);
    for (const step of scenario.steps) {
      if (this.board.resetReason !== null) break;
      if (step.op === 'run') {
        this.pump();
        this.board.runUntil(Math.round(step.until_ms * MS));
      } else if (step.op === 'pin') {
        this.pin(step);
      } else if (step.op === 'repl') {
        this.repl(step);
      } else if (step.op === 'power_cycle') {
        flash = this.board.flashImage();
        this.powerOn(flash);
      } else {
        throw new Error(`unknown step ${JSON.stringify(step)}`);
      }
    }
    if (scenario.flash_out) fs.writeFileSync(scenario.flash_out, this.board.flashImage());
    return { boards: this.boards.map((b) => this.summary(b)) };
  }
}

const scenario = loadScenario(process.argv[2]);
const result = new Session(scenario).run();
process.stdout.write(JSON.stringify(result));
