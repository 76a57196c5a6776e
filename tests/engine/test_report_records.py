"""The readers of a whole log (luck, the report, the review's rows, the losses) split in
two: what each takes of one entry (a small record, encodable) and a fold over the records.
The fold over records decoded from their bytes gives what the fold over fresh ones gives,
and what reading the entries gives."""

from __future__ import annotations

import tempfile
from datetime import date
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from tests.engine.test_luck import ODD_ENTRIES
from tests.generated_saves import logs, write_save
from tests.review_save import campaign
from tui import saves
from tui.engine.tables import default_tables
from tui.reports.kept import Memo, version
from tui.reports.losses import Losses, losses_of, read_losses
from tui.reports.luck.reading import read_luck
from tui.reports.luck.stats import (
    LuckRecord,
    LuckTally,
    luck_of_records,
    luck_record,
    luck_report,
)
from tui.reports.report import (
    Report,
    ReportRecord,
    _report,
    read_report,
    report_of_records,
    report_record,
)
from tui.reports.review_data import losses_review_text
from tui.reports.review_rows import ReviewRecord, read_for_review, read_log, review_record


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


@settings(max_examples=30, deadline=None)
@given(log=logs())
def test_the_reviews_rows_from_kept_records_are_those_of_the_log_read(
    log: list[tuple[dict[str, Any], str]],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.toml"
        write_save(path, log)
        read, _ = read_log(path)
        # Once to keep them, once from what was kept: the same rows either way.
        for _ in range(2):
            loaded, _ = read_for_review(path)
            assert [row.search for row in loaded.rows] == [row.search for row in read.rows]
            assert [row.cells for row in loaded.rows] == [row.cells for row in read.rows]
            assert [(r.seq, r.turn, r.who, r.ruleset) for r in loaded.rows] == [
                (r.seq, r.turn, r.who, r.ruleset) for r in read.rows
            ]
        entries = saves.load_game(path).entries
    records = [review_record(entry) for entry in entries]
    assert _again(records, ReviewRecord) == records


def test_kept_records_are_used_and_match_the_entries_on_a_campaign(tmp_path: Path) -> None:
    """A campaign with notes, cards, markers and units: each reader gives what it gives
    from the entries, the first time (the records worked out and kept) and the next (the
    records read back), and the second time works nothing out again."""
    path, _ = campaign(tmp_path, 300)
    saves.append_note(path, 12, "held the ford", who="ann")
    saves.add_marker(path, "DG", "0712", side="Axis", turns=2)
    saves.advance_turn(path)
    units = [
        {"name": "15 Pz", "side": "Axis", "hex": "0712", "factor": 6},
        {"name": "2 NZ", "side": "Allied", "hex": "0713", "factor": 4},
    ]
    saves.import_units(path, units, source="oob.csv")
    saves.take_losses(path, [{"unit": "15 Pz", "factors": 2}])
    saves.take_losses(path, [{"unit": "2 NZ", "eliminated": True}])
    tables = default_tables()
    game = saves.load_game(path)
    entries = game.entries
    luck = luck_report(entries, tables)
    told = "".join(_report(entries, tables).lines(game))
    losses = losses_text(losses_of(entries))
    rows, _ = read_log(path)
    for _ in range(2):
        assert read_luck(path, tables)[0] == luck
        read, read_game = read_report(path, tables)
        assert "".join(read.lines(read_game)) == told
        assert losses_text(read_losses(path)[0]) == losses
        loaded, _ = read_for_review(path)
        assert [(r.search, r.cells) for r in loaded.rows] == [
            (r.search, r.cells) for r in rows.rows
        ]
    kept = {kind: saves.kept_path(path, kind) for kind in ("luck", "report", "losses", "review")}
    assert all(where.exists() for where in kept.values())
    assert luck.combats and "held the ford" in told and "15 Pz" in losses


def test_kept_records_of_other_tables_are_not_used(tmp_path: Path) -> None:
    """Records are kept by the tables they were worked out with: other tables (a changed
    tables.toml) have their own records worked out, not the others' used."""
    path, _ = campaign(tmp_path, 60)
    tables = default_tables()
    read_luck(path, tables)
    seen: list[int] = []
    derive = LuckTally(tables).record

    def counting(entry: dict[str, Any]) -> LuckRecord:
        seen.append(entry["seq"])
        return derive(entry)

    records, _ = saves.kept_records(path, "luck", version(tables), counting, LuckRecord)
    records.close()
    assert seen == []  # the kept records used
    other = replace(tables, data={**tables.data, "extra": {}})
    assert version(other) != version(tables)
    records, _ = saves.kept_records(path, "luck", version(other), counting, LuckRecord)
    records.close()
    assert len(seen) == len(saves.load_game(path).entries)


def losses_text(losses: Losses) -> str:
    return losses_review_text(losses)


def test_work_kept_within_a_run_is_found_only_by_the_same_values() -> None:
    """A memo is found by its values' bytes and compared with them: values that encode
    alike but differ (a text and the date it spells, 1 and 1.0 and True) find nothing kept
    for another, and values that do not encode are never kept."""
    memo = Memo(3)
    for values in ([{"a": "2026-11-20"}], [{"a": 1}]):
        key, found = memo.get(values)
        assert found is None
        memo.put(key, values, "kept")
    assert memo.get([{"a": "2026-11-20"}])[1] == "kept"
    assert memo.get([{"a": date(2026, 11, 20)}])[1] is None
    assert memo.get([{"a": 1}])[1] == "kept"
    assert memo.get([{"a": 1.0}])[1] is None and memo.get([{"a": True}])[1] is None
    assert memo.get([{"a": 1, "b": 2}])[1] is None
    key, _ = memo.get(2**70)
    assert key is None
    memo.put(key, 2**70, "never")
    assert memo.get(2**70) == (None, None)
    for n in range(3):  # past its size it lets go of everything, then keeps again
        key, _ = memo.get(n)
        memo.put(key, n, n)
    assert memo.get([{"a": 1}])[1] is None and memo.get(2)[1] == 2


def _renumbered(entry: dict[str, Any], by: int) -> dict[str, Any]:
    """The entry `by` entries and turns later, at another time: its number, turn and time
    changed, nothing else."""
    when = f"2027-0{1 + by % 9}-02T03:04:05+00:00"
    return entry | {
        "seq": entry["seq"] + 1000 * by,
        "turn": entry.get("turn", 1) + by,
        "when": when,
    }


@settings(max_examples=30, deadline=None)
@given(log=logs(), odd=st.booleans())
def test_a_run_tells_an_entry_renumbered_as_its_own(
    log: list[tuple[dict[str, Any], str]], odd: bool
) -> None:
    """What a run keeps of the luck's and the words' work (`report_record`'s `tally`, the
    words' memo) serves an entry that differs from one before it only in its number, turn
    and time with that entry's own: each record equals the one worked out afresh for it."""
    entries = [entry for entry, _ in log] + (ODD_ENTRIES if odd else [])
    tables = default_tables()
    tally = LuckTally(tables)
    for entry in [*entries, *(_renumbered(e, by) for by in (1, 2) for e in entries)]:
        try:
            alone = report_record(entry, LuckTally(tables))
        except (KeyError, TypeError, ValueError) as error:
            with pytest.raises(type(error)):
                report_record(entry, tally)
            continue
        assert report_record(entry, tally) == alone
        assert tally.record(entry) == luck_record(entry, tables) == alone.luck


def test_a_campaigns_combats_renumbered_are_told_with_their_own_numbers(tmp_path: Path) -> None:
    """On a campaign (combats judged and not, an amended one, a marker placed), a combat
    fought again later is told with its own number, turn and time, and judged as itself."""
    path, _ = campaign(tmp_path, 60)
    entries = saves.load_game(path).entries
    tables = default_tables()
    tally = LuckTally(tables)
    first = [report_record(entry, tally) for entry in entries]
    later = [_renumbered(entry, 3) for entry in entries]
    again = [report_record(entry, tally) for entry in later]
    for record, entry, before in zip(again, later, first, strict=True):
        assert record == report_record(entry, LuckTally(tables))
        assert (
            (record.seq, record.turn)
            == (entry["seq"], entry["turn"])
            != (
                before.seq,
                before.turn,
            )
        )
        if entry["kind"] == "combat":
            assert record.words.startswith(f"**Combat #{entry['seq']}**".encode())
            assert b"2027-04-02 03:04 UTC" in record.words
    judged = [r.luck.judged for r in again if r.luck.judged is not None]
    assert judged and all(j.seq >= 3000 and j.turn > 3 for j in judged)
    assert any(r.luck.skipped is not None and r.luck.skipped[0] >= 3000 for r in again)
