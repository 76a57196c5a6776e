"""Where saves live: the saves folder, a save's file from the name a player typed, its lock."""

from __future__ import annotations

import os
from pathlib import Path

from tui.saves.errors import SaveError

SAVES_ENV = "CRTDESK_SAVES"
# Files are shared by the players of one group: owner and group read and write.
FILE_MODE = 0o660
_NAME_MAX = 120


def saves_folder(override: str | None = None) -> Path:
    """The saves folder: `override`, else $CRTDESK_SAVES, else ./saves; created if missing."""
    text = override or os.environ.get(SAVES_ENV) or "saves"
    folder = Path(text).expanduser()
    if folder.exists() and not folder.is_dir():
        raise SaveError(f"saves folder {folder} is not a folder")
    if not folder.exists():
        try:
            folder.mkdir(parents=True)
            # Group-shared like the files in it; setgid keeps new files in the folder's group.
            folder.chmod(0o2770 | (folder.stat().st_mode & 0o007))
        except OSError as err:
            if not folder.is_dir():
                raise SaveError(f"cannot create saves folder {folder}: {err.strerror}") from err
    return folder


def save_path(name: str, folder: Path) -> Path:
    """The file for a save name a user typed: no path, no `..`; `.toml` added if missing."""
    if not isinstance(name, str) or not name.strip():
        raise SaveError("save name is empty; give a name such as 'campaign'")
    shown = repr(name)
    if "/" in name or "\\" in name or os.sep in name or (os.altsep and os.altsep in name):
        raise SaveError(f"save name {shown} may not contain a path separator; give the name only")
    if ".." in name:
        raise SaveError(f"save name {shown} may not contain '..'")
    if name != name.strip() or name.startswith(("-", ".")):
        raise SaveError(
            f"save name {shown} may not start with '.', '-' or a space, or end in a space"
        )
    if any(ord(c) < 32 or ord(c) == 127 for c in name) or "\x00" in name:
        raise SaveError(f"save name {shown} may not contain control characters")
    if Path(name).is_absolute() or len(name) > _NAME_MAX:
        raise SaveError(
            f"save name {shown} is not a plain file name of up to {_NAME_MAX} characters"
        )
    try:
        name.encode("utf-8")
    except UnicodeEncodeError as err:
        raise SaveError(f"save name {shown} is not valid text") from err
    if not name.endswith(".toml"):
        name += ".toml"
    return folder / name


def _lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")
