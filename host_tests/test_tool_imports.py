"""The host tools import each other one way only: the graph of
`import X` / `from X import` between tools/*.py has no cycle, and the modules shared by
`make flash` and `make uf2` import neither of them."""

import ast
from pathlib import Path

TOOLS = Path(__file__).resolve().parent.parent / "tools"


def tool_imports():
    """{module: set of tools modules it imports} read from the sources (ast, not import)."""
    names = {p.stem for p in TOOLS.glob("*.py")}
    graph = {}
    for path in TOOLS.glob("*.py"):
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
