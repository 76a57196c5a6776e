"""The layers hold, read from the source (every import statement counts, at the top of a
module or inside a function): the desk (app, screens, widgets) never imports the save store,
it goes through the game session and the game layer; the headless layers never import
textual or rich, not even in a function the import probe of tests/cli/test_headless.py
never calls; and no screen reaches into the app past its type."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import tui

TUI = Path(tui.__file__).parent


def module_name(path: Path) -> str:
    parts = path.relative_to(TUI.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_statements(source: str, package: str) -> list[tuple[str, list[str]]]:
    """Each import statement in `source` as (the module it names, the names it takes from
    it): `import a.b` gives ("a.b", []), `from a import b` ("a", ["b"]); relative imports
    resolved against `package`."""
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                kept = parts[: len(parts) - node.level + 1]
                base = ".".join(kept + ([base] if base else []))
            found.append((base, [alias.name for alias in node.names]))
    return found


def imported(source: str, name: str, is_package: bool = False) -> set[str]:
    """Every module an import statement in `source` names (module `name`), anywhere in it:
    `import a.b` names a.b, `from a import b` names a and a.b (b may be a module), relative
    imports resolved against the module's package."""
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for base, names in import_statements(source, package):
        found.add(base)
        found.update(f"{base}.{n}" for n in names)
    return found


def names_the_store(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m == "tui.saves" or m.startswith("tui.saves."))


def names_a_ui(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in ("textual", "rich"))


def sources(*folders: str) -> list[Path]:
    return sorted(path for folder in folders for path in (TUI / folder).rglob("*.py"))


DESK = sources("desk")
# The headless layers: the engine, the store, the reports, and the game layer's modules
# that are not the session (which runs its workers on the Textual app) or its messages.
HEADLESS = sources("engine", "saves", "reports") + [
    TUI / "game" / f"{name}.py" for name in ("charts", "folder", "live", "model", "player")
]


def test_the_import_reader_sees_every_form_of_import() -> None:
    """The check can fail: each way of writing an import of the store is seen."""
    written = {
        "from tui import saves": "tui.desk.screens.x",
        "import tui.saves": "tui.desk.x",
        "import tui.saves.replay as replay": "tui.desk.x",
        "from tui.saves.replay import Marker": "tui.desk.widgets.x",
        "from tui.saves import Marker": "tui.desk.x",
        "if TYPE_CHECKING:\n    from tui.saves import Game": "tui.desk.x",
        "def f():\n    from tui import saves": "tui.desk.x",
        "from ...saves import Marker": "tui.desk.screens.x",
        "from ... import saves": "tui.desk.screens.x",
    }
    for source, name in written.items():
        assert names_the_store(imported(source, name)), source
    clean = {
        "from tui.game.model import Marker": "tui.desk.x",
        "import tui.game.session": "tui.desk.x",
        "from tui.cli.saves import save_file": "tui.desk.x",
        "from .. import messages": "tui.desk.screens.x",
    }
    for source, name in clean.items():
        assert not names_the_store(imported(source, name)), source
    assert names_a_ui(imported("def f():\n    from textual.widgets import Static", "tui.x"))
    assert names_a_ui(imported("import rich.text", "tui.x"))


def test_every_desk_module_is_read() -> None:
    names = {module_name(path) for path in DESK}
    assert {"tui.desk.app", "tui.desk.screens.review", "tui.desk.widgets.combat"} <= names
    assert len(DESK) > 20


@pytest.mark.parametrize("path", DESK, ids=lambda path: module_name(path))
def test_the_desk_never_imports_the_store(path: Path) -> None:
    """Screens and widgets (the app too) change a save only through the game session's
    typed methods, and read it through the game layer."""
    name = module_name(path)
    found = names_the_store(
        imported(path.read_text(encoding="utf-8"), name, path.name == "__init__.py")
    )
    assert found == [], f"{name} imports {', '.join(found)}"


@pytest.mark.parametrize("path", HEADLESS, ids=lambda path: module_name(path))
def test_the_headless_layers_never_import_textual_or_rich(path: Path) -> None:
    name = module_name(path)
    found = names_a_ui(imported(path.read_text(encoding="utf-8"), name, path.name == "__init__.py"))
    assert found == [], f"{name} imports {', '.join(found)}"


def test_the_headless_layers_are_all_read() -> None:
    names = {module_name(path) for path in HEADLESS}
    assert {"tui.engine.combat", "tui.engine.rulesets.pod.rules", "tui.saves.appending"} <= names
    assert {"tui.reports.review_rows", "tui.game.folder", "tui.game.live"} <= names


# `self.app.x  # type: ignore`, or `self.app  # type: ignore` handed out as the desk.
REACH_IN = re.compile(r"\bself\.app\b.*# type: ignore")


@pytest.mark.parametrize("path", DESK, ids=lambda path: module_name(path))
def test_no_screen_reaches_into_the_app_past_its_type(path: Path) -> None:
    """A screen reads the desk through its typed `desk` property and asks it for what it
    does by message: no attribute of the app is used unchecked."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = [f"{n}: {line.strip()}" for n, line in enumerate(lines, 1) if REACH_IN.search(line)]
    assert found == [], "\n".join(found)


def test_the_reach_in_pattern_sees_one() -> None:
    assert REACH_IN.search("        self.app.open_game(game)  # type: ignore[attr-defined]")
    assert REACH_IN.search("        return self.app  # type: ignore[return-value]")
    assert not REACH_IN.search("        self.app.push_screen(HelpScreen(None))")


def import_graph() -> dict[str, set[str]]:
    """Each module of tui and the modules of tui it imports anywhere: `from a import b` is
    an edge to a.b where b is a module, else to a."""
    paths = {module_name(p): p for p in TUI.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        edges: set[str] = set()
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for base, names in import_statements(path.read_text(encoding="utf-8"), package):
            modules = [f"{base}.{n}" for n in names if f"{base}.{n}" in paths]
            edges.update(modules or [base])
        graph[name] = {e for e in edges if e in paths and e != name}
    return graph


def loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import loops: each group of modules that import one another, in turn."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in order:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], order[nxt])
        if low[node] == order[node]:
            group = []
            while True:
                top = stack.pop()
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return found


def test_the_loop_finder_sees_a_loop() -> None:
    assert loops({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert loops({"a": {"b"}, "b": set()}) == []


def test_no_module_of_tui_is_in_an_import_loop() -> None:
    graph = import_graph()
    assert "tui.desk.app" in graph["tui.cli"] and "tui.cli.saves" in graph["tui.cli.combat"]
    assert loops(graph) == []


def unexplained_late_imports(source: str) -> list[int]:
    """The lines of imports inside a function with no comment saying why: on the import, or
    on one of the two lines above the first import of its group."""
    lines = source.splitlines()
    late = sorted(
        {
            sub.lineno
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            for sub in ast.walk(node)
            if isinstance(sub, ast.Import | ast.ImportFrom)
        }
    )
    found = []
    for line in late:
        first = line
        while first - 1 in late:
            first -= 1
        said = lines[max(0, first - 3) : first - 1] + [lines[line - 1]]
        if not any("#" in text for text in said):
            found.append(line)
    return found


def test_the_late_import_finder_sees_one() -> None:
    source = "def f():\n    import os\n\n\ndef g():\n    # why\n    import os\n    import re\n"
    assert unexplained_late_imports(source) == [2]


@pytest.mark.parametrize("path", sorted(TUI.rglob("*.py")), ids=lambda p: module_name(p))
def test_an_import_inside_a_function_says_why(path: Path) -> None:
    """Imports sit at the top of a module, but where a start-up budget needs one late."""
    assert unexplained_late_imports(path.read_text(encoding="utf-8")) == []
