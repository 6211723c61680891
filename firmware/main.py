"""Entry point on the board: build the board, hand it to the app, run the loop."""

import app
import board

app.App(board.Board()).run()
