"""What the readers of a whole log (luck, the report, the review's rows, the losses) keep of
each entry beside the save (`saves.kept_records`): each reader's record is derived once,
the first time a save is read (or an entry appended since), then read back instead of the
entries. The store checks the kept records against the save; the version here says what
made them, so records made by other code or from other tables are never used.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import zlib
from typing import Any

import msgspec

from tui.engine.tables import Tables

_ENCODE = msgspec.msgpack.Encoder().encode

# Bumped whenever a reader's record changes what it holds or how it is worked out.
RECORDS = "4"


def version(tables: Tables | None = None) -> str:
    """The version of the records made with `tables` (a record made from other tables, a
    changed tables.toml, is not the same record): RECORDS and a checksum of the tables."""
    if tables is None:
        return RECORDS
    return f"{RECORDS}-{zlib.crc32(repr(tables.data).encode()):08x}"


class Memo:
    """Work kept within a run by the values that decide it (a long campaign fights, rolls and
    words the same combats again and again): found by the values' MessagePack bytes (which
    tell an int from a float or a bool, and a dict's keys' order), then compared with the
    values kept (which tells a text from a date that encodes as that text). Values that do
    not encode (a number too large) are never kept. Let go, all at once, past `most`."""

    def __init__(self, most: int) -> None:
        self.most = most
        self._found: dict[bytes, tuple[Any, Any]] = {}

    def get(self, values: Any) -> tuple[bytes | None, Any]:
        """The key of `values` (None: not kept) and what was kept for them (None: none)."""
        try:
            key = _ENCODE(values)
        except (TypeError, ValueError, OverflowError):
            return None, None
        found = self._found.get(key)
        if found is not None and found[0] == values:
            return key, found[1]
        return key, None

    def put(self, key: bytes | None, values: Any, result: Any) -> None:
        if key is None:
            return
        if len(self._found) >= self.most:
            self._found.clear()
        self._found[key] = (values, result)
