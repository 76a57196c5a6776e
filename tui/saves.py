"""The save-file store: one TOML file per game, an append-only log, markers replayed from it.

A save is a short header (format, title, rulesets, created, options) followed by one
`[[log]]` entry per change: a combat, a marker placed or removed, a turn advanced, an
option set. Nothing already written is ever rewritten. Each entry is appended in one
write under an exclusive `flock` on `NAME.toml.lock` and ends with the line
`# end of entry N crc32 XXXXXXXX`, so a write cut short (a killed process, a full disk)
is recognised by its missing end line, copied aside as `NAME.toml.bak-<UTC time>` and
cut off. The marker state and the current turn are the replay of the entries.

Reading stays fast for long campaigns: an entry whose checksum matches was written by this
module, in a form whose values are JSON once the `key = ` separators are rewritten, so all
such entries are read by one `json.loads`; any other entry (edited by hand) goes through
`tomllib`. An append reads only the header and the last entry, so it costs the same on a
10,000-entry save as on a new one.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import errno
import fcntl
import gc
import getpass
import json
import math
import os
import re
import tomllib
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tui.engine.combat import CombatInput, Outcome
from tui.engine.dice import DiceRoll
from tui.engine.tables import RULESET_IDS

FORMAT_VERSION = 1
SAVES_ENV = "CRTDESK_SAVES"
UNSPECIFIED_TARGET = "(unspecified)"

# Files are shared by the players of one group: owner and group read and write.
FILE_MODE = 0o660

# Marker kinds, canonical spelling -> what the marker is, as the log shows it.
MARKER_KINDS: dict[str, str] = {
    "no-entry": "No-entry (Big Boom interdiction)",
    "obstacle": "Ultra obstacle",
    "low": "OCS Low (internal stocks)",
    "exhausted": "OCS Exhausted (internal stocks)",
    "DG": "OCS disorganized (DG)",
    "exploitation": "OCS exploitation",
    "engaged": "Day/Night engaged",
    "disorganized": "Day/Night disorganized",
    "hero-site": "Pair-o-Dice Hero Site",
    "buddy-card": "Pair-o-Dice Hero Buddy card",
}
_KIND_ALIASES = {k.lower(): k for k in MARKER_KINDS} | {
    "noentry": "no-entry",
    "interdiction": "no-entry",
    "disorganised": "disorganized",
    "exploit": "exploitation",
    "hero": "hero-site",
    "site": "hero-site",
    "buddy": "buddy-card",
    "card": "buddy-card",
}

# Per-game options this desk reads, with the values each allows (None: any scalar).
KNOWN_OPTIONS: dict[str, tuple[object, ...] | None] = {"mines_cdf": (2, 3)}
DEFAULT_OPTIONS: dict[str, object] = {"mines_cdf": 2}

ENTRY_KINDS = ("combat", "event", "place-marker", "remove-marker", "turn", "option")

_NAME_MAX = 120
_WINDOW = 64 * 1024


class SaveError(Exception):
    """A save file that cannot be read or written; the message is one line."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split("\n")))


@dataclass
class Marker:
    id: str
    kind: str
    target: str
    side: str | None
    placed_by: int
    turns_left: int | None
    note: str | None


@dataclass
class Game:
    path: Path
    title: str
    rulesets: list[str]
    options: dict
    created: str
    format: int
    turn: int
    entries: list[dict]
    markers: list[Marker]
    # What loading had to do (a torn last entry set aside), one line each.
    warnings: list[str] = field(default_factory=list)


@dataclass
class GameSummary:
    path: Path
    title: str
    rulesets: list[str]
    turn: int
    last_entry: str | None
    error: str | None = None


# --- names and folders ---------------------------------------------------------------


def saves_folder(override: str | None = None) -> Path:
    """The saves folder: `override`, else $CRTDESK_SAVES, else ./saves; created if missing."""
    text = override or os.environ.get(SAVES_ENV) or "saves"
    folder = Path(text).expanduser()
    if folder.exists() and not folder.is_dir():
        raise SaveError(f"saves folder {folder} is not a folder")
    if not folder.exists():
        try:
            folder.mkdir(parents=True)
            # Group-shared like the files in it; setgid keeps new files in the folder's group.
            folder.chmod(0o2770 | (folder.stat().st_mode & 0o007))
        except OSError as err:
            if not folder.is_dir():
                raise SaveError(f"cannot create saves folder {folder}: {err.strerror}") from err
    return folder


def save_path(name: str, folder: Path) -> Path:
    """The file for a save name a user typed: no path, no `..`; `.toml` added if missing."""
    if not isinstance(name, str) or not name.strip():
        raise SaveError("save name is empty; give a name such as 'campaign'")
    shown = repr(name)
    if "/" in name or "\\" in name or os.sep in name or (os.altsep and os.altsep in name):
        raise SaveError(f"save name {shown} may not contain a path separator; give the name only")
    if ".." in name:
        raise SaveError(f"save name {shown} may not contain '..'")
    if name != name.strip() or name.startswith(("-", ".")):
        raise SaveError(
            f"save name {shown} may not start with '.', '-' or a space, or end in a space"
        )
    if any(ord(c) < 32 or ord(c) == 127 for c in name) or "\x00" in name:
        raise SaveError(f"save name {shown} may not contain control characters")
    if Path(name).is_absolute() or len(name) > _NAME_MAX:
        raise SaveError(
            f"save name {shown} is not a plain file name of up to {_NAME_MAX} characters"
        )
    try:
        name.encode("utf-8")
    except UnicodeEncodeError as err:
        raise SaveError(f"save name {shown} is not valid text") from err
    if not name.endswith(".toml"):
        name += ".toml"
    return folder / name


def _lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


# --- writing TOML ------------------------------------------------------------------------

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+\Z")
_NEEDS_ESCAPE = re.compile(r'[\x00-\x1f\x7f"\\]')
_ESCAPES = {i: f"\\u{i:04x}" for i in range(0x20)} | {
    0x7F: "\\u007f",
    0x22: '\\"',
    0x5C: "\\\\",
    0x08: "\\b",
    0x09: "\\t",
    0x0A: "\\n",
    0x0C: "\\f",
    0x0D: "\\r",
}


def _string(text: str) -> str:
    # Every escape used here means the same in TOML and JSON, no raw newline is ever written,
    # and `" = ` appears only after a table key (see `_fast_json`): a space that would
    # follow a quote there is written as \u0020.
    if _NEEDS_ESCAPE.search(text):
        text = text.translate(_ESCAPES)
        if '" = ' in text:
            text = text.replace('" = ', '"\\u0020= ')
    if text.startswith(" = "):
        text = "\\u0020" + text[1:]
    return f'"{text}"'


def _value(value: Any) -> str:
    """One TOML value on one line: strings, integers, floats, booleans, arrays, inline tables."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if not -(2**63) <= value < 2**63:
            raise SaveError(f"the number {value} is too large for a save file")
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list | tuple):
        # TOML has no null: a null inside an array is written as an empty inline table.
        return "[" + ", ".join("{}" if v is None else _value(v) for v in value) + "]"
    if isinstance(value, dict):
        items = [(str(k), v) for k, v in value.items() if v is not None]
        if len({k for k, _ in items}) != len(items):
            raise SaveError("a table with two keys of the same name cannot be saved")
        if not items:
            return "{}"
        return "{ " + ", ".join(f"{_string(k)} = {_value(v)}" for k, v in items) + " }"
    raise SaveError(f"a value of type {type(value).__name__} cannot be saved")


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise SaveError("text with an unpaired surrogate character cannot be saved") from err


def _block(entry: dict[str, Any]) -> bytes:
    """One `[[log]]` entry as written: header line, one `key = value` line each, end line."""
    lines = []
    for key, value in entry.items():
        if value is None:
            continue
        assert _BARE_KEY.match(key), key
        lines.append(f"{key} = {_value(value)}\n")
    body = _encode("".join(lines))
    end = f"# end of entry {entry['seq']} crc32 {zlib.crc32(body):08x}\n".encode()
    return b"\n[[log]]\n" + body + end


def _header(title: str, rulesets: list[str], options: dict, created: str, who: str) -> bytes:
    lines = [
        f"# crtdesk save file, format {FORMAT_VERSION}: the game, then one [[log]] table per",
        "# change, oldest first, each closed by an end line with its checksum. Append only;",
        "# the markers and the current turn are the replay of the log.",
        f"format = {FORMAT_VERSION}",
        f"title = {_value(title)}",
        f"rulesets = {_value(rulesets)}",
        f"created = {_value(created)}",
        f"created_by = {_value(who)}",
        f"options = {_value(options)}",
        "# end of header",
    ]
    return _encode("\n".join(lines) + "\n")


# --- reading -----------------------------------------------------------------------------

_SEPARATOR = b"\n[[log]]\n"
_END_LINE = re.compile(
    rb"# end of (?:entry (\d+)(?: crc32 ([0-9a-f]{8}))?|header)[ \t\r]*(?:\n|\Z)"
)
_END_SEARCH = b"\n# end of "
_BARE_KEY_BYTES = re.compile(rb"[A-Za-z0-9_-]+\Z")
_TOML_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")
_TOML_AT_END = re.compile(r"\s*\(at end of document\)$")


class _BlockError(Exception):
    """A problem in the entry at a byte offset (turned into a line number by the caller)."""

    def __init__(self, offset: int, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message
        self.key = key


def _last_end(data: bytes) -> int:
    """The offset just past the last complete end line (of an entry or of the header), or 0."""
    at = data.rfind(_END_SEARCH)
    while at != -1:
        match = _END_LINE.match(data, at + 1)
        # Complete: ends in a newline, or at the end of the file with its whole checksum.
        if match and (match[0].endswith(b"\n") or match[2] is not None):
            return match.end()
        at = data.rfind(_END_SEARCH, 0, at)
    return 0


def _torn_cut(data: bytes, base: int = 0) -> int | None:
    """Where a torn last entry starts (to cut the file there), or None if the end is whole.

    A torn entry is what a write cut short leaves: an `[[log]]` table (or the start of
    its header line) after the last end line, with no end line of its own."""
    end = _last_end(data)
    tail = data[end:].strip()
    if tail and (tail.startswith(b"[[log]]") or b"[[log]]".startswith(tail)):
        return base + end
    return None


def _split(data: bytes) -> tuple[bytes, list[tuple[int, bytes]]]:
    """The header bytes, and each entry's body (after its `[[log]]` line) with its offset."""
    first = data.find(_SEPARATOR)
    if first == -1:
        return data, []
    header = data[: first + 1]
    parts = data[first + len(_SEPARATOR) :].split(_SEPARATOR)
    blocks = []
    offset = first + 1  # the `[[log]]` line of the first entry
    for part in parts:
        blocks.append((offset, part))
        offset += len(part) + len(_SEPARATOR)
    return header, blocks


def _verified_body(part: bytes) -> bytes | None:
    """The entry's lines if its end line's checksum matches and nothing follows it."""
    at = part.rfind(b"# end of entry ")
    if at == -1 or (at and part[at - 1] != 0x0A):
        return None
    match = _END_LINE.match(part, at)
    if not match or match[1] is None or match[2] is None or part[match.end() :].strip():
        return None
    body = part[:at]
    return body if zlib.crc32(body) == int(match[2], 16) else None


def _fast_json(bodies: list[bytes]) -> list[dict[str, Any]]:
    """Entries written by `_block`, read with one `json.loads`.

    Each body is `key = value` lines whose values are JSON once an inline table's
    `"key" = ` becomes `"key": ` (`_string` keeps `" = ` out of text): so each body becomes
    a JSON array of its values, all of them are decoded at once, and zipped with the keys."""
    if not bodies:
        return []
    names: list[list[str]] = []
    rows: list[bytes] = []
    for body in bodies:
        keys, values = [], []
        for line in body.split(b"\n")[:-1]:
            key, _, value = line.partition(b" = ")
            keys.append(_key_text(key))
            values.append(value)
        names.append(keys)
        rows.append(b",".join(values))
    text = b"[[" + b"],[".join(rows).replace(b'" = ', b'": ') + b"]]"
    entries = []
    for keys, row in zip(names, json.loads(text), strict=True):
        if len(keys) != len(row) or len(set(keys)) != len(keys):
            raise ValueError("an entry's keys and values do not pair up")
        entries.append(dict(zip(keys, row, strict=True)))
    return entries


_KEY_TEXT: dict[bytes, str] = {}


def _key_text(key: bytes) -> str:
    text = _KEY_TEXT.get(key)
    if text is None:
        if not _BARE_KEY_BYTES.match(key):
            raise ValueError("not a bare key")
        text = _KEY_TEXT[key] = key.decode("ascii")
    return text


def _toml_entry(offset: int, part: bytes) -> dict[str, Any]:
    try:
        doc = tomllib.loads("[[log]]\n" + part.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise _BlockError(offset, str(err)) from err
    if set(doc) != {"log"} or not isinstance(doc["log"], list) or len(doc["log"]) != 1:
        raise _BlockError(offset, "only [[log]] entries may follow the header")
    return doc["log"][0]


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _key_line(data: bytes, offset: int, key: str | None) -> int:
    line = _line_of(data, offset)
    if key:
        end = data.find(_SEPARATOR, offset)
        found = re.compile(rb"^" + re.escape(key.encode()) + rb"\s*=", re.MULTILINE).search(
            data, offset, len(data) if end == -1 else end
        )
        if found:
            return _line_of(data, found.start())
    return line


def _toml_error(path: Path, err: tomllib.TOMLDecodeError) -> SaveError:
    text = str(err)
    at = _TOML_AT.search(text)
    if at:
        reason = text[: at.start()]
        return SaveError(f"{path}: line {at[1]}, column {at[2]}: not valid TOML: {reason}")
    return SaveError(f"{path}: not valid TOML: {_TOML_AT_END.sub(' at the end of the file', text)}")


@dataclass
class _Parsed:
    header: dict[str, Any]
    entries: list[dict[str, Any]]
    offsets: list[int]


@contextmanager
def _no_gc() -> Iterator[None]:
    """Reading a long save makes millions of objects and no cycles: the cyclic collector
    would walk them again and again (it doubled load times) for nothing to collect."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _parse(path: Path, data: bytes) -> _Parsed:
    """Header and entries of a whole save (torn tail already cut), checked."""
    with _no_gc():
        return _parse_split(path, data)


def _parse_split(path: Path, data: bytes) -> _Parsed:
    header_bytes, blocks = _split(data)
    try:
        header = tomllib.loads(header_bytes.decode("utf-8"))
        if "log" in header:  # entries this split did not find (CRLF line ends, say)
            return _parse_whole(path, data)
        bodies: list[bytes] = []
        slots: list[int] = []
        entries: list[dict[str, Any] | None] = []
        for offset, part in blocks:
            body = _verified_body(part)
            if body is None:
                entries.append(_toml_entry(offset, part))
            else:
                slots.append(len(entries))
                bodies.append(body)
                entries.append(None)
        try:
            fast = _fast_json(bodies)
        except ValueError:
            fast = [
                _json_or_toml(blocks[i][0], body) for i, body in zip(slots, bodies, strict=True)
            ]
        for slot, entry in zip(slots, fast, strict=True):
            entries[slot] = entry
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, _BlockError):
        # Let the whole-file parser have the last word: its line and column, or its reading
        # when splitting on `[[log]]` lines misread a hand edit (a multi-line string).
        return _parse_whole(path, data)
    offsets = [offset for offset, _ in blocks]
    parsed = _Parsed(header, entries, offsets)  # type: ignore[arg-type]
    _check(path, data, parsed)
    return parsed


def _json_or_toml(offset: int, body: bytes) -> dict[str, Any]:
    try:
        return _fast_json([body])[0]
    except ValueError:
        return _toml_entry(offset, body)


def _parse_whole(path: Path, data: bytes) -> _Parsed:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = _line_of(data, err.start)
        raise SaveError(f"{path}: line {line}: not UTF-8 text") from err
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise _toml_error(path, err) from err
    log = doc.pop("log", [])
    if not isinstance(log, list):
        raise SaveError(f"{path}: 'log' must be [[log]] tables")
    starts = [m.start() + 1 for m in re.finditer(rb"\n\[\[log\]\]", data)]
    offsets = (starts + [0] * len(log))[: len(log)]
    parsed = _Parsed(doc, log, offsets)
    _check(path, data, parsed)
    return parsed


# --- checking ------------------------------------------------------------------------------


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
        if ruleset not in RULESET_IDS:
            raise fail(
                "rulesets", f"unknown ruleset {ruleset!r}; expected one of {', '.join(RULESET_IDS)}"
            )
    options = header.get("options", {})
    if not isinstance(options, dict):
        raise fail("options", f"'options' must be a table, not {_type_name(options)}")
    for key, value in options.items():
        problem = _option_problem(key, value)
        if problem:
            raise fail("options", problem)


_COMMON = {"seq": int, "kind": str, "turn": int, "when": str, "who": str}
_OPTIONAL = {"note": str, "target": str}
_COMBAT = {
    "ruleset": str,
    "inputs": dict,
    "dice": list,
    "effects": dict,
    "explanation": str,
    "trace": list,
}
_COMBAT_OPTIONAL = {
    "attack_total": int,
    "defense_total": float,  # a whole number, or a half (an OCS defender without supply)
    "odds": str,
    "column": str,
    "odds_column": str,
    "roll": str,
    "markers": list,
}


def _is(value: Any, kind: type) -> bool:
    if kind is float:
        return type(value) in (int, float)
    return type(value) is kind if kind in (int, bool) else isinstance(value, kind)


def _check_entry(entry: Any) -> tuple[str, str | None] | None:
    """The first problem in an entry as (message, key), or None."""
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
        if entry["ruleset"] not in RULESET_IDS:
            return (
                f"unknown ruleset {entry['ruleset']!r}; expected one of {', '.join(RULESET_IDS)}",
                "ruleset",
            )
        for key, typ in _COMBAT_OPTIONAL.items():
            if key in entry and not _is(entry[key], typ):
                return f"'{key}' must be {_type_name(typ())}, not {entry[key]!r}", key
        for marker in entry.get("markers", []):
            problem = _marker_problem(marker)
            if problem:
                return problem, "markers"
    elif kind == "event":
        if not isinstance(entry.get("event"), str) or not isinstance(entry.get("text"), str):
            return "an event entry needs 'event' and 'text' (text)", "event"
        if "ruleset" in entry and entry["ruleset"] not in RULESET_IDS:
            return f"unknown ruleset {entry['ruleset']!r}", "ruleset"
        if not isinstance(entry.get("dice", []), list):
            return "'dice' must be an array", "dice"
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
    elif kind == "turn":
        expired = entry.get("expired", [])
        if not isinstance(expired, list) or not all(isinstance(i, str) for i in expired):
            return "'expired' must be an array of marker ids", "expired"
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


def _check(path: Path, data: bytes, parsed: _Parsed) -> None:
    _check_header(path, data, parsed.header)
    previous = 0
    for entry, offset in zip(parsed.entries, parsed.offsets, strict=True):
        problem = _check_entry(entry)
        if problem is None and entry["seq"] <= previous:
            problem = f"entry number {entry['seq']} does not follow entry {previous}", "seq"
        if problem:
            message, key = problem
            number = entry.get("seq") if isinstance(entry, dict) else None
            where = f"entry {number}" if isinstance(number, int) else "an entry"
            line = _key_line(data, offset, key)
            raise SaveError(f"{path}: line {line}: {where}: {message}")
        previous = entry["seq"]


def _option_problem(key: Any, value: Any) -> str | None:
    if not isinstance(key, str) or not _BARE_KEY.match(key):
        return f"option name {key!r} must be letters, digits, '_' or '-'"
    if not isinstance(value, str | int | float | bool):
        return f"option {key} must be text, a number or true/false, not {_type_name(value)}"
    allowed = KNOWN_OPTIONS.get(key)
    if allowed is not None and (value not in allowed or type(value) is bool):
        return f"option {key} must be one of {', '.join(map(str, allowed))}, not {value!r}"
    return None


# --- replay --------------------------------------------------------------------------------


def _marker_from(entry_seq: int, stored: dict[str, Any]) -> Marker:
    return Marker(
        id=stored["id"],
        kind=stored["kind"],
        target=stored["target"],
        side=stored.get("side"),
        placed_by=entry_seq,
        turns_left=stored.get("turns"),
        note=stored.get("note"),
    )


def _replay(path: Path, parsed: _Parsed, warnings: list[str]) -> Game:
    header = parsed.header
    options = dict(DEFAULT_OPTIONS) | dict(header.get("options", {}))
    markers: dict[str, Marker] = {}
    turn = 1
    for entry in parsed.entries:
        kind = entry["kind"]
        if kind == "combat":
            for stored in entry.get("markers", []):
                markers[stored["id"]] = _marker_from(entry["seq"], stored)
        elif kind == "place-marker":
            markers[entry["marker"]["id"]] = _marker_from(entry["seq"], entry["marker"])
        elif kind == "remove-marker":
            markers.pop(entry["marker_id"], None)
        elif kind == "turn":
            turn = entry["turn"]
            for marker_id in _count_down(markers):
                markers.pop(marker_id)
        elif kind == "option":
            options[entry["key"]] = entry["value"]
    return Game(
        path=path,
        title=header["title"],
        rulesets=list(header["rulesets"]),
        options=options,
        created=header["created"],
        format=header["format"],
        turn=turn,
        entries=parsed.entries,
        markers=list(markers.values()),
        warnings=warnings,
    )


def apply_entry(game: Game, entry: dict[str, Any]) -> None:
    """Bring a loaded game up to date with one entry appended after its last one."""
    markers = {m.id: m for m in game.markers}
    kind = entry["kind"]
    if kind == "combat":
        for stored in entry.get("markers", []):
            markers[stored["id"]] = _marker_from(entry["seq"], stored)
    elif kind == "place-marker":
        markers[entry["marker"]["id"]] = _marker_from(entry["seq"], entry["marker"])
    elif kind == "remove-marker":
        markers.pop(entry["marker_id"], None)
    elif kind == "turn":
        game.turn = entry["turn"]
        for marker_id in _count_down(markers):
            markers.pop(marker_id)
    elif kind == "option":
        game.options[entry["key"]] = entry["value"]
    game.markers = list(markers.values())
    game.entries.append(entry)


def _count_down(markers: dict[str, Marker]) -> list[str]:
    """Count every timed marker down by one turn; the ids that reach 0 (and expire)."""
    expired = []
    for marker in markers.values():
        if marker.turns_left is not None:
            marker.turns_left -= 1
            if marker.turns_left <= 0:
                expired.append(marker.id)
    return expired


# --- locking, recovery ---------------------------------------------------------------------


@contextmanager
def _locked(path: Path, exclusive: bool) -> Iterator[_Lock]:
    lock = _Lock(_lock_path(path))
    try:
        lock.take(exclusive)
        yield lock
    finally:
        lock.release()


class _Lock:
    """An flock on NAME.toml.lock (never on the data file: that is never renamed, but the lock
    file outliving every rename or copy of it keeps the rule simple)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None

    def take(self, exclusive: bool) -> None:
        if self.fd is None:
            try:
                self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, FILE_MODE)
            except PermissionError:
                try:
                    self.fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
                except OSError as err:
                    raise SaveError(
                        f"cannot open the lock file {self.path}: {err.strerror}"
                    ) from err
            except OSError as err:
                raise SaveError(f"cannot open the lock file {self.path}: {err.strerror}") from err
            _share_with_group(self.fd)
        fcntl.flock(self.fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _share_with_group(fd: int) -> None:
    try:
        status = os.fstat(fd)
        if status.st_uid == os.getuid() and status.st_mode & FILE_MODE != FILE_MODE:
            os.fchmod(fd, (status.st_mode & 0o7777) | FILE_MODE)
    except OSError:
        pass  # someone else's file: its mode is theirs to set


def _utc_stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")


def _set_aside(path: Path, data: bytes) -> Path:
    """Keep the file's original bytes as NAME.toml.bak-<UTC timestamp>, never overwriting one."""
    for attempt in range(100):
        backup = path.with_name(
            f"{path.name}.bak-{_utc_stamp()}" + (f"-{attempt}" if attempt else "")
        )
        try:
            fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, FILE_MODE)
        except FileExistsError:
            continue
        try:
            _share_with_group(fd)
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        return backup
    raise SaveError(f"cannot find a free backup name beside {path}")


def _repair(fd: int, path: Path, cut: int) -> str:
    """Set the whole file aside, then cut the torn entry off. Hold the exclusive lock."""
    try:
        backup = _set_aside(path, _read_all(fd))
        os.ftruncate(fd, cut)
        os.fsync(fd)
    except OSError as err:
        raise SaveError(f"{path}: cannot set the torn last entry aside: {err.strerror}") from err
    return (
        f"{path}: the last entry was torn (a write cut short) and was dropped; "
        f"the original bytes are kept in {backup}"
    )


def _read_all(fd: int) -> bytes:
    return _read_range(fd, 0, os.fstat(fd).st_size)


def _read_range(fd: int, start: int, end: int) -> bytes:
    chunks = []
    while start < end:
        chunk = os.pread(fd, end - start, start)
        if not chunk:
            break
        chunks.append(chunk)
        start += len(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _open(path: Path, writable: bool) -> int:
    flags = (os.O_RDWR | os.O_APPEND) if writable else os.O_RDONLY
    try:
        return os.open(path, flags | os.O_CLOEXEC)
    except FileNotFoundError as err:
        raise SaveError(f"no save file {path}; start one with `crtdesk new`") from err
    except IsADirectoryError as err:
        raise SaveError(f"{path} is a folder, not a save file") from err
    except OSError as err:
        raise SaveError(f"cannot open {path}: {err.strerror}") from err


def _require(path: Path) -> None:
    if not path.is_file():
        if path.exists():
            raise SaveError(f"{path} is not a save file")
        raise SaveError(f"no save file {path}; start one with `crtdesk new`")


# --- loading -------------------------------------------------------------------------------


def load_game(path: Path) -> Game:
    """Read a whole save. A torn last entry is set aside (see module doc) and reported in
    `Game.warnings`; any other problem is a SaveError naming the line, the file untouched."""
    path = Path(path)
    _require(path)
    warnings: list[str] = []
    with _locked(path, exclusive=False) as lock:
        data = _read_file(path)
        cut = _torn_cut(data)
        if cut is not None and os.access(path, os.W_OK):
            lock.take(exclusive=True)  # another reader may have repaired it meanwhile
            fd = _open(path, writable=True)
            try:
                data = _read_all(fd)
                cut = _torn_cut(data)
                if cut is not None:
                    warnings.append(_repair(fd, path, cut))
            except SaveError as err:
                warnings.append(f"{err}; the torn last entry is ignored, the file left as it is")
            finally:
                os.close(fd)
        elif cut is not None:
            warnings.append(f"{path}: the last entry is torn; it is ignored (no write access)")
    return _replay(path, _parse(path, data[:cut]), warnings)


def _read_file(path: Path) -> bytes:
    fd = _open(path, writable=False)
    try:
        return _read_all(fd)
    finally:
        os.close(fd)


def list_games(folder: Path) -> list[GameSummary]:
    """Every save in a folder, newest last entry first; a broken one listed with its error."""
    summaries = []
    for path in sorted(Path(folder).glob("*.toml")):
        if not path.is_file():
            continue
        try:
            with _locked(path, exclusive=False):
                fd = _open(path, writable=False)
                try:
                    header, last, _ = _read_ends(fd, path)
                finally:
                    os.close(fd)
            summaries.append(
                GameSummary(
                    path=path,
                    title=header["title"],
                    rulesets=list(header["rulesets"]),
                    turn=_current_turn(last),
                    last_entry=last["when"] if last else None,
                )
            )
        except SaveError as err:
            summaries.append(GameSummary(path, path.stem, [], 0, None, error=str(err)))
    good = sorted(
        (s for s in summaries if not s.error), key=lambda s: s.last_entry or "", reverse=True
    )
    return good + [s for s in summaries if s.error]


def _current_turn(last: dict[str, Any] | None) -> int:
    return last["turn"] if last else 1


def _read_ends(fd: int, path: Path, repair: bool = False) -> tuple[dict, dict | None, list[str]]:
    """The checked header and the last entry, reading only the ends of the file.

    With `repair` (the exclusive lock held), a torn last entry is set aside and cut off;
    otherwise it is skipped."""
    size = os.fstat(fd).st_size
    warnings: list[str] = []
    window = _WINDOW
    while True:
        start = max(0, size - window)
        data = _read_range(fd, start, size)
        end = _last_end(data)
        if end or start == 0:
            break
        window *= 4
    cut = _torn_cut(data, start)
    if cut is not None:
        if repair:
            warnings.append(_repair(fd, path, cut))
        size = cut
        data = data[: cut - start]
    at = data.rfind(_SEPARATOR)
    while at == -1 and start > 0:
        window *= 4
        start = max(0, size - window)
        data = _read_range(fd, start, size)
        at = data.rfind(_SEPARATOR)
    if at == -1 and b"[[log]]" in data:
        # Entries, but not laid out as crtdesk writes them (an editor's CRLF line ends):
        # read it all with the whole-file reader.
        parsed = _parse(path, data)
        return parsed.header, (parsed.entries[-1] if parsed.entries else None), warnings
    header_data = _read_header(fd, size)
    header_end = header_data.find(_SEPARATOR)
    try:
        header = tomllib.loads(header_data[: header_end + 1 if header_end != -1 else None].decode())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        _parse(path, _read_range(fd, 0, size))  # the whole-file reader names the line
        raise SaveError(f"{path}: the header cannot be read") from None
    if at == -1 or start + at < header_end:
        _check_header(path, header_data, header)
        return header, None, warnings
    offset = start + at + 1
    part = data[at + len(_SEPARATOR) :]
    try:
        body = _verified_body(part)
        last = _toml_entry(offset, part) if body is None else _json_or_toml(offset, body)
        problem = _check_entry(last)
    except _BlockError:
        problem = ("", None)
    if problem:
        _parse(path, _read_range(fd, 0, size))  # raises with the line and what is wrong
        raise SaveError(f"{path}: the last entry cannot be read")
    _check_header(path, header_data, header)
    return header, last, warnings


def _read_header(fd: int, size: int) -> bytes:
    length = _WINDOW
    while True:
        data = _read_range(fd, 0, min(size, length))
        if data.find(_SEPARATOR) != -1 or length >= size:
            return data
        length *= 4


# --- appending -----------------------------------------------------------------------------


def _who() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no login name (a container with an unnamed uid)
        return f"uid {os.getuid()}"


def _player(who: str | None) -> str:
    """Who made a change: the name the desk was given, else the OS user."""
    if who is None:
        return _who()
    _check_text("player name", who, allow_empty=False)
    return who


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


Maker = Callable[[dict[str, Any], dict[str, Any] | None, Game | None], dict[str, Any]]


def _append(
    path: Path, make: Maker, *, whole: bool = False, who: str | None = None
) -> dict[str, Any]:
    """Append one entry under the exclusive lock. `make(header, last_entry, game)` gives the
    entry's own fields; `game` is the full replay when `whole`, else None (an O(1) append)."""
    path = Path(path)
    _require(path)
    with _locked(path, exclusive=True):
        fd = _open(path, writable=True)
        try:
            if whole:
                data = _read_all(fd)
                cut = _torn_cut(data)
                warnings = [_repair(fd, path, cut)] if cut is not None else []
                game = _replay(path, _parse(path, data[:cut]), warnings)
                header = {"title": game.title, "rulesets": game.rulesets, "options": game.options}
                last = game.entries[-1] if game.entries else None
            else:
                header, last, warnings = _read_ends(fd, path, repair=True)
                game = None
            fields = make(header, last, game)
            entry = {
                "seq": (last["seq"] if last else 0) + 1,
                "kind": fields.pop("kind"),
                "turn": fields.pop("turn", None) or _current_turn(last),
                "when": _now(),
                "who": _player(who),
            }
            entry |= fields
            # Never write what the reader would refuse: check it as a load would.
            problem = _check_entry(_without_none(entry))
            if problem:
                raise SaveError(f"{path}: not saved: {problem[0]}")
            _write_entry(fd, path, entry)
        finally:
            os.close(fd)
    return _without_none(entry)


def _without_none(value: Any) -> Any:
    """What reading the entry back gives: TOML has no null, so null keys are not written."""
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [{} if v is None else _without_none(v) for v in value]
    return value


def _write_entry(fd: int, path: Path, entry: dict[str, Any]) -> None:
    block = _block(entry)
    size = os.fstat(fd).st_size
    try:
        _write_all(fd, block)
        os.fsync(fd)
    except BaseException as err:
        # Never leave half an entry behind when we are alive to clean it up.
        try:
            os.ftruncate(fd, size)
        except OSError:
            pass
        if isinstance(err, OSError):
            raise SaveError(f"cannot write to {path}: {err.strerror}") from err
        raise


def new_game(
    path: Path,
    title: str,
    rulesets: list[str],
    options: dict | None = None,
    *,
    who: str | None = None,
) -> Game:
    """Start a save: the header alone (the log starts empty). SaveError if the file exists."""
    path = Path(path)
    _check_text("title", title, allow_empty=False)
    rulesets = list(dict.fromkeys(rulesets))
    if not rulesets:
        raise SaveError(
            "a game needs at least one ruleset; expected one of " + ", ".join(RULESET_IDS)
        )
    for ruleset in rulesets:
        if ruleset not in RULESET_IDS:
            raise SaveError(
                f"unknown ruleset {ruleset!r}; expected one of {', '.join(RULESET_IDS)}"
            )
    options = dict(options or {})
    for key, value in options.items():
        problem = _option_problem(key, value)
        if problem:
            raise SaveError(problem)
    if not path.parent.is_dir():
        raise SaveError(f"no folder {path.parent} for the save")
    created = _now()
    content = _header(title, rulesets, options, created, _player(who))
    with _locked(path, exclusive=True):
        if path.exists():
            raise SaveError(f"{path} already exists; pick another name or open it")
        _create_whole(path, content)
    return Game(
        path=path,
        title=title,
        rulesets=rulesets,
        options=dict(DEFAULT_OPTIONS) | options,
        created=created,
        format=FORMAT_VERSION,
        turn=1,
        entries=[],
        markers=[],
    )


def _create_whole(path: Path, content: bytes) -> None:
    """Write a new file so that it appears complete or not at all (never a half header)."""
    temp = path.with_name(f".{path.name}.new-{os.getpid()}")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, FILE_MODE)
        try:
            _share_with_group(fd)
            _write_all(fd, content)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temp, path)  # fails if the name is taken: no clobbering
        except FileExistsError as err:
            raise SaveError(f"{path} already exists; pick another name or open it") from err
        except OSError as err:
            if err.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
                raise
            os.replace(temp, path)  # a filesystem without hard links; we hold the lock
    except OSError as err:
        raise SaveError(f"cannot create {path}: {err.strerror}") from err
    finally:
        try:
            temp.unlink()
        except FileNotFoundError:
            pass


def _check_text(what: str, text: Any, allow_empty: bool = True) -> None:
    if not isinstance(text, str):
        raise SaveError(f"{what} must be text, not {_type_name(text)}")
    if not allow_empty and not text.strip():
        raise SaveError(f"{what} may not be empty")
    _encode(text)


def _check_ruleset_in_play(header: dict[str, Any], ruleset: str) -> None:
    if ruleset not in header["rulesets"]:
        raise SaveError(
            f"ruleset {ruleset} is not in play in this game ({', '.join(header['rulesets'])}); "
            "start a game with it to log its combats"
        )


def canonical_kind(kind: str) -> str:
    """A marker kind as typed (any case, spaces or '_') -> its canonical name, else SaveError."""
    key = re.sub(r"[\s_]+", "-", str(kind).strip()).lower()
    if key in _KIND_ALIASES:
        return _KIND_ALIASES[key]
    raise SaveError(f"unknown marker kind {kind!r}; expected one of {', '.join(MARKER_KINDS)}")


def _combat_markers(
    seq: int, outcome: Outcome, target: str | None, targets: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """The markers a result places. A marker for one side goes on that side's target when
    `targets` names it; one for both sides goes on each named side's target."""
    placed: list[dict[str, Any]] = []
    targets = targets or {}
    for given in outcome.effects.get("markers") or []:
        given = dict(given)
        kind = str(given.pop("kind"))
        try:
            kind = canonical_kind(kind)
        except SaveError:
            pass  # a kind the engine knows and this list does not yet: keep it as given
        turns = given.pop("turns", None)
        side = given.pop("side", None)
        extra = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in given.items())
        sides = [s for s in ("attacker", "defender") if s in targets and side in (s, "both")]
        for where, who in [(targets[s], s) for s in sides] or [(target, side)]:
            placed.append(
                {
                    "id": f"{seq}.{len(placed) + 1}",
                    "kind": kind,
                    "target": where or UNSPECIFIED_TARGET,
                    "side": who,
                    "turns": turns,
                    "note": extra or None,
                }
            )
    return placed


def append_combat(
    path: Path,
    combat: CombatInput,
    outcome: Outcome,
    note: str | None = None,
    *,
    target: str | None = None,
    targets: dict[str, str] | None = None,
    who: str | None = None,
) -> dict:
    """Log one resolved combat; markers the result places (No-entry, DG, exploitation,
    engaged) go on `target` (or per side on `targets`), or on "(unspecified)". `who` defaults to the OS user.
    Returns the entry written."""
    if note is not None:
        _check_text("note", note)
    if target is not None:
        _check_text("target", target, allow_empty=False)
    for where in (targets or {}).values():
        _check_text("target", where, allow_empty=False)
    record = outcome.to_dict()
    if not record.get("inputs"):
        record["inputs"] = combat.to_dict()

    def make(header: dict, last: dict | None, game: Game | None) -> dict[str, Any]:
        _check_ruleset_in_play(header, combat.ruleset)
        seq = (last["seq"] if last else 0) + 1
        return {
            "kind": "combat",
            "ruleset": record["ruleset"],
            "note": note,
            "target": target,
            "inputs": record["inputs"],
            "dice": record["dice"],
            "attack_total": record["attack_total"],
            "defense_total": record["defense_total"],
            "odds": record["odds"],
            "odds_column": record["odds_column"],
            "column": record["column"],
            "roll": record["roll"],
            "cell": record["cell"],
            "effects": record["effects"],
            "explanation": record["explanation"],
            "trace": record["trace"],
            "markers": _combat_markers(seq, outcome, target, targets) or None,
        }

    return _append(path, make, who=who)


def advance_turn(path: Path, *, who: str | None = None) -> dict:
    """Start the next turn: every timed marker counts down one, those at 0 are removed."""

    def make(header: dict, last: dict | None, game: Game | None) -> dict[str, Any]:
        assert game is not None
        markers = {m.id: m for m in game.markers}
        timed = [m.id for m in game.markers if m.turns_left is not None]
        expired = _count_down(markers)
        return {
            "kind": "turn",
            "turn": game.turn + 1,
            "counted_down": [i for i in timed if i not in expired] or None,
            "expired": expired or None,
        }

    return _append(path, make, whole=True, who=who)


def add_marker(
    path: Path,
    kind: str,
    target: str,
    side: str | None = None,
    turns: int | None = None,
    note: str | None = None,
    *,
    who: str | None = None,
) -> dict:
    """Place a marker by hand. Its id is the entry's number and `.1`."""
    kind = canonical_kind(kind)
    _check_text("target", target, allow_empty=False)
    if side is not None:
        _check_text("side", side, allow_empty=False)
    if note is not None:
        _check_text("note", note)
    if turns is not None and (type(turns) is not int or turns < 1):
        raise SaveError(f"turns must be a whole number of 1 or more, not {turns!r}")

    def make(header: dict, last: dict | None, game: Game | None) -> dict[str, Any]:
        seq = (last["seq"] if last else 0) + 1
        marker = {
            "id": f"{seq}.1",
            "kind": kind,
            "target": target,
            "side": side,
            "turns": turns,
            "note": note,
        }
        return {
            "kind": "place-marker",
            "marker": {k: v for k, v in marker.items() if v is not None},
        }

    return _append(path, make, who=who)


def remove_marker(path: Path, marker_id: str, *, who: str | None = None) -> dict:
    """Lift a marker by hand (e.g. Hero #15 Engineer/Frogman repairing a No-entry hex)."""
    marker_id = str(marker_id).strip()

    def make(header: dict, last: dict | None, game: Game | None) -> dict[str, Any]:
        assert game is not None
        found = next((m for m in game.markers if m.id == marker_id), None)
        if found is None:
            known = ", ".join(m.id for m in game.markers) or "none"
            raise SaveError(f"no marker {marker_id!r} in {path}; current markers: {known}")
        return {
            "kind": "remove-marker",
            "marker_id": marker_id,
            "marker_kind": found.kind,
            "target": found.target,
        }

    return _append(path, make, whole=True, who=who)


def set_option(path: Path, key: str, value: object, *, who: str | None = None) -> dict:
    """Set a per-game option (e.g. mines_cdf 3); logged like everything else."""
    problem = _option_problem(key, value)
    if problem:
        raise SaveError(problem)
    if isinstance(value, str):
        _check_text("option value", value)

    def make(header: dict, last: dict | None, game: Game | None) -> dict[str, Any]:
        return {"kind": "option", "key": key, "value": value}

    return _append(path, make, who=who)


def append_event(
    path: Path,
    event: str,
    text: str,
    *,
    ruleset: str | None = None,
    dice: list[DiceRoll | dict[str, Any]] | None = None,
    who: str | None = None,
) -> dict:
    """Log something the desk did that is not a combat, with its dice: e.g. the die rolled
    for a Hero Site won uncontested (event "hero-site-draw"). Returns the entry written."""
    if not isinstance(event, str) or not _BARE_KEY.match(event):
        raise SaveError(f"event name {event!r} must be letters, digits, '_' or '-'")
    _check_text("event text", text)
    if ruleset is not None and ruleset not in RULESET_IDS:
        raise SaveError(f"unknown ruleset {ruleset!r}; expected one of {', '.join(RULESET_IDS)}")
    rolls = [d.to_dict() if isinstance(d, DiceRoll) else dict(d) for d in dice or []]

    def make(header: dict, last: dict | None, game: Game | None) -> dict[str, Any]:
        if ruleset is not None:
            _check_ruleset_in_play(header, ruleset)
        return {"kind": "event", "event": event, "ruleset": ruleset, "text": text, "dice": rolls}

    return _append(path, make, who=who)
