"""Messages the game session sends to the screens (and the app)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from tui.saves.repair import Repaired


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


class SaveRepaired(Message):
    """The save at `path` was repaired (`GameSession.repair`): `repaired` says what was done
    (nothing, for a sound save), or `error` why it could not be. Posted to every screen on
    the stack (and the app)."""

    def __init__(
        self, path: Path, repaired: Repaired | None = None, error: str | None = None
    ) -> None:
        super().__init__()
        self.path = path
        self.repaired = repaired
        self.error = error
