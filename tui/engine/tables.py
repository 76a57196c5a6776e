"""Load and validate tables.toml into frozen, read-only structures.

The file is data only; this module checks its shape (every key the engine reads, column
counts, cell shapes, and that every result code has a legend entry) and reports a broken
file as one line naming the key path and the problem.

Why some 550 lines in one module: the checks and the frozen structures they build are one
pass over the file, and the checked file kept for the next start is read back through the
same builder; split, each half would need the other's private helpers.
"""

from __future__ import annotations

import json
import os
import re
import zlib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, NoReturn, TypeVar, overload

from tui.engine.bounds import BoundError, loads_bounded, read_bounded
from tui.engine.kept import cache_folder, read_own, write
from tui.engine.records import Record

# The built-in rulesets, each a section tables.toml must hold (the registry, tui.engine.registry,
# declares each as a Ruleset; a test holds the two to the same ids).
SECTIONS: tuple[str, ...] = (
    "pod-basic",
    "pod-super",
    "pod-ultra",
    "pod-boom",
    "ocs",
    "rivets",
    "daynight",
)
OCS_TERRAINS: tuple[str, ...] = ("Open", "Close", "Very Close", "Extremely Close")
DAYNIGHT_TERRAINS: tuple[str, ...] = ("Forest", "Woods", "Rough", "Clear")
SUPPORTED_FORMAT = 1
# The most the tables file may hold (it holds about 35 KB), and its kept copy (the file's
# text and what it parses to, as JSON): sizes known before a byte of either is read.
MOST_TABLES_BYTES = 4 * 1024 * 1024
_MOST_KEPT_BYTES = 4 * MOST_TABLES_BYTES


class TablesError(Exception):
    """tables.toml is missing or broken; the message is one line naming the key path."""


class Chart(Record, frozen=True):
    """One printed chart: its column labels and its rows (row key as printed -> cells)."""

    key: str
    columns: tuple[str, ...]
    rows: Mapping[str, tuple[Any, ...]]

    def cell(self, row: str, column: str) -> Any:
        return self.rows[row][self.columns.index(column)]


class TerrainChart(Record, frozen=True):
    """A chart whose odds columns depend on a terrain row (OCS, Day/Night)."""

    key: str
    columns_by_terrain: Mapping[str, tuple[str, ...]]
    rows: Mapping[str, tuple[str, ...]]

    def cell(self, row: str, terrain: str, column: str) -> str:
        return self.rows[row][self.columns_by_terrain[terrain].index(column)]


class LegendEntry(Record, frozen=True):
    code: str
    means: str
    seed: str


class Tables(Record, frozen=True):
    """Everything in tables.toml, validated. `data` is the whole file, read-only."""

    path: str
    data: Mapping[str, Any]
    charts: Mapping[str, Chart | TerrainChart]
    legends: Mapping[str, tuple[LegendEntry, ...]]

    def section(self, key: str) -> Mapping[str, Any]:
        node: Any = self.data
        for part in key.split("."):
            node = node[part]
        if not isinstance(node, Mapping):
            raise TablesError(f"{key}: expected a table, found {node!r}")
        return node

    def title(self, ruleset: str) -> str:
        title = self.data[ruleset]["title"]
        if not isinstance(title, str):  # `validate` checked it: never so
            raise TablesError(f"{ruleset}.title: expected a string, found {title!r}")
        return title

    def losses_in(self, ruleset: str) -> str:
        """What a ruleset's results count a side's losses in: "steps" or "factors" (the
        default, and a player's chart's)."""
        return str(self.data.get(ruleset, {}).get("losses", "factors"))

    def chart(self, key: str) -> Chart:
        chart = self.charts[key]
        assert isinstance(chart, Chart)
        return chart

    def terrain_chart(self, key: str) -> TerrainChart:
        chart = self.charts[key]
        assert isinstance(chart, TerrainChart)
        return chart


def _freeze(value: Any) -> Any:
    """Read-only copies of a table's dicts and lists (a leaf is not called for: there are
    about two thousand of them, and this runs at every start)."""
    if isinstance(value, dict):
        return MappingProxyType(
            {k: _freeze(v) if isinstance(v, (dict, list)) else v for k, v in value.items()}
        )
    if isinstance(value, list):
        return tuple([_freeze(v) if isinstance(v, (dict, list)) else v for v in value])
    return value


def _path(parts: tuple[str | int, ...]) -> str:
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z0-9_-]+", part) and not part.isdigit():
            text += f".{part}" if text else part
        else:
            text += f'."{part}"' if text else f'"{part}"'
    return text


_T = TypeVar("_T")


class _Checker:
    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def fail(self, parts: tuple[str | int, ...], problem: str) -> NoReturn:
        raise TablesError(f"{_path(parts)}: {problem}")

    @overload
    def get(self, parts: tuple[str | int, ...], kind: type[_T]) -> _T: ...
    @overload
    def get(self, parts: tuple[str | int, ...], kind: tuple[type, ...]) -> Any: ...
    def get(self, parts: tuple[str | int, ...], kind: type | tuple[type, ...]) -> Any:
        """The value at `parts`, checked to be of `kind` (a bool is not an int)."""
        node: Any = self.data
        for i, part in enumerate(parts):
            if isinstance(part, int):
                node = node[part]
                continue
            if not isinstance(node, dict) or part not in node:
                self.fail(parts[: i + 1], "missing")
            node = node[part]
        if not isinstance(node, kind) or (kind is int and isinstance(node, bool)):
            names = (
                kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            )
            self.fail(parts, f"expected {_kind_name(names)}, found {type(node).__name__} {node!r}")
        return node

    def labels(self, parts: tuple[str | int, ...], count: int | None = None) -> list[str]:
        labels = self.get(parts, list)
        if count is not None and len(labels) != count:
            self.fail(parts, f"expected {count} column labels, found {len(labels)}")
        for i, label in enumerate(labels):
            if not isinstance(label, str) or not label:
                self.fail((*parts, i), f"expected a column label, found {label!r}")
        if len(set(labels)) != len(labels):
            self.fail(parts, "column labels repeat")
        return labels

    def rows(
        self,
        parts: tuple[str | int, ...],
        width: int,
        row_keys: list[str] | None,
        cell_shape: str,
    ) -> dict[str, list[Any]]:
        rows = self.get(parts, dict)
        if row_keys is not None and list(rows) != row_keys:
            self.fail(parts, f"expected rows {', '.join(row_keys)}, found {', '.join(rows)}")
        for key, cells in rows.items():
            if not isinstance(cells, list):
                self.fail((*parts, key), f"expected a list of cells, found {cells!r}")
            if len(cells) != width:
                self.fail((*parts, key), f"expected {width} cells, found {len(cells)}")
            for i, cell in enumerate(cells):
                if not _cell_ok(cell, cell_shape):
                    self.fail(
                        (*parts, key, i), f"expected a {_SHAPE_NAMES[cell_shape]}, found {cell!r}"
                    )
        return rows


def _kind_name(name: str) -> str:
    return {"str": "a string", "int": "a whole number", "dict": "a table", "list": "an array"}.get(
        name, name
    )


_SHAPE_NAMES = {
    "str": "cell string",
    "pair": "pair of cell strings",
    "sides": "table with attacker and defender pairs",
}


def _cell_ok(cell: Any, shape: str) -> bool:
    def pair(value: Any) -> bool:
        return (
            isinstance(value, list)
            and len(value) == 2
            and all(isinstance(v, str) and v for v in value)
        )

    if shape == "str":
        return isinstance(cell, str) and bool(cell)
    if shape == "pair":
        return pair(cell)
    return (
        isinstance(cell, dict)
        and set(cell) == {"attacker", "defender"}
        and all(pair(v) for v in cell.values())
    )


def cell_strings(cell: Any) -> list[str]:
    """The printed strings in a cell, whatever its shape."""
    if isinstance(cell, str):
        return [cell]
    if isinstance(cell, Mapping):
        return [s for side in ("attacker", "defender") for s in cell[side]]
    return list(cell)


def tokenize(text: str, pattern: str) -> list[str] | None:
    """Split a printed cell into result codes; None when something in it is not a code."""
    tokens: list[str] = []
    pos = 0
    compiled = re.compile(r"\s*(" + pattern + r")")
    while pos < len(text):
        match = compiled.match(text, pos)
        if match is None or match.end() == pos:
            return None
        tokens.append(match.group(1))
        pos = match.end()
    return tokens


def legend_key(code: str, legend: Mapping[str, Any]) -> str | None:
    """The legend entry for a code: as written, else with its digits read as #."""
    if code in legend:
        return code
    generic = re.sub(r"\d+", "#", code)
    return generic if generic in legend else None


_CHART_SPECS: tuple[tuple[str, str, str, int | None, list[str] | None, str], ...] = (
    # (chart key, legend ruleset, token pattern key, columns, row keys, cell shape)
    ("pod-basic.crt", "pod-basic", "pod-basic.crt", 7, [str(n) for n in range(1, 7)], "pair"),
    ("pod-super.crt", "pod-super", "pod-super.crt", 8, [str(n) for n in range(2, 13)], "sides"),
    (
        "pod-boom.attrition",
        "pod-boom",
        "pod-boom.attrition",
        4,
        [str(n) for n in range(1, 7)],
        "str",
    ),
    ("pod-boom.crt", "pod-boom", "pod-boom.crt", 9, [str(n) for n in range(1, 7)], "pair"),
    ("rivets.crt", "rivets", "rivets.crt", 10, [str(n) for n in range(1, 7)], "str"),
)
_TERRAIN_SPECS: tuple[tuple[str, str, str, tuple[str, ...], int, list[str]], ...] = (
    (
        "ocs.crt",
        "ocs",
        "ocs.crt",
        OCS_TERRAINS,
        13,
        ["<=1", *(str(n) for n in range(2, 15)), ">=15"],
    ),
    ("daynight.day", "daynight", "daynight.crt", DAYNIGHT_TERRAINS, 10, [str(n) for n in range(8)]),
    (
        "daynight.night",
        "daynight",
        "daynight.crt",
        DAYNIGHT_TERRAINS,
        10,
        [str(n) for n in range(8)],
    ),
)

# Constants the engine reads: key path -> expected type.
_CONSTANTS: dict[str, type] = {
    "pod-basic.automatic_defeat_from": int,
    "pod-basic.automatic_victory_from": int,
    "pod-basic.av_advance": int,
    "pod-basic.dl_advance": int,
    "pod-super.automatic_defeat_from": int,
    "pod-super.automatic_victory_from": int,
    "pod-ultra.automatic_defeat_from": int,
    "pod-ultra.automatic_victory_from": int,
    "pod-ultra.obstacle_av_column": str,
    "pod-basic.after_roll_cards": list,
    "pod-super.after_roll_cards": list,
    "pod-ultra.after_roll_cards": list,
    "pod-ultra.obstacles.beach": int,
    "pod-ultra.obstacles.glider": int,
    "pod-ultra.obstacles.mines": int,
    "pod-ultra.obstacle_options.mines": list,
    "pod.card_shifts.ace": int,
    "pod.card_shifts.king": int,
    "pod.card_shifts.queen": int,
    "pod.card_shifts.jack": int,
    "pod.card_shifts.joker": int,
    "pod.card_shifts.stanfill": int,
    "pod.shifts.buddy": int,
    "pod.shifts.medal": int,
    "pod.terrain": dict,
    "pod-boom.long_range_aa_bonus": int,
    "pod-boom.accuracy_effect": dict,
    "ocs.row_min": int,
    "ocs.row_max": int,
    "ocs.hedgehog_surprise_bonus": int,
    "ocs.action_rating_max": int,
    "ocs.hedgehog_max": int,
    "ocs.surprise.overrun.attacker_from": int,
    "ocs.surprise.overrun.defender_to": int,
    "ocs.surprise.regular.attacker_from": int,
    "ocs.surprise.regular.defender_to": int,
    "ocs.supply.attacker_per_step": int,
    "ocs.supply.dak_brigade": int,
    "ocs.supply.defender_per_combat": int,
    "ocs.supply.defender_small": int,
    "rivets.overrun_from": int,
    "daynight.die_sides": int,
    "daynight.row_min": int,
    "daynight.row_max": int,
    "daynight.drm_max": int,
    "limits.factor_max": int,
}
# Limits the engine checks inputs against: each must be at least 1 (0 would refuse every
# combat).
LOSS_UNITS = ("factors", "steps")
_LIMITS = ("limits.factor_max", "ocs.action_rating_max", "ocs.hedgehog_max", "daynight.drm_max")


def validate(data: dict[str, Any], path: str = "tables.toml") -> Tables:
    """Check the shape of a parsed tables.toml and freeze it; raise TablesError if broken."""
    check = _Checker(data)
    fmt = check.get(("format",), int)
    if fmt != SUPPORTED_FORMAT:
        check.fail(
            ("format",), f"format {fmt} is not supported (this desk reads {SUPPORTED_FORMAT})"
        )
    for ruleset in SECTIONS:
        for field in ("title", "seed", "dice"):
            check.get((ruleset, field), str)
        if "losses" in data.get(ruleset, {}) and data[ruleset]["losses"] not in LOSS_UNITS:
            check.fail((ruleset, "losses"), f"expected one of {', '.join(LOSS_UNITS)}")
        for i, _ in enumerate(check.get((ruleset, "rulings"), list)):
            check.get((ruleset, "rulings", i), str)
    for key, kind in _CONSTANTS.items():
        check.get(tuple(key.split(".")), kind)
    for key in _LIMITS:
        if check.get(tuple(key.split(".")), int) < 1:
            check.fail(tuple(key.split(".")), "expected a whole number >= 1")
    for terrain, value in check.get(("pod", "terrain"), dict).items():
        check.get(("pod", "terrain", terrain), int)
        del value
    for roll in map(str, range(1, 7)):
        effect = check.get(("pod-boom", "accuracy_effect", roll), str)
        if effect not in ("all", "miss", "half"):
            check.fail(
                ("pod-boom", "accuracy_effect", roll),
                f"expected all, miss or half, found {effect!r}",
            )
        check.get(("pod-boom", "accuracy", roll), str)
        check.get(("pod-boom", "direction", roll), str)

    legends: dict[str, dict[str, LegendEntry]] = {}
    for ruleset in SECTIONS:
        if ruleset == "pod-ultra":
            continue
        entries = check.get((ruleset, "legend"), list)
        legend: dict[str, LegendEntry] = {}
        for i, entry in enumerate(entries):
            for field in ("code", "means", "seed"):
                check.get((ruleset, "legend", i, field), str)
            legend[entry["code"]] = LegendEntry(entry["code"], entry["means"], entry["seed"])
        legends[ruleset] = legend
    legends["pod-ultra"] = legends[check.get(("pod-ultra", "same_chart_as"), str)]

    for key, ruleset, token_key, width, row_keys, shape in _CHART_SPECS:
        parts = tuple(key.split("."))
        columns = check.labels((*parts, "columns"), width)
        rows = check.rows((*parts, "rows"), len(columns), row_keys, shape)
        _check_codes(check, parts, rows, token_key, legends[ruleset])
    for key, ruleset, token_key, terrains, width, row_keys in _TERRAIN_SPECS:
        parts = tuple(key.split("."))
        by_terrain = check.get((*parts, "columns_by_terrain"), dict)
        if list(by_terrain) != list(terrains):
            check.fail(
                (*parts, "columns_by_terrain"),
                f"expected terrain rows {', '.join(terrains)}, found {', '.join(by_terrain)}",
            )
        for terrain in terrains:
            check.labels((*parts, "columns_by_terrain", terrain), width)
        rows = check.rows((*parts, "rows"), width, row_keys, "str")
        _check_codes(check, parts, rows, token_key, legends[ruleset])
    for key in ("pod-boom.accuracy", "pod-boom.direction"):
        parts = tuple(key.split("."))
        got = list(check.get(parts, dict))
        if got != [str(n) for n in range(1, 7)]:
            check.fail(parts, f"expected rows 1..6, found {', '.join(got)}")
    av_col = data["pod-ultra"]["obstacle_av_column"]
    if av_col not in _node(data, "pod-super.crt")["columns"]:
        check.fail(
            ("pod-ultra", "obstacle_av_column"), f"{av_col!r} is not a column of pod-super.crt"
        )
    return _build(data, path)


def _build(data: dict[str, Any], path: str) -> Tables:
    """The frozen tables of a tables.toml `validate` has checked (or a cached copy of one)."""
    legends: dict[str, tuple[LegendEntry, ...]] = {}
    for ruleset in SECTIONS:
        if ruleset != "pod-ultra":
            entries = {
                e["code"]: LegendEntry(e["code"], e["means"], e["seed"])
                for e in data[ruleset]["legend"]
            }
            legends[ruleset] = tuple(entries.values())
    legends["pod-ultra"] = legends[data["pod-ultra"]["same_chart_as"]]
    frozen = _freeze(data)
    charts: dict[str, Chart | TerrainChart] = {}
    for key, *_ in _CHART_SPECS:
        node = _node(frozen, key)
        charts[key] = Chart(key, node["columns"], node["rows"])
    for key, *_ in _TERRAIN_SPECS:
        node = _node(frozen, key)
        charts[key] = TerrainChart(key, node["columns_by_terrain"], node["rows"])
    return Tables(
        path=path,
        data=frozen,
        charts=MappingProxyType(charts),
        legends=MappingProxyType(legends),
    )


def _node(data: Mapping[str, Any], key: str) -> Any:
    for part in key.split("."):
        data = data[part]
    return data


def _check_codes(
    check: _Checker,
    parts: tuple[str, ...],
    rows: dict[str, list[Any]],
    token_key: str,
    legend: dict[str, LegendEntry],
) -> None:
    pattern = check.get((*token_key.split("."), "tokens"), str)
    try:
        re.compile(pattern)
    except re.error as err:
        check.fail((*token_key.split("."), "tokens"), f"not a valid pattern: {err}")
    for key, cells in rows.items():
        for i, cell in enumerate(cells):
            for text in cell_strings(cell):
                codes = tokenize(text, pattern)
                if codes is None:
                    check.fail((*parts, "rows", key, i), f"{text!r} is not made of result codes")
                for code in codes:
                    if legend_key(code, legend) is None:
                        check.fail((*parts, "rows", key, i), f"code {code!r} has no legend entry")


def default_path() -> Path:
    """tables.toml: $CRTDESK_TABLES, else inside the installed package, else the repo root."""
    override = os.environ.get("CRTDESK_TABLES")
    if override:
        return Path(override)
    here = Path(__file__).resolve().parent.parent
    packaged = here / "tables.toml"
    return packaged if packaged.exists() else here.parent / "tables.toml"


def load_tables(path: str | os.PathLike[str] | None = None) -> Tables:
    """Read and validate tables.toml; raise TablesError with a one-line message if broken.

    A file that passed is kept parsed in the cache folder (`tui.engine.kept`), with its bytes and
    named by checksums of them and of these checks: the same bytes are then read back
    without parsing or checking them again (the parse and the checks took about 15 ms of
    the desk's start)."""
    target = Path(path) if path is not None else default_path()
    try:
        raw = read_bounded(target, MOST_TABLES_BYTES)
    except OSError as err:
        raise TablesError(f"{target}: cannot read the tables file ({err.strerror})") from None
    except BoundError as err:
        raise TablesError(f"{target}: {err} (the tables file's limit, 4 MiB)") from None
    kept = _cache_file(raw)
    cached = _read_cache(kept, raw, str(target))
    if cached is not None:
        return cached
    # Imported to parse the file, which its kept copy spares: a start that finds the copy
    # (`crtdesk resolve`, the desk) loads no TOML parser.
    import tomllib

    try:
        data = loads_bounded(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise TablesError(f"{target}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as err:
        raise TablesError(f"{target}: not valid TOML: {err}") from None
    except BoundError as err:
        raise TablesError(f"{target}: {err}") from None
    try:
        tables = validate(data, str(target))
    except TablesError as err:
        raise TablesError(f"{target}: {err}") from None
    _write_cache(kept, raw, data)
    return tables


def _cache_file(raw: bytes) -> Path | None:
    """The kept copy's name: checksums of the file and of the checks it passed (this
    module). The copy holds the file's text too, compared in full when it is read (a
    checksum names it; it does not vouch for it)."""
    folder = cache_folder()
    if folder is None:
        return None
    try:
        checks = zlib.crc32(Path(__file__).read_bytes())
    except OSError:
        return None
    return folder / f"tables-{zlib.crc32(raw):08x}-{checks:08x}.json"


def _read_cache(kept: Path | None, raw: bytes, path: str) -> Tables | None:
    """The tables kept for exactly these bytes, or None (none kept, or not as kept)."""
    if kept is None:
        return None
    bytes_kept = read_own(kept, _MOST_KEPT_BYTES)
    if bytes_kept is None:
        return None
    try:
        kept_text, data = json.loads(bytes_kept)
        if not isinstance(kept_text, str) or kept_text.encode() != raw:
            return None
        if not isinstance(data, dict):
            return None
        return _build(data, path)
    except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError):
        return None  # not there, or damaged: the file is read and checked as if new


def _write_cache(kept: Path | None, raw: bytes, data: dict[str, Any]) -> None:
    """Keep `data` (checked) for the next start; silently not, where it cannot be written.
    Files kept for other bytes (an older tables.toml) are removed."""
    if kept is None:
        return
    try:
        # Only what TOML parses to and JSON keeps as it was: no dates, say.
        kept_bytes = json.dumps([raw.decode(), data], separators=(",", ":")).encode()
    except (TypeError, ValueError, UnicodeDecodeError):
        return
    write(kept, kept_bytes, "tables-*.json")


@cache
def default_tables() -> Tables:
    """The desk's tables, loaded once per process."""
    return load_tables()
