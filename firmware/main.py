"""Entry point on the board: build the board, hand it to the app, run the loop.

The loop returns only when a USB host takes the board at the ready screen or after a result
(a Ctrl-C, usbguard.py): main.py then ends and MicroPython's REPL starts, as the host tools
expect. During a game nothing from USB stops it."""

import app
import board

app.App(board.Board()).run()
