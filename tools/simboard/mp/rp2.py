"""CPython stand-in for MicroPython's `rp2` module: the PIO assembler and state machines that
run their programs instruction by instruction on the fake `machine`'s pins, in virtual time.

Facts carried over (the RP2040 datasheet, chapter 3 "PIO"; MicroPython 1.27's
ports/rp2/modules/rp2.py and rp2_pio.c for the Python API), not code:
- `asm_pio(**options)` assembles a decorated function whose body calls the instruction
  functions (`jmp wait in_ out push pull mov irq set nop word`, each with `.side(v)`,
  `.delay(n)` or `[n]`) and directives (`label wrap_target wrap`), in two passes for the
  labels. Instruction words are the datasheet's: opcode in bits 15:13, delay / side-set in
  12:8 (side-set in the top SIDESET_COUNT bits, counting the enable bit when some
  instruction has none: then bit 12 enables it and the delay gets what is left), operands
  below. The result is the list rp2_pio.c reads: [words, offset PIO0, offset PIO1,
  offset PIO2, EXECCTRL (side_pindir bit 29, SIDE_EN 30, wrap top 16:12, bottom 11:7),
  SHIFTCTRL (autopush 16, autopull 17, in/out shift direction 18/19, push/pull threshold
  24:20 / 29:25, FIFO join 31:30), out_init, set_init, sideset_init].
- `StateMachine(id, prog, freq, *, in_base, out_base, set_base, jmp_pin, sideset_base,
  in_shiftdir, out_shiftdir, push_thresh, pull_thresh)`: ids 0-3 in PIO0, 4-7 in PIO1, 32
  instruction words per PIO (a program used by several machines of one PIO is loaded once).
  The clock divider is 125 MHz * 256 // freq (8 fractional bits); a cycle is that many
  256ths of 8 ns. Each pin group is as wide as its `*_init` (none given: no pins); the init
  values set those pins' directions and levels (PIO.IN_LOW 0, IN_HIGH 1, OUT_LOW 2,
  OUT_HIGH 3) and hand them to the PIO (Pin.ALT_PIO0 / ALT_PIO1). The machine starts
  disabled, its OSR empty, X = Y = 0; `active(1)` runs it.
- Execution: one instruction per cycle plus its delay; side-set takes effect when the
  instruction starts, also when it then stalls; a stalled instruction (pull or push
  blocking on a FIFO, a wait, `irq wait`) retries every cycle and its delay starts once it
  completes; after the instruction at the wrap top the program goes on at the wrap bottom.
  FIFOs are 4 words each way (8 joined). `put(value | buffer, shift=0)` and `get()` wait
  (the CPU spins in C: virtual time passes, pin events run) while the FIFO is full / empty;
  `rx_fifo()` / `tx_fifo()` give the levels. `irq(handler, trigger=1, hard=False)` calls
  handler(sm) when the program sets its IRQ flag (index relative to the machine).
- A PIO drives only the pins handed to it: a pin's line is then driven to its PIO output
  level while its PIO direction is out, else released (pulls and outside drivers decide).
  `in` and `wait pin` read the line levels.

Timing on virtual time (whole us): each instruction that meets the world (pins, FIFOs,
flags) runs at the first us at or after its own cycle (events of the fake `machine` that
do not end a WFE: a PIO does not interrupt the core); those in between run with it. So pin
edges are as exact as the virtual clock is (1 us; at 1 MHz a PIO cycle is 1 us).

A machine in a loop that looks at its `jmp pin` (jmps and nops only; X and Y may run down)
is not stepped each cycle while the pin keeps its level: it is parked with a watch on the pin
and, when the level changes (or a count would reach 0), brought to the first pass whose look
comes at or after that instant, X and Y run down by what the passes between took. The passes
it skips are exactly those the cycle-by-cycle run would make.

`ptr32(address)` (viper's, installed as a builtin: native code's register access, what
lever_pio.start_in_step uses): TIMER's TIMERAWL (0x40054028) reads the µs count (a read that
would give the value the last read gave lets the CPU spin: virtual time moves to the next
µs); a write to a PIO's CTRL (0x50200000 / 0x50300000, also its set alias + 0x2000) enables
the machines of its SM_ENABLE bits at once, their cycle 0 at that µs.

Not modelled (raise NotImplementedError): `out exec`, `mov exec`, `StateMachine.exec`.
"""

import builtins
import types
from array import array

import machine

_SYS_HZ = 125_000_000
_UNITS_PER_US = 32_000  # time unit: 1/256 of a sys cycle (8 ns); 1 us = 125 * 256


class PIOASMError(Exception):
    pass


class PIO:
    IN_LOW = 0
    IN_HIGH = 1
    OUT_LOW = 2
    OUT_HIGH = 3
    SHIFT_LEFT = 0
    SHIFT_RIGHT = 1
    JOIN_NONE = 0
    JOIN_TX = 1
    JOIN_RX = 2
    IRQ_SM0 = 0x100
    IRQ_SM1 = 0x200
    IRQ_SM2 = 0x400
    IRQ_SM3 = 0x800

    def __init__(self, id):
        self.id = id


# ---------------------------------------------------------------------------- assembler

_NAMES = {
    "gpio": 0,
    "pins": 0,
    "x": 1,
    "y": 2,
    "null": 3,
    "pindirs": 4,
    "pc": 5,
    "status": 5,
    "isr": 6,
    "osr": 7,
    "exec": 8,
    "invert": lambda src: src | 0x08,
    "reverse": lambda src: src | 0x10,
    "not_x": 1,
    "x_dec": 2,
    "not_y": 3,
    "y_dec": 4,
    "x_not_y": 5,
    "pin": 6,
    "not_osre": 7,
    "noblock": 0x01,
    "block": 0x21,
    "iffull": 0x40,
    "ifempty": 0x40,
    "clear": 0x40,
    "rel": lambda index: index | 0x10,
}


class _Emitter:
    def __init__(self, side_count, side_pindir, execctrl, shiftctrl, inits):
        self.side_pins = side_count  # side-set pins (without the enable bit)
        self.words = []
        self.labels = {}
        self.has_side = []
        self.wrap_target_at = 0
        self.wrap_at = None
        self.execctrl = execctrl
        self.shiftctrl = shiftctrl
        self.inits = inits
        self.pass_ = 0
        self.side_bits = side_count
        self.opt = False

    def start(self, pass_):
        if pass_ == 1:
            n = len(self.words)
            self.opt = self.side_pins > 0 and not all(self.has_side)
            self.side_bits = self.side_pins + (1 if self.opt else 0)
            if self.wrap_at is None:
                self.wrap_at = n - 1
        self.pass_ = pass_
        self.words = []
        self.has_side = []

    def emit(self, word, label=None):
        if self.pass_ == 1 and label is not None:
            if label not in self.labels:
                raise PIOASMError("unknown label %s" % label)
            word |= self.labels[label]
        self.words.append(word)
        self.has_side.append(False)
        return _Instr(self, len(self.words) - 1)

    def label(self, name):
        if self.pass_ == 0:
            if name in self.labels:
                raise PIOASMError("duplicate label %s" % name)
            self.labels[name] = len(self.words)

    def wrap_target(self):
        self.wrap_target_at = len(self.words)

    def wrap(self):
        if not self.words:
            raise PIOASMError("wrap before any instruction")
        self.wrap_at = len(self.words) - 1

    def program(self):
        execctrl = self.execctrl | self.wrap_at << 12 | self.wrap_target_at << 7
        if self.opt:
            execctrl |= 1 << 30
        words = array("H", self.words)
        return [words, -1, -1, -1, execctrl, self.shiftctrl] + list(self.inits)


class _Instr:
    def __init__(self, emitter, index):
        self.e = emitter
        self.i = index

    def side(self, value):
        e = self.e
        e.has_side[self.i] = True
        if e.pass_ == 1:
            if not e.side_pins:
                raise PIOASMError("no sideset")
            if value >= 1 << e.side_pins:
                raise PIOASMError("sideset too large")
            e.words[self.i] |= (1 << 12 if e.opt else 0) | value << (13 - e.side_bits)
        return self

    def delay(self, cycles):
        e = self.e
        if e.pass_ == 1:
            if cycles > (31 >> e.side_bits):
                raise PIOASMError("delay too large")
            e.words[self.i] |= cycles << 8
        return self

    def __getitem__(self, cycles):
        return self.delay(cycles)


def _instructions(e):
    def word(instr, label=None):
        return e.emit(instr, label)

    def nop():
        return e.emit(0xA042)  # mov y, y

    def jmp(cond, label=None):
        if label is None:
            cond, label = 0, cond
        return e.emit(cond << 5, label)

    def wait(polarity, src, index):
        src = 1 if src == 6 else (0 if src == 0 else 2)  # gpio, pin, irq
        return e.emit(0x2000 | polarity << 7 | src << 5 | index)

    def in_(src, bits):
        if not 0 < bits <= 32:
            raise PIOASMError("invalid bit count %s" % bits)
        return e.emit(0x4000 | src << 5 | bits & 0x1F)

    def out(dest, bits):
        if not 0 < bits <= 32:
            raise PIOASMError("invalid bit count %s" % bits)
        return e.emit(0x6000 | (7 if dest == 8 else dest) << 5 | bits & 0x1F)

    def push(a=0, b=0):
        v = a | b
        return e.emit(0x8000 | ((v | 0x20) if not v & 1 else v) & 0x60)

    def pull(a=0, b=0):
        v = a | b
        return e.emit(0x8080 | ((v | 0x20) if not v & 1 else v) & 0x60)

    def mov(dest, src):
        return e.emit(0xA000 | (4 if dest == 8 else dest) << 5 | src)

    def irq(mod, index=None):
        if index is None:
            mod, index = 0, mod
        return e.emit(0xC000 | mod & 0x60 | index)

    def set(dest, data):
        return e.emit(0xE000 | dest << 5 | data)

    names = dict(
        word=word, nop=nop, jmp=jmp, wait=wait, in_=in_, out=out, push=push, pull=pull,
        mov=mov, irq=irq, set=set, label=e.label, wrap_target=e.wrap_target, wrap=e.wrap,
    )  # fmt: skip
    return names


def asm_pio(
    *,
    out_init=None,
    set_init=None,
    sideset_init=None,
    side_pindir=False,
    in_shiftdir=PIO.SHIFT_LEFT,
    out_shiftdir=PIO.SHIFT_LEFT,
    autopush=False,
    autopull=False,
    push_thresh=32,
    pull_thresh=32,
    fifo_join=PIO.JOIN_NONE,
):
    side_count = (
        0 if sideset_init is None else (1 if isinstance(sideset_init, int) else len(sideset_init))
    )
    shiftctrl = (
        fifo_join << 30
        | (pull_thresh & 0x1F) << 25
        | (push_thresh & 0x1F) << 20
        | out_shiftdir << 19
        | in_shiftdir << 18
        | autopull << 17
        | autopush << 16
    )
    emitter = _Emitter(
        side_count, side_pindir, side_pindir << 29, shiftctrl, (out_init, set_init, sideset_init)
    )

    def dec(f):
        scope = dict(f.__globals__)
        scope.update(_NAMES)
        scope.update(_instructions(emitter))
        body = types.FunctionType(f.__code__, scope)
        for pass_ in (0, 1):
            emitter.start(pass_)
            body()
        return emitter.program()

    return dec


# ---------------------------------------------------------------------------- the PIOs


class _Block:
    """One PIO: instruction memory use, IRQ flags."""

    def __init__(self, index):
        self.index = index
        self.used = 0  # instruction words loaded
        self.loaded = {}  # id(program list) -> its offset (loaded once per PIO)
        self.irq = 0  # IRQ flags 0..7
        self.machines = {}  # sm index -> StateMachine


_blocks = {}


def _block(index):
    b = _blocks.get(index)
    if b is None or b.board is not machine._board:  # a fresh board (machine.host_reset)
        b = _Block(index)
        b.board = machine._board
        _blocks[index] = b
    return b


def _pin_init_values(init):
    if init is None:
        return []
    if isinstance(init, int):
        return [init]
    return list(init)


def _mask(bits):
    return (1 << bits) - 1 if bits < 32 else 0xFFFFFFFF


def _reverse32(v):
    return int("{:032b}".format(v & 0xFFFFFFFF)[::-1], 2)


class StateMachine:
    _all = {}

    def __new__(cls, id, *args, **kwargs):
        if not 0 <= id < 8:
            raise ValueError("invalid StateMachine")
        sm = cls._all.get(id)
        if sm is None or sm._board is not machine._board:  # a fresh board: a fresh machine
            sm = object.__new__(cls)
            sm._board = machine._board
            sm._setup(id)
            cls._all[id] = sm
        return sm

    def __init__(self, id, prog=None, freq=-1, **kwargs):
        if prog is not None:
            self.init(prog, freq, **kwargs)

    def _setup(self, sm_id):
        self.id = sm_id
        self._block = _block(sm_id >> 2)
        self._code = None
        self._enabled = False
        self._handler = None
        self._hard = False
        self._event = None
        self._parked = None  # (start units, pass units, dx, dy, last look, passes, timer)

    def init(
        self,
        prog,
        freq=-1,
        *,
        in_base=None,
        out_base=None,
        set_base=None,
        jmp_pin=None,
        sideset_base=None,
        in_shiftdir=None,
        out_shiftdir=None,
        push_thresh=None,
        pull_thresh=None,
    ):
        words, execctrl, shiftctrl = prog[0], prog[4], prog[5]
        out_init, set_init, side_init = prog[6], prog[7], prog[8]
        block = self._block
        if id(prog) not in block.loaded:
            if block.used + len(words) > 32:
                raise OSError(12)  # ENOMEM: no room for the program
            block.loaded[id(prog)] = block.used
            prog[1 + block.index] = block.used
            block.used += len(words)
        if freq is None or freq < 0:
            div = 256
        elif freq == 0:
            div = 65536 * 256
        else:
            div = _SYS_HZ * 256 // freq
            if not 256 <= div <= 65536 * 256:
                raise ValueError("freq out of range")
        self._cycle = div  # units (1/256 of a sys cycle) per PIO cycle
        for arg, bit in ((in_shiftdir, 18), (out_shiftdir, 19)):
            if arg is not None:
                shiftctrl = shiftctrl & ~(1 << bit) | arg << bit
        if push_thresh is not None:
            shiftctrl = shiftctrl & ~(0x1F << 20) | (push_thresh & 0x1F) << 20
        if pull_thresh is not None:
            shiftctrl = shiftctrl & ~(0x1F << 25) | (pull_thresh & 0x1F) << 25
        self._code = list(words)
        self._wrap_top = execctrl >> 12 & 0x1F
        self._wrap_bottom = execctrl >> 7 & 0x1F
        self._side_pindir = bool(execctrl >> 29 & 1)
        self._side_en = bool(execctrl >> 30 & 1)
        self._autopush = bool(shiftctrl >> 16 & 1)
        self._autopull = bool(shiftctrl >> 17 & 1)
        self._in_right = bool(shiftctrl >> 18 & 1)
        self._out_right = bool(shiftctrl >> 19 & 1)
        self._push_thresh = (shiftctrl >> 20 & 0x1F) or 32
        self._pull_thresh = (shiftctrl >> 25 & 0x1F) or 32
        join = shiftctrl >> 30 & 3
        self._tx_depth = 8 if join == PIO.JOIN_TX else (0 if join == PIO.JOIN_RX else 4)
        self._rx_depth = 8 if join == PIO.JOIN_RX else (0 if join == PIO.JOIN_TX else 4)
        self._in_base = None if in_base is None else machine.Pin(in_base).gpio
        self._jmp_pin = None if jmp_pin is None else machine.Pin(jmp_pin).gpio
        self._out = self._pins(out_base, out_init)
        self._set = self._pins(set_base, set_init)
        self._side = self._pins(sideset_base, side_init)
        self._side_bits = len(self._side) + (1 if self._side_en else 0)
        self._decoded = [self._decode(w) for w in self._code]
        self._pin_objs = {g: machine.Pin(g) for g in self._out + self._set + self._side}
        for group, init in ((self._out, out_init), (self._set, set_init), (self._side, side_init)):
            for gpio, v in zip(group, _pin_init_values(init), strict=True):
                pin = machine.Pin(gpio)
                pin._func = machine.Pin.ALT_PIO0 + self._block.index
                pin._pio_out = v & 1
                pin._pio_dir = v >> 1
                pin._update()
        self._reset()
        self._block.machines[self.id & 3] = self

    def _pins(self, base, init):
        if base is None:
            return []
        gpio = machine.Pin(base).gpio
        return [gpio + i for i in range(len(_pin_init_values(init)))]

    def _reset(self):
        self._cancel()
        self._enabled = False
        self._pc = 0
        self._x = self._y = 0
        self._isr = self._osr = 0
        self._isr_count = 0
        self._osr_count = 32  # empty
        self._tx = []
        self._rx = []
        self._t = 0  # this machine's time in units, set when it runs
        self._stalled = False
        self._irq_waiting = False  # `irq wait`: the flag is set, waiting for it to clear

    # -- MicroPython API

    def active(self, value=None):
        if value is not None:
            on = bool(value)
            if on and not self._enabled:
                self._enabled = True
                self._t = machine.now_us() * _UNITS_PER_US
                self._stalled = False
                self._wake()
            elif not on and self._enabled:
                self._enabled = False
                self._cancel()
        return self._enabled

    def restart(self):
        """CTRL.SM_RESTART (datasheet): the ISR and both shift counters, the delay and any
        stall are cleared (X, Y, the OSR and the FIFOs are not); then the port jumps to the
        program's start (rp2_pio.c)."""
        self._cancel()
        self._isr = 0
        self._isr_count = 0
        self._osr_count = 0
        self._stalled = False
        self._irq_waiting = False
        self._pc = 0
        if self._enabled:
            self._t = machine.now_us() * _UNITS_PER_US
            self._wake()

    def exec(self, instr):
        raise NotImplementedError("StateMachine.exec is not modelled")

    def put(self, value, shift=0):
        if isinstance(value, int):
            items = [value & 0xFFFFFFFF]
        else:
            mv = memoryview(value)
            if mv.format not in ("B", "H", "I", "L") and not isinstance(value, bytearray):
                raise ValueError("unsupported buffer type")
            items = list(value)
        for v in items:
            while len(self._tx) >= self._tx_depth:
                machine.advance(1, irq_only=True)  # the CPU spins in C; the machine runs
            self._tx.append((v << shift) & 0xFFFFFFFF)
            if self._stalled:
                self._wake()

    def get(self, buf=None, shift=0):
        if buf is not None:
            raise NotImplementedError("StateMachine.get(buf) is not modelled")
        while not self._rx:
            machine.advance(1, irq_only=True)
        v = self._rx.pop(0)
        if self._stalled:
            self._wake()
        return v >> shift

    def rx_fifo(self):
        return len(self._rx)

    def tx_fifo(self):
        return len(self._tx)

    def irq(self, handler=None, trigger=1, hard=False):
        self._handler = handler if trigger else None
        self._hard = bool(hard)

    # -- the machine

    def _wake(self):
        """A stalled instruction retries at this machine's next cycle at or after now."""
        if self._parked is not None:
            self._unpark()
            return
        if not self._enabled or self._event is not None:
            return
        now = machine.now_us() * _UNITS_PER_US
        if self._t < now:
            k = -(-(now - self._t) // self._cycle)
            self._t += k * self._cycle
        self._stalled = False
        self._schedule()

    def _cancel(self):
        if self._parked is not None:
            self._sync()
        entry = self._event
        self._event = None
        if entry is not None:
            events = machine._board.events
            for i, e in enumerate(events):
                if e is entry:
                    del events[i]
                    break

    def _schedule(self):
        us = -(-self._t // _UNITS_PER_US)
        now = machine.now_us()
        self._event = machine._schedule(us if us > now else now, self._run, True, False)

    def _decode(self, word):
        """(side value or -1, delay, meets the world besides its side-set) of a word."""
        field = word >> 8 & 0x1F
        bits = self._side_bits
        delay = field & ((1 << (5 - bits)) - 1) if bits else field
        side = -1
        if bits and (not self._side_en or field >> 4 & 1):
            side = field >> (5 - bits) & ((1 << len(self._side)) - 1)
        op = word >> 13
        dest = word >> 5 & 7
        if op in (1, 4, 6):  # wait, push/pull, irq
            world = True
        elif op == 0:
            world = dest == 6  # jmp pin
        elif op == 2:
            world = dest == 0 or self._autopush  # in pins
        elif op == 3:
            world = dest in (0, 4, 5, 7) or self._autopull
        elif op == 5:
            world = dest == 0 or (word & 7) in (0, 5)  # mov pins / from pins or status
        else:
            world = dest in (0, 4)  # set pins / pindirs
        return side, delay, world

    def _run(self):
        self._event = None
        if not self._enabled:
            return
        now = machine.now_us() * _UNITS_PER_US
        code = self._code
        decoded = self._decoded
        for _ in range(10_000):
            pc = self._pc
            side, delay, world = decoded[pc]
            if self._t > now:  # its cycle falls after this us
                if world or (side >= 0 and side != self._side_state()):
                    if not self._park():
                        self._schedule()
                    return
            if side >= 0:
                self._write(self._side, side, self._side_pindir)
            word = code[pc]
            if word & 0xE01F == pc and (word >> 5 & 7) in (2, 4):
                # `jmp x--` / `jmp y--` to itself: the count runs down in one step, as many
                # cycles as the machine spends on it (x + 1 passes: the last falls through)
                n = self._x if word >> 5 & 7 == 2 else self._y
                if n:
                    self._t += n * (1 + delay) * self._cycle
                    if word >> 5 & 7 == 2:
                        self._x = 0
                    else:
                        self._y = 0
            if not self._step(word, delay):
                self._stalled = True
                if code[pc] >> 13 in (1, 6):  # a wait on a pin or a flag: look every cycle
                    self._t += self._cycle
                    self._schedule()
                return
        raise RuntimeError("StateMachine %d: 10000 instructions without a pause" % self.id)

    # -- a parked loop (see the module doc)

    def _loop(self):
        """From pc: (pass units, dx, dy, offset of the last pin look) of one pass of a loop
        of jmps and nops that looks at the jmp pin, as the pin reads now; None otherwise."""
        if self._jmp_pin is None:
            return None
        level = machine.Pin(self._jmp_pin).value()
        start = pc = self._pc
        x, y = self._x, self._y
        t = dx = dy = 0
        look = -1
        bound = [False, False]  # X / Y decide a jump: reaching 0 changes the path
        for _ in range(32):
            side, delay, _world = self._decoded[pc]
            word = self._code[pc]
            if side >= 0 and side != self._side_state():
                return None
            op, cond, target = word >> 13, word >> 5 & 7, word & 0x1F
            take = False
            if op == 5 and word & 0xFF == 0x42:  # nop (mov y, y)
                pass
            elif op != 0:
                return None
            elif cond == 0:
                take = True
            elif cond == 2:
                take = x != 0
                x = (x - 1) & 0xFFFFFFFF
                dx += 1
            elif cond == 4:
                take = y != 0
                y = (y - 1) & 0xFFFFFFFF
                dy += 1
            elif cond == 6:
                take = bool(level)
                look = t
            else:
                return None
            t += (1 + delay) * self._cycle
            if pc == self._wrap_top:
                fall = self._wrap_bottom
            else:
                fall = (pc + 1) % len(self._code)
            if op == 0 and cond in (2, 4) and target != fall:
                bound[cond == 4] = True
            pc = target if take else fall
            if pc == start:
                if look < 0:
                    return None
                return t, dx if bound[0] else 0, dy if bound[1] else 0, dx, dy, look
        return None

    def _park(self):
        """Park the machine in its pin-watching loop; False when it is not in one."""
        loop = self._loop()
        if loop is None:
            return False
        span, bx, by, dx, dy, look = loop
        passes = None  # how many passes keep every count's path (none reaches 0)
        for n, d in ((self._x, bx), (self._y, by)):
            if d:
                k = (n - 1) // d if n > d else 0
                passes = k if passes is None else min(passes, k)
        if passes == 0:
            return False
        timer = None
        if passes is not None:
            us = -(-(self._t + passes * span) // _UNITS_PER_US)
            timer = machine._schedule(us, self._unpark, True, False)
        self._parked = (self._t, span, dx, dy, look, passes, timer)
        machine.Pin(self._jmp_pin).watch(self._pin_changed)
        return True

    def _pin_changed(self, _gpio, _level):
        self._unpark()

    def _sync(self):
        """Bring a parked machine to its first pass whose look is at or after now."""
        t0, span, dx, dy, look, passes, timer = self._parked
        self._parked = None
        machine.Pin(self._jmp_pin).unwatch(self._pin_changed)
        if timer is not None and timer in machine._board.events:
            machine._board.events.remove(timer)
        now = machine.now_us() * _UNITS_PER_US
        k = max(0, -(-(now - t0 - look) // span))
        if passes is not None and k > passes:
            k = passes
        self._t = t0 + k * span
        self._x = (self._x - k * dx) & 0xFFFFFFFF
        self._y = (self._y - k * dy) & 0xFFFFFFFF

    def _unpark(self):
        self._sync()
        self._stalled = False
        self._schedule()

    def _side_state(self):
        v = 0
        for i, gpio in enumerate(self._side):
            pin = self._pin_objs[gpio]
            v |= (pin._pio_dir if self._side_pindir else pin._pio_out) << i
        return v

    def _write(self, pins, value, dirs):
        objs = self._pin_objs
        for i, gpio in enumerate(pins):
            pin = objs[gpio]
            bit = value >> i & 1
            if dirs:
                if pin._pio_dir == bit:
                    continue
                pin._pio_dir = bit
            else:
                if pin._pio_out == bit:
                    continue
                pin._pio_out = bit
            pin._update()

    def _read_pins(self, bits=32):
        """The line levels of `bits` pins from in_base (pins past GPIO 29 read 0)."""
        base = self._in_base if self._in_base is not None else 0
        pins = machine._board.pins
        v = 0
        for i in range(min(bits, 30 - base)):
            pin = pins.get(base + i)
            if pin is None:
                pin = machine.Pin(base + i)
            v |= pin._level << i
        return v

    def _step(self, word, delay):
        """Execute one instruction (its side-set done) at this machine's time; False when
        it stalls."""
        op = word >> 13
        a = word >> 5 & 7
        b = word & 0x1F
        nxt = None  # a jump target, else the next instruction
        if op == 0:  # JMP
            cond = a
            take = True
            if cond == 1:
                take = self._x == 0
            elif cond == 2:
                take = self._x != 0
                self._x = (self._x - 1) & 0xFFFFFFFF
            elif cond == 3:
                take = self._y == 0
            elif cond == 4:
                take = self._y != 0
                self._y = (self._y - 1) & 0xFFFFFFFF
            elif cond == 5:
                take = self._x != self._y
            elif cond == 6:
                take = (
                    bool(machine.Pin(self._jmp_pin).value())
                    if self._jmp_pin is not None
                    else False
                )
            elif cond == 7:
                take = self._osr_count < self._pull_thresh
            if take:
                nxt = b
        elif op == 1:  # WAIT
            polarity = word >> 7 & 1
            src = word >> 5 & 3
            index = word & 0x1F
            if src == 0:
                level = machine.Pin(index).value()
            elif src == 1:
                level = machine.Pin((self._in_base or 0) + index).value()
            else:
                flag = self._irq_index(index)
                level = self._block.irq >> flag & 1
                if level == polarity and polarity:
                    self._block.irq &= ~(1 << flag)  # wait 1 irq clears the flag
                    level = 1
            if level != polarity:
                return False
        elif op == 2:  # IN
            if self._autopush and self._isr_count >= self._push_thresh:
                if len(self._rx) >= self._rx_depth:
                    return False
                self._rx.append(self._isr)
                self._isr, self._isr_count = 0, 0
            bits = b or 32
            if a == 0:
                src = self._read_pins(bits)
            else:
                src = (0, self._x, self._y, 0, 0, 0, self._isr, self._osr)[a]
            data = src & _mask(bits)
            if self._in_right:
                self._isr = (self._isr >> bits if bits < 32 else 0) | data << (32 - bits)
            else:
                self._isr = (self._isr << bits if bits < 32 else 0) | data
            self._isr &= 0xFFFFFFFF
            self._isr_count = min(32, self._isr_count + bits)
            if self._autopush and self._isr_count >= self._push_thresh:
                if len(self._rx) < self._rx_depth:
                    self._rx.append(self._isr)
                    self._isr, self._isr_count = 0, 0
        elif op == 3:  # OUT
            if self._autopull and self._osr_count >= self._pull_thresh:
                if not self._tx:
                    return False
                self._osr, self._osr_count = self._tx.pop(0), 0
            bits = b or 32
            if self._out_right:
                data = self._osr & _mask(bits)
                self._osr = self._osr >> bits if bits < 32 else 0
            else:
                data = self._osr >> (32 - bits)
                self._osr = (self._osr << bits) & 0xFFFFFFFF if bits < 32 else 0
            self._osr_count = min(32, self._osr_count + bits)
            if a == 0:
                self._write(self._out, data, False)
            elif a == 1:
                self._x = data
            elif a == 2:
                self._y = data
            elif a == 4:
                self._write(self._out, data, True)
            elif a == 5:
                nxt = data & 0x1F
            elif a == 6:
                self._isr, self._isr_count = data, bits
            elif a == 7:
                raise NotImplementedError("out exec is not modelled")
        elif op == 4:  # PUSH / PULL
            if_flag = word >> 6 & 1
            block = word >> 5 & 1
            if not word >> 7 & 1:  # PUSH
                if not (if_flag and self._isr_count < self._push_thresh):
                    if len(self._rx) >= self._rx_depth:
                        if block:
                            return False
                    else:
                        self._rx.append(self._isr)
                    self._isr, self._isr_count = 0, 0
            elif not (if_flag and self._osr_count < self._pull_thresh):  # PULL
                if not self._tx:
                    if block:
                        return False
                    self._osr = self._x
                else:
                    self._osr = self._tx.pop(0)
                self._osr_count = 0
        elif op == 5:  # MOV
            src = word & 7
            value = {
                0: self._read_pins,
                1: lambda: self._x,
                2: lambda: self._y,
                3: lambda: 0,
                5: lambda: 0xFFFFFFFF if len(self._tx) < 1 else 0,
                6: lambda: self._isr,
                7: lambda: self._osr,
            }.get(src, lambda: 0)()
            operation = word >> 3 & 3
            if operation == 1:
                value = ~value & 0xFFFFFFFF
            elif operation == 2:
                value = _reverse32(value)
            if a == 0:
                self._write(self._out, value, False)
            elif a == 1:
                self._x = value
            elif a == 2:
                self._y = value
            elif a == 4:
                raise NotImplementedError("mov exec is not modelled")
            elif a == 5:
                nxt = value & 0x1F
            elif a == 6:
                self._isr, self._isr_count = value, 0
            elif a == 7:
                self._osr, self._osr_count = value, 0
        elif op == 6:  # IRQ
            clear = word >> 6 & 1
            wait = word >> 5 & 1
            flag = self._irq_index(word & 0x1F)
            block = self._block
            if self._irq_waiting:
                if block.irq >> flag & 1:
                    return False
                self._irq_waiting = False
            elif clear:
                block.irq &= ~(1 << flag)
            else:
                block.irq |= 1 << flag
                self._raise(flag)
                if wait:
                    self._irq_waiting = True
                    return False
        else:  # SET
            if a == 0:
                self._write(self._set, b, False)
            elif a == 1:
                self._x = b
            elif a == 2:
                self._y = b
            elif a == 4:
                self._write(self._set, b, True)
        self._t += (1 + delay) * self._cycle
        if nxt is not None:
            self._pc = nxt
        elif self._pc == self._wrap_top:
            self._pc = self._wrap_bottom
        else:
            self._pc = (self._pc + 1) % len(self._code)
        return True

    def _irq_index(self, index):
        flag = index & 7
        if index & 0x10:  # rel: + machine number, modulo 4 within the low flags
            flag = (flag & 4) | ((flag + (self.id & 3)) & 3)
        return flag

    def _raise(self, flag):
        """Flag `flag` was set: flags 0-3 of a machine with a handler interrupt the core;
        the port acknowledges (clears) the flag, then calls the handler (rp2_pio.c)."""
        if flag >= 4:
            return
        sm = self._block.machines.get(flag)
        if sm is not None and sm._handler is not None:
            self._block.irq &= ~(1 << flag)
            machine._deliver(sm._handler, sm, sm._hard)


# ---------------------------------------------------------------------------- ptr32

_TIMERAWL = 0x40054028
_PIO_CTRL = {0x50200000: 0, 0x50300000: 1, 0x50202000: 0, 0x50302000: 1}


class _Ptr32:
    """viper's ptr32(address) on the registers the firmware's native code uses."""

    last_timer = None

    def __init__(self, address):
        if address != _TIMERAWL and address not in _PIO_CTRL:
            raise NotImplementedError("ptr32(0x%08x) is not modelled" % address)
        self.address = address

    def __getitem__(self, index):
        if index or self.address != _TIMERAWL:
            raise NotImplementedError("ptr32 read not modelled")
        v = machine.timer_us() & 0xFFFFFFFF
        if v == _Ptr32.last_timer:  # the CPU spins on the timer: it ticks
            machine.advance(1, irq_only=True)
            v = machine.timer_us() & 0xFFFFFFFF
        _Ptr32.last_timer = v
        return v

    def __setitem__(self, index, value):
        if index or self.address == _TIMERAWL:
            raise NotImplementedError("ptr32 write not modelled")
        block = _block(_PIO_CTRL[self.address])
        for i in range(4):
            sm = block.machines.get(i)
            if value >> i & 1 and sm is not None:
                sm.active(1)


builtins.ptr32 = _Ptr32
