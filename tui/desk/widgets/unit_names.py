"""A unit row's name, completed from the game's units: the suggester over their names (the
side's, as the form says which). The name field that accepts it is the row's
(tui.desk.widgets.combat NameInput)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.suggester import Suggester


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
