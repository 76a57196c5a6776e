"""Bringing a save back (`repair_save`): a torn last entry cut off, or a save broken in
the middle written again with its sound entries, the rest kept in a side file; the whole
file as it was is always kept as NAME.toml.bak-<UTC time>.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.saves import files
from tui.saves.charts import kept_charts
from tui.saves.checking import (
    _check_entry,
    _check_header,
    _entry_problem,
    header_seal,
)
from tui.saves.decoding import (
    _SEPARATOR,
    TomlError,
    _BlockError,
    _json_or_toml,
    _line_of,
    _split,
    _toml_entry,
    _torn_cut,
    _verified_body,
    header_loads,
    value_problem,
)
from tui.saves.encoding import MAX_ENTRY, _block, _value, entry_too_large, sealed_header
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
    # What setting those entries aside changes in the game (a turn gone, a note pointing at
    # nothing), one line each; with `asked`, nothing was written: the player is asked first.
    changes: tuple[str, ...] = ()
    asked: bool = False
    # What was done to the header: its checksum given (a save from before headers had
    # one), or the kept charts copied from their files again; None when it was left as is.
    header: str | None = None


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


def repair_save(
    path: Path,
    *,
    accept: bool | Collection[str] = False,
    notices: list[str] | None = None,
    restore_charts: Callable[[list[str]], dict[str, str]] | None = None,
) -> Repaired:
    """Bring a save back, keeping the whole file as it was in NAME.toml.bak-<UTC time>.

    A torn last entry is cut off. A save broken elsewhere (an entry edited by hand, a bad
    sector) is written again with every entry whose checksum and shape hold, renumbered
    only where numbers clash (`amends` and `annotates` follow), and the entries set aside
    are kept in NAME.toml.set-aside-<UTC time>: nothing is lost. A sound save is left as it
    is; a save whose header cannot be read is refused (SaveError), untouched. A header
    without its checksum (written before headers had one) is given one. With
    `restore_charts` (the text of each player's chart among the rulesets given, read from
    its file), the header's kept charts are those texts again and the header is sealed
    again: a kept chart edited by hand is otherwise refused.

    Setting aside an entry others depend on (a turn, an entry a note, an amendment or a
    marker lifted points at) changes the game: unless `accept` is True, or holds every line
    of what changes, nothing is written and the result is `asked`, its `changes` naming
    what would change (`crtdesk repair --yes`, or the desk's dialog, then accepts them).
    The temporary files a killed `new` or `repair` left are removed when the lock is taken,
    and said in `notices` (one line)."""
    path = Path(path)
    _require(path)
    with _locked(path, exclusive=True) as lock:
        if lock.removed and notices is not None:
            notices.append(files.temporaries_notice(path, lock.removed))
        fd = lock.open_fd()
        original = files._read_all(fd)
        _refuse_empty(path, original)
        data, header_done = _reseal(path, original, restore_charts)
        cut = _torn_cut(data)
        try:
            parsed = _parse(path, data[:cut])
        except SaveError:
            return _salvage(path, fd, data, accept, original, header_done)
        kept = data[:cut]
        if header_done is None:
            backup = _repair(fd, path, cut) if cut is not None else None
        else:
            backup = _write_again(path, fd, original, kept)
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
        header=header_done,
    )


def _reseal(
    path: Path, data: bytes, restore_charts: Callable[[list[str]], dict[str, str]] | None
) -> tuple[bytes, str | None]:
    """The file with its header sealed again where it needs it (see `repair_save`), and
    what was done to the header (None: nothing)."""
    first = data.find(_SEPARATOR)
    seal = header_seal(data if first == -1 else data[: first + 1])
    if seal is None:
        return data, None
    at, crc = seal
    line_end = data.find(b"\n", at)
    rest = data[line_end + 1 :] if line_end != -1 else b""
    body = data[:at]
    if restore_charts is None:
        if crc is not None:
            return data, None
        return sealed_header(body) + rest, "gave the header its checksum"
    try:
        header = header_loads(body.decode("utf-8"))
    except (TomlError, UnicodeDecodeError) as err:
        raise SaveError(f"{path}: the header cannot be read ({err}); not repaired") from err
    rulesets = header.get("rulesets")
    copies = restore_charts(rulesets if isinstance(rulesets, list) else [])
    if not copies:
        raise SaveError(
            f"{path}: no player's chart is in play in this game: there is no kept chart to "
            "restore; not repaired"
        )
    charts = dict(kept_charts(header)) | copies
    line = f"charts = {_value(charts)}\n".encode()
    body, found = _CHARTS_LINE.subn(lambda _: line, body, count=1)
    if not found:
        body += line
    names = ", ".join(sorted(copies))
    return sealed_header(body) + rest, f"restored the kept copy of {names} from its file"


_CHARTS_LINE = re.compile(rb"^charts[ \t]*=.*\n", re.MULTILINE)


def _write_again(path: Path, fd: int, original: bytes, content: bytes) -> Path:
    """The save written again as `content`, whole or not at all, the file as it was kept
    beside it first; that copy. Hold the exclusive lock on `fd`."""
    status = os.fstat(fd)
    try:
        backup = _set_aside(path, original, status)
        _replace(path, status, content)
    except OSError as err:
        raise SaveError(f"{path}: cannot write the repaired save: {err.strerror}") from err
    return backup


def _replace(path: Path, status: os.stat_result, content: bytes) -> None:
    new_fd, temp = _create_beside(path, f".{path.name}.repair-", status)
    try:
        files._write_all(new_fd, content)
        os.fsync(new_fd)
        os.replace(temp, path)  # whole or not at all; writers waiting re-open it by name
    finally:
        temp.unlink(missing_ok=True)
        os.close(new_fd)  # its lock held until it has the save's name


def _salvage(
    path: Path,
    fd: int,
    data: bytes,
    accept: bool | Collection[str],
    original: bytes,
    header_done: str | None,
) -> Repaired:
    """A save broken in the middle written again with its sound entries (see `repair_save`),
    unless what that changes is not accepted. Hold the exclusive lock on `fd`."""
    header_bytes, blocks = _split(data)
    try:
        header = header_loads(header_bytes.decode("utf-8"))
        _check_header(path, header_bytes, header)
    except (TomlError, UnicodeDecodeError) as err:
        raise SaveError(f"{path}: the header cannot be read ({err}); not repaired") from err
    kept: list[bytes] = []
    aside: list[tuple[int, str, bytes]] = []
    seqs: list[int] = []
    renumbered = 0
    previous = 0
    combats: set[int] = set()
    new_number: dict[int, int] = {}  # an entry's number as written -> as kept
    links = _Links()
    for offset, part in blocks:
        line = _line_of(data, offset)
        if len(part) > MAX_ENTRY:  # none is written so large (a hand edit, an old save's)
            aside.append((line, entry_too_large(len(part)), part))
            links.add(_as_written(part), kept=False)
            continue
        try:
            body = _verified_body(part)
            entry = _toml_entry(offset, part) if body is None else _json_or_toml(offset, body)
        except (_BlockError, UnicodeDecodeError, ValueError) as err:
            aside.append((line, f"cannot be read: {err}", part))
            links.add(_as_written(part), kept=False)
            continue
        problem = _check_entry(entry) or value_problem(entry)
        if problem:
            aside.append((line, problem if isinstance(problem, str) else problem[0], part))
            links.add(entry, kept=False)
            continue
        links.add(entry, kept=True)
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
            links.set_aside(written, entry)
            continue
        new_number[written] = previous = entry["seq"]
        if entry["kind"] == "combat":
            combats.add(previous)
        seqs.append(previous)
        kept.append(block)
    content = header_bytes.rstrip(b"\n") + b"\n" + b"".join(kept)
    _replay(path, _parse(path, content), [])  # what is written loads, or nothing is written
    changes = links.changes()
    if changes and accept is not True and not set(changes) <= set(accept or ()):
        return Repaired(
            path=path,
            entries=len(seqs),
            first=seqs[0] if seqs else None,
            last=seqs[-1] if seqs else None,
            kept=len(data),
            set_aside=tuple((line, reason) for line, reason, _ in aside),
            renumbered=renumbered,
            changes=changes,
            asked=True,
        )
    status = os.fstat(fd)
    try:
        backup = _set_aside(path, original, status)
        side_fd, side = _create_beside(path, f"{path.name}.set-aside-{_utc_stamp()}-", status)
        try:
            files._write_all(side_fd, _set_aside_text(path, aside))
            os.fsync(side_fd)
        finally:
            os.close(side_fd)
        _replace(path, status, content)
    except OSError as err:
        raise SaveError(f"{path}: cannot write the repaired save: {err.strerror}") from err
    return Repaired(
        path=path,
        entries=len(seqs),
        first=seqs[0] if seqs else None,
        last=seqs[-1] if seqs else None,
        kept=len(content),
        dropped=len(original) - len(content),
        backup=backup,
        set_aside=tuple((line, reason) for line, reason, _ in aside),
        side_file=side,
        renumbered=renumbered,
        changes=changes,
        header=header_done,
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


# What an entry is, as a change names it.
_KIND_NAMES = {
    "combat": "a combat",
    "event": "an event",
    "place-marker": "a marker placed",
    "remove-marker": "a marker lifted",
    "turn": "the turn",
    "option": "an option set",
    "note": "a note",
}
_WRITTEN_SEQ = re.compile(rb'^(?:seq|"seq")\s*=\s*(\d{1,18})\s*$', re.MULTILINE)
_WRITTEN_KIND = re.compile(rb'^(?:kind|"kind")\s*=\s*"([a-z-]{1,20})"\s*$', re.MULTILINE)


def _as_written(part: bytes) -> dict[str, Any]:
    """What an entry that cannot be read says of its number and kind, where its lines do."""
    seq, kind = _WRITTEN_SEQ.search(part), _WRITTEN_KIND.search(part)
    return {
        "seq": int(seq[1]) if seq else None,
        "kind": kind[1].decode() if kind else None,
    }


class _Links:
    """The entries a repair reads, kept or set aside, by the number each was written with,
    and what each points at (`annotates`, `amends`, a marker lifted by its id): what
    setting entries aside changes in the game."""

    def __init__(self) -> None:
        self.kinds: dict[int, str | None] = {}
        self.aside: dict[int, dict[str, Any]] = {}
        self.kept: set[int] = set()
        self.points: list[tuple[int, str | None, int]] = []  # (entry, its kind, the entry)

    def add(self, entry: dict[str, Any], kept: bool) -> None:
        seq = entry.get("seq")
        if type(seq) is not int:
            return
        kind = entry.get("kind") if isinstance(entry.get("kind"), str) else None
        self.kinds.setdefault(seq, kind)
        if kept:
            self.kept.add(seq)
        else:
            self.aside.setdefault(seq, entry)
        for key in ("annotates", "amends"):
            target = entry.get(key)
            if type(target) is int:
                self.points.append((seq, kind, target))
        marker = entry.get("marker_id")
        if kind == "remove-marker" and isinstance(marker, str):
            placed = marker.partition(".")[0]
            if placed.isascii() and placed.isdigit():
                self.points.append((seq, kind, int(placed)))

    def set_aside(self, seq: int, entry: dict[str, Any]) -> None:
        """An entry read whole (written as `seq`) and then set aside all the same (an
        amendment of a combat set aside, a number that cannot follow)."""
        self.kept.discard(seq)
        self.aside.setdefault(seq, entry)

    def changes(self) -> tuple[str, ...]:
        lines = []
        for seq, entry in sorted(self.aside.items()):
            if seq in self.kept or self.kinds.get(seq) != "turn":
                continue
            ids = [
                i
                for key in ("counted_down", "expired")
                if isinstance(entry.get(key), list)
                for i in entry[key]
                if isinstance(i, str)
            ]
            held = f" ({', '.join(ids)})" if ids else ""
            lines.append(
                f"entry {seq} (the turn) is set aside: the game stays a turn behind, and the "
                f"timed markers it counted down{held} last one turn more"
            )
        for seq, kind, target in self.points:
            if target not in self.aside or target in self.kept:
                continue
            what = f"entry {seq} ({_KIND_NAMES.get(kind or '', 'an entry')})"
            their = f"entry {target} ({_KIND_NAMES.get(self.kinds.get(target) or '', 'an entry')})"
            if seq in self.kept:
                lines.append(f"{what} points at {their}, set aside: it will point at nothing")
            else:
                lines.append(f"{what} points at {their}, set aside: it is set aside too")
        return tuple(dict.fromkeys(lines))
