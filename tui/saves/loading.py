"""Reading a save: a whole load (`load_game`), the list of a folder's saves, the ends of a
file (its header and last entry, what an append and the list read), and the entries
appended after an offset (`read_new_entries`).

Reading never writes: a torn last entry is reported and left as it is.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from tui.saves import files
from tui.saves.checking import (
    _check,
    _check_entry,
    _check_header,
)
from tui.saves.decoding import (
    _END_LINE,
    _END_SEARCH,
    _SEPARATOR,
    TomlError,
    _BlockError,
    _decode,
    _json_or_toml,
    _last_end,
    _line_of,
    _Parsed,
    _toml_entry,
    _torn_cut,
    _verified_body,
    header_loads,
)
from tui.saves.encoding import MAX_ENTRY, MAX_SAVE, save_too_large
from tui.saves.errors import SaveError
from tui.saves.locking import _TAIL, _locked, _require
from tui.saves.replay import Game, _replay

if TYPE_CHECKING:
    pass


_WINDOW = 64 * 1024


class GameSummary(msgspec.Struct):
    path: Path
    title: str
    rulesets: list[str]
    turn: int
    last_entry: str | None
    error: str | None = None


def _torn_warning(path: Path, data: bytes, cut: int) -> str:
    """One line for a torn last entry found by a read: its bytes, and where a write keeps them."""
    start = cut + len(data[cut:]) - len(data[cut:].lstrip())
    return _torn_text(path, len(data) - cut, _line_of(data, start))


def _torn_text(path: Path, dropped: int, line: int) -> str:
    return (
        f"{path}: the last entry is torn (a write cut short): its {dropped} bytes "
        f"from line {line} on are left out; the next change to this save, "
        f"or `crtdesk repair {path.stem}`, keeps the whole file as it is in "
        f"{path}.bak-<UTC time> and cuts them off"
    )


def _refuse_empty(path: Path, data: bytes) -> None:
    """A save with nothing in it (a file made by hand, or a disk that filled up first)."""
    if not data.strip():
        raise SaveError(
            f"{path} is empty ({len(data)} bytes), not a crtdesk save: remove it to start "
            "a game under that name with `crtdesk new`"
        )


def load_game(path: Path) -> Game:
    """Read a whole save; the file is never changed. A torn last entry is left out and
    reported in `Game.warnings` (one line: its bytes, and where the next write or
    `repair_save` keeps them); any other problem is a SaveError naming the line."""
    path = Path(path)
    _require(path)
    with _locked(path, exclusive=False) as lock:
        size = os.fstat(lock.open_fd()).st_size
        if size > MAX_SAVE:  # grown since it was looked at: still refused before it is read
            raise SaveError(save_too_large(path, size))
        data = files._read_all(lock.open_fd())
    _refuse_empty(path, data)
    cut = _torn_cut(data)
    warnings = [_torn_warning(path, data, cut)] if cut is not None else []
    game = _replay(path, _parse(path, data[:cut]), warnings)
    game.end = _last_end(data[:cut])
    return game


def _parse(path: Path, data: bytes) -> _Parsed:
    """Header and entries of a whole save (torn tail already cut), checked as a load does."""
    parsed = _decode(path, data)
    _check(path, data, parsed)
    return parsed


def _save_files(folder: Path) -> list[Path]:
    """Every `*.toml` entry of the folder (not a hidden one, not a folder), by name, without
    following a link: a link, or anything else that is not a plain file, is listed, and its
    load says why it cannot be read. SaveError (one line) when the folder cannot be read."""
    folder = Path(folder)
    try:
        with os.scandir(folder) as entries:
            names = [
                entry.name
                for entry in entries
                if entry.name.endswith(".toml")
                and not entry.name.startswith(".")
                and not entry.is_dir(follow_symlinks=False)
            ]
    except FileNotFoundError:
        return []
    except OSError as err:
        raise SaveError(f"saves folder {folder} cannot be read: {err.strerror or err}") from None
    return [folder / name for name in sorted(names)]


def has_games(folder: Path) -> bool:
    """Whether `list_games` would list anything, without reading a save: True for a folder
    that cannot be read (its listing says so; nothing is made in it)."""
    try:
        return bool(_save_files(folder))
    except SaveError:
        return True


def list_games(folder: Path) -> list[GameSummary]:
    """Every save in a folder, newest last entry first; a broken one listed with its error,
    as is anything named like a save that is not a plain file (a link is never followed).
    SaveError (one line) only when the folder itself cannot be read."""
    summaries = []
    for path in _save_files(folder):
        try:
            with _locked(path, exclusive=False) as lock:
                header, last, _ = _read_ends(lock.open_fd(), path)
            summaries.append(
                GameSummary(
                    path=path,
                    title=header["title"],
                    rulesets=list(header["rulesets"]),
                    turn=_current_turn(last),
                    last_entry=last["when"] if last else None,
                )
            )
        except SaveError as err:
            summaries.append(GameSummary(path, path.stem, [], 0, None, error=str(err)))
        except (OSError, ValueError, RecursionError) as err:
            # Whatever one file holds, the others are listed: this one with what went wrong.
            error = f"{path}: cannot be read: {type(err).__name__}: {err}"
            summaries.append(
                GameSummary(path, path.stem, [], 0, None, error=" ".join(error.split()))
            )
    good = sorted(
        (s for s in summaries if not s.error), key=lambda s: s.last_entry or "", reverse=True
    )
    return good + [s for s in summaries if s.error]


def _current_turn(last: dict[str, Any] | None) -> int:
    return last["turn"] if last else 1


def _tail(fd: int, size: int) -> tuple[int, bytes]:
    """Where the file's last bytes read start, and those bytes: enough to hold its last
    complete end line, unless it has none."""
    window = _WINDOW
    while True:
        start = max(0, size - window)
        data = files._read_range(fd, start, size)
        if _last_end(data) or start == 0:
            return start, data
        window *= 4


def _read_ends(fd: int, path: Path) -> tuple[dict[str, Any], dict[str, Any] | None, bytes]:
    """The checked header and last entry, reading only the ends of the file (a torn last
    entry is skipped), and the file's last bytes (for the store's record)."""
    size = os.fstat(fd).st_size
    start, data = _tail(fd, size)
    window = size - start
    if start == 0:
        _refuse_empty(path, data)
    tail = data[-_TAIL:]
    cut = _torn_cut(data, start)
    if cut is not None:
        size = cut
        data = data[: cut - start]
    at = data.rfind(_SEPARATOR)
    while at == -1 and start > 0:
        if size - start > MAX_ENTRY + _WINDOW:  # past any entry's bound: not read on
            raise SaveError(
                f"{path}: the last entry is over {MAX_ENTRY:,} bytes, the most an entry of a "
                "save holds; `crtdesk repair` sets it aside"
            )
        window *= 4
        start = max(0, size - window)
        data = files._read_range(fd, start, size)
        at = data.rfind(_SEPARATOR)
    if at == -1 and b"[[log]]" in data:
        # Entries, but not laid out as crtdesk writes them (an editor's CRLF line ends):
        # read it all with the whole-file reader.
        parsed = _parse(path, data)
        return parsed.header, (parsed.entries[-1] if parsed.entries else None), tail
    header_data = _read_header(fd, size)
    header_end = header_data.find(_SEPARATOR)
    try:
        header = header_loads(header_data[: header_end + 1 if header_end != -1 else None].decode())
    except (TomlError, UnicodeDecodeError):
        _parse(path, files._read_range(fd, 0, size))  # the whole-file reader names the line
        raise SaveError(f"{path}: the header cannot be read") from None
    if at == -1 or start + at < header_end:
        _check_header(path, header_data, header)
        return header, None, tail
    # The header first: it makes the rulesets in play known (a player's chart from its copy),
    # and the last entry is a combat on one of them.
    _check_header(path, header_data, header)
    offset = start + at + 1
    part = data[at + len(_SEPARATOR) :]
    try:
        if len(part) > MAX_ENTRY:  # the whole-file reader names its line and size
            raise _BlockError(offset, "too large")
        body = _verified_body(part)
        last = _toml_entry(offset, part) if body is None else _json_or_toml(offset, body)
        problem = _check_entry(last)
    except _BlockError:
        problem = ("", None)
    if problem:
        _parse(path, files._read_range(fd, 0, size))  # raises with the line and what is wrong
        raise SaveError(f"{path}: the last entry cannot be read")
    return header, last, tail


def _read_header(fd: int, size: int) -> bytes:
    length = _WINDOW
    while True:
        data = files._read_range(fd, 0, min(size, length))
        if data.find(_SEPARATOR) != -1 or length >= size:
            return data
        length *= 4


class StaleOffset(SaveError):
    """The file is not as it was at the offset read from (cut shorter, or rewritten before
    it): read it whole again."""


_END_BEFORE = 128  # bytes before an offset that hold the end line ending there


def read_new_entries(
    path: Path, offset: int, after_seq: int | None = None
) -> tuple[list[dict[str, Any]], int]:
    """The entries appended after byte `offset` (where an entry or the header ends), read
    without reading the rest of the file, checked as a load checks them; and the offset
    where the last of them ends. An entry still being written is left for the next call.

    StaleOffset when the file shrank below `offset`, no end line ends at `offset`, or (with
    `after_seq`) that end line is not entry `after_seq`'s (0: the header's): the caller
    then loads the whole file again."""
    path = Path(path)
    _require(path)
    with _locked(path, exclusive=False) as lock:
        fd = lock.open_fd()
        size = os.fstat(fd).st_size
        if size < offset:
            raise StaleOffset(f"{path}: the file is shorter than when it was read")
        start = max(0, offset - _END_BEFORE)
        data = files._read_range(fd, start, size)
    before, data = data[: offset - start], data[offset - start :]
    at = before.rfind(_END_SEARCH)
    ended = _END_LINE.match(before, at + 1) if at != -1 else None
    if ended is None or ended.end() != len(before):
        raise StaleOffset(f"{path}: the file changed before byte {offset}")
    previous = int(ended[1]) if ended[1] is not None else 0
    if after_seq is not None and previous != after_seq:
        raise StaleOffset(f"{path}: entry {after_seq} no longer ends at byte {offset}")
    end = _last_end(data)
    if not data[:end].strip():
        return [], offset
    if not data.startswith(_SEPARATOR):
        raise StaleOffset(f"{path}: what follows byte {offset} is not a [[log]] entry")
    entries = []
    for part in data[len(_SEPARATOR) : end].split(_SEPARATOR):
        body = _verified_body(part)
        try:
            entry = _toml_entry(offset, part) if body is None else _json_or_toml(offset, body)
        except _BlockError as err:
            raise StaleOffset(f"{path}: an appended entry cannot be read: {err}") from err
        problem = _check_entry(entry)
        if problem is None and entry["seq"] <= previous:
            problem = (f"entry number {entry['seq']} does not follow entry {previous}", "seq")
        if problem:
            raise StaleOffset(f"{path}: an appended entry: {problem[0]}")
        previous = entry["seq"]
        entries.append(entry)
    return entries, offset + end
