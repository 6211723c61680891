"""docs/manual.md against the firmware's own texts, so the two cannot drift: every text the
displays can show is in the manual, every display text of its legend is one the firmware
shows, every time it writes is one the displays show, its settings table is the settings
menu and its preset table the presets, its button table's long presses are the key
handlers', its press counts for a correction the fewest the UI needs; and
`tools/sim/sim.py --help` lists the keys the README promises there.

How the firmware's display texts are found, without walking the screens (a text added to any
screen is found without this test knowing the screen): every bytes literal of the modules
that draw (firmware/ui/*.py and firmware/shell/*.py), read with `ast` (the implicit
concatenation of a packed label table is one literal), whose length is a multiple of 4 and
whose every character is printable ASCII (byte tables drop out), split into its
4-character entries (the packed tables' layout, ui_base.copy), all-blank entries left out;
in the shell only the literals of exactly 4 characters (each display of a message is one:
its file formats and USB lines drop out); plus the presets' codes as the chooser shows them
(presets.code, padded to 4) and the kept controls' slots (`CUS1` ... `CUS5`: ui_choose adds
the slot to the literal's digit, presets.KEPT of them).

Some entries are templates the screens fill as they draw: a number right-aligned over the
end (`P   ` -> `P  2`, `bY  ` -> `bY 3`, `bA  ` -> `bA85`, `b100`: ui_base.number), a period's
digit and a side's letter in the blanks (`t  n` -> `t1 n`, `t1rn`), the info page's marks
(`PF-2`). A manual text is an instance of an entry when it is the entry with its blanks
holding digits, `L`, `r`, `F` or `-`, or the entry's first characters and then a number
over the rest (at least two blanks of it). An
entry is documented when the manual has it, or an instance of it, in backticks.

The manual writes one display's 4 characters in backticks, blanks included, and a lit colon
as `:` between the second and third (` 5:00`), as the simulator's state lines do; a time is
checked by the set of every text timefmt can show (every layout's every value, ~5000 texts).
"""

import ast
import importlib.util
import io
import re
from contextlib import redirect_stdout
from pathlib import Path

import presets
import pytest
import segments
import settings as settings_mod
import timefmt
import ui_settings

ROOT = Path(__file__).resolve().parents[2]
MANUAL = ROOT / "docs" / "manual.md"
DRAWING = sorted((ROOT / "firmware" / "ui").glob("*.py")) + sorted(
    (ROOT / "firmware" / "shell").glob("*.py")
)
FILL = "0123456789LrF-"  # what the screens write into a template's blanks
_SPAN = re.compile(r"`([^`\n]+)`")


def sources():
    return {p.relative_to(ROOT).as_posix(): p.read_text() for p in DRAWING}


def has_glyphs(text):
    return all(segments.glyph(ord(c)) >= 0 for c in text)


def firmware_texts(srcs):
    """{4-character display text: the first module it is in} of `srcs` ({path: source})."""
    found = {}
    for path, source in srcs.items():
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.Constant) or not isinstance(node.value, bytes):
                continue
            v = node.value
            if not v or len(v) % 4 or not all(32 <= b < 127 for b in v):
                continue
            text = v.decode()
            if not path.startswith("firmware/ui/") and len(text) != 4:
                continue  # the shell's other bytes: file formats, USB lines
            for i in range(0, len(text), 4):
                entry = text[i : i + 4]
                if entry.strip():
                    found.setdefault(entry, path)
    return found


def all_firmware_texts(srcs=None):
    found = firmware_texts(sources() if srcs is None else srcs)
    for i in range(presets.COUNT):
        found.setdefault(presets.code(i).ljust(4), "firmware/core/presets.py")
    for slot in range(2, presets.KEPT + 1):
        found.setdefault("CUS%d" % slot, "firmware/ui/ui_choose.py")
    return found


def instance(shown, entry):
    """True when the display text `shown` is `entry`, or `entry` filled as the screens fill
    it (see the module doc)."""
    if len(shown) != 4:
        return False
    if all(s == e or (e == " " and s in FILL) for s, e in zip(shown, entry, strict=True)):
        return True
    # a number wider than the blanks covers the label's end (ui_base.number: `b100`)
    return any(
        shown[:k] == entry[:k]
        and entry[k:].count(" ") >= 2
        and shown[k:].isdigit()
        and shown[k] != "0"
        for k in range(1, 3)
    )


def spans(text):
    """Every backticked span of a markdown text, outside code fences."""
    out = []
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            out += _SPAN.findall(line)
    return out


def display_looking(span):
    """A span that reads as one display: 4 characters with glyphs, or 5 with the colon."""
    if len(span) == 5 and span[2] == ":":
        span = span[:2] + span[3:]
    return len(span) == 4 and has_glyphs(span)


def times():
    """Every time text the displays can show (the colon as `:`), countdown and count-up,
    the menus' whole-second fields (tenths off) too."""
    out = set()
    buf = bytearray(4)
    steps = ((0, 10_000, 100), (10_000, 3_600_000, 1_000), (3_600_000, 36_000_000, 60_000))
    steps += ((36_000_000, 360_000_000, 600_000),)
    for lo, hi, step in steps:
        for t in range(lo, hi + step, step):
            for up, tenths in ((True, 10), (False, 10), (True, 0)):
                colon = timefmt.format_into(buf, t, up, tenths)
                s = buf.decode()
                out.add(s[:2] + ":" + s[2:] if colon else s)
    return out


TIMES = times()


def is_number(span):
    """A number as ui_base.number shows one: right-aligned, no leading zero."""
    digits = span.lstrip(" ")
    return digits.isdigit() and (digits == "0" or digits[0] != "0") and len(span) == 4


def section(text, heading):
    return text.split("\n## %s\n" % heading, 1)[1].split("\n## ", 1)[0]


def undocumented(texts, manual_text):
    shown = [s for s in spans(manual_text) if len(s) == 4]
    return sorted(t for t in texts if not any(instance(s, t) for s in shown))


def strangers(legend, texts):
    """The legend's display texts that are no firmware text, time or number."""
    out = []
    for s in spans(legend):
        if not display_looking(s) or s in TIMES or is_number(s):
            continue
        if not any(instance(s, t) for t in texts):
            out.append(s)
    return out


# ------------------------------------------------------------------ the checks


def test_every_display_text_of_the_firmware_is_in_the_manual():
    texts = all_firmware_texts()
    assert len(texts) > 100  # the search found the screens' tables
    missing = undocumented(texts, MANUAL.read_text())
    assert missing == [], ["%r (%s)" % (t, texts[t]) for t in missing]


# Texts with a character that has no seven-segment glyph (segments.py: it shows blank), and
# what the display shows instead. The firmware's to change; the manual says what shows.
WITHOUT_GLYPH = {
    "FIX ": "FI  ",  # appfiles.py, the settings repaired: X has no glyph
    "SAVE": "SA E",  # appfiles.py, a write failed: V has no glyph
}


def test_every_display_text_has_a_glyph_for_each_character():
    texts = all_firmware_texts()
    assert {t for t in texts if not has_glyphs(t)} == set(WITHOUT_GLYPH)


def test_every_display_text_of_the_legend_is_the_firmwares():
    legend = section(MANUAL.read_text(), "Display legend")
    assert strangers(legend, all_firmware_texts()) == []


def test_every_time_in_the_manual_is_one_the_displays_show():
    """One notation for a time on a display: 4 characters, the lit colon as `:` between the
    second and third (` 5:00`, ` 9:7 `, `1h29`)."""
    bad = [
        s
        for s in spans(MANUAL.read_text())
        if re.fullmatch(r"[ 0-9h]*:[ 0-9]*", s) and re.search(r"\d", s) and s not in TIMES
    ]
    assert bad == []


def test_the_settings_table_is_the_settings_menu():
    """A row per item of ui_settings.ITEMS, in the menu's order: its label, every value
    label, the default (bold) as settings.defaults() has it."""
    rows = []
    for line in section(MANUAL.read_text(), "Settings").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) >= 3:
            rows.append(cells)
    defaults = settings_mod.defaults()
    assert [r[0] for r in rows] == ["`%s`" % item[0].decode() for item in ui_settings.ITEMS]
    for row, (_label, key, values, labels) in zip(rows, ui_settings.ITEMS, strict=True):
        default = values.index(defaults[key])
        if labels is None:
            shown = ["%4d" % v for v in values]
        else:
            shown = [labels[4 * i : 4 * i + 4].decode() for i in range(len(values))]
        for i, text in enumerate(shown):
            mark = "**`%s`**" % text if i == default else "`%s`" % text
            assert mark in row[1], (row[0], text)


def test_the_preset_table_is_the_presets():
    rows = []
    for line in section(MANUAL.read_text(), "Presets").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].isdigit():
            rows.append((int(cells[0]), cells[1], cells[2]))
    want = [(i, "`%s`" % presets.code(i).ljust(4), presets.name(i)) for i in range(presets.COUNT)]
    assert rows == want


# ------------------------------------------------------------------ the checks can fail


def test_a_label_changed_in_the_firmware_is_found():
    srcs = sources()
    path = "firmware/ui/ui_settings.py"
    srcs[path] = srcs[path].replace('b"FrEE"', 'b"Fr E"')
    texts = all_firmware_texts(srcs)
    assert undocumented(texts, MANUAL.read_text()) == ["Fr E"]


def test_a_text_the_firmware_does_not_show_is_found():
    legend = "| `bAtS` ` 500` ` 5:00` `5:00` `1h29` `b100` `P  2` `   7` |"
    assert strangers(legend, all_firmware_texts()) == ["bAtS"]
    assert "5:00" not in TIMES and " 500" not in TIMES and " 5:00" in TIMES


def test_instances_of_templates():
    assert instance("t1rn", "t  n") and instance("bY 3", "bY  ") and instance("PF-2", "P   ")
    assert instance("b100", "bA  ") and not instance("bAx5", "bA  ")
    assert not instance("b100", "bb= ") and not instance("b100", "b-b ")
    assert not instance("FIdE", "FrEE") and not instance("P  x", "P   ")


# ------------------------------------------------------------------ the simulator's keys


def load_sim():
    spec = importlib.util.spec_from_file_location("sim_manual", ROOT / "tools" / "sim" / "sim.py")
    sim = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sim)
    return sim


def test_sim_help_lists_every_key_and_its_doc_the_same_lines():
    """README: "`tools/sim/sim.py --help` lists every key"."""
    assert "`tools/sim/sim.py --help` lists every key" in (ROOT / "README.md").read_text()
    sim = load_sim()
    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit):
        sim.main(["--help"])
    text = out.getvalue()
    for line in sim.key_lines():
        assert line in text
        assert "    " + line + "\n" in sim.__doc__
    listed = " ".join(sim.key_lines())
    for key in list(sim.KEYS) + [k for k, _what in sim.OTHER_KEYS]:
        assert ("space" if key == " " else key) + " " in listed
    assert "--usb" in sim.__doc__ and "socket://127.0.0.1:8131" in sim.__doc__


# ------------------------------------------------------------------ the long presses


def _screens():
    """{the button table's screen: a Ui showing it}, built through the UI's own keys."""
    import engine as E
    import game_state
    import settings
    import ui
    from ui_arbiter import A_DEAD

    t0 = 1_000

    def ready(preset=7):
        u = ui.Ui(settings.defaults())
        u.settings["control"] = {"preset": preset}
        u.new_game()
        return u

    def running():
        u = ready()
        u.game.press(1, t0)
        return u

    def paused():
        u = running()
        u.game.press(0, t0 + 3_000)
        u.game.pause(t0 + 4_000)
        return u

    def flagged():
        u = ready(8)  # Bullet 1+0
        u.game.press(1, t0)
        u.game.tick_due(t0 + 61_000, 0)
        assert u.game.state == E.FLAGGED
        return u

    def finished():
        u = paused()
        u.key(ui.SET, ui.LONG, t0)
        u.screen_of(ui.S_ARBITER).cursor = A_DEAD
        u.key(ui.PLAY, ui.SHORT, t0)
        assert u.game.state == E.FINISHED and u.screen == ui.S_GAME
        return u

    def keyed(make, *keys):
        u = make()
        for button, kind in keys:
            u.key(button, kind, t0)
        return u

    def resume():
        u = ready()
        u.offer_resume(game_state.snapshot(paused().game))
        return u

    def message():
        u = ready()
        u.show_message(b"SAVE", b"Err ", t0)
        return u

    short_set, long_set = (ui.SET, ui.SHORT), (ui.SET, ui.LONG)
    return {
        "ready (times shown)": ready,
        "running": running,
        "paused": paused,
        "flag fallen": flagged,
        "finished (the result)": finished,
        "choose preset": lambda: keyed(ready, short_set),
        "custom editor": lambda: keyed(ready, short_set, short_set),
        "settings": lambda: keyed(ready, long_set),
        "arbiter menu": lambda: keyed(paused, long_set),
        "material entry": lambda: keyed(flagged, short_set),
        "resume offer (`rES `)": resume,
        "a message (2 s)": message,
    }


def test_each_long_press_does_what_the_button_table_says():
    """The button table's SET long column, screen by screen, against the UI's key handlers:
    `settings` / `new game, then the settings` open the settings, `arbiter menu` the arbiter
    menu, `cancel` / `back` / `ends it` the game screen, `-` nothing. PLAY held (LONG) does
    nothing (the manual's buttons paragraph), but end a message as any key does."""
    import ui

    text = MANUAL.read_text()
    table = section(text, "Buttons and screens").split("| screen | PLAY |", 1)[1]
    rows = []
    for line in table.splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    screens = _screens()
    assert [r[0] for r in rows] == list(screens)
    for name, _play, _short, long_cell, _plus in rows:
        u = screens[name]()
        before = (u.screen, u.game.state)
        if not name.startswith("a message"):  # any key ends a message, a held PLAY too
            u.key(ui.PLAY, ui.LONG, 1_000)
            assert (u.screen, u.game.state) == before, name
        u.key(ui.SET, ui.LONG, 1_000)
        if long_cell == "-":
            want = before[0]
        elif long_cell.startswith(("settings", "new game, then the settings")):
            want = ui.S_SETTINGS
        elif long_cell == "arbiter menu":
            want = ui.S_ARBITER
        else:
            assert long_cell.startswith(("cancel", "back", "ends it")), long_cell
            want = ui.S_GAME
        assert u.screen == want, (name, long_cell)
        if name.startswith("finished"):
            assert u.game.state == ui.E.READY  # a new game, then the settings


# ------------------------------------------------------------------ the manual's press counts


def _fewest_presses(make, field_sets, target, read):
    """The fewest presses that take a field from its value to `target`, a hold (one press,
    any number of repeats) then taps, or taps alone: each tried on the real UI (`make` a
    paused game's Ui, `field_sets` SETs into the arbiter menu to the field, `read` its
    value from the menu)."""
    import ui

    best = None
    for repeats in range(0, 16):
        for button in (ui.MINUS, ui.PLUS):
            u = make()
            u.key(ui.SET, ui.LONG, 1_000)
            for _ in range(field_sets):
                u.key(ui.SET, ui.SHORT, 1_000)
            menu = u.screen_of(ui.S_ARBITER)
            for _ in range(repeats):
                u.key(button, ui.REPEAT, 1_000 + 150 * _)
            presses = 1 if repeats else 0
            taps = 0
            while read(menu) != target and taps < 12:
                u.key(ui.PLUS if read(menu) < target else ui.MINUS, ui.SHORT, 9_000)
                taps += 1
            if read(menu) == target and (best is None or presses + taps < best):
                best = presses + taps
    return best


def test_the_corrections_take_the_presses_the_manual_counts():
    """The manual: within ±5 min a time's minutes take at most 2 presses, ±50 s its seconds
    at most 6, ±5 moves at most 2; so 29 presses for both times and both move counters."""
    import ui

    def paused():
        u = ui.Ui(settings_mod.defaults())
        u.settings["control"] = {"preset": 4}  # Rapid 10+5
        u.new_game()
        g = u.game
        t = 1_000
        for i in range(12):  # 6 moves each, the left's time at 9:57 + increments
            g.press(1 - i % 2, t)
            t += 3_000
        g.pause(t)
        return u

    value = lambda menu: menu.value  # noqa: E731
    start = paused().game
    left, moves = start.remaining(0, 0), start.moves[0]
    worst_min = max(_fewest_presses(paused, 0, left + m * 60_000, value) for m in range(-5, 6))
    worst_s = max(_fewest_presses(paused, 1, left + s * 1_000, value) for s in range(-50, 51))
    worst_moves = max(_fewest_presses(paused, 4, moves + k, value) for k in range(-5, 6))
    assert (worst_min, worst_s, worst_moves) == (2, 6, 2)
    text = " ".join(MANUAL.read_text().split())
    assert "1 + 1 + 2 × (2 + 1 + 6 + 1) + 2 × (2 + 1) + 1 = 29 presses" in text
    assert 1 + 1 + 2 * (worst_min + 1 + worst_s + 1) + 2 * (worst_moves + 1) + 1 == 29
