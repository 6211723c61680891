"""What the players and the arbiter see and do: the dispatcher of the UI's screens.

Pure module: it builds the screens, hands each button event, render and `next_change` to the
current one and switches between them; the screens turn button events into engine calls and
draw two 4-character texts, their colons and the side LEDs for a given `now` (ms). The shell
(app.py) is asked for I/O by the request bits (REQ_*) `key()` returns: it saves files, beeps
and so on. Nothing here touches pins, files or clocks.

One screen, one unit (each module's docstring has its keys and texts; ui_base.py has what a
screen implements and what they share):

    screen      unit                          PLAY            SET short       SET long
    game        ui_game.GameScreen            pause/resume    menus           menus
      info      ui_info.InfoPages             (MINUS/PLUS on the game screen: info pages)
    choose      ui_choose.PresetChooser       select          select          custom editor
    custom      ui_custom.CustomEditor        start game      next field      cancel
    settings    ui_settings.SettingsMenu      save and leave  next item       save and leave
    arbiter     ui_arbiter.ArbiterMenu        apply / leave   next item       leave
    material    ui_material.MaterialEntry     confirm         confirm         back
    resume      ui_resume.ResumeOffer         confirm         confirm         -
    messages    ui_message.Messages           (any key ends the message)

Buttons (kind SHORT on release, LONG after ~2 s held, REPEAT while PLUS/MINUS are held).
Levers only act on the game screen (the engine ignores them unless running or ready).

The button, screen and request codes are re-exported here for the shell and the tests.
"""

import engine as E
import presets
from timecontrol import TimeControlError, from_seconds
from ui_arbiter import ArbiterMenu
from ui_base import (  # noqa: F401 (re-exported: the shell and the tests use ui.X)
    LONG,
    MESSAGE_MS,
    MINUS,
    PLAY,
    PLUS,
    REASON_DEAD,
    REASON_FLAG,
    REPEAT,
    REQ_APPLY_SETTINGS,
    REQ_BEEP,
    REQ_CLEAR_GAME,
    REQ_LOG_GAME,
    REQ_RESUMED,
    REQ_SAVE_GAME,
    REQ_SAVE_SETTINGS,
    S_ARBITER,
    S_CHOOSE,
    S_CUSTOM,
    S_GAME,
    S_MATERIAL,
    S_MESSAGE,
    S_RESUME,
    S_SETTINGS,
    SET,
    SHORT,
)
from ui_choose import PresetChooser
from ui_custom import CustomEditor
from ui_game import GameScreen
from ui_material import MaterialEntry
from ui_message import Messages
from ui_resume import ResumeOffer
from ui_settings import SettingsMenu


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


class Ui:
    def __init__(self, settings, game=None):
        self.settings = settings
        self.game = game if game is not None else E.Game(self.control_from_settings())
        self.apply_options()
        self.text = (bytearray(b"    "), bytearray(b"    "))  # what each display shows
        self.colon = bytearray(2)
        self.leds = 0  # bit 0 left, bit 1 right
        self.battery_pct = 100
        self.battery_low_pct = 15
        self.game_screen = GameScreen(self)
        # Indexed by the S_* codes
        self.screens = (
            self.game_screen,
            PresetChooser(self),
            CustomEditor(self),
            SettingsMenu(self),
            ArbiterMenu(self),
            MaterialEntry(self),
            ResumeOffer(self),
            Messages(self),
        )
        self.screen = S_GAME  # the current screen's code
        self.current = self.game_screen  # the current screen

    # ---------------------------------------------------------- switching
    def go(self, screen):
        """Show `screen` (an S_* code) as it was left: its state stands."""
        self.screen = screen
        self.current = self.screens[screen]

    def open(self, screen):
        """Show `screen` fresh: its entry code (Screen.open) first."""
        self.screens[screen].open()
        self.go(screen)

    def show_message(self, left, right, now, then=S_GAME, queued=None):
        """Show `left`/`right` for MESSAGE_MS (or until a key), then `queued` (a second
        (left, right) message, as long) if given, then the screen `then`."""
        self.screens[S_MESSAGE].show(left, right, now, then, queued)

    def offer_resume(self, snapshot):
        """At power-up, a saved game exists: ask whether to resume it."""
        self.screens[S_RESUME].offer(snapshot)

    # ------------------------------------------------------------ the game
    def control_from_settings(self):
        return control_of(self.settings["control"])

    def apply_options(self):
        s = self.settings
        g = self.game
        g.freeze = s["freeze"]
        g.inc_before = s["inc_before"]
        g.transition = s["transition"]

    def new_game(self, control=None):
        """A new game of `control` (default: the settings' one), ready on the game screen."""
        self.apply_options()
        self.game.reset(control if control is not None else self.control_from_settings())
        self.open(S_GAME)

    # ------------------------------------------------- the current screen
    def key(self, button, kind, now):
        """One button event. Returns REQ_* bits for the shell."""
        return self.current.key(button, kind, now)

    def render(self, now):
        """Fill self.text / self.colon / self.leds for `now`. Allocation-free on the game
        screen (the steady state)."""
        self.current.render(now)

    def next_change(self, now):
        """The first instant (ms) after `now` at which render() may show something else
        without a key or an engine event, or -1 when only those can change it. Called right
        after render(now). Never later than the real change (the loop sleeps until then)."""
        return self.current.next_change(now)

    def alerts(self, now):
        """Low-time beeps (ui_game.GameScreen.alerts): 0, 1 (low time) or 2 (a last second)."""
        return self.game_screen.alerts(now)
