"""Small typed modals: dice rolled by hand, a new game."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, SelectionList, Static

from tui.engine.tables import RULESET_IDS, Tables


class HandDiceScreen(ModalScreen[int | None]):
    """Ask for the total of the dice rolled at the table."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, count: int, sides: int) -> None:
        super().__init__(classes="dialog-screen")
        self.low, self.high = count, count * sides
        self.dice = f"{count}d{sides}"

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(f"Dice rolled by hand: the {self.dice} total ({self.low}-{self.high})")
            yield Input(placeholder=f"{self.low}-{self.high}", id="hand-total", compact=True)
            yield Static("", markup=False, classes="problems", id="hand-problem")
            yield Label("Enter to resolve, Esc to cancel", classes="hint")

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        problem = self.query_one("#hand-problem", Static)
        if not (text.isdigit() and self.low <= int(text) <= self.high):
            problem.update(f"{text!r} is not a {self.dice} total: enter {self.low} to {self.high}")
            event.input.set_class(True, "-invalid")
            return
        self.dismiss(int(text))

    def action_cancel(self) -> None:
        self.dismiss(None)


class AfterRollScreen(ModalScreen[str | None]):
    """Which side plays its card after the roll: a (attacker), d (defender), Esc neither."""

    BINDINGS = [
        Binding("a", "choose('attacker')", "Attacker"),
        Binding("d", "choose('defender')", "Defender"),
        Binding("escape", "choose('')", "Neither"),
    ]

    def __init__(self, offers: dict[str, str]) -> None:
        super().__init__(classes="dialog-screen")
        self.offers = offers  # side -> card

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("A card after the roll")
            for side, card in self.offers.items():
                yield Label(f"  {side[0]}  the {side} plays {card.title()}")
            yield Label("  Esc  neither", classes="hint")

    def action_choose(self, side: str) -> None:
        if side and side not in self.offers:
            self.notify(f"The {side} has no card to play after this roll.", severity="warning")
            return
        self.dismiss(side or None)


@dataclass(frozen=True)
class NewGameRequest:
    title: str
    rulesets: list[str]
    options: dict[str, object]


class NewGameScreen(ModalScreen[NewGameRequest | None]):
    """Title, rulesets in play and per-game options for a new save file."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, tables: Tables) -> None:
        super().__init__(classes="dialog-screen")
        self.tables = tables

    def compose(self) -> ComposeResult:
        mines = self.tables.data["pod-ultra"]["obstacle_options"]["mines"]
        with Vertical(classes="dialog"):
            yield Label("New game")
            yield Input(placeholder="Title", id="new-title", compact=True)
            yield Label("Rulesets in play (space toggles)")
            yield SelectionList[str](
                *[(f"{r}  {self.tables.title(r)}", r, True) for r in RULESET_IDS],
                id="new-rulesets",
                compact=True,
            )
            with Horizontal(classes="field"):
                yield Label("Ultra mines CDF", classes="field-label")
                yield Select(
                    [(str(m), m) for m in mines],
                    value=mines[0],
                    allow_blank=False,
                    compact=True,
                    id="new-mines",
                )
            yield Static("", markup=False, classes="problems", id="new-problem")
            with Horizontal(classes="buttons"):
                yield Button("Create", variant="primary", id="create", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    @on(Input.Submitted)
    @on(Button.Pressed, "#create")
    def create(self) -> None:
        title = self.query_one("#new-title", Input).value.strip()
        rulesets = list(self.query_one("#new-rulesets", SelectionList).selected)
        problem = self.query_one("#new-problem", Static)
        if not title:
            problem.update("Give the game a title.")
            return
        if not rulesets:
            problem.update("Pick at least one ruleset.")
            return
        ordered = [r for r in RULESET_IDS if r in rulesets]
        mines = self.query_one("#new-mines", Select).value
        self.dismiss(NewGameRequest(title, ordered, {"mines_cdf": mines}))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
