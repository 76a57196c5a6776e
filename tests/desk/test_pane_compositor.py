"""A combat screen draws a frame's changes a pane at a time (`PaneCompositor`): what it
leaves on the terminal must be exactly what Textual's own update leaves."""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len
from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from tests.conftest import Desk, settle
from tui.desk.compat import PaneCompositor, column_groups, row_runs

# A cursor move, a colour or style, another escape, or a run of text.
TOKENS = re.compile(r"\x1b\[(\d+);(\d+)H|(\x1b\[[0-9;]*m)|\x1b\[[0-9;?]*[A-Za-z]|([^\x1b]+)")


class Terminal:
    """What a terminal shows after the updates written to it: each cell's character and
    the colours and style it was written with."""

    def __init__(self, width: int = 80, height: int = 24) -> None:
        self.cells: dict[tuple[int, int], tuple[str, str]] = {}
        self.width, self.height = width, height

    def write(self, data: str) -> None:
        x = y = 0
        style = ""
        for match in TOKENS.finditer(data):
            row, column, sgr, text = match.groups()
            if row is not None:
                y, x = int(row) - 1, int(column) - 1
            elif sgr is not None:
                style = "" if sgr == "\x1b[0m" else style + sgr
            elif text is not None:
                for char in text:
                    if char in "\r\n":
                        continue
                    self.cells[(x, y)] = (char, style)
                    x += cell_len(char)


def test_changes_are_grouped_by_the_columns_they_cover() -> None:
    screen = Region(0, 0, 80, 24)
    field, preview, panel = Region(5, 4, 8, 1), Region(38, 5, 41, 16), Region(38, 2, 41, 2)
    assert column_groups([preview, field, panel], screen) == [[field], [panel, preview]]
    wide = Region(0, 0, 80, 1)  # a change across the screen joins everything
    assert column_groups([field, preview, wide], screen) == [[wide, field, preview]]
    beyond = Region(70, 20, 20, 10)  # cut to the screen; nothing left: dropped
    assert column_groups([beyond, Region(90, 0, 5, 5)], screen) == [[Region(70, 20, 10, 4)]]


def test_rows_are_joined_in_runs_of_consecutive_rows() -> None:
    assert row_runs([9, 0, 10, 11, 3, 8]) == [(0, 1), (3, 4), (8, 12)]
    assert row_runs([]) == []


async def test_a_preview_refreshes_each_run_of_changed_rows_as_one_region(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Big Boom key changes the head's first line and a dozen rows below the attrition
    chances (which stay): one region each run, the rows in them exactly those changed."""
    asked: list[tuple[Region, ...]] = []
    refresh = Widget.refresh

    def recorded(self: Widget, *regions: Region, **kwargs: bool) -> Widget:
        if self.id == "preview" and regions:
            asked.append(regions)
        return refresh(self, *regions, **kwargs)

    async with desk(rulesets=["pod-boom"]) as (app, pilot):
        await pilot.press("1", "tab", "1", "tab", "tab", "8", "shift+tab", "shift+tab")
        await pilot.press("shift+tab", "end")
        await settle(pilot)
        preview = app.screen.query_one("#preview")
        before = str(preview.content).split("\n")
        monkeypatch.setattr(Widget, "refresh", recorded)
        await pilot.press("2")
        await settle(pilot)
        monkeypatch.undo()
        after = str(preview.content).split("\n")
    assert before[0] == "CAF 1 in 1 unit" and after[0] == "CAF 12 in 1 unit"
    changed = {
        y for y in range(max(len(before), len(after))) if before[y : y + 1] != after[y : y + 1]
    }
    (regions,) = asked
    rows = [y for region in regions for y in range(region.y, region.bottom)]
    assert sorted(rows) == sorted(changed) and len(regions) == len(row_runs(changed)) == 2


@pytest.mark.parametrize("ruleset", ["pod-ultra", "ocs", "pod-boom", "daynight"])
async def test_a_frame_drawn_pane_by_pane_shows_what_textual_shows(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, ruleset: str
) -> None:
    ours, textuals = Terminal(), Terminal()
    split = [0]
    by_pane = PaneCompositor.render_partial_update

    def both(self: PaneCompositor) -> object:
        dirty = set(self._dirty_regions)
        split[0] += len(column_groups(dirty, self.size.region)) >= 2
        theirs = Compositor.render_partial_update(self)
        self._dirty_regions = dirty
        mine = by_pane(self)
        assert (mine is None) == (theirs is None)
        if mine is not None and theirs is not None and self.root is not None:
            console = self.root.app.console
            ours.write(mine.render_segments(console))
            textuals.write(theirs.render_segments(console))
            assert ours.cells == textuals.cells
        return mine

    monkeypatch.setattr(PaneCompositor, "render_partial_update", both)
    async with desk(rulesets=[ruleset]) as (app, pilot):
        # Typing, a unit added, a roll (the result panel comes in), typing after it, Tab.
        for keys in (["8", "tab", "3", "shift+tab"], ["1", "backspace", "2"], ["ctrl+n"]):
            await pilot.press(*keys)
            await settle(pilot)
        await pilot.press("ctrl+r")
        await settle(pilot)
        while len(app.screen_stack) > 2:  # a battle's question: left with Esc
            await pilot.press("escape")
            await settle(pilot)
        await pilot.press("shift+tab", "5", "backspace", "tab")
        await settle(pilot)
    # The keystrokes' frames were drawn pane by pane: 3 to 6 of them in the runs seen since
    # the keys line is one widget that does not recompose its keys at each focus move (9 to
    # 13 before, with Textual's Footer).
    assert split[0] >= 2
    assert ours.cells == textuals.cells and len(ours.cells) > 500


async def test_a_keystroke_asks_only_the_widgets_showing_where_it_changed(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual asks every widget whose container meets a change for all its lines (the
    screen's 24, the title's, the footer's, both panes'); the pane compositor asks only the
    widgets showing in each changed pane, for the rows changed, and of those only the ones
    not hidden there behind others."""
    asked: list[tuple[str, int]] = []
    render_lines = Widget.render_lines

    def recorded(self: Widget, crop: Region) -> list[Strip]:
        asked.append((type(self).__name__, crop.height))
        return render_lines(self, crop)

    async with desk(rulesets=["pod-basic"]) as (app, pilot):
        await pilot.press("1", "tab", "1", "shift+tab", "end")
        await settle(pilot)
        while not app.screen.prepared:  # what follows the first frame (a layout) done
            await pilot.pause(0.05)
        await pilot.pause(0.2)
        monkeypatch.setattr(Widget, "render_lines", recorded)
        await pilot.press("2")  # 12 against 1: a new combat, its preview's lines redrawn
        await settle(pilot)
        monkeypatch.undo()
        assert "Attack 12 · Defence 1" in str(app.screen.query_one("#preview").content)
        screen_name = type(app.screen).__name__
    names = {name for name, _ in asked}
    assert {"FixedInput", "OddsPreview"} <= names
    assert not names & {"Footer", "TitleBar", "MarkerPanel"}, asked  # nothing changed there
    # The field and the preview cover every cell that changed: nothing behind them (their
    # rows, panes, the screen) is asked, though each shows in the rectangle drawn.
    behind = {screen_name, "UnitRow", "Horizontal", "Vertical", "VerticalScroll"}
    assert not names & behind, asked
