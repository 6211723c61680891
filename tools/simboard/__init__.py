"""The simulated board: the real firmware on MicroPython look-alikes (`mp/`: `machine`,
`micropython`, `rp2` running the PIO programs), virtual time with the 2**30 wrap (`vtime`),
the display decoders (TM1637, HT1621) and the USB serial port, and
`firmware.SimulatedClock`, which boots firmware/main.py on them. `make sim`, the chip tools
and the host tests share it; `mp/` is put on sys.path ahead of everything so the firmware
imports the fakes as `machine`, `micropython` and `rp2`."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MP = ROOT / "tools" / "simboard" / "mp"


def install_paths():
    """Put the fakes (`mp/`) and every firmware folder (firmware_build.firmware_dirs) first
    on sys.path, once: the firmware then imports its modules by their flat names and the
    fakes as `machine`, `micropython` and `rp2`, as on the board. Called through
    paths.install(board=True), which has put the tools' folders there. Returns the folders."""
    import firmware_build

    folders = [*firmware_build.firmware_dirs(ROOT), MP]
    for folder in map(str, folders):
        if folder not in sys.path:
            sys.path.insert(0, folder)
    return folders
