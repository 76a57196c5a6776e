"""What the desk's full screens (start, ruleset, review) share: styled once when first
shown (`compat.StyledOnceScreen`), and the desk they are on, typed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from textual.app import App

from tui.desk.compat import StyledOnceScreen

if TYPE_CHECKING:
    from tui.desk.app import CrtDeskApp


def desk_of(app: App[Any]) -> CrtDeskApp:
    """The desk a screen is on, typed, for what the screen reads of it (its tables, dice,
    player and folders); what a screen asks of it goes by message (`tui.desk.messages`)."""
    return cast("CrtDeskApp", app)


class DeskScreen(StyledOnceScreen[None]):
    """A full screen of the desk."""

    @property
    def desk(self) -> CrtDeskApp:
        """The desk this screen is on (`desk_of`)."""
        return desk_of(self.app)
