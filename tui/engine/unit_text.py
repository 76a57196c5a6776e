"""A game's units in words: its unit, import and loss entries, the losses a combat applied
and the ones it left open (tui.engine.text.entry_text asks here for those). Headless."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tui.engine.cells import one_line


def unit_entry_text(entry: Mapping[str, Any]) -> str:
    """A unit, units or loss entry in words (without its note)."""
    kind = entry.get("kind")
    if kind == "units":
        units = entry.get("units") or []
        source = f" from {one_line(entry['source'])}" if entry.get("source") else ""
        sides = sorted({str(u.get("side")) for u in units})
        said = f"Imported {len(units)} unit{'s' if len(units) != 1 else ''}{source}"
        return f"{said} ({', '.join(one_line(s) for s in sides)})."
    if kind == "loss":
        combat = f"Combat #{entry['combat']}: " if entry.get("combat") else ""
        return f"{combat}{losses_text(entry.get('losses') or [])}."
    unit = entry.get("unit") or {}
    name = one_line(str(unit.get("name", "?")))
    action = entry.get("action")
    if action == "remove":
        return f"Removed {name} from the roster."
    said = ", ".join(
        f"{key} {one_line(str(value))}" for key, value in unit.items() if key != "name"
    )
    return f"{'Added' if action == 'add' else 'Changed'} {name}: {said}."


def combat_losses_text(entry: Mapping[str, Any]) -> str:
    """What a combat did to the units that fought, and what it left to choose."""
    losses, left = entry.get("losses"), entry.get("open_losses")
    took = f" Losses: {losses_text(losses)}." if losses else ""
    if left:
        took += " To choose: " + "; ".join(open_text(o) for o in left) + "."
    return took


def losses_text(losses: Iterable[Mapping[str, Any]]) -> str:
    """Losses as units took them: "7 Armd loses 1 step; 21 Pz eliminated"."""
    parts = []
    for loss in losses:
        name = one_line(str(loss.get("unit", "?")))
        said = []
        for key in ("steps", "factors"):
            value = loss.get(key)
            if isinstance(value, int) and value:
                word = key[:-1] if abs(value) == 1 else key
                said.append(f"loses {value} {word}" if value > 0 else f"gets {-value} {word} back")
        if loss.get("steps") == 0 and not said:
            said.append("loses no step (its option retreated)")
        if loss.get("eliminated") is True:
            said.append("eliminated")
        elif loss.get("eliminated") is False:
            said.append("back in play")
        parts.append(f"{name} {', '.join(said) or 'unchanged'}")
    return "; ".join(parts) or "no losses"


def open_text(owed: Mapping[str, Any]) -> str:
    """A loss a combat left for its owner to choose: "the defender takes 2 steps from
    any of 7 Armd, 9 Inf"."""
    amount = owed.get("amount", 0)
    what = str(owed.get("what", ""))
    among = ", ".join(one_line(str(u)) for u in owed.get("units", ()))
    if what == "option":
        taken = f"option {amount} (up to {amount} step{'s' if amount != 1 else ''}, the rest hexes retreated)"
    else:
        taken = f"{amount} {what[:-1] if amount == 1 else what}"
    return f"the {one_line(str(owed.get('side', '?')))} takes {taken} from any of {among}"
