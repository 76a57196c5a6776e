"""Small typed modals: dice rolled by hand, a new game, a choice (a card after the roll,
the next turn, ...), a number, a note. Each answers Esc (cancel: nothing logged) and Enter
(the highlighted choice, or the text typed), Up/Down where it has choices, and says so in
its last line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import (
    Button,
    Footer,
    Input,
    Label,
    OptionList,
    Select,
    SelectionList,
    Static,
)

from tui.desk.widgets.ticks import TickList
from tui.engine import Outcome, registry
from tui.engine.combat import cell_text
from tui.engine.schema import FIELDS
from tui.engine.tables import Tables
from tui.engine.text import one_line


class HandDiceScreen(ModalScreen[int | None]):
    """Ask for the dice rolled at the table, as they lie: their total before any modifier
    (the desk adds the DRM and reads the row)."""

    CSS_PATH = "dialogs.tcss"  # read when first shown, not at the desk's start

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, dice: str, low: int, high: int, what: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self.low, self.high = low, high
        self.dice = dice
        self.what = what or f"the {dice} total"

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(f"Dice rolled by hand: {self.what} ({self.low}-{self.high})", markup=False)
            yield Input(placeholder=f"{self.low}-{self.high}", id="hand-total", compact=True)
            yield Static("", markup=False, classes="problems", id="hand-problem")
            yield Label("Enter to resolve, Esc to cancel", classes="hint")

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        problem = self.query_one("#hand-problem", Static)
        if not (text.isdigit() and self.low <= int(text) <= self.high):
            problem.update(f"{text!r} is not allowed: enter {self.low} to {self.high}")
            event.input.set_class(True, "-invalid")
            return
        self.dismiss(int(text))

    def action_cancel(self) -> None:
        self.dismiss(None)


class TraceScreen(ModalScreen[None]):
    """The last roll in full, at the screen's width: cell, effects, dice and every step."""

    CSS_PATH = "dialogs.tcss"  # read when first shown, not at the desk's start

    # Enter closes it too, as it closes every dialog: there is nothing to choose here.
    BINDINGS = [Binding("escape,enter,q,ctrl+f", "close", "Close", key_display="esc/enter")]

    def __init__(self, outcome: Outcome, entry: dict[str, Any] | None) -> None:
        super().__init__(classes="trace-screen")
        self.outcome = outcome
        self.entry = entry

    def compose(self) -> ComposeResult:
        outcome = self.outcome
        lines = [f"Result: {cell_text(outcome.cell)}", "", outcome.explanation, ""]
        for roll in outcome.dice:
            source = {"desk": "the desk", "seed": f"the desk, seed {roll.seed}"}.get(
                roll.source, "by hand"
            )
            faces = f" {list(roll.values)}" if roll.values else ""
            lines.append(f"Dice for {roll.purpose}: {roll.dice}{faces} = {roll.total} ({source})")
        lines += ["", "Trace:"]
        lines += [f"{n:3}. {step}" for n, step in enumerate(outcome.trace, start=1)]
        if self.entry is not None:
            lines += ["", f"Logged as entry {self.entry.get('seq')}"]
        with VerticalScroll(classes="trace-body"):
            yield Static("\n".join(lines), markup=False)
        yield Footer(compact=True)

    def action_close(self) -> None:
        self.dismiss(None)


@dataclass(frozen=True)
class NewGameRequest:
    title: str
    rulesets: list[str]
    options: dict[str, object]
    # A copy of each player's chart in play (its ruleset id -> the file's text).
    charts: dict[str, str] = field(default_factory=dict)


class NewGameScreen(ModalScreen[NewGameRequest | None]):
    """Title, rulesets in play and per-game options for a new save file. Enter creates the
    game from any field (Space ticks a ruleset); Esc cancels."""

    CSS_PATH = "dialogs.tcss"  # read when first shown, not at the desk's start

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("enter", "create", "Create", priority=True),
    ]

    def __init__(self, tables: Tables, games: Path | None = None) -> None:
        super().__init__(classes="dialog-screen")
        self.tables = tables
        # The player's charts in the games folder, offered beside the built-in rulesets
        # (not ticked); a broken one is named and left out.
        self.charts: dict[str, Any] = {}
        self.broken: tuple[str, ...] = ()
        if games is not None:
            # Imported when the dialog opens: the desk starts without reading charts.
            from tui.engine.rulesets.charts.folder import read_games

            shelf = read_games(games)
            self.charts = {registry.chart_id(chart.name): chart for chart in shelf.charts}
            self.broken = shelf.broken

    def compose(self) -> ComposeResult:
        # The Ultra mines CDF: a per-game option, offered as its field is.
        mines = FIELDS["mines_cdf"]
        # The built-in rulesets (ticked), any other registered, then the folder's charts.
        offered = [
            (f"{r.id}  {r.title(self.tables)}", r.id, r.id in registry.BUILT_IN_IDS)
            for r in registry.rulesets()
            if r.chart_copy is None
        ]
        offered += [(f"{r}  {c.title}", r, False) for r, c in self.charts.items()]
        with Vertical(classes="dialog"):
            yield Label("New game")
            # Tab back into the title leaves its text alone: selected whole on focus (the
            # Input's default), a Space typed next replaced it.
            yield Input(placeholder="Title", id="new-title", compact=True, select_on_focus=False)
            yield Label("Rulesets in play (Up/Down, Space ticks)")
            yield TickList(
                *[(Content(text), value, ticked) for text, value, ticked in offered],
                id="new-rulesets",
                compact=True,
            )
            if self.broken:
                said = f"{len(self.broken)} chart(s) in the games folder left out: "
                shown = one_line(said + self.broken[0])
                yield Static(shown, markup=False, classes="hint", id="new-broken")
            with Horizontal(classes="field"):
                yield Label("Ultra mines CDF", classes="field-label")
                yield Select(
                    [(label, value) for value, label in mines.options("pod-ultra", self.tables)],
                    value=mines.option_default(self.tables),
                    allow_blank=False,
                    compact=True,
                    id="new-mines",
                )
            yield Static("", markup=False, classes="problems", id="new-problem")
            with Horizontal(classes="buttons"):
                yield Button("Create", variant="primary", id="create", compact=True)
                yield Button("Cancel", id="cancel", compact=True)
            yield Label(
                "Up/Down picks a ruleset, Space ticks it; Tab next field\n"
                "Enter creates the game; Esc cancels",
                classes="hint",
            )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "create":
            # Enter keeps its own meaning on an open dropdown and on the Cancel button.
            focused: Widget | None = self.focused
            while focused is not None and not isinstance(focused, Select):
                focused = focused.parent if isinstance(focused.parent, Widget) else None
            if isinstance(focused, Select) and focused.expanded:
                return False
            if isinstance(self.focused, Button) and self.focused.id == "cancel":
                return False
        return True

    @on(Button.Pressed, "#create")
    def action_create(self) -> None:
        title = self.query_one("#new-title", Input).value.strip()
        rulesets = list(self.query_one("#new-rulesets", SelectionList).selected)
        problem = self.query_one("#new-problem", Static)
        if not title:
            problem.update("Give the game a title.")
            return
        if not rulesets:
            problem.update("Pick at least one ruleset.")
            return
        ordered = [r for r in (*registry.ids(), *self.charts) if r in rulesets]
        ordered = list(dict.fromkeys(ordered))
        mines = self.query_one("#new-mines", Select).value
        charts = {r: self.charts[r].text for r in ordered if r in self.charts}
        self.dismiss(NewGameRequest(title, ordered, {"mines_cdf": mines}, charts))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class ChoiceScreen(ModalScreen[str | None]):
    """A question answered from the keyboard: each choice is (key, what it does, value).
    The first choice starts highlighted; Up/Down and Enter pick one, as do its key and the
    first letter of what it does (where no other choice shares it). Esc answers None: the
    question, and whatever asked it, is cancelled."""

    CSS_PATH = "dialogs.tcss"  # read when first shown, not at the desk's start

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, question: str, choices: list[tuple[str, str, str]]) -> None:
        super().__init__(classes="dialog-screen")
        self.question = question
        self.choices = choices
        self.keys: dict[str, str] = {key.lower(): value for key, _, value in choices}
        initials = [label[:1].lower() for _, label, _ in choices]
        for (_, _, value), initial in zip(choices, initials, strict=True):
            if initial.isalnum() and initial not in self.keys and initials.count(initial) == 1:
                self.keys[initial] = value

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question, markup=False)
            yield OptionList(
                *[Content(f"{key}  {label}") for key, label, _ in self.choices],
                id="choices",
                compact=True,
            )
            yield Label(choice_keys_hint(self.choices), classes="hint", markup=False)

    def on_mount(self) -> None:
        options = self.query_one("#choices", OptionList)
        options.highlighted = 0
        options.focus()

    def on_key(self, event: events.Key) -> None:
        value = self.keys.get((event.character or event.key).lower())
        if value is not None:
            event.stop()
            event.prevent_default()
            self.dismiss(value)

    @on(OptionList.OptionSelected, "#choices")
    def selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.choices[event.option_index][2])

    def action_cancel(self) -> None:
        self.dismiss(None)


def choice_keys_hint(choices: list[tuple[str, str, str]]) -> str:
    """A choice dialog's last line: the keys it answers."""
    keys = "/".join(key for key, _, _ in choices)
    return f"Up/Down Enter, or {keys}; Esc cancels"


class NumberScreen(ModalScreen[int | None]):
    """Ask for a whole number >= 0; empty means none. Esc cancels: None, with `cancelled`
    set (a roll that asked is cancelled whole)."""

    CSS_PATH = "dialogs.tcss"  # read when first shown, not at the desk's start

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, question: str, placeholder: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self.question = question
        self.placeholder = placeholder
        self.cancelled = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question, markup=False)
            yield Input(placeholder=self.placeholder, id="number", compact=True)
            yield Static("", markup=False, classes="problems", id="number-problem")
            yield Label("Enter to go on (empty: none); Esc cancels", classes="hint")

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text:
            self.dismiss(None)
        elif text.isdigit() and text.isascii() and len(text) <= 6:
            self.dismiss(int(text))
        else:
            self.query_one("#number-problem", Static).update(
                f"{text!r} is not a whole number >= 0: enter one, or leave it empty for none"
            )
            event.input.set_class(True, "-invalid")

    def action_cancel(self) -> None:
        self.cancelled = True
        self.dismiss(None)


class NoteScreen(ModalScreen[str | None]):
    """Ask for a note on a logged entry; empty (or Esc) writes nothing."""

    CSS_PATH = "dialogs.tcss"  # read when first shown, not at the desk's start

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, about: str) -> None:
        super().__init__(classes="dialog-screen")
        self.about = about

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(f"Note on {self.about}", markup=False)
            yield Input(placeholder="the note (kept as a new entry)", id="note-text", compact=True)
            yield Label("Enter to log it; empty or Esc to cancel", classes="hint")

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        self.dismiss(text or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
