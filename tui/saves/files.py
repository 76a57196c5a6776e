"""Bytes in and out: reading a range of a save, writing all of a block, and files made
beside a save (a report, a backup, a repaired copy) with the save's own mode, never through
a link planted there.

The store's other modules call `files._read_range` and `files._write_all` through this
module, so a test that replaces one here reaches every caller.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import tempfile
from collections.abc import Iterable
from datetime import UTC, datetime
from glob import escape as glob_escape
from pathlib import Path
from typing import TYPE_CHECKING

from tui.saves.errors import SaveError

if TYPE_CHECKING:
    pass


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
    link), with the save's mode: its descriptor and path. The descriptor holds an exclusive
    flock on the file until it is closed (a process's locks go with it when it dies), so
    that `clear_temporaries` never removes a file a live process is still writing."""
    for _attempt in range(20):
        fd, name = tempfile.mkstemp(prefix=prefix, dir=save.parent)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            made = os.fstat(fd)
            here = os.stat(name, follow_symlinks=False)
        except OSError:
            # Taken by a clearer in the instant between its making and its lock (so it is
            # removed, or about to be): another name.
            os.close(fd)
            continue
        if (here.st_dev, here.st_ino) != (made.st_dev, made.st_ino):
            os.close(fd)
            continue
        _take_mode(fd, mode)
        return fd, Path(name)
    raise OSError(f"cannot make a temporary file beside {save}")


# The temporary files the store writes beside a save NAME.toml before they take its name:
# `.NAME.toml.new-*` (a `new`), `.NAME.toml.repair-*` (a repair broken in the middle) and
# `.NAME.toml.kept-*` (derived data kept beside it: `kept_data`).
TEMPORARY_KINDS = ("new", "repair", "kept")


def clear_temporaries(save: Path, holding: os.stat_result | None = None) -> list[str]:
    """Remove the temporary files of the save at `save` that a killed `new` or `repair`
    left behind; the names removed. Never one a live process is writing (its writer holds
    an flock on it: see `_create_beside`), never through a link, only plain files. With
    `holding`, the status of the save this process holds locked: a leftover that is another
    name of that very file (a `new` killed after it gave the save its name) is only a name,
    and goes."""
    save = Path(save)
    removed = []
    for kind in TEMPORARY_KINDS:
        try:
            found = sorted(save.parent.glob(f".{glob_escape(save.name)}.{kind}-*"))
        except OSError:
            continue  # a folder that cannot be listed: nothing to clear
        for temp in found:
            if _left_behind(temp, holding):
                removed.append(temp.name)
    return removed


def _left_behind(temp: Path, holding: os.stat_result | None) -> bool:
    """Remove `temp` if no live process is writing it; whether it was removed."""
    try:
        fd = os.open(temp, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False  # a link, gone meanwhile, or not ours to read
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            return False
        same = holding is not None and (status.st_dev, status.st_ino) == (
            holding.st_dev,
            holding.st_ino,
        )
        if not same:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held by a live writer: raises
        here = os.stat(temp, follow_symlinks=False)
        if (here.st_dev, here.st_ino) != (status.st_dev, status.st_ino):
            return False  # another file took the name meanwhile
        temp.unlink()
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def temporaries_notice(save: Path, removed: list[str]) -> str:
    """The line that says what `clear_temporaries` removed."""
    names = ", ".join(removed)
    return (
        f"removed {names} beside {Path(save).name}: temporary "
        f"{'files' if len(removed) > 1 else 'file'} a killed crtdesk left (a `new`, a "
        "`repair` or a read keeping its derived data, cut short)"
    )


def write_beside(save: Path, name: str, text: str | Iterable[str]) -> Path:
    """Write `text` (or its pieces, in order) to the file `name` in the save's folder (a
    report) with the save's own mode, by replacing the name, never writing through a link planted there. The path."""
    save = Path(save)
    target = save.with_name(name)
    try:
        mode = os.stat(save)
        fd, temp = _create_beside(save, f".{name}.new-", mode)
    except OSError as err:
        raise SaveError(f"cannot write {target}: {err.strerror}") from err
    try:
        for part in [text] if isinstance(text, str) else text:
            _write_all(fd, part.encode("utf-8"))
        os.fsync(fd)
        os.replace(temp, target)  # still locked (see `_create_beside`) until it is named
    except OSError as err:
        raise SaveError(f"cannot write {target}: {err.strerror}") from err
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        os.close(fd)
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
