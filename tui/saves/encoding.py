"""Writing a save: the header and one `[[log]]` block per entry, in the one layout the fast
reader (`decoding`) relies on: one `"key" = value` line per field, values whose escapes mean
the same in TOML and JSON, and an end line with the entry's crc32."""

from __future__ import annotations

import math
import re
import zlib
from typing import Any

from tui.saves.errors import SaveError

FORMAT_VERSION = 1
# The most one entry's block may take (a long note, an OCS combat's trace are a few KB):
# an append refuses more, so that no command's memory grows with one entry.
MAX_ENTRY = 256 * 1024
# The most a save file may take before its content is read: a 100,000-entry campaign is
# about 173 MB, so this is some 600,000 entries, and a file past it (a hand-made or a
# hostile one) is refused in one line instead of read into memory.
MAX_SAVE = 1024 * 1024 * 1024


def entry_too_large(size: int) -> str:
    """What is wrong with an entry of `size` bytes, past MAX_ENTRY."""
    return (
        f"the entry is {size:,} bytes; an entry of a save holds at most {MAX_ENTRY:,} bytes "
        f"({MAX_ENTRY // 1024} KiB)"
    )


def save_too_large(path: object, size: int) -> str:
    """What is wrong with a save file of `size` bytes, past MAX_SAVE."""
    return f"{path} is {size:,} bytes; a save file holds at most {MAX_SAVE:,} bytes (1 GiB)"


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
    """One `[[log]]` entry as written: header line, one `"key" = value` line each, end line.

    Each key is quoted (`"seq" = 1`, TOML's quoted key, the same key as `seq = 1`), as the
    inline tables' keys are: a block is then JSON by a few `replace` calls, where bare keys
    took a regular expression's split (docs/save-format.md, "A fast reader")."""
    lines = []
    for key, value in entry.items():
        if value is None:
            continue
        assert _BARE_KEY.match(key), key
        lines.append(f'"{key}" = {_value(value)}\n')
    body = _encode("".join(lines))
    end = f"# end of entry {entry['seq']} crc32 {zlib.crc32(body):08x}\n".encode()
    return b"\n[[log]]\n" + body + end


def _header(
    title: str,
    rulesets: list[str],
    options: dict[str, Any],
    created: str,
    who: str,
    charts: dict[str, str] | None = None,
) -> bytes:
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
        # A player's chart in play: a copy of its file (tui.saves.charts).
        *([f"charts = {_value(charts)}"] if charts else []),
    ]
    return sealed_header(_encode("\n".join(lines) + "\n"))


def header_checksum(body: bytes) -> int:
    """The checksum of a header's lines before its end line: CRLF line ends read as LF,
    as TOML reads them, so a file an editor only saved with other line ends still holds."""
    return zlib.crc32(body.replace(b"\r\n", b"\n"))


def sealed_header(body: bytes) -> bytes:
    """A header's lines (without an end line) closed by its end line and checksum."""
    return body + f"# end of header crc32 {header_checksum(body):08x}\n".encode()


def _entry_as_read(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry as reading it back gives it: `_without_none` of each of its values."""
    return {k: _without_none(v) for k, v in entry.items() if v is not None}


def _without_none(value: Any) -> Any:
    """What reading the entry back gives: TOML has no null, so null keys are not written."""
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [{} if v is None else _without_none(v) for v in value]
    return value
