"""The markers in play on the open game, one line each, under the turn."""

from __future__ import annotations

from collections.abc import Sequence

from textual.widgets import Static

from tui.saves import Marker
from tui.text import marker_text, shown_lines

# The keys are in tui.commands; they are not in the Footer, which has no room for them.
KEYS_HINT = "^s next turn · ^z Frogman · ^\\ marker"


class MarkerPanel(Static):
    """The turn and the markers in play; the keys that change them are in the Footer."""

    DEFAULT_CSS = """
    MarkerPanel { height: auto; color: $text-muted; margin-bottom: 1; }
    MarkerPanel.-some { color: $text; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__("", markup=False, **kwargs)  # type: ignore[arg-type]
        self._lines_shown = 0  # the number of lines shown (0: none yet)

    def show(self, turn: int, markers: Sequence[Marker]) -> None:
        head = f"Turn {turn} · " + (
            f"{len(markers)} marker{'s' if len(markers) != 1 else ''} in play"
            if markers
            else "no markers in play"
        )
        lines = [head, *(f" {marker_text(m)}" for m in markers), KEYS_HINT]
        self.show_lines(lines)
        self.set_class(bool(markers), "-some")

    def show_reading(self, turn: int) -> None:
        """The turn, while the game's markers are still being read."""
        self.show_lines([f"Turn {turn} · reading the markers…", KEYS_HINT])
        self.set_class(False, "-some")

    def show_lines(self, lines: list[str]) -> None:
        """Show `lines`; the screen is laid out again only when the panel's height may
        change (another number of lines, or a line that may wrap)."""
        width = self.content_size.width
        same = (
            width > 0
            and len(lines) == self._lines_shown
            and all(len(line) < width for line in lines)
        )
        self._lines_shown = len(lines)
        self.update(shown_lines(lines), layout=not same)
