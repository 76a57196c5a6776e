"""The desk imports and builds only what it shows: opening the desk imports no ruleset
screen and no dialog, and a game opens on its first ruleset's screen without building (or
importing) the others until they are switched to. Each check runs in a fresh interpreter."""

from __future__ import annotations

from tests.conftest import fresh_python

START_PROBE = """
import asyncio, json, sys, tempfile
from pathlib import Path
from tui import saves
from tui.desk.app import CrtDeskApp

folder = Path(tempfile.mkdtemp())
saves.new_game(folder / "g.toml", "G", ["pod-basic"])


async def main():
    async with CrtDeskApp(saves_dir=folder).run_test(size=(80, 24)) as pilot:
        await pilot.pause()
    print(json.dumps(sorted(m for m in sys.modules if m.startswith("tui.desk.screens."))))


asyncio.run(main())
"""

DESK_ENGINE_PROBE = """
import json, sys
import tui.desk.app
import tui.cli
import tui.cli.saves

print(json.dumps(sorted(m for m in sys.modules if m.startswith("tui.engine."))))
"""

START_SCREEN_PROBE = """
import asyncio, json, sys, tempfile
from pathlib import Path
from tui import saves
from tui.desk.app import CrtDeskApp
from tui.engine.tables import default_tables

folder = Path(tempfile.mkdtemp())
saves.new_game(folder / "g.toml", "G", ["pod-basic"])


async def main():
    app = CrtDeskApp(saves_dir=folder)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        shown = type(app.screen).__name__
        before = default_tables.cache_info().currsize
        await pilot.press("enter")
        await pilot.pause()
        opened = type(app.screen).__name__
        after = default_tables.cache_info().currsize
    print(json.dumps([shown, before, opened, after]))


asyncio.run(main())
"""

OPEN_PROBE = """
import asyncio, json, sys, tempfile
from pathlib import Path
from tui import saves
from tui.desk.app import CrtDeskApp

folder = Path(tempfile.mkdtemp())
saves.new_game(folder / "g.toml", "G", ["pod-basic", "rivets", "daynight"])


def screen_modules():
    return sorted(m for m in sys.modules if m.startswith("tui.desk.screens."))


async def main():
    app = CrtDeskApp(saves_dir=folder, game_path=folder / "g.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        opened = (type(app.screen).__name__, screen_modules())
        await pilot.press("f3")
        await pilot.pause()
        switched = (type(app.screen).__name__, screen_modules())
    print(json.dumps([opened, switched]))


asyncio.run(main())
"""


def test_the_start_screen_imports_no_ruleset_screen_or_dialog():
    imported = fresh_python(START_PROBE)
    assert "tui.desk.screens.start" in imported  # the probe sees the screens it does import
    for module in (
        "pod",
        "boom",
        "ocs",
        "rivets",
        "daynight",
        "combat",
        "dialogs",
        "markers",
        "review",
        "help",
        "units",
    ):
        assert f"tui.desk.screens.{module}" not in imported, module


FORM_ENGINE_PROBE = """
import asyncio, json, sys, tempfile
from pathlib import Path
from tui import saves
from tui.desk.app import CrtDeskApp
from tui.desk.screens.combat import CombatScreen

folder = Path(tempfile.mkdtemp())
saves.new_game(folder / "g.toml", "G", ["pod-basic"])
seen = []
prepare = CombatScreen.prepare


def engine_modules():
    return sorted(m for m in sys.modules if m.startswith(("tui.engine.", "tui.desk.widgets.")))


def prepared(self):
    seen.append(engine_modules() + [f"result panel: {bool(self.query('#result'))}"])
    prepare(self)
    seen.append(engine_modules() + [f"result panel: {bool(self.query('#result'))}"])


CombatScreen.prepare = prepared


async def main():
    app = CrtDeskApp(saves_dir=folder, game_path=folder / "g.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("1", "2", "tab", "3")
        await pilot.pause()
        seen.append(str(app.screen.reading.combat is not None))
    print(json.dumps(seen))


asyncio.run(main())
"""


def test_a_game_builds_each_ruleset_screen_when_it_is_first_shown():
    (first, at_open), (second, after_switch) = fresh_python(OPEN_PROBE)
    assert first == "PodScreen"
    assert "tui.desk.screens.pod" in at_open
    assert "tui.desk.screens.rivets" not in at_open
    assert "tui.desk.screens.start" not in at_open  # built when asked for (Esc)
    assert "tui.desk.screens.dialogs" not in at_open  # imported when a question is first asked
    assert "tui.desk.screens.daynight" not in at_open
    assert "tui.desk.screens.units" not in at_open  # imported when its key is pressed
    assert second == "RivetsScreen"
    assert "tui.desk.screens.rivets" in after_switch
    assert "tui.desk.screens.daynight" not in after_switch


def test_the_start_screen_reads_no_chart_until_a_game_opens():
    shown, read_before, opened, read_after = fresh_python(START_SCREEN_PROBE)
    assert (shown, read_before) == ("StartScreen", 0)
    assert (opened, read_after) == ("PodScreen", 1)


def test_starting_the_desk_loads_no_resolver():
    """`crtdesk` reaches its start screen without the combat engine: the resolvers, the
    odds and the preview are imported when a game's screen is first shown."""
    imported = fresh_python(DESK_ENGINE_PROBE)
    assert "tui.engine.tables" in imported  # the probe sees the engine modules it does load
    for module in (
        "combat",
        "model",
        "dice",
        "preview",
        "odds",
        "rulesets.pod.rules",
        "rulesets.ocs.rules",
    ):
        assert f"tui.engine.{module}" not in imported, module


def test_a_new_form_is_drawn_without_the_engine_and_loads_it_just_after():
    """A combat screen's empty form reads no combat: its first frame is drawn without the
    engine's model, preview and resolver, which are imported just after it is shown; a
    new game has no last roll, so no result panel is put in (it comes with the first
    roll: tests/desk/test_desk_ready.py)."""
    drawn, loaded, read = fresh_python(FORM_ENGINE_PROBE)
    assert "result panel: False" in drawn and "result panel: False" in loaded
    assert "tui.desk.widgets.result" not in loaded  # the panel's module comes with it
    for module in ("model", "preview", "odds", "dice", "rulesets.common", "rulesets.pod.rules"):
        assert f"tui.engine.{module}" not in drawn, module
        assert f"tui.engine.{module}" in loaded, module
    # The questions a roll may ask (a Hero Site draw, a Frogman's hex) come with the first.
    assert "tui.engine.questions" not in loaded
    assert read == "True"  # "12 Tab 3" made a combat
