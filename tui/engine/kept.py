"""Where the desk keeps what it worked out once and reads back at the next start: the
checked tables (`tui.engine.tables`), as JSON.

Each kept file is named by checksums of what it was made from, is written whole (a new
file moved into place), and is read only if it belongs to the player: the folder is the
player's own (mode 0700), never shared. Standard library only: the engine uses it.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from tui.engine.bounds import BoundError, read_bounded

CACHE_ENV = "CRTDESK_CACHE"


def cache_folder() -> Path | None:
    """Where kept files go: $CRTDESK_CACHE (empty: nowhere), else crtdesk/ in
    $XDG_CACHE_HOME or ~/.cache."""
    override = os.environ.get(CACHE_ENV)
    if override is not None:
        return Path(override) if override else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "crtdesk"


def read_own(path: Path, limit: int) -> bytes | None:
    """The kept file's bytes, or None: not there, unreadable, not the player's own, not a
    plain file, or over `limit` bytes (its size known before any byte is read)."""
    try:
        return read_bounded(path, limit, follow_links=False, owner=os.getuid())
    except (OSError, BoundError):
        return None


def write(path: Path, data: bytes, others: str) -> None:
    """Keep `data` as `path`, and remove the older files matching the glob `others` (kept
    for what has since changed); silently nothing where the folder cannot be written."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary.write_bytes(data)
        os.replace(temporary, path)
        for old in path.parent.glob(others):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
