"""The documents: every relative link and anchor resolves, the front page stays a front page,
the picture is what the firmware shows, and no docstring, comment or document tells history.

History belongs in `git log`; a text says what is and why. The history check reads the
documents whole and, in Python sources, only comments and docstrings (code and test data may
hold hex that looks like a commit). Legitimate uses of the words are phrased without
numbers ("the rp2 port's issue tracker"), or listed in ALLOWED with the reason.
"""

import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", ROOT / "hardware" / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
SOURCE_DIRS = ("firmware", "tools", "host_tests")

# "issue", "phase" or "issues" with a number after it (a "#" allowed), and "until" + "issue"
_HISTORY = re.compile(r"\b(?:issues?|phases?)\s+#?\d+|\buntil issue\b", re.IGNORECASE)
# A short commit hash: 7-12 lowercase hex digits with at least one letter and one digit.
_HASH = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,12}\b")
# (path relative to ROOT, exact text) that the checks may meet, and why.
ALLOWED = ()

_TRIPLE = ('"""', "'''")
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped (letters, digits,
    `_`, `-` and spaces kept), spaces as hyphens."""
    text = re.sub(r"`|\*\*|\*", "", heading).strip().lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in "_- ")
    return text.replace(" ", "-")


def anchors(path):
    """Every anchor of a markdown file (repeated headings get -1, -2 as on GitHub)."""
    seen = {}
    out = set()
    fenced = False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        m = None if fenced else _HEADING.match(line)
        if m:
            s = slug(m.group(2))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else "%s-%d" % (s, n))
    return out


def links(path):
    """(line number, target) of every markdown link and image outside code fences."""
    fenced = False
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        for m in _LINK.finditer(line):
            yield number, m.group(1) or m.group(2)


def broken_links(path):
    """The relative links of `path` whose file or anchor does not exist."""
    bad = []
    for number, target in links(path):
        if re.match(r"[a-z]+:", target):  # https:, mailto: : not checked offline
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            bad.append("%s:%d: %s (no such file)" % (path.name, number, target))
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append("%s:%d: %s (no such anchor)" % (path.name, number, target))
    return bad


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(path):
    assert broken_links(path) == []


def test_the_link_check_finds_a_missing_file_and_a_missing_anchor(tmp_path):
    (tmp_path / "b.md").write_text("# Hello, world: `x` → y\n\n## Hello, world: `x` → y\n")
    page = tmp_path / "a.md"
    page.write_text(
        "[ok](b.md#hello-world-x--y) [ok2](b.md#hello-world-x--y-1) [self](#top)\n"
        "# Top\n[gone](c.md) [no anchor](b.md#hello) [web](https://example.org/x#y)\n"
    )
    assert broken_links(page) == [
        "a.md:3: c.md (no such file)",
        "a.md:3: b.md#hello (no such anchor)",
    ]


def test_the_front_page_is_short_and_keeps_the_two_commands():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 200
    assert "make sim" in text and "make test" in text


def test_every_document_is_linked_from_the_front_page_or_another_document():
    linked = set()
    for path in DOCS:
        for _number, target in links(path):
            file_part = target.partition("#")[0]
            if file_part and not re.match(r"[a-z]+:", file_part):
                linked.add((path.parent / file_part).resolve())
    orphans = [p.name for p in sorted((ROOT / "docs").glob("*.md")) if p.resolve() not in linked]
    assert orphans == []


def test_the_picture_is_what_the_firmware_shows():
    import picture

    assert (ROOT / "docs" / "clock.svg").read_text() == picture.render()


# ------------------------------------------------------------------ no history


def prose_of_python(source):
    """(line, text) of every comment and docstring-like string (triple-quoted) in `source`."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            out.append((tok.start[0], tok.string))
        elif tok.type == tokenize.STRING and tok.string.lstrip("rbuRBU")[:3] in _TRIPLE:
            out.append((tok.start[0], tok.string))
    return out


def history_in(text):
    """The history-telling tokens of `text`."""
    return [m.group(0) for m in _HISTORY.finditer(text)] + [
        m.group(0) for m in _HASH.finditer(text)
    ]


def history_findings():
    found = []
    for path in DOCS:
        for hit in history_in(path.read_text()):
            found.append((str(path.relative_to(ROOT)), hit))
    for d in SOURCE_DIRS:
        for path in sorted((ROOT / d).rglob("*.py")):
            rel = str(path.relative_to(ROOT))
            for line, text in prose_of_python(path.read_text()):
                for hit in history_in(text):
                    found.append(("%s:%d" % (rel, line), hit))
    return [f for f in found if (f[0].partition(":")[0], f[1]) not in ALLOWED]


def test_no_docstring_comment_or_document_tells_history():
    assert history_findings() == []


@pytest.mark.parametrize(
    "text",
    [
        "Proof of issue 21's FIDE game",
        "(Until issue 14 the timeout was whole ms)",
        "phase 2 changed the loop",
        "Issues 9 and 10: overtime",
        "the bench of 6fc097f against e0a99f9",
        "see issue #3",
    ],
)
def test_the_history_check_finds(text):
    assert history_in(text) != []


@pytest.mark.parametrize(
    "text",
    [
        "the rp2 port's issue tracker",
        "the issue is the flash erase",
        "in phase with the seconds",
        "0x1234abcd and 1000000 us",
        "RPI_PICO-20251209-v1.27.0.uf2",
        "deadline",
        "a sha256 of 64 hex digits " + "ab12" * 16,
    ],
)
def test_the_history_check_lets_pass(text):
    assert history_in(text) == []


def test_the_history_check_reads_comments_and_docstrings_not_code():
    source = 'X = "abc1234"\n# see issue 5\ndef f():\n    """phase 2 of it"""\n'
    assert [t for _l, t in prose_of_python(source) for _h in history_in(t)] == [
        "# see issue 5",
        '"""phase 2 of it"""',
    ]


LOOP_STEP = re.compile(r"\b[Ss]teps? \d+\b")
# archive.py numbers the three writes of its own recording protocol, not the loop's steps
OWN_STEPS = {"archive.py"}


def test_the_loops_steps_are_numbered_once():
    """App.wake's docstring numbers the loop's steps; everything else names them (the levers
    step, the sleep step), so a step added or removed renumbers nothing elsewhere."""
    app = ROOT / "firmware" / "shell" / "app.py"
    found = []
    for path in DOCS + sorted((ROOT / "firmware").rglob("*.py")):
        if path.name in OWN_STEPS:
            continue
        text = path.read_text()
        if path == app:
            start = text.index("    def wake(self):")
            text = text[:start] + text[text.index('"""', text.index('"""', start) + 3) :]
        found += ["%s: %s" % (path.name, m.group(0)) for m in LOOP_STEP.finditer(text)]
    assert found == []
