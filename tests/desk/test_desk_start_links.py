"""Pilot: the start screen lists a save beside links planted in the saves folder (a loop, a
link to a folder, one to nothing): each link a row that cannot be read, saying why when
picked, and the save beside them opens."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from textual.widgets import DataTable

from tests.conftest import SIZE, notes, screen_text, settle
from tui import saves
from tui.desk.app import CrtDeskApp
from tui.desk.screens.boom import BoomScreen
from tui.desk.screens.start import StartScreen

AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


async def test_the_start_screen_lists_a_save_beside_planted_links_and_opens_it(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    saves.new_game(folder / "good.toml", "Good game", ["pod-boom"])
    (tmp_path / "a-folder").mkdir()
    (folder / "aaa-folder.toml").symlink_to(tmp_path / "a-folder", target_is_directory=True)
    (folder / "aab-loop.toml").symlink_to(folder / "aab-loop.toml")
    (folder / "aac-nothing.toml").symlink_to(tmp_path / "nowhere.toml")
    app = CrtDeskApp(saves_dir=folder, rng=random.Random(1), player="tester")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, StartScreen)
        table = app.screen.query_one(DataTable)
        rows = [table.get_row_at(i) for i in range(table.row_count)]
        assert [row[0] for row in rows] == ["good", "aaa-folder", "aab-loop", "aac-nothing"]
        assert all("unreadable" in row[2] for row in rows[1:])
        assert "(4)" in screen_text(app)
        await pilot.press("down", "enter")  # the link to a folder: said why, not opened
        await settle(pilot)
        assert isinstance(app.screen, StartScreen)
        assert any("aaa-folder.toml is a symbolic link (to a folder)" in n for n in notes(app))
        await pilot.press("up", "enter")
        await settle(pilot)
        assert isinstance(app.screen, BoomScreen)


@pytest.mark.skipif(AS_ROOT, reason="run as root, where file permissions do not apply")
async def test_a_saves_folder_that_cannot_be_read_is_said_on_the_start_screen(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    saves.new_game(folder / "good.toml", "Good game", ["pod-boom"])
    folder.chmod(0o300)  # may enter and write, not list
    try:
        app = CrtDeskApp(saves_dir=folder, rng=random.Random(1), player="tester")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, StartScreen)
            assert "cannot be read" in screen_text(app)
    finally:
        folder.chmod(0o700)
    # No first-run game was made in a folder whose saves could not be seen.
    assert sorted(p.name for p in folder.iterdir() if p.suffix == ".toml") == ["good.toml"]
