"""Note and event entries: a note on an earlier entry, and something the desk did that is
not a combat (with its dice).

Headless: never imports textual or rich.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.engine import registry
from tui.saves.appending import _append
from tui.saves.checking import (
    _check_ruleset_in_play,
    _check_text,
)
from tui.saves.encoding import _BARE_KEY
from tui.saves.errors import SaveError
from tui.saves.replay import Game

if TYPE_CHECKING:
    from tui.engine.dice import DiceRoll


def append_event(
    path: Path,
    event: str,
    text: str,
    *,
    ruleset: str | None = None,
    dice: list[DiceRoll | dict[str, Any]] | None = None,
    who: str | None = None,
    notices: list[str] | None = None,
) -> dict[str, Any]:
    """Log something the desk did that is not a combat, with its dice: e.g. the die rolled
    for a Hero Site won uncontested (event "hero-site-draw"). Returns the entry written."""
    if not isinstance(event, str) or not _BARE_KEY.match(event):
        raise SaveError(f"event name {event!r} must be letters, digits, '_' or '-'")
    _check_text("event text", text)
    if ruleset is not None and not registry.known(ruleset):
        raise SaveError(f"unknown ruleset {ruleset!r}; expected one of {', '.join(registry.ids())}")
    rolls = [dict(d) if isinstance(d, Mapping) else d.to_dict() for d in dice or []]

    def make(
        header: dict[str, Any], last: dict[str, Any] | None, game: Game | None
    ) -> dict[str, Any]:
        if ruleset is not None:
            _check_ruleset_in_play(header, ruleset)
        return {"kind": "event", "event": event, "ruleset": ruleset, "text": text, "dice": rolls}

    return _append(path, make, who=who, notices=notices)


def append_note(
    path: Path,
    seq: int,
    text: str,
    *,
    who: str | None = None,
    notices: list[str] | None = None,
) -> dict[str, Any]:
    """Annotate entry `seq` with a note: a new entry (kind "note", `annotates`, `text`); the
    entry it names is never edited. SaveError if no entry has that number (entries are
    numbered 1, 2, 3, ... so the last one's number says it, without reading the others)."""
    if type(seq) is not int or seq < 1:
        raise SaveError(f"entry number {seq!r} must be a whole number of 1 or more")
    _check_text("note", text, allow_empty=False)

    def make(
        header: dict[str, Any], last: dict[str, Any] | None, game: Game | None
    ) -> dict[str, Any]:
        if last is None or seq > last["seq"]:
            known = f"entries 1 to {last['seq']}" if last else "no entries yet"
            raise SaveError(f"no entry {seq} in {path} ({known})")
        return {"kind": "note", "annotates": seq, "text": text}

    return _append(path, make, who=who, notices=notices)
