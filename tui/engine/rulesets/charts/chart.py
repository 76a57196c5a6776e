"""A player's own combat chart: a TOML file in the games folder, read, checked and resolved.

The format (docs/adding-a-game.md walks through it):

    [game]
    title = "Ardennes Raid"          # what the desk and the CLI call it
    dice = "1d6"                     # NdS

    [crt]
    kind = "odds"                    # or "differential" (attack minus defence)
    columns = ["1-2", "1-1", "2-1", "3-1"]
    left = "end"                     # below the first column: "end" (read it) or a code
    right = "AV"                     # above the last column: "end" or a code (automatic)
    low = "clamp"                    # a modified roll below the first row: "clamp" or a code
    high = "clamp"                   # ... above the last row

    [crt.rows]                       # by modified roll: "3", "4-5", "-1"
    "1" = ["AE", "AR", "EX", "DR"]

    [results]                        # each code and what it means; # stands for a number
    AE = "Attacker eliminated"
    "DR#" = "Defender retreats # hexes"
    NE = { means = "No effect", tie = true }   # ranks alike with the entry before (luck)

    [rerolls.RR]                     # a code that rolls again, at most `limit` times, each
    limit = 2                        # `shift` columns on; `then` when the last reads RR
    then = "NE"

    [[modifiers]]                    # set per combat
    name = "town"
    label = "Defender in a town"
    input = "tick"                   # tick, choice (values) or number (low, high)
    effect = "multiply"              # multiply or add (a side's total), shift, drm
    side = "defender"
    by = 2

    [caps]                           # optional: the most the net shift or DRM may be
    drm = 2

A chart is checked as a whole when read (tui.engine.rulesets.charts.reading); a broken one raises
ChartError, one line naming the file, the line where TOML can say it, the key path and what
is allowed. The registry's chart loader (tui.engine.registry) makes a chart read into a
Ruleset (tui.engine.rulesets.charts.ruleset), resolved by the one engine front door
(tui.engine.combat) like a built-in one. This module holds the chart as data and its inputs
as schema fields (the desk's form and the CLI's flags). Never imports textual.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from msgspec.structs import replace

from tui.engine.errors import ChartError as ChartError
from tui.engine.errors import InputError
from tui.engine.kinds import CHOICE, SIGNED, TICK, WHOLE
from tui.engine.schema import FIELDS, Field


@dataclass(frozen=True)
class Modifier:
    """One thing a player sets per combat, and what it does."""

    name: str
    label: str
    input: str  # tick, choice, number
    effect: str  # multiply, add, shift, drm
    side: str | None = None  # multiply and add: whose total
    by: Fraction = Fraction(1)  # tick: the amount when ticked; number: each unit is worth
    values: tuple[tuple[str, Fraction], ...] = ()  # choice: named values and their amounts
    low: int | None = None  # number: the range
    high: int | None = None
    help: str = ""
    per: int | None = None  # number: one step of `by` for every `per` units typed
    round: str = "down"  # how value/per is rounded: down, up or nearest (halves up)
    on: str = "total"  # multiply and add: the side's total, or one unit (a mark it carries)
    needs: str | None = None  # acts only when this other modifier is set

    def amount(self, value: Any) -> Fraction | None:
        """What `value` (as the player set it) does, or None when it does nothing."""
        if value is None or value is False:
            return None
        if self.input == "tick":
            return self.by
        if self.input == "choice":
            return dict(self.values)[value]
        amount: Fraction = self.by * self.steps(value)
        return amount

    def steps(self, value: int) -> int:
        """A number's steps: the value itself, or value/per rounded as the chart says."""
        if self.per is None:
            return value
        exact = Fraction(value, self.per)
        if self.round == "up":
            return math.ceil(exact)
        if self.round == "nearest":
            return math.floor(exact + Fraction(1, 2))
        return math.floor(exact)

    @property
    def marks(self) -> tuple[str, ...]:
        """A unit modifier's marks (a tick's name, a choice's values); else none."""
        if self.on != "unit":
            return ()
        return (self.name,) if self.input == "tick" else tuple(n for n, _ in self.values)

    def mark_amount(self, mark: str) -> Fraction:
        """What a unit modifier's mark does to the unit's factor."""
        return self.by if self.input == "tick" else dict(self.values)[mark]

    def check(self, value: Any) -> None:
        """Refuse a value the modifier does not take, naming what it does."""
        if value is None:
            return
        if self.input == "tick":
            if not isinstance(value, bool):
                raise InputError(self.name, value, "a tick: true or false")
        elif self.input == "choice":
            names = [name for name, _ in self.values]
            if value not in names:
                raise InputError(self.name, value, "one of " + ", ".join(names), choices=names)
        elif (
            isinstance(value, bool)
            or not isinstance(value, int)
            or not (self.low or 0) <= value <= (self.high or 0)
        ):
            raise InputError(self.name, value, f"a whole number from {self.low} to {self.high}")


@dataclass(frozen=True)
class Reroll:
    """What a re-roll code does ([rerolls.CODE]): roll the chart's dice again, on the column
    moved `shift` columns (stopping at the edge), at most `limit` times; `then` is the result
    when the last re-roll reads the code again."""

    limit: int
    then: str
    shift: int = 0


@dataclass(frozen=True)
class Row:
    low: int
    high: int
    cells: tuple[Any, ...]

    @property
    def label(self) -> str:
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


@dataclass(frozen=True)
class Beyond:
    """What lies beyond one end of the columns, read on the end column: a DRM and/or a
    column shift, counted inside the caps with the modifiers' or added after them."""

    drm: int = 0
    shift: int = 0
    caps: str = "inside"  # inside or outside

    def amounts(self) -> str:
        """ "DRM -1 and shift +1"."""
        parts = [f"DRM {self.drm:+d}"] if self.drm else []
        parts += [f"shift {self.shift:+d}"] if self.shift else []
        return " and ".join(parts)

    def text(self) -> str:
        """ "DRM -1 and shift +1 (inside the cap)"."""
        return f"{self.amounts()} ({self.caps} the cap)"


@dataclass(frozen=True)
class PlayerChart:
    """A player's chart, checked. `text` is the file as read (a save keeps a copy)."""

    name: str
    title: str
    source: str
    text: str
    count: int
    sides: int
    kind: str
    columns: tuple[str, ...]
    values: tuple[Fraction, ...]  # each column's ratio (odds) or difference
    left: str | None  # None: the end column; else a result code
    right: str | None
    low: str | None  # None: clamp; else a result code
    high: str | None
    rows: tuple[Row, ...]
    results: Mapping[str, str]
    modifiers: tuple[Modifier, ...] = ()
    drm_cap: int | None = None
    shift_cap: int | None = None
    rulings: tuple[str, ...] = ()
    # Read on the end column with a DRM and/or a shift (left or right is then None).
    left_beyond: Beyond | None = None
    right_beyond: Beyond | None = None
    # Columns chosen by a choice: the modifier's name, and each value's labels and ratios
    # (`columns` and `values` are the first set's).
    columns_by: str | None = None
    column_sets: tuple[tuple[str, tuple[str, ...], tuple[Fraction, ...]], ...] = ()
    _patterns: tuple[tuple[re.Pattern[str], str], ...] = field(default=(), repr=False)
    # Each [results] entry's place in luck's order (an entry that ties shares the one
    # before's); empty: each entry's place in the list.
    ranks: Mapping[str, int] = field(default_factory=dict)
    rerolls: Mapping[str, Reroll] = field(default_factory=dict)  # re-roll code -> its rule

    @property
    def dice(self) -> str:
        return f"{self.count}d{self.sides}"

    @property
    def digest(self) -> str:
        """The chart's fingerprint: a save notes it, and a changed file is noticed."""
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]

    def modifier(self, name: str) -> Modifier:
        for found in self.modifiers:
            if found.name == name:
                return found
        names = [m.name for m in self.modifiers]
        raise InputError("modifier", name, "one of " + (", ".join(names) or "none"), choices=names)

    def marks(self, side: str) -> tuple[str, ...]:
        """The marks a unit of `side` (attacker or defender) may carry: N@MARK."""
        return tuple(mark for m in self.modifiers if m.side == side for mark in m.marks)

    def marked(self, side: str, mark: str) -> Modifier | None:
        """The unit modifier of `side` a mark names (None: not one of the side's marks)."""
        return next((m for m in self.modifiers if m.side == side and mark in m.marks), None)

    def meaning(self, code: str) -> str | None:
        """What a code means (its numbers in place of the #s), or None: not a code of the
        chart."""
        return code_meaning(self.results, self._patterns, code)

    def entry(self, code: str) -> str | None:
        """The [results] entry a code is read by: itself (an exact code wins), else the first
        pattern that matches it; None: not a code of the chart."""
        if code in self.results:
            return code
        for pattern, code_key in self._patterns:
            if pattern.match(code):
                return code_key
        return None

    def columns_for(self, value: Any) -> tuple[tuple[str, ...], tuple[Fraction, ...]]:
        """The labels and ratios a combat reads: the set the columns choice names, else
        the first (the only one of a chart without a columns choice)."""
        for name, labels, values in self.column_sets:
            if name == value:
                return labels, values
        return self.columns, self.values

    @property
    def fractional(self) -> bool:
        """Whether any odds column is other than N-1 or 1-N (then the odds are said
        exactly, "5-3", not rounded)."""
        sets = [values for _, _, values in self.column_sets] or [self.values]
        return self.kind == "odds" and any(
            v.numerator != 1 and v.denominator != 1 for values in sets for v in values
        )

    def row_for(self, modified: int) -> Row | None:
        for row in self.rows:
            if row.low <= modified <= row.high:
                return row
        return None


def code_meaning(
    results: Mapping[str, str], patterns: tuple[tuple[re.Pattern[str], str], ...], code: str
) -> str | None:
    """What `code` means: an exact code's meaning, else the first pattern's that matches, its
    #s filled with the code's numbers in order (a code of one # fills every # with it)."""
    if code in results:
        return results[code]
    for pattern, code_key in patterns:
        match = pattern.match(code)
        if match:
            return fill_numbers(results[code_key], match.groups())
    return None


def fill_numbers(meaning: str, numbers: tuple[str, ...]) -> str:
    """A meaning's #s filled: with one number, every # is it (as "DR#" = "retreat # hexes"
    always read); with several, each # in turn takes the next."""
    if len(numbers) == 1:
        return meaning.replace("#", numbers[0])
    parts = meaning.split("#")
    filled = parts[0]
    for i, part in enumerate(parts[1:]):
        filled += (numbers[i] if i < len(numbers) else "#") + part
    return filled


def code_pattern(code: str) -> re.Pattern[str]:
    """The codes a code with #s covers: each # a number ("#-#" covers "2-2", "1-3")."""
    return re.compile("^" + re.escape(code).replace("\\#", "#").replace("#", r"(\d+)") + "$")


def first_beyond(kind: str, last: Fraction) -> Fraction:
    """The least ratio (or difference) beyond a last column of `last`: whole odds (N-1 or
    1-N, rounded in the defender's favour), or a whole difference, above it. 11 against 2
    reads a last column 5-1; 12 against 2 is beyond it."""
    if kind == "differential" or last >= 1:
        return Fraction(math.floor(last) + 1)
    return Fraction(1, math.ceil(1 / last) - 1)


# --- numbers as shown ---------------------------------------------------------------------------


def shown_number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


def signed(value: Fraction) -> str:
    text = str(shown_number(value))
    return text if value < 0 else "+" + text


# --- inputs: the chart's fields, and a logged combat read back ------------------------------------


def fields(chart: PlayerChart) -> tuple[Any, ...]:
    """The chart's inputs as schema Fields: the units of each side, the column and the roll,
    then each modifier (its `name` is the modifier's; its value is kept in
    CombatInput.modifiers)."""

    found = [
        _units_field(chart, "attackers", "attacker", "an attacking unit's factor"),
        _units_field(chart, "defenders", "defender", "a defending unit's factor"),
        FIELDS["column"],
        replace(
            FIELDS["roll"], help=f"the {chart.dice} rolled by hand, as they lie (before any DRM)"
        ),
    ]
    for mod in chart.modifiers:
        if mod.on != "unit":  # a unit modifier is a mark on a unit row, not a field
            found.append(modifier_field(mod))
    return tuple(found)


def _units_field(chart: PlayerChart, name: str, side: str, said: str) -> Any:
    """A side's units; where the chart's unit modifiers mark that side's units, N@MARK, its
    choices the marks (the desk's unit rows offer them)."""
    marks = chart.marks(side)
    if not marks:
        return replace(FIELDS[name], help=f"{said} (repeat per unit)")
    return replace(
        FIELDS[name],
        help=f"{said} (repeat per unit), or N@MARK for a unit the chart marks",
        choices=_offered(tuple((mark, mark) for mark in marks)),
    )


def modifier_field(mod: Modifier) -> Any:
    """One modifier as a schema Field (kind tick, choice, or signed/whole with its range)."""
    said = effect_text(mod)
    desk_id = f"modifier-{mod.name}"  # never one of the desk's own widgets' ids
    # The desk's form gives a choice's or a number's label 14 columns (a tick's is whole).
    short = mod.label if len(mod.label) <= 14 else mod.label[:13] + "…"
    if mod.input == "tick":
        return Field(mod.name, mod.label, f"--{mod.name}", TICK, mod.help or said, desk_id=desk_id)
    if mod.input == "choice":
        pairs = tuple((name, name) for name, _ in mod.values)
        return Field(
            mod.name,
            mod.label,
            f"--{mod.name}",
            CHOICE,
            mod.help or said,
            choices=_offered(pairs),
            metavar="NAME",
            desk_id=desk_id,
            desk_label=short,
            # The columns read: the desk shows the first set, which an unset choice reads,
            # not "-" (none), which would hide which columns the preview is on.
            required=mod.effect == "columns",
        )
    kind = SIGNED if (mod.low or 0) < 0 else WHOLE
    return Field(
        mod.name,
        mod.label,
        f"--{mod.name}",
        kind,
        mod.help or said,
        low=mod.low,
        high=mod.high,
        allowed="a whole number from {low} to {high}",
        desk_id=desk_id,
        desk_label=short,
    )


def _offered(
    pairs: tuple[tuple[Any, str], ...],
) -> Callable[[str, Any], tuple[tuple[Any, str], ...]]:
    """A choice's options, the same for any ruleset and tables."""

    def options(ruleset: str, tables: Any) -> tuple[tuple[Any, str], ...]:
        return pairs

    return options


def effect_text(mod: Modifier) -> str:
    """What a modifier does, for its help: "defender's total x2", "column shift per value"."""
    if mod.effect == "columns":
        return f"{mod.label}: the columns read ({', '.join(n for n, _ in mod.values)})"
    if mod.input == "choice":
        amounts = ", ".join(f"{n} {_amount_text(mod, a)}" for n, a in mod.values)
    elif mod.input == "tick":
        amounts = _amount_text(mod, mod.by)
    elif mod.per is not None:
        amounts = (
            f"{_amount_text(mod, mod.by)} per {mod.per}, rounded {_rounding(mod)} "
            f"({mod.low} to {mod.high})"
        )
    else:
        amounts = f"{_amount_text(mod, mod.by)} each ({mod.low} to {mod.high})"
    if mod.needs is not None:
        amounts += f"; only when {mod.needs} is set"
    return f"{mod.label}: {amounts}"


def set_as(mod: Modifier) -> str:
    """How a modifier is set on the command line: --NAME, or a unit's mark N@MARK."""
    if mod.on == "unit":
        return "N@" + "|".join(mod.marks)
    return f"--{mod.name}"


def _rounding(mod: Modifier) -> str:
    return "to the nearest" if mod.round == "nearest" else mod.round


def _amount_text(mod: Modifier, amount: Fraction) -> str:
    if mod.on == "unit":
        how = f"x{shown_number(amount)}" if mod.effect == "multiply" else signed(amount)
        return f"{mod.side}'s unit {how}"
    if mod.effect == "multiply":
        return f"{mod.side}'s total x{shown_number(amount)}"
    if mod.effect == "add":
        return f"{mod.side}'s total {signed(amount)}"
    if mod.effect == "shift":
        return f"{int(amount):+d} column{'s' if abs(amount) != 1 else ''}"
    return f"DRM {int(amount):+d}"
