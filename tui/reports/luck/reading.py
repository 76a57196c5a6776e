"""Luck of a save on disk: its entries read one by one, each let go once counted (the
figures keep running totals), and read again if the save was written over meanwhile.

Headless: never imports textual or rich.
"""

from __future__ import annotations

from pathlib import Path

from tui import saves
from tui.engine.tables import Tables
from tui.reports.luck.stats import LuckReport, luck_report


def read_luck(path: Path, tables: Tables | None = None) -> tuple[LuckReport, saves.Game]:
    """Luck in the save at `path`, and the game read (its warnings: a torn last entry).
    SaveError as `saves.load_game` raises it."""

    def read() -> tuple[LuckReport, saves.Game]:
        stream = saves.read_entries(path)
        report = luck_report((read.entry for read in stream), tables)
        assert stream.game is not None  # read to its end
        return report, stream.game

    return saves.read_again(read)
