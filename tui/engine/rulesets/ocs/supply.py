"""OCS (DAK-II) rules around the chart (RULINGS, OCS): combat supply paid by each side,
who may attack, internal stocks (Low, then Exhausted), the action-rating unit, the chances
of surprise, and the execution of a result: options taken attacker first (a retreat voids
exploitation and lets the defender ignore its options), DG from the result and from a
retreat of 2+ hexes, and the units an e# result marks for exploitation.

About 530 lines, some 150 of them `execute`, which carries out a result in the rules'
order (options, retreats, DG, exploitation) on the effects the resolver decoded."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from msgspec.structs import replace

from tui.engine.dice import total_distribution
from tui.engine.errors import InputError
from tui.engine.model import CombatInput, Unit
from tui.engine.records import same
from tui.engine.tables import Tables

UNIT_KINDS: dict[str, str] = {
    "combat": "combat unit",
    "hq": "HQ",
    "dak-brigade": "DAK 2-step brigade",
}
SUPPLY_SOURCES: dict[str, str] = {
    "on-map": "on-map supply",
    "internal": "internal stocks",
    "none": "no supply",
}
STOCKS: dict[str, str] = {"low": "Low", "exhausted": "Exhausted"}
# A retreat of this many hexes or more puts the retreating units in DG (RULINGS).
DG_RETREAT_HEXES = 2
# An attack from this many hexes or more never exploits (RULINGS).
NO_EXPLOIT_HEXES = 3


def unit_name(unit: Unit, side: str, number: int) -> str:
    """What a unit is called in the log: its name, else "A1", "D2"."""
    return unit.name or f"{'A' if side == 'attacker' else 'D'}{number}"


def per_unit(combat: CombatInput) -> bool:
    """True when the combat's units say more than a factor (the OCS screen's form)."""
    return any(
        u.steps is not None or u.ar is not None or u.supply is not None or u.name
        for u in combat.attackers + combat.defenders
    )


def check_units(combat: CombatInput) -> None:
    """Refuse a unit's type, supply, stocks, steps, AR or RE the desk cannot read."""
    for side, units in (("attack", combat.attackers), ("defense", combat.defenders)):
        for number, unit in enumerate(units, start=1):
            name = unit_name(unit, "attacker" if side == "attack" else "defender", number)
            _one_of(f"{name} type", unit.kind, UNIT_KINDS)
            _one_of(f"{name} supply", unit.supply, SUPPLY_SOURCES)
            _one_of(f"{name} stocks", unit.stocks, STOCKS)
            for field, value in (("steps", unit.steps), ("AR", unit.ar)):
                if value is not None and (
                    isinstance(value, bool) or not isinstance(value, int) or value < 0
                ):
                    raise InputError(f"{name} {field}", value, "a whole number >= 0")
            if unit.re is not None and (isinstance(unit.re, bool) or unit.re < 0):
                raise InputError(f"{name} RE", unit.re, "a number >= 0")
    if isinstance(combat.attack_hexes, bool) or combat.attack_hexes < 1:
        raise InputError("attack_hexes", combat.attack_hexes, "a whole number >= 1")
    for field in ("attacker_option_retreat", "defender_option_retreat"):
        value = getattr(combat, field)
        if value is not None and (isinstance(value, bool) or value < 0):
            raise InputError(field, value, "a whole number of hexes >= 0")


def _one_of(field: str, value: str | None, allowed: dict[str, str]) -> None:
    if value is not None and value not in allowed:
        raise InputError(field, value, "one of " + ", ".join(allowed), choices=allowed)


# ---------------------------------------------------------------------- action rating
def ar_unit(units: tuple[Unit, ...], chosen: str | None, side: str) -> int | None:
    """The index of the unit whose AR the side uses: the one named, else the highest AR
    (the first of equals). None when no unit gives an AR."""
    rated = [(i, u) for i, u in enumerate(units) if u.ar is not None]
    if chosen is not None:
        for i, unit in enumerate(units, start=1):
            if unit_name(unit, side, i) == chosen:
                if unit.ar is None:
                    raise InputError(f"{side}_ar_unit", chosen, "a unit with an action rating")
                return i - 1
        names = ", ".join(unit_name(u, side, i) for i, u in enumerate(units, start=1))
        raise InputError(f"{side}_ar_unit", chosen, f"one of the {side}s: {names}")
    if not rated:
        return None
    return max(rated, key=lambda pair: (pair[1].ar, -pair[0]))[0]


def with_unit_ars(combat: CombatInput) -> CombatInput:
    """The combat with each side's AR read from its action-rating unit, where units carry
    an AR. Giving both a unit AR and a side's AR (--attacker-ar) is refused."""
    changes: dict[str, Any] = {}
    for side, units, chosen in (
        ("attacker", combat.attackers, combat.attacker_ar_unit),
        ("defender", combat.defenders, combat.defender_ar_unit),
    ):
        index = ar_unit(units, chosen, side)
        if index is None:
            continue
        given = getattr(combat, f"{side}_ar")
        if given:
            raise InputError(
                f"{side}_ar", given, f"0 (the {side}s' units give their own action ratings)"
            )
        if not same(given, units[index].ar):  # the same already: no copy to make
            changes[f"{side}_ar"] = units[index].ar
    return replace(combat, **changes) if changes else combat


# ---------------------------------------------------------------------- supply
def attacker_supply(combat: CombatInput, tables: Tables) -> int | None:
    """Tokens the attacker pays from on-map supply: 1T per attacking step, a DAK 2-step
    brigade 1T in all. Units on internal stocks pay nothing from the map. None when the
    units' steps are not known (a plain attack total)."""
    rules = tables.data["ocs"]["supply"]
    total = 0
    known = False
    for number, unit in enumerate(combat.attackers, start=1):
        if unit.supply in ("internal", "none"):
            known = True
            continue
        if unit.kind == "dak-brigade":
            total += rules["dak_brigade"]
        elif unit.steps is not None:
            total += unit.steps * rules["attacker_per_step"]
        else:
            if unit.supply == "on-map":
                name = unit_name(unit, "attacker", number)
                raise InputError(f"{name} steps", None, "its steps (supply is 1T per step)")
            continue
        known = True
    return total if known else None


def defender_supply(combat: CombatInput, tables: Tables) -> int:
    """Tokens the defender pays: 2T, 1T when the defenders total 1 RE or less, 0T when it
    withholds supply (and defends at half strength)."""
    rules = tables.data["ocs"]["supply"]
    if combat.defender_unsupplied:
        return 0
    sizes = [u.re for u in combat.defenders]
    known = [size for size in sizes if size is not None]
    if sizes and len(known) == len(sizes):
        if sum(known) <= rules["small_defender_max_re"]:
            return int(rules["defender_small"])
    return int(rules["defender_per_combat"])


def refusal(combat: CombatInput) -> str | None:
    """Why the attack is not allowed (a unit short of full combat supply), or None."""
    for number, unit in enumerate(combat.attackers, start=1):
        name = unit_name(unit, "attacker", number)
        if unit.supply == "none":
            return f"{name} cannot attack: it has no combat supply (on-map or internal stocks)"
        if unit.supply == "internal" and unit.stocks == "exhausted":
            return f"{name} cannot attack: it is Exhausted, its internal stocks are spent"
    return None


def require_supply(combat: CombatInput) -> None:
    """Refuse an attack by a unit short of full combat supply, naming the unit and why."""
    for number, unit in enumerate(combat.attackers, start=1):
        name = unit_name(unit, "attacker", number)
        if unit.supply == "none":
            raise InputError(
                f"{name} supply",
                "none",
                "on-map or internal stocks: a unit short of full combat supply cannot attack",
            )
        if unit.supply == "internal" and unit.stocks == "exhausted":
            raise InputError(
                f"{name} supply",
                "internal",
                "on-map supply: the unit is Exhausted, its internal stocks are spent",
            )


def stocks_from_markers(
    units: tuple[Unit, ...], markers: Iterable[tuple[str, str]]
) -> tuple[Unit, ...]:
    """Each named unit with the internal-stocks marker a save has on it, as (target, kind)
    pairs (Exhausted over Low), unless the unit already says."""
    held: dict[str, str] = {}
    for target, kind in markers:
        kind = kind.lower()
        if kind in STOCKS and held.get(target) != "exhausted":
            held[target] = kind
    return tuple(
        replace(u, stocks=held[u.name]) if u.name in held and u.stocks is None else u for u in units
    )


def stocks_after(unit: Unit) -> str | None:
    """The internal-stocks marker a unit carries after this combat: first use Low, the
    next Exhausted; a unit not drawing on its stocks keeps what it had."""
    if unit.supply != "internal":
        return unit.stocks
    return "exhausted" if unit.stocks in ("low", "exhausted") else "low"


# ---------------------------------------------------------------------- surprise
def result_drm(combat: CombatInput) -> int:
    """The result roll's DRM: attacker AR - defender AR - hedgehog level (the action
    ratings as `with_unit_ars` sets them)."""
    return combat.attacker_ar - combat.defender_ar - combat.hedgehog


def surprise_limits(combat: CombatInput, tables: Tables) -> tuple[int, int, int]:
    """(AR difference, attacker surprise from, defender surprise at or below) on the 2d6."""
    rules = tables.data["ocs"]
    bonus = rules["hedgehog_surprise_bonus"] if combat.hedgehog > 0 else 0
    difference = combat.attacker_ar - (combat.defender_ar + bonus)
    limits = rules["surprise"]["overrun" if combat.overrun else "regular"]
    return difference, limits["attacker_from"], limits["defender_to"]


def surprise_side(combat: CombatInput, tables: Tables, raw: int) -> str | None:
    """Who gains surprise on a surprise 2d6 of `raw`: "attacker", "defender" or None."""
    difference, attacker_from, defender_to = surprise_limits(with_unit_ars(combat), tables)
    if raw + difference >= attacker_from:
        return "attacker"
    if raw + difference <= defender_to:
        return "defender"
    return None


@lru_cache(maxsize=256)
def surprise_chances(
    difference: int, attacker_from: int, defender_to: int
) -> tuple[Fraction, Fraction, Fraction]:
    """The exact chances of attacker surprise, defender surprise and neither (kept by
    their three numbers: a preview asks on every key, and Fractions are immutable)."""
    attacker = defender = Fraction(0)
    for total, chance in total_distribution(2, 6):
        if total + difference >= attacker_from:
            attacker += chance
        elif total + difference <= defender_to:
            defender += chance
    return attacker, defender, 1 - attacker - defender


# ---------------------------------------------------------------------- exploitation
def exploitation_bar(combat: CombatInput) -> str | None:
    """Why no unit of this attack may exploit, whatever the result, or None."""
    if combat.attack_hexes >= NO_EXPLOIT_HEXES:
        return f"an attack from {combat.attack_hexes} hexes never exploits"
    if combat.nonadjacent_hexsides:
        return "an attack across two non-adjacent hexsides never exploits"
    return None


def exploit_levels(tables: Tables) -> tuple[int, ...]:
    """Every e# the chart prints, highest first (e4, e3, e2)."""
    chart = tables.terrain_chart("ocs.crt")
    found = {
        int(m) for row in chart.rows.values() for cell in row for m in re.findall(r"e(\d+)", cell)
    }
    return tuple(sorted(found, reverse=True))


def exploiters(combat: CombatInput, min_ar: int) -> tuple[str, ...]:
    """The attacking units an e# result marks: AR >= #, never HQs."""
    return tuple(
        unit_name(unit, "attacker", number)
        for number, unit in enumerate(combat.attackers, start=1)
        if unit.ar is not None and unit.ar >= min_ar and unit.kind != "hq"
    )


# ---------------------------------------------------------------------- the preview
@dataclass(frozen=True)
class OcsPreview:
    """What the OCS screen adds to the odds preview before any die is rolled."""

    drm: int
    attacker_surprise: Fraction
    defender_surprise: Fraction
    no_surprise: Fraction
    attacker_supply: int | None
    defender_supply: int
    refusal: str | None
    # Per e# value on the chart (e2, e3, e4): the units it would mark.
    exploiters: tuple[tuple[int, tuple[str, ...]], ...]
    exploitation_bar: str | None
    # The internal-stocks markers this combat places: (unit, "Low" or "Exhausted").
    stocks: tuple[tuple[str, str], ...]


def preview_extra(
    combat: CombatInput, tables: Tables, exploit_levels: tuple[int, ...]
) -> OcsPreview:
    """The OCS lines of a preview: DRM, surprise chances, supply, refusal, exploiters."""
    check_units(combat)
    rated = with_unit_ars(combat)
    attacker, defender, neither = surprise_chances(*surprise_limits(rated, tables))
    stocks = tuple(
        (unit_name(unit, "attacker", n), STOCKS[after])
        for n, unit in enumerate(combat.attackers, start=1)
        if (after := stocks_after(unit)) is not None and after != unit.stocks
    )
    return OcsPreview(
        drm=result_drm(rated),
        attacker_surprise=attacker,
        defender_surprise=defender,
        no_surprise=neither,
        attacker_supply=attacker_supply(combat, tables),
        defender_supply=defender_supply(combat, tables),
        refusal=refusal(combat),
        exploiters=tuple((level, exploiters(combat, level)) for level in exploit_levels),
        exploitation_bar=exploitation_bar(combat),
        stocks=stocks,
    )


def for_odds(combat: CombatInput) -> CombatInput:
    """The combat with its supply sources set aside: what the odds and chances of a
    refused attack would be, so a preview can show both them and the refusal."""
    units = tuple(replace(u, supply=None) for u in combat.attackers)
    return replace(combat, attackers=units)


# ---------------------------------------------------------------------- executing a result
def execute(combat: CombatInput, effects: dict[str, Any], tables: Tables, trace: list[str]) -> None:
    """Carry out a decoded cell as the players would (RULINGS): supply, stocks, options
    attacker first, DG, exploitation. Adds "supply", "options", "exploitation" and
    per-unit markers to `effects`, and the steps to `trace`."""
    named = per_unit(combat)
    attacker_t = attacker_supply(combat, tables)
    defender_t = defender_supply(combat, tables)
    # Saved as TOML, which has no null: an attacker cost not known is left out.
    effects["supply"] = {"defender": defender_t}
    if attacker_t is not None:
        effects["supply"]["attacker"] = attacker_t
    paid = f"{attacker_t}T" if attacker_t is not None else "not known (no steps given)"
    trace.append(f"Supply: attacker pays {paid}, defender pays {defender_t}T")
    markers: list[dict[str, Any]] = []
    for number, unit in enumerate(combat.attackers, start=1):
        after = stocks_after(unit)
        if after is not None and after != unit.stocks:
            name = unit_name(unit, "attacker", number)
            markers.append({"kind": after, "side": "attacker", "target": name})
            trace.append(f"{name} draws on its internal stocks: now {STOCKS[after]}")
    attacker_units = [unit_name(u, "attacker", n) for n, u in enumerate(combat.attackers, 1)]
    defender_units = [unit_name(u, "defender", n) for n, u in enumerate(combat.defenders, 1)]
    options: dict[str, Any] = {}
    notes: list[str] = []
    # The attacker takes its option first, unless its losses destroy it before options.
    attacker_retreat = 0
    option = effects["attacker"].get("option")
    destroyed = attacker_destroyed(combat, effects)
    if destroyed:
        effects["attacker"]["eliminated"] = True
        effects["attacker"].pop("option", None)
        trace.append("The attacker's step losses destroy it before it takes any option")
        option = None
    if option is not None:
        chosen = combat.attacker_option_retreat
        if chosen is not None and chosen > option:
            raise InputError("attacker_option_retreat", chosen, f"0 to {option} hexes")
        if chosen is None:
            options["attacker"] = {"option": option, "chosen": False}
            notes.append(f"The attacker still chooses how to take option {option}.")
        else:
            attacker_retreat = chosen
            options["attacker"] = _option_taken("attacker", option, chosen, trace)
            effects["attacker"]["option_taken"] = options["attacker"]
    elif combat.attacker_option_retreat is not None:
        trace.append("The attacker takes no option in this result: its choice is not used")
    # Then the defender; it may ignore its options after an attacker retreat. A defender
    # its step losses destroy has no option to take.
    defender_retreat = 0
    option = effects["defender"].get("option")
    if defender_destroyed(combat, effects):
        effects["defender"]["eliminated"] = True
        effects["defender"].pop("option", None)  # not said as a choice it still has
        trace.append("The defender's step losses destroy it: it has no option to take")
        option = None
        if combat.defender_option_retreat is not None or combat.defender_ignores_options:
            trace.append("The defender has no option in this result: its choice is not used")
    if option is not None:
        may_waive = attacker_retreat > 0 or destroyed
        chosen = combat.defender_option_retreat
        if chosen is not None and chosen > option:
            raise InputError("defender_option_retreat", chosen, f"0 to {option} hexes")
        if combat.defender_ignores_options and may_waive:
            why = "was destroyed" if destroyed else "retreated"
            options["defender"] = {
                "option": option,
                "chosen": True,
                "ignored": True,
                "because": why,
            }
            trace.append(f"The attacker {why}: the defender ignores its option {option} (RULINGS)")
            effects["defender"]["option_taken"] = options["defender"]
        else:
            if combat.defender_ignores_options:
                trace.append(
                    "The defender may ignore its options only after the attacker retreats: "
                    "it takes them"
                )
            if chosen is None:
                options["defender"] = {"option": option, "chosen": False, "may_ignore": may_waive}
                if may_waive:
                    options["defender"]["because"] = "was destroyed" if destroyed else "retreated"
                notes.append(f"The defender still chooses how to take option {option}.")
            else:
                defender_retreat = chosen
                options["defender"] = _option_taken("defender", option, chosen, trace)
                effects["defender"]["option_taken"] = options["defender"]
    elif "eliminated" in effects["defender"]:
        pass
    elif combat.defender_option_retreat is not None or combat.defender_ignores_options:
        trace.append("The defender has no option in this result: its choice is not used")
    if options:
        effects["options"] = options
    # DG: from the result (defender), and for a side retreating 2+ hexes.
    dg_sides: list[str] = []
    if effects["defender"].get("disorganized"):
        dg_sides.append("defender")
        trace.append("DG: the result disorganizes the defender")
    if defender_retreat >= DG_RETREAT_HEXES and "defender" not in dg_sides:
        dg_sides.append("defender")
        effects["defender"]["disorganized"] = True
        trace.append(f"DG: the defender retreats {_hexes(defender_retreat)}")
    if attacker_retreat >= DG_RETREAT_HEXES:
        dg_sides.append("attacker")
        effects["attacker"]["disorganized"] = True
        trace.append(f"DG: the attacker retreats {_hexes(attacker_retreat)}")
    # Exploitation.
    min_ar = effects["attacker"].get("exploit_min_ar")
    marked: list[str] = []
    if min_ar is not None:
        bar = exploitation_bar(combat)
        if bar is None and attacker_retreat > 0:
            bar = "the attacker took its option as a retreat"
        if bar is None and destroyed:
            bar = "the attacker was destroyed"
        if bar is not None:
            effects["exploitation"] = {"min_ar": min_ar, "units": [], "void": bar}
            trace.append(f"e{min_ar}: no exploitation, {bar}")
        elif named:
            marked = list(exploiters(combat, min_ar))
            effects["exploitation"] = {"min_ar": min_ar, "units": marked, "void": None}
            trace.append(f"e{min_ar}: marked for exploitation: {', '.join(marked) or 'no unit'}")
    if not named:
        # A plain attack total names no unit: the side's markers, as the chart gives them.
        void = effects.get("exploitation", {}).get("void")
        kept = [m for m in effects["markers"] if not (void and m["kind"] == "exploitation")]
        for side in dg_sides:
            if not any(m["kind"] == "DG" and m["side"] == side for m in kept):
                kept.append({"kind": "DG", "side": side})
        effects["markers"] = kept + markers
    else:
        for name in marked:
            markers.append(
                {"kind": "exploitation", "side": "attacker", "target": name, "min_ar": min_ar}
            )
        for side, names in (("attacker", attacker_units), ("defender", defender_units)):
            if side in dg_sides:
                markers += [{"kind": "DG", "side": side, "target": n} for n in names]
        effects["markers"] = markers
    effects["notes"] = effects.get("notes", []) + notes
    effects["executed"] = executed_lines(
        effects, attacker_t, defender_t, effects["markers"] if named else []
    )


def executed_lines(
    effects: dict[str, Any],
    attacker_t: int | None,
    defender_t: int,
    markers: list[dict[str, Any]],
) -> list[str]:
    """The result as carried out, in plain words, one sentence per step."""
    paid = f"{attacker_t}T" if attacker_t is not None else "not known"
    # An option taken is said once, in its side's sentence (`describe_side`).
    lines = [f"Supply paid: attacker {paid}, defender {defender_t}T."]
    exploitation = effects.get("exploitation")
    if exploitation:
        if exploitation["void"]:
            lines.append(f"No exploitation: {exploitation['void']}.")
        else:
            lines.append(
                f"Exploitation (AR {exploitation['min_ar']}+): "
                f"{', '.join(exploitation['units']) or 'no unit qualifies'}."
            )
    placed: dict[str, list[str]] = {}
    for marker in markers:
        kind = STOCKS.get(marker["kind"], marker["kind"])
        placed.setdefault(kind, []).append(marker["target"])
    if placed:
        lines.append(
            "Markers: " + "; ".join(f"{kind} on {', '.join(t)}" for kind, t in placed.items()) + "."
        )
    return lines


def attacker_destroyed(combat: CombatInput, effects: dict[str, Any]) -> bool:
    """True when the result's attacker step losses take every attacking step (the units'
    steps known), so it is destroyed before taking options (RULINGS)."""
    lost = effects["attacker"].get("steps_lost")
    steps = [u.steps for u in combat.attackers]
    known = [s for s in steps if s is not None]
    if not lost or not steps or len(known) < len(steps):
        return False
    return bool(lost >= sum(known))


def defender_destroyed(combat: CombatInput, effects: dict[str, Any]) -> bool:
    """True when the result's defender step losses take every defending step (the units'
    steps known): it is wiped out, and no option is left for it to take."""
    lost = effects["defender"].get("steps_lost")
    steps = [u.steps for u in combat.defenders]
    known = [s for s in steps if s is not None]
    if not lost or not steps or len(known) < len(steps):
        return False
    return bool(lost >= sum(known))


def _option_taken(side: str, option: int, retreat: int, trace: list[str]) -> dict[str, Any]:
    """A side's option taken as `retreat` hexes and the rest in steps: the record of it,
    and its line in the trace."""
    steps = option - retreat
    trace.append(
        f"{side.capitalize()} takes option {option}: {_hexes(retreat)} retreated, "
        f"{steps} step{'s' if steps != 1 else ''} lost"
    )
    return {"option": option, "chosen": True, "retreat": retreat, "steps": steps}


def _hexes(count: int) -> str:
    return f"{count} hex{'es' if count != 1 else ''}"
