"""Day/Night step-loss CRT: day or night table, terrain row, 1d6 + DRM read 0..7."""

from __future__ import annotations

from typing import Any

from tui.engine.combat import CombatInput, Outcome
from tui.engine.dice import Roller, check_roll
from tui.engine.errors import InputError
from tui.engine.rulesets.common import (
    finish,
    pick_column,
    ratio_column,
    require_attack,
    require_defense,
    units_total,
)
from tui.engine.tables import DAYNIGHT_TERRAINS, Tables

TIMES = ("day", "night")
TERRAIN_IDS = {t.lower(): t for t in DAYNIGHT_TERRAINS}

# Each printed result, decoded per the seed's Combat Results (7.10) and RULINGS.
_RESULTS: dict[str, dict[str, dict[str, Any]]] = {
    "D1": {"defender": {"retreat_or_steps": 1}},
    "D2": {"defender": {"retreat_or_steps": 2}},
    "D1+": {"defender": {"retreat_or_steps": 1}, "attacker": {"steps_lost": 1}},
    "D2X": {"defender": {"steps_lost": 1, "retreat_or_steps": 2}},
    "FF": {"defender": {"steps_lost": 1}, "attacker": {"steps_lost": 1}},
    "ENG": {"attacker": {"engaged": True}, "defender": {"engaged": True}},
    "BTL": {},
    "A1": {"attacker": {"retreat_or_step": 1}},
    "A1X": {"attacker": {"steps_lost": 1, "option": 1}},
    "A2X": {"attacker": {"steps_lost": 1, "option": 2}},
}
_NOTES = {
    "FF": "Firefight: the defender loses its step first; nobody moves.",
    "ENG": "The attacker may commit one exploitation reserve (new odds) and roll again; a second ENG in this battle ends it.",
    "BTL": "Unresolved battle: an attacker with superior morale may take one step loss and roll again at the same odds; a second BTL ends it.",
    "A1X": "Retreating attackers are disorganized.",
    "A2X": "Retreating attackers are disorganized.",
}


def table_name(time: str | None) -> str:
    key = (time or "day").lower()
    if key not in TIMES:
        raise InputError("time", time, "day or night")
    return key


def terrain_name(terrain: str | None) -> str:
    key = (terrain or "clear").lower()
    if key not in TERRAIN_IDS:
        raise InputError("terrain", terrain, "one of " + ", ".join(TERRAIN_IDS))
    return TERRAIN_IDS[key]


def resolve(combat: CombatInput, tables: Tables, roller: Roller) -> Outcome:
    rules = tables.data["daynight"]
    trace: list[str] = []
    time = table_name(combat.time)
    terrain = terrain_name(combat.terrain)
    chart = tables.terrain_chart(f"daynight.{time}")
    columns = chart.columns_by_terrain[terrain]
    trace.append(f"{time.title()} table, {terrain} row")
    attack = defense = None
    if combat.column is not None:
        index = pick_column(columns, combat.column, trace)
        odds = combat.column
    else:
        require_defense(combat.defenders)
        attack = units_total("attack", combat.attackers)
        defense = units_total("defense", combat.defenders)
        require_attack(attack, combat.attackers)
        trace.append(f"Attack total {attack}, defence total {defense}")
        odds, index = ratio_column(
            columns, attack, defense, "-", trace, "the first column is 'or less'"
        )
    column = columns[index]
    low, high = rules["row_min"], rules["row_max"]
    if isinstance(combat.drm, bool) or not isinstance(combat.drm, int):
        raise InputError("drm", combat.drm, "a whole number, + or -")
    if combat.roll is not None:
        check_roll(
            "roll", combat.roll, low, high, f"modified 1d{rules['die_sides']} (row {low}..{high})"
        )
        total = combat.roll
        roller.record_manual("combat (modified, read row)", f"1d{rules['die_sides']}", total)
        trace.append(f"Row {total} entered by hand")
    else:
        die = roller.roll("combat", 1, rules["die_sides"])
        modified = die + combat.drm
        total = min(max(modified, low), high)
        clamp = f", read as {total} (rows {low}..{high})" if total != modified else ""
        trace.append(f"1d{rules['die_sides']} {die} {combat.drm:+d} DRM = {modified}{clamp}")
    roll = str(total)
    cell = chart.cell(roll, terrain, column)
    trace.append(f"Row {roll}, column {column}: {cell}")
    effects: dict[str, Any] = {"attacker": {}, "defender": {}, "markers": [], "notes": []}
    for side, change in _RESULTS[cell].items():
        effects[side].update(change)
    if cell in _NOTES:
        effects["notes"].append(_NOTES[cell])
    if cell in ("ENG", "BTL"):
        effects["reroll"] = cell
    if cell == "ENG":
        effects["markers"].append({"kind": "engaged", "side": "both"})
    effects["table"] = time
    effects["terrain"] = terrain
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
    )
