"""The title line at the top of the desk's full screens."""

from __future__ import annotations

from textual import events
from textual.content import Content
from textual.widget import Widget

from tui.engine.text import one_line

# A glyph browsers' common fonts draw (in WGL4): "⭘" showed as a box in the browser.
ICON = "●"
# Where Textual's Header puts its parts: the icon's cell at the left, the title centred
# between them, and the clock's room at the right (empty: the desk shows no clock).
ICON_WIDTH, CLOCK_WIDTH = 8, 10


class TitleBar(Widget):
    """Textual's Header drawn by one widget instead of four (an icon, the title and the
    clock's room, in a container): it looks the same and a click on the icon opens the
    command palette, as the Header's does. The title follows the screen's title and
    sub-title, or the app's where the screen has none."""

    DEFAULT_CSS = """
    TitleBar {
        dock: top;
        width: 100%;
        height: 1;
        background: $panel;
        color: $foreground;
    }
    """

    def on_mount(self) -> None:
        for node in (self.app, self.screen):
            self.watch(node, "title", self._retitle, init=False)
            self.watch(node, "sub_title", self._retitle, init=False)

    def _retitle(self) -> None:
        self.refresh()

    def title_text(self) -> Content:
        """The title and sub-title as Textual's Header shows them (`App.format_title`)."""
        screen, app = self.screen, self.app
        title = screen.title if screen.title is not None else app.title
        sub_title = screen.sub_title if screen.sub_title is not None else app.sub_title
        # A title comes from a save: its escape codes and bidi overrides are shown as text.
        return app.format_title(one_line(title or ""), one_line(sub_title or ""))

    def render(self) -> Content:
        width = self.size.width
        room = max(0, width - ICON_WIDTH - CLOCK_WIDTH)
        title = self.title_text().truncate(room, ellipsis=True)
        left = (room - title.cell_length) // 2
        return Content.assemble(
            f" {ICON}".ljust(ICON_WIDTH),
            title.pad(left, room - title.cell_length - left),
            " " * CLOCK_WIDTH,
        )

    async def on_click(self, event: events.Click) -> None:
        if event.x < ICON_WIDTH and self.app.ENABLE_COMMAND_PALETTE:
            event.stop()
            await self.run_action("app.command_palette")
