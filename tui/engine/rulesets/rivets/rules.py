"""Rivets: 1d6 on the odds column; worse than 1-5 reads 1-5, 6-1 or better overruns."""

from __future__ import annotations

from typing import Any

from tui.engine.dice import Roller, check_roll, parse_dice
from tui.engine.model import CombatInput, Outcome
from tui.engine.rulesets.common import (
    computed_ratio,
    finish,
    pick_column,
    ratio_column,
    side_totals,
)
from tui.engine.tables import Tables

_CODES = {
    "AX": ("attacker", {"eliminated": True}),
    "AR": ("attacker", {"retreat": 1}),
    "DR": ("defender", {"retreat": 1}),
    "DX": ("defender", {"eliminated": True}),
}


def resolve(combat: CombatInput, tables: Tables, roller: Roller) -> Outcome:
    trace: list[str] = []
    chart = tables.chart("rivets.crt")
    effects: dict[str, Any] = {"attacker": {}, "defender": {}, "markers": [], "notes": []}
    attack = defense = None
    ratio: str | None = None
    overrun_from = tables.data["rivets"]["overrun_from"]
    count, sides = parse_dice(tables.data["rivets"]["dice"])
    if combat.roll is not None:
        # RULINGS: checked against the die even when an overrun reads none.
        check_roll("roll", combat.roll, count, count * sides, tables.data["rivets"]["dice"])
    if combat.column is not None:
        index = pick_column(chart.columns, combat.column, trace)
        odds = combat.column
    else:
        attack, defense = side_totals(combat, trace)
        odds, index = ratio_column(
            chart.columns, attack, defense, "-", trace, "odds worse than 1-5 are resolved on 1-5"
        )
        ratio = computed_ratio(combat, odds)
        if defense == 0 or attack >= overrun_from * defense:
            if combat.bcpc:
                trace.append(
                    f"{overrun_from}-1 or better, but the enemy BCPC cannot be overrun: "
                    f"the combat is rolled on column {chart.columns[index]}"
                )
            else:
                odds = "overrun"
    column = chart.columns[index]
    column_cells = {chart.cell(row, column) for row in chart.rows}
    if odds == "overrun" and len(column_cells) == 1:
        cell = next(iter(column_cells))
        trace.append(
            f"{overrun_from}-1 or better is an overrun: the defenders are eliminated during "
            f"movement (column {column} is {cell} on every roll, so no die is rolled)"
        )
        effects["result"] = "overrun"
        effects["headline"] = [
            "Overrun: the defenders are eliminated during the attacker's movement."
        ]
        effects["notes"].append("The enemy BCPC cannot be overrun.")
        roll = None
    else:
        total = roller.roll("combat", count, sides, combat.roll)
        roll = str(total)
        cell = chart.cell(roll, column)
        trace.append(f"{count}d{sides} {total}; row {roll}, column {column}: {cell}")
    if cell in _CODES:
        side, change = _CODES[cell]
        effects[side].update(change)
    if cell in ("DR", "DX"):
        effects["notes"].append("The attackers may move into the vacated hex.")
    return finish(
        combat,
        attack_total=attack,
        defense_total=defense,
        odds=odds,
        column=column,
        roll=roll,
        cell=cell,
        effects=effects,
        trace=trace,
        ratio=ratio,
    )
