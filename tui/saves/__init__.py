"""The save-file store: one TOML file per game, an append-only log, markers replayed from it.

A save is a short header (format, title, rulesets, created, options) followed by one
`[[log]]` entry per change: a combat, a marker placed or removed, a turn advanced, an
option set. Nothing already written is ever rewritten. Each entry is appended in one
write under an exclusive `flock` on the save file itself (opened without following a
link) and ends with the line
`# end of entry N crc32 XXXXXXXX`, so a write cut short (a killed process, a full disk)
is recognised by its missing end line. Reading never changes the file: a load reports
such a torn entry and leaves it out; the next write, or `repair_save`, copies the file
aside as `NAME.toml.bak-<UTC time>` and cuts it off. The marker state and the current turn
are the replay of the entries.

Reading stays fast for long campaigns: an entry whose checksum matches was written by this
store, in a form whose values are JSON once the `key = ` separators are rewritten, so all
such entries are read by one `json.loads`; any other entry (edited by hand) goes through
`tomllib`. An append refuses a save that a load would refuse, yet reads only the header and
the last entry while the file matches the record the store keeps in the lock file, so it
costs the same on a 10,000-entry save as on a new one.

The package, by role: `paths` (folders, names), `encoding` (writing blocks), `decoding`
(parsing, the fast reader), `checking` (validation), `replay` (Game, markers,
`apply_entry`), `store` (locking, append, load, list, repair), `streaming` (a load entry
by entry, for a long save read without holding it all). This module re-exports the public
names: `from tui import saves; saves.load_game(...)`.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from tui.saves import checking, decoding, encoding, errors, paths, replay, store, streaming
from tui.saves.checking import DEFAULT_OPTIONS, ENTRY_KINDS, KNOWN_OPTIONS
from tui.saves.decoding import _fast_json, _json_or_toml, _torn_cut, _verified_body, no_gc
from tui.saves.encoding import FORMAT_VERSION, _block
from tui.saves.errors import SaveError
from tui.saves.paths import FILE_MODE, SAVES_ENV, save_path, saves_folder
from tui.saves.replay import MARKER_KINDS, Game, Marker, apply_entry, canonical_kind
from tui.saves.store import (
    UNSPECIFIED_TARGET,
    GameSummary,
    Repaired,
    StaleOffset,
    _now,
    _read_range,
    _who,
    _write_all,
    add_marker,
    advance_turn,
    append_combat,
    append_event,
    append_note,
    has_games,
    list_games,
    load_game,
    new_game,
    read_new_entries,
    remove_marker,
    repair_save,
    require_save,
    set_option,
    write_beside,
)
from tui.saves.streaming import EntryStream, Place, Read, read_again, read_entries, read_entry

__all__ = [
    "DEFAULT_OPTIONS",
    "ENTRY_KINDS",
    "FILE_MODE",
    "FORMAT_VERSION",
    "KNOWN_OPTIONS",
    "MARKER_KINDS",
    "SAVES_ENV",
    "UNSPECIFIED_TARGET",
    "Game",
    "GameSummary",
    "Marker",
    "Repaired",
    "SaveError",
    "add_marker",
    "advance_turn",
    "append_combat",
    "append_event",
    "append_note",
    "apply_entry",
    "canonical_kind",
    "has_games",
    "list_games",
    "load_game",
    "new_game",
    "remove_marker",
    "repair_save",
    "require_save",
    "save_path",
    "saves_folder",
    "set_option",
]
__all__ += ["StaleOffset", "read_new_entries"]
__all__ += ["EntryStream", "Place", "Read", "read_again", "read_entries", "read_entry"]
__all__ += ["no_gc", "write_beside"]

# Internals the tests and the benchmark reach for, re-exported as before the split.
_INTERNALS = (_block, _fast_json, _json_or_toml, _now, _read_range, _torn_cut, _verified_body)
_INTERNALS += (_who, _write_all)
_MODULES = (errors, paths, encoding, decoding, checking, replay, store, streaming)


class _Package(types.ModuleType):
    """Setting a name on the package (a test's `monkeypatch.setattr(saves, "_who", ...)`)
    sets it in every module of the package that holds the same object, so the store calls
    the replacement, as it did when the store was one module."""

    def __setattr__(self, name: str, value: Any) -> None:
        old = self.__dict__.get(name)
        if old is not None:
            for module in _MODULES:
                if module.__dict__.get(name) is old:
                    setattr(module, name, value)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
