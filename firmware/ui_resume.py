"""The resume offer at power-up: a game was saved (at its last pause or at a flag), resume it?

Pure module. Shown by `ui.offer_resume(snapshot)` (the shell, at boot, after any message).

    `rES ` + ` YES`/`  no`   MINUS / PLUS: yes / no; PLAY / SET: confirm

Yes restores the engine snapshot (the shell then restores its move log, REQ_RESUMED); a
snapshot the engine refuses shows `rES  Err` and a fresh game, as does no (without the
message). Either way the saved state is then forgotten (REQ_CLEAR_GAME) unless restored.
"""

import engine as E
from micropython import const
from ui_base import Screen

# ui.py's codes, copied: const() inlines them here (test_ui_codes checks they match)
_MINUS = const(2)
_PLAY = const(0)
_PLUS = const(3)
_REQ_CLEAR_GAME = const(4)
_REQ_RESUMED = const(64)
_S_GAME = const(0)
_S_RESUME = const(6)
_SET = const(1)
_SHORT = const(1)


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
            if self.yes and snap is not None and ui.game.restore(snap) == E.OK:
                return _REQ_RESUMED
            ui.new_game()  # before the message: new_game() shows the game screen
            if self.yes:
                ui.show_message(b"rES ", b"Err ", now)
            return _REQ_CLEAR_GAME
        return 0

    def render(self, now):
        self.put_yes_no(b"rES ", self.yes)
