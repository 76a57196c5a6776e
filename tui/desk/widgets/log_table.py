"""A table of log rows drawn with the Line API: only the lines on screen are ever drawn, so
a 10,000-entry log costs what a 20-entry one does, and refiltering swaps one list.

DataTable adds rows one by one (a reactive set and bookkeeping per row: about three seconds
for 10,000 rows here, on the UI thread, at every refilter); this draws rows on demand."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.engine.text import one_line


@dataclass(frozen=True)
class TableColumn:
    key: str
    label: str
    width: int


def fit(text: str, width: int) -> str:
    """`text` in exactly `width` cells, shown as text (escapes for control characters and
    bidi overrides): cut with an ellipsis, or padded."""
    text = one_line(text)
    if len(text) > width:
        return text[: max(0, width - 1)] + "…"
    return text.ljust(width)


class LogTable(ScrollView, can_focus=True):
    """Rows of text cells under a fixed header line, a row cursor, one line per row."""

    COMPONENT_CLASSES = {"log-table--header", "log-table--cursor", "log-table--odd"}
    DEFAULT_CSS = """
    LogTable {
        background: $surface;
        scrollbar-gutter: stable;
    }
    LogTable > .log-table--header { background: $panel; color: $foreground; text-style: bold; }
    LogTable > .log-table--cursor { background: $accent 50%; }
    LogTable:focus > .log-table--cursor { background: $accent; color: $text; }
    LogTable > .log-table--odd { background: $boost; }
    """
    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "ends(0)", "First", show=False),
        Binding("end", "ends(1)", "Last", show=False),
    ]

    cursor: reactive[int] = reactive(0, layout=False)

    @dataclass
    class RowHighlighted(Message):
        table: LogTable
        row: int

        @property
        def control(self) -> LogTable:
            return self.table

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.columns: list[TableColumn] = []
        self.row_count = 0
        self._cells: Callable[[int], Sequence[str]] = lambda row: ()

    # ------------------------------------------------------------------ data
    def show_rows(
        self,
        columns: list[TableColumn],
        count: int,
        cells: Callable[[int], Sequence[str]],
        cursor: int | None = None,
    ) -> None:
        """Show `count` rows whose cells `cells(row)` gives (one per column), drawn only
        when on screen; the cursor on `cursor`, else on the last row."""
        self.columns = list(columns)
        self.row_count = count
        self._cells = cells
        width = sum(c.width + 1 for c in self.columns)
        self.virtual_size = Size(width, count + 1)
        self.set_reactive(LogTable.cursor, -1)
        self.cursor = max(0, count - 1 if cursor is None else min(cursor, count - 1))
        self.refresh()

    def watch_cursor(self, old: int, new: int) -> None:
        if self.row_count:
            self.scroll_to_row(new)
            self.post_message(self.RowHighlighted(self, new))
        self.refresh()

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, self.row_count - 1)) if self.row_count else 0

    def scroll_to_row(self, row: int) -> None:
        rows_shown = max(1, self.scrollable_content_region.height - 1)
        top = round(self.scroll_y)
        if row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif row >= top + rows_shown:
            self.scroll_to(y=row - rows_shown + 1, animate=False, immediate=True)

    def row_text(self, row: int) -> str:
        """A row as drawn (for tests and copying)."""
        cells = self._cells(row)
        return " ".join(fit(text, c.width) for text, c in zip(cells, self.columns, strict=False))

    # ------------------------------------------------------------------ drawing
    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        scroll_x = round(self.scroll_x)
        if y == 0:
            text = " ".join(fit(c.label, c.width) for c in self.columns)
            style = self.get_component_rich_style("log-table--header")
        else:
            row = round(self.scroll_y) + y - 1
            if row >= self.row_count:
                return Strip.blank(width, self.rich_style)
            text = self.row_text(row)
            if row == self.cursor:
                style = self.get_component_rich_style("log-table--cursor")
            elif row % 2:
                style = self.get_component_rich_style("log-table--odd")
            else:
                style = Style()
            style = self.rich_style + style
        strip = Strip([Segment(" " + text, style)])
        return strip.crop(scroll_x, scroll_x + width).extend_cell_length(width, style)

    def on_resize(self) -> None:
        self.scroll_to_row(self.cursor)

    # ------------------------------------------------------------------ moving
    def action_move(self, step: int) -> None:
        self.cursor += step

    def action_page(self, step: int) -> None:
        self.cursor += step * max(1, self.scrollable_content_region.height - 1)

    def action_ends(self, end: int) -> None:
        self.cursor = self.row_count - 1 if end else 0

    def move_cursor(self, row: int) -> None:
        self.cursor = row

    def on_click(self, event: events.Click) -> None:
        if event.y >= 1:
            self.cursor = round(self.scroll_y) + event.y - 1
