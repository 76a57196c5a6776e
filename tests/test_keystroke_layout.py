"""A keystroke in a combat form redraws the field and the preview in place: the screen is
not laid out again unless a preview part grows taller than it has been (a layout of a
whole combat form costs more than a frame at 80x24)."""

from __future__ import annotations

import pytest
from conftest import Desk, settle
from textual.screen import Screen
from textual.widgets import Input

from tui.widgets.combat import OddsPreview


def count_layouts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    layouts = [0]
    laid_out = Screen._refresh_layout

    def counted(self: Screen, *args: object, **kwargs: object) -> None:
        layouts[0] += 1
        laid_out(self, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    return layouts


@pytest.mark.parametrize("ruleset", ["pod-basic", "ocs"])
async def test_typing_a_factor_lays_nothing_out_and_shows_the_new_odds(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, ruleset: str
) -> None:
    async with desk(rulesets=[ruleset]) as (app, pilot):
        await pilot.press("5", "tab", "4", "shift+tab", "end")
        await settle(pilot)
        field = app.screen.focused
        assert isinstance(field, Input) and field.value == "5"
        odds = app.screen.query_one(OddsPreview)
        # Once each way first: each preview part takes the taller of the two heights.
        await pilot.press("1", "backspace")
        await settle(pilot)
        layouts = count_layouts(monkeypatch)
        for _ in range(2):
            await pilot.press("1")
            await settle(pilot)
            assert field.value == "51"
            assert "51" in odds.texts["odds-head"]  # the new total, shown
            await pilot.press("backspace")
            await settle(pilot)
            assert field.value == "5"
            assert "51" not in odds.texts["odds-head"]
        assert layouts[0] == 0


async def test_a_taller_preview_is_laid_out_and_shown_whole(desk: Desk) -> None:
    async with desk(rulesets=["pod-basic"]) as (app, pilot):
        await pilot.press("1", "2", "tab", "1")  # 12:1, an automatic result: few lines
        await settle(pilot)
        odds = app.screen.query_one(OddsPreview)
        chances = odds.query_one(".chances")
        short = chances.size.height
        await pilot.press("shift+tab", "end", "backspace")  # 1:1: every result's chance
        await settle(pilot)
        lines = odds.texts["chances"].count("\n") + 1
        assert lines > short
        assert chances.size.height >= lines
        # Back to the short text: the part keeps its height, blank below.
        await pilot.press("2")
        await settle(pilot)
        assert chances.size.height >= lines
        assert str(chances.content).rstrip("\n") == odds.texts["chances"]


async def test_a_typed_value_reaches_the_preview_before_its_message_and_is_read_once(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with desk(rulesets=["pod-super"]) as (app, pilot):
        await pilot.press("5", "tab", "4", "shift+tab", "end")
        await settle(pilot)
        screen = app.screen
        field = screen.focused
        assert isinstance(field, Input)
        odds = screen.query_one(OddsPreview)
        reads = [0]
        read_form = type(screen).read_form

        def counted(self: object) -> object:
            reads[0] += 1
            return read_form(self)  # type: ignore[arg-type]

        monkeypatch.setattr(type(screen), "read_form", counted)
        field.insert_text_at_cursor("1")
        # Drawn in the same frame as the echo: no message has been handled yet.
        assert "51" in odds.texts["odds-head"]
        await settle(pilot)
        assert reads[0] == 1  # its Changed message, when it came, read nothing again
        # A value set by the program (not typed in the focused field) still arrives.
        screen.query_one("#defenders .factor", Input).value = "3"
        await settle(pilot)
        assert "Defence 3" in odds.texts["odds-head"]


async def test_a_roll_recorded_does_not_rebuild_the_footer(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with desk(rulesets=["pod-basic"]) as (app, pilot):
        await pilot.press("5", "tab", "2")
        await settle(pilot)
        screen = app.screen
        rebuilt = [0]
        refresh_bindings = Screen.refresh_bindings

        def counted(self: Screen) -> None:
            rebuilt[0] += 1
            refresh_bindings(self)

        monkeypatch.setattr(Screen, "refresh_bindings", counted)
        for _ in range(2):
            await pilot.press("ctrl+r")
            await settle(pilot)
        assert app.game is not None and len(app.game.entries) == 2  # both logged
        assert screen.save_state.status == "saved"
        assert rebuilt[0] == 0
