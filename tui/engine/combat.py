"""The engine's front door: the resolve/distribution calls that dispatch to one resolver
per ruleset family. The combat data (CombatInput, Unit, Outcome, Distribution, plain,
cell_text) live in tui.engine.model and are re-exported here."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from dataclasses import replace
from fractions import Fraction
from importlib import import_module
from typing import Any

from tui.engine.cells import cell_text, plain
from tui.engine.dice import DiceRoll, Roller, enumerate_dice
from tui.engine.errors import InputError
from tui.engine.model import CombatInput, Distribution, Outcome, Unit
from tui.engine.odds import label_ratio
from tui.engine.schema import (
    check_ranges,
    check_read,
    combat_from_inputs,
    range_errors,
    schema,
)
from tui.engine.tables import RULESET_IDS, Tables, default_tables

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
    "play_after_roll",
    "plain",
    "resolve",
    "resolve_with",
]


Resolver = Callable[[CombatInput, Tables, Roller], Outcome]


# The module of each ruleset's resolver, imported when that ruleset is first resolved: the
# desk opened on one ruleset loads only its own.
_RESOLVER_MODULES = {
    "pod-basic": "pod",
    "pod-super": "pod",
    "pod-ultra": "pod",
    "pod-boom": "boom",
    "ocs": "ocs",
    "rivets": "rivets",
    "daynight": "daynight",
}


def _ruleset_module(ruleset: str) -> Any:
    if ruleset.startswith("game:"):  # a player's chart (tui.engine.rulesets.charts.chart)
        return import_module("tui.engine.rulesets.charts.player")
    return import_module(f"tui.engine.rulesets.{_RESOLVER_MODULES[ruleset]}")


def load_ruleset(ruleset: str) -> None:
    """Import `ruleset`'s resolver now rather than at its first combat."""
    _ruleset_module(ruleset)


def _resolver(ruleset: str) -> Resolver:
    return _ruleset_module(ruleset).resolve


def form_unread(ruleset: str, values: Mapping[str, Any]) -> frozenset[str]:
    """The inputs a desk form does not read with these `values` (its fields and units by
    name), as its ruleset's form rule says (an Ultra obstacle is the whole defence; Big
    Boom's batteries and ships meet no AA). A ruleset with no form rule reads them all."""
    rule = getattr(_ruleset_module(ruleset), "form_unread", None)
    return rule(values) if rule is not None else frozenset()


def form_values(ruleset: str, values: dict[str, Any], errors: list[InputError]) -> dict[str, Any]:
    """A desk form's values as the combat reads them: what the ruleset's form rule makes of
    them (Big Boom: the AA total, and the long-range bonus from the range and distance),
    without those it leaves unread or the desk form's own; a value the rule cannot use
    adds to `errors`."""
    unread = form_unread(ruleset, values)
    rule = getattr(_ruleset_module(ruleset), "form_values", None)
    if rule is not None:
        values = rule(values, errors)
    desk_only = {found.name for found in schema(ruleset) if not found.on_combat}
    return {k: v for k, v in values.items() if k not in unread and k not in desk_only}


def check_ruleset(ruleset: str) -> None:
    if isinstance(ruleset, str) and ruleset.startswith("game:"):
        from tui.engine.rulesets.charts.chart import known

        known(ruleset)
        return
    if ruleset not in RULESET_IDS:
        raise InputError(
            "ruleset", ruleset, "one of " + ", ".join(RULESET_IDS), choices=RULESET_IDS
        )


_POD = ("pod-basic", "pod-super", "pod-ultra")
# What only an OCS counter says about a unit (name, steps, AR, type, supply, RE, stocks).
_OCS_UNIT = ("name", "steps", "ar", "kind", "supply", "re", "stocks")


def check_inputs(combat: CombatInput) -> None:
    """Refuse inputs the ruleset does not read, so nothing typed is silently ignored."""
    ruleset = combat.ruleset
    if ruleset.startswith("game:"):
        from tui.engine.rulesets.charts.chart import known
        from tui.engine.rulesets.charts.player import check_inputs as check_chart_inputs

        check_chart_inputs(combat, known(ruleset))
        return
    check_read(combat)
    if ruleset == "pod-boom" and combat.defenders:
        first = combat.defenders[0].factor
        raise InputError("defense", first, "nothing in pod-boom: the CAF picks the column")
    if ruleset != "ocs":
        for name, units in (("attack", combat.attackers), ("defense", combat.defenders)):
            for unit in units:
                for key in _OCS_UNIT:
                    if getattr(unit, key) is not None:
                        raise InputError(
                            f"{name} {key}", getattr(unit, key), "nothing: only ocs reads it"
                        )
    if ruleset not in _POD:
        for name, units in (("attack", combat.attackers), ("defense", combat.defenders)):
            for unit in units:
                if unit.terrain is not None:
                    allowed = f"a plain factor in {ruleset} (N@terrain is pod-super/pod-ultra only)"
                    raise InputError(name, f"{unit.factor}@{unit.terrain}", allowed)


def check_limits(combat: CombatInput, tables: Tables) -> None:
    """Refuse a number beyond what a game could reach (each field's range in the ruleset's
    schema, read from tables.toml), naming the allowed range."""
    if combat.ruleset.startswith("game:"):
        _check_factors(combat, tables)
        return
    check_ranges(combat, tables)


def _check_factors(combat: CombatInput, tables: Tables) -> None:
    """A player's chart: each factor within the desk's limit, as the unit lists' kind
    checks it (its modifiers check themselves)."""
    units = {"attackers": combat.attackers, "defenders": combat.defenders}
    errors = range_errors(combat.ruleset, units, tables)
    if errors:
        raise errors[0]


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
    check_ruleset(combat.ruleset)
    check_inputs(combat)
    check_limits(combat, tables)
    outcome = _resolver(combat.ruleset)(combat, tables, roller)
    outcome.dice = list(roller.rolls)
    outcome.inputs = combat.to_dict()
    return outcome


def play_after_roll(
    combat: CombatInput, outcome: Outcome, side: str, tables: Tables
) -> tuple[CombatInput, Outcome]:
    """The roll read again with the card `side` may play after it (`after_roll_card`): the
    same roll on the same chart, and the same dice as they came. Raises InputError when
    the side has no such card."""
    from tui.engine.rulesets.pod import after_roll_card

    card = after_roll_card(combat, outcome, tables, side)
    if card is None:
        raise InputError(f"{side}_card", None, "a card the side may still play after the roll")
    amended = replace(combat, **{f"{side}_card": card}, roll=int(outcome.roll or 0))
    again = resolve(amended, tables)
    again.dice = list(outcome.dice)
    return amended, again


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


def _column_order(label: str | None) -> tuple[int, Fraction]:
    """Columns left to right by the ratio or number they print; no column last."""
    if label is None:
        return 1, Fraction(0)
    try:
        return 0, label_ratio(label)
    except ValueError:
        return 0, Fraction(int(label)) if label.isdigit() else Fraction(0)


def distribution(combat: CombatInput, tables: Tables | None = None) -> Distribution:
    """The exact distribution of cells over every die not entered by hand."""
    check_ruleset(combat.ruleset)
    check_inputs(combat)
    tables = tables or default_tables()
    check_limits(combat, tables)
    if combat.ruleset == "ocs" and (combat.surprise_roll, combat.shift_roll, combat.roll) == (
        None,
        None,
        None,
    ):
        return _ruleset_module("ocs").distribution(combat, tables)
    resolver = _resolver(combat.ruleset)
    if combat.ruleset == "pod-boom" and combat.step is None:
        # The whole Big Boom chain, folded: one read first refuses what the chain refuses.
        resolver(combat, tables, Roller(random.Random(0)))
        return _ruleset_module("pod-boom").chain_distribution(combat, tables)
    merged: dict[str, list[Any]] = {}
    first: Outcome | None = None
    columns: dict[str | None, None] = {}  # every column read, in the order first met
    for outcome, chance in enumerate_dice(lambda roller: resolver(combat, tables, roller)):
        first = first or outcome
        columns[outcome.odds_column] = None
        key = json.dumps(plain(outcome.cell))
        if key in merged:
            merged[key][1] += chance
        else:
            merged[key] = [
                outcome.cell,
                chance,
                outcome.effects.get("cell_summary") or outcome.explanation,
                outcome.effects,
            ]
    assert first is not None
    return Distribution(
        ruleset=combat.ruleset,
        odds=first.odds,
        ratio=first.ratio,
        # One column only when every outcome is read on it (not a Big Boom chain, whose
        # accuracy die decides the CAF that hits and so the column).
        column=first.odds_column if len(columns) == 1 else None,
        columns=tuple(sorted(columns, key=_column_order)),
        outcomes=tuple((cell, p, meaning) for cell, p, meaning, _ in merged.values()),
        details=tuple(effects for *_, effects in merged.values()),
        inputs=combat.to_dict(),
    )
