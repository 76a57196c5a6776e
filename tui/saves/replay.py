"""The game a log describes: markers placed, counted down and lifted, the current turn and
the options, replayed entry by entry (`apply_entry` applies one more)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from tui.engine.errors import nearest
from tui.saves.checking import DEFAULT_OPTIONS
from tui.saves.decoding import _Parsed
from tui.saves.errors import SaveError

if TYPE_CHECKING:
    from tui.engine.units import UnitState

# Marker kinds, canonical spelling -> what the marker is, as the log shows it.
MARKER_KINDS: dict[str, str] = {
    "no-entry": "No-entry (Big Boom interdiction)",
    "obstacle": "Ultra obstacle",
    "low": "OCS Low (internal stocks)",
    "exhausted": "OCS Exhausted (internal stocks)",
    "DG": "OCS disorganized (DG)",
    "exploitation": "OCS exploitation",
    "engaged": "Day/Night engaged",
    "disorganized": "Day/Night disorganized",
    "hero-site": "Pair-o-Dice Hero Site",
    "buddy-card": "Pair-o-Dice Hero Buddy card",
}
_KIND_ALIASES = {k.lower(): k for k in MARKER_KINDS} | {
    "noentry": "no-entry",
    "interdiction": "no-entry",
    "disorganised": "disorganized",
    "exploit": "exploitation",
    "hero": "hero-site",
    "site": "hero-site",
    "buddy": "buddy-card",
    "card": "buddy-card",
}


class Marker(msgspec.Struct):
    id: str
    kind: str
    target: str
    side: str | None
    placed_by: int
    turns_left: int | None
    note: str | None


class Game(msgspec.Struct):
    path: Path
    title: str
    rulesets: list[str]
    options: dict[str, Any]
    created: str
    format: int
    turn: int
    entries: list[dict[str, Any]]
    markers: list[Marker]
    # What loading found and left out (a torn last entry), one line each.
    warnings: list[str] = msgspec.field(default_factory=list)
    # Where the last entry read ends in the file: `read_new_entries` reads on from here.
    end: int = 0
    # Its units (order of battle) by name, in the order they came in, as the log leaves them.
    units: dict[str, UnitState] = msgspec.field(default_factory=dict)
    # The losses combats left for their owners to choose, still open, by combat entry number.
    open_losses: dict[int, list[dict[str, Any]]] = msgspec.field(default_factory=dict)

    def __eq__(self, other: object) -> bool:
        """The same game: every field the same but `end` (where a read stopped in the file,
        not what the game is)."""
        if type(other) is not Game:
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _COMPARED)


_COMPARED = tuple(name for name in Game.__struct_fields__ if name != "end")


def canonical_kind(kind: str) -> str:
    """A marker kind as typed (any case, spaces or '_') -> its canonical name, else SaveError."""
    key = re.sub(r"[\s_]+", "-", str(kind).strip()).lower()
    if key in _KIND_ALIASES:
        return _KIND_ALIASES[key]

    near = nearest(key, _KIND_ALIASES)
    hint = f"; did you mean {_KIND_ALIASES[near]}?" if near else ""
    raise SaveError(
        f"unknown marker kind {kind!r}; expected one of {', '.join(MARKER_KINDS)}{hint}"
    )


def _marker_from(entry_seq: int, stored: dict[str, Any]) -> Marker:
    return Marker(
        id=stored["id"],
        kind=stored["kind"],
        target=stored["target"],
        side=stored.get("side"),
        placed_by=entry_seq,
        turns_left=stored.get("turns"),
        note=stored.get("note"),
    )


# Kinds of which a hex or unit holds at most one marker (RULINGS, "Markers"): marked
# again, it keeps one. A kind listed with another is replaced by it (Exhausted, Low).
ONE_PER_TARGET = frozenset(
    {"no-entry", "low", "exhausted", "DG", "exploitation", "engaged", "disorganized"}
)
REPLACES = {"exhausted": ("low",)}


def _place(markers: dict[str, Marker], marker: Marker) -> None:
    """Put `marker` in play. One No-entry marker per hex: a hex struck again keeps the
    marker that lasts longer (no end outlasts any number; the later on a tie). One marker of
    a kind per unit: the later replaces it, and Exhausted replaces Low."""
    if marker.kind in ONE_PER_TARGET:
        kinds = (marker.kind, *REPLACES.get(marker.kind, ()))
        for held in [m for m in markers.values() if m.kind in kinds and m.target == marker.target]:
            if held.kind == "no-entry" and _lasts(held) > _lasts(marker):
                return
            del markers[held.id]
    markers[marker.id] = marker


def _lasts(marker: Marker) -> float:
    return float("inf") if marker.turns_left is None else marker.turns_left


def _lift(markers: dict[str, Marker], entry: dict[str, Any]) -> None:
    """A marker lifted. Where it was merged into another of its kind on its hex or unit
    (a save logged before markers were one per target), that one is lifted: the Frogman
    opens the hex whatever strikes closed it."""
    if markers.pop(entry["marker_id"], None) is not None:
        return
    kind, target = entry.get("marker_kind"), entry.get("target")
    if kind in ONE_PER_TARGET:
        for held in [m for m in markers.values() if m.kind == kind and m.target == target]:
            del markers[held.id]


def apply_entry(game: Game, entry: dict[str, Any], *, keep: bool = True) -> None:
    """Update a loaded game in place with one entry appended after it (as an `append_*`
    function returns it): its log, turn, markers and options then equal what `load_game`
    would now give. The load's replay applies every entry by the same rule (`_apply`).
    Without `keep` the entry is not added to `game.entries` (a game read entry by entry
    keeps none: see `read_entries`)."""
    markers = {m.id: m for m in game.markers}
    (_apply if keep else _apply_state)(game, entry, markers)
    game.markers[:] = markers.values()


def _apply(game: Game, entry: dict[str, Any], markers: dict[str, Marker]) -> None:
    """The replay rule for one entry. `markers` is the game's markers by id, in play order
    (the replay keeps it across a whole log, so a long one stays linear)."""
    game.entries.append(entry)
    _apply_state(game, entry, markers)


def _apply_state(game: Game, entry: dict[str, Any], markers: dict[str, Marker]) -> None:
    """What one entry does to the turn, the markers and the options."""
    kind = entry["kind"]
    if kind == "combat":
        for stored in entry.get("markers", []):
            _place(markers, _marker_from(entry["seq"], stored))
    elif kind == "place-marker":
        _place(markers, _marker_from(entry["seq"], entry["marker"]))
    elif kind == "remove-marker":
        _lift(markers, entry)
    elif kind == "turn":
        game.turn = entry["turn"]
        # The markers the entry lifted are lifted too: a turn logged under an earlier
        # count-down keeps the game as it was played.
        for marker_id in _count_down(markers) + list(entry.get("expired") or []):
            markers.pop(marker_id, None)
    elif kind == "option":
        game.options[entry["key"]] = entry["value"]
    if kind in _UNIT_KINDS or (
        kind == "combat" and (entry.get("losses") or entry.get("open_losses"))
    ):
        # Imported by the first entry that changes units: a desk opening a game without
        # them draws its first frame without it (the start-up budget, docs/performance.md).
        from tui.engine.units import apply_open, apply_units

        apply_units(game.units, entry)
        apply_open(game.open_losses, entry, game.units)


# The entries that change a game's units (and a combat that logged losses or left some open).
_UNIT_KINDS = frozenset({"unit", "units", "loss"})


def _replay(path: Path, parsed: _Parsed, warnings: list[str]) -> Game:
    game = _new_game(path, parsed.header, warnings)
    markers: dict[str, Marker] = {}
    for entry in parsed.entries:
        _apply(game, entry, markers)
    game.markers = list(markers.values())
    return game


def _new_game(path: Path, header: dict[str, Any], warnings: list[str]) -> Game:
    """The game a checked header starts, before any entry is replayed."""
    return Game(
        path=path,
        title=header["title"],
        rulesets=list(header["rulesets"]),
        options=dict(DEFAULT_OPTIONS) | dict(header.get("options", {})),
        created=header["created"],
        format=header["format"],
        turn=1,
        entries=[],
        markers=[],
        warnings=warnings,
    )


def _count_down(markers: dict[str, Marker]) -> list[str]:
    """Count every timed marker down by one turn; the ids that run out (and expire).

    A marker's turns left are the turns it lasts after the one it is in: an N-turn marker
    holds for the rest of the turn it is placed in and then N more turns, so a 1-turn
    marker placed in turn 3 is at 0 in turn 4 and is lifted when turn 5 begins."""
    expired = []
    for marker in markers.values():
        if marker.turns_left is not None:
            marker.turns_left -= 1
            if marker.turns_left < 0:
                expired.append(marker.id)
    return expired
