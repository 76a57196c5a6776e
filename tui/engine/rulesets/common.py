"""Pieces every resolver shares: factor checks, totals, odds to a column, and the plain
English for a side's effects."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from msgspec.structs import astuple

from tui.engine.cells import plain
from tui.engine.dice import Roller, enumerate_dice
from tui.engine.errors import InputError
from tui.engine.kinds import unit_typed
from tui.engine.model import CombatInput, Distribution, Outcome, Unit
from tui.engine.odds import column_for_ratio, label_ratio, odds_label
from tui.engine.records import same


def check_whole(field: str, value: int, low: int = 0) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InputError(field, value, f"a whole number >= {low}")


def units_total(field: str, units: tuple[Unit, ...]) -> int:
    for unit in units:
        check_whole(field, unit.factor)
    return sum(unit.factor for unit in units)


def require_attack(total: int, units: tuple[Unit, ...]) -> None:
    if not units:
        raise InputError("attack", None, "at least one attacking unit (--attack N)")
    if total <= 0:
        raise InputError(
            "attack", total, "an attack total of at least 1: 0 factors is not an attack"
        )


def require_defense(units: tuple[Unit, ...]) -> None:
    if not units:
        raise InputError("defense", None, "at least one defending unit (--defense N)")


def side_totals(combat: CombatInput, trace: list[str]) -> tuple[int, int]:
    """The attack and defence totals of a combat's units, checked (a unit on each side, an
    attack of at least 1) and said in the trace."""
    require_defense(combat.defenders)
    attack = units_total("attack", combat.attackers)
    defense = units_total("defense", combat.defenders)
    require_attack(attack, combat.attackers)
    trace.append(f"Attack total {attack}, defence total {defense}")
    return attack, defense


def pick_column(columns: tuple[str, ...], given: str | None, trace: list[str]) -> int:
    """The index of a column named by the player (--column)."""
    if given not in columns:
        raise InputError("column", given, "one of " + ", ".join(columns), choices=columns)
    trace.append(f"Column {given} given by the player: the odds are not computed")
    return columns.index(given)


def ratio_column(
    columns: tuple[str, ...],
    attack: int,
    defense: int,
    separator: str,
    trace: list[str],
    below: str,
) -> tuple[str, int]:
    """Odds label and column index: the rightmost column whose ratio is <= A/D. `below`
    explains what happens under the first column (read it)."""
    if defense == 0:
        trace.append("Defence total 0: resolved on the rightmost column, the best result")
        return "-", len(columns) - 1
    odds = odds_label(attack, defense, separator)
    index = column_for_ratio(columns, attack, defense)
    trace.append(
        f"Ratio {attack}/{defense} = {attack / defense:.3f}; odds rounded for the defender: {odds}"
    )
    if index is None:
        trace.append(f"Below the first column {columns[0]}: {below}")
        index = 0
    else:
        trace.append(f"Column: {columns[index]} (the rightmost column not above the ratio)")
    return odds, index


def computed_ratio(combat: CombatInput, odds: str | None) -> str | None:
    """The rounded ratio a resolver found from the totals: None with a column given by the
    player, or with a defence of 0 (no ratio: `ratio_column` gives "-")."""
    if combat.column is not None or odds in (None, "-"):
        return None
    return odds


_PHRASES: dict[str, Any] = {
    "eliminated": lambda v: "is eliminated",
    "factors_lost": lambda v: "loses all factors" if v == "all" else f"loses {v} factor{_s(v)}",
    "steps_lost": lambda v: f"loses {v} step{_s(v)}",
    "option": lambda v: (
        f"takes option {v}: {v} hex{'es' if v != 1 else ''} retreated or steps lost, in any mix"
    ),
    "retreat_or_steps": lambda v: (
        f"retreats {v} hex{'es' if v != 1 else ''} (in a step-loss-and-hold hex: any mix of {v} retreats and step losses)"
    ),
    "retreat_or_step": lambda v: "loses a step, or every unit retreats 1 hex disorganized",
    "retreat": lambda v: f"must retreat {v} hex{'es' if v != 1 else ''}",
    "advance_up_to": lambda v: f"may advance up to {v} hex{'es' if v != 1 else ''}",
    "exploit_min_ar": lambda v: (
        f"marks units with action rating {v}+ for exploitation (not HQs; void if it retreats for its option)"
    ),
    "disorganized": lambda v: "is disorganized (DG)",
    "engaged": lambda v: "is engaged",
    "bombers_removed": lambda v: f"loses {v} bomber unit{_s(v)} before they bomb",
}


# The same effects in fewer words, where the full phrase carries a rule's reminder (the
# result box at 80x24 shows these; the log and the trace keep the full phrase).
_BRIEF_PHRASES: dict[str, Any] = {
    "option": lambda v: f"takes option {v} (retreat or steps, any mix)",
    "retreat_or_steps": lambda v: (
        f"retreats {v} hex{'es' if v != 1 else ''} (or steps lost, in a hold hex)"
    ),
    "exploit_min_ar": lambda v: f"marks AR {v}+ units for exploitation",
}


def _option_taken(option: int, taken: dict[str, Any], brief: bool = False) -> str:
    """An OCS option as the side took it (said once, not also as the choice it had)."""
    if taken.get("ignored"):
        return f"ignores its option {option} (the attacker {taken.get('because')})"
    retreat, steps = taken["retreat"], taken["steps"]
    hexes = f"{retreat} hex{'es' if retreat != 1 else ''}"
    if brief:
        return f"takes option {option}: {hexes} back, {steps} step{_s(steps)} lost"
    return f"takes option {option} as {hexes} retreated and {steps} step{_s(steps)} lost"


def _s(value: Any) -> str:
    return "" if value == 1 else "s"


def describe_side(name: str, effects: dict[str, Any], brief: bool = False) -> str:
    """A side's effects in a sentence; `brief`: without the rules' reminders."""
    if "obstacle" in effects:  # an Ultra obstacle's line: what happens to it
        lost = effects.get("factors_lost")
        loss = "all factors" if lost == "all" else f"{lost}"
        if effects["obstacle"] == "cleared":
            return f"{name} is cleared (a loss of {loss})."
        return (
            f"{name} stays in place ({f'a loss of {loss}, under its CDF' if lost else 'no loss'})."
        )
    taken = effects.get("option_taken")
    words = _PHRASES | _BRIEF_PHRASES if brief else _PHRASES
    phrases = [
        _option_taken(v, taken, brief) if k == "option" and taken else words[k](v)
        for k, v in effects.items()
        if k in words
    ]
    if not phrases:
        return f"{name}: no effect."
    return f"{name} " + ", ".join(phrases) + "."


def explain(effects: dict[str, Any], brief: bool = False) -> str:
    """The result in plain words: each side, then the notes, then the rules' reminders
    (`brief`: the sides in fewer words, without the reminders)."""
    parts: list[str] = []
    parts.extend(effects.get("headline", []))
    attacker, defender = effects.get("attacker", {}), effects.get("defender", {})
    if effects.get("cancelled"):
        pass
    elif attacker or defender:
        parts.append(describe_side("Attacker", attacker, brief))
        # What the defender's line names where no unit defends (an Ultra obstacle).
        parts.append(describe_side(effects.get("defender_name", "Defender"), defender, brief))
    elif not parts:
        parts.append("No effect on either side.")
    parts.extend(effects.get("notes", []))
    if not brief:
        parts.extend(effects.get("reminders", []))
    return " ".join(parts)


def finish(
    combat: CombatInput,
    *,
    cell: Any,
    effects: dict[str, Any],
    trace: list[str],
    attack_total: int | float | None = None,
    defense_total: int | float | None = None,
    odds: str | None = None,
    column: str | None = None,
    roll: str | None = None,
    odds_column: str | None = None,
    ratio: str | None = None,
) -> Outcome:
    effects.setdefault("attacker", {})
    effects.setdefault("defender", {})
    effects.setdefault("markers", [])
    explanation = explain(effects)
    effects["summary"] = explanation
    return Outcome(
        ruleset=combat.ruleset,
        attack_total=attack_total,
        defense_total=defense_total,
        odds=odds,
        column=column,
        roll=roll,
        cell=cell,
        effects=effects,
        explanation=explanation,
        trace=trace,
        odds_column=odds_column if odds_column is not None else column,
        ratio=ratio,
    )


def parse_unit(field: str, text: str) -> Unit:
    """A unit as typed: "N", or "N@terrain" (Pair-o-Dice Super/Ultra hex terrain); read as
    every unit list's kind reads it."""
    return unit_typed(field, text)


def same_but_factors(a: CombatInput, b: CombatInput) -> bool:
    """Whether two combats are the same all through (`same`) but for their units' factors."""
    if len(a.attackers) != len(b.attackers) or len(a.defenders) != len(b.defenders):
        return False
    for mine, theirs in zip(a.attackers + a.defenders, b.attackers + b.defenders, strict=True):
        left, right = list(astuple(mine)), list(astuple(theirs))
        left[_FACTOR] = right[_FACTOR] = 0
        if not same(tuple(left), tuple(right)):
            return False
    left, right = list(astuple(a)), list(astuple(b))
    for place in _SIDES:
        left[place] = right[place] = ()
    return same(tuple(left), tuple(right))


# Where a unit's factor, and a combat's two sides, are among their fields.
_FACTOR = Unit.__struct_fields__.index("factor")
_SIDES = tuple(CombatInput.__struct_fields__.index(n) for n in ("attackers", "defenders"))


def enumerated_distribution(combat: CombatInput, run: Callable[[Roller], Outcome]) -> Distribution:
    """The exact chance of every distinct cell of `combat`, `run` (its resolve, given a
    roller) run once for every path of its dice (`enumerate_dice`): outcomes merged by
    cell in the order first met, each with the first one's meaning and effects."""
    merged: dict[str, list[Any]] = {}
    first: Outcome | None = None
    columns: dict[str | None, None] = {}  # every column read, in the order first met
    for outcome, chance in enumerate_dice(run):
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


def _column_order(label: str | None) -> tuple[int, Fraction]:
    """Columns left to right by the ratio or number they print; no column last."""
    if label is None:
        return 1, Fraction(0)
    try:
        return 0, label_ratio(label)
    except ValueError:
        return 0, Fraction(int(label)) if label.isdigit() else Fraction(0)
