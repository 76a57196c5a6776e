"""The widgets of a combat form: unit rows, the live odds preview and the result panel.

Every table text and user text is shown literally (markup off): Textual markup would eat
a result code like `[DR]`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.widgets import Input, Label, Select, Static

from tui.engine import Outcome
from tui.engine.preview import Preview
from tui.text import cell_text, dice_text

BAR_WIDTH = 10
_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(probability: float, width: int = BAR_WIDTH) -> str:
    """A bar of `width` cells, in eighths."""
    eighths = round(probability * width * 8)
    full, part = divmod(eighths, 8)
    text = "█" * full + (_EIGHTHS[part] if part else "")
    return text.ljust(width)


class FixedInput(Input):
    """An Input whose size is fixed by its CSS: a changed value redraws it without
    laying the screen out again (Textual's Input asks for a layout whenever its text
    grows or shrinks, to resize its scrolling area). A value typed is handed at once to
    the screen's `field_typed(field, value)`, where it has one."""

    def _watch_value(self, value: str) -> None:
        if not self.styles.auto_dimensions:
            # The scrolling area's new width, set first without a layout (it only scrolls
            # the text): Input's own watcher then finds it unchanged.
            self.set_reactive(Input.virtual_size, Size(self.content_width, 1))
        super()._watch_value(value)
        if self.has_focus:
            # Typed: the form is told now, so the preview is drawn in the same frame as
            # the key's echo (its Changed message reaches the screen a frame later).
            answer = getattr(self.screen, "field_typed", None)
            if answer is not None:
                answer(self, value)


class UnitRow(Horizontal):
    """One unit: its factor and, where terrain counts, the terrain of its hex."""

    DEFAULT_CSS = """
    UnitRow { height: 1; }
    UnitRow > Label { width: 4; }
    UnitRow > Input { width: 8; }
    UnitRow > Select { width: 1fr; }
    """

    def __init__(
        self,
        side: str,
        number: int,
        terrains: tuple[str, ...],
        factor: str = "",
        placeholder: str = "",
        **kwargs: Any,
    ) -> None:
        super().__init__(classes=f"unit-row {side}", **kwargs)
        self.side = side
        self.number = number
        self.terrains = terrains
        self.initial = factor
        self.placeholder = placeholder or ("CAF" if side == "attacker" else "CDF")
        # The row's own fields, held: a keystroke reads every row.
        self._factor = FixedInput(
            factor, placeholder=self.placeholder, compact=True, classes="factor"
        )
        self._terrain: Select[str] | None = None
        if terrains:
            self._terrain = Select(
                [(name, name) for name in terrains],
                value="clear",
                allow_blank=False,
                compact=True,
                classes="terrain",
            )

    @property
    def label(self) -> str:
        return f"{'A' if self.side == 'attacker' else 'D'}{self.number}"

    def compose(self) -> ComposeResult:
        yield Label(self.label, classes="unit-label")
        yield self._factor
        if self._terrain is not None:
            yield self._terrain

    def renumber(self, number: int) -> None:
        self.number = number
        self.query_one(".unit-label", Label).update(self.label)

    @property
    def factor_input(self) -> Input:
        return self._factor

    @property
    def factor_text(self) -> str:
        return self.factor_input.value

    @property
    def terrain(self) -> str | None:
        if self._terrain is None:
            return None
        value = self._terrain.value
        return value if isinstance(value, str) else None


class OddsPreview(Vertical):
    """Totals, odds, column after each shift, and the chance of every result."""

    DEFAULT_CSS = """
    OddsPreview { height: auto; }
    OddsPreview > .problems { color: $error; }
    OddsPreview > .odds-head { text-style: bold; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # Held, and each updated only when its text changes: a keystroke that leaves a part
        # as it was costs it no layout and no bytes on the wire.
        self._parts = {part: Static("", markup=False, classes=part) for part in PREVIEW_PARTS}
        self._texts: dict[str, str] = dict.fromkeys(PREVIEW_PARTS, "")

    def compose(self) -> ComposeResult:
        yield from self._parts.values()

    def _set(self, part: str, text: str) -> None:
        if self._texts[part] == text:
            return
        self._texts[part] = text
        static = self._parts[part]
        size = static.size
        if size.width <= 0 or not static.display:
            static.update(text)
            return
        # Redrawn in place: a part keeps the tallest height it has had (blank lines below
        # a shorter text), so the screen is laid out again only when a text is taller than
        # any before it (a layout of a whole combat form costs more than a frame).
        static.update(text, layout=False)
        static.clear_cached_dimensions()
        box = static.content_size
        height = static.get_content_height(box, box, box.width)
        if height > box.height:
            static.refresh(layout=True)
        elif height < box.height:
            static.update(text + "\n" * (box.height - height), layout=False)

    def show(self, preview: Preview | None, problems: Sequence[str] = ()) -> None:
        self._set("problems", "\n".join(problems))
        self._parts["problems"].display = bool(problems)
        self._set("odds-head", "\n".join(preview_head(preview)))
        self._set("chances", "\n".join(preview_chances(preview)))

    def show_text(self, head: str, chances: str, problems: Sequence[str] = ()) -> None:
        """A preview a ruleset words itself (a chain of tables rather than one column)."""
        self._set("problems", "\n".join(problems))
        self._parts["problems"].display = bool(problems)
        self._set("odds-head", head)
        self._set("chances", chances)

    @property
    def texts(self) -> dict[str, str]:
        """What each part shows now: the headline, the problems and the chances."""
        return dict(self._texts)


PREVIEW_PARTS = ("odds-head", "problems", "chances")


def preview_head(preview: Preview | None) -> list[str]:
    """The preview's first lines: totals and odds, each shift, the column (or the result
    that needs no dice)."""
    if preview is None:
        return ["Odds: waiting for a valid form"]
    lines = [preview.headline]
    if preview.defence_note:
        lines.append(preview.defence_note)
    if preview.automatic:
        lines.append(preview.automatic)
    else:
        lines.extend(f" {shift}" for shift in preview.shifts)
        lines.append(f"Column {preview.column}")
    return lines


def preview_chances(preview: Preview | None) -> list[str]:
    """The chance of every result on the column, with a bar and what it means."""
    rows: list[str] = []
    if preview is None:
        return rows
    if preview.rows:
        rows.append(f"Chances on {preview.column} ({preview.dice}):")
    for row in preview.rows:
        chance = float(row.probability)
        rows.append(f"{chance * 100:5.1f}% {bar(chance)} {row.cell}")
        rows.append(f"  {row.meaning}")
    return rows


class ResultPanel(Vertical):
    """The last roll: the cell, each side's effects in words, the dice, and whether it is
    logged. Marked stale as soon as the form changes."""

    DEFAULT_CSS = """
    ResultPanel { height: auto; border: round $accent; padding: 0 1; margin-bottom: 1; }
    ResultPanel > .result-cell { text-style: bold; }
    ResultPanel > .result-saved { color: $text-muted; }
    ResultPanel.-save-failed > .result-saved { color: $error; text-style: bold; }
    ResultPanel.-stale { border: round $panel; color: $text-disabled; }
    """

    def compose(self) -> ComposeResult:
        yield Static("", markup=False, classes="result-cell")
        yield Static("", markup=False, classes="result-effects")
        yield Static("", markup=False, classes="result-saved")

    def show(self, outcome: Outcome) -> None:
        self.set_class(False, "-stale")
        self.set_class(False, "-save-failed")
        self.border_title = "Last roll"
        head = f"Roll {outcome.roll or '-'}"
        if outcome.column:
            head += f" on {outcome.column}"
        self.query_one(".result-cell", Static).update(f"{head}: {cell_text(outcome.cell)}")
        lines = [outcome.explanation]
        dice = dice_text(outcome.dice)
        if dice:
            lines.append(f"Dice: {dice}")
        self.query_one(".result-effects", Static).update("\n".join(lines))
        self.saved("Saving…")

    def saved(self, text: str, failed: bool = False, offer: str = "") -> None:
        self.set_class(failed, "-save-failed")
        lines = [text, offer] if offer else [text]
        self.query_one(".result-saved", Static).update("\n".join(lines))

    def mark_stale(self) -> None:
        if self.display and not self.has_class("-stale"):
            self.set_class(True, "-stale")
            self.border_title = "Last roll (form changed since)"
