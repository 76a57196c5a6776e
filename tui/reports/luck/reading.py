"""Luck of a save on disk: what each entry gives the figures, kept beside the save, read one
by one and each let go once counted (the figures keep running totals).

Headless: never imports textual or rich.
"""

from __future__ import annotations

from pathlib import Path

from tui import saves
from tui.engine.tables import Tables, default_tables
from tui.reports.kept import version
from tui.reports.luck.stats import LuckRecord, LuckReport, LuckTally


def read_luck(path: Path, tables: Tables | None = None) -> tuple[LuckReport, saves.Game]:
    """Luck in the save at `path`, and the game read (its warnings: a torn last entry).
    Each entry's part (`luck_record`) is kept beside the save (`saves.kept_records`): worked
    out the first time, read back after. SaveError as `saves.load_game` raises it."""
    tables = tables or default_tables()
    work = LuckTally(tables)  # the records worked out (its work kept within the run)

    def fold(records: saves.KeptRecords) -> LuckReport:
        tally = LuckTally(tables)
        add = tally.add_record
        for row in records.rows():
            add(row[7])  # the row's record
        return tally.report()

    # Many small objects and no cycles: the cyclic collector would walk them all, again
    # and again, for nothing (it took half a long campaign's read of its records).
    with saves.no_gc():
        return saves.kept_fold(path, "luck", version(tables), work.record, LuckRecord, fold)
