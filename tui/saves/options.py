"""Option entries: a per-game option set, logged like everything else.

Headless: never imports textual or rich.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.saves.appending import _append
from tui.saves.checking import (
    _check_text,
    _option_problem,
)
from tui.saves.errors import SaveError
from tui.saves.replay import Game

if TYPE_CHECKING:
    pass


def set_option(
    path: Path,
    key: str,
    value: object,
    *,
    who: str | None = None,
    notices: list[str] | None = None,
) -> dict[str, Any]:
    """Set a per-game option (e.g. mines_cdf 3); logged like everything else. An option this
    desk does not know is refused, with the known ones."""
    problem = _option_problem(key, value, known_only=True)
    if problem:
        raise SaveError(problem)
    if isinstance(value, str):
        _check_text("option value", value)

    def make(
        header: dict[str, Any], last: dict[str, Any] | None, game: Game | None
    ) -> dict[str, Any]:
        return {"kind": "option", "key": key, "value": value}

    return _append(path, make, who=who, notices=notices)
