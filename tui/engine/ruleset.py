"""A ruleset: one object per game that the whole program asks.

The desk's form, the CLI's flags, the check of a combat's inputs, resolving it, its exact
chances, the procedure's questions after the dice, the printed chart, luck's ranking and
the save store's check of a logged combat all ask the game's `Ruleset`, found by its id in
the one registry (`tui.engine.registry`). A built-in ruleset is declared in its folder under
`tui.engine.rulesets`; a player's chart is a `Ruleset` made from its file
(`tui.engine.rulesets.charts.ruleset`). A ruleset is asked, never switched on by its id.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from tui.engine.errors import InputError
from tui.engine.schema import Field, range_errors
from tui.engine.tables import Tables
from tui.engine.text import grid_json, grid_text

# The combat model and the dice are imported by what resolves a combat: the desk's start
# screen lists the games, and draws a ruleset's empty form, from the registry alone.
if TYPE_CHECKING:
    from tui.engine.dice import Roller
    from tui.engine.model import CombatInput, Distribution, Outcome

# The desk's screen of a ruleset that draws none of its own: the form made from its fields.
FORM_SCREEN = "tui.desk.screens.game:FormScreen"

# The procedure's question after the dice are read (an OCS option, a Day/Night reserve):
# asker(combat, outcome, roller, asked) -> a question, or None when nothing is left to ask.
Asker = Callable[..., Any]


class Ruleset:
    """One game's rules, as the program asks for them. Subclass it (or make one) and give it
    to `tui.engine.registry.register`; every default below reads `tables.toml` under the
    ruleset's id and resolves with the module named by `rules`."""

    #: The id a save, the CLI and the log call it by ("pod-basic", "ocs").
    id: str = ""
    #: Its name on the desk's strip of ruleset keys, the Footer and the start screen.
    short: str = ""
    #: Its inputs, in the desk form's order (`tui.engine.schema.Field`).
    fields: tuple[Field, ...] = ()
    #: The module that resolves it (a `resolve(combat, tables, roller)` function), imported
    #: at its first combat: the desk opened on one ruleset loads only its own rules.
    rules: str = ""
    #: Its desk screen, as "module:Class" (imported when the screen is first shown): the
    #: form made from its fields unless the ruleset draws its own.
    screen: str = FORM_SCREEN
    #: The group its own flags are listed under in the CLI's --help.
    cli_group: str = ""
    #: Rulesets that share one chart and most flags ("pod-basic/super/ultra" in --help).
    family: str = ""
    #: What a unit reads beyond its factor (Unit's other fields: "terrain", "steps", ...).
    unit_keys: tuple[str, ...] = ()
    #: The per-unit fields of its order of battle (tui.engine.units.RECORD_FIELDS); empty:
    #: a factor, and steps where its results count steps.
    roster: tuple[str, ...] = ()
    #: The marker kinds its screen lists (None: every marker in play).
    markers: frozenset[str] | None = None

    def __init__(self, **given: Any) -> None:
        for key, value in given.items():
            if not hasattr(type(self), key):
                raise TypeError(f"Ruleset has no attribute {key!r}")
            setattr(self, key, value)
        if not self.id:
            raise TypeError("a Ruleset needs an id")

    def __repr__(self) -> str:
        return f"<Ruleset {self.id}>"

    # --- what the desk and the CLI show -------------------------------------------------

    def title(self, tables: Tables) -> str:
        """Its title: a built-in's from tables.toml (its section under its id)."""
        return tables.title(self.id)

    def dice(self, tables: Tables) -> str:
        """The result dice, as "2d6": a built-in's from tables.toml."""
        return str(tables.data[self.id]["dice"])

    def rulings(self, tables: Tables) -> tuple[str, ...]:
        """How the desk reads what its seed leaves open (`../RULINGS`), for its help."""
        section = tables.data.get(self.id, {})
        return tuple(section.get("rulings", ()))

    def losses(self, tables: Tables) -> str:
        """What its losses count: "factors" or "steps"."""
        return tables.losses_in(self.id)

    @property
    def cli_name(self) -> str:
        """How a command line names it (`crtdesk resolve NAME`): its id."""
        return self.id

    @property
    def chart_copy(self) -> str | None:
        """The text a save keeps of the ruleset's chart (a player's chart), else None."""
        return None

    def chart_json(self, tables: Tables) -> dict[str, Any]:
        """The ruleset's charts in the shapes the CLI contract names (`crtdesk table --json`)."""
        return grid_json(tables.chart(f"{self.id}.crt"))

    def chart_text(self, tables: Tables) -> str:
        """The ruleset's charts and legend as printed text."""
        shape = self.chart_json(tables)
        return grid_text(self.title(tables), shape, tables.legends.get(self.id, ()))

    # --- inputs ------------------------------------------------------------------------

    @property
    def flags(self) -> tuple[Field, ...]:
        """Its inputs as CLI flags (its fields but the desk form's own, for most rulesets)."""
        return tuple(f for f in self.fields if f.on_combat)

    @property
    def unit_fields(self) -> tuple[Field, Field]:
        """The attackers' and the defenders' fields, as the desk's unit rows read them."""
        found = {f.name: f for f in self.fields}
        return found["attackers"], found["defenders"]

    def field(self, name: str) -> Field | None:
        """The field an engine message names, by its name or an alias."""
        for found in self.fields:
            if name == found.name or name in found.aliases:
                return found
        return None

    def logged_fields(self) -> tuple[Field, ...]:
        """The fields a logged combat's `inputs` holds (its fields but the desk form's own,
        for most rulesets)."""
        return tuple(f for f in self.fields if f.on_combat)

    def check_inputs(self, combat: CombatInput) -> None:
        """Refuse what the ruleset does not take beyond its fields (the engine's front door
        has already refused every input it does not read)."""

    def check_limits(self, combat: CombatInput, tables: Tables) -> None:
        """Refuse a number beyond what a game could reach, naming the allowed range."""
        values = {found.name: getattr(combat, found.name, None) for found in self.fields}
        errors = range_errors(self.fields, values, tables)
        if errors:
            raise errors[0]

    def check_added(self, more: CombatInput, tables: Tables) -> None:
        """Refuse `more` as tui.engine.combat.check_inputs and `check_limits` would, where
        it is a combat both have passed with attackers added like its last (the next
        column's probes): only what the added attackers change is checked again, the
        ruleset's own check and the attackers' limits (a ruleset that checks its limits
        its own way says so here too)."""
        self.check_inputs(more)
        attackers = tuple(f for f in self.fields if f.name == "attackers")
        errors = range_errors(attackers, {"attackers": more.attackers}, tables)
        if errors:
            raise errors[0]

    def form_unread(self, values: Mapping[str, Any]) -> frozenset[str]:
        """The inputs a desk form does not read with these `values` (its fields and units by
        name): the rules module's `form_unread`, where it has one (an Ultra obstacle is the
        whole defence; Big Boom's batteries and ships meet no AA); else none."""
        rule = self._rule("form_unread")
        return frozenset(rule(values)) if rule else frozenset()

    def form_values(self, values: dict[str, Any], errors: list[InputError]) -> dict[str, Any]:
        """A desk form's values as the combat reads them: what the rules module's
        `form_values` makes of them, where it has one (Big Boom: the AA total, and the
        long-range bonus from the range and the distance), without those the form leaves
        unread or the desk form's own; a value the rule cannot use adds to `errors`."""
        unread = self.form_unread(values)
        rule = self._rule("form_values")
        if rule:
            values = rule(values, errors)
        desk_only = {f.name for f in self.fields if not f.on_combat}
        return {k: v for k, v in values.items() if k not in unread and k not in desk_only}

    # --- resolving ---------------------------------------------------------------------

    def rules_module(self) -> ModuleType:
        """The module named by `rules`, imported now (TypeError: the ruleset names none, and
        must then answer `resolve` itself)."""
        if not self.rules:
            raise TypeError(f"{self.id}: no rules module; the ruleset resolves itself")
        # Once imported, found where import_module would find it (asked on every probe).
        return sys.modules.get(self.rules) or import_module(self.rules)

    def load(self) -> None:
        """Import what resolving needs now rather than at the first combat."""
        if self.rules:
            self.rules_module()

    def resolve(self, combat: CombatInput, tables: Tables, roller: Roller) -> Outcome:
        outcome: Outcome = self.rules_module().resolve(combat, tables, roller)
        return outcome

    def column(self, combat: CombatInput, tables: Tables, roller: Roller) -> str | None:
        """The column `combat`'s result is read on with `roller`'s dice (after every shift),
        or its odds where it reads no column (an automatic result), its inputs checked
        (tui.engine.combat.check_inputs, check_limits). The rules module's `column`, which
        reads it as its resolve does, where it has one and says it answers for this combat
        (`column_alone`: no input its result read could refuse); else the combat resolved
        whole. Raises InputError as resolving it would."""
        alone = self._rule("column")
        answers = self._rule("column_alone")
        if alone is not None and answers is not None and answers(combat):
            found: str | None = alone(combat, tables, roller)
            return found
        outcome = self.resolve(combat, tables, roller)
        return outcome.column or outcome.odds

    def reads_before_dice(self, combat: CombatInput) -> bool:
        """Whether `read_before_dice` answers for `combat`: the rules module has it, and
        says its result read could refuse nothing (`column_alone`); else a preview's first
        probe resolves the combat whole."""
        answers = self._rule("column_alone")
        return (
            answers is not None
            and self._rule("read_before_dice") is not None
            and bool(answers(combat))
        )

    def read_before_dice(self, combat: CombatInput, tables: Tables) -> Outcome:
        """`combat` read with `random.Random(0)`'s dice up to its result dice, as an Outcome
        with no roll, cell, explanation or trace: the rules module's `read_before_dice`
        (where `reads_before_dice`). Its inputs are not checked here
        (tui.engine.combat.check_inputs, check_limits). Raises InputError as resolving it
        would."""
        read = self._rule("read_before_dice")
        assert read is not None, self.id
        found: Outcome = read(combat, tables)
        return found

    def column_guesses(
        self, combat: CombatInput, first: Outcome, tables: Tables
    ) -> tuple[int, ...]:
        """Attacks worth adding first in the search for the next column (the preview's
        `next_column`), least first: the rules module's `column_guesses` (the least attack
        added that reaches each column's ratio), where it has one; else none. Only guesses:
        the search checks each one by probing it, and one factor less."""
        guesses = self._rule("column_guesses")
        return tuple(guesses(combat, first, tables)) if guesses else ()

    def distribution(
        self, combat: CombatInput, tables: Tables, first: Outcome | None = None
    ) -> Distribution | None:
        """The exact chances worked out by the ruleset itself, or None: every die is
        enumerated through `resolve` (tui.engine.combat.distribution). `first`, where given,
        is `combat` resolved with `random.Random(0)`'s dice (a preview's first probe)."""
        return None

    def asker(self) -> Asker | None:
        """What the procedure asks once the dice are read (choices, numbers), or None: the
        rules module's `ask`, where it has one."""
        ask: Asker | None = getattr(self.rules_module(), "ask", None) if self.rules else None
        return ask

    # --- after the roll ----------------------------------------------------------------

    def after_roll_offers(
        self, combat: CombatInput, outcome: Outcome, tables: Tables
    ) -> dict[str, str]:
        """Side -> the card it may still play after this roll (the Joker, Stanfill): the
        rules module's `after_roll_offers`, where it has one; else none."""
        offers = self._rule("after_roll_offers")
        return dict(offers(combat, outcome, tables)) if offers else {}

    def card_given_after_roll(self, combat: CombatInput, tables: Tables) -> str | None:
        """The side whose card in `combat`'s inputs (a CLI flag) is one played after the
        roll (the rules module's `card_given_after_roll`), or None."""
        given = self._rule("card_given_after_roll")
        side: str | None = given(combat, tables) if given else None
        return side

    def as_rolled(self, combat: CombatInput, tables: Tables) -> CombatInput:
        """The combat as its dice were rolled, without any card played after the roll (the
        rules module's `as_rolled`, where it has one): what luck judges."""
        rolled = self._rule("as_rolled")
        found: CombatInput = rolled(combat, tables) if rolled else combat
        return found

    def card_closed(
        self, combat: Mapping[str, Any], later: Iterable[Mapping[str, Any]]
    ) -> str | None:
        """Why no card may be played after the roll of the logged `combat` any more, given
        the entries logged after it (the rules module's `after_roll_closed`), or None when
        one still may. A ruleset with no such cards refuses every one."""
        closed = self._rule("after_roll_closed")
        if closed is None:
            return f"{self.id} plays no card after the roll"
        said: str | None = closed(combat, later)
        return said

    def _rule(self, name: str) -> Callable[..., Any] | None:
        """A function of the rules module, where it has one."""
        found: Callable[..., Any] | None = (
            getattr(self.rules_module(), name, None) if self.rules else None
        )
        return found

    # --- luck --------------------------------------------------------------------------

    def rank(self, cell: Any, effects: Mapping[str, Any]) -> tuple[float, ...] | None:
        """How good a result is for the attacker when the ruleset orders its own results
        (a larger rank is better), or None: luck compares losses and retreats."""
        return None

    def same_chances(self, combat: CombatInput, entry: Mapping[str, Any]) -> CombatInput:
        """A combat with the same exact distribution, cheaper to share between combats."""
        return combat


def relabelled(fields: tuple[Field, ...], **changes: Mapping[str, Any]) -> tuple[Field, ...]:
    """`fields` with some worded the ruleset's own way: relabelled(f, roll={"label": ...})."""
    return tuple(replace(f, **changes[f.name]) if f.name in changes else f for f in fields)


def unknown(ruleset: object, ids: tuple[str, ...]) -> InputError:
    return InputError("ruleset", ruleset, "one of " + ", ".join(ids), choices=list(ids))
