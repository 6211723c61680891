"""The preset chooser: pick the next game's time control from presets.py or from the custom
controls kept (settings "kept"), or go on to the custom editor.

Pure module. Opened from the ready game screen (SET), on the control in use. The left
display shows the preset's code (`FIdE`, ` 5 3`, ...) or a kept control's slot (`CUS1` the
newest ... `CUS5` the oldest), the right its first period's time. The entries, in PLUS's
order: the kept controls from the oldest to the newest, the presets, `CUSt` (the custom
editor); so MINUS from the first preset reaches `CUS1`, `CUS2`, ...

    PLAY        select: the new game is ready (CUSt: the custom editor, starting from the
                control in use)
    SET short   the custom editor, starting from the preset or kept control shown
    SET long    cancel: back to the game screen, the control as it was
    MINUS / PLUS  previous / next entry (held: repeats)
A kept control selected moves up to `CUS1`. From the ready screen on the first preset, the
newest kept control is 3 presses away (SET, MINUS, PLAY), the next 4; the control in use 2
(SET, PLAY).
"""

import presets
from micropython import const
from ui_base import Screen, copy

# ui.py's codes, copied: const() inlines them here (test_ui_codes checks they match)
_LONG = const(2)
_MINUS = const(2)
_PLAY = const(0)
_PLUS = const(3)
_REPEAT = const(3)
_REQ_CLEAR_GAME = const(4)
_REQ_SAVE_SETTINGS = const(1)
_S_CUSTOM = const(2)
_S_GAME = const(0)
_SET = const(1)
_SHORT = const(1)


class PresetChooser(Screen):
    # the entry: 0..k-1 the k kept controls, oldest first (kept[k - 1 - cursor]); then the
    # presets (k + index); then "custom" (k + COUNT)
    cursor = 0

    def open(self):
        """On the control in use (a kept custom one: on its slot; another: on `CUSt`)."""
        c = self.ui.settings["control"]
        kept = self.ui.settings["kept"]
        k = len(kept)
        if "preset" in c:
            self.cursor = k + c["preset"]
            return
        self.cursor = k + presets.COUNT
        for i in range(k):
            if kept[i] == c:
                self.cursor = k - 1 - i

    def _slot(self):
        """The kept control's index under the cursor (0 the newest), or -1."""
        k = len(self.ui.settings["kept"])
        return k - 1 - self.cursor if self.cursor < k else -1

    def _entry(self):
        """The settings control dict of the entry under the cursor; None on `CUSt`."""
        kept = self.ui.settings["kept"]
        i = self.cursor - len(kept)
        if i < 0:
            return kept[-1 - i]
        return {"preset": i} if i < presets.COUNT else None

    def key(self, button, kind, now):
        ui = self.ui
        n = presets.COUNT + len(ui.settings["kept"]) + 1  # the last entry is "custom"
        if button == _PLUS and kind in (_SHORT, _REPEAT):
            self.cursor = (self.cursor + 1) % n
        elif button == _MINUS and kind in (_SHORT, _REPEAT):
            self.cursor = (self.cursor - 1) % n
        elif button == _SET and kind == _LONG:
            ui.go(_S_GAME)  # cancel
        elif button == _SET and kind == _SHORT:
            c = self._entry()
            cur = ui.settings["control"]
            if c is not None and c.get("preset", c.get("custom")) == cur.get(
                "preset", cur.get("custom")
            ):
                c = None  # the control in use: as its sides stand (swapped or not)
            ui.screen_of(_S_CUSTOM).source = c
            ui.open(_S_CUSTOM)
        elif button == _PLAY and kind == _SHORT:
            c = self._entry()
            if c is None:
                ui.open(_S_CUSTOM)
                return 0
            if "custom" in c:
                ui.keep(c)
                c = dict(c)
            ui.settings["control"] = c
            ui.new_game()
            return _REQ_SAVE_SETTINGS | _REQ_CLEAR_GAME
        return 0

    def render(self, now):
        c = self._entry()
        if c is None:
            self.put2(b"CUSt", b"    ")
            return
        ui = self.ui
        left = ui.text[0]
        ui.points[0] = 0
        if "custom" in c:
            copy(left, b"CUS1")
            left[ui.at + 3] += self._slot()
            first = c["custom"]["periods"][0][0]
            ui.points[1] = ui.time_into(ui.text[1], first * 1000)
            return
        index = c["preset"]
        code = presets.code(index)
        copy(left, b"    ")
        for i in range(len(code)):
            if i < 4:
                left[ui.at + i] = ord(code[i])
        first = presets.PRESETS[index][3][0]
        ui.points[1] = ui.time_into(ui.text[1], first[0] * 1000)
