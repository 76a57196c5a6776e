"""The desk on a player's chart: the new-game dialog offers the charts of the games folder
(a broken one named, never in the way); a combat typed on the chart's screen is previewed,
rolled and logged; the review and luck read it; the save reads with the file removed."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from textual.widgets import Input, SelectionList, Static

from tests.conftest import SIZE, screen_text, settle
from tui import saves
from tui.desk.app import CrtDeskApp
from tui.desk.screens.game import FormScreen
from tui.desk.screens.review import ReviewScreen
from tui.desk.widgets.combat import Cycle

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"


async def test_a_players_chart_from_the_dialog_to_the_log_review_and_luck(tmp_path: Path) -> None:
    folder, games = tmp_path / "saves", tmp_path / "games"
    folder.mkdir()
    games.mkdir()
    shutil.copy(DOCS / "hill-203.toml", games)
    (games / "broken.toml").write_text('[game]\ntitle = "Broken"\n')
    saves.new_game(folder / "other.toml", "Other", ["rivets"], {})
    app = CrtDeskApp(saves_dir=folder, games_dir=games, rng=random.Random(4), player="tester")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        choices = app.screen.query_one(SelectionList)
        offered = [choices.get_option_at_index(i) for i in range(choices.option_count)]
        assert "game:hill-203  Hill 203" in [str(o.prompt) for o in offered]
        assert "left out: games/broken.toml: game.dice" in screen_text(app)
        app.screen.query_one("#new-title", Input).value = "Hill fight"
        choices.deselect_all()
        choices.select("game:hill-203")
        app.screen.query_one("#new-title", Input).focus()
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FormScreen) and screen.ruleset == "game:hill-203"
        assert "Hill 203" in screen.sub_title
        # The form is the chart's: the units, then each modifier.
        screen.query_one("#attackers .factor", Input).value = "6"
        screen.query_one("#defenders .factor", Input).value = "2"
        screen.query_one("#modifier-town").value = True
        screen.query_one("#modifier-leader", Input).value = "3"
        await settle(pilot)
        preview = screen_text(app)
        assert "Attack 6 · Defence 4 · odds 1-1" in preview
        await pilot.press("ctrl+r")
        await settle(pilot)
        path = app.game.path
        [entry] = saves.load_game(path).entries
        assert entry["ruleset"] == "game:hill-203" and entry["column"] == "1-1"
        assert entry["inputs"]["modifiers"] == {"town": True, "leader": 3}
        assert entry["dice"][0]["modifier"] == 2  # leader 3, capped at +2
        assert f"Logged as entry {entry['seq']}" in screen_text(app)
        # Dice by hand: a 1 with the capped +2 reads row 3 of 1-1, AR.
        await pilot.press("ctrl+t")
        await pilot.pause()
        await pilot.press("1", "enter")
        await settle(pilot)
        by_hand = saves.load_game(path).entries[-1]
        assert (by_hand["cell"], by_hand["dice"][0]["source"], by_hand["roll"]) == (
            "AR",
            "manual",
            "3",
        )
        # The chart's file goes: the review and luck read the save's copy.
        (games / "hill-203.toml").unlink()
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        first = app.screen.table.row_text(0)
        assert "hill-" in first and "1-1" in first and str(entry["cell"]) in first
        await pilot.press("u")
        await settle(pilot)
        luck = str(app.screen.query_one("#review-luck", Static).content)
        assert "Desk combats: 1 combat, mean percentile" in luck
    assert saves.load_game(path).rulesets == ["game:hill-203"]


async def test_a_chart_file_changed_since_the_game_began_is_named(tmp_path: Path) -> None:
    from tests.conftest import notes
    from tui.engine import registry
    from tui.engine.rulesets.charts.reading import load_chart

    folder, games = tmp_path / "saves", tmp_path / "games"
    folder.mkdir()
    games.mkdir()
    chart = load_chart(DOCS / "hill-203.toml")
    saves.new_game(
        folder / "g.toml",
        "G",
        [registry.chart_id(chart.name)],
        charts={registry.chart_id(chart.name): chart.text},
    )
    edited = chart.text.replace('"Hill 203"', '"Hill 203, 2nd ed."').replace(
        '"4" = ["AR", "EX",  "DR1", "DR2", "DE",  "DE"]',
        '"4" = ["AR", "EX",  "DR1", "DE",  "DE",  "DE"]',
    )
    (games / "hill-203.toml").write_text(edited)
    app = CrtDeskApp(
        saves_dir=folder, games_dir=games, game_path=folder / "g.toml", player="tester"
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, FormScreen)
        # The game's copy is the one in use: its title, not the edited file's.
        assert app.screen.sub_title.endswith("· Hill 203")
        said = [n for n in notes(app) if "has changed since this game began" in n]
        assert said and said[0].startswith("games/hill-203.toml")
        # The games folder read meanwhile (as the new-game dialog reads it, edited file and
        # all): this game still resolves with its own copy. 6 against 2 is 3-1, a 4 by hand
        # reads DR2 there.
        from tui.engine.rulesets.charts.folder import read_games

        assert [c.title for c in read_games(games).charts] == ["Hill 203, 2nd ed."]
        app.screen.query_one("#attackers .factor", Input).value = "6"
        app.screen.query_one("#defenders .factor", Input).value = "2"
        await settle(pilot)
        await pilot.press("ctrl+t")
        await pilot.pause()
        await pilot.press("4", "enter")
        await settle(pilot)
        [entry] = saves.load_game(folder / "g.toml").entries
        assert (entry["column"], entry["cell"]) == ("3-1", "DR2")


async def test_a_re_roll_by_hand_on_the_desk_asks_for_each_die_and_logs_them(
    tmp_path: Path,
) -> None:
    # Ashby Ford (docs/games): 4 against 4 is 1-1; dice by hand 3 (EN), then the desk asks
    # for re-roll 1 (2 on 2-1: EN) and re-roll 2 (4 on 3-1: DR).
    folder = tmp_path / "saves"
    folder.mkdir()
    text = (DOCS / "ashby-ford.toml").read_text()
    saves.new_game(
        folder / "ford.toml", "Ford", ["game:ashby-ford"], charts={"game:ashby-ford": text}
    )
    app = CrtDeskApp(saves_dir=folder, games_dir=DOCS, rng=random.Random(4), player="tester")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FormScreen) and screen.ruleset == "game:ashby-ford"
        screen.query_one("#attackers .factor", Input).value = "4"
        screen.query_one("#defenders .factor", Input).value = "4"
        await settle(pilot)
        await pilot.press("ctrl+t")
        await pilot.pause()
        # Each die's dialog waits for its answer (the roll's worker with it): no settling.
        await pilot.press("3", "enter")
        await pilot.pause()
        await pilot.pause()
        assert "re-roll 1 (1d6)" in screen_text(app)
        await pilot.press("2", "enter")
        await pilot.pause()
        await pilot.pause()
        assert "re-roll 2 (1d6)" in screen_text(app)
        await pilot.press("4", "enter")
        await settle(pilot)
        [entry] = saves.load_game(folder / "ford.toml").entries
        assert (entry["cell"], entry["column"], entry["roll"]) == ("DR", "3-1", "4")
        assert [(d["purpose"], d["total"], d["source"]) for d in entry["dice"]] == [
            ("combat", 3, "manual"),
            ("re-roll 1", 2, "manual"),
            ("re-roll 2", 4, "manual"),
        ]
        assert entry["inputs"]["roll"] == 3 and entry["inputs"]["rerolls"] == [2, 4]


async def test_a_chart_whose_terrain_chooses_the_columns(tmp_path: Path) -> None:
    """Ford of Aln's terrain is a choice named like a combat field: the desk sends it as the
    chart's modifier, and 5 against 3 in woods is previewed and logged on its 3-2."""
    folder, games = tmp_path / "saves", tmp_path / "games"
    folder.mkdir()
    games.mkdir()
    shutil.copy(DOCS / "ford-of-aln.toml", games)
    saves.new_game(folder / "other.toml", "Other", ["rivets"], {})
    app = CrtDeskApp(saves_dir=folder, games_dir=games, rng=random.Random(4), player="tester")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        app.screen.query_one("#new-title", Input).value = "Ford"
        choices = app.screen.query_one(SelectionList)
        choices.deselect_all()
        choices.select("game:ford-of-aln")
        app.screen.query_one("#new-title", Input).focus()
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FormScreen)
        screen.query_one("#attackers .factor", Input).value = "5"
        screen.query_one("#defenders .factor", Input).value = "3"
        # The first set is shown (and read), never "-", which would hide the columns read.
        terrain = screen.query_one("#modifier-terrain", Cycle)
        assert terrain.value == "open" and "-" not in [v for _, v in terrain.options]
        terrain.value = "woods"
        await settle(pilot)
        assert "odds 5-3" in screen_text(app)
        await pilot.press("ctrl+r")
        await settle(pilot)
        [entry] = saves.load_game(app.game.path).entries
        assert entry["inputs"]["modifiers"] == {"terrain": "woods"}
        assert entry["column"] == "3-2" and entry["odds"] == "5-3"
        assert "Defender's terrain woods: the woods columns" in entry["trace"]
