"""The private Textual names tui.desk.compat relies on still have the shape it was written
against (Textual 8.2.8), and what each works around is still there. A failure here after a
Textual upgrade says which piece of tui.desk.compat to look at again."""

from __future__ import annotations

import inspect

import pytest
from textual._compositor import ChopsUpdate, Compositor
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from tui.desk import compat


def parameters(function: object) -> list[str]:
    return [name for name in inspect.signature(function).parameters if name != "self"]  # type: ignore[arg-type]


def test_the_compositor_internals_have_the_shape_pane_compositor_uses() -> None:
    compositor = Compositor()
    assert isinstance(compositor._dirty_regions, set)
    assert parameters(Compositor._render_chops) == ["crop", "is_rendered_line"]
    assert parameters(Compositor._regions_to_spans) == ["regions"]
    assert parameters(Compositor.render_partial_update) == []
    assert parameters(ChopsUpdate.__init__) == ["chops", "spans", "chop_ends"]
    assert isinstance(Compositor.cuts, property)


def test_a_screen_draws_with_the_compositor_set_on_it() -> None:
    screen = Screen[None]()
    assert type(screen._compositor) is Compositor  # the attribute the desk replaces
    compat.use_pane_compositor(screen)
    assert isinstance(screen._compositor, compat.PaneCompositor)


def test_the_result_callback_internal_has_the_shape_switchable_uses() -> None:
    assert parameters(Screen._push_result_callback) == ["requester", "callback", "future"]


class Named(Screen[None]):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        yield Static(self.text)


class FirstScreenApp(App[None]):
    def __init__(self, made_switchable: bool) -> None:
        super().__init__()
        self.made_switchable = made_switchable

    def get_default_screen(self) -> Screen[None]:
        first = Named("first")
        return compat.switchable(first) if self.made_switchable else first


async def test_the_desk_switches_away_from_a_switchable_first_screen() -> None:
    app = FirstScreenApp(made_switchable=True)
    async with app.run_test() as pilot:
        await app.switch_screen(Named("second"))
        await pilot.pause()
        assert isinstance(app.screen, Named) and app.screen.text == "second"
        await app.switch_screen(Named("third"))
        await pilot.pause()
        assert app.screen.text == "third" and len(app.screen_stack) == 1


async def test_textual_still_cannot_switch_away_from_its_first_screen() -> None:
    """What `switchable` works around. Should this fail, Textual switches away from a
    first screen itself: `compat.switchable` can go."""
    app = FirstScreenApp(made_switchable=False)
    with pytest.raises(IndexError):
        async with app.run_test():
            app.switch_screen(Named("second"))
