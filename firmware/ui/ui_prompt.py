"""The two prompts any screen can give way to: messages, and the resume offer at power-up.

Pure module (two screens, one module: each is a few lines, and a module of its own costs
RAM on the chip).

Messages: two 4-character texts shown for MESSAGE_MS (or until any key), then, if one is
queued, a second message as long, then the screen that was asked for. Shown by
`ui.show_message(left, right, now, then, queued)` from any screen or the shell (`SAVE Err`,
`LOG  Err`, `SEt  dEF`, `Add  donE`, ...). The screen shown after it is returned to with
`ui.go`: its state stands (the arbiter menu on its item, the custom editor on its field).
The key that ends a message does nothing else.

The resume offer: a game was saved (at its last pause or at a flag), resume it? Shown by
`ui.offer_resume(snapshot)` (the shell, at boot, after any message).

    `rES ` + ` YES`/`  no`   MINUS or PLUS: switch the answer; PLAY or SET: confirm it

Yes restores the engine snapshot (the shell then restores its move log, REQ_RESUMED); a
snapshot the engine refuses shows `rES  Err` and a fresh game, as does no (without the
message). Either way a game not restored is handed to the shell (REQ_DECLINED), which
records it in games/ as unfinished: no answer loses a game.
"""

import engine as E
from micropython import const
from ui_base import Screen

# ui.py's codes, copied: const() inlines them here (test_ui_codes checks they match)
_MESSAGE_MS = const(2_000)
_MINUS = const(2)
_PLAY = const(0)
_PLUS = const(3)
_REQ_DECLINED = const(128)
_REQ_RESUMED = const(64)
_S_GAME = const(0)
_S_MESSAGE = const(7)
_S_RESUME = const(6)
_SET = const(1)
_SHORT = const(1)


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


class ResumeOffer(Screen):
    yes = True  # the answer shown
    snapshot = None  # the saved engine state offered, until answered

    def offer(self, snapshot):
        self.snapshot = snapshot
        self.yes = True
        self.ui.go(_S_RESUME)

    def key(self, button, kind, now):
        ui = self.ui
        if button in (_PLUS, _MINUS) and kind == _SHORT:
            self.yes = not self.yes
            return 0
        if button in (_PLAY, _SET) and kind == _SHORT:
            snap = self.snapshot
            self.snapshot = None
            ui.go(_S_GAME)
            import game_state  # here, not at boot: its code takes RAM only once a game is restored

            if self.yes and snap is not None and game_state.restore(ui.game, snap) == E.OK:
                return _REQ_RESUMED
            ui.new_game()  # before the message: new_game() shows the game screen
            if self.yes:
                ui.show_message(b"rES ", b"Err ", now)
            return _REQ_DECLINED
        return 0

    def render(self, now):
        self.put_yes_no(b"rES ", self.yes)
