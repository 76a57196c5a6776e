"""The engine, the save store, the text module and the CLI never import textual or rich:
each module is imported in a fresh interpreter and sys.modules is checked, and every CLI
command but the desk runs without them."""

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
    return names + list(CLI_MODULES) + list(GAME_MODULES)


# The CLI and what it prints with: textual is imported only when `crtdesk` opens the desk.
CLI_MODULES = (
    "tui.cli",
    "tui.cli.saves",
    "tui.engine.text",
    "tui.game.player",
    "tui.reports.luck",
    "tui.reports.report",
)
# The review's rows and reading, and the command names they show.
CLI_MODULES += ("tui.reports.review_data", "tui.reports.review_rows", "tui.desk.commands")
CLI_MODULES += ("tui.reports.luck.reading",)
# What the desk asks of the game layer besides its session: the saves folder, the game
# model's names, a player's chart file against its copy.
GAME_MODULES = ("tui.game.folder", "tui.game.model", "tui.game.charts", "tui.game.live")


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
    assert set(CLI_MODULES) <= set(MODULES)
    roles = ("paths", "encoding", "decoding", "checking", "replay", "locking", "files")
    roles += ("loading", "streaming", "repair", "appending", "creating", "combats", "markers")
    roles += ("notes", "options")
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
import os, sys, tempfile
UI = ("textual", "rich")
from tui.cli import main
os.chdir(tempfile.mkdtemp())
runs = [
    ["resolve", "ocs", "--attack", "9", "--defense", "2", "--json"],
    ["odds", "pod-super", "--attack", "5", "--defense", "2"],
    ["table", "daynight"],
    ["rulesets"],
    ["new", "g", "--title", "G", "--ruleset", "pod-boom"],
    ["resolve", "pod-boom", "--step", "crt", "--caf", "9", "--roll", "2", "--save", "g"],
    ["marker", "g", "add", "DG", "0712", "--turns", "1"],
    ["option", "g", "mines_cdf", "3"],
    ["turn", "g"],
    ["log", "g"],
    ["log", "saves/g.toml", "--markers", "--json"],
    ["luck", "g"],
    ["report", "g", "--markdown"],
    ["marker", "g", "remove", "1.1"],
    ["rulesets", "--json"],
    ["table", "pod-boom", "--json"],
    ["odds", "ocs", "--attack", "9", "--defense", "2", "--json"],
    ["log", "g", "--json"],
]
for argv in runs:
    assert main(argv) == 0, argv
# Bad input (one line, status 2) and every command's help stay headless too.
assert main(["resolve", "ocs", "--attack", "x", "--defense", "2"]) == 2
assert main(["marker", "nosuchgame", "add", "DG", "0712"]) == 2
for argv in (["--help"], *([command, "--help"] for command in
        ("rulesets", "table", "resolve", "odds", "new", "log", "turn", "marker", "option"))):
    try:
        main(argv)
    except SystemExit as done:
        assert done.code == 0, argv
print("UI:" + ",".join(sorted(m for m in sys.modules if m.split(".")[0] in UI)), file=sys.stderr)
"""


def test_the_cli_commands_run_headless():
    done = subprocess.run(
        [sys.executable, "-c", CLI_PROBE], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    # The last line names the UI modules imported: none. Before it, only the two refusals.
    *said, imported = done.stderr.strip().splitlines()
    assert imported == "UI:"
    said = [line for line in said if not line.startswith("crtdesk: made the saves folder ")]
    assert len(said) == 2 and all(line.startswith("crtdesk: ") for line in said), said
