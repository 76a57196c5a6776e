"""Derived data kept beside a save: what the readers of a long campaign need of each entry
(a row of the log, a luck record, the report's words), worked out once and kept in
`NAME.toml.kept-KIND`, checked against the save each time it is read.

The save stays the one source of truth. A kept file records what of the save it covers
(the bytes up to the last entry's end line, their CRC-32, the number of entries and the
last one's number), who derived it (the caller's deriver name and version) and the game's
state after the last entry covered (turn, options, markers, units). It is used only when
the save's first `covered` bytes still have that checksum: a save that only grew has its
new entries derived and appended to the kept file; one edited, cut shorter, repaired or
replaced (same size or not) has it built again from the save, entry by entry. A kept file
that is not exactly as written (garbage, a link, another program's, too large) is built
again; nothing in it is trusted before its checksums and types hold, and it is never
followed through a link.

The form (see docs/save-format.md): frames of `length, crc32, body`, the body a tag byte
and MessagePack (msgspec, typed on the way in):
- `H`: the header: a magic string, the form's version, the kind, the deriver's version;
- `R`: up to `BATCH` records, one per entry: `seq, turn, who, ruleset, kind, offset,
  size, derived` (offset -1 where the whole-file reader read the entry);
- `M`: a mark: what of the save the records before it cover, and the game's state there.
Only what lies before the last whole mark is read; an append writes records and a mark
after it. Built from the same save, a kept file is the same bytes.

The store is below the readers: the derivers are given by the caller (`derive(entry)`),
never imported here. Headless: never imports textual or rich.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import stat
import struct
import tempfile
import zlib
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import msgspec

from tui.saves import files
from tui.saves.checking import _check_header, _entry_problem
from tui.saves.decoding import (
    _SEPARATOR,
    TomlError,
    _BlockError,
    _decode_blocks,
    _last_end,
    _torn_cut,
    header_loads,
    toml_reads,
)
from tui.saves.encoding import MAX_ENTRY
from tui.saves.errors import SaveError
from tui.saves.loading import _read_header, _torn_text
from tui.saves.locking import _locked, _open, _require
from tui.saves.replay import Game, Marker, _apply_state
from tui.saves.state import read_state, state_line
from tui.saves.streaming import Place, read_again, read_entries

MAGIC = "crtdesk kept data"
FORM = 1
BATCH = 64  # records per `R` frame: what a reader holds at once
_FRAME = struct.Struct(">II")  # a frame's body length and its CRC-32
_COUNT = struct.Struct(">I")  # an `R` frame's number of records, before its MessagePack
MAX_FRAME = 64 * 1024 * 1024  # no frame this form writes is larger
# Past this many bytes appended since the kept data was written, it is built again from
# the whole save (read entry by entry) rather than the new bytes read at once.
MAX_GROWTH = 8 * 1024 * 1024
# A kept file extended this many times is written again with its last mark only.
MAX_MARKS = 16
_KIND_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,31}\Z")
_LOG_LINE = _SEPARATOR[1:]
_CHUNK = 1024 * 1024
_T = TypeVar("_T")


class KeptDataError(Exception):
    """A kept record that is not of the type its reader asked for (a kept file forged or
    written by other code, its checksums holding): raised as the records are read, before
    the record is given. `kept_fold` builds the kept file again and reads from the start."""


class KeptRecord(NamedTuple):
    """One entry's derived record, in save order, with what every reader filters on and
    where the entry lies (`Place`; None where the whole-file reader read it)."""

    seq: int
    turn: int
    who: str
    ruleset: str | None
    kind: str
    place: Place | None
    data: Any


class _Mark(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """What of the save the records before the mark cover, and the game there."""

    covered: int  # the save's bytes covered: through the last entry's end line
    count: int  # entries covered
    last_seq: int  # the last one's number (0: none)
    crc: int  # CRC-32 of the save's first `covered` bytes
    lines: int  # newlines in them (to name the line of a torn entry after them)
    state: bytes  # the game after the last entry covered (`state.state_line`), b"": none
    combats: bytes  # a bit per entry number, set for a combat (what `amends` may name), deflated


_HEADER = msgspec.msgpack.Decoder(tuple[str, int, str, str])
_MARK = msgspec.msgpack.Decoder(_Mark)
_ENCODER = msgspec.msgpack.Encoder()


class _Kept(NamedTuple):
    """A kept file as read: its descriptor, its `R` frames before the last mark (offset
    of the body, its length), the mark, where the mark ends, and how many marks it has."""

    fd: int
    frames: list[tuple[int, int]]
    mark: _Mark
    end: int
    marks: int


def kept_path(path: Path, name: str) -> Path:
    """Where the kept data of kind `name` of the save at `path` lives."""
    return Path(path).with_name(f"{Path(path).name}.kept-{name}")


def kept_records(
    path: Path,
    name: str,
    version: str,
    derive: Callable[[dict[str, Any]], Any],
    kind: Any = Any,
    *,
    progress: Callable[[int], object] | None = None,
) -> tuple[KeptRecords, Game]:
    """The derived records of the save at `path` (one per entry, `derive(entry)`, decoded
    as `kind`), in save order, and the game after its last entry (entries left out), as
    `read_entries` then `stream.game` give them. The kept file `name` is used where it
    matches the save and the deriver (`name`, `version`), extended where the save only
    grew, and built again otherwise. A save a load refuses
    raises its SaveError. `progress(n)`, if given, is called after each entry read from
    the save (n so far).

    Each kept record is decoded once, as it is given: one not of type `kind` (a forged
    file whose checksums hold) raises KeptDataError then, after the records before it were
    given. A reader that must not show part of them reads through `kept_fold`."""
    path = Path(path)
    header = _header(path, name, version)
    found = _use(path, header, derive, kind, progress)
    if found is not None:
        return found
    decoder = _decoder(kind)
    return read_again(
        lambda: _read_back(_building(path, name, header, derive, progress, keep_open=True), decoder)
    )


def kept_fold(
    path: Path,
    name: str,
    version: str,
    derive: Callable[[dict[str, Any]], Any],
    kind: Any,
    fold: Callable[[KeptRecords], _T],
    *,
    progress: Callable[[int], object] | None = None,
) -> tuple[_T, Game]:
    """`fold(records)` of the save's records (`kept_records`) and the game. Where a kept
    record is not of type `kind` (KeptDataError), the kept file is built again from the
    save and `fold` called again, on the records from the first: `fold` starts afresh at
    each call, and what it returns was made from records of the right type only.

    Where the kept file is built, `fold` is given each batch of records as it is derived
    and written, not read back from the file once it is whole: a first read does not
    decode what it has just encoded (about 5% of a first `report`). The records are the
    same either way where every entry was read by the JSON readers (text, numbers,
    booleans, arrays and tables only: a record decoded from its bytes equals the record
    encoded, which the readers' tests hold); once tomllib has read one (a hand edit, which
    may hold a date or a time, given back as text by a read of the kept file), each batch
    is given decoded from its bytes, as the next read will give it. Those records are
    given once: `fold` reads them through in one pass (as every fold does). (A text that
    is not ASCII, once encoded, keeps its UTF-8 copy too: a fold keeping many such texts
    holds more than it would of texts decoded.)"""
    path = Path(path)
    header = _header(path, name, version)
    found = _use(path, header, derive, kind, progress)
    if found is not None:
        records, game = found
        with records:
            try:
                return fold(records), game
            except KeptDataError:
                pass
    decoder = _decoder(kind)
    return read_again(
        lambda: _folded(
            _building(path, name, header, derive, progress, keep_open=False, decoder=decoder),
            fold,
        )
    )


def _header(path: Path, name: str, version: str) -> tuple[str, int, str, str]:
    """A kept file's header for kind `name` of the deriver `version` (its name checked),
    once the save at `path` is found to be a plain file."""
    if not _KIND_NAME.match(name):
        raise ValueError(f"kept data name {name!r}: lower-case letters, digits and '-'")
    _require(path)
    return (MAGIC, FORM, name, version)


def _decoder(kind: Any) -> Any:
    return msgspec.msgpack.Decoder(list[tuple[int, int, str, str | None, str, int, int, kind]])


def kept_places(
    path: Path, *, progress: Callable[[int], object] | None = None
) -> tuple[KeptRecords, Game]:
    """`kept_records` with nothing derived (kind `state`): each entry's number, turn,
    player, ruleset, kind and place, and the game after the last entry."""
    return kept_records(path, "state", "1", _nothing, progress=progress)


def kept_places_fold(
    path: Path,
    fold: Callable[[KeptRecords], _T],
    *,
    progress: Callable[[int], object] | None = None,
) -> tuple[_T, Game]:
    """`kept_fold` of the records `kept_places` gives."""
    return kept_fold(path, "state", "1", _nothing, Any, fold, progress=progress)


def kept_game(path: Path) -> Game | None:
    """The game after the save's last entry from the kept state (`kept_places`), worked
    out from the save where none matches it. None when the save has a torn last entry (the
    caller reads it as a load does)."""
    records, game = kept_places(path)
    records.close()
    return None if game.warnings else game


def _nothing(entry: dict[str, Any]) -> None:
    return None


class KeptRecords:
    """The records of a kept file, read frame by frame (a long campaign's are never held
    whole), then any derived since it was read. Iterable again; `close` lets go of the
    file (also on leaving a `with`)."""

    def __init__(
        self, fd: int | None, frames: list[tuple[int, int]], more: list[Any], decoder: Any
    ) -> None:
        self._fd = fd
        self._frames = frames
        self._more = more
        self._decoder = decoder

    def __iter__(self) -> Iterator[KeptRecord]:
        for rows in self._batches():
            yield from _records(rows)

    def rows(self) -> Iterator[tuple[int, int, str, str | None, str, int, int, Any]]:
        """The records as plain tuples, `seq, turn, who, ruleset, kind, offset, size,
        data` (offset -1: no place), made faster than `KeptRecord`s."""
        for rows in self._batches():
            yield from rows

    def _batches(self) -> Iterator[list[Any]]:
        decode = self._decoder.decode
        for offset, length in self._frames:
            if self._fd is None:
                raise ValueError("the kept records are closed")
            body = files._read_range(self._fd, offset, offset + length)
            try:
                rows = decode(memoryview(body)[1 + _COUNT.size :])
            except msgspec.DecodeError as error:
                raise KeptDataError(f"kept records at byte {offset}: {error}") from None
            if len(rows) != _COUNT.unpack_from(body, 1)[0]:
                raise KeptDataError(f"kept records at byte {offset}: not as many as counted")
            yield rows
        if self._more:
            yield decode(_ENCODER.encode(self._more))

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> KeptRecords:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


def _records(rows: list[tuple[Any, ...]]) -> Iterator[KeptRecord]:
    for seq, turn, who, ruleset, kind, offset, size, data in rows:
        place = None if offset < 0 else Place(offset, size)
        yield KeptRecord(seq, turn, who, ruleset, kind, place, data)


def _row(entry: dict[str, Any], place: Place | None, derived: Any) -> list[Any]:
    ruleset = entry.get("ruleset")
    return [
        entry["seq"],
        entry["turn"],
        entry["who"],
        ruleset if isinstance(ruleset, str) else None,
        entry["kind"],
        -1 if place is None else place.offset,
        0 if place is None else place.size,
        derived,
    ]


# Reading a kept file ------------------------------------------------------------------


def _open_kept(where: Path, header: tuple[str, int, str, str]) -> _Kept | None:
    """The kept file at `where` if it is a plain file of this form, kind and deriver, and
    its frames whole to its last mark; else None (it is then built again). Its records'
    types are checked as they are read (`KeptRecords`)."""
    try:
        fd = os.open(where, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None  # none, a link (never followed), or not ours to read
    try:
        found = _frames(fd, header)
    except (OSError, ValueError, msgspec.DecodeError):
        found = None
    if found is None:
        os.close(fd)
        return None
    frames, mark, end, marks = found
    return _Kept(fd, frames, mark, end, marks)


def _frames(
    fd: int, header: tuple[str, int, str, str]
) -> tuple[list[tuple[int, int]], _Mark, int, int] | None:
    """The `R` frames before the last mark, the mark, where it ends and the number of marks
    before it; None where the file is not whole to a mark of this kind. Only the frames'
    checksums and counts are checked here; their records are decoded (and so checked
    against the reader's types) once, as they are read."""
    status = os.fstat(fd)
    if not stat.S_ISREG(status.st_mode):
        return None
    size = status.st_size
    at = 0
    frames: list[tuple[int, int]] = []
    pending: list[tuple[int, int]] = []
    counted = 0
    mark: _Mark | None = None
    end = 0
    marks = 0
    first = True
    while at + _FRAME.size <= size:
        length, crc = _FRAME.unpack(os.pread(fd, _FRAME.size, at))
        start = at + _FRAME.size
        if length < 1 or length > MAX_FRAME or start + length > size:
            break  # a torn append (or not this form): only what the last mark covers
        body = files._read_range(fd, start, start + length)
        if len(body) != length or zlib.crc32(body) != crc:
            break
        tag = body[:1]
        if first:
            if tag != b"H" or _HEADER.decode(body[1:]) != header:
                return None
            first = False
        elif tag == b"R" and length > _COUNT.size:
            count = _COUNT.unpack_from(body, 1)[0]
            pending.append((start, length))
            counted += count
        elif tag == b"M":
            candidate = _MARK.decode(body[1:])
            if candidate.count != counted:
                return None
            frames.extend(pending)
            pending = []
            mark, end = candidate, start + length
            marks += 1
        else:
            return None
        at = start + length
    if mark is None:
        return None
    return frames, mark, end, marks


def _use(
    path: Path,
    header: tuple[str, int, str, str],
    derive: Callable[[dict[str, Any]], Any],
    kind: Any,
    progress: Callable[[int], object] | None,
) -> tuple[KeptRecords, Game] | None:
    """The records (decoded as `kind`) and game of the kept file where it matches the save
    (extended with what was appended since), or None where there is none or it does not
    (nothing of it then held open)."""
    kept = _open_kept(kept_path(path, header[2]), header)
    if kept is None:
        return None
    decoder = _decoder(kind)
    given = False  # the kept file's descriptor handed to the records returned
    try:
        mark = kept.mark
        # The save's size and what was appended since are read under the shared lock (no
        # entry half written); the covered bytes after it, on a descriptor of its own (the
        # store's writers never change a byte before the last entry's end line).
        save_fd = -1
        try:
            with _locked(path, exclusive=False):
                save_fd = _open(path, writable=False)
                size = os.fstat(save_fd).st_size
                if size < mark.covered or size - mark.covered > MAX_GROWTH:
                    return None
                data = files._read_range(save_fd, mark.covered, size)
                header_bytes = _read_header(save_fd, size)
            if _prefix(save_fd, mark.covered)[0] != mark.crc:
                return None
        finally:
            if save_fd != -1:
                os.close(save_fd)
        game = _game(path, header_bytes, mark)
        if game is None:
            return None
        grown = _grown(path, data, mark, game)
        if grown is None:
            return None
        reads, new_end, warning = grown
        if warning:
            game.warnings.append(warning)
        if not reads:
            given = True
            return KeptRecords(kept.fd, kept.frames, [], decoder), game
        markers: dict[str, Marker] = {m.id: m for m in game.markers}
        combats = _unpack_bits(mark.combats, mark.last_seq)
        if combats is None:
            return None
        rows = []
        for entry, place in reads:
            _apply_state(game, entry, markers)
            if entry["kind"] == "combat":
                _set_bit(combats, entry["seq"])
            rows.append(_row(entry, place, derive(entry)))
            if progress is not None:
                progress(len(rows))
        game.markers = list(markers.values())
        game.end = new_end
        last_seq = reads[-1][0]["seq"]
        grown_mark = _Mark(
            covered=new_end,
            count=mark.count + len(rows),
            last_seq=last_seq,
            crc=_crc_on(mark.crc, data[: new_end - mark.covered]),
            lines=mark.lines + data[: new_end - mark.covered].count(b"\n"),
            state=state_line(game, last_seq),
            combats=_pack_bits(combats),
        )
        _extend(kept_path(path, header[2]), kept, rows, grown_mark)
        given = True
        return KeptRecords(kept.fd, kept.frames, rows, decoder), game
    finally:
        if not given:
            os.close(kept.fd)


def _game(path: Path, header_bytes: bytes, mark: _Mark) -> Game | None:
    """The game the mark keeps, its header read from the save (within the bytes covered)."""
    at = header_bytes.find(_SEPARATOR)
    header_bytes = header_bytes[: at + 1] if at != -1 else header_bytes
    if len(header_bytes) > mark.covered:
        return None
    try:
        header = header_loads(header_bytes.decode("utf-8"))
        _check_header(path, header_bytes, header)
    except (TomlError, UnicodeDecodeError, SaveError):
        return None
    game = read_state(mark.state, path, header, mark.last_seq)
    if game is None:
        return None
    game.end = mark.covered
    return game


def _grown(
    path: Path, data: bytes, mark: _Mark, game: Game
) -> tuple[list[tuple[dict[str, Any], Place]], int, str] | None:
    """The entries appended after the bytes covered (`data`), checked as a load checks
    them, with their places; where the last ends; a torn entry's warning. None where they
    are not as the store writes them (the whole save is then read again)."""
    end = _last_end(data)
    cut = _torn_cut(data)
    warning = ""
    if cut is not None:
        dropped = len(data) - cut
        rest = data[cut:]
        blank = len(rest) - len(rest.lstrip())
        line = mark.lines + data[:cut].count(b"\n") + rest[:blank].count(b"\n") + 1
        warning = _torn_text(path, dropped, line)
    elif data[end:].strip():
        return None  # what follows is not an entry as the store writes it
    if not data[:end].strip():
        return [], mark.covered, warning
    if not data.startswith(_SEPARATOR):
        return None
    blocks = []
    at = mark.covered + 1  # the first [[log]] line
    for part in data[len(_SEPARATOR) : end].split(_SEPARATOR):
        blocks.append((at, part))
        at += len(_LOG_LINE) + len(part) + 1
    if any(len(part) > MAX_ENTRY for _, part in blocks):
        return None
    try:
        entries = _decode_blocks(blocks)
    except (_BlockError, ValueError):  # TOML and UTF-8 errors are ValueErrors
        return None
    bits = _unpack_bits(mark.combats, mark.last_seq)
    if bits is None:
        return None
    combats = set(_bits(bits))
    previous = mark.last_seq
    reads = []
    for (offset, part), entry in zip(blocks, entries, strict=True):
        if _entry_problem(entry, previous, combats):
            return None
        previous = entry["seq"]
        if entry["kind"] == "combat":
            combats.add(previous)
        reads.append((entry, Place(offset, len(_LOG_LINE) + len(part))))
    return reads, mark.covered + end, warning


def _prefix(fd: int, covered: int, *, lines: bool = False) -> tuple[int, int]:
    """The CRC-32 of the file's first `covered` bytes and (`lines`) their newlines, read in
    chunks."""
    crc = 0
    newlines = 0
    at = 0
    while at < covered:
        chunk = os.pread(fd, min(_CHUNK, covered - at), at)
        if not chunk:
            return -1, 0  # shorter than it was
        crc = zlib.crc32(chunk, crc)
        if lines:
            newlines += _newlines(chunk)
        at += len(chunk)
    return crc, newlines


def _newlines(data: bytes) -> int:
    """The newlines in `data`, counted as the bytes a `replace` takes out: about half
    `bytes.count`'s instructions for one byte (it finds each by `memchr`, where `count`
    looks at every byte), on lines as long as an entry's. A piece at a time, so what it
    holds meanwhile does not grow with `data`."""
    newlines = 0
    for at in range(0, len(data), _PIECE):
        piece = data[at : at + _PIECE]
        newlines += len(piece) - len(piece.replace(b"\n", b""))
    return newlines


_PIECE = 1 << 16  # bytes `_newlines` copies at a time


def _crc_on(crc: int, data: bytes) -> int:
    return zlib.crc32(data, crc)


def _set_bit(bits: bytearray, seq: int) -> None:
    if seq >= len(bits) * 8:
        bits.extend(bytes(seq // 8 + 1 - len(bits)))
    bits[seq // 8] |= 1 << (seq % 8)


def _pack_bits(bits: bytearray) -> bytes:
    return zlib.compress(bytes(bits), 6)


def _unpack_bits(packed: bytes, last_seq: int) -> bytearray | None:
    """The bits a mark keeps (at most one per entry number up to `last_seq`), or None."""
    most = last_seq // 8 + 1
    try:
        inflate = zlib.decompressobj()
        bits = inflate.decompress(packed, most)
    except zlib.error:
        return None
    if inflate.unconsumed_tail or not inflate.eof:
        return None
    return bytearray(bits)


def _bits(bits: bytes) -> Iterator[int]:
    for i, byte in enumerate(bits):
        if byte:
            for j in range(8):
                if byte >> j & 1:
                    yield i * 8 + j


# Writing a kept file --------------------------------------------------------------------


def _frame(tag: bytes, body: bytes) -> bytes:
    body = tag + body
    return _FRAME.pack(len(body), zlib.crc32(body)) + body


def _batch(rows: list[list[Any]]) -> bytes:
    return _frame(b"R", _COUNT.pack(len(rows)) + _ENCODER.encode(rows))


def _mark_frame(mark: _Mark) -> bytes:
    return _frame(b"M", _ENCODER.encode(mark))


def _read_back(
    building: Generator[list[Any], None, tuple[int, list[tuple[int, int]], Game]], decoder: Any
) -> tuple[KeptRecords, Game]:
    """The kept file `building` writes (`_building`, `keep_open`), once whole, read back."""
    try:
        while True:
            next(building)
    except StopIteration as done:
        fd, frames, game = done.value
    return KeptRecords(fd, frames, [], decoder), game


def _folded(
    building: Generator[list[Any], None, tuple[int, Any, Game]], fold: Callable[[KeptRecords], _T]
) -> tuple[_T, Game]:
    """`fold` of the records as `building` derives them into a new kept file, and the game:
    the file is written whole even where `fold` stops reading early."""
    live = _Live(building)
    with live:
        found = fold(live)
        return found, live.finish()


def _building(
    path: Path,
    name: str,
    header: tuple[str, int, str, str],
    derive: Callable[[dict[str, Any]], Any],
    progress: Callable[[int], object] | None,
    *,
    keep_open: bool,
    decoder: Any = None,
) -> Generator[list[Any], None, tuple[int, list[tuple[int, int]], Game]]:
    """Derive every entry's record from the save, read entry by entry, into a new kept
    file (named only when the save did not change while it was read), giving each batch of
    rows as it is written: as derived while every entry was read by the JSON readers, else
    (a hand edit tomllib read, which may hold a date or a time) decoded by `decoder` from
    the bytes written, as a read of the kept file gives them. At the end: the file's
    descriptor (closed, -1, unless `keep_open`), its `R` frames (the body's offset and
    length) and the game. Where the save has no kept state (`kept_places`), it is written
    in the same pass: the desk's open or a turn after this read reads no log. Closed before
    its end (the caller gone), it leaves nothing behind."""
    before = os.stat(path, follow_symlinks=False)
    fd, temp = _make_temp(path, name)
    state = _StateBeside.made(path) if name != "state" else None
    try:
        out = _Out(fd)
        out.write(_frame(b"H", _ENCODER.encode(list(header))))
        combats = bytearray()
        frames: list[tuple[int, int]] = []
        rows: list[list[Any]] = []
        count = 0
        last_seq = 0
        typed_at = toml_reads()
        stream = read_entries(path)
        for entry, place in stream:
            rows.append(_row(entry, place, derive(entry)))
            last_seq = entry["seq"]
            if entry["kind"] == "combat":
                at = last_seq >> 3  # `_set_bit`, the call saved
                if at >= len(combats):
                    combats.extend(bytes(at + 1 - len(combats)))
                combats[at] |= 1 << (last_seq & 7)
            count += 1
            if progress is not None:
                progress(count)
            if len(rows) == BATCH:
                frame = _batch(rows)
                frames.append(out.write(frame))
                if state is not None:
                    state.write(rows)
                yield rows if decoder is None or toml_reads() == typed_at else _rows(frame, decoder)
                rows = []
        if rows:
            frame = _batch(rows)
            frames.append(out.write(frame))
            if state is not None:
                state.write(rows)
            yield rows if decoder is None or toml_reads() == typed_at else _rows(frame, decoder)
        game = stream.game
        assert game is not None
        save_fd = _open(path, writable=False)
        try:
            crc, lines = _prefix(save_fd, game.end, lines=True)
        finally:
            os.close(save_fd)
        mark = _Mark(
            covered=game.end,
            count=count,
            last_seq=last_seq,
            crc=crc,
            lines=lines,
            state=state_line(game, last_seq),
            combats=_pack_bits(combats),
        )
        out.write(_mark_frame(mark))
        same = _same_file(before, os.stat(path, follow_symlinks=False))
        if temp is not None:
            if same and crc >= 0 and mark.state:
                with contextlib.suppress(OSError):
                    os.replace(temp, kept_path(path, name))
            with contextlib.suppress(OSError):
                temp.unlink()
        if state is not None and same and crc >= 0 and mark.state:
            state.finish(mark)
        frames = [(offset + _FRAME.size, length - _FRAME.size) for offset, length in frames]
        if not keep_open:
            os.close(fd)
            fd = -1
    except BaseException:
        if temp is not None:
            with contextlib.suppress(OSError):
                temp.unlink()
        if fd != -1:
            os.close(fd)
        raise
    finally:
        if state is not None:
            state.close()
    return fd, frames, game


def _rows(frame: bytes, decoder: Any) -> list[Any]:
    """The rows of an `R` frame, decoded as a read of the kept file decodes them."""
    rows: list[Any] = decoder.decode(memoryview(frame)[_FRAME.size + 1 + _COUNT.size :])
    return rows


class _Live(KeptRecords):
    """The records of a kept file being built (`_building`), given batch by batch as they
    are derived and written: read once, in one pass. `finish` writes the rest and gives
    the game; `close` (or leaving a `with`) before then stops the build, leaving nothing."""

    def __init__(self, building: Generator[list[Any], None, tuple[int, Any, Game]]) -> None:
        super().__init__(None, [], [], None)
        self._building = building
        self._read = False
        self._game: Game | None = None

    def _next(self) -> list[Any] | None:
        """The next batch, or None once the build is done (its game then kept)."""
        try:
            return next(self._building)
        except StopIteration as done:
            self._game = done.value[2]
            return None

    def _batches(self) -> Iterator[list[Any]]:
        if self._read:
            raise ValueError("records given as they are derived are read once")
        self._read = True
        while self._game is None and (rows := self._next()) is not None:
            yield rows

    def finish(self) -> Game:
        """The game, once every record is derived and written (those not read too)."""
        self._read = True
        while self._game is None:
            self._next()
        return self._game

    def close(self) -> None:
        self._building.close()


class _StateBeside:
    """The kept state (`kept_places`) written beside another kind's build, from the same
    rows with nothing derived: the same bytes a build of its own writes."""

    def __init__(self, where: Path, fd: int, temp: Path) -> None:
        self.where = where
        self.temp = temp
        self.out = _Out(fd)
        self.out.write(_frame(b"H", _ENCODER.encode([MAGIC, FORM, "state", "1"])))

    @classmethod
    def made(cls, path: Path) -> _StateBeside | None:
        """One for the save at `path` where none is kept (nor anything in its name: a link
        is left for a read of its own to replace), and a file can be made beside it."""
        where = kept_path(path, "state")
        if os.path.lexists(where):
            return None
        try:
            fd, temp = files._create_beside(path, f".{path.name}.kept-", os.stat(path))
        except OSError:
            return None
        try:
            return cls(where, fd, temp)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                temp.unlink()
            raise

    def write(self, rows: list[list[Any]]) -> None:
        """The rows' frame with nothing derived (the rows themselves left as they are: a
        fold is given them next)."""
        self.out.write(_batch([[*row[:7], None] for row in rows]))

    def finish(self, mark: _Mark) -> None:
        """The mark written, and the file named (unless one was kept meanwhile)."""
        self.out.write(_mark_frame(mark))
        if not os.path.lexists(self.where):
            with contextlib.suppress(OSError):
                os.replace(self.temp, self.where)

    def close(self) -> None:
        os.close(self.out.fd)
        with contextlib.suppress(OSError):
            self.temp.unlink()


class _Out:
    """Frames written one after another, each in one write (nothing held between them)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.at = os.lseek(fd, 0, os.SEEK_END)

    def write(self, frame: bytes) -> tuple[int, int]:
        """Write `frame`; its offset and length (the frame's header included)."""
        where = (self.at, len(frame))
        files._write_all(self.fd, frame)
        self.at += len(frame)
        return where


def _make_temp(path: Path, name: str) -> tuple[int, Path | None]:
    """A new file beside the save for its kept data (with the save's mode, never through a
    link, locked while it is written: see `files._create_beside`); where the folder takes
    no new file, an unnamed one elsewhere (the records are then derived for this read only)."""
    try:
        mode = os.stat(path)
        fd, temp = files._create_beside(path, f".{path.name}.kept-", mode)
        return fd, temp
    except OSError:
        with tempfile.TemporaryFile() as handle:
            return os.dup(handle.fileno()), None


def _extend(where: Path, kept: _Kept, rows: list[list[Any]], mark: _Mark) -> None:
    """Append the records derived since the kept file was written, and a mark after them,
    unless another process extended (or replaced) it meanwhile. Failing to write is no
    problem: the next read derives them again."""
    try:
        fd = os.open(where, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return
    try:
        here, read = os.fstat(fd), os.fstat(kept.fd)
        if (here.st_dev, here.st_ino) != (read.st_dev, read.st_ino):
            return  # replaced since it was read
        fcntl.flock(fd, fcntl.LOCK_EX)
        if _mark_after(fd, kept.end):
            return  # extended by another reader meanwhile
        if kept.marks >= MAX_MARKS:
            _compact(where, kept, rows, mark)
            return
        os.ftruncate(fd, kept.end)  # a torn append after the last mark, if any
        os.lseek(fd, kept.end, os.SEEK_SET)
        out = _Out(fd)
        for start in range(0, len(rows), BATCH):
            out.write(_batch(rows[start : start + BATCH]))
        out.write(_mark_frame(mark))
    except (OSError, ValueError, msgspec.DecodeError):
        return
    finally:
        os.close(fd)


def _compact(where: Path, kept: _Kept, rows: list[list[Any]], mark: _Mark) -> None:
    """The kept file written again with its records as they are, the new ones after them
    and only the last mark (each append of a mark keeps the game's state again)."""
    save = where.with_name(where.name.rpartition(".kept-")[0])
    fd, temp = files._create_beside(save, f".{save.name}.kept-", os.stat(save))
    try:
        out = _Out(fd)
        length, _ = _FRAME.unpack(os.pread(kept.fd, _FRAME.size, 0))
        out.write(files._read_range(kept.fd, 0, _FRAME.size + length))
        for offset, size in kept.frames:
            out.write(files._read_range(kept.fd, offset - _FRAME.size, offset + size))
        for start in range(0, len(rows), BATCH):
            out.write(_batch(rows[start : start + BATCH]))
        out.write(_mark_frame(mark))
        os.replace(temp, where)
    finally:
        with contextlib.suppress(OSError):
            temp.unlink()
        os.close(fd)


def _mark_after(fd: int, at: int) -> bool:
    """Whether a whole mark follows offset `at` (another reader's append)."""
    size = os.fstat(fd).st_size
    while at + _FRAME.size <= size:
        length, crc = _FRAME.unpack(os.pread(fd, _FRAME.size, at))
        start = at + _FRAME.size
        if length < 1 or length > MAX_FRAME or start + length > size:
            return False
        body = files._read_range(fd, start, start + length)
        if zlib.crc32(body) != crc:
            return False
        if body[:1] == b"M":
            return True
        at = start + length
    return False


def _same_file(before: os.stat_result, now: os.stat_result) -> bool:
    fields = ("st_dev", "st_ino", "st_size", "st_mtime_ns", "st_ctime_ns")
    return all(getattr(before, name) == getattr(now, name) for name in fields)


__all__ = [
    "KeptDataError",
    "KeptRecord",
    "KeptRecords",
    "kept_fold",
    "kept_game",
    "kept_path",
    "kept_places",
    "kept_places_fold",
    "kept_records",
]
