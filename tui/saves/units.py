"""Unit entries: a game's order of battle brought in (one unit, or a whole file of them in
one entry), edited, removed, and the losses a player assigns (or corrects). Each checks
what it is given against the units the log leaves (a name once, a loss from a unit there)
under the lock, so two players on one save never add the same unit twice.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tui.engine import registry
from tui.engine.tables import default_tables
from tui.engine.units import MOST_UNITS, RecordField, answer_open, read_record, record_fields
from tui.saves.appending import _append
from tui.saves.checking import _check_text
from tui.saves.errors import SaveError
from tui.saves.loading import _read_ends
from tui.saves.locking import _locked, _require, _still_verified
from tui.saves.replay import Game
from tui.saves.state import read_state
from tui.saves.streaming import read_entries


def unit_fields(rulesets: Sequence[str]) -> tuple[RecordField, ...]:
    """The per-unit fields of a game's units: those of its ruleset whose units hold the
    most (its roster: a game of OCS and Rivets keeps whole OCS counters), else its first's."""
    known = [registry.get(r) for r in rulesets if registry.known(r)]
    if not known:
        return record_fields((), "")
    found = max(known, key=lambda ruleset: len(ruleset.roster))
    return record_fields(found.roster, found.losses(default_tables()))


def _record(game: Game, raw: Mapping[str, Any], *, partial: bool = False) -> dict[str, Any]:
    try:
        return read_record(raw, unit_fields(game.rulesets), partial=partial)
    except ValueError as err:
        raise SaveError(str(err)) from None


def _known(game: Game, name: str) -> None:
    if name not in game.units:
        listed = ", ".join(list(game.units)[:8]) or "none"
        more = " ..." if len(game.units) > 8 else ""
        raise SaveError(f"no unit {name!r} in {game.path}; its units: {listed}{more}")


def add_unit(
    path: Path,
    record: Mapping[str, Any],
    *,
    who: str | None = None,
    notices: list[str] | None = None,
) -> dict[str, Any]:
    """Add one unit (name, side, hex and its ruleset's fields, checked)."""

    def make(
        header: dict[str, Any], last: dict[str, Any] | None, game: Game | None
    ) -> dict[str, Any]:
        assert game is not None
        unit = _record(game, record)
        if unit["name"] in game.units:
            raise SaveError(f"a unit {unit['name']!r} is already in {path}; each name once")
        if len(game.units) >= MOST_UNITS:
            raise SaveError(f"{path} holds {MOST_UNITS:,} units, the most a game may")
        return {"kind": "unit", "action": "add", "unit": unit}

    return _append(path, make, whole=True, who=who, notices=notices)


def edit_unit(
    path: Path,
    name: str,
    changes: Mapping[str, Any],
    *,
    who: str | None = None,
    notices: list[str] | None = None,
) -> dict[str, Any]:
    """Change some of a unit's record (a later entry: the log keeps what it was)."""

    def make(
        header: dict[str, Any], last: dict[str, Any] | None, game: Game | None
    ) -> dict[str, Any]:
        assert game is not None
        _known(game, name)
        if "name" in changes and changes["name"] not in (None, name):
            raise SaveError("a unit's name cannot be changed; remove it and add it again")
        unit = _record(game, {k: v for k, v in changes.items() if k != "name"}, partial=True)
        if not unit:
            raise SaveError(f"nothing to change for {name!r}; give a field and its value")
        return {"kind": "unit", "action": "edit", "unit": {"name": name} | unit}

    return _append(path, make, whole=True, who=who, notices=notices)


def remove_unit(
    path: Path,
    name: str,
    *,
    note: str | None = None,
    who: str | None = None,
    notices: list[str] | None = None,
) -> dict[str, Any]:
    """Take a unit off the game's roster (not a loss: it was never there, or it left)."""
    if note is not None:
        _check_text("note", note)

    def make(
        header: dict[str, Any], last: dict[str, Any] | None, game: Game | None
    ) -> dict[str, Any]:
        assert game is not None
        _known(game, name)
        return {
            "kind": "unit",
            "action": "remove",
            "unit": {"name": name, "side": game.units[name].side},
            "note": note,
        }

    return _append(path, make, whole=True, who=who, notices=notices)


# The most bytes of unit records one import entry holds, well under an entry's limit
# (tui.saves.encoding MAX_ENTRY, 256 KiB): a larger order of battle is written in several
# entries, each under the lock.
IMPORT_ENTRY_BYTES = 160 * 1024


def import_units(
    path: Path,
    records: Sequence[Mapping[str, Any]],
    *,
    source: str | None = None,
    first: int = 1,
    row: str = "row",
    who: str | None = None,
    notices: list[str] | None = None,
) -> list[dict[str, Any]]:
    """Add many units (an order of battle read from a file): every record is checked first,
    and a bad one imports nothing (SaveError names its `row`, numbered from `first`, and
    field). The units go in one entry, or in several where they are more than one entry
    may hold (each checked again under the lock); the entries written are returned."""
    if source is not None:
        _check_text("source", source)
    at = f"{source}: " if source else ""
    game = game_state(path)
    units = _imported(game, records, at, row, first)
    chunks: list[list[dict[str, Any]]] = [[]]
    size = 0
    for unit in units:
        # Its size as the entry holds it (JSON-like, a little under TOML's).
        grows = len(json.dumps(unit, ensure_ascii=False)) + 8
        if chunks[-1] and size + grows > IMPORT_ENTRY_BYTES:
            chunks.append([])
            size = 0
        chunks[-1].append(unit)
        size += grows
    written: list[dict[str, Any]] = []
    for chunk in chunks:

        def make(
            header: dict[str, Any],
            last: dict[str, Any] | None,
            now: Game | None,
            chunk: list[dict[str, Any]] = chunk,
        ) -> dict[str, Any]:
            assert now is not None
            clash = next((u["name"] for u in chunk if u["name"] in now.units), None)
            if clash is not None:  # added by another writer since the check
                done = sum(len(e["units"]) for e in written)
                raise SaveError(
                    f"{at}{clash!r} was added by another writer meanwhile; "
                    f"{done} of {len(units)} units were imported"
                )
            return {"kind": "units", "units": chunk, "source": source}

        written.append(_append(path, make, whole=True, who=who, notices=notices))
    return written


def _imported(
    game: Game, records: Sequence[Mapping[str, Any]], at: str, row: str, first: int
) -> list[dict[str, Any]]:
    """The records checked as units for `game`; SaveError names the first bad one."""
    units: list[dict[str, Any]] = []
    seen: set[str] = set()
    fields = unit_fields(game.rulesets)
    for number, raw in enumerate(records, first):
        try:
            unit = read_record(raw, fields)
        except ValueError as err:
            raise SaveError(f"{at}{row} {number}: {err}; nothing was imported") from None
        if unit["name"] in seen or unit["name"] in game.units:
            raise SaveError(
                f"{at}{row} {number}: name: {unit['name']!r} is already a unit; each name "
                "once; nothing was imported"
            )
        seen.add(unit["name"])
        units.append(unit)
    if not units:
        raise SaveError(f"{at}no units to import")
    if len(game.units) + len(units) > MOST_UNITS:
        raise SaveError(f"{at}over {MOST_UNITS:,} units; nothing was imported")
    return units


def take_losses(
    path: Path,
    losses: Sequence[Mapping[str, Any]],
    *,
    combat: int | None = None,
    note: str | None = None,
    who: str | None = None,
    notices: list[str] | None = None,
) -> dict[str, Any]:
    """Log losses a player assigns ({unit, steps|factors, eliminated}): a combat's open
    losses taken (`combat`, its entry number), or a correction (a negative number gives
    back what a loss took; eliminated false brings a unit back)."""
    if note is not None:
        _check_text("note", note)

    def make(
        header: dict[str, Any], last: dict[str, Any] | None, game: Game | None
    ) -> dict[str, Any]:
        assert game is not None
        if not losses:
            raise SaveError("no losses given; name a unit and what it loses")
        checked = []
        for loss in losses:
            name = str(loss.get("unit", ""))
            _known(game, name)
            out: dict[str, Any] = {"unit": name}
            for key in ("steps", "factors"):
                value = loss.get(key, 0)
                if type(value) is not int or not -99 <= value <= 99:
                    raise SaveError(
                        f"{name}: {key} {value!r}; expected a whole number from -99 to 99"
                    )
                if value or (combat is not None and key == "steps" and key in loss):
                    out[key] = value  # 0 steps for a combat: its option all retreated
            if "eliminated" in loss:
                if not isinstance(loss["eliminated"], bool):
                    raise SaveError(
                        f"{name}: eliminated {loss['eliminated']!r}; expected true or false"
                    )
                out["eliminated"] = loss["eliminated"]
            if len(out) == 1:
                raise SaveError(f"{name}: nothing lost; give steps, factors or eliminated")
            checked.append(out)
        if combat is not None and (type(combat) is not int or combat < 1):
            raise SaveError(f"combat {combat!r}; expected the entry number of a combat")
        if combat is not None:
            _answers(game, combat, checked)
        return {"kind": "loss", "losses": checked, "combat": combat, "note": note}

    return _append(path, make, whole=True, who=who, notices=notices)


def _answers(game: Game, combat: int, losses: list[dict[str, Any]]) -> None:
    """Refuse losses that do not answer combat `combat`'s open losses (a unit that did not
    fight in it, of the wrong side, a kind it does not owe, more than is owed or than the
    unit has); a unit of factors alone losing all it has left is marked eliminated."""
    try:
        answer_open(combat, game.open_losses.get(combat, []), losses, game.units)
    except ValueError as err:
        raise SaveError(str(err)) from None
    for loss in losses:
        # A unit of steps is out with its last step (its state says so); one of factors
        # alone is marked eliminated when it loses all it has.
        unit = game.units[loss["unit"]]
        factors = loss.get("factors", 0)
        if unit.steps_left is None and factors and factors >= unit.factor_left:
            loss["eliminated"] = True


def game_state(path: Path) -> Game:
    """The game as its log leaves it (turn, markers, options, units; no entries), read
    without the log where the state kept beside the save matches the file (a long campaign
    read in milliseconds), else streamed entry by entry (never held whole). A save a load
    refuses is refused (SaveError)."""
    path = Path(path)
    _require(path)
    with _locked(path, exclusive=False) as lock:
        fd = lock.open_fd()
        status = os.fstat(fd)
        header, last, tail = _read_ends(fd, path)
        record, state = lock.kept_lines()  # a shared lock: the lock file read, not written
        if _still_verified(record, status, tail):
            game = read_state(state, path, header, last["seq"] if last else 0)
            if game is not None:
                return game
    stream = read_entries(path)
    for _ in stream:
        pass
    if stream.game is None:
        raise SaveError(f"{path}: cannot be read")
    return stream.game
