"""The engine's front door: the resolve/distribution calls that dispatch to one resolver
per ruleset family. The combat data (CombatInput, Unit, Outcome, Distribution, plain,
cell_text) live in tui.engine.model and are re-exported here."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from tui.engine.dice import Roller, enumerate_dice
from tui.engine.errors import InputError
from tui.engine.model import CombatInput, Distribution, Outcome, Unit, cell_text, plain
from tui.engine.rulesets import boom, daynight, ocs, pod, rivets
from tui.engine.tables import RULESET_IDS, Tables, default_tables

__all__ = [
    "CombatInput",
    "Distribution",
    "Outcome",
    "Unit",
    "cell_text",
    "check_inputs",
    "check_ruleset",
    "distribution",
    "plain",
    "resolve",
]


Resolver = Callable[[CombatInput, Tables, Roller], Outcome]


def _resolver(ruleset: str) -> Resolver:
    if ruleset.startswith("pod-") and ruleset != "pod-boom":
        return pod.resolve
    return {
        "pod-boom": boom.resolve,
        "ocs": ocs.resolve,
        "rivets": rivets.resolve,
        "daynight": daynight.resolve,
    }[ruleset]


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
)
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
    if ruleset not in _POD:
        for name, units in (("attack", combat.attackers), ("defense", combat.defenders)):
            for unit in units:
                if unit.terrain is not None:
                    allowed = f"a plain factor in {ruleset} (N@terrain is pod-super/pod-ultra only)"
                    raise InputError(name, f"{unit.factor}@{unit.terrain}", allowed)


def resolve(
    combat: CombatInput,
    tables: Tables | None = None,
    rng: random.Random | None = None,
) -> Outcome:
    """Resolve one combat. Dice not entered by hand are rolled with `rng`."""
    check_ruleset(combat.ruleset)
    check_inputs(combat)
    tables = tables or default_tables()
    roller = Roller(rng)
    outcome = _resolver(combat.ruleset)(combat, tables, roller)
    outcome.dice = list(roller.rolls)
    outcome.inputs = combat.to_dict()
    return outcome


def distribution(combat: CombatInput, tables: Tables | None = None) -> Distribution:
    """The exact distribution of cells over every die not entered by hand."""
    check_ruleset(combat.ruleset)
    check_inputs(combat)
    tables = tables or default_tables()
    resolver = _resolver(combat.ruleset)
    if combat.ruleset == "pod-boom" and combat.step is None:
        # The whole Big Boom chain, folded: one read first refuses what the chain refuses.
        resolver(combat, tables, Roller(random.Random(0)))
        return boom.chain_distribution(combat, tables)
    merged: dict[str, list[Any]] = {}
    first: Outcome | None = None
    for outcome, chance in enumerate_dice(lambda roller: resolver(combat, tables, roller)):
        first = first or outcome
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
        column=first.odds_column,
        outcomes=tuple((cell, p, meaning) for cell, p, meaning, _ in merged.values()),
        details=tuple(effects for *_, effects in merged.values()),
    )
