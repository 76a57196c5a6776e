"""Bytes in and out: reading a range of a save, writing all of a block, and files made
beside a save (a report, a backup, a repaired copy) with the save's own mode, never through
a link planted there.

The store's other modules call `files._read_range` and `files._write_all` through this
module, so a test that replaces one here reaches every caller.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable
from datetime import UTC, datetime
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
    link), with the save's mode: its descriptor and path."""
    fd, name = tempfile.mkstemp(prefix=prefix, dir=save.parent)
    _take_mode(fd, mode)
    return fd, Path(name)


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
        try:
            for part in [text] if isinstance(text, str) else text:
                _write_all(fd, part.encode("utf-8"))
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
