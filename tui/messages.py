"""Messages the app sends to its screens."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.message import Message


class GameChanged(Message):
    """Entries another process appended to the open game (the save at `path`) were applied
    to it: `entries`, oldest first. Posted to every screen on the stack; a screen that shows
    that game refreshes what it shows."""

    def __init__(self, path: Path, entries: list[dict[str, Any]]) -> None:
        super().__init__()
        self.path = path
        self.entries = entries
