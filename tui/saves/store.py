"""The store itself: the lock, reading the ends of a file, loading, listing, repairing, and
appending one entry under the lock.

Reading never writes: a torn last entry is reported and left as it is. A write first
refuses a save that a load would refuse (the file untouched), then sets a torn last entry
aside, then appends. So that an append stays O(1), the lock file holds a one-line record
of the file as last checked or written by this store (its identity, size, modification and
change times, and a checksum of its last bytes): while the file still matches it, only its
ends are read; after any other write (an editor, a copy, a writer killed before it could
update the record) the whole file is checked once, as a load checks it. Every append takes
`notices`, a list that gets one line when the write first cut a torn last entry off.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import getpass
import os
import stat
import tempfile
import tomllib
import zlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from glob import escape as glob_escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.engine.tables import RULESET_IDS
from tui.saves.checking import (
    DEFAULT_OPTIONS,
    _check,
    _check_entry,
    _check_header,
    _check_ruleset_in_play,
    _check_text,
    _entry_problem,
    _option_problem,
)
from tui.saves.decoding import (
    _END_LINE,
    _END_SEARCH,
    _SEPARATOR,
    _BlockError,
    _decode,
    _json_or_toml,
    _last_end,
    _line_of,
    _Parsed,
    _split,
    _toml_entry,
    _torn_cut,
    _verified_body,
    toml_loads,
    value_problem,
)
from tui.saves.encoding import _BARE_KEY, FORMAT_VERSION, _block, _header, _without_none
from tui.saves.errors import SaveError
from tui.saves.paths import FILE_MODE, _lock_path
from tui.saves.replay import Game, _count_down, _replay, canonical_kind

if TYPE_CHECKING:
    from tui.engine.combat import CombatInput, Outcome
    from tui.engine.dice import DiceRoll

UNSPECIFIED_TARGET = "(unspecified)"
_WINDOW = 64 * 1024
# How much of the file's end the record's checksum covers: the last end line and more.
_TAIL = 64


@dataclass
class GameSummary:
    path: Path
    title: str
    rulesets: list[str]
    turn: int
    last_entry: str | None
    error: str | None = None


@dataclass(frozen=True)
class Repaired:
    """What `repair_save` did: the entries and bytes it kept in `path`; when the last entry
    was torn, how many bytes it cut off and the copy of the whole file as it was."""

    path: Path
    entries: int
    first: int | None
    last: int | None
    kept: int
    dropped: int = 0
    backup: Path | None = None
    # A save broken in the middle: the entries set aside (line and reason each), the file
    # that keeps them, and how many sound entries were given a new number.
    set_aside: tuple[tuple[int, str], ...] = ()
    side_file: Path | None = None
    renumbered: int = 0


@contextmanager
def _locked(path: Path, exclusive: bool) -> Iterator[_Lock]:
    """The save open (never through a symbolic link) and locked: shared to read, exclusive
    (and open for appending) to write. The lock is an flock on the save's own file, so every
    name it has (a hard link, a path typed differently) shares one lock, and no file beside
    it, deleted or planted, can let two writers in."""
    lock = _Lock(path)
    try:
        lock.take(exclusive)
        yield lock
    finally:
        lock.release()


class _Lock:
    """An flock on the open save file itself (`fd`). Writers also keep, in NAME.toml.lock
    beside it, a one-line record of the file as last checked (see the module's text); that
    file is only ever a record, opened without following links, and readers never touch it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None
        self.record_fd: int | None = None

    def take(self, exclusive: bool) -> None:
        for _attempt in range(20):
            fd = _open(self.path, writable=exclusive)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
                here = os.stat(self.path, follow_symlinks=False)
            except OSError:
                os.close(fd)
                raise
            status = os.fstat(fd)
            if (here.st_dev, here.st_ino) == (status.st_dev, status.st_ino):
                self.fd = fd
                break
            os.close(fd)  # replaced under its name (an editor's save) while we waited: again
        else:
            raise SaveError(f"{self.path} keeps being replaced; try again")
        if exclusive:
            self.record_fd = _open_record(_lock_path(self.path), status)
            if self.record_fd is not None:
                # Also the lock an older crtdesk takes, so it and this one take turns while
                # both run; always after the save's own, so no two writers wait on each other.
                fcntl.flock(self.record_fd, fcntl.LOCK_EX)

    def open_fd(self) -> int:
        """The locked save's descriptor (closed by the lock's release, never by its user)."""
        assert self.fd is not None
        return self.fd

    def release(self) -> None:
        for fd in (self.record_fd, self.fd):
            if fd is not None:
                os.close(fd)
        self.fd = self.record_fd = None

    def record(self) -> bytes:
        """The record of the save as this store last checked or wrote it (b"" if none)."""
        if self.record_fd is None:
            return b""
        try:
            return os.pread(self.record_fd, 512, 0)
        except OSError:
            return b""

    def remember(self, status: os.stat_result, tail: bytes) -> None:
        """Record the save as just checked or written. Hold the exclusive lock."""
        if self.record_fd is None:
            return  # no record: the next append checks the whole file, nothing worse
        line = _record_line(status, tail)
        try:
            os.pwrite(self.record_fd, line, 0)
            os.ftruncate(self.record_fd, len(line))
        except OSError:
            pass  # a stale or cut record never matches the file: it only costs a full check


def _open_record(path: Path, save: os.stat_result) -> int | None:
    """NAME.toml.lock for the record, opened without following a link; made with the save's
    own mode if missing. None when it cannot be used (a link, not a file, not ours to
    write): the append then checks the whole file, as with no record."""
    flags = os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK
    try:
        try:
            fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o600)
            _take_mode(fd, save)  # a file this store just made: the save's mode
            return fd
        except FileExistsError:
            fd = os.open(path, flags)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def _record_line(status: os.stat_result, tail: bytes) -> bytes:
    return (
        f"crtdesk verified 1 dev {status.st_dev} ino {status.st_ino} size {status.st_size} "
        f"mtime {status.st_mtime_ns} ctime {status.st_ctime_ns} tail {zlib.crc32(tail):08x}\n"
    ).encode()


def _still_verified(record: bytes, status: os.stat_result, tail: bytes) -> bool:
    """Whether the file is exactly as the store last checked or wrote it."""
    return record == _record_line(status, tail)


def _take_mode(fd: int, save: os.stat_result | int) -> None:
    """Give a file this store has just created the save's own permissions (never called on
    a file it did not create)."""
    mode = save if isinstance(save, int) else stat.S_IMODE(save.st_mode) & 0o777
    try:
        os.fchmod(fd, mode)
    except OSError:
        pass  # a filesystem without modes: its files are as the mount says


def _create_beside(save: Path, prefix: str, mode: os.stat_result | int) -> tuple[int, Path]:
    """A new file in the save's folder (O_EXCL: never an existing name, never through a
    link), with the save's mode: its descriptor and path."""
    fd, name = tempfile.mkstemp(prefix=prefix, dir=save.parent)
    _take_mode(fd, mode)
    return fd, Path(name)


def write_beside(save: Path, name: str, text: str) -> Path:
    """Write `text` to the file `name` in the save's folder (a report) with the save's own
    mode, by replacing the name, never writing through a link planted there. The path."""
    save = Path(save)
    target = save.with_name(name)
    try:
        mode = os.stat(save)
        fd, temp = _create_beside(save, f".{name}.new-", mode)
    except OSError as err:
        raise SaveError(f"cannot write {target}: {err.strerror}") from err
    try:
        try:
            _write_all(fd, text.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, target)
    except OSError as err:
        raise SaveError(f"cannot write {target}: {err.strerror}") from err
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
    return target


def _utc_stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")


def _set_aside(path: Path, data: bytes, mode: os.stat_result) -> Path:
    """Keep the file's original bytes as NAME.toml.bak-<UTC timestamp>, never overwriting one,
    with the save's own mode."""
    for attempt in range(100):
        backup = path.with_name(
            f"{path.name}.bak-{_utc_stamp()}" + (f"-{attempt}" if attempt else "")
        )
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW
            fd = os.open(backup, flags, 0o600)
        except FileExistsError:
            continue
        try:
            _take_mode(fd, mode)
            _write_all(fd, data)
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            backup.unlink(missing_ok=True)  # a full disk: no truncated copy left behind
            raise
        os.close(fd)
        return backup
    raise SaveError(f"cannot find a free backup name beside {path}")


def _repair(fd: int, path: Path, cut: int) -> Path:
    """Set the whole file aside, then cut the torn entry off; the copy. Hold the exclusive
    lock, and check what is kept first."""
    try:
        backup = _set_aside(path, _read_all(fd), os.fstat(fd))
        os.ftruncate(fd, cut)
        os.fsync(fd)
    except OSError as err:
        raise SaveError(f"{path}: cannot set the torn last entry aside: {err.strerror}") from err
    return backup


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


def _read_all(fd: int) -> bytes:
    return _read_range(fd, 0, os.fstat(fd).st_size)


def _read_range(fd: int, start: int, end: int) -> bytes:
    chunks = []
    while start < end:
        chunk = os.pread(fd, end - start, start)
        if not chunk:
            break
        chunks.append(chunk)
        start += len(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _open(path: Path, writable: bool) -> int:
    """The save file open, never through a symbolic link (one planted in a shared folder
    could name another player's file), and only if it is a plain file."""
    flags = (os.O_RDWR | os.O_APPEND) if writable else os.O_RDONLY
    try:
        fd = os.open(path, flags | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as err:
        raise SaveError(_open_problem(path, err)) from err
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise SaveError(f"{path} is not a save file")
    return fd


def _link_refusal(path: Path) -> str:
    return (
        f"{path} is a symbolic link: crtdesk never follows a link in a saves folder; "
        "name the file it points to by its own path"
    )


def _open_problem(path: Path, err: OSError) -> str:
    if err.errno == errno.ELOOP and os.path.islink(path):
        return _link_refusal(path)
    if isinstance(err, FileNotFoundError):
        return f"no save file {path}; start one with `crtdesk new`"
    if isinstance(err, IsADirectoryError):
        return f"{path} is a folder, not a save file"
    return f"cannot open {path}: {err.strerror}"


def require_save(path: Path) -> None:
    """SaveError unless `path` is a file: what every read checks first (`crtdesk review`
    checks no more before the desk opens; the review reads the rest)."""
    _require(Path(path))


def _require(path: Path) -> None:
    if path.is_symlink():
        raise SaveError(_link_refusal(path))
    if not path.is_file():
        if path.exists():
            raise SaveError(f"{path} is not a save file")
        raise SaveError(f"no save file {path}; start one with `crtdesk new`")


def load_game(path: Path) -> Game:
    """Read a whole save; the file is never changed. A torn last entry is left out and
    reported in `Game.warnings` (one line: its bytes, and where the next write or
    `repair_save` keeps them); any other problem is a SaveError naming the line."""
    path = Path(path)
    _require(path)
    with _locked(path, exclusive=False) as lock:
        data = _read_all(lock.open_fd())
    _refuse_empty(path, data)
    cut = _torn_cut(data)
    warnings = [_torn_warning(path, data, cut)] if cut is not None else []
    game = _replay(path, _parse(path, data[:cut]), warnings)
    game.end = _last_end(data[:cut])
    return game


def repair_save(path: Path) -> Repaired:
    """Bring a save back, keeping the whole file as it was in NAME.toml.bak-<UTC time>.

    A torn last entry is cut off. A save broken elsewhere (an entry edited by hand, a bad
    sector) is written again with every entry whose checksum and shape hold, renumbered
    only where numbers clash (`amends` and `annotates` follow), and the entries set aside
    are kept in NAME.toml.set-aside-<UTC time>: nothing is lost. A sound save is left as it
    is; a save whose header cannot be read is refused (SaveError), untouched."""
    path = Path(path)
    _require(path)
    with _locked(path, exclusive=True) as lock:
        fd = lock.open_fd()
        data = _read_all(fd)
        _refuse_empty(path, data)
        cut = _torn_cut(data)
        try:
            parsed = _parse(path, data[:cut])
        except SaveError:
            return _salvage(path, fd, data)
        backup = _repair(fd, path, cut) if cut is not None else None
        kept = data[:cut]
        lock.remember(os.fstat(fd), kept[-_TAIL:])
    seqs = [entry["seq"] for entry in parsed.entries]
    return Repaired(
        path=path,
        entries=len(seqs),
        first=seqs[0] if seqs else None,
        last=seqs[-1] if seqs else None,
        kept=len(kept),
        dropped=len(data) - len(kept),
        backup=backup,
    )


def _salvage(path: Path, fd: int, data: bytes) -> Repaired:
    """A save broken in the middle written again with its sound entries (see `repair_save`).
    Hold the exclusive lock on `fd`."""
    header_bytes, blocks = _split(data)
    try:
        header = toml_loads(header_bytes.decode("utf-8"))
        _check_header(path, header_bytes, header)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise SaveError(f"{path}: the header cannot be read ({err}); not repaired") from err
    kept: list[bytes] = []
    aside: list[tuple[int, str, bytes]] = []
    seqs: list[int] = []
    renumbered = 0
    previous = 0
    combats: set[int] = set()
    new_number: dict[int, int] = {}  # an entry's number as written -> as kept
    for offset, part in blocks:
        line = _line_of(data, offset)
        try:
            body = _verified_body(part)
            entry = _toml_entry(offset, part) if body is None else _json_or_toml(offset, body)
        except (_BlockError, UnicodeDecodeError, ValueError) as err:
            aside.append((line, f"cannot be read: {err}", part))
            continue
        problem = _check_entry(entry) or value_problem(entry)
        if problem:
            aside.append((line, problem if isinstance(problem, str) else problem[0], part))
            continue
        written = entry["seq"]
        for key in ("amends", "annotates"):
            if entry.get(key) in new_number:
                entry[key] = new_number[entry[key]]
        if written <= previous:
            entry["seq"] = previous + 1
            renumbered += 1
        problem = _entry_problem(entry, previous, combats)
        try:
            block = _block(entry) if problem is None else b""
        except Exception as err:  # a key no writer of the store would write (hand-made)
            problem = (f"cannot be written again: {err!r}", None)
        if problem:
            aside.append((line, problem[0], part))
            continue
        new_number[written] = previous = entry["seq"]
        if entry["kind"] == "combat":
            combats.add(previous)
        seqs.append(previous)
        kept.append(block)
    content = header_bytes.rstrip(b"\n") + b"\n" + b"".join(kept)
    _replay(path, _parse(path, content), [])  # what is written loads, or nothing is written
    status = os.fstat(fd)
    try:
        backup = _set_aside(path, data, status)
        side_fd, side = _create_beside(path, f"{path.name}.set-aside-{_utc_stamp()}-", status)
        try:
            _write_all(side_fd, _set_aside_text(path, aside))
            os.fsync(side_fd)
        finally:
            os.close(side_fd)
        new_fd, temp = _create_beside(path, f".{path.name}.repair-", status)
        try:
            try:
                _write_all(new_fd, content)
                os.fsync(new_fd)
            finally:
                os.close(new_fd)
            os.replace(temp, path)  # whole or not at all; writers waiting re-open it by name
        finally:
            temp.unlink(missing_ok=True)
    except OSError as err:
        raise SaveError(f"{path}: cannot write the repaired save: {err.strerror}") from err
    return Repaired(
        path=path,
        entries=len(seqs),
        first=seqs[0] if seqs else None,
        last=seqs[-1] if seqs else None,
        kept=len(content),
        dropped=len(data) - len(content),
        backup=backup,
        set_aside=tuple((line, reason) for line, reason, _ in aside),
        side_file=side,
        renumbered=renumbered,
    )


def _set_aside_text(path: Path, aside: list[tuple[int, str, bytes]]) -> bytes:
    head = (
        f"# Entries `crtdesk repair` set aside from {path.name}, each as it was written,\n"
        "# after a line saying where it was and why. Not a save: edit one and append it by\n"
        "# hand to bring it back.\n"
    )
    parts = [head.encode()]
    for line, reason, part in aside:
        parts.append(f"\n# line {line}: {' '.join(reason.split())}\n[[log]]\n".encode())
        parts.append(part.rstrip(b"\n") + b"\n")
    return b"".join(parts)


def _parse(path: Path, data: bytes) -> _Parsed:
    """Header and entries of a whole save (torn tail already cut), checked as a load does."""
    parsed = _decode(path, data)
    _check(path, data, parsed)
    return parsed


def _save_files(folder: Path) -> list[Path]:
    return [path for path in sorted(Path(folder).glob("*.toml")) if path.is_file()]


def has_games(folder: Path) -> bool:
    """Whether `list_games` would list anything, without reading a save."""
    return bool(_save_files(folder))


def list_games(folder: Path) -> list[GameSummary]:
    """Every save in a folder, newest last entry first; a broken one listed with its error."""
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
        data = _read_range(fd, start, size)
        if _last_end(data) or start == 0:
            return start, data
        window *= 4


def _read_ends(fd: int, path: Path) -> tuple[dict, dict | None, bytes]:
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
        window *= 4
        start = max(0, size - window)
        data = _read_range(fd, start, size)
        at = data.rfind(_SEPARATOR)
    if at == -1 and b"[[log]]" in data:
        # Entries, but not laid out as crtdesk writes them (an editor's CRLF line ends):
        # read it all with the whole-file reader.
        parsed = _parse(path, data)
        return parsed.header, (parsed.entries[-1] if parsed.entries else None), tail
    header_data = _read_header(fd, size)
    header_end = header_data.find(_SEPARATOR)
    try:
        header = toml_loads(header_data[: header_end + 1 if header_end != -1 else None].decode())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        _parse(path, _read_range(fd, 0, size))  # the whole-file reader names the line
        raise SaveError(f"{path}: the header cannot be read") from None
    if at == -1 or start + at < header_end:
        _check_header(path, header_data, header)
        return header, None, tail
    offset = start + at + 1
    part = data[at + len(_SEPARATOR) :]
    try:
        body = _verified_body(part)
        last = _toml_entry(offset, part) if body is None else _json_or_toml(offset, body)
        problem = _check_entry(last)
    except _BlockError:
        problem = ("", None)
    if problem:
        _parse(path, _read_range(fd, 0, size))  # raises with the line and what is wrong
        raise SaveError(f"{path}: the last entry cannot be read")
    _check_header(path, header_data, header)
    return header, last, tail


def _read_header(fd: int, size: int) -> bytes:
    length = _WINDOW
    while True:
        data = _read_range(fd, 0, min(size, length))
        if data.find(_SEPARATOR) != -1 or length >= size:
            return data
        length *= 4


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
    entry's own fields; `game` is the full replay when `whole`, else None. A save a load
    would refuse is refused, untouched, and so is an entry `make` refuses; a torn last entry
    is set aside just before the entry is written, and said so in `notices` (one line). Unless
    `whole`, a save that still matches the lock file's record is read only at its ends (O(1))."""
    path = Path(path)
    _require(path)
    # The whole log is read and replayed before the exclusive lock is taken: under it, a
    # check that the file is as read costs milliseconds, not a long campaign's replay.
    before = _read_beforehand(path) if whole else None
    with _locked(path, exclusive=True) as lock:
        fd = lock.open_fd()
        game = None
        parsed = None
        cut = None
        if before is not None and _same_file(before[1], os.fstat(fd)):
            game, _, tail = before
            header = {"title": game.title, "rulesets": game.rulesets, "options": game.options}
            last = game.entries[-1] if game.entries else None
        elif not whole:
            header, last, tail = _read_ends(fd, path)
        if (whole and game is None) or (
            not whole and not _still_verified(lock.record(), os.fstat(fd), tail)
        ):
            parsed, cut, tail = _read_whole(fd, path)  # a broken save stops here, untouched
            header = parsed.header
            last = parsed.entries[-1] if parsed.entries else None
            if whole:
                game = _replay(path, parsed, [])
        try:
            fields = make(header, last, game)
        except _NeedsGame:  # `make` needs more than the ends after all: read it whole
            if parsed is None:
                parsed, cut, tail = _read_whole(fd, path)
            fields = make(header, last, _replay(path, parsed, []))
        entry = {
            "seq": (last["seq"] if last else 0) + 1,
            "kind": fields.pop("kind"),
            "turn": fields.pop("turn", None) or _current_turn(last),
            "when": _now(),
            "who": _player(who),
        }
        entry |= fields
        # Never write what the reader would refuse: check it as a load would.
        problem = _check_entry(_without_none(entry))
        unreadable = value_problem(entry)  # nan, inf, past 64 bits: no reader takes them
        if problem or unreadable:
            raise SaveError(f"{path}: not saved: {problem[0] if problem else unreadable}")
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
        lock.remember(os.fstat(fd), (tail + block)[-_TAIL:])
    return _without_none(entry)


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


def _read_beforehand(path: Path) -> tuple[Game, os.stat_result, bytes] | None:
    """The whole save read (under the shared lock) and replayed (after it), with the file's
    status and last bytes as read; None when it has a torn last entry (the append sets it
    aside under the exclusive lock). A save a load refuses is refused here."""
    with _locked(path, exclusive=False) as lock:
        fd = lock.open_fd()
        status = os.fstat(fd)
        data = _read_all(fd)
    _refuse_empty(path, data)
    if _torn_cut(data) is not None:
        return None
    return _replay(path, _parse(path, data), []), status, data[-_TAIL:]


def _same_file(before: os.stat_result, now: os.stat_result) -> bool:
    """Whether a file is as it was: the same file, not written since (any write moves its
    change time)."""
    fields = ("st_dev", "st_ino", "st_size", "st_mtime_ns", "st_ctime_ns")
    return all(getattr(before, name) == getattr(now, name) for name in fields)


class _NeedsGame(Exception):
    """Raised by an append's `make` given no game that needs the whole log after all."""


def _read_whole(fd: int, path: Path) -> tuple[_Parsed, int | None, bytes]:
    """The whole file checked as a load checks it (a torn last entry left out), where a torn
    entry starts (None if there is none), and the last bytes of what is kept."""
    data = _read_all(fd)
    _refuse_empty(path, data)
    cut = _torn_cut(data)
    return _parse(path, data[:cut]), cut, data[:cut][-_TAIL:]


def _write_entry(fd: int, path: Path, entry: dict[str, Any]) -> bytes:
    """Write one entry's block at the end of the file; the block written."""
    block = _block(entry)
    size = os.fstat(fd).st_size
    try:
        _write_all(fd, block)
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


def new_game(
    path: Path,
    title: str,
    rulesets: list[str],
    options: dict | None = None,
    *,
    who: str | None = None,
    charts: dict[str, str] | None = None,
) -> Game:
    """Start a save: the header alone (the log starts empty). SaveError if the file exists.
    `charts`: a copy of each player's chart in play (ruleset "game:NAME" -> its text)."""
    path = Path(path)
    _check_text("title", title, allow_empty=False)
    rulesets = list(dict.fromkeys(rulesets))
    if not rulesets:
        raise SaveError(
            "a game needs at least one ruleset; expected one of " + ", ".join(RULESET_IDS)
        )
    charts = {r: t for r, t in (charts or {}).items() if r in rulesets}
    for ruleset in rulesets:
        if ruleset not in RULESET_IDS and ruleset not in charts:
            raise SaveError(
                f"unknown ruleset {ruleset!r}; expected one of {', '.join(RULESET_IDS)}"
                + (" (a player's chart needs its copy)" if ruleset.startswith("game:") else "")
            )
    if charts:
        from tui.saves.charts import check_charts

        check_charts(path, {"rulesets": rulesets, "charts": charts}, 1)
    options = dict(options or {})
    for key, value in options.items():
        problem = _option_problem(key, value, known_only=True)
        if problem:
            raise SaveError(problem)
    if not path.parent.is_dir():
        raise SaveError(f"no folder {path.parent} for the save")
    created = _now()
    content = _header(title, rulesets, options, created, _player(who), charts)
    _clear_stale_temporaries(path)
    made = _create_whole(path, content)
    try:
        with _locked(path, exclusive=True) as lock:
            status = os.fstat(lock.open_fd())
            if (status.st_dev, status.st_ino, status.st_size) == made:
                lock.remember(status, content[-_TAIL:])
    except SaveError:
        pass  # made, then changed or locked otherwise: the next append checks it whole
    return Game(
        path=path,
        title=title,
        rulesets=rulesets,
        options=dict(DEFAULT_OPTIONS) | options,
        created=created,
        format=FORMAT_VERSION,
        turn=1,
        entries=[],
        markers=[],
    )


_STALE = 600  # seconds: a temporary file older than this is a killed `new`'s


def _clear_stale_temporaries(path: Path) -> None:
    """Remove the temporary files of this save's `new` that a killed process left behind:
    ours, plain files (unlink never follows a link), older than a write could take."""
    now = datetime.now(UTC).timestamp()
    for temp in path.parent.glob(f".{glob_escape(path.name)}.new-*"):
        try:
            status = os.lstat(temp)
            if (
                stat.S_ISREG(status.st_mode)
                and status.st_uid == os.getuid()
                and now - status.st_mtime > _STALE
            ):
                temp.unlink()
        except OSError:
            pass  # gone meanwhile, or not ours to remove


def _create_whole(path: Path, content: bytes) -> tuple[int, int, int]:
    """Write a new file so that it appears complete or not at all (never a half header),
    never clobbering a name already taken (a link planted there included); the new file's
    device, inode and size."""
    taken = SaveError(f"{path} already exists; pick another name or open it")
    if os.path.lexists(path):
        raise taken
    temp: Path | None = None
    try:
        fd, temp = _create_beside(path, f".{path.name}.new-", FILE_MODE)
        try:
            _write_all(fd, content)
            os.fsync(fd)
            status = os.fstat(fd)
        finally:
            os.close(fd)
        try:
            os.link(temp, path)  # fails if the name is taken: no clobbering
        except FileExistsError as err:
            raise taken from err
        except OSError as err:
            if err.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
                raise
            if os.path.lexists(path):
                raise taken from err
            os.replace(temp, path)  # a filesystem without hard links
    except OSError as err:
        raise SaveError(f"cannot create {path}: {err.strerror}") from err
    finally:
        if temp is not None:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
    return status.st_dev, status.st_ino, status.st_size


def _combat_markers(
    seq: int, outcome: Outcome, target: str | None, targets: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """The markers a result places. A marker for one side goes on that side's target when
    `targets` names it; one for both sides goes on each named side's target."""
    placed: list[dict[str, Any]] = []
    targets = targets or {}
    for given in outcome.effects.get("markers") or []:
        given = dict(given)
        kind = str(given.pop("kind"))
        try:
            kind = canonical_kind(kind)
        except SaveError:
            pass  # a kind the engine knows and this list does not yet: keep it as given
        turns = given.pop("turns", None)
        side = given.pop("side", None)
        # A marker the engine places on one named unit (OCS) goes on that unit.
        unit = given.pop("target", None)
        # Big Boom units gone astray strike the hex one step from the target.
        astray = given.pop("astray", None)
        extra = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in given.items())
        sides = [s for s in ("attacker", "defender") if s in targets and side in (s, "both")]
        places = [(targets[s], s) for s in sides] or [(target, side)]
        for where, who in [(unit, side)] if unit else places:
            where = where or UNSPECIFIED_TARGET
            if astray:
                where = f"one hex {astray} of {where}"
            placed.append(
                {
                    "id": f"{seq}.{len(placed) + 1}",
                    "kind": kind,
                    "target": where,
                    "side": who,
                    "turns": turns,
                    "note": extra or None,
                }
            )
    return placed


def append_combat(
    path: Path,
    combat: CombatInput,
    outcome: Outcome,
    note: str | None = None,
    *,
    target: str | None = None,
    targets: dict[str, str] | None = None,
    who: str | None = None,
    amends: int | None = None,
    notices: list[str] | None = None,
) -> dict:
    """Log one resolved combat; markers the result places (No-entry, DG, exploitation,
    engaged) go on `target` (or per side on `targets`), or on "(unspecified)". `who`
    defaults to the OS user. Returns the entry written.

    `amends` names an earlier combat this one reads again (a card played after its roll):
    it must be a combat of the same ruleset in this save, and this combat keeps its dice,
    sources included. Amending the last entry reads only the ends of the file; an older
    one reads it whole."""
    if note is not None:
        _check_text("note", note)
    if target is not None:
        _check_text("target", target, allow_empty=False)
    for where in (targets or {}).values():
        _check_text("target", where, allow_empty=False)
    record = outcome.to_dict()
    if not record.get("inputs"):
        record["inputs"] = combat.to_dict()

    if amends is not None and (type(amends) is not int or amends < 1):
        raise SaveError(f"amends must be the number of an earlier combat entry, not {amends!r}")

    def make(header: dict, last: dict | None, game: Game | None) -> dict[str, Any]:
        _check_ruleset_in_play(header, combat.ruleset)
        seq = (last["seq"] if last else 0) + 1
        if amends is not None:
            _check_amends(path, amends, record, last, game)
        return {
            "kind": "combat",
            "ruleset": record["ruleset"],
            "amends": amends,
            "note": note,
            "target": target,
            "inputs": record["inputs"],
            "dice": record["dice"],
            "attack_total": record["attack_total"],
            "defense_total": record["defense_total"],
            "odds": record["odds"],
            "odds_column": record["odds_column"],
            "column": record["column"],
            "roll": record["roll"],
            "cell": record["cell"],
            "effects": record["effects"],
            "explanation": record["explanation"],
            "trace": record["trace"],
            "markers": _combat_markers(seq, outcome, target, targets) or None,
        }

    return _append(path, make, who=who, notices=notices)


def _check_amends(
    path: Path, seq: int, record: dict[str, Any], last: dict | None, game: Game | None
) -> None:
    """Refuse an amendment of anything but an earlier combat of the same ruleset, or one
    whose dice are not that combat's. Raises _NeedsGame when the entry is not the last and
    the whole log is not at hand."""
    if last is not None and last["seq"] == seq:
        amended: dict | None = last
    elif game is None:
        raise _NeedsGame
    else:
        amended = next((e for e in game.entries if e["seq"] == seq), None)
    if amended is None:
        there = f"the last is entry {last['seq']}" if last else "the log is empty"
        raise SaveError(f"{path}: not saved: amends {seq}, but there is no entry {seq} ({there})")
    if amended["kind"] != "combat":
        raise SaveError(
            f"{path}: not saved: amends {seq}, but entry {seq} is a {amended['kind']} entry, "
            "not a combat"
        )
    if amended["ruleset"] != record["ruleset"]:
        raise SaveError(
            f"{path}: not saved: amends {seq}, a {amended['ruleset']} combat, "
            f"with a {record['ruleset']} one"
        )
    if _without_none(record["dice"]) != amended.get("dice", []):
        raise SaveError(
            f"{path}: not saved: amends {seq} with other dice ({_dice_words(record['dice'])}) "
            f"than its own ({_dice_words(amended.get('dice', []))}); an amendment keeps "
            "the roll it reads again"
        )


def _dice_words(dice: list[dict[str, Any]]) -> str:
    return (
        ", ".join(
            f"{die.get('dice')} {'+'.join(map(str, die.get('values', [])))} {die.get('source')}"
            for die in dice
        )
        or "none"
    )


def advance_turn(path: Path, *, who: str | None = None, notices: list[str] | None = None) -> dict:
    """Start the next turn: every timed marker counts down one, those at 0 are removed."""

    def make(header: dict, last: dict | None, game: Game | None) -> dict[str, Any]:
        assert game is not None
        markers = {m.id: m for m in game.markers}
        timed = [m.id for m in game.markers if m.turns_left is not None]
        expired = _count_down(markers)
        return {
            "kind": "turn",
            "turn": game.turn + 1,
            "counted_down": [i for i in timed if i not in expired] or None,
            "expired": expired or None,
        }

    return _append(path, make, whole=True, who=who, notices=notices)


def add_marker(
    path: Path,
    kind: str,
    target: str,
    side: str | None = None,
    turns: int | None = None,
    note: str | None = None,
    *,
    who: str | None = None,
    notices: list[str] | None = None,
) -> dict:
    """Place a marker by hand. Its id is the entry's number and `.1`."""
    kind = canonical_kind(kind)
    _check_text("target", target, allow_empty=False)
    if side is not None:
        _check_text("side", side, allow_empty=False)
    if note is not None:
        _check_text("note", note)
    if turns is not None and (type(turns) is not int or turns < 1):
        raise SaveError(f"turns must be a whole number of 1 or more, not {turns!r}")

    def make(header: dict, last: dict | None, game: Game | None) -> dict[str, Any]:
        seq = (last["seq"] if last else 0) + 1
        marker = {
            "id": f"{seq}.1",
            "kind": kind,
            "target": target,
            "side": side,
            "turns": turns,
            "note": note,
        }
        return {
            "kind": "place-marker",
            "marker": {k: v for k, v in marker.items() if v is not None},
        }

    return _append(path, make, who=who, notices=notices)


def remove_marker(
    path: Path,
    marker_id: str,
    *,
    note: str | None = None,
    who: str | None = None,
    notices: list[str] | None = None,
) -> dict:
    """Lift a marker by hand (e.g. Hero #15 Engineer/Frogman repairing a No-entry hex,
    said in `note`)."""
    marker_id = str(marker_id).strip()
    if note is not None:
        _check_text("note", note)

    def make(header: dict, last: dict | None, game: Game | None) -> dict[str, Any]:
        assert game is not None
        found = next((m for m in game.markers if m.id == marker_id), None)
        if found is None:
            known = ", ".join(m.id for m in game.markers) or "none"
            raise SaveError(f"no marker {marker_id!r} in {path}; current markers: {known}")
        return {
            "kind": "remove-marker",
            "note": note,
            "marker_id": marker_id,
            "marker_kind": found.kind,
            "target": found.target,
        }

    return _append(path, make, whole=True, who=who, notices=notices)


def set_option(
    path: Path,
    key: str,
    value: object,
    *,
    who: str | None = None,
    notices: list[str] | None = None,
) -> dict:
    """Set a per-game option (e.g. mines_cdf 3); logged like everything else. An option this
    desk does not know is refused, with the known ones."""
    problem = _option_problem(key, value, known_only=True)
    if problem:
        raise SaveError(problem)
    if isinstance(value, str):
        _check_text("option value", value)

    def make(header: dict, last: dict | None, game: Game | None) -> dict[str, Any]:
        return {"kind": "option", "key": key, "value": value}

    return _append(path, make, who=who, notices=notices)


def append_event(
    path: Path,
    event: str,
    text: str,
    *,
    ruleset: str | None = None,
    dice: list[DiceRoll | dict[str, Any]] | None = None,
    who: str | None = None,
    notices: list[str] | None = None,
) -> dict:
    """Log something the desk did that is not a combat, with its dice: e.g. the die rolled
    for a Hero Site won uncontested (event "hero-site-draw"). Returns the entry written."""
    if not isinstance(event, str) or not _BARE_KEY.match(event):
        raise SaveError(f"event name {event!r} must be letters, digits, '_' or '-'")
    _check_text("event text", text)
    if ruleset is not None and ruleset not in RULESET_IDS:
        raise SaveError(f"unknown ruleset {ruleset!r}; expected one of {', '.join(RULESET_IDS)}")
    rolls = [dict(d) if isinstance(d, Mapping) else d.to_dict() for d in dice or []]

    def make(header: dict, last: dict | None, game: Game | None) -> dict[str, Any]:
        if ruleset is not None:
            _check_ruleset_in_play(header, ruleset)
        return {"kind": "event", "event": event, "ruleset": ruleset, "text": text, "dice": rolls}

    return _append(path, make, who=who, notices=notices)


def append_note(
    path: Path,
    seq: int,
    text: str,
    *,
    who: str | None = None,
    notices: list[str] | None = None,
) -> dict:
    """Annotate entry `seq` with a note: a new entry (kind "note", `annotates`, `text`); the
    entry it names is never edited. SaveError if no entry has that number (entries are
    numbered 1, 2, 3, ... so the last one's number says it, without reading the others)."""
    if type(seq) is not int or seq < 1:
        raise SaveError(f"entry number {seq!r} must be a whole number of 1 or more")
    _check_text("note", text, allow_empty=False)

    def make(header: dict, last: dict | None, game: Game | None) -> dict[str, Any]:
        if last is None or seq > last["seq"]:
            known = f"entries 1 to {last['seq']}" if last else "no entries yet"
            raise SaveError(f"no entry {seq} in {path} ({known})")
        return {"kind": "note", "annotates": seq, "text": text}

    return _append(path, make, who=who, notices=notices)


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
        data = _read_range(fd, start, size)
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
