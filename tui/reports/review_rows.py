"""The log review's rows: what it keeps of each entry of a save, and the reading of a save
into them (headless; the screen, `tui.desk.screens.review`, shows them).

The save is read entry by entry (`saves.read_entries`), so a long campaign's log is never
held whole: each entry is kept in columns (its number, turn, player, ruleset and place in
the file) with the text the filters search, its cells made when it is shown and the entry
read again in full when it is shown in full. The rows hold no game: the review shows the
game (title, turn, markers) its session holds, and a whole read hands the game it replayed
on to that session when it has none.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import bisect
import weakref
from array import array
from collections import OrderedDict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast, overload

import msgspec
from msgspec.structs import replace

from tui import saves
from tui.engine.text import one_line, when_text
from tui.reports.kept import Memo, version
from tui.reports.review_data import (
    CELL_KEYS,
    Filter,
    Index,
    Shown,
    entry_cells,
    search_text,
    shown_elsewhere,
)


class ReviewRecord(msgspec.Struct, array_like=True, omit_defaults=True, frozen=True):
    """What the review keeps of one entry (`review_record`), small and encodable: its
    player and ruleset as the rows show them, the text the filters search (as nothing
    after it changes it: a note or card on it is added as it comes), the entry it points
    at (a note's, a card's) and what it shows of itself there."""

    who: str
    search: str
    ruleset: Any = None
    pointed: Any = None
    shown: tuple[Shown, ...] = ()


# A combat's search text after its number, turn, time and player, by the rest of the entry,
# kept within a run: a long campaign fights the same combats again and again.
_SEARCHED = Memo(4096)
_OWN = frozenset({"seq", "turn", "when", "who"})


def _search_of(entry: dict[str, Any]) -> str:
    """The text the filters search in an entry with nothing shown on it (no note or card
    after it): a combat's, whose cells but the first four (number, turn, time, player)
    follow from the rest of it, worked out once for the same rest."""
    index = Index()
    if entry["kind"] != "combat":
        return search_text(entry, entry_cells(entry, index), index)
    # The first four cells, as `entry_cells` makes them, then a space: lower-cased apart
    # from the rest, as a space ends every context lower-casing reads.
    own = (
        f"{entry['seq']} {entry['turn']} {when_text(str(entry.get('when', '')))[5:]} "
        f"{one_line(entry.get('who', ''))} "
    ).lower()
    rest = tuple(item for item in entry.items() if item[0] not in _OWN)
    key, found = _SEARCHED.get(rest)
    if found is not None:
        return own + cast(str, found)
    search = search_text(entry, entry_cells(entry, index), index)
    if search.startswith(own):
        _SEARCHED.put(key, rest, search[len(own) :])
    return search


def review_record(entry: dict[str, Any]) -> ReviewRecord:
    """What the review keeps of one entry: the same for the same entry, whatever came
    before it."""
    pointed = entry.get("annotates") if entry["kind"] == "note" else entry.get("amends")
    return ReviewRecord(
        who=str(entry.get("who", "")),
        search=_search_of(entry),
        ruleset=entry.get("ruleset"),
        pointed=pointed,
        shown=shown_elsewhere(entry),
    )


@dataclass(slots=True)
class Row:
    """One entry as the review shows it: its cells (in CELL_KEYS order), what the filters
    read, and where it lies in the save to read it in full; or, without a place, the entry
    itself (read from the end of the file, appended since, or read by the whole-file
    reader). Made when asked for (`Loaded.rows`): the review keeps its rows in columns."""

    seq: int
    turn: int
    who: str
    ruleset: str | None
    cells: tuple[str, ...]
    search: str
    place: saves.Place | None
    entry: dict[str, Any] | None = None

    def cells_by_key(self) -> dict[str, str]:
        return dict(zip(CELL_KEYS, self.cells, strict=True))


_NO_PLACE = -1
# The rows whose cells are kept at once: a screenful or two, and some scrolling either way.
_CELLS_KEPT = 512


class Loaded:
    """A save read off the UI thread: what the review keeps of each entry, ready to show.

    Kept compact for a long campaign: per entry its number, turn, player, ruleset and place
    in the save in arrays, and the text the filters search; the cells of a row are made
    when it is shown (the entry read again from its place) and only the last few hundred
    kept. `rows` gives each entry as a `Row`."""

    def __init__(self, path: Path, index: Index | None = None, partial: bool = False) -> None:
        self.path = path
        self.index = index or Index()
        # Only the log's last entries (`read_tail`): the whole log is still being read.
        self.partial = partial
        self._seq = array("q")
        self._turn = array("q")
        self._who = array("l")  # into _names
        self._ruleset = array("l")  # into _names; -1: none
        self._offset = array("q")  # _NO_PLACE: the entry is in _kept
        self._size = array("q")
        self._search: list[str] = []
        self._names: list[Any] = []
        self._name_ids: dict[Any, int] = {}
        self._kept: dict[int, dict[str, Any]] = {}
        self._cells: OrderedDict[int, tuple[str, ...]] = OrderedDict()
        # Through a weak reference: a bound method here made every Loaded a cycle, its rows
        # kept after the review let it go until a full collection walked them all.
        loaded = weakref.ref(self)

        def entry_of(seq: int) -> dict[str, Any] | None:
            found = loaded()
            return None if found is None else found.entry_of(seq)

        self.index.entry_of = entry_of

    def __len__(self) -> int:
        return len(self._seq)

    @property
    def rows(self) -> _Rows:
        return _Rows(self)

    def _name_id(self, value: Any) -> int:
        if value is None:
            return -1
        try:
            found = self._name_ids.get(value)
        except TypeError:  # not a name at all (a hand edit): shown as text
            value = str(value)
            found = self._name_ids.get(value)
        if found is None:
            found = self._name_ids[value] = len(self._names)
            self._names.append(value)
        return found

    def add(self, entry: dict[str, Any], place: saves.Place | None = None) -> None:
        """The next entry's row (the entry itself kept when it has no place); an entry a
        note or card points at shows it in its own row too."""
        self.add_record(review_record(entry), entry["seq"], entry["turn"], place, entry)

    def add_record(
        self,
        record: ReviewRecord,
        seq: int,
        turn: int,
        place: saves.Place | None,
        entry: dict[str, Any] | None = None,
    ) -> None:
        """The next entry's row from its record (`review_record`), its number, turn and
        place; without a place, the entry itself is kept (`entry`, then required)."""
        self.index.add_shown(record.shown)
        position = len(self._seq)
        self._seq.append(seq)
        self._turn.append(turn)
        self._who.append(self._name_id(record.who))
        self._ruleset.append(self._name_id(record.ruleset))
        self._offset.append(place.offset if place is not None else _NO_PLACE)
        self._size.append(place.size if place is not None else 0)
        if place is None:
            assert entry is not None
            self._kept[position] = entry
        if seq in self.index.notes_on or seq in self.index.amended_by:
            # Shown on by an entry before it (a hand edit's): as its entry reads now.
            self._search.append(self._search_of(self.entry(position)))
        else:
            self._search.append(record.search)
        pointed = record.pointed
        at = self.position(pointed) if isinstance(pointed, int) else None
        if at is not None and at < position:
            self._search[at] = self._search_of(self.entry(at))
            self._cells.pop(at, None)

    def _search_of(self, entry: dict[str, Any]) -> str:
        return search_text(entry, entry_cells(entry, self.index), self.index)

    def position(self, seq: int) -> int | None:
        """Where entry `seq` is among the rows (they are in the order of their numbers)."""
        at = bisect.bisect_left(self._seq, seq)
        return at if at < len(self._seq) and self._seq[at] == seq else None

    def seq(self, position: int) -> int:
        return self._seq[position]

    def turn(self, position: int) -> int:
        return self._turn[position]

    def who(self, position: int) -> str:
        return str(self._names[self._who[position]])

    def ruleset(self, position: int) -> str | None:
        found = self._ruleset[position]
        return None if found == -1 else self._names[found]

    def place(self, position: int) -> saves.Place | None:
        offset = self._offset[position]
        return None if offset == _NO_PLACE else saves.Place(offset, self._size[position])

    def entry(self, position: int) -> dict[str, Any]:
        """The entry of a row in full: kept, or read again from the save. SaveError
        (StaleOffset) when the file no longer holds it where it was read."""
        kept = self._kept.get(position)
        if kept is not None:
            return kept
        place = self.place(position)
        assert place is not None
        return saves.read_entry(self.path, place, self._seq[position])

    def entry_of(self, seq: int) -> dict[str, Any] | None:
        position = self.position(seq)
        return None if position is None else self.entry(position)

    def cells(self, position: int) -> tuple[str, ...]:
        """A row's cells (in CELL_KEYS order), made from its entry (read again from the
        save); a row whose entry is no longer where it was read says so in its result."""
        found = self._cells.get(position)
        if found is not None:
            self._cells.move_to_end(position)
            return found
        try:
            found = tuple(entry_cells(self.entry(position), self.index).values())
        except saves.SaveError:
            shown = {key: "" for key in CELL_KEYS}
            shown |= {"seq": str(self._seq[position]), "turn": str(self._turn[position])}
            shown["result"] = "(the save changed since it was read: read it again)"
            return tuple(shown.values())
        self._cells[position] = found
        if len(self._cells) > _CELLS_KEPT:
            self._cells.popitem(last=False)
        return found

    def search(self, position: int) -> str:
        return self._search[position]

    def matching(self, wanted: Filter) -> list[int]:
        """The positions of the rows `wanted` lets through, in order."""
        positions: Iterable[int] = range(len(self._seq))
        if wanted.turns is not None:
            low, high = wanted.turns
            turns = self._turn
            positions = [i for i in positions if low <= turns[i] <= high]
        if wanted.ruleset is not None:
            rulesets, names = self._ruleset, self._names
            positions = [
                i for i in positions if rulesets[i] != -1 and names[rulesets[i]] == wanted.ruleset
            ]
        if wanted.player is not None:
            whos, names = self._who, self._names
            positions = [i for i in positions if str(names[whos[i]]).lower() == wanted.player]
        if wanted.words:
            search, words = self._search, wanted.words
            positions = [i for i in positions if all(word in search[i] for word in words)]
        return list(positions)

    def row(self, position: int) -> Row:
        return Row(
            seq=self._seq[position],
            turn=self._turn[position],
            who=self.who(position),
            ruleset=self.ruleset(position),
            cells=self.cells(position),
            search=self._search[position],
            place=self.place(position),
            entry=self._kept.get(position),
        )


class _Rows(Sequence[Row]):
    """The rows of a `Loaded`, each made when asked for."""

    def __init__(self, loaded: Loaded) -> None:
        self.loaded = loaded

    def __len__(self) -> int:
        return len(self.loaded)

    @overload
    def __getitem__(self, position: int) -> Row: ...

    @overload
    def __getitem__(self, position: slice) -> list[Row]: ...

    def __getitem__(self, position: int | slice) -> Row | list[Row]:
        if isinstance(position, slice):
            return [self.loaded.row(i) for i in range(len(self))[position]]
        if position < 0:
            position += len(self)
        if not 0 <= position < len(self):
            raise IndexError(position)
        return self.loaded.row(position)


# The entries a long log shows first, read from the file's end, and the bytes read for them.
TAIL_ENTRIES = 100


_TAIL_BYTES = 192 * 1024


def read_tail(path: Path, count: int = TAIL_ENTRIES) -> Loaded | None:
    """The log's last `count` entries (at most), read from the end of the file with the
    store's reader of appended entries, ready to show while the whole log is read; None
    when the file is small enough to read whole at once, or its end cannot be read so
    (the whole-file reader then says why). A note or card points only at entries before
    it, so these entries' cells are the ones the whole log gives them."""
    try:
        size = path.stat().st_size
        if size <= _TAIL_BYTES:
            return None
        with path.open("rb") as file:
            file.seek(size - _TAIL_BYTES)
            data = file.read(_TAIL_BYTES)
        at = data.find(b"\n[[log]]\n")
        if at == -1:
            return None
        # Just past the end line of the entry before the first whole one read.
        entries, _ = saves.read_new_entries(path, size - _TAIL_BYTES + at)
    except (OSError, saves.SaveError, saves.StaleOffset):
        return None
    entries = entries[-count:]
    if not entries:
        return None
    loaded = Loaded(path, partial=True)
    for entry in entries:
        loaded.add(entry)
    return loaded


def read_for_review(
    path: Path, chunk: int | None = None, keep: int = 0
) -> tuple[Loaded, saves.Game]:
    """The whole log: a row for each entry, and the game its replay gives (header, turn,
    markers, and its last `keep` entries). Each row's record (`review_record`) is kept
    beside the save (`saves.kept_records`): worked out the first time, read back after;
    a log with an entry only the whole-file reader reads (`read_log`), or that changed
    while its last entries were read again, is read entry by entry. SaveError as
    `saves.load_game` raises it."""

    def fold(records: saves.KeptRecords) -> Loaded | None:
        """The rows, or None where an entry has no place."""
        loaded = Loaded(path)
        add = loaded.add_record
        for seq, at_turn, _, _, _, offset, size, data in records.rows():
            if offset < 0:
                return None
            add(data, seq, at_turn, saves.Place(offset, size))
        return loaded

    # Many small objects and no cycles: a collection on the way would walk them all.
    with saves.no_gc():
        found, game = saves.kept_fold(path, "review", version(), review_record, ReviewRecord, fold)
    if found is not None:
        loaded = found
        with saves.no_gc():
            try:
                last = [loaded.entry(i) for i in range(max(len(loaded) - keep, 0), len(loaded))]
            except saves.SaveError:
                pass
            else:
                return loaded, replace(game, entries=last)
    return read_log(path, chunk, keep)


def read_log(path: Path, chunk: int | None = None, keep: int = 0) -> tuple[Loaded, saves.Game]:
    """`read_for_review` of the log itself, read entry by entry (none kept beside it), read
    again if it was written over meanwhile."""

    def read() -> tuple[Loaded, saves.Game]:
        stream = saves.read_entries(path, chunk)
        loaded = Loaded(path)
        kept: deque[dict[str, Any]] = deque(maxlen=keep)
        # Millions of small objects and no cycles: a collection on the way would walk them
        # all, holding the desk (it answered keys 100 ms late now and then).
        with saves.no_gc():
            for entry, place in stream:
                loaded.add(entry, place)
                kept.append(entry)
        assert stream.game is not None
        return loaded, replace(stream.game, entries=list(kept))

    return saves.read_again(read)
