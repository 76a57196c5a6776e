"""When the desk is ready (`CrtDeskApp.desk_ready`, where the bench ends its count of a
start): the start screen at its first frame; a combat screen once the engine its first
combat reads is imported and, where the game has a last roll there, its panel is mounted
and drawn. With
$CRTDESK_EXIT_AT_READY the real command ends there, and only there."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Desk, settle
from tui import saves
from tui.desk.app import CrtDeskApp
from tui.desk.screens.start import StartScreen
from tui.desk.widgets.result import ResultPanel

HEADLESS = {
    "TEXTUAL_DRIVER": "textual.drivers.headless_driver:HeadlessDriver",
    "COLUMNS": "80",
    "LINES": "24",
}


async def test_a_combat_screen_is_ready_once_prepared(desk: Desk) -> None:
    """A new game has no last roll: ready without the last roll's panel, which comes in
    with the first roll, drawn with it."""
    async with desk(rulesets=["pod-basic"]) as (app, pilot):
        await pilot.pause()
        screen = app.screen
        assert app.ready
        assert screen.prepared and not screen.query("#result")
        assert "tui.engine.preview" in sys.modules
        await pilot.press("8", "enter", "2", "ctrl+r")
        await settle(pilot)
        panel = screen.query_one(ResultPanel)
        assert panel.display and panel.lines.texts["result-cell"].startswith("Roll ")
        assert saves.load_game(screen.session.path).entries[-1]["kind"] == "combat"


async def test_a_game_opened_again_is_ready_with_its_last_roll_drawn(tmp_path: Path) -> None:
    """Opened on a save with a combat of this screen's, the desk is ready only once that
    roll's panel is mounted and drawn."""
    from tui.engine import CombatInput, Unit, resolve

    path = tmp_path / "g.toml"
    saves.new_game(path, "G", ["pod-basic"])
    combat = CombatInput("pod-basic", attackers=(Unit(8),), defenders=(Unit(2),))
    saves.append_combat(path, combat, resolve(combat, rng=random.Random(3)), who="ann")
    app = CrtDeskApp(saves_dir=tmp_path, game_path=path, player="tester")
    seen: list[tuple[bool, bool]] = []
    ready = app.desk_ready

    def at_ready() -> None:
        panel = app.screen.query(ResultPanel)
        seen.append((bool(panel), bool(panel) and panel.first().region.height > 0))
        ready()

    app.desk_ready = at_ready  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.ready and seen == [(True, True)]


async def test_the_start_screen_is_ready_at_its_first_frame(tmp_path: Path) -> None:
    saves.new_game(tmp_path / "game.toml", "G", ["pod-basic"])
    app = CrtDeskApp(saves_dir=tmp_path, player="tester")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        assert app.ready


@pytest.mark.parametrize("opened", [True, False])
def test_the_command_ends_itself_when_ready(tmp_path: Path, opened: bool) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    saves.new_game(folder / "desk.toml", "Desk", ["pod-basic"])
    argv = ["open", "desk"] if opened else []
    command = [sys.executable, "-m", "tui.startup", *argv, "--saves", str(folder)]
    env = {**os.environ, **HEADLESS, "CRTDESK_PLAYER": "tester"}
    done = subprocess.run(
        command, env=env | {"CRTDESK_EXIT_AT_READY": "1"}, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    if not opened:
        return
    # Without it, the same desk runs on (headless, it waits for keys that never come).
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run(command, env=env, capture_output=True, timeout=3)


def test_opening_a_save_to_ready_loads_no_save_command(tmp_path: Path) -> None:
    """`crtdesk open NAME` finds its save by the save commands' own check (a path that is
    not a save is refused: tests/cli/test_cli_saves.py) without importing those commands,
    the log's rows or the player's-chart ruleset they bring: the modules it imported on the
    way to ready, as Python reports each import (-X importtime)."""
    folder = tmp_path / "saves"
    folder.mkdir()
    saves.new_game(folder / "desk.toml", "Desk", ["pod-basic"])
    command = [sys.executable, "-X", "importtime", "-m", "tui.startup", "open", "desk"]
    env = {**os.environ, **HEADLESS, "CRTDESK_PLAYER": "tester", "CRTDESK_EXIT_AT_READY": "1"}
    done = subprocess.run(
        [*command, "--saves", str(folder)], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    imported = {line.rpartition("|")[2].strip() for line in done.stderr.splitlines()}
    # The probe sees what it does load: the name check and the form's engine.
    assert {"tui.cli.save_names", "tui.engine.combat"} <= imported
    for module in ("tui.cli.saves", "tui.engine.rulesets.charts.ruleset", "tui.cli.folders"):
        assert module not in imported, module
    # Nor the players' charts folder: the desk works out where it is when first asked.
    assert "tui.engine.rulesets.charts.folder" not in imported


def test_opening_a_game_without_units_to_ready_loads_no_unit_code(tmp_path: Path) -> None:
    """A game without units opened again (its state kept beside the save by the first
    open) reaches ready without the units' code (`tui.engine.units`, the OCS supply rules
    it brings): the state's units are read with it only when the state keeps some
    (tests/saves/test_units_state_read.py reads them)."""
    folder = tmp_path / "saves"
    folder.mkdir()
    saves.new_game(folder / "desk.toml", "Desk", ["pod-basic"])
    command = [sys.executable, "-X", "importtime", "-m", "tui.startup", "open", "desk"]
    env = {**os.environ, **HEADLESS, "CRTDESK_PLAYER": "tester", "CRTDESK_EXIT_AT_READY": "1"}
    imported: list[set[str]] = []
    for _ in range(2):  # the first open keeps the state; the second reads it
        done = subprocess.run(
            [*command, "--saves", str(folder)], env=env, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        imported.append({line.rpartition("|")[2].strip() for line in done.stderr.splitlines()})
    assert "tui.saves.kept_state" in imported[1]  # the kept state was read
    assert "tui.engine.model" in imported[1]  # the probe sees the engine the form loads
    for module in ("tui.engine.units", "tui.engine.rulesets.ocs.supply"):
        assert module not in imported[1], module
