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


def read_state(line: bytes, path: Path, header: dict[str, Any], after: int) -> Game | None:
    """The game the state line keeps (its header from `header`), or None when the line is
    not a state exactly as written after entry `after`."""
    if not line.startswith(_PREFIX) or not line.endswith(b"\n"):
        return None
    crc, _, body = line[len(_PREFIX) : -1].partition(b" ")
    # Imported to read a kept state (msgspec): a desk opening a game draws its first frame
    # without it (the start-up budget, docs/performance.md).
    from tui.saves.kept_state import decode_kept

    try:
        if int(crc, 16) != zlib.crc32(body) or len(crc) != 8:
            return None
        kept = decode_kept(body)
    except (ValueError, RecursionError):
        return None
    if kept is None:
        return None
    if kept.after != after:
        return None
    options, listed = kept.options, kept.markers
    if not isinstance(options, dict) or not isinstance(listed, list):
        return None
    if not all(_text(k) and isinstance(v, bool | int | float | str) for k, v in options.items()):
        return None
    markers = [_marker(fields) for fields in listed]
    if any(marker is None for marker in markers):
        return None
    game = _new_game(path, header, [])
    game.turn = kept.turn
    game.open_losses = {
        seq: [
            {"side": o.side, "what": o.what, "amount": o.amount, "units": list(o.units)}
            for o in losses
        ]
        for seq, losses in kept.open_losses
    }
    game.options = options
    game.markers = markers  # type: ignore[assignment]
    if not kept.units:
        return game  # no units: a desk opening the game loads none of their code
    # Imported for a game with units: the start-up budget (docs/performance.md).
    from tui.engine.units import UnitState

    game.units = {
        u.name: UnitState(
            u.name,
            u.side,
            u.fields,
            u.hex,
            u.steps_lost,
            u.factors_lost,
            u.eliminated,
            u.changed_by,
        )
        for u in kept.units
    }
    return game
