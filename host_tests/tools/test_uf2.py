"""tools/release/uf2.py: the UF2 format round trip, the RP2040 boot ROM's rules, and erratum E14
(sector erase by block number) checked against a fake of the boot ROM."""

import random
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.rp2040_bootrom import Bootrom

ROOT = Path(__file__).resolve().parents[2]

import uf2  # noqa: E402

BASE = uf2.RP2040_FLASH_START


def page(byte):
    return bytes([byte]) * uf2.PAGE_BYTES


@st.composite
def page_lists(draw):
    """Distinct page-aligned flash addresses with random payloads, in random order."""
    indexes = draw(st.lists(st.integers(0, 4095), min_size=1, max_size=40, unique=True))
    return [(BASE + i * 256, draw(st.binary(min_size=256, max_size=256))) for i in indexes]


@settings(max_examples=60, deadline=None)
@given(page_lists())
def test_write_then_parse_gives_back_every_page_numbered_across_the_file(pages):
    data = uf2.write(pages)
    assert len(data) == 512 * len(pages)
    blocks = uf2.parse(data)
    assert [(b.address, b.payload) for b in blocks] == pages
    assert [b.block_no for b in blocks] == list(range(len(pages)))
    assert {b.num_blocks for b in blocks} == {len(pages)}
    assert {b.family_id for b in blocks} == {uf2.RP2040_FAMILY_ID}
    assert {b.flags for b in blocks} == {uf2.FLAG_FAMILY_ID_PRESENT}
    assert uf2.rp2040_pages(data) == pages


def test_block_layout_matches_the_specification():
    data = uf2.write([(0x10000100, page(0xAB))])
    words = struct.unpack_from("<8I", data)
    assert words == (0x0A324655, 0x9E5D5157, 0x2000, 0x10000100, 256, 0, 1, 0xE48BFF56)
    assert data[32:288] == page(0xAB)
    assert data[288:508] == bytes(220)
    assert struct.unpack_from("<I", data, 508) == (0x0AB16F30,)


def block(address=BASE, payload=None, block_no=0, num_blocks=1, flags=0x2000, family=None):
    payload = page(1) if payload is None else payload
    family = uf2.RP2040_FAMILY_ID if family is None else family
    header = struct.pack(
        "<8I", 0x0A324655, 0x9E5D5157, flags, address, len(payload), block_no, num_blocks, family
    )
    return header + payload + bytes(476 - len(payload)) + struct.pack("<I", 0x0AB16F30)


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "not a multiple of 512"),
        (block()[:-1], "not a multiple of 512"),
        (b"\0" * 512, "no UF2 magic numbers"),
        (block(family=0xADA52840), "not for the RP2040"),
        (block(flags=0), "not for the RP2040"),
        (block(flags=0x2001), "'not main flash'"),
        (block(payload=bytes(128)), "carries 128 bytes, not 256"),
        (block(address=BASE + 0x80), "not a flash page"),
        (block(address=0x20000000), "not a flash page"),
        (block(block_no=1, num_blocks=2), "numbered 1 of 2; the file has 1 blocks"),
        (block(num_blocks=3), "numbered 0 of 3"),
        (block(block_no=0, num_blocks=2) + block(block_no=1, num_blocks=2), "a second time"),
    ],
)
def test_rp2040_pages_refuses_what_the_boot_rom_would_not_write(data, message):
    with pytest.raises(uf2.UF2Error, match=message.replace("(", r"\(").replace(")", r"\)")):
        uf2.rp2040_pages(data)


def test_payload_size_above_476_is_not_uf2():
    raw = bytearray(block())
    struct.pack_into("<I", raw, 16, 477)
    with pytest.raises(uf2.UF2Error, match="payload size 477"):
        uf2.parse(bytes(raw))


def test_pages_of_splits_and_pads_the_last_page_with_erased_flash():
    pages = uf2.pages_of(b"\x01" * 600, BASE + 0x1000)
    assert [a for a, _ in pages] == [BASE + 0x1000, BASE + 0x1100, BASE + 0x1200]
    assert pages[2][1] == b"\x01" * 88 + b"\xff" * 168
    with pytest.raises(uf2.UF2Error):
        uf2.pages_of(b"x", BASE + 1)


def test_sector_complete_fills_touched_sectors_and_keeps_payloads():
    pages = [(BASE + 0x2300, page(3)), (BASE, page(1)), (BASE + 0x100, page(2))]
    filled = uf2.sector_complete(pages)
    assert [a for a, _ in filled] == [BASE + i * 256 for i in range(16)] + [
        BASE + 0x2000 + i * 256 for i in range(16)
    ]
    got = dict(filled)
    assert got[BASE] == page(1) and got[BASE + 0x100] == page(2) and got[BASE + 0x2300] == page(3)
    assert all(got[a] == uf2.ERASED_PAGE for a in got if a not in dict(pages))


@settings(max_examples=60, deadline=None)
@given(page_lists())
def test_after_sector_complete_every_16_block_numbers_are_one_sector(pages):
    """Erratum RP2040-E14: the boot ROM erases by block_no * 256 // 4096."""
    blocks = uf2.parse(uf2.write(uf2.sector_complete(pages)))
    for b in blocks:
        first = blocks[b.block_no - b.block_no % 16]
        assert b.address // 4096 == first.address // 4096
        assert b.address % 4096 == (b.block_no % 16) * 256


def two_parts(padded):
    """A 'firmware' ending mid-sector and a 'filesystem' sector further up, as one file."""
    firmware = [(BASE + i * 256, page(0x10 + i)) for i in range(20)]  # 1 sector + 4 pages
    data = [(BASE + 0x8000 + i * 256, page(0x80 + i)) for i in range(16)]
    if padded:
        return uf2.write(uf2.sector_complete(firmware + data))
    return uf2.write(firmware + data)


def expected_flash(data, stale):
    flash = bytearray(stale)
    sectors = {a - a % 4096 for a, _ in uf2.rp2040_pages(data)}
    for sector in sectors:
        flash[sector - BASE : sector - BASE + 4096] = b"\xff" * 4096
    for address, payload in uf2.rp2040_pages(data):
        flash[address - BASE : address - BASE + 256] = payload
    return flash


def test_the_boot_rom_fake_reproduces_erratum_e14_on_an_unpadded_file():
    stale = bytes(0x5A for _ in range(0x10000))
    data = two_parts(padded=False)
    rom = Bootrom(stale)
    assert rom.copy_file(data)
    # blocks 16-31 share sector slot 1: block 16 (the firmware's tail) erases 0x1000, the
    # data's pages 0-11 (blocks 20-31) are programmed without an erase; block 32 (data page
    # 12) opens slot 2 and erases the data sector, wiping the 12 pages just written
    assert rom.flash != expected_flash(data, stale)
    assert rom.erased_sectors == [0, 0x1000, 0x8000]
    assert rom.flash[0x8000 : 0x8000 + 12 * 256] == b"\xff" * (12 * 256)


@pytest.mark.parametrize("shuffle", [False, True])
def test_a_sector_complete_file_is_written_exactly_in_any_block_order(shuffle):
    stale = bytes(random.Random(5).randrange(256) for _ in range(0x10000))
    data = two_parts(padded=True)
    order = list(range(len(data) // 512))
    if shuffle:
        random.Random(7).shuffle(order)
    rom = Bootrom(stale)
    assert rom.copy_file(data, order)
    assert rom.flash == expected_flash(data, stale)
