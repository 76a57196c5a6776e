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

This module re-exports the public names: `from tui import saves; saves.load_game(...)`.
A test that replaces a store function patches it where it is used (the low-level reads and
writes, `files._read_range` and `files._write_all`, are always called through `files`).

Headless: never imports textual or rich.
"""

from __future__ import annotations

from tui.saves.appending import _now, _who
from tui.saves.checking import DEFAULT_OPTIONS, ENTRY_KINDS, KNOWN_OPTIONS, options_in_play
from tui.saves.combats import UNSPECIFIED_TARGET, append_combat
from tui.saves.creating import new_game
from tui.saves.decoding import _fast_json, _json_or_toml, _torn_cut, _verified_body, no_gc
from tui.saves.encoding import FORMAT_VERSION, _block
from tui.saves.errors import SaveError
from tui.saves.files import write_beside
from tui.saves.loading import (
    GameSummary,
    StaleOffset,
    has_games,
    list_games,
    load_game,
    read_new_entries,
)
from tui.saves.locking import require_save
from tui.saves.markers import add_marker, advance_turn, remove_marker
from tui.saves.notes import append_event, append_note
from tui.saves.options import set_option
from tui.saves.paths import FILE_MODE, SAVES_ENV, save_path, saves_folder
from tui.saves.repair import Repaired, repair_save
from tui.saves.replay import MARKER_KINDS, Game, Marker, apply_entry, canonical_kind
from tui.saves.streaming import (
    EntryStream,
    Place,
    Read,
    read_again,
    read_entries,
    read_entry,
    read_game,
)

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

# Internals the tests and the benchmark read (never patch: see the docstring above).
_INTERNALS = (_block, _fast_json, _json_or_toml, _now, _torn_cut, _verified_body, _who)
