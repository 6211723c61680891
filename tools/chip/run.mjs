// A session with the emulated clock, driven over stdin/stdout, one JSON object a line.
//
// usage: node tools/chip/run.mjs     (tools/chip/chip.py starts it and speaks for it)
//
// The first request is { "op": "init", "bootrom": path of the 16 KiB boot ROM, "flash":
// path of the 2 MiB flash at power-up, "wiring": { "displays": [[clk, dio], ...] (TM1637s),
// "display_supply": gpio (their supply switch, low = powered; optional), "lcd": [cs_left,
// wr, data, cs_right] (the LCD build's two HT1621 glasses; optional),
// "switches": [gpio...], "leds": [gpio...], "buzzer": gpio, "adc": { channel: value12 },
// "probes": [gpio...] (free pins whose every level change is recorded) }, "clocks": "fixed"
// (the default: every core cycle 8 ns) or "model" (the RP2040's clock tree: clocks.mjs) }.
// Then, each answered by one line ({"ok": true, ...} or {"ok": false, "error": text}):
//   { "op": "run", "until_ms": t }        run the board to its own time t (ms since power-up)
//   { "op": "pin", "at_ms": t, "gpio": g, "pressed": bool }
//                                        a switch to GND closes/opens at exactly t (>= now)
//   { "op": "repl", "code": text, "timeout_ms": t }
//                                        Ctrl-C (the first time: the app hands the board over
//                                        at the ready screen or after a result, never during
//                                        a game), then run `code` in the raw REPL: answers
//                                        { out, err, start_ns, end_ns }
//   { "op": "adc", "channel": c, "value": v12 }
//                                        the ADC input `c` reads v12 (12-bit counts) from
//                                        now on, across power cycles too (the battery)
//   { "op": "usb", "hex": bytes }        the USB host writes these bytes to the port
//   { "op": "usb_reads", "reads": bool } the host reads the port (true, at power-up) or
//                                        keeps it open (DTR) and takes no packet (false)
//   { "op": "power_cycle" }              cut the power: a new board boots from the flash
//                                        (nothing on a Pico keeps time while it is off)
//   { "op": "arm_flash_press", "kind": "erase"|"program", "after_ns": d, "hold_ns": h,
//     "gpio": g }                        a switch closes d ns into the next such flash op
//   { "op": "trace" }                    what the pins saw on this power-up so far
//   { "op": "ledger" }                   the power-state ledger of this power-up so far
//                                        (ClockTree.snapshot in clocks.mjs)
//   { "op": "save_flash", "path": p }    write the whole flash to p
//   { "op": "quit" }
// Times are the board's own (a new board starts at 0); results are in ns of that clock.
// After an unexpected reset (watchdog, machine.reset()) every request but trace, save_flash
// and quit fails: the trace says when and why.

import fs from 'fs';
import readline from 'readline';
import { Board, bootromWords, CYCLE_NS } from './board.mjs';
import { HT1621, HT1621Bus } from './ht1621.mjs';
import { TM1637 } from './tm1637.mjs';

const MS = 1_000_000;
const VBUS_GPIO = 24; // the Pico's VBUS sense: high on USB power (hardware/README.md)

class Session {
  constructor(init) {
    this.wiring = init.wiring;
    this.clocks = init.clocks || 'fixed';
    this.bootrom = bootromWords(fs.readFileSync(init.bootrom));
    this.seed = 0x5eed;
    this.powerOn(new Uint8Array(fs.readFileSync(init.flash)));
  }

  powerOn(flash) {
    const board = new Board({
      bootrom: this.bootrom,
      flash,
      seed: this.seed++,
      clocks: this.clocks,
    });
    const w = this.wiring;
    const rec = {
      leds: [],
      buzzer: [],
      edges: [],
      stamps: [],
      probes: [],
      pushes: [],
      pio1Ctrl: [],
      flashPresses: [],
    };
    board.rec = rec;
    board.displays = w.displays.map(
      ([clk, dio], i) =>
        new TM1637(board, clk, dio, i === 0 ? 'left' : 'right', w.display_supply ?? null),
    );
    board.lcds = [];
    if (w.lcd) {
      const [csLeft, wr, data, csRight] = w.lcd;
      const bus = new HT1621Bus(board, wr, data);
      board.lcds = [new HT1621(board, bus, csLeft, 'left'), new HT1621(board, bus, csRight, 'right')];
    }
    for (const g of w.switches) board.pullUp(g); // released switch: the line idles high
    if (w.vbus !== false) board.pullUp(VBUS_GPIO); // the Pico's VBUS divider: USB power
    for (const g of w.switches) {
      board.watch(g, (level, t) => rec.edges.push([t, g, level]));
    }
    for (const g of w.leds) {
      board.watch(g, (level, t) => rec.leds.push([t, g, level]));
    }
    for (const g of w.probes || []) {
      board.watch(g, (level, t) => rec.probes.push([t, g, level]));
    }
    // The lever stamps from PIO1 (lever_pio.py): every word its machines push, and every
    // write to its CTRL (the start in step with the timer), with their instants.
    const pio1 = board.mcu.pio[1];
    pio1.machines.forEach((m, i) => {
      const fifo = m.rxFIFO;
      const push = fifo.push.bind(fifo);
      fifo.push = (v) => {
        rec.pushes.push([board.nanos, i, v >>> 0]);
        push(v);
      };
    });
    const writeCtrl = pio1.writeUint32.bind(pio1);
    pio1.writeUint32 = (offset, value) => {
      // with the µs timer's own ns then (the board's in the fixed clocks, clocks.mjs's)
      const timerNs = Math.floor(board.mcu.peripherals[0x40054].clock.nanos);
      if (offset === 0) rec.pio1Ctrl.push([board.nanos, value >>> 0, timerNs]);
      writeCtrl(offset, value);
    };
    // A switch pressed inside the next flash erase or program (arm_flash_press).
    board.onFlashOp = (kind, t) => {
      const armed = this.flashPress;
      if (!armed || armed.kind !== kind) return;
      this.flashPress = null;
      rec.flashPresses.push([kind, t, t + armed.after_ns, armed.gpio]);
      const g = armed.gpio;
      const at = t + armed.after_ns;
      board.at(at, () => {
        board.drive(g, true);
        board.onSwitch(g, at);
      });
      board.at(at + armed.hold_ns, () => board.drive(g, false));
    };
    // The GPIO lever stamp: the first read of the timer after a switch closes is the hard
    // IRQ's ticks_us() (nothing else reads the timer while the core sleeps).
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
      const freq = on ? Math.round(board.clockTree.sysHz / prescaler / (ch.top + 1)) : 0;
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
      if (step.pressed) board.onSwitch(g, at); // the instant asked for (Board.at)
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
    const entry = { at_ns: board.nanos, out: '', err: '', complete: false };
    let pos = board.serial.length;
    if (!this.rawRepl) {
      // Ctrl-C twice: the app hands the board over (usbguard.py: at the ready screen or
      // after a result), main.py ends, the REPL starts; during a game it answers with a
      // status line and goes on.
      this.write([3, 3]);
      const start = pos;
      let refused = false;
      const ok = this.runFor(timeout, () => {
        const text = board.serialText(start);
        refused = text.includes('USB ignored');
        return refused || text.includes('>>> ');
      });
      if (!ok || refused) {
        entry.err = refused
          ? 'the clock is in a game: USB ignored (usbguard.py)'
          : 'no prompt after Ctrl-C';
        entry.out = board.serialText(start);
        return entry;
      }
      pos = start + board.serialText(start).indexOf('>>> ') + 4;
      this.write([1]); // Ctrl-A: raw REPL
      pos = this.waitFor('raw REPL; CTRL-B to exit\r\n>', pos, timeout);
      if (pos < 0) {
        entry.err = 'no raw REPL';
        return entry;
      }
      this.rawRepl = true;
    }
    entry.start_ns = board.nanos;
    this.write(Buffer.from(step.code, 'utf8'));
    this.write([4]);
    pos = this.waitFor('OK', pos, timeout);
    if (pos < 0) {
      entry.err = 'raw REPL did not take the code';
      return entry;
    }
    const outEnd = this.waitFor('\x04', pos, timeout);
    if (outEnd < 0) {
      entry.err = 'timeout';
      entry.out = board.serialText(pos);
      return entry;
    }
    const errEnd = this.waitFor('\x04', outEnd, timeout);
    const prompt = errEnd < 0 ? -1 : this.waitFor('>', errEnd, timeout);
    entry.out = board.serialText(pos).slice(0, outEnd - pos - 1);
    entry.err = errEnd < 0 ? 'timeout' : board.serialText(outEnd).slice(0, errEnd - outEnd - 1);
    entry.complete = prompt >= 0;
    entry.end_ns = board.nanos;
    return entry;
  }

  trace() {
    const board = this.board;
    const rec = board.rec;
    board.closeSegment();
    return {
      frames: board.displays.map((d) => d.frames),
      tm_errors: board.displays.flatMap((d) => d.errors),
      tm_power: board.displays.map((d) => d.power),
      lcd_frames: board.lcds.map((d) => d.frames),
      lcd_commands: board.lcds.map((d) => d.commands),
      lcd_errors: board.lcds.flatMap((d) => d.errors),
      leds: rec.leds,
      buzzer: rec.buzzer,
      edges: rec.edges,
      stamps: rec.stamps,
      pushes: rec.pushes,
      pio1_ctrl: rec.pio1Ctrl,
      flash_presses: rec.flashPresses,
      probes: rec.probes,
      segments: board.segments,
      busy_cycles: board.busyCycles,
      now_ns: board.nanos,
      flash_ops: board.flashOps,
      serial: board.serialText(),
      serial_at: board.serialAt,
      reset: board.resetReason === null ? null : [board.resetReason, board.resetAt],
      warnings: Object.fromEntries(board.logger.counts),
      emulator_errors: board.logger.errors,
      cycle_ns: CYCLE_NS,
    };
  }

  handle(req) {
    const board = this.board;
    const alive = board.resetReason === null;
    switch (req.op) {
      case 'trace':
        return { trace: this.trace() };
      case 'ledger':
        return { ledger: board.clockTree.snapshot() };
      case 'save_flash':
        fs.writeFileSync(req.path, board.flashImage());
        return {};
      case 'power_cycle':
        this.powerOn(board.flashImage());
        return {};
    }
    if (!alive) throw new Error(`the board restarted (${board.resetReason}); power-cycle it`);
    switch (req.op) {
      case 'run': {
        const until = Math.round(req.until_ms * MS);
        // Host bytes still queued go in as the CDC FIFO takes them, a slice per ms.
        while (this.outQueue && this.outQueue.length && board.nanos < until) {
          this.pump();
          board.runUntil(Math.min(until, board.nanos + MS));
        }
        board.runUntil(until);
        return { now_ns: board.nanos, reset: board.resetReason };
      }
      case 'pin':
        this.pin(req);
        return {};
      case 'arm_flash_press':
        // Close switch `gpio` `after_ns` into the next flash op of `kind` ('erase' or
        // 'program'), for `hold_ns`: an edge while the core is stalled with interrupts off.
        this.flashPress = req;
        return {};
      case 'adc':
        this.wiring.adc = Object.assign({}, this.wiring.adc, { [req.channel]: req.value });
        board.mcu.adc.channelValues[Number(req.channel)] = req.value;
        return {};
      case 'repl': {
        const entry = this.repl(req);
        entry.now_ns = board.nanos; // the REPL's exchange ran the board on
        return entry;
      }
      case 'usb_reads':
        // The host reads the port (true) or keeps it open without reading (false).
        board.setHostReads(Boolean(req.reads));
        return {};
      case 'usb':
        // Bytes from the USB host (hex), queued into the CDC FIFO as it has room.
        this.write(Buffer.from(req.hex, 'hex'));
        this.pump();
        return {};
    }
    throw new Error(`unknown request ${JSON.stringify(req)}`);
  }
}

async function main() {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  let session = null;
  for await (const line of rl) {
    if (!line.trim()) continue;
    let answer;
    try {
      const req = JSON.parse(line);
      if (req.op === 'quit') break;
      if (req.op === 'init') {
        session = new Session(req);
        answer = { ok: true };
      } else if (session === null) {
        throw new Error('init first');
      } else {
        answer = { ok: true, ...session.handle(req) };
      }
    } catch (err) {
      answer = { ok: false, error: String(err && err.stack ? err.stack : err) };
    }
    process.stdout.write(JSON.stringify(answer) + '\n');
  }
}

main();
