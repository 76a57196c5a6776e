"""Bounds on what crtdesk reads from a file a player did not type outright (a chart file,
a chart's copy in a save, the tables and their kept copy): the size is known before any
byte is read, and a TOML text's nesting before it is parsed. A file that is no plain file
(/dev/zero, a FIFO), one over its limit, or a text nested too deep is refused by the
caller in one line naming the file, the limit and what was found. Standard library only:
the engine uses it."""

from __future__ import annotations

import os
import re
import stat
from functools import cache
from typing import Any

# Deeper than any chart or tables file holds (a chart's cells are 4 deep), and far short of
# where tomllib, which recurses, or a reader of the values would fail (1,000 deep did).
MOST_DEPTH = 32


class BoundError(ValueError):
    """What is wrong, without naming the file: the caller names it as its messages do."""


def _kind(mode: int) -> str:
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((word for test, word in kinds if test(mode)), "not a plain file")


def read_bounded(
    path: str | os.PathLike[str],
    limit: int,
    *,
    follow_links: bool = True,
    owner: int | None = None,
) -> bytes:
    """The bytes of the plain file at `path`, at most `limit` of them: opened (without
    following a link when `follow_links` is false) and its kind, size (and owner, when
    `owner` is given) taken from the open file before anything is read; then at most
    `limit` + 1 bytes are read (a file growing meanwhile is caught too). Raises BoundError
    (not a plain file, not `owner`'s, or over `limit`) or OSError (cannot be opened or
    read)."""
    flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK  # a FIFO opens without a writer
    if not follow_links:
        flags |= os.O_NOFOLLOW
    fd = os.open(path, flags)
    try:
        status = os.fstat(fd)
        allowed = f"only a plain file of at most {limit:,} bytes is read"
        if not stat.S_ISREG(status.st_mode):
            raise BoundError(f"{_kind(status.st_mode)}, not a file; {allowed}")
        if owner is not None and status.st_uid != owner:
            raise BoundError(f"owned by user {status.st_uid}, not by {owner}")
        if status.st_size > limit:
            raise BoundError(f"{status.st_size:,} bytes; {allowed}")
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        if left <= 0:
            raise BoundError(f"over {limit:,} bytes (it grew as it was read); {allowed}")
        return b"".join(chunks)
    finally:
        os.close(fd)


# What may hold a bracket without nesting anything: TOML's strings (multi-line ones first)
# and comments. Every other bracket or brace opens or closes an array, a table or a header.
# Compiled at the first text measured (see _skipped_or_bracket): a start that parses no TOML
# (`crtdesk resolve` with the tables' kept copy) compiles none.
_SKIPPED_OR_BRACKET = (
    r'"""(?:[^\\]|\\.)*?"""'
    r"|'''.*?'''"
    r'|"(?:[^"\\\n]|\\.)*"'
    r"|'[^'\n]*'"
    r"|#[^\n]*"
    r"|[\[\]{}]"
)


@cache
def _skipped_or_bracket() -> re.Pattern[str]:
    return re.compile(_SKIPPED_OR_BRACKET, re.DOTALL)


def bracket_depth(text: str) -> int:
    """How deep arrays and inline tables open in a TOML text (brackets and braces outside
    strings and comments), measured without parsing it. A bracket in a string left open
    (text tomllib refuses anyway) counts as if outside."""
    depth = deepest = 0
    for found in _skipped_or_bracket().finditer(text):
        token = found.group()
        if token in ("[", "{"):
            depth += 1
            deepest = max(deepest, depth)
        elif token in ("]", "}"):
            depth = max(0, depth - 1)
    return deepest


def value_depth(value: Any) -> int:
    """How deep tables and arrays nest in what TOML parsed to (the document itself is 1):
    dotted keys nest without a bracket. Iterative: any depth is measured."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


def _too_deep(depth: int | None) -> str:
    found = f"nested {depth:,} deep" if depth is not None else "nested deeper than Python reads"
    return f"{found}; a TOML file here is nested at most {MOST_DEPTH} deep"


def loads_bounded(text: str) -> dict[str, Any]:
    """`tomllib.loads(text)`, its nesting bounded: a text nested more than MOST_DEPTH deep
    (by brackets, before it is parsed; or by dotted keys, after) raises BoundError saying
    how deep it is and the limit. TOMLDecodeError as tomllib raises it."""
    # Imported by what parses TOML: a start that reads the tables' kept copy parses none
    # (tui.engine.tables), and `crtdesk resolve` starts without tomllib.
    import tomllib

    depth = bracket_depth(text)
    if depth > MOST_DEPTH:
        raise BoundError(_too_deep(depth))
    try:
        data = tomllib.loads(text)
    except RecursionError:  # never at MOST_DEPTH brackets; kept as the last line of defence
        raise BoundError(_too_deep(None)) from None
    depth = value_depth(data)
    if depth > MOST_DEPTH:
        raise BoundError(_too_deep(depth))
    return data
