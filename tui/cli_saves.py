"""Save-file commands for the CLI (new, log, turn, marker, option) and `resolve --save`.

Every command names a save as the player typed it (`campaign` or `campaign.toml`), found in
the saves folder (`--saves DIR`, else $CRTDESK_SAVES, else saves/). A broken save is a
SaveError: one line on stderr and exit status 2, from tui.cli.main.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from tui import saves
from tui.engine.combat import CombatInput, Outcome
from tui.engine.errors import InputError
from tui.engine.tables import RULESET_IDS, Tables

_SAVES_HELP = "the saves folder (default saves/ or $CRTDESK_SAVES)"
_FILE_HELP = "the save's name in the saves folder (.toml may be left off)"


def register(subparsers: argparse._SubParsersAction) -> None:  # noqa: SLF001
    """Add the save-file subcommands."""
    new = subparsers.add_parser("new", help="start a game in a new save file")
    new.add_argument("file", metavar="FILE", help=_FILE_HELP)
    new.add_argument("--title", required=True, help="the game's title")
    new.add_argument(
        "--ruleset",
        dest="rulesets",
        action="extend",
        nargs="+",
        required=True,
        metavar="ID",
        help="the rulesets in play (repeat or list several): " + ", ".join(RULESET_IDS),
    )
    new.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a per-game option, e.g. mines_cdf=3 (pod-ultra; default 2)",
    )
    new.add_argument("--saves", metavar="DIR", help=_SAVES_HELP)
    new.set_defaults(func=_cmd_new)

    log = subparsers.add_parser("log", help="print a save's log, or its markers")
    log.add_argument("file", metavar="FILE", help=_FILE_HELP)
    log.add_argument("--json", action="store_true", help="every field, as JSON")
    log.add_argument("--turn", metavar="N", help="only entries of turn N")
    log.add_argument("--ruleset", metavar="ID", help="only combats of this ruleset")
    log.add_argument("--player", metavar="NAME", help="only entries by this player (OS user)")
    log.add_argument("--markers", action="store_true", help="print the current markers instead")
    log.add_argument("--saves", metavar="DIR", help=_SAVES_HELP)
    log.set_defaults(func=_cmd_log)

    turn = subparsers.add_parser("turn", help="advance to the next turn (markers count down)")
    turn.add_argument("file", metavar="FILE", help=_FILE_HELP)
    turn.add_argument("--saves", metavar="DIR", help=_SAVES_HELP)
    turn.set_defaults(func=_cmd_turn)

    marker = subparsers.add_parser("marker", help="place or lift a marker by hand")
    marker.add_argument("file", metavar="FILE", help=_FILE_HELP)
    marker.add_argument("--saves", metavar="DIR", help=_SAVES_HELP)
    actions = marker.add_subparsers(dest="action", metavar="add|remove", required=True)
    add = actions.add_parser("add", help="place a marker")
    add.add_argument("kind", metavar="KIND", help="one of " + ", ".join(saves.MARKER_KINDS))
    add.add_argument("target", metavar="TARGET", help="a hex such as 0712 or a unit's name")
    add.add_argument("--side", metavar="SIDE", help="whose marker it is (attacker, Allied, ...)")
    add.add_argument("--turns", metavar="N", help="turns it lasts (counted down by `turn`)")
    add.add_argument("--note", metavar="TEXT", help="a note for the log")
    add.add_argument("--saves", metavar="DIR", default=argparse.SUPPRESS, help=_SAVES_HELP)
    add.set_defaults(func=_cmd_marker_add)
    remove = actions.add_parser("remove", help="lift a marker")
    remove.add_argument("marker_id", metavar="ID", help="the marker's id, as `log --markers` shows")
    remove.add_argument("--saves", metavar="DIR", default=argparse.SUPPRESS, help=_SAVES_HELP)
    remove.set_defaults(func=_cmd_marker_remove)

    option = subparsers.add_parser("option", help="set a per-game option (logged)")
    option.add_argument("file", metavar="FILE", help=_FILE_HELP)
    option.add_argument("key", metavar="KEY", help="e.g. mines_cdf")
    option.add_argument("value", metavar="VALUE", help="e.g. 3")
    option.add_argument("--saves", metavar="DIR", help=_SAVES_HELP)
    option.set_defaults(func=_cmd_option)


def combat_for_game(
    save: str, saves_dir: str | None, combat: CombatInput, tables: Tables
) -> CombatInput:
    """The combat as the saved game plays it (RULINGS): a pod-ultra combat against mines
    uses the game's mines CDF, and a --mines-cdf that disagrees with the game's is refused.
    Only such a combat reads the whole save (the game's options are the replay of its log)."""
    if combat.ruleset != "pod-ultra" or (combat.obstacle != "mines" and combat.mines_cdf is None):
        return combat
    path = _path(save, saves_dir)
    game = saves.load_game(path)
    value = game.options.get("mines_cdf", tables.data["pod-ultra"]["obstacles"]["mines"])
    if combat.mines_cdf is None:
        return replace(combat, mines_cdf=value)
    if combat.mines_cdf != value:
        raise InputError(
            "mines_cdf",
            combat.mines_cdf,
            f"{value}, the mines CDF of the game in {path.name}, or no --mines-cdf "
            f"(`crtdesk option {save} mines_cdf N` changes the game's, and logs it)",
        )
    return combat


def record_combat(
    save: str,
    saves_dir: str | None,
    combat: CombatInput,
    outcome: Outcome,
    *,
    target: str | None = None,
    note: str | None = None,
) -> str:
    """Append a resolved combat to a save; the line to print."""
    path = _path(save, saves_dir)
    entry = saves.append_combat(path, combat, outcome, note, target=target)
    line = f"Saved as entry {entry['seq']} in {path}"
    placed = [_marker_text(m) for m in entry.get("markers", [])]
    if placed:
        line += "; placed " + "; ".join(placed)
    return line


# --- commands -------------------------------------------------------------------------------


def _path(name: str, saves_dir: str | None) -> Path:
    return saves.save_path(name, saves.saves_folder(saves_dir))


def _load(args: argparse.Namespace) -> saves.Game:
    game = saves.load_game(_path(args.file, args.saves))
    for warning in game.warnings:
        print(f"crtdesk: {warning}", file=sys.stderr)
    return game


def _cmd_new(args: argparse.Namespace, tables: Tables) -> int:
    options = dict(_option_pair(text) for text in args.option)
    path = _path(args.file, args.saves)
    game = saves.new_game(path, args.title, args.rulesets, options)
    shown = ", ".join(f"{k} {v}" for k, v in game.options.items())
    print(f"Started {_show(game.title)!r} in {path} ({', '.join(game.rulesets)}; {shown})")
    return 0


def _cmd_log(args: argparse.Namespace, tables: Tables) -> int:
    turn = _whole_number("turn", args.turn, 1)
    if args.ruleset is not None and args.ruleset not in RULESET_IDS:
        raise InputError("ruleset", args.ruleset, "one of " + ", ".join(RULESET_IDS))
    game = _load(args)
    if args.markers:
        markers = [_marker_dict(m) for m in game.markers]
        if args.json:
            print(json.dumps(markers, indent=2, ensure_ascii=False))
        else:
            print(markers_text(game))
        return 0
    entries = [
        entry
        for entry in game.entries
        if (turn is None or entry["turn"] == turn)
        and (args.ruleset is None or entry.get("ruleset") == args.ruleset)
        and (args.player is None or entry["who"] == args.player)
    ]
    if args.json:
        print(json.dumps(_game_dict(game) | {"entries": entries}, indent=2, ensure_ascii=False))
    else:
        print(log_text(game, entries))
    return 0


def _cmd_turn(args: argparse.Namespace, tables: Tables) -> int:
    path = _path(args.file, args.saves)
    before = {m.id: m for m in saves.load_game(path).markers}
    entry = saves.advance_turn(path)
    line = f"Turn {entry['turn']} begins (entry {entry['seq']} in {path})."
    counted = [f"{i} {_marker_name(before.get(i))}" for i in entry.get("counted_down", [])]
    expired = [f"{i} {_marker_name(before.get(i))}" for i in entry.get("expired", [])]
    if counted:
        line += " Counted down: " + "; ".join(counted) + "."
    if expired:
        line += " Expired and removed: " + "; ".join(expired) + "."
    print(line)
    return 0


def _cmd_marker_add(args: argparse.Namespace, tables: Tables) -> int:
    path = _path(args.file, args.saves)
    turns = _whole_number("turns", args.turns, 1)
    entry = saves.add_marker(path, args.kind, args.target, args.side, turns, args.note)
    print(f"Placed {_marker_text(entry['marker'])} as entry {entry['seq']} in {path}")
    return 0


def _cmd_marker_remove(args: argparse.Namespace, tables: Tables) -> int:
    path = _path(args.file, args.saves)
    entry = saves.remove_marker(path, args.marker_id)
    what = f"{entry['marker_kind']} on {_show(entry['target'])}"
    print(f"Removed marker {entry['marker_id']} ({what}) as entry {entry['seq']} in {path}")
    return 0


def _cmd_option(args: argparse.Namespace, tables: Tables) -> int:
    path = _path(args.file, args.saves)
    key, value = _option_pair(f"{args.key}={args.value}")
    entry = saves.set_option(path, key, value)
    print(f"Option {key} = {value!r} as entry {entry['seq']} in {path}")
    return 0


# --- parsing flags ------------------------------------------------------------------------


def _whole_number(field: str, text: str | None, low: int) -> int | None:
    if text is None:
        return None
    value = text.strip()
    if not value.isascii() or not value.isdigit() or int(value) < low:
        raise InputError(field, text, f"a whole number >= {low}")
    return int(value)


def _option_pair(text: str) -> tuple[str, object]:
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise InputError("option", text, "KEY=VALUE, e.g. mines_cdf=3")
    raw = raw.strip()
    value: object = raw
    if raw.lower() in ("true", "false"):
        value = raw.lower() == "true"
    elif raw.lstrip("+-").isascii() and raw.lstrip("+-").isdigit():
        value = int(raw)
    return key, value


# --- showing ------------------------------------------------------------------------------

_CONTROL = {i: f"\\x{i:02x}" for i in range(32)} | {10: "\\n", 13: "\\r", 9: "\\t", 127: "\\x7f"}


def _show(text: object) -> str:
    """Free text on one table line: control characters shown as escapes."""
    return str(text).translate(_CONTROL)


def _marker_name(marker: saves.Marker | None) -> str:
    if marker is None:
        return "(unknown marker)"
    return f"({marker.kind} on {_show(marker.target)})"


def _marker_text(marker: dict[str, Any]) -> str:
    extra = [marker["side"]] if marker.get("side") else []
    if marker.get("turns"):
        extra.append(f"{marker['turns']} turn{'s' if marker['turns'] != 1 else ''}")
    detail = f" ({', '.join(_show(e) for e in extra)})" if extra else ""
    return f"{marker['kind']} {marker['id']} on {_show(marker['target'])}{detail}"


def _marker_dict(marker: saves.Marker) -> dict[str, Any]:
    return {
        "id": marker.id,
        "kind": marker.kind,
        "target": marker.target,
        "side": marker.side,
        "turns_left": marker.turns_left,
        "placed_by": marker.placed_by,
        "note": marker.note,
    }


def _game_dict(game: saves.Game) -> dict[str, Any]:
    return {
        "path": str(game.path),
        "title": game.title,
        "rulesets": game.rulesets,
        "created": game.created,
        "format": game.format,
        "turn": game.turn,
        "options": game.options,
    }


def _cell_text(cell: Any) -> str:
    if cell is None:
        return ""
    if isinstance(cell, dict) and {"attacker", "defender"} <= set(cell):
        return (
            f"A {' '.join(map(str, cell['attacker']))} / D {' '.join(map(str, cell['defender']))}"
        )
    if isinstance(cell, list):
        return " ".join(map(str, cell))
    return str(cell)


def _dice_text(dice: list[dict[str, Any]]) -> str:
    parts = []
    for die in dice:
        values = die.get("values") or []
        rolled = str(die.get("total"))
        if len(values) > 1:
            rolled = "+".join(map(str, values)) + "=" + rolled
        who = "desk" if die.get("source") == "desk" else "by hand"
        parts.append(f"{die.get('dice', '?')} {rolled} {who}")
    return ", ".join(parts)


def _when_text(when: str) -> str:
    return when[:16].replace("T", " ")


def _what(entry: dict[str, Any]) -> tuple[str, str]:
    """(what happened, the result in words) for one entry."""
    kind = entry["kind"]
    note = f" Note: {_show(entry['note'])}" if entry.get("note") else ""
    if kind == "combat":
        cell = _cell_text(entry.get("cell"))
        placed = "".join(f" Placed {_marker_text(m)}." for m in entry.get("markers", []))
        target = f" Target {_show(entry['target'])}." if entry.get("target") else ""
        head = f"{cell}: " if cell else ""
        return entry["ruleset"], f"{head}{_show(entry['explanation'])}{target}{placed}{note}"
    if kind == "event":
        what = entry.get("ruleset") or "event"
        return what, f"{entry['event']}: {_show(entry['text'])}{note}"
    if kind == "place-marker":
        return "marker", f"Placed {_marker_text(entry['marker'])}.{note}"
    if kind == "remove-marker":
        what = entry.get("marker_kind", "marker")
        target = _show(entry.get("target", "?"))
        return "marker", f"Removed {what} {entry['marker_id']} on {target}.{note}"
    if kind == "turn":
        parts = [f"Turn {entry['turn']} begins."]
        if entry.get("counted_down"):
            parts.append("Counted down: " + ", ".join(entry["counted_down"]) + ".")
        if entry.get("expired"):
            parts.append("Expired: " + ", ".join(entry["expired"]) + ".")
        return "turn", " ".join(parts) + note
    if kind == "option":
        return "option", f"{entry['key']} = {_show(repr(entry['value']))}.{note}"
    return kind, (_show(entry["note"]) if entry.get("note") else kind)


def log_text(game: saves.Game, entries: list[dict[str, Any]]) -> str:
    """The log as a table a person reads: one line per entry, the result in words last."""
    options = ", ".join(f"{k} {v}" for k, v in game.options.items()) or "none"
    lines = [
        f"{_show(game.title)} ({game.path})",
        f"Rulesets {', '.join(game.rulesets)}; turn {game.turn}; created "
        f"{_when_text(game.created)} UTC; options: {_show(options)}",
    ]
    header = ("#", "turn", "when (UTC)", "who", "what", "odds", "column", "roll", "dice", "result")
    rows = []
    for entry in entries:
        what, result = _what(entry)
        rows.append(
            (
                str(entry["seq"]),
                str(entry["turn"]),
                _when_text(entry["when"]),
                _show(entry["who"]),
                what,
                _show(entry.get("odds") or ""),
                _show(entry.get("column") or ""),
                _show(entry.get("roll") or ""),
                _dice_text(entry.get("dice", [])),
                result,
            )
        )
    if not rows:
        return "\n".join(lines + ["(no entries match)" if game.entries else "(the log is empty)"])
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    right = {0, 1}
    for row in [header, *rows]:
        cells = [
            cell.rjust(width) if i in right else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=False))
        ]
        lines.append("  ".join(cells + [row[-1]]).rstrip())
    return "\n".join(lines)


def markers_text(game: saves.Game) -> str:
    """The current markers as a table."""
    title = f"Markers in {_show(game.title)} ({game.path}), turn {game.turn}"
    if not game.markers:
        return title + "\n(no markers)"
    header = ("id", "kind", "target", "side", "turns left", "placed by", "note")
    rows = [
        (
            m.id,
            m.kind,
            _show(m.target),
            _show(m.side or ""),
            "-" if m.turns_left is None else str(m.turns_left),
            f"entry {m.placed_by}",
            _show(m.note or ""),
        )
        for m in game.markers
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [title]
    for row in [header, *rows]:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    return "\n".join(lines)
