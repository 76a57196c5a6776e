"""Each side's losses over a game, by unit and by turn, what its units have left, and the
losses still open: read from a save's entries one at a time (the units' state is the
replay's, `tui.engine.units.apply_units`, as it goes), never holding the log.

A loss is a `loss` entry's (a combat's open loss taken, or a correction) or a combat
entry's own `losses` (applied at once); a correction counts as given back (a negative
number, a unit back in play). A combat's `open_losses` stay open until a `loss` entry
naming that combat answers them: the ones whose units it names, or all of the combat's
when it names none of them.

Headless: never imports textual or rich.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui import saves
from tui.engine.units import UnitState, apply_units
from tui.reports.kept import version

_LOSS_KINDS = frozenset({"combat", "loss"})
_UNIT_KINDS = frozenset({"unit", "units", "combat", "loss"})
# What the losses (and the units' replay, `apply_units`) read of an entry.
_READ = ("kind", "seq", "turn", "action", "unit", "units", "losses", "open_losses", "combat")


def losses_part(entry: Mapping[str, Any]) -> dict[str, Any] | None:
    """What `Losses.add` reads of an entry, or None when the entry changes nothing there
    (not a unit's entry, or a combat with no losses): small, kept beside the save in its
    stead."""
    kind = entry.get("kind")
    if kind not in _UNIT_KINDS:
        return None
    if kind == "combat" and not (entry.get("losses") or entry.get("open_losses")):
        return None
    return {key: entry[key] for key in _READ if key in entry}


@dataclass
class Lost:
    """What a side (or a unit) lost: steps, factors, and units eliminated (less those
    brought back)."""

    steps: int = 0
    factors: int = 0
    eliminated: int = 0

    def add(self, other: Lost) -> None:
        self.steps += other.steps
        self.factors += other.factors
        self.eliminated += other.eliminated

    def __bool__(self) -> bool:
        return bool(self.steps or self.factors or self.eliminated)


@dataclass(frozen=True)
class OpenLoss:
    """A loss a combat left for its owner to choose the units of, not yet taken."""

    combat: int
    turn: int
    side: str  # attacker or defender
    what: str  # steps, factors or eliminated
    amount: int
    units: tuple[str, ...]

    def said(self) -> str:
        if self.what == "eliminated":
            took = "every unit eliminated"
        else:
            word = self.what[:-1] if self.amount == 1 else self.what
            took = f"{self.amount} {word}"
        names = ", ".join(self.units) or "no unit named"
        return f"combat #{self.combat} (turn {self.turn}): {took} from the {self.side}'s units ({names})"


@dataclass
class Losses:
    """A game's losses, read entry by entry (`add`): the units as the log leaves them,
    each side's losses by turn, what removed units had lost, and the losses open."""

    units: dict[str, UnitState] = field(default_factory=dict)
    # (turn, side) -> what the side's units lost in that turn, in the order first lost.
    by_turn: dict[tuple[int, str], Lost] = field(default_factory=dict)
    # Units taken off the roster after losses: (name, side, what they had lost).
    removed: list[tuple[str, str, Lost]] = field(default_factory=list)
    # Combat entry number -> its open losses not yet taken.
    open: dict[int, list[OpenLoss]] = field(default_factory=dict)
    seen: bool = False  # any unit, loss or open loss in the log

    def add(self, entry: Mapping[str, Any]) -> None:
        kind = entry.get("kind")
        if kind not in _UNIT_KINDS:
            return
        turn = _whole(entry.get("turn"), 1)
        if kind == "unit" and entry.get("action") == "remove":
            self._removing(entry)
        if kind in _LOSS_KINDS:
            self._count(entry, turn)
        apply_units(self.units, entry)
        self.seen = self.seen or bool(self.units) or (kind in _LOSS_KINDS and self._any(entry))
        if kind == "combat":
            self._opened(entry, turn)
        elif kind == "loss":
            self._answered(entry)

    def _any(self, entry: Mapping[str, Any]) -> bool:
        return bool(entry.get("losses") or entry.get("open_losses"))

    def _removing(self, entry: Mapping[str, Any]) -> None:
        name = (entry.get("unit") or {}).get("name")
        unit = self.units.get(str(name)) if name is not None else None
        if unit is not None and (unit.steps_lost or unit.factors_lost or unit.eliminated):
            lost = Lost(unit.steps_lost, unit.factors_lost, int(unit.eliminated))
            self.removed.append((unit.name, unit.side, lost))

    def _count(self, entry: Mapping[str, Any], turn: int) -> None:
        for loss in entry.get("losses") or ():
            if not isinstance(loss, Mapping):
                continue
            unit = self.units.get(str(loss.get("unit")))
            if unit is None:
                continue  # as the replay does: a unit not on the roster loses nothing
            lost = Lost(_whole(loss.get("steps"), 0), _whole(loss.get("factors"), 0))
            if "eliminated" in loss and bool(loss["eliminated"]) != unit.eliminated:
                lost.eliminated = 1 if loss["eliminated"] else -1
            self.by_turn.setdefault((turn, unit.side), Lost()).add(lost)

    def _opened(self, entry: Mapping[str, Any], turn: int) -> None:
        found = []
        for left in entry.get("open_losses") or ():
            if not isinstance(left, Mapping):
                continue
            units = tuple(str(n) for n in left.get("units") or ())
            found.append(
                OpenLoss(
                    _whole(entry.get("seq"), 0),
                    turn,
                    str(left.get("side", "?")),
                    str(left.get("what", "?")),
                    _whole(left.get("amount"), 0),
                    units,
                )
            )
        if found:
            self.open[found[0].combat] = found

    def _answered(self, entry: Mapping[str, Any]) -> None:
        combat = _whole(entry.get("combat"), 0)
        waiting = self.open.get(combat)
        if not waiting:
            return
        named = {
            str(loss.get("unit")) for loss in entry.get("losses") or () if isinstance(loss, Mapping)
        }
        left = [o for o in waiting if not named & set(o.units)]
        if len(left) == len(waiting):
            left = []  # it names the combat but none of its units: the combat's answer
        if left:
            self.open[combat] = left
        else:
            del self.open[combat]

    # --- what the review and the report show ---------------------------------------------

    def sides(self) -> list[str]:
        """Every side named, in the order its first unit (or loss) came in."""
        found: dict[str, None] = {}
        for unit in self.units.values():
            found[unit.side] = None
        for (_, side), _lost in self.by_turn.items():
            found[side] = None
        for _, side, _ in self.removed:
            found[side] = None
        return list(found)

    def side_total(self, side: str) -> Lost:
        total = Lost()
        for (_, found), lost in self.by_turn.items():
            if found == side:
                total.add(lost)
        return total

    def open_losses(self) -> list[OpenLoss]:
        return [o for combat in sorted(self.open) for o in self.open[combat]]


def read_losses(path: Path) -> tuple[Losses, saves.Game]:
    """The losses in the save at `path` (what they read of each entry, `losses_part`, kept
    beside the save: `saves.kept_records`), and the game read. SaveError as
    `saves.load_game` raises it."""

    def fold(records: saves.KeptRecords) -> Losses:
        found = Losses()
        for *_, data in records.rows():
            if data is not None:
                found.add(data)
        return found

    with saves.no_gc():  # many small objects, no cycles: nothing to collect
        return saves.kept_fold(path, "losses", version(), losses_part, dict[str, Any] | None, fold)


def losses_of(entries: Iterable[Mapping[str, Any]]) -> Losses:
    """The losses of `entries`, read once in order (not kept)."""
    found = Losses()
    for entry in entries:
        found.add(entry)
    return found


def lost_text(lost: Lost) -> str:
    """What was lost, in a few words: "3 steps, 2 factors, 1 unit eliminated"."""
    parts = []
    for amount, word in ((lost.steps, "step"), (lost.factors, "factor")):
        if amount:
            words = f"{abs(amount)} {word}{'' if abs(amount) == 1 else 's'}"
            parts.append(words if amount > 0 else f"{words} given back")
    if lost.eliminated:
        count = abs(lost.eliminated)
        units = f"{count} unit{'' if count == 1 else 's'}"
        parts.append(f"{units} eliminated" if lost.eliminated > 0 else f"{units} back in play")
    return ", ".join(parts) or "nothing"


def remains_text(unit: UnitState) -> str:
    """What a unit has left: "2 of 3 steps, factor 4", or "eliminated"."""
    if not unit.alive:
        return "eliminated"
    parts = []
    steps = unit.fields.get("steps")
    if unit.steps_left is not None and steps is not None:
        parts.append(f"{unit.steps_left} of {steps} steps")
    parts.append(f"factor {unit.factor_left} of {unit.fields.get('factor', 0)}")
    return ", ".join(parts)


def _whole(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default
