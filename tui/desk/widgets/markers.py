"""The turn and the markers in play that this screen's game uses: one line each while a
few, else all of them on one line, cut short (F10 lists them all, one a line, in place of
the chances)."""

from __future__ import annotations

from collections.abc import Sequence

from textual.widgets import Static

from tui.engine.text import marker_text, shown_lines
from tui.game.model import Marker

# The keys are in tui.desk.commands; they are not in the Footer, which has no room for them.
KEYS_HINT = "^s next turn · ^z Frogman · ^\\ markers"
# More markers than this: all on one line, so the result and the chances keep their room.
LISTED_AT_MOST = 2


def marker_short(marker: Marker) -> str:
    """A marker in a few words: "0712 no-entry 2 turns"."""
    left = marker.turns_left
    turns = "" if left is None else f" {left} turn{'s' if left != 1 else ''}"
    return f"{marker.target} {marker.kind}{turns}"


class MarkerPanel(Static):
    """The turn and the markers in play; the keys that change them are in the Footer."""

    DEFAULT_CSS = """
    MarkerPanel {
        height: auto; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis;
    }
    MarkerPanel.-some { color: $text; }
    """

    def __init__(self, keys: str = KEYS_HINT, **kwargs: object) -> None:
        super().__init__("", markup=False, **kwargs)  # type: ignore[arg-type]
        self.keys = keys
        self._lines_shown = 0  # the number of lines shown (0: none yet)
        # Every marker listed, one a line (F10), in place of the chances below.
        self.expanded = False
        self._shown: tuple[int, list[Marker], int | None] | None = None

    def show(self, turn: int, markers: Sequence[Marker], in_game: int | None = None) -> None:
        """`markers` are those this screen shows; `in_game` counts every marker in play."""
        self._shown = (turn, list(markers), in_game)
        count = len(markers)
        plural = "s" if count != 1 else ""
        if in_game is None or in_game == count:
            head = f"{count} marker{plural} in play" if markers else "no markers in play"
        elif markers:
            head = f"{count} of {in_game} markers here"
        else:
            head = f"no markers here ({in_game} in the game)"
        head = f"Turn {turn} · {head}"
        if count <= LISTED_AT_MOST:
            listed = [f" {marker_text(m)}" for m in markers]
        elif self.expanded:
            listed = [f" {marker_short(m)}" for m in markers]
        else:
            listed = [" " + ", ".join(marker_short(m) for m in markers)]
            head += " · F10 all"
        self.show_lines([head, *listed, self.keys])
        self.set_class(bool(markers), "-some")

    def show_reading(self, turn: int) -> None:
        """The turn, while the game's markers are still being read."""
        self.show_lines([f"Turn {turn} · reading the markers…", self.keys])
        self.set_class(False, "-some")

    def show_lines(self, lines: list[str]) -> None:
        """Show `lines` (each on one row, cut short rather than wrapped); the screen is
        laid out again only when the number of lines changes."""
        same = len(lines) == self._lines_shown
        self._lines_shown = len(lines)
        self.update(shown_lines(lines), layout=not same)

    def show_all(self, expanded: bool) -> None:
        """List every marker, one a line (True), or as many as fit one line (False)."""
        self.expanded = expanded
        if self._shown is not None:
            self.show(*self._shown)
