"""The game's state kept beside the save: the turn, the markers in play, the units and the options
after its last entry, so that a turn or a marker lifted reads no more than the ends of a
long campaign.

It is the second line of NAME.toml.lock, after the record of the file as last written
(`locking`): `state CRC32 JSON`. A writer that knows the state (the record matches the file
and the state follows its last entry) applies its entry to it and writes both back in one
write; any other write to the save (an editor, an older crtdesk, a writer killed before
its record) leaves a record that no longer matches, and the state is then worked out again
from the whole log, read entry by entry. Whatever the line holds is checked before use: a
state that is not exactly as written is not used.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

from tui.engine.units import UnitState
from tui.saves.replay import Game, Marker, _new_game

_PREFIX = b"state "
# Bigger than any state a game of markers makes; a larger line is not read.
MAX_STATE = 4 * 1024 * 1024


def state_line(game: Game, after: int) -> bytes:
    """The line that keeps `game`'s turn, markers and options, after entry `after` (b""
    when they cannot be kept: the state is then worked out from the log when needed)."""
    markers = [
        [m.id, m.kind, m.target, m.side, m.placed_by, m.turns_left, m.note] for m in game.markers
    ]
    units = [
        [u.name, u.side, u.hex, u.fields, u.steps_lost, u.factors_lost, u.eliminated, u.changed_by]
        for u in game.units.values()
    ]
    try:
        body = json.dumps(
            {
                "after": after,
                "turn": game.turn,
                "options": game.options,
                "markers": markers,
                "units": units,
                "open_losses": [[seq, losses] for seq, losses in game.open_losses.items()],
            },
            ensure_ascii=True,
            separators=(",", ":"),
        ).encode()
    except (TypeError, ValueError):  # a value JSON cannot hold (a hand-made header): no state
        return b""
    return _PREFIX + f"{zlib.crc32(body):08x} ".encode() + body + b"\n"


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _whole(value: Any) -> bool:
    return type(value) is int


def _marker(fields: Any) -> Marker | None:
    if not isinstance(fields, list) or len(fields) != 7:
        return None
    ident, kind, target, side, placed_by, turns_left, note = fields
    if not (_text(ident) and _text(kind) and _text(target) and _whole(placed_by)):
        return None
    if not (side is None or _text(side)) or not (note is None or _text(note)):
        return None
    if not (turns_left is None or _whole(turns_left)):
        return None
    return Marker(ident, kind, target, side, placed_by, turns_left, note)


def _unit(fields: Any) -> UnitState | None:
    if not isinstance(fields, list) or len(fields) != 8:
        return None
    name, side, hexed, record, steps, factors, eliminated, changed_by = fields
    if not (_text(name) and _text(side) and (hexed is None or _text(hexed))):
        return None
    if not isinstance(record, dict) or not all(
        _text(k) and isinstance(v, int | float | str) for k, v in record.items()
    ):
        return None
    if not (_whole(steps) and _whole(factors) and isinstance(eliminated, bool)):
        return None
    if not isinstance(changed_by, list) or not all(_whole(seq) for seq in changed_by):
        return None
    return UnitState(name, side, record, hexed, steps, factors, eliminated, changed_by)


def _open_losses(kept: Any) -> dict[int, list[dict[str, Any]]] | None:
    """The open losses a state line keeps ([combat, [{side, what, amount, units}]]), or
    None when they are not as written."""
    if not isinstance(kept, list):
        return None
    out: dict[int, list[dict[str, Any]]] = {}
    for item in kept:
        if not (isinstance(item, list) and len(item) == 2 and _whole(item[0])):
            return None
        seq, losses = item
        if not isinstance(losses, list) or not all(
            isinstance(o, dict)
            and _text(o.get("side"))
            and _text(o.get("what"))
            and _whole(o.get("amount"))
            and isinstance(o.get("units"), list)
            and all(_text(u) for u in o["units"])
            for o in losses
        ):
            return None
        out[seq] = losses
    return out


def read_state(line: bytes, path: Path, header: dict[str, Any], after: int) -> Game | None:
    """The game the state line keeps (its header from `header`), or None when the line is
    not a state exactly as written after entry `after`."""
    if not line.startswith(_PREFIX) or not line.endswith(b"\n"):
        return None
    crc, _, body = line[len(_PREFIX) : -1].partition(b" ")
    try:
        if int(crc, 16) != zlib.crc32(body) or len(crc) != 8:
            return None
        kept = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(kept, dict) or kept.get("after") != after or not _whole(kept.get("turn")):
        return None
    options, listed = kept.get("options"), kept.get("markers")
    if not isinstance(options, dict) or not isinstance(listed, list):
        return None
    if not all(_text(k) and isinstance(v, bool | int | float | str) for k, v in options.items()):
        return None
    markers = [_marker(fields) for fields in listed]
    if any(marker is None for marker in markers):
        return None
    kept_units = kept.get("units")
    if not isinstance(kept_units, list):
        return None
    units = [_unit(fields) for fields in kept_units]
    if any(unit is None for unit in units):
        return None
    open_losses = _open_losses(kept.get("open_losses", []))
    if open_losses is None:
        return None
    game = _new_game(path, header, [])
    game.open_losses = open_losses
    game.turn = kept["turn"]
    game.options = options
    game.markers = markers  # type: ignore[assignment]
    game.units = {unit.name: unit for unit in units if unit is not None}
    return game
