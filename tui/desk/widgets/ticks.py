"""Ticks that differ in shape, not only in colour: an unticked box is empty, a ticked one
shows an X, so they read the same with NO_COLOR or on a monochrome terminal."""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import Checkbox, SelectionList


class Tick(Checkbox):
    """A Checkbox whose box is empty when unticked."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # noqa: N802 (Textual's name)
        return "X" if self.value else " "


class TickList(SelectionList[str]):
    """A SelectionList whose unticked rows show an empty box."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        index = self.scroll_offset.y + y
        if index >= self.option_count or self.get_option_at_index(index).value in self.selected:
            return strip
        segments = list(strip)
        if len(segments) > 1 and segments[1].text == Checkbox.BUTTON_INNER:
            segments[1] = Segment(" " * len(segments[1].text), segments[1].style)
            return Strip(segments, strip.cell_length)
        return strip
