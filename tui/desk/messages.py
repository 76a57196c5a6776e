"""What the desk's screens ask of the app, by message (they never call into it): open or
start a game, repair a save, show a ruleset's screen or the saves list, leave a review
that is the desk's first screen, and say a screen has drawn its first frame. Posted by a
screen, they bubble up to the app. Each sets its fields in an __init__ of its own, as
Textual's messages do (a dataclass's methods, generated at start, cost 1 to 2 M
instructions a message)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from tui.desk.screens.dialogs import NewGameRequest
    from tui.game.folder import GameSummary


class OpenGame(Message):
    """Open the save the saves list shows as `summary`."""

    def __init__(self, summary: GameSummary) -> None:
        super().__init__()
        self.summary = summary


class CreateGame(Message):
    """Start a save as the new game's dialog asked (`NewGameRequest`: its title, rulesets,
    options and a copy of each player's chart in play), and open it."""

    def __init__(self, request: NewGameRequest) -> None:
        super().__init__()
        self.request = request


class RepairSave(Message):
    """Repair the save at `path` (`crtdesk repair`): the screens hear how it went
    (`tui.game.messages.SaveRepaired`). `accept`: the changes to the game the player agreed
    to (`Repaired.changes`); a repair that would change more writes nothing and asks."""

    def __init__(self, path: Path, accept: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.path = path
        self.accept = accept


class ShowRuleset(Message):
    """Show the screen of one of the open game's rulesets."""

    def __init__(self, ruleset: str) -> None:
        super().__init__()
        self.ruleset = ruleset


class ShowStart(Message):
    """Back to the saves list."""


class LeaveFirstReview(Message):
    """Esc on a review that is the desk's first screen (`crtdesk review NAME`)."""


class ScreenDrawn(Message):
    """A screen drew its first frame (and what follows it): a save opened from the list is
    read now."""
