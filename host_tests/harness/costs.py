"""Python takes time: the firmware's own work charged to virtual time, at the chip's rates.

Without this the host harness runs Python in zero virtual time, so a loop that oversleeps by
the length of its own wakeup, or does its slow work before the LEDs, passes every host test
and misses its goals on the chip. `CostModel.charging()` installs a trace hook
(sys.settrace) that, while the firmware runs, advances virtual time for every line executed
in a firmware/ module, every call of a firmware function, and every call from firmware code
into anything else (the fake `machine`, the doorbell's poll: C code on the board). Time is
advanced with `machine.advance(us, irq_only=True)`: pin edges scheduled by a test still
happen in the middle of a wakeup and their hard IRQs run there, as on the chip, while the
harness's own stop events wait for the loop's next sleep.

The three rates come from the chip bench (`make chip-bench`): tools/chip/onchip.py's
`percall` measures each piece of a wakeup on real MicroPython rp2 in the emulated RP2040,
and the same probe run on the host counts the lines and calls of each piece; the rates are
the least-squares fit of chip µs to those counts (host_tests/chip/test_chip_costs.py refits and
checks them whenever a chip is available). CPython lines are not MicroPython bytecodes, so
the model is coarse per small piece (see that test's tolerance) but right in sum: a render
wakeup, a press, the flag take the chip's time within a fraction of a millisecond.

The displays' frames go out on the fake rp2's PIO state machines (simboard/mp/rp2.py), which
run on in virtual time while the CPU works or sleeps, as on the chip: the rates cover only
the CPU's work.
"""

import sys
from contextlib import contextmanager
from pathlib import Path

import machine

FIRMWARE = str(Path(__file__).resolve().parents[2] / "firmware")


class CostModel:
    def __init__(self, line_us, call_us, ccall_us):
        self.line_us = line_us  # one line of a firmware module
        self.call_us = call_us  # entering a firmware function (frame set-up and return)
        self.ccall_us = ccall_us  # a call from firmware into C (fake machine, select...)
        self.debt = 0.0  # charged but not yet advanced: virtual time is whole us
        self.lines = 0  # counters, for calibration
        self.calls = 0
        self.ccalls = 0
        self._firmware = {}  # code object -> True when it is firmware code

    def _is_firmware(self, code):
        hit = self._firmware.get(code)
        if hit is None:
            hit = code.co_filename.startswith(FIRMWARE)
            self._firmware[code] = hit
        return hit

    def _pay(self, us):
        debt = self.debt + us
        whole = int(debt)
        self.debt = debt - whole
        if whole:
            machine.advance(whole, irq_only=True)

    def _on_call(self, frame, event, arg):
        if event != "call":
            return None
        if self._is_firmware(frame.f_code):
            self.calls += 1
            self._pay(self.call_us)
            return self._on_line
        back = frame.f_back
        if back is not None and self._is_firmware(back.f_code):
            self.ccalls += 1
            self._pay(self.ccall_us)
        return None

    def _on_line(self, frame, event, arg):
        if event == "line":
            self.lines += 1
            self._pay(self.line_us)
        return self._on_line

    @contextmanager
    def charging(self):
        """Charge the firmware's work to virtual time while the block runs."""
        previous = sys.gettrace()
        sys.settrace(self._on_call)
        try:
            yield self
        finally:
            sys.settrace(previous)


# Rates for the chip bench's per-call costs (MicroPython v1.27.0 rp2). A free least-squares
# fit (fit(measured, counts)) gives a negative C call: a line's cost is not one number (the
# game screen's lines are dearer than the drivers'), so these are the rates, on a grid of
# 0.02 / 0.5 / 0.5 us, that leave the most room for View.render, segments.encode_into and
# buttons.poll, a C call held at 5 us or more (an empty Python call measures 12).
# test_chip_costs.py's bounds (25 % a path, 20 % the sum) leave room for the 5-15 % the
# chip's figures move with the heap's layout, so a refit is due only when a path moves more.
CHIP = dict(line_us=3.82, call_us=18.0, ccall_us=7.5)


def chip_model():
    return CostModel(**CHIP)


ONCHIP = Path(__file__).resolve().parents[2] / "tools" / "chip" / "onchip.py"
RAPID_15_10 = 3  # firmware/core/presets.py


def percall_on_host(model, flash_dir):
    """onchip.percall's pieces run on the simulated board with `model` charging the work:
    {name: us of virtual time}, in the chip bench's setting (Rapid 15+10, the right clock
    running in mm:ss). With unit rates it counts lines, calls or C calls instead."""
    import contextlib
    import importlib.util
    import io
    import json

    from simboard.firmware import SimulatedClock

    clock = SimulatedClock(flash_dir, costs=model)
    machine.set_adc_volts(3, 4.2 / 3)  # ADC3 = VSYS / 3: fresh batteries
    clock.run_ms(1_000)
    for name in ["set"] + ["plus"] * RAPID_15_10 + ["play"]:
        clock.press(name)
        clock.run_ms(100)
    clock.press("left")
    clock.run_ms(3_000)
    spec = importlib.util.spec_from_file_location("onchip", ONCHIP)
    onchip = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(onchip)  # now: it binds this clock's ticks_us
    machine.hook_sleep()  # its sleep_us lets the PIO send the last frame, as on the chip
    out = io.StringIO()
    with model.charging(), contextlib.redirect_stdout(out):
        onchip.percall(clock.app)
    return dict(json.loads(out.getvalue().strip().splitlines()[-1]))


def counts_on_host(tmp_path):
    """{name: (bus_us, lines, calls, ccalls)} of each onchip.percall piece on the host."""
    runs = []
    for i, rates in enumerate(((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1))):
        folder = Path(tmp_path) / ("run%d" % i)
        folder.mkdir()
        runs.append(percall_on_host(CostModel(*rates), folder))
    zero = runs[0]
    return {
        name: (zero[name], runs[1][name] - zero[name], runs[2][name] - zero[name],
               runs[3][name] - zero[name])
        for name in zero
        if zero[name] is not None
    }  # fmt: skip


def fit(chip_us, counts):
    """Least-squares rates (line_us, call_us, ccall_us) for the chip's µs per piece, from
    the host counts (pieces with no firmware line are left out)."""
    rows = [
        (counts[n][1:], chip_us[n] - counts[n][0])
        for n in chip_us
        if n in counts and chip_us[n] is not None and (counts[n][1] or counts[n][2])
    ]
    # Normal equations A^T A x = A^T y, 3 x 3, solved by Gaussian elimination.
    ata = [[sum(a[i] * a[j] for a, _ in rows) for j in range(3)] for i in range(3)]
    aty = [sum(a[i] * y for a, y in rows) for i in range(3)]
    m = [ata[i] + [aty[i]] for i in range(3)]
    for c in range(3):
        p = max(range(c, 3), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(3):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c], strict=True)]
    return tuple(m[i][3] / m[i][i] for i in range(3))


def predict(rates, counts):
    line_us, call_us, ccall_us = rates
    return {
        n: bus + lines * line_us + calls * call_us + ccalls * ccall_us
        for n, (bus, lines, calls, ccalls) in counts.items()
    }
