"""The last roll's panel on a combat screen: the cell and what it means, then whether the
roll is logged. Imported when a screen first shows a roll (`CombatScreen.result_panel`): a
new game's screen opens without it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tui.desk.widgets.combat import LinesInPlace
from tui.engine.text import cell_text, dice_brief, shown_lines

if TYPE_CHECKING:
    from tui.engine import Outcome


class ResultLines(LinesInPlace):
    """The result panel's text: the cell (bold) and its meaning, every row of it (the box
    grows to the whole result; the trace is on ctrl+f)."""

    PARTS: ClassVar[dict[str, str | None]] = {
        "result-cell": "result-lines--cell",
        "result-effects": None,
    }
    COMPONENT_CLASSES: ClassVar[set[str]] = {"result-lines--cell"}
    DEFAULT_CSS = """
    ResultLines { height: auto; }
    ResultLines > .result-lines--cell { text-style: bold; }
    """


class SavedLine(Static):
    """Whether the last roll is logged, and what may be played after it: one row."""

    DEFAULT_CSS = """
    SavedLine { height: 1; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis; }
    ResultPanel.-save-failed SavedLine { color: $error; text-style: bold; }
    """

    def show(self, text: str) -> None:
        if str(self.content) != text:
            self.update(text, layout=False)  # one row, whatever it says


def result_head(outcome: Outcome) -> str:
    """The result's first row: "Roll 8 on 2-1: A - 1 / D 1 -2", or, where no die was read,
    the result the odds gave ("AV: no die read")."""
    on = f" on {outcome.column}" if outcome.column else ""
    if outcome.roll:
        return f"Roll {outcome.roll}{on}: {cell_text(outcome.cell)}"
    if outcome.cell is not None:
        return f"No roll{on}: {cell_text(outcome.cell)}"
    return f"{outcome.odds or 'Result'}{on}: no die read"


class ResultPanel(Vertical):
    """The last roll in a few rows: the cell and what it means, then whether it is logged.
    Marked stale as soon as the form changes. Mounted once; each roll redraws its lines in
    place. The whole text and trace are on ctrl+f."""

    DEFAULT_CSS = """
    ResultPanel { height: auto; border: round $accent; padding: 0 1; }
    ResultPanel.-stale { border: round $panel; color: $text-disabled; }
    """
    TITLE = "Last roll (^f all)"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lines = ResultLines()
        self.saved_line = SavedLine("", markup=False)

    def compose(self) -> ComposeResult:
        yield self.lines
        yield self.saved_line

    def show(
        self, outcome: Outcome, effects: str | None = None, offer: str = "", head: str = ""
    ) -> None:
        """A roll, its first row (`head`, else `result_head`), its effects worded by the
        ruleset (else the explanation and the dice), being saved; `offer` names what may be
        played after it."""
        self.set_class(False, "-stale")
        self.set_class(False, "-save-failed")
        self._title(self.TITLE)
        head = head or result_head(outcome)
        if effects is None:
            lines = [outcome.explanation]
            dice = dice_brief(outcome.dice)
            if dice:
                lines.append(f"Dice: {dice}")
            effects = "\n".join(lines)
        # Shown as text: a combat read from a save (another desk's) may hold anything.
        self.lines.show_parts(
            {"result-cell": shown_lines(head), "result-effects": shown_lines(effects)}
        )
        self.saved_line.show(" · ".join(["Saving…", offer] if offer else ["Saving…"]))

    def saved(self, text: str, failed: bool = False, offer: str = "") -> None:
        self.set_class(failed, "-save-failed")
        self.saved_line.show(" · ".join([text, offer] if offer else [text]))

    def mark_stale(self) -> None:
        if self.display and not self.has_class("-stale"):
            self.set_class(True, "-stale")
            self._title("Last roll (form changed since)")

    def _title(self, title: str) -> None:
        # Set only when it changes: setting it redraws the whole panel.
        if self.border_title != title:
            self.border_title = title
