"""Bringing a save back (`repair_save`): a torn last entry cut off, or a save broken in
the middle written again with its sound entries, the rest kept in a side file; the whole
file as it was is always kept as NAME.toml.bak-<UTC time>.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tui.saves import files
from tui.saves.checking import (
    _check_entry,
    _check_header,
    _entry_problem,
)
from tui.saves.decoding import (
    _BlockError,
    _json_or_toml,
    _line_of,
    _split,
    _toml_entry,
    _torn_cut,
    _verified_body,
    toml_loads,
    value_problem,
)
from tui.saves.encoding import _block
from tui.saves.errors import SaveError
from tui.saves.files import _create_beside, _set_aside, _utc_stamp
from tui.saves.loading import _parse, _refuse_empty
from tui.saves.locking import _TAIL, _locked, _require
from tui.saves.replay import _replay

if TYPE_CHECKING:
    pass


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


def _repair(fd: int, path: Path, cut: int) -> Path:
    """Set the whole file aside, then cut the torn entry off; the copy. Hold the exclusive
    lock, and check what is kept first."""
    try:
        backup = _set_aside(path, files._read_all(fd), os.fstat(fd))
        os.ftruncate(fd, cut)
        os.fsync(fd)
    except OSError as err:
        raise SaveError(f"{path}: cannot set the torn last entry aside: {err.strerror}") from err
    return backup


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
        data = files._read_all(fd)
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
            files._write_all(side_fd, _set_aside_text(path, aside))
            os.fsync(side_fd)
        finally:
            os.close(side_fd)
        new_fd, temp = _create_beside(path, f".{path.name}.repair-", status)
        try:
            try:
                files._write_all(new_fd, content)
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
