"""The review's losses pane (`o`): each side's losses by unit and by turn, what remains and
the losses open, read again as the log grows; names from the save shown as typed."""

from __future__ import annotations

import random
from pathlib import Path

from textual.widgets import Static

from tests.cli.test_units_report import OOB, log_combat
from tests.conftest import settle
from tui import saves
from tui.desk.app import CrtDeskApp
from tui.desk.screens.review import ReviewScreen
from tui.engine.units import read_record
from tui.saves.units import unit_fields


def pane(screen: ReviewScreen) -> str:
    return str(screen.query_one("#review-losses", Static).content)


async def test_o_shows_the_losses_and_what_remains_as_the_log_grows(tmp_path: Path) -> None:
    import tomllib

    path = tmp_path / "camp.toml"
    saves.new_game(path, "Night", ["daynight"], {})
    fields = unit_fields(["daynight"])
    units = [read_record(u, fields) for u in tomllib.loads(OOB)["unit"]]
    saves.import_units(path, units, source="oob.toml")
    seq = log_combat(
        path,
        [{"unit": "1/A [DR]", "steps": 1}],
        [{"side": "defender", "what": "steps", "amount": 2, "units": ["2/B *x*", "3/C"]}],
    )
    app = CrtDeskApp(
        saves_dir=tmp_path, game_path=path, rng=random.Random(1), player="ann", review=True
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await pilot.press("o")
        await settle(pilot)
        shown = pane(screen).splitlines()
        # The names as the save holds them: "[DR]" is text, not markup.
        assert shown[:4] == [
            "Blue: lost 1 step · 1 of 1 unit in play",
            "  1/A [DR] (0101): lost 1 step; left 1 of 2 steps, factor 4 of 4",
            "Red: lost nothing · 2 of 2 units in play",
            "  2/B *x*: lost nothing; left 2 of 2 steps, factor 3 of 3",
        ]
        assert shown[-1] == (
            f"  combat #{seq} (turn 1): 2 steps from the defender's units (2/B *x*, 3/C)"
        )
        assert screen.query_one("#review-losses-pane").display
        assert not screen.query_one("#review-detail-pane").display
        # Again: hidden, the entry in full back.
        await pilot.press("o")
        await pilot.pause()
        assert not screen.query_one("#review-losses-pane").display
        assert screen.query_one("#review-detail-pane").display

        # Red takes the open loss (another player, at a shell); the pane reads it again.
        saves.take_losses(path, [{"unit": "3/C", "steps": 2}], combat=seq, who="bob")
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        shown = pane(screen).splitlines()
        assert "  3/C: lost 2 steps; left 1 of 3 steps, factor 5 of 5" in shown
        assert "  turn 1 · Red: 2 steps" in shown
        assert shown[-1] == "Losses still open: none"
        # Luck takes the pane's place, and the losses step aside.
        await pilot.press("u")
        await settle(pilot)
        assert screen.query_one("#review-luck-pane").display
        assert not screen.query_one("#review-losses-pane").display
