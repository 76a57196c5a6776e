"""How the desk's things read as text, one reading each: a cell, dice, a time stamp, a
marker, a log entry, a result's effects in a few words, and a printed chart.

Headless (no textual, no rich), so the CLI and the screens print the same words.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TextIO

from tui.engine.cells import BIDI, plain

# A cell and a result in a few words are the engine's own text; read here too.
from tui.engine.cells import NO_CELL as NO_CELL
from tui.engine.cells import cell_text as cell_text
from tui.engine.cells import one_line as one_line
from tui.engine.cells import short_meaning as short_meaning
from tui.engine.tables import Chart, LegendEntry, TerrainChart

_JSON_HIDDEN = {i: f"\\u{i:04x}" for i in [0x2028, 0x2029, *BIDI]}


def json_shown(value: Any) -> str:
    """`value` as JSON for a terminal: the same data, with the characters that reorder or
    break text on screen written as JSON escapes (control characters JSON escapes itself)."""
    return json.dumps(value, indent=2, ensure_ascii=False).translate(_JSON_HIDDEN)


# Characters of JSON gathered before they are written (`write_json_shown`).
_JSON_PIECE = 1 << 16


def write_json_shown(value: Any, out: TextIO) -> None:
    """`json_shown(value)` and a newline, written to `out` a piece at a time: a long
    campaign's JSON (luck's, one record per combat) is never held whole, nor the many small
    strings the encoder makes of it."""
    held: list[str] = []
    size = 0
    for piece in json.JSONEncoder(indent=2, ensure_ascii=False).iterencode(value):
        held.append(piece)
        size += len(piece)
        if size >= _JSON_PIECE:
            out.write("".join(held).translate(_JSON_HIDDEN))
            held.clear()
            size = 0
    held.append("\n")
    out.write("".join(held).translate(_JSON_HIDDEN))


def shown_lines(lines: str | Sequence[str]) -> str:
    """Lines for a screen or a terminal, each shown as text by `one_line` (the line breaks
    between them kept): the last step before anything from a save is shown."""
    if isinstance(lines, str):
        lines = lines.split("\n")
    return "\n".join(one_line(line) for line in lines)


# --- cells and dice -------------------------------------------------------------------------


class _Die(Protocol):
    """A roll as the engine keeps it (a frozen `DiceRoll`): read, never set, here."""

    @property
    def dice(self) -> str: ...
    @property
    def values(self) -> tuple[int, ...]: ...
    @property
    def total(self) -> int: ...
    @property
    def source(self) -> str: ...
    @property
    def modifier(self) -> int: ...
    @property
    def row(self) -> str | None: ...
    @property
    def seed(self) -> int | None: ...


def die_text(die: _Die | Mapping[str, Any]) -> str:
    """One roll (see `_die_text`), shown as text whatever a hand-edited save holds."""
    return one_line(_die_text(die))


def _die_text(die: _Die | Mapping[str, Any]) -> str:
    """One roll: "1d6 3 (by hand)", "2d6 4+6=10 (desk)", "1d6 2 (seed 3)" (rolled by the
    desk from the seed a player gave), and where the desk added a modifier, the row read:
    "2d6 9 (by hand) +1 DRM: row 10".

    Takes the engine's DiceRoll or its dict form as kept in a save file.
    """
    dice, rolled, source, read = _die_parts(die)
    return f"{dice} {rolled} ({source}){read}"


def _die_parts(die: _Die | Mapping[str, Any]) -> tuple[str, str, str, str]:
    """A roll's dice ("2d6"), what they showed ("4+6=10"), who rolled them ("desk", "seed
    3", "by hand") and the row the desk read where a modifier changed it (" +1 DRM: row
    10", else "")."""
    if isinstance(die, Mapping):
        dice, values = die.get("dice", "?"), die.get("values") or []
        total, source = die.get("total"), die.get("source")
        modifier, row, seed = die.get("modifier") or 0, die.get("row"), die.get("seed")
    else:
        dice, values, total, source = die.dice, die.values, die.total, die.source
        modifier, row, seed = die.modifier, die.row, die.seed
    rolled = str(total)
    if isinstance(values, list | tuple) and len(values) > 1:
        rolled = "+".join(map(str, values)) + "=" + rolled
    read = ""
    if isinstance(modifier, int) and modifier:
        read += f" {modifier:+d} DRM"
    if row is not None and (modifier or str(row) != str(total)):
        read += f": row {row}"
    return str(dice), rolled, source_text(source, seed), read


def source_text(source: Any, seed: Any = None) -> str:
    """Who rolled a die, in a word or two: "desk", "seed 3" (the desk, from the seed a
    player gave), "by hand"."""
    if source == "desk":
        return "desk"
    if source == "seed":
        return f"seed {seed}" if type(seed) is int else "seed"
    return "by hand"


def dice_text(dice: Sequence[_Die | Mapping[str, Any]]) -> str:
    """Every roll of a combat, in the order rolled."""
    return ", ".join(die_text(die) for die in dice)


def dice_brief(dice: Sequence[_Die | Mapping[str, Any]]) -> str:
    """Every roll of a combat in fewer words, for the result box: who rolled them said
    once where one did, and a die of the kind before it by its value alone ("1d6 2, 3, 4
    (desk)"); each roll as `die_text` has it where they were rolled differently."""
    parts = [_die_parts(die) for die in dice]
    if len({source for _, _, source, _ in parts}) != 1:
        return dice_text(dice)
    shown: list[str] = []
    kind = None
    for name, rolled, _, read in parts:
        shown.append(one_line((rolled if name == kind else f"{name} {rolled}") + read))
        kind = name
    return f"{', '.join(shown)} ({parts[0][2]})"


def when_text(when: str) -> str:
    """A saved UTC time stamp to the minute: "2026-11-22 19:16"."""
    return when[:16].replace("T", " ")


# --- markers and log entries ----------------------------------------------------------------


class _Marker(Protocol):
    """A marker in play (the save store's `Marker`): read, never set, here."""

    @property
    def id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def target(self) -> str: ...
    @property
    def side(self) -> str | None: ...
    @property
    def turns_left(self) -> int | None: ...
    @property
    def note(self) -> str | None: ...


def _turns(count: int, left: str = "") -> str:
    return f"{count} turn{'s' if count != 1 else ''}{left}"


def marker_text(marker: _Marker | Mapping[str, Any]) -> str:
    """A marker (see `_marker_text`), shown as text whatever a hand-edited save holds."""
    return one_line(_marker_text(marker))


def _marker_text(marker: _Marker | Mapping[str, Any]) -> str:
    """A marker: "DG 2.1 on 0712 (Axis, 1 turn)", and ": its note" when it has one.

    A marker as placed (a dict from a log entry) gives the turns it lasts; a marker in play
    (the save store's Marker) gives the turns it has left.
    """
    if isinstance(marker, Mapping):
        kind, ident, target = marker["kind"], marker["id"], marker["target"]
        side, turns, note = marker.get("side"), marker.get("turns"), marker.get("note")
        lasts = _turns(turns) if turns else None
    else:
        kind, ident, target, side = marker.kind, marker.id, marker.target, marker.side
        left, note = marker.turns_left, marker.note
        lasts = None if left is None else _turns(left, " left") if left else "through this turn"
    extra = [one_line(side)] if side else []
    if lasts:
        extra.append(lasts)
    detail = f" ({', '.join(extra)})" if extra else ""
    noted = f": {one_line(note)}" if note else ""
    return f"{kind} {ident} on {one_line(target)}{detail}{noted}"


def entry_text(entry: Mapping[str, Any]) -> tuple[str, str]:
    """One log entry: (what it is, what happened in words), each shown as text whatever a
    hand-edited save holds (its cell, event name, marker kind, ...)."""
    what, result = _entry_text(entry)
    return one_line(what), one_line(result)


def _entry_text(entry: Mapping[str, Any]) -> tuple[str, str]:
    kind = entry["kind"]
    note = f" Note: {one_line(entry['note'])}" if entry.get("note") else ""
    if kind == "combat":
        placed = "".join(f" Placed {marker_text(m)}." for m in entry.get("markers", []))
        target = f" Target {one_line(entry['target'])}." if entry.get("target") else ""
        cell = cell_text(entry.get("cell"))
        # A combat read again with a card after the roll names the entry it amends.
        amends = f"amends #{entry['amends']}; " if entry.get("amends") is not None else ""
        took = ""
        if entry.get("losses") or entry.get("open_losses"):
            # Imported for a combat that named units: a desk opening a game draws its first
            # frame without it (the start-up budget, docs/performance.md).
            from tui.engine.unit_text import combat_losses_text

            took = combat_losses_text(entry)
        result = f"{amends}{cell}: {one_line(entry['explanation'])}{target}{placed}{took}{note}"
        return entry["ruleset"], result
    if kind == "event":
        what = entry.get("ruleset") or "event"
        return what, f"{entry['event']}: {one_line(entry['text'])}{note}"
    if kind == "place-marker":
        return "marker", f"Placed {marker_text(entry['marker'])}.{note}"
    if kind == "remove-marker":
        what = entry.get("marker_kind", "marker")
        target = one_line(entry.get("target", "?"))
        return "marker", f"Removed {what} {entry['marker_id']} on {target}.{note}"
    if kind == "turn":
        parts = [f"Turn {entry['turn']} begins."]
        if entry.get("counted_down"):
            parts.append("Counted down: " + ", ".join(entry["counted_down"]) + ".")
        if entry.get("expired"):
            parts.append("Expired: " + ", ".join(entry["expired"]) + ".")
        return "turn", " ".join(parts) + note
    if kind == "note":
        return "note", f"On entry {entry['annotates']}: {one_line(entry['text'])}"
    if kind == "option":
        return "option", f"{entry['key']} = {one_line(repr(entry['value']))}.{note}"
    if kind in ("unit", "units", "loss"):
        # Imported for the first unit entry (see above: the start-up budget).
        from tui.engine.unit_text import unit_entry_text

        return kind, unit_entry_text(entry) + note
    return kind, (one_line(entry["note"]) if entry.get("note") else kind)


# --- effects in a few words -----------------------------------------------------------------

# --- the printed charts ---------------------------------------------------------------------


def grid_json(chart: Chart) -> dict[str, Any]:
    """One printed grid in the CLI contract's shape: its columns and its rows."""
    return {"columns": list(chart.columns), "rows": plain(chart.rows)}


def terrain_json(chart: TerrainChart) -> dict[str, Any]:
    """A chart whose columns depend on the terrain row: each terrain's columns, the rows."""
    return {"columns_by_terrain": plain(chart.columns_by_terrain), "rows": plain(chart.rows)}


def grid_lines(
    title: str, columns: list[str], rows: dict[str, list[Any]], row_label: str
) -> list[str]:
    """A grid as printed: its title, the column labels, then one line per row."""
    texts = {k: [cell_text(c) for c in v] for k, v in rows.items()}
    widths = [max([len(col)] + [len(texts[k][i]) for k in texts]) for i, col in enumerate(columns)]
    key_width = max([len(row_label)] + [len(k) for k in rows])
    lines = [
        title,
        f"{row_label:>{key_width}}  "
        + "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)),
    ]
    for key, cells in texts.items():
        lines.append(
            f"{key:>{key_width}}  "
            + "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True))
        )
    return lines


def legend_lines(legend: Sequence[LegendEntry]) -> list[str]:
    return ["", "Legend:"] + [f"  {e.code:5} {e.means} (seed {e.seed})" for e in legend]


def printed(lines: Sequence[str]) -> str:
    return "\n".join(line.rstrip() for line in lines)


def grid_text(title: str, shape: Mapping[str, Any], legend: Sequence[LegendEntry]) -> str:
    """One grid and its legend as printed text."""
    lines = grid_lines(title, shape["columns"], shape["rows"], "roll")
    return printed(lines + legend_lines(legend))
