"""What the players and the arbiter see and do: the button/menu state machine and rendering.

Pure module: it owns the screens (game, preset choice, custom control editor, settings,
arbiter menu, material entry, resume offer, messages) and turns button events into engine
calls; it renders two 4-character texts, their colons and the side LEDs for a given `now`
(ms). It asks the shell for I/O by returning request bits (REQ_*) from `key()`; the shell
saves files, beeps and so on. Nothing here touches pins, files or clocks.

Buttons (kind SHORT on release, LONG after ~2 s held, REPEAT while PLUS/MINUS are held):

    screen      PLAY            SET short        SET long        MINUS / PLUS
    ready       -               choose preset    settings        show battery / info
    running     pause           -                -               -
    paused      resume          -                arbiter menu    info pages (moves, period)
    flagged     -               material entry   arbiter menu    info pages
    finished    -               new game         settings        -
    choose      select          select           custom editor   previous / next preset
    custom      start game      next field       cancel          change value
    settings    save and leave  next item        save and leave  change value
    arbiter     apply / leave   next item        leave           change value
    material    confirm         confirm          -               change answer
    resume      confirm         confirm          -               yes / no

Levers only act on the game screen (the engine ignores them unless running or ready).

Byo-yomi and Canadian games: the game screen alternates a side's time with its overtime
counter (`bY n` periods left / `c nn` moves still to make in the block) while a clock runs,
see _render_game; the second info page shows both counters; the arbiter menu has the
counters (`LbY `/`rbY `, Canadian `L c `/`r c `) after the periods; the custom editor's
overtime fields (`ot  ` kind, `o n ` count, `to n`/`to S` time) follow a single main period.
"""

import engine as E
import material
import presets
import timefmt
from micropython import const
from timecontrol import (
    BONUS_DELAY,
    BONUS_FISCHER,
    MAX_BYO_MS,
    MAX_BYO_PERIODS,
    MAX_MOVES,
    MAX_TIME_MS,
    MODE_BYOYOMI,
    MODE_CANADIAN,
    MODE_COUNTDOWN,
    MODE_UPCOUNT,
    TimeControlError,
    from_seconds,
)

# Buttons and kinds: the same codes as buttons.py
PLAY = const(0)
SET = const(1)
MINUS = const(2)
PLUS = const(3)
SHORT = const(1)
LONG = const(2)
REPEAT = const(3)

# Screens
S_GAME = const(0)
S_CHOOSE = const(1)
S_CUSTOM = const(2)
S_SETTINGS = const(3)
S_ARBITER = const(4)
S_MATERIAL = const(5)
S_RESUME = const(6)
S_MESSAGE = const(7)

# Requests to the shell (bits returned by key())
REQ_SAVE_SETTINGS = const(1)  # write ui.settings to flash
REQ_SAVE_GAME = const(2)  # write the paused game (engine snapshot) to flash
REQ_CLEAR_GAME = const(4)  # the game is over or replaced: forget the saved state
REQ_LOG_GAME = const(8)  # the result is confirmed: archive the move log
REQ_APPLY_SETTINGS = const(16)  # brightness / sound changed
REQ_BEEP = const(32)  # acknowledge beep (a refused action)
REQ_RESUMED = const(64)  # the offered game was restored: the shell restores its move log

MESSAGE_MS = const(2_000)
_BLINK_MS = const(500)
_RESULT_MS = const(2_000)  # the result screen alternates with the final times

# Settings menu: (label, key, values, value labels or None for numbers)
_SETTINGS = (
    (b"Snd ", "sound", (True, False), (b" on ", b" oFF")),
    (b"FrEE", "freeze", (True, False), (b" on ", b" oFF")),
    (b"Inc ", "inc_before", (False, True), (b"AFtr", b"bEFr")),
    (b"PEr ", "transition", (0, 1), (b"Cnt ", b"FLAG")),
    (b"rULE", "rules", (0, 1), (b"FIdE", b"USCF")),
    (b"brIt", "brightness", (0, 1, 2, 3, 4, 5, 6, 7), None),
    (b"Lo t", "low_time_s", (0, 5, 10, 15, 20, 30, 60, 120, 300, 600), None),
)

# Arbiter menu items
A_LEFT_MIN = const(0)
A_LEFT_SEC = const(1)
A_RIGHT_MIN = const(2)
A_RIGHT_SEC = const(3)
A_LEFT_MOVES = const(4)
A_RIGHT_MOVES = const(5)
A_LEFT_PERIOD = const(6)
A_RIGHT_PERIOD = const(7)
A_LEFT_OT = const(8)  # byo-yomi periods left / Canadian moves to make (overtime modes only)
A_RIGHT_OT = const(9)
A_ADD_LEFT = const(10)
A_ADD_RIGHT = const(11)
A_G4 = const(12)
A_DEAD = const(13)
_ARBITER_LABELS = (
    b"Lt n",
    b"Lt S",
    b"rt n",
    b"rt S",
    b"L  n",
    b"r  n",
    b"L  P",
    b"r  P",
    b"LbY ",  # Canadian: "L c " (_OT_ARBITER_LABELS)
    b"rbY ",
    b"AddL",  # +2 min for the left ("+" has no seven-segment glyph)
    b"Addr",
    b"G4  ",
    b"dEAd",
)
_OT_ARBITER_LABELS = (b"L c ", b"r c ")  # Canadian: moves still to make in the block

# Material entry: label shown for each material.OPP_* choice (the opponent's army)
_CHOICE_LABELS = (
    b"PrQ ",  # pawn, rook or queen
    b"  h ",  # lone king
    b"  n ",
    b"  b ",
    b" nn ",
    b" nb ",
    b"b-b ",  # bishops on both colours
    b"bb= ",  # bishops all on one colour
    b"nnn ",
    b"dEAd",
)

# Custom editor fields per period
_F_TIME_MIN = const(0)
_F_TIME_SEC = const(1)
_F_MOVES = const(2)
_F_BONUS = const(3)
_F_BONUS_S = const(4)
_FIELD_LABELS = (b"t  n", b"t  S", b"  n ", b"  b ", b"b  S")
_FIELD_DIGIT = (1, 1, 0, 0, 1)  # where each label shows the period number
_BONUS_LABELS = (b"nonE", b"Inc ", b"br  ", b"dLY ")
# Custom editor overtime fields, after the fields of a single main period
_OT_KIND = const(0)
_OT_COUNT = const(1)
_OT_MIN = const(2)
_OT_SEC = const(3)
# kind, count (periods / moves per block), time of a period / block in minutes, seconds
_OT_FIELD_LABELS = (b"ot  ", b"o n ", b"to n", b"to S")
_OT_KIND_LABELS = (b"nonE", b"bYo ", b"CAnA")  # none, byo-yomi, Canadian
_OT_MODES = (MODE_COUNTDOWN, MODE_BYOYOMI, MODE_CANADIAN)
_OT_DEFAULTS = (None, [5, 30], [25, 600])  # a new byo-yomi: 5 x 30 s; Canadian: 25 / 10 min
_OT_LIMITS = (None, (MAX_BYO_PERIODS, MAX_BYO_MS // 1000), (MAX_MOVES, MAX_TIME_MS // 1000))

# Overtime counters on the game screen and the info page: byo-yomi periods left, Canadian
# moves still to make in the block
_OT_COUNT_LABELS = (b"bY  ", b"c   ")

RESULT_TEXT = (b"    ", b"  1 ", b"  0 ", b"1-2 ")  # win, loss, draw (1-2 reads "half each")

# Reasons passed to Game.finish(), read back by the shell's game log (app.log_game)
REASON_FLAG = const(1)  # the result follows a flag (material entry)
REASON_DEAD = const(2)  # dead position (arbiter menu, or the "dEAd" material entry)


def control_of(c):
    """The TimeControl of a settings control dict ({"preset": i} or {"custom": ...}); preset
    0 when a custom one does not build."""
    if "custom" in c:
        custom = c["custom"]
        try:
            return from_seconds(
                custom["mode"], custom["periods"], "custom", custom.get("overtime")
            )
        except (TimeControlError, KeyError, TypeError, AttributeError):
            return presets.control(0)
    return presets.control(c["preset"])


def _copy(buf, text):
    for i in range(4):
        buf[i] = text[i]


def _number(buf, n, label=b"    "):
    """Right-aligned number (0..9999) after a label prefix kept where digits are not needed."""
    _copy(buf, label)
    i = 3
    while True:
        buf[i] = 48 + n % 10
        n //= 10
        i -= 1
        if n == 0 or i < 0:
            break


class Ui:
    def __init__(self, settings, game=None):
        self.settings = settings
        self.game = game if game is not None else E.Game(self.control_from_settings())
        self.apply_options()
        self.screen = S_GAME
        self.text = (bytearray(b"    "), bytearray(b"    "))  # what each display shows
        self.colon = bytearray(2)
        self.leds = 0  # bit 0 left, bit 1 right
        self.battery_pct = 100
        self.battery_low_pct = 15
        self.info = 0  # info page on the game screen (0 = times)
        self.cursor = 0
        self.value = 0
        self.message = (b"    ", b"    ")
        self.message_until = 0
        self.after_message = S_GAME
        self.queued_message = None  # a second message after this one (show_message)
        self.custom = None
        self.custom_ot = [0, 0, 0]  # custom editor: overtime kind (0 none), count, time_s
        self.choice = 0
        self.answer = False
        self.asking = False
        self.flag_result = 0
        self.g4_kind = BONUS_FISCHER
        self.resume_yes = True
        self.pending_snapshot = None
        self._alert_second = -1
        self._alert_low = False
        self._beating = False  # the running side shows MM:SS, so its colon beats

    # ------------------------------------------------------------ setup
    def control_from_settings(self):
        return control_of(self.settings["control"])

    def apply_options(self):
        s = self.settings
        g = self.game
        g.freeze = s["freeze"]
        g.inc_before = s["inc_before"]
        g.transition = s["transition"]

    def new_game(self, control=None):
        self.apply_options()
        self.game.reset(control if control is not None else self.control_from_settings())
        self.screen = S_GAME
        self.info = 0
        self._alert_second = -1
        self._alert_low = False

    def show_message(self, left, right, now, then=S_GAME, queued=None):
        """Show `left`/`right` for MESSAGE_MS (or until a key), then `queued` (a second
        (left, right) message, as long) if given, then the screen `then`."""
        self.message = (left, right)
        self.message_until = now + MESSAGE_MS
        self.after_message = then
        self.queued_message = queued
        self.screen = S_MESSAGE

    def _end_message(self, now):
        q = self.queued_message
        if q is None:
            self.screen = self.after_message
        else:
            self.show_message(q[0], q[1], now, self.after_message)

    def offer_resume(self, snapshot):
        """At power-up, a saved game exists: ask whether to resume it."""
        self.pending_snapshot = snapshot
        self.resume_yes = True
        self.screen = S_RESUME

    # -------------------------------------------------------------- keys
    def key(self, button, kind, now):
        """One button event. Returns REQ_* bits for the shell."""
        screen = self.screen
        if screen == S_MESSAGE:
            self._end_message(now)
            return 0
        if screen == S_GAME:
            return self._key_game(button, kind, now)
        if screen == S_CHOOSE:
            return self._key_choose(button, kind, now)
        if screen == S_CUSTOM:
            return self._key_custom(button, kind, now)
        if screen == S_SETTINGS:
            return self._key_settings(button, kind, now)
        if screen == S_ARBITER:
            return self._key_arbiter(button, kind, now)
        if screen == S_MATERIAL:
            return self._key_material(button, kind, now)
        if screen == S_RESUME:
            return self._key_resume(button, kind, now)
        return 0

    def _key_game(self, button, kind, now):
        g = self.game
        state = g.state
        if state == E.RUNNING:
            if button == PLAY and kind == SHORT:
                g.pause(now)
                self.info = 0
                return REQ_SAVE_GAME
            return 0  # buttons mashed during a game do nothing
        if state == E.READY:
            if button == SET and kind == SHORT:
                self.screen = S_CHOOSE
                c = self.settings["control"]
                self.cursor = c["preset"] if "preset" in c else presets.COUNT
            elif button == SET and kind == LONG:
                self._open_settings()
            elif button in (MINUS, PLUS) and kind == SHORT:
                self.info = (self.info + 1) % 2
            return 0
        if state == E.PAUSED:
            if button == PLAY and kind == SHORT:
                g.resume(now)
                self.info = 0
                return 0
            if button == SET and kind == LONG:
                self._open_arbiter()
                return 0
            if button in (MINUS, PLUS) and kind == SHORT:
                self._step_info(button)
            return 0
        if state == E.FLAGGED:
            if button == SET and kind == SHORT:
                self._open_material()
            elif button == SET and kind == LONG:
                self._open_arbiter()
            elif button in (MINUS, PLUS) and kind == SHORT:
                self._step_info(button)
            return 0
        if state == E.FINISHED:
            if button == SET and kind == SHORT:
                self.new_game()
                return REQ_CLEAR_GAME
            if button == SET and kind == LONG:
                self.new_game()
                self._open_settings()
                return REQ_CLEAR_GAME
        return 0

    def _step_info(self, button):
        """Paused or flagged: PLUS/MINUS cycle the pages times -> moves -> periods."""
        self.info = (self.info + (1 if button == PLUS else 2)) % 3

    # preset choice
    def _key_choose(self, button, kind, now):
        n = presets.COUNT + 1  # the last entry is "custom"
        if button == PLUS and kind in (SHORT, REPEAT):
            self.cursor = (self.cursor + 1) % n
        elif button == MINUS and kind in (SHORT, REPEAT):
            self.cursor = (self.cursor - 1) % n
        elif (
            button == SET
            and kind == LONG
            or (self.cursor == presets.COUNT and kind == SHORT and button in (PLAY, SET))
        ):
            self._open_custom()
        elif kind == SHORT and button in (PLAY, SET):
            self.settings["control"] = {"preset": self.cursor}
            self.new_game()
            return REQ_SAVE_SETTINGS | REQ_CLEAR_GAME
        return 0

    # custom control editor
    def _open_custom(self):
        c = self.settings["control"]
        if "custom" in c:
            mode = c["custom"]["mode"]
            periods = [list(p) for p in c["custom"]["periods"]]
            overtime = c["custom"].get("overtime")
        else:
            mode = presets.PRESETS[c["preset"]][2]
            periods = [list(p) for p in presets.PRESETS[c["preset"]][3]]
            overtime = presets.overtime(c["preset"])
        self.custom = periods
        kind = _OT_MODES.index(mode) if mode in _OT_MODES and overtime else 0
        self.custom_ot = [kind, overtime[0], overtime[1]] if kind else [0, 0, 0]
        self.cursor = 0  # period * 5 + field; then the overtime fields (_OT_*)
        self.screen = S_CUSTOM

    def _custom_fields(self):
        """Number of fields in the editor: 5 per period, then the overtime kind (only after
        a single main period) and, with an overtime, its count, minutes and seconds."""
        n = 5 * len(self.custom)
        if len(self.custom) == 1:
            n += 4 if self.custom_ot[0] else 1
        return n

    def _key_custom(self, button, kind, now):
        periods = self.custom
        if button == SET and kind == LONG:
            self.screen = S_GAME
            return 0
        if button == SET and kind == SHORT:
            self.cursor = (self.cursor + 1) % self._custom_fields()
            return 0
        if button == PLAY and kind == SHORT:
            return self._start_custom(now)
        if button not in (PLUS, MINUS) or kind == LONG:
            return 0
        step = 1 if button == PLUS else -1
        fast = kind == REPEAT
        p, field = divmod(self.cursor, 5)
        if p >= len(periods):
            self._key_custom_overtime(field, step, fast)
            return 0
        period = periods[p]
        if field == _F_TIME_MIN:
            period[0] = max(0, min(36000, period[0] + step * (600 if fast else 60)))
        elif field == _F_TIME_SEC:
            period[0] = max(0, min(36000, period[0] + step * (10 if fast else 1)))
        elif field == _F_MOVES:
            period[1] = max(0, min(200, period[1] + step * (10 if fast else 1)))
            if period[1] == 0:
                del periods[p + 1 :]
            elif p == len(periods) - 1 and len(periods) < 4:
                periods.append([1800, 0, period[2], period[3]])
                self.custom_ot[0] = 0  # overtime only follows a single main period
        elif field == _F_BONUS:
            period[2] = (period[2] + step) % 4
        elif field == _F_BONUS_S:
            period[3] = max(0, min(300, period[3] + step * (10 if fast else 1)))
        return 0

    def _key_custom_overtime(self, field, step, fast):
        ot = self.custom_ot
        if field == _OT_KIND:
            ot[0] = (ot[0] + step) % 3
            if ot[0]:
                ot[1], ot[2] = _OT_DEFAULTS[ot[0]]
            return
        high_count, high_s = _OT_LIMITS[ot[0]]
        if field == _OT_COUNT:
            ot[1] = max(1, min(high_count, ot[1] + step * (10 if fast else 1)))
        elif field == _OT_MIN:
            ot[2] = max(1, min(high_s, ot[2] + step * (600 if fast else 60)))
        else:
            ot[2] = max(1, min(high_s, ot[2] + step * (10 if fast else 1)))

    def _start_custom(self, now):
        periods = self.custom
        for p in periods[:-1]:
            if p[1] == 0:
                p[1] = 1
        periods[-1][1] = 0
        kind = self.custom_ot[0] if len(periods) == 1 else 0
        mode = _OT_MODES[kind]
        overtime = [self.custom_ot[1], self.custom_ot[2]] if kind else None
        try:
            control = from_seconds(mode, periods, "custom", overtime)
        except TimeControlError:
            self.show_message(b"Err ", b"CUSt", now, S_CUSTOM)
            return REQ_BEEP
        custom = {"mode": mode, "periods": [list(p) for p in periods]}
        if overtime:
            custom["overtime"] = overtime
        self.settings["control"] = {"custom": custom}
        self.new_game(control)
        return REQ_SAVE_SETTINGS | REQ_CLEAR_GAME

    # settings
    def _open_settings(self):
        self.cursor = 0
        self.screen = S_SETTINGS

    def _key_settings(self, button, kind, now):
        label, name, values, _labels = _SETTINGS[self.cursor]
        if button == PLAY and kind == SHORT or button == SET and kind == LONG:
            self.apply_options()
            self.screen = S_GAME
            return REQ_SAVE_SETTINGS | REQ_APPLY_SETTINGS
        if button == SET and kind == SHORT:
            self.cursor = (self.cursor + 1) % len(_SETTINGS)
            return 0
        if button in (PLUS, MINUS) and kind in (SHORT, REPEAT):
            current = self.settings[name]
            i = values.index(current) if current in values else 0
            i = (i + (1 if button == PLUS else -1)) % len(values)
            self.settings[name] = values[i]
            return REQ_APPLY_SETTINGS
        return 0

    # arbiter menu
    def _open_arbiter(self):
        self.cursor = A_LEFT_MIN
        self.value = self._arbiter_value(A_LEFT_MIN)
        self.screen = S_ARBITER

    def _arbiter_value(self, item):
        g = self.game
        if item <= A_RIGHT_SEC:
            side = 0 if item <= A_LEFT_SEC else 1
            return g.remaining(side, 0)  # the clock is stopped: `now` does not matter
        if item <= A_RIGHT_MOVES:
            return g.moves[item - A_LEFT_MOVES]
        if item <= A_RIGHT_PERIOD:
            return g.period[item - A_LEFT_PERIOD]
        if item <= A_RIGHT_OT:
            return g.ot_left[item - A_LEFT_OT]
        return 0

    def _next_arbiter_item(self, item):
        """The item after `item`; the overtime counters only in byo-yomi / Canadian games."""
        item = (item + 1) % len(_ARBITER_LABELS)
        if item == A_LEFT_OT and not self.game.control.ot_count:
            item = A_ADD_LEFT
        return item

    def _commit_arbiter(self, now):
        """Apply the edited value of the current item to the engine (logged there)."""
        g = self.game
        item = self.cursor
        if item <= A_RIGHT_SEC:
            side = 0 if item <= A_LEFT_SEC else 1
            if self.value != g.remaining(side, now):
                g.set_time(side, self.value, now)
        elif item <= A_RIGHT_MOVES:
            side = item - A_LEFT_MOVES
            if self.value != g.moves[side]:
                g.set_moves(side, self.value, now)
        elif item <= A_RIGHT_PERIOD:
            side = item - A_LEFT_PERIOD
            if self.value != g.period[side]:
                g.set_period(side, self.value, now)
        elif item <= A_RIGHT_OT:
            side = item - A_LEFT_OT
            if self.value != g.ot_left[side]:
                g.set_overtime(side, self.value, now)

    def _key_arbiter(self, button, kind, now):
        g = self.game
        item = self.cursor
        if button == SET and kind == LONG:
            self._commit_arbiter(now)
            self.screen = S_GAME
            return REQ_SAVE_GAME
        if button == SET and kind == SHORT:
            self._commit_arbiter(now)
            self.cursor = self._next_arbiter_item(item)
            self.value = self._arbiter_value(self.cursor)
            return 0
        if button == PLAY and kind == SHORT:
            if item in (A_ADD_LEFT, A_ADD_RIGHT):
                if g.add_time(item - A_ADD_LEFT, 120_000, now) != E.OK:
                    return REQ_BEEP
                # "donE", not "OK": K has no seven-segment glyph (segments.py)
                self.show_message(b"Add ", b"donE", now, S_ARBITER)
                return 0
            if item == A_G4:
                if g.appendix_g4(g.running, self.g4_kind, now) != E.OK:
                    self.show_message(b"G4  ", b" no ", now, S_ARBITER)
                    return REQ_BEEP
                self.show_message(b"G4  ", b"donE", now, S_ARBITER)
                return REQ_SAVE_GAME
            if item == A_DEAD:
                g.finish(E.RESULT_DRAW, REASON_DEAD, now)
                self.screen = S_GAME
                return REQ_LOG_GAME | REQ_CLEAR_GAME
            self._commit_arbiter(now)
            self.screen = S_GAME
            return REQ_SAVE_GAME
        if button not in (PLUS, MINUS) or kind == LONG:
            return 0
        step = 1 if button == PLUS else -1
        fast = kind == REPEAT
        if item <= A_RIGHT_SEC:
            unit = 60_000 if item in (A_LEFT_MIN, A_RIGHT_MIN) else 1_000
            if fast:
                unit *= 10
            self.value = max(0, min(E.MAX_SET_MS, self.value + step * unit))
        elif item <= A_RIGHT_MOVES:
            self.value = max(0, min(E.MAX_SET_MOVES, self.value + step * (10 if fast else 1)))
        elif item <= A_RIGHT_PERIOD:
            self.value = max(0, min(g.control.last(), self.value + step))
        elif item <= A_RIGHT_OT:
            self.value = max(1, min(g.control.ot_count, self.value + step * (10 if fast else 1)))
        elif item == A_G4:
            self.g4_kind = BONUS_DELAY if self.g4_kind == BONUS_FISCHER else BONUS_FISCHER
        return 0

    # material entry after a flag
    def _open_material(self):
        self.choice = 0
        self.asking = False
        self.answer = False
        self.flag_result = 0
        self.screen = S_MATERIAL

    def _key_material(self, button, kind, now):
        rules = self.settings["rules"]
        if button == SET and kind == LONG:
            self.screen = S_GAME
            return 0
        if self.flag_result:
            if button in (PLAY, SET) and kind == SHORT:
                return self._confirm_flag_result(now)
            if button in (PLUS, MINUS) and kind == SHORT:
                self.flag_result = 0  # back to the entry
                self.asking = False
            return 0
        if button in (PLUS, MINUS) and kind in (SHORT, REPEAT):
            if self.asking:
                self.answer = button == PLUS
            else:
                step = 1 if button == PLUS else -1
                self.choice = (self.choice + step) % material.N_CHOICES
            return 0
        if button in (PLAY, SET) and kind == SHORT:
            if not self.asking and material.question(self.choice, rules) != material.ASK_NONE:
                self.asking = True
                self.answer = False
                return 0
            self.flag_result = material.entry_result(self.choice, self.answer, rules)
        return 0

    def _confirm_flag_result(self, now):
        g = self.game
        flagged = g.first_flag
        if self.flag_result == material.DRAW:
            result = E.RESULT_DRAW
        else:
            result = E.RESULT_RIGHT_WINS if flagged == 0 else E.RESULT_LEFT_WINS
        g.finish(result, REASON_FLAG if self.choice != material.OPP_DEAD else REASON_DEAD, now)
        self.screen = S_GAME
        return REQ_LOG_GAME | REQ_CLEAR_GAME

    # resume after power loss
    def _key_resume(self, button, kind, now):
        if button in (PLUS, MINUS) and kind == SHORT:
            self.resume_yes = not self.resume_yes
            return 0
        if button in (PLAY, SET) and kind == SHORT:
            snap = self.pending_snapshot
            self.pending_snapshot = None
            self.screen = S_GAME
            if self.resume_yes and snap is not None and self.game.restore(snap) == E.OK:
                return REQ_RESUMED
            self.new_game()  # before the message: new_game() shows the game screen
            if self.resume_yes:
                self.show_message(b"rES ", b"Err ", now)
            return REQ_CLEAR_GAME
        return 0

    # ------------------------------------------------------------ alerts
    def alerts(self, now):
        """Low-time beeps for the shell, once per event: 1 = the running side crossed the
        low-time threshold (10 s by default), 2 = one of the last 5 s began. 0 otherwise."""
        g = self.game
        if g.state != E.RUNNING or g.control.mode == MODE_UPCOUNT or not self.settings["sound"]:
            return 0
        r = g.remaining(g.running, now)
        low = self.settings["low_time_s"] * 1000
        if low and r <= low and not self._alert_low:
            self._alert_low = True
            return 1
        if r > low:
            self._alert_low = False
        if 0 < r <= 5_000:
            second = (r + 999) // 1000
            if second != self._alert_second:
                self._alert_second = second
                return 2
        return 0

    # ------------------------------------------------------------ render
    def render(self, now):
        """Fill self.text / self.colon / self.leds for `now`. Allocation-free on the game
        screen while running (the steady state)."""
        screen = self.screen
        if screen == S_MESSAGE and now >= self.message_until:
            self._end_message(now)
            screen = self.screen
        if screen == S_GAME:
            self._render_game(now)
        elif screen == S_MESSAGE:
            self._put2(self.message[0], self.message[1])
        elif screen == S_CHOOSE:
            self._render_choose()
        elif screen == S_CUSTOM:
            self._render_custom()
        elif screen == S_SETTINGS:
            self._render_settings()
        elif screen == S_ARBITER:
            self._render_arbiter(now)
        elif screen == S_MATERIAL:
            self._render_material()
        elif screen == S_RESUME:
            self._put2(b"rES ", b" YES" if self.resume_yes else b"  no")

    def _put2(self, left, right, colon_left=0, colon_right=0):
        _copy(self.text[0], left)
        _copy(self.text[1], right)
        self.colon[0] = colon_left
        self.colon[1] = colon_right

    def _time(self, side, now):
        g = self.game
        buf = self.text[side]
        r = g.remaining(side, now)
        if g.control.mode == MODE_UPCOUNT:
            self.colon[side] = timefmt.countup_into(buf, r)
        else:
            self.colon[side] = timefmt.countdown_into(buf, r)

    def _overtime_count(self, side):
        """The side's overtime counter: `bY n` byo-yomi periods left (the current one
        included), `c nn` Canadian moves still to make in the block."""
        g = self.game
        label = _OT_COUNT_LABELS[0 if g.control.mode == MODE_BYOYOMI else 1]
        _number(self.text[side], g.ot_left[side], label)
        self.colon[side] = 0

    def _render_game(self, now):
        """The game screen: a pure function of the engine state, the UI state and `now`.

        While a clock runs, the texts change only when `Game.remaining()` of a side crosses
        a rounding step of timefmt (per side), plus these instants:
        - the running side's colon beats in the MM:SS layout: on for the first half of each
          second of the time that counts, off for the second half (see _beat);
        - a fallen flag blinks `FLAG` with its time, at the half-seconds of `now`;
        - overtime counters (byo-yomi / Canadian only): a side in overtime whose flag has
          not fallen shows its counter (`bY n` / `c nn`, see _overtime_count) instead of its
          time while `(ceil(r / 1000) >> 1) & 1` is 1, r = `remaining()` of the *running*
          side: 2 s of time, 2 s of counter, switching at the instants r falls to an odd
          multiple of 1000 ms (..., 5000, 3000, 1000; in the MM:SS layout exactly when the
          running side's seconds digit changes to an odd number). The running side
          shows its time without interruption while it shows under 10 s (ceil(r / 1000) <
          10, the tenths layout). The counter itself changes only at engine events (a
          period used up, a move, a new block). Paused, ready or flagged: no alternation
          (the counters are on the MINUS/PLUS info page)."""
        g = self.game
        state = g.state
        blink = (now // _BLINK_MS) & 1
        self.leds = 0
        if state == E.FINISHED:
            self._render_result(now)
            return
        if self.info and state in (E.PAUSED, E.FLAGGED, E.READY):
            self._render_info()
            return
        shown_s = -1  # the running side's shown seconds, when an overtime counter may show
        if state == E.RUNNING and g.control.ot_count:
            shown_s = (g.remaining(g.running, now) + 999) // 1000
        for side in (0, 1):
            self._time(side, now)
            if (
                shown_s >= 0
                and (shown_s >> 1) & 1
                and g.in_overtime(side)
                and not g.flagged[side]
                and (side != g.running or shown_s >= 10)
            ):
                self._overtime_count(side)
            if g.flagged[side] and blink:
                both = g.flagged[0] and g.flagged[1]
                if not both:
                    _copy(self.text[side], b"FLAG")
                else:
                    _copy(self.text[side], b"FL 1" if g.first_flag == side else b"FL 2")
                self.colon[side] = 0
        if state == E.RUNNING:
            self.leds = 1 << g.running
            # The running side's colon beats once a second in the MM:SS layout.
            s = g.running
            self._beating = self.text[s][3] != 32 and self.colon[s]  # the MM:SS layout
            if self._beating and not self._beat(s, now):
                self.colon[s] = 0
        elif state == E.PAUSED:
            self.leds = (1 << g.running) if blink else 0
        elif state == E.FLAGGED:
            self.leds = 1 << g.first_flag if g.first_flag >= 0 else 0
        elif state == E.READY and self.battery_pct < self.battery_low_pct and blink:
            self._put2(b"bAt ", b" Lo ")

    def _beat(self, s, now):
        """The running side's colon beat: on for the first half of each second of the time
        that counts (the delay while it lasts, else the main time; the stopwatch counts up),
        so it changes together with the digits, not on a phase of its own."""
        g = self.game
        if g.control.mode == MODE_UPCOUNT:
            return g.remaining(s, now) % 1000 < 500
        q = g.delay_left(s, now) or g.remaining(s, now)
        return (q - 1) % 1000 >= 500

    def next_change(self, now):
        """The first instant (ms) after `now` at which render() may show something else
        without a key or an engine event, or -1 when only those can change it. Called right
        after render(now). Never later than the real change (the loop sleeps until then);
        earlier only at a delay's end, where the beat changes its reference."""
        screen = self.screen
        if screen == S_MESSAGE:
            return self.message_until
        if screen != S_GAME:
            return -1  # menus change on keys only
        g = self.game
        state = g.state
        if state == E.FINISHED:
            return (now // _RESULT_MS + 1) * _RESULT_MS
        if self.info and state in (E.PAUSED, E.FLAGGED, E.READY):
            return -1
        nxt = -1
        if (
            state == E.PAUSED
            or g.flagged[0]
            or g.flagged[1]
            or (state == E.READY and self.battery_pct < self.battery_low_pct)
        ):
            nxt = (now // _BLINK_MS + 1) * _BLINK_MS
        if state != E.RUNNING:
            return nxt
        stopwatch = g.control.mode == MODE_UPCOUNT
        s = g.running
        rs = 0  # the running side's remaining time
        for side in (0, 1):
            r = g.remaining(side, now)
            if side == s:
                rs = r
            trend = g.remaining(side, now + 1) - r  # 1 ms later: -1 falls, 0 still, 1 rises
            if trend:
                n = timefmt.next_change(r, trend > 0, not stopwatch)
                if n > 0 and (nxt < 0 or now + n < nxt):
                    nxt = now + n
        d = g.delay_left(s, now)
        if d and (nxt < 0 or now + d < nxt):
            nxt = now + d  # the main time starts to fall; the beat changes reference
        if g.control.ot_count and (g.in_overtime(0) or g.in_overtime(1)) and not d:
            # Overtime counters alternate with the time when the running side's remaining
            # time falls to an odd multiple of 1000 ms (see _render_game).
            if rs > 1_000:
                b = (rs - 1) // 1_000  # the next whole second below rs
                if not b & 1:
                    b -= 1
                if nxt < 0 or now + rs - b * 1_000 < nxt:
                    nxt = now + rs - b * 1_000
        if self._beating:
            # The beat flips at the next half second of the counting time (see _beat).
            if stopwatch:
                n = 500 - rs % 500
            else:
                n = ((d or rs) - 1) % 500 + 1
            if nxt < 0 or now + n < nxt:
                nxt = now + n
        return nxt

    def _render_info(self):
        g = self.game
        if self.info == 1:
            if g.state == E.READY:
                _number(self.text[0], self.battery_pct, b"bA  ")
                if g.control.ot_count:
                    self._overtime_count(1)
                else:
                    _number(self.text[1], g.control.last() + 1, b"P   ")
            else:
                for side in (0, 1):
                    _number(self.text[side], g.moves[side], b"n   ")
        elif g.control.ot_count:
            for side in (0, 1):
                self._overtime_count(side)
        else:
            for side in (0, 1):
                _number(self.text[side], g.period[side] + 1, b"P   ")
                if g.markers[side]:
                    self.text[side][1] = 70  # "F": a period ended by a flag-fall transition
                if g.first_passed == side:
                    self.text[side][2] = 45  # "-": passed a time control first
        self.colon[0] = self.colon[1] = 0

    def _render_result(self, now):
        g = self.game
        if (now // _RESULT_MS) & 1:
            for side in (0, 1):
                self._time(side, now)
            return
        if g.result == E.RESULT_DRAW:
            self._put2(RESULT_TEXT[3], RESULT_TEXT[3])
        elif g.result == E.RESULT_LEFT_WINS:
            self._put2(RESULT_TEXT[1], RESULT_TEXT[2])
        else:
            self._put2(RESULT_TEXT[2], RESULT_TEXT[1])

    def _render_choose(self):
        if self.cursor == presets.COUNT:
            self._put2(b"CUSt", b"    ")
            return
        code = presets.code(self.cursor)
        left = self.text[0]
        for i in range(4):
            left[i] = ord(code[i]) if i < len(code) else 32
        self.colon[0] = 0
        first = presets.PRESETS[self.cursor][3][0]
        self.colon[1] = timefmt.countdown_into(self.text[1], first[0] * 1000)

    def _render_custom(self):
        p, field = divmod(self.cursor, 5)
        if p >= len(self.custom):
            self._render_custom_overtime(field)
            return
        period = self.custom[p]
        label = _FIELD_LABELS[field]
        _copy(self.text[0], label)
        self.text[0][_FIELD_DIGIT[field]] = 49 + p  # "1".."4"
        self.colon[0] = 0
        right = self.text[1]
        self.colon[1] = 0
        if field in (_F_TIME_MIN, _F_TIME_SEC):
            self.colon[1] = timefmt.countdown_into(right, period[0] * 1000, 0)
        elif field == _F_MOVES:
            if period[1] == 0:
                _copy(right, b"  Sd")
            else:
                _number(right, period[1])
        elif field == _F_BONUS:
            _copy(right, _BONUS_LABELS[period[2]])
        else:
            _number(right, period[3])

    def _render_custom_overtime(self, field):
        ot = self.custom_ot
        _copy(self.text[0], _OT_FIELD_LABELS[field])
        self.colon[0] = self.colon[1] = 0
        right = self.text[1]
        if field == _OT_KIND:
            _copy(right, _OT_KIND_LABELS[ot[0]])
        elif field == _OT_COUNT:
            _number(right, ot[1])
        else:
            self.colon[1] = timefmt.countdown_into(right, ot[2] * 1000, 0)

    def _render_settings(self):
        label, name, values, labels = _SETTINGS[self.cursor]
        _copy(self.text[0], label)
        current = self.settings[name]
        if labels is None:
            _number(self.text[1], current)
        else:
            i = values.index(current) if current in values else 0
            _copy(self.text[1], labels[i])
        self.colon[0] = self.colon[1] = 0

    def _render_arbiter(self, now):
        item = self.cursor
        label = _ARBITER_LABELS[item]
        if A_LEFT_OT <= item <= A_RIGHT_OT and self.game.control.mode == MODE_CANADIAN:
            label = _OT_ARBITER_LABELS[item - A_LEFT_OT]
        _copy(self.text[0], label)
        self.colon[0] = 0
        right = self.text[1]
        self.colon[1] = 0
        if item <= A_RIGHT_SEC:
            self.colon[1] = timefmt.countdown_into(right, self.value, 0)
        elif item <= A_RIGHT_MOVES:
            _number(right, self.value)
        elif item <= A_RIGHT_PERIOD:
            _number(right, self.value + 1, b"P   ")
        elif item <= A_RIGHT_OT:
            _number(right, self.value)
        elif item == A_G4:
            _copy(right, b"Inc " if self.g4_kind == BONUS_FISCHER else b"dLY ")
        else:
            _copy(right, b"PLAY")  # an action: PLAY applies it

    def _render_material(self):
        if self.flag_result:
            flagged = self.game.first_flag
            loss = self.flag_result == material.LOSS
            for side in (0, 1):
                if loss:
                    text = RESULT_TEXT[2] if side == flagged else RESULT_TEXT[1]
                else:
                    text = RESULT_TEXT[3]
                _copy(self.text[side], text)
            self.colon[0] = self.colon[1] = 0
            return
        if self.asking:
            q = material.question(self.choice, self.settings["rules"])
            # What the yes/no question asks about the flagged player (material.ASK_*):
            # any pawn, knight, bishop or rook / a pawn, knight or other-colour bishop / a pawn
            left = (b"    ", b"Pnbr", b"Pnb ", b"P   ")[q]
            self._put2(left, b" YES" if self.answer else b"  no")
            return
        self._put2(b"OPP ", _CHOICE_LABELS[self.choice])
