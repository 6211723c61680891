"""Time formatting for the 4-digit displays: milliseconds to 4 characters plus the colon.

Pure module: the time comes in as an int (ms); the characters go into a caller-provided
bytearray(4) as ASCII codes (feed it to segments.encode_into); the colon state is the return
value (1 = on, 0 = off). Nothing allocates (for |t_ms| < 2**30, i.e. MicroPython small ints),
so the tick loop can call it every frame.

Display legend (the layout is chosen from the *rounded* value, so a layout boundary is crossed
exactly when the shown value crosses it):

    time shown     display  colon  countdown (up)          countup (down)
    >= 10 h        HHhM     off    10:35:00    -> "10h4"   10:35:00    -> "10h3"
    1 h .. < 10 h  HhMM     off    1:28:01     -> "1h29"   1:28:01     -> "1h28"
    10 s .. < 1 h  MM:SS    on     5:06.200    -> " 5:07"  5:07.900    -> " 5:07"
    0 .. < 10 s    _S:t_    on     4.21 s      -> " 4:3 "  4.29 s      -> " 4:2 "
    0              _0:0_    on     0           -> " 0:0 "  0           -> " 0:0 "

(H = hours, M in HHhM = tens of minutes, MM = minutes with a blank leading zero below 10
in MM:SS, S = seconds, t = tenths, _ = blank digit.)

The tenths layout (digit 0 blank, seconds, colon, tenths, digit 3 blank) is told apart from
M:SS by the blank last digit. It is used while the shown value is below `tenths_below_s`
whole seconds (default 10; values above 10 are treated as 10, 0 or less turns tenths off and
then 0 shows " 0:00"). Whole seconds keep the up-counting display monotonic at the switch.

When the text changes next: `next_change(t_ms, rising, up)` gives the ms until the text for a
time that falls (countdown) or rises (hourglass gain, stopwatch) at 1 ms per ms first
differs, so the loop can sleep until then (app.py). Within a layout the text changes each
time the rounded value does, i.e. at multiples of the layout's unit (100 ms, 1 s, 1 min,
10 min); a layout switch is a change too. The answer is exact, never early.

Countdown (`countdown_into`) rounds *up* to the resolution shown, so the display never shows
zero while time is left and shows zero exactly when the time is 0: 9 999 ms is " 0:10",
3 599 001 ms is "1h00", 3 599 000 ms is "59:59". Up-counting (`countup_into`, stopwatch mode)
rounds *down* with the same layouts. Both are monotonic in the time. Negative times show as
0 and times beyond the largest value show "99h5" (99 h 50 min), so bad input never raises.
"""

from micropython import const

_TENTHS_MAX_S = const(10)  # the tenths layout has one seconds digit
_MS_S = const(1_000)
_MS_MIN = const(60_000)
_MS_10MIN = const(600_000)
_MIN_10H = const(600)  # minutes in 10 h
_S_1H = const(3_600)
_TENS_MAX = const(599)  # 99 h 50 min in tens of minutes
_C0 = const(48)  # ord("0")
_BLANK = const(32)  # ord(" ")
_H = const(104)  # ord("h")
_MS_TENTH = const(100)
_T_H = const(3_599_000)  # countdown: above this, HhMM (1 h rounded up to whole seconds)
_T_10H = const(35_940_000)  # countdown: above this, HHhM (10 h rounded up to minutes)


def format_into(buf, t_ms, up, tenths_below_s=_TENTHS_MAX_S):
    """Write 4 ASCII codes for `t_ms` into `buf` (bytearray(4)); return the colon (1/0).

    `up` = True rounds up (countdown), False rounds down (stopwatch). (It runs at every
    change of a running clock: the seconds come first, the coarser and finer units only
    when the layout needs them, and the roundings are inline.)"""
    if t_ms < 0:
        t_ms = 0
    if tenths_below_s > _TENTHS_MAX_S:
        tenths_below_s = _TENTHS_MAX_S
    s = (t_ms + 999) // _MS_S if up else t_ms // _MS_S
    if s >= _S_1H:  # an hour or more: minutes (10 h or more: tens of minutes)
        m = (t_ms + _MS_MIN - 1) // _MS_MIN if up else t_ms // _MS_MIN
        if m >= _MIN_10H:
            tens = (t_ms + _MS_10MIN - 1) // _MS_10MIN if up else t_ms // _MS_10MIN
            if tens > _TENS_MAX:
                tens = _TENS_MAX
            h = tens // 6
            buf[0] = _C0 + h // 10
            buf[1] = _C0 + h % 10
            buf[2] = _H
            buf[3] = _C0 + tens % 6
            return 0
        buf[0] = _C0 + m // 60
        buf[1] = _H
        buf[2] = _C0 + (m % 60) // 10
        buf[3] = _C0 + m % 10
        return 0
    if s <= tenths_below_s:  # (tenths shown only below that many whole seconds)
        tenths = (t_ms + 99) // _MS_TENTH if up else t_ms // _MS_TENTH
        if tenths < tenths_below_s * 10:
            buf[0] = _BLANK
            buf[1] = _C0 + tenths // 10
            buf[2] = _C0 + tenths % 10
            buf[3] = _BLANK
            return 1
    m = s // 60
    buf[0] = _C0 + m // 10 if m >= 10 else _BLANK
    buf[1] = _C0 + m % 10
    s %= 60
    buf[2] = _C0 + s // 10
    buf[3] = _C0 + s % 10
    return 1


def _after(t, unit, floor_t):
    # Falling time, rounded up: the text changes when t reaches the multiple of `unit` below
    # it, or earlier at `floor_t` (where a finer layout takes over). Returns ms until then.
    b = (t - 1) // unit * unit
    if b < floor_t:
        b = floor_t
    return t - b


def next_change(t_ms, rising, up=True, tenths_below_s=_TENTHS_MAX_S):
    """ms from now until the text shown for `t_ms` changes, when the time moves by 1 ms per
    ms: down (`rising` False: a running countdown) or up (`rising` True: the opponent's side
    in hourglass, or the stopwatch). `up` is the rounding, as in format_into (True: rounded
    up, countdown display; False: rounded down, stopwatch display). Returns at least 1, or
    -1 when it never changes (a countdown at 0). Falling with rounding down is not used and
    answers 1 (always safe: a wakeup too early only renders the same text). Allocates
    nothing."""
    if tenths_below_s > _TENTHS_MAX_S:
        tenths_below_s = _TENTHS_MAX_S
    tenths_t = (tenths_below_s * 10 - 1) * _MS_TENTH if tenths_below_s > 0 else 0
    if not rising:
        if t_ms <= 0:
            return -1
        if not up:
            return 1
        if t_ms > _T_10H:
            return _after(t_ms, _MS_10MIN, _T_10H)
        if t_ms > _T_H:
            return _after(t_ms, _MS_MIN, _T_H)
        if t_ms > tenths_t:
            return _after(t_ms, _MS_S, tenths_t)
        return _after(t_ms, _MS_TENTH, 0)
    if t_ms < 0:
        t_ms = 0
    if up:
        # Rounded up, rising: the text changes 1 ms after a multiple of the unit, or at the
        # first ms of a coarser layout.
        if t_ms > _T_10H:
            unit, ceiling = _MS_10MIN, -1
        elif t_ms > _T_H:
            unit, ceiling = _MS_MIN, _T_10H + 1
        elif t_ms > tenths_t:
            unit, ceiling = _MS_S, _T_H + 1
        else:
            unit, ceiling = _MS_TENTH, tenths_t + 1
        b = (t_ms + unit - 1) // unit * unit + 1
    else:
        # Rounded down, rising: the text changes at the next multiple of the unit, or where
        # the next coarser layout starts.
        if t_ms >= _MIN_10H * _MS_MIN:
            unit, ceiling = _MS_10MIN, -1
        elif t_ms >= _S_1H * _MS_S:
            unit, ceiling = _MS_MIN, _MIN_10H * _MS_MIN
        elif t_ms >= tenths_below_s * _MS_S:
            unit, ceiling = _MS_S, _S_1H * _MS_S
        else:
            unit, ceiling = _MS_TENTH, tenths_below_s * _MS_S
        b = (t_ms // unit + 1) * unit
    if 0 <= ceiling < b:
        b = ceiling
    return b - t_ms


def countdown_into(buf, t_ms, tenths_below_s=_TENTHS_MAX_S):
    """Remaining time `t_ms`, rounded up: see the module legend. Returns the colon (1/0)."""
    return format_into(buf, t_ms, True, tenths_below_s)


def countup_into(buf, t_ms, tenths_below_s=_TENTHS_MAX_S):
    """Elapsed time `t_ms`, rounded down: see the module legend. Returns the colon (1/0)."""
    return format_into(buf, t_ms, False, tenths_below_s)


def countdown(t_ms, tenths_below_s=_TENTHS_MAX_S):
    """Convenience for tests: (4-character str, colon 1/0). Allocates."""
    buf = bytearray(4)
    colon = countdown_into(buf, t_ms, tenths_below_s)
    return bytes(buf).decode(), colon


def countup(t_ms, tenths_below_s=_TENTHS_MAX_S):
    """Convenience for tests: (4-character str, colon 1/0). Allocates."""
    buf = bytearray(4)
    colon = countup_into(buf, t_ms, tenths_below_s)
    return bytes(buf).decode(), colon
