"""The resume offer's answers: `rES  Err` stays on the displays for its time when the saved
game cannot be restored, and every answer that does not restore the game hands it to the
shell to be recorded (REQ_DECLINED)."""

import settings as settings_mod
import ui as U


def test_a_saved_game_that_cannot_be_restored_shows_res_err():
    ui = U.Ui(settings_mod.defaults())
    ui.offer_resume([1, 2, 3])  # not an engine snapshot: game_state.restore refuses it
    assert ui.key(U.PLAY, U.SHORT, 1_000) == U.REQ_DECLINED  # yes: resume, refused
    ui.render(1_000)
    assert (bytes(ui.text[0]), bytes(ui.text[1])) == (b"rES ", b"Err ")
    assert ui.next_change(1_000) == 1_000 + U.MESSAGE_MS
    ui.render(1_000 + U.MESSAGE_MS)  # then the fresh game
    assert ui.screen == U.S_GAME and ui.game.state == 0
    assert (bytes(ui.text[0]), bytes(ui.text[1])) == (b"1h30", b"1h30")


def test_declining_a_saved_game_shows_no_error():
    ui = U.Ui(settings_mod.defaults())
    ui.offer_resume([1, 2, 3])
    ui.key(U.PLUS, U.SHORT, 0)  # no
    assert ui.key(U.PLAY, U.SHORT, 0) == U.REQ_DECLINED
    ui.render(0)
    assert ui.screen == U.S_GAME and bytes(ui.text[0]) == b"1h30"
