"""The combat form and the game's units: a unit's name typed and completed from its side's
units fills its row; the preview says what the next column needs; a roll that leaves a loss
to its owner asks which units take it and logs their choice; the game opened again shows
the form as its last combat left it, names and all."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import asdict
from textual.pilot import Pilot
from textual.widgets import Static

from tests.conftest import settle
from tui import saves
from tui.desk.app import CrtDeskApp
from tui.desk.screens.losses import LossScreen
from tui.desk.widgets.combat import OddsPreview
from tui.engine.combat import resolve
from tui.engine.model import CombatInput, Unit
from tui.engine.tables import default_tables

UNITS = (("21 Pz", "Axis", 6), ("Ariete", "Axis", 4), ("9 Aus", "Allies", 3), ("2 NZ", "Allies", 5))


def basic_game(folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / "game.toml"
    saves.new_game(path, "Gazala", ["pod-basic"], {})
    for name, side, factor in UNITS:
        saves.add_unit(path, {"name": name, "side": side, "factor": factor})
    return path


def open_desk(folder: Path, path: Path) -> CrtDeskApp:
    return CrtDeskApp(saves_dir=folder, game_path=path, rng=random.Random(7), player="tester")


def preview_text(app: CrtDeskApp) -> str:
    return str(app.screen.query_one(OddsPreview).content)


async def typed(pilot: Pilot, *keys: str) -> None:
    await pilot.press(*keys)
    await pilot.pause()  # the completion is worked out in a worker of the field
    await pilot.pause()


def roll_losing_two_attack_factors() -> int:
    """A total of the dice that gives the attackers AL2 at 10 to 5 (2-1), found by the
    engine: the test types it by hand."""
    combat = CombatInput("pod-basic", attackers=(Unit(6), Unit(4)), defenders=(Unit(5),), roll=0)
    for total in range(2, 13):
        outcome = resolve(
            CombatInput(**{**asdict(combat), "roll": total}), default_tables(), random.Random(0)
        )
        if outcome.effects.get("attacker", {}).get("factors_lost") == 2:
            return total
    raise AssertionError("no roll gives AL2 at 2-1")


async def test_pick_units_roll_choose_losses_and_reopen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "saves"
    path = basic_game(folder)
    total = roll_losing_two_attack_factors()
    app = open_desk(folder, path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        first = screen.unit_rows("attacker")[0]
        assert first.named and first.name_input.display  # the game has units: a name
        # A1's name: "21" completes to "21 Pz" (Right takes it), the row shows its factor.
        await typed(pilot, "tab", "2", "1")
        await typed(pilot, "right")
        assert first.name_input.value == "21 Pz" and first.factor_text == "6"
        assert "A1:" not in preview_text(app)  # A1 is read; the form waits for a defender
        # An attacker picked: the attackers complete from the Axis, the defenders from the
        # other sides.
        assert screen.side_names("attacker") == ["21 Pz", "Ariete"]
        assert screen.side_names("defender") == ["9 Aus", "2 NZ"]
        # A2: "a" completes to Ariete, and Enter takes it on the way to D1.
        await typed(pilot, "ctrl+n", "tab", "a")
        await typed(pilot, "enter")
        second = screen.unit_rows("attacker")[1]
        assert second.name_input.value == "Ariete" and second.factor_text == "4"
        # D1: "A" completes to nothing on the defender's side (Ariete is an attacker's):
        # leaving it keeps "A"; then "2" (Tab takes it) is 2 NZ.
        defender = screen.unit_rows("defender")[0]
        await typed(pilot, "tab", "A", "tab")
        assert defender.name_input.value == "A" and defender.factor_text == ""
        await typed(pilot, "shift+tab", "backspace", "2")
        await typed(pilot, "tab")
        assert defender.name_input.value == "2 NZ" and defender.factor_text == "5"
        shown = preview_text(app)
        # 10 to 5 is 2-1; 3-1 needs 15: five more attack factors.
        assert "odds 2-1" in shown and "+5 attack factors to 3-1" in shown, shown
        # A one-off: the factor typed over stays, and is what the odds read.
        await typed(pilot, "shift+tab", "shift+tab", "backspace", "9")
        assert defender.factor_text == "9" and "Defence 9" in preview_text(app)
        await typed(pilot, "backspace", "5")

        # The roll: AL2 leaves two attack factors to the attackers' owner.
        await typed(pilot, "ctrl+t", *str(total), "enter")
        for _ in range(40):
            if isinstance(app.screen, LossScreen):
                break
            await pilot.pause(0.05)
        dialog = app.screen
        assert isinstance(dialog, LossScreen)
        rows = str(dialog.query_one(".dialog").query(Static).first().content)
        assert "2 factors from the attacker's units" in rows
        # Three from 21 Pz is more than the result takes: said, nothing logged.
        await typed(pilot, "3", "enter")
        problem = str(dialog.query_one("#loss-problem", Static).content)
        assert "3 factors chosen; the result takes 2" in problem, problem
        await typed(pilot, "backspace", "1", "tab", "1", "enter")
        await settle(pilot)
        assert app.screen is screen
        # The rows holding the units that lost show them as they now stand (they kept the
        # strength they had before the roll), and the preview reads them so.
        assert [row.factor_text for row in screen.unit_rows("attacker")] == ["5", "3"]
        assert "Attack 8" in preview_text(app), preview_text(app)
    log = saves.load_game(path)
    combat_seq = max(e["seq"] for e in log.entries if e["kind"] == "combat")
    loss = log.entries[-1]
    assert loss["kind"] == "loss" and loss["combat"] == combat_seq
    assert loss["losses"] == [{"unit": "21 Pz", "factors": 1}, {"unit": "Ariete", "factors": 1}]
    units = saves.game_state(path).units
    assert units["21 Pz"].factor_left == 5 and units["Ariete"].factor_left == 3

    # Opened again: the form as the last combat left it, names and all; a unit picked
    # again shows what it has left.
    app = open_desk(folder, path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        shown = [
            (row.name_input.value, row.factor_text)
            for side in ("attacker", "defender")
            for row in screen.unit_rows(side)
        ]
        assert shown == [("21 Pz", "6"), ("Ariete", "4"), ("2 NZ", "5")]
        assert "odds 2-1" in preview_text(app)
        first = screen.unit_rows("attacker")[0]
        await typed(pilot, "tab", "end", "ctrl+u", "2", "1")
        await typed(pilot, "tab")
        assert first.factor_text == "5"  # 21 Pz lost a factor in the last combat


async def test_esc_leaves_the_loss_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "saves"
    path = basic_game(folder)
    total = roll_losing_two_attack_factors()
    app = open_desk(folder, path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await typed(pilot, "tab", "2", "1", "tab")
        await typed(pilot, "ctrl+n", "tab", "A", "enter")
        await typed(pilot, "tab", "2", "tab")
        await typed(pilot, "ctrl+t", *str(total), "enter")
        for _ in range(40):
            if isinstance(app.screen, LossScreen):
                break
            await pilot.pause(0.05)
        assert isinstance(app.screen, LossScreen)
        await typed(pilot, "escape")
        await settle(pilot)
        said = [str(n.message) for n in app._notifications]
        assert any("Left open: 2 factors from the attacker's units" in n for n in said), said
    log = saves.load_game(path)
    assert log.entries[-1]["kind"] == "combat"  # no loss logged
    assert saves.game_state(path).units["21 Pz"].factor_left == 6


async def test_a_game_without_units_keeps_its_rows(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    saves.new_game(folder / "game.toml", "T", ["pod-basic"], {})
    app = open_desk(folder, folder / "game.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        row: Any = app.screen.unit_rows("attacker")[0]
        assert not row.named  # no units: no name to take, the row as before
        await typed(pilot, "7", "enter", "3")
        assert "+2 attack factors to 3-1" in preview_text(app)  # 7:3 is 2-1; 9:3 is 3-1


async def test_an_ocs_counter_picked_by_name_shows_its_steps_left_and_markers(
    tmp_path: Path,
) -> None:
    """An OCS counter's row filled from the unit as it stands: strength, steps left after
    a loss taken from the CLI, AR, type and supply, and the Low and DG markers it carries."""
    folder = tmp_path / "saves"
    folder.mkdir()
    path = folder / "game.toml"
    saves.new_game(path, "Crusader", ["ocs"], {})
    record = {"side": "Axis", "factor": 8, "steps": 3, "ar": 4, "supply": "internal"}
    saves.add_unit(path, {"name": "15 Pz", **record})
    saves.add_unit(path, {"name": "Trento", "side": "Axis", "factor": 2, "kind": "hq"})
    saves.add_unit(path, {"name": "4 Ind", "side": "Allies", "factor": 5, "steps": 2, "re": 2})
    saves.take_losses(path, [{"unit": "15 Pz", "steps": 1}])
    saves.add_marker(path, "low", "15 Pz")
    saves.add_marker(path, "DG", "15 Pz")
    app = open_desk(folder, path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        row = screen.unit_rows("attacker")[0]
        # Strength, steps, AR, then the name: "1" completes to 15 Pz, Tab takes it.
        await typed(pilot, "tab", "tab", "tab", "1")
        await typed(pilot, "tab")
        await settle(pilot)
        parts = row.parts()
        assert parts["name"] == "15 Pz" and parts["factor"] == "8"
        assert (parts["steps"], parts["ar"], parts["kind"], parts["supply"]) == (
            "2",
            "4",
            "combat",
            "internal",
        )
        assert row.marker_text == "Low DG"
        # The defender completes from the other side only: "4" is 4 Ind, with its RE.
        defender = screen.unit_rows("defender")[0]
        assert screen.side_names("defender") == ["4 Ind"]
        defender.name_input.focus()
        await typed(pilot, "4", "right")
        await settle(pilot)
        assert defender.parts()["factor"] == "5" and defender.parts()["re"] == "2"
        assert "A 8 : D 5" in preview_text(app)


async def test_a_unit_eliminated_is_no_longer_completed(tmp_path: Path) -> None:
    """The names a row completes from are the units still in play: 21 Pz, eliminated on the
    command line before the game is opened, is passed over for 2 NZ; once 2 NZ is picked
    the defenders complete from the Axis left (Ariete alone)."""
    folder = tmp_path / "saves"
    path = basic_game(folder)
    saves.take_losses(path, [{"unit": "21 Pz", "eliminated": True}])
    app = open_desk(folder, path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        assert screen.side_names("attacker") == ["Ariete", "9 Aus", "2 NZ"]
        first = screen.unit_rows("attacker")[0]
        await typed(pilot, "tab", "2")
        assert first.name_input.render_line(0).text.startswith("2 NZ")  # the completion shown
        await typed(pilot, "right")
        assert first.name_input.value == "2 NZ" and first.factor_text == "5"
        assert screen.side_names("attacker") == ["9 Aus", "2 NZ"]
        assert screen.side_names("defender") == ["Ariete"]
        # "2" in the defender's row completes to nothing: 21 Pz is out of play.
        defender = screen.unit_rows("defender")[0]
        await typed(pilot, "ctrl+n", "enter", "tab", "2", "tab")
        assert defender.name_input.value == "2" and defender.factor_text == ""
