"""The UF2 file format, as far as an RP2040 flash image needs it: parse, check, lay out, write.

A UF2 file is a sequence of 512-byte blocks, each carrying one piece of payload and the flash
address it belongs at (Microsoft's UF2 specification, github.com/microsoft/uf2, and the
RP2040 datasheet, section 2.8.4.2 "UF2 Format Details"). Little-endian words:

  offset  field
  0       magic start 0 = 0x0A324655 ("UF2\\n")
  4       magic start 1 = 0x9E5D5157
  8       flags (0x2000 = the family-id field is present; 0x0001 = not main flash)
  12      target address
  16      payload size (at most 476)
  20      block number, 0 .. n-1
  24      number of blocks in the whole file (n)
  28      family id when flag 0x2000 is set (RP2040 = 0xE48BFF56), else the file size
  32      payload, 476 bytes (zero padding after payload size)
  508     magic end = 0x0AB16F30

What the RP2040 boot ROM accepts (datasheet 2.8.4.2, and its source, pico-bootrom-rp2040
bootrom/virtual_disk.c, vd_write_block / _write_uf2_page): the family-id flag set with
0xE48BFF56, "not main flash" clear, payload size exactly 256, a 256-byte aligned address in
0x10000000-0x11000000, block numbers below the block count. It reboots once it has seen
`num_blocks` distinct block numbers, so every block of one file carries the count of the
whole file and the numbers run 0..n-1 without gaps or repeats.

Erratum RP2040-E14: the boot ROM decides when to erase a 4 KiB flash sector from the *block
number* (sector slot = block_no * 256 // 4096), not from the address. A file is written
correctly only if each group of 16 consecutive block numbers holds the 16 pages of one
sector. `sector_complete` makes that true: every sector that is touched at all is filled up
with erased pages (0xFF), and pages are emitted in address order, so numbering them 0..n-1
lines the groups up with the sectors. Untouched sectors between the parts are fine.

This module knows nothing about MicroPython or littlefs; release.py puts the parts together.
"""

import struct
from typing import NamedTuple

MAGIC_START0 = 0x0A324655
MAGIC_START1 = 0x9E5D5157
MAGIC_END = 0x0AB16F30
FLAG_NOT_MAIN_FLASH = 0x00000001
FLAG_FAMILY_ID_PRESENT = 0x00002000
RP2040_FAMILY_ID = 0xE48BFF56

BLOCK_BYTES = 512
DATA_BYTES = 476  # payload area of a block
PAGE_BYTES = 256  # the payload the RP2040 boot ROM takes, one flash page
SECTOR_BYTES = 4096  # the RP2040's flash erase unit (and the boot ROM's)
ERASED_PAGE = b"\xff" * PAGE_BYTES  # what an erased flash page reads as

RP2040_FLASH_START = 0x10000000  # XIP base: flash offset 0
RP2040_FLASH_END = 0x11000000  # 16 MiB window the boot ROM accepts

_HEADER = struct.Struct("<8I")
_END = struct.Struct("<I")


class UF2Error(ValueError):
    """Not a UF2 file, or not one the RP2040 boot ROM would write as given."""


class Block(NamedTuple):
    flags: int
    address: int
    payload: bytes  # payload_size bytes
    block_no: int
    num_blocks: int
    family_id: int  # the word at offset 28 (the file size when the family flag is clear)


def parse(data):
    """All blocks of a UF2 file, in file order; UF2Error on a malformed block."""
    if not data or len(data) % BLOCK_BYTES:
        raise UF2Error(
            "not a UF2 file: %d bytes is not a multiple of %d" % (len(data), BLOCK_BYTES)
        )
    blocks = []
    for offset in range(0, len(data), BLOCK_BYTES):
        raw = data[offset : offset + BLOCK_BYTES]
        m0, m1, flags, address, size, block_no, num_blocks, family = _HEADER.unpack_from(raw)
        (m_end,) = _END.unpack_from(raw, BLOCK_BYTES - 4)
        if (m0, m1, m_end) != (MAGIC_START0, MAGIC_START1, MAGIC_END):
            raise UF2Error("block %d has no UF2 magic numbers" % (offset // BLOCK_BYTES))
        if size > DATA_BYTES:
            raise UF2Error(
                "block %d: payload size %d > %d" % (offset // BLOCK_BYTES, size, DATA_BYTES)
            )
        payload = bytes(raw[_HEADER.size : _HEADER.size + size])
        blocks.append(Block(flags, address, payload, block_no, num_blocks, family))
    return blocks


def rp2040_pages(data):
    """[(address, 256-byte payload)] of a UF2 file, checked the way the RP2040 boot ROM
    checks it (family id, payload size, page-aligned flash address), plus the whole-file
    properties a flasher relies on: block numbers 0..n-1 in order, one block count, no
    address twice. UF2Error says what is wrong."""
    blocks = parse(data)
    seen = set()
    pages = []
    for i, block in enumerate(blocks):
        where = "block %d" % i
        if not block.flags & FLAG_FAMILY_ID_PRESENT or block.family_id != RP2040_FAMILY_ID:
            raise UF2Error(
                "%s is not for the RP2040 (family id 0x%08X, flags 0x%X)"
                % (where, block.family_id, block.flags)
            )
        if block.flags & FLAG_NOT_MAIN_FLASH:
            raise UF2Error("%s is marked 'not main flash'" % where)
        if len(block.payload) != PAGE_BYTES:
            raise UF2Error("%s carries %d bytes, not %d" % (where, len(block.payload), PAGE_BYTES))
        if block.address % PAGE_BYTES or not (
            RP2040_FLASH_START <= block.address < RP2040_FLASH_END
        ):
            raise UF2Error("%s targets 0x%08X, not a flash page" % (where, block.address))
        if block.block_no != i or block.num_blocks != len(blocks):
            raise UF2Error(
                "%s is numbered %d of %d; the file has %d blocks"
                % (where, block.block_no, block.num_blocks, len(blocks))
            )
        if block.address in seen:
            raise UF2Error("%s writes 0x%08X a second time" % (where, block.address))
        seen.add(block.address)
        pages.append((block.address, block.payload))
    return pages


def sector_complete(pages, fill=ERASED_PAGE):
    """The pages sorted by address, with every 4 KiB sector they touch filled up with `fill`
    pages (erratum RP2040-E14, see the module docstring). Pages must be page-aligned and
    distinct; their payloads are kept as they are."""
    by_address = dict(pages)
    if len(by_address) != len(pages):
        raise UF2Error("two pages for one address")
    sectors = {address - address % SECTOR_BYTES for address in by_address}
    for sector in sectors:
        for address in range(sector, sector + SECTOR_BYTES, PAGE_BYTES):
            by_address.setdefault(address, fill)
    return sorted(by_address.items())


def write(pages, family_id=RP2040_FAMILY_ID):
    """A UF2 file of the (address, 256-byte payload) pages in the order given, numbered
    0..n-1, each block carrying n and the family id."""
    pages = list(pages)
    out = bytearray()
    for block_no, (address, payload) in enumerate(pages):
        if len(payload) != PAGE_BYTES:
            raise UF2Error(
                "page 0x%08X has %d bytes, not %d" % (address, len(payload), PAGE_BYTES)
            )
        out += _HEADER.pack(
            MAGIC_START0,
            MAGIC_START1,
            FLAG_FAMILY_ID_PRESENT,
            address,
            PAGE_BYTES,
            block_no,
            len(pages),
            family_id,
        )
        out += bytes(payload) + bytes(DATA_BYTES - PAGE_BYTES)
        out += _END.pack(MAGIC_END)
    return bytes(out)


def pages_of(data, base):
    """Split bytes that belong at flash address `base` (page-aligned) into 256-byte pages;
    a short last page is padded with 0xFF (erased flash)."""
    if base % PAGE_BYTES:
        raise UF2Error("0x%08X is not page-aligned" % base)
    pages = []
    for offset in range(0, len(data), PAGE_BYTES):
        chunk = bytes(data[offset : offset + PAGE_BYTES])
        pages.append((base + offset, chunk + ERASED_PAGE[len(chunk) :]))
    return pages
