"""The lock: an flock on the save file itself, opened without following a link, shared to
read and exclusive to write; and the one-line record a writer keeps in NAME.toml.lock of the
file as last checked or written (identity, size, modification and change times, a checksum
of its last bytes), so that an append to a file still matching it reads only its ends; and,
on its second line, the game's state after the last entry (`tui.saves.state`).

Headless: never imports textual or rich.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from tui.saves.encoding import MAX_SAVE, save_too_large
from tui.saves.errors import SaveError
from tui.saves.files import _take_mode, clear_temporaries
from tui.saves.paths import _lock_path
from tui.saves.state import MAX_STATE

if TYPE_CHECKING:
    pass


# How much of the file's end the record's checksum covers: the last end line and more.
_TAIL = 64


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
        # The temporary files a killed `new` or `repair` left, removed when the exclusive
        # lock was taken (`files.clear_temporaries`): the writer says so in its notices.
        self.removed: list[str] = []

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
            # Under the exclusive lock no live repair of this save is writing its copy:
            # what a killed one (or a killed `new`) left is cleared by the next writer.
            self.removed = clear_temporaries(self.path, status)

    def open_fd(self) -> int:
        """The locked save's descriptor (closed by the lock's release, never by its user)."""
        assert self.fd is not None
        return self.fd

    def release(self) -> None:
        for fd in (self.record_fd, self.fd):
            if fd is not None:
                os.close(fd)
        self.fd = self.record_fd = None

    def _lines(self) -> tuple[bytes, bytes]:
        """The record's line and the state's line after it (b"" for either not there)."""
        if self.record_fd is None:
            return b"", b""
        return _record_lines(self.record_fd)

    def record(self) -> bytes:
        """The record of the save as this store last checked or wrote it (b"" if none)."""
        return self._lines()[0]

    def state(self) -> bytes:
        """The state line kept after the record (b"" if none); see `tui.saves.state`."""
        return self._lines()[1]

    def kept_lines(self) -> tuple[bytes, bytes]:
        """The record's line and the state's line as the lock file keeps them, read under
        either lock (a shared one opens no record to write: the file is read without
        writing, and no writer is between the two lines meanwhile); b"" for either not
        there or not readable."""
        if self.record_fd is not None:
            return self._lines()
        flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK
        try:
            fd = os.open(_lock_path(self.path), flags)
        except OSError:
            return b"", b""
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return b"", b""
            return _record_lines(fd)
        finally:
            os.close(fd)

    def remember(self, status: os.stat_result, tail: bytes, state: bytes = b"") -> None:
        """Record the save as just checked or written, and the game's state after it when
        known (`state`, a line). Hold the exclusive lock."""
        if self.record_fd is None:
            return  # no record: the next append checks the whole file, nothing worse
        line = _record_line(status, tail) + state
        try:
            os.pwrite(self.record_fd, line, 0)
            os.ftruncate(self.record_fd, len(line))
        except OSError:
            pass  # a stale or cut record never matches the file: it only costs a full check


def _record_lines(fd: int) -> tuple[bytes, bytes]:
    """The record's line and the state's line after it in the lock file open at `fd`."""
    try:
        size = os.fstat(fd).st_size
        data = os.pread(fd, min(size, 512 + MAX_STATE), 0)
    except OSError:
        return b"", b""
    record, newline, state = data.partition(b"\n")
    return record + newline, state


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


def _open(path: Path, writable: bool) -> int:
    """The save file open, never through a symbolic link (one planted in a shared folder
    could name another player's file), and only if it is a plain file."""
    flags = (os.O_RDWR | os.O_APPEND) if writable else os.O_RDONLY
    try:
        fd = os.open(path, flags | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as err:
        raise SaveError(_open_problem(path, err)) from err
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(mode) else "not a plain file"
        raise SaveError(f"{path} is {kind}, not a save file")
    return fd


def _link_refusal(path: Path) -> str:
    return (
        f"{path} is a symbolic link{_link_target(path)}: crtdesk never follows a link in a "
        "saves folder; name the file it points to by its own path"
    )


def _link_target(path: Path) -> str:
    """What a link names, in a few words (the target's status only: it is never opened)."""
    try:
        target = os.stat(path)
    except OSError as err:
        if err.errno == errno.ELOOP:
            return " (a link loop)"
        if err.errno in (errno.ENOENT, errno.ENOTDIR):
            return " (to nothing)"
        return f" (to a file that cannot be read: {err.strerror})"
    if stat.S_ISDIR(target.st_mode):
        return " (to a folder)"
    return "" if stat.S_ISREG(target.st_mode) else " (to something that is not a file)"


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
    try:
        here = os.stat(path, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        raise SaveError(f"no save file {path}; start one with `crtdesk new`") from None
    except (OSError, ValueError) as err:
        why = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise SaveError(f"cannot read {path}: {why}") from None
    if stat.S_ISLNK(here.st_mode):
        raise SaveError(_link_refusal(path))
    if stat.S_ISDIR(here.st_mode):
        raise SaveError(f"{path} is a folder, not a save file")
    if not stat.S_ISREG(here.st_mode):
        raise SaveError(f"{path} is not a save file")
    if here.st_size > MAX_SAVE:  # before a byte of it is read
        raise SaveError(save_too_large(path, here.st_size))
