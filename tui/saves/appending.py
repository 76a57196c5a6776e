"""Appending one entry under the exclusive lock, the path every `append_*` takes.

A write first refuses a save that a load would refuse (the file untouched), then sets a
torn last entry aside, then appends. While the file still matches the lock file's record
only its ends are read, so an append stays O(1); after any other write (an editor, a copy,
a writer killed before it could update the record) the whole file is checked once, as a
load checks it. Every append takes `notices`, a list that gets one line when the write
first cut a torn last entry off.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from msgspec.structs import replace

from tui.saves import files
from tui.saves.checking import (
    _check_entry,
    _check_text,
)
from tui.saves.decoding import (
    _END_LINE,
    _END_SEARCH,
    _Parsed,
    _torn_cut,
    value_problem,
)
from tui.saves.encoding import MAX_ENTRY, _block, _entry_as_read, entry_too_large
from tui.saves.errors import SaveError
from tui.saves.loading import _current_turn, _parse, _read_ends, _refuse_empty
from tui.saves.locking import _TAIL, _Lock, _locked, _require, _still_verified
from tui.saves.repair import _repair
from tui.saves.replay import Game, _new_game, _replay, apply_entry
from tui.saves.state import read_state, state_line
from tui.saves.streaming import entries_numbered


def _who() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no login name (a container with an unnamed uid)
        return f"uid {os.getuid()}"


def _player(who: str | None) -> str:
    """Who made a change: the name the desk was given, else the OS user."""
    if who is None:
        return _who()
    _check_text("player name", who, allow_empty=False)
    return who


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


Maker = Callable[[dict[str, Any], dict[str, Any] | None, Game | None], dict[str, Any]]


def _append(
    path: Path,
    make: Maker,
    *,
    whole: bool = False,
    who: str | None = None,
    notices: list[str] | None = None,
) -> dict[str, Any]:
    """Append one entry under the exclusive lock. `make(header, last_entry, game)` gives the
    entry's own fields; `game` is the game as its log leaves it (turn, markers, options; no
    entries) when `whole`, else None. A save a load would refuse is refused, untouched, and
    so is an entry `make` refuses; a torn last entry is set aside just before the entry is
    written, and said so in `notices` (one line), as are the temporary files a killed `new`
    or `repair` left, removed when the lock is taken.

    While the save matches the lock file's record, only its ends are read, and the game
    comes from the state kept beside the record (`tui.saves.state`): the lock is held for
    milliseconds. Otherwise the save is read entry by entry before the lock is taken (a
    long campaign never held whole), and under it only checked to be the file read."""
    path = Path(path)
    _require(path)
    _before_the_lock()
    before: tuple[Game, os.stat_result] | None = None
    for attempt in range(2):
        with _locked(path, exclusive=True) as lock:
            if lock.removed and notices is not None:
                notices.append(files.temporaries_notice(path, lock.removed))
            fd = lock.open_fd()
            status = os.fstat(fd)
            header, last, tail = _read_ends(fd, path)
            after = last["seq"] if last else 0
            verified = _still_verified(lock.record(), status, tail)
            game = read_state(lock.state(), path, header, after) if verified else None
            if not verified and before is not None and _same_file(before[1], status):
                verified, game = True, before[0]  # the whole file, read just before
            if verified and (game is not None or not whole):
                return _write(lock, path, make, (header, last, tail), game, whole, who)
            if attempt == 0:
                lock.release()
                # Read entry by entry, the lock not held: a long campaign's read is not a
                # writer's wait. Under the lock again, the file is checked to be as read.
                before = _read_beforehand(path)
                continue
            return _append_whole(lock, path, make, whole, who, notices)
    raise AssertionError("unreachable")


def _write(
    lock: _Lock,
    path: Path,
    make: Maker,
    ends: tuple[dict[str, Any], dict[str, Any] | None, bytes],
    game: Game | None,
    whole: bool,
    who: str | None,
) -> dict[str, Any]:
    """Write the entry `make` gives after the last entry, to a save checked as a load
    checks it (`ends`: its header, last entry and last bytes), and keep the game's state
    after it when it is known (`game`: as the log leaves it; given to `make` when `whole`)."""
    header, last, tail = ends
    fd = lock.open_fd()
    try:
        fields = make(header, last, game if whole else None)
    except _NeedsGame as needed:  # `make` needs an older entry: read entry by entry
        found = entries_numbered(fd, path, needed.seq)
        if found is None:  # not laid out as the store writes it: read whole
            parsed, _, tail = _read_whole(fd, path)
            older = _replay(path, parsed, [])
        else:
            older = replace(_new_game(path, header, []), entries=found)
        fields = make(header, last, older)
    entry = _entry(path, fields, last, who)
    _check_follows(fd, path, entry["seq"])
    block = _write_entry(fd, path, entry)
    written = _entry_as_read(entry)
    state = b""
    if game is not None:
        apply_entry(game, written, keep=False)
        state = state_line(game, entry["seq"])
    lock.remember(os.fstat(fd), (tail + block)[-_TAIL:], state)
    return written


def _append_whole(
    lock: _Lock,
    path: Path,
    make: Maker,
    whole: bool,
    who: str | None,
    notices: list[str] | None,
) -> dict[str, Any]:
    """The append when the save changed while it was read before the lock (or has a torn
    last entry): the whole file read and checked under the lock, as a load does."""
    fd = lock.open_fd()
    parsed, cut, tail = _read_whole(fd, path)  # a broken save stops here, untouched
    header = parsed.header
    last = parsed.entries[-1] if parsed.entries else None
    game = _replay(path, parsed, [])
    fields = make(header, last, game if whole else None)
    entry = _entry(path, fields, last, who)
    if cut is not None:
        dropped = os.fstat(fd).st_size - cut
        backup = _repair(fd, path, cut)
        if notices is not None:
            notices.append(
                f"{path}: the torn last entry ({dropped} bytes, a write cut short) "
                f"was cut off; the whole file as it was is kept in {backup}"
            )
    _check_follows(fd, path, entry["seq"])
    block = _write_entry(fd, path, entry)
    written = _entry_as_read(entry)
    game.entries = []
    apply_entry(game, written, keep=False)
    lock.remember(os.fstat(fd), (tail + block)[-_TAIL:], state_line(game, entry["seq"]))
    return written


def _entry(
    path: Path, fields: dict[str, Any], last: dict[str, Any] | None, who: str | None
) -> dict[str, Any]:
    """The whole entry `make`'s fields make after `last`, checked as a load would check it."""
    entry = {
        "seq": (last["seq"] if last else 0) + 1,
        "kind": fields.pop("kind"),
        "turn": fields.pop("turn", None) or _current_turn(last),
        "when": _now(),
        "who": _player(who),
    }
    entry |= fields
    # Never write what the reader would refuse: check it as a load would.
    problem = _check_entry(_entry_as_read(entry))
    unreadable = value_problem(entry)  # nan, inf, past 64 bits: no reader takes them
    if problem or unreadable:
        raise SaveError(f"{path}: not saved: {problem[0] if problem else unreadable}")
    size = len(_block(entry))  # before anything is written, a torn entry cut off included
    if size > MAX_ENTRY:
        raise SaveError(f"{path}: not saved: {entry_too_large(size)}")
    return entry


def _check_follows(fd: int, path: Path, seq: int) -> None:
    """Refuse to write entry `seq` unless the file, as it stands under the lock, ends with
    entry `seq - 1` (or the header): the number is checked where it is written."""
    size = os.fstat(fd).st_size
    data = os.pread(fd, 512, max(0, size - 512))  # one read of the end line, at most
    at = data.rfind(_END_SEARCH)
    ended = _END_LINE.match(data, at + 1) if at != -1 else None
    if ended is None:
        return  # a last entry edited by hand ends without an end line: the load checked it
    previous = int(ended[1]) if ended[1] is not None else 0
    if previous != seq - 1:
        raise SaveError(
            f"{path}: not saved: entry {seq} would follow entry {previous}; "
            "another writer got in, try again"
        )


def _read_beforehand(path: Path) -> tuple[Game, os.stat_result] | None:
    """The game the whole save replays to (no entries kept), read entry by entry and checked
    as a load checks it, with the file's status as read; None when it changed while it was
    read or has a torn last entry (the append then reads it under the lock). A save a load
    refuses is refused here."""
    # Imported by the first append after an outside write (msgspec's kept data): an append
    # whose record matches the file, the usual case, does without it (the CLI's start-up).
    from tui.saves.kept_data import kept_game

    status = os.stat(path, follow_symlinks=False)
    # From the state kept beside the save where it matches the save (worked out from the
    # save, entry by entry, where it does not): a long campaign's log is not read again.
    game = kept_game(path)
    if game is None or not _same_file(status, os.stat(path, follow_symlinks=False)):
        return None
    return game, status


def _before_the_lock() -> None:
    """What the reads under the lock use first, made ready before it is taken: the kept
    state's reader and the schema (msgspec's import, and its first use of the schema's
    types), tens of milliseconds that no other writer should wait on."""
    # Imported here, not at the module's top: a desk opening a game draws its first frame
    # without the units' code and the schema (the start-up budget, docs/performance.md).
    from tui.engine import units  # noqa: F401
    from tui.saves import kept_state, schema  # noqa: F401

    schema.prepare()


def _same_file(before: os.stat_result, now: os.stat_result) -> bool:
    """Whether a file is as it was: the same file, not written since (any write moves its
    change time)."""
    fields = ("st_dev", "st_ino", "st_size", "st_mtime_ns", "st_ctime_ns")
    return all(getattr(before, name) == getattr(now, name) for name in fields)


class _NeedsGame(Exception):
    """Raised by an append's `make` given no game that needs entry `seq` after all."""

    def __init__(self, seq: int) -> None:
        super().__init__(seq)
        self.seq = seq


def _read_whole(fd: int, path: Path) -> tuple[_Parsed, int | None, bytes]:
    """The whole file checked as a load checks it (a torn last entry left out), where a torn
    entry starts (None if there is none), and the last bytes of what is kept."""
    data = files._read_all(fd)
    _refuse_empty(path, data)
    cut = _torn_cut(data)
    return _parse(path, data[:cut]), cut, data[:cut][-_TAIL:]


def _write_entry(fd: int, path: Path, entry: dict[str, Any]) -> bytes:
    """Write one entry's block at the end of the file; the block written."""
    block = _block(entry)
    size = os.fstat(fd).st_size
    try:
        files._write_all(fd, block)
        os.fsync(fd)
    except BaseException as err:
        # Never leave half an entry behind when we are alive to clean it up.
        try:
            os.ftruncate(fd, size)
        except OSError:
            pass
        if isinstance(err, OSError):
            raise SaveError(f"cannot write to {path}: {err.strerror}") from err
        raise
    return block
