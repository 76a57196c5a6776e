"""What the readers of a whole log (luck, the report, the review's rows, the losses) keep of
each entry beside the save (`saves.kept_records`): each reader's record is derived once,
the first time a save is read (or an entry appended since), then read back instead of the
entries. The store checks the kept records against the save; the version here says what
made them, so records made by other code or from other tables are never used.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import zlib

from tui.engine.tables import Tables

# Bumped whenever a reader's record changes what it holds or how it is worked out.
RECORDS = "2"


def version(tables: Tables | None = None) -> str:
    """The version of the records made with `tables` (a record made from other tables, a
    changed tables.toml, is not the same record): RECORDS and a checksum of the tables."""
    if tables is None:
        return RECORDS
    return f"{RECORDS}-{zlib.crc32(repr(tables.data).encode()):08x}"
