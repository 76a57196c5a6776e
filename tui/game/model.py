"""The game as the session holds it, named for the desk: the store's model of a game and
its markers, the marker kinds, and the error the store raises. The desk names them from
here, never from the store (`tui.saves`), which it does not touch.

Headless: never imports textual or rich.
"""

from __future__ import annotations

from tui.saves.errors import SaveError
from tui.saves.replay import MARKER_KINDS, Game, Marker, canonical_kind

__all__ = ["MARKER_KINDS", "Game", "Marker", "SaveError", "canonical_kind"]
