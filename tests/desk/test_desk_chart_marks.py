"""The desk on a chart with unit marks: each side's unit rows offer that side's marks ("-"
and the marks, as Super's rows offer terrain), and a mark chosen changes the preview."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from tests.conftest import SIZE, screen_text, settle
from tui import saves
from tui.desk.app import CrtDeskApp
from tui.desk.widgets.combat import Cycle
from tui.engine import registry
from tui.engine.rulesets.charts.reading import load_chart

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"


async def test_a_defending_units_mark_doubles_it_in_the_preview(tmp_path: Path) -> None:
    folder, games = tmp_path / "saves", tmp_path / "games"
    folder.mkdir()
    games.mkdir()
    chart = load_chart(DOCS / "siege-of-varn.toml")
    ruleset = registry.chart_id(chart.name)
    saves.new_game(folder / "g.toml", "Varn", [ruleset], charts={ruleset: chart.text})
    app = CrtDeskApp(
        saves_dir=folder, games_dir=games, game_path=folder / "g.toml", player="tester"
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        # Each side's own marks: the attacker's qualities, the defender's fort.
        attacker_mark = screen.query_one("#attackers .terrain", Cycle)
        mark = screen.query_one("#defenders .terrain", Cycle)
        assert [label for label, _ in attacker_mark.options] == ["-", "veteran", "raw"]
        assert [label for label, _ in mark.options] == ["-", "fort"]
        screen.query_one("#attackers .factor", Input).value = "8"
        screen.query_one("#defenders .factor", Input).value = "4"
        await settle(pilot)
        assert "Attack 8 · Defence 4 · odds 2-1" in screen_text(app)
        mark.focus()
        await pilot.press("space")
        await settle(pilot)
        assert mark.label == "fort"
        assert "Attack 8 · Defence 8 · odds 1-1" in screen_text(app)
        await pilot.press("ctrl+r")
        await settle(pilot)
        [entry] = saves.load_game(folder / "g.toml").entries
        assert entry["inputs"]["defenders"] == [{"factor": 4, "terrain": "fort"}]
        assert entry["column"] == "1-1"
