"""F1: the ruleset's legend, its chart and the rulings that apply."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from tui.desk.commands import COMBAT_SCREEN_COMMANDS, RULESET_COMMANDS, Command
from tui.desk.screens.base import desk_of
from tui.engine import registry

# How a combat is typed: the same on every combat screen.
TYPING_KEYS = (
    "  Tab      next field: across a unit's row, then the next row; shift+Tab back\n"
    "  Enter    in a unit's row: down to the next unit's factor (12 Enter 3 ctrl+r)"
)


class HelpScreen(ModalScreen[None]):
    CSS_PATH = "help.tcss"  # read when first shown, not at the desk's start

    # Enter closes it too, as it closes every dialog: there is nothing to choose here.
    BINDINGS = [Binding("escape,enter,f1,q", "close", "Close", key_display="esc/enter")]

    def __init__(
        self, ruleset: str | None, commands: tuple[Command, ...] = RULESET_COMMANDS
    ) -> None:
        super().__init__(classes="help-screen")
        self.ruleset = ruleset
        self.commands = commands

    def compose(self) -> ComposeResult:
        tables = desk_of(self.app).tables
        keys = "\n".join(f"  {c.key:8} {c.help}" for c in self.commands)
        with VerticalScroll(classes="help-body"):
            if self.ruleset is None:
                combat_keys = "\n".join(f"  {c.key:8} {c.help}" for c in COMBAT_SCREEN_COMMANDS)
                yield Static(
                    "crtdesk: pick a game and press Enter, or n for a new one.\n"
                    "On a combat screen type the factors; the odds update as you type.\n\n"
                    f"Keys here:\n{keys}\n\n"
                    f"Keys on a combat screen:\n{combat_keys}\n{TYPING_KEYS}\n"
                    "  F2-F8    switch to the game's 1st..7th ruleset\n"
                    "  ctrl+p   command palette; ctrl+q quits",
                    markup=False,
                )
            else:
                ruleset = registry.get(self.ruleset)
                rulings = ruleset.rulings(tables)
                if rulings:  # a player's chart prints its own, with its chart
                    said = "\n".join(f"- {r}" for r in rulings)
                    yield Static(f"{ruleset.title(tables)}\n\nRulings:\n{said}", markup=False)
                    yield Static(
                        f"\nKeys:\n{keys}\n{TYPING_KEYS}\n  F2-F8    switch ruleset\n"
                        "  space    on a choice (terrain, card, ...): its next value; left the one\n"
                        "           before; a letter the next value starting with it\n",
                        markup=False,
                    )
                    yield Static(ruleset.chart_text(tables), markup=False, classes="chart")
                else:
                    yield Static(ruleset.chart_text(tables), markup=False, classes="chart")
                    yield Static(
                        f"\nKeys:\n{keys}\n{TYPING_KEYS}\n  F2-F8    switch ruleset", markup=False
                    )
        yield Footer(compact=True)

    def action_close(self) -> None:
        self.dismiss(None)
