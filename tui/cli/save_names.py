"""The save a command line names: a name in the saves folder, or a path to an existing save
file, checked to be one before any lock file is made beside it. Every save command and
`crtdesk open` find their save here; kept apart from the save commands (`tui.cli.saves`),
which import the player's-chart ruleset and the log's rows, so that opening the desk on a
save loads none of them."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from tui import saves
from tui.engine.text import one_line

# The line that closes a save's header (see docs/save-format.md): how a file named by a path
# is known to be a save before the store takes a lock file beside it.
_HEADER_END = re.compile(rb"^# end of header(?: crc32 [0-9a-f]{8})?[ \t\r]*$", re.MULTILINE)
_HEADER_LIMIT = 1 << 20


def save_file(name: str, saves_dir: str | None) -> Path:
    """The existing save a name or a path typed on the command line names, by the check every
    save command makes (`crtdesk open` too): a path must name a crtdesk save file, seen to be
    one before a lock file is made beside it. SaveError (one line) when it is not."""
    return named_save(name, saves_dir)


def named_save(
    name: str, saves_dir: str | None, *, existing: bool = True, make: bool = False
) -> Path:
    """The file a save named on the command line is in.

    A name is a file in the saves folder. A path (what shell completion types) names an
    existing save file anywhere, as `crtdesk open` takes it; `.toml` may be left off. A new
    save (`existing` False) is always a name. Names typed in the desk never come through here.
    """
    if existing and any(sep and sep in name for sep in ("/", "\\", os.sep, os.altsep)):
        return _existing_save(name)
    # A save that must exist is looked for; only a new one makes the folder.
    folder = saves.saves_folder(saves_dir, create=not existing, make=make, said=said_on_stderr)
    return saves.save_path(name, folder)


def said_on_stderr(text: str) -> None:
    """A line the player is told beside the command's output (a saves folder made)."""
    print(f"crtdesk: {one_line(text)}", file=sys.stderr)


def _existing_save(name: str) -> Path:
    given = Path(name).expanduser()
    shown = one_line(name)
    if given.suffix != ".toml":
        if given.is_file():
            raise saves.SaveError(
                f"{shown} is not a crtdesk save file (a save file's name ends in .toml)"
            )
        given = given.with_name(given.name + ".toml")
    if not given.is_file():
        raise saves.SaveError(
            f"no save file {shown}; a path must name a save file that exists "
            "(a new save is named by its file name and made in the saves folder)"
        )
    # A path typed outright may name a save through links: resolved once, to the real file,
    # which the store then opens without following any.
    if given.resolve() != given.absolute():
        given = given.resolve()
    try:
        with given.open("rb") as handle:
            head = handle.read(_HEADER_LIMIT)
    except OSError as err:
        raise saves.SaveError(f"cannot read {shown}: {err.strerror}") from err
    if not head.strip():
        raise saves.SaveError(f"{shown} is empty ({len(head)} bytes), not a crtdesk save")
    if not _HEADER_END.search(head):
        raise saves.SaveError(
            f"{shown} is not a crtdesk save file (it has no '# end of header' line)"
        )
    return given
