"""A unit row's name, completed from the game's units: the suggester over their names (the
side's, as the form says which). The name field that accepts it is the row's
NameInput, made only for a row that names a unit)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from textual.suggester import Suggester

from tui.desk.widgets.combat import FixedInput


class UnitNames(Suggester):
    """The first of the names `names()` gives (asked on every keystroke: the side's units
    change as the form's attackers are picked) that starts with what is typed, whatever
    its case."""

    def __init__(self, names: Callable[[], Sequence[str]]) -> None:
        super().__init__(use_cache=False, case_sensitive=False)
        self.names = names

    def complete(self, typed: str) -> str | None:
        """The name `typed` starts, or None (nothing typed, or no name starts so)."""
        folded = typed.casefold()
        if not folded:
            return None
        return next((n for n in self.names() if n.casefold().startswith(folded)), None)

    async def get_suggestion(self, value: str) -> str | None:
        return self.complete(value)


class NameInput(FixedInput):
    """A unit's name typed in its row: leaving it (Tab, or Enter through the form) takes
    the completion shown, as Right takes it in place. (Tab is the screen's priority key:
    the field hears it only as its focus goes.) Its suggester is the game's unit names
    (tui.desk.widgets.unit_names UnitNames), set once the game has units."""

    def accept(self) -> None:
        """Take the completion of what is typed, if the game has one."""
        complete = getattr(self.suggester, "complete", None)
        if complete is not None:
            found = complete(self.value)
            if found is not None and found != self.value:
                self.value = found
                self.cursor_position = len(found)

    def on_blur(self) -> None:
        self.accept()


def name_input(suggester: Any) -> NameInput:
    """A unit row's name field, completed by `suggester`."""
    return NameInput(placeholder="name", compact=True, classes="unit-name", suggester=suggester)
