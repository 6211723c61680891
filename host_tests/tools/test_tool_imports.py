"""The host tools import each other one way only: the graph of
`import X` / `from X import` between the modules of tools/ and its folders (tools/paths.py's
FOLDERS) has no cycle, every module's name is unique across them (they are imported by flat
names), and the modules shared by `make flash` and `make uf2` import neither of them."""

import ast
from collections import Counter

import paths

TOOLS = paths.TOOLS


def tool_modules():
    """Every module of tools/ and of its folders imported by flat name."""
    return [p for d in [TOOLS, *(TOOLS / n for n in paths.FOLDERS)] for p in d.glob("*.py")]


def tool_imports():
    """{module: set of tools modules it imports} read from the sources (ast, not import)."""
    names = {p.stem for p in tool_modules()}
    graph = {}
    for path in tool_modules():
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
        graph[path.stem] = found & names - {path.stem}
    return graph


def cycle(graph):
    """One import cycle as a list of modules, or None."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt, path + [nxt])
                if found:
                    return found
        state[node] = "done"
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start, [start])
            if found:
                return found
    return None


def test_the_tools_have_no_import_cycle():
    assert cycle(tool_imports()) is None


def test_every_tools_module_name_is_unique():
    """Two modules of one name in two folders: which one an import finds would depend on
    sys.path's order."""
    names = Counter(p.stem for p in tool_modules())
    assert [name for name, n in names.items() if n > 1] == []
    assert set(paths.FOLDERS) == {
        p.name for p in TOOLS.iterdir() if p.is_dir() and any(p.glob("*.py"))
    } - {"simboard"}


def test_the_cycle_finder_finds_one():
    assert cycle({"flash": {"release"}, "release": {"flash"}}) == ["flash", "release", "flash"]
    assert cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_flash_uses_release_and_nothing_below_uses_flash():
    graph = tool_imports()
    assert "release" in graph["flash"]
    for shared in ("release", "micropython_pin", "micropython_uf2", "uf2", "download"):
        assert not graph[shared] & {"flash", "backup", "export_games"}, shared
    for shared in ("runner", "firmware_build", "bootsel"):
        assert graph[shared] == set(), shared
