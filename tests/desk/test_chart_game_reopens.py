"""A game on a player's chart opens again after its first combat, from the CLI and the desk
alike, and its markers show on its screen. (The store once checked a logged combat's
ruleset before the header had read the chart's copy: every command after the first combat
said "the last entry cannot be read", and the start screen listed the game as unreadable.)"""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from tests.conftest import crtdesk_cli, settle
from tui.desk.app import CrtDeskApp
from tui.desk.screens.game import FormScreen
from tui.desk.screens.start import UNREADABLE
from tui.desk.widgets.markers import MarkerPanel

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"


def play_a_chart_game(folder: Path) -> None:
    """`new` on hill-203, a combat, then every command that reads the save again."""
    games = ("--games", str(DOCS))
    said = crtdesk_cli(folder, "new", "h", "--title", "H", "--ruleset", "game:hill-203", *games)
    assert "Started 'H'" in said
    said = crtdesk_cli(
        folder, "resolve", "hill-203", "--attack", "6", "--defense", "2", "--roll", "4",
        "--save", "h", *games,
    )  # fmt: skip
    assert "Result: DR2" in said and "Saved as entry 1" in said
    assert "Turn 2 begins (entry 2" in crtdesk_cli(folder, "turn", "h")
    placed = crtdesk_cli(folder, "marker", "h", "add", "no-entry", "0712", "--turns", "2")
    assert "Placed no-entry" in placed and "entry 3" in placed
    assert "as entry 4" in crtdesk_cli(folder, "note", "h", "1", "well done")
    assert "as entry 5" in crtdesk_cli(folder, "option", "h", "mines_cdf", "3")
    log = crtdesk_cli(folder, "log", "h")
    assert "DR2" in log and "On entry 1: well done" in log and "mines_cdf = 3" in log
    assert "nothing to do" in crtdesk_cli(folder, "repair", "h")


async def test_a_chart_game_reopens_after_its_first_combat(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    play_a_chart_game(folder)
    app = CrtDeskApp(saves_dir=folder, games_dir=DOCS, player="tester")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        row = [str(cell) for cell in table.get_row_at(0)]
        assert row[0] == "h" and UNREADABLE not in row and row[2] == "hill-203", row
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, FormScreen) and app.screen.ruleset == "game:hill-203"
        # The marker placed from the CLI shows on the chart's own screen.
        panel = str(app.screen.query_one(MarkerPanel).content)
        assert "Turn 2" in panel and "no-entry" in panel and "0712" in panel, panel
