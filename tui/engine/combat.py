"""The engine's front door: the resolve/distribution calls that dispatch to one resolver
per ruleset family. The combat data (CombatInput, Unit, Outcome, Distribution, plain,
cell_text) live in tui.engine.model and are re-exported here."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import tui.engine.registry as registry
from tui.engine.cells import cell_text, plain
from tui.engine.dice import DiceRoll, Roller
from tui.engine.errors import InputError
from tui.engine.model import CombatInput, Distribution, Outcome, Unit
from tui.engine.rulesets.common import enumerated_distribution
from tui.engine.schema import Field, check_read, combat_from_logged
from tui.engine.tables import Tables, default_tables

__all__ = [
    "CombatInput",
    "Distribution",
    "Outcome",
    "Unit",
    "cell_text",
    "check_inputs",
    "check_limits",
    "check_ruleset",
    "distribution",
    "logged_roll",
    "plain",
    "resolve",
    "resolve_with",
]


def check_ruleset(ruleset: object) -> None:
    """Refuse a ruleset id the registry does not know, naming those it does."""
    registry.get(ruleset)


def check_inputs(combat: CombatInput) -> None:
    """Refuse inputs the ruleset does not read, so nothing typed is silently ignored."""
    ruleset = registry.get(combat.ruleset)
    check_read(combat, ruleset.logged_fields(), registry.readers)
    for side, units in (("attack", combat.attackers), ("defense", combat.defenders)):
        for unit in units:
            for key in _UNIT_KEYS:
                value = getattr(unit, key)
                if value is None or key in ruleset.unit_keys:
                    continue
                if key == "terrain":
                    readers = ", ".join(r.id for r in registry.rulesets() if key in r.unit_keys)
                    allowed = f"a plain factor in {ruleset.id} (N@terrain is {readers} only)"
                    raise InputError(side, f"{unit.factor}@{value}", allowed)
                readers = ", ".join(r.id for r in registry.rulesets() if key in r.unit_keys)
                raise InputError(f"{side} {key}", value, f"nothing: only {readers} reads it")
    ruleset.check_inputs(combat)


# What a unit may hold beyond its factor: a ruleset reads those in its `unit_keys`. Its
# name is not among them: every ruleset's units may be named (a game's order of battle).
_UNIT_KEYS = ("terrain", "steps", "ar", "kind", "supply", "re", "stocks")


def check_limits(combat: CombatInput, tables: Tables) -> None:
    """Refuse a number beyond what a game could reach (each field's range in the ruleset's
    fields, read from tables.toml), naming the allowed range."""
    registry.get(combat.ruleset).check_limits(combat, tables)


def load_ruleset(ruleset: str) -> None:
    """Import `ruleset`'s rules now rather than at its first combat."""
    registry.get(ruleset).load()


def combat_from_inputs(
    inputs: Mapping[str, Any], keep: Callable[[Field], bool] | None = None
) -> CombatInput:
    """A logged combat's `inputs` as the CombatInput again (schema.combat_from_logged, read
    by its ruleset's logged fields). Raises InputError for a ruleset not known or a key it
    does not read."""
    ruleset_id = inputs.get("ruleset")
    if not registry.known(ruleset_id):
        raise InputError(
            "inputs", ruleset_id, "the combat's ruleset: one of " + ", ".join(registry.ids())
        )
    ruleset = registry.get(ruleset_id)
    return combat_from_logged(ruleset.id, ruleset.logged_fields(), inputs, keep)


def resolve(
    combat: CombatInput,
    tables: Tables | None = None,
    rng: random.Random | None = None,
) -> Outcome:
    """Resolve one combat. Dice not entered by hand are rolled with `rng`; a choice the
    result leaves open stays open (tui.engine.procedure asks for it)."""
    return resolve_with(combat, tables or default_tables(), Roller(rng))


def resolve_with(combat: CombatInput, tables: Tables, roller: Roller) -> Outcome:
    """Resolve one combat with `roller`'s dice."""
    check_inputs(combat)
    check_limits(combat, tables)
    outcome = registry.get(combat.ruleset).resolve(combat, tables, roller)
    outcome.dice = list(roller.rolls)
    outcome.inputs = combat.to_dict()
    return outcome


def logged_roll(entry: Mapping[str, Any]) -> tuple[CombatInput, Outcome]:
    """A logged combat entry as its combat and the outcome it was logged with (the dice as
    they came): what a card after its roll reads again, and what a desk shows of a combat
    logged by another, on any desk on the save. Raises InputError for inputs no ruleset
    reads (a hand-edited entry)."""
    combat = combat_from_inputs(entry.get("inputs", {}))
    outcome = Outcome(
        ruleset=combat.ruleset,
        attack_total=entry.get("attack_total"),
        defense_total=entry.get("defense_total"),
        odds=entry.get("odds"),
        column=entry.get("column"),
        roll=entry.get("roll"),
        cell=entry.get("cell"),
        effects=dict(entry.get("effects") or {}),
        explanation=entry.get("explanation", ""),
        trace=list(entry.get("trace") or []),
        dice=[DiceRoll.from_dict(die) for die in entry.get("dice") or []],
        inputs=dict(entry.get("inputs") or {}),
        odds_column=entry.get("odds_column"),
        ratio=entry.get("ratio"),
    )
    return combat, outcome


def distribution(combat: CombatInput, tables: Tables | None = None) -> Distribution:
    """The exact distribution of cells over every die not entered by hand."""
    check_inputs(combat)
    tables = tables or default_tables()
    check_limits(combat, tables)
    return checked_distribution(combat, tables)


def checked_distribution(
    combat: CombatInput, tables: Tables, first: Outcome | None = None
) -> Distribution:
    """`distribution` of a combat its checks (`check_inputs`, `check_limits`) have passed
    already: a preview's, whose first probe resolved the same combat through them. `first`,
    where given, is that probe (the combat resolved with `random.Random(0)`'s dice), which
    a ruleset may read its odds from rather than read them again."""
    ruleset = registry.get(combat.ruleset)
    own = ruleset.distribution(combat, tables, first)
    if own is not None:
        return own
    resolver = ruleset.resolve
    return enumerated_distribution(combat, lambda roller: resolver(combat, tables, roller))
