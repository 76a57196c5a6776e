"""The engine and the save store never import textual or rich: each module of them is
imported in a fresh interpreter and sys.modules is checked."""

from __future__ import annotations

import importlib.util
import pkgutil
import subprocess
import sys

import pytest

import tui.engine
import tui.engine.rulesets
import tui.saves


def headless_modules() -> list[str]:
    names = ["tui.engine", "tui.saves"]
    for package in (tui.engine, tui.engine.rulesets, tui.saves):
        for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            names.append(info.name)
    return names


MODULES = headless_modules()

PROBE = """
import importlib, sys
UI = ("textual", "rich")
importlib.import_module(sys.argv[1])
print(",".join(sorted(m for m in sys.modules if m.split(".")[0] in UI)))
"""


def test_every_engine_module_is_listed():
    assert {"tui.engine.tables", "tui.engine.odds", "tui.engine.dice", "tui.engine.combat"} <= set(
        MODULES
    )
    assert {
        f"tui.engine.rulesets.{n}" for n in ("pod", "boom", "ocs", "rivets", "daynight")
    } <= set(MODULES)
    roles = ("paths", "encoding", "decoding", "checking", "replay", "store")
    assert {f"tui.saves.{role}" for role in roles} <= set(MODULES)


@pytest.mark.parametrize("module", MODULES)
def test_module_imports_without_textual_or_rich(module):
    done = subprocess.run(
        [sys.executable, "-c", PROBE, module], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"{module} pulled in {done.stdout.strip()}"


def test_the_probe_would_see_textual():
    # The check can fail: importing a UI package shows up in sys.modules.
    if importlib.util.find_spec("rich") is None:
        pytest.skip("rich is not installed")
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "rich.text"], capture_output=True, text=True, timeout=60
    )
    assert "rich" in done.stdout.split(",")


CLI_PROBE = """
import sys
UI = ("textual", "rich")
from tui.cli import main
main(["resolve", "ocs", "--attack", "9", "--defense", "2", "--json"])
main(["odds", "pod-super", "--attack", "5", "--defense", "2"])
main(["table", "daynight"])
print(",".join(sorted(m for m in sys.modules if m.split(".")[0] in UI)), file=sys.stderr)
"""


def test_the_cli_commands_run_headless():
    done = subprocess.run(
        [sys.executable, "-c", CLI_PROBE], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == ""
