"""OCS (DAK-II): terrain row, odds column, surprise and its shift, the DRM, and the
attacker and defender halves of the result."""

from __future__ import annotations

import operator
import random
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

from tui.engine.dice import Roller, check_roll, total_distribution
from tui.engine.errors import InputError
from tui.engine.model import CombatInput, Distribution, Outcome
from tui.engine.odds import apply_shifts, label_terms
from tui.engine.rulesets.common import (
    check_whole,
    computed_ratio,
    explain,
    finish,
    pick_column,
    ratio_column,
    same_but_factors,
    side_totals,
)
from tui.engine.rulesets.ocs import supply as ocs_supply
from tui.engine.tables import OCS_TERRAINS, Tables, tokenize

TERRAIN_IDS = {t.lower().replace(" ", "-"): t for t in OCS_TERRAINS}


def terrain_name(terrain: str | None) -> str:
    key = (terrain or "open").lower().replace(" ", "-")
    if key not in TERRAIN_IDS:
        raise InputError(
            "terrain", terrain, "one of " + ", ".join(TERRAIN_IDS), choices=TERRAIN_IDS
        )
    return TERRAIN_IDS[key]


def row_key(total: int, tables: Tables) -> str:
    rules = tables.data["ocs"]
    if total <= rules["row_min"]:
        return f"<={rules['row_min']}"
    if total >= rules["row_max"]:
        return f">={rules['row_max']}"
    return str(total)


# The OCS dice, (count, sides): the surprise roll, its shift die and the result roll.
SURPRISE_DICE, SHIFT_DIE, RESULT_DICE = (2, 6), (1, 6), (2, 6)


def surprise(
    combat: CombatInput, tables: Tables, roller: Roller, trace: list[str]
) -> tuple[str | None, int]:
    """Who gains surprise (attacker, defender or nobody) and the shift (+ attacker's way)."""
    rules = tables.data["ocs"]
    bonus = rules["hedgehog_surprise_bonus"] if combat.hedgehog > 0 else 0
    difference, attacker_from, defender_to = ocs_supply.surprise_limits(combat, tables)
    kind = "overrun" if combat.overrun else "regular"
    raw = roller.roll("surprise", *SURPRISE_DICE, combat.surprise_roll, "surprise_roll")
    total = raw + difference
    hedgehog = f" (defender AR +{bonus} in a hedgehog)" if bonus else ""
    trace.append(
        f"Surprise: 2d6 {raw} {difference:+d} AR difference{hedgehog} = {total}; "
        f"{kind} attack: attacker from {attacker_from}, defender at {defender_to} or less"
    )
    if total >= attacker_from:
        side, sign = "attacker", 1
    elif total <= defender_to:
        side, sign = "defender", -1
    else:
        trace.append("Nobody gains surprise")
        if combat.shift_roll is not None:
            # A roll by hand is checked even when nothing reads it (RULINGS).
            check_roll("shift_roll", combat.shift_roll, 1, 6, "1d6")
            trace.append(f"The shift roll {combat.shift_roll} is not used")
        return None, 0
    shift = roller.roll("surprise shift", *SHIFT_DIE, combat.shift_roll, "shift_roll")
    trace.append(f"The {side} gains surprise: 1d6 {shift} columns its way")
    return side, sign * shift


def decode(cell: str, tables: Tables) -> dict[str, Any]:
    """Split a printed OCS cell into per-side effects and markers."""
    # Notes say what this result does; reminders, the rules every such result follows.
    effects: dict[str, Any] = {
        "attacker": {},
        "defender": {},
        "markers": [],
        "notes": [],
        "reminders": [],
    }
    side: str | None = None
    codes = tokenize(cell, tables.data["ocs"]["crt"]["tokens"]) or []
    for code in codes:
        if code in ("A", "D"):
            side = "attacker" if code == "A" else "defender"
        elif code == "DG":
            effects["defender"]["disorganized"] = True
        elif code[0] == "L":
            effects[side or "attacker"]["steps_lost"] = int(code[1:])
        elif code[0] == "o":
            effects[side or "attacker"]["option"] = int(code[1:])
        elif code[0] == "e":
            effects["attacker"]["exploit_min_ar"] = int(code[1:])
    exploit = effects["attacker"].get("exploit_min_ar")
    if exploit is not None:
        effects["markers"].append({"kind": "exploitation", "side": "attacker", "min_ar": exploit})
        effects["reminders"].append(
            "No exploitation from an attack from 3+ hexes or two non-adjacent hexsides."
        )
    if effects["defender"].get("disorganized"):
        effects["markers"].append({"kind": "DG", "side": "defender"})
    if any("option" in effects[s] for s in ("attacker", "defender")):
        effects["reminders"].append(
            "Options are taken attacker first; a unit retreating 2+ hexes is DG on entering the second hex."
        )
    return effects


def cell_effects(
    combat: CombatInput, cell: str, tables: Tables, trace: list[str]
) -> dict[str, Any]:
    """A cell's effects for this combat, executed (supply, options, DG, exploitation)."""
    effects = decode(cell, tables)
    effects.setdefault("attacker", {})
    effects.setdefault("defender", {})
    ocs_supply.execute(combat, effects, tables, trace)
    return effects


# Tables the cache has seen, by id, kept alive so an id is never reused for other tables.
_TABLES: dict[int, Tables] = {}


@lru_cache(maxsize=512)
def cell_chances(
    tables_id: int,
    terrain: str,
    index: int,
    drm: int,
    difference: int,
    attacker_from: int,
    defender_to: int,
) -> tuple[tuple[str, Fraction], ...]:
    """The exact chance of each cell, with the surprise roll, its shift die and the result
    roll folded in (9.2): what decides it is the odds column, the DRM and the surprise
    thresholds. Cached: the preview asks again on every keystroke."""
    tables = _TABLES[tables_id]
    chart = tables.terrain_chart("ocs.crt")
    columns = chart.columns_by_terrain[terrain]
    last = len(columns) - 1
    # Counted in whole ways the dice fall (each total's ways, times the shift die's faces
    # where it is rolled), made exact chances once at the end: the same Fractions.
    surprise, surprise_ways = _ways(*SURPRISE_DICE)
    result, result_ways = _ways(*RESULT_DICE)
    sides = SHIFT_DIE[1]
    # The ways to each final column index, out of surprise_ways * sides.
    at: dict[int, int] = {}
    for total, ways in surprise:
        total += difference
        if total >= attacker_from:
            moves = [(min(index + k, last), ways) for k in range(1, sides + 1)]
        elif total <= defender_to:
            moves = [(max(index - k, 0), ways) for k in range(1, sides + 1)]
        else:
            moves = [(index, ways * sides)]
        for where, n in moves:
            at[where] = at.get(where, 0) + n
    cells: dict[str, int] = {}
    for where, n in at.items():
        for total, ways in result:
            cell = chart.cell(row_key(total + drm, tables), terrain, columns[where])
            cells[cell] = cells.get(cell, 0) + n * ways
    whole = surprise_ways * sides * result_ways
    chances = ((cell, Fraction(n, whole)) for cell, n in cells.items())
    return tuple(sorted(chances, key=lambda pair: (-pair[1], pair[0])))


def _ways(count: int, sides: int) -> tuple[tuple[tuple[int, int], ...], int]:
    """Each total of `count` dice with the ways it falls, and the ways all the dice fall."""
    whole = sides**count
    ways = tuple((total, int(chance * whole)) for total, chance in total_distribution(count, sides))
    return ways, whole


def distribution(combat: CombatInput, tables: Tables, first: Outcome | None = None) -> Distribution:
    """The exact distribution of the final cell when no die is entered by hand, folded
    (`cell_chances`) rather than enumerated: the same as enumerating all three rolls.
    `first`, where given, is `combat` resolved with `random.Random(0)`'s dice (a preview's
    first probe): its odds and column are the ones resolving it here would read."""
    if first is None and column_alone(combat):
        # What it reads before the dice is all it needs of a probe (the odds, their
        # column): its result read could refuse nothing.
        read = read_column(combat, tables, Roller(random.Random(0)), [])
        odds_column: str | None = read.odds_column
        odds, terrain = read.odds, read.terrain
        ratio = computed_ratio(combat, odds)
    else:
        if first is None:
            first = resolve(combat, tables, Roller(random.Random(0)))
        odds, odds_column, terrain = first.odds, first.odds_column, first.effects["terrain"]
        ratio = first.ratio
    rated = ocs_supply.with_unit_ars(combat)
    columns = tables.terrain_chart("ocs.crt").columns_by_terrain[terrain]
    _TABLES.setdefault(id(tables), tables)
    chances = cell_chances(
        id(tables),
        terrain,
        columns.index(odds_column),
        ocs_supply.result_drm(rated),
        *ocs_supply.surprise_limits(rated, tables),
    )
    details = cell_details(rated, tuple(cell for cell, _ in chances), tables)
    outcomes, kept_details = _outcomes(chances, details)
    return Distribution(
        ruleset=combat.ruleset,
        odds=odds,
        ratio=ratio,
        column=odds_column,
        columns=(odds_column,),
        outcomes=outcomes,
        details=kept_details,
        inputs=combat.to_dict(),
    )


# The last few outcomes and details handed out, the latest first, with the chances (the
# very tuple, kept by `cell_chances`) they were made of: the same chances with the same
# cells' effects (the very dicts, kept by `cell_details`) give the same tuples again, so a
# preview on them ranks and words its rows once (tui.engine.preview.preview_rows). A few:
# a digit typed and taken back reads one column, another, then the first again.
_LAST_OUTCOMES: list[tuple[Any, tuple[Any, ...], tuple[Any, ...]]] = []
KEPT_OUTCOMES = 4


def _outcomes(
    chances: tuple[tuple[str, Fraction], ...], details: list[dict[str, Any]]
) -> tuple[tuple[tuple[Any, Fraction, str], ...], tuple[dict[str, Any], ...]]:
    """Each cell with its chance and meaning, and each one's effects, as tuples."""
    for last_chances, outcomes, last_details in _LAST_OUTCOMES:
        if last_chances is chances and all(map(operator.is_, details, last_details)):
            return outcomes, last_details
    outcomes = tuple(
        (cell, p, effects["summary"]) for (cell, p), effects in zip(chances, details, strict=True)
    )
    kept = tuple(details)
    _LAST_OUTCOMES.insert(0, (chances, outcomes, kept))
    del _LAST_OUTCOMES[KEPT_OUTCOMES:]
    return outcomes, kept


# The last combat's cells as carried out (each cell's effects and what they mean), with
# its tables and the combat: a combat that differs from it only in its units' factors (what
# carrying a result out never reads: it reads their steps, ratings, supply and names) is
# answered from them, when the same types all through (`same`). Typing a factor asks for
# a new combat whose cells mean what they meant. Shared by the Distributions that read
# them: read, never changed.
_LAST_CELLS: list[tuple[Tables, CombatInput, dict[str, dict[str, Any]]]] = []


def cell_details(
    combat: CombatInput, cells: tuple[str, ...], tables: Tables
) -> list[dict[str, Any]]:
    """Each of `cells`' effects carried out for `combat`, with their summary: those of the
    last combat asked where it differs only in factors (as working them out gives them),
    else worked out (a cell refused for the combat is not kept)."""
    kept: dict[str, dict[str, Any]] = {}
    if _LAST_CELLS:
        kept_tables, last, found = _LAST_CELLS[0]
        if kept_tables is tables and same_but_factors(last, combat):
            kept = found
    details = []
    for cell in cells:
        effects = kept.get(cell)
        if effects is None:
            effects = cell_effects(combat, cell, tables, [])
            effects["summary"] = explain(effects)
            kept[cell] = effects
        details.append(effects)
    _LAST_CELLS[:] = [(tables, combat, kept)]
    return details


class ColumnRead(NamedTuple):
    """What a combat reads before its result dice: its terrain row, the odds and their
    column, the surprise and its shift, the column the result is read on, and the DRM."""

    combat: CombatInput  # with each side's AR read from its units
    terrain: str
    columns: tuple[str, ...]
    attack: int | None
    defense: int | float | None
    odds: str | None
    odds_column: str
    drm: int
    side: str | None
    shift: int
    shifts: list[str]
    column: str


def read_column(
    combat: CombatInput, tables: Tables, roller: Roller, trace: list[str]
) -> ColumnRead:
    """The combat read up to its result dice (its resolve goes on from here): the column
    the result is read on, after surprise. Raises InputError as resolving it would."""
    ocs_supply.check_units(combat)
    ocs_supply.require_supply(combat)
    combat = ocs_supply.with_unit_ars(combat)
    terrain = terrain_name(combat.terrain)
    chart = tables.terrain_chart("ocs.crt")
    columns = chart.columns_by_terrain[terrain]
    for name in ("attacker_ar", "defender_ar", "hedgehog"):
        check_whole(name, getattr(combat, name))
    trace.append(f"Terrain row {terrain} (the defender's choice, 9.3b)")
    attack = defense = None
    if combat.column is not None:
        index = pick_column(columns, combat.column, trace)
        odds = combat.column
    else:
        attack, defense = side_totals(combat, trace)
        if combat.defender_unsupplied:
            # Defending at half strength: A / (D/2) is 2A / D, read exactly.
            trace.append(
                f"The defender withholds combat supply and defends at half strength: {defense / 2:g}"
            )
            odds, index = ratio_column(
                columns, 2 * attack, defense, ":", trace, "read the first column (desk ruling)"
            )
            defense = defense // 2 if defense % 2 == 0 else defense / 2  # type: ignore[assignment]
        else:
            odds, index = ratio_column(
                columns, attack, defense, ":", trace, "read the first column (desk ruling)"
            )
    odds_column = columns[index]
    drm = ocs_supply.result_drm(combat)
    trace.append(
        f"DRM {drm:+d} = attacker AR {combat.attacker_ar} - defender AR {combat.defender_ar}"
        + (f" - hedgehog {combat.hedgehog}" if combat.hedgehog else "")
    )
    side, shift = surprise(combat, tables, roller, trace)
    effects_shifts: list[str] = []
    if shift:
        moved = apply_shifts(columns, index, [(f"Surprise ({side})", shift)])
        index = moved.index
        effects_shifts = moved.describe()
        trace.extend(f"Shift: {s}" for s in effects_shifts)
    return ColumnRead(
        combat,
        terrain,
        columns,
        attack,
        defense,
        odds,
        odds_column,
        drm,
        side,
        shift,
        effects_shifts,
        columns[index],
    )


def column(combat: CombatInput, tables: Tables, roller: Roller) -> str | None:
    """The column the result of `combat` is read on with `roller`'s dice, its result not
    read (Ruleset.column)."""
    return read_column(combat, tables, roller, []).column


def read_before_dice(combat: CombatInput, tables: Tables) -> Outcome:
    """`combat` read with `random.Random(0)`'s dice up to its result dice
    (Ruleset.read_before_dice): what resolving it with them gives of its totals, odds,
    surprise, shifts, columns and ratio, and its terrain; no roll, cell or trace."""
    read = read_column(combat, tables, Roller(random.Random(0)), [])
    effects: dict[str, Any] = {"terrain": read.terrain}
    if read.side:
        effects["surprise"] = {"side": read.side, "shift": abs(read.shift)}
    if read.shifts:
        effects["shifts"] = read.shifts
    return Outcome(
        ruleset=combat.ruleset,
        attack_total=read.attack,
        defense_total=read.defense,
        odds=read.odds,
        column=read.column,
        roll=None,
        cell=None,
        effects=effects,
        explanation="",
        trace=[],
        odds_column=read.odds_column,
        ratio=computed_ratio(read.combat, read.odds),
    )


def column_guesses(combat: CombatInput, first: Outcome, tables: Tables) -> tuple[int, ...]:
    """The least attack added to `combat` (read as `first`) that reaches each column right
    of its odds column, by the columns' ratios (Ruleset.column_guesses): the attack total
    grows by the factor added, against the defence (halved for a defender without combat
    supply, as its total says). Guesses: the preview's search probes each."""
    attack, defense, terrain = first.attack_total, first.defense_total, first.effects["terrain"]
    if not isinstance(attack, int) or not isinstance(defense, int | float) or defense <= 0:
        return ()
    columns = tables.terrain_chart("ocs.crt").columns_by_terrain[terrain]
    start = columns.index(first.odds_column) + 1
    # The least whole attack A with A / defence at least the column's ratio: the ratio's
    # numerator times the defence over its denominator, rounded up (a halved defence as the
    # exact Fraction of its float; whole numbers stay whole, as `//` of a Fraction is).
    exact = Fraction(defense) if isinstance(defense, float) else defense
    return tuple(-(-top * exact // bottom) - attack for top, bottom in label_terms(columns)[start:])


def column_alone(combat: CombatInput) -> bool:
    """Whether reading the column alone answers as resolving would: not when an option's
    retreat is given, which the result read may refuse, nor a result roll by hand (checked
    as it is read)."""
    return (
        combat.attacker_option_retreat is None
        and combat.defender_option_retreat is None
        and combat.roll is None
    )


def resolve(combat: CombatInput, tables: Tables, roller: Roller) -> Outcome:
    trace: list[str] = []
    read = read_column(combat, tables, roller, trace)
    combat, terrain, drm, side, shift = read.combat, read.terrain, read.drm, read.side, read.shift
    attack, defense, odds, odds_column = read.attack, read.defense, read.odds, read.odds_column
    effects_shifts, column = read.shifts, read.column
    chart = tables.terrain_chart("ocs.crt")
    # The result dice as they lie (RULINGS, "Dice"): entered by hand or rolled, the DRM added.
    raw = roller.roll("combat", *RESULT_DICE, combat.roll, "roll", modifier=drm)
    total = raw + drm
    how = " (by hand)" if combat.roll is not None else ""
    trace.append(f"Combat roll: 2d6 {raw}{how} {drm:+d} DRM = {total}")
    roll = row_key(total, tables)
    roller.read_row(roll)
    cell = chart.cell(roll, terrain, column)
    trace.append(f"Row {roll}, column {column}: {cell}")
    effects = cell_effects(combat, cell, tables, trace)
    effects["terrain"] = terrain
    if side:
        effects["surprise"] = {"side": side, "shift": abs(shift)}
    if effects_shifts:
        effects["shifts"] = effects_shifts
    outcome = finish(
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
    # What the cell means, then how it was carried out (supply, options, markers).
    effects["cell_summary"] = outcome.explanation
    outcome.explanation = result_words(effects, odds_column, column)
    return outcome


def result_words(
    effects: dict[str, Any], odds_column: str | None, column: str | None, brief: bool = False
) -> str:
    """The surprise, what the cell means, then how it was carried out (supply, options,
    markers). `brief`, for the result box: without the rules' reminders, and exploitation
    said once, as carried out."""
    surprise = effects.get("surprise")
    surprised = []
    if isinstance(surprise, dict) and surprise.get("side"):
        shift = surprise.get("shift")
        surprised.append(
            f"Surprise to the {surprise.get('side')}: {shift} column{'s' if shift != 1 else ''} "
            f"its way, {odds_column} to {column}."
        )
    if brief:
        said = dict(effects)
        if effects.get("exploitation"):
            attacker = effects.get("attacker", {})
            said["attacker"] = {k: v for k, v in attacker.items() if k != "exploit_min_ar"}
        meaning = explain(said, brief=True)
    else:
        meaning = effects.get("cell_summary") or explain(effects)
    return " ".join([*surprised, meaning, *effects.get("executed", [])])
