// The emulated board: one RP2040 (rp2040js, npm) running a MicroPython .uf2, with the
// clock's parts on its pins. Owns the run loop, CPU busy accounting, the boot ROM's flash
// routines, the USB CDC host and the line model of every wired GPIO.
//
// Facts this file relies on (shared/CHIP.md, beside the repository, has how they were found):
// - rp2040js counts every instruction's cycles; the run loop turns them into time: 8 ns a
//   cycle (125 MHz) in the 'fixed' clocks mode, 1/clk_sys in the 'model' mode (clocks.mjs,
//   which also gates the PIO blocks and halts the core while clk_sys has no clock). A core
//   sleeping in WFE/WFI has `core.waiting` set and time can jump to the next clock alarm.
//   CPU busy is therefore exactly the time the core is not waiting.
// - The boot ROM's function table (u16 pointer at 0x14, then pairs of u16 code and u16
//   address, ending with code 0) gives flash_range_erase ('R','E') and
//   flash_range_program ('R','P'). rp2040js does not emulate flash writes: the run loop
//   traps those two entry points, applies them with NOR semantics (erase sets 0xFF, program
//   ANDs) and charges the W25Q16's typical times as CPU time: MicroPython calls them with
//   interrupts off, so the core is stalled exactly as on the chip, while the clock's
//   alarms (pin changes) and the PIO state machines run on through the stall.
// - USB CDC: rp2040js completes every OUT poll at once, with an empty packet when the host
//   has nothing, which makes TinyUSB re-arm in a loop (an interrupt storm). The host here
//   holds an OUT request until it has bytes, as a real host's NAK does. IN packets: the
//   host (DTR set) takes each one 10 µs after the chip arms it; with `setHostReads(false)`
//   it takes none (a program that has the port open and does not read: no IN transfer
//   completes), so the armed packet stays in the endpoint buffer and TinyUSB's 256-byte
//   TX FIFO fills behind it, as on the real chip.
// - rp2040js has no ring oscillator (ROSC RANDOMBIT reads a constant), so os.urandom would
//   repeat at every power-up: the ROSC here gives seeded noise, a new seed per power-up.
// - A watchdog or machine.reset() cannot reset an rp2040js chip: the board stops, notes the
//   reason and the scratch registers, and the caller builds a new board from its flash.
// - GPIO inputs: `setInputValue` latches an edge in the IRQ status on every call, so it is
//   called only when the resolved line level really changes.
// - PIO FIFO join: rp2040js keeps both FIFOs 4 words deep whatever SHIFTCTRL's FJOIN_TX /
//   FJOIN_RX say. Here a join gives the joined direction 8 words and the other none, as on
//   the chip (datasheet 3.7: SHIFTCTRL), and a change of the join empties both FIFOs (the
//   SDK's pio_sm_clear_fifos flips FJOIN_RX twice to empty them).
// - PIO: rp2040js runs the state machines from a wall-clock setTimeout, one instruction a
//   step whatever the clock divider and the delays. Here they run in lock-step with the
//   core: each machine gets sys cycles / divider PIO cycles, and an instruction takes
//   1 + its delay of them (a stalled machine idles); while a machine can move, a sleeping
//   core's time advances cycle by cycle so the machines run through it.

import { RP2040, USBCDC, GPIOPinState, BasePeripheral, LogLevel } from 'rp2040js';
import { ClockTree } from './clocks.mjs';

// System cycles a run of counting loops stops short of the next alarm (then stepped one
// instruction at a time), and the least run worth skipping.
const FF_MARGIN = 1024;

export const CYCLE_NS = 8; // 125 MHz: every cycle in the 'fixed' clocks mode (clocks.mjs)
export const FLASH_BYTES = 2 * 1024 * 1024;
const SECTOR_BYTES = 4096;
const PAGE_BYTES = 256;
// W25Q16JV typical times (datasheet: tSE 45 ms per 4 KiB sector, tPP 0.7 ms per page)
export const SECTOR_ERASE_NS = 45_000_000;
export const PAGE_PROGRAM_NS = 700_000;
// The longest a core instruction (or an exception entry) takes: 16 cycles
const MAX_INSTRUCTION_CYCLES = 16;
const WATCHDOG_BASE = 0x40058;
const ROSC_BASE = 0x40060;

/** A quiet logger that counts what rp2040js reports instead of printing it. */
class CountingLogger {
  constructor() {
    this.counts = new Map();
    this.errors = [];
  }
  note(level, component, message) {
    const key = `${level} [${component}] ${message.replace(/0x[0-9a-f]+/gi, '0x…')}`;
    this.counts.set(key, (this.counts.get(key) || 0) + 1);
  }
  debug() {}
  info() {}
  warn(component, message) {
    this.note('warn', component, message);
  }
  error(component, message) {
    this.note('error', component, message);
    this.errors.push(`[${component}] ${message}`);
  }
}

/** ROSC with noise: RANDOMBIT from a xorshift32 seeded per power-up; the rest is storage. */
class NoisyROSC extends BasePeripheral {
  constructor(rp2040, seed) {
    super(rp2040, 'ROSC');
    this.state = (seed >>> 0) || 0x9e3779b9;
    this.regs = new Map();
  }
  bit() {
    let x = this.state;
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state & 1;
  }
  readUint32(offset) {
    if (offset === 0x18) return 0x80001000; // STATUS: STABLE, ENABLED
    if (offset === 0x1c) return this.bit(); // RANDOMBIT
    return this.regs.get(offset) || 0;
  }
  writeUint32(offset, value) {
    this.regs.set(offset, value >>> 0);
  }
}

/** Boot ROM words from a 16 KiB little-endian binary. */
export function bootromWords(bytes) {
  if (bytes.length !== 16384) throw new Error(`a boot ROM is 16384 bytes, not ${bytes.length}`);
  const words = new Uint32Array(4096);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < 4096; i++) words[i] = view.getUint32(i * 4, true);
  return words;
}

/** ROM function table lookup: code is two ASCII letters, e.g. 'RE'. */
/** A PIO machine's FIFOs sized by its SHIFTCTRL's FJOIN_TX (bit 30) / FJOIN_RX (bit 31). */
function joinFifos(m) {
  const join = (m.shiftCtrl >>> 30) & 3;
  const tx = join === 1 ? 8 : join === 2 ? 0 : join === 3 ? 0 : 4;
  const rx = join === 2 ? 8 : join === 1 ? 0 : join === 3 ? 0 : 4;
  if (m.txFIFO.size === tx && m.rxFIFO.size === rx) return;
  // Resized in place, emptied: whoever holds (or has wrapped) the FIFO objects keeps them.
  for (const [fifo, size] of [[m.txFIFO, tx], [m.rxFIFO, rx]]) {
    fifo.buffer = new Uint32Array(size);
    fifo.start = 0;
    fifo.used = 0;
  }
}

export function romFunction(words, code) {
  const u16 = (addr) => (words[addr >>> 2] >>> ((addr & 2) * 8)) & 0xffff;
  const want = code.charCodeAt(0) | (code.charCodeAt(1) << 8);
  for (let p = u16(0x14); ; p += 4) {
    const c = u16(p);
    if (c === 0) throw new Error(`boot ROM has no function '${code}'`);
    if (c === want) return u16(p + 2) & ~1;
  }
}

export class Board {
  /**
   * bootrom: Uint32Array(4096); flash: Uint8Array of the whole flash at power-up;
   * seed: this power-up's ROSC noise; reason/scratch: watchdog state kept over a reset;
   * clocks: 'fixed' (every cycle 8 ns) or 'model' (the clock tree: clocks.mjs).
   */
  constructor({ bootrom, flash, seed = 1, watchdogReason = 0, scratch = null, clocks = 'fixed' }) {
    const mcu = new RP2040();
    this.mcu = mcu;
    this.clock = mcu.clock;
    this.logger = new CountingLogger();
    mcu.logger = this.logger;
    mcu.loadBootrom(bootrom); // resets the flash: load it after
    mcu.flash.set(flash.subarray(0, Math.min(flash.length, mcu.flash.length)));
    this.flashOps = []; // [t_ns, 'erase'|'program', offset, bytes]
    this.eraseAt = romFunction(bootrom, 'RE');
    this.programAt = romFunction(bootrom, 'RP');
    mcu.peripherals[ROSC_BASE] = new NoisyROSC(mcu, seed);
    this.watchdog = mcu.peripherals[WATCHDOG_BASE];
    this.watchdog.reason = watchdogReason;
    if (scratch) this.watchdog.scratchData.set(scratch);
    this.resetReason = null; // 'watchdog' | 'reset' once the chip asked to restart
    this.watchdog.onWatchdogTrigger = () => {
      // rp2040js would re-fire at the same instant forever: stop the timer, end the run.
      this.watchdog.timer.enable = false;
      this.watchdog.alarm.enable = false;
      this.resetReason = this.watchdog.reason & 2 ? 'reset' : 'watchdog';
      this.resetAt = this.clock.nanos;
    };
    this.awakeSince = null;
    this.segments = []; // [start_ns, end_ns] of every stretch the core was awake
    this.busyCycles = 0;
    this.stopped = false;
    // Lines: external pulls (modules' pull-ups) and drivers (switches, the TM1637's ACK).
    this.extLow = new Uint8Array(30); // count of outside drivers pulling the line low
    this.extPullUp = new Uint8Array(30); // 1 = a pull-up resistor outside the chip
    this.watchers = Array.from({ length: 30 }, () => []); // fn(level, t_ns)
    this.level = new Int8Array(30).fill(-1); // resolved level, -1 = not resolved yet
    for (let g = 0; g < 30; g++) mcu.gpio[g].addListener(() => this.resolve(g));
    this.onTimerRead = null; // fn(t_ns, value) for every TIMERAWL/TIMELR read, when set
    this._hookTimer();
    this.pwmLog = []; // [t_ns] of PWM register writes (the buzzer reads them)
    this._hookPwm();
    this.pioDebt = 0; // core cycles the machines have not been stepped over yet
    this.pioSoonest = 0; // core cycles until a machine's next instruction (0: look again)
    for (const pio of mcu.pio) {
      // The core's reads and writes of a PIO's registers see (and change) machines stepped
      // up to that instant; after a write, when a machine is next due is looked at again.
      const read = pio.readUint32.bind(pio);
      const write = pio.writeUint32.bind(pio);
      pio.readUint32 = (offset) => {
        if (this.pioDebt) this._pioFlush();
        return read(offset);
      };
      pio.writeUint32 = (offset, value) => {
        if (this.pioDebt) this._pioFlush();
        write(offset, value);
        for (const m of pio.machines) joinFifos(m);
        this.pioSoonest = 0;
      };
      pio.run = () => {}; // stepped by runUntil instead of a wall-clock timer
      for (const m of pio.machines) {
        m.pioClock = 0; // PIO cycles this machine may have run since its last restart
        m.lastCycles = 0;
        m.stalled = false; // its last step could not run (a wait, a FIFO)
      }
    }
    this.usbHost();
    this.cycleNs = CYCLE_NS; // one clk_sys cycle (clocks.mjs sets it in the 'model' mode)
    this.cycleWhole = true; // cycleNs is a whole number of ns
    this.fracNs = 0; // the part of a ns the core's cycles ran past the clock (_wholeNs)
    this.halted = false; // clk_sys has no clock (a dormant oscillator): no instruction runs
    this.pioGated = [false, false]; // PIO0/PIO1 with their clock gated off
    this.clockTree = new ClockTree(this, clocks);
  }

  /** clk_sys changed: a core cycle now takes `ns`. The clock keeps whole ns: at a rate
   *  whose cycle is not a whole ns (48 MHz: 20.83 ns) each instruction advances it by the
   *  whole ns its cycles reach, the fraction carried to the next (_wholeNs). */
  setCycleNs(ns) {
    this.cycleNs = ns;
    this.cycleWhole = Number.isInteger(ns);
  }

  _wholeNs(cycles) {
    const exact = this.fracNs + cycles * this.cycleNs;
    const whole = Math.floor(exact);
    this.fracNs = exact - whole;
    return whole;
  }

  get nanos() {
    return this.clock.nanos;
  }

  // ------------------------------------------------------------------ pins
  /** Resolve the level of GPIO g from the chip's drive, outside drivers and pulls. */
  resolve(g) {
    const pin = this.mcu.gpio[g];
    const state = pin.value;
    let level;
    if (state === GPIOPinState.Low) level = 0;
    else if (state === GPIOPinState.High) level = 1; // a push-pull high wins
    else if (this.extLow[g]) level = 0;
    else if (this.extPullUp[g] || state === GPIOPinState.InputPullUp) level = 1;
    else if (state === GPIOPinState.InputPullDown) level = 0;
    else level = this.level[g] < 0 ? 0 : this.level[g]; // floating: keeps its charge
    if (level !== this.level[g]) {
      this.level[g] = level;
      if (pin.rawInputValue !== !!level) pin.setInputValue(!!level);
      const t = this.clock.nanos;
      for (const fn of this.watchers[g]) fn(level, t);
    }
  }

  /** An outside driver on GPIO g: low = true pulls it down, false lets it go. */
  drive(g, low) {
    this.extLow[g] += low ? 1 : -1;
    if (this.extLow[g] > 200) throw new Error(`GPIO ${g}: driver count out of range`);
    this.resolve(g);
  }

  pullUp(g) {
    this.extPullUp[g] = 1;
    this.resolve(g);
  }

  watch(g, fn) {
    this.watchers[g].push(fn);
  }

  /** Call fn at the exact emulated instant t_ns (a clock alarm: it fires even in WFE).
   *  A run ends after the instruction that reaches its end, so the clock can stand a few
   *  ns past it: an instant inside that last instruction (up to MAX_INSTRUCTION_CYCLES back)
   *  is served at once, as the chip would take its interrupt after that instruction. */
  at(tNs, fn) {
    let delta = tNs - this.clock.nanos;
    if (delta < 0 && delta >= -MAX_INSTRUCTION_CYCLES * this.cycleNs) delta = 0;
    if (delta < 0) throw new Error(`event at ${tNs} ns is in the past (${this.clock.nanos})`);
    const alarm = this.clock.createAlarm(() => fn());
    alarm.schedule(delta);
    return alarm;
  }

  _hookTimer() {
    const timer = this.mcu.peripherals[0x40054];
    const read = timer.readUint32.bind(timer);
    timer.readUint32 = (offset) => {
      const value = read(offset);
      if (this.onTimerRead && (offset === 0x28 || offset === 0x0c)) {
        this.onTimerRead(this.clock.nanos, value >>> 0);
      }
      return value;
    };
  }

  _hookPwm() {
    const pwm = this.mcu.pwm;
    const write = pwm.writeUint32.bind(pwm);
    pwm.writeUint32 = (offset, value) => {
      write(offset, value);
      this.pwmLog.push(this.clock.nanos);
      if (this.onPwm) this.onPwm(this.clock.nanos);
    };
  }

  // ------------------------------------------------------------------ run loop
  /** Run until the emulated clock reaches t_ns (or the chip asks for a reset). */
  runUntil(tNs) {
    const { mcu, clock } = this;
    const core = mcu.core;
    const eraseAt = this.eraseAt;
    const programAt = this.programAt;
    const gated = this.pioGated;
    const [pio0, pio1] = mcu.pio;
    while (clock.nanos < tNs && this.resetReason === null) {
      if (core.waiting || this.halted) {
        if (this.pioDebt) this._pioFlush();
        if (this.awakeSince !== null) {
          this.segments.push([this.awakeSince, clock.nanos]);
          this.awakeSince = null;
          this.clockTree.setAsleep(true);
        }
        const CYCLE_NS = this.cycleNs;
        let next = clock.nextAlarm ? Math.min(clock.nextAlarm.nanos, tNs) : tNs;
        // A running state machine is stepped up to its next instruction (its pin edges
        // keep their exact times); when none can move (all stalled on a wait or a FIFO),
        // time jumps to the next alarm as usual: only an alarm or the core frees them.
        if (this._pioRunning()) {
          // Every running machine only counting in a loop (the levers' armed look, the
          // alarm's countdown) or stalled: skip ahead in one go, up to FF_MARGIN cycles
          // before the next alarm or the end of a countdown; the last stretch is stepped
          // instruction by instruction as below, so every edge keeps its exact time.
          const ahead = Math.min(
            Math.floor((next - clock.nanos) / CYCLE_NS),
            this._pioCountingOnly(),
          ) - FF_MARGIN;
          if (ahead > FF_MARGIN) {
            const ns = Math.round(ahead * CYCLE_NS); // whole ns: see setCycleNs
            clock.tick(ns); // no alarm falls before `next`
            this._stepPio(ns / CYCLE_NS);
            continue;
          }
          const due = this._pioDueCycles();
          if (due >= 0) {
            next = Math.min(next, clock.nanos + Math.ceil(Math.max(1, due) * CYCLE_NS));
            const cycles = (next - clock.nanos) / CYCLE_NS;
            clock.tick(next - clock.nanos); // then the instruction due at `next`, at `next`
            this._stepPio(cycles);
            continue;
          }
        }
        clock.tick(next - clock.nanos);
        continue;
      }
      if (this.awakeSince === null) {
        this.awakeSince = clock.nanos;
        this.clockTree.setAsleep(false);
      }
      const pc = core.PC;
      if (pc === eraseAt || pc === programAt) {
        this._flashOp(pc === eraseAt);
        continue;
      }
      const cycles = core.executeInstruction();
      this.busyCycles += cycles;
      const CYCLE_NS = this.cycleNs;
      if ((!pio0.stopped && !gated[0]) || (!pio1.stopped && !gated[1])) {
        // The machines are stepped when an instruction of one falls due, not after every
        // core instruction: the same steps at the same instants (a machine's state is
        // brought up to date before the core touches a PIO register and before an input
        // changes), without a JavaScript call per core instruction.
        const alarm = clock.nextAlarm;
        if (this.pioDebt && alarm && alarm.nanos <= clock.nanos + cycles * CYCLE_NS) {
          this._pioFlush();
        }
        clock.tick(this.cycleWhole ? cycles * CYCLE_NS : this._wholeNs(cycles));
        this.pioDebt += cycles;
        if (this.pioDebt >= this.pioSoonest) this._pioFlush();
      } else {
        clock.tick(this.cycleWhole ? cycles * CYCLE_NS : this._wholeNs(cycles));
      }
    }
    if (this.resetReason !== null && this.awakeSince !== null) {
      this.segments.push([this.awakeSince, clock.nanos]);
      this.awakeSince = null;
    }
  }

  /** Step every machine over the core cycles not yet given to them (pioDebt), then note
   *  how many cycles on the next instruction of a machine falls due (pioSoonest). */
  _pioFlush() {
    if (this.pioDebt > 0) {
      const debt = this.pioDebt;
      this.pioDebt = 0;
      this._stepPio(debt);
    }
    const due = this._pioRunning() ? this._pioDueCycles() : -1;
    this.pioSoonest = due < 0 ? Infinity : Math.max(1, due);
  }

  _pioRunning() {
    const [pio0, pio1] = this.mcu.pio;
    const gated = this.pioGated;
    return (!pio0.stopped && !gated[0]) || (!pio1.stopped && !gated[1]);
  }

  /** System cycles until the next instruction of an enabled state machine that is not
   *  stalled, or -1 when there is none. */
  _pioDueCycles() {
    let due = -1;
    for (const pio of this.mcu.pio) {
      if (pio.stopped || this.pioGated[pio.index]) continue;
      for (const m of pio.machines) {
        if (!m.enabled || m.stalled) continue;
        const div = (m.clockDivInt || 65536) + m.clockDivFrac / 256;
        const c = Math.ceil((m.cycles - m.pioClock) * div);
        if (due < 0 || c < due) due = c;
      }
    }
    return due;
  }

  /** System cycles every running machine can be skipped ahead by (_stepPio skips their
   *  loops' passes): -1 when one is neither stalled nor in a counting loop, else the
   *  cycles until the first countdown ends (Infinity: none counts down). */
  _pioCountingOnly() {
    let most = Infinity;
    for (const pio of this.mcu.pio) {
      if (pio.stopped || this.pioGated[pio.index]) continue;
      for (const m of pio.machines) {
        if (!m.enabled || m.stalled) continue;
        const div = (m.clockDivInt || 65536) + m.clockDivFrac / 256;
        const spin = this._spinLeft(m);
        if (spin > 0) {
          most = Math.min(most, Math.floor((m.cycles + spin - m.pioClock) * div));
        } else if (this._loopOf(m) === null) {
          return -1;
        }
      }
    }
    return most;
  }

  /** [PIO cycles, X decrements] of one pass of the loop machine m runs from its PC when
   *  that loop is made only of `jmp`s with no delay or side-set: unconditional ones, `jmp
   *  x--` to the next instruction (taken or not, the same path: X only counts) and `jmp
   *  pin` (its path fixed while the pin keeps its level: no pin changes before the run
   *  loop's next alarm). null when it is anything else. */
  _loopOf(m) {
    if (m.waiting || m.execValid) return null;
    const ins = m.pio.instructions;
    const top = m.wrapTop;
    const bottom = m.wrapBottom;
    const jp = m.jmpPin;
    const gpio = this.mcu.gpio;
    const level = jp < gpio.length ? gpio[jp].inputValue : false;
    let pc = m.pc;
    let dx = 0;
    for (let n = 1; n <= 8; n++) {
      const op = ins[pc];
      if (op >>> 13 !== 0 || (op >> 8) & 0x1f) return null;
      const cond = (op >> 5) & 7;
      const target = op & 0x1f;
      const next = pc === top ? bottom : (pc + 1) & 0x1f;
      if (cond === 0) pc = target;
      else if (cond === 0b010 && target === next) {
        dx++;
        pc = next;
      } else if (cond === 0b110) pc = level ? target : next;
      else return null;
      if (pc === m.pc) return [n, dx];
    }
    return null;
  }

  /** PIO cycles machine m will spend in a countdown loop before it can do anything else:
   *  at `jmp x--` to its own address, with no delay or side-set, it only decrements X, one
   *  cycle a step, while X is not 0 (the loop alarm_pio.py counts µs with). 0 otherwise.
   *  Those steps are skipped in one go (_stepPio): the same registers, cycles and pins as
   *  stepping them, without a JavaScript call per µs of a sleep. */
  _spinLeft(m) {
    if (m.waiting || m.execValid || m.x === 0) return 0;
    const op = m.pio.instructions[m.pc];
    if (op >>> 13 !== 0 || ((op >> 5) & 7) !== 0b010 || (op & 0x1f) !== m.pc) return 0;
    if ((op >> 8) & 0x1f) return 0;
    return m.x >>> 0;
  }

  /** Run every enabled state machine for `cycles` system clock cycles. */
  _stepPio(cycles) {
    for (const pio of this.mcu.pio) {
      if (pio.stopped || this.pioGated[pio.index]) continue;
      for (const m of pio.machines) {
        if (!m.enabled) continue;
        if (m.cycles < m.lastCycles) m.pioClock = m.cycles; // restarted
        const div = (m.clockDivInt || 65536) + m.clockDivFrac / 256;
        m.pioClock += cycles / div;
        if (m.stalled && m.cycles < m.pioClock - 1) {
          m.cycles = Math.ceil(m.pioClock - 1); // a stall earns no burst: it tries once now
        }
        while (m.cycles < m.pioClock) {
          const budget = Math.floor(m.pioClock - m.cycles);
          if (budget >= FF_MARGIN) {
            const spin = Math.min(this._spinLeft(m), budget);
            if (spin > 0) {
              m.x = (m.x - spin) >>> 0;
              m.cycles += spin;
              m.stalled = false;
              continue;
            }
            const loop = this._loopOf(m);
            const passes = loop === null ? 0 : Math.floor(budget / loop[0]);
            if (passes > 0) {
              m.x = (m.x - passes * loop[1]) >>> 0;
              m.cycles += passes * loop[0];
              m.stalled = false;
              continue;
            }
          }
          const before = m.cycles;
          m.step();
          m.stalled = m.cycles === before; // a wait or a FIFO holds it
          if (m.stalled) {
            m.cycles = Math.ceil(m.pioClock); // it idles this cycle
            break;
          }
        }
        m.lastCycles = m.cycles;
      }
      pio.checkChangedPins();
    }
  }

  /** Close the open awake stretch at the current instant (for a measurement's end). */
  closeSegment() {
    if (this.awakeSince !== null) {
      this.segments.push([this.awakeSince, this.clock.nanos]);
      this.awakeSince = this.clock.nanos;
    }
  }

  _flashOp(erase) {
    const { mcu, clock } = this;
    const core = mcu.core;
    const r = core.registers;
    const offset = r[0] >>> 0;
    let stall;
    if (erase) {
      const count = r[1] >>> 0;
      if (offset % SECTOR_BYTES || count % SECTOR_BYTES || offset + count > FLASH_BYTES) {
        throw new Error(`flash_range_erase(${offset}, ${count}) out of line`);
      }
      mcu.flash.fill(0xff, offset, offset + count);
      stall = (count / SECTOR_BYTES) * SECTOR_ERASE_NS;
      this.flashOps.push([clock.nanos, 'erase', offset, count]);
    } else {
      const data = r[1] >>> 0;
      const count = r[2] >>> 0;
      if (offset % PAGE_BYTES || count % PAGE_BYTES || offset + count > FLASH_BYTES) {
        throw new Error(`flash_range_program(${offset}, ${count}) out of line`);
      }
      for (let i = 0; i < count; i++) mcu.flash[offset + i] &= mcu.readUint8(data + i);
      stall = (count / PAGE_BYTES) * PAGE_PROGRAM_NS;
      this.flashOps.push([clock.nanos, 'program', offset, count]);
    }
    core.PC = core.LR & ~1; // return to the caller
    this.busyCycles += stall / this.cycleNs;
    if (this.onFlashOp) this.onFlashOp(erase ? 'erase' : 'program', clock.nanos, stall);
    this._stalledFor(stall); // the core is stalled on the flash (interrupts are off)
  }

  /** The core does nothing for `ns` (a flash write: interrupts off, no instruction runs),
   *  while the clock's alarms (pin changes) and the PIO state machines run on. */
  _stalledFor(ns) {
    if (this.pioDebt) this._pioFlush();
    const clock = this.clock;
    const CYCLE_NS = this.cycleNs;
    const end = clock.nanos + ns;
    while (clock.nanos < end) {
      let next = clock.nextAlarm ? Math.min(clock.nextAlarm.nanos, end) : end;
      const due = this._pioRunning() ? this._pioDueCycles() : -1;
      if (due >= 0) next = Math.min(next, clock.nanos + Math.ceil(Math.max(1, due) * CYCLE_NS));
      const cycles = (next - clock.nanos) / CYCLE_NS;
      clock.tick(next - clock.nanos);
      if (due >= 0 || this._pioRunning()) this._stepPio(cycles);
    }
  }

  /** A copy of the whole flash (for a power cycle). */
  flashImage() {
    return this.mcu.flash.slice(0, FLASH_BYTES);
  }

  // ------------------------------------------------------------------ USB CDC host
  usbHost() {
    const usb = this.mcu.usbCtrl;
    const cdc = new USBCDC(usb);
    this.cdc = cdc;
    this.serial = []; // bytes from the device
    this.serialAt = []; // [ns, bytes so far]: when each USB packet from the device arrived
    this.connected = false;
    cdc.onDeviceConnected = () => {
      this.connected = true;
    };
    cdc.onSerialData = (bytes) => {
      for (const b of bytes) this.serial.push(b);
      this.serialAt.push([this.nanos, this.serial.length]);
      if (this.onSerial) this.onSerial(bytes);
    };
    const answer = usb.onEndpointRead;
    this.heldRead = null;
    usb.onEndpointRead = (endpoint, size) => {
      if (endpoint === cdc.outEndpoint && cdc.txFIFO.empty) {
        this.heldRead = [endpoint, size]; // a NAK: answered when the host has bytes
        return;
      }
      answer(endpoint, size);
    };
    this._answerRead = answer;
    // IN packets the host does not take while it is not reading: the buffer control word
    // keeps AVAILABLE set (armed), nothing completes, until setHostReads(true).
    const armed = usb.DPRAMUpdated.bind(usb);
    this.hostReads = true;
    this.heldIn = -1; // DPRAM offset of the CDC IN buffer control holding an untaken packet
    usb.DPRAMUpdated = (offset, value) => {
      const ep = cdc.inEndpoint;
      if (!this.hostReads && ep > 0 && offset === 0x80 + ep * 8 && value & (1 << 10)) {
        this.heldIn = offset;
        return;
      }
      armed(offset, value);
    };
    this._armed = armed;
  }

  /** A host that reads the CDC port (true, the default) or has it open without reading. */
  setHostReads(on) {
    this.hostReads = on;
    if (on && this.heldIn >= 0) {
      const offset = this.heldIn;
      this.heldIn = -1;
      this._armed(offset, this.mcu.usbDPRAMView.getUint32(offset, true));
    }
  }

  /** The host writes bytes to the device's CDC OUT endpoint. */
  sendSerial(bytes) {
    for (const b of bytes) this.cdc.sendSerialByte(b);
    if (this.heldRead) {
      const [endpoint, size] = this.heldRead;
      this.heldRead = null;
      this._answerRead(endpoint, size);
    }
  }

  serialText(from = 0) {
    return Buffer.from(this.serial.slice(from)).toString('latin1');
  }
}

export { LogLevel };
