"""The keys line of a ruleset screen (`KeyBar`, one widget where Textual's Footer made one
per key): the keys the Footer listed, in its order and spacing, following the focus, and a
click on one presses it."""

from __future__ import annotations

from typing import Any

from textual.screen import Screen

from tests.conftest import Desk
from tui.desk.screens.help import HelpScreen
from tui.desk.widgets.keys import KeyBar


def footer_line(screen: Screen[Any]) -> str:
    """The line Textual's compact Footer draws for the screen's keys: each action once, its
    first key, then what it does, a cell between two keys."""
    firsts: dict[str, str] = {}
    for _, binding, _, _ in screen.active_bindings.values():
        if binding.show and binding.action not in firsts:
            firsts[binding.action] = f"{screen.app.get_key_display(binding)} {binding.description}"
    return " ".join(firsts.values())


async def test_the_key_line_shows_the_keys_the_footer_listed(desk: Desk) -> None:
    async with desk(rulesets=["pod-super", "rivets"]) as (app, pilot):
        bar = app.screen.query_one(KeyBar)
        drawn = bar.render().plain
        assert drawn == footer_line(app.screen)
        assert drawn.startswith("f1 Help ^l Log esc Back ^r Roll")
        # Each key's cells, as a click finds them.
        for key in bar.shown_keys():
            assert drawn[key.left : key.right].startswith(key.shown)
        assert bar.region.y == 23 and bar.region.width == 80  # the screen's last line


async def test_a_click_on_a_key_presses_it(desk: Desk) -> None:
    async with desk(rulesets=["pod-super"]) as (app, pilot):
        help_key = next(k for k in app.screen.query_one(KeyBar).shown_keys() if k.key == "f1")
        await pilot.click(KeyBar, offset=(help_key.left + 1, 0))
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


async def test_the_key_line_follows_the_screen_it_is_on(desk: Desk) -> None:
    async with desk(rulesets=["pod-super", "rivets"]) as (app, pilot):
        await pilot.press("f3")
        await pilot.pause()
        assert app.screen.ruleset == "rivets"
        bar = app.screen.query_one(KeyBar)
        assert bar.render().plain == footer_line(app.screen)
        assert "Card" not in bar.render().plain  # Super's own keys are not Rivets'
