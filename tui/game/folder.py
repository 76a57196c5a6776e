"""The saves folder as the desk sees it: where it is, the games in it (for the start
screen's list), a new game started in it, and a file checked to be a save. The desk asks
these of the game layer, never of the store itself.

Headless: never imports textual or rich.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

# The store's creating and repairing code is imported when first called (its facade).
from tui import saves
from tui.saves.loading import GameSummary

__all__ = ["GameSummary", "has_games", "list_games", "new_game", "require_save", "saves_folder"]


def saves_folder(
    override: str | None = None, *, make: bool = False, said: Callable[[str], None] | None = None
) -> Path:
    """The saves folder (`saves.saves_folder`): `override`, else $CRTDESK_SAVES, else
    ./saves, made if missing (a folder named that does not exist only with `make`)."""
    return saves.saves_folder(override, make=make, said=said)


def has_games(folder: Path) -> bool:
    """Whether the folder has a save, without reading one."""
    return saves.has_games(folder)


def list_games(folder: Path) -> list[GameSummary]:
    """Every save in the folder, newest last entry first; a broken one (a link planted
    in it among them) with its error. SaveError when the folder cannot be read."""
    return saves.list_games(folder)


def require_save(path: Path) -> None:
    """SaveError unless `path` is a save file (checked before the desk opens on it)."""
    saves.require_save(path)


def new_game(
    folder: Path,
    title: str,
    rulesets: list[str],
    options: dict[str, Any],
    charts: dict[str, str] | None = None,
) -> GameSummary:
    """Start a save of these rulesets in `folder`, named after its title (`-2`, `-3`, ...
    after a name taken), with a copy of each player's chart in play (`charts`): what the
    saves list will show of it. SaveError when it cannot be made."""
    base = "".join(c if c.isalnum() else "-" for c in title.lower()).strip("-") or "game"
    name, n = base, 1
    while (folder / f"{name}.toml").exists():
        n += 1
        name = f"{base}-{n}"
    path = saves.save_path(name, folder)
    saves.new_game(path, title, rulesets, options, charts=charts)
    return GameSummary(path, title, list(rulesets), 1, None)
