"""Messages the game session sends to the screens (and the app)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.message import Message


class GameChanged(Message):
    """Entries appended to the open game (the save at `path`), by this desk or another
    process, were applied to it: `entries`, oldest first. Posted to every screen on the
    stack (and the app); a screen that shows that game refreshes what it shows."""

    def __init__(self, path: Path, entries: list[dict[str, Any]]) -> None:
        super().__init__()
        self.path = path
        self.entries = entries


class GameRead(Message):
    """The open game (the save at `path`) was read whole: what a screen showed of it while
    it was read (the saves list's title, rulesets and turn) is now the game's own."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
