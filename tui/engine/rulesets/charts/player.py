"""A player's chart resolved (the chart's data and the charts known: tui.engine.rulesets.charts.chart):
the totals with each side's multipliers, the odds or differential column with its shifts
and what lies beyond each end, the die with its capped DRM and the rows' ends, the cell and
its meanings; and the chart's inputs as schema fields. Never imports textual."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, NamedTuple

from tui.engine.dice import Roller, check_roll
from tui.engine.errors import InputError
from tui.engine.model import CombatInput, Outcome, Unit
from tui.engine.odds import apply_shifts
from tui.engine.records import same
from tui.engine.rulesets.charts.chart import (
    Beyond,
    Modifier,
    PlayerChart,
    first_beyond,
    shown_number,
    signed,
)
from tui.engine.rulesets.common import finish, pick_column, require_attack, require_defense
from tui.engine.rulesets.common import units_total as _units_total

# --- resolving ----------------------------------------------------------------------------------

# The combat's fields a player's chart does not read, each with its value when unset (worked
# out once: this check runs on every preview, and on each of the next column's probes).
_BLANK = CombatInput("")
_UNREAD = tuple(
    (name, getattr(_BLANK, name))
    for name in CombatInput.__struct_fields__
    if name not in ("ruleset", "attackers", "defenders", "column", "roll", "modifiers")
)


def check_inputs(combat: CombatInput, chart: PlayerChart) -> None:
    """Refuse what a player's chart does not read, and each modifier's value it does not take."""
    for name, unset in _UNREAD:
        if name == "rerolls" and chart.rerolls:  # the dice of re-rolls rolled by hand
            continue
        if getattr(combat, name) != unset:
            raise InputError(
                name,
                getattr(combat, name),
                f"nothing in {combat.ruleset}: a player's chart reads its own modifiers",
            )
    for units, side, whose in (
        (combat.attackers, "attack", "attacker"),
        (combat.defenders, "defense", "defender"),
    ):
        for unit in units:
            if any(
                getattr(unit, key) is not None
                for key in ("steps", "ar", "kind", "supply", "re", "stocks")
            ):
                raise InputError(side, unit.factor, f"a plain factor in {combat.ruleset}")
            if unit.terrain is not None and chart.marked(whose, unit.terrain) is None:
                marks = chart.marks(whose)
                allowed = (
                    f"a factor N, or N@MARK with MARK one of {', '.join(marks)} "
                    f"(the {whose}'s marks in {combat.ruleset})"
                    if marks
                    else f"a plain factor in {combat.ruleset} (no N@MARK: it marks no {whose}'s unit)"
                )
                raise InputError(side, f"{unit.factor}@{unit.terrain}", allowed)
    seen = set()
    for name, value in combat.modifiers:
        if name in seen:
            raise InputError(name, value, "one value per modifier")
        seen.add(name)
        mod = chart.modifier(name)
        if mod.on == "unit":
            said = ", ".join(f"N@{mark}" for mark in mod.marks)
            raise InputError(name, value, f"a mark on a {mod.side}'s unit ({said}), not a value")
        mod.check(value)


def _is_set(chart: PlayerChart, combat: CombatInput, name: str) -> bool:
    """Whether modifier `name` is set: a tick ticked, a choice chosen, a number not 0, a
    unit mark carried by a unit."""
    mod = chart.modifier(name)
    if mod.on == "unit":
        units = combat.attackers if mod.side == "attacker" else combat.defenders
        return any(unit.terrain in mod.marks for unit in units)
    value = dict(combat.modifiers).get(name)
    return value is not None and value is not False and value != 0


def _acts(chart: PlayerChart, combat: CombatInput, mod: Modifier, trace: list[str]) -> bool:
    """Whether a modifier that is set acts: it needs none, or the one it needs is set (if
    not, the trace says so)."""
    if mod.needs is None or _is_set(chart, combat, mod.needs):
        return True
    needed = chart.modifier(mod.needs)
    trace.append(f"{mod.label}: needs {needed.label}, not set: no effect")
    return False


def _steps(mod: Modifier, value: Any, trace: list[str]) -> None:
    """A number counted in steps of `per`, said: "Artillery 13: 2 steps of 6 (rounded
    down) x +1"."""
    if mod.per is None or value is None:
        return
    steps = mod.steps(value)
    how = "to the nearest" if mod.round == "nearest" else mod.round
    by = f"x{shown_number(mod.by)}" if mod.effect == "multiply" else signed(mod.by)
    trace.append(
        f"{mod.label} {value}: {steps} step{'s' if steps != 1 else ''} of {mod.per} "
        f"(rounded {how}) x {by}"
    )


def _units(
    chart: PlayerChart, units: tuple[Unit, ...], side: str, combat: CombatInput, trace: list[str]
) -> Fraction:
    """A side's total, each unit's factor first changed by the unit modifier its mark names."""
    total = Fraction(0)
    for unit in units:
        factor = Fraction(unit.factor)
        mod = None if unit.terrain is None else chart.marked(side, unit.terrain)
        if mod is not None and unit.terrain is not None and _acts(chart, combat, mod, trace):
            amount = mod.mark_amount(unit.terrain)
            if mod.effect == "multiply":
                after = factor * amount
                how = f"x{shown_number(amount)}"
            else:
                after = max(Fraction(0), factor + amount)
                how = signed(amount) + (" (never below 0)" if factor + amount < 0 else "")
            trace.append(
                f"{mod.label}: {side}'s unit {unit.factor}@{unit.terrain} {how} -> "
                f"{shown_number(after)}"
            )
            factor = after
        total += factor
    return total


def _totals(combat: CombatInput, chart: PlayerChart, trace: list[str]) -> tuple[Fraction, Fraction]:
    _units_total("attack", combat.attackers)  # each factor checked
    _units_total("defense", combat.defenders)
    attack = _units(chart, combat.attackers, "attacker", combat, trace)
    defense = _units(chart, combat.defenders, "defender", combat, trace)
    trace.append(f"Attack total {shown_number(attack)}, defence total {shown_number(defense)}")
    totals = {"attacker": attack, "defender": defense}
    set_values = dict(combat.modifiers)
    for mod in chart.modifiers:
        if mod.effect not in ("multiply", "add") or mod.side is None or mod.on == "unit":
            continue
        amount = mod.amount(set_values.get(mod.name))
        if amount is None or not _acts(chart, combat, mod, trace):
            continue
        _steps(mod, set_values.get(mod.name), trace)
        before = totals[mod.side]
        if mod.effect == "multiply":
            after = before * amount
            how = f"x{shown_number(amount)}"
        else:
            after = max(Fraction(0), before + amount)
            how = signed(amount) + (" (never below 0)" if before + amount < 0 else "")
        totals[mod.side] = after
        trace.append(
            f"{mod.label}: {mod.side} {shown_number(before)} {how} -> {shown_number(after)}"
        )
    return totals["attacker"], totals["defender"]


def _net(
    chart: PlayerChart,
    combat: CombatInput,
    effect: str,
    cap: int | None,
    trace: list[str],
    beyond: tuple[str, Beyond] | None = None,
) -> tuple[list[tuple[str, int]], int]:
    """Each shift or DRM set (and the one beyond the columns' end), and their net within
    the cap (the one beyond the end added after it where the chart says so)."""
    set_values = dict(combat.modifiers)
    found: list[tuple[str, int]] = []
    for mod in chart.modifiers:
        if mod.effect != effect:
            continue
        amount = mod.amount(set_values.get(mod.name))
        if amount is None or not _acts(chart, combat, mod, trace):
            continue
        _steps(mod, set_values.get(mod.name), trace)
        if amount:
            found.append((mod.label, int(amount)))
    outside = 0
    if beyond is not None:
        where, extra = beyond
        added = extra.drm if effect == "drm" else extra.shift
        if added:
            found.append((where, added))
            outside = added if extra.caps == "outside" else 0
    net = sum(amount for _, amount in found) - outside
    if cap is not None and abs(net) > cap:
        capped = cap if net > 0 else -cap
        what = "DRM" if effect == "drm" else "shift"
        trace.append(
            f"Net {what} {net:+d} capped at {capped:+d} (the chart allows {cap} either way)"
        )
        return found, capped + outside
    return found, net + outside


Read = tuple[str, str | None, int | None, str | None, tuple[str, Beyond] | None]


def _column_set(
    chart: PlayerChart, combat: CombatInput, trace: list[str]
) -> tuple[tuple[str, ...], tuple[Fraction, ...]]:
    """The columns a combat reads: the set its columns choice names (unset, the first)."""
    if chart.columns_by is None:
        return chart.columns, chart.values
    mod = chart.modifier(chart.columns_by)
    value = dict(combat.modifiers).get(mod.name)
    if value is None:
        trace.append(f"{mod.label} not set: the {chart.column_sets[0][0]} columns")
    else:
        trace.append(f"{mod.label} {value}: the {value} columns")
    return chart.columns_for(value)


def _column(
    chart: PlayerChart,
    columns: tuple[str, ...],
    values: tuple[Fraction, ...],
    attack: Fraction,
    defense: Fraction,
    trace: list[str],
) -> Read:
    """(odds as read, ratio, column index or None, the automatic code or None, what is
    added beyond an end or None): the rightmost column whose ratio (or difference) is at
    most attack/defence (attack - defence), exactly; below the first column, or whole odds
    (a whole difference) above the last, what the chart says lies beyond."""
    if chart.kind == "differential":
        exact = attack - defense
        difference = math.floor(exact)
        odds = f"{difference:+d}" if difference else "0"
        rounded = " (rounded down, in the defender's favour)" if difference != exact else ""
        trace.append(
            f"Difference {shown_number(attack)} - {shown_number(defense)} = {odds}{rounded}"
        )
        ratio = odds
        said = odds
    else:
        if defense == 0:
            trace.append("Defence total 0: beyond the last column")
            index, code, extra = _beyond(chart, columns, "right", trace)
            return "-", None, index, code, extra
        exact = attack / defense
        separator = ":" if ":" in columns[0] else "-"
        if chart.fractional:
            odds = ratio = f"{exact.numerator}{separator}{exact.denominator}"
            trace.append(
                f"Ratio {shown_number(attack)}/{shown_number(defense)} = {float(exact):.3f}: "
                f"odds {odds}"
            )
            said = str(exact)
        else:
            if attack >= defense:
                left, right = math.floor(exact), 1
            else:
                left, right = 1, math.ceil(1 / exact)
            odds = ratio = said = f"{left}{separator}{right}"
            trace.append(
                f"Ratio {shown_number(attack)}/{shown_number(defense)} = {float(exact):.3f}; "
                f"odds rounded for the defender: {odds}"
            )
    if exact < values[0]:
        trace.append(f"{odds} is below the first column {columns[0]}")
        index, code, extra = _beyond(chart, columns, "left", trace)
        return odds, ratio, index, code, extra
    if exact >= first_beyond(chart.kind, values[-1]) and not columns[-1].endswith("+"):
        trace.append(f"{odds} is beyond the last column {columns[-1]}")
        index, code, extra = _beyond(chart, columns, "right", trace)
        return odds, ratio, index, code, extra
    index = max(i for i, v in enumerate(values) if v <= exact)
    if chart.fractional:
        trace.append(
            f"Column {columns[index]} (the rightmost column whose ratio is at most {said})"
        )
    else:
        trace.append(f"Column {columns[index]} (the rightmost column not above {said})")
    return odds, ratio, index, None, None


def _beyond(
    chart: PlayerChart, columns: tuple[str, ...], end: str, trace: list[str]
) -> tuple[int | None, str | None, tuple[str, Beyond] | None]:
    code = chart.left if end == "left" else chart.right
    if code is None:
        index = 0 if end == "left" else len(columns) - 1
        trace.append(f"Read on the end column {columns[index]}")
        extra = chart.left_beyond if end == "left" else chart.right_beyond
        if extra is None:
            return index, None, None
        where = "Below the first column" if end == "left" else "Beyond the last column"
        trace.append(f"{where}: {extra.text()}")
        return index, None, (where, extra)
    trace.append(f"Automatic result {code}: {chart.results[code]}")
    return None, code, None


def _meanings(chart: PlayerChart, cell: Any) -> list[str]:
    """What a cell means: its code's meaning; each code named where a cell holds several."""
    if not isinstance(cell, tuple):
        return [_sentence(str(chart.meaning(cell)))]
    return [_sentence(f"{code}: {chart.meaning(code)}") for code in cell]


def rank(chart: PlayerChart, cell: Any) -> float:
    """How good a result is for the attacker, for luck: the place of its code's entry in
    [results] (listed from the attacker's worst to its best; an entry with `tie = true`
    shares the place of the one before; an exact code's entry before a pattern's); a cell
    of several codes, their mean."""
    codes = cell if isinstance(cell, tuple) else (cell,)
    order = list(chart.results)
    places = []
    for code in codes:
        entry = chart.entry(code) if isinstance(code, str) else None
        if entry is not None:
            places.append(chart.ranks.get(entry, order.index(entry)))
    return sum(places) / len(places) if places else 0.0


def _read_roll(
    chart: PlayerChart,
    columns: tuple[str, ...],
    roller: Roller,
    index: int,
    drm: int,
    manual: int | None,
    purpose: str,
    trace: list[str],
) -> tuple[Any, int]:
    """One roll of the chart's dice with the net DRM, read on column `index` (of `columns`,
    the set the combat reads): the cell and
    the roll read (the end row's where it was clamped to it), in one line of the trace."""
    field = "roll" if purpose == "combat" else "rerolls"
    total = roller.roll(purpose, chart.count, chart.sides, manual, field, modifier=drm)
    modified = total + drm
    source = "entered by hand" if manual is not None else "rolled by the desk"
    said = f"{chart.dice} {total} ({source})" + (f" {drm:+d} DRM = {modified}" if drm else "")
    if purpose != "combat":
        said = f"{purpose.capitalize()}: {said}"
    column = columns[index]
    row = chart.row_for(modified)
    if row is None:
        below = modified < chart.rows[0].low
        end = chart.low if below else chart.high
        if end is not None:
            roller.read_row(str(modified))
            trace.append(f"{said}: {'below the first' if below else 'above the last'} row: {end}")
            return end, modified
        row = chart.rows[0] if below else chart.rows[-1]
        read = row.low if below else row.high
        where = f": beyond the rows, read on row {row.label} (clamped); column {column}"
    else:
        read = modified
        where = f"; row {row.label}, column {column}"
    roller.read_row(row.label)
    cell = row.cells[index]
    shown = " / ".join(cell) if isinstance(cell, tuple) else cell
    trace.append(f"{said}{where}: {shown}")
    return cell, read


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."


class ChartRead(NamedTuple):
    """What a combat on a chart reads before its dice: the columns, the totals and odds,
    an automatic result (then no column), the column the first roll reads (after every
    shift) and the net DRM."""

    columns: tuple[str, ...]
    attack_total: int | float | None
    defense_total: int | float | None
    odds: str | None
    ratio: str | None
    automatic: str | None
    at: int | None  # the column's index in `columns`
    drm: int


# The last combat read up to its dice: its chart, the combat, the reading, and the lines it
# added to the trace and the shifts it said. A preview reads one combat on every path of its
# dice (and once more for its totals): read once, the rest replay it. Kept only for a combat
# of the same types all through (`same`: the trace shows its numbers as given).
_LAST_READ: list[tuple[PlayerChart, CombatInput, ChartRead, tuple[str, ...], Any]] = []


def read_column(
    chart: PlayerChart, combat: CombatInput, trace: list[str], effects: dict[str, Any]
) -> ChartRead:
    """A checked combat read up to its dice (`resolve_checked` goes on from here): the last
    combat read is not read again, its trace lines and shifts are given as they were."""
    if _LAST_READ:
        kept_chart, kept, reading, lines, shifts = _LAST_READ[0]
        if kept_chart is chart and same(kept, combat):
            trace.extend(lines)
            if shifts is not None:
                effects["shifts"] = list(shifts)
            return reading
    start = len(trace)
    reading = _read_column(chart, combat, trace, effects)
    shifts = effects.get("shifts")
    _LAST_READ[:] = [
        (chart, combat, reading, tuple(trace[start:]), None if shifts is None else tuple(shifts))
    ]
    return reading


def _read_column(
    chart: PlayerChart, combat: CombatInput, trace: list[str], effects: dict[str, Any]
) -> ChartRead:
    if combat.roll is not None:
        check_roll("roll", combat.roll, chart.count, chart.count * chart.sides, chart.dice)
    attack: Fraction | None = None
    defense: Fraction | None = None
    ratio: str | None = None
    automatic: str | None = None
    index: int | None
    beyond: tuple[str, Beyond] | None = None
    columns, values = _column_set(chart, combat, trace)
    if combat.column is not None:
        index = pick_column(columns, combat.column, trace)
        odds: str | None = combat.column
    else:
        require_defense(combat.defenders)
        attack, defense = _totals(combat, chart, trace)
        require_attack(1 if attack > 0 else 0, combat.attackers)
        odds, ratio, index, automatic, beyond = _column(
            chart, columns, values, attack, defense, trace
        )
    attack_total = None if attack is None else shown_number(attack)
    defense_total = None if defense is None else shown_number(defense)
    if automatic is not None or index is None:
        return ChartRead(columns, attack_total, defense_total, odds, ratio, automatic, None, 0)
    shifts, net_shift = _net(chart, combat, "shift", chart.shift_cap, trace, beyond)
    if net_shift != sum(a for _, a in shifts):
        shifts = [*shifts, ("cap on the net shift", net_shift - sum(a for _, a in shifts))]
    moved = apply_shifts(columns, index, shifts)
    lines = moved.describe()
    trace.extend(f"Shift: {line}" for line in lines)
    if lines:
        effects["shifts"] = lines
    drms, drm = _net(chart, combat, "drm", chart.drm_cap, trace, beyond)
    for label, amount in drms:
        trace.append(f"DRM: {label} {amount:+d}")
    return ChartRead(columns, attack_total, defense_total, odds, ratio, None, moved.index, drm)


def chart_column(chart: PlayerChart, combat: CombatInput) -> str | None:
    """The column a checked combat's result is read on (its automatic result where it
    reads none), its dice not rolled: where `chart_column_alone` says so, as resolving says."""
    reading = read_column(chart, combat, [], {})
    return reading.automatic if reading.at is None else reading.columns[reading.at]


def chart_column_alone(chart: PlayerChart, combat: CombatInput) -> bool:
    """Whether `chart_column` answers for this combat: not where a re-roll could move the column
    (a re-roll code with a shift), nor where re-rolls are given by hand (the result read
    may refuse them)."""
    return not combat.rerolls and not any(rule.shift for rule in chart.rerolls.values())


def resolve_on(chart: PlayerChart, combat: CombatInput, roller: Roller) -> Outcome:
    """One combat on `chart`."""
    check_inputs(combat, chart)
    return resolve_checked(chart, combat, roller)


def resolve_checked(chart: PlayerChart, combat: CombatInput, roller: Roller) -> Outcome:
    """One combat on `chart` whose inputs `check_inputs` has passed (the engine's front
    door checks them through the ruleset)."""
    trace: list[str] = []
    effects: dict[str, Any] = {"attacker": {}, "defender": {}, "markers": [], "notes": []}
    reading = read_column(chart, combat, trace, effects)
    columns, odds, ratio, index = reading.columns, reading.odds, reading.ratio, reading.at
    attack_total, defense_total, drm = reading.attack_total, reading.defense_total, reading.drm
    if reading.automatic is not None or index is None:
        code = reading.automatic or ""
        if combat.roll is not None:
            trace.append(f"No dice: {code} needs no roll (the roll {combat.roll} is not read)")
        effects["result"] = code
        effects["headline"] = [_sentence(f"{code}: {chart.results.get(code, '')}")]
        effects["short"] = f"{code} (automatic)"
        effects["rank"] = rank(chart, code)
        return finish(
            combat,
            cell=None,
            effects=effects,
            trace=trace,
            odds=code,
            ratio=ratio,
            attack_total=attack_total,
            defense_total=defense_total,
        )
    first_column = column = columns[index]
    if combat.rerolls and combat.roll is None:
        raise InputError(
            "rerolls",
            combat.rerolls[0],
            "a re-roll by hand after the roll by hand (--roll): the desk rolls the first die",
        )
    cell, read = _read_roll(chart, columns, roller, index, drm, combat.roll, "combat", trace)
    steps, made = [(column, read, cell)], 0
    while isinstance(cell, str) and cell in chart.rerolls:
        rule = chart.rerolls[cell]
        if sum(1 for *_, c in steps[:-1] if c == cell) >= rule.limit:
            s = "s" if rule.limit != 1 else ""
            trace.append(
                f"{cell} again after {rule.limit} re-roll{s}: {rule.then} "
                f"({chart.meaning(rule.then)})"
            )
            cell = rule.then
            break
        made += 1
        if rule.shift:
            shifted = apply_shifts(columns, index, [(f"Re-roll {made}", rule.shift)])
            trace.extend(f"Shift: {line}" for line in shifted.describe())
            index = shifted.index
        column = columns[index]
        given = combat.rerolls[made - 1] if made <= len(combat.rerolls) else None
        purpose = f"re-roll {made}"
        cell, read = _read_roll(chart, columns, roller, index, drm, given, purpose, trace)
        steps.append((column, read, cell))
    if len(combat.rerolls) > made:
        rolls = f"{made + 1} roll{'s' if made else ''}"
        raise InputError(
            "rerolls",
            combat.rerolls[made],
            f"no more rolls: this combat ended after {rolls} (its result needs no re-roll)",
        )
    if made:
        effects["rerolls"] = [
            {"column": c, "roll": str(r), "cell": list(x) if isinstance(x, tuple) else x}
            for c, r, x in steps
        ]
    meanings = _meanings(chart, cell)
    effects["headline"] = meanings
    effects["short"] = "; ".join(m.rstrip(".") for m in meanings)
    effects["rank"] = rank(chart, cell)
    return finish(
        combat,
        cell=cell,
        effects=effects,
        trace=trace,
        odds=odds,
        column=column,
        # The roll read: the modified total, or the end row's where it was clamped to it.
        roll=str(read),
        # The column the first roll read (a re-roll may read another, shifted).
        odds_column=first_column,
        ratio=ratio,
        attack_total=attack_total,
        defense_total=defense_total,
    )
