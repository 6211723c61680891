"""Messages: two 4-character texts shown for MESSAGE_MS (or until any key), then, if one is
queued, a second message as long, then the screen that was asked for.

Pure module. Shown by `ui.show_message(left, right, now, then, queued)` from any screen or
the shell (`SAVE Err`, `LOG  Err`, `SEt  dEF`, `Add  donE`, ...). The screen shown after it
is returned to with `ui.go`: its state stands (the arbiter menu on its item, the custom
editor on its field). The key that ends a message does nothing else.
"""

from micropython import const
from ui_base import Screen

# ui.py's codes, copied: const() inlines them here (test_ui_codes checks they match)
_MESSAGE_MS = const(2_000)
_S_GAME = const(0)
_S_MESSAGE = const(7)


class Messages(Screen):
    shown = None  # (left, right) of the message on the displays (show())
    until = 0  # ms: when it ends
    then = _S_GAME  # the screen after it (and after the queued one)
    queued = None  # a second (left, right) message after this one

    def show(self, left, right, now, then=_S_GAME, queued=None):
        self.shown = (left, right)
        self.until = now + _MESSAGE_MS
        self.then = then
        self.queued = queued
        self.ui.go(_S_MESSAGE)

    def end(self, now):
        q = self.queued
        if q is None:
            self.ui.go(self.then)
        else:
            self.show(q[0], q[1], now, self.then)

    def key(self, button, kind, now):
        self.end(now)
        return 0

    def render(self, now):
        if now >= self.until:
            self.end(now)
            self.ui.current.render(now)  # what comes next, at once
            return
        self.put2(self.shown[0], self.shown[1])

    def next_change(self, now):
        return self.until
