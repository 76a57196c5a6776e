"""Where saves live: the saves folder, a save's file from the name a player typed, its lock."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from tui.engine.text import one_line
from tui.saves.errors import SaveError

SAVES_ENV = "CRTDESK_SAVES"
# Files are shared by the players of one group: owner and group read and write.
FILE_MODE = 0o660
_NAME_MAX = 120


def saves_folder(
    override: str | None = None,
    *,
    create: bool = True,
    make: bool = False,
    said: Callable[[str], None] | None = None,
) -> Path:
    """The saves folder: `override`, else $CRTDESK_SAVES, else ./saves; unless `create` is
    False (a command that only reads), created if missing, group-shared and never
    world-writable (whatever the umask). A folder named by `override` or $CRTDESK_SAVES
    that does not exist is refused (a mistyped name made a new folder without a word),
    unless `make` (the player's --create); a folder made is told to `said`, with where."""
    explicit = override or os.environ.get(SAVES_ENV)
    text = explicit or "saves"
    shown = one_line(text)
    try:
        folder = Path(text).expanduser()
        if folder.exists() and not folder.is_dir():
            raise SaveError(f"saves folder {shown} is not a folder")
        if create and not folder.exists():
            where = one_line(str(folder.absolute()))
            if explicit and not make:
                named = "--saves" if override else SAVES_ENV
                raise SaveError(
                    f"saves folder {shown} ({named}) does not exist: {where}; check the name, "
                    "or add --create to make it"
                )
            _make_folder(folder)
            if said is not None:
                said(f"made the saves folder {where}")
        if folder.is_dir():
            _enter(folder, shown)
    except OSError as err:
        raise SaveError(f"saves folder {shown} cannot be used: {err.strerror or err}") from err
    return folder


def _enter(folder: Path, shown: str) -> None:
    """SaveError unless the player may enter the folder (open a file in it by name)."""
    try:
        os.stat(os.path.join(folder, "."))
    except OSError as err:
        raise SaveError(
            f"saves folder {shown} cannot be entered: {err.strerror or err}; "
            "a saves folder must be one you may open (its group's, or yours)"
        ) from None


def _make_folder(folder: Path) -> None:
    # Folders above it made too are never writable by others either, whatever the umask.
    for parent in reversed(folder.parents):
        if not parent.exists():
            try:
                os.mkdir(parent, 0o755)
            except FileExistsError:
                pass
    try:
        folder.mkdir()
    except FileExistsError:
        if folder.is_dir():
            return  # made meanwhile by another player: its mode is theirs
        raise
    # Only the folder just made is changed, through a descriptor that follows no link.
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        # Group-shared like the files in it; setgid keeps new files in the folder's group;
        # others may read it when the umask lets them, never write to it.
        os.fchmod(fd, 0o2770 | (os.fstat(fd).st_mode & 0o005))
    finally:
        os.close(fd)


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
