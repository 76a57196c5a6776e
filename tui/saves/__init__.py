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

The package, by role:
- `paths` (folders, names), `errors` (SaveError);
- `encoding` (writing blocks), `decoding` (parsing, the fast reader), `checking`
  (validation), `replay` (Game, markers, `apply_entry`);
- `locking` (the flock on the save and the lock file's record), `files` (bytes in and out,
  files made beside a save);
- `loading` (load, list, the ends of a file, entries appended after an offset),
  `streaming` (a load entry by entry, for a long save read without holding it all),
  `repair`;
- `appending` (the one append path), and the entries by kind: `creating` (a new save),
  `combats`, `markers` (and turns), `notes` (and events), `options`.

This module gives the public names, each imported from its module when first asked for (a
desk that only loads a save imports no appending or repair code): `saves.load_game(...)`.
A test that replaces a store function patches it where it is used (the low-level reads and
writes, `files._read_range` and `files._write_all`, are always called through `files`).

Headless: never imports textual or rich.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

# Each public name and the module of the package it lives in: imported when first asked
# for, so a desk that only loads a save imports no appending, repair or marker code.
_HOMES: dict[str, str] = {
    "DEFAULT_OPTIONS": "checking",
    "ENTRY_KINDS": "checking",
    "KNOWN_OPTIONS": "checking",
    "options_in_play": "checking",
    "append_combat": "combats",
    "check_combat_units": "combats",
    "UNSPECIFIED_TARGET": "combats",
    "new_game": "creating",
    "no_gc": "decoding",
    "FORMAT_VERSION": "encoding",
    "SaveError": "errors",
    "write_beside": "files",
    "KeptDataError": "kept_data",
    "KeptRecord": "kept_data",
    "KeptRecords": "kept_data",
    "kept_fold": "kept_data",
    "kept_game": "kept_data",
    "kept_path": "kept_data",
    "kept_places": "kept_data",
    "kept_places_fold": "kept_data",
    "kept_records": "kept_data",
    "GameSummary": "loading",
    "has_games": "loading",
    "list_games": "loading",
    "load_game": "loading",
    "read_new_entries": "loading",
    "StaleOffset": "loading",
    "require_save": "locking",
    "add_marker": "markers",
    "advance_turn": "markers",
    "remove_marker": "markers",
    "append_event": "notes",
    "append_note": "notes",
    "set_option": "options",
    "FILE_MODE": "paths",
    "save_path": "paths",
    "SAVES_ENV": "paths",
    "saves_folder": "paths",
    "repair_save": "repair",
    "Repaired": "repair",
    "add_unit": "units",
    "edit_unit": "units",
    "remove_unit": "units",
    "import_units": "units",
    "take_losses": "units",
    "unit_fields": "units",
    "game_state": "units",
    "apply_entry": "replay",
    "canonical_kind": "replay",
    "Game": "replay",
    "Marker": "replay",
    "MARKER_KINDS": "replay",
    "EntryStream": "streaming",
    "Place": "streaming",
    "Read": "streaming",
    "read_again": "streaming",
    "read_entries": "streaming",
    "read_entry": "streaming",
    "read_game": "streaming",
}

__all__ = [
    "DEFAULT_OPTIONS",
    "ENTRY_KINDS",
    "FILE_MODE",
    "FORMAT_VERSION",
    "KNOWN_OPTIONS",
    "options_in_play",
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
__all__ += ["EntryStream", "Place", "Read", "read_again", "read_entries", "read_entry", "read_game"]
__all__ += ["no_gc", "write_beside"]
__all__ += ["KeptRecord", "KeptRecords", "kept_game", "kept_path", "kept_places", "kept_records"]
__all__ += ["KeptDataError", "kept_fold", "kept_places_fold"]


def __getattr__(name: str) -> Any:
    """A public name (or one of the internals the tests and the benchmark read) from its
    module, imported on first use; a submodule by its name (`saves.streaming`)."""
    home = _HOMES.get(name)
    if home is None:
        try:
            return import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])
