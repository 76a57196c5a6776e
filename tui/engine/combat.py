"""The engine's front door: the resolve/distribution calls that dispatch to one resolver
per ruleset family. The combat data (CombatInput, Unit, Outcome, Distribution, plain,
cell_text) live in tui.engine.model and are re-exported here."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from fractions import Fraction
from importlib import import_module
from typing import Any

from tui.engine.cells import cell_text, plain
from tui.engine.dice import Roller, enumerate_dice
from tui.engine.errors import InputError
from tui.engine.model import CombatInput, Distribution, Outcome, Unit
from tui.engine.odds import label_ratio
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
    "plain",
    "resolve",
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
    return import_module(f"tui.engine.rulesets.{_RESOLVER_MODULES[ruleset]}")


def load_ruleset(ruleset: str) -> None:
    """Import `ruleset`'s resolver now rather than at its first combat."""
    _ruleset_module(ruleset)


def _resolver(ruleset: str) -> Resolver:
    return _ruleset_module(ruleset).resolve


def check_ruleset(ruleset: str) -> None:
    if ruleset not in RULESET_IDS:
        raise InputError("ruleset", ruleset, "one of " + ", ".join(RULESET_IDS))


_POD = ("pod-basic", "pod-super", "pod-ultra")
_POD_ONLY = (
    "attacker_card",
    "defender_card",
    "buddy",
    "medal",
    "morale_attack",
    "morale_defense",
    "obstacle",
    "mines_cdf",
)
_OCS_ONLY = (
    "attacker_ar",
    "defender_ar",
    "hedgehog",
    "overrun",
    "surprise_roll",
    "shift_roll",
    "defender_unsupplied",
    "attacker_ar_unit",
    "defender_ar_unit",
    "attack_hexes",
    "nonadjacent_hexsides",
    "attacker_option_retreat",
    "defender_option_retreat",
    "defender_ignores_options",
)
# What only an OCS counter says about a unit (name, steps, AR, type, supply, RE, stocks).
_OCS_UNIT = ("name", "steps", "ar", "kind", "supply", "re", "stocks")
# Inputs only some rulesets read: anything else set is refused, never silently ignored.
_READ_BY: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(_POD_ONLY, _POD),
    **dict.fromkeys(("step", "aaf", "caf", "long_range"), ("pod-boom",)),
    **dict.fromkeys(_OCS_ONLY, ("ocs",)),
    "terrain": ("ocs", "daynight"),
    "bcpc": ("rivets",),
    **dict.fromkeys(
        ("time", "drm", "reserve", "press_on", "rerolls", "hold", "attacker_retreats"),
        ("daynight",),
    ),
}


def check_inputs(combat: CombatInput) -> None:
    """Refuse inputs the ruleset does not read, so nothing typed is silently ignored."""
    ruleset = combat.ruleset
    blank = CombatInput(ruleset)
    for name, readers in _READ_BY.items():
        value = getattr(combat, name)
        if ruleset not in readers and value != getattr(blank, name):
            only = ", ".join(readers)
            raise InputError(name, value, f"nothing in {ruleset}: only {only} read it")
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
    """Refuse a number beyond what a game could reach (tables.toml: limits.factor_max, OCS
    action ratings and hedgehog levels, the Day/Night DRM), naming the allowed range.
    A value below a field's floor, or not a whole number, is left to the resolver."""
    factor = tables.data["limits"]["factor_max"]
    ocs, daynight = tables.data["ocs"], tables.data["daynight"]
    rating, hedgehog, drm = ocs["action_rating_max"], ocs["hedgehog_max"], daynight["drm_max"]
    per_unit = f"a whole number from 0 to {factor} per unit"
    ranges: list[tuple[str, object, int, int, str]] = [
        *(("attack", unit.factor, 0, factor, per_unit) for unit in combat.attackers),
        *(("defense", unit.factor, 0, factor, per_unit) for unit in combat.defenders),
        ("morale_attack", combat.morale_attack, -factor, factor, ""),
        ("morale_defense", combat.morale_defense, -factor, factor, ""),
        ("aaf", combat.aaf, 0, factor, ""),
        ("caf", combat.caf, 1, factor, ""),
        ("reserve", combat.reserve, 0, factor, ""),
        ("attacker_ar", combat.attacker_ar, 0, rating, "an action rating from 0 to {high}"),
        ("defender_ar", combat.defender_ar, 0, rating, "an action rating from 0 to {high}"),
        ("hedgehog", combat.hedgehog, 0, hedgehog, "a hedgehog level from 0 (none) to {high}"),
        (
            "drm",
            combat.drm,
            -drm,
            drm,
            "a net DRM from {low} to +{high}: beyond it every roll reads the same edge row",
        ),
    ]
    for name, value, low, high, allowed in ranges:
        if isinstance(value, bool) or not isinstance(value, int):
            continue
        beyond = value > high or (low < 0 and value < low)
        if beyond:
            text = allowed or "a whole number from {low} to {high}"
            raise InputError(name, value, text.format(low=low, high=high))


def resolve(
    combat: CombatInput,
    tables: Tables | None = None,
    rng: random.Random | None = None,
) -> Outcome:
    """Resolve one combat. Dice not entered by hand are rolled with `rng`."""
    check_ruleset(combat.ruleset)
    check_inputs(combat)
    tables = tables or default_tables()
    check_limits(combat, tables)
    roller = Roller(rng)
    outcome = _resolver(combat.ruleset)(combat, tables, roller)
    outcome.dice = list(roller.rolls)
    outcome.inputs = combat.to_dict()
    return outcome


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
