"""A player's chart file in the games folder against the copy its save keeps (the game
plays by the copy; a file changed since the game began is named).

Headless: never imports textual or rich.
"""

from __future__ import annotations

from tui.saves.charts import changed_chart

__all__ = ["changed_chart"]
