"""`crtdesk repair` on a save broken in the middle: the whole file kept as a backup, every
sound entry kept (renumbered only where numbers clash, references following), the rest
set aside in a side file, nothing lost."""

from __future__ import annotations

import random
import stat
from pathlib import Path

import pytest

from tui import saves
from tui.cli import main
from tui.engine.combat import CombatInput, resolve
from tui.saves import SaveError


def boom(seed: int) -> tuple[CombatInput, object]:
    combat = CombatInput("pod-boom", step="crt", caf=9)
    return combat, resolve(combat, rng=random.Random(seed))


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = tmp_path / "g.toml"
    saves.new_game(path, "G", ["pod-boom"])
    for seed in range(1, 6):
        saves.append_combat(path, *boom(seed), note=f"combat {seed}")
    saves.append_note(path, 5, "on five")
    return path


def break_entry(path: Path, seq: int, old: bytes, new: bytes) -> None:
    data = path.read_bytes()
    start = data.index(f'\n[[log]]\n"seq" = {seq}\n'.encode())
    end = data.index(b"# end of entry", start)
    path.write_bytes(data[:start] + data[start:end].replace(old, new, 1) + data[end:])


def test_a_save_broken_in_the_middle_is_brought_back_with_nothing_lost(game: Path) -> None:
    game.chmod(0o640)
    break_entry(game, 3, b'"turn" = 1', b'"turn" = "one"')  # its checksum no longer holds either
    original = game.read_bytes()
    with pytest.raises(SaveError, match="entry 3"):
        saves.load_game(game)
    done = saves.repair_save(game)
    loaded = saves.load_game(game)
    assert [e["seq"] for e in loaded.entries] == [1, 2, 4, 5, 6]
    assert [e.get("note") for e in loaded.entries[:4]] == [f"combat {i}" for i in (1, 2, 4, 5)]
    assert loaded.entries[-1]["annotates"] == 5
    assert done.renumbered == 0 and len(done.set_aside) == 1
    assert "'turn' must be a whole number" in done.set_aside[0][1]
    assert done.backup is not None and done.backup.read_bytes() == original
    assert done.side_file is not None and b'"turn" = "one"' in done.side_file.read_bytes()
    for made in (game, done.backup, done.side_file):
        assert stat.S_IMODE(made.stat().st_mode) == 0o640, made
    # And appends go on from there.
    assert saves.add_marker(game, "DG", "0101")["seq"] == 7


def test_clashing_numbers_are_renumbered_and_references_follow(game: Path) -> None:
    # Two writers that each wrote an entry 3 (before the lock was the file's own).
    data = game.read_bytes()
    start = data.index(b'\n[[log]]\n"seq" = 3\n')
    end = data.index(b'\n[[log]]\n"seq" = 4\n')
    again = data[start:end]
    game.write_bytes(data[:end] + again + data[end:])
    with pytest.raises(SaveError, match="does not follow entry 3"):
        saves.load_game(game)
    done = saves.repair_save(game)
    loaded = saves.load_game(game)
    assert [e["seq"] for e in loaded.entries] == [1, 2, 3, 4, 5, 6, 7]
    assert [e.get("note") for e in loaded.entries[:6]] == [
        "combat 1",
        "combat 2",
        "combat 3",
        "combat 3",
        "combat 4",
        "combat 5",
    ]
    assert loaded.entries[-1]["annotates"] == 6  # entry 5 is now entry 6
    assert done.renumbered == 4 and done.set_aside == ()


def test_the_cli_repairs_a_middle_entry_and_says_what_it_set_aside(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    break_entry(game, 2, b'"kind" = "combat"', b'"kind" = "combat')
    assert main(["repair", "g", "--saves", str(game.parent)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "set aside 1 (from lines" in out and ".set-aside-" in out and ".bak-" in out
    assert main(["log", "g", "--saves", str(game.parent)]) == 0
    assert "combat 1" in capsys.readouterr().out


def test_a_sound_save_is_left_as_it_is(game: Path) -> None:
    before = game.read_bytes()
    done = saves.repair_save(game)
    assert done.backup is None and done.side_file is None
    assert game.read_bytes() == before


def test_a_save_whose_header_cannot_be_read_is_refused_untouched(game: Path) -> None:
    data = game.read_bytes().replace(b"format = 1", b"format = [", 1)
    game.write_bytes(data)
    with pytest.raises(SaveError, match="header cannot be read|line"):
        saves.repair_save(game)
    assert game.read_bytes() == data
    assert list(game.parent.glob("g.toml.bak-*")) == []


async def test_the_start_screen_repairs_an_unreadable_save(game: Path) -> None:
    from tests.conftest import settle
    from tui.desk.app import CrtDeskApp
    from tui.desk.screens.start import StartScreen

    break_entry(game, 3, b'"turn" = 1', b'"turn" = "one"')
    app = CrtDeskApp(saves_dir=game.parent, rng=random.Random(1), player="tester")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, StartScreen)
        await pilot.press("enter")  # refused on opening: the entry and field said
        await settle(pilot)
        assert isinstance(app.screen, StartScreen)
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert [g.error for g in screen.games] == [None]
    assert [e["seq"] for e in saves.load_game(game).entries] == [1, 2, 4, 5, 6]
    assert len(list(game.parent.glob("g.toml.set-aside-*"))) == 1
