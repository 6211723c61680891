"""Exhaustive check of material.can_mate (FIDE) against python-chess, plus the cited mates.

python-chess's Board.has_insufficient_material(color) is True when *color* cannot win by
any legal series of moves, judged from the material and the colours of the bishops only,
so `can_mate(color's army, other army)` must equal `not has_insufficient_material(color)`
on any legal position with that material. Every pair of armies with 0-2 knights, 0-2 light
and 0-2 dark bishops and 0-1 pawn, rook and queen per side (216 x 216 pairs) is put on a
legal board and asked both ways; a few promoted armies (three knights, several bishops of
one colour, two queens) are added. No disagreement is expected or tolerated.
"""

import chess
import material as m
import pytest
from test_material import small_armies  # the same generator as the core tests

# Fixed squares per (colour, kind), chosen so that no man attacks the enemy king whatever
# subset is on the board (kings on b1 and g8; bishops on squares of their colour).
WHITE_SQUARES = {
    "K": ["b1"],
    "P": ["a2"],
    "N": ["c3", "f3"],
    "LB": ["c2", "e2"],
    "DB": ["d2", "g3"],
    "R": ["a1"],
    "Q": ["d1"],
}
BLACK_SQUARES = {
    "K": ["g8"],
    "P": ["a7"],
    "N": ["c6", "f6"],
    "LB": ["c8", "e6"],
    "DB": ["f8", "d6"],
    "R": ["h8"],
    "Q": ["d8"],
}
KINDS = ("P", "N", "LB", "DB", "R", "Q")  # tuple order of material.py
PIECE = {
    "K": chess.KING,
    "P": chess.PAWN,
    "N": chess.KNIGHT,
    "LB": chess.BISHOP,
    "DB": chess.BISHOP,
    "R": chess.ROOK,
    "Q": chess.QUEEN,
}


def armies():
    """The issue's range: 0-2 knights, 0-2 bishops per colour, 0-1 pawn, rook, queen."""
    return small_armies(max_knights=2)


def fixed_board(white, black):
    board = chess.Board(None)
    for colour, army, squares in (
        (chess.WHITE, white, WHITE_SQUARES),
        (chess.BLACK, black, BLACK_SQUARES),
    ):
        board.set_piece_at(chess.parse_square(squares["K"][0]), chess.Piece(chess.KING, colour))
        for kind, count in zip(KINDS, army, strict=True):
            for name in squares[kind][:count]:
                board.set_piece_at(chess.parse_square(name), chess.Piece(PIECE[kind], colour))
    return board


def is_light(square):
    return bool(chess.BB_LIGHT_SQUARES & chess.BB_SQUARES[square])


def greedy_board(white, black):
    # Any-size armies: each man goes on the first free square that suits it (bishop colour,
    # pawns off the back ranks) and does not attack the enemy king. Adding men only closes
    # lines, so no earlier man starts giving check.
    board = chess.Board(None)
    kings = {chess.WHITE: chess.B1, chess.BLACK: chess.G8}
    for colour, king in kings.items():
        board.set_piece_at(king, chess.Piece(chess.KING, colour))
    for colour, army in ((chess.WHITE, white), (chess.BLACK, black)):
        enemy_king = kings[not colour]
        for kind, count in zip(KINDS, army, strict=True):
            for _ in range(count):
                for sq in chess.SQUARES if colour == chess.WHITE else reversed(chess.SQUARES):
                    if board.piece_at(sq) is not None:
                        continue
                    if chess.square_distance(sq, enemy_king) <= 1:
                        continue
                    if kind == "P" and chess.square_rank(sq) in (0, 7):
                        continue
                    if kind in ("LB", "DB") and is_light(sq) != (kind == "LB"):
                        continue
                    board.set_piece_at(sq, chess.Piece(PIECE[kind], colour))
                    if board.is_attacked_by(colour, enemy_king):
                        board.remove_piece_at(sq)
                        continue
                    break
                else:
                    raise AssertionError("no square for %s" % kind)
    return board


def material_of(board, colour):
    # The tuple read back from the board, so the placement itself is checked too.
    bishops = board.pieces(chess.BISHOP, colour)
    light = len(bishops & chess.SquareSet(chess.BB_LIGHT_SQUARES))
    return (
        len(board.pieces(chess.PAWN, colour)),
        len(board.pieces(chess.KNIGHT, colour)),
        light,
        len(bishops) - light,
        len(board.pieces(chess.ROOK, colour)),
        len(board.pieces(chess.QUEEN, colour)),
    )


def disagreements(pairs, make_board):
    bad = []
    for white, black in pairs:
        board = make_board(white, black)
        assert board.is_valid(), (white, black, board.fen())
        assert not board.is_check(), (white, black, board.fen())
        assert material_of(board, chess.WHITE) == white
        assert material_of(board, chess.BLACK) == black
        for colour, side, other in ((chess.WHITE, white, black), (chess.BLACK, black, white)):
            ours = m.can_mate(side, other, m.FIDE)
            theirs = not board.has_insufficient_material(colour)
            if ours != theirs:
                bad.append((side, other, ours, board.fen()))
    return bad


def test_every_small_pair_agrees_with_python_chess():
    all_armies = armies()
    assert len(all_armies) == 216
    pairs = [(w, b) for w in all_armies for b in all_armies]
    assert disagreements(pairs, fixed_board) == []


PROMOTED = (
    (0, 3, 0, 0, 0, 0),
    (0, 4, 0, 0, 0, 0),
    (0, 0, 3, 0, 0, 0),
    (0, 0, 0, 4, 0, 0),
    (0, 0, 3, 1, 0, 0),
    (0, 3, 2, 0, 0, 0),
    (0, 0, 0, 0, 0, 2),
    (0, 0, 0, 0, 3, 3),
    (0, 0, 2, 0, 2, 2),
    (0, 1, 0, 0, 0, 3),
    (1, 0, 0, 3, 0, 2),
    (6, 0, 0, 0, 0, 0),
    (0, 0, 0, 0, 0, 0),
    (0, 1, 0, 0, 0, 0),
    (0, 0, 1, 0, 0, 0),
    (0, 0, 0, 1, 0, 0),
    (0, 0, 0, 0, 1, 0),
    (1, 0, 0, 0, 0, 0),
    (0, 2, 1, 1, 2, 1),
)


def test_promoted_armies_agree_with_python_chess():
    for army in PROMOTED:
        assert m.is_valid(army), army
    pairs = [(w, b) for w in PROMOTED for b in PROMOTED]
    assert disagreements(pairs, greedy_board) == []


# The mates cited in material.py's table and in the core tests: each FEN must be a legal
# checkmate (black to move) with the material named, so the helpmate claims are concrete.
CITED_MATES = (
    # (FEN, mating army, mated army)
    ("6rk/5N2/7K/8/8/8/8/8 b - - 0 1", (0, 1, 0, 0, 0, 0), (0, 0, 0, 0, 1, 0)),
    ("5K1k/5N1p/8/8/8/8/8/8 b - - 0 1", (0, 1, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0)),
    ("6nk/5N2/6K1/8/8/8/8/8 b - - 0 1", (0, 1, 0, 0, 0, 0), (0, 1, 0, 0, 0, 0)),
    ("5K1k/5N1b/8/8/8/8/8/8 b - - 0 1", (0, 1, 0, 0, 0, 0), (0, 0, 1, 0, 0, 0)),
    ("8/8/8/8/8/8/5N1b/5K1k b - - 0 1", (0, 1, 0, 0, 0, 0), (0, 0, 0, 1, 0, 0)),
    ("7k/5N2/5NK1/8/8/8/8/8 b - - 0 1", (0, 2, 0, 0, 0, 0), (0, 0, 0, 0, 0, 0)),
    ("8/8/8/8/8/8/6Bb/5K1k b - - 0 1", (0, 0, 1, 0, 0, 0), (0, 0, 0, 1, 0, 0)),
    ("8/8/8/8/8/8/5KBn/7k b - - 0 1", (0, 0, 1, 0, 0, 0), (0, 1, 0, 0, 0, 0)),
    ("8/8/8/8/8/8/6Bp/5K1k b - - 0 1", (0, 0, 1, 0, 0, 0), (1, 0, 0, 0, 0, 0)),
    ("8/8/8/8/8/8/bB6/k1K5 b - - 0 1", (0, 0, 0, 1, 0, 0), (0, 0, 1, 0, 0, 0)),
    ("8/8/8/8/8/8/pB6/k1K5 b - - 0 1", (0, 0, 0, 1, 0, 0), (1, 0, 0, 0, 0, 0)),
)


@pytest.mark.parametrize("fen,mating,mated", CITED_MATES, ids=lambda x: str(x))
def test_cited_mates_are_legal_checkmates(fen, mating, mated):
    board = chess.Board(fen)
    assert board.is_valid(), fen
    assert board.is_checkmate(), fen
    assert material_of(board, chess.WHITE) == mating
    assert material_of(board, chess.BLACK) == mated
    assert m.can_mate(mating, mated)


def test_knight_cannot_mate_a_king_with_only_queens():
    # Independent of python-chess's material rule: search every mate pattern of K+N against
    # a king with 1-2 queens. Bare king a1..d4 (the eight board symmetries cover the rest;
    # no pawns), knight on a checking square, white king anywhere legal, queens on the
    # king's neighbours: a queen elsewhere blocks no flight, and if it blocked another
    # queen's line it would itself be the first piece on that line, so dropping it from a
    # mate leaves a mate. (A scratch run over all 256 neighbour subsets found none either.)
    triangle = [chess.A1, chess.B1, chess.C1, chess.D1, chess.B2]
    triangle += [chess.C2, chess.D2, chess.C3, chess.D3, chess.D4]
    for bk in triangle:
        around = list(chess.SquareSet(chess.BB_KING_ATTACKS[bk]))
        for wn in chess.SquareSet(chess.BB_KNIGHT_ATTACKS[bk]):
            for wk in chess.SQUARES:
                if wk == wn or chess.square_distance(wk, bk) <= 1:
                    continue
                free = [s for s in around if s not in (wk, wn)]
                sets = [(q,) for q in free]
                sets += [(a, b) for i, a in enumerate(free) for b in free[i + 1 :]]
                for queens in sets:
                    board = chess.Board(None)
                    board.set_piece_at(bk, chess.Piece(chess.KING, chess.BLACK))
                    board.set_piece_at(wk, chess.Piece(chess.KING, chess.WHITE))
                    board.set_piece_at(wn, chess.Piece(chess.KNIGHT, chess.WHITE))
                    for q in queens:
                        board.set_piece_at(q, chess.Piece(chess.QUEEN, chess.BLACK))
                    board.turn = chess.BLACK
                    if not board.was_into_check():
                        assert not board.is_checkmate(), board.fen()
    assert not m.can_mate((0, 1, 0, 0, 0, 0), (0, 0, 0, 0, 0, 1))
    assert not m.can_mate((0, 1, 0, 0, 0, 0), (0, 0, 0, 0, 0, 2))
