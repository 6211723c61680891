"""The piezo buzzer: tones and short beep patterns, stepped by the tick loop, never blocking.

Owns what the buzzer is playing. It is handed a PWM object (board.py creates
`PWM(Pin(n))`) and uses only its `freq(hz)` and `duty_u16(duty)` methods; silence is duty 0,
so the PWM is never deinitialised while the clock runs.

A pattern is a flat tuple of (frequency in Hz, duration in ms) pairs; frequency 0 is a rest.
`play(pattern, now_ms)` starts it at once; `update(now_ms)` moves to the next step when the
current one has run its time (the loop wakes for it: `next_due`), keeping the pattern's own
timing (a late wakeup shortens the following step, it does not stretch the pattern). After a
stall of more than `resync_ms` the pattern is re-anchored to now instead of racing through
the missed steps.

With sound off (`set_enabled(False)`, or `enabled=False`) nothing plays and the PWM stays
silent. Bad patterns never raise: an odd trailing element is ignored, durations below 1 ms
count as 1 ms, and frequencies outside `FREQ_MIN_HZ`..`FREQ_MAX_HZ` are rests.
"""

import time
from array import array

from micropython import const

FREQ_MIN_HZ = const(20)  # the RP2040 PWM goes down to 8 Hz; below 20 Hz is no tone
FREQ_MAX_HZ = const(20_000)

# Patterns: (Hz, ms, Hz, ms, ...).
CLICK = (4000, 15)  # key feedback
BEEP = (2000, 80)
CONFIRM = (1500, 60, 0, 40, 2500, 90)
ERROR = (400, 250)
LOW_TIME = (2500, 60, 0, 90, 2500, 60)  # time running low
FLAG = (2000, 300, 0, 150, 2000, 300, 0, 150, 2000, 600)  # a flag fell
MOVES_DONE = (1800, 120, 0, 60, 2400, 200)  # a time control period ended


class Buzzer:
    volume_u16 = 32_768  # PWM duty while a tone sounds (50 % is the loudest for a piezo)
    resync_ms = 1_000  # a stall longer than this re-anchors the pattern, ms

    def __init__(self, pwm, enabled=True):
        self._pwm = pwm
        self.enabled = bool(enabled)
        self._pattern = None  # tuple being played, or None
        self._step = 0  # index of the current (Hz, ms) pair in _pattern
        self._repeats = 0  # times the pattern still has to play after this one
        self._end = 0  # when the current step ends, ms
        self._freq = 0  # frequency set on the PWM, 0 = unknown
        self._sounding = True  # force the first silence() to reach the PWM
        self._one = array("i", [0, 0])  # the pattern used by beep()
        self.silence()

    def set_enabled(self, on):
        """Sound on/off. Off stops what is playing at once."""
        self.enabled = bool(on)
        if not self.enabled:
            self.stop()

    def play(self, pattern, now_ms, repeats=1):
        """Play `pattern` (see module doc) `repeats` times (at least once), starting now."""
        if not self.enabled or len(pattern) < 2:
            return
        self._pattern = pattern
        self._repeats = repeats - 1 if repeats > 1 else 0
        self._step = 0
        self._start_step(now_ms)

    def beep(self, now_ms, freq_hz=2000, ms=80):
        """One tone. Allocates nothing (the pattern lives in a preallocated array)."""
        self._one[0] = freq_hz
        self._one[1] = ms
        self.play(self._one, now_ms)

    def stop(self):
        self._pattern = None
        self.silence()

    def busy(self):
        """True while a pattern plays."""
        return self._pattern is not None

    def next_due(self, now_ms):
        """ms until `update` has a step to start or end (0 if due now), or -1 when silent."""
        if self._pattern is None:
            return -1
        d = time.ticks_diff(self._end, now_ms)
        return d if d > 0 else 0

    def update(self, now_ms):
        """Advance the pattern to `now_ms` (when `next_due` says). Never blocks."""
        p = self._pattern
        if p is None:
            return
        late = time.ticks_diff(now_ms, self._end)
        if late < 0:
            return
        if late > self.resync_ms:
            self._end = now_ms
        while time.ticks_diff(now_ms, self._end) >= 0:
            self._step += 2
            if self._step + 1 >= len(p):
                if self._repeats <= 0:
                    self.stop()
                    return
                self._repeats -= 1
                self._step = 0
            self._start_step(self._end)

    def _start_step(self, at_ms):
        # Sound step `_step` from `at_ms` and set its end.
        p = self._pattern
        f = p[self._step]
        d = p[self._step + 1]
        self._end = time.ticks_add(at_ms, d if d > 0 else 1)
        if FREQ_MIN_HZ <= f <= FREQ_MAX_HZ:
            if f != self._freq:
                self._pwm.freq(f)
                self._freq = f
            self._pwm.duty_u16(self.volume_u16)
            self._sounding = True
        else:
            self.silence()

    def silence(self):
        if self._sounding:
            self._pwm.duty_u16(0)
            self._sounding = False
