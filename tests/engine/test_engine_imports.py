"""The engine's modules import each other without a loop: the resolvers import the combat
data from tui.engine.model, and only the front door (tui.engine.combat) imports the
resolvers. Every import statement counts, at the top of a module or inside a function."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import tui.engine
from tests.conftest import fresh_python


def engine_modules() -> dict[str, Path]:
    found = {"tui.engine": Path(tui.engine.__file__)}
    for info in pkgutil.walk_packages(tui.engine.__path__, "tui.engine."):
        found[info.name] = Path(importlib.util.find_spec(info.name).origin)
    return found


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The engine modules `name` imports anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    edges: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            # `from package import module` imports the module itself.
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
            targets = [t for t in targets if t in known] or [base]
        else:
            continue
        edges.update(t for t in targets if t in known and t != name)
    return edges


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_engine_has_no_import_loop():
    from tui.engine import registry

    modules = engine_modules()
    graph = {name: imports_of(name, path, set(modules)) for name, path in modules.items()}
    # The front door resolves through each ruleset, which imports its rules by name at its
    # first combat: the rules are below the front door, as if it imported them.
    for ruleset in registry.BUILT_IN:
        graph["tui.engine.combat"].add(ruleset.rules)
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])
    # The graph is real: the front door and the resolvers import the model.
    assert "tui.engine.model" in graph["tui.engine.combat"]
    assert "tui.engine.model" in graph["tui.engine.rulesets.pod.rules"]
    assert {r.rules for r in registry.BUILT_IN} <= set(modules)


def test_a_resolver_is_imported_when_its_ruleset_is_first_resolved():
    probe = (
        "import json, sys\n"
        "from tui.engine import CombatInput, Unit, resolve\n"
        "def loaded():\n"
        "    return sorted(m for m in sys.modules if m.startswith('tui.engine.rulesets.'))\n"
        "before = loaded()\n"
        "resolve(CombatInput(ruleset='pod-basic', attackers=(Unit(6),), defenders=(Unit(2),),"
        " roll=3))\n"
        "print(json.dumps([before, loaded()]))\n"
    )
    from tui.engine import registry

    before, after = fresh_python(probe)
    rules = {r.rules for r in registry.BUILT_IN}
    # The registry's rulesets are declared up front; their rules load at a first combat.
    assert not rules & set(before)
    assert rules & set(after) == {"tui.engine.rulesets.pod.rules"}


def test_the_cycle_finder_sees_a_loop():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_combat_data_keep_their_old_import_paths():
    import tui.engine.cells as cells
    import tui.engine.combat as combat
    import tui.engine.model as model

    for name in ("CombatInput", "Unit", "Outcome", "Distribution"):
        assert getattr(combat, name) is getattr(model, name)
    for name in ("plain", "cell_text"):
        assert getattr(combat, name) is getattr(cells, name)
    for name in ("CombatInput", "Unit", "Outcome", "Distribution"):
        assert getattr(tui.engine, name) is getattr(model, name)
