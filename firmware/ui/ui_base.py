"""What every screen of the UI shares: the Screen base class and the text helpers.

Pure module: no pins, files or clocks. The screens (ui_*.py) and their dispatcher (ui.py)
import it; it imports none of them. The codes (buttons, screens, requests) are ui.py's; each
screen keeps private const() copies of those it uses.

A screen is a small object built once by the dispatcher (`ui.Ui`) and handed it. It owns
its own state and implements:
- `open()`: its entry code, run by `ui.open(S_X)` when another screen sends the user to it
  fresh (a cursor back on the first item, a value read from the engine). `ui.go(S_X)`
  returns to a screen without it: its state stands (after a message, a cancelled editor);
- `key(button, kind, now)`: one button event (buttons.py's codes); returns REQ_* bits
  for the shell (app.py), which does the I/O;
- `render(now)`: fills the two buffers `ui.text[0]`/`[1]` (`ui.digits` ASCII codes each,
  for segments.encode_ascii / encode_ascii6) and `ui.points[0]`/`[1]` (the separators
  lit, ui.py's module doc). Only the game screen sets the side LEDs (`ui.leds`); other
  screens leave them as the game screen last drew them;
- `next_change(now)`: the first instant (ms) after `now` at which `render` may show
  something else without a key or an engine event, or -1 (the default: menus change on
  keys only). Called right after `render(now)`; never later than the real change.
`now` is in ms, from the shell's monotonic clock. Nothing here allocates in `render` or
`next_change` of the game screen (the steady state); menus may allocate on keys.

The texts are written for 4 digits and drawn on either width by the helpers below: `copy`
puts a 4-character text in digits 1..4 of six (digits 0 and 5 blank), so a screen's colon
position is the glass's dot after digit 2; `number` spreads a label and a number over the
whole width (the label from digit 0, the number right-aligned to the last digit, where a
time ends too); times go through `ui.time_into` (timefmt.py / timefmt6.py). A screen that
writes a character of a copied text itself adds `ui.at` (the text's first digit: 0 or 1).
"""

from micropython import const
from timecontrol import MODE_BYOYOMI

# A held key's first REPEATs (buttons.py: every 150 ms after 500 ms) step like a press; the
# later ones by the big step (stepped())
SMALL_REPEATS = const(4)

# Label tables are 4-character texts packed into one bytes object each (one object on the
# heap instead of one per label): entry i starts at 4 * i, see copy().
_BLANK = b"    "
_NO_YES = b"  no" b" YES"  # fmt: skip
_RESULTS = (
    b"  1 "  # won
    b"  0 "  # lost
    b"1-2 "  # draw (reads "half each")
    b" -- "  # none: the game was abandoned
)
# Overtime counters (game screen and info page): byo-yomi periods left, Canadian moves still
# to make in the block
_OT_COUNT_LABELS = (
    b"bY  "  # byo-yomi
    b"c   "  # Canadian
)


def blank(buf):
    """Every digit of `buf` blank."""
    for i in range(len(buf)):
        buf[i] = 32


def copy(buf, text, at=0):
    """The 4 characters of `text` from index `at` (a packed table's entry at 4 * i) into
    `buf`: its digits 0..3 at width 4, its digits 1..4 at width 6 (0 and 5 blank)."""
    o = (len(buf) - 4) >> 1
    if o:
        blank(buf)
    for i in range(4):
        buf[o + i] = text[at + i]


def stepped(v, up, small, big, repeats, lo, hi):
    """`v` one step up (`up` 1) or down (-1), within lo..hi: by `small` for a press and for
    the first SMALL_REPEATS repeats of a held key (`repeats`: Ui.repeats), then by `big` to
    the next multiple of `big`. So a held key passes every round value (each multiple of
    `big`) and stands on it one repeat; let go there, it is exactly there."""
    if repeats <= SMALL_REPEATS:
        v += up * small
    elif up > 0:
        v = (v // big + 1) * big
    else:
        v = ((v - 1) // big) * big
    return lo if v < lo else hi if v > hi else v


def number(buf, n, label=_BLANK, at=0):
    """Right-aligned number (0..9999 at width 4) after a label prefix kept where digits are
    not needed (`label` from index `at`, as copy()). At width 6 the label takes digits 0..3
    and the number ends at digit 5 (`bA 100`, `P    2`)."""
    i = len(buf) - 1
    if i > 3:
        blank(buf)
    for j in range(4):
        buf[j] = label[at + j]
    while True:
        buf[i] = 48 + n % 10
        n //= 10
        i -= 1
        if n == 0 or i < 0:
            break


def overtime_count(buf, game, side):
    """The side's overtime counter into `buf` (no separator lit): `bY n` byo-yomi periods
    left (the current one included), `c nn` Canadian moves still to make in the block."""
    at = 0 if game.control.mode == MODE_BYOYOMI else 4
    number(buf, game.ot_left[side], _OT_COUNT_LABELS, at)


class Screen:
    """The base of every screen: the defaults of the interface in the module docstring."""

    def __init__(self, ui):
        self.ui = ui  # the dispatcher: settings, game, the buffers, screens to switch to

    # key(button, kind, now) and render(now): every screen has its own

    def open(self):
        pass

    def next_change(self, now):
        return -1

    def put2(self, left, right):
        """Both displays at once: two 4-character texts, no separator lit."""
        ui = self.ui
        copy(ui.text[0], left)
        copy(ui.text[1], right)
        ui.points[0] = ui.points[1] = 0

    def put_yes_no(self, label, yes, at=0):
        """A yes/no question: `label` (from `at`, as copy()) on the left, ` YES` or `  no`
        on the right."""
        ui = self.ui
        copy(ui.text[0], label, at)
        copy(ui.text[1], _NO_YES, 4 if yes else 0)
        ui.points[0] = ui.points[1] = 0

    def put_result(self, left):
        """Both displays show a result, `left` for the left side: 0 won, 1 lost, 2 draw,
        3 none (`  1 ` / `  0 `, `1-2 ` on both, ` -- ` on both)."""
        ui = self.ui
        copy(ui.text[0], _RESULTS, 4 * left)
        copy(ui.text[1], _RESULTS, 4 * left if left >= 2 else 4 - 4 * left)
        ui.points[0] = ui.points[1] = 0
