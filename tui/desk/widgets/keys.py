"""The keys line at the bottom of the desk's ruleset screens."""

from __future__ import annotations

from typing import NamedTuple

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget


class ShownKey(NamedTuple):
    """One key the line shows: what it is, what it does and where it is drawn."""

    key: str
    action: str
    shown: str  # the key as the line draws it (`App.get_key_display`)
    description: str
    enabled: bool
    left: int  # its first cell on the line
    right: int  # the cell after its last


class KeyBar(Widget):
    """Textual's compact Footer drawn by one widget where the Footer makes one per key
    (and recomposes them all whenever the focus moves): it shows the same keys the same
    way (each action's first key, then what it does, as the screen's active bindings give
    them; dimmed where the screen says the action does nothing now), follows them as the
    focus moves, and a click on a key presses it, as the Footer's does. No command palette
    key: the ruleset screens' Footer showed none."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"key-bar--key", "key-bar--description", "key-bar--hover"}
    # The Footer's colours and spacing (compact: the key, a space, what it does, and a
    # cell of the line between two keys).
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        width: 100%;
        text-wrap: nowrap;
        color: $footer-foreground;
        background: $footer-background;
        .key-bar--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .key-bar--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .key-bar--hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
    }
    """

    def __init__(self) -> None:
        super().__init__()
        # The key under the mouse (drawn as the Footer draws a hovered key), by its action.
        self._hover: str | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        # As the Footer: the keys shown stay while the terminal has lost the focus.
        if screen.app.app_focus and screen is self.screen:
            self.refresh()

    def shown_keys(self) -> list[ShownKey]:
        """The keys the line shows, in order, each action once (its first key), with the
        cells each is drawn in."""
        app = self.app
        firsts: dict[str, ShownKey] = {}
        left = 0
        for _, binding, enabled, _ in self.screen.active_bindings.values():
            if not binding.show or binding.action in firsts:
                continue
            shown = app.get_key_display(binding)
            right = left + cell_len(shown) + 1 + cell_len(binding.description)
            firsts[binding.action] = ShownKey(
                binding.key, binding.action, shown, binding.description, enabled, left, right
            )
            left = right + 1
        return list(firsts.values())

    def render(self) -> Text:
        key_style = self.get_component_rich_style("key-bar--key")
        description_style = self.get_component_rich_style("key-bar--description")
        hover = self.get_component_rich_style("key-bar--hover")
        line = Text(no_wrap=True, end="")
        for shown in self.shown_keys():
            if shown.left:
                line.append(" ")  # the line between two keys, as the Footer's margin
            # Each key's cells name it: what a click presses, what the mouse is over.
            style = Style.from_meta({"key": shown.key, "action": shown.action})
            if shown.action == self._hover:
                style += Style(bgcolor=hover.bgcolor)
            if not shown.enabled:
                style += Style(dim=True)
            line.append(shown.shown, key_style + style)
            line.append(" " + shown.description, description_style + style)
        return line

    def on_mouse_move(self, event: events.MouseMove) -> None:
        action = event.style.meta.get("action")
        if action != self._hover:
            self._hover = action
            self.refresh()

    def on_leave(self) -> None:
        if self._hover is not None:
            self._hover = None
            self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        key = event.style.meta.get("key")
        if key is None:
            return
        if any(shown.key == key and shown.enabled for shown in self.shown_keys()):
            self.app.simulate_key(key)
        else:
            self.app.bell()
