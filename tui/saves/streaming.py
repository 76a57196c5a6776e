"""Reading a save entry by entry: what `load_game` gives, without ever holding the whole
file or every entry in memory at once.

`read_entries(path)` reads the file in chunks, splits each chunk into `[[log]]` blocks
as the whole-file reader splits the whole file, decodes and checks each block as it does,
and replays the game as it goes: iterating gives every entry with where it lies in the
file (`Place`), and afterwards `stream.game` is what `load_game` gives, its entries left
out. `read_entry(path, place)` reads one entry again from where it lies.

The file is the truth, and the whole-file reader has the last word on it: at anything the
streamed reader does not read as the store writes it (a hand edit it cannot split, an entry
that fails its checks, a header it cannot read), it hands over to `load_game`, which
either reports the problem as a load always does (its line, what is wrong) or reads the
file, and the remaining entries come from there (without a place: the caller keeps them).

The shared lock is held only while the file's size and its end (a torn last entry) are
read; the store never changes a byte before the last complete entry's end line (entries
are only appended; a repair cuts only a torn entry after it), so the entries up to there
are read without it, and a writer is not held up for the length of the read.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import msgspec
from msgspec.structs import replace

from tui.saves import files
from tui.saves.checking import _batch_fits, _check_entry, _check_header, _entry_problem
from tui.saves.decoding import (
    _SEPARATOR,
    TomlError,
    _BlockError,
    _decode_blocks,
    _last_end,
    _torn_cut,
    header_loads,
)
from tui.saves.encoding import MAX_ENTRY
from tui.saves.errors import SaveError
from tui.saves.loading import StaleOffset, _tail, _torn_text, load_game
from tui.saves.locking import _locked, _open, _require
from tui.saves.replay import Game, Marker, _apply_state, _new_game

CHUNK = 256 * 1024
# Entries decoded at a time: few enough that a reader which lets each go once it has used
# it frees them before the cyclic collector's first generation fills (700 objects) and
# walks them, many enough that each decode's fixed cost stays small. By callgrind on a
# 2,000-entry save, the collector's share of the read: 16 M instructions with a chunk's
# 150 entries at a time, 1.5 M with 8 (the read as a whole about 1% less).
BATCH = 8
_LOG_LINE = _SEPARATOR[1:]  # "[[log]]\n": an entry's first line
_LOG_LINE_SIZE = len(_LOG_LINE)


class Place(msgspec.Struct, frozen=True):
    """Where an entry lies in its save: the offset of its `[[log]]` line and the bytes
    from there through its end line (the newline before the next entry's not counted)."""

    offset: int
    size: int


class Read(NamedTuple):
    """One entry as read, and where it lies (None: read by the whole-file reader)."""

    entry: dict[str, Any]
    place: Place | None


# A combat with none of these keys changes nothing in the game (`_apply_state`: it places
# no marker and changes no unit): its replay is left out.
_STATEFUL = frozenset({"markers", "losses", "open_losses"})
_tuple_new = tuple.__new__


def _read(entry: dict[str, Any], block: tuple[int, bytes]) -> Read:
    """`Read(entry, Place(offset, size))` of an entry and its block (offset, body), the
    tuple made without NamedTuple's Python-level __new__."""
    return _tuple_new(Read, (entry, Place(block[0], _LOG_LINE_SIZE + len(block[1]))))


class _HandOver(Exception):
    """Something the streamed reader does not read as the store writes it: the whole-file
    reader reads the file instead (and names the problem, if there is one)."""


def read_entries(path: Path, chunk: int | None = None) -> EntryStream:
    """The save at `path`, read entry by entry (see the module's docstring), `chunk` bytes
    at a time (`CHUNK`, looked up at each call, unless given)."""
    return EntryStream(Path(path), chunk)


class EntryStream:
    """Iterate for each entry of a save with its place, oldest first, checked as a load
    checks them; once iterated to the end, `game` is what `load_game` gives but for its
    entries (`[]`). A problem is the SaveError `load_game` raises. Each iteration reads the
    file again."""

    def __init__(self, path: Path, chunk: int | None = None) -> None:
        chunk = CHUNK if chunk is None else chunk
        if chunk < 1:
            raise ValueError(f"chunk must be 1 byte or more, not {chunk}")
        self.path = path
        self.chunk = chunk
        self.game: Game | None = None

    def __iter__(self) -> Iterator[Read]:
        self.game = None
        path = self.path
        _require(path)
        with _locked(path, exclusive=False):
            # A descriptor of its own, read on after the lock is let go (no writer changes
            # a complete entry's bytes): a dup of the locked one would keep the lock.
            fd = _open(path, writable=False)
            try:
                size = os.fstat(fd).st_size
                tail_start, tail = _tail(fd, size)
            except BaseException:
                os.close(fd)
                raise
        try:
            reader = _Reader(fd, path, size, tail_start, tail, self.chunk)
            try:
                # Given on as they come (the reader counts what it gave, for a hand-over).
                yield from reader.entries()
                self.game = reader.game
                return
            except _HandOver:
                pass
        finally:
            os.close(fd)
        yield from self._whole(reader.taken, reader.last_seq)

    def _whole(self, taken: int, last_seq: int) -> Iterator[Read]:
        """The rest of the entries from the whole-file reader, after `taken` already given."""
        game = load_game(self.path)  # a save it refuses is refused here, in its words
        if taken and (len(game.entries) < taken or game.entries[taken - 1]["seq"] != last_seq):
            raise StaleOffset(f"{self.path}: the file changed while it was read; read it again")
        for entry in game.entries[taken:]:
            yield Read(entry, None)
        self.game = replace(game, entries=[])


class _Reader:
    """One pass over the file's bytes up to its last complete entry."""

    def __init__(
        self, fd: int, path: Path, size: int, tail_start: int, tail: bytes, chunk: int
    ) -> None:
        self.fd = fd
        self.path = path
        self.chunk = chunk
        self.size = size
        self.tail_start = tail_start
        self.tail = tail
        # What a load keeps: all but a torn last entry; and where its last end line ends.
        self.cut = _torn_cut(tail, tail_start)
        self.kept = size if self.cut is None else self.cut
        self.end = tail_start + _last_end(tail[: self.kept - tail_start])
        self.read_to = 0
        self.newlines = 0
        self.game: Game | None = None
        # The entries given so far, and the number of the last: where the whole-file
        # reader takes over, after a hand-over.
        self.taken = 0
        self.last_seq = 0

    def _more(self) -> bytes:
        """The next chunk of what a load keeps (b"" at its end)."""
        stop = min(self.kept, self.read_to + self.chunk)
        data = files._read_range(self.fd, self.read_to, stop)
        if len(data) != stop - self.read_to:
            raise _HandOver  # the file is shorter than it was: the whole-file reader reads it
        self.read_to = stop
        if self.cut is not None:  # counted only for the torn entry's line
            self.newlines += data.count(b"\n")
        return data

    def entries(self) -> Iterator[Read]:
        buffer = b""
        first = -1
        while first == -1:
            more = self._more()
            if not more:
                raise _HandOver  # no entries, or not laid out as the store writes them
            # The separator may straddle two chunks: search from just before the new bytes.
            from_ = max(0, len(buffer) - len(_SEPARATOR) + 1)
            buffer += more
            first = buffer.find(_SEPARATOR, from_)
        game = self._start(buffer[: first + 1])
        markers: dict[str, Marker] = {}
        previous = 0
        combats: set[int] = set()
        for chunk_blocks in self._blocks(buffer, first):
            for start in range(0, len(chunk_blocks), BATCH):
                blocks = chunk_blocks[start : start + BATCH]
                try:
                    decoded = _decode_blocks(blocks)
                except (TomlError, UnicodeDecodeError, _BlockError) as err:
                    raise _HandOver from err
                # Checked together (one conversion to the schema for the batch); where
                # that says "look closer", each in turn, as before, as it is given.
                last = _batch_fits(decoded, previous, combats)
                if last is None:
                    for (offset, part), entry in zip(blocks, decoded, strict=True):
                        if _entry_problem(entry, previous, combats):
                            raise _HandOver
                        previous = entry["seq"]
                        if entry["kind"] == "combat":
                            combats.add(previous)
                        _apply_state(game, entry, markers)
                        self.taken += 1
                        self.last_seq = previous
                        yield Read(entry, Place(offset, len(_LOG_LINE) + len(part)))
                    continue
                for read in map(_read, decoded, blocks):
                    entry = read[0]
                    # Only an entry whose kind changes the game is replayed (`_quiet`).
                    if entry["kind"] != "combat" or not entry.keys().isdisjoint(_STATEFUL):
                        _apply_state(game, entry, markers)
                    yield read
                self.taken += len(decoded)
                self.last_seq = previous = last
        game.markers = list(markers.values())
        game.end = self.end
        if self.cut is not None:
            game.warnings.append(self._torn_warning())
        self.game = game

    def _start(self, header_bytes: bytes) -> Game:
        """The game the header starts (checked as a load checks it)."""
        try:
            header = header_loads(header_bytes.decode("utf-8"))
        except (TomlError, UnicodeDecodeError) as err:
            raise _HandOver from err
        if "log" in header:
            raise _HandOver  # entries the split did not find (CRLF line ends, say)
        try:
            _check_header(self.path, header_bytes, header)
        except SaveError as err:
            raise _HandOver from err
        return _new_game(self.path, header, [])

    def _blocks(self, buffer: bytes, first: int) -> Iterator[list[tuple[int, bytes]]]:
        """Each chunk's complete blocks as (offset of the `[[log]]` line, body after it),
        split as `bytes.split` splits the whole: at every separator, left to right."""
        at = first + len(_SEPARATOR)  # where the block being read starts, in `buffer`
        base = 0  # the file offset of buffer[0]
        search = at
        while True:
            blocks = []
            found = buffer.find(_SEPARATOR, search)
            while found != -1:
                blocks.append((base + at - len(_LOG_LINE), buffer[at:found]))
                at = found + len(_SEPARATOR)
                found = buffer.find(_SEPARATOR, at)
            more = self._more()
            if not more:
                blocks.append((base + at - len(_LOG_LINE), buffer[at:]))
                yield blocks
                return
            if blocks:
                yield blocks
            search = max(0, len(buffer) - at - len(_SEPARATOR) + 1)
            if len(buffer) - at > MAX_ENTRY + len(_SEPARATOR):
                # No entry is written so large: the whole-file reader names it (its line,
                # its size), and this read's memory does not grow with it.
                raise _HandOver
            base += at
            buffer = buffer[at:] + more
            at = 0

    def _torn_warning(self) -> str:
        """What a load says of the torn last entry it leaves out."""
        assert self.cut is not None
        rest = self.tail[self.cut - self.tail_start :]
        blank = len(rest) - len(rest.lstrip())
        line = self.newlines + rest[:blank].count(b"\n") + 1
        return _torn_text(self.path, self.size - self.cut, line)


_Result = TypeVar("_Result")


def read_again(read: Callable[[], _Result], attempts: int = 3) -> _Result:
    """`read()`, a whole pass over a save with `read_entries`, made again when the file was
    written over while it was read (StaleOffset), at most `attempts` times in all."""
    while True:
        try:
            return read()
        except StaleOffset:
            attempts -= 1
            if attempts <= 0:
                raise


def read_entry(path: Path, place: Place, seq: int) -> dict[str, Any]:
    """Entry `seq` read again from its place in the save (as `read_entries` gave it),
    checked as a load checks it. StaleOffset when the file no longer holds that entry there
    (rewritten, or cut shorter): read it whole again.

    Read without the lock: no writer of the store changes a byte of a complete entry."""
    path = Path(path)
    fd = _open(path, writable=False)
    try:
        data = files._read_range(fd, place.offset, place.offset + place.size)
    finally:
        os.close(fd)
    stale = StaleOffset(f"{path}: entry {seq} is no longer at byte {place.offset}; read it again")
    if len(data) != place.size or not data.startswith(_LOG_LINE):
        raise stale
    try:
        [entry] = _decode_blocks([(place.offset, data[len(_LOG_LINE) :])])
    except (_BlockError, ValueError) as err:  # TOML and UTF-8 errors are ValueErrors
        raise stale from err
    if _check_entry(entry) is not None or entry["seq"] != seq:
        raise stale
    return entry


def read_game(path: Path, *, keep: int = 0) -> Game:
    """What `load_game` gives, read entry by entry: the game its log replays to, with only
    its last `keep` entries (none by default), read again if the file was written over
    while it was read. A long campaign is never held whole. SaveError as `load_game`."""

    def read() -> Game:
        stream = read_entries(path)
        kept: deque[dict[str, Any]] = deque(maxlen=keep)
        for entry, _ in stream:
            kept.append(entry)
        assert stream.game is not None
        return replace(stream.game, entries=list(kept))

    return read_again(read)


def entries_numbered(fd: int, path: Path, seq: int) -> list[dict[str, Any]] | None:
    """Entry `seq` and those after it, up to the first later combat or turn (what decides
    whether a card may still be played after its roll), of the save open as `fd`, whose
    lock the caller holds, read entry by entry and checked as a load checks it ([] when
    there is none); None when the streamed reader does not read the file as the store
    writes it (read it whole)."""
    size = os.fstat(fd).st_size
    tail_start, tail = _tail(fd, size)
    reader = _Reader(fd, path, size, tail_start, tail, CHUNK)
    found: list[dict[str, Any]] = []
    try:
        for read in reader.entries():
            entry = read.entry
            if entry["seq"] < seq:
                continue
            found.append(entry)
            if entry["seq"] > seq and entry.get("kind") in ("combat", "turn"):
                break
        return found
    except _HandOver:
        return None
