"""The arbiter menu: corrections of times, move counters, periods and overtime counters, and
the arbiter's actions (+2 min, Appendix G.4, dead position, the result of the game).

Pure module. Opened from the paused or flagged game screen (SET long), the clocks stopped.
Every correction goes through the engine (validated there, and logged). The values edited
(times, moves, periods, overtime counters) are held by the menu and applied together by
PLAY, on any item; SET long leaves without applying them (cancel). An action (`AddL`,
`Addr`, `G4`) applies the values edited so far, then acts at once: a cancel after it
undoes neither. Leaving, the game screen shows both times (not an info page).

    items   `Lt n` `Lt S` / `rt n` `rt S`  left / right time (minutes / seconds steps; the
                                           value in the width's layouts: at width 6 h:mm:ss
                                           below 10 h, `1h29.59`)
            `L  n` / `r  n`                moves completed
            `L  P` / `r  P`                period
            `LbY ` / `rbY `                byo-yomi periods left (Canadian: `L c `/`r c `,
                                           moves still to make); overtime games only
            `AddL` / `Addr`                PLAY: +2 min for that side (FIDE 7.5, G.6)
            `G4  `                         PLUS: `Inc `/`dLY `; PLAY: Appendix G.4
            `dEAd`                         PLAY: dead position, the game is drawn
            `rSLt`                         PLUS/MINUS: ` -- ` (none), `1-0 `, `0-1 `, `1-2 `;
                                           PLAY: the game ends so (decided on the board:
                                           mate, resignation, agreed draw); ` -- `: leave
            `AbAn`                         PLUS/MINUS: `  no` / ` YES`; PLAY on ` YES`: the
                                           game is abandoned (a wrong control, a game
                                           started by mistake): recorded in games/ as
                                           unfinished (`*`), the result screen shows ` -- `;
                                           `  no`: leave
Under draw odds every draw (dEAd, a `1-2 ` result) is recorded as the win of the colour that
has them (engine.finish). Each side's time, period and overtime counter is bounded by its
own control (time odds).

    PLAY        apply the values edited, then the item's action (if any), and leave (an
                action that shows `donE` stays in the menu)
    SET short   next item                 SET long   cancel: leave, nothing edited applied
    MINUS/PLUS  change the value (held: a few single steps, then big steps to round
                values, ui_base.stepped)
"""

import engine as E
from micropython import const
from timecontrol import BONUS_DELAY, BONUS_FISCHER, MODE_CANADIAN
from ui_base import Screen, copy, number, stepped

# ui.py's and engine.py's codes, copied: const() inlines them here (test_ui_codes
# checks they match)
_LONG = const(2)
_MINUS = const(2)
_PLAY = const(0)
_PLUS = const(3)
_REASON_DEAD = const(2)
_REASON_RESULT = const(3)
_REASON_ABANDONED = const(4)
_REQ_BEEP = const(32)
_REQ_CLEAR_GAME = const(4)
_REQ_LOG_GAME = const(8)
_REQ_SAVE_GAME = const(2)
_S_ARBITER = const(4)
_S_GAME = const(0)
_SET = const(1)
_SHORT = const(1)

# Items
_A_LEFT_MIN = const(0)
_A_LEFT_SEC = const(1)
_A_RIGHT_MIN = const(2)
_A_RIGHT_SEC = const(3)
_A_LEFT_MOVES = const(4)
_A_RIGHT_MOVES = const(5)
_A_LEFT_PERIOD = const(6)
_A_RIGHT_PERIOD = const(7)
_A_LEFT_OT = const(8)  # byo-yomi periods left / Canadian moves to make (overtime modes only)
_A_RIGHT_OT = const(9)
_A_ADD_LEFT = const(10)
_A_ADD_RIGHT = const(11)
_A_G4 = const(12)
A_DEAD = const(13)  # public: the tests walk the menu to it
A_RESULT = const(14)  # public: the result of a game decided on the board
A_ABANDON = const(15)  # public: the game given up unfinished
_N_ITEMS = const(16)
# The label of each item, packed (ui_base.copy); then the Canadian overtime items' labels
_LABELS = (
    b"Lt n"
    b"Lt S"
    b"rt n"
    b"rt S"
    b"L  n"
    b"r  n"
    b"L  P"
    b"r  P"
    b"LbY "  # Canadian: "L c " (_CANADIAN)
    b"rbY "
    b"AddL"  # +2 min for the left ("+" has no seven-segment glyph)
    b"Addr"
    b"G4  "
    b"dEAd"
    b"rSLt"  # the result
    b"AbAn"  # abandon the game
    b"L c "  # Canadian: moves still to make in the block
    b"r c "
)
_CANADIAN = const(8)  # items LbY / rbY in a Canadian game: labels 16 and 17
# Right display texts, packed
_VALUES = (
    b"P   "  # 0: a period (its number after it)
    b"Inc "  # 4: G.4 gives an increment
    b"dLY "  # 8: G.4 gives a delay
    b"PLAY"  # 12: an action: PLAY applies it
    b" -- "  # 16: the result item: none chosen
    b"1-0 "  # 20: White won
    b"0-1 "  # 24: Black won
    b"1-2 "  # 28: a draw
)
_RESULT_NONE = const(0)  # the result item's choice: 0 none, 1 White won, 2 Black, 3 draw


def _quantity(item):
    """What a value item edits: 0/1 a side's time (its minutes and seconds items alike),
    2/3 moves, 4/5 periods, 6/7 overtime counters; -1 for an action item."""
    if item <= _A_RIGHT_SEC:
        return item >> 1
    if item <= _A_RIGHT_OT:
        return item - 2
    return -1


class ArbiterMenu(Screen):
    cursor = _A_LEFT_MIN  # the item
    value = 0  # the item's value being edited (ms, moves, period index, count)
    g4_kind = BONUS_FISCHER  # what G.4 gives: kept between openings

    edits = None  # {quantity (_quantity): value} edited and not yet applied

    def open(self):
        self.edits = {}
        self.cursor = _A_LEFT_MIN
        self.value = self._value(_A_LEFT_MIN)
        self.ui.screen_of(_S_GAME).info.page = 0  # back on the game screen: the times

    def _value(self, item):
        """The item's value: as edited, else the engine's."""
        q = _quantity(item)
        if q in self.edits:
            return self.edits[q]
        g = self.ui.game
        if item <= _A_RIGHT_SEC:
            side = 0 if item <= _A_LEFT_SEC else 1
            return g.remaining(side, 0)  # the clock is stopped: `now` does not matter
        if item <= _A_RIGHT_MOVES:
            return g.moves[item - _A_LEFT_MOVES]
        if item <= _A_RIGHT_PERIOD:
            return g.period[item - _A_LEFT_PERIOD]
        if item <= _A_RIGHT_OT:
            return g.ot_left[item - _A_LEFT_OT]
        return 0

    def _next_item(self, item):
        """The item after `item`; the overtime counters only in byo-yomi / Canadian games."""
        item = (item + 1) % _N_ITEMS
        if item == _A_LEFT_OT and not self.ui.game.ot_mode:
            item = _A_ADD_LEFT
        return item

    def _keep(self):
        """The current item's value into the edits (a value item)."""
        q = _quantity(self.cursor)
        if q >= 0:
            self.edits[q] = self.value

    def _commit(self, now):
        """Apply every edited value that differs from the engine's, in the menu's order
        (times, moves, periods, overtime counters: each independent of the others), to the
        engine (logged there)."""
        import game_state  # here, not at boot: its code takes RAM only once the arbiter acts

        self._keep()
        g = self.ui.game
        edits = self.edits
        self.edits = {}
        for q in sorted(edits):
            v = edits[q]
            if q < 2:
                if v != g.remaining(q, now):
                    game_state.set_time(g, q, v, now)
            elif q < 4:
                if v != g.moves[q - 2]:
                    game_state.set_moves(g, q - 2, v, now)
            elif q < 6:
                if v != g.period[q - 4]:
                    game_state.set_period(g, q - 4, v, now)
            elif v != g.ot_left[q - 6]:
                game_state.set_overtime(g, q - 6, v, now)

    def key(self, button, kind, now):
        ui = self.ui
        g = ui.game
        item = self.cursor
        if button == _SET and kind == _LONG:
            self.edits = {}  # cancel
            ui.go(_S_GAME)
            return 0
        if button == _SET and kind == _SHORT:
            self._keep()
            self.cursor = self._next_item(item)
            self.value = self._value(self.cursor)
            return 0
        if button == _PLAY and kind == _SHORT:
            # The edits first; then an action item does its action, or the menu is left.
            import game_state  # here, not at boot: its code takes RAM only once the arbiter acts

            self._commit(now)
            if item in (_A_ADD_LEFT, _A_ADD_RIGHT):
                if game_state.add_time(g, item - _A_ADD_LEFT, 120_000, now) != E.OK:
                    return _REQ_BEEP | _REQ_SAVE_GAME
                # "donE", not "OK": K has no seven-segment glyph (segments.py)
                ui.show_message(b"Add ", b"donE", now, _S_ARBITER)
                return _REQ_SAVE_GAME
            if item == _A_G4:
                if game_state.appendix_g4(g, g.running, self.g4_kind, now) != E.OK:
                    ui.show_message(b"G4  ", b" no ", now, _S_ARBITER)
                    return _REQ_BEEP | _REQ_SAVE_GAME
                ui.show_message(b"G4  ", b"donE", now, _S_ARBITER)
                return _REQ_SAVE_GAME
            if item == A_DEAD:
                game_state.finish(g, E.RESULT_DRAW, _REASON_DEAD, now)
                ui.go(_S_GAME)
                return _REQ_LOG_GAME | _REQ_CLEAR_GAME
            if item == A_RESULT and self.value != _RESULT_NONE:
                v = self.value
                colour = E.WHITE if v == 1 else E.BLACK
                result = E.RESULT_DRAW if v == 3 else game_state.win_of(g, colour)
                if game_state.finish(g, result, _REASON_RESULT, now) != E.OK:
                    return _REQ_BEEP | _REQ_SAVE_GAME  # refused: the edits stand
                ui.go(_S_GAME)
                return _REQ_LOG_GAME | _REQ_CLEAR_GAME
            if item == A_ABANDON and self.value:
                if game_state.finish(g, E.RESULT_NONE, _REASON_ABANDONED, now) != E.OK:
                    return _REQ_BEEP | _REQ_SAVE_GAME
                ui.go(_S_GAME)
                return _REQ_LOG_GAME | _REQ_CLEAR_GAME
            ui.go(_S_GAME)
            return _REQ_SAVE_GAME
        if button not in (_PLUS, _MINUS) or kind == _LONG:
            return 0
        step = 1 if button == _PLUS else -1
        held = ui.repeats
        if item <= _A_RIGHT_SEC:
            if item in (_A_LEFT_MIN, _A_RIGHT_MIN):
                self.value = stepped(self.value, step, 60_000, 600_000, held, 0, E.MAX_SET_MS)
            else:
                self.value = stepped(self.value, step, 1_000, 10_000, held, 0, E.MAX_SET_MS)
        elif item <= _A_RIGHT_MOVES:
            self.value = stepped(self.value, step, 1, 10, held, 0, E.MAX_SET_MOVES)
        elif item <= _A_RIGHT_PERIOD:
            high = g.controls[item - _A_LEFT_PERIOD].last()  # the side's own control
            self.value = max(0, min(high, self.value + step))
        elif item <= _A_RIGHT_OT:
            high = g.controls[item - _A_LEFT_OT].ot_count
            self.value = stepped(self.value, step, 1, 10, held, 1, high)
        elif item == _A_G4:
            self.g4_kind = BONUS_DELAY if self.g4_kind == BONUS_FISCHER else BONUS_FISCHER
        elif item == A_RESULT:
            self.value = (self.value + step) % 4
        elif item == A_ABANDON:
            self.value = 1 - self.value
        return 0

    def render(self, now):
        ui = self.ui
        item = self.cursor
        at = 4 * item
        if _A_LEFT_OT <= item <= _A_RIGHT_OT and ui.game.mode == MODE_CANADIAN:
            at += 4 * _CANADIAN
        copy(ui.text[0], _LABELS, at)
        right = ui.text[1]
        points = ui.points
        points[0] = points[1] = 0
        if item <= _A_RIGHT_SEC:
            points[1] = ui.time_into(right, self.value, True, 0)
        elif item <= _A_RIGHT_MOVES:
            number(right, self.value)
        elif item <= _A_RIGHT_PERIOD:
            number(right, self.value + 1, _VALUES, 0)
        elif item <= _A_RIGHT_OT:
            number(right, self.value)
        elif item == _A_G4:
            copy(right, _VALUES, 4 if self.g4_kind == BONUS_FISCHER else 8)
        elif item == A_RESULT:
            copy(right, _VALUES, 16 + 4 * self.value)
        elif item == A_ABANDON:
            self.put_yes_no(_LABELS, self.value, at)
        else:
            copy(right, _VALUES, 12)
