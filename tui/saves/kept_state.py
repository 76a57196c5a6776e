"""The state line's JSON as msgspec decodes and checks it (tui.saves.state reads it): a game
of thousands of units is read in milliseconds, as a keystroke's completion reads it.

Headless: never imports textual or rich.
"""

from __future__ import annotations

from typing import Any

import msgspec


class _KeptUnit(msgspec.Struct, array_like=True):
    """A unit as the state line keeps it (`state_line`), checked as it is decoded."""

    name: str
    side: str
    hex: str | None
    fields: dict[str, int | float | str]
    steps_lost: int
    factors_lost: int
    eliminated: bool
    changed_by: list[int]


class _KeptOpen(msgspec.Struct):
    """A loss a combat left open (its owner chooses the units), as the state line keeps it."""

    side: str
    what: str
    amount: int
    units: list[str]


class _Kept(msgspec.Struct):
    """The state line's JSON: the units checked as they are decoded (a game of thousands of
    units is read in milliseconds, as a keystroke's completion reads it), the rest after."""

    after: int
    turn: int
    options: Any
    markers: Any
    units: list[_KeptUnit]
    # The losses combats left open, by combat entry number (none in a line written before).
    open_losses: list[tuple[int, list[_KeptOpen]]] = msgspec.field(default_factory=list)


_KEPT = msgspec.json.Decoder(_Kept)


def decode_kept(body: bytes) -> _Kept | None:
    """The state line's body decoded and checked, or None where it does not fit."""
    try:
        return _KEPT.decode(body)
    except msgspec.DecodeError:
        return None
