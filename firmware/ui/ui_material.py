"""The material entry after a flag: what the opponent of the flagged player has, at most one
yes/no question about the flagged player, then the result to confirm (FIDE 6.9, US Chess 14E;
the ruling is material.py's).

Pure module. Opened from the flagged game screen (SET short).

    `OPP ` + choice     the opponent's army (material.OPP_*): `PrQ `, `  h `, `  n `, `  b `,
                        ` nn `, ` nb `, `b-b `, `bb= `, `nnn `, `dEAd`
    `Pnbr`/`Pnb `/`P   ` + ` YES`/`  no`   the question (material.ASK_*)
    `  1 `/`  0 `, `1-2 `                  the result: PLAY or SET records it (a draw
                                           under draw odds shows, and records, the win of
                                           the colour that has them: engine.finish)

    PLAY / SET short   confirm           SET long   back to the game (nothing recorded)
    MINUS / PLUS       change the answer (on the result: back to the entry)
"""

import engine as E
import material
from micropython import const
from ui_base import Screen, copy

# ui.py's and engine.py's codes, copied: const() inlines them here (test_ui_codes
# checks they match)
_LONG = const(2)
_MINUS = const(2)
_PLAY = const(0)
_PLUS = const(3)
_REASON_DEAD = const(2)
_REASON_FLAG = const(1)
_REPEAT = const(3)
_REQ_CLEAR_GAME = const(4)
_REQ_LOG_GAME = const(8)
_S_GAME = const(0)
_SET = const(1)
_SHORT = const(1)

# The label of each material.OPP_* choice (the opponent's army), packed (ui_base.copy)
_CHOICE_LABELS = (
    b"PrQ "  # pawn, rook or queen
    b"  h "  # lone king
    b"  n "
    b"  b "
    b" nn "
    b" nb "
    b"b-b "  # bishops on both colours
    b"bb= "  # bishops all on one colour
    b"nnn "
    b"dEAd"
)
# What the yes/no question asks about the flagged player (material.ASK_*): -, any pawn,
# knight, bishop or rook / a pawn, knight or other-colour bishop / a pawn
_ASK_LABELS = (
    b"    "  # ASK_NONE
    b"Pnbr"  # any pawn, knight, bishop or rook?
    b"Pnb "  # a pawn, a knight or a bishop on the other colour?
    b"P   "  # a pawn?
)


class MaterialEntry(Screen):
    choice = 0  # material.OPP_*
    asking = False  # the yes/no question shows
    answer = False
    flag_result = 0  # material.LOSS / DRAW once entered, 0 while entering

    def open(self):
        self.choice = 0
        self.asking = False
        self.answer = False
        self.flag_result = 0

    def key(self, button, kind, now):
        rules = self.ui.settings["rules"]
        if button == _SET and kind == _LONG:
            self.ui.go(_S_GAME)
            return 0
        if self.flag_result:
            if button in (_PLAY, _SET) and kind == _SHORT:
                return self._confirm(now)
            if button in (_PLUS, _MINUS) and kind == _SHORT:
                self.flag_result = 0  # back to the entry
                self.asking = False
            return 0
        if button in (_PLUS, _MINUS) and kind in (_SHORT, _REPEAT):
            if self.asking:
                self.answer = button == _PLUS
            else:
                step = 1 if button == _PLUS else -1
                self.choice = (self.choice + step) % material.N_CHOICES
            return 0
        if button in (_PLAY, _SET) and kind == _SHORT:
            if not self.asking and material.question(self.choice, rules) != material.ASK_NONE:
                self.asking = True
                self.answer = False
                return 0
            self.flag_result = material.entry_result(self.choice, self.answer, rules)
        return 0

    def _confirm(self, now):
        import game_state  # here, not at boot: its code takes RAM only once the arbiter acts

        g = self.ui.game
        flagged = g.first_flag
        if self.flag_result == material.DRAW:
            result = E.RESULT_DRAW
        else:
            result = E.RESULT_RIGHT_WINS if flagged == 0 else E.RESULT_LEFT_WINS
        game_state.finish(
            g, result, _REASON_FLAG if self.choice != material.OPP_DEAD else _REASON_DEAD, now
        )
        self.ui.go(_S_GAME)
        return _REQ_LOG_GAME | _REQ_CLEAR_GAME

    def render(self, now):
        if self.flag_result:
            g = self.ui.game
            if self.flag_result == material.LOSS:
                self.put_result(1 if g.first_flag == 0 else 0)
            else:  # a draw, or with draw odds the win of their colour (game_state.draw_result)
                import game_state  # here, not at boot (see _confirm)

                r = game_state.draw_result(g)
                self.put_result(2 if r == E.RESULT_DRAW else (0 if r == E.RESULT_LEFT_WINS else 1))
            return
        if self.asking:
            q = material.question(self.choice, self.ui.settings["rules"])
            self.put_yes_no(_ASK_LABELS, self.answer, 4 * q)
            return
        ui = self.ui
        copy(ui.text[0], b"OPP ")
        copy(ui.text[1], _CHOICE_LABELS, 4 * self.choice)
        ui.points[0] = ui.points[1] = 0
