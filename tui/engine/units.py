"""A game's units, its order of battle: what a unit's record holds (by ruleset), its state as
the log leaves it (losses, eliminated), and what a combat's result does to the units that
fought it.

A unit is a name, a side (the game's side: "Axis", "red"), its ruleset's per-unit fields
(its factor; steps where losses count steps; an OCS counter's action rating, type, supply
and size) and an optional hex. Its state is the replay of the log (tui.saves.replay applies
each entry with `apply_units`): units added, edited, removed, imported, and the losses
combats and players logged. A correction is a later entry, never an edit.

Headless: never imports textual, rich or the save store.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tui.engine.kinds import SIDES as SIDES
from tui.engine.rulesets.ocs.supply import SUPPLY_SOURCES, UNIT_KINDS

if TYPE_CHECKING:
    from tui.engine.model import Unit


# A unit's name and side: text on one line, as a counter prints it.
_NAME = re.compile(r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]{1,40}$")
MOST_UNITS = 20_000


@dataclass(frozen=True)
class RecordField:
    """One per-unit field of an order of battle."""

    name: str
    help: str
    low: int | float | None = None  # a number's range
    high: int | float | None = None
    choices: tuple[str, ...] = ()  # a choice's values
    default: Any = None  # None: required
    number: bool = False  # a number with a fraction (an RE size), else whole

    def read(self, value: Any) -> Any:
        """The value checked (text from a CSV file read as a number); ValueError names
        what is allowed."""
        if self.choices:
            text = str(value).strip().lower()
            if text not in self.choices:
                raise ValueError(f"one of {', '.join(self.choices)}")
            return text
        if isinstance(value, str):
            text = value.strip()
            try:
                value = float(text) if self.number else int(text)
            except ValueError:
                raise ValueError(self.allowed) from None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(self.allowed)
        if not self.number and not isinstance(value, int):
            if not float(value).is_integer():
                raise ValueError(self.allowed)
            value = int(value)
        if (self.low is not None and value < self.low) or (
            self.high is not None and value > self.high
        ):
            raise ValueError(self.allowed)
        return value

    @property
    def allowed(self) -> str:
        what = "a number" if self.number else "a whole number"
        return f"{what} from {self.low} to {self.high}"


FACTOR = RecordField("factor", "its combat factor (strength)", 0, 999)
STEPS = RecordField("steps", "its steps at full strength", 1, 99, default=1)
AR = RecordField("ar", "its action rating", 0, 9, default=0)
KIND = RecordField("kind", "its type", choices=tuple(UNIT_KINDS), default="combat")
SUPPLY = RecordField(
    "supply", "how it pays combat supply", choices=tuple(SUPPLY_SOURCES), default="on-map"
)
RE = RecordField("re", "its size in RE", 0, 99, default=1, number=True)

RECORD_FIELDS = {f.name: f for f in (FACTOR, STEPS, AR, KIND, SUPPLY, RE)}


def record_fields(names: Sequence[str], losses: str) -> tuple[RecordField, ...]:
    """The per-unit fields a ruleset's units hold: the ones it names (its Ruleset's
    `roster`), else a factor, and steps where its results count steps (`losses`)."""
    if names:
        return tuple(RECORD_FIELDS[name] for name in names)
    return (FACTOR, STEPS) if losses == "steps" else (FACTOR,)


def check_name(what: str, text: Any) -> str:
    """A unit's name or side, stripped; ValueError names what is allowed."""
    if not isinstance(text, str) or not _NAME.match(text.strip() or "\x00"):
        raise ValueError(
            f"{what}: {text!r} is not allowed; expected 1 to 40 characters on one line"
        )
    return text.strip()


def read_record(
    raw: Mapping[str, Any], fields: Sequence[RecordField], *, partial: bool = False
) -> dict[str, Any]:
    """A unit's record from what a player gave (a CLI's flags, a CSV row, a TOML table):
    name, side, hex and its fields, checked; defaults filled in unless `partial` (an edit).
    ValueError: one line naming the field, the value and what is allowed."""
    out: dict[str, Any] = {}
    known = {"name", "side", "hex", *(f.name for f in fields)}
    for key in raw:
        if key not in known:
            raise ValueError(
                f"{key}: not a field of these units; expected {', '.join(sorted(known))}"
            )
    for key in ("name", "side"):
        if key in raw and raw[key] not in (None, ""):
            out[key] = check_name(key, raw[key])
        elif not partial:
            raise ValueError(f"{key}: missing; every unit has a {key}")
    if raw.get("hex") not in (None, ""):
        out["hex"] = check_name("hex", str(raw["hex"]))
    for spec in fields:
        value = raw.get(spec.name)
        if value is None or value == "":
            if partial:
                continue
            if spec.default is None:
                raise ValueError(f"{spec.name}: missing; expected {spec.allowed}")
            value = spec.default
        try:
            out[spec.name] = spec.read(value)
        except ValueError as err:
            raise ValueError(f"{spec.name}: {value!r} is not allowed; expected {err}") from None
    return out


@dataclass
class UnitState:
    """One unit as the log leaves it."""

    name: str
    side: str
    fields: dict[str, Any]
    hex: str | None = None
    steps_lost: int = 0
    factors_lost: int = 0
    eliminated: bool = False
    # The entries that changed it, in order (its history, for the review).
    changed_by: list[int] = field(default_factory=list)

    @property
    def steps_left(self) -> int | None:
        steps = self.fields.get("steps")
        if steps is None:
            return None
        return 0 if self.eliminated else max(0, int(steps) - self.steps_lost)

    @property
    def factor_left(self) -> int:
        return (
            0 if self.eliminated else max(0, int(self.fields.get("factor", 0)) - self.factors_lost)
        )

    @property
    def alive(self) -> bool:
        return not self.eliminated and (self.steps_left is None or self.steps_left > 0)

    def record(self) -> dict[str, Any]:
        """Its record as an entry keeps it: name, side, hex and fields."""
        out: dict[str, Any] = {"name": self.name, "side": self.side}
        if self.hex is not None:
            out["hex"] = self.hex
        return out | self.fields

    def state(self) -> dict[str, Any]:
        """Its record and its state, for `units --json` and the state kept beside a save."""
        out = self.record() | {
            "steps_lost": self.steps_lost,
            "factors_lost": self.factors_lost,
            "eliminated": self.eliminated,
        }
        if self.steps_left is not None:
            out["steps_left"] = self.steps_left
        out["factor_left"] = self.factor_left
        return out

    def combat_unit(self) -> Unit:
        """The unit as a combat form reads it: its current factor (and an OCS counter's
        steps left, action rating, type, supply and size)."""
        # Imported for a combat: the save store replays units without the combat model.
        from tui.engine.model import Unit

        fields = self.fields
        return Unit(
            self.factor_left,
            name=self.name,
            steps=self.steps_left if "ar" in fields else None,
            ar=fields.get("ar"),
            kind=fields.get("kind"),
            supply=fields.get("supply"),
            re=fields.get("re"),
        )


def unit_from_record(record: Mapping[str, Any], seq: int) -> UnitState:
    fields = {k: v for k, v in record.items() if k not in ("name", "side", "hex")}
    return UnitState(
        str(record["name"]), str(record["side"]), fields, record.get("hex"), changed_by=[seq]
    )


def apply_units(units: dict[str, UnitState], entry: Mapping[str, Any]) -> None:
    """What one log entry does to the units (by name, in the order they came in)."""
    kind, seq = entry.get("kind"), int(entry.get("seq", 0))
    if kind == "unit":
        record = entry.get("unit") or {}
        name = record.get("name")
        action = entry.get("action")
        if action == "add" and name is not None:
            units[name] = unit_from_record(record, seq)
        elif action == "edit" and name in units:
            found = units[name]
            for key, value in record.items():
                if key == "hex":
                    found.hex = value
                elif key == "side":
                    found.side = str(value)
                elif key != "name":
                    found.fields[key] = value
            found.changed_by.append(seq)
        elif action == "remove" and name is not None:
            units.pop(name, None)
    elif kind == "units":
        for record in entry.get("units") or ():
            units[record["name"]] = unit_from_record(record, seq)
    if kind in ("combat", "loss"):
        for loss in entry.get("losses") or ():
            hit = units.get(str(loss.get("unit")))
            if hit is None:
                continue
            found = hit
            found.steps_lost += int(loss.get("steps", 0))
            found.factors_lost += int(loss.get("factors", 0))
            if "eliminated" in loss:
                found.eliminated = bool(loss["eliminated"])
            found.changed_by.append(seq)


# --- what a result does to the units that fought ------------------------------------------


@dataclass(frozen=True)
class Obligation:
    """A loss a side's units must take: every unit eliminated, or N steps or factors from
    any of them (the owner chooses which, unless the rules leave no choice)."""

    side: str  # attacker or defender
    what: str  # eliminated, steps or factors
    amount: int
    units: tuple[str, ...]  # the side's units in the combat, by name

    def said(self) -> str:
        if self.what == "eliminated":
            return f"the {self.side}'s units eliminated"
        if self.what == "option":
            return f"option {self.amount} (steps or hexes retreated) for the {self.side}'s units"
        unit = self.what[:-1] if self.amount == 1 else self.what
        return f"{self.amount} {unit} from the {self.side}'s units"


def obligations(
    effects: Mapping[str, Any],
    names: Mapping[str, Sequence[str]],
    retreated: Iterable[str] = (),
) -> list[Obligation]:
    """The losses a result's effects give each side whose units are named (`names`: the
    attacker's and the defender's unit names in the combat): every unit eliminated, N steps
    or factors, and an option (`what` "option": up to N steps, the rest hexes retreated, the
    owner's mix; RULINGS). An OCS option taken (its `option_taken`) counts its steps; one
    ignored, or a side in `retreated` (it took its option as a retreat), loses none."""
    found: list[Obligation] = []
    gone_back = set(retreated)
    for side in SIDES:
        units = tuple(names.get(side, ()))
        said = effects.get(side) or {}
        if not units or not isinstance(said, Mapping):
            continue
        if said.get("eliminated") or said.get("factors_lost") in ("all", "All"):
            found.append(Obligation(side, "eliminated", 0, units))
            continue
        steps = _count(said.get("steps_lost"))
        taken = said.get("option_taken")
        if isinstance(taken, Mapping) and not taken.get("ignored"):
            steps += _count(taken.get("steps"))
        if steps:
            found.append(Obligation(side, "steps", steps, units))
        factors = _count(said.get("factors_lost"))
        if factors:
            found.append(Obligation(side, "factors", factors, units))
        if side in gone_back or isinstance(taken, Mapping):
            continue
        option = (
            _count(said.get("option"))
            or _count(said.get("retreat_or_steps"))
            or (1 if said.get("retreat_or_step") else 0)
        )
        if option:
            found.append(Obligation(side, "option", option, units))
    return found


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def settle(
    obligation: Obligation, units: Mapping[str, UnitState], chosen: Mapping[str, int] | None = None
) -> list[dict[str, Any]] | None:
    """The losses that meet `obligation` ({unit, steps|factors, eliminated}), or None where
    the owner must choose and has not. The rules choose when every unit goes, when one unit
    can take it all, or when the loss takes all the units have; `chosen` (unit -> amount)
    is the owner's choice, checked (ValueError names what is wrong)."""
    alive = [units[n] for n in obligation.units if n in units and units[n].alive]
    if obligation.what == "eliminated":
        return [{"unit": u.name, "eliminated": True} for u in alive]
    if obligation.what == "option":
        # The owner's mix of steps and hexes: never the rules' to choose, unless no unit
        # is left to lose a step.
        if chosen is None:
            return None if alive else []
        left_steps = {u.name: _left(u, "steps") for u in alive}
        return _chosen(obligation, left_steps, chosen)
    key = obligation.what
    left = {u.name: _left(u, key) for u in alive}
    if chosen is not None:
        return _chosen(obligation, left, chosen)
    total = sum(left.values())
    if len(alive) == 1 or obligation.amount >= total:
        out = []
        need = obligation.amount
        for unit in alive:
            take = min(need, left[unit.name])
            need -= take
            if take:
                out.append(_loss(unit.name, key, take, take >= left[unit.name]))
        return out
    return None


def _left(unit: UnitState, key: str) -> int:
    if key == "steps":
        return unit.steps_left if unit.steps_left is not None else 1
    return unit.factor_left


def _loss(name: str, key: str, amount: int, gone: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"unit": name, key: amount}
    if gone:
        out["eliminated"] = True
    return out


def _chosen(
    obligation: Obligation, left: Mapping[str, int], chosen: Mapping[str, int]
) -> list[dict[str, Any]]:
    key = "steps" if obligation.what == "option" else obligation.what
    least = 0 if obligation.what == "option" else 1
    for name, amount in chosen.items():
        if name not in left:
            raise ValueError(
                f"{name!r} is not one of the {obligation.side}'s units in this combat "
                f"({', '.join(left) or 'none left'})"
            )
        if not isinstance(amount, int) or not least <= amount <= left[name]:
            raise ValueError(
                f"{name}: {amount!r} {key}; expected {least} to {left[name]} (what it has left)"
            )
    given = sum(chosen.values())
    if obligation.what == "option":
        if given > obligation.amount:
            raise ValueError(
                f"{given} steps chosen; option {obligation.amount} takes at most "
                f"{obligation.amount} from the {obligation.side}'s units (the rest retreated)"
            )
        return [_loss(n, key, a, a >= left[n]) for n, a in chosen.items()]
    if given != min(obligation.amount, sum(left.values())):
        raise ValueError(
            f"{given} {key} chosen; the result takes {obligation.amount} from the "
            f"{obligation.side}'s units"
        )
    return [_loss(n, key, a, a >= left[n]) for n, a in chosen.items()]


# --- the losses a combat left open, and their answers -----------------------------------------


def open_loss(obligation: Obligation) -> dict[str, Any]:
    """An obligation as a combat entry's `open_losses` keeps it."""
    return {
        "side": obligation.side,
        "what": obligation.what,
        "amount": obligation.amount,
        "units": list(obligation.units),
    }


def answer_open(
    combat: int,
    still: Sequence[Mapping[str, Any]],
    losses: Sequence[Mapping[str, Any]],
    units: Mapping[str, UnitState] | None = None,
) -> list[dict[str, Any]]:
    """What is left of combat `combat`'s open losses (`still`) after `losses` answer them.
    A loss of steps goes to its unit's side's steps first, then to its option (which it
    closes: the rest of an option is hexes retreated; 0 steps closes it all retreated); a
    loss of factors to its factors. With `units` (the game's, before the losses) each loss
    is checked: ValueError, one line naming what does not match."""
    left = [dict(o) for o in still]
    if units is not None and not left:
        raise ValueError(
            f"combat {combat} has no open loss left to take; `crtdesk units FILE` lists the "
            "open ones"
        )
    for loss in losses:
        name = str(loss.get("unit"))
        mine = [o for o in left if name in o.get("units", ())]
        if not mine:
            if units is None:
                continue
            said = "; ".join(
                f"{o['side']}: {', '.join(o['units'])}" for o in left if o.get("units")
            )
            raise ValueError(
                f"{name!r} has no open loss in combat {combat}; the units still to choose: {said}"
            )
        steps, factors = int(loss.get("steps", 0) or 0), int(loss.get("factors", 0) or 0)
        if units is not None:
            _check_answer(combat, name, mine, steps, factors, units)
        if factors:
            for o in mine:
                if o["what"] == "factors":
                    o["amount"] -= min(factors, o["amount"])
        else:
            rest = steps
            had_steps = False
            for o in mine:
                if o["what"] == "steps" and o["amount"] > 0:
                    had_steps = True
                    take = min(rest, o["amount"])
                    o["amount"] -= take
                    rest -= take
            for o in mine:
                if o["what"] == "option" and (rest > 0 or steps == 0 or not had_steps):
                    o["amount"] = 0
        left = [o for o in left if o["amount"] > 0]
    return left


def _check_answer(
    combat: int,
    name: str,
    mine: Sequence[Mapping[str, Any]],
    steps: int,
    factors: int,
    units: Mapping[str, UnitState],
) -> None:
    unit = units.get(name)
    if unit is None or not unit.alive:
        raise ValueError(f"{name} is eliminated; it has nothing left to lose in combat {combat}")
    side = mine[0]["side"]
    if steps < 0 or factors < 0:
        raise ValueError(
            f"{name}: a loss for combat {combat} is 0 or more; a correction has no --combat"
        )
    whats = {o["what"] for o in mine}
    if factors and "factors" not in whats:
        raise ValueError(
            f"{name}: factors given; combat {combat} leaves the {side} "
            f"{' and '.join(sorted(whats))} to take, not factors"
        )
    if steps and not whats & {"steps", "option"}:
        raise ValueError(
            f"{name}: steps given; combat {combat} leaves the {side} factors to take, not steps"
        )
    if factors:
        most = sum(o["amount"] for o in mine if o["what"] == "factors")
        has = unit.factor_left
        what = "factors"
    else:
        most = sum(o["amount"] for o in mine if o["what"] in ("steps", "option"))
        has = _left(unit, "steps")
        what = "steps"
        if steps == 0 and "option" not in whats:
            raise ValueError(
                f"{name}: 0 steps; combat {combat} leaves the {side} "
                f"{most} step{'s' if most != 1 else ''} to take (no option to retreat)"
            )
    given = factors or steps
    if given > most:
        raise ValueError(
            f"{name}: {given} {what}; combat {combat} leaves the {side} at most {most} to take"
        )
    if given > has:
        raise ValueError(f"{name}: {given} {what}; it has {has} left")


def apply_open(
    open_losses: dict[int, list[dict[str, Any]]],
    entry: Mapping[str, Any],
    units: Mapping[str, UnitState] | None = None,
) -> None:
    """What one log entry does to the losses combats left open (by combat entry number):
    a combat's `open_losses` open, a loss entry naming the combat answers them, and a loss
    whose units are all eliminated or gone (`units`: the game's, after the entry) closes."""
    kind = entry.get("kind")
    if kind == "combat" and entry.get("open_losses"):
        open_losses[int(entry.get("seq", 0))] = [dict(o) for o in entry["open_losses"]]
    elif kind == "loss" and entry.get("combat") in open_losses:
        combat = int(entry["combat"])
        left = answer_open(combat, open_losses[combat], entry.get("losses") or ())
        if left:
            open_losses[combat] = left
        else:
            del open_losses[combat]
    if units is not None and open_losses and entry.get("losses"):
        for seq in list(open_losses):
            kept = [
                o
                for o in open_losses[seq]
                if any(n in units and units[n].alive for n in o["units"])
            ]
            if kept:
                open_losses[seq] = kept
            else:
                del open_losses[seq]
