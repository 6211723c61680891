"""The settings menu: sound, freeze, increment timing, period transition, rules, brightness,
low-time warning, battery kind.

Pure module. Opened from the ready or finished game screen (SET long). The left display names
the item, the right shows its value; a change shows at once (brightness, sound: the shell's
REQ_APPLY_SETTINGS), and PLAY saves them all; SET long puts back what the settings were at
the opening (cancel).

    PLAY        save and leave          SET short    next item
    SET long    cancel: leave, the settings as they were
    MINUS / PLUS      previous / next value (held: repeats)
"""

from micropython import const
from ui_base import Screen, copy, number

# ui.py's codes, copied: const() inlines them here (test_ui_codes checks they match)
_LONG = const(2)
_MINUS = const(2)
_PLAY = const(0)
_PLUS = const(3)
_REPEAT = const(3)
_REQ_APPLY_SETTINGS = const(16)
_REQ_SAVE_SETTINGS = const(1)
_S_GAME = const(0)
_SET = const(1)
_SHORT = const(1)

# (label, settings key, values, value labels packed as ui_base.copy reads them, or None for
# numbers); fmt: off keeps each value label a literal of its own
# fmt: off
_ON_OFF = b" on " b" oFF"
ITEMS = (
    (b"Snd ", "sound", (True, False), _ON_OFF),
    (b"FrEE", "freeze", (True, False), _ON_OFF),
    (b"Inc ", "inc_before", (False, True), b"AFtr" b"bEFr"),
    (b"PEr ", "transition", (0, 1), b"Cnt " b"FLAG"),
    (b"rULE", "rules", (0, 1), b"FIdE" b"USCF"),
    (b"brIt", "brightness", (0, 1, 2, 3, 4, 5, 6, 7), None),
    (b"Lo t", "low_time_s", (0, 5, 10, 15, 20, 30, 60, 120, 300, 600), None),
    # the cells: alkaline / NiMH ("ni-H": M has no seven-segment glyph); battery.py
    (b"bAtt", "battery", (0, 1), b"ALCA" b"ni-H"),
)
# fmt: on


class SettingsMenu(Screen):
    cursor = 0  # index into ITEMS
    before = None  # the items' values at the opening (a cancel puts them back)

    def open(self):
        self.cursor = 0
        s = self.ui.settings
        self.before = [s[item[1]] for item in ITEMS]

    def key(self, button, kind, now):
        ui = self.ui
        _label, name, values, _labels = ITEMS[self.cursor]
        if button == _PLAY and kind == _SHORT:
            ui.apply_options()
            ui.go(_S_GAME)
            return _REQ_SAVE_SETTINGS | _REQ_APPLY_SETTINGS
        if button == _SET and kind == _LONG:
            for i in range(len(ITEMS)):
                ui.settings[ITEMS[i][1]] = self.before[i]
            ui.go(_S_GAME)
            return _REQ_APPLY_SETTINGS  # the brightness and sound as they were
        if button == _SET and kind == _SHORT:
            self.cursor = (self.cursor + 1) % len(ITEMS)
            return 0
        if button in (_PLUS, _MINUS) and kind in (_SHORT, _REPEAT):
            current = ui.settings[name]
            i = values.index(current) if current in values else 0
            i = (i + (1 if button == _PLUS else -1)) % len(values)
            ui.settings[name] = values[i]
            return _REQ_APPLY_SETTINGS
        return 0

    def render(self, now):
        ui = self.ui
        label, name, values, labels = ITEMS[self.cursor]
        copy(ui.text[0], label)
        current = ui.settings[name]
        if labels is None:
            number(ui.text[1], current)
        else:
            i = values.index(current) if current in values else 0
            copy(ui.text[1], labels, 4 * i)
        ui.points[0] = ui.points[1] = 0
