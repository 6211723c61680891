"""What the players and the arbiter see and do: the dispatcher of the UI's screens.

Pure module: it builds the screens, hands each button event, render and `next_change` to the
current one and switches between them; the screens turn button events into engine calls and
draw the two displays' texts, their separators and the side LEDs for a given `now` (ms). The
shell (app.py) is asked for I/O by the request bits (REQ_*) `key()` returns: it saves files,
beeps and so on. Nothing here touches pins, files or clocks.

What a render leaves for the shell to draw (`Ui(settings, game, digits)`: `digits` is the
displays' width, 4 for the TM1637 modules of the LED build, 6 for the LCD glass):
- `text[side]`: bytearray(digits) of ASCII codes, side 0 = the left display;
- `points[side]`: the separators lit, a mask of digits whose bit 7 is lit (bit i = the
  separator after digit i, 0 = leftmost): within bit 1 (the colon) at width 4, within
  bits 2, 3 and 4 (the dots after those digits) at width 6. `colon[side]` is the 4-digit build's
  colon as 0/1 (points' bit 1, a property; always 0 at width 6);
- `icons[side]`: segments.ICON_* lit, at width 6 only (the LCD glass's battery symbol, on
  the left display: see set_battery); 0 at width 4;
- `leds`: the side LEDs, bit 0 left, bit 1 right.
Every screen draws a 4-character text in digits 1..4 of six (ui_base.copy), its colon as the
dot after digit 2; numbers, times and the version use the six digits (ui_base.number,
timefmt6.py, ui_info.py). docs/manual.md has the legend of both widths.

One screen, one unit (each module's docstring has its keys and texts; ui_base.py has what a
screen implements and what they share):

    screen      unit                          PLAY            SET short       SET long
    game        ui_game.GameScreen            pause/resume    menus           menus
                                              (ready: swap the sides' controls)
      info      ui_info.InfoPages             (MINUS/PLUS on the game screen: info pages)
    choose      ui_choose.PresetChooser       select          edit it         cancel
    custom      ui_custom.CustomEditor        start game      next field      cancel
    settings    ui_settings.SettingsMenu      save and leave  next item       cancel
    arbiter     ui_arbiter.ArbiterMenu        apply and leave next item       cancel
    material    ui_material.MaterialEntry     confirm         confirm         back
    resume      ui_prompt.ResumeOffer         confirm         confirm         -
    messages    ui_prompt.Messages            (any key ends the message)
One rule in every menu and editor: PLAY applies what was chosen or edited and leaves; SET
long leaves with nothing of it applied (cancel); SET short goes on (the next item or field;
in the chooser, into the editor).

Buttons (kind SHORT on release, LONG after ~2 s held, REPEAT while PLUS/MINUS are held).
Levers only act on the game screen (the engine ignores them unless running or ready).

The button, screen and request codes below are the shell's (app.py) and the tests'; each
screen module keeps private const() copies of those it uses (host_tests/ui/test_ui_codes.py
checks they agree). The screens end games with engine.py's reason codes and build controls with
presets.control_of, which the saved game and the journal use too, without the UI.
"""

import battery
import engine as E
import presets
from micropython import const
from ui_base import blank
from ui_game import GameScreen
from ui_prompt import Messages, ResumeOffer

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
S_RESUME = const(6)  # ui_prompt.ResumeOffer
S_MESSAGE = const(7)  # ui_prompt.Messages

# Requests to the shell (bits returned by key())
REQ_SAVE_SETTINGS = const(1)  # write ui.settings to flash
REQ_SAVE_GAME = const(2)  # write the paused game (engine snapshot) to flash
REQ_CLEAR_GAME = const(4)  # the game is over or replaced: forget the saved state
REQ_LOG_GAME = const(8)  # the result is confirmed: archive the move log
REQ_APPLY_SETTINGS = const(16)  # brightness / sound changed
REQ_BEEP = const(32)  # acknowledge beep (a refused action)
REQ_RESUMED = const(64)  # the offered game was restored: the shell restores its move log
REQ_DECLINED = const(128)  # the offered game was not resumed: the shell records it, unfinished

MESSAGE_MS = const(2_000)  # a message shows this long (or until a key)
# REPEATs of one hold come buttons.repeat_ms (150) apart; a new hold's first comes
# repeat_delay_ms (500) after its press: a longer gap starts a new count
REPEAT_GAP_MS = const(400)


def _bars(pct):
    """The battery symbol for a level of `pct` (0..100): 3 bars above 66 %, 2 above 33 %,
    1 above 0 %, none at 0 (as segments.ICON_* bits, cumulative)."""
    n = (pct + 32) // 33
    return 7 if n > 3 else (1 << n) - 1


class Ui:
    def __init__(self, settings, game=None, digits=4):
        self.settings = settings
        self.game = game if game is not None else E.Game(presets.control_of(settings["control"]))
        self.apply_options()
        self.digits = digits  # the displays' width: 4 or 6
        self.at = (digits - 4) >> 1  # the first digit of a 4-character text (ui_base.copy)
        if digits == 4:
            import timefmt as fmt
        else:
            import timefmt6 as fmt
        # The time layouts of the width (the screens' times go through time_into): the
        # module's format_into and next_change (functions, not the module: a test harness
        # deep-copies the Ui), the shift that turns the format's separator into `points`,
        # and the separator that beats on the game screen: the colon of MM:SS at width 4;
        # none at width 6, whose seconds always show (the dots stand still, ui_game.py)
        self.format_into = fmt.format_into
        self.time_next_change = fmt.next_change
        self.shift = 1 if digits == 4 else 0
        self.beat_point = 2 if digits == 4 else 0
        self.text = (bytearray(digits), bytearray(digits))  # what each display shows
        blank(self.text[0])
        blank(self.text[1])
        self.points = bytearray(2)  # the separators lit per side (see the module doc)
        self._colon = bytearray(2)  # the `colon` property's buffer
        self.icons = bytearray(2)  # width 6: segments.ICON_* per side
        self.leds = 0  # bit 0 left, bit 1 right
        self.battery_pct = 100  # the level shown on the info page (battery.percent)
        self.battery_low = False  # the warning: the ready screen blinks `bAt  Lo`
        self.battery_icons = _bars(100)  # the battery symbol's bars (width 6)
        self.repeats = 0  # REPEATs of the key held now (ui_base.stepped), 0 for a press
        self._repeat_at = 0  # ms of the last REPEAT
        # Indexed by the S_* codes; a menu is built at its first use (screen_of)
        self.screens = [GameScreen(self), None, None, None, None, None]
        self.screens += (ResumeOffer(self), Messages(self))
        self.screen = S_GAME  # the current screen's code
        self.current = self.screens[S_GAME]  # the current screen

    # ---------------------------------------------------------- switching
    def screen_of(self, screen):
        """The unit of `screen` (an S_* code). The menus' modules are imported, and the
        menu built, at their first use: their code takes RAM only once a clock's owner
        opens them (the game, the resume offer and the messages are built at power-up)."""
        s = self.screens[screen]
        if s is None:
            if screen == S_CHOOSE:
                from ui_choose import PresetChooser as Unit
            elif screen == S_CUSTOM:
                from ui_custom import CustomEditor as Unit
            elif screen == S_SETTINGS:
                from ui_settings import SettingsMenu as Unit
            elif screen == S_ARBITER:
                from ui_arbiter import ArbiterMenu as Unit
            else:
                from ui_material import MaterialEntry as Unit
            s = self.screens[screen] = Unit(self)
        return s

    def go(self, screen):
        """Show `screen` (an S_* code) as it was left: its state stands."""
        self.screens[S_GAME].kept = False  # the texts are the next screen's to fill
        self.screen = screen
        self.current = self.screen_of(screen)

    def open(self, screen):
        """Show `screen` fresh: its entry code (Screen.open) first."""
        self.screen_of(screen).open()
        self.go(screen)

    def show_message(self, left, right, now, then=S_GAME, queued=None):
        """Show `left`/`right` for MESSAGE_MS (or until a key), then `queued` (a second
        (left, right) message, as long) if given, then the screen `then`."""
        self.screens[S_MESSAGE].show(left, right, now, then, queued)

    def offer_resume(self, snapshot):
        """At power-up, a saved game exists: ask whether to resume it."""
        self.screens[S_RESUME].offer(snapshot)

    # ------------------------------------------------------------ the game
    def apply_options(self):
        """The settings' rules into the engine: freeze, increment timing, period transition."""
        s = self.settings
        self.game.set_rules(s["freeze"], s["inc_before"], s["transition"])

    def swap_sides(self):
        """The ready screen's PLAY: the two sides' controls exchange (the board was set up
        the other way round), and with them White's side under draw odds; kept in the
        settings. REQ_* bits: nothing to do when both sides have the same control and no
        draw odds (nothing tells the sides apart)."""
        g = self.game
        c = self.settings["control"]
        if g.state != E.READY or (g.controls[0].same(g.controls[1]) and not g.draw_odds):
            return 0
        if c.get("swap"):
            del c["swap"]
        else:
            c["swap"] = True
        self.new_game()
        return REQ_SAVE_SETTINGS | REQ_CLEAR_GAME

    def keep(self, c):
        """The custom control `c` (the settings' form) starts a game: first among the kept
        ones (settings "kept", presets.KEPT at most: the oldest goes; an equal one moves up)."""
        kept = self.settings["kept"]
        c = dict(c)  # its own top level: the ready screen's PLAY turns "swap" in place
        for i in range(len(kept)):
            if kept[i] == c:
                del kept[i]
                break
        kept.insert(0, c)
        del kept[presets.KEPT :]

    def new_game(self, control=None):
        """A new game of `control` (default: the settings' one), ready on the game screen."""
        self.apply_options()
        if control is None:
            control = presets.control_of(self.settings["control"])
        self.game.reset(control)
        self.open(S_GAME)

    def set_battery(self, mv):
        """A battery reading, `mv` of VSYS: the level and the warning (battery.py) for the
        kind of cells and the load: the brightness set at width 4 (the LED modules), the
        glass's (battery.GLASS) at width 6, which has no brightness. True when what the
        ready screen shows changed. Allocates nothing.

        At width 6 the level also shows as the LCD glass's battery symbol (`icons`, 3 bars
        over the level's thirds, _bars), on the left display, on every screen: the left is
        where the info page has the level (`bA nn`), so the arbiter finds it in one place,
        and one symbol, not two, tells the players it is the clock's, not a side's. It
        stands still during a game; the ready screen blinks it with `bAt  Lo` when the
        warning is on (ui_game.py), the one screen that shows the warning (docs/battery.md),
        with one bar at least so an empty symbol blinks too."""
        s = self.settings
        kind = s["battery"]
        pct = battery.percent(mv, kind)
        was = self.battery_low
        low = battery.low(mv, kind, s["brightness"] if self.digits == 4 else battery.GLASS, was)
        if pct == self.battery_pct and low == was:
            return False
        self.battery_pct = pct
        self.battery_low = low
        self.battery_icons = _bars(pct)
        return True

    # ------------------------------------------------- the current screen
    def key(self, button, kind, now):
        """One button event. Returns REQ_* bits for the shell."""
        if kind == REPEAT:  # one hold's come REPEAT_GAP_MS apart at most (buttons.py)
            held = self.repeats and now - self._repeat_at <= REPEAT_GAP_MS
            self.repeats = self.repeats + 1 if held else 1
            self._repeat_at = now
        else:
            self.repeats = 0
        return self.current.key(button, kind, now)

    def render(self, now):
        """Fill self.text / self.points / self.icons / self.leds (and so self.colon) for
        `now`. Allocation-free on the game screen (the steady state)."""
        if self.digits != 4:
            self.icons[0] = self.battery_icons  # the game screen's ready screen may blink it
        self.current.render(now)

    @property
    def colon(self):
        """The 4-digit displays' colon per side as 0/1 (bytearray(2)): the separator after
        digit 1, `points`' bit 1 (always 0 at width 6), read from `points` when asked, so
        a render does not keep it. (The shell draws from `points`: segments.encode_ascii
        lights the colon for any true value, and at width 4 `points` has only that bit.)
        Allocates nothing."""
        p = self.points
        c = self._colon
        c[0] = p[0] >> 1 & 1
        c[1] = p[1] >> 1 & 1
        return c

    def time_into(self, buf, t_ms, up=True, tenths_below_s=10):
        """A time in the width's layouts (timefmt.py, timefmt6.py) into `buf`, rounded up
        (`up`, a countdown) or down; returns its `points`."""
        return self.format_into(buf, t_ms, up, tenths_below_s) << self.shift

    def next_change(self, now):
        """The first instant (ms) after `now` at which render() may show something else
        without a key or an engine event, or -1 when only those can change it. Called right
        after render(now). Never later than the real change (the loop sleeps until then)."""
        return self.current.next_change(now)

    def alerts(self, now):
        """Low-time beeps (ui_game.GameScreen.alerts): 0, 1 (low time) or 2 (a last second)."""
        return self.screens[S_GAME].alerts(now)
