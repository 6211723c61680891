// The RP2040's clock tree on the emulated board, and the power-state ledger. Owns what the
// firmware's writes to CLOCKS, XOSC, ROSC, PLL_SYS/PLL_USB, the watchdog's tick, RESETS
// (the PLLs' reset), IO_BANK0's dormant-wake enables and the Cortex-M0+ SCR do to the
// board: the rate the core's cycles run at, the PIO blocks' and the timer's clocks, sleep
// gating and dormancy, and how long the chip spends in each power state.
//
// What rp2040js (npm) does on its own, and what this adds, is in docs/chip.md (the section
// "Clocks, sleep and the power-state ledger"), with the datasheet's sections.
//
// Two modes:
// - 'fixed' (the default): every core cycle is 8 ns (125 MHz) whatever the firmware writes,
//   as the chip tests were written for; the registers below still read and write as on
//   the chip (SCR, SLEEP_EN/WAKE_EN), and the ledger records awake, sleep and deep sleep,
//   all at 125 MHz. Nothing is gated or slowed.
// - 'model': the clock tree from power-up: clk_sys and clk_ref start on the ROSC (6.5 MHz),
//   the XOSC and the PLLs start when the firmware starts them and are usable after their
//   start-up time, the core's cycle takes 1/clk_sys, the µs timer counts the watchdog's
//   ticks of clk_ref, sleep gates the clocks SLEEP_EN leaves off, a dormant oscillator
//   that clocks clk_sys stops the chip until a GPIO dormant-wake event, and a WFI with
//   PRIMASK set takes its interrupt only once PRIMASK clears.

import { BasePeripheral } from 'rp2040js';

const MHZ = 1_000_000;
export const XOSC_HZ = 12 * MHZ; // the Pico's crystal
export const ROSC_HZ = 6.5 * MHZ; // the ROSC's nominal rate at power-up (datasheet 2.17.1)
// PLL lock: the datasheet gives no figure (software polls CS.LOCK); the model's choice.
export const PLL_LOCK_NS = 50_000;

// Register offsets and bits: the RP2040 datasheet's register lists (2.15 clocks, 2.16 XOSC,
// 2.17 ROSC, 2.18 PLL, 2.4 the M0+'s SCR), as pico-sdk's hardware/regs headers spell them.
const XOSC_ENABLE = 0xfab;
const XOSC_DISABLE = 0xd1e;
const DORMANT_COMA = 0x636f6d61; // "coma"
const DORMANT_WAKE = 0x77616b65; // "wake"
const STATUS_STABLE = 0x80000000;
const STATUS_ENABLED = 0x1000;
const PLL_LOCK = 0x80000000;
const PLL_PD = 0x1;
const PLL_POSTDIVPD = 0x8;
const PLL_VCOPD = 0x20;
const CLOCKS_WAKE_EN0 = 0xa0;
const CLOCKS_SLEEP_EN0 = 0xa8;
const CLOCKS_ENABLED0 = 0xb0;
const SCR = 0xd10; // PPB offset of the SCB's SCR (0xe000ed10)
const SCR_SLEEPDEEP = 0x4;
const RESETS_PLL_SYS = 1 << 12;
const RESETS_PLL_USB = 1 << 13;
const WATCHDOG_TICK = 0x2c;
const DORMANT_WAKE_INTE0 = 0x160;
const DORMANT_WAKE_INTF0 = 0x170;
const DORMANT_WAKE_INTS0 = 0x180;

// SLEEP_EN0/WAKE_EN0 and SLEEP_EN1/WAKE_EN1 bit names, bit 0 first (datasheet 2.15).
const EN0 = (
  'sys_clocks adc_adc sys_adc sys_busctrl sys_busfabric sys_dma sys_i2c0 sys_i2c1 sys_io ' +
  'sys_jtag sys_vreg_and_chip_reset sys_pads sys_pio0 sys_pio1 sys_pll_sys sys_pll_usb ' +
  'sys_psm sys_pwm sys_resets sys_rom sys_rosc rtc_rtc sys_rtc sys_sio peri_spi0 sys_spi0 ' +
  'peri_spi1 sys_spi1 sys_sram0 sys_sram1 sys_sram2 sys_sram3'
).split(' ');
const EN1 = (
  'sys_sram4 sys_sram5 sys_syscfg sys_sysinfo sys_tbman sys_timer peri_uart0 sys_uart0 ' +
  'peri_uart1 sys_uart1 sys_usbctrl usb_usbctrl sys_watchdog sys_xip sys_xosc'
).split(' ');
const PIO0_BIT = 1 << 12; // in EN0
const PIO1_BIT = 1 << 13; // in EN0
const TIMER_BIT = 1 << 5; // in EN1
const EN1_BITS = 0x7fff;

/** Names of the branch clocks a pair of EN0/EN1 masks leaves on. */
export function clockNames(en0, en1) {
  const names = [];
  for (let i = 0; i < 32; i++) if (en0 & (1 << i)) names.push(EN0[i]);
  for (let i = 0; i < 15; i++) if (en1 & (1 << i)) names.push(EN1[i]);
  return names;
}

/** Time in each power state: one row per distinct state, in emulated ns. */
export class Ledger {
  constructor(clock) {
    this.clock = clock;
    this.rows = new Map(); // key -> { ...state, ns, entries }
    this.key = null;
    this.state = null;
    this.since = 0;
  }

  /** The chip is in `state` (a plain object) from now on, under `key` (its identity). */
  enter(key, state) {
    if (key === this.key) return;
    this.close();
    this.key = key;
    this.state = state;
    const row = this.rows.get(key);
    if (row) row.entries++;
    else this.rows.set(key, { ...state, ns: 0, entries: 1 });
  }

  /** Add the time since the last close to the current state. */
  close() {
    const now = this.clock.nanos;
    if (this.key !== null) this.rows.get(this.key).ns += now - this.since;
    this.since = now;
  }

  snapshot() {
    this.close();
    return Array.from(this.rows.values(), (r) => ({ ...r }));
  }
}

export class ClockTree {
  /** board: the Board (its mcu, clock and run loop); mode: 'fixed' or 'model'. */
  constructor(board, mode = 'fixed') {
    if (mode !== 'fixed' && mode !== 'model') throw new Error(`clocks: no mode ${mode}`);
    this.board = board;
    this.mode = mode;
    const mcu = board.mcu;
    this.mcu = mcu;
    this.clock = board.clock;
    this.ledger = new Ledger(this.clock);
    this.scr = 0;
    this.wakeEn = [0xffffffff, EN1_BITS];
    this.sleepEn = [0xffffffff, EN1_BITS];
    this.asleep = false; // the core is in WFI/WFE
    this.sysHz = 125 * MHZ;
    this.refHz = 125 * MHZ;
    this.timerRate = 1; // timer ns per emulated ns
    this.version = 0; // bumped when anything a ledger row holds changes
    this._keysVersion = -1;
    this._keys = [null, null]; // [key, row] awake and asleep at this version
    this._hookPpb();
    this._hookSleepRegisters();
    if (mode === 'model') this._model();
    this.update();
  }

  // ---------------------------------------------------------------- the model
  _model() {
    const mcu = this.mcu;
    const tree = this;
    this.xosc = {
      ctrl: 0,
      startup: 0xc4, // STARTUP reset value
      enabled: false,
      dormant: false,
      stableAt: null, // ns at which STATUS.STABLE rises (null: not starting)
      badwrite: false,
      countAt: 0,
      countFrom: 0,
    };
    this.rosc = { ctrl: 0xaa0, enabled: true, dormant: false, regs: new Map() };
    this.plls = [mcu.pllSys, mcu.pllUsb].map((p, i) => this._pll(p, i ? 'pll_usb' : 'pll_sys'));
    this.tick = { enabled: true, cycles: 0 }; // watchdog TICK at reset: ENABLE, CYCLES 0
    this.dormantWake = new Uint32Array(4); // IO_BANK0 DORMANT_WAKE_INTE0..3
    this.dormantForce = new Uint32Array(4);
    this.startAlarm = this.clock.createAlarm(() => this.update());
    Object.defineProperty(mcu, 'xoscFreq', { configurable: true, get: () => tree.xoscHz() });
    Object.defineProperty(mcu, 'roscFreq', { configurable: true, get: () => tree.roscHz() });
    mcu.peripherals[0x40024] = this._xoscPeripheral();
    this._hookRosc();
    this._hookClocks();
    this._hookResets();
    this._hookWatchdog();
    this._hookTimer();
    this._hookDormantWake();
    this._hookMaskedWake();
  }

  /** WFI/WFE with PRIMASK set: an interrupt that would be taken with PRIMASK clear ends
   *  the sleep but is taken only once PRIMASK clears (ARMv6-M; rp2040js takes it at once).
   *  An NMI is taken as ever. */
  _hookMaskedWake() {
    const core = this.mcu.core;
    const check = core.checkForInterrupts.bind(core);
    core.checkForInterrupts = () => {
      if (!core.waiting || !core.PM || core.pendingNMI) return check();
      if (
        core.pendingInterrupts & core.enabledInterrupts ||
        core.pendingSystick ||
        core.pendingPendSV ||
        core.pendingSVCall
      ) {
        core.waiting = false;
      }
      return false;
    };
  }

  xoscHz() {
    const x = this.xosc;
    return x.enabled && !x.dormant && x.stableAt !== null && this.clock.nanos >= x.stableAt
      ? XOSC_HZ
      : 0;
  }

  roscHz() {
    return this.rosc.enabled && !this.rosc.dormant ? ROSC_HZ : 0;
  }

  /** XOSC start-up time: STARTUP.DELAY x 256 crystal periods (x4 with STARTUP.X4). */
  xoscStartNs() {
    const s = this.xosc.startup;
    const periods = (s & 0x3fff) * 256 * (s & (1 << 20) ? 4 : 1);
    return (periods * 1e9) / XOSC_HZ;
  }

  _startXosc() {
    this.xosc.stableAt = this.clock.nanos + Math.round(this.xoscStartNs());
  }

  _xoscPeripheral() {
    const tree = this;
    const x = this.xosc;
    const xosc = new BasePeripheral(this.mcu, 'XOSC');
    return Object.assign(xosc, {
      readUint32(offset) {
        switch (offset) {
          case 0x00:
            return x.ctrl;
          case 0x04: {
            let v = x.ctrl & 3; // FREQ_RANGE
            if (x.enabled) v |= STATUS_ENABLED;
            if (x.badwrite) v |= 1 << 24;
            if (tree.xoscHz()) v |= STATUS_STABLE;
            return v >>> 0;
          }
          case 0x08:
            return x.dormant ? DORMANT_COMA : DORMANT_WAKE;
          case 0x0c:
            return x.startup;
          case 0x1c: {
            const run = tree.xoscHz() ? ((tree.clock.nanos - x.countAt) * XOSC_HZ) / 1e9 : 0;
            return Math.max(0, x.countFrom - Math.floor(run));
          }
        }
        return 0;
      },
      writeUint32(offset, value) {
        switch (offset) {
          case 0x00: {
            x.ctrl = value & 0xffffff;
            const en = (value >>> 12) & 0xfff;
            if (en === XOSC_ENABLE && !x.enabled) {
              x.enabled = true;
              tree._startXosc();
            } else if (en === XOSC_DISABLE) {
              x.enabled = false;
              x.stableAt = null;
            } else if (en !== XOSC_ENABLE && en !== XOSC_DISABLE && en !== 0) {
              x.badwrite = true;
            }
            break;
          }
          case 0x04:
            if (value & (1 << 24)) x.badwrite = false;
            break;
          case 0x08:
            if (value === DORMANT_COMA && x.enabled) {
              x.dormant = true;
              x.stableAt = null;
              tree._wakeIfPending();
            } else if (value === DORMANT_WAKE && x.dormant) {
              tree._wake();
            }
            break;
          case 0x0c:
            x.startup = value & 0x103fff;
            break;
          case 0x1c:
            x.countFrom = value & 0xff;
            x.countAt = tree.clock.nanos;
            break;
        }
        tree.update();
      },
    });
  }

  _hookRosc() {
    const rosc = this.mcu.peripherals[0x40060]; // board.mjs's NoisyROSC
    const r = this.rosc;
    const read = rosc.readUint32.bind(rosc);
    const write = rosc.writeUint32.bind(rosc);
    rosc.readUint32 = (offset) => {
      if (offset === 0x00) return r.ctrl;
      if (offset === 0x0c) return r.dormant ? DORMANT_COMA : DORMANT_WAKE;
      if (offset === 0x18) return (r.enabled ? STATUS_ENABLED | STATUS_STABLE : 0) >>> 0;
      return read(offset);
    };
    rosc.writeUint32 = (offset, value) => {
      if (offset === 0x00) {
        r.ctrl = value & 0xffffff;
        const en = (value >>> 12) & 0xfff;
        if (en === XOSC_ENABLE) r.enabled = true;
        else if (en === XOSC_DISABLE) r.enabled = false;
      } else if (offset === 0x0c) {
        if (value === DORMANT_COMA && r.enabled) {
          r.dormant = true;
          this._wakeIfPending();
        } else if (value === DORMANT_WAKE) r.dormant = false;
      } else {
        write(offset, value);
      }
      this.update();
    };
  }

  _pll(p, name) {
    const tree = this;
    const pll = { p, name, lockAt: null, key: '' };
    const read = p.readUint32.bind(p);
    const write = p.writeUint32.bind(p);
    p.readUint32 = (offset) => {
      if (offset === 0x00) return ((p.cs & ~PLL_LOCK) | (tree.pllLocked(pll) ? PLL_LOCK : 0)) >>> 0;
      return read(offset);
    };
    p.writeUint32 = (offset, value) => {
      write(offset, value);
      tree.update();
    };
    Object.defineProperty(p, 'frequency', {
      configurable: true,
      get: () => tree.pllHz(pll),
    });
    return pll;
  }

  _pllPowered(pll) {
    return !(pll.p.pwr & (PLL_PD | PLL_VCOPD)) && pll.p.fbdiv > 0;
  }

  pllLocked(pll) {
    return pll.lockAt !== null && this.clock.nanos >= pll.lockAt;
  }

  /** A PLL's output: 0 until it is powered and locked and its post dividers are on
   *  (datasheet 2.18: FOUTPOSTDIV = FREF / REFDIV x FBDIV / (POSTDIV1 x POSTDIV2)). */
  pllHz(pll) {
    const p = pll.p;
    if (!this.pllLocked(pll)) return 0;
    const ref = this.xoscHz() / (p.refdiv || 1);
    if (p.cs & (1 << 8)) return ref; // BYPASS
    if (p.pwr & PLL_POSTDIVPD) return 0;
    return (ref * p.fbdiv) / ((p.postdiv1 || 1) * (p.postdiv2 || 1));
  }

  /** A PLL starts locking when it is powered with its reference running; a change of
   *  REFDIV or FBDIV while powered starts the lock again. */
  _pllTrack(pll) {
    const p = pll.p;
    const key = `${p.refdiv}/${p.fbdiv}`;
    if (!this._pllPowered(pll) || !this.xoscHz()) {
      pll.lockAt = null;
    } else if (pll.lockAt === null || key !== pll.key) {
      pll.lockAt = this.clock.nanos + PLL_LOCK_NS;
    }
    pll.key = key;
  }

  _hookClocks() {
    const clocks = this.mcu.clocks;
    const read = clocks.readUint32.bind(clocks);
    const write = clocks.writeUint32.bind(clocks);
    clocks.readUint32 = (offset) => {
      if (offset === 0x34) return clocks.refDiv & 0x300; // CLK_REF_DIV: INT in bits 9:8
      return read(offset);
    };
    clocks.writeUint32 = (offset, value) => {
      write(offset, value);
      this.update();
    };
  }

  _hookResets() {
    const resets = this.mcu.peripherals[0x4000c];
    const write = resets.writeUint32.bind(resets);
    resets.writeUint32 = (offset, value) => {
      write(offset, value);
      if (offset !== 0) return;
      for (const [bit, pll] of [
        [RESETS_PLL_SYS, this.plls[0]],
        [RESETS_PLL_USB, this.plls[1]],
      ]) {
        if (value & bit) {
          // In reset: the PLL's registers at their reset values (datasheet 2.18).
          pll.p.cs = 1;
          pll.p.pwr = 0x2d;
          pll.p.fbdivInt = 0;
          pll.p.prim = 0x77000;
        }
      }
      this.update();
    };
  }

  _hookWatchdog() {
    const wd = this.mcu.peripherals[0x40058];
    const read = wd.readUint32.bind(wd);
    const write = wd.writeUint32.bind(wd);
    wd.readUint32 = (offset) => {
      if (offset === WATCHDOG_TICK) {
        return (this.tick.enabled ? (1 << 9) | (1 << 10) : 0) | this.tick.cycles;
      }
      return read(offset);
    };
    wd.writeUint32 = (offset, value) => {
      write(offset, value);
      if (offset === WATCHDOG_TICK) {
        this.tick.enabled = !!(value & (1 << 9));
        this.tick.cycles = value & 0x1ff;
        this.update();
      }
    };
  }

  /** The µs timer counts ticks of the watchdog's tick generator (clk_ref / TICK.CYCLES,
   *  datasheet 4.6 and 4.7), while its bus clock (clk_sys_timer) is on. Its count is
   *  kept in timer-ns, piecewise linear in emulated time; rp2040js's alarms are moved when
   *  the rate changes. */
  _hookTimer() {
    const timer = this.mcu.peripherals[0x40054];
    this.timer = timer;
    this.timerAnchor = [this.clock.nanos, 0]; // [emulated ns, timer ns]
    const tree = this;
    timer.clock = {
      get nanos() {
        return tree.timerNs();
      },
    };
    const write = timer.writeUint32.bind(timer);
    timer.writeUint32 = (offset, value) => {
      write(offset, value);
      if (offset >= 0x10 && offset <= 0x1c && this.timerRate !== 1) {
        this._rescheduleAlarm(timer.alarms[(offset - 0x10) / 4]);
      }
    };
  }

  timerNs() {
    const [t0, v0] = this.timerAnchor;
    return v0 + (this.clock.nanos - t0) * this.timerRate;
  }

  _rescheduleAlarm(alarm) {
    if (!alarm.armed) return;
    if (this.timerRate === 0) {
      alarm.clockAlarm.cancel();
      return;
    }
    const leftUs = (alarm.targetMicros - this.timerNs() / 1000) >>> 0;
    alarm.clockAlarm.schedule(Math.round((leftUs * 1000) / this.timerRate));
  }

  _setTimerRate(rate) {
    if (rate === this.timerRate) return;
    this.timerAnchor = [this.clock.nanos, this.timerNs()];
    this.timerRate = rate;
    for (const alarm of this.timer.alarms) this._rescheduleAlarm(alarm);
    // The watchdog counts down on the same ticks (datasheet 4.7; two a tick, RP2040-E1, as
    // rp2040js's 2 MHz): it stands still while they do (a dormant crystal) and follows
    // their rate.
    const wd = this.mcu.peripherals[0x40058];
    const on = rate > 0;
    if (on) wd.timer.frequency = 2 * MHZ * rate;
    wd.tickEnable = on;
    wd.timer.enable = wd.enable && on;
    wd.alarm.enable = wd.enable && on;
  }

  _hookDormantWake() {
    const io = this.mcu.peripherals[0x40014];
    const read = io.readUint32.bind(io);
    const write = io.writeUint32.bind(io);
    const inRange = (o, base) => o >= base && o < base + 16;
    io.readUint32 = (offset) => {
      if (inRange(offset, DORMANT_WAKE_INTE0)) return this.dormantWake[(offset - 0x160) >> 2];
      if (inRange(offset, DORMANT_WAKE_INTF0)) return this.dormantForce[(offset - 0x170) >> 2];
      if (inRange(offset, DORMANT_WAKE_INTS0)) {
        const i = (offset - 0x180) >> 2;
        return (this.dormantWake[i] & this._levels(i)) | this.dormantForce[i];
      }
      return read(offset);
    };
    io.writeUint32 = (offset, value) => {
      const i = (offset >> 2) & 3;
      if (inRange(offset, DORMANT_WAKE_INTE0)) this.dormantWake[i] = value;
      else if (inRange(offset, DORMANT_WAKE_INTF0)) this.dormantForce[i] = value;
      else write(offset, value);
    };
    const board = this.board;
    for (let g = 0; g < 30; g++) {
      board.watch(g, (level) => this._pinChanged(g, level));
    }
  }

  /** LEVEL_LOW/LEVEL_HIGH bits of register i (8 GPIOs, 4 bits each) as the pins stand. */
  _levels(i) {
    let v = 0;
    for (let k = 0; k < 8; k++) {
      const g = i * 8 + k;
      if (g >= 30) break;
      v |= (this.board.level[g] === 1 ? 2 : 1) << (k * 4);
    }
    return v >>> 0;
  }

  _dormant() {
    return (this.xosc && this.xosc.dormant) || (this.rosc && this.rosc.dormant);
  }

  _pinChanged(g, level) {
    if (!this._dormant()) return;
    const bits = (this.dormantWake[g >> 3] >>> ((g & 7) * 4)) & 0xf;
    // LEVEL_LOW 1, LEVEL_HIGH 2, EDGE_LOW 4, EDGE_HIGH 8 (datasheet 2.19, DORMANT_WAKE_INTE)
    const hit = level ? bits & (2 | 8) : bits & (1 | 4);
    if (hit) this._wake();
  }

  /** Going dormant with a wake already pending (a pin at an enabled level, or forced in
   *  DORMANT_WAKE_INTF): the oscillator wakes at once. */
  _wakeIfPending() {
    for (let i = 0; i < 4; i++) {
      if ((this.dormantWake[i] & this._levels(i)) | this.dormantForce[i]) {
        this._wake();
        return;
      }
    }
  }

  /** A dormant-wake event: the oscillators restart; the XOSC runs again after its
   *  start-up delay (datasheet 2.16), the ROSC at once. */
  _wake() {
    if (this.xosc.dormant) {
      this.xosc.dormant = false;
      this._startXosc();
    }
    this.rosc.dormant = false;
    this.update();
  }

  // ---------------------------------------------------------------- both modes
  _hookPpb() {
    const ppb = this.mcu.ppb;
    const read = ppb.readUint32.bind(ppb);
    const write = ppb.writeUint32.bind(ppb);
    ppb.readUint32 = (offset) => (offset === SCR ? this.scr : read(offset));
    ppb.writeUint32 = (offset, value) => {
      if (offset === SCR) {
        this.scr = value & 0x16; // SEVONPEND, SLEEPDEEP, SLEEPONEXIT
        this.version++;
      } else {
        write(offset, value);
      }
    };
  }

  _hookSleepRegisters() {
    const clocks = this.mcu.clocks;
    const read = clocks.readUint32.bind(clocks);
    const write = clocks.writeUint32.bind(clocks);
    clocks.readUint32 = (offset) => {
      if (offset >= CLOCKS_WAKE_EN0 && offset < CLOCKS_ENABLED0 + 8) {
        const i = (offset >> 2) & 1;
        if (offset < CLOCKS_SLEEP_EN0) return this.wakeEn[i];
        if (offset < CLOCKS_ENABLED0) return this.sleepEn[i];
        return this.enabled()[i];
      }
      return read(offset);
    };
    clocks.writeUint32 = (offset, value) => {
      if (offset >= CLOCKS_WAKE_EN0 && offset < CLOCKS_ENABLED0) {
        const i = (offset >> 2) & 1;
        const v = (i ? value & EN1_BITS : value) >>> 0;
        if (offset < CLOCKS_SLEEP_EN0) this.wakeEn[i] = v;
        else this.sleepEn[i] = v;
        this.update();
        return;
      }
      write(offset, value);
    };
  }

  /** Deep sleep: the core in WFI/WFE with SCR.SLEEPDEEP (datasheet 2.11; rp2040js runs
   *  core 0 only, core 1 counts as asleep). */
  deep() {
    return this.asleep && !!(this.scr & SCR_SLEEPDEEP);
  }

  /** [EN0, EN1] of the branch clocks running now: SLEEP_EN in deep sleep, else WAKE_EN. */
  enabled() {
    return this.deep() ? this.sleepEn : this.wakeEn;
  }

  /** The run loop: the core went into WFI/WFE (true) or woke (false). */
  setAsleep(asleep) {
    if (asleep === this.asleep) return;
    this.asleep = asleep;
    if (this.scr & SCR_SLEEPDEEP) this.update();
    else this._enterLedger();
  }

  /** What is starting: the XOSC before STABLE, a powered PLL before LOCK. */
  starting() {
    const s = [];
    if (this.mode !== 'model') return s;
    const x = this.xosc;
    if (x.enabled && !x.dormant && !this.xoscHz()) s.push('xosc');
    for (const pll of this.plls) {
      if (pll.lockAt !== null && !this.pllLocked(pll)) s.push(pll.name);
    }
    return s;
  }

  /** Recompute the clocks after a register write or an oscillator's start-up. */
  update() {
    const board = this.board;
    if (this.mode === 'model') {
      for (const pll of this.plls) this._pllTrack(pll);
      const clocks = this.mcu.clocks;
      this.sysHz = clocks.sysFreq;
      this.refHz = clocks.refFreq;
      board.halted = this.sysHz === 0;
      if (this.sysHz) board.setCycleNs(1e9 / this.sysHz);
      const [en0, en1] = this.enabled();
      board.pioGated[0] = board.halted || !(en0 & PIO0_BIT);
      board.pioGated[1] = board.halted || !(en0 & PIO1_BIT);
      const t = this.tick;
      const ticking = t.enabled && t.cycles > 0 && this.refHz > 0 && en1 & TIMER_BIT;
      this._setTimerRate(ticking ? this.refHz / t.cycles / MHZ : 0);
      // The next start-up to come (XOSC stable, a PLL lock) runs update() again.
      let next = Infinity;
      const now = this.clock.nanos;
      const x = this.xosc;
      if (x.stableAt !== null && x.stableAt > now) next = x.stableAt;
      for (const pll of this.plls) {
        if (pll.lockAt !== null && pll.lockAt > now) next = Math.min(next, pll.lockAt);
      }
      if (next < Infinity) this.startAlarm.schedule(next - now);
      else this.startAlarm.cancel();
    }
    this.version++;
    this._enterLedger();
  }

  /** Enter the ledger's row for the state now (rows built once per configuration). */
  _enterLedger() {
    if (this._keysVersion !== this.version) {
      this._keysVersion = this.version;
      this._keys = [null, null];
    }
    const i = this.asleep ? 1 : 0;
    if (this._keys[i] === null) this._keys[i] = this._row();
    const [key, row] = this._keys[i];
    this.ledger.enter(key, row);
  }

  _row() {
    const oscs = [];
    let state;
    if (this.mode === 'model') {
      if (this.xoscHz()) oscs.push('xosc');
      if (this.roscHz()) oscs.push('rosc');
      for (const pll of this.plls) if (this.pllHz(pll)) oscs.push(pll.name);
    }
    if (this.board.halted) state = this._dormant() ? 'dormant' : 'stopped';
    else if (!this.asleep) state = 'awake';
    else state = this.deep() ? 'deep_sleep' : 'sleep';
    const [en0, en1] = this.enabled();
    const row = {
      state,
      clk_sys_hz: this.board.halted ? 0 : this.sysHz,
      clk_ref_hz: this.mode === 'model' ? this.refHz : null,
      oscillators: oscs,
      starting: this.starting(),
      clocks_on: state === 'deep_sleep' ? clockNames(en0, en1) : null,
      sleep_en: state === 'deep_sleep' ? [en0, en1] : null,
    };
    return [JSON.stringify(row), row];
  }

  /** The ledger: one row per power state, with its total emulated ns and entries. */
  snapshot() {
    return {
      mode: this.mode,
      now_ns: this.clock.nanos,
      rows: this.ledger.snapshot(),
      timer_us: this.mode === 'model' ? Math.floor(this.timerNs() / 1000) : null,
    };
  }
}
