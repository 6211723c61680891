"""The firmware version, printed by `make flash` and shown in the settings menu."""

VERSION = "0.1.0"
