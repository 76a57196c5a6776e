"""Pilot tests at 80x24: what the desk says about the save it works on. A torn save's
warning shows, a new game names its file, and another player's turn is caught up by the
next entry this desk appends."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from tests.conftest import make_app, notes, settle
from tui import saves
from tui.desk.screens.review import ReviewScreen
from tui.desk.screens.rivets import RivetsScreen


async def roll_by_hand(pilot: Pilot, attack: str, defense: str, die: str) -> None:
    await pilot.press(*attack, "tab", *defense, "ctrl+t")
    await pilot.pause()
    await pilot.press(*die, "enter")
    await settle(pilot)


async def test_opening_a_torn_save_shows_the_warning(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    app = make_app(folder, rulesets=["rivets"])
    path = folder / "game.toml"
    saves.add_marker(path, "no-entry", "0412", turns=2)
    with path.open("ab") as handle:
        handle.write(b'\n[[log]]\n"seq" = 2\n"kind" = "turn"\n"turn" = ')  # a write cut short
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, RivetsScreen)
        shown = [n for n in notes(app) if "torn" in n]
        assert len(shown) == 1, notes(app)
        assert str(path) in shown[0]
        assert len(app.game.entries) == 1
        torn = path.read_bytes()
        assert torn.endswith(b'"turn" = ')  # opening it wrote nothing
        # The desk's next entry cuts the torn one off first, and says so.
        await roll_by_hand(pilot, "8", "4", "3")
        assert app.screen.save_state.status == "saved"
        assert app.screen.save_state.entry["seq"] == 2
        cut = [n for n in notes(app) if n not in shown and "torn" in n]
        assert len(cut) == 1 and ".bak" in cut[0], notes(app)


async def test_a_new_game_says_which_file_it_made(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    saves.new_game(folder / "bastogne.toml", "Bastogne", ["rivets"], {})
    app = make_app(folder)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("n", *"Bastogne", "enter")
        await settle(pilot)
        assert (folder / "bastogne-2.toml").exists()
        assert any("bastogne-2.toml" in n for n in notes(app)), notes(app)


async def test_another_players_turn_is_caught_up_by_the_next_entry(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    app = make_app(folder, rulesets=["rivets"])
    path = folder / "game.toml"
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RivetsScreen) and screen.sub_title.startswith("Turn 1 ")
        saves.advance_turn(path, who="other player")  # as `crtdesk turn` from another shell
        await roll_by_hand(pilot, "8", "4", "3")
        assert screen.save_state.status == "saved"
        entry = screen.save_state.entry
        on_file = saves.load_game(path)
        assert on_file.turn == 2 and entry["turn"] == 2 and entry["seq"] == 2
        assert app.game.turn == 2 and [e["seq"] for e in app.game.entries] == [1, 2]
        assert screen.sub_title.startswith("Turn 2 ")
        await pilot.press("ctrl+l")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        assert app.screen.sub_title.startswith("Turn 2 · 2 entries")
