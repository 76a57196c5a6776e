"""Marker and turn entries: a marker placed or lifted by hand, and the next turn, which
counts every timed marker down.

Headless: never imports textual or rich.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from tui.saves.appending import _append
from tui.saves.checking import (
    _check_text,
)
from tui.saves.errors import SaveError
from tui.saves.replay import Game, Marker, _count_down, canonical_kind

if TYPE_CHECKING:
    pass


def advance_turn(
    path: Path,
    *,
    who: str | None = None,
    notices: list[str] | None = None,
    markers_before: list[Marker] | None = None,
) -> dict[str, Any]:
    """Start the next turn: every timed marker counts down one, those at 0 are removed.
    `markers_before`, if given, gets the markers as the turn found them (under the lock)."""

    def make(
        header: dict[str, Any], last: dict[str, Any] | None, game: Game | None
    ) -> dict[str, Any]:
        assert game is not None
        if markers_before is not None:
            markers_before[:] = [replace(m) for m in game.markers]
        # Copies: the game is the store's state, to which this entry is then applied.
        markers = {m.id: replace(m) for m in game.markers}
        timed = [m.id for m in game.markers if m.turns_left is not None]
        expired = _count_down(markers)
        return {
            "kind": "turn",
            "turn": game.turn + 1,
            "counted_down": [i for i in timed if i not in expired] or None,
            "expired": expired or None,
        }

    return _append(path, make, whole=True, who=who, notices=notices)


def add_marker(
    path: Path,
    kind: str,
    target: str,
    side: str | None = None,
    turns: int | None = None,
    note: str | None = None,
    *,
    who: str | None = None,
    notices: list[str] | None = None,
) -> dict[str, Any]:
    """Place a marker by hand. Its id is the entry's number and `.1`."""
    kind = canonical_kind(kind)
    _check_text("target", target, allow_empty=False)
    if side is not None:
        _check_text("side", side, allow_empty=False)
    if note is not None:
        _check_text("note", note)
    if turns is not None and (type(turns) is not int or turns < 1):
        raise SaveError(f"turns must be a whole number of 1 or more, not {turns!r}")

    def make(
        header: dict[str, Any], last: dict[str, Any] | None, game: Game | None
    ) -> dict[str, Any]:
        seq = (last["seq"] if last else 0) + 1
        marker = {
            "id": f"{seq}.1",
            "kind": kind,
            "target": target,
            "side": side,
            "turns": turns,
            "note": note,
        }
        return {
            "kind": "place-marker",
            "marker": {k: v for k, v in marker.items() if v is not None},
        }

    return _append(path, make, who=who, notices=notices)


def remove_marker(
    path: Path,
    marker_id: str,
    *,
    note: str | None = None,
    who: str | None = None,
    notices: list[str] | None = None,
) -> dict[str, Any]:
    """Lift a marker by hand (e.g. Hero #15 Engineer/Frogman repairing a No-entry hex,
    said in `note`)."""
    marker_id = str(marker_id).strip()
    if note is not None:
        _check_text("note", note)

    def make(
        header: dict[str, Any], last: dict[str, Any] | None, game: Game | None
    ) -> dict[str, Any]:
        assert game is not None
        found = next((m for m in game.markers if m.id == marker_id), None)
        if found is None:
            known = ", ".join(m.id for m in game.markers) or "none"
            raise SaveError(f"no marker {marker_id!r} in {path}; current markers: {known}")
        return {
            "kind": "remove-marker",
            "note": note,
            "marker_id": marker_id,
            "marker_kind": found.kind,
            "target": found.target,
        }

    return _append(path, make, whole=True, who=who, notices=notices)
