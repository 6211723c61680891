"""A fake of the RP2040 boot ROM's UF2 writer, for host tests of release images.

It follows pico-bootrom-rp2040 bootrom/virtual_disk.c (vd_write_block, _write_uf2_page,
_update_current_uf2_info) block by block:
- a block is taken only with the magic numbers, the family-id flag with 0xE48BFF56, the
  'not main flash' flag clear, payload size 256, a page-aligned flash address, and
  block_no < num_blocks; a block whose num_blocks differs from the transfer's starts a new
  transfer (the bitmaps are cleared);
- a block number already seen is ignored;
- erase: the sector slot is block_no * 256 // 4096 (the block *number*, not the address:
  erratum RP2040-E14); the first block of a slot erases the 4 KiB sector that holds *its*
  address, later blocks of the same slot erase nothing;
- programming a page ANDs the payload into flash, as NOR flash does;
- it reports done once num_blocks distinct blocks were written (it would reboot).
Flash starts with whatever the test puts there, e.g. an older filesystem.
"""

import struct

FLASH_BASE = 0x10000000
PAGE = 256
SECTOR = 4096
_MAGICS = (0x0A324655, 0x9E5D5157)
_MAGIC_END = 0x0AB16F30
_RP2040 = 0xE48BFF56


class Bootrom:
    def __init__(self, flash):
        self.flash = bytearray(flash)  # flash offset 0 = address 0x10000000
        self.num_blocks = 0
        self.valid = set()
        self.cleared = set()
        self.erased_sectors = []  # flash offsets, in the order they were erased

    def write_block(self, raw):
        """One 512-byte sector written to the RPI-RP2 drive."""
        m0, m1, flags, addr, size, block_no, num_blocks, family = struct.unpack_from("<8I", raw)
        (m_end,) = struct.unpack_from("<I", raw, 508)
        if (m0, m1) != _MAGICS or m_end != _MAGIC_END:
            return
        if not flags & 0x2000 or family != _RP2040 or flags & 0x1 or size != PAGE:
            return
        offset = addr - FLASH_BASE
        if addr % PAGE or not 0 <= offset < len(self.flash) or num_blocks == 0:
            self.num_blocks = 0
            return
        if num_blocks != self.num_blocks:
            self.num_blocks = num_blocks
            self.valid = set()
            self.cleared = set()
        if block_no >= num_blocks or block_no in self.valid:
            return
        slot = block_no * PAGE // SECTOR
        if slot not in self.cleared:
            sector = offset - offset % SECTOR
            self.flash[sector : sector + SECTOR] = b"\xff" * SECTOR
            self.erased_sectors.append(sector)
            self.cleared.add(slot)
        payload = raw[32 : 32 + PAGE]
        for i in range(PAGE):
            self.flash[offset + i] &= payload[i]
        self.valid.add(block_no)

    def copy_file(self, data, order=None):
        """Write a whole .uf2 as a host would (optionally in another block order); True when
        the boot ROM would reboot into the new image."""
        count = len(data) // 512
        for i in order if order is not None else range(count):
            self.write_block(data[i * 512 : (i + 1) * 512])
        return self.num_blocks > 0 and len(self.valid) == self.num_blocks
