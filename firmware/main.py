"""Entry point on the board: build the board, hand it to the app, run the loop.

`clock` is a global of the REPL's namespace (MicroPython runs main.py there), so after a
Ctrl-C the REPL, and the chip bench (tools/chip), can look at the app that was running."""

import app
import board

clock = app.App(board.Board())
clock.run()
