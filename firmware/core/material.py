"""Insufficient material at flag fall: is a flagged player's loss a loss or a draw?

Owns the material table of FIDE art. 6.9 and US Chess rule 14E and the entry design the
arbiter uses to tell the clock the material. Pure: no I/O, no time, and the decision
(`can_mate`, `flag_result`) allocates nothing, so it may run anywhere.

Material of one side is a 6-tuple of counts, king implied:
    (pawns, knights, light_bishops, dark_bishops, rooks, queens)
"Light"/"dark" is the colour of the squares the bishop runs on. A tuple is valid when every
count is >= 0, pawns <= 8 and the pieces beyond the starting set (knights over 2, bishops
over 1 per colour, rooks over 2, queens over 1) are at most 8 - pawns (promotions).

Rule sets (`rules`): FIDE (default; the strings "fide" and "uschess" are accepted too).
- FIDE 6.9: the flagged player loses unless the opponent cannot checkmate him by any
  series of legal moves; helpmates count, so the flagged player's own men matter.
- USCHESS 14E: drawn when the opponent has a lone king (14E1), only K+B or only K+N (14E2),
  or only K+N+N while the flagged player has no pawns (14E3); plus 14D4 (no legal series of
  moves mates), which is the FIDE test. 14E2/14E3 also require that the opponent "does not
  have a forced win": the clock cannot see the board, so it shows the draw and the arbiter
  may rule a loss when the position holds a forced mate.

Result codes for the flagged player: LOSS = 1, DRAW = 2 (0 is never returned; callers may
use it for "no result yet"). Bad input raises ValueError before anything is decided.

API: can_mate, flag_result, is_valid (the decision); choice_of, question, entry_result
(the entry). Constants: FIDE, USCHESS, LOSS, DRAW, OPP_*, N_CHOICES, ASK_*.

Entry design (for the UI; two steps, typically 1-3 presses; at most 6 when PLUS/MINUS wrap
around: 4 to reach OPP_NN, SET, one yes/no):
1. The arbiter picks ONE choice describing the opponent's (the non-flagged player's) army,
   PLUS/MINUS cycling through the N_CHOICES choices in this order, SET to confirm. The first
   choice is the usual case, the last (one MINUS away) is the arbiter's override:
     OPP_PRQ   a pawn, rook or queen (always a loss; no more questions)
     OPP_KING  a lone king            OPP_N    one knight only
     OPP_B     one bishop only        OPP_NN   two knights only
     OPP_NB    knight(s) and bishop(s) only
     OPP_BB    bishops on both square colours only
     OPP_BS    two or more bishops, all on one square colour, only
     OPP_NNN   three or more knights only
     OPP_DEAD  dead position declared by the arbiter (blocked pawns, fortress): draw
2. `question(choice, rules)` says whether one yes/no question about the flagged player
   follows (PLUS = yes, MINUS = no); most choices need none:
     ASK_NONE          nothing to ask, the result is known
     ASK_NOT_QUEENS    "has the flagged player any pawn, knight, bishop or rook?"
     ASK_BISHOP_HELP   "has the flagged player a pawn, a knight, or a bishop on the other
                        square colour than the opponent's bishop(s)?"
     ASK_PAWN          "has the flagged player a pawn?"
   Then `entry_result(choice, yes, rules)` gives LOSS or DRAW; it runs `flag_result` on a
   sample material for that answer, so the ruling still comes from the one table below.
"""

from micropython import const

FIDE = const(0)
USCHESS = const(1)

LOSS = const(1)
DRAW = const(2)

# Opponent choices, in the order the UI offers them (see the module docstring).
OPP_PRQ = const(0)
OPP_KING = const(1)
OPP_N = const(2)
OPP_B = const(3)
OPP_NN = const(4)
OPP_NB = const(5)
OPP_BB = const(6)
OPP_BS = const(7)
OPP_NNN = const(8)
OPP_DEAD = const(9)
N_CHOICES = const(10)

# Questions about the flagged player (see the module docstring).
ASK_NONE = const(0)
ASK_NOT_QUEENS = const(1)
ASK_BISHOP_HELP = const(2)
ASK_PAWN = const(3)

# Bits describing the army of the king to be mated (the flagged player's).
_KING = const(0x01)  # always set: every army has its king
_P = const(0x02)  # a pawn (a blocker, and it may promote to anything)
_N = const(0x04)  # a knight
_LB = const(0x08)  # a bishop on light squares
_DB = const(0x10)  # a bishop on dark squares
_R = const(0x20)  # a rook
_Q = const(0x40)  # a queen

# Classes of the mating army (the opponent's); index into the rows below.
_C_K = const(0)  # king alone
_C_N = const(1)  # exactly one knight
_C_NN = const(2)  # exactly two knights
_C_NNN = const(3)  # three or more knights
_C_LB = const(4)  # exactly one bishop, light squares
_C_DB = const(5)  # exactly one bishop, dark squares
_C_LBS = const(6)  # two or more bishops, all light
_C_DBS = const(7)  # two or more bishops, all dark
_C_BB = const(8)  # bishops on both colours, no knight
_C_NB = const(9)  # knight(s) and bishop(s)
_C_PRQ = const(10)  # any pawn, rook or queen

# A row holds the bits of the defending army that make a mate possible; mate is possible
# when row & defender_bits != 0. A row containing _KING mates even a bare king.
# Facts used: a mate by minor pieces alone needs the checked king's own men to block the
# squares they cannot cover. A knight only attacks squares of one colour, so next to the
# king it never covers the orthogonal neighbours; a bishop never covers the squares of the
# other colour. host_tests/core_cpython/test_material_python_chess.py checks every row against
# python-chess, checks each mate cited here, and searches the knight-vs-queens case.
_FIDE_ROWS = bytes(
    (
        # K: a king never gives check, so it never mates, whatever the defender has.
        0,
        # K+N: helpmate when the corner king is hemmed in by one of its own men, e.g. black
        # Kh8 Rg8, white Kh6 Nf7 mate. A pawn, knight, bishop (either colour) or rook can
        # block without reaching the knight; queens alone cannot: a queen beside its king
        # always attacks the checking knight's square or the line to it (exhaustive search).
        _P | _N | _LB | _DB | _R,
        # K+N+N: mates a bare king by a helpmate (black Kh8, white Kg6 Nf6 Nf7).
        _KING,
        # K+N+N+N...: more than two knights, same.
        _KING,
        # K+B (light): the two orthogonal neighbours of the checked king on the check's side
        # are dark; the white king covers at most one, the other needs a black blocker that
        # neither captures nor interposes: a pawn, knight or dark bishop (black Kh1 Ph2,
        # white Kf1 Bg2). A rook/queen there attacks the check line; a light bishop cannot
        # stand there.
        _P | _N | _DB,
        # K+B (dark): same with colours swapped.
        _P | _N | _LB,
        # K+B+B... all light: more bishops of one colour still cover no dark square.
        _P | _N | _DB,
        # K+B+B... all dark: same with colours swapped.
        _P | _N | _LB,
        # K+B+B on both colours: forced mate against a bare king.
        _KING,
        # K+B+N: forced mate against a bare king.
        _KING,
        # A pawn promotes to a queen; K+Q and K+R mate a bare king.
        _KING,
    )
)

# US Chess: a row of 0 or of _P is a 14E draw; otherwise the row is the FIDE row (14D4).
_US_ROWS = bytes(
    (
        # 14E1 lone king.
        0,
        # 14E2 king and knight only: draw even when a helpmate exists.
        0,
        # 14E3 king and two knights only: draw unless the flagged player has a pawn.
        _P,
        # Three or more knights is not in 14E: as FIDE.
        _KING,
        # 14E2 king and bishop only (light).
        0,
        # 14E2 king and bishop only (dark).
        0,
        # Two or more bishops of one colour is not in 14E; 14D4 (no mate possible) as FIDE.
        _P | _N | _DB,
        _P | _N | _LB,
        # Not in 14E: as FIDE.
        _KING,
        _KING,
        _KING,
    )
)


def _extra(count, start):
    # Pieces beyond the starting `start`: they must have come from promotions.
    return count - start if count > start else 0


def is_valid(m):
    """True when `m` is a 6-tuple (or list) of counts one side could have on the board."""
    if len(m) != 6:
        return False
    p, n, lb, db, r, q = m
    if p < 0 or n < 0 or lb < 0 or db < 0 or r < 0 or q < 0 or p > 8:
        return False
    promoted = _extra(n, 2) + _extra(lb, 1) + _extra(db, 1) + _extra(r, 2) + _extra(q, 1)
    return promoted <= 8 - p


def _rows(rules):
    if rules == FIDE or rules == "fide":
        return _FIDE_ROWS
    if rules == USCHESS or rules == "uschess":
        return _US_ROWS
    raise ValueError("unknown rules")


def _class(m):
    # Class of a (valid) mating army, see _C_*.
    p, n, lb, db, r, q = m
    if p or r or q:
        return _C_PRQ
    if n:
        if lb or db:
            return _C_NB
        return _C_N if n == 1 else (_C_NN if n == 2 else _C_NNN)
    if lb and db:
        return _C_BB
    if lb:
        return _C_LB if lb == 1 else _C_LBS
    if db:
        return _C_DB if db == 1 else _C_DBS
    return _C_K


def _bits(m):
    # Defender bits of a (valid) army, see _KING.._Q.
    p, n, lb, db, r, q = m
    bits = _KING
    if p:
        bits |= _P
    if n:
        bits |= _N
    if lb:
        bits |= _LB
    if db:
        bits |= _DB
    if r:
        bits |= _R
    if q:
        bits |= _Q
    return bits


def can_mate(side, other, rules=FIDE):
    """True when the army `side` could checkmate a king whose army is `other`.

    FIDE: by some series of legal moves (helpmates count). USCHESS: True when a flag fall
    of the `other` player would be a loss under 14E/14D4. Allocation-free; ValueError on a
    bad tuple or unknown rules.
    """
    rows = _rows(rules)
    if not is_valid(side) or not is_valid(other):
        raise ValueError("bad material")
    return rows[_class(side)] & _bits(other) != 0


def flag_result(opponent, flagged, rules=FIDE, dead_position=False):
    """LOSS or DRAW for the player whose flag fell; `opponent` is the other player's army.

    `dead_position` is the arbiter's override (blocked pawns, fortress: no legal series of
    moves mates): DRAW whatever the material, which is then not looked at (may be None).
    """
    rows = _rows(rules)  # validates `rules` even when the override is set
    if dead_position:
        return DRAW
    if not is_valid(opponent) or not is_valid(flagged):
        raise ValueError("bad material")
    return LOSS if rows[_class(opponent)] & _bits(flagged) else DRAW


# Sample opponent army per choice (OPP_DEAD has none); its bishops are light.
_SAMPLE = (
    (0, 0, 0, 0, 0, 1),  # OPP_PRQ
    (0, 0, 0, 0, 0, 0),  # OPP_KING
    (0, 1, 0, 0, 0, 0),  # OPP_N
    (0, 0, 1, 0, 0, 0),  # OPP_B
    (0, 2, 0, 0, 0, 0),  # OPP_NN
    (0, 1, 1, 0, 0, 0),  # OPP_NB
    (0, 0, 1, 1, 0, 0),  # OPP_BB
    (0, 0, 2, 0, 0, 0),  # OPP_BS
    (0, 3, 0, 0, 0, 0),  # OPP_NNN
)
# Sample flagged army for "yes" (a pawn answers yes to every question) and for "no".
_YES = (1, 0, 0, 0, 0, 0)
_NO = (0, 0, 0, 0, 0, 0)


def _check_choice(choice):
    if not 0 <= choice < N_CHOICES:
        raise ValueError("unknown choice")


# Entry choice per class of the opponent's army (light and dark merge: only the colour of
# the flagged player's bishops relative to the opponent's matters, and ASK_BISHOP_HELP asks it).
_CHOICE = bytes(
    (
        OPP_KING,  # _C_K
        OPP_N,  # _C_N
        OPP_NN,  # _C_NN
        OPP_NNN,  # _C_NNN
        OPP_B,  # _C_LB
        OPP_B,  # _C_DB
        OPP_BS,  # _C_LBS
        OPP_BS,  # _C_DBS
        OPP_BB,  # _C_BB
        OPP_NB,  # _C_NB
        OPP_PRQ,  # _C_PRQ
    )
)


def choice_of(opponent):
    """The entry choice that describes the army `opponent` (never OPP_DEAD)."""
    if not is_valid(opponent):
        raise ValueError("bad material")
    return _CHOICE[_class(opponent)]


def question(choice, rules=FIDE):
    """ASK_* question about the flagged player that must follow `choice`, or ASK_NONE."""
    rows = _rows(rules)
    _check_choice(choice)
    if choice == OPP_DEAD:
        return ASK_NONE
    row = rows[_class(_SAMPLE[choice])]
    if row == 0 or row & _KING:
        return ASK_NONE
    if row == _P:
        return ASK_PAWN
    if row & _R:
        return ASK_NOT_QUEENS
    return ASK_BISHOP_HELP


def entry_result(choice, yes=False, rules=FIDE):
    """LOSS or DRAW from the entry: the opponent `choice` and the answer to its question."""
    _rows(rules)
    _check_choice(choice)
    if choice == OPP_DEAD:
        return DRAW
    return flag_result(_SAMPLE[choice], _YES if yes else _NO, rules)
