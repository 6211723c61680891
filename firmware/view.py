"""What the players see and hear, as the shell drives the board's outputs: the UI rendered
to segments and out to the two TM1637 displays (a display writes only bytes that changed,
tm1637.py), the side LEDs, the low-time alerts, an engine event's sound, the settings that
drive the outputs (sound on or off, brightness), and the quiet board a USB host takes over.

The shell (app.py) calls `render` at a wakeup's render step and after a press's LEDs; it
keeps the instant `render` returns (when the shown text next changes) for its sleep. The
LEDs go first: after a press they are the quickest sign. A lever edge during the frames
leaves the next change and the alerts (kept by the UI until seen) to that press's wakeup,
which comes at once and renders again.

Allocation-free after the constructor, but for `hand_over`, which ends the loop.
"""

import buzzer as buzzer_mod
import segments

_LAST_SECONDS_BEEP = (3_000, 40)  # one of the last 5 s began


class View:
    def __init__(self, board, ui):
        self.board = board
        self.ui = ui
        self.segs = (bytearray(4), bytearray(4))  # the segment bytes last encoded, per side
        self.leds = -1  # the LED mask last written (-1 = unknown: write at the next render)
        self.sound = None  # an engine event's sound, started by the render that shows it

    def render(self, now):
        """Draw the UI for `now` (LEDs first), sound the low-time alerts, which fall on
        instants the running side's text changes, and an engine event's sound (`sound`,
        after its frames, over the alerts). Returns the first ms the shown text may change
        (-1: not by itself; `now`: a lever edge came during the frames)."""
        b = self.board
        ui = self.ui
        ui.render(now)
        leds = ui.leds
        if leds != self.leds:
            b.set_leds(leds)
            self.leds = leds
        segs = self.segs
        text = ui.text
        colon = ui.colon
        displays = b.displays
        segments.encode_ascii(segs[0], text[0], colon[0])
        displays[0].show(segs[0])
        segments.encode_ascii(segs[1], text[1], colon[1])
        displays[1].show(segs[1])
        if b.levers.pending():
            nxt = now  # the press's wakeup, at once: the next change and the alerts are its
        else:
            nxt = ui.next_change(now)
            alert = ui.alerts(now)
            if alert:
                pattern = buzzer_mod.LOW_TIME if alert == 1 else _LAST_SECONDS_BEEP
                b.buzzer.play(pattern, now)
        if self.sound is not None:
            b.buzzer.play(self.sound, now)
            self.sound = None
        return nxt

    def apply(self, settings):
        """The settings that drive the outputs: the sound on or off, the displays'
        brightness."""
        b = self.board
        b.buzzer.set_enabled(settings["sound"])
        for d in b.displays:
            d.set_brightness(settings["brightness"])

    def hand_over(self, usb):
        """The board goes to a USB host (not during a game): Ctrl-C back (`usb`, the board's
        usbguard.UsbGuard or None), the buzzer and the LEDs quiet, the displays say so."""
        b = self.board
        if usb is not None:
            usb.stop()
        b.buzzer.stop()
        b.levers.mover[0] = -1
        b.set_leds(0)
        self.leds = 0
        for side, text in ((0, b"USb "), (1, b"StoP")):
            segments.encode_into(self.segs[side], text, 0)
            b.displays[side].show(self.segs[side])
