"""A small stand-in for the official MicroPython .uf2, made in the tests (no network, no
binary in the repository).

It has what tools/release/micropython_uf2.py looks at in the real file: pages from the flash start,
a last sector that is only partly used (as a real build's is), and picotool binary info laid
out as the pico-sdk does it (pico_binary_info/defs.h and structure.h): the header in the
256 bytes after boot stage 2, an array of pointers to entries, ID_AND_STRING entries for the
program name, version and board, the BLOCK_DEVICE entry MicroPython's rp2_flash.c declares
for its filesystem, and an address mapping table (the version string is reached through it,
as data copied to RAM would be). The rest is a recognisable byte pattern.
"""

import struct

FLASH = 0x10000000
HEADER_AT = 0x100001C0  # after boot2 (256 bytes) and the 48-word Cortex-M0+ vector table
POINTERS_AT = 0x10001000
ENTRIES_AT = 0x10001100
STRINGS_AT = 0x10001400
MAP_TABLE_AT = 0x10001800
RAM_SOURCE_AT = 0x10001900  # flash copy of "RAM" data
RAM_AT = 0x20000100  # where the mapping table says that data lives at run time


def image(
    size=0x9A40,
    name="MicroPython",
    version="v1.27.0",
    board="pico",
    filesystem=(0x100A0000, 1408 * 1024),
    binary_info=True,
    seed=1,
):
    """Flash bytes from 0x10000000 of a pretend MicroPython build."""
    data = bytearray((i * 7 + seed * 13 + (i >> 8)) & 0xFF for i in range(size))
    data[0:16] = b"boot2 stage two\0"
    if not binary_info:
        return bytes(data)

    def put(address, raw):
        data[address - FLASH : address - FLASH + len(raw)] = raw

    def u32(address, value):
        put(address, struct.pack("<I", value))

    strings = {}
    at = STRINGS_AT
    for key, text in (("name", name), ("board", board), ("fs", "MicroPython")):
        strings[key] = at
        put(at, text.encode() + b"\0")
        at += 64
    put(RAM_SOURCE_AT + 0x10, version.encode() + b"\0")
    version_ptr = RAM_AT + 0x10

    entries = []
    at = ENTRIES_AT
    tag_rp = ord("R") | ord("P") << 8
    tag_mp = ord("M") | ord("P") << 8
    for ident, pointer in (
        (0x02031C86, strings["name"]),
        (0x11A9BC3A, version_ptr),
        (0xB63CFFBB, strings["board"]),
    ):
        put(at, struct.pack("<HHII", 6, tag_rp, ident, pointer))
        entries.append(at)
        at += 16
    if filesystem:
        fs_address, fs_size = filesystem
        put(at, struct.pack("<HHIIIIH", 7, tag_mp, strings["fs"], fs_address, fs_size, 0, 3))
        entries.append(at)
    for i, entry in enumerate(entries):
        u32(POINTERS_AT + 4 * i, entry)
    put(MAP_TABLE_AT, struct.pack("<III", RAM_SOURCE_AT, RAM_AT, RAM_AT + 0x100))
    u32(MAP_TABLE_AT + 12, 0)
    put(
        HEADER_AT,
        struct.pack(
            "<5I",
            0x7188EBF2,
            POINTERS_AT,
            POINTERS_AT + 4 * len(entries),
            MAP_TABLE_AT,
            0xE71AA390,
        ),
    )
    return bytes(data)


def uf2_file(**kwargs):
    """The pretend MicroPython as a .uf2, the way picotool/elf2uf2 write one: one block per
    256-byte page from 0x10000000, in address order."""
    import uf2

    return uf2.write(uf2.pages_of(image(**kwargs), FLASH))
