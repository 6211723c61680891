"""The custom editor's draft (ui_custom.py): a control as lists the editor changes in place,
read from a settings control and built back into a control and its settings form.

Pure module, two functions. The draft is `(sides, odds, draw)`:
- `sides`: per side, 0 left and 1 right, `[periods, ot]`; `periods` is
  `[[time_s, moves, bonus, bonus_s], ...]` and `ot` is `[kind, count, time_s]` with kind 0
  (no overtime), 1 byo-yomi or 2 Canadian (the index in OT_MODES). The kind is the left's
  for both sides (one mode per game); the right's `ot` holds its own count and time.
- `odds`: time odds, the right side plays its own fields (else both play the left's);
- `draw`: timecontrol.DRAW_ODDS_*.
"""

import presets
import timecontrol as T

OT_MODES = (T.MODE_COUNTDOWN, T.MODE_BYOYOMI, T.MODE_CANADIAN)  # by the draft's ot kind


def _side(mode, periods, overtime):
    """[periods, ot] of one side, copied from a settings or preset control."""
    kind = OT_MODES.index(mode) if mode in OT_MODES and overtime else 0
    ot = [kind, overtime[0], overtime[1]] if kind else [0, 0, 0]
    return [[list(p) for p in periods], ot]


def load(c):
    """The draft of a settings control dict (a preset or a custom one), its sides as they
    stand on the clock (a swapped control comes swapped)."""
    if "custom" in c:
        custom = c["custom"]
        mode = custom["mode"]
        right = custom.get("right") or custom
        sides = [_side(mode, x["periods"], x.get("overtime")) for x in (custom, right)]
        odds = "right" in custom
        draw = custom.get("draw_odds", 0)
    else:
        i = c["preset"]
        row = presets.PRESETS[i]
        right = presets.right_side(i)
        odds = right is not None
        if not odds:
            right = (row[3], presets.overtime(i))
        sides = [_side(row[2], row[3], presets.overtime(i)), _side(row[2], right[0], right[1])]
        draw = presets.draw_odds(i)
    if c.get("swap") and odds:
        sides.reverse()
    return sides, odds, draw


def build(sides, odds, draw, swap=False):
    """(control, c) of the draft: the TimeControl or timecontrol.Odds to play, and the
    settings' control dict {"custom": ...}. `swap`: the draft came from a swapped control
    (load's sides as they stand); with time or draw odds the settings keep the sides in
    their own order with "swap" beside, so White's side stays where it was (a swapped
    Armageddon edited keeps White on the right). Moves are tidied first (only the last
    period is sudden death). Raises timecontrol.TimeControlError when a side's control does
    not build."""
    kind = sides[0][1][0] if len(sides[0][0]) == 1 else 0
    mode = OT_MODES[kind]
    controls = []
    specs = []
    for s in (0, 1) if odds else (0,):
        periods, ot = sides[s]
        for p in periods[:-1]:
            if p[1] == 0:
                p[1] = 1
        periods[-1][1] = 0
        overtime = [ot[1], ot[2]] if kind else None
        controls.append(T.from_seconds(mode, periods, "custom", overtime))
        spec = {"periods": [list(p) for p in periods]}
        if overtime:
            spec["overtime"] = overtime
        specs.append(spec)
    control = controls[0]
    swap = swap and (odds or draw)
    if odds or draw:
        control = T.Odds(control, controls[-1], draw, "custom", 1 if swap else 0)
    if swap:
        specs.reverse()  # the settings' left is White's side
    custom = specs[0]
    custom["mode"] = mode
    if odds:
        custom["right"] = specs[1]
    if draw:
        custom["draw_odds"] = draw
    c = {"custom": custom}
    if swap:
        c["swap"] = True
    return control, c
