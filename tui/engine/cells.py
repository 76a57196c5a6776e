"""Printed cells and results as text: a cell on one line, a result in a few words, and the
plain (JSON and TOML) form of the engine's read-only values. Small and import-free, so the
desk's text (and its start screen) reads cells without loading the combat model."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

# Control characters, the others str.splitlines() breaks at (NEL, line and paragraph
# separators), and the marks that reorder text on screen (bidi embeddings, overrides,
# isolates and direction marks), shown as escapes.
BIDI = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_CONTROL = (
    {i: f"\\x{i:02x}" for i in [*range(32), *range(127, 160)]}
    | {10: "\\n", 13: "\\r", 9: "\\t"}
    | {i: f"\\u{i:04x}" for i in [0x2028, 0x2029, *BIDI]}
)


def one_line(text: object) -> str:
    """Free text (anything a save or a player gave) on one line, shown as text: control
    characters, line breaks, bidi overrides and lone surrogates shown as escapes."""
    shown = str(text).translate(_CONTROL)
    if shown.isascii():
        return shown
    return "".join(f"\\u{ord(c):04x}" if 0xD800 <= ord(c) <= 0xDFFF else c for c in shown)


NO_CELL = "(no cell)"


def plain(value: Any) -> Any:
    """Tuples and read-only mappings as plain lists and dicts, for JSON and TOML."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def cell_text(cell: Any) -> str:
    """A printed cell on one line: "AL1o1 Do1", "DL2 / DR1", "A - 2 / D 2 -3".

    A combat that reads no cell (Automatic Defeat or Victory) is "(no cell)".
    """
    cell = plain(cell)
    if cell is None:
        return NO_CELL
    if isinstance(cell, dict):
        attacker, defender = cell["attacker"], cell["defender"]
        return f"A {' '.join(map(str, attacker))} / D {' '.join(map(str, defender))}"
    if isinstance(cell, list):
        return " / ".join(map(str, cell))
    return str(cell)


# A side's effect -> its few words, given the effect's value.
_SHORT: dict[str, Callable[[Any], str]] = {
    "eliminated": lambda v: "elim",
    "factors_lost": lambda v: "lose all" if v == "all" else f"lose {v}",
    "steps_lost": lambda v: f"{v} step",
    "option": lambda v: f"opt {v}",
    "retreat": lambda v: f"ret {v}",
    "advance_up_to": lambda v: f"adv<={v}",
    "retreat_or_steps": lambda v: f"ret/step {v}",
    "retreat_or_step": lambda v: "step or ret 1",
    "exploit_min_ar": lambda v: f"exploit AR{v}+",
    "disorganized": lambda v: "DG",
    "engaged": lambda v: "engaged",
    "bombers_removed": lambda v: f"-{v} bombers",
    "obstacle": lambda v: "cleared" if v == "cleared" else "stays",
}


def short_meaning(effects: dict[str, Any]) -> str:
    """What a result means, in a few words per side: "A: lose 1; D: lose 2, ret 3"."""
    if effects.get("cancelled"):
        return "cancelled"
    if effects.get("short"):  # a player's chart says its results in its own words
        return str(effects["short"])
    parts = []
    for side, letter in (("attacker", "A"), ("defender", "D")):
        words = [_SHORT[k](v) for k, v in effects.get(side, {}).items() if k in _SHORT]
        if words:
            parts.append(f"{letter}: {', '.join(words)}")
    return "; ".join(parts) or "no effect"
