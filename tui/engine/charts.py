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

    [[modifiers]]                    # set per combat
    name = "town"
    label = "Defender in a town"
    input = "tick"                   # tick, choice (values) or number (low, high)
    effect = "multiply"              # multiply or add (a side's total), shift, drm
    side = "defender"
    by = 2

    [caps]                           # optional: the most the net shift or DRM may be
    drm = 2

A chart is checked as a whole when read; a broken one raises ChartError, one line naming
the file, the line where TOML can say it, the key path and what is allowed. A chart read is
registered under the ruleset id "game:NAME" (NAME: the file's stem) and resolved by the one
engine front door (tui.engine.combat) like a built-in ruleset. Never imports textual.
"""

from __future__ import annotations

import hashlib
import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from tui.engine.dice import Roller, check_roll
from tui.engine.errors import InputError
from tui.engine.model import CombatInput, Outcome
from tui.engine.odds import apply_shifts, label_ratio
from tui.engine.rulesets.common import finish, pick_column, require_attack, require_defense
from tui.engine.rulesets.common import units_total as _units_total

PREFIX = "game:"
KINDS = ("odds", "differential")
INPUTS = ("tick", "choice", "number")
EFFECTS = ("multiply", "add", "shift", "drm")
SIDES = ("attacker", "defender")
# The most a chart may hold: enough for any printed chart, few enough to stay quick.
MOST_COLUMNS = 40
MOST_ROWS = 60
MOST_MODIFIERS = 30
MOST_DICE = 4
MOST_SIDES = 100
MOST_BYTES = 256 * 1024
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
_MOD_NAME = re.compile(r"^[a-z][a-z0-9-]{0,29}$")
# Flags the CLI has of its own: no modifier may take one as its name.
RESERVED = (
    "attack",
    "defense",
    "column",
    "roll",
    "seed",
    "json",
    "games",
    "saves",
    "save",
    "target",
    "note",
    "help",
)
_ROW = re.compile(r"^\s*(-?\d{1,4})\s*(?:(?:-|to)\s*(-?\d{1,4})\s*)?$")
_DIFF = re.compile(r"^[+-]?\d{1,4}\+?$")
_DICE = re.compile(r"^\s*(\d{1,2})\s*d\s*(\d{1,3})\s*$", re.IGNORECASE)
_CODE = re.compile(r"^\S{1,16}$")
# What no text of a chart may hold: control characters (a terminal's escapes, line breaks),
# and the marks that reorder text on screen. A chart's text is shown as written.
_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


class ChartError(Exception):
    """A player's chart that cannot be used; the message is one line naming the place."""


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

    def amount(self, value: Any) -> Fraction | None:
        """What `value` (as the player set it) does, or None when it does nothing."""
        if value is None or value is False:
            return None
        if self.input == "tick":
            return self.by
        if self.input == "choice":
            return dict(self.values)[value]
        return self.by * value

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
                raise InputError(self.name, value, "one of " + ", ".join(names))
        elif (
            isinstance(value, bool)
            or not isinstance(value, int)
            or not (self.low or 0) <= value <= (self.high or 0)
        ):
            raise InputError(self.name, value, f"a whole number from {self.low} to {self.high}")


@dataclass(frozen=True)
class Row:
    low: int
    high: int
    cells: tuple[Any, ...]

    @property
    def label(self) -> str:
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


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
    _patterns: tuple[tuple[re.Pattern[str], str], ...] = field(default=(), repr=False)

    @property
    def ruleset(self) -> str:
        return PREFIX + self.name

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
        raise InputError(
            "modifier", name, "one of " + (", ".join(m.name for m in self.modifiers) or "none")
        )

    def meaning(self, code: str) -> str | None:
        """What a code means (a number in place of #), or None: not a code of the chart."""
        if code in self.results:
            return self.results[code]
        for pattern, code_key in self._patterns:
            match = pattern.match(code)
            if match:
                return self.results[code_key].replace("#", match.group(1))
        return None

    def row_for(self, modified: int) -> Row | None:
        for row in self.rows:
            if row.low <= modified <= row.high:
                return row
        return None

    def summary(self) -> str:
        columns = f"{len(self.columns)} {self.kind} columns {self.columns[0]}..{self.columns[-1]}"
        rows = f"{len(self.rows)} rows {self.rows[0].low}..{self.rows[-1].high}"
        mods = len(self.modifiers)
        return (
            f"{self.ruleset}: {self.title} ({self.dice}); {columns}; {rows}; "
            f"{len(self.results)} result codes; {mods} modifier{'s' if mods != 1 else ''}"
        )


# --- reading and checking ------------------------------------------------------------------


def _key(parts: tuple[str | int, ...]) -> str:
    text = ""
    for part in parts:
        if isinstance(part, str):  # a hidden character named, never written out
            part = _HIDDEN.sub(lambda found: f"\\u{ord(found.group()):04x}", part)
        if isinstance(part, int):
            text += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", part):
            text += f".{part}" if text else part
        else:
            text += f'."{part}"' if text else f'"{part}"'
    return text


class _Reader:
    def __init__(self, source: str, text: str) -> None:
        self.source = source
        self.lines = text.splitlines()

    def line_of(self, parts: tuple[str | int, ...]) -> int | None:
        """The line a key is written on, where a plain search can tell: a row of
        crt.rows, or the nth [[modifiers]] table."""
        if len(parts) >= 3 and parts[:2] == ("crt", "rows") and isinstance(parts[2], str):
            inside = False
            wanted = re.compile(r'^\s*(["\']?)' + re.escape(parts[2]) + r"\1\s*=")
            for number, line in enumerate(self.lines, 1):
                if re.match(r"^\s*\[\s*crt\s*\.\s*rows\s*\]", line):
                    inside = True
                elif re.match(r"^\s*\[", line):
                    inside = False
                elif inside and wanted.match(line):
                    return number
        if len(parts) >= 2 and parts[0] == "modifiers" and isinstance(parts[1], int):
            seen = -1
            for number, line in enumerate(self.lines, 1):
                if re.match(r"^\s*\[\[\s*modifiers\s*\]\]", line):
                    seen += 1
                    if seen == parts[1]:
                        return number
        return None

    def fail(self, parts: tuple[str | int, ...], problem: str) -> ChartError:
        line = self.line_of(parts)
        where = f"{self.source}:{line}" if line else self.source
        return ChartError(f"{where}: {_key(parts)}: {problem}" if parts else f"{where}: {problem}")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _get(
    reader: _Reader,
    data: Mapping[str, Any],
    parts: tuple[str | int, ...],
    kind: type | tuple[type, ...],
    what: str,
    default: Any = ...,
) -> Any:
    node: Any = data
    for i, part in enumerate(parts):
        if isinstance(part, int) and isinstance(node, list) and part < len(node):
            node = node[part]
            continue
        if not isinstance(node, Mapping) or part not in node:
            if default is not ...:
                return default
            raise reader.fail(parts[: i + 1], f"missing; expected {what}")
        node = node[part]
    if not isinstance(node, kind) or (isinstance(node, bool) and bool not in _tuple(kind)):
        raise reader.fail(parts, f"{_shown(node)} is not allowed; expected {what}")
    return node


def _tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _number(reader: _Reader, parts: tuple[str | int, ...], value: Any, what: str) -> Fraction:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not -1000 <= value <= 1000
    ):
        raise reader.fail(
            parts, f"{_shown(value)} is not allowed; expected {what} from -1000 to 1000"
        )
    return Fraction(value).limit_denominator(1000)


_TOP = {"game", "crt", "results", "modifiers", "caps"}
_GAME_KEYS = {"title", "dice", "rulings"}
_CRT_KEYS = {"kind", "columns", "left", "right", "low", "high", "rows"}
_MOD_KEYS = {"name", "label", "input", "effect", "side", "by", "values", "low", "high", "help"}


def _unknown_keys(
    reader: _Reader, table: Mapping[str, Any], allowed: set[str], parts: tuple[str | int, ...]
) -> None:
    for key in table:
        if key not in allowed:
            raise reader.fail(
                (*parts, key),
                "not a key of the format; expected one of " + ", ".join(sorted(allowed)),
            )


def parse_chart(text: str, source: str, name: str) -> PlayerChart:
    """Check the text of a chart file and build it. Raises ChartError, one line."""
    reader = _Reader(source, text)
    if not _NAME.match(name):
        raise ChartError(
            f"{source}: the file's name {name!r} is not allowed; expected lower-case letters, "
            "digits, - or _ (up to 40; it names the game: game:NAME)"
        )
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise _toml_error(source, err) from None
    _plain_text(reader, data, ())
    _unknown_keys(reader, data, _TOP, ())
    game = _get(reader, data, ("game",), dict, "a [game] table with title and dice")
    _unknown_keys(reader, game, _GAME_KEYS, ("game",))
    title = _get(reader, data, ("game", "title"), str, "the game's title, a string").strip()
    if not title or len(title) > 80:
        raise reader.fail(("game", "title"), "expected a title of 1 to 80 characters")
    dice_text = _get(reader, data, ("game", "dice"), str, 'dice such as "1d6" or "2d6"')
    dice = _DICE.match(dice_text)
    count, sides = (int(dice.group(1)), int(dice.group(2))) if dice else (0, 0)
    if not (1 <= count <= MOST_DICE and 2 <= sides <= MOST_SIDES):
        raise reader.fail(
            ("game", "dice"),
            f"{dice_text!r} is not allowed; expected NdS with N from 1 to {MOST_DICE} and "
            f"S from 2 to {MOST_SIDES} (1d6, 2d6, 1d10)",
        )
    rulings = _get(reader, data, ("game", "rulings"), list, "a list of strings", ())
    for i, ruling in enumerate(rulings):
        if not isinstance(ruling, str):
            raise reader.fail(("game", "rulings", i), f"{_shown(ruling)}: expected a string")

    results = _results(reader, data)
    patterns = tuple(
        (re.compile("^" + re.escape(code).replace("\\#", "#").replace("#", r"(\d+)") + "$"), code)
        for code in results
        if "#" in code
    )

    crt = _get(reader, data, ("crt",), dict, "a [crt] table")
    _unknown_keys(reader, crt, _CRT_KEYS, ("crt",))
    kind = _get(reader, data, ("crt", "kind"), str, "odds or differential")
    if kind not in KINDS:
        raise reader.fail(
            ("crt", "kind"), f"{kind!r} is not allowed; expected odds or differential"
        )
    columns, values = _columns(reader, data, kind)

    def code_or(key: str, word: str) -> str | None:
        value = _get(reader, data, ("crt", key), str, f'"{word}" or a result code', word)
        if value == word:
            return None
        if value not in results:
            raise reader.fail(
                ("crt", key),
                f'{value!r} is not allowed; expected "{word}" or a code of [results] '
                f"({', '.join(results)})",
            )
        return value

    left, right = code_or("left", "end"), code_or("right", "end")
    low, high = code_or("low", "clamp"), code_or("high", "clamp")

    chart = PlayerChart(
        name=name,
        title=title,
        source=source,
        text=text,
        count=count,
        sides=sides,
        kind=kind,
        columns=columns,
        values=values,
        left=left,
        right=right,
        low=low,
        high=high,
        rows=(),
        results=results,
        rulings=tuple(rulings),
        _patterns=patterns,
    )
    rows = _rows(reader, data, chart)
    modifiers = _modifiers(reader, data)
    caps = _get(reader, data, ("caps",), dict, "a [caps] table with drm and shift", {})
    _unknown_keys(reader, caps, {"drm", "shift"}, ("caps",))
    found_caps: dict[str, int | None] = {"drm": None, "shift": None}
    for key in found_caps:
        if key in caps:
            cap = caps[key]
            if isinstance(cap, bool) or not isinstance(cap, int) or not 0 <= cap <= 99:
                raise reader.fail(
                    ("caps", key),
                    f"{_shown(cap)} is not allowed; expected a whole number from 0 to 99 "
                    f"(the most the net {key.upper() if key == 'drm' else key} may be either way)",
                )
            found_caps[key] = cap
    return PlayerChart(
        **{
            **{f: getattr(chart, f) for f in chart.__dataclass_fields__},
            "rows": rows,
            "modifiers": modifiers,
            "drm_cap": found_caps["drm"],
            "shift_cap": found_caps["shift"],
        }
    )


def _plain_text(reader: _Reader, node: Any, parts: tuple[str | int, ...]) -> None:
    """Refuse a key or a string holding a control character or a reordering mark."""
    if isinstance(node, str):
        found = _HIDDEN.search(node)
        if found:
            raise reader.fail(
                parts,
                f"holds the character U+{ord(found.group()):04X}; expected text on one line "
                "without control characters",
            )
    elif isinstance(node, dict):
        for key, value in node.items():
            _plain_text(reader, key, (*parts, key))
            _plain_text(reader, value, (*parts, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            _plain_text(reader, value, (*parts, i))


def _toml_error(source: str, err: tomllib.TOMLDecodeError) -> ChartError:
    """tomllib's message ("Expected '=' ... (at line 3, column 5)") with the line first."""
    message = str(err)
    found = re.search(r"\(at line (\d+), column (\d+)\)$", message)
    if found:
        problem = message[: found.start()].strip()
        return ChartError(
            f"{source}:{found.group(1)}: not TOML: {problem} (column {found.group(2)})"
        )
    return ChartError(f"{source}: not TOML: {message}")


def _results(reader: _Reader, data: Mapping[str, Any]) -> dict[str, str]:
    table = _get(reader, data, ("results",), dict, "a [results] table: each code = its meaning")
    if not table:
        raise reader.fail(("results",), "empty; expected each result code = what it means")
    results: dict[str, str] = {}
    for code, meaning in table.items():
        if not _CODE.match(code) or code.count("#") > 1:
            raise reader.fail(
                ("results", code),
                "not allowed as a code; expected 1 to 16 characters without spaces, at most one #",
            )
        if not isinstance(meaning, str) or not meaning.strip():
            raise reader.fail(
                ("results", code), f"{_shown(meaning)}: expected what it means, a string"
            )
        results[code] = meaning.strip()
    return results


def _columns(
    reader: _Reader, data: Mapping[str, Any], kind: str
) -> tuple[tuple[str, ...], tuple[Fraction, ...]]:
    parts: tuple[str | int, ...] = ("crt", "columns")
    example = '"1-2", "1-1", "2-1"' if kind == "odds" else '"-2", "0", "+3"'
    labels = _get(reader, data, parts, list, f"a list of column labels ({example})")
    if not 1 <= len(labels) <= MOST_COLUMNS:
        raise reader.fail(parts, f"{len(labels)} columns; expected 1 to {MOST_COLUMNS}")
    values: list[Fraction] = []
    for i, label in enumerate(labels):
        if not isinstance(label, str):
            raise reader.fail(
                (*parts, i), f"{_shown(label)} is not allowed; expected a label ({example})"
            )
        if label in labels[:i]:
            raise reader.fail((*parts, i), f"{label!r} is a duplicated column; each column once")
        try:
            if kind == "odds":
                value = label_ratio(label)
                if value == 0:
                    raise ValueError(label)
            elif _DIFF.match(label.strip()):
                value = Fraction(int(label.strip().rstrip("+")))
            else:
                raise ValueError(label)
        except (ValueError, ZeroDivisionError):
            allowed = (
                "odds such as 1-2, 3-1 or 3:1"
                if kind == "odds"
                else "a difference such as -2, 0, +3"
            )
            raise reader.fail(
                (*parts, i), f"{label!r} is not allowed; expected {allowed}"
            ) from None
        if values and value <= values[-1]:
            raise reader.fail(
                (*parts, i),
                f"{label!r} after {labels[i - 1]!r}: columns out of order; expected them left to "
                "right, each above the one before",
            )
        values.append(value)
    return tuple(labels), tuple(values)


def _cell(reader: _Reader, parts: tuple[str | int, ...], cell: Any, chart: PlayerChart) -> Any:
    codes = cell if isinstance(cell, list) else [cell]
    if not codes:
        raise reader.fail(parts, "an empty cell; expected a result code, or a list of codes")
    for i, code in enumerate(codes):
        where = (*parts, i) if isinstance(cell, list) else parts
        if not isinstance(code, str) or chart.meaning(code) is None:
            raise reader.fail(
                where,
                f"{_shown(code)} is not a result code; expected one of [results] "
                f"({', '.join(chart.results)}; # stands for a number)",
            )
    return tuple(cell) if isinstance(cell, list) else cell


def _rows(reader: _Reader, data: Mapping[str, Any], chart: PlayerChart) -> tuple[Row, ...]:
    parts: tuple[str | int, ...] = ("crt", "rows")
    table = _get(reader, data, parts, dict, 'a [crt.rows] table: "ROLL" = [one cell per column]')
    if not 1 <= len(table) <= MOST_ROWS:
        raise reader.fail(parts, f"{len(table)} rows; expected 1 to {MOST_ROWS}")
    rows: list[Row] = []
    width = len(chart.columns)
    for key, cells in table.items():
        here = (*parts, key)
        found = _ROW.match(key)
        if not found:
            raise reader.fail(
                here, 'not a roll; expected a modified roll such as "3" or a range "4-5"'
            )
        low = int(found.group(1))
        high = int(found.group(2)) if found.group(2) is not None else low
        if high < low:
            raise reader.fail(
                here, f"a range from {low} down to {high}; expected the low roll first"
            )
        if rows and low != rows[-1].high + 1:
            previous = rows[-1].label
            problem = (
                f"overlaps row {previous!r}"
                if low <= rows[-1].high
                else f"leaves a gap after row {previous!r}"
            )
            raise reader.fail(
                here,
                f"{problem}; expected rows in order, each roll once ({rows[-1].high + 1} next)",
            )
        if not isinstance(cells, list):
            raise reader.fail(here, f"{_shown(cells)}: expected a list of cells, one per column")
        if len(cells) != width:
            raise reader.fail(here, f"{len(cells)} cells, expected {width} (one per column)")
        rows.append(
            Row(low, high, tuple(_cell(reader, (*here, i), c, chart) for i, c in enumerate(cells)))
        )
    return tuple(rows)


def _modifiers(reader: _Reader, data: Mapping[str, Any]) -> tuple[Modifier, ...]:
    listed = _get(reader, data, ("modifiers",), list, "[[modifiers]] tables", [])
    if len(listed) > MOST_MODIFIERS:
        raise reader.fail(
            ("modifiers",), f"{len(listed)} modifiers; expected at most {MOST_MODIFIERS}"
        )
    found: list[Modifier] = []
    for i, table in enumerate(listed):
        at: tuple[str | int, ...] = ("modifiers", i)
        if not isinstance(table, dict):
            raise reader.fail(at, "expected a [[modifiers]] table")
        _unknown_keys(reader, table, _MOD_KEYS, at)
        name = _get(reader, data, (*at, "name"), str, "a name: lower-case letters, digits and -")
        if not _MOD_NAME.match(name) or name in RESERVED:
            raise reader.fail(
                (*at, "name"),
                f"{name!r} is not allowed; expected a lower-case letter, then letters, digits "
                "or - (up to 30; it is the CLI flag --NAME), not " + ", ".join(RESERVED),
            )
        if name in [m.name for m in found]:
            raise reader.fail((*at, "name"), f"{name!r} is a duplicated modifier; each name once")
        label = _get(
            reader,
            data,
            (*at, "label"),
            str,
            "a label, a string",
            name.replace("-", " ").capitalize(),
        )
        help_text = _get(reader, data, (*at, "help"), str, "a string", "")
        kind = _get(reader, data, (*at, "input"), str, "tick, choice or number")
        if kind not in INPUTS:
            raise reader.fail(
                (*at, "input"), f"{kind!r} is not allowed; expected tick, choice or number"
            )
        effect = _get(reader, data, (*at, "effect"), str, "multiply, add, shift or drm")
        if effect not in EFFECTS:
            raise reader.fail(
                (*at, "effect"), f"{effect!r} is not allowed; expected multiply, add, shift or drm"
            )
        side = None
        if effect in ("multiply", "add"):
            side = _get(reader, data, (*at, "side"), str, "attacker or defender (whose total)")
            if side not in SIDES:
                raise reader.fail(
                    (*at, "side"), f"{side!r} is not allowed; expected attacker or defender"
                )
        elif "side" in table:
            raise reader.fail(
                (*at, "side"), f"not read by effect {effect}; only multiply and add have a side"
            )
        whole = effect in ("shift", "drm")
        what = "a whole number" if whole else "a number"
        by = Fraction(1)
        if kind == "tick" or "by" in table:
            raw = _get(reader, data, (*at, "by"), (int, float), f"{what}: what a tick does")
            by = _number(reader, (*at, "by"), raw, what)
            if (whole and by.denominator != 1) or (effect == "multiply" and by <= 0):
                allowed = "a whole number" if whole else "a number above 0"
                raise reader.fail((*at, "by"), f"{_shown(raw)} is not allowed; expected {allowed}")
        values: tuple[tuple[str, Fraction], ...] = ()
        low = high = None
        if kind == "choice":
            named = _get(
                reader, data, (*at, "values"), dict, f"a table of named values: name = {what}"
            )
            if not named:
                raise reader.fail((*at, "values"), f"empty; expected named values: name = {what}")
            pairs = []
            for value_name, raw in named.items():
                if not _NAME.match(value_name):
                    raise reader.fail(
                        (*at, "values", value_name),
                        "not allowed as a name; expected lower-case letters, digits, - or _",
                    )
                amount = _number(reader, (*at, "values", value_name), raw, what)
                if (whole and amount.denominator != 1) or (effect == "multiply" and amount <= 0):
                    allowed = "a whole number" if whole else "a number above 0"
                    raise reader.fail(
                        (*at, "values", value_name),
                        f"{_shown(raw)} is not allowed; expected {allowed}",
                    )
                pairs.append((value_name, amount))
            values = tuple(pairs)
        elif "values" in table:
            raise reader.fail((*at, "values"), "only a choice has values")
        if kind == "number":
            for key in ("low", "high"):
                if key not in table:
                    raise reader.fail(
                        (*at, key),
                        "missing; a number needs its range: low and high (whole numbers)",
                    )
            low = _get(reader, data, (*at, "low"), int, "a whole number")
            high = _get(reader, data, (*at, "high"), int, "a whole number")
            if not -999 <= low <= high <= 999:
                raise reader.fail(
                    (*at, "high"),
                    f"a range {low} to {high}; expected low <= high, both within -999..999",
                )
            if effect == "multiply" and low <= 0:
                raise reader.fail(
                    (*at, "low"), f"{low}: a multiplier of 0 or less; expected low >= 1"
                )
        else:
            for key in ("low", "high"):
                if key in table:
                    raise reader.fail((*at, key), "only a number has a range")
        found.append(Modifier(name, label, kind, effect, side, by, values, low, high, help_text))
    return tuple(found)


def load_chart(path: str | Path, shown: str | None = None) -> PlayerChart:
    """Read and check a chart file; `shown` is how messages name it (default: the path)."""
    path = Path(path)
    source = shown or str(path)
    try:
        raw = path.read_bytes()[: MOST_BYTES + 1]
    except OSError as err:
        raise ChartError(f"{source}: cannot be read: {err.strerror or err}") from None
    if len(raw) > MOST_BYTES:
        raise ChartError(f"{source}: over {MOST_BYTES // 1024} KiB; a chart file is smaller")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ChartError(f"{source}: not UTF-8 text (byte {err.start})") from None
    return parse_chart(text, source, path.stem)


# --- the charts known to the engine -------------------------------------------------------------

_KNOWN: dict[str, PlayerChart] = {}


def register(chart: PlayerChart) -> str:
    """Make `chart` the one its ruleset id resolves with (and whose fields the schema
    gives); returns the id."""
    from tui.engine.schema import GAME_FIELDS

    _KNOWN[chart.ruleset] = chart
    GAME_FIELDS[chart.ruleset] = fields(chart)
    return chart.ruleset


def is_game(ruleset: object) -> bool:
    return isinstance(ruleset, str) and ruleset.startswith(PREFIX)


def known(ruleset: str) -> PlayerChart:
    chart = _KNOWN.get(ruleset)
    if chart is None:
        names = ", ".join(_KNOWN) or "none read yet"
        raise InputError(
            "ruleset", ruleset, f"a player's chart read from the games folder ({names})"
        )
    return chart


def known_games() -> tuple[str, ...]:
    return tuple(_KNOWN)


def ruleset_title(ruleset: str, tables: Any) -> str:
    """A ruleset's title: a built-in's from tables.toml, a player's chart's from its file
    (its id while no copy of it is read)."""
    if not is_game(ruleset):
        return str(tables.title(ruleset))
    chart = _KNOWN.get(ruleset)
    return chart.title if chart is not None else ruleset


# --- resolving ----------------------------------------------------------------------------------


def _shown_number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


def _signed(value: Fraction) -> str:
    text = str(_shown_number(value))
    return text if value < 0 else "+" + text


def check_inputs(combat: CombatInput, chart: PlayerChart) -> None:
    """Refuse what a player's chart does not read, and each modifier's value it does not take."""
    blank = CombatInput(combat.ruleset)
    for name in CombatInput.__dataclass_fields__:
        if name in ("ruleset", "attackers", "defenders", "column", "roll", "modifiers"):
            continue
        if getattr(combat, name) != getattr(blank, name):
            raise InputError(
                name,
                getattr(combat, name),
                f"nothing in {combat.ruleset}: a player's chart reads its own modifiers",
            )
    for units, side in ((combat.attackers, "attack"), (combat.defenders, "defense")):
        for unit in units:
            if unit.terrain is not None or any(
                getattr(unit, key) is not None
                for key in ("name", "steps", "ar", "kind", "supply", "re", "stocks")
            ):
                shown = f"{unit.factor}@{unit.terrain}" if unit.terrain else unit.factor
                raise InputError(side, shown, f"a plain factor in {combat.ruleset}")
    seen = set()
    for name, value in combat.modifiers:
        if name in seen:
            raise InputError(name, value, "one value per modifier")
        seen.add(name)
        chart.modifier(name).check(value)


def _totals(combat: CombatInput, chart: PlayerChart, trace: list[str]) -> tuple[Fraction, Fraction]:
    attack = Fraction(_units_total("attack", combat.attackers))
    defense = Fraction(_units_total("defense", combat.defenders))
    trace.append(f"Attack total {attack}, defence total {defense}")
    totals = {"attacker": attack, "defender": defense}
    set_values = dict(combat.modifiers)
    for mod in chart.modifiers:
        if mod.effect not in ("multiply", "add") or mod.side is None:
            continue
        amount = mod.amount(set_values.get(mod.name))
        if amount is None:
            continue
        before = totals[mod.side]
        if mod.effect == "multiply":
            after = before * amount
            how = f"x{_shown_number(amount)}"
        else:
            after = max(Fraction(0), before + amount)
            how = _signed(amount) + (" (never below 0)" if before + amount < 0 else "")
        totals[mod.side] = after
        trace.append(
            f"{mod.label}: {mod.side} {_shown_number(before)} {how} -> {_shown_number(after)}"
        )
    return totals["attacker"], totals["defender"]


def _net(
    chart: PlayerChart, combat: CombatInput, effect: str, cap: int | None, trace: list[str]
) -> tuple[list[tuple[str, int]], int]:
    """Each shift or DRM set, and their net within the cap."""
    set_values = dict(combat.modifiers)
    found: list[tuple[str, int]] = []
    for mod in chart.modifiers:
        if mod.effect != effect:
            continue
        amount = mod.amount(set_values.get(mod.name))
        if amount:
            found.append((mod.label, int(amount)))
    net = sum(amount for _, amount in found)
    if cap is not None and abs(net) > cap:
        capped = cap if net > 0 else -cap
        what = "DRM" if effect == "drm" else "shift"
        trace.append(
            f"Net {what} {net:+d} capped at {capped:+d} (the chart allows {cap} either way)"
        )
        return found, capped
    return found, net


def _column(
    chart: PlayerChart, attack: Fraction, defense: Fraction, trace: list[str]
) -> tuple[str, str | None, int | None, str | None]:
    """(odds as read, ratio, column index or None, the automatic code or None)."""
    if chart.kind == "differential":
        difference = math.floor(attack - defense)
        odds = f"{difference:+d}" if difference else "0"
        rounded = (
            " (rounded down, in the defender's favour)" if difference != attack - defense else ""
        )
        trace.append(
            f"Difference {_shown_number(attack)} - {_shown_number(defense)} = {odds}{rounded}"
        )
        value = Fraction(difference)
        ratio = odds
    else:
        if defense == 0:
            trace.append("Defence total 0: beyond the last column")
            index, code = _beyond(chart, "right", trace)
            return "-", None, index, code
        if attack >= defense:
            left, right = math.floor(attack / defense), 1
        else:
            left, right = 1, math.ceil(defense / attack)
        separator = ":" if ":" in chart.columns[0] else "-"
        odds = ratio = f"{left}{separator}{right}"
        trace.append(
            f"Ratio {_shown_number(attack)}/{_shown_number(defense)} = {float(attack / defense):.3f}; "
            f"odds rounded for the defender: {odds}"
        )
        value = Fraction(left, right)
    if value < chart.values[0]:
        trace.append(f"{odds} is below the first column {chart.columns[0]}")
        index, code = _beyond(chart, "left", trace)
        return odds, ratio, index, code
    if value > chart.values[-1] and not chart.columns[-1].endswith("+"):
        trace.append(f"{odds} is beyond the last column {chart.columns[-1]}")
        index, code = _beyond(chart, "right", trace)
        return odds, ratio, index, code
    index = max(i for i, v in enumerate(chart.values) if v <= value)
    trace.append(f"Column {chart.columns[index]} (the rightmost column not above {odds})")
    return odds, ratio, index, None


def _beyond(chart: PlayerChart, end: str, trace: list[str]) -> tuple[int | None, str | None]:
    code = chart.left if end == "left" else chart.right
    if code is None:
        index = 0 if end == "left" else len(chart.columns) - 1
        trace.append(f"Read on the end column {chart.columns[index]}")
        return index, None
    trace.append(f"Automatic result {code}: {chart.results[code]}")
    return None, code


def _meanings(chart: PlayerChart, cell: Any) -> list[str]:
    """What a cell means: its code's meaning; each code named where a cell holds several."""
    if not isinstance(cell, tuple):
        return [_sentence(str(chart.meaning(cell)))]
    return [_sentence(f"{code}: {chart.meaning(code)}") for code in cell]


def rank(chart: PlayerChart, cell: Any) -> float:
    """How good a result is for the attacker, for luck: the place of its code in [results]
    (listed from the attacker's worst to its best); a cell of several codes, their mean."""
    codes = cell if isinstance(cell, tuple) else (cell,)
    order = list(chart.results)
    places = []
    for code in codes:
        if code in chart.results:
            places.append(order.index(code))
            continue
        places.extend(order.index(key) for p, key in chart._patterns if p.match(code))
    return sum(places) / len(places) if places else 0.0


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."


def resolve(combat: CombatInput, tables: Any, roller: Roller) -> Outcome:
    """One combat on the chart registered for combat.ruleset (`tables` is not read)."""
    chart = known(combat.ruleset)
    check_inputs(combat, chart)
    trace: list[str] = []
    effects: dict[str, Any] = {"attacker": {}, "defender": {}, "markers": [], "notes": []}
    if combat.roll is not None:
        check_roll("roll", combat.roll, chart.count, chart.count * chart.sides, chart.dice)
    attack: Fraction | None = None
    defense: Fraction | None = None
    ratio: str | None = None
    automatic: str | None = None
    index: int | None
    if combat.column is not None:
        index = pick_column(chart.columns, combat.column, trace)
        odds: str | None = combat.column
    else:
        require_defense(combat.defenders)
        attack, defense = _totals(combat, chart, trace)
        require_attack(1 if attack > 0 else 0, combat.attackers)
        odds, ratio, index, automatic = _column(chart, attack, defense, trace)
    totals = {
        "attack_total": None if attack is None else _shown_number(attack),
        "defense_total": None if defense is None else _shown_number(defense),
    }
    if automatic is not None or index is None:
        code = automatic or ""
        if combat.roll is not None:
            trace.append(f"No dice: {code} needs no roll (the roll {combat.roll} is not read)")
        effects["result"] = code
        effects["headline"] = [_sentence(f"{code}: {chart.results.get(code, '')}")]
        effects["short"] = f"{code} (automatic)"
        effects["rank"] = rank(chart, code)
        return finish(
            combat, cell=None, effects=effects, trace=trace, odds=code, ratio=ratio, **totals
        )
    shifts, net_shift = _net(chart, combat, "shift", chart.shift_cap, trace)
    if net_shift != sum(a for _, a in shifts):
        shifts = [*shifts, ("cap on the net shift", net_shift - sum(a for _, a in shifts))]
    moved = apply_shifts(chart.columns, index, shifts)
    lines = moved.describe()
    trace.extend(f"Shift: {line}" for line in lines)
    if lines:
        effects["shifts"] = lines
    column = chart.columns[moved.index]
    drms, drm = _net(chart, combat, "drm", chart.drm_cap, trace)
    for label, amount in drms:
        trace.append(f"DRM: {label} {amount:+d}")
    total = roller.roll("combat", chart.count, chart.sides, combat.roll, modifier=drm)
    modified = total + drm
    source = "entered by hand" if combat.roll is not None else "rolled by the desk"
    said = f"{chart.dice} {total} ({source})" + (f" {drm:+d} DRM = {modified}" if drm else "")
    row = chart.row_for(modified)
    read = modified
    if row is None:
        below = modified < chart.rows[0].low
        code = chart.low if below else chart.high
        if code is None:
            row = chart.rows[0] if below else chart.rows[-1]
            read = row.low if below else row.high
            trace.append(f"{said}: beyond the rows, read on row {row.label} (clamped)")
        else:
            roller.read_row(str(modified))
            trace.append(f"{said}: {'below the first' if below else 'above the last'} row: {code}")
            cell: Any = code
    if row is not None:
        roller.read_row(row.label)
        cell = row.cells[moved.index]
        shown = " / ".join(cell) if isinstance(cell, tuple) else cell
        trace.append(f"{said}; row {row.label}, column {column}: {shown}")
    meanings = _meanings(chart, cell)
    effects["headline"] = meanings
    effects["short"] = "; ".join(m.rstrip(".") for m in meanings)
    effects["rank"] = rank(chart, cell)
    return finish(
        combat,
        cell=cell,
        effects=effects,
        trace=trace,
        odds=odds,
        column=column,
        # The roll read: the modified total, or the end row's where it was clamped to it.
        roll=str(read),
        ratio=ratio,
        **totals,
    )


# --- inputs: the chart's fields, and a logged combat read back ------------------------------------


def fields(chart: PlayerChart) -> tuple[Any, ...]:
    """The chart's inputs as schema Fields: the units of each side, the column and the roll,
    then each modifier (its `name` is the modifier's; its value is kept in
    CombatInput.modifiers)."""
    from dataclasses import replace

    from tui.engine.schema import FIELDS

    found = [
        replace(FIELDS["attackers"], help="an attacking unit's factor (repeat per unit)"),
        replace(FIELDS["defenders"], help="a defending unit's factor (repeat per unit)"),
        FIELDS["column"],
        replace(
            FIELDS["roll"], help=f"the {chart.dice} rolled by hand, as they lie (before any DRM)"
        ),
    ]
    for mod in chart.modifiers:
        found.append(modifier_field(mod))
    return tuple(found)


def modifier_field(mod: Modifier) -> Any:
    """One modifier as a schema Field (kind tick, choice, or signed/whole with its range)."""
    from tui.engine.schema import Field

    said = _effect_text(mod)
    desk_id = f"modifier-{mod.name}"  # never one of the desk's own widgets' ids
    # The desk's form gives a choice's or a number's label 14 columns (a tick's is whole).
    short = mod.label if len(mod.label) <= 14 else mod.label[:13] + "…"
    if mod.input == "tick":
        return Field(
            mod.name, mod.label, f"--{mod.name}", "tick", mod.help or said, desk_id=desk_id
        )
    if mod.input == "choice":
        pairs = tuple((name, name) for name, _ in mod.values)
        return Field(
            mod.name,
            mod.label,
            f"--{mod.name}",
            "choice",
            mod.help or said,
            choices=lambda ruleset, tables, pairs=pairs: pairs,
            metavar="NAME",
            desk_id=desk_id,
            desk_label=short,
        )
    kind = "signed" if (mod.low or 0) < 0 else "whole"
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


def _effect_text(mod: Modifier) -> str:
    """What a modifier does, for its help: "defender's total x2", "column shift per value"."""
    if mod.input == "choice":
        amounts = ", ".join(f"{n} {_amount_text(mod, a)}" for n, a in mod.values)
    elif mod.input == "tick":
        amounts = _amount_text(mod, mod.by)
    else:
        amounts = f"{_amount_text(mod, mod.by)} each ({mod.low} to {mod.high})"
    return f"{mod.label}: {amounts}"


def _amount_text(mod: Modifier, amount: Fraction) -> str:
    if mod.effect == "multiply":
        return f"{mod.side}'s total x{_shown_number(amount)}"
    if mod.effect == "add":
        return f"{mod.side}'s total {_signed(amount)}"
    if mod.effect == "shift":
        return f"{int(amount):+d} column{'s' if abs(amount) != 1 else ''}"
    return f"DRM {int(amount):+d}"
