"""The clock's live feed, read on the host: its lines parsed, one board's game rebuilt.

The firmware (firmware/core/feed.py) writes `#CLK1 <seq> <kind> <ints...> *` lines on its USB
serial port during a game (docs/live.md has the table). `parse_line` takes one line as
read from the port (anything else the port says, status lines, cut lines, is None);
`BoardGame.apply` folds the lines of one clock into its game: the controls, every move
with its exact-ms times, the state with the host instant it was true at, the result. A
line of a newer format version with more fields at its end is read by its known fields.

`BoardGame.record()` is the game as the clock's own record (gamelog.py's format), so the
export's code (pgn_headers, pgn_merge) reads it as it reads games/gNNN.json;
`BoardGame.view()` is what the page shows.
"""

from typing import NamedTuple

PREFIX = b"#CLK1 "
FIELDS = {"G": 6, "M": 7, "A": 7, "P": 4, "F": 4, "T": 14, "E": 3}
SEQ_SPAN = 100_000

READY, RUNNING, PAUSED, FLAGGED, FINISHED = range(5)
STATES = ("ready", "running", "paused", "flagged", "finished")
MODES = ("countdown", "hourglass", "upcount", "byo-yomi", "canadian")
RESULT_LEFT, RESULT_RIGHT, RESULT_DRAW = 1, 2, 3
BY_DRAW_ODDS = 256
REASONS = {  # firmware/core/engine.py REASON_*, as the game's record writes them (archive.py)
    1: "flag",
    2: "dead position",
    3: "on the board",
    4: "abandoned by the arbiter",
    5: "declined after a power cut",
    6: "unreadable after a power cut",
}
ACTIONS = {
    1: "pause",
    2: "resume",
    3: "set time",
    4: "add time",
    5: "set moves",
    6: "set period",
    7: "Appendix G.4",
    8: "finish",
    9: "set overtime",
}
ACT_LOST = 10  # engine.ACT_LOST: value counts the corrections a full log dropped


class Line(NamedTuple):
    seq: int
    kind: str
    fields: tuple  # ints, except G's two controls (str)


def parse_line(raw):
    """One line from the port (bytes, with or without its CR LF) -> Line, or None when it
    is not a whole feed line. The prefix may follow other bytes (a status line cut short
    before it)."""
    at = raw.rfind(PREFIX)
    if at < 0:
        return None
    parts = raw[at + len(PREFIX) :].strip().split(b" ")
    if len(parts) < 3 or parts[-1] != b"*":
        return None
    try:
        seq = int(parts[0])
        kind = parts[1].decode("ascii")
        want = FIELDS.get(kind)
        body = parts[2:-1]
        if want is None or len(body) < want:
            return None
        if kind == "G":
            fields = (int(body[0]), int(body[1]), int(body[2]))
            fields += (body[3].decode("ascii"), body[4].decode("ascii"), int(body[5]))
            for c in fields[3:5]:
                parse_control(c)
        else:
            fields = tuple(int(b) for b in body[:want])
    except (ValueError, UnicodeDecodeError):
        return None
    return Line(seq, kind, fields)


def parse_control(text):
    """A G line's control ('t,m,b,bm/...[+count,ms]') -> the settings' form the record
    keeps: {"mode" is added by the caller, "periods": [[time_s, moves, bonus, bonus_s]],
    ["overtime": [count, time_s]]}."""
    main, plus, ot = text.partition("+")
    periods = []
    for p in main.split("/"):
        v = [int(x) for x in p.split(",")]
        if len(v) != 4:
            raise ValueError("period %r" % p)
        periods.append([v[0] // 1000, v[1], v[2], v[3] // 1000])
    out = {"periods": periods}
    if plus:
        v = [int(x) for x in ot.split(",")]
        if len(v) != 2:
            raise ValueError("overtime %r" % ot)
        out["overtime"] = [v[0], v[1] // 1000]
    return out


def clock_hms(ms):
    """ms -> H:MM:SS, whole seconds truncated (as %clk and the export write it)."""
    s = max(ms, 0) // 1000
    return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60)


class BoardGame:
    """One clock's game as its feed tells it. `at` instants are the host's (seconds, from
    the `now` each line is applied with)."""

    def __init__(self):
        self.start = None  # the G line's fields
        self.moves = {}  # ply -> [side, move_no, used_ms, left_ms, ot]
        self.times = [0, 0]  # both sides' ms at `at`
        self.delay = 0  # the running side's delay left at `at` (ms)
        self.at = None  # host instant the times were true (None: no times yet)
        self.state = READY
        self.running = -1
        self.period = [0, 0]
        self.ot_left = [0, 0]
        self.flags = 0
        self.first_flag = -1
        self.plies = 0  # half-moves the clock has logged
        self.result = None  # (result, reason, white) of the E line
        self.events = []  # (host instant, text) of pauses, corrections, flags, periods
        # the corrections, [ply, action, side, value, before, after] each, as the record
        # keeps them (gamelog.py), in the order they came; lost: the count a full log dropped
        self.arbiter = []
        self.arbiter_lost = 0
        self.last_seq = None
        self.lost = 0  # lines the sequence numbers say were dropped
        self.heard = None  # host instant of the last line

    def empty(self):
        return self.start is None and self.at is None

    def apply(self, line, now):
        """Fold `line` in, received at host instant `now`. Returns True when it starts a
        new game (the caller keeps the old one if it wants it)."""
        new = False
        if self.last_seq is not None:
            gap = (line.seq - self.last_seq - 1) % SEQ_SPAN
            if gap < 1000:
                self.lost += gap
        self.last_seq = line.seq
        self.heard = now
        k, f = line.kind, line.fields
        if k == "G":
            if self.result is not None or (
                self.start is not None and self.start[:5] != f[:5] and self.start[0] >= 0
            ):
                new = True
                self.__init__()
                self.last_seq, self.heard = line.seq, now
            self.start = f
        elif k == "M":
            ply, side, move_no, used, left, other, ot = f
            if ply < self.plies or self.result is not None and ply <= 1:
                new = self._new_game(line, now)
            self.moves[ply] = [side, move_no, used, left, ot]
            if ply >= self.plies:
                self.plies = ply
                self.times[side] = left
                if other >= 0:
                    self.times[1 - side] = other
                self.running = 1 - side
                self.delay = 0
                self.at = now
                if self.state in (READY, PAUSED):
                    self.state = RUNNING
        elif k == "T":
            state, running, r0, r1, delay, p0, p1, o0, o1, flags, first, _m0, _m1, plies = f
            if plies < self.plies or (self.result is not None and state != FINISHED):
                new = self._new_game(line, now)
            self.state, self.running = state, running
            self.times = [r0, r1]
            self.delay = delay
            self.period, self.ot_left = [p0, p1], [o0, o1]
            self.flags, self.first_flag, self.plies = flags, first, plies
            self.at = now
        elif k == "A":
            action, side, value, _at, ply, before, after = f
            entry = [ply, action, side, value, before, after]
            if action == ACT_LOST:
                self.arbiter_lost = max(self.arbiter_lost, value)
            elif action > 2 and entry not in self.arbiter:  # sent again after a power-up
                self.arbiter.append(entry)
            what = ACTIONS.get(action, "action %d" % action)
            if action in (3, 4):
                what += " %s %s" % (("left", "right")[side], clock_hms(value))
            self.events.append((now, what))
        elif k == "P":
            side, period, ot, left = f
            self.period[side], self.ot_left[side] = period, ot
            self.events.append((now, "%s: period %d" % (("left", "right")[side], period + 1)))
        elif k == "F":
            side, first, _at, _moves = f
            self.flags |= 1 << side
            self.first_flag = first
            self.events.append((now, "%s: flag" % ("left", "right")[side]))
        elif k == "E":
            self.result = f
            self.state = FINISHED
        return new

    def _new_game(self, line, now):
        self.__init__()
        self.last_seq, self.heard = line.seq, now
        return True

    # ------------------------------------------------------------ views
    def white(self):
        """The side that has White (0 left, 1 right), -1 unknown."""
        if self.result is not None:
            return self.result[2]
        return self.start[0] if self.start is not None else -1

    def result_text(self):
        if self.result is None:
            return "*"
        res, _reason, white = self.result
        if res == RESULT_DRAW:
            return "1/2-1/2"
        if res != RESULT_LEFT and res != RESULT_RIGHT:
            return "*"  # given up unfinished
        winner = 0 if res == RESULT_LEFT else 1
        return "1-0" if winner == white else "0-1"

    def reason_text(self):
        if self.result is None:
            return ""
        reason = self.result[1]
        if reason & BY_DRAW_ODDS:
            return "draw odds"
        return REASONS.get(reason, "arbiter")

    def times_at(self, now):
        """Both sides' ms at host instant `now`: the running side's falls (rises in upcount,
        the other's rises in hourglass) from the last line's value, the delay first."""
        t = list(self.times)
        if self.at is None or self.state != RUNNING or self.running < 0:
            return t
        el = int((now - self.at) * 1000)
        mode = self.mode()
        s = self.running
        if mode == 2:
            t[s] += el
            return t
        el_main = max(0, el - self.delay)
        used = min(el_main, t[s])
        t[s] -= used
        if mode == 1:
            t[1 - s] += used
        return t

    def mode(self):
        return self.start[2] if self.start is not None else 0

    def controls(self):
        """{"white": C, "black": C} in the settings' form, or None before a G line."""
        if self.start is None:
            return None
        white, _odds, mode, c0, c1, _ident = self.start
        sides = [dict(parse_control(c), mode=mode) for c in (c0, c1)]
        w = white if white >= 0 else 0
        return {"white": sides[w], "black": sides[1 - w]}

    def record(self):
        """The game in the clock record's form (firmware/shell/gamelog.py), moves so far; plies
        the feed did not carry (a host that connected mid-game) are left out."""
        white = self.white()
        game = {
            "version": 1,
            "id": self.start[5] if self.start else 0,
            "control": "custom",
            "white": white if white >= 0 else 0,
            "result": self.result_text(),
            "reason": self.reason_text(),
            "moves": [self.moves[p] for p in sorted(self.moves)],
        }
        if self.arbiter:
            game["plies"] = self.plies
            game["arbiter"] = sorted(self.arbiter, key=lambda e: e[0])
        if self.arbiter_lost:
            game["arbiter_lost"] = self.arbiter_lost
        controls = self.controls()
        if controls is not None:
            game["controls"] = controls
            odds = self.start[1]
            if odds:
                game["draw_odds"] = ("white", "black")[odds - 1]
        if self.mode() not in (3, 4):
            game["moves"] = [m[:4] for m in game["moves"]]
        return game

    def view(self, now):
        """What the page shows: JSON-ready."""
        white = self.white()
        return {
            "state": STATES[self.state] if self.at is not None or self.start else "none",
            "mode": self.mode(),
            "white": white,
            "running": self.running,
            "times": self.times_at(now),
            "delay": self.delay if self.state == RUNNING else 0,
            "period": self.period,
            "ot_left": self.ot_left,
            "flags": self.flags,
            "first_flag": self.first_flag,
            "plies": self.plies,
            "result": self.result_text() if self.result is not None else "",
            "reason": self.reason_text(),
            "lost": self.lost,
            "last": self.events[-1][1] if self.events else "",
        }


def display_text(t, up=True):
    """The clock's 4 characters for `t` ms (firmware/core/timefmt.py's layouts and rounding:
    `up` the countdown's, else the stopwatch's), as the page shows them."""
    t = max(t, 0)

    def r(x, unit):
        return -(-x // unit) if up else x // unit

    s = r(t, 1000)
    if s >= 3600:
        m = r(t, 60_000)
        if m >= 600:
            tens = min(r(t, 600_000), 599)
            h = tens // 6
            return "%d%dh%d" % (h // 10, h % 10, tens % 6)
        return "%dh%d%d" % (m // 60, m % 60 // 10, m % 10)
    if s <= 10:
        tenths = r(t, 100)
        if tenths < 100:
            return " %d%d " % (tenths // 10, tenths % 10)
    m, s = divmod(s, 60)
    return "%s%d%02d" % (str(m // 10) if m >= 10 else " ", m % 10, s)
