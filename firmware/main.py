"""Entry point on the board: build the board, hand it to the app, run the loop.

The loop returns only when a USB host takes the board at the ready screen or after a result
(a Ctrl-C, usbguard.py): main.py then ends and MicroPython's REPL starts, as the host tools
expect. During a game nothing from USB stops it. `clock` is a global of the REPL's
namespace (MicroPython runs main.py there), so the REPL, and the chip bench (tools/chip),
can then look at the app that was running."""

import app
import board

clock = app.App(board.Board())
clock.run()
