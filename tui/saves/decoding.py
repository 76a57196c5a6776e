"""Reading a save: finding its end lines and a torn last entry, splitting it into entries,
and the fast reader (one `json.loads` for every entry whose checksum matches; `tomllib`
for the rest). What is read is not checked here: see `checking`."""

from __future__ import annotations

import gc
import json
import math
import re
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from tui.saves.encoding import MAX_ENTRY, entry_too_large, header_checksum
from tui.saves.errors import SaveError

_SEPARATOR = b"\n[[log]]\n"
_END_LINE = re.compile(
    rb"# end of (?:entry (\d+)(?: crc32 ([0-9a-f]{8}))?|header(?: crc32 ([0-9a-f]{8}))?)"
    rb"[ \t\r]*(?:\n|\Z)"
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
    # As the store writes it, the end line is the last line, and nothing else:
    # `# end of entry N crc32 XXXXXXXX` and its newline (the regular expression's match,
    # below, costs more than the rest of the check).
    at = part.rfind(b"\n# end of entry ") + 1
    if at and part[-16:-9] == b" crc32 " and part[-1:] == b"\n" and part[at + 15 : -16].isdigit():
        body = part[:at]
        if part[-9:-1] == b"%08x" % zlib.crc32(body):
            return body
    return _verified_end(part)


def _verified_end(part: bytes) -> bytes | None:
    """`_verified_body` of an end line written otherwise (or a checksum that does not hold)."""
    at = part.rfind(b"# end of entry ")
    if at == -1 or (at and part[at - 1] != 0x0A):
        return None
    match = _END_LINE.match(part, at)
    if not match or match[1] is None or match[2] is None or part[match.end() :].strip():
        return None
    body = part[:at]
    return body if zlib.crc32(body) == int(match[2], 16) else None


# Deeper than any entry the store writes (an OCS combat's markers are 4 deep), and far
# short of where a recursive parser (json, tomllib) or a reader of the values would fail.
MAX_DEPTH = 32
_STRING = re.compile(rb'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')
# What JSON and TOML read alike outside strings: numbers, true, false, arrays, inline
# tables with `=` (not JSON's `:`), no null, NaN or Infinity.
_TOML_TOKENS = re.compile(rb"[\[\]{}0-9eE+\-., =truefals]*")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
# A whole number past 64 bits, or an exponent that may overflow a float: tomllib's to judge.
_BIG_NUMBER = re.compile(rb"[0-9]{19}|[eE][+-]?[0-9]{3}")


_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))
_TOO_DEEP = f"values are nested more than {MAX_DEPTH} deep"


class TomlError(ValueError):
    """Text TOML does not read (tomllib's TOMLDecodeError, its message kept), or values
    nested deeper than MAX_DEPTH: raised by the readers here, so that a module catching it
    need not import tomllib. A save the store wrote is read without it, header included
    (`header_loads`): its import was some 10 M instructions of every command that reads a
    save (`crtdesk log` of a one-entry save, 387 M to 376 M; the desk's open, 9 M)."""


def toml_loads(text: str) -> dict[str, Any]:
    """`tomllib.loads` of a header or an entry, with values nested deeper than MAX_DEPTH
    refused as a TOML error (tomllib recurses: 1,000 deep raised RecursionError)."""
    doc = _tomllib_loads(text)
    problem = value_problem(doc)
    if problem:
        raise TomlError(problem)
    return doc


# How many texts tomllib has read in this process (`_tomllib_loads`). Only tomllib gives a
# date or a time; the JSON readers give text, numbers, booleans, arrays and tables alone. A
# reader that must know what it was given compares the count before and after (`toml_reads`).
_TOML_READS = 0


def toml_reads() -> int:
    """How many texts tomllib has read in this process (headers, entries, whole files): where
    it has not changed over a read, every entry read was read by the JSON readers (no value
    in it a date or a time)."""
    return _TOML_READS


def _tomllib_loads(text: str) -> dict[str, Any]:
    # Imported at the first text the quick readers leave to it (TomlError).
    import tomllib

    global _TOML_READS
    _TOML_READS += 1
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise TomlError(_TOO_DEEP) from None
    except tomllib.TOMLDecodeError as err:
        raise TomlError(str(err)) from err


def header_loads(text: str) -> dict[str, Any]:
    """A save's header as `toml_loads` reads it. A header whose end line's checksum holds
    was written by the store (comment lines, then one `key = value` line each, the same
    form as an entry's): read by the careful reader of entries (`_careful_json`), as an
    entry whose checksum matches is. Anything else by tomllib."""
    data = text.encode("utf-8")
    data = data.rstrip(b"\n") + b"\n"  # blank lines before the first entry
    at = data.rfind(b"\n", 0, -1) + 1
    seal = _HEADER_SEAL.match(data, at)
    if seal is not None and header_checksum(data[:at]) == int(seal[1], 16):
        body = data[:at]
        while body[:1] == b"#":  # the comment lines the store writes first
            end = body.find(b"\n") + 1
            if not _comment(body[:end]):
                return toml_loads(text)
            body = body[end:]
        if body[:1] not in (b"", b"\n"):
            try:
                # The careful reader (json's, imported anyway): the quick one would make
                # its decoders (msgspec working out their types) for one header.
                return _careful_json([body])[0]
            except ValueError:
                pass
    return toml_loads(text)


# A header's end line as the store writes it, with the header's checksum.
_HEADER_SEAL = re.compile(rb"# end of header crc32 ([0-9a-f]{8})\n\Z")


def _comment(line: bytes) -> bool:
    """Whether `line` (a `#` to its newline) is a comment TOML reads: no control character
    but a tab (tomllib refuses one, and says where)."""
    return line[-1:] == b"\n" and line[:-1].translate(None, _COMMENT_BYTES) == b""


# What a TOML comment may hold: anything but the control characters other than a tab.
_COMMENT_BYTES = bytes([9, *range(32, 127), *range(128, 256)])


def _too_deep(data: bytes, strings_gone: bool = False) -> bool:
    """Whether brackets may open more than MAX_DEPTH deep outside strings: the brackets
    alone, their innermost pairs taken off once per level. Brackets left unpaired (in a
    string this rough reading missed) count as deep too: the fast reader then hands the
    entry to tomllib, which reads it exactly."""
    if data.count(b"[") + data.count(b"{") <= MAX_DEPTH:
        return False
    left = (data if strings_gone else _STRING.sub(b"", data)).translate(None, _NOT_BRACKETS)
    for _ in range(MAX_DEPTH + 2):  # +2: the array of entries and an entry's values
        peeled = left.replace(b"[]", b"").replace(b"{}", b"")
        if peeled == left:
            return bool(left)
        left = peeled
    return True


def _outside_strings(data: bytes) -> bytes | None:
    """`data` without its JSON strings; None when they do not pair up. Split at the quotes
    when no quote is escaped (what the store writes, mostly): C-speed, unlike a regex."""
    if b'\\"' in data:
        return _STRING.sub(b"", data)
    parts = data.split(b'"')
    return b"".join(parts[0::2]) if len(parts) % 2 else None


def value_problem(value: Any, limit: int = MAX_DEPTH) -> str | None:
    """What no reader of a save takes, in a value tomllib read (a hand edit): arrays and
    tables nested more than `limit` deep, a whole number past 64 bits, nan or inf. The fast
    reader lets none of these through. Iterative: any depth is measured."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return _TOO_DEEP
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
        elif type(item) is int and not -(2**63) <= item < 2**63:
            return f"the number {item} is past the 64-bit range TOML allows"
        elif type(item) is float and not math.isfinite(item):
            return f"the number {item} is not finite"
    return None


# A line's key, where each body's first line (after the first body's) is marked by
# _ENTRY_MARK: the split finds where each entry starts as it finds its keys. What comes
# before ` = ` is taken whole (a run of one excluded byte is the regular expression's
# quickest count); the keys, joined, must then be made of _KEY_BYTES alone (a mark other
# than a key's first byte stays in its JSON string, which refuses it).
_LINE_KEY = re.compile(rb"\n([^ ]++) = ")
_KEY_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-\x1e"
_ENTRY_MARK = b"\x1e"
# A colon in text with no escapes, as JSON's escape for it: in a string it reads as the
# colon, and outside strings (where JSON would read it as a key's, and TOML has none) the
# document does not decode. One replace costs less than a search for a colon after a quote
# or a space (which the outline, below, would then look at), the longer strings' decode
# included: 15 M instructions against 24 M on 2,000 of the bench's entries.
_COLON = b":"
_COLON_JSON = b"\\u003a"
# What the quick reader looks at outside strings (`_outside_outline`): colons and brackets.
_NOT_OUTLINE = bytes(set(range(256)) - set(b'":[]{}'))
# An inline table's `"key" = ` as `"key"\t: `: as long (the bytes are changed in place), and
# a tab, which no text the quick reader takes holds, is refused by JSON inside a string: so
# where the quote opens a string (`x = " = y"`, never written by the store), the document
# does not decode, rather than reading ` = y` as `:  y`.
_TABLE_KEY = b'" = '
_TABLE_KEY_JSON = b'"\t: '
# Values the quick reader decodes, nested at most this deep (the store writes 3 at most:
# a combat's inputs, effects and dice): deeper ones, and what is not a value TOML has
# (null, a whole number past 64 bits, a number past a float's range), fail to decode and
# go to the careful reader. Its decoders' types are made at a process's first read, in
# time that doubles with each level (typing hashes each level's type afresh: 8 levels
# took 26 ms, 5 take 3 ms), so no deeper than needed with a level or two to spare.
_QUICK_DEPTH = 5
_JSON: Any = None  # the msgspec decoders of such values (bare keys, quoted), made at the first read
_JSON_MADE = threading.Lock()


def _json_decoder() -> Any:
    """The quick readers' decoders, (bare keys', quoted keys'): JSON objects of TOML values,
    as plain dicts and lists."""
    global _JSON
    # Made at the first entry read (msgspec works out the types then), not at every start.
    import msgspec

    whole = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
    value: Any = str | whole | float | bool
    for _ in range(_QUICK_DEPTH):
        value = str | whole | float | bool | list[value] | dict[str, value]
    with _JSON_MADE:  # made by one thread (msgspec works out a type's layout once)
        if _JSON is None:
            _JSON = (
                msgspec.json.Decoder(list[dict[str, value]]),
                # The quoted form's: an entry's own values may also be null (its lines'
                # marks, `_LINE_MARK`), a value nested in one never.
                msgspec.json.Decoder(list[dict[str, value | None]]),
            )
    return _JSON


def _fast_json(bodies: list[bytes]) -> list[dict[str, Any]]:
    """Entries written by `_block`, read as one JSON document.

    Each body is `key = value` lines whose values are JSON once an inline table's
    `"key" = ` becomes `"key": ` (`_string` keeps `" = ` out of text). The quick reader
    (`_quick_json`) makes the bodies one JSON array of objects with a few C-speed passes;
    where it cannot vouch for reading them as TOML does, `_careful_json` reads them line by
    line. ValueError: not what the store writes (tomllib's to judge)."""
    if not bodies:
        return []
    # The store writes each key quoted (`"seq" = 1`); a save written before, bare (`seq = 1`).
    entries = _quick_quoted(bodies) if bodies[0][:1] == b'"' else None
    if entries is None:
        entries = _quick_json(bodies)
    return _careful_json(bodies) if entries is None else entries


# Each line's end in the quoted form, as a member of its entry's object: a key no entry has
# with a value none holds (null, which TOML has not and the quoted decoder refuses in any
# value but an entry's own), taken out again once read. At an entry's own level it reads
# so; anywhere else (a value left open at a line's end and closed on the next: an array's,
# an inline table's, or a string's) it does not decode: its `""` is an array's item and
# then a colon, or a key whose null the inline table's type refuses, or a string closed
# and another opened at once. So every line's end is at its entry's level, and the values
# read are the lines' own, as TOML reads them.
_LINE_MARK = b',"":null,'
# Where one entry ends and the next begins.
_ENTRY_END = b'"":null},{'


def _quick_quoted(bodies: list[bytes]) -> list[dict[str, Any]] | None:
    """`_quick_json` of bodies written with quoted keys (`"seq" = 1`): in each body, each
    colon made JSON's escape for it (`_COLON_JSON`) and each line's end a member of its
    entry (`_LINE_MARK`); then each key's `" = ` made `"\t: ` (`_TABLE_KEY_JSON`), and the
    entries decoded at once. None where this reading might differ from TOML's (or the bodies
    are not so written): a key given twice in an entry, or a line that is not one key and
    its value, leaves the entry with fewer or more keys than it has lines, and gives None."""
    text = b"".join(bodies)
    if b"\t" in text or b"\r" in text or b"\x7f" in text:
        return None
    if b"\\" in text:
        unpaired = text.replace(b"\\\\", b"")  # escaped backslashes gone
        if (
            (b"\\u" in text and _SURROGATE_ESCAPE.search(text))
            or _escapes_differ(unpaired)
            # An escaped colon (no escape in TOML or JSON) would read as a backslash and
            # JSON's escape for the colon, once the colons are written so.
            or b"\\:" in unpaired
        ):
            return None
    colons = [body.replace(_COLON, _COLON_JSON) for body in bodies]
    ends = [body.replace(b"\n", _LINE_MARK) for body in colons]
    document = b"[{" + _ENTRY_END.join(ends) + b'"":null}]'
    try:
        entries: list[dict[str, Any]] = (_JSON or _json_decoder())[1].decode(
            document.replace(_TABLE_KEY, _TABLE_KEY_JSON)
        )
    except ValueError:  # msgspec.DecodeError
        return None
    # Each entry's keys, its lines' mark among them once: one more than its lines (each
    # line's mark made its body 8 bytes longer).
    if len(entries) != len(bodies) or list(map(len, entries)) != [
        (len(marked) - len(body)) // 8 + 1 for marked, body in zip(ends, colons, strict=True)
    ]:
        return None
    for entry in entries:
        del entry[""]
        if None in entry.values():  # a line's own value null, which TOML has not
            return None
    return entries


def _quick_json(bodies: list[bytes]) -> list[dict[str, Any]] | None:
    """The entries of `bodies`, or None where this reading might differ from TOML's.

    Every line of a body must be `KEY = VALUE` with a bare key (so no value runs on to a
    second line); each key becomes `"KEY":`, each body an object, and `msgspec` decodes
    them all at once, as TOML values (`_json_decoder`: no null, no number past 64 bits, no
    deep nesting). What else JSON reads and TOML does not (a `:` after a string, outside
    strings; a tab or a carriage return; surrogate escapes): where any may be, None. (In
    text with no escapes, each colon is written as JSON's escape for it, `_COLON_JSON`,
    which the decoder reads as a colon in a string and refuses anywhere else.)"""
    # Each body after the first starts with a mark: its first key is found with it.
    text = b"\n" + _ENTRY_MARK.join(bodies)
    if b"\t" in text or b"\r" in text or b"\x7f" in text:
        return None
    if b"\\" in text:
        unpaired = text.replace(b"\\\\", b"")  # escaped backslashes gone
        if (b"\\u" in text and _SURROGATE_ESCAPE.search(text)) or _escapes_differ(unpaired):
            return None
        # Escaped quotes gone too, every quote left opens or closes a string.
        unquoted = unpaired.replace(b'\\"', b"")
        outside = _outside_outline(unquoted.translate(None, _NOT_OUTLINE))
        if outside is None or b":" in outside or not _lines_close(unquoted):
            return None
    elif not _lines_close(text):
        return None
    else:
        text = text.replace(_COLON, _COLON_JSON)
    # Split at each line's key: every newline must start one (so no value runs on to a
    # second line: checked below), and every key is bare.
    parts = _LINE_KEY.split(text)
    if parts[0] or b"".join(parts[1::2]).translate(None, _KEY_BYTES):
        return None
    # Each key as `,"KEY":`; a marked one, a body's first, as `},{"KEY":` (it ends the
    # object before it and opens its own).
    keys = (
        (b',"' + b'":\x00,"'.join(parts[1::2]) + b'":')
        .replace(b',"' + _ENTRY_MARK, b'},{"')
        .split(b"\x00")
    )
    keys[0] = b"[{" + keys[0][1:]
    parts[1::2] = keys
    parts.append(b"}]")
    document = b"".join(parts).replace(_TABLE_KEY, _TABLE_KEY_JSON)
    # The one newline left is the last body's last: any other started no key. (A mark the
    # split did not take, or one a body held, is refused by the decoder or counted below.)
    if document.find(b"\n") != len(document) - 3:
        return None
    try:
        entries: list[dict[str, Any]] = (_JSON or _json_decoder())[0].decode(document)
    except ValueError:  # msgspec.DecodeError
        return None
    # Each entry's keys, one per line: a key given twice in one entry, or two keys on one
    # line, and it has fewer or more (counted entry by entry: two such entries in one
    # batch would make up for each other's count).
    if len(entries) != len(bodies) or list(map(len, entries)) != [
        body.count(b"\n") for body in bodies
    ]:
        return None
    return entries


def _escapes_differ(unpaired: bytes) -> bool:
    """Whether an escape in some text, its escaped backslashes taken out, reads otherwise in
    JSON than in TOML: `\\/` (JSON's slash; TOML has no such escape), or an escaped quote
    before ` = ` (the inline tables' replace would change the text it is in)."""
    return b'\\" = ' in unpaired or b"\\/" in unpaired


# What `_lines_close` looks at: quotes, brackets and the lines' ends.
_NOT_LINE_OUTLINE = bytes(set(range(256)) - set(b'"[]{}\n'))


def _lines_close(text: bytes, depth: int = _QUICK_DEPTH) -> bool:
    """Whether every bracket outside strings in `text` (lines with no escaped quote or
    backslash left in them) closes on the line it opens on, as the store writes a value.
    JSON reads a value across lines, where the reader's split at each line's key would make
    the next line's key one of the value's (`z = { "b" = 1` then `c = 2 }, "d" = 3`, which
    TOML refuses). Strings go as `_outside_outline` takes them; innermost pairs are then
    taken off a level at a time: what is left but the lines' ends is a bracket not closed on
    its line (or nested more than `depth` deep)."""
    outline = text.translate(None, _NOT_LINE_OUTLINE).replace(b'""', b"")
    if b'"' in outline:
        parts = outline.split(b'"')
        if not len(parts) % 2:
            return False
        outline = b"".join(parts[0::2])
    for _ in range(depth + 1):
        peeled = outline.replace(b"[]", b"").replace(b"{}", b"")
        if peeled == outline:
            break
        outline = peeled
    return len(outline) == outline.count(b"\n")


def _outside_outline(outline: bytes) -> bytes | None:
    """The colons and brackets of an outline that are outside strings; None when its quotes
    do not pair up. Two quotes side by side go first (a string with nothing of the outline
    in it, or the gap between two strings with nothing in it): only strings holding a colon
    or a bracket are left to split."""
    outline = outline.replace(b'""', b"")
    if b'"' not in outline:
        return outline
    parts = outline.split(b'"')
    return b"".join(parts[0::2]) if len(parts) % 2 else None


def _careful_json(bodies: list[bytes]) -> list[dict[str, Any]]:
    """Entries written by `_block`, read with one `json.loads`, line by line.

    Each body is `key = value` lines whose values are JSON once an inline table's
    `"key" = ` becomes `"key": ` (`_string` keeps `" = ` out of text): so each body becomes
    a JSON array of its values, all of them are decoded at once, and zipped with the keys."""
    if not bodies:
        return []
    names: list[list[str]] = []
    rows: list[bytes] = []
    lines: list[bytes] = []
    for body in bodies:
        keys, values = [], []
        for line in body.split(b"\n")[:-1]:
            key, _, value = line.partition(b" = ")
            keys.append(_key_text(key))
            values.append(value)
        names.append(keys)
        rows.append(b",".join(values))
        lines += values
    # Each value whole on its line: the values, a line each, their escapes gone.
    apart = b"\n".join(lines)
    if b"\\" in apart:
        apart = apart.replace(b"\\\\", b"").replace(b'\\"', b"")
    if not _lines_close(apart, MAX_DEPTH):
        raise ValueError("a value not closed on its line")
    values_text = b"[[" + b"],[".join(rows) + b"]]"
    # Only what TOML would read the same: JSON's null, `:`, NaN, surrogate escapes or a deep
    # nesting go to tomllib, which refuses them as TOML.
    outside = _outside_strings(values_text)
    if (
        outside is None
        or not _TOML_TOKENS.fullmatch(outside)
        or _BIG_NUMBER.search(outside)
        or _SURROGATE_ESCAPE.search(values_text)
        or b"\x7f" in values_text
        or (b"\\" in values_text and _escapes_differ(values_text.replace(b"\\\\", b"")))
        or _too_deep(outside, strings_gone=True)
    ):
        raise ValueError("not what the store writes")
    text = values_text.replace(_TABLE_KEY, _TABLE_KEY_JSON)
    try:
        decoded = json.loads(text)
    except RecursionError:
        raise ValueError("nested too deep") from None
    entries = []
    for keys, row in zip(names, decoded, strict=True):
        if len(keys) != len(row) or len(set(keys)) != len(keys):
            raise ValueError("an entry's keys and values do not pair up")
        entries.append(dict(zip(keys, row, strict=True)))
    return entries


_KEY_TEXT: dict[bytes, str] = {}


def _key_text(key: bytes) -> str:
    """A line's key, bare (`seq`) or quoted as the store writes it (`"seq"`)."""
    text = _KEY_TEXT.get(key)
    if text is None:
        bare = key[1:-1] if key[:1] == b'"' and key[-1:] == b'"' else key
        if not _BARE_KEY_BYTES.match(bare):
            raise ValueError("not a key the store writes")
        text = _KEY_TEXT[key] = bare.decode("ascii")
    return text


def _toml_entry(offset: int, part: bytes) -> dict[str, Any]:
    try:
        doc = toml_loads("[[log]]\n" + part.decode("utf-8"))
    except (TomlError, UnicodeDecodeError) as err:
        raise _BlockError(offset, str(err)) from err
    if set(doc) != {"log"} or not isinstance(doc["log"], list) or len(doc["log"]) != 1:
        raise _BlockError(offset, "only [[log]] entries may follow the header")
    entry = doc["log"][0]
    if not isinstance(entry, dict):  # `[[log]]` makes a table: never so, unless tomllib changes
        raise _BlockError(offset, "an entry must be a table")
    return entry


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _key_line(data: bytes, offset: int, key: str | None) -> int:
    line = _line_of(data, offset)
    if key:
        end = data.find(_SEPARATOR, offset)
        name = re.escape(key.encode())
        found = re.compile(rb"^(?:" + name + rb'|"' + name + rb'")\s*=', re.MULTILINE).search(
            data, offset, len(data) if end == -1 else end
        )
        if found:
            return _line_of(data, found.start())
    return line


def _toml_error(path: Path, err: TomlError) -> SaveError:
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
def no_gc() -> Iterator[None]:
    """Reading a long save makes millions of objects and no cycles: the cyclic collector
    would walk them again and again (it doubled load times) for nothing to collect."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _decode(path: Path, data: bytes) -> _Parsed:
    """Header and entries of a whole save (torn tail already cut), not yet checked. A
    SaveError names the line where the file is not TOML (or not UTF-8)."""
    with no_gc():
        return _parse_split(path, data)


def _parse_split(path: Path, data: bytes) -> _Parsed:
    header_bytes, blocks = _split(data)
    try:
        header = header_loads(header_bytes.decode("utf-8"))
        if "log" in header:  # entries this split did not find (CRLF line ends, say)
            return _parse_whole(path, data)
        entries = _decode_blocks(blocks)
    except (TomlError, UnicodeDecodeError, _BlockError):
        # Let the whole-file parser have the last word: its line and column, or its reading
        # when splitting on `[[log]]` lines misread a hand edit (a multi-line string).
        return _parse_whole(path, data)
    offsets = [offset for offset, _ in blocks]
    return _Parsed(header, entries, offsets)


def _decode_blocks(blocks: list[tuple[int, bytes]]) -> list[dict[str, Any]]:
    """The entries of some `[[log]]` blocks, each given as (offset of its `[[log]]` line,
    its body after that line): those whose checksum matches by one `json.loads`, the rest
    by `tomllib`. Raises _BlockError (or a TOML or UTF-8 error) for a block it cannot read."""
    # The common case first: every block as the store writes it.
    verified = [_verified_body(part) for _, part in blocks if len(part) <= MAX_ENTRY]
    if len(verified) == len(blocks) and None not in verified:
        whole: list[bytes] = verified  # type: ignore[assignment]
        try:
            return _fast_json(whole)
        except ValueError:
            return [_json_or_toml(at, body) for (at, _), body in zip(blocks, whole, strict=True)]
    bodies: list[bytes] = []
    slots: list[int] = []
    entries: list[dict[str, Any] | None] = []
    for offset, part in blocks:
        if len(part) > MAX_ENTRY:  # none is written so large: a hand edit, or an old save's
            raise _BlockError(offset, entry_too_large(len(part)))
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
        fast = [_json_or_toml(blocks[i][0], body) for i, body in zip(slots, bodies, strict=True)]
    for slot, entry in zip(slots, fast, strict=True):
        entries[slot] = entry
    return entries  # type: ignore[return-value]


def _json_or_toml(offset: int, body: bytes) -> dict[str, Any]:
    try:
        return _careful_json([body])[0]
    except ValueError:
        return _toml_entry(offset, body)


def _parse_whole(path: Path, data: bytes) -> _Parsed:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = _line_of(data, err.start)
        raise SaveError(f"{path}: line {line}: not UTF-8 text") from err
    try:
        doc = _tomllib_loads(text)  # a whole file: its depth is measured once it is read
    except TomlError as err:
        raise _toml_error(path, err) from err
    log = doc.pop("log", [])
    if not isinstance(log, list):
        raise SaveError(f"{path}: 'log' must be [[log]] tables")
    problem = value_problem(doc) or next(filter(None, map(value_problem, log)), None)
    if problem:
        raise SaveError(f"{path}: not valid TOML: {problem}")
    starts = [m.start() + 1 for m in re.finditer(rb"\n\[\[log\]\]", data)]
    offsets = (starts + [0] * len(log))[: len(log)]
    return _Parsed(doc, log, offsets)
