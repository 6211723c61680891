"""Time formatting for the 6-digit displays (the LCD build's glass): milliseconds to 6
characters plus the decimal points the glass has.

Pure module, the 6-digit sibling of timefmt.py (the 4-digit layouts; the same rounding rules
and the same interface). The time comes in as an int (ms); the characters go into a
caller-provided bytearray(6) as ASCII codes (segments.encode_points); the return value is the
mask of the lit points, bit i = the point after digit i (0 = leftmost), the display
contract's terms: only bits 3 and 4 are ever lit, and the glass has dots after digits 2, 3
and 4. Nothing allocates (for |t_ms| < 2**30, i.e. MicroPython small ints), so the tick loop
can call it every frame.

Display legend (the layout is chosen from the *rounded* value, so a layout boundary is crossed
exactly when the shown value crosses it):

    time shown     display    point    countdown (up)             countup (down)
    >= 10 h        _HHhMM     -        10:35:00.1 -> " 10h36"     10:35:59   -> " 10h35"
    1 h .. < 10 h  HhMM.SS    after 3  1:28:01.2  -> "1h28.02"    1:28:01.9  -> "1h28.01"
    1 min .. < 1 h __MM.SS    after 3  5:06.200   -> "   5.07"    5:07.900   -> "   5.07"
    10 s .. 1 min  ___M.SS    after 3  0:12.500   -> "   0.13"    0:12.500   -> "   0.12"
    0 .. < 10 s    ____S.t    after 4  4.21 s     -> "    4.3"    4.29 s     -> "    4.2"
    0              ____0.0    after 4  0          -> "    0.0"    0          -> "    0.0"

(H = hours, M = minutes, with a blank leading zero below 10 in MM.SS, S = seconds, t =
tenths, _ = blank digit; a point is drawn after the digit it follows.) Every layout ends at
the last digit, the seconds always in digits 4 and 5 below 10 h, and the point between
minutes and seconds is the same dot (after digit 3) from 10 s to 10 h, so a running clock's
seconds never move; the tenths layout moves the point one digit right ("S.t"). The hours
layout keeps the `h` of the 4-digit displays: the glass has no point after digit 1.

The tenths layout is used while the shown value is below `tenths_below_s` whole seconds
(default 10; values above 10 are treated as 10, 0 or less turns tenths off and then 0 shows
"   0.00"), as on the 4-digit displays: the players see tenths in the same seconds on
either build.

When the text changes next: `next_change(t_ms, rising, up)` as timefmt.next_change: the ms
until the text for a time that falls (countdown) or rises (hourglass gain, stopwatch) at
1 ms per ms first differs. Within a layout the text changes each time the rounded value does,
i.e. at multiples of the layout's unit (100 ms, 1 s, 1 min); a layout switch is a change too.
The answer is exact, never early.

Countdown (`countdown_into`) rounds *up* to the resolution shown, so the display never shows
zero while time is left and shows zero exactly when the time is 0: 9 999 ms is "   0.10",
35 999 001 ms is " 10h00", 35 999 000 ms is "9h59.59". Up-counting (`countup_into`,
stopwatch mode) rounds *down* with the same layouts. Both are monotonic in the time.
Negative times show as 0 and times beyond the largest value show " 99h59", so bad input
never raises.
"""

from micropython import const

_TENTHS_MAX_S = const(10)  # the tenths layout has one seconds digit
_MS_S = const(1_000)
_MS_MIN = const(60_000)
_MS_TENTH = const(100)
_S_1H = const(3_600)
_S_10H = const(36_000)
_MIN_MAX = const(5_999)  # 99 h 59 min
_C0 = const(48)  # ord("0")
_BLANK = const(32)  # ord(" ")
_H = const(104)  # ord("h")
_P_SECONDS = const(8)  # the point after digit 3: minutes.seconds
_P_TENTHS = const(16)  # the point after digit 4: seconds.tenths
_T_10H = const(35_999_000)  # countdown: above this, _HHhMM (10 h rounded up to seconds)
_MS_10H = const(36_000_000)


def format_into(buf, t_ms, up, tenths_below_s=_TENTHS_MAX_S):
    """Write 6 ASCII codes for `t_ms` into `buf` (bytearray(6)); return the points mask.

    `up` = True rounds up (countdown), False rounds down (stopwatch)."""
    if t_ms < 0:
        t_ms = 0
    if tenths_below_s > _TENTHS_MAX_S:
        tenths_below_s = _TENTHS_MAX_S
    s = (t_ms + 999) // _MS_S if up else t_ms // _MS_S
    if s >= _S_10H:  # 10 hours or more: hours and minutes
        m = (t_ms + _MS_MIN - 1) // _MS_MIN if up else t_ms // _MS_MIN
        if m > _MIN_MAX:
            m = _MIN_MAX
        h = m // 60
        m %= 60
        buf[0] = _BLANK
        buf[1] = _C0 + h // 10
        buf[2] = _C0 + h % 10
        buf[3] = _H
        buf[4] = _C0 + m // 10
        buf[5] = _C0 + m % 10
        return 0
    if s <= tenths_below_s:  # (tenths shown only below that many whole seconds)
        tenths = (t_ms + 99) // _MS_TENTH if up else t_ms // _MS_TENTH
        if tenths < tenths_below_s * 10:
            buf[0] = buf[1] = buf[2] = buf[3] = _BLANK
            buf[4] = _C0 + tenths // 10
            buf[5] = _C0 + tenths % 10
            return _P_TENTHS
    m = s // 60
    if s >= _S_1H:
        buf[0] = _C0 + m // 60
        buf[1] = _H
        m %= 60
        buf[2] = _C0 + m // 10
    else:
        buf[0] = buf[1] = _BLANK
        buf[2] = _C0 + m // 10 if m >= 10 else _BLANK
    buf[3] = _C0 + m % 10
    s %= 60
    buf[4] = _C0 + s // 10
    buf[5] = _C0 + s % 10
    return _P_SECONDS


def next_change(t_ms, rising, up=True, tenths_below_s=_TENTHS_MAX_S):
    """ms from now until the text shown for `t_ms` changes, when the time moves by 1 ms per
    ms: down (`rising` False) or up (`rising` True); `up` is the rounding, as in
    format_into. Returns at least 1, or -1 when it never changes (a countdown at 0). Falling
    with rounding down is not used and answers 1 (always safe). Allocates nothing."""
    if tenths_below_s > _TENTHS_MAX_S:
        tenths_below_s = _TENTHS_MAX_S
    tenths_t = (tenths_below_s * 10 - 1) * _MS_TENTH if tenths_below_s > 0 else 0
    if not rising:
        if t_ms <= 0:
            return -1
        if not up:
            return 1
        # Rounded up, falling: the text changes when t reaches the multiple of the unit
        # below it, or earlier where a finer layout takes over.
        if t_ms > _T_10H:
            unit, floor_t = _MS_MIN, _T_10H
        elif t_ms > tenths_t:
            unit, floor_t = _MS_S, tenths_t
        else:
            unit, floor_t = _MS_TENTH, 0
        b = (t_ms - 1) // unit * unit
        if b < floor_t:
            b = floor_t
        return t_ms - b
    if t_ms < 0:
        t_ms = 0
    if up:
        # Rounded up, rising: 1 ms after a multiple of the unit, or at the first ms of a
        # coarser layout.
        if t_ms > _T_10H:
            unit, ceiling = _MS_MIN, -1
        elif t_ms > tenths_t:
            unit, ceiling = _MS_S, _T_10H + 1
        else:
            unit, ceiling = _MS_TENTH, tenths_t + 1
        b = (t_ms + unit - 1) // unit * unit + 1
    else:
        # Rounded down, rising: at the next multiple of the unit, or where the next coarser
        # layout starts.
        if t_ms >= _MS_10H:
            unit, ceiling = _MS_MIN, -1
        elif t_ms >= tenths_below_s * _MS_S:
            unit, ceiling = _MS_S, _MS_10H
        else:
            unit, ceiling = _MS_TENTH, tenths_below_s * _MS_S
        b = (t_ms // unit + 1) * unit
    if 0 <= ceiling < b:
        b = ceiling
    return b - t_ms


def countdown_into(buf, t_ms, tenths_below_s=_TENTHS_MAX_S):
    """Remaining time `t_ms`, rounded up: see the module legend. Returns the points mask."""
    return format_into(buf, t_ms, True, tenths_below_s)


def countup_into(buf, t_ms, tenths_below_s=_TENTHS_MAX_S):
    """Elapsed time `t_ms`, rounded down: see the module legend. Returns the points mask."""
    return format_into(buf, t_ms, False, tenths_below_s)


def countdown(t_ms, tenths_below_s=_TENTHS_MAX_S):
    """Convenience for tests: (6-character str, points mask). Allocates."""
    buf = bytearray(6)
    points = countdown_into(buf, t_ms, tenths_below_s)
    return bytes(buf).decode(), points


def countup(t_ms, tenths_below_s=_TENTHS_MAX_S):
    """Convenience for tests: (6-character str, points mask). Allocates."""
    buf = bytearray(6)
    points = countup_into(buf, t_ms, tenths_below_s)
    return bytes(buf).decode(), points
