"""Starting a save: the header written whole or not at all, never over a name already
taken (a planted link included), with a killed `new`'s temporary files cleared.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from datetime import UTC, datetime
from glob import escape as glob_escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.engine import registry
from tui.saves import files
from tui.saves.appending import _now, _player
from tui.saves.charts import check_charts
from tui.saves.checking import (
    DEFAULT_OPTIONS,
    _check_text,
    _option_problem,
)
from tui.saves.encoding import FORMAT_VERSION, _header
from tui.saves.errors import SaveError
from tui.saves.files import _create_beside
from tui.saves.locking import _TAIL, _locked
from tui.saves.paths import FILE_MODE
from tui.saves.replay import Game
from tui.saves.state import state_line

if TYPE_CHECKING:
    pass


def new_game(
    path: Path,
    title: str,
    rulesets: list[str],
    options: dict[str, Any] | None = None,
    *,
    who: str | None = None,
    charts: dict[str, str] | None = None,
) -> Game:
    """Start a save: the header alone (the log starts empty). SaveError if the file exists.
    `charts`: a copy of each player's chart in play (its ruleset id -> its text)."""
    path = Path(path)
    _check_text("title", title, allow_empty=False)
    rulesets = list(dict.fromkeys(rulesets))
    if not rulesets:
        raise SaveError(
            "a game needs at least one ruleset; expected one of " + ", ".join(registry.ids())
        )
    charts = {r: t for r, t in (charts or {}).items() if r in rulesets}
    for ruleset in rulesets:
        if ruleset in charts:
            continue
        if registry.chart_name(ruleset) is not None:
            raise SaveError(f"ruleset {ruleset!r}: a player's chart needs its copy")
        if not registry.known(ruleset):
            raise SaveError(
                f"unknown ruleset {ruleset!r}; expected one of {', '.join(registry.ids())}"
            )
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
    game = Game(
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
    made = _create_whole(path, content)
    try:
        with _locked(path, exclusive=True) as lock:
            status = os.fstat(lock.open_fd())
            if (status.st_dev, status.st_ino, status.st_size) == made:
                lock.remember(status, content[-_TAIL:], state_line(game, 0))
    except SaveError:
        pass  # made, then changed or locked otherwise: the next append checks it whole
    return game


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
            files._write_all(fd, content)
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
