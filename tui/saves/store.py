"""The store itself: the lock, reading the ends of a file, loading, listing, and appending
one entry under the lock (repairing a torn last entry first).

Headless: never imports textual or rich.
"""

from __future__ import annotations

import errno
import fcntl
import getpass
import os
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tui.engine.combat import CombatInput, Outcome
from tui.engine.dice import DiceRoll
from tui.engine.tables import RULESET_IDS
from tui.saves.checking import (
    DEFAULT_OPTIONS,
    _check,
    _check_entry,
    _check_header,
    _check_ruleset_in_play,
    _check_text,
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
    _Parsed,
    _toml_entry,
    _torn_cut,
    _verified_body,
)
from tui.saves.encoding import _BARE_KEY, FORMAT_VERSION, _block, _header, _without_none
from tui.saves.errors import SaveError
from tui.saves.paths import FILE_MODE, _lock_path
from tui.saves.replay import Game, _count_down, _replay, canonical_kind

UNSPECIFIED_TARGET = "(unspecified)"
_WINDOW = 64 * 1024


@dataclass
class GameSummary:
    path: Path
    title: str
    rulesets: list[str]
    turn: int
    last_entry: str | None
    error: str | None = None


@contextmanager
def _locked(path: Path, exclusive: bool) -> Iterator[_Lock]:
    lock = _Lock(_lock_path(path))
    try:
        lock.take(exclusive)
        yield lock
    finally:
        lock.release()


class _Lock:
    """An flock on NAME.toml.lock (never on the data file: that is never renamed, but the lock
    file outliving every rename or copy of it keeps the rule simple)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None

    def take(self, exclusive: bool) -> None:
        if self.fd is None:
            try:
                self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, FILE_MODE)
            except PermissionError:
                try:
                    self.fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
                except OSError as err:
                    raise SaveError(
                        f"cannot open the lock file {self.path}: {err.strerror}"
                    ) from err
            except OSError as err:
                raise SaveError(f"cannot open the lock file {self.path}: {err.strerror}") from err
            _share_with_group(self.fd)
        fcntl.flock(self.fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _share_with_group(fd: int) -> None:
    try:
        status = os.fstat(fd)
        if status.st_uid == os.getuid() and status.st_mode & FILE_MODE != FILE_MODE:
            os.fchmod(fd, (status.st_mode & 0o7777) | FILE_MODE)
    except OSError:
        pass  # someone else's file: its mode is theirs to set


def _utc_stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")


def _set_aside(path: Path, data: bytes) -> Path:
    """Keep the file's original bytes as NAME.toml.bak-<UTC timestamp>, never overwriting one."""
    for attempt in range(100):
        backup = path.with_name(
            f"{path.name}.bak-{_utc_stamp()}" + (f"-{attempt}" if attempt else "")
        )
        try:
            fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, FILE_MODE)
        except FileExistsError:
            continue
        try:
            _share_with_group(fd)
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        return backup
    raise SaveError(f"cannot find a free backup name beside {path}")


def _repair(fd: int, path: Path, cut: int) -> str:
    """Set the whole file aside, then cut the torn entry off. Hold the exclusive lock."""
    try:
        backup = _set_aside(path, _read_all(fd))
        os.ftruncate(fd, cut)
        os.fsync(fd)
    except OSError as err:
        raise SaveError(f"{path}: cannot set the torn last entry aside: {err.strerror}") from err
    return (
        f"{path}: the last entry was torn (a write cut short) and was dropped; "
        f"the original bytes are kept in {backup}"
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
    flags = (os.O_RDWR | os.O_APPEND) if writable else os.O_RDONLY
    try:
        return os.open(path, flags | os.O_CLOEXEC)
    except FileNotFoundError as err:
        raise SaveError(f"no save file {path}; start one with `crtdesk new`") from err
    except IsADirectoryError as err:
        raise SaveError(f"{path} is a folder, not a save file") from err
    except OSError as err:
        raise SaveError(f"cannot open {path}: {err.strerror}") from err


def _require(path: Path) -> None:
    if not path.is_file():
        if path.exists():
            raise SaveError(f"{path} is not a save file")
        raise SaveError(f"no save file {path}; start one with `crtdesk new`")


def load_game(path: Path) -> Game:
    """Read a whole save. A torn last entry is set aside (see module doc) and reported in
    `Game.warnings`; any other problem is a SaveError naming the line, the file untouched."""
    path = Path(path)
    _require(path)
    warnings: list[str] = []
    with _locked(path, exclusive=False) as lock:
        data = _read_file(path)
        cut = _torn_cut(data)
        if cut is not None and os.access(path, os.W_OK):
            lock.take(exclusive=True)  # another reader may have repaired it meanwhile
            fd = _open(path, writable=True)
            try:
                data = _read_all(fd)
                cut = _torn_cut(data)
                if cut is not None:
                    warnings.append(_repair(fd, path, cut))
            except SaveError as err:
                warnings.append(f"{err}; the torn last entry is ignored, the file left as it is")
            finally:
                os.close(fd)
        elif cut is not None:
            warnings.append(f"{path}: the last entry is torn; it is ignored (no write access)")
    game = _replay(path, _parse(path, data[:cut]), warnings)
    game.end = _last_end(data[:cut])
    return game


def _parse(path: Path, data: bytes) -> _Parsed:
    """Header and entries of a whole save (torn tail already cut), checked as a load does."""
    parsed = _decode(path, data)
    _check(path, data, parsed)
    return parsed


def _read_file(path: Path) -> bytes:
    fd = _open(path, writable=False)
    try:
        return _read_all(fd)
    finally:
        os.close(fd)


def list_games(folder: Path) -> list[GameSummary]:
    """Every save in a folder, newest last entry first; a broken one listed with its error."""
    summaries = []
    for path in sorted(Path(folder).glob("*.toml")):
        if not path.is_file():
            continue
        try:
            with _locked(path, exclusive=False):
                fd = _open(path, writable=False)
                try:
                    header, last, _ = _read_ends(fd, path)
                finally:
                    os.close(fd)
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
    good = sorted(
        (s for s in summaries if not s.error), key=lambda s: s.last_entry or "", reverse=True
    )
    return good + [s for s in summaries if s.error]


def _current_turn(last: dict[str, Any] | None) -> int:
    return last["turn"] if last else 1


def _read_ends(fd: int, path: Path, repair: bool = False) -> tuple[dict, dict | None, list[str]]:
    """The checked header and the last entry, reading only the ends of the file.

    With `repair` (the exclusive lock held), a torn last entry is set aside and cut off;
    otherwise it is skipped."""
    size = os.fstat(fd).st_size
    warnings: list[str] = []
    window = _WINDOW
    while True:
        start = max(0, size - window)
        data = _read_range(fd, start, size)
        end = _last_end(data)
        if end or start == 0:
            break
        window *= 4
    cut = _torn_cut(data, start)
    if cut is not None:
        if repair:
            warnings.append(_repair(fd, path, cut))
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
        return parsed.header, (parsed.entries[-1] if parsed.entries else None), warnings
    header_data = _read_header(fd, size)
    header_end = header_data.find(_SEPARATOR)
    try:
        header = tomllib.loads(header_data[: header_end + 1 if header_end != -1 else None].decode())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        _parse(path, _read_range(fd, 0, size))  # the whole-file reader names the line
        raise SaveError(f"{path}: the header cannot be read") from None
    if at == -1 or start + at < header_end:
        _check_header(path, header_data, header)
        return header, None, warnings
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
    return header, last, warnings


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
    path: Path, make: Maker, *, whole: bool = False, who: str | None = None
) -> dict[str, Any]:
    """Append one entry under the exclusive lock. `make(header, last_entry, game)` gives the
    entry's own fields; `game` is the full replay when `whole`, else None (an O(1) append)."""
    path = Path(path)
    _require(path)
    with _locked(path, exclusive=True):
        fd = _open(path, writable=True)
        try:
            if whole:
                data = _read_all(fd)
                cut = _torn_cut(data)
                warnings = [_repair(fd, path, cut)] if cut is not None else []
                game = _replay(path, _parse(path, data[:cut]), warnings)
                header = {"title": game.title, "rulesets": game.rulesets, "options": game.options}
                last = game.entries[-1] if game.entries else None
            else:
                header, last, warnings = _read_ends(fd, path, repair=True)
                game = None
            fields = make(header, last, game)
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
            if problem:
                raise SaveError(f"{path}: not saved: {problem[0]}")
            _write_entry(fd, path, entry)
        finally:
            os.close(fd)
    return _without_none(entry)


def _write_entry(fd: int, path: Path, entry: dict[str, Any]) -> None:
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


def new_game(
    path: Path,
    title: str,
    rulesets: list[str],
    options: dict | None = None,
    *,
    who: str | None = None,
) -> Game:
    """Start a save: the header alone (the log starts empty). SaveError if the file exists."""
    path = Path(path)
    _check_text("title", title, allow_empty=False)
    rulesets = list(dict.fromkeys(rulesets))
    if not rulesets:
        raise SaveError(
            "a game needs at least one ruleset; expected one of " + ", ".join(RULESET_IDS)
        )
    for ruleset in rulesets:
        if ruleset not in RULESET_IDS:
            raise SaveError(
                f"unknown ruleset {ruleset!r}; expected one of {', '.join(RULESET_IDS)}"
            )
    options = dict(options or {})
    for key, value in options.items():
        problem = _option_problem(key, value)
        if problem:
            raise SaveError(problem)
    if not path.parent.is_dir():
        raise SaveError(f"no folder {path.parent} for the save")
    created = _now()
    content = _header(title, rulesets, options, created, _player(who))
    with _locked(path, exclusive=True):
        if path.exists():
            raise SaveError(f"{path} already exists; pick another name or open it")
        _create_whole(path, content)
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


def _create_whole(path: Path, content: bytes) -> None:
    """Write a new file so that it appears complete or not at all (never a half header)."""
    temp = path.with_name(f".{path.name}.new-{os.getpid()}")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, FILE_MODE)
        try:
            _share_with_group(fd)
            _write_all(fd, content)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temp, path)  # fails if the name is taken: no clobbering
        except FileExistsError as err:
            raise SaveError(f"{path} already exists; pick another name or open it") from err
        except OSError as err:
            if err.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
                raise
            os.replace(temp, path)  # a filesystem without hard links; we hold the lock
    except OSError as err:
        raise SaveError(f"cannot create {path}: {err.strerror}") from err
    finally:
        try:
            temp.unlink()
        except FileNotFoundError:
            pass


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
        extra = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in given.items())
        sides = [s for s in ("attacker", "defender") if s in targets and side in (s, "both")]
        for where, who in [(targets[s], s) for s in sides] or [(target, side)]:
            placed.append(
                {
                    "id": f"{seq}.{len(placed) + 1}",
                    "kind": kind,
                    "target": where or UNSPECIFIED_TARGET,
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
) -> dict:
    """Log one resolved combat; markers the result places (No-entry, DG, exploitation,
    engaged) go on `target` (or per side on `targets`), or on "(unspecified)". `who`
    defaults to the OS user. Returns the entry written."""
    if note is not None:
        _check_text("note", note)
    if target is not None:
        _check_text("target", target, allow_empty=False)
    for where in (targets or {}).values():
        _check_text("target", where, allow_empty=False)
    record = outcome.to_dict()
    if not record.get("inputs"):
        record["inputs"] = combat.to_dict()

    def make(header: dict, last: dict | None, game: Game | None) -> dict[str, Any]:
        _check_ruleset_in_play(header, combat.ruleset)
        seq = (last["seq"] if last else 0) + 1
        return {
            "kind": "combat",
            "ruleset": record["ruleset"],
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

    return _append(path, make, who=who)


def advance_turn(path: Path, *, who: str | None = None) -> dict:
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

    return _append(path, make, whole=True, who=who)


def add_marker(
    path: Path,
    kind: str,
    target: str,
    side: str | None = None,
    turns: int | None = None,
    note: str | None = None,
    *,
    who: str | None = None,
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

    return _append(path, make, who=who)


def remove_marker(path: Path, marker_id: str, *, who: str | None = None) -> dict:
    """Lift a marker by hand (e.g. Hero #15 Engineer/Frogman repairing a No-entry hex)."""
    marker_id = str(marker_id).strip()

    def make(header: dict, last: dict | None, game: Game | None) -> dict[str, Any]:
        assert game is not None
        found = next((m for m in game.markers if m.id == marker_id), None)
        if found is None:
            known = ", ".join(m.id for m in game.markers) or "none"
            raise SaveError(f"no marker {marker_id!r} in {path}; current markers: {known}")
        return {
            "kind": "remove-marker",
            "marker_id": marker_id,
            "marker_kind": found.kind,
            "target": found.target,
        }

    return _append(path, make, whole=True, who=who)


def set_option(path: Path, key: str, value: object, *, who: str | None = None) -> dict:
    """Set a per-game option (e.g. mines_cdf 3); logged like everything else."""
    problem = _option_problem(key, value)
    if problem:
        raise SaveError(problem)
    if isinstance(value, str):
        _check_text("option value", value)

    def make(header: dict, last: dict | None, game: Game | None) -> dict[str, Any]:
        return {"kind": "option", "key": key, "value": value}

    return _append(path, make, who=who)


def append_event(
    path: Path,
    event: str,
    text: str,
    *,
    ruleset: str | None = None,
    dice: list[DiceRoll | dict[str, Any]] | None = None,
    who: str | None = None,
) -> dict:
    """Log something the desk did that is not a combat, with its dice: e.g. the die rolled
    for a Hero Site won uncontested (event "hero-site-draw"). Returns the entry written."""
    if not isinstance(event, str) or not _BARE_KEY.match(event):
        raise SaveError(f"event name {event!r} must be letters, digits, '_' or '-'")
    _check_text("event text", text)
    if ruleset is not None and ruleset not in RULESET_IDS:
        raise SaveError(f"unknown ruleset {ruleset!r}; expected one of {', '.join(RULESET_IDS)}")
    rolls = [d.to_dict() if isinstance(d, DiceRoll) else dict(d) for d in dice or []]

    def make(header: dict, last: dict | None, game: Game | None) -> dict[str, Any]:
        if ruleset is not None:
            _check_ruleset_in_play(header, ruleset)
        return {"kind": "event", "event": event, "ruleset": ruleset, "text": text, "dice": rolls}

    return _append(path, make, who=who)


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
    with _locked(path, exclusive=False):
        fd = _open(path, writable=False)
        try:
            size = os.fstat(fd).st_size
            if size < offset:
                raise StaleOffset(f"{path}: the file is shorter than when it was read")
            start = max(0, offset - _END_BEFORE)
            data = _read_range(fd, start, size)
        finally:
            os.close(fd)
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
