"""The widgets of a combat form: unit rows, the live odds preview and the result panel.

Every table text and user text is shown literally (markup off): Textual markup would eat
a result code like `[DR]`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Collapsible, Input, Label, Select, Static

from tui.engine import Distribution, Outcome
from tui.engine.combat import cell_text

BAR_WIDTH = 10
_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(probability: float, width: int = BAR_WIDTH) -> str:
    """A bar of `width` cells, in eighths."""
    eighths = round(probability * width * 8)
    full, part = divmod(eighths, 8)
    text = "█" * full + (_EIGHTHS[part] if part else "")
    return text.ljust(width)


_SHORT = {
    "eliminated": lambda v: "elim",
    "factors_lost": lambda v: "lose all" if v == "all" else f"lose {v}",
    "steps_lost": lambda v: f"{v} step",
    "option": lambda v: f"opt {v}",
    "retreat": lambda v: f"ret {v}",
    "advance_up_to": lambda v: f"adv<={v}",
    "retreat_or_steps": lambda v: f"ret/step {v}",
    "retreat_or_step": lambda v: "step or ret 1",
    "exploit_min_ar": lambda v: f"exploit AR{v}+",
    "disorganized": lambda v: "DG",
    "engaged": lambda v: "engaged",
    "bombers_removed": lambda v: f"-{v} bombers",
}


def short_meaning(effects: dict[str, Any]) -> str:
    """What a result means, in a few words per side."""
    parts = []
    for side, letter in (("attacker", "A"), ("defender", "D")):
        words = [_SHORT[k](v) for k, v in effects.get(side, {}).items() if k in _SHORT]
        if words:
            parts.append(f"{letter}: {', '.join(words)}")
    if effects.get("cancelled"):
        return "cancelled"
    return "; ".join(parts) or "no effect"


class UnitRow(Horizontal):
    """One unit: its factor and, where terrain counts, the terrain of its hex."""

    DEFAULT_CSS = """
    UnitRow { height: 1; }
    UnitRow > Label { width: 4; }
    UnitRow > Input { width: 8; }
    UnitRow > Select { width: 1fr; }
    """

    def __init__(
        self, side: str, number: int, terrains: tuple[str, ...], factor: str = "", **kwargs: Any
    ) -> None:
        super().__init__(classes=f"unit-row {side}", **kwargs)
        self.side = side
        self.number = number
        self.terrains = terrains
        self.initial = factor

    def compose(self) -> ComposeResult:
        yield Label(f"{'A' if self.side == 'attacker' else 'D'}{self.number}", classes="unit-label")
        yield Input(
            self.initial,
            placeholder="CAF" if self.side == "attacker" else "CDF",
            compact=True,
            classes="factor",
        )
        if self.terrains:
            yield Select(
                [(name, name) for name in self.terrains],
                value="clear",
                allow_blank=False,
                compact=True,
                classes="terrain",
            )

    def renumber(self, number: int) -> None:
        self.number = number
        self.query_one(".unit-label", Label).update(
            f"{'A' if self.side == 'attacker' else 'D'}{number}"
        )

    @property
    def factor_text(self) -> str:
        return self.query_one(".factor", Input).value

    @property
    def terrain(self) -> str | None:
        if not self.terrains:
            return None
        value = self.query_one(".terrain", Select).value
        return value if isinstance(value, str) else None


@dataclass
class PreviewState:
    """What the live odds preview shows: the problems in the form, or the odds."""

    problems: list[str] = field(default_factory=list)
    headline: list[str] = field(default_factory=list)
    distribution: Distribution | None = None
    dice: str = ""


class OddsPreview(Vertical):
    """Totals, odds, column after each shift, and the chance of every result."""

    DEFAULT_CSS = """
    OddsPreview { height: auto; }
    OddsPreview > .problems { color: $error; }
    OddsPreview > .odds-head { text-style: bold; }
    """

    def compose(self) -> ComposeResult:
        yield Static("", markup=False, classes="odds-head")
        yield Static("", markup=False, classes="problems")
        yield Static("", markup=False, classes="chances")

    def show(self, state: PreviewState) -> None:
        head = self.query_one(".odds-head", Static)
        problems = self.query_one(".problems", Static)
        chances = self.query_one(".chances", Static)
        problems.update("\n".join(state.problems))
        problems.display = bool(state.problems)
        if state.problems:
            head.update("Odds: waiting for a valid form")
            chances.update("")
            return
        head.update("\n".join(state.headline))
        lines: list[str] = []
        dist = state.distribution
        if dist is not None:
            if dist.column is not None:
                lines.append(f"Chances on {dist.column} ({state.dice}):")
            ranked = sorted(
                zip(dist.outcomes, dist.details or [{}] * len(dist.outcomes), strict=True),
                key=lambda pair: -pair[0][1],
            )
            for (cell, probability, _), effects in ranked:
                lines.append(
                    f"{float(probability) * 100:5.1f}% {bar(float(probability))} {cell_text(cell)}"
                )
                lines.append(f"  {short_meaning(effects)}")
        chances.update("\n".join(lines))


class ResultPanel(Vertical):
    """The last roll: the cell, each side's effects in words, and the full trace."""

    DEFAULT_CSS = """
    ResultPanel { height: auto; border: round $accent; padding: 0 1; margin-bottom: 1; }
    ResultPanel > .result-cell { text-style: bold; }
    ResultPanel Collapsible { padding: 0; border: none; }
    """

    def compose(self) -> ComposeResult:
        yield Static("", markup=False, classes="result-cell")
        yield Static("", markup=False, classes="result-effects")
        with Collapsible(title="Trace", collapsed=True):
            yield Static("", markup=False, classes="result-trace")

    def show(self, outcome: Outcome, saved: str, offer: str = "") -> None:
        dice = ", ".join(
            f"{d.dice} {d.total} ({'desk' if d.source == 'desk' else 'by hand'})"
            for d in outcome.dice
        )
        head = f"Roll {outcome.roll or '-'}"
        if outcome.column:
            head += f" on {outcome.column}"
        self.query_one(".result-cell", Static).update(f"{head}: {cell_text(outcome.cell)}")
        lines = [outcome.explanation]
        if dice:
            lines.append(f"Dice: {dice}")
        if saved:
            lines.append(saved)
        if offer:
            lines.append(offer)
        self.query_one(".result-effects", Static).update("\n".join(lines))
        self.query_one(".result-trace", Static).update("\n".join(outcome.trace))
