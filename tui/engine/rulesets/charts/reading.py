"""A player's chart file read and checked as a whole (the format: tui.engine.rulesets.charts.chart and
docs/adding-a-game.md). A broken chart raises ChartError: one line naming the file, the
line where TOML can say it, the key path and what is allowed. Never imports textual.

About 550 lines: one checking pass over the file, a short function per table (the game,
the columns, the rows and cells, the results, the modifiers), each needing the reader that
knows the lines and the key path; about a fifth are the messages themselves."""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from tui.engine.bounds import BoundError, loads_bounded, read_bounded
from tui.engine.odds import label_ratio
from tui.engine.rulesets.charts.chart import (
    Beyond,
    ChartError,
    Modifier,
    PlayerChart,
    Reroll,
    Row,
    code_meaning,
    code_pattern,
)

KINDS = ("odds", "differential")
INPUTS = ("tick", "choice", "number")
EFFECTS = ("multiply", "add", "shift", "drm", "columns")
SIDES = ("attacker", "defender")
# The most a chart may hold: enough for any printed chart, few enough to stay quick.
MOST_COLUMNS = 40
MOST_ROWS = 60
MOST_MODIFIERS = 30
MOST_DICE = 4
MOST_SIDES = 100
MOST_BYTES = 256 * 1024
MOST_HASHES = 4  # the #s of one code
MOST_REROLLS = 10  # the re-rolls one re-roll code allows
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
        if len(parts) >= 2 and parts[0] == "crt" and parts[1] in ("columns", "left", "right"):
            table = r"crt\s*\.\s*columns"
            if len(parts) >= 3 and parts[1] == "columns" and isinstance(parts[2], str):
                found = self._line_in(table, parts[2])
                if found:
                    return found
            return self._line_in("crt", str(parts[1])) or (
                self._line_in(table) if parts[1] == "columns" else None
            )
        if len(parts) >= 2 and parts[0] == "modifiers" and isinstance(parts[1], int):
            seen = -1
            for number, line in enumerate(self.lines, 1):
                if re.match(r"^\s*\[\[\s*modifiers\s*\]\]", line):
                    seen += 1
                    if seen == parts[1]:
                        return number
        return self.results_line(parts)

    def results_line(self, parts: tuple[str | int, ...]) -> int | None:
        """The line of a [results] entry, or of a key of a [rerolls.CODE] table (its header
        where the key is not written on a line of its own)."""
        if (
            len(parts) < 2
            or parts[0] not in ("results", "rerolls")
            or not isinstance(parts[1], str)
        ):
            return None
        name = re.escape(parts[1])
        code = r'(?:"' + name + r'"|\'' + name + r"\'|" + name + ")"
        key: re.Pattern[str] | None
        if parts[0] == "results":
            table, key = r"^\s*\[\s*results\s*\]", re.compile(r"^\s*" + code + r"\s*=")
        else:
            table = r"^\s*\[\s*rerolls\s*\.\s*" + code + r"\s*\]"
            wanted = parts[2] if len(parts) > 2 and isinstance(parts[2], str) else None
            key = re.compile(r"^\s*" + re.escape(wanted) + r"\s*=") if wanted else None
        inside = False
        header = None
        for number, line in enumerate(self.lines, 1):
            if re.match(table, line):
                inside, header = True, number
            elif re.match(r"^\s*\[", line):
                inside = False
            elif inside and key is not None and key.match(line):
                return number
        return header if parts[0] == "rerolls" else None

    def _line_in(self, table: str, key: str | None = None) -> int | None:
        """The line `key = ...` is written on inside the table [TABLE] (a regex), or with
        no key the line of the table's header."""
        inside = False
        wanted = re.compile(r'^\s*(["\']?)' + re.escape(key or "") + r"\1\s*=")
        for number, line in enumerate(self.lines, 1):
            if re.match(r"^\s*\[\s*" + table + r"\s*\]", line):
                if key is None:
                    return number
                inside = True
            elif re.match(r"^\s*\[", line):
                inside = False
            elif inside and wanted.match(line):
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


_TOP = {"game", "crt", "results", "modifiers", "caps", "rerolls"}
_GAME_KEYS = {"title", "dice", "rulings"}
_CRT_KEYS = {"kind", "columns", "left", "right", "low", "high", "rows"}
_MOD_KEYS = {"name", "label", "input", "effect", "side", "by", "values", "low", "high", "help"}
_RESULT_KEYS = {"means", "tie"}
_REROLL_KEYS = {"limit", "then", "shift"}
_MOD_KEYS |= {"per", "round", "on", "needs"}
ROUNDINGS = ("down", "up", "nearest")
TARGETS = ("total", "unit")


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
        data = loads_bounded(text)
    except tomllib.TOMLDecodeError as err:
        raise _toml_error(source, err) from None
    except BoundError as err:
        raise ChartError(f"{source}: {err}") from None
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

    results, ranks = _results(reader, data)
    patterns = tuple((code_pattern(code), code) for code in results if "#" in code)
    rerolls = _rerolls(reader, data, results, patterns)
    _no_reroll_ends(reader, data, rerolls)

    crt = _get(reader, data, ("crt",), dict, "a [crt] table")
    _unknown_keys(reader, crt, _CRT_KEYS, ("crt",))
    kind = _get(reader, data, ("crt", "kind"), str, "odds or differential")
    if kind not in KINDS:
        raise reader.fail(
            ("crt", "kind"), f"{kind!r} is not allowed; expected odds or differential"
        )
    columns, values, column_sets = _columns(reader, data, kind)

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
        return str(value)

    left, left_beyond = _end(reader, data, "left", code_or)
    right, right_beyond = _end(reader, data, "right", code_or)
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
        left_beyond=left_beyond,
        right_beyond=right_beyond,
        column_sets=column_sets,
        _patterns=patterns,
        ranks=ranks,
        rerolls=rerolls,
    )
    rows = _rows(reader, data, chart)
    modifiers, columns_by = _columns_choice(reader, _modifiers(reader, data), column_sets)
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
            "columns_by": columns_by,
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


def _results(reader: _Reader, data: Mapping[str, Any]) -> tuple[dict[str, str], dict[str, int]]:
    """Each code and its meaning, and each code's place in luck's order (an entry with
    `tie = true` shares the place of the entry before)."""
    table = _get(reader, data, ("results",), dict, "a [results] table: each code = its meaning")
    if not table:
        raise reader.fail(("results",), "empty; expected each result code = what it means")
    results: dict[str, str] = {}
    ranks: dict[str, int] = {}
    place = -1
    for code, entry in table.items():
        at: tuple[str | int, ...] = ("results", code)
        if not _CODE.match(code) or code.count("#") > MOST_HASHES or "##" in code:
            raise reader.fail(
                at,
                "not allowed as a code; expected 1 to 16 characters without spaces, "
                f"up to {MOST_HASHES} # never side by side",
            )
        tie = False
        meaning = entry
        if isinstance(entry, dict):
            _unknown_keys(reader, entry, _RESULT_KEYS, at)
            meaning = _get(reader, data, (*at, "means"), str, "what the code means, a string")
            tie = _get(reader, data, (*at, "tie"), bool, "true or false", False)
            at = (*at, "means")
        if not isinstance(meaning, str) or not meaning.strip():
            raise reader.fail(
                at,
                f"{_shown(meaning)}: expected what it means, a string (or a table "
                '{ means = "...", tie = true })',
            )
        numbers = code.count("#")
        if numbers > 1 and meaning.count("#") > numbers:
            raise reader.fail(
                at,
                f"{meaning.count('#')} # in the meaning, the code {numbers}; expected at most "
                "one # of the meaning per # of the code (filled in order)",
            )
        if tie and place < 0:
            raise reader.fail(
                ("results", code, "tie"),
                "the first entry cannot tie; expected tie on an entry after another "
                "(it ranks alike with the one before)",
            )
        place = place if tie else place + 1
        results[code] = meaning.strip()
        ranks[code] = place
    return results, ranks


def _rerolls(
    reader: _Reader,
    data: Mapping[str, Any],
    results: Mapping[str, str],
    patterns: tuple[tuple[re.Pattern[str], str], ...],
) -> dict[str, Reroll]:
    """Each [rerolls.CODE] table: a code of [results] that rolls again."""
    table = _get(reader, data, ("rerolls",), dict, "[rerolls.CODE] tables", {})
    found: dict[str, Reroll] = {}
    for code, rule in table.items():
        at: tuple[str | int, ...] = ("rerolls", code)
        if code not in results or "#" in code:
            raise reader.fail(
                at,
                f"not a code of [results]; expected a code without # listed there "
                f"({', '.join(c for c in results if '#' not in c)})",
            )
        if not isinstance(rule, dict):
            raise reader.fail(at, f"{_shown(rule)}: expected a table with limit, then and shift")
        _unknown_keys(reader, rule, _REROLL_KEYS, at)
        limit = _get(reader, data, (*at, "limit"), int, "a whole number: the most re-rolls")
        if not 1 <= limit <= MOST_REROLLS:
            raise reader.fail(
                (*at, "limit"),
                f"{_shown(limit)} is not allowed; expected a whole number from 1 to "
                f"{MOST_REROLLS} (the most re-rolls)",
            )
        shift = _get(reader, data, (*at, "shift"), int, "a whole number of columns", 0)
        if not -MOST_COLUMNS <= shift <= MOST_COLUMNS:
            raise reader.fail(
                (*at, "shift"),
                f"{_shown(shift)} is not allowed; expected a whole number of columns from "
                f"-{MOST_COLUMNS} to {MOST_COLUMNS}",
            )
        found[code] = Reroll(limit, "", shift)
    for code in table:
        at = ("rerolls", code, "then")
        then = _get(reader, data, at, str, "a result code (not a re-roll)")
        if then in found or code_meaning(results, patterns, then) is None:
            raise reader.fail(
                at,
                f"{_shown(then)} is not allowed; expected a code of [results] that is not a "
                f"re-roll (the result when the last re-roll reads {code} again)",
            )
        found[code] = Reroll(found[code].limit, then, found[code].shift)
    return found


def _no_reroll_ends(
    reader: _Reader, data: Mapping[str, Any], rerolls: Mapping[str, Reroll]
) -> None:
    """Refuse a re-roll code beyond the columns or the rows: those are read without a
    column to roll again on, or after the roll."""
    crt = data.get("crt")
    if not rerolls or not isinstance(crt, dict):
        return
    for key in ("left", "right", "low", "high"):
        value = crt.get(key)
        if isinstance(value, str) and value in rerolls:
            raise reader.fail(
                ("crt", key),
                f"{value!r} is a re-roll code; expected a result that is not a re-roll there",
            )


ColumnSets = tuple[tuple[str, tuple[str, ...], tuple[Fraction, ...]], ...]


def _columns(
    reader: _Reader, data: Mapping[str, Any], kind: str
) -> tuple[tuple[str, ...], tuple[Fraction, ...], ColumnSets]:
    """The columns: a list of labels; or a table of lists, one per value of a columns
    choice, each as long as the first (the rows' cells are shared)."""
    parts: tuple[str | int, ...] = ("crt", "columns")
    example = '"1-2", "1-1", "2-1"' if kind == "odds" else '"-2", "0", "+3"'
    given = _get(
        reader,
        data,
        parts,
        (list, dict),
        f"a list of column labels ({example}), or a table of such lists, one per value of a "
        "columns choice",
    )
    if isinstance(given, list):
        return (*_column_list(reader, parts, given, kind, example), ())
    if not 1 <= len(given) <= MOST_COLUMNS:
        raise reader.fail(
            parts, f"{len(given)} column sets; expected 1 to {MOST_COLUMNS}, one per value"
        )
    sets: list[tuple[str, tuple[str, ...], tuple[Fraction, ...]]] = []
    for name, labels in given.items():
        at = (*parts, name)
        if not _NAME.match(name):
            raise reader.fail(
                at, "not allowed as a name; expected lower-case letters, digits, - or _"
            )
        if not isinstance(labels, list):
            raise reader.fail(
                at, f"{_shown(labels)} is not allowed; expected a list of column labels ({example})"
            )
        found = _column_list(reader, at, labels, kind, example)
        if sets and len(found[0]) != len(sets[0][1]):
            raise reader.fail(
                at,
                f"{len(found[0])} columns, expected {len(sets[0][1])} (as {sets[0][0]}: the "
                "rows' cells are shared)",
            )
        sets.append((name, *found))
    return sets[0][1], sets[0][2], tuple(sets)


def _column_list(
    reader: _Reader, parts: tuple[str | int, ...], labels: list[Any], kind: str, example: str
) -> tuple[tuple[str, ...], tuple[Fraction, ...]]:
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


def _end(
    reader: _Reader, data: Mapping[str, Any], key: str, code_or: Any
) -> tuple[str | None, Beyond | None]:
    """What lies beyond one end: "end", a result code (an automatic result), or a table
    { drm, shift, caps }: the end column read with a DRM and/or a shift."""
    parts: tuple[str | int, ...] = ("crt", key)
    what = '"end", a result code or a table { drm = -1, shift = 0, caps = "inside" }'
    value = _get(reader, data, parts, (str, dict), what, "end")
    if isinstance(value, str):
        return code_or(key, "end"), None
    _unknown_keys(reader, value, {"drm", "shift", "caps"}, parts)
    amounts = {}
    for name, most in (("drm", 99), ("shift", MOST_COLUMNS)):
        amount = value.get(name, 0)
        if isinstance(amount, bool) or not isinstance(amount, int) or not -most <= amount <= most:
            raise reader.fail(
                (*parts, name),
                f"{_shown(amount)} is not allowed; expected a whole number from -{most} to {most}",
            )
        amounts[name] = amount
    caps = value.get("caps", "inside")
    if caps not in ("inside", "outside"):
        raise reader.fail(
            (*parts, "caps"), f"{_shown(caps)} is not allowed; expected inside or outside"
        )
    if not amounts["drm"] and not amounts["shift"]:
        raise reader.fail(
            parts, 'expected a DRM or a shift that is not 0 (or "end": the end column as it is)'
        )
    return None, Beyond(amounts["drm"], amounts["shift"], caps)


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
        if isinstance(cell, list) and code in chart.rerolls:
            raise reader.fail(
                where, f"{code} is a re-roll code; expected it alone in its cell (not in a list)"
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
        allowed_effects = "multiply, add, shift, drm or columns"
        effect = _get(reader, data, (*at, "effect"), str, allowed_effects)
        if effect not in EFFECTS:
            raise reader.fail(
                (*at, "effect"), f"{effect!r} is not allowed; expected {allowed_effects}"
            )
        if effect == "columns":
            found.append(_columns_modifier(reader, table, at, found, name, label, kind, help_text))
            continue
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
        per, rounding = _per(reader, data, table, at, kind, effect)
        on = _get(reader, data, (*at, "on"), str, "total or unit", "total")
        if on not in TARGETS:
            raise reader.fail((*at, "on"), f"{on!r} is not allowed; expected total or unit")
        if on == "unit" and effect not in ("multiply", "add"):
            raise reader.fail(
                (*at, "on"),
                f"'unit' is not allowed with effect {effect}; expected multiply or add "
                "(a unit's factor)",
            )
        if on == "unit" and kind == "number":
            raise reader.fail(
                (*at, "on"),
                "'unit' is not allowed with input number; expected tick or choice "
                "(a unit carries a mark)",
            )
        needs = _get(reader, data, (*at, "needs"), str, "the name of another modifier", None)
        found.append(
            Modifier(
                name,
                label,
                kind,
                effect,
                side,
                by,
                values,
                low,
                high,
                help_text,
                per=per,
                round=rounding,
                on=on,
                needs=needs,
            )
        )
    _marks_once(reader, found)
    _needs(reader, found)
    return tuple(found)


def _per(
    reader: _Reader,
    data: Mapping[str, Any],
    table: Mapping[str, Any],
    at: tuple[str | int, ...],
    kind: str,
    effect: str,
) -> tuple[int | None, str]:
    """A number's `per` (one step for every `per` units typed) and its `round`."""
    if "per" not in table:
        if "round" in table:
            raise reader.fail((*at, "round"), "read only with per; expected per = N beside it")
        return None, "down"
    if kind != "number":
        raise reader.fail((*at, "per"), 'only a number has per; expected input = "number"')
    if effect == "multiply":
        raise reader.fail(
            (*at, "per"),
            "not read by effect multiply (a multiplier of steps); expected add, shift or drm",
        )
    per = table["per"]
    if isinstance(per, bool) or not isinstance(per, int) or not 1 <= per <= 999:
        raise reader.fail(
            (*at, "per"), f"{_shown(per)} is not allowed; expected a whole number from 1 to 999"
        )
    rounding = _get(reader, data, (*at, "round"), str, "down, up or nearest", "down")
    if rounding not in ROUNDINGS:
        raise reader.fail(
            (*at, "round"), f"{rounding!r} is not allowed; expected down, up or nearest"
        )
    return per, rounding


def _marks_once(reader: _Reader, found: list[Modifier]) -> None:
    """Refuse a mark two unit modifiers of one side give (N@MARK names one modifier)."""
    seen: dict[tuple[str | None, str], int] = {}
    for i, mod in enumerate(found):
        for mark in mod.marks:
            if (mod.side, mark) in seen:
                where = ("modifiers", i) + (("name",) if mod.input == "tick" else ("values", mark))
                raise reader.fail(
                    where,
                    f"{mark!r} is already a mark of the {mod.side}'s units "
                    f"(modifiers[{seen[(mod.side, mark)]}]); expected each mark once a side",
                )
            seen[(mod.side, mark)] = i


def _needs(reader: _Reader, found: list[Modifier]) -> None:
    """Refuse a `needs` that names no other modifier of the chart, or goes round a loop."""
    names = [mod.name for mod in found]
    needs = {mod.name: mod.needs for mod in found}
    for i, mod in enumerate(found):
        if mod.needs is None:
            continue
        at = ("modifiers", i, "needs")
        if mod.needs == mod.name:
            raise reader.fail(at, f"{mod.needs!r} is this modifier; expected another modifier")
        if mod.needs not in needs:
            others = [n for n in names if n != mod.name]
            raise reader.fail(
                at,
                f"{mod.needs!r} is not a modifier of the chart; expected "
                + ("one of " + ", ".join(others) if others else "another modifier (there is none)"),
            )
        chain = [mod.name]
        step: str | None = mod.needs
        while step is not None:
            chain.append(step)
            if step == mod.name:
                raise reader.fail(
                    at, "a loop: " + " needs ".join(chain) + "; expected a modifier that needs none"
                )
            if chain.count(step) > 1:
                break  # a loop further on: named where it starts
            step = needs[step]


def _columns_modifier(
    reader: _Reader,
    table: Mapping[str, Any],
    at: tuple[str | int, ...],
    found: list[Modifier],
    name: str,
    label: str,
    kind: str,
    help_text: str,
) -> Modifier:
    """A choice of the columns read (terrain, time of day): its values are the keys of
    [crt].columns (filled in by _columns_choice), at most one per chart."""
    if kind != "choice":
        raise reader.fail(
            (*at, "input"), f"{kind!r} is not allowed with effect columns; expected choice"
        )
    for key in ("values", "by", "side", "low", "high", "per", "round", "on", "needs"):
        if key in table:
            raise reader.fail(
                (*at, key), "not read by effect columns; its values are the keys of [crt].columns"
            )
    for other in found:
        if other.effect == "columns":
            raise reader.fail(
                (*at, "effect"),
                f"a second columns modifier; expected at most one ({other.name})",
            )
    return Modifier(name=name, label=label, input="choice", effect="columns", help=help_text)


def _columns_choice(
    reader: _Reader, modifiers: tuple[Modifier, ...], column_sets: ColumnSets
) -> tuple[tuple[Modifier, ...], str | None]:
    """The columns choice given its values (the column sets' names, in order), and its
    name; a table of column sets with no columns choice, or a choice with a plain list of
    columns, refused naming both."""
    for i, mod in enumerate(modifiers):
        if mod.effect != "columns":
            continue
        if not column_sets:
            raise reader.fail(
                ("modifiers", i, "effect"),
                "'columns' needs [crt].columns as a table of column sets, one list per value "
                "(crt.columns is a list); expected such a table, or another effect",
            )
        values = tuple((name, Fraction(n)) for n, (name, _, _) in enumerate(column_sets))
        chosen = replace(mod, values=values)
        return (*modifiers[:i], chosen, *modifiers[i + 1 :]), mod.name
    if column_sets:
        raise reader.fail(
            ("crt", "columns"),
            'a table of column sets needs a [[modifiers]] table with effect = "columns" (a '
            "choice whose values are its keys); expected one, or a list of columns",
        )
    return modifiers, None


def load_chart(path: str | Path, shown: str | None = None) -> PlayerChart:
    """Read and check a chart file; `shown` is how messages name it (default: the path)."""
    path = Path(path)
    source = shown or str(path)
    try:
        raw = read_bounded(path, MOST_BYTES)
    except OSError as err:
        raise ChartError(f"{source}: cannot be read: {err.strerror or err}") from None
    except BoundError as err:
        raise ChartError(f"{source}: {err} (a chart file's limit, 256 KiB)") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ChartError(f"{source}: not UTF-8 text (byte {err.start})") from None
    return parse_chart(text, source, path.stem)
