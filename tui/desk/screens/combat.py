"""The combat screen every ruleset's form is built on: two panes (the form, and the result
over the live odds preview), unit rows, rolling with the desk's dice or dice entered by
hand, the trace, and recording in a worker.

A ruleset's form is made from its schema (tui.engine.schema: each input's label, kind and
range): each field's kind (tui.engine.kinds) names the widget that shows it, reads what is
typed in it and checks it, and the unit rows are read by the kind of the ruleset's unit
fields; what the form does not read, and what its desk-only inputs stand for, the engine
says (tui.engine.combat.form_unread, form_values). A screen adds only what is its own (a
preview, extra commands, where the result's markers go). Data flows one way: form -> one reactive `FormReading` -> one engine call (`preview`) -> the
preview widget; a roll -> the ruleset's procedure (tui.engine.procedure), its questions
answered with the desk's dice or dialogs -> one entry appended by the game session.

The engine's model, resolvers and preview are imported when a form first holds a combat
(`tui.engine` gives its names on demand): a new screen's empty form is drawn without them.

About 680 lines, one class: the form (made from the schema, read into one reactive
reading) and the roll (the procedure's questions answered, the result shown, the entry
recorded) share that reading, the result panel and the save's state; split into mixins,
each half would reach into the other's attributes. Every ruleset screen subclasses it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Iterable
from functools import cached_property, partial
from importlib import import_module
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

import msgspec
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.message import Message
from textual.reactive import var
from textual.widget import AwaitMount, Widget
from textual.widgets import Input, Static

from tui import engine
from tui.desk.commands import COMBAT_COMMANDS, COMBAT_SCREEN_COMMANDS, Command
from tui.desk.compat import use_pane_compositor
from tui.desk.messages import ScreenDrawn
from tui.desk.screens.ruleset import RulesetScreen, SaveState
from tui.desk.widgets.combat import (
    Cycle,
    FieldLine,
    OddsPreview,
    TypingForm,
    UnitRow,
)
from tui.engine import registry
from tui.engine.errors import InputError
from tui.engine.kinds import SIDES, Shown, Units
from tui.engine.tables import Tables
from tui.engine.text import one_line

if TYPE_CHECKING:
    from tui.desk.widgets.result import ResultPanel
    from tui.engine import CombatInput, Outcome
    from tui.engine.preview import Preview
    from tui.engine.questions import Question
    from tui.engine.schema import Field as SchemaField
    from tui.engine.units import UnitState


# A question the player cancelled (Esc in any dialog): nothing is rolled or logged.
_CANCELLED = object()
T = TypeVar("T")

# What a form's first combat needs of the engine, besides its ruleset's resolver.
ENGINE_MODULES = ("tui.engine.model", "tui.engine.preview", "tui.engine.rulesets.common")

# The dialogs (hand dice, the trace, notes, choices) are imported when one is first asked
# for: a combat screen opens without them.


def typed_problem(err: InputError, label: str | None = None) -> str:
    """A form's problem with what was typed, in the form's words: "A1: enter a CAF" for a
    value missing, "Hedgehog: 'x' is not a whole number >= 0" for one that cannot be read."""
    name = label or err.field
    if err.value is None or err.value == "":
        return f"{name}: enter {err.allowed}"
    return f"{name}: {err.value!r} is not {err.allowed}"


class FormReading(msgspec.Struct, frozen=True):
    """The form as the engine's input, or the problems that stop it."""

    combat: CombatInput | None
    problems: tuple[str, ...] = ()


class CombatScreen(TypingForm, RulesetScreen):
    """The shared combat screen. Subclasses give the form and turn it into a CombatInput."""

    DESK_COMMANDS: ClassVar[tuple[Command, ...]] = COMBAT_SCREEN_COMMANDS
    BINDINGS = [
        *(c.binding() for c in COMBAT_COMMANDS),
        # A priority binding, as Tab is: focus moves before the next key is handed on, so
        # "8 Enter 2" typed fast puts the 2 in the next unit's factor.
        Binding("enter", "next_unit", "Next unit", show=False, priority=True),
    ]
    # The first attacker's first field has the focus from the first frame. Textual's default
    # ("*") gave it first to the form's scrolling pane, and restyled the whole form for it.
    AUTO_FOCUS = "#attackers Input"

    # What a unit's factor is called on this ruleset's counters.
    FACTOR_NAMES: ClassVar[tuple[str, str]] = ("attack", "defence")
    # The headings over the two unit lists.
    SECTION_LABELS: ClassVar[tuple[str, str]] = (
        "Attackers (^n add, ^o drop)",
        "Defenders (^g add)",
    )

    reading: var[FormReading] = var(FormReading(None), init=False, always_update=True)
    save_state: var[SaveState] = var(SaveState("none"), init=False)

    def __init__(self, ruleset: str) -> None:
        super().__init__(ruleset)
        use_pane_compositor(self)  # a keystroke's frame drawn a pane at a time
        # The last roll, and the combat it resolved.
        self.last: Outcome | None = None
        self.last_combat: CombatInput | None = None
        # The form's fields by selector (None: not on this screen), found once: a keystroke
        # reads every field, and a query walks the whole screen.
        self._fields: dict[str, Widget | None] = {}
        # Each side's unit rows, found once as the form's fields are (`unit_rows`).
        self._unit_rows: dict[str, tuple[UnitRow, ...]] = {}
        # The last roll's panel's mount, while it is just put in (`after_panel_drawn`).
        self._panel_mounted: AwaitMount | None = None
        # The form's fields and the tables they were worked out for (`form_inputs`).
        self._form_inputs: tuple[Tables, tuple[SchemaField, ...]] | None = None
        # Whether the screen's first frame is drawn, and what follows it ready (`prepare`).
        self.drawn = self.prepared = False
        # Whether the form was filled from the game's last combat here (once, on opening),
        # and whether it is being filled now.
        self.restored = self.filling = False
        # The inputs the form's values last left unread (the ruleset's form rule).
        self.unread: frozenset[str] = frozenset()
        # The game's units by name, as the log leaves them (`read_units_state`).
        self.unit_states: dict[str, UnitState] = {}
        self.units_read: dict[str, dict[str, Any]] = {}
        # The units still in play, (name, side) in the log's order: what a name completes
        # from, worked out with the units (a keystroke asks it of 2,000 units).
        self.alive_units: list[tuple[str, str]] = []

    @property
    def tables(self) -> Tables:
        return self.desk.tables

    @property
    def rules(self) -> Any:
        return self.tables.data[self.ruleset]

    # ------------------------------------------------------------------ layout
    def compose_body(self) -> ComposeResult:
        with Horizontal(classes="combat-body"):
            # Neither pane is a focus stop: Tab walks the fields (the form scrolls to the
            # focused one), and the side is laid out to fit, the result over the chances.
            with VerticalScroll(classes="combat-form", can_focus=False):
                yield Static(self.SECTION_LABELS[0], classes="section")
                yield from self.compose_unit_heading("attacker")
                with Vertical(id="attackers"):
                    yield self.make_unit_row("attacker", 1)
                yield Static(self.SECTION_LABELS[1], classes="section")
                yield from self.compose_unit_heading("defender")
                with Vertical(id="defenders"):
                    yield self.make_unit_row("defender", 1)
                yield from self.compose_fields()
            with Vertical(classes="combat-side"):
                yield from self.compose_markers()
                # The last roll's panel (ResultPanel) is put above the preview when there
                # is a roll to show (`result_panel`).
                yield self.make_preview()

    def compose_unit_heading(self, side: str) -> ComposeResult:
        """Column headings over a side's unit rows, where a row has several fields."""
        yield from ()

    def make_preview(self) -> OddsPreview:
        """The live odds preview under the result (a ruleset may show more)."""
        return OddsPreview(id="preview")

    def compose_fields(self) -> ComposeResult:
        """The ruleset's own fields, below the unit lists: its schema's form."""
        yield from self.compose_inputs(self.form_inputs)

    @property
    def form_inputs(self) -> tuple[SchemaField, ...]:
        """The schema's fields this screen's form shows (worked out again only when the
        game's tables are others: a keystroke reads the form, and a read asks for them)."""
        tables = self.tables
        kept = self._form_inputs
        if kept is not None and kept[0] is tables:
            return kept[1]
        # Imported after the form's first frame, or when first shown (tests/desk/test_lazy_screens.py).
        from tui.engine.schema import form

        shown = form(self.ruleset, registry.get(self.ruleset).fields, tables)
        self._form_inputs = (tables, shown)
        return shown

    @cached_property
    def unit_inputs(self) -> tuple[SchemaField, SchemaField]:
        """The attackers' and the defenders' fields, as this form's unit rows read them."""
        return registry.get(self.ruleset).unit_fields

    @cached_property
    def form_ruled(self) -> bool:
        """Whether a field of the form changes what the rest of it reads (the engine's
        ruleset module, with its rule, is asked only then)."""
        return any(found.form_rule for found in self.form_inputs)

    def field_label(self, name: str) -> str:
        """What the form calls an input an engine message names."""
        # Imported after the form's first frame, or when first shown (tests/desk/test_lazy_screens.py).
        from tui.engine.schema import label

        return label(registry.get(self.ruleset).fields, name)

    def compose_inputs(self, inputs: Iterable[SchemaField]) -> ComposeResult:
        """A line per input (an input `beside` the one before joins its line)."""
        lines: list[list[SchemaField]] = []
        for found in inputs:
            if found.beside and lines:
                lines[-1].append(found)
            else:
                lines.append([found])
        for line in lines:
            first, *rest = line
            if first.shown is Shown.TICK and not rest:  # a tick says its own label
                yield self.input_widget(first)
                continue
            widgets: list[Widget] = [self.input_widget(first)]
            for other in rest:
                if other.shown is not Shown.TICK:
                    widgets.append(Static(f" {other.form_label} ", classes="between"))
                widgets.append(self.input_widget(other))
            yield FieldLine(first.form_label, *widgets)

    def input_widget(self, found: SchemaField) -> Widget:
        """The widget an input is typed, ticked or cycled in: the one its kind names."""
        # Imported after the form's first frame, or when first shown (tests/desk/test_lazy_screens.py).
        from tui.desk.widgets.combat import FixedInput

        shown = found.shown
        if shown is Shown.TICK:
            # Imported for a form with a tick: Checkbox (and the tick list's SelectionList)
            # load only then, which the budgeted open of a Basic screen never needs.
            from tui.desk.widgets.ticks import Tick

            return Tick(found.form_label, id=found.widget_id, compact=True)
        if shown is Shown.CHOICE:
            if found.desk_options is not None:  # a tick with a name for each value
                return Cycle(list(found.desk_options), id=found.widget_id)
            offered = found.form_options(self.ruleset, self.tables)
            options = [(label, value) for value, label in offered]
            if not found.required:
                options.insert(0, ("-", ""))
            value = self.input_default(found)
            return Cycle(
                options, value=options[0][1] if value is None else value, id=found.widget_id
            )
        low = found.low if isinstance(found.low, int) and found.low > 0 else 0
        placeholder = found.placeholder or str(low)
        return FixedInput(
            placeholder=placeholder, compact=True, id=found.widget_id, classes="small"
        )

    def input_default(self, found: SchemaField) -> Any:
        """The value a choice starts with: a per-game option's as the game sets it."""
        if found.game_option is not None:
            return self.game.options.get(found.name, found.option_default(self.tables))
        if found.desk_default is not None:
            return found.desk_default
        return None if found.required else ""

    def input_value(self, found: SchemaField, problems: list[str]) -> Any:
        """An input's value as the form holds it: a tick's, a choice's, or a number read by
        the field's kind (None: left empty; one that cannot be read adds to `problems`)."""
        selector = f"#{found.widget_id}"
        shown = found.shown
        if shown is Shown.TICK:
            return self.checked(selector)
        if shown is Shown.CHOICE:
            return self.select_value(selector)
        box = self.form_field(selector)
        assert isinstance(box, Input), selector
        text = box.value.strip()
        value = None
        if text:
            try:
                value = found.kind.read(found, text)
            except InputError as err:
                problems.append(typed_problem(err, found.label))
        invalid = bool(text) and value is None
        if box.has_class("-invalid") != invalid:
            box.set_class(invalid, "-invalid")
        return value

    def make_unit_row(self, side: str, number: int) -> UnitRow:
        """A unit row of the widget the side's field kind names."""
        found = self.unit_inputs[0 if side == "attacker" else 1]
        attack, defence = self.FACTOR_NAMES
        placeholder = attack if side == "attacker" else defence
        if found.shown is Shown.OCS_UNIT_ROWS:
            # The OCS row's module brings the OCS rules: a form without one loads neither.
            from tui.desk.widgets.ocs import OcsUnitRow

            row: UnitRow = OcsUnitRow(side, number, placeholder=placeholder)
        else:
            marks = self.unit_terrains
            if found.choices is not None:  # a player's chart: the marks a side's unit carries
                marks = ("-", *(str(mark) for mark, _ in found.options(self.ruleset, self.tables)))
            row = UnitRow(side, number, marks, placeholder=placeholder)
        row.new_name = self.new_name_input
        if self.unit_states:
            row.show_names(self.unit_names[side])
        return row

    def new_name_input(self, suggester: Any) -> Input:
        """A unit row's name field, completed by `suggester`."""
        # Imported with a row's first name: a game without units draws its first frame
        # without it (the start-up budget, docs/performance.md).
        from tui.desk.widgets.unit_names import name_input

        return name_input(suggester)

    # ------------------------------------------------------------------ the game's units
    @cached_property
    def unit_names(self) -> dict[str, Any]:
        """Each side's rows' name completion (the game's units, as `side_names` gives)."""
        # Imported once the game has units: a form without them never loads it.
        from tui.desk.widgets.unit_names import UnitNames

        return {side: UnitNames(partial(self.side_names, side)) for side in SIDES}

    def read_units_state(self) -> None:
        """The game's units as the log leaves them, read when the game is read and after
        each entry (never per keystroke); the rows take names once there are some."""
        game = self.session.game if self.session.loaded else None
        self.unit_states = dict(game.units) if game is not None else {}
        # What each unit was when last read: a row holding a unit the entry changed (a loss
        # taken) shows it as it now stands, never the strength it had before the roll.
        before, self.units_read = (
            self.units_read,
            {name: unit.state() for name, unit in self.unit_states.items()},
        )
        refreshed = False
        self.alive_units = [(u.name, u.side) for u in self.unit_states.values() if u.alive]
        if self.unit_states:
            for side in SIDES:
                for row in self.unit_rows(side):
                    if row.suggester is None:
                        row.show_names(self.unit_names[side])
                    elif row.named:
                        name = row.name_input.value.strip()
                        if name in before and before[name] != self.units_read.get(name):
                            self.pick_unit(row.name_input)
                            refreshed = True
        if refreshed:  # the preview reads the rows as they now stand (the last roll's box
            self.reading = self.read_form()  # still tells the combat logged)

    def picked_side(self) -> str | None:
        """The game's side of the first attacker picked by name (None: none yet)."""
        for row in self.unit_rows("attacker"):
            if not row.named:
                continue
            found = self.unit_states.get(row.name_input.value.strip())
            if found is not None:
                return found.side
        return None

    def side_names(self, side: str) -> list[str]:
        """The units a side's row completes from: an attacker's from every side until one
        attacker is picked, then from its side; a defender's from the other sides."""
        picked = self.picked_side()
        if picked is None:
            return [name for name, _ in self.alive_units]
        if side == "attacker":
            return [name for name, owner in self.alive_units if owner == picked]
        return [name for name, owner in self.alive_units if owner != picked]

    def pick_unit(self, field: Input) -> None:
        """A unit's name typed or completed in its row: the row shows the unit as it now
        stands (its factor left, an OCS counter's steps left and the rest), every field
        still typed over for a one-off."""
        if not self.unit_states or "unit-name" not in field.classes:
            return
        found = self.unit_states.get(field.value.strip())
        row = next((a for a in field.ancestors if isinstance(a, UnitRow)), None)
        if found is None or row is None or found.name not in self.side_names(row.side):
            return
        self.filling = True
        try:
            with self.prevent(Input.Changed, Cycle.Changed):
                row.fill(found.combat_unit())
        finally:
            self.filling = False

    @property
    def unit_terrains(self) -> tuple[str, ...]:
        """The terrains a unit's hex may have where each unit's terrain counts."""
        return ()

    def on_mount(self) -> None:
        super().on_mount()
        self.reading = self.read_form()
        self.query_one("#attackers Input", Input).focus()
        # An empty form is drawn without the engine or the hidden result panel; both come
        # once the form is shown, while the player reads it.
        self.call_after_refresh(self.prepare)

    def prepare(self) -> None:
        """What the screen needs after its first frame: the engine its first combat reads
        (the model, the preview and the ruleset's resolver). The last roll's panel comes
        in with the game's last roll, or with the first roll."""
        self.drawn = True
        # Imported after the form's first frame, or when first shown (tests/desk/test_lazy_screens.py).
        from tui.engine.combat import load_ruleset

        for name in ENGINE_MODULES:
            import_module(name)
        load_ruleset(self.ruleset)
        self.prepared = True
        self.read_units_state()
        self.show_latest()  # a game opened again shows its last combat here
        self.restore_form()
        # What preparing laid out drawn too: the save opened from the list is read now.
        self.after_panel_drawn(partial(self.post_message, ScreenDrawn()))

    def focused_unit_row(self) -> UnitRow | None:
        """The unit row whose text field has the focus, if one has."""
        if not isinstance(self.focused, Input):
            return None
        return next((a for a in self.focused.ancestors if isinstance(a, UnitRow)), None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_unit":
            # Enter keeps its own meaning everywhere but in a unit's text field.
            return self.focused_unit_row() is not None
        return super().check_action(action, parameters)

    def action_next_unit(self) -> None:
        """Enter in a unit's row goes down, as in a spreadsheet: to the next unit's factor
        (the attackers, then the defenders; after the last, the next field). Tab goes
        across the row, so "12 Enter 3 ctrl+r" resolves a combat on any ruleset."""
        row = self.focused_unit_row()
        accept = getattr(self.focused, "accept", None)
        if callable(accept):  # a unit's name: its completion taken first
            accept()
        rows = [*self.unit_rows("attacker"), *self.unit_rows("defender")]
        later = rows[rows.index(row) + 1 :] if row in rows else []
        if later:
            # At once, not after the messages waiting (as `focus()` would): the next key
            # typed goes to the new field.
            self.set_focus(later[0].factor_input)
        else:
            self.focus_next()

    # ------------------------------------------------------------------ the form
    def form_field(self, selector: str) -> Widget | None:
        """The form's widget matching `selector`, or None when this screen has none; found
        once (unit rows added or removed are found again)."""
        if selector not in self._fields:
            try:
                # query_one stops at the first match (an id without matching any selector);
                # a query walked and matched the whole screen, twice.
                self._fields[selector] = self.query_one(selector)
            except NoMatches:
                self._fields[selector] = None
        return self._fields[selector]

    def forget_fields(self) -> None:
        """Find the form's fields again (after widgets were mounted or removed)."""
        self._fields.clear()
        self._unit_rows.clear()

    def field_typed(self, field: Input, value: str) -> bool:
        """A form field's value typed (FixedInput): the form is read at once, and the
        field's Changed message stops at the field."""
        if self.filling:
            return False  # a logged combat being shown: read once it is all in
        self.pick_unit(field)
        self.form_changed()
        return True

    def on_checkbox_changed(self, event: Message) -> None:
        """A tick (rivets, Day/Night, OCS), named so: Checkbox is imported only by the
        screens that have one."""
        self.form_changed(event)

    @on(Input.Changed)
    @on(Cycle.Changed)
    def form_changed(self, event: Message | None = None) -> None:
        if isinstance(event, Input.Changed):
            self.pick_unit(event.input)  # a name completed as its field was left
        self.reading = self.read_form()
        panel = self.form_field("#result")
        if panel is not None:
            cast("ResultPanel", panel).mark_stale()

    @property
    def result_panel(self) -> ResultPanel:
        """The last roll's panel (found once: a roll and a keystroke both reach it), put
        above the preview when first asked for."""
        panel = self.form_field("#result")
        if panel is None:
            # Imported with the first roll shown (tests/desk/test_lazy_screens.py).
            from tui.desk.widgets.result import ResultPanel

            panel = ResultPanel(id="result")
            panel.display = False
            side = self.form_field(".combat-side")
            assert isinstance(side, Vertical)
            self._panel_mounted = side.mount(panel, before=self.form_field("#preview"))
            self._fields["#result"] = panel
        return cast("ResultPanel", panel)

    def after_panel_drawn(self, then: Callable[[], object]) -> None:
        """Call `then` once the last roll's panel as it is now is drawn: after the next
        frame, or after the frame that follows its mount where it is just put in."""
        mounted, self._panel_mounted = self._panel_mounted, None
        if mounted is None:
            self.call_after_refresh(then)
        else:
            self.call_next(self._after_mount, mounted, then)

    async def _after_mount(self, mounted: AwaitMount, then: Callable[[], object]) -> None:
        await mounted
        self.call_after_refresh(then)

    def watch_reading(self, reading: FormReading) -> None:
        problems = list(reading.problems)
        shown: Preview | None = None
        if reading.combat is not None:
            # Imported after the form's first frame, or when first shown (tests/desk/test_lazy_screens.py).
            from tui.engine.preview import preview

            try:
                shown = preview(reading.combat, self.tables)
            except InputError as err:
                problems.append(err.message(self.field_label(err.field)))
        odds = self.form_field("#preview")
        if isinstance(odds, OddsPreview):
            odds.show(shown, problems)

    def read_form(self) -> FormReading:
        """The form read: its fields, then the units the engine says it reads, as one
        combat, or the problems (what could not be read, then numbers beyond the game's
        range) that stop it."""
        problems: list[str] = []
        typed: list[str] = []
        values = {f.name: self.input_value(f, typed) for f in self.form_inputs}
        self.unread = self.unread_inputs(values)
        self.show_unread(self.unread)
        for side in ("attacker", "defender"):
            if f"{side}s" not in self.unread:
                values[f"{side}s"] = self.read_units(side, problems)
        problems += typed
        fields = self.combat_fields(values, problems)
        # Numbers beyond the game's range, each named beside what could not be read.
        from tui.engine.schema import range_errors

        for err in range_errors(registry.get(self.ruleset).fields, fields, self.tables):
            problems.append(err.message(self.field_label(err.field)))
        if problems:
            return FormReading(None, tuple(problems))
        # A value left empty is the combat's own default.
        given = {name: value for name, value in fields.items() if value is not None}
        return FormReading(engine.CombatInput(ruleset=self.ruleset, **given))

    def unread_inputs(self, values: dict[str, Any]) -> frozenset[str]:
        """The inputs these values leave unread, as the ruleset's form rule says."""
        if not self.form_ruled:
            return frozenset()
        return registry.get(self.ruleset).form_unread(values)

    def show_unread(self, unread: frozenset[str]) -> None:
        """Show the unit rows the form does not read as such: greyed (an Ultra obstacle is
        the whole defence). New rows are greyed too, so every reading sets them."""
        for side in ("attacker", "defender"):
            greyed = f"{side}s" in unread
            for row in self.unit_rows(side):
                if row.disabled != greyed:
                    row.disabled = greyed

    def combat_fields(self, values: dict[str, Any], problems: list[str]) -> dict[str, Any]:
        """The combat's fields from the form's values (its fields, and the units read), as
        the ruleset's form rule makes them; a value it cannot use adds to `problems` (and
        no combat is made)."""
        if not self.form_ruled:
            return values
        errors: list[InputError] = []
        fields = registry.get(self.ruleset).form_values(values, errors)
        problems += [typed_problem(err, self.field_label(err.field)) for err in errors]
        return fields

    def unit_rows(self, side: str) -> list[UnitRow]:
        """A side's unit rows, in order (found once, as the form's fields are: a keystroke
        reads every row; found again when rows were mounted or removed)."""
        box = self.form_field(f"#{side}s")
        if box is None:
            return []
        rows = self._unit_rows.get(side)
        if rows is None or len(rows) != len(box.children):
            rows = tuple(row for row in box.children if isinstance(row, UnitRow))
            self._unit_rows[side] = rows
        return list(rows)

    def read_units(self, side: str, problems: list[str]) -> tuple[Any, ...]:
        """A side's units, each row read by the kind of the side's field (a part that
        cannot be read is marked, and named in `problems`)."""
        kind = self.unit_inputs[0 if side == "attacker" else 1].kind
        assert isinstance(kind, Units), kind  # a side's units are a unit list's kind
        units = []
        for row in self.unit_rows(side):
            unit, errors = kind.read_row(row.label, row.parts(), row.placeholder)
            if errors:
                row.mark_invalid([part for part, err in errors if err.value is not None])
                problems += [typed_problem(err) for _, err in errors]
            else:
                row.mark_invalid(())
            if unit is not None:
                units.append(unit)
        return tuple(units)

    def select_value(self, selector: str) -> Any:
        """A choice's value, or None when it shows "-" (or is not on this screen)."""
        found = self.form_field(selector)
        if not isinstance(found, Cycle):
            return None
        value = found.value
        return None if value == "" else value

    def checked(self, selector: str) -> bool:
        """A checkbox's value (False when it is not on this screen)."""
        # Imported after the form's first frame, or when first shown (tests/desk/test_lazy_screens.py).
        from textual.widgets import Checkbox

        found = self.form_field(selector)
        return isinstance(found, Checkbox) and found.value

    # ------------------------------------------------------------------ units
    async def _add_unit(self, side: str) -> None:
        box = self.query_one(f"#{side}s", Vertical)
        row = self.make_unit_row(side, len(box.children) + 1)
        await box.mount(row)
        self.forget_fields()
        row.factor_input.focus()
        self.form_changed()

    async def action_add_attacker(self) -> None:
        await self._add_unit("attacker")

    async def action_add_defender(self) -> None:
        await self._add_unit("defender")

    async def action_remove_unit(self) -> None:
        """Remove the focused unit row (the last attacker if no row has focus). Awaited,
        so keys pressed quickly one after another never remove a side's last row."""
        row = next((w for w in self.focused_and_ancestors() if isinstance(w, UnitRow)), None)
        if row is None:
            row = self.unit_rows("attacker")[-1]
        box = row.parent
        assert isinstance(box, Vertical)
        if len(box.children) == 1:
            self.notify(
                "Every combat needs one unit on each side: clear the factor instead.",
                severity="warning",
            )
            return
        await row.remove()
        self.forget_fields()
        for number, unit in enumerate(box.query(UnitRow).results(UnitRow), start=1):
            unit.renumber(number)
        self.form_changed()
        box.query(".factor").last(Input).focus()

    def focused_and_ancestors(self) -> list[Widget]:
        """The focused widget and its ancestors, nearest first."""
        chain: list[Widget] = []
        node = self.focused
        while isinstance(node, Widget) and node is not self:
            chain.append(node)
            node = node.parent  # type: ignore[assignment]
        return chain

    # ------------------------------------------------------------------ rolling
    def action_roll(self) -> None:
        self.roll_flow(by_hand=False)

    def action_hand_dice(self) -> None:
        self.roll_flow(by_hand=True)

    def before_roll(self) -> None:
        """What a ruleset keeps before a roll is read (an option still being cycled)."""

    def refuse(self, problems: list[str] | tuple[str, ...]) -> None:
        self.notify("Fix the form first: " + "; ".join(problems), severity="error", markup=False)

    @work(exclusive=True, group="roll")
    async def roll_flow(self, by_hand: bool) -> None:
        """Read the form, roll (asking for hand dice where needed), show and record."""
        self.before_roll()
        combat = self.reading.combat
        if combat is None:
            self.refuse(self.reading.problems)
            return
        if self.session.read_only:
            # Refused before any die is shown: a roll seen and not logged is no roll.
            self.notify(f"Not rolled: {self.session.read_only}.", severity="error", markup=False)
            return
        try:
            played = await self.play(combat, by_hand)
        except InputError as err:
            self.refuse([err.message(self.field_label(err.field))])
            return
        if played is not None:
            self.show_outcome(*played)

    async def play(self, combat: CombatInput, by_hand: bool) -> tuple[CombatInput, Outcome] | None:
        """Resolve the combat by the ruleset's procedure, answering its questions: the
        desk's dice (or dice by hand), and a dialog for each choice. None if cancelled."""
        # Imported after the form's first frame, or when first shown (tests/desk/test_lazy_screens.py).
        from tui.engine.procedure import procedure
        from tui.engine.questions import DiceQuestion

        asked: list[Question] = []
        played = await self.answered(procedure(combat, self.tables), by_hand, asked)
        if played is None:
            return None
        dice_asked = any(isinstance(question, DiceQuestion) for question in asked)
        if by_hand and not dice_asked and not await self.confirm_no_dice(played[1]):
            return None
        return played

    async def answered(
        self,
        steps: Generator[Question, Any, T],
        by_hand: bool = False,
        asked: list[Question] | None = None,
    ) -> T | None:
        """One of the engine's procedures (a roll, a card after it, a Hero Site draw, a
        repair) driven to its end, each question answered here (`answer`); each question
        is noted in `asked`. None when the player cancelled one (Esc)."""
        try:
            question = next(steps)
            while True:
                if asked is not None:
                    asked.append(question)
                answer = await self.answer(question, by_hand)
                if answer is _CANCELLED:
                    steps.close()
                    return None
                question = steps.send(answer)
        except StopIteration as done:
            return done.value

    async def confirm_no_dice(self, outcome: Outcome) -> bool:
        """Dice by hand on a combat that reads none (AD, AV, an overrun): said, and logged
        only when the player confirms (the keys typed for a die go to this dialog)."""
        # Imported after the form's first frame, or when first shown (tests/desk/test_lazy_screens.py).
        from tui.desk.screens.dialogs import ChoiceScreen
        from tui.engine.combat import cell_text

        result = outcome.cell if outcome.cell is not None else outcome.odds
        question = (
            f"No die is read: this combat's result is {cell_text(result)} whatever "
            "the dice. Log it?"
        )
        choices = [("y", "yes, log the result", "yes"), ("n", "no, log nothing", "no")]
        return await self.app.push_screen_wait(ChoiceScreen(question, choices)) == "yes"

    async def answer(self, question: Question, by_hand: bool) -> Any:
        """One question of the procedure answered: dice rolled (or asked for), a choice, a
        number or a marker asked in a dialog. `_CANCELLED` when the player cancelled."""
        # Imported after the form's first frame, or when first shown (tests/desk/test_lazy_screens.py).
        from tui.desk.screens.dialogs import ChoiceScreen, NumberScreen
        from tui.engine.procedure import desk_dice, hand_dice
        from tui.engine.questions import ChoiceQuestion, DiceQuestion, MarkerQuestion

        if isinstance(question, DiceQuestion):
            if not by_hand:
                return desk_dice(question, self.desk.rng)
            dice = (question.dice, question.low, question.high)
            total = await self.ask_hand_roll(dice, question.prompt)
            return _CANCELLED if total is None else hand_dice(question, total)
        if isinstance(question, ChoiceQuestion):
            values = {option.key: option.value for option in question.options}
            choices = [(option.key, option.label, option.key) for option in question.options]
            key = await self.app.push_screen_wait(ChoiceScreen(question.prompt, choices))
            return _CANCELLED if key is None else values[key]
        if isinstance(question, MarkerQuestion):
            # Imported after the form's first frame, or when first shown (tests/desk/test_lazy_screens.py).
            from tui.desk.screens.markers import MarkerPickScreen

            picked = MarkerPickScreen(question.prompt, question.markers)
            marker_id = await self.app.push_screen_wait(picked)
            return _CANCELLED if marker_id is None else marker_id
        number = NumberScreen(question.prompt, question.empty)
        value = await self.app.push_screen_wait(number)
        return _CANCELLED if number.cancelled else value

    async def ask_hand_roll(self, dice: tuple[str, int, int], what: str = "") -> int | None:
        # Imported after the form's first frame, or when first shown (tests/desk/test_lazy_screens.py).
        from tui.desk.screens.dialogs import HandDiceScreen

        name, low, high = dice
        return await self.app.push_screen_wait(HandDiceScreen(name, low, high, what))

    def show_outcome(
        self,
        combat: CombatInput,
        outcome: Outcome,
        note: str | None = None,
        amends: int | None = None,
    ) -> None:
        """Show a roll and record it (in a worker); `amends` names the logged combat this one
        reads again (a card played after its roll)."""
        self.last_combat = combat
        self.last = outcome
        self.save_state = SaveState("saving")  # what F9 offers is this roll's, from now
        panel = self.result_panel
        panel.display = True
        panel.show(
            outcome,
            self.result_effects(outcome),
            offer=self.after_roll_hint(),
            head=self.result_head(outcome),
        )
        self.record(combat, outcome, note, amends)

    def result_head(self, outcome: Outcome) -> str:
        """The result panel's first row, where a ruleset words it itself ("": the roll, the
        column and the cell)."""
        return ""

    def result_effects(self, outcome: Outcome) -> str | None:
        """The result panel's lines under the cell, where a ruleset words them itself
        (None: the explanation and the dice)."""
        return None

    def record(
        self, combat: CombatInput, outcome: Outcome, note: str | None, amends: int | None = None
    ) -> None:
        """Log the roll through the session: a combat, or a card played after the roll of
        entry `amends`."""
        targets = self.marker_targets()
        target, by_side = targets.get("target"), targets.get("targets")
        self.save_state = SaveState("saving")
        # Written once the roll is drawn: the worker's thread would share the frame's time.
        drawn = threading.Event()
        self.after_panel_drawn(drawn.set)
        if amends is None:
            self.session.log_combat(
                combat,
                outcome,
                note=note,
                target=target,
                targets=by_side,
                done=self.recorded,
                after=drawn,
            )
        else:
            self.session.play_card(
                combat,
                outcome,
                amends=amends,
                note=note,
                target=target,
                targets=by_side,
                done=self.recorded,
                after=drawn,
            )

    def marker_targets(self) -> dict[str, Any]:
        """Where the markers a result places go: `target` (a hex), or `targets` (a place
        per side), as the session's `log_combat` takes them."""
        return {}

    def recorded(self, state: SaveState) -> None:
        self.save_state = state
        self.refresh_header()
        panel = self.result_panel
        if state.status == "failed":
            panel.saved(f"Not saved: {state.error}", failed=True)
            self.notify(f"Not saved: {state.error}", severity="error", markup=False, timeout=10)
        else:
            assert state.entry is not None
            panel.saved(self.logged_text(state.entry), offer=self.after_roll_hint())
            # Another desk's combat logged while this one was saved is the game's latest.
            self.show_latest()
            if state.entry.get("open_losses"):
                self.ask_losses(state.entry)
        # No refresh_bindings: no command's availability depends on a roll (it would
        # rebuild the footer, a layout of the whole screen, on every roll).

    @work(exclusive=True, group="losses")
    async def ask_losses(self, entry: dict[str, Any]) -> None:
        """The losses a combat left to their owner: a dialog for each, which logs the units
        chosen; Esc leaves it open, said so (`crtdesk units FILE take` settles it)."""
        # Imported after a roll that leaves a loss open: most combats never need it.
        from tui.desk.screens.losses import ask_for_losses

        await ask_for_losses(self, entry)

    def logged_text(self, entry: dict[str, Any]) -> str:
        """The result box's last line for a logged combat: its entry, and who logged it
        where another player did."""
        who = entry.get("who")
        by = f" by {one_line(who)}" if isinstance(who, str) and who != self.desk.player else ""
        return f"Logged as entry {entry.get('seq')}{by}"

    def latest_logged(self) -> dict[str, Any] | None:
        """The game's latest combat on this screen's ruleset, whichever desk logged it
        (a card played after a roll is the combat as it now stands); None before any."""
        game = self.session.game
        if game is None or not self.session.loaded:
            return None
        for entry in reversed(game.entries):
            if entry.get("kind") == "combat" and entry.get("ruleset") == self.ruleset:
                return entry
        return None

    def show_latest(self) -> None:
        """The result box shows the game's latest combat here, on every desk open on the
        save: another player's roll or card, read from the log, in place of what this desk
        rolled before it; and what may still be played after it."""
        if not self.prepared or self.save_state.status == "saving":
            return  # this desk's own roll is shown, and being logged
        entry = self.latest_logged()
        if entry is None:
            return
        shown = self.save_state.entry
        panel = self.result_panel
        if shown is None or shown.get("seq") != entry.get("seq"):
            # Imported after the form's first frame, or when first shown (tests/desk/test_lazy_screens.py).
            from tui.engine.combat import logged_roll

            try:
                combat, outcome = logged_roll(entry)
            except InputError:
                return  # a hand-edited combat the engine cannot read: the log shows it
            self.last_combat, self.last = combat, outcome
            self.save_state = SaveState("saved", entry=entry)
            panel.display = True
            effects = self.result_effects(outcome)
            panel.show(outcome, effects, head=self.result_head(outcome))
        # The same combat: what may be played after it may have changed (a card played
        # from the other desk, a turn begun).
        panel.saved(self.logged_text(entry), offer=self.after_roll_hint())

    def entries_applied(self, entries: list[dict[str, Any]]) -> None:
        self.read_units_state()
        self.show_latest()

    def game_was_read(self) -> None:
        super().game_was_read()
        self.read_units_state()
        # Each after a frame of its own: together they held the desk's loop past a frame
        # as a long save was opened (the box shown, the form filled, each laid out).
        self.call_after_refresh(self.show_latest)
        self.call_after_refresh(self.call_after_refresh, self.restore_form)

    # ------------------------------------------------------------------ opened again
    def restore_form(self) -> None:
        """A game opened again shows the form as its last combat on this screen left it
        (the inputs are in the log), once, and only over a form nothing was typed in."""
        if self.restored or not self.prepared or not self.session.loaded:
            return
        self.restored = True
        rows = [*self.unit_rows("attacker"), *self.unit_rows("defender")]
        if any(row.factor_text.strip() for row in rows):
            return
        game = self.session.game
        assert game is not None
        for entry in reversed(game.entries):
            # The combat as rolled: a card played after the roll is not a form's choice.
            if (
                entry.get("kind") == "combat"
                and entry.get("ruleset") == self.ruleset
                and entry.get("amends") is None
            ):
                break
        else:
            return
        # Imported after the form's first frame, or when first shown (tests/desk/test_lazy_screens.py).
        from tui.engine.combat import logged_roll

        try:
            combat, _ = logged_roll(entry)
        except InputError:
            return  # a hand-edited combat: the form starts empty
        self.fill_form(combat)

    @work(exclusive=True, group="fill")
    async def fill_form(self, combat: CombatInput) -> None:
        """Show a logged combat in the form: its units (rows added as needed) and each of
        the form's fields."""
        # Imported after the form's first frame, or when first shown (tests/desk/test_lazy_screens.py).
        from textual.widgets import Checkbox

        # Imported after the form's first frame, or when first shown (tests/desk/test_lazy_screens.py).
        from tui.desk.widgets.combat import set_choice
        from tui.desk.widgets.ticks import Tick

        rows_by_side = {}
        for side in ("attacker", "defender"):
            units = self.logged_units(combat, side)
            box = self.query_one(f"#{side}s", Vertical)
            rows = self.unit_rows(side)
            for number in range(len(rows) + 1, len(units) + 1):
                row = self.make_unit_row(side, number)
                await box.mount(row)
                rows.append(row)
            rows_by_side[side] = zip(rows, units, strict=False)
        self.forget_fields()
        # Read once, when every field is filled (not once a field, as typing reads it).
        self.filling = True
        try:
            with self.prevent(Input.Changed, Cycle.Changed, Checkbox.Changed):
                for pairs in rows_by_side.values():
                    for row, unit in pairs:
                        row.fill(unit)
                for found in self.form_inputs:
                    value = self.logged_value(combat, found)
                    widget = self.form_field(f"#{found.widget_id}")
                    if isinstance(widget, Cycle):
                        set_choice(widget, "" if value is None else value)
                    elif isinstance(widget, Tick):
                        widget.value = bool(value)
                    elif isinstance(widget, Input):
                        widget.value = "" if value in (None, 0) else str(value)
        finally:
            self.filling = False
        if combat == self.last_combat:
            # The combat the last roll's box shows (a game opened again): the box stays as
            # it is, not "form changed since".
            self.reading = self.read_form()
        else:
            self.form_changed()

    def logged_units(self, combat: CombatInput, side: str) -> tuple[Any, ...]:
        """A side's units as the form shows them, from a logged combat."""
        return combat.attackers if side == "attacker" else combat.defenders

    def logged_value(self, combat: CombatInput, found: SchemaField) -> Any:
        """A form field's value in a logged combat."""
        return getattr(combat, found.name, None)

    def on_screen_resume(self) -> None:
        # Entries logged while another screen was shown (this screen heard nothing).
        self.show_latest()

    def after_roll_hint(self) -> str:
        """A line under the last roll naming what may be played after it once it is saved
        (shown from the roll on, so the result panel does not grow when it is saved)."""
        return ""

    def action_trace(self) -> None:
        # Imported after the form's first frame, or when first shown (tests/desk/test_lazy_screens.py).
        from tui.desk.screens.dialogs import TraceScreen

        if self.last is None:
            self.notify("No roll yet: ctrl+r rolls, ctrl+t takes dice rolled by hand.")
            return
        self.app.push_screen(TraceScreen(self.last, self.save_state.entry))

    @work(exclusive=True, group="note")
    async def action_note(self) -> None:
        """Annotate the last roll logged: the note is a new entry naming it."""
        # Imported after the form's first frame, or when first shown (tests/desk/test_lazy_screens.py).
        from tui.desk.screens.dialogs import NoteScreen

        entry = self.save_state.entry if self.save_state.status == "saved" else None
        if entry is None:
            self.notify("No roll logged yet: F12 notes the last roll once it is saved.")
            return
        seq = entry["seq"]
        text = await self.app.push_screen_wait(NoteScreen(f"entry {seq}, the last roll logged"))
        if not text:
            return

        def done(state: SaveState) -> None:
            if state.status == "failed":
                self.notify(f"Not saved: {state.error}", severity="error", markup=False)
            else:
                noted = state.entry.get("seq") if state.entry else "?"
                self.notify(f"Note on entry {seq} logged as entry {noted}.", markup=False)

        self.session.note(seq, text, done=done)
