"""What the desk's full screens (start, ruleset, review) share: styled once when first
shown (`compat.StyledOnceScreen`), and the desk they are on, typed."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Protocol, cast

from textual.app import App

from tui.desk.compat import StyledOnceScreen
from tui.engine.tables import Tables
from tui.game.session import GameSession


class Desk(Protocol):
    """What a screen reads of the desk it is on (the app, `tui.desk.app.CrtDeskApp`): its
    tables, dice, player, folders and open game. What a screen asks of it goes by message
    (`tui.desk.messages`)."""

    tables: Tables
    rng: random.Random
    player: str
    saves_dir: Path
    games_dir: Path
    session: GameSession | None

    def session_of(self, path: Path) -> GameSession | None: ...


def desk_of(app: App[Any]) -> Desk:
    """The desk a screen is on, typed (the app is the one desk a screen is shown on)."""
    return cast(Desk, app)


class DeskScreen(StyledOnceScreen[None]):
    """A full screen of the desk."""

    @property
    def desk(self) -> Desk:
        """The desk this screen is on (`desk_of`)."""
        return desk_of(self.app)
