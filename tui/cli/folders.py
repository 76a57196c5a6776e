"""The games folder a command names (--games, else beside the saves folder), and the copies
of the player's charts a new save keeps from it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tui.cli.parsing import UsageError, path_checked
from tui.engine import registry
from tui.engine.rulesets.charts.folder import games_folder


def folder_given(games: str | None, saves: str | None = None) -> Path:
    """The games folder; one named by --games must be a folder."""

    if games is not None and not path_checked("--games", games, folder=True).is_dir():
        raise UsageError(f"--games: {games!r} is not a folder; expected the games folder")
    return games_folder(games, saves)


def kept_copies(rulesets: Sequence[str], games: str | None, saves: str | None) -> dict[str, str]:
    """The text of each player's chart among `rulesets`, read from the games folder: the
    copies a new save keeps."""
    found = [r for r in rulesets if registry.chart_name(r) is not None]
    if not found and games is None:
        return {}
    folder = folder_given(games, saves)
    copies = {r: registry.find_chart(r, folder).chart_copy for r in found}
    return {r: text for r, text in copies.items() if text is not None}
