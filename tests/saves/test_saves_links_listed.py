"""Listing a saves folder never follows a link and never raises: each planted link is an
entry that cannot be read, saying why; every other game lists and opens. A saves folder
the player cannot enter is one line from every save command."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tui import saves
from tui.cli import main

AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
ROOT_REASON = "run as root, where file permissions do not apply (a link loop and a link to a folder are tested instead)"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    made = tmp_path / "saves"
    made.mkdir()
    saves.new_game(made / "good.toml", "Good game", ["pod-boom"])
    saves.advance_turn(made / "good.toml")
    return made


def _listed(folder: Path) -> dict[str, saves.GameSummary]:
    return {summary.path.name: summary for summary in saves.list_games(folder)}


def _plant(folder: Path, tmp_path: Path) -> dict[str, str]:
    """Links of every kind beside the good save: each file's name and the reason shown."""
    (tmp_path / "a-folder").mkdir()
    (folder / "to-folder.toml").symlink_to(tmp_path / "a-folder", target_is_directory=True)
    (folder / "loop.toml").symlink_to(folder / "loop.toml")
    (folder / "dangling.toml").symlink_to(tmp_path / "nowhere.toml")
    saves.new_game(tmp_path / "elsewhere.toml", "Elsewhere", ["pod-boom"])
    (folder / "to-file.toml").symlink_to(tmp_path / "elsewhere.toml")
    return {
        "to-folder.toml": "to a folder",
        "loop.toml": "link loop",
        "dangling.toml": "to nothing",
        "to-file.toml": "symbolic link",
    }


def test_planted_links_are_listed_as_unreadable_and_the_game_beside_them_opens(
    folder: Path, tmp_path: Path
) -> None:
    planted = _plant(folder, tmp_path)
    listed = _listed(folder)
    assert set(listed) == {"good.toml", *planted}
    good = listed["good.toml"]
    assert good.error is None and good.title == "Good game" and good.turn == 2
    for name, why in planted.items():
        error = listed[name].error
        assert error is not None and "\n" not in error, name
        assert f"{name} is a symbolic link" in error and why in error, error
    assert saves.has_games(folder)
    assert saves.load_game(folder / "good.toml").title == "Good game"


@pytest.mark.skipif(AS_ROOT, reason=ROOT_REASON)
def test_a_link_into_a_folder_the_player_cannot_enter_is_listed_as_unreadable(
    folder: Path, tmp_path: Path
) -> None:
    closed = tmp_path / "closed"
    closed.mkdir()
    saves.new_game(closed / "secret.toml", "Secret", ["pod-boom"])
    (folder / "zzz.toml").symlink_to(closed / "secret.toml")
    closed.chmod(0)
    try:
        listed = _listed(folder)
    finally:
        closed.chmod(0o700)
    assert listed["good.toml"].error is None
    error = listed["zzz.toml"].error
    assert error is not None and "zzz.toml is a symbolic link" in error
    assert "cannot" in error  # a file the player may not read


@pytest.mark.skipif(AS_ROOT, reason=ROOT_REASON)
def test_a_saves_folder_the_player_cannot_enter_is_one_line(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder.chmod(0)
    try:
        codes = [
            main([*argv, "--saves", str(folder)]) for argv in (["log", "good"], ["turn", "good"])
        ]
        with pytest.raises(saves.SaveError, match="cannot be read"):
            saves.list_games(folder)
    finally:
        folder.chmod(0o700)
    out, err = capsys.readouterr()
    assert codes == [2, 2] and out == ""
    assert err.count("\n") == 2 and "Traceback" not in err
    assert all(str(folder) in line and "cannot be entered" in line for line in err.splitlines())
