"""Day/Night step-loss CRT: day or night table, terrain row, 1d6 + DRM read 0..7."""

from __future__ import annotations

from typing import Any, NamedTuple

from tui.engine.dice import Roller
from tui.engine.errors import InputError
from tui.engine.model import CombatInput, Distribution, Outcome
from tui.engine.questions import AnsweringRoller, ChoiceQuestion, NumberQuestion, Option, Question
from tui.engine.records import same
from tui.engine.rulesets.common import (
    check_whole,
    computed_ratio,
    enumerated_distribution,
    explain,
    finish,
    pick_column,
    ratio_column,
    same_but_factors,
    side_totals,
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
    "BTL": "Unresolved battle: an attacker with superior morale may take one step loss and roll again at the same odds; a second BTL ends it.",
    "A1X": "Retreating attackers are disorganized.",
    "A2X": "Retreating attackers are disorganized.",
}


# Results where the attacker may retreat (disorganized) instead of losing steps (7.10.8).
ATTACKER_MAY_RETREAT = ("A1", "A1X", "A2X")


def table_name(time: str | None) -> str:
    key = (time or "day").lower()
    if key not in TIMES:
        raise InputError("time", time, "day or night", choices=TIMES)
    return key


def terrain_name(terrain: str | None) -> str:
    key = (terrain or "clear").lower()
    if key not in TERRAIN_IDS:
        raise InputError(
            "terrain", terrain, "one of " + ", ".join(TERRAIN_IDS), choices=TERRAIN_IDS
        )
    return TERRAIN_IDS[key]


class ColumnRead(NamedTuple):
    """What a battle reads before its dice: its table and terrain row, the totals, the odds
    and their column."""

    time: str
    terrain: str
    columns: tuple[str, ...]
    attack: int | None
    defense: int | None
    odds: str | None
    at: int  # the column's index in `columns`


# The last combat read up to its dice, with its tables and the lines it added to the trace:
# a preview reads one combat on every path of its dice (and once for its totals): read once,
# the rest replay it. Kept only for a combat of the same types all through (`same`).
_LAST_READ: list[tuple[Tables, CombatInput, ColumnRead, tuple[str, ...]]] = []


def read_column(combat: CombatInput, tables: Tables, trace: list[str]) -> ColumnRead:
    """The combat read up to its dice (its resolve goes on from here): the column its
    first roll reads. Raises InputError as resolving it would before the dice."""
    if _LAST_READ:
        kept_tables, kept, reading, lines = _LAST_READ[0]
        if kept_tables is tables and same(kept, combat):
            trace.extend(lines)
            return reading
    start = len(trace)
    time = table_name(combat.time)
    terrain = terrain_name(combat.terrain)
    columns = tables.terrain_chart(f"daynight.{time}").columns_by_terrain[terrain]
    trace.append(f"{time.title()} table, {terrain} row")
    attack = defense = None
    if combat.column is not None:
        index = pick_column(columns, combat.column, trace)
        odds = combat.column
    else:
        attack, defense = side_totals(combat, trace)
        odds, index = ratio_column(
            columns, attack, defense, "-", trace, "the first column is 'or less'"
        )
    if isinstance(combat.drm, bool) or not isinstance(combat.drm, int):
        raise InputError("drm", combat.drm, "a whole number, + or -")
    if combat.reserve is not None:
        check_whole("reserve", combat.reserve)
        if combat.column is not None:
            raise InputError(
                "reserve",
                combat.reserve,
                "no --reserve with --column: the new odds need the totals",
            )
    reading = ColumnRead(time, terrain, columns, attack, defense, odds, index)
    _LAST_READ[:] = [(tables, combat, reading, tuple(trace[start:]))]
    return reading


def column(combat: CombatInput, tables: Tables, roller: Roller) -> str | None:
    """The column the battle's result is read on, its dice not rolled (Ruleset.column)."""
    reading = read_column(combat, tables, [])
    return reading.columns[reading.at]


def column_alone(combat: CombatInput) -> bool:
    """Whether `column` answers as resolving would: not where a reserve could move the
    column on an ENG, nor where a roll or re-roll by hand, pressing on or an attacker's
    retreat is given (the battle's result read may refuse them)."""
    return (
        combat.reserve is None
        and combat.roll is None
        and not combat.rerolls
        and not combat.press_on
        and not combat.attacker_retreats
    )


# The last combat's battles, by the column they are read on: each one's cells, chances,
# meanings and effects, and the columns read, as enumerating its dice gave them. A combat
# that differs from it only in its units' factors (which a battle without a reserve reads
# only for its odds and their column) and reads the same column fights the same battles:
# answered from them. Typing a factor asks for a new combat, most often on a column met
# already. Shared by the Distributions that read them: read, never changed.
_LAST_BATTLES: list[tuple[Tables, CombatInput, dict[int, Distribution]]] = []


def distribution(combat: CombatInput, tables: Tables) -> Distribution | None:
    """The exact chances of a battle's results (Ruleset.distribution), where its column
    decides them (`column_alone`: no reserve, no roll by hand, no order given for after
    the dice); else None, every path enumerated by the engine. The same as enumerating
    it: a column's battles enumerated once for the combats that differ only in factors."""
    if not column_alone(combat):
        return None
    reading = read_column(combat, tables, [])
    kept: dict[int, Distribution] = {}
    if _LAST_BATTLES:
        kept_tables, last, found = _LAST_BATTLES[0]
        if kept_tables is tables and same_but_factors(last, combat):
            kept = found
    battles = kept.get(reading.at)
    if battles is None:
        found_now = enumerated_distribution(combat, lambda roller: resolve(combat, tables, roller))
        _LAST_BATTLES[:] = [(tables, combat, kept | {reading.at: found_now})]
        return found_now
    _LAST_BATTLES[:] = [(tables, combat, kept)]
    # Without a reserve the odds stay those read before the dice (and their ratio).
    return Distribution(
        ruleset=combat.ruleset,
        odds=reading.odds,
        ratio=computed_ratio(combat, reading.odds),
        column=battles.column,
        columns=battles.columns,
        outcomes=battles.outcomes,
        details=battles.details,
        inputs=combat.to_dict(),
    )


def resolve(combat: CombatInput, tables: Tables, roller: Roller) -> Outcome:
    rules = tables.data["daynight"]
    trace: list[str] = []
    reading = read_column(combat, tables, trace)
    time, terrain, columns, odds = reading.time, reading.terrain, reading.columns, reading.odds
    attack, defense, index = reading.attack, reading.defense, reading.at
    chart = tables.terrain_chart(f"daynight.{time}")
    odds_column = columns[index]
    manual = [combat.roll, *combat.rerolls]
    battle: list[dict[str, Any]] = []
    by_hand: list[bool] = []  # per roll of the battle: entered by hand
    seen: set[str] = set()
    voluntary_losses = 0
    declined: str | None = None  # a BTL re-roll the attacker did not take
    while True:
        given = manual[len(battle)] if len(battle) < len(manual) else None
        by_hand.append(given is not None)
        total = _row(given, combat.drm, rules, roller, trace, "roll" if not battle else "rerolls")
        column = columns[index]
        cell = chart.cell(str(total), terrain, column)
        battle.append({"column": column, "roll": str(total), "cell": cell})
        trace.append(f"Row {total}, column {column}: {cell}")
        if cell not in ("ENG", "BTL"):
            break
        if cell in seen:
            trace.append(f"A second {cell} in this battle: the battle ends with {cell}")
            break
        seen.add(cell)
        if cell == "ENG":
            # RULINGS: ENG is always rolled again, with a reserve at new odds or at the same.
            if combat.reserve is None or attack is None or defense is None:
                trace.append(
                    "ENG: the attacker commits no exploitation reserve; rolled again at the same odds"
                )
            else:
                attack += combat.reserve
                trace.append(
                    f"ENG: the attacker commits a reserve of {combat.reserve}: attack {attack}"
                )
                odds, index = ratio_column(
                    columns, attack, defense, "-", trace, "the first column is 'or less'"
                )
        else:
            if not combat.press_on:
                trace.append("BTL: the attacker does not press on; the battle ends")
                declined = cell
                break
            voluntary_losses += 1
            trace.append("BTL: the attacker takes one step loss and rolls again at the same odds")
    if len(manual) > len(battle) and manual[len(battle)] is not None:
        extra = manual[len(battle)]
        raise InputError(
            "rerolls", extra, f"no more rolls: this battle ended after {len(battle)} roll(s)"
        )
    read = [step["cell"] for step in battle]
    if combat.press_on and "BTL" not in read:
        if all(by_hand):
            # Every roll was entered by hand, so the player knows no BTL came up.
            rows = ", ".join(f"{step['cell']} (row {step['roll']})" for step in battle)
            raise InputError(
                "press_on",
                True,
                f"only on a BTL: pressing on only applies to BTL, and this battle read {rows}",
            )
        trace.append("Press on after BTL was ordered, but no BTL came up: not used")
    column, roll = battle[-1]["column"], battle[-1]["roll"]
    effects: dict[str, Any] = {"attacker": {}, "defender": {}, "markers": [], "notes": []}
    for side, change in _RESULTS[cell].items():
        effects[side].update(change)
    defender = effects["defender"]
    if combat.hold is False and "retreat_or_steps" in defender:
        # No step-loss-and-hold option in the defender's hex: D1/D2 are retreats (7.10).
        defender["retreat"] = defender.pop("retreat_or_steps")
    if combat.attacker_retreats and cell not in ATTACKER_MAY_RETREAT:
        may = ", ".join(ATTACKER_MAY_RETREAT)
        if all(by_hand):
            # Every roll was entered by hand, so the player knows the battle's result.
            raise InputError(
                "attacker_retreats",
                True,
                f"only on {may} (a retreat instead of a step loss), and this battle "
                f"ended on {cell} (row {roll})",
            )
        trace.append(f"The attacker would retreat on {may}; the battle ended on {cell}: not used")
    elif combat.attacker_retreats:
        # Retreating attackers are disorganized (7.10.8).
        effects["markers"].append({"kind": "disorganized", "side": "attacker"})
        effects["notes"].append("The attacker retreats: its units are disorganized.")
    if voluntary_losses:
        steps = effects["attacker"].get("steps_lost", 0) + voluntary_losses
        effects["attacker"]["steps_lost"] = steps
        effects["notes"].append(
            f"The attacker took {voluntary_losses} voluntary step loss to press on (BTL)."
        )
    if declined:
        effects["reroll"] = declined
        effects["notes"].append(_NOTES[declined])
    elif cell in ("ENG", "BTL"):
        effects["notes"].append(f"A second {cell} in one battle ends it with that result.")
    elif cell in _NOTES:
        effects["notes"].append(_NOTES[cell])
    if cell == "ENG":
        # The battle ended engaged (locked in combat): the units keep the marker.
        effects["markers"].append({"kind": "engaged", "side": "both"})
    if len(battle) > 1:
        effects["battle"] = battle
    # What the printed cell alone means (a distribution merges battles that end on it).
    effects["cell_summary"] = explain({"attacker": {}, "defender": {}, **_RESULTS[cell]})
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
        odds_column=odds_column,
        ratio=computed_ratio(combat, odds),
    )


def _row(
    given: int | None,
    drm: int,
    rules: Any,
    roller: Roller,
    trace: list[str],
    field: str,
) -> int:
    """One roll of the battle: 1d6 (rolled, or as it lies when entered by hand) + DRM,
    read on rows 0..7."""
    low, high = rules["row_min"], rules["row_max"]
    sides = rules["die_sides"]
    die = roller.roll("combat", 1, sides, given, field, modifier=drm)
    modified = die + drm
    total = min(max(modified, low), high)
    clamp = f", read as {total} (rows {low}..{high})" if total != modified else ""
    how = " (by hand)" if given is not None else ""
    trace.append(f"1d{sides} {die}{how} {drm:+d} DRM = {modified}{clamp}")
    roller.read_row(str(total))
    return int(total)


# --- what the procedure asks once the dice are read ------------------------------------------


def ask(
    combat: CombatInput, outcome: Outcome, roller: AnsweringRoller, asked: set[str]
) -> Question | None:
    """On the first ENG the reserve, on the first BTL pressing on: asked before the battle
    is rolled again. At the end, on A1/A1X/A2X, whether the attacker retreats."""
    battle = outcome.effects.get("battle") or [{"cell": outcome.cell, "roll": outcome.roll}]
    for step in battle[: roller.known]:
        cell = step["cell"]
        if cell == "ENG" and "reserve" not in asked:
            return NumberQuestion(
                "reserve",
                f"ENG on row {step['roll']}: engaged. The attacker may commit one exploitation "
                "reserve (new odds) before the battle is rolled again. Its strength:",
                0,
                None,
                "none",
            )
        if cell == "BTL" and "press_on" not in asked:
            return ChoiceQuestion(
                "press_on",
                f"BTL on row {step['roll']}: unresolved battle. An attacker with superior "
                "morale may take one step loss and roll again at the same odds.",
                (Option("n", "the battle ends on BTL", False), Option("y", "press on", True)),
            )
    if roller.wanted is None and outcome.cell in ATTACKER_MAY_RETREAT:
        if "attacker_retreats" not in asked:
            return ChoiceQuestion(
                "attacker_retreats",
                f"{outcome.cell}: does the attacker retreat (its units disorganized) or take "
                "its losses in steps?",
                (Option("s", "step losses", False), Option("r", "retreat, disorganized", True)),
            )
    return None
