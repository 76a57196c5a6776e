"""The game's units (ctrl+] on a ruleset screen): its order of battle listed by side, then
name, with each unit's hex, factor and steps left of its full, and its state (eliminated,
the markers on it); typing filters the list by name, side or hex. ctrl+n adds a unit and
Enter edits the highlighted one, in a small form of the ruleset's per-unit fields; each is
one log entry, written by the game's session as markers by hand are.

Imported when first opened: a game opens without it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Static

from tui.desk.commands import UNITS_COMMANDS, Command
from tui.desk.screens.base import DeskScreen
from tui.desk.widgets.log_table import LogTable, TableColumn
from tui.desk.widgets.title import TitleBar
from tui.engine.text import one_line
from tui.engine.units import RecordField, UnitState, read_record
from tui.game.messages import GameChanged, GameRead
from tui.game.session import Done, GameSession, SaveState

# The columns: what each shows, and its width (at 80 columns, beside the scroll bar).
COLUMNS = [
    TableColumn(label.lower(), label, width)
    for label, width in (
        ("Side", 10),
        ("Unit", 20),
        ("Hex", 6),
        ("Factor", 7),
        ("Steps", 6),
        ("State", 21),
    )
]
FILTER_HELP = "filter: name, side or hex (words all match)"

# What the form's record fields are called, where its name alone says less.
FIELD_LABELS = {"ar": "Action rating", "re": "Size (RE)", "kind": "Type"}


def state_words(unit: UnitState, markers: Sequence[str]) -> str:
    """A unit's state: eliminated, and the markers on it (Low, DG, ...)."""
    words = ["eliminated"] if not unit.alive else []
    words.extend(kind[:1].upper() + kind[1:] for kind in markers)
    return ", ".join(words)


def unit_cells(unit: UnitState, markers: Sequence[str]) -> tuple[str, ...]:
    """A unit's row: its cells as text (the table draws them as text, never markup)."""
    full = unit.fields.get("factor")
    steps = f"{unit.steps_left}/{unit.fields.get('steps')}" if unit.steps_left is not None else "-"
    return (
        unit.side,
        unit.name,
        unit.hex or "-",
        f"{unit.factor_left}/{full}" if full is not None else "-",
        steps,
        state_words(unit, markers),
    )


def matches(unit: UnitState, words: Sequence[str]) -> bool:
    """Whether every word of a filter is in the unit's name, side or hex (any case)."""
    said = f"{unit.name}\n{unit.side}\n{unit.hex or ''}".casefold()
    return all(word in said for word in words)


class UnitsScreen(DeskScreen):
    """The open game's units: listed, filtered, added and edited."""

    DESK_COMMANDS: ClassVar[tuple[Command, ...]] = UNITS_COMMANDS
    BINDINGS = [
        *(c.binding() for c in UNITS_COMMANDS),
        # The filter box keeps the focus: the arrows move the table's highlight from it.
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
    ]
    AUTO_FOCUS = "#units-filter"
    DEFAULT_CSS = """
    #units-filter { width: 1fr; }
    #units-table { height: 1fr; }
    #units-said { height: 1; padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__(classes="units-screen")
        # The names of the rows shown, in order.
        self.shown: list[str] = []

    @property
    def session(self) -> GameSession:
        session = self.desk.session
        assert session is not None
        return session

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Input(placeholder=FILTER_HELP, id="units-filter", compact=True)
        # Drawn a line at a time: a game of thousands of units filters at a keystroke.
        table = LogTable(id="units-table")
        table.can_focus = False
        yield table
        yield Static("", markup=False, id="units-said")
        yield Footer(compact=True, show_command_palette=False)

    @property
    def table(self) -> LogTable:
        return self.query_one("#units-table", LogTable)

    def on_mount(self) -> None:
        self.show_units()
        if not self.shown:
            self.say("No units yet: ^n adds one (crtdesk units NAME import reads a file)")

    # ------------------------------------------------------------------ the list
    def show_units(self, at: str | None = None) -> None:
        """List the units the filter matches, by side then name; the highlight stays on
        the unit it was on (or goes to `at`)."""
        game = self.session.game
        assert game is not None
        table = self.table
        if at is None and self.shown and table.cursor < len(self.shown):
            at = self.shown[table.cursor]
        words = self.query_one("#units-filter", Input).value.casefold().split()
        on: dict[str, list[str]] = {}
        for marker in game.markers:
            on.setdefault(marker.target, []).append(marker.kind)
        units = sorted(
            (u for u in game.units.values() if matches(u, words)),
            key=lambda u: (u.side.casefold(), u.name.casefold(), u.name),
        )
        self.shown = [u.name for u in units]
        table.show_rows(
            COLUMNS,
            len(units),
            lambda row: unit_cells(units[row], on.get(units[row].name, ())),
            self.shown.index(at) if at in self.shown else 0,
        )
        self.title = f"Units: {game.title}"
        count = len(game.units)
        self.sub_title = (
            f"{count} unit{'s' if count != 1 else ''}"
            + (f" · {len(units)} shown" if words else "")
            + " · Enter edit"
        )

    @on(Input.Changed, "#units-filter")
    def filtered(self) -> None:
        self.show_units()

    @on(GameChanged)
    def game_changed(self, message: GameChanged) -> None:
        """Entries appended (by this desk or another): the list follows them."""
        if message.path == self.session.path:
            self.show_units()

    @on(GameRead)
    def game_read(self, message: GameRead) -> None:
        """The game read whole (it was opened a moment ago): its units, now known."""
        if message.path == self.session.path:
            self.show_units()

    def action_move(self, step: int) -> None:
        self.table.action_move(step)

    def action_page(self, step: int) -> None:
        self.table.action_page(step)

    def say(self, text: str, problem: bool = False) -> None:
        said = self.query_one("#units-said", Static)
        said.update(one_line(text))
        said.set_class(problem, "problems")

    # ------------------------------------------------------------------ adding, editing
    def action_add_unit(self) -> None:
        fields = self.session.unit_fields()
        self.app.push_screen(UnitFormScreen(fields, None, self.session.add_unit), self.added)

    @on(Input.Submitted, "#units-filter")
    def filter_submitted(self) -> None:
        self.action_edit_unit()

    def action_edit_unit(self) -> None:
        game = self.session.game
        assert game is not None
        row = self.table.cursor
        if not self.shown or not 0 <= row < len(self.shown) or self.shown[row] not in game.units:
            self.say("No unit to edit here: ^n adds one, or clear the filter", problem=True)
            return
        unit = game.units[self.shown[row]]

        def write(changes: dict[str, Any], *, done: Done | None = None) -> None:
            self.session.edit_unit(unit.name, changes, done=done)

        self.app.push_screen(UnitFormScreen(self.session.unit_fields(), unit, write), self.edited)

    def added(self, entry: dict[str, Any] | None) -> None:
        if entry is not None:
            name = entry["unit"]["name"]
            self.show_units(at=name)
            self.say(f"Added {name} (logged as entry {entry['seq']})")

    def edited(self, entry: dict[str, Any] | None) -> None:
        if entry is not None:
            name = entry["unit"]["name"]
            changed = ", ".join(k for k in entry["unit"] if k != "name")
            self.show_units(at=name)
            self.say(f"Edited {name}: {changed} (logged as entry {entry['seq']})")

    def action_back(self) -> None:
        self.dismiss(None)


# How the form writes a unit: the record (or the changes) checked, and what hears the save.
Write = Callable[..., None]


class UnitFormScreen(ModalScreen[dict[str, Any] | None]):
    """A unit added (`unit` None) or edited: its name, side, hex and the ruleset's fields.
    Enter checks them (one line naming a bad one) and saves; the form closes once the
    entry is written (with it), and stays open on a refusal, saying it."""

    CSS_PATH = "dialogs.tcss"  # read when first shown, not at the desk's start

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, fields: Sequence[RecordField], unit: UnitState | None, write: Write) -> None:
        super().__init__(classes="dialog-screen")
        self.fields = tuple(fields)
        self.unit = unit
        self.write = write
        self.saving = False

    def given(self) -> dict[str, str]:
        """What the unit has now (an edit), as the form shows it."""
        if self.unit is None:
            return {}
        record = self.unit.record()
        return {key: str(value) for key, value in record.items() if value is not None}

    def field_keys(self) -> list[str]:
        keys = ["side", "hex", *(f.name for f in self.fields)]
        return keys if self.unit is not None else ["name", *keys]

    def compose(self) -> ComposeResult:
        given = self.given()
        hints = {f.name: _hint(f) for f in self.fields}
        hints |= {"name": "as its counter says", "side": "Axis, red, ...", "hex": "optional"}
        with Vertical(classes="dialog"):
            if self.unit is None:
                yield Label("Add a unit")
            else:
                yield Static(f"Edit {one_line(self.unit.name)}", markup=False)
            for key in self.field_keys():
                label = FIELD_LABELS.get(key, key.capitalize())
                field = Input(given.get(key, ""), placeholder=hints[key], id=f"unit-{key}")
                field.compact = True
                yield Horizontal(Label(label, classes="field-label"), field, classes="field")
            yield Static("", markup=False, classes="problems", id="unit-problem")
            yield Label("Tab next field; Enter saves it; Esc cancels", classes="hint")

    @on(Input.Submitted)
    def submitted(self) -> None:
        if self.saving:
            return
        typed = {
            key: self.query_one(f"#unit-{key}", Input).value.strip() for key in self.field_keys()
        }
        problem = self.query_one("#unit-problem", Static)
        if self.unit is None:
            raw = {key: value for key, value in typed.items() if value}
            partial = False
        else:
            given = self.given()
            raw = {k: v for k, v in typed.items() if v != given.get(k, "")}
            if not raw:
                problem.update("Nothing changed: type a new value, or Esc")
                return
            cleared = [k for k, v in raw.items() if not v]
            if cleared:
                problem.update(f"{cleared[0]}: cannot be emptied; type a value, or Esc")
                return
            partial = True
        try:
            record = read_record(raw, self.fields, partial=partial)
        except ValueError as err:
            problem.update(one_line(str(err)))
            return
        self.saving = True
        problem.update("Saving…")
        self.write(record, done=self.saved)

    def saved(self, state: SaveState) -> None:
        self.saving = False
        if state.status == "failed" or state.entry is None:
            self.query_one("#unit-problem", Static).update(one_line(f"Not saved: {state.error}"))
            return
        self.dismiss(state.entry)

    def action_cancel(self) -> None:
        self.dismiss(None)


def _hint(field: RecordField) -> str:
    if field.choices:
        said = "/".join(field.choices)
    else:
        said = f"{field.low} to {field.high}"
    return said if field.default is None else f"{said}, empty: {field.default}"
