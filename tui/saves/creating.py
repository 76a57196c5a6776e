"""Starting a save: the header written whole or not at all, never over a name already
taken (a planted link included), with a killed `new`'s temporary files cleared.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import contextlib
import errno
import os
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
    notices: list[str] | None = None,
) -> Game:
    """Start a save: the header alone (the log starts empty). SaveError if the file exists.
    `charts`: a copy of each player's chart in play (its ruleset id -> its text). The
    temporary files a killed `new` or `repair` of this name left are removed first, and
    said in `notices` (one line); never one a live process is writing."""
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
    removed = files.clear_temporaries(path)
    if removed and notices is not None:
        notices.append(files.temporaries_notice(path, removed))
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
            if lock.removed and notices is not None:
                notices.append(files.temporaries_notice(path, lock.removed))
    except SaveError:
        pass  # made, then changed or locked otherwise: the next append checks it whole
    return game


def _create_whole(path: Path, content: bytes) -> tuple[int, int, int]:
    """Write a new file so that it appears complete or not at all (never a half header),
    never clobbering a name already taken (a link planted there included); the new file's
    device, inode and size."""
    taken = SaveError(f"{path} already exists; pick another name or open it")
    if os.path.lexists(path):
        raise taken
    temp: Path | None = None
    fd: int | None = None
    try:
        # Locked while it is written and until its temporary name is gone (see
        # `files._create_beside`): a killed `new`'s file is one no live process holds.
        fd, temp = _create_beside(path, f".{path.name}.new-", FILE_MODE)
        files._write_all(fd, content)
        os.fsync(fd)
        status = os.fstat(fd)
        try:
            os.link(temp, path)  # fails if the name is taken: no clobbering
        except FileExistsError as err:
            raise taken from err
        except OSError as err:
            if os.path.lexists(path):
                raise taken from err  # taken meanwhile (and our temporary file cleared)
            if err.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
                raise
            os.replace(temp, path)  # a filesystem without hard links
    except OSError as err:
        raise SaveError(f"cannot create {path}: {err.strerror}") from err
    finally:
        if temp is not None:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
        if fd is not None:
            os.close(fd)
    return status.st_dev, status.st_ino, status.st_size
