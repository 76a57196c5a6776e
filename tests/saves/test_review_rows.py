"""The log review's rows, read entry by entry: each row shows and filters as the entry read
from the whole-file load does, the entry in full is read again from the file, entries that
come in later update the rows they point at, and the review keeps far less than the log."""

from __future__ import annotations

import gc
import tempfile
import tracemalloc
import weakref
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.generated_saves import NAMES, logs, write_save
from tests.review_save import campaign
from tui import saves
from tui.reports.review_data import (
    Filter,
    Index,
    detail_text,
    entry_cells,
    search_text,
)
from tui.reports.review_rows import read_for_review


def whole_log_index(entries: list[dict[str, Any]]) -> Index:
    """The index as worked out with every entry at hand, each kept in full."""
    index = Index()
    by_seq = {entry["seq"]: entry for entry in entries}
    index.entry_of = by_seq.get
    for entry in entries:
        if entry["kind"] == "note":
            index.notes_on.setdefault(entry["annotates"], []).append(entry)
        if isinstance(entry.get("amends"), int):
            index.amended_by.setdefault(entry["amends"], []).append(entry)
    return index


def matches(wanted: Filter, entry: dict[str, Any], search: str) -> bool:
    """What a filter lets through, read from the entry in full."""
    if wanted.turns is not None and not wanted.turns[0] <= entry["turn"] <= wanted.turns[1]:
        return False
    if wanted.ruleset is not None and entry.get("ruleset") != wanted.ruleset:
        return False
    if wanted.player is not None and str(entry.get("who", "")).lower() != wanted.player:
        return False
    return all(word in search for word in wanted.words)


FILTERS = st.builds(
    Filter,
    turns=st.none() | st.tuples(st.integers(1, 3), st.integers(1, 4)),
    ruleset=st.none() | st.sampled_from(["rivets", "pod-basic"]),
    player=st.none() | NAMES.map(str.lower),
    words=st.lists(
        st.sampled_from(["dx", "note", "1-1", "ann", "over", "no effect"]), max_size=2
    ).map(tuple),
)


@settings(max_examples=40, deadline=None)
@given(log=logs(), chunk=st.integers(1, 400), wanted=FILTERS)
def test_each_row_shows_and_filters_as_its_entry_in_the_whole_log(
    log: list[tuple[dict[str, Any], str]], chunk: int, wanted: Filter
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.toml"
        write_save(path, log)
        game = saves.load_game(path)
        loaded, read = read_for_review(path, chunk)
        entries = game.entries
        index = whole_log_index(entries)
        cells = [entry_cells(entry, index) for entry in entries]
        search = [search_text(e, c, index) for e, c in zip(entries, cells, strict=True)]

        rows = loaded.rows
        assert [row.cells_by_key() for row in rows] == cells
        assert [row.search for row in rows] == search
        assert [(r.seq, r.turn, r.who, r.ruleset) for r in rows] == [
            (e["seq"], e["turn"], e["who"], e.get("ruleset")) for e in entries
        ]
        assert (read.title, read.turn, read.markers, read.entries) == (
            game.title,
            game.turn,
            game.markers,
            [],  # none kept unless asked for
        )
        for position, entry in enumerate(entries):
            assert loaded.entry(position) == entry
            assert detail_text(loaded.entry(position), loaded.index) == detail_text(entry, index)
        shown = [i for i, row in enumerate(rows) if wanted.matches(row)]
        assert shown == [i for i, e in enumerate(entries) if matches(wanted, e, search[i])]
        # Read as the store writes it, no entry is kept whole: each is read again on demand.
        if all(layout != "multi-line" for _, layout in log):
            assert all(row.entry is None and row.place is not None for row in rows)


def test_entries_appended_later_update_the_rows_they_point_at(tmp_path: Path) -> None:
    path, _ = campaign(tmp_path, 40)
    loaded, _ = read_for_review(path, 512)
    for entry in (
        saves.append_note(path, 12, "held the ford", who="ann"),
        saves.append_note(path, 41, "a note on the note", who="bob"),
    ):
        loaded.add(entry)
    again, _ = read_for_review(path)
    assert [row.cells for row in loaded.rows] == [row.cells for row in again.rows]
    assert [row.search for row in loaded.rows] == [row.search for row in again.rows]
    assert loaded.rows[11].cells_by_key()["note"] == "held the ford"
    assert "Note (entry 41, ann, " in detail_text(loaded.entry(11), loaded.index)
    # The entries appended are kept whole; those read from the file are read again.
    assert [row.entry is not None for row in loaded.rows[-3:]] == [False, True, True]


def test_the_review_keeps_a_fraction_of_what_the_whole_log_holds(tmp_path: Path) -> None:
    path, _ = campaign(tmp_path, 2_000)
    tracemalloc.start()
    try:
        game = saves.load_game(path)
        load_kept, load_peak = tracemalloc.get_traced_memory()
        del game
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        loaded, _ = read_for_review(path)
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(loaded.rows) == 2_000
    # Its rows, not every entry as read; and at most a chunk's entries at a time on top.
    assert kept - before < load_kept / 3
    assert peak - before < load_peak / 2


def test_a_log_read_is_freed_as_soon_as_the_review_lets_it_go(tmp_path: Path) -> None:
    """No cycle holds a read log's rows: read again, the old one is freed at once, not at
    the next full collection (which would walk every row)."""
    path, _ = campaign(tmp_path, 40)
    loaded, _ = read_for_review(path)
    position = loaded.position(12)
    assert position is not None and loaded.index.entry_of(12) == loaded.entry(position)
    freed = weakref.ref(loaded)
    entry_of = loaded.index.entry_of
    gc.disable()
    try:
        del loaded
        assert freed() is None
    finally:
        gc.enable()
    assert entry_of(12) is None  # the index kept elsewhere reads nothing once it is gone


def test_a_whole_read_keeps_the_games_last_entries_when_asked(tmp_path: Path) -> None:
    """The game a whole read replayed, with its last entries as the desk keeps an open game
    (the review hands it to the session of a save not open)."""
    path, _ = campaign(tmp_path, 40)
    game = saves.load_game(path)
    _, read = read_for_review(path, 512, keep=5)
    assert read.entries == game.entries[-5:] and len(read.entries) == 5
    assert (read.turn, read.markers) == (game.turn, game.markers)
