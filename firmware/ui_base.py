"""What every screen of the UI shares: the codes, the Screen base class, the text helpers.

Pure module: no pins, files or clocks. The screens (ui_*.py) and their dispatcher (ui.py)
import it; it imports none of them.

A screen is a small object built once by the dispatcher (`ui.Ui`) and handed it. It owns
its own state and implements:
- `open()`: its entry code, run by `ui.open(S_X)` when another screen sends the user to it
  fresh (a cursor back on the first item, a value read from the engine). `ui.go(S_X)`
  returns to a screen without it: its state stands (after a message, a cancelled editor);
- `key(button, kind, now)`: one button event (buttons.py codes below); returns REQ_* bits
  for the shell (app.py), which does the I/O;
- `render(now)`: fills the two 4-character buffers `self.text[0]`/`[1]` (ASCII codes for
  segments.encode_into) and `self.colon[0]`/`[1]` (1 = lit). Only the game screen sets the
  side LEDs (`ui.leds`); other screens leave them as the game screen last drew them;
- `next_change(now)`: the first instant (ms) after `now` at which `render` may show
  something else without a key or an engine event, or -1 (the default: menus change on
  keys only). Called right after `render(now)`; never later than the real change.
`now` is in ms, from the shell's monotonic clock. Nothing here allocates in `render` or
`next_change` of the game screen (the steady state); menus may allocate on keys.
"""

from micropython import const
from timecontrol import MODE_BYOYOMI

# Buttons and kinds: the same codes as buttons.py
PLAY = const(0)
SET = const(1)
MINUS = const(2)
PLUS = const(3)
SHORT = const(1)  # on release
LONG = const(2)  # after ~2 s held
REPEAT = const(3)  # while PLUS/MINUS are held

# Screens: the index of each in `ui.Ui.screens`
S_GAME = const(0)  # ui_game.GameScreen (its info pages: ui_info.InfoPages)
S_CHOOSE = const(1)  # ui_choose.PresetChooser
S_CUSTOM = const(2)  # ui_custom.CustomEditor
S_SETTINGS = const(3)  # ui_settings.SettingsMenu
S_ARBITER = const(4)  # ui_arbiter.ArbiterMenu
S_MATERIAL = const(5)  # ui_material.MaterialEntry
S_RESUME = const(6)  # ui_resume.ResumeOffer
S_MESSAGE = const(7)  # ui_message.Messages

# Requests to the shell (bits returned by key())
REQ_SAVE_SETTINGS = const(1)  # write ui.settings to flash
REQ_SAVE_GAME = const(2)  # write the paused game (engine snapshot) to flash
REQ_CLEAR_GAME = const(4)  # the game is over or replaced: forget the saved state
REQ_LOG_GAME = const(8)  # the result is confirmed: archive the move log
REQ_APPLY_SETTINGS = const(16)  # brightness / sound changed
REQ_BEEP = const(32)  # acknowledge beep (a refused action)
REQ_RESUMED = const(64)  # the offered game was restored: the shell restores its move log

MESSAGE_MS = const(2_000)  # a message shows this long (or until a key)

# Reasons passed to Game.finish(), read back by the shell's game log (archive.py)
REASON_FLAG = const(1)  # the result follows a flag (material entry)
REASON_DEAD = const(2)  # dead position (arbiter menu, or the "dEAd" material entry)

RESULT_TEXT = (b"    ", b"  1 ", b"  0 ", b"1-2 ")  # win, loss, draw (1-2 reads "half each")

# Overtime counters (game screen and info page): byo-yomi periods left, Canadian moves still
# to make in the block
_OT_COUNT_LABELS = (b"bY  ", b"c   ")


def copy(buf, text):
    """The 4 characters of `text` into `buf`."""
    for i in range(4):
        buf[i] = text[i]


def number(buf, n, label=b"    "):
    """Right-aligned number (0..9999) after a label prefix kept where digits are not needed."""
    copy(buf, label)
    i = 3
    while True:
        buf[i] = 48 + n % 10
        n //= 10
        i -= 1
        if n == 0 or i < 0:
            break


def overtime_count(buf, game, side):
    """The side's overtime counter into `buf` (its colon is off): `bY n` byo-yomi periods
    left (the current one included), `c nn` Canadian moves still to make in the block."""
    label = _OT_COUNT_LABELS[0 if game.control.mode == MODE_BYOYOMI else 1]
    number(buf, game.ot_left[side], label)


class Screen:
    """The base of every screen: the defaults of the interface in the module docstring."""

    def __init__(self, ui):
        self.ui = ui  # the dispatcher: settings, game, screens to switch to
        self.text = ui.text  # the two 4-character buffers this screen draws into
        self.colon = ui.colon

    def open(self):
        pass

    def key(self, button, kind, now):
        return 0

    def render(self, now):
        pass

    def next_change(self, now):
        return -1

    def put2(self, left, right, colon_left=0, colon_right=0):
        """Both displays at once: two 4-character texts and their colons."""
        copy(self.text[0], left)
        copy(self.text[1], right)
        self.colon[0] = colon_left
        self.colon[1] = colon_right
