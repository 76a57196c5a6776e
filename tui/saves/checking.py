"""Checking what was read (and what is about to be written): the header, each entry, the
options; every problem one line naming the line of the file."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from tui.engine import registry
from tui.engine.errors import nearest
from tui.saves.charts import check_charts
from tui.saves.decoding import _key_line, _line_of, _Parsed
from tui.saves.encoding import (
    _BARE_KEY,
    FORMAT_VERSION,
    MAX_ENTRY,
    _encode,
    entry_too_large,
    header_checksum,
)
from tui.saves.errors import SaveError

# Per-game options this desk reads, with the values each allows (None: any scalar).
KNOWN_OPTIONS: dict[str, tuple[object, ...] | None] = {"mines_cdf": (2, 3)}
DEFAULT_OPTIONS: dict[str, object] = {"mines_cdf": 2}
# The ruleset each known option is read by: shown only for a game that plays it.
OPTION_RULESETS: dict[str, str] = {"mines_cdf": "pod-ultra"}


def options_in_play(options: dict[str, object], rulesets: list[str]) -> dict[str, object]:
    """A game's options that mean something in it: an option of a ruleset the game does not
    play (the Ultra mines CDF in a Rivets game) is left out; an unknown one is kept."""
    return {
        key: value
        for key, value in options.items()
        if OPTION_RULESETS.get(key) is None or OPTION_RULESETS[key] in rulesets
    }


ENTRY_KINDS = (
    "combat",
    "event",
    "place-marker",
    "remove-marker",
    "turn",
    "option",
    "note",
    "unit",
    "units",
    "loss",
)


def _type_name(value: Any) -> str:
    return {
        str: "text",
        int: "a whole number",
        bool: "true/false",
        list: "an array",
        dict: "a table",
        float: "a number",
    }.get(type(value), type(value).__name__)


def _check_header(path: Path, data: bytes, header: dict[str, Any]) -> None:
    def fail(key: str, message: str) -> SaveError:
        return SaveError(f"{path}: line {_key_line(data, 0, key)}: {message}")

    if "log" in header:
        raise fail("log", "'log' must be written as [[log]] tables after the header")
    version = header.get("format")
    if type(version) is not int:
        raise fail(
            "format", f"'format' must be a whole number (this crtdesk writes {FORMAT_VERSION})"
        )
    if version > FORMAT_VERSION:
        raise fail(
            "format",
            f"format {version} was written by a newer crtdesk; this one reads up to format "
            f"{FORMAT_VERSION}: update crtdesk to open it",
        )
    if version < 1:
        raise fail("format", f"format {version} is not a crtdesk save format")
    for key in ("title", "created"):
        if not isinstance(header.get(key), str):
            got = "missing" if key not in header else _type_name(header[key])
            raise fail(key, f"'{key}' must be text, not {got}")
    rulesets = header.get("rulesets")
    if (
        not isinstance(rulesets, list)
        or not rulesets
        or not all(isinstance(r, str) for r in rulesets)
    ):
        raise fail("rulesets", "'rulesets' must be an array of ruleset ids such as [\"pod-super\"]")
    for ruleset in rulesets:
        if not registry.known(ruleset) and registry.chart_name(ruleset) is None:
            raise fail(
                "rulesets",
                f"unknown ruleset {ruleset!r}; expected one of {', '.join(registry.ids())}",
            )
    check_charts(path, header, _key_line(data, 0, "charts"))
    options = header.get("options", {})
    if not isinstance(options, dict):
        raise fail("options", f"'options' must be a table, not {_type_name(options)}")
    for key, value in options.items():
        problem = _option_problem(key, value)
        if problem:
            raise fail("options", problem)
    # Last: a header edited into something no save holds is named for what is wrong.
    broken = header_seal_problem(data)
    if broken:
        raise SaveError(f"{path}: line {broken[0]}: {broken[1]}")


_HEADER_END = re.compile(rb"(?:\A|\n)(# end of header(?: crc32 ([0-9a-f]{8}))?)[ \t\r]*(?:\n|\Z)")


def header_seal(data: bytes) -> tuple[int, int | None] | None:
    """Where a save's header end line starts in `data` (the file from its first byte) and
    the checksum it carries (None: a save written before headers had one); None when
    `data` holds no header end line."""
    end = _HEADER_END.search(data)
    if end is None:
        return None
    return end.start(1), int(end[2], 16) if end[2] else None


def header_seal_problem(data: bytes) -> tuple[int, str] | None:
    """(line, what is wrong) when the header's checksum does not hold: the header (a title,
    a kept chart) was changed by hand after it was written."""
    seal = header_seal(data)
    if seal is None or seal[1] is None:
        return None
    at, crc = seal
    if header_checksum(data[:at]) == crc:
        return None
    return (
        _line_of(data, at),
        f"the header was changed after it was written (its checksum crc32 {crc:08x} no "
        "longer holds): a kept chart or the game's settings edited by hand are not read; "
        "`crtdesk repair --restore-charts` copies each chart in play from its file in the "
        "games folder and seals the header again",
    )


_COMMON: dict[str, type] = {"seq": int, "kind": str, "turn": int, "when": str, "who": str}
_OPTIONAL: dict[str, type] = {"note": str, "target": str}
_COMBAT: dict[str, type] = {
    "ruleset": str,
    "inputs": dict,
    "dice": list,
    "effects": dict,
    "explanation": str,
    "trace": list,
}
_COMBAT_OPTIONAL: dict[str, type] = {
    "attack_total": int,
    "defense_total": float,  # a whole number, or a half (an OCS defender without supply)
    "odds": str,
    "column": str,
    "odds_column": str,
    "roll": str,
    "markers": list,
    "amends": int,  # the seq of an earlier combat this one reads again (a card after the roll)
}


# Numbers past 64 bits, nan and inf never get this far: the readers refuse them
# (decoding.value_problem), so a type is all there is left to check.
def _whole(value: Any) -> bool:
    return type(value) is int


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float)


def _die_problem(die: Any) -> str | None:
    """A die as the store writes it (`DiceRoll.to_dict`): what is wrong with it, or None."""
    if not isinstance(die, dict):
        return "each die must be a table with 'dice', 'values', 'total' and 'source'"
    for key in ("dice", "source"):
        if not isinstance(die.get(key), str):
            return f"a die's '{key}' must be text"
    if not _whole(die.get("total")):
        return "a die's 'total' must be a whole number"
    values = die.get("values", [])
    if not isinstance(values, list) or not all(_whole(v) for v in values):
        return "a die's 'values' must be an array of whole numbers"
    if "modifier" in die and not _whole(die["modifier"]):
        return "a die's 'modifier' must be a whole number"
    if "row" in die and not (isinstance(die["row"], str) or _whole(die["row"])):
        return "a die's 'row' must be text or a whole number"
    if "purpose" in die and not isinstance(die["purpose"], str):
        return "a die's 'purpose' must be text"
    return _seed_problem(die)


def _seed_problem(die: dict[str, Any]) -> str | None:
    """A die the desk rolled from a player's seed keeps it (`source = "seed"`, `seed = 3`);
    no other die has one. Older saves have no seeded dice, and load as they are."""
    seeded = die["source"] == "seed"
    if "seed" in die and not _whole(die["seed"]):
        return f"a die's 'seed' must be a whole number, not {die['seed']!r}"
    if seeded and "seed" not in die:
        return "a die rolled from a seed (source \"seed\") must keep its 'seed', a whole number"
    if "seed" in die and not seeded:
        return (
            f"a die with a 'seed' was rolled from it: its 'source' must be \"seed\", "
            f"not {die['source']!r}"
        )
    return None


def _dice_problem(dice: Any) -> str | None:
    if not isinstance(dice, list):
        return "'dice' must be an array of dice"
    for die in dice:
        problem = _die_problem(die)
        if problem:
            return problem
    return None


def _cell_problem(cell: Any) -> str | None:
    """A printed cell: text, an array of parts, or the attacker's and defender's lines."""
    if _scalar(cell) or (isinstance(cell, list) and all(_scalar(c) for c in cell)):
        return None
    if isinstance(cell, dict) and set(cell) == {"attacker", "defender"}:
        if all(isinstance(v, list) and all(_scalar(c) for c in v) for v in cell.values()):
            return None
    return "'cell' must be text, an array of text, or a table of 'attacker' and 'defender' lines"


def _effects_problem(effects: dict[str, Any]) -> tuple[str, str] | None:
    for side in ("attacker", "defender"):
        if not isinstance(effects.get(side, {}), dict):
            return f"'effects.{side}' must be a table", "effects"
    if not isinstance(effects.get("summary", ""), str):
        return "'effects.summary' must be text", "effects"
    for said in ("notes", "reminders"):
        notes = effects.get(said, [])
        if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
            return f"'effects.{said}' must be an array of text", "effects"
    markers = effects.get("markers", [])
    if not isinstance(markers, list) or not all(isinstance(m, dict) for m in markers):
        return "'effects.markers' must be an array of tables", "effects"
    return None


def _combat_shape_problem(entry: dict[str, Any]) -> tuple[str, str] | None:
    """What a combat's nested fields hold, as every reader of them expects."""
    problem = _dice_problem(entry["dice"])
    if problem:
        return problem, "dice"
    if "cell" in entry:
        problem = _cell_problem(entry["cell"])
        if problem:
            return problem, "cell"
    if not all(isinstance(step, str) for step in entry["trace"]):
        return "'trace' must be an array of text", "trace"
    for key in ("attack_total", "defense_total"):
        if key in entry and not _scalar(entry[key]):
            return f"'{key}' must be a finite number", key
    return _effects_problem(entry["effects"])


def _is(value: Any, kind: type) -> bool:
    if kind is float:
        return type(value) in (int, float)
    return type(value) is kind if kind in (int, bool) else isinstance(value, kind)


def _check_entry(entry: Any) -> tuple[str, str | None] | None:
    """The first problem in an entry as (message, key), or None.

    An entry that fits (the schema, and the few rules it cannot say) has none: checked so
    in one conversion. Any other is read field by field (`_first_problem`), for the message
    a load always gave it."""
    if type(entry) is dict and _fits(entry):
        return None
    return _first_problem(entry)


def _fits(entry: dict[str, Any]) -> bool:
    """Whether an entry has no problem `_first_problem` would find: it fits the schema
    (types, ranges, nesting: `schema.fits`), and what the schema does not say holds (the
    fields a kind must have, a known ruleset, a seeded die's seed, an option's value, a
    note's earlier entry: `_rules_hold`). False says only "look closer". The entry is as a
    reader gives it: no value is None (TOML has no null, and neither reader lets one
    through)."""
    if type(entry.get("when")) is not str:
        return False  # missing, or a TOML date-time: `_first_problem` says which
    if not (_schema_fits or _import_schema()[0])(entry):
        return False
    return _rules_hold(entry)


def _rules_hold(entry: dict[str, Any]) -> bool:
    """What the schema does not say, in an entry that fits it (`_fits`)."""
    kind = entry["kind"]
    if kind == "combat":
        if not _COMBAT.keys() <= entry.keys() or not registry.known(entry["ruleset"]):
            return False
        if "attack_total" in entry and type(entry["attack_total"]) is not int:
            return False
        cell = entry.get("cell")
        if type(cell) is dict and len(cell) != 2:  # the schema lets other keys through
            return False
        return _seeds_hold(entry["dice"])
    if kind == "event":
        if "event" not in entry or "text" not in entry:
            return False
        if "ruleset" in entry and not registry.known(entry["ruleset"]):
            return False
        return _seeds_hold(entry.get("dice", []))
    if kind == "place-marker":
        return "marker" in entry
    if kind == "remove-marker":
        return "marker_id" in entry
    if kind == "option":
        return (
            "key" in entry
            and "value" in entry
            and not _option_problem(entry["key"], entry["value"])
        )
    if kind == "note":
        return "text" in entry and entry.get("annotates", entry["seq"]) < entry["seq"]
    if kind == "unit":
        return entry.get("action") in ("add", "edit", "remove")
    return True


def _batch_fits(entries: list[Any], previous: int, combats: set[int]) -> int | None:
    """Whether `_entry_problem` finds nothing in any of some entries read one after the
    other, after entry `previous`, the combats before them numbered in `combats`: the number
    of the last (its combats added to `combats`), or None, which says only "look closer"
    (each entry in turn, with `_entry_problem`) and changes nothing. One conversion to the
    schema checks them all (`schema.all_fit`), where `_fits` makes one for each."""
    for entry in entries:
        if type(entry) is not dict or type(entry.get("when")) is not str:
            return None
    if not (_schema_all_fit or _import_schema()[1])(entries):
        return None
    added = []
    rulesets = set()
    for entry in entries:
        seq = entry["seq"]
        if seq <= previous:
            return None
        previous = seq
        if entry["kind"] != "combat":
            if not _rules_hold(entry):
                return None
            continue
        # `_rules_hold` of a combat, its calls folded in (the rulesets checked once a batch).
        if not _COMBAT_KEYS <= entry.keys():
            return None
        if "attack_total" in entry and type(entry["attack_total"]) is not int:
            return None
        if "cell" in entry and type(entry["cell"]) is dict and len(entry["cell"]) != 2:
            return None  # the schema lets other keys through
        for die in entry["dice"]:
            if ("seed" in die) != (die["source"] == "seed"):
                return None
        if "amends" in entry and entry["amends"] not in combats and entry["amends"] not in added:
            return None
        rulesets.add(entry["ruleset"])
        added.append(seq)
    if not all(map(registry.known, rulesets)):
        return None
    combats.update(added)
    return previous


_COMBAT_KEYS = frozenset(_COMBAT)


# `schema.fits` and `schema.all_fit`, once imported: an import in the function itself, at
# every entry, cost more than the rest of the function (the module has no `__path__`, and
# each `from ... import` looked for one).
_schema_fits: Callable[[dict[str, Any]], bool] | None = None
_schema_all_fit: Callable[[list[dict[str, Any]]], bool] | None = None


def _import_schema() -> tuple[
    Callable[[dict[str, Any]], bool], Callable[[list[dict[str, Any]]], bool]
]:
    global _schema_fits, _schema_all_fit
    # Imported at the first entry checked: the desk draws its first frame (the start
    # screen, a combat screen) before any entry is read, without the schema.
    from tui.saves.schema import all_fit, fits

    _schema_fits, _schema_all_fit = fits, all_fit
    return fits, all_fit


def _seeds_hold(dice: list[dict[str, Any]]) -> bool:
    """A die keeps a seed exactly when it was rolled from one (`_seed_problem`). A loop,
    not `all` of a generator: an entry's one or two dice cost less so."""
    for die in dice:
        if ("seed" in die) != (die["source"] == "seed"):
            return False
    return True


def _first_problem(entry: Any) -> tuple[str, str | None] | None:
    """The first problem in an entry as (message, key), or None: each field in turn."""
    if not isinstance(entry, dict):
        return "an entry must be a table", None
    if isinstance(entry.get("when"), datetime):
        entry["when"] = entry["when"].isoformat()
    for key, kind in _COMMON.items():
        if key not in entry:
            return f"'{key}' is missing", None
        if not _is(entry[key], kind):
            return f"'{key}' must be {_type_name(kind())}, not {entry[key]!r}", key
    if entry["kind"] not in ENTRY_KINDS:
        return (
            f"unknown entry kind {entry['kind']!r}; expected one of {', '.join(ENTRY_KINDS)}",
            "kind",
        )
    if entry["turn"] < 1:
        return f"'turn' must be 1 or more, not {entry['turn']}", "turn"
    for key, kind in _OPTIONAL.items():
        if key in entry and not _is(entry[key], kind):
            return f"'{key}' must be {_type_name(kind())}, not {entry[key]!r}", key
    kind = entry["kind"]
    if kind == "combat":
        for key, typ in _COMBAT.items():
            if key not in entry:
                return f"'{key}' is missing from a combat", None
            if not _is(entry[key], typ):
                return f"'{key}' must be {_type_name(typ())}, not {entry[key]!r}", key
        if not registry.known(entry["ruleset"]):
            return (
                f"unknown ruleset {entry['ruleset']!r}; expected one of {', '.join(registry.ids())}",
                "ruleset",
            )
        for key, typ in _COMBAT_OPTIONAL.items():
            if key in entry and not _is(entry[key], typ):
                return f"'{key}' must be {_type_name(typ())}, not {entry[key]!r}", key
        for marker in entry.get("markers", []):
            problem = _marker_problem(marker)
            if problem:
                return problem, "markers"
        shape = _combat_shape_problem(entry)
        if shape:
            return shape
    elif kind == "event":
        if not isinstance(entry.get("event"), str) or not isinstance(entry.get("text"), str):
            return "an event entry needs 'event' and 'text' (text)", "event"
        if "ruleset" in entry and not registry.known(entry["ruleset"]):
            return f"unknown ruleset {entry['ruleset']!r}", "ruleset"
        problem = _dice_problem(entry.get("dice", []))
        if problem:
            return problem, "dice"
    elif kind == "place-marker":
        problem = _marker_problem(entry.get("marker"))
        if problem:
            return problem, "marker"
    elif kind == "remove-marker":
        if not isinstance(entry.get("marker_id"), str):
            return "'marker_id' must be text naming the marker removed", "marker_id"
    elif kind == "option":
        if not isinstance(entry.get("key"), str) or "value" not in entry:
            return "an option entry needs 'key' (text) and 'value'", "key"
        problem = _option_problem(entry["key"], entry["value"])
        if problem:
            return problem, "value"
    elif kind == "note":
        note_problem = _note_problem(entry)
        if note_problem:
            return note_problem
    elif kind == "unit" and entry.get("action") not in ("add", "edit", "remove"):
        return "a unit entry's 'action' must be add, edit or remove", "action"
    elif kind == "turn":
        for key in ("expired", "counted_down"):
            ids = entry.get(key, [])
            if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
                return f"'{key}' must be an array of marker ids", key
    # Every field a reader touches, on every kind (a note's `dice`, a unit in `inputs`).
    # Imported at the first entry checked: the desk draws its first frame (the start
    # screen, a combat screen) before any entry is read, without the schema.
    from tui.saves.schema import schema_problem

    return schema_problem(entry)


def _note_problem(entry: dict[str, Any]) -> tuple[str, str] | None:
    """A note names an earlier entry (`annotates`) and says something about it (`text`)."""
    target = entry.get("annotates")
    if type(target) is not int or not 1 <= target < entry["seq"]:
        return f"'annotates' must be the number of an earlier entry, not {target!r}", "annotates"
    if not isinstance(entry.get("text"), str):
        return "a note needs 'text' (text)", "text"
    return None


def _marker_problem(marker: Any) -> str | None:
    if not isinstance(marker, dict):
        return "a marker must be a table with id, kind and target"
    for key in ("id", "kind", "target"):
        if not isinstance(marker.get(key), str) or not marker[key]:
            return f"a marker's '{key}' must be text"
    for key in ("side", "note"):
        if key in marker and not isinstance(marker[key], str):
            return f"a marker's '{key}' must be text"
    turns = marker.get("turns")
    if turns is not None and (type(turns) is not int or turns < 1):
        return f"a marker's 'turns' must be a whole number of 1 or more, not {turns!r}"
    return None


def _entry_problem(entry: Any, previous: int, combats: set[int]) -> tuple[str, str | None] | None:
    """The first problem in an entry read after entry `previous`, the combats before it
    numbered in `combats`, as (message, key); or None."""
    problem = _check_entry(entry)
    if problem is None and entry["seq"] <= previous:
        problem = f"entry number {entry['seq']} does not follow entry {previous}", "seq"
    if problem is None and entry["kind"] == "combat" and "amends" in entry:
        if entry["amends"] not in combats:
            problem = f"'amends' names entry {entry['amends']}, not an earlier combat", "amends"
    return problem


def _check(path: Path, data: bytes, parsed: _Parsed) -> None:
    _check_header(path, data, parsed.header)
    previous = 0
    combats: set[int] = set()
    ends = [*parsed.offsets[1:], len(data)] if parsed.offsets else []
    for entry, offset, end in zip(parsed.entries, parsed.offsets, ends, strict=True):
        problem = _entry_problem(entry, previous, combats)
        if not problem and end - offset > MAX_ENTRY + len(b"[[log]]\n\n"):
            # None is written so large: a hand edit, or a save from before the bound.
            problem = (entry_too_large(end - offset), None)
        if problem:
            message, key = problem
            number = entry.get("seq") if isinstance(entry, dict) else None
            where = f"entry {number}" if isinstance(number, int) else "an entry"
            line = _key_line(data, offset, key)
            raise SaveError(f"{path}: line {line}: {where}: {message}")
        previous = entry["seq"]
        if entry["kind"] == "combat":
            combats.add(previous)


def _option_problem(key: Any, value: Any, known_only: bool = False) -> str | None:
    """What is wrong with an option, or None. A save may hold options this desk does not
    know (it keeps them); setting one is refused (`known_only`), naming the known ones."""
    if not isinstance(key, str) or not _BARE_KEY.match(key):
        return f"option name {key!r} must be letters, digits, '_' or '-'"
    if known_only and key not in KNOWN_OPTIONS:
        known = ", ".join(
            f"{name} ({_allowed_text(allowed)})" for name, allowed in KNOWN_OPTIONS.items()
        )

        near = nearest(key, KNOWN_OPTIONS)
        hint = f"; did you mean {near}?" if near else ""
        return f"unknown option {key!r}; known options: {known}{hint}"
    if not isinstance(value, str | int | float | bool):
        return f"option {key} must be text, a number or true/false, not {_type_name(value)}"
    allowed = KNOWN_OPTIONS.get(key)
    if allowed is not None and (value not in allowed or type(value) is bool):
        return f"option {key} must be one of {', '.join(map(str, allowed))}, not {value!r}"
    return None


def _allowed_text(allowed: tuple[object, ...] | None) -> str:
    if allowed is None:
        return "any value"
    shown = [str(value) for value in allowed]
    return " or ".join(shown) if len(shown) < 3 else ", ".join(shown[:-1]) + " or " + shown[-1]


def _check_text(what: str, text: Any, allow_empty: bool = True) -> None:
    if not isinstance(text, str):
        raise SaveError(f"{what} must be text, not {_type_name(text)}")
    # Measured before anything copies it: a 50 MB note is refused, not encoded.
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_ENTRY:
        raise SaveError(
            f"{what} is {size:,} bytes; an entry of a save holds at most {MAX_ENTRY:,} bytes "
            f"({MAX_ENTRY // 1024} KiB)"
        )
    if not allow_empty and not text.strip():
        raise SaveError(f"{what} may not be empty")
    _encode(text)


def _check_ruleset_in_play(header: dict[str, Any], ruleset: str) -> None:
    if ruleset not in header["rulesets"]:
        raise SaveError(
            f"ruleset {ruleset} is not in play in this game ({', '.join(header['rulesets'])}); "
            "start a game with it to log its combats"
        )
