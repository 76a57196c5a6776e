"""The markers in play on the open game, one line each, under the turn."""

from __future__ import annotations

from collections.abc import Sequence

from textual.widgets import Static

from tui.saves import Marker
from tui.text import marker_text

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

    def show(self, turn: int, markers: Sequence[Marker]) -> None:
        head = f"Turn {turn} · " + (
            f"{len(markers)} marker{'s' if len(markers) != 1 else ''} in play"
            if markers
            else "no markers in play"
        )
        lines = [head, *(f" {marker_text(m)}" for m in markers), KEYS_HINT]
        self.update("\n".join(lines))
        self.set_class(bool(markers), "-some")

    def show_reading(self, turn: int) -> None:
        """The turn, while the game's markers are still being read."""
        self.update(f"Turn {turn} · reading the markers…\n{KEYS_HINT}")
        self.set_class(False, "-some")
