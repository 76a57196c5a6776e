"""The private Textual names tui.desk.compat relies on still have the shape it was written
against (Textual 8.2.8), and what each works around is still there (or each piece still does
what it says). A failure here after a
Textual upgrade says which piece of tui.desk.compat to look at again."""

from __future__ import annotations

import dataclasses
import inspect

import pytest
from textual import events
from textual._compositor import ChopsUpdate, Compositor
from textual.app import App, ComposeResult
from textual.geometry import Size
from textual.message import Message
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Static

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


# ---------------------------------------------------------------- StyledOnceScreen


def test_textual_restyles_a_screen_on_resume_as_its_event_says() -> None:
    """The flag `StyledOnceScreen` turns off, and the private handler that reads it."""
    assert events.ScreenResume().refresh_styles is True
    assert "refresh_styles" in {f.name for f in dataclasses.fields(events.ScreenResume)}
    assert "event.refresh_styles" in inspect.getsource(Screen._on_screen_resume)


class Resumed(compat.StyledOnceScreen[None]):
    """A screen that keeps each ScreenResume posted to it."""

    def __init__(self) -> None:
        super().__init__()
        self.resumes: list[events.ScreenResume] = []

    def post_message(self, message: Message) -> bool:
        posted = super().post_message(message)
        if isinstance(message, events.ScreenResume):
            self.resumes.append(message)
        return posted


async def test_a_styled_once_screen_skips_the_restyle_of_its_first_resume_only() -> None:
    screen = Resumed()
    async with App[None]().run_test() as pilot:
        app = pilot.app
        app.install_screen(screen, name="resumed")
        app.install_screen(Named("other"), name="other")
        await app.push_screen("resumed")
        await pilot.pause()
        for name in ("other", "resumed", "other", "resumed"):
            await app.switch_screen(name)
            await pilot.pause()
    # Textual posted each resume through the screen's post_message, where it is changed.
    assert [resume.refresh_styles for resume in screen.resumes] == [False, True, True]


class Plain(Screen[None]):
    """Textual's own screen, counting its layouts."""

    def __init__(self) -> None:
        super().__init__()
        self.layouts: list[object] = []

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        self.layouts.append(size)
        super()._refresh_layout(size, scroll)


class Sized(compat.StyledOnceScreen[None], Plain):
    """A styled-once screen that counts its layouts and the resizes its handler hears."""

    def __init__(self) -> None:
        super().__init__()
        self.heard: list[Size] = []

    def compose(self) -> ComposeResult:
        yield Static("sized", id="sized")

    def on_resize(self, event: events.Resize) -> None:
        self.heard.append(event.size)  # then StyledOnceScreen's own, as Textual calls each


async def layouts_for_the_same_size(pilot: Pilot[None], screen: Plain) -> int:
    """The screen pushed at 80x24, then given a Resize of that size: the layouts it made."""
    await pilot.app.push_screen(screen)
    await pilot.pause()
    before = len(screen.layouts)
    screen.post_message(events.Resize(Size(80, 24), Size(80, 24)))
    await pilot.pause()
    return len(screen.layouts) - before


async def test_textual_lays_a_screen_out_on_a_resize_to_the_size_it_has() -> None:
    """What `StyledOnceScreen.on_resize` spares: Textual's handler lays the screen out
    again for a Resize of the size it is laid out at."""
    async with App[None]().run_test(size=(80, 24)) as pilot:
        assert await layouts_for_the_same_size(pilot, Plain()) == 1


async def test_a_styled_once_screen_is_laid_out_again_only_for_a_new_size() -> None:
    screen = Sized()
    async with App[None]().run_test(size=(80, 24)) as pilot:
        assert await layouts_for_the_same_size(pilot, screen) == 0  # not laid out again
        before = len(screen.layouts)
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert len(screen.layouts) > before and screen.size == Size(100, 30)
        assert screen.query_one("#sized").size.width == 100  # laid out at the new size
        # The screen's own handler heard every resize, the one spared included.
        assert Size(80, 24) in screen.heard and screen.heard[-1] == Size(100, 30)


# ---------------------------------------------------------------- KeyHoldingApp


def test_the_app_takes_keys_where_key_holding_app_holds_them() -> None:
    assert inspect.iscoroutinefunction(App.on_event)
    assert parameters(App.on_event) == ["event"]
    assert isinstance(inspect.getattr_static(Message, "is_forwarded"), property)
    assert events.Key("a", "a").is_forwarded is False  # a key made again is the driver's
    assert "is_forwarded" in inspect.getsource(App.on_event)


class Typing(compat.KeyHoldingApp[None]):
    def compose(self) -> ComposeResult:
        yield Input(id="typed")


async def test_keys_are_held_until_released_then_handed_on_in_order() -> None:
    app = Typing()
    async with app.run_test() as pilot:
        field = app.query_one("#typed", Input)
        field.focus()
        await pilot.pause()
        assert app.holding_keys
        await pilot.press("1", "2")
        await pilot.pause()
        assert field.value == ""  # held, not dropped
        await app.release_keys()
        await pilot.pause()
        assert field.value == "12" and not app.holding_keys
        await pilot.press("3")
        await pilot.pause()
        assert field.value == "123"


# ---------------------------------------------------------------- keep_input_scroll_width


def test_input_sizes_its_scrolling_area_in_its_value_watcher() -> None:
    source = inspect.getsource(Input._watch_value)
    assert "self.virtual_size = Size(self.content_width, 1)" in source
    assert "refresh(layout=True)" in source  # asked for only when its size is automatic


class Fixed(App[None]):
    CSS = "Input { width: 12; height: 1; border: none; padding: 0; }"

    def compose(self) -> ComposeResult:
        yield Input(placeholder="str", id="typed")


async def test_the_scrolling_area_set_is_the_one_input_gives_itself() -> None:
    app = Fixed()
    async with app.run_test() as pilot:
        field = app.query_one("#typed", Input)
        for value in ("5", "51", "", "a b", "12345678"):
            compat.keep_input_scroll_width(field, value)
            set_first = field.virtual_size
            field.value = value
            await pilot.pause()
            assert field.virtual_size == set_first == Size(field.content_width, 1), value
