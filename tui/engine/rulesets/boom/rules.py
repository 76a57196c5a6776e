"""Pair-o-Dice Big Boom: bomber attrition, Boom Accuracy, Direction and the Batteries,
Bombers and Ship Guns CRT, one step at a time or as the whole chain.

About 550 lines: the chain's steps are resolved, previewed and given their exact
distribution by the same small readers of the four charts (attrition, accuracy, direction,
CRT); apart, the preview would need the resolver's private readers."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

from tui.engine.cells import plain
from tui.engine.dice import Roller
from tui.engine.errors import InputError
from tui.engine.model import CombatInput, Distribution, Outcome
from tui.engine.rulesets.common import (
    check_whole,
    describe_side,
    finish,
    units_total,
)
from tui.engine.tables import Chart, Tables

STEPS = ("attrition", "accuracy", "direction", "crt")

# The missions (the desk form's choice, rulesets.boom_ruleset) that meet AA on their route:
# bombers. Batteries and ships skip attrition, and with it the AA units, the bombers' range
# and the target's distance (the long-range AA bonus).
AA_MISSIONS = frozenset({"bombers"})
_AA_INPUTS = frozenset({"defenders", "bomber_range", "distance"})
NO_AA = "Only bombers meet AA on their route: batteries and ships skip attrition."


def meets_aa(mission: str | None) -> bool:
    """Whether a mission meets AA on its route (a form that says none flies bombers)."""
    return (mission or "bombers") in AA_MISSIONS


def form_unread(values: Mapping[str, Any]) -> frozenset[str]:
    """What a mission's form does not read: batteries and ships meet no AA."""
    return frozenset() if meets_aa(values.get("mission")) else _AA_INPUTS


def form_values(values: dict[str, Any], errors: list[InputError]) -> dict[str, Any]:
    """A bomber mission's form as the chain reads it: the AA units on the route as their
    total (a route with none is column 0), and the target over half the bombers' range
    (both left empty: within it, so a quick mission needs only its units). A distance
    without a range cannot be judged."""
    if not meets_aa(values.get("mission")):
        return values
    bomber_range, distance = values.get("bomber_range"), values.get("distance")
    if distance is not None and bomber_range is None:
        errors.append(InputError("bomber_range", None, "the bombers' range to judge the distance"))
    aa_units = values.get("defenders") or ()
    return values | {
        "defenders": (),
        "aaf": sum(unit.factor for unit in aa_units),
        "long_range": bomber_range is not None and over_half_range(distance or 0, bomber_range),
    }


def loss_words(value: str | None) -> str:
    """A CRT loss code in words ("-", a number of factors, "All"; None: no CAF on target)."""
    if value is None:
        return "no CAF on target"
    return {"-": "no loss", "All": "every unit"}.get(value, f"lose {value}")


def interdiction_words(value: str | None) -> str:
    """A CRT interdiction code in words: the No-entry turns ("All": the rest of the game)."""
    if value is None:
        return "no CAF on target"
    if value == "-":
        return "none"
    if value == "All":
        return "rest of the game"
    return f"{value} turn{'s' if value != '1' else ''}"


def largest_column(chart: Chart, value: int) -> int | None:
    """Index of the largest numeric column label not above `value` (None below the first)."""
    found = None
    for index, label in enumerate(chart.columns):
        if int(label) <= value:
            found = index
    return found


def most_attrition_losses(tables: Tables) -> int:
    """The most bombers the attrition chart removes in one roll."""
    rows = tables.data["pod-boom"]["attrition"]["rows"].values()
    return max(int(cell) for row in rows for cell in row if cell.isdigit())


def printed_results(tables: Tables) -> tuple[set[Any], set[Any]]:
    """Every loss and every interdiction the Big Boom CRT prints (each cell is the pair)."""
    cells = [cell for row in tables.chart("pod-boom.crt").rows.values() for cell in row]
    return {loss for loss, _ in cells}, {turns for _, turns in cells}


def over_half_range(distance: int, bomber_range: int) -> bool:
    """True when the target, `distance` hexes from the nearest Airbase England hex, is
    over half the bomber's range (the AA total then gets the long-range bonus)."""
    return 2 * distance > bomber_range


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
    combat: CombatInput,
    tables: Tables,
    roller: Roller,
    trace: list[str],
    manual: int | None,
    field: str = "roll",
) -> tuple[str, str, str]:
    chart = tables.chart("pod-boom.attrition")
    total = _aa_total(combat, tables, trace)
    index = largest_column(chart, total)
    assert index is not None  # the first column is 0
    column = chart.columns[index]
    roll = roller.roll("bomber mission attrition", 1, 6, manual, field)
    cell = chart.cell(str(roll), column)
    trace.append(f"Attrition column {column} (largest not above {total}); 1d6 {roll}: {cell}")
    return column, str(roll), cell


def _crt(
    caf: int,
    tables: Tables,
    roller: Roller,
    trace: list[str],
    manual: int | None,
    where: str = "on target",
    field: str = "roll",
) -> tuple[str, str, Any]:
    chart = tables.chart("pod-boom.crt")
    index = largest_column(chart, caf)
    if index is None:
        raise InputError("caf", caf, f"a CAF on target of at least {chart.columns[0]}")
    column = chart.columns[index]
    purpose = "boom combat resolution" + ("" if where == "on target" else f" ({where})")
    roll = roller.roll(purpose, 1, 6, manual, field)
    cell = chart.cell(str(roll), column)
    trace.append(
        f"CAF {caf} {where}: column {column} (largest not above {caf}); 1d6 {roll}: "
        f"loss {cell[0]}, interdiction {cell[1]}"
    )
    return column, str(roll), cell


def direction_short(name: str) -> str:
    """A Direction row as a compass point: "North-East (top right)" -> "NE"."""
    words = name.split(" (")[0].split("-")
    return "".join(word[0].upper() for word in words if word)


def _crt_effects(
    cell: Any, effects: dict[str, Any], tables: Tables, astray: str | None = None
) -> None:
    """A CRT cell's effects: on the target hex, or (`astray`, a compass point) on the hex
    one step that way from it, where the astray units landed."""
    loss, interdiction = cell
    hit = effects["defender"] if astray is None else effects.setdefault("astray", {})
    if loss == "All":
        hit["eliminated"] = True
    elif loss != "-":
        hit["factors_lost"] = int(loss)
    if interdiction != "-":
        turns = None if interdiction == "All" else int(interdiction)
        marker: dict[str, Any] = {"kind": "no-entry", "side": "both", "turns": turns}
        if astray is not None:
            marker["astray"] = astray
        effects["markers"].append(marker)
        effects["notes"].append(
            (
                "No-entry marker on the hex"
                if astray is None
                else f"No-entry marker one hex {astray}"
            )
            + ": neither side may enter "
            + (
                "for the rest of the game"
                if turns is None
                else f"for {turns} turn{'s' if turns != 1 else ''}"
            )
            + "."
        )
        # Said once, however many hexes the mission closed.
        repair = f"{tables.data['pod-boom']['repair_card']} repairs a No-entry hex at once."
        reminders = effects.setdefault("reminders", [])
        if repair not in reminders:
            reminders.append(repair)


# What each step reads (None: the whole chain); anything else given is refused.
_STEP_READS: dict[str | None, tuple[str, ...]] = {
    "attrition": ("aaf", "long_range"),
    "accuracy": (),
    "direction": (),
    "crt": ("caf", "attackers"),
    None: ("attackers", "aaf", "long_range", "chain_rolls"),
}


def _check_step_inputs(combat: CombatInput) -> None:
    reads = _STEP_READS[combat.step]
    given = {
        "attackers": (combat.attackers, "attack"),
        "aaf": (combat.aaf, "aaf"),
        "caf": (combat.caf, "caf"),
        "long_range": (combat.long_range, "long_range"),
        "chain_rolls": (combat.chain_rolls, "chain_rolls"),
    }
    for name, (value, field) in given.items():
        if value not in (None, (), False) and name not in reads:
            shown: Any = value
            if name == "attackers" and isinstance(value, tuple) and value:
                shown = getattr(value[0], "factor", value[0])
            shown = shown[0] if name == "chain_rolls" else shown
            steps = [
                f"with --step {s}" if s else "with no --step (the whole chain)"
                for s, r in _STEP_READS.items()
                if name in r
            ]
            from tui.engine.schema import flag  # the schema imports the rulesets

            raise InputError(
                field,
                shown,
                f"{flag(field)} only {' or '.join(steps)}",
                context=f" with --step {combat.step}"
                if combat.step
                else " for the whole chain (no --step)",
            )


def resolve(combat: CombatInput, tables: Tables, roller: Roller) -> Outcome:
    trace: list[str] = []
    effects: dict[str, Any] = {"attacker": {}, "defender": {}, "markers": [], "notes": []}
    if combat.step is not None and combat.step not in STEPS:
        raise InputError("step", combat.step, "one of " + ", ".join(STEPS), choices=STEPS)
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
        die = roller.roll(name, 1, 6, combat.roll)
        cell = table[str(die)]
        trace.append(f"{name} 1d6 {die}: {cell}")
        if step == "accuracy":
            effects["accuracy"] = tables.data["pod-boom"]["accuracy_effect"][str(die)]
        effects["headline"] = [f"{name}: {cell}"]
        return finish(
            combat,
            roll=str(die),
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
        _crt_effects(cell, effects, tables)
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
    # The chain's dice rolled by hand, in the order the chain reads them.
    by_hand = list(combat.chain_rolls)
    read = 0

    def next_die() -> int | None:
        nonlocal read
        read += 1
        return by_hand[read - 1] if read <= len(by_hand) else None

    outcome = _chain_read(combat, tables, roller, trace, effects, units, total, next_die)
    if read < len(by_hand):
        raise InputError(
            "chain_rolls",
            by_hand[read],
            f"no more dice: this mission read {read} {'die' if read == 1 else 'dice'}",
        )
    return outcome


def _chain_read(
    combat: CombatInput,
    tables: Tables,
    roller: Roller,
    trace: list[str],
    effects: dict[str, Any],
    units: list[int],
    total: int,
    next_die: Callable[[], int | None],
) -> Outcome:
    field = "chain_rolls"
    if combat.aaf is not None:
        _, _, cell = _attrition(combat, tables, roller, trace, next_die(), field)
        removed = 0 if cell == "-" else min(int(cell), len(units))
        if removed:
            effects["attacker"]["bombers_removed"] = removed
            units = units[: len(units) - removed]
            trace.append(f"{removed} bomber unit(s) removed, the last listed first: {units} fly on")
        if not units:
            return _nothing_hits(
                combat, total, effects, trace, "Every bomber was lost to attrition."
            )
    roll = roller.roll("Boom Accuracy", 1, 6, next_die(), field)
    accuracy = tables.data["pod-boom"]["accuracy_effect"][str(roll)]
    misses = {"all": 0, "miss": len(units), "half": len(units) // 2}[accuracy]
    hitting, astray = units[: len(units) - misses], units[len(units) - misses :]
    trace.append(f"Boom Accuracy 1d6 {roll}: {tables.data['pod-boom']['accuracy'][str(roll)]}")
    where = None
    if misses:
        direction = roller.roll("Direction", 1, 6, next_die(), field)
        name = tables.data["pod-boom"]["direction"][str(direction)]
        where = direction_short(name)
        trace.append(
            f"{misses} unit(s) land one hex {name} (Direction 1d6 {direction}), the last listed first"
        )
        effects["notes"].append(f"{misses} unit(s) land one hex {name} of the target.")
    crt = tables.chart("pod-boom.crt")
    caf = sum(hitting)
    found: tuple[str, str, Any] | None = None
    if caf > 0 and largest_column(crt, caf) is not None:
        found = _crt(caf, tables, roller, trace, next_die(), field=field)
        _crt_effects(found[2], effects, tables)
    else:
        trace.append(f"CAF on target {caf}: no combat on the target hex")
    if where is not None:
        astray_caf = sum(astray)
        if astray_caf > 0 and largest_column(crt, astray_caf) is not None:
            column, crt_roll, cell = _crt(
                astray_caf, tables, roller, trace, next_die(), f"one hex {where}", field
            )
            _crt_effects(cell, effects, tables, where)
            effects["astray"] |= {"direction": where, "caf": astray_caf, "column": column}
            effects["astray"]["cell"] = list(cell)
            effects["notes"].append(
                f"Astray CAF {astray_caf} one hex {where}: {_cell_words(cell)}."
            )
        else:
            trace.append(f"CAF {astray_caf} one hex {where}: no combat there")
    if found is None:
        return _nothing_hits(combat, total, effects, trace)
    column, crt_roll, cell = found
    on_target: dict[str, Any] = {"attacker": {}, "defender": {}, "markers": [], "notes": []}
    _crt_effects(cell, on_target, tables)
    effects["cell_summary"] = hex_words(on_target)
    return finish(
        combat,
        attack_total=total,
        column=column,
        roll=crt_roll,
        cell=cell,
        effects=effects,
        trace=trace,
    )


def hex_words(effects: dict[str, Any]) -> str:
    """What a CRT cell does to the target hex. The CRT reads the hex only: the bombers'
    losses are attrition's, said with the roll, not an attacker half of the cell."""
    return " ".join([describe_side("Defender", effects["defender"]), *effects["notes"]])


def _cell_words(cell: Any) -> str:
    loss, interdiction = cell
    lost = {"-": "no loss", "All": "every unit lost"}.get(loss, f"{loss} factors lost")
    closed = {"-": "no interdiction", "All": "closed for the rest of the game"}.get(
        interdiction, f"closed {interdiction} turn(s)"
    )
    return f"{lost}, {closed}"


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


# --- the whole mission before any die is rolled ----------------------------------------------


@dataclass(frozen=True)
class ChainPreview:
    """A mission's chances, folded exactly over every die: bombers lost to attrition, and
    the defender's loss and the interdiction turns on the target hex (None: no CAF reached
    it). Each is (value, chance) pairs in the chart's order."""

    aa_total: int | None
    attrition_column: str | None
    units_lost: tuple[tuple[int, Fraction], ...]
    losses: tuple[tuple[str | None, Fraction], ...]
    interdiction: tuple[tuple[str | None, Fraction], ...]
    # The CRT cell read on the target hex (None: no CAF reached it), by chance.
    cells: tuple[tuple[Any, Fraction], ...] = ()
    # Every CRT column a cell is read on (None: no CAF reached the target hex).
    columns: frozenset[str | None] = frozenset()


_CHAIN_CACHE: dict[tuple[Any, ...], tuple[Tables, ChainPreview]] = {}


def _cell_order(value: str | None) -> tuple[int, int]:
    if value is None:
        return (3, 0)
    if value == "-":
        return (0, 0)
    return (2, 0) if value == "All" else (1, int(value))


_NO_CELL = json.dumps(None)
# Each CRT column's six cells with their keys, by the tables' identity and the column.
_CRT_FACES: dict[tuple[int, str], tuple[Tables, tuple[tuple[str, Any], ...]]] = {}


def _crt_faces(tables: Tables, column: str) -> tuple[tuple[str, Any], ...]:
    """The cells a CRT column reads on faces 1-6, each with the key it is counted by."""
    kept = _CRT_FACES.get((id(tables), column))
    if kept is not None and kept[0] is tables:
        return kept[1]
    crt = tables.chart("pod-boom.crt")
    faces = tuple(
        (json.dumps(plain(cell)), cell)
        for cell in (crt.cell(str(face), column) for face in range(1, 7))
    )
    _CRT_FACES[(id(tables), column)] = (tables, faces)
    return faces


@dataclass(frozen=True)
class _ColumnTally:
    """A CRT column's six faces counted: each loss, each interdiction and each cell (by its
    key) with the faces that read it, in the order the faces first read them."""

    losses: tuple[tuple[str, int], ...]
    interdiction: tuple[tuple[str, int], ...]
    cells: tuple[tuple[str, Any, int], ...]


# Each CRT column's tally, by the tables' identity and the column.
_CRT_TALLIES: dict[tuple[int, str], tuple[Tables, _ColumnTally]] = {}


def _crt_tally(tables: Tables, column: str) -> _ColumnTally:
    """A CRT column's faces counted (`_crt_faces`, tallied once)."""
    kept = _CRT_TALLIES.get((id(tables), column))
    if kept is not None and kept[0] is tables:
        return kept[1]
    losses: Counter[str] = Counter()
    interdiction: Counter[str] = Counter()
    cells: dict[str, list[Any]] = {}
    for cell_key, cell in _crt_faces(tables, column):
        loss, turns = cell
        losses[loss] += 1
        interdiction[turns] += 1
        cells.setdefault(cell_key, [cell, 0])[1] += 1
    tally = _ColumnTally(
        tuple(losses.items()),
        tuple(interdiction.items()),
        tuple((key, cell, count) for key, (cell, count) in cells.items()),
    )
    _CRT_TALLIES[(id(tables), column)] = (tables, tally)
    return tally


@cache
def _in_216ths(count: int) -> Fraction:
    """`count` 216ths (the chain's three dice), made once a count (a Fraction is kept
    as any other value: it never changes)."""
    return Fraction(count, 216)


def chain_preview(
    units: tuple[int, ...], aaf: int | None, long_range: bool, tables: Tables
) -> ChainPreview:
    """The whole chain's chances for these units (in the order listed), the AA factor
    total (None: batteries and ships, no attrition) and whether the target is over half
    the bomber's range. Cached on those inputs; raises InputError for inputs the chain
    refuses."""
    key = (id(tables), tuple(units), aaf, long_range)
    cached = _CHAIN_CACHE.get(key)
    if cached is not None and cached[0] is tables:
        return cached[1]
    if not units:
        raise InputError("attack", None, "at least one bomber, battery or ship unit")
    for factor in units:
        check_whole("attack", factor)
    if sum(units) <= 0:
        raise InputError("attack", sum(units), "an attack total of at least 1")
    rules = tables.data["pod-boom"]
    faces = [str(face) for face in range(1, 7)]
    aa_total = column = None
    # Bomber units removed: the sixths of the attrition die that remove that many (the
    # faces that remove as many counted together, in the order the die first reads them).
    branches: dict[int, int] = {0: 6}
    if aaf is not None:
        check_whole("aaf", aaf)
        aa_total = aaf + (rules["long_range_aa_bonus"] if long_range else 0)
        chart = tables.chart("pod-boom.attrition")
        index = largest_column(chart, aa_total)
        assert index is not None  # the first column is 0
        column = chart.columns[index]
        branches = {}
        for face in faces:
            cell = chart.cell(face, column)
            removed = 0 if cell == "-" else min(int(cell), len(units))
            branches[removed] = branches.get(removed, 0) + 1
    crt = tables.chart("pod-boom.crt")
    # Counted in 216ths (attrition die x accuracy die x CRT die), made Fractions at the
    # end: the same sums as adding the chances as Fractions, without their arithmetic. The
    # faces of a die that lead to the same next step are counted together (their weights
    # added), first where the die first reads them: the same sums, in the same order.
    lost: Counter[int] = Counter()
    losses: Counter[str | None] = Counter()
    interdiction: Counter[str | None] = Counter()
    cells: dict[str, list[Any]] = {}
    columns: set[str | None] = set()

    def count_cell(key: str, cell: Any, weight: int) -> None:
        cells.setdefault(key, [cell, 0])[1] += weight

    accuracy = rules["accuracy_effect"]
    for removed, weight in branches.items():
        lost[removed] += weight * 36
        flying = units[: len(units) - removed]
        # The accuracy die's faces by the CAF they leave on the target hex.
        on_target: dict[int, int] = {}
        for face in faces if flying else ():
            misses = {"all": 0, "miss": len(flying), "half": len(flying) // 2}[accuracy[face]]
            caf = sum(flying[: len(flying) - misses])
            on_target[caf] = on_target.get(caf, 0) + 1
        for caf, count in on_target.items():
            index = largest_column(crt, caf) if caf > 0 else None
            columns.add(None if index is None else crt.columns[index])
            if index is None:
                losses[None] += weight * count * 6
                interdiction[None] += weight * count * 6
                count_cell(_NO_CELL, None, weight * count * 6)
                continue
            tally = _crt_tally(tables, crt.columns[index])
            for loss, times in tally.losses:
                losses[loss] += weight * count * times
            for turns, times in tally.interdiction:
                interdiction[turns] += weight * count * times
            for cell_key, cell, times in tally.cells:
                count_cell(cell_key, cell, weight * count * times)
        if not flying:
            columns.add(None)
            losses[None] += weight * 36
            interdiction[None] += weight * 36
            count_cell(_NO_CELL, None, weight * 36)

    def chances(counts: Counter[Any]) -> dict[Any, Fraction]:
        return {value: _in_216ths(count) for value, count in counts.items()}

    found = ChainPreview(
        aa_total=aa_total,
        attrition_column=column,
        units_lost=tuple(sorted(chances(lost).items())),
        losses=tuple(sorted(chances(losses).items(), key=lambda pair: _cell_order(pair[0]))),
        interdiction=tuple(
            sorted(chances(interdiction).items(), key=lambda pair: _cell_order(pair[0]))
        ),
        cells=tuple((cell, _in_216ths(count)) for cell, count in cells.values()),
        columns=frozenset(columns),
    )
    _CHAIN_CACHE[key] = (tables, found)
    return found


def chain_distribution(combat: CombatInput, tables: Tables) -> Distribution:
    """The whole chain's cells on the target hex, folded (`chain_preview`): the same
    cells, chances and meanings as enumerating every die, without the dice that do not
    decide the target hex's cell (the Direction and the astray hex's CRT)."""
    units = tuple(unit.factor for unit in combat.attackers)
    found = chain_preview(units, combat.aaf, combat.long_range, tables)
    outcomes: list[tuple[Any, Fraction, str]] = []
    details: list[dict[str, Any]] = []
    for cell, chance in found.cells:
        effects: dict[str, Any] = {"attacker": {}, "defender": {}, "markers": [], "notes": []}
        if cell is None:
            meaning = "No CAF reached the target hex."
        else:
            _crt_effects(cell, effects, tables)
            meaning = hex_words(effects)
        outcomes.append((cell, chance, meaning))
        details.append(effects)
    columns = sorted(found.columns, key=lambda c: (c is None, int(c) if c else 0))
    return Distribution(
        ruleset=combat.ruleset,
        odds=None,
        column=columns[0] if len(columns) == 1 else None,
        columns=tuple(columns),
        outcomes=tuple(outcomes),
        details=tuple(details),
        inputs=combat.to_dict(),
    )


def whole_chain(combat: CombatInput, tables: Tables) -> Distribution:
    """The whole chain's chances, folded: one read first refuses what the chain refuses."""
    resolve(combat, tables, Roller(random.Random(0)))
    return chain_distribution(combat, tables)
