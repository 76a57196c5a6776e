"""Pair-o-Dice Big Boom: bomber attrition, Boom Accuracy, Direction and the Batteries,
Bombers and Ship Guns CRT, one step at a time or as the whole chain."""

from __future__ import annotations

from typing import Any

from tui.engine.dice import Roller
from tui.engine.errors import InputError
from tui.engine.model import CombatInput, Outcome
from tui.engine.rulesets.common import check_whole, explain, finish, units_total
from tui.engine.tables import Chart, Tables

STEPS = ("attrition", "accuracy", "direction", "crt")


def largest_column(chart: Chart, value: int) -> int | None:
    """Index of the largest numeric column label not above `value` (None below the first)."""
    found = None
    for index, label in enumerate(chart.columns):
        if int(label) <= value:
            found = index
    return found


def _aa_total(combat: CombatInput, tables: Tables, trace: list[str]) -> int:
    if combat.aaf is None:
        raise InputError("aaf", None, "the AA factor total (--aaf N, a whole number >= 0)")
    check_whole("aaf", combat.aaf)
    total = combat.aaf
    if combat.long_range:
        bonus = tables.data["pod-boom"]["long_range_aa_bonus"]
        total += bonus
        trace.append(f"Target over half the bomber's range: AA {combat.aaf} + {bonus} = {total}")
    else:
        trace.append(f"AA factor total {total}")
    return total


def _attrition(
    combat: CombatInput, tables: Tables, roller: Roller, trace: list[str], manual: int | None
) -> tuple[str, str, str]:
    chart = tables.chart("pod-boom.attrition")
    total = _aa_total(combat, tables, trace)
    index = largest_column(chart, total)
    assert index is not None  # the first column is 0
    column = chart.columns[index]
    roll = roller.roll("bomber mission attrition", 1, 6, manual)
    cell = chart.cell(str(roll), column)
    trace.append(f"Attrition column {column} (largest not above {total}); 1d6 {roll}: {cell}")
    return column, str(roll), cell


def _crt(
    caf: int, tables: Tables, roller: Roller, trace: list[str], manual: int | None
) -> tuple[str, str, Any]:
    chart = tables.chart("pod-boom.crt")
    index = largest_column(chart, caf)
    if index is None:
        raise InputError("caf", caf, f"a CAF on target of at least {chart.columns[0]}")
    column = chart.columns[index]
    roll = roller.roll("boom combat resolution", 1, 6, manual)
    cell = chart.cell(str(roll), column)
    trace.append(
        f"CAF {caf} on target: column {column} (largest not above {caf}); 1d6 {roll}: "
        f"loss {cell[0]}, interdiction {cell[1]}"
    )
    return column, str(roll), cell


def _crt_effects(cell: Any, effects: dict[str, Any]) -> None:
    loss, interdiction = cell
    if loss == "All":
        effects["defender"]["eliminated"] = True
    elif loss != "-":
        effects["defender"]["factors_lost"] = int(loss)
    if interdiction != "-":
        turns = None if interdiction == "All" else int(interdiction)
        effects["markers"].append({"kind": "no-entry", "side": "both", "turns": turns})
        effects["notes"].append(
            "No-entry marker on the hex: neither side may enter "
            + (
                "for the rest of the game"
                if turns is None
                else f"for {turns} turn{'s' if turns != 1 else ''}"
            )
            + " (Hero #15 Engineer/Frogman repairs it at once)."
        )


# What each step reads (None: the whole chain); anything else given is refused.
_STEP_READS: dict[str | None, tuple[str, ...]] = {
    "attrition": ("aaf", "long_range"),
    "accuracy": (),
    "direction": (),
    "crt": ("caf", "attackers"),
    None: ("attackers", "aaf", "long_range"),
}


def _check_step_inputs(combat: CombatInput) -> None:
    reads = _STEP_READS[combat.step]
    given = {
        "attackers": (combat.attackers, "attack"),
        "aaf": (combat.aaf, "aaf"),
        "caf": (combat.caf, "caf"),
        "long_range": (combat.long_range, "long_range"),
    }
    for name, (value, field) in given.items():
        if value not in (None, (), False) and name not in reads:
            shown = value[0].factor if name == "attackers" else value
            steps = [s or "the whole chain" for s, r in _STEP_READS.items() if name in r]
            what = f"--step {combat.step}" if combat.step else "the whole chain"
            raise InputError(field, shown, f"nothing for {what}: read by {' and '.join(steps)}")


def resolve(combat: CombatInput, tables: Tables, roller: Roller) -> Outcome:
    trace: list[str] = []
    effects: dict[str, Any] = {"attacker": {}, "defender": {}, "markers": [], "notes": []}
    if combat.step is not None and combat.step not in STEPS:
        raise InputError("step", combat.step, "one of " + ", ".join(STEPS))
    if combat.column is not None:
        raise InputError(
            "column", combat.column, "no --column in pod-boom: the CAF or AA total picks it"
        )
    step = combat.step
    _check_step_inputs(combat)
    if step == "attrition":
        column, roll, cell = _attrition(combat, tables, roller, trace, combat.roll)
        if cell != "-":
            effects["attacker"]["bombers_removed"] = int(cell)
        return finish(
            combat,
            column=column,
            roll=roll,
            cell=cell,
            effects=effects,
            trace=trace,
        )
    if step in ("accuracy", "direction"):
        name = "Boom Accuracy" if step == "accuracy" else "Direction"
        table = tables.data["pod-boom"][step]
        roll = roller.roll(name, 1, 6, combat.roll)
        cell = table[str(roll)]
        trace.append(f"{name} 1d6 {roll}: {cell}")
        if step == "accuracy":
            effects["accuracy"] = tables.data["pod-boom"]["accuracy_effect"][str(roll)]
        effects["headline"] = [f"{name}: {cell}"]
        return finish(
            combat,
            roll=str(roll),
            cell=cell,
            effects=effects,
            trace=trace,
        )
    if step == "crt":
        caf = combat.caf if combat.caf is not None else units_total("attack", combat.attackers)
        if combat.caf is None and not combat.attackers:
            raise InputError("caf", None, "the CAF on target (--caf N)")
        check_whole("caf", caf, 1)
        column, roll, cell = _crt(caf, tables, roller, trace, combat.roll)
        _crt_effects(cell, effects)
        return finish(
            combat,
            attack_total=caf,
            column=column,
            roll=roll,
            cell=cell,
            effects=effects,
            trace=trace,
        )
    return _chain(combat, tables, roller, trace, effects)


def _chain(
    combat: CombatInput,
    tables: Tables,
    roller: Roller,
    trace: list[str],
    effects: dict[str, Any],
) -> Outcome:
    """The whole mission: attrition (bombers, when --aaf is given), accuracy, direction
    for the misses, then the CRT on the CAF that hit."""
    if combat.roll is not None:
        raise InputError(
            "roll",
            combat.roll,
            "no single --roll for the whole chain: use --step with --roll for each die, or --seed",
        )
    units = [u.factor for u in combat.attackers]
    if not units:
        raise InputError(
            "attack", None, "at least one bomber, battery or ship unit (--attack N each)"
        )
    total = units_total("attack", combat.attackers)
    if total <= 0:
        raise InputError(
            "attack", total, "an attack total of at least 1: 0 factors is not an attack"
        )
    trace.append(f"Units {units}: CAF {total}")
    if combat.aaf is not None:
        _, _, cell = _attrition(combat, tables, roller, trace, None)
        removed = 0 if cell == "-" else min(int(cell), len(units))
        if removed:
            effects["attacker"]["bombers_removed"] = removed
            units = units[: len(units) - removed]
            trace.append(f"{removed} bomber unit(s) removed, the last listed first: {units} fly on")
        if not units:
            return _nothing_hits(
                combat, total, effects, trace, "Every bomber was lost to attrition."
            )
    roll = roller.roll("Boom Accuracy", 1, 6)
    accuracy = tables.data["pod-boom"]["accuracy_effect"][str(roll)]
    misses = {"all": 0, "miss": len(units), "half": len(units) // 2}[accuracy]
    hitting = units[: len(units) - misses]
    trace.append(f"Boom Accuracy 1d6 {roll}: {tables.data['pod-boom']['accuracy'][str(roll)]}")
    if misses:
        direction = roller.roll("Direction", 1, 6)
        where = tables.data["pod-boom"]["direction"][str(direction)]
        trace.append(
            f"{misses} unit(s) land one hex {where} (Direction 1d6 {direction}), the last listed first"
        )
        effects["notes"].append(f"{misses} unit(s) land one hex {where} of the target.")
    caf = sum(hitting)
    if caf <= 0 or largest_column(tables.chart("pod-boom.crt"), caf) is None:
        trace.append(f"CAF on target {caf}: no combat on the target hex")
        return _nothing_hits(combat, total, effects, trace)
    column, crt_roll, cell = _crt(caf, tables, roller, trace, None)
    _crt_effects(cell, effects)
    on_target: dict[str, Any] = {"attacker": {}, "defender": {}, "markers": [], "notes": []}
    _crt_effects(cell, on_target)
    effects["cell_summary"] = explain(on_target)
    return finish(
        combat,
        attack_total=total,
        column=column,
        roll=crt_roll,
        cell=cell,
        effects=effects,
        trace=trace,
    )


def _nothing_hits(
    combat: CombatInput,
    total: int,
    effects: dict[str, Any],
    trace: list[str],
    why: str = "",
) -> Outcome:
    """The chain ends before the CRT: no CAF reached the target hex."""
    effects["headline"] = [f"{why} No CAF reached the target hex.".strip()]
    effects["cell_summary"] = "No CAF reached the target hex."
    return finish(
        combat,
        attack_total=total,
        cell=None,
        effects=effects,
        trace=trace,
    )
