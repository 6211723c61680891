"""The preset chooser: pick the next game's time control from presets.py, or go on to the
custom editor.

Pure module. Opened from the ready game screen (SET). The left display shows the preset's
code (`FIdE`, ` 5 3`, ...), the right its first period's time; after the last preset comes
`CUSt` (the custom editor).

    PLAY / SET short   select: the new game is ready (CUSt: the custom editor)
    SET long           the custom editor, starting from the current control
    MINUS / PLUS       previous / next preset (held: repeats)
"""

import presets
import timefmt
from micropython import const
from ui_base import Screen

# ui.py's codes, copied: const() inlines them here (test_ui_codes checks they match)
_LONG = const(2)
_MINUS = const(2)
_PLAY = const(0)
_PLUS = const(3)
_REPEAT = const(3)
_REQ_CLEAR_GAME = const(4)
_REQ_SAVE_SETTINGS = const(1)
_S_CUSTOM = const(2)
_SET = const(1)
_SHORT = const(1)


class PresetChooser(Screen):
    cursor = 0  # preset index; presets.COUNT = "custom"

    def open(self):
        """On the control in use (a custom one: on `CUSt`)."""
        c = self.ui.settings["control"]
        self.cursor = c["preset"] if "preset" in c else presets.COUNT

    def key(self, button, kind, now):
        n = presets.COUNT + 1  # the last entry is "custom"
        if button == _PLUS and kind in (_SHORT, _REPEAT):
            self.cursor = (self.cursor + 1) % n
        elif button == _MINUS and kind in (_SHORT, _REPEAT):
            self.cursor = (self.cursor - 1) % n
        elif (
            button == _SET
            and kind == _LONG
            or (self.cursor == presets.COUNT and kind == _SHORT and button in (_PLAY, _SET))
        ):
            self.ui.open(_S_CUSTOM)
        elif kind == _SHORT and button in (_PLAY, _SET):
            self.ui.settings["control"] = {"preset": self.cursor}
            self.ui.new_game()
            return _REQ_SAVE_SETTINGS | _REQ_CLEAR_GAME
        return 0

    def render(self, now):
        if self.cursor == presets.COUNT:
            self.put2(b"CUSt", b"    ")
            return
        ui = self.ui
        code = presets.code(self.cursor)
        left = ui.text[0]
        for i in range(4):
            left[i] = ord(code[i]) if i < len(code) else 32
        ui.colon[0] = 0
        first = presets.PRESETS[self.cursor][3][0]
        ui.colon[1] = timefmt.countdown_into(ui.text[1], first[0] * 1000)
