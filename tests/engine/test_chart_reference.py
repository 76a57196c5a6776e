"""A player's chart against a plain reference reader: hypothesis draws random charts as TOML
text (the format of docs/adding-a-game.md and the parts issue 30 adds to it) and random
combats, and `crtdesk odds`' exact chances and `crtdesk resolve --roll`'s cell, run in
process on the chart in a games folder, must be what a reader written here from the same
TOML (tomllib, nothing of tui's) says they are.

The reference reads a chart as the format says a person reads it by hand:
1. each unit's factor changed by the mark it carries, then each side totalled, then each
   side's total changed by the multiply and add modifiers in the order they are listed;
2. the column: the rightmost one whose ratio is at most attack/defence, exactly (odds), or
   whose difference is at most attack minus defence rounded down (differential); below the
   first or beyond the last column, what `left` / `right` say (the end column, an automatic
   result, or the end column with a DRM and/or a shift counted inside or outside the caps);
   a chart with a "columns" choice reads the column list its value names (unset: the first);
3. the shifts and the DRMs each netted, capped, then applied once (a shift stops at the
   table's edge);
4. the modified roll's row, or what `low` / `high` say beyond the rows (the end row, or a
   result code); a re-roll code rolls again with the same DRM on the column moved by the
   re-roll's shift, at most `limit` times, then reads `then`.
Its exact chances are summed over every roll of the dice (and of every re-roll).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import tempfile
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.cli import main

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"

# The parts of the chart format, by name: the random charts draw every part in FEATURES
# (a name taken out leaves that part out of the drawn charts, to find which part a
# failure needs):
#   columns:   fractional (odds columns such as 2-3, 3-2, 5-4), beyond-table (left / right
#              as { drm, shift, caps }), column-sets (a "columns" choice);
#   modifiers: per (a number modifier's `per` and `round`), unit-marks (on = "unit", the
#              CLI's N@MARK), needs;
#   results:   ties ({ means, tie } entries), multi-hash (codes with up to four #),
#              rerolls ([rerolls] codes, the CLI's --reroll).
ALL_FEATURES = frozenset(
    {
        "fractional",
        "beyond-table",
        "column-sets",
        "per",
        "unit-marks",
        "needs",
        "ties",
        "multi-hash",
        "rerolls",
    }
)
FEATURES: frozenset[str] = ALL_FEATURES


# --- the reference reader ----------------------------------------------------------------------

_ODDS = re.compile(r"^(\d+)\s*[-:]\s*(\d+)\+?$")
_ROLL = re.compile(r"^\s*(-?\d+)\s*(?:(?:-|to)\s*(-?\d+)\s*)?$")


@dataclass(frozen=True)
class Combat:
    """One combat as a player sets it: each unit's factor and mark, each modifier set, an
    optional column given, the roll and the re-roll dice (as they lie)."""

    attackers: tuple[tuple[int, str | None], ...]
    defenders: tuple[tuple[int, str | None], ...]
    values: tuple[tuple[str, Any], ...] = ()
    column: str | None = None
    roll: int = 1
    rerolls: tuple[int, ...] = ()


# What a combat comes to: ("cell", a code or a tuple of codes) read from the chart (a row's
# end code is a cell too), or ("auto", code) decided before any dice; ("refused", why).
Key = tuple[str, Any]


def _fraction(value: Any) -> Fraction:
    return Fraction(value)  # TOML ints and floats; the charts drawn here use halves at most


def dice_chances(count: int, sides: int) -> dict[int, Fraction]:
    """Each total of `count` dice of `sides` sides and its exact chance."""
    ways = {0: 1}
    for _ in range(count):
        nxt: dict[int, int] = {}
        for total, n in ways.items():
            for face in range(1, sides + 1):
                nxt[total + face] = nxt.get(total + face, 0) + n
        ways = nxt
    every = sides**count
    return {total: Fraction(n, every) for total, n in sorted(ways.items())}


class Reference:
    """A chart read from its TOML by hand (see the module's docstring)."""

    def __init__(self, text: str) -> None:
        data = tomllib.loads(text)
        self.data = data
        count, sides = data["game"]["dice"].lower().split("d")
        self.count, self.sides = int(count), int(sides)
        crt = data["crt"]
        self.kind = crt["kind"]
        self.mods: list[dict[str, Any]] = list(data.get("modifiers", []))
        self.by_name = {m["name"]: m for m in self.mods}
        picker = [m for m in self.mods if m.get("effect") == "columns"]
        self.picker = picker[0] if picker else None
        columns = crt["columns"]
        self.sets: dict[str | None, list[str]] = (
            {name: list(labels) for name, labels in columns.items()}
            if isinstance(columns, dict)
            else {None: list(columns)}
        )
        self.rows: list[tuple[int, int, list[Any]]] = []
        for key, cells in crt["rows"].items():
            found = _ROLL.match(key)
            assert found, key
            low = int(found.group(1))
            high = int(found.group(2)) if found.group(2) is not None else low
            self.rows.append((low, high, [tuple(c) if isinstance(c, list) else c for c in cells]))
        self.ends = {k: crt.get(k, "end") for k in ("left", "right")}
        self.row_ends = {k: crt.get(k, "clamp") for k in ("low", "high")}
        self.caps = data.get("caps", {})
        self.rerolls: dict[str, dict[str, Any]] = data.get("rerolls", {})
        self.dice = dice_chances(self.count, self.sides)

    # -- the labels -------------------------------------------------------------------------

    def value(self, label: str) -> Fraction:
        text = label.strip()
        if self.kind == "odds":
            found = _ODDS.match(text)
            assert found, label
            return Fraction(int(found.group(1)), int(found.group(2)))
        return Fraction(int(text.rstrip("+")))

    # -- what is set ------------------------------------------------------------------------

    def is_set(self, name: str, combat: Combat) -> bool:
        """A tick ticked, a choice chosen, a number not 0, a unit mark carried by a unit."""
        mod = self.by_name[name]
        if mod.get("on") == "unit":
            marks = self.marks_of(mod)
            units = combat.attackers + combat.defenders
            return any(mark in marks for _, mark in units)
        value = dict(combat.values).get(name)
        if mod["input"] == "tick":
            return value is True
        if mod["input"] == "choice":
            return value is not None
        return value is not None and value != 0

    def acts(self, mod: dict[str, Any], combat: Combat) -> bool:
        return "needs" not in mod or self.is_set(mod["needs"], combat)

    @staticmethod
    def marks_of(mod: dict[str, Any]) -> list[str]:
        return [mod["name"]] if mod["input"] == "tick" else list(mod["values"])

    @staticmethod
    def amount(mod: dict[str, Any], value: Any) -> Fraction | None:
        """What a modifier set to `value` does, or None: it does nothing."""
        if value is None or value is False:
            return None
        if mod["input"] == "tick":
            return _fraction(mod["by"])
        if mod["input"] == "choice":
            return _fraction(mod["values"][value])
        by = _fraction(mod.get("by", 1))
        if "per" not in mod:
            return by * value
        ratio = Fraction(value, mod["per"])
        how = mod.get("round", "down")
        steps = (
            math.floor(ratio)
            if how == "down"
            else math.ceil(ratio)
            if how == "up"
            else math.floor(ratio + Fraction(1, 2))  # nearest, halves up
        )
        return by * steps

    # -- a combat ---------------------------------------------------------------------------

    def totals(self, combat: Combat) -> tuple[Fraction, Fraction]:
        marks: dict[str, tuple[dict[str, Any], Fraction]] = {}
        for mod in self.mods:
            if mod.get("on") == "unit":
                for named in self.marks_of(mod):
                    by = mod["by"] if mod["input"] == "tick" else mod["values"][named]
                    marks[named] = (mod, _fraction(by))
        totals: dict[str, Fraction] = {}
        for side, units in (("attacker", combat.attackers), ("defender", combat.defenders)):
            total = Fraction(0)
            for factor, mark in units:
                value = Fraction(factor)
                if mark is not None:
                    mod, amount = marks[mark]
                    if self.acts(mod, combat):
                        value = value * amount if mod["effect"] == "multiply" else value + amount
                        value = max(Fraction(0), value)
                total += value
            totals[side] = total
        values = dict(combat.values)
        for mod in self.mods:
            if mod.get("on") == "unit" or mod["effect"] not in ("multiply", "add"):
                continue
            done = self.amount(mod, values.get(mod["name"]))
            if done is None or not self.acts(mod, combat):
                continue
            side = mod["side"]
            if mod["effect"] == "multiply":
                totals[side] *= done
            else:
                totals[side] = max(Fraction(0), totals[side] + done)
        return totals["attacker"], totals["defender"]

    def labels(self, combat: Combat) -> list[str]:
        if self.picker is None:
            return self.sets[None]
        chosen = dict(combat.values).get(self.picker["name"])
        return self.sets[chosen] if chosen is not None else next(iter(self.sets.values()))

    def column(self, combat: Combat, labels: list[str]) -> tuple[int, str | None, str | None]:
        """(column index, the end beyond which the combat falls or None, the automatic code
        or None). A refused combat raises Refused."""
        if combat.column is not None:
            return labels.index(combat.column), None, None
        attack, defense = self.totals(combat)
        if attack <= 0:
            raise Refused("attack")
        values = [self.value(label) for label in labels]
        open_right = labels[-1].strip().endswith("+")
        if self.kind == "differential":
            read = Fraction(math.floor(attack - defense))
            beyond = read > values[-1] and not open_right
        elif defense == 0:
            read, beyond = values[-1], True  # a defence of 0 is beyond the last column
        else:
            read = attack / defense
            # Beyond the last column: the odds rounded in the defender's favour (N-1 or 1-N)
            # are above it, as ever (a chart of N-1 and 1-N columns reads as it did).
            rounded = Fraction(math.floor(read)) if read >= 1 else Fraction(1, math.ceil(1 / read))
            beyond = rounded > values[-1] and not open_right
        if read < values[0]:
            return self.end(0, "left")
        if beyond:
            return self.end(len(labels) - 1, "right")
        return max(i for i, v in enumerate(values) if v <= read), None, None

    def end(self, index: int, side: str) -> tuple[int, str | None, str | None]:
        said = self.ends[side]
        if isinstance(said, str) and said != "end":
            return index, side, said
        return index, side, None

    def net(self, combat: Combat, effect: str, beyond: str | None) -> int:
        values = dict(combat.values)
        found = 0
        for mod in self.mods:
            if mod["effect"] != effect or mod.get("on") == "unit":
                continue
            amount = self.amount(mod, values.get(mod["name"]))
            if amount is not None and self.acts(mod, combat):
                found += int(amount)
        said = self.ends[beyond] if beyond is not None else None
        extra = int(said.get(effect, 0)) if isinstance(said, dict) else 0
        outside = isinstance(said, dict) and said.get("caps", "inside") == "outside"
        if not outside:
            found += extra
        cap = self.caps.get(effect)
        if cap is not None:
            found = max(-cap, min(cap, found))
        return found + extra if outside else found

    def start(self, combat: Combat) -> tuple[int, int] | Key:
        """(the column index read after the shifts, the net DRM), or what the combat comes
        to before any dice: an automatic result, or its refusal."""
        labels = self.labels(combat)
        try:
            index, beyond, automatic = self.column(combat, labels)
        except Refused as err:
            return ("refused", err.args[0])
        if automatic is not None:
            return ("auto", automatic)
        shift = self.net(combat, "shift", beyond)
        index = min(max(index + shift, 0), len(labels) - 1)
        return index, self.net(combat, "drm", beyond)

    def cell(self, modified: int, index: int) -> Any:
        for low, high, cells in self.rows:
            if low <= modified <= high:
                return cells[index]
        below = modified < self.rows[0][0]
        said = self.row_ends["low" if below else "high"]
        if said == "clamp":
            return self.rows[0 if below else -1][2][index]
        return said

    def reroll_of(self, cell: Any) -> dict[str, Any] | None:
        return self.rerolls.get(cell) if isinstance(cell, str) else None

    def moved(self, index: int, shift: int) -> int:
        return min(max(index + shift, 0), len(next(iter(self.sets.values()))) - 1)

    def resolve(self, combat: Combat) -> tuple[Key, int]:
        """What the combat comes to with its roll (and re-roll dice), and how many re-roll
        dice it read."""
        begun = self.start(combat)
        if not isinstance(begun[0], int):
            return begun, 0
        index, drm = begun
        rolls = [combat.roll, *combat.rerolls]
        cell = self.cell(rolls[0] + drm, index)
        used = 0
        while (again := self.reroll_of(cell)) is not None:
            if used == again["limit"]:
                cell = again["then"]
                break
            used += 1
            index = self.moved(index, again.get("shift", 0))
            cell = self.cell(rolls[used] + drm, index)
        return ("cell", cell), used

    def chances(self, combat: Combat) -> dict[Key, Fraction] | Key:
        """Each thing the combat may come to and its exact chance, over every roll."""
        begun = self.start(combat)
        if not isinstance(begun[0], int):
            return begun if begun[0] == "refused" else {begun: Fraction(1)}
        index, drm = begun
        found: dict[Key, Fraction] = {}
        self._fold(index, drm, 0, Fraction(1), found)
        return found

    def _fold(
        self,
        index: int,
        drm: int,
        used: int,
        chance: Fraction,
        found: dict[Key, Fraction],
    ) -> None:
        for total, p in self.dice.items():
            cell = self.cell(total + drm, index)
            again = self.reroll_of(cell)
            if again is not None and used == again["limit"]:
                cell, again = again["then"], None
            if again is None:
                key = ("cell", cell)
                found[key] = found.get(key, Fraction(0)) + chance * p
                continue
            moved = self.moved(index, again.get("shift", 0))
            self._fold(moved, drm, used + 1, chance * p, found)


class Refused(Exception):
    """A combat the chart refuses (its field)."""


# --- random charts -----------------------------------------------------------------------------

# Ratios of today's odds columns (N-1 and 1-N), and the fractional ones of printed charts.
_WHOLE_ODDS = [(1, n) for n in (5, 4, 3, 2)] + [(n, 1) for n in range(1, 9)]
_FRACTIONAL_ODDS = [(2, 3), (3, 4), (4, 5), (5, 4), (4, 3), (3, 2), (5, 3), (2, 1), (5, 2), (7, 2)]


def _toml(value: Any) -> str:
    """A value as TOML: strings, whole numbers, halves, lists and inline tables."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Fraction):
        return str(value.numerator) if value.denominator == 1 else repr(float(value))
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    assert isinstance(value, dict), value
    return "{ " + ", ".join(f"{_key(k)} = {_toml(v)}" for k, v in value.items()) + " }"


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


@st.composite
def _labels(draw: st.DrawFn, kind: str, width: int, features: frozenset[str]) -> list[str]:
    if kind == "odds":
        pool = _WHOLE_ODDS + (_FRACTIONAL_ODDS if "fractional" in features else [])
        drawn = draw(st.lists(st.sampled_from(pool), min_size=width, max_size=width))
        ratios = sorted({Fraction(a, b): (a, b) for a, b in drawn}.items())
        separator = draw(st.sampled_from(["-", ":"]))
        labels = [f"{a}{separator}{b}" for _, (a, b) in ratios]
    else:
        differences = sorted(
            set(draw(st.lists(st.integers(-6, 8), min_size=width, max_size=width)))
        )
        signs = draw(st.booleans())
        labels = [f"{d:+d}" if d and (signs or d < 0) else str(d) for d in differences]
    if draw(st.booleans()):  # "10-1+", "+4+": the last column reads all beyond
        labels[-1] += "+"
    return labels


@st.composite
def chart_texts(draw: st.DrawFn, features: frozenset[str] = FEATURES) -> str:
    """A random chart, as the text of its file."""
    kind = draw(st.sampled_from(["odds", "differential"]))
    dice = draw(st.sampled_from(["1d6", "2d6", "1d10", "2d4", "1d3"]))
    count, sides = (int(n) for n in dice.split("d"))
    width = draw(st.integers(1, 6))
    sets = 1
    if "column-sets" in features and draw(st.booleans()):
        sets += draw(st.integers(1, 2))
    column_lists = [draw(_labels(kind, width, features)) for _ in range(sets)]
    width = min(len(labels) for labels in column_lists)  # duplicates drawn were dropped
    column_lists = [labels[:width] for labels in column_lists]

    # The results, from the attacker's worst to its best.
    plain_codes = draw(
        st.lists(
            st.sampled_from(["AE", "A2", "A1", "AR", "NE", "EX", "D1", "DR", "DE"]),
            min_size=2,
            max_size=5,
            unique=True,
        )
    )
    results: dict[str, Any] = {code: f"Result {code}" for code in plain_codes}
    cells: list[str] = list(plain_codes)
    if draw(st.booleans()):
        results["DR#"] = "Defender retreats # hexes"
        cells += ["DR1", "DR2", "DR12"]
    if "multi-hash" in features and draw(st.booleans()):
        results["#-#"] = "Attacker loses #, defender loses #"
        results["L#/#x#"] = "Losses # and #, # hexes"
        if draw(st.booleans()):
            results["1-1"] = "An even exchange"  # an exact code wins over the pattern
        cells += ["2-2", "1-3", "1-1", "L1/2x3", "L10/0x1"]
    plain = [code for code in results if "#" not in code]
    if "ties" in features:
        for code in list(results)[1:]:
            if draw(st.integers(0, 2)) == 0:
                results[code] = {"means": results[code], "tie": draw(st.booleans())}
    reroll: str | None = None
    reroll_table: dict[str, Any] = {}
    if "rerolls" in features and draw(st.booleans()):
        reroll = "RR"
        results[reroll] = "Roll again"
        reroll_table = {"limit": draw(st.integers(1, 3)), "then": draw(st.sampled_from(plain))}
        if draw(st.booleans()):
            reroll_table["shift"] = draw(st.integers(-1, 1))

    # The rows: from about the dice's least to about their most, in ranges.
    first = draw(st.integers(count - 2, count + 1))
    last = draw(st.integers(max(first, count * sides - 1), count * sides + 2))
    cuts = sorted(draw(st.sets(st.integers(first + 1, last), max_size=5))) if last > first else []
    bounds = [first, *cuts, last + 1]
    cell = st.one_of(
        st.sampled_from(cells), st.lists(st.sampled_from(cells), min_size=2, max_size=2)
    )
    rows: dict[str, list[Any]] = {}
    for low, after in zip(bounds, bounds[1:], strict=False):
        high = after - 1
        key = str(low) if low == high else f"{low}-{high}"
        rows[key] = [draw(cell) for _ in range(width)]
    if reroll is not None:  # a re-roll code alone in a cell, at most once a column
        for column in range(width):
            if draw(st.booleans()):
                rows[draw(st.sampled_from(list(rows)))][column] = reroll

    crt: dict[str, Any] = {"kind": kind}
    for end in ("left", "right"):
        choices = ["end", "code", "omitted"] + ["table"] * ("beyond-table" in features)
        how = draw(st.sampled_from(choices))
        if how != "omitted":
            crt[end] = "end" if how == "end" else draw(st.sampled_from(plain))
        if how == "table":
            table: dict[str, Any] = {}
            drm, shift = draw(st.integers(-2, 2)), draw(st.integers(-1, 1))
            if drm == shift == 0:
                drm = draw(st.sampled_from([-1, 1]))
            if drm or draw(st.booleans()):
                table["drm"] = drm
            if shift or draw(st.booleans()):
                table["shift"] = shift
            counted = draw(st.sampled_from(["inside", "outside", None]))
            if counted is not None:
                table["caps"] = counted
            crt[end] = table
    for end in ("low", "high"):
        how = draw(st.sampled_from(["clamp", "code", "omitted"]))
        if how != "omitted":
            crt[end] = "clamp" if how == "clamp" else draw(st.sampled_from(plain))

    modifiers = draw(_modifiers(features, sets))
    columns_by: dict[str, list[str]] = {}
    for mod in modifiers:
        if mod.get("effect") == "columns":
            columns_by = dict(zip(mod.pop("_values"), column_lists, strict=True))

    lines = ["# A chart drawn at random by the test", "[game]", 'title = "Random chart"']
    lines += [f"dice = {_toml(dice)}", "", "[crt]"]
    lines += [f"{k} = {_toml(v)}" for k, v in crt.items()]
    as_table = bool(columns_by) and draw(st.booleans())
    if not as_table:
        lines.append(f"columns = {_toml(columns_by or column_lists[0])}")
    lines += ["", "[crt.rows]"] + [f"{_toml(k)} = {_toml(v)}" for k, v in rows.items()]
    if as_table:
        lines += ["", "[crt.columns]"] + [f"{k} = {_toml(v)}" for k, v in columns_by.items()]
    lines += ["", "[results]"] + [f"{_toml(k)} = {_toml(v)}" for k, v in results.items()]
    if reroll is not None:
        lines += ["", f"[rerolls.{reroll}]"] + [
            f"{k} = {_toml(v)}" for k, v in reroll_table.items()
        ]
    for mod in modifiers:
        lines += ["", "[[modifiers]]"] + [f"{k} = {_toml(v)}" for k, v in mod.items()]
    caps = {k: draw(st.integers(0, 3)) for k in ("drm", "shift") if draw(st.booleans())}
    if caps:
        lines += ["", "[caps]"] + [f"{k} = {v}" for k, v in caps.items()]
    return "\n".join(lines) + "\n"


_MULTIPLIERS = [Fraction(1, 2), Fraction(3, 2), Fraction(2), Fraction(3)]


@st.composite
def _modifiers(draw: st.DrawFn, features: frozenset[str], sets: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for i in range(draw(st.integers(0, 4) | st.integers(2, 4))):  # more often several
        name = f"m{i}"
        inp = draw(st.sampled_from(["tick", "choice", "number"]))
        effect = draw(st.sampled_from(["multiply", "add", "shift", "drm"]))
        mod: dict[str, Any] = {"name": name, "label": f"Modifier {i}", "input": inp}
        mod["effect"] = effect
        unit = (
            "unit-marks" in features
            and inp != "number"
            and effect in ("multiply", "add")
            and draw(st.booleans())
        )
        if effect in ("multiply", "add"):
            mod["side"] = draw(st.sampled_from(["attacker", "defender"]))
        if unit:
            mod["on"] = "unit"
        amounts = (
            st.sampled_from(_MULTIPLIERS)
            if effect == "multiply"
            else st.one_of(  # now and then enough to take a total below 0
                st.sampled_from([Fraction(n, 2) for n in range(-6, 7)]), st.sampled_from([-8, -15])
            )
            if effect == "add"
            else st.integers(-3, 3)
        )
        if inp == "tick":
            mod["by"] = draw(amounts)
        elif inp == "choice":
            prefix = f"k{i}" if unit else "v"  # a unit's marks: each name once in the chart
            count = draw(st.integers(1, 3))
            mod["values"] = {f"{prefix}{j}": draw(amounts) for j in range(count)}
        else:
            if effect == "multiply":
                mod["low"] = draw(st.integers(1, 2))
                mod["high"] = draw(st.integers(mod["low"], 3))
            else:
                mod["low"] = draw(st.integers(-3, 1))
                mod["high"] = draw(st.integers(max(mod["low"], 0), 20))
            if draw(st.booleans()):
                mod["by"] = draw(st.integers(1, 2) if effect == "multiply" else amounts)
            if "per" in features and effect != "multiply" and draw(st.booleans()):
                mod["per"] = draw(st.integers(1, 7))
                how = draw(st.sampled_from(["down", "up", "nearest", None]))
                if how is not None:
                    mod["round"] = how
        if "needs" in features and found and draw(st.integers(0, 2)) == 0:
            mod["needs"] = draw(st.sampled_from([m["name"] for m in found]))
        found.append(mod)
    if sets > 1:  # the choice of the column list: once, anywhere among the modifiers
        at = draw(st.integers(0, len(found)))
        picker: dict[str, Any] = {"name": "terrain", "label": "Terrain", "input": "choice"}
        picker |= {"effect": "columns", "_values": [f"t{j}" for j in range(sets)]}
        found.insert(at, picker)
    return found


@st.composite
def combats(draw: st.DrawFn, ref: Reference) -> Combat:
    """A random combat on a chart: units (with marks where the chart has them), modifiers
    set, now and then a column given, the roll and the re-roll dice."""
    marks: dict[str, list[str]] = {"attacker": [], "defender": []}
    for mod in ref.mods:
        if mod.get("on") == "unit":
            marks[mod["side"]] += ref.marks_of(mod)

    def units(side: str) -> st.SearchStrategy[tuple[tuple[int, str | None], ...]]:
        mark = st.sampled_from([None, *marks[side]])
        factor = st.one_of(st.integers(0, 9), st.integers(10, 40))  # and beyond the columns
        unit = st.tuples(factor, mark)
        return st.lists(unit, min_size=1, max_size=3).map(tuple)

    attackers = draw(units("attacker"))
    defenders = draw(units("defender"))
    values: list[tuple[str, Any]] = []
    for mod in ref.mods:
        if mod.get("on") == "unit" or draw(st.integers(0, 3)) == 0:
            continue
        if mod["effect"] == "columns":
            values.append((mod["name"], draw(st.sampled_from(list(ref.sets)))))
        elif mod["input"] == "tick":
            values.append((mod["name"], True))
        elif mod["input"] == "choice":
            values.append((mod["name"], draw(st.sampled_from(list(mod["values"])))))
        else:
            values.append((mod["name"], draw(st.integers(mod["low"], mod["high"]))))
    column = None
    if ref.picker is None and draw(st.integers(0, 7)) == 0:
        column = draw(st.sampled_from(ref.sets[None]))
    dice = st.integers(ref.count, ref.count * ref.sides)
    roll = draw(dice)
    most = max((r["limit"] for r in ref.rerolls.values()), default=0)
    rerolls = tuple(draw(dice) for _ in range(most))
    return Combat(attackers, defenders, tuple(values), column, roll, rerolls)


# --- the CLI -----------------------------------------------------------------------------------


def argv(ref: Reference, combat: Combat) -> list[str]:
    """The flags of a combat, as a player types them."""
    found: list[str] = []
    for flag, units in (("--attack", combat.attackers), ("--defense", combat.defenders)):
        for factor, mark in units:
            found += [flag, f"{factor}@{mark}" if mark else str(factor)]
    for name, value in combat.values:
        mod = ref.by_name[name]
        if mod["input"] == "tick":
            found.append(f"--{name}")
        elif mod["input"] == "choice":
            found += [f"--{name}", value]
        else:
            found.append(f"--{name}={value}")
    if combat.column is not None:
        found.append(f"--column={combat.column}")  # "-1+" would read as a flag
    return found


def crtdesk(*args: str) -> tuple[int, Any, str]:
    """`crtdesk ARGS` in process: its exit status, its JSON output (or None), its errors."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    data = json.loads(out.getvalue()) if status == 0 and "--json" in args else None
    return status, data, err.getvalue()


def as_key(cell: Any, odds: str | None) -> Key:
    if cell is None:
        return ("auto", odds)
    return ("cell", tuple(cell) if isinstance(cell, list) else cell)


@contextlib.contextmanager
def games_folder(text: str) -> Iterator[Path]:
    """A fresh games folder (no chart read before is ever read again) holding the chart as
    game:random."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "random.toml").write_text(text, encoding="utf-8")
        yield Path(folder)


def check_against_reference(text: str, fights: list[Combat]) -> None:
    ref = Reference(text)
    with games_folder(text) as folder:
        status, _, err = crtdesk("check-table", str(folder / "random.toml"))
        assert status == 0, err
        chart = ["game:random", "--games", str(folder)]
        for combat in fights:
            flags = argv(ref, combat)
            expected = ref.chances(combat)
            status, data, err = crtdesk("odds", *chart, *flags, "--json")
            if isinstance(expected, tuple):  # refused
                assert status == 2 and len(err.splitlines()) == 1, (status, err)
            else:
                assert status == 0, err
                got: dict[Key, Fraction] = {}
                for outcome in data["outcomes"]:
                    key = as_key(outcome["cell"], data["odds"])
                    got[key] = got.get(key, Fraction(0)) + Fraction(outcome["fraction"])
                assert got == expected, (flags, data.get("column"))
            cell, used = ref.resolve(combat)
            rolls = ["--roll", str(combat.roll)]
            for die in combat.rerolls[:used]:
                rolls += ["--reroll", str(die)]
            status, data, err = crtdesk("resolve", *chart, *flags, *rolls, "--json")
            if cell[0] == "refused":
                assert status == 2 and len(err.splitlines()) == 1, (status, err)
            else:
                assert status == 0, err
                assert as_key(data["cell"], data["odds"]) == cell, (flags, rolls, data["trace"])


# --- the tests ---------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_odds_and_resolve_read_random_charts_as_the_reference_does(data: st.DataObject) -> None:
    text = data.draw(chart_texts(), label="chart")
    ref = Reference(text)
    fights = data.draw(st.lists(combats(ref), min_size=2, max_size=6), label="combats")
    check_against_reference(text, fights)


def _sure(text: str, combat: Combat) -> dict[Key, Fraction] | Key:
    return Reference(text).chances(combat)


def test_the_reference_reads_the_worked_examples_of_the_docs() -> None:
    """The reference itself, on the two charts of docs/adding-a-game.md and the sums the page
    works by hand."""
    hill = (DOCS / "hill-203.toml").read_text()
    town = Combat(((6, None),), ((2, None),), (("town", True), ("leader", 3)))
    sixth = Fraction(1, 6)
    assert _sure(hill, town) == {
        ("cell", "AR"): sixth,
        ("cell", "EX"): sixth,
        ("cell", "DR1"): sixth,
        ("cell", "DR2"): Fraction(1, 2),
    }
    assert Reference(hill).resolve(
        Combat(((6, None),), ((2, None),), (("town", True),), roll=4)
    ) == (("cell", "EX"), 0)
    assert _sure(hill, Combat(((1, None),), ((3, None),))) == {("auto", "AD"): Fraction(1)}
    border = (DOCS / "border-skirmish.toml").read_text()
    assert _sure(border, Combat(((9, None),), ((5, None),))) == {
        ("cell", "D1"): Fraction(15, 36),
        ("cell", "D2"): Fraction(6, 36),
        ("cell", "D3"): Fraction(15, 36),
    }
    light = Combat(((5, None),), ((4, None),), (("cover", "light"),), roll=7)
    assert Reference(border).resolve(light) == (("cell", "NE"), 0)


# A small chart of the new parts, worked by hand (the spec's own examples).
NEW_PARTS = """
[game]
title = "Worked"
dice = "1d6"

[crt]
kind = "odds"
left = { drm = -1 }
right = { drm = 1, shift = 0, caps = "outside" }
columns = { clear = ["1-2", "2-3", "1-1", "3-2", "2-1"], woods = ["1-1", "3-2", "2-1", "3-1", "4-1"] }

[crt.rows]
"1" = ["A1", "A1", "NE", "NE", "D1"]
"2" = ["A1", "NE", "NE", "D1", "RR"]
"3" = ["NE", "NE", "D1", "D1", "D2"]
"4" = ["NE", "D1", "D1", "D2", "D2"]
"5" = ["D1", "D1", "D2", "D2", "2-2"]
"6" = ["D1", "D2", "D2", "2-2", "2-2"]

[results]
A1 = "Attacker loses a step"
NE = "No effect"
D1 = "Defender loses a step"
D2 = { means = "Defender loses two steps", tie = true }
"#-#" = "Each side loses #"
RR = "Roll again"

[rerolls.RR]
limit = 1
then = "NE"
shift = -1

[[modifiers]]
name = "terrain"
input = "choice"
effect = "columns"

[[modifiers]]
name = "artillery"
input = "number"
effect = "drm"
low = 0
high = 99
by = 1
per = 6

[[modifiers]]
name = "fort"
input = "tick"
effect = "multiply"
side = "defender"
on = "unit"
by = 2

[[modifiers]]
name = "siege"
input = "tick"
effect = "drm"
by = 1
needs = "fort"

[caps]
drm = 1
"""


def test_the_reference_reads_the_new_parts_as_the_spec_says() -> None:
    ref = Reference(NEW_PARTS)
    # 5 against 3 reads 3-2 (not 1-1); 4 against 6 reads 2-3 (not 1-2); unset: clear.
    assert ref.start(Combat(((5, None),), ((3, None),))) == (3, 0)
    assert ref.start(Combat(((4, None),), ((6, None),))) == (1, 0)
    # In the woods 5 against 3 reads 3-2 there too, the second column of that list.
    assert ref.start(Combat(((5, None),), ((3, None),), (("terrain", "woods"),))) == (1, 0)
    # Below 1-2: the first column with a DRM of -1, inside the cap of 1 (with 2 steps of
    # artillery, +2 - 1 = +1).
    assert ref.start(Combat(((1, None),), ((3, None),), (("artillery", 13),))) == (0, 1)
    assert ref.start(Combat(((1, None),), ((3, None),))) == (0, -1)
    # Artillery 13 per 6, rounded down: 2 steps, capped at +1.
    assert ref.start(Combat(((5, None),), ((3, None),), (("artillery", 13),))) == (3, 1)
    # Beyond 2-1: the last column, DRM +1 outside the cap (+1 capped, then +1).
    beyond = Combat(((9, None),), ((3, None),), (("artillery", 12),))
    assert ref.start(beyond) == (4, 2)
    # A fort doubles one unit: 6 against 4 + 2x2 = 8 reads 2-3; the siege DRM needs the fort
    # and counts only where a unit carries it.
    fort = Combat(((6, None),), ((4, None), (2, "fort")), (("siege", True),))
    assert ref.totals(fort) == (Fraction(6), Fraction(8))
    assert ref.start(fort) == (1, 1)
    assert ref.start(Combat(((6, None),), ((4, None), (2, None)), (("siege", True),))) == (2, 0)
    # 2-1 on a 2 reads RR: one re-roll on 3-2 (shift -1); a 2 again there is D1.
    strong = Combat(((4, None),), ((2, None),), roll=2, rerolls=(2,))
    assert ref.resolve(strong) == (("cell", "D1"), 1)
    chances = ref.chances(Combat(((4, None),), ((2, None),)))
    assert chances == {
        ("cell", "D1"): Fraction(1, 6) + Fraction(1, 36) * 2,
        ("cell", "D2"): Fraction(2, 6) + Fraction(1, 36) * 2,
        ("cell", "2-2"): Fraction(2, 6) + Fraction(1, 36),
        ("cell", "NE"): Fraction(1, 36),
    }
    assert sum(chances.values()) == 1


@pytest.mark.parametrize("feature", sorted(ALL_FEATURES))
def test_each_feature_draws_charts_the_reference_reads(feature: str) -> None:
    """The strategy, with any one part turned on, draws charts the reference reads whole
    (whatever the CLI makes of them yet): every chance sums to 1."""

    @settings(max_examples=15, deadline=None, database=None)
    @given(data=st.data())
    def drawn(data: st.DataObject) -> None:
        text = data.draw(chart_texts(frozenset({feature})))
        ref = Reference(text)
        combat = data.draw(combats(ref))
        chances = ref.chances(combat)
        if isinstance(chances, dict):
            assert sum(chances.values()) == 1
        cell, used = ref.resolve(combat)
        assert used <= len(combat.rerolls)

    drawn()
