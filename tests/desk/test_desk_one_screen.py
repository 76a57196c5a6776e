"""At 80x24, after a roll with eight markers in play, every ruleset screen shows the
markers in a few lines, the whole result and at least four of the chances below
it, with nothing to scroll and no pane to Tab to."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.geometry import Size

from tests.conftest import SIZE, Desk
from tests.snapshots.test_snapshots import ROLLED, _marked_game, _rolled
from tui.desk.widgets.combat import OddsPreview
from tui.desk.widgets.markers import MarkerPanel
from tui.desk.widgets.result import ResultLines, ResultPanel

SIZE_OF = Size(*SIZE)


@pytest.mark.parametrize("ruleset", list(ROLLED))
async def test_the_result_and_four_chances_are_on_screen_after_a_roll(
    tmp_path: Path, ruleset: str
) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    os.chdir(tmp_path)
    app = _marked_game(folder)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await _rolled(ruleset)(pilot)
        screen = app.screen
        side = screen.query_one(".combat-side")
        markers = screen.query_one(MarkerPanel)
        result = screen.query_one(ResultPanel)
        odds = screen.query_one(OddsPreview)
        assert result.display and screen.last is not None
        assert markers.size.height <= 4  # the turn, the markers in a line or two, the keys
        # The whole result, a row for each row of its text (it was cut at three rows).
        lines = screen.query_one(ResultLines)
        width = lines.content_size.width
        assert lines.size.height == lines.get_content_height(SIZE_OF, SIZE_OF, width) >= 3
        assert result.region.bottom <= side.region.bottom
        # The chances below the result: at least four results with their chance, on screen
        # (OCS's result, supply and options said whole, leaves room for four).
        shown = odds.content.split("\n")[: side.region.bottom - odds.region.y]
        chances = [line for line in shown if "%" in line and not line.startswith("Surprise")]
        assert len(chances) >= 4, shown
        # Nothing scrolls and no pane takes the focus.
        assert not isinstance(side, VerticalScroll)
        panes = [w for w in screen.focus_chain if isinstance(w, VerticalScroll)]
        assert panes == []


async def test_below_80x24_the_screen_says_the_size_it_needs(desk: Desk) -> None:
    from textual.widgets import Static

    async with desk(rulesets=["pod-super"], size=(60, 20)) as (app, pilot):
        screen = app.screen
        needed = screen.query_one("#size-needed", Static)
        assert needed.display and needed.region.height > 0
        assert "needs a terminal of at least 80x24" in str(needed.content)
        assert "this one is 60x20" in str(needed.content)
        assert not screen.query_one(".combat-body").display
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert not needed.display and screen.query_one(".combat-body").display
        assert screen.query_one(OddsPreview).region.height > 0
        await pilot.resize_terminal(100, 23)  # too short alone is too small as well
        await pilot.pause()
        assert needed.display and "this one is 100x23" in str(needed.content)


@pytest.mark.parametrize(
    ("ruleset", "attack", "defence", "head"),
    [("pod-basic", 12, 1, "AV: no die read"), ("pod-super", 1, 9, "AD: no die read")],
)
def test_a_result_that_reads_no_die_is_headed_by_that_result(
    ruleset: str, attack: int, defence: int, head: str
) -> None:
    """Not "Roll -: (no cell)": the result the odds gave, and that no die was read."""
    from tui.desk.widgets.result import result_head
    from tui.engine import CombatInput, Unit, resolve

    outcome = resolve(CombatInput(ruleset, (Unit(attack),), (Unit(defence),)))
    assert result_head(outcome) == head


async def test_a_window_enlarged_to_80x24_takes_keys_in_the_first_factor(desk: Desk) -> None:
    """Started too small, then enlarged: the first attacker's factor has the focus (no
    field had it, and keys were dropped until Tab)."""
    from textual.widgets import Input

    async with desk(rulesets=["pod-basic"], size=(60, 20)) as (app, pilot):
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.press("8", "enter", "2")
        await pilot.pause()
        screen = app.screen
        assert screen.query_one("#attackers .factor", Input).value == "8"
        assert screen.query_one("#defenders .factor", Input).value == "2"
