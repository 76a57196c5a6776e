"""`crtdesk units FILE`: a game's order of battle. Lists its units (by side, with their
hex and state; --json), and adds, edits, removes, imports (CSV or TOML) and takes losses
(a combat's open losses assigned, or a correction), each a log entry."""

from __future__ import annotations

import argparse
import csv
import io
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui import saves
from tui.cli.commands import UNIT_FIELD_FLAGS
from tui.cli.parsing import UsageError
from tui.cli.saves import _notices, _path
from tui.engine.bounds import BoundError, read_bounded
from tui.engine.tables import Tables
from tui.engine.text import json_shown, one_line
from tui.engine.unit_text import losses_text, open_text
from tui.game.player import player_name

if TYPE_CHECKING:
    from tui.engine.units import UnitState

MOST_IMPORT_BYTES = 16 * 1024 * 1024


def _given(args: argparse.Namespace) -> dict[str, Any]:
    keys = ("side", "hex", *(name for name, _ in UNIT_FIELD_FLAGS))
    return {key: getattr(args, key) for key in keys if getattr(args, key, None) is not None}


def _cmd_list(args: argparse.Namespace, tables: Tables) -> int:
    path = _path(args.file, args.saves)
    game = saves.game_state(path)
    units = [
        u
        for u in game.units.values()
        if (args.side is None or u.side == args.side) and (args.hex is None or u.hex == args.hex)
    ]
    on: dict[str, list[str]] = {}
    for marker in game.markers:
        on.setdefault(marker.target, []).append(marker.kind)
    still = [
        {"combat": seq} | owed
        for seq, losses in game.open_losses.items()
        for owed in losses
        if args.side is None or any(_side_of(game, u) == args.side for u in owed["units"])
    ]
    if args.json:
        listed = [u.state() | {"markers": on.get(u.name, [])} for u in units]
        print(json_shown({"file": str(path), "units": listed, "open_losses": still}))
        return 0
    if not units:
        said = "no units" if not game.units else "no units match"
        print(
            f"{one_line(game.title)} ({path.name}): {said}; add them with `crtdesk units FILE add` or `import`"
        )
        return 0
    for side in dict.fromkeys(u.side for u in units):
        print(one_line(side))
        for unit in (u for u in units if u.side == side):
            print("  " + _unit_line(unit, on.get(unit.name, [])))
    if still:
        print("Open losses (to choose: `crtdesk units FILE take UNIT --steps N --combat N`)")
        for owed in still:
            print(f"  combat {owed['combat']}: {open_text(owed)}")
    return 0


def _side_of(game: saves.Game, name: str) -> str | None:
    unit = game.units.get(name)
    return unit.side if unit is not None else None


def _unit_line(unit: UnitState, markers: list[str]) -> str:
    parts = [f"{one_line(unit.name):<16}", f"hex {one_line(unit.hex)}" if unit.hex else "hex -"]
    full = unit.fields.get("factor")
    parts.append(f"factor {unit.factor_left}" + (f"/{full}" if full != unit.factor_left else ""))
    if unit.steps_left is not None:
        parts.append(f"steps {unit.steps_left}/{unit.fields.get('steps')}")
    for key in ("ar", "kind", "supply", "re"):
        if key in unit.fields:
            parts.append(f"{key} {unit.fields[key]}")
    if unit.eliminated or not unit.alive:
        parts.append("ELIMINATED")
    if markers:
        parts.append(", ".join(markers))
    return "  ".join(parts)


def _cmd_add(args: argparse.Namespace, tables: Tables) -> int:
    path = _path(args.file, args.saves)
    with _notices() as notices:
        entry = saves.add_unit(
            path, {"name": args.name} | _given(args), who=player_name(), notices=notices
        )
    print(f"Added {one_line(args.name)} as entry {entry['seq']} in {path}")
    return 0


def _cmd_edit(args: argparse.Namespace, tables: Tables) -> int:
    path = _path(args.file, args.saves)
    with _notices() as notices:
        entry = saves.edit_unit(path, args.name, _given(args), who=player_name(), notices=notices)
    print(f"Changed {one_line(args.name)} as entry {entry['seq']} in {path}")
    return 0


def _cmd_remove(args: argparse.Namespace, tables: Tables) -> int:
    path = _path(args.file, args.saves)
    with _notices() as notices:
        entry = saves.remove_unit(
            path, args.name, note=args.note, who=player_name(), notices=notices
        )
    print(f"Removed {one_line(args.name)} as entry {entry['seq']} in {path}")
    return 0


def _whole(flag: str, text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"--{flag}: {text!r} is not allowed; expected a whole number") from None


def _cmd_take(args: argparse.Namespace, tables: Tables) -> int:
    path = _path(args.file, args.saves)
    loss: dict[str, Any] = {"unit": args.name}
    for key in ("steps", "factors"):
        value = _whole(key, getattr(args, key))
        if value is not None:
            loss[key] = value
    if args.eliminated or args.back:
        loss["eliminated"] = bool(args.eliminated)
    with _notices() as notices:
        entry = saves.take_losses(
            path,
            [loss],
            combat=_whole("combat", args.combat),
            note=args.note,
            who=player_name(),
            notices=notices,
        )
    print(f"{losses_text(entry['losses'])} (entry {entry['seq']} in {path})")
    return 0


def read_order_of_battle(source: Path) -> list[dict[str, Any]]:
    """The units of a CSV or TOML file, as records (checked when imported). A file that
    cannot be read is one UsageError line naming it."""
    try:
        raw = read_bounded(source, MOST_IMPORT_BYTES)
    except OSError as err:
        raise UsageError(f"{source}: cannot be read: {err.strerror or err}") from None
    except BoundError as err:
        raise UsageError(f"{source}: {err}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise UsageError(f"{source}: not UTF-8 text (byte {err.start})") from None
    if source.suffix.lower() == ".toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise UsageError(f"{source}: not TOML: {err}") from None
        listed = data.get("unit")
        if not isinstance(listed, list) or not all(isinstance(u, dict) for u in listed):
            raise UsageError(f"{source}: expected [[unit]] tables, one per unit")
        return [dict(u) for u in listed]
    if source.suffix.lower() != ".csv":
        raise UsageError(f"{source}: expected a .csv or a .toml file")
    rows = csv.DictReader(io.StringIO(text))
    if not rows.fieldnames:
        raise UsageError(
            f"{source}: empty; expected a header row (name,side,...) and a row per unit"
        )
    records = []
    for number, row in enumerate(rows, 2):
        if None in row:
            raise UsageError(f"{source}: line {number}: more cells than the header names")
        records.append({k.strip().lower(): (v or "").strip() for k, v in row.items() if k})
    return records


def _cmd_import(args: argparse.Namespace, tables: Tables) -> int:
    path = _path(args.file, args.saves)
    source = Path(args.source)
    records = read_order_of_battle(source)
    with _notices() as notices:
        entries = saves.import_units(
            path,
            records,
            source=source.name,
            # A CSV row is named by its line (the header is line 1), a TOML one by its
            # place among the [[unit]] tables.
            first=2 if source.suffix.lower() == ".csv" else 1,
            row="line" if source.suffix.lower() == ".csv" else "unit",
            who=player_name(),
            notices=notices,
        )
    count = sum(len(entry["units"]) for entry in entries)
    seqs = [entry["seq"] for entry in entries]
    where = f"entry {seqs[0]}" if len(seqs) == 1 else f"entries {seqs[0]} to {seqs[-1]}"
    print(f"Imported {count} units from {source.name} as {where} in {path}")
    return 0
