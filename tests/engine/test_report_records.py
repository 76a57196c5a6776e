"""The readers of a whole log (luck, the report, the review's rows, the losses) split in
two: what each takes of one entry (a small record, encodable) and a fold over the records.
The fold over records decoded from their bytes gives what the fold over fresh ones gives,
and what reading the entries gives."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine.test_luck import ODD_ENTRIES
from tests.generated_saves import logs, write_save
from tui import saves
from tui.engine.tables import default_tables
from tui.reports.luck.stats import LuckRecord, LuckTally, luck_of_records, luck_report
from tui.reports.report import Report, ReportRecord, _report, report_of_records


def _again(records: list[Any], kind: type) -> list[Any]:
    """The records as kept beside a save: encoded, then decoded."""
    data = msgspec.msgpack.encode(records)
    return msgspec.msgpack.decode(data, type=list[kind])  # type: ignore[valid-type]


@settings(max_examples=30, deadline=None)
@given(log=logs(), odd=st.booleans())
def test_luck_from_kept_records_is_luck_from_the_entries(
    log: list[tuple[dict[str, Any], str]], odd: bool
) -> None:
    entries = [entry for entry, _ in log] + (ODD_ENTRIES if odd else [])
    tally = LuckTally(default_tables())
    records = [tally.record(entry) for entry in entries]
    kept = _again(records, LuckRecord)
    assert kept == records
    assert luck_of_records(kept) == luck_of_records(records) == luck_report(entries)
    assert luck_of_records(kept).to_dict() == luck_report(entries).to_dict()


@settings(max_examples=30, deadline=None)
@given(log=logs())
def test_the_report_from_kept_records_is_the_report_of_the_entries(
    log: list[tuple[dict[str, Any], str]],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.toml"
        write_save(path, log)
        game = saves.load_game(path)
    entries = game.entries
    tables = default_tables()
    records = [Report(tables).record(entry) for entry in entries]
    kept = _again(records, ReportRecord)
    assert kept == records
    told = "".join(_report(entries, tables).lines(game))
    assert "".join(report_of_records(kept, tables).lines(game)) == told
    assert "".join(report_of_records(records, tables).lines(game)) == told
