"""Why a game ended: the reason codes of Game.finish() (engine.py stores them, adding the bit
engine.BY_DRAW_ODDS when draw odds made a drawn game a win; it reads nothing else of them).

Owns the codes. The UI gives them (ui_material.py, ui_arbiter.py), the game's record writes
them as text (archive.py), the live feed's result line carries them (feed.py). Each module
that uses one keeps a private const() copy (`_REASON_FLAG = const(1)`: inlined, no import,
no RAM); host_tests/ui/test_ui_codes.py checks every copy against this module. Pure: constants
only.
"""

from micropython import const

REASON_FLAG = const(1)  # the result follows a flag (material entry)
REASON_DEAD = const(2)  # dead position (arbiter menu, or the "dEAd" material entry)
REASON_RESULT = const(3)  # the arbiter entered the result of a game decided on the board
