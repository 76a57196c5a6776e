"""Pilot tests at 80x24: the dialogs answer the keyboard a player tries first (the first
choice highlighted, the arrows and Enter, the keys), Esc in any dialog of a roll cancels the
whole roll with nothing logged, and keys typed after a dialog land in no field."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from textual.widgets import Input, Label, OptionList

from tests.conftest import SIZE, Desk, make_app, notes, settle
from tests.desk.test_desk_ocs import fill, hand_dice, last_entry
from tests.desk.test_desk_rivets_daynight import open_daynight
from tui import saves
from tui.desk.app import CrtDeskApp
from tui.desk.screens.dialogs import ChoiceScreen, HandDiceScreen, NumberScreen
from tui.desk.screens.ocs import OcsScreen


def logged(app: CrtDeskApp) -> list[dict]:
    assert app.game is not None
    return saves.load_game(app.game.path).entries


async def test_the_ocs_option_dialog_answers_down_and_enter(desk: Desk) -> None:
    async with desk(rulesets=["ocs"]) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, OcsScreen)
        await fill(pilot, screen)
        await hand_dice(pilot, "9", "1", "7")
        dialog = app.screen
        assert isinstance(dialog, ChoiceScreen)
        assert "the attacker takes its option 1" in dialog.question
        assert dialog.query_one(OptionList).highlighted == 0  # the first choice is lit
        hint = str(list(dialog.query(Label).results(Label))[-1].content)
        assert "Enter" in hint and "Esc" in hint  # the last line says the keys
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("i")  # the defender ignores its options (the label's first letter)
        await settle(pilot)
        entry = last_entry(app)
        assert entry["inputs"]["attacker_option_retreat"] == 1
        assert entry["inputs"]["defender_ignores_options"] is True


async def test_esc_in_a_choice_or_the_dice_cancels_the_ocs_roll(desk: Desk) -> None:
    async with desk(rulesets=["ocs"]) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, OcsScreen)
        await fill(pilot, screen)
        await hand_dice(pilot, "9", "1", "7")
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and logged(app) == []
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert isinstance(app.screen, HandDiceScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and logged(app) == []
        assert not screen.result_panel.display  # no roll shown


async def test_esc_in_the_number_dialog_cancels_the_battle(desk: Desk) -> None:
    async with desk(rulesets=["daynight"]) as (app, pilot):
        screen = await open_daynight(pilot, "4", "4")
        await pilot.press("ctrl+t")
        await pilot.pause()
        await pilot.press("4", "enter")  # ENG: the desk asks for a reserve
        await pilot.pause()
        assert isinstance(app.screen, NumberScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and logged(app) == []


async def test_hand_dice_on_an_av_ask_first_and_keys_typed_after_land_nowhere(
    desk: Desk,
) -> None:
    async with desk(rulesets=["pod-super"]) as (app, pilot):
        screen = app.screen
        attack, defend = (
            screen.query_one(f"#{side}s .factor", Input) for side in ("attacker", "defender")
        )
        attack.value, defend.value = "12", "2"
        defend.focus()
        await pilot.pause()
        await pilot.press("ctrl+t")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ChoiceScreen)
        assert "No die is read" in dialog.question and "AV" in dialog.question
        assert logged(app) == []
        await pilot.press("7", "enter")  # a die typed as if asked for one: confirms only
        await settle(pilot)
        assert app.screen is screen
        assert (attack.value, defend.value) == ("12", "2")
        (entry,) = logged(app)
        assert entry["effects"]["result"] == "AV" and entry["dice"] == []
        await pilot.press("ctrl+t", "n")  # asked again, and declined: nothing logged
        await settle(pilot)
        assert len(logged(app)) == 1 and defend.value == "2"


@contextmanager
def unwritable_file(path: Path) -> Iterator[None]:
    """`path` made so that it cannot be written, even by root (immutable), put back after."""
    path.chmod(0o444)
    immutable = os.access(path, os.W_OK)  # root writes a read-only file anyway
    if immutable and subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode:
        pytest.skip("cannot make a file unwritable here")
    try:
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        path.chmod(0o644)


async def test_a_read_only_save_is_named_so_and_refuses_the_roll_before_dice(
    tmp_path: Path,
) -> None:
    app = make_app(tmp_path / "saves", rulesets=["pod-super"])
    assert app.game_path is not None
    with unwritable_file(app.game_path):
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await pilot.pause()
            screen = app.screen
            assert "READ-ONLY" in screen.sub_title
            assert any("cannot be written" in note for note in notes(app))
            for side, value in (("attacker", "6"), ("defender", "2")):
                screen.query_one(f"#{side}s .factor", Input).value = value
            await pilot.pause()
            await pilot.press("ctrl+t")
            await settle(pilot)
            assert app.screen is screen  # no dice asked
            await pilot.press("ctrl+r")
            await settle(pilot)
            assert app.screen is screen and not screen.result_panel.display
            assert notes(app)[-1].startswith("Not rolled: game.toml cannot be written")
        assert saves.load_game(app.game_path).entries == []


async def test_the_read_only_notice_names_the_file_as_it_is_on_disk(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    path = folder / "duel.toml"
    saves.new_game(path, "Duel", ["pod-basic"], {})
    app = CrtDeskApp(saves_dir=folder, game_path=path, player="tester")
    with unwritable_file(path):
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await pilot.pause()
            (notice,) = [note for note in notes(app) if "cannot be written" in note]
            assert notice.startswith("duel.toml cannot be written (")
            assert "Duel.toml" not in notice


def test_a_read_only_folder_is_said_with_the_file_as_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.game import session

    path = tmp_path / "duel.toml"
    saves.new_game(path, "Duel", ["pod-basic"], {})
    path.with_name("duel.toml.lock").unlink()  # no lock file: it would be made in the folder
    assert session.unwritable(path) is None
    monkeypatch.setattr(session.os, "access", lambda *args: False)  # as for a user, not root
    said = session.unwritable(path)
    assert said is not None and said.startswith("duel.toml is in a read-only folder")
