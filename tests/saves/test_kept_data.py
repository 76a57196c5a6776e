"""The derived data kept beside a save (`saves.kept_records`): used only while it matches
the save, extended when the save only grew, built again otherwise, and the same bytes
whenever it is built from the same save."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.review_save import campaign
from tui import saves
from tui.saves import appending, encoding, kept_data


def derive(entry: dict[str, Any]) -> list[Any]:
    """A record per entry, as a reader would derive it: what it shows of the entry."""
    return [entry["kind"], entry.get("odds") or "", len(entry.get("markers", []))]


def with_kept(path: Path, name: str = "rows") -> tuple[list[tuple[Any, ...]], saves.Game]:
    """What a reader gets of the kept data, read through `kept_fold` (built again from the
    save where a kept record is not of the type asked for)."""
    return saves.kept_fold(
        path, name, "1", derive, Any, lambda records: [tuple(record) for record in records]
    )


def without_kept(path: Path) -> tuple[list[tuple[Any, ...]], saves.Game]:
    """What a reading with no kept data gives: every entry read from the save."""
    stream = saves.read_entries(path)
    rows = [
        (e["seq"], e["turn"], e["who"], e.get("ruleset"), e["kind"], place, derive(e))
        for e, place in stream
    ]
    assert stream.game is not None
    return rows, stream.game


def fresh_bytes(path: Path, folder: Path) -> bytes:
    """The kept file a fresh build gives for the save's bytes as they are now (a copy of
    the save, with no kept data beside it)."""
    folder.mkdir()
    copy = folder / path.name
    copy.write_bytes(path.read_bytes())
    with_kept(copy)
    return saves.kept_path(copy, "rows").read_bytes()


def kept_bytes(path: Path) -> bytes:
    return saves.kept_path(path, "rows").read_bytes()


def same_reading(path: Path) -> None:
    """The kept reading equals a reading with no kept data (the game's path aside: the
    same save read from where it is)."""
    kept_rows, kept_game = with_kept(path)
    rows, game = without_kept(path)
    assert kept_rows == rows
    assert kept_game == game
    assert kept_game.end == game.end


@pytest.fixture
def save(tmp_path: Path) -> Path:
    path, _ = campaign(tmp_path, 60)
    saves.add_marker(path, "DG", "0712", side="Axis", turns=2)
    saves.advance_turn(path)
    return path


def test_first_reading_builds_it_and_the_next_uses_it(save: Path) -> None:
    same_reading(save)
    assert saves.kept_path(save, "rows").exists()
    built = kept_bytes(save)
    same_reading(save)
    assert kept_bytes(save) == built  # used as it is: nothing written
    assert built[8:9] == b"H"
    assert built.count(b"crtdesk kept data") == 1


def test_a_kept_file_is_used_not_derived_again(save: Path) -> None:
    with_kept(save)
    seen: list[int] = []

    def counting(entry: dict[str, Any]) -> list[Any]:
        seen.append(entry["seq"])
        return derive(entry)

    records, _ = saves.kept_records(save, "rows", "1", counting)
    with records:
        assert len(list(records)) == len(without_kept(save)[0])
    assert seen == []


def test_appended_by_this_crtdesk_only_the_new_entries_are_derived(save: Path) -> None:
    rows, before = with_kept(save)
    last = rows[-1][0]
    saves.add_marker(save, "DG", "0713", side="Allied")
    saves.advance_turn(save)
    seen: list[int] = []

    def counting(entry: dict[str, Any]) -> list[Any]:
        seen.append(entry["seq"])
        return derive(entry)

    records, game = saves.kept_records(save, "rows", "1", counting)
    with records:
        assert [r.seq for r in records][-3:] == [last, last + 1, last + 2]
    assert seen == [last + 1, last + 2]
    assert game.turn == before.turn + 1
    same_reading(save)


def test_appended_by_an_older_crtdesk(save: Path, tmp_path: Path) -> None:
    """Entries written straight to the file, nothing kept updated."""
    rows, game = with_kept(save)
    seq = rows[-1][0] + 1
    entry = {
        "seq": seq,
        "kind": "place-marker",
        "turn": game.turn,
        "when": appending._now(),
        "who": "old",
        "marker": {"id": f"{seq}.1", "kind": "DG", "target": "0202", "side": "Axis", "turns": 1},
    }
    with save.open("ab") as handle:
        handle.write(encoding._block(entry))
    same_reading(save)
    _, game = with_kept(save)
    assert [m.id for m in game.markers][-1] == f"{seq}.1"
    os.unlink(saves.kept_path(save, "rows"))
    same_reading(save)
    assert kept_bytes(save) == fresh_bytes(save, tmp_path / "fresh")


def test_edited_by_hand_in_the_middle_same_size(save: Path, tmp_path: Path) -> None:
    with_kept(save)
    data = bytearray(save.read_bytes())
    at = data.index(b'"who" = "bob"', len(data) // 2)
    data[at + 9 : at + 12] = b"rob"  # the same size; the entry's checksum no longer holds
    save.write_bytes(bytes(data))
    same_reading(save)
    rows, _ = with_kept(save)
    assert "rob" in {row[2] for row in rows}
    assert kept_bytes(save) == fresh_bytes(save, tmp_path / "fresh")


def test_truncated(save: Path, tmp_path: Path) -> None:
    with_kept(save)
    data = save.read_bytes()
    cut = data.rindex(b"\n[[log]]\n", 0, len(data) // 2) + 1
    save.write_bytes(data[:cut])
    same_reading(save)
    rows, _ = with_kept(save)
    assert len(rows) < 30
    assert kept_bytes(save) == fresh_bytes(save, tmp_path / "fresh")


def test_repaired(save: Path, tmp_path: Path) -> None:
    with_kept(save)
    data = bytearray(save.read_bytes())
    at = data.index(b'"seq" = 20\n')
    data[at : at + 11] = b'"seq" = x0\n'  # entry 20 broken: a repair sets it aside
    save.write_bytes(bytes(data))
    with pytest.raises(saves.SaveError):
        with_kept(save)
    saves.repair_save(save, accept=True)
    same_reading(save)
    rows, _ = with_kept(save)
    assert 20 not in [row[0] for row in rows]
    assert kept_bytes(save) == fresh_bytes(save, tmp_path / "fresh")


def test_replaced_by_another_game_of_the_same_name(save: Path, tmp_path: Path) -> None:
    """Another save put in its place: the same first entries, then others."""
    with_kept(save)
    (tmp_path / "other").mkdir()
    other, _ = campaign(tmp_path / "other", 60)
    saves.add_marker(other, "DG", "0712", side="Allied", turns=2)
    saves.advance_turn(other)
    assert other.read_bytes() != save.read_bytes()
    os.replace(other, save)
    same_reading(save)
    _, game = with_kept(save)
    assert [m.side for m in game.markers] == ["Allied"]
    assert kept_bytes(save) == fresh_bytes(save, tmp_path / "fresh")


def test_replaced_by_a_file_of_the_very_same_size(save: Path, tmp_path: Path) -> None:
    """Another file of the same name and size (a marker's side edited) put in its place."""
    with_kept(save)
    data = save.read_bytes()
    swapped = data.replace(b'"side" = "Axis"', b'"side" = "Axes"')  # a hand edit, same size
    assert swapped != data and len(swapped) == len(data)
    replacement = tmp_path / "replacement.toml"
    replacement.write_bytes(swapped)
    os.replace(replacement, save)
    same_reading(save)
    _, game = with_kept(save)
    assert [m.side for m in game.markers] == ["Axes"]


def test_another_derivation_version_builds_it_again(save: Path) -> None:
    with_kept(save)
    records, _ = saves.kept_records(save, "rows", "2", lambda entry: entry["seq"] * 2)
    with records:
        assert [r.data for r in records][:2] == [2, 4]
    records, _ = saves.kept_records(save, "rows", "2", derive)
    with records:
        assert [r.data for r in records][:2] == [2, 4]  # kept: version 2 is used as built


@pytest.mark.parametrize(
    "garbage",
    [
        b"",
        b"\x00" * 100,
        b"not a kept file at all\n",
        b"\x00\x00\x00\x05\x00\x00\x00\x00Hxxxx",
        b"\xff\xff\xff\xff" * 4,
    ],
)
def test_a_hostile_kept_file_is_built_again(save: Path, garbage: bytes, tmp_path: Path) -> None:
    saves.kept_path(save, "rows").write_bytes(garbage)
    same_reading(save)
    assert kept_bytes(save) == fresh_bytes(save, tmp_path / "fresh")


def test_a_kept_file_with_one_byte_changed_is_built_again(save: Path) -> None:
    with_kept(save)
    built = kept_bytes(save)
    where = saves.kept_path(save, "rows")
    for at in (5, 40, len(built) // 2, len(built) - 3):
        changed = bytearray(built)
        changed[at] ^= 0x41
        where.write_bytes(bytes(changed))
        same_reading(save)
        assert kept_bytes(save) == built


def test_a_kept_file_of_the_right_form_but_wrong_types_is_built_again(save: Path) -> None:
    """Frames whose checksums hold but whose records are not what the reader asked for."""
    where = saves.kept_path(save, "rows")
    header = kept_data._frame(
        b"H", kept_data._ENCODER.encode(["crtdesk kept data", 1, "rows", "1"])
    )
    rows = kept_data._batch([["one", "two"]])
    where.write_bytes(header + rows + kept_data._frame(b"M", b"\x93\x01\x02\x03"))
    same_reading(save)


def test_a_kept_file_that_is_a_link_is_never_followed(save: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"another player's file\n")
    os.symlink(victim, saves.kept_path(save, "rows"))
    same_reading(save)
    assert victim.read_bytes() == b"another player's file\n"
    assert not saves.kept_path(save, "rows").is_symlink()  # replaced by a kept file of its own


def test_a_huge_kept_file_is_not_read_whole(save: Path) -> None:
    where = saves.kept_path(save, "rows")
    with where.open("wb") as handle:
        handle.write(b"\x7f\xff\xff\xff\x00\x00\x00\x00H")  # a frame claiming 2 GiB
        handle.truncate(64 * 1024 * 1024)  # sparse: nothing written
    same_reading(save)


def test_a_torn_last_entry_is_reported_as_a_load_reports_it(save: Path) -> None:
    with_kept(save)
    with save.open("ab") as handle:
        handle.write(b'\n[[log]]\n"seq" = 99\n"kind" = ')
    same_reading(save)
    _, game = with_kept(save)
    assert game.warnings and "torn" in game.warnings[0]
    assert game.warnings == saves.load_game(save).warnings


def test_records_give_each_entry_its_place(save: Path) -> None:
    records, _ = saves.kept_records(save, "rows", "1", derive)
    with records:
        for record in records:
            assert record.place is not None
            entry = saves.read_entry(save, record.place, record.seq)
            assert (entry["seq"], entry["kind"], entry["who"]) == (
                record.seq,
                record.kind,
                record.who,
            )


def test_kept_game_is_the_replayed_game(save: Path) -> None:
    game = saves.kept_game(save)
    assert game == saves.read_game(save)
    assert saves.kept_path(save, "state").exists()
    assert saves.kept_game(save) == game


def test_a_refused_save_is_refused_with_kept_data_beside_it(save: Path) -> None:
    with_kept(save)
    data = save.read_bytes().replace(b'"seq" = 30\n', b'"seq" = 3\n', 1)
    save.write_bytes(data)
    with pytest.raises(saves.SaveError, match="entry number"):
        with_kept(save)


def test_a_kept_file_whose_records_are_not_of_the_type_asked_is_built_again(save: Path) -> None:
    """Frames whose checksums and mark hold, but whose records are not what the reader
    reads (an entry number that is text): built again before any record is given."""
    with_kept(save)
    where = saves.kept_path(save, "rows")
    built = where.read_bytes()
    rows, _ = without_kept(save)
    wrong = ["one", 1, "x", None, "combat", -1, 0, ["combat", "", 0]]
    header = kept_data._frame(
        b"H", kept_data._ENCODER.encode(["crtdesk kept data", 1, "rows", "1"])
    )
    where.write_bytes(header + kept_data._batch([wrong] * len(rows)) + _mark_of(built))
    same_reading(save)
    assert kept_bytes(save) == built


def _mark_of(data: bytes) -> bytes:
    """The last frame of a kept file (its mark)."""
    at, last = 0, b""
    while at < len(data):
        length, _ = kept_data._FRAME.unpack_from(data, at)
        last = data[at : at + kept_data._FRAME.size + length]
        at += kept_data._FRAME.size + length
    assert last[kept_data._FRAME.size : kept_data._FRAME.size + 1] == b"M"
    return last


def test_a_kept_file_extended_many_times_keeps_its_last_mark_only(save: Path) -> None:
    with_kept(save)
    marks = []
    for n in range(2 * kept_data.MAX_MARKS + 1):
        saves.add_marker(save, "DG", f"{n:04d}", side="Axis")
        same_reading(save)
        data = kept_bytes(save)
        marks.append(_marks(data))
    assert max(marks) <= kept_data.MAX_MARKS
    assert marks[-1] < marks[-2] or marks[-2] < marks[-3]  # written again, not only appended
    records, game = saves.kept_records(save, "rows", "1", derive)
    with records:
        assert len(list(records)) == len(without_kept(save)[0])
    assert len(game.markers) == len(saves.read_game(save).markers)


def _marks(data: bytes) -> int:
    at, found = 0, 0
    while at < len(data):
        length, _ = kept_data._FRAME.unpack_from(data, at)
        found += data[at + kept_data._FRAME.size : at + kept_data._FRAME.size + 1] == b"M"
        at += kept_data._FRAME.size + length
    return found


def test_a_build_killed_half_way_leaves_a_file_the_next_write_removes(save: Path) -> None:
    left = save.with_name(f".{save.name}.kept-abc123")
    left.write_bytes(b"half a kept file")
    same_reading(save)
    assert left.exists()  # a read changes nothing but its own kept data
    notices: list[str] = []
    saves.add_marker(save, "DG", "0999", notices=notices)
    assert not left.exists()
    assert any(left.name in notice for notice in notices)


def test_the_desk_reads_its_game_from_the_kept_state(save: Path) -> None:
    """The desk's open: the game and its last entries, first read, with the kept state, and
    after entries written straight to the file."""
    from msgspec.structs import replace

    from tui.game.session import KEPT_ENTRIES, read_game

    def loaded() -> saves.Game:
        game = saves.load_game(save)
        return replace(game, entries=game.entries[-KEPT_ENTRIES:])

    assert read_game(save, pauses=False) == loaded()
    assert saves.kept_path(save, "state").exists()
    assert read_game(save, pauses=False) == loaded()
    game = saves.load_game(save)
    last = game.entries[-1]["seq"]
    entry = {
        "seq": last + 1,
        "kind": "turn",
        "turn": game.turn + 1,
        "when": appending._now(),
        "who": "old",
    }
    with save.open("ab") as handle:
        handle.write(encoding._block(entry))
    opened = read_game(save, pauses=False)
    assert opened == loaded()
    assert opened.turn == game.turn + 1 and opened.entries[-1]["who"] == "old"


def test_log_rows_made_once_per_distinct_combat_are_the_rows_made_each_time(save: Path) -> None:
    """`crtdesk log`'s rows: a combat's words and dice made once per run for the values they
    are made of, the same as made for each entry (an amendment, a note, markers, a hand
    edit's 1.0 for 1)."""
    from tui.cli import saves as cli_saves
    from tui.engine.cells import one_line
    from tui.engine.text import dice_text, entry_text, when_text

    def each_time(entry: dict[str, Any]) -> list[str]:
        what, result = entry_text(entry)
        cells = (str(entry["seq"]), str(entry["turn"]), when_text(entry["when"]), entry["who"])
        cells += (what, entry.get("odds") or "", entry.get("column") or "")
        cells += (entry.get("roll") or "", dice_text(entry.get("dice", [])), result)
        return [one_line(cell) for cell in cells]

    entries = [entry for entry, _ in saves.read_entries(save)]
    combat = next(e for e in entries if e["kind"] == "combat" and e.get("dice"))
    edited = dict(combat, seq=999, amends=combat["seq"])
    rounded = dict(combat, seq=1000, explanation=combat["explanation"] + " \n\u202e")
    die = dict(combat["dice"][0])
    die["total"] = float(die["total"])
    as_float = dict(combat, seq=1001, dice=[die])
    # The same words at other odds, column and roll (kept apart: each its own cells), and
    # players whose names are not printable ASCII.
    other_odds = dict(combat, seq=1002, odds="9:1", column="7:1", roll="12")
    no_roll = dict(combat, seq=1003, roll=None)
    escaped = dict(combat, seq=1004, who="ann\x1b[31m")
    accented = dict(combat, seq=1005, who="\u00e9mile")
    more = [edited, rounded, as_float, other_odds, no_roll, escaped, accented]
    for entry in [*entries, *more, *entries, *more]:
        assert cli_saves.row_cells(entry) == each_time(entry)
    assert cli_saves.row_cells(other_odds)[5:8] == ["9:1", "7:1", "12"]
    assert cli_saves.row_cells(escaped)[3] == "ann\\x1b[31m"


def test_log_table_widths_are_the_widest_of_many_distinct_rows() -> None:
    """`LogTable` takes each distinct set of widths once (in batches): each column is as
    wide as its widest cell, over more distinct sets than one batch holds."""
    from tui.cli import saves as cli_saves

    table = cli_saves.LogTable()
    widths = [(n % 37, n % 11, 16, n % 5, n, 3, 3, 2, n % 29) for n in range(1, 3000)]
    for each in widths:
        table.add_kept("x", each)
    table.add_kept("x", (99, 0, 0, 0, 0, 0, 0, 0, 0), shown=False)
    table._widen()
    header = [len(name) for name in cli_saves._LOG_HEADER[:-1]]
    columns = zip(*widths, strict=True)
    assert table.widths == [max([h, *c]) for h, c in zip(header, columns, strict=True)]
    assert table.entries == 3000 and len(table.rows) == 2999


def test_log_rows_from_a_forged_kept_file_are_shown_as_text(save: Path, capsys) -> None:
    """A kept log whose frames, types and mark all hold but whose rows were written by hand:
    an escape sequence, too few cells, a width of a billion. `crtdesk log` shows them as
    text, in columns no wider than the rows, and does not crash."""
    from tui.cli import main
    from tui.cli import saves as cli_saves

    assert main(["log", save.stem, "--saves", str(save.parent)]) == 0
    where = saves.kept_path(save, "log")
    built = where.read_bytes()
    rows, _ = without_kept(save)
    forged_rows = [
        [seq, turn, who, ruleset, kind, -1, 0, ["\x1b[31mred\0two", [10**9] * 9]]
        for seq, turn, who, ruleset, kind, _, _ in rows
    ]
    header = kept_data._frame(
        b"H", kept_data._ENCODER.encode(["crtdesk kept data", 1, "log", cli_saves.LOG_ROWS])
    )
    batches = [
        kept_data._batch(forged_rows[at : at + kept_data.BATCH])
        for at in range(0, len(forged_rows), kept_data.BATCH)
    ]
    where.write_bytes(header + b"".join(batches) + _mark_of(built))
    capsys.readouterr()
    assert main(["log", save.stem, "--saves", str(save.parent)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b[31mred" in out
    assert max(len(line) for line in out.splitlines()) < 200


def test_a_late_record_not_of_the_type_asked_is_never_half_given(save: Path) -> None:
    """A kept file whose checksums, counts and mark hold, its first records right and a late
    one of the wrong type (an entry number that is text): a reader that reads through
    `kept_fold` is started again on the records built from the save, from the first; read
    directly, the records raise KeptDataError at the bad one, never a record of the wrong
    type."""
    with_kept(save)
    where = saves.kept_path(save, "rows")
    built = where.read_bytes()
    rows, _ = without_kept(save)
    kept = [
        [seq, turn, who, ruleset, kind, place.offset, place.size, list(data)]
        for seq, turn, who, ruleset, kind, place, data in rows
    ]
    kept[-1][0] = "late"
    header = kept_data._frame(
        b"H", kept_data._ENCODER.encode(["crtdesk kept data", 1, "rows", "1"])
    )
    half = len(kept) // 2
    forged = header + kept_data._batch(kept[:half]) + kept_data._batch(kept[half:])
    where.write_bytes(forged + _mark_of(built))

    records, _ = saves.kept_records(save, "rows", "1", derive)
    given = []
    with records, pytest.raises(saves.KeptDataError):
        for record in records:
            given.append(tuple(record))
    assert given == rows[:half]  # the first frame's, each of the right type
    assert kept_bytes(save) == forged + _mark_of(built)  # left as it is, not rebuilt

    calls = []

    def fold(records: saves.KeptRecords) -> list[tuple[Any, ...]]:
        calls.append(len(calls))
        return [tuple(record) for record in records]

    read, game = saves.kept_fold(save, "rows", "1", derive, Any, fold)
    assert calls == [0, 1]  # started again, once
    assert read == rows
    assert game == without_kept(save)[1]
    assert kept_bytes(save) == built  # built again: the bytes a build from the save gives
    assert with_kept(save)[0] == rows


def test_log_with_a_late_kept_row_of_the_wrong_type_prints_the_whole_log(
    save: Path, capsys
) -> None:
    """`crtdesk log` on a kept log whose last row is not a row (its checksums holding):
    the whole log as the save gives it, printed once, nothing of the first try."""
    from tui.cli import main
    from tui.cli import saves as cli_saves

    assert main(["log", save.stem, "--saves", str(save.parent)]) == 0
    expected = capsys.readouterr().out
    where = saves.kept_path(save, "log")
    built = where.read_bytes()
    records, _ = saves.kept_records(save, "log", cli_saves.LOG_ROWS, cli_saves.kept_row)
    with records:
        kept = [list(row) for row in records.rows()]
    kept[-1][-1] = "not a row"
    header = kept_data._frame(
        b"H", kept_data._ENCODER.encode(["crtdesk kept data", 1, "log", cli_saves.LOG_ROWS])
    )
    half = len(kept) // 2
    where.write_bytes(
        header + kept_data._batch(kept[:half]) + kept_data._batch(kept[half:]) + _mark_of(built)
    )
    assert main(["log", save.stem, "--saves", str(save.parent)]) == 0
    assert capsys.readouterr().out == expected
    assert where.read_bytes() == built


def test_a_first_read_keeps_the_state_too_as_a_build_of_its_own_would(
    save: Path, tmp_path: Path
) -> None:
    """A reader's first read of a save with no kept state writes the state in the same pass
    (the desk's open then reads no log): the bytes `kept_places` alone writes, and used."""
    state = saves.kept_path(save, "state")
    state.unlink(missing_ok=True)  # the fixture's appends kept one
    with_kept(save)
    assert state.exists()
    kept = state.read_bytes()
    alone = tmp_path / "alone"
    alone.mkdir()
    copy = alone / save.name
    copy.write_bytes(save.read_bytes())
    saves.kept_places(copy)[0].close()
    assert kept == saves.kept_path(copy, "state").read_bytes()
    assert saves.kept_game(save) == saves.read_game(save)
    assert state.read_bytes() == kept  # used as it is, not built again
    assert not [p for p in save.parent.iterdir() if p.name.startswith(".")]  # no temporaries


def test_a_kept_state_already_there_is_left_as_it_is(save: Path) -> None:
    """A reader's first read leaves a kept state file it finds (even a link: its own read
    replaces that, never follows it) and writes no other."""
    state = saves.kept_path(save, "state")
    state.write_bytes(b"not kept data")
    with_kept(save)
    assert state.read_bytes() == b"not kept data"
    assert saves.kept_game(save) == saves.read_game(save)
    assert state.read_bytes() != b"not kept data"


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"no newline",
        b"\n",
        b"\n\n\n",
        b"a\r\nb\r\n",
        b"x = 1\n" * 1000 + b"tail",
        bytes(range(256)) * 3,
        b"ab\n" * 50_000 + b"\n",  # more than one piece
    ],
)
def test_newlines_counted_as_count_counts(data: bytes) -> None:
    """The kept mark's newlines (`_newlines`, counted for the line of a torn entry) are the
    newlines `bytes.count` finds, whatever else the bytes hold."""
    assert kept_data._newlines(data) == data.count(b"\n")


def test_a_first_fold_is_given_the_records_as_derived_and_keeps_the_bytes_a_build_keeps(
    save: Path, tmp_path: Path
) -> None:
    """A first `kept_fold` folds each record as it is derived and written (not decoded
    again from the file), and keeps the very bytes `kept_records` builds."""
    made: list[list[Any]] = []

    def kept_derive(entry: dict[str, Any]) -> list[Any]:
        made.append(derive(entry))
        return made[-1]

    def fold(records: saves.KeptRecords) -> list[Any]:
        return [row[7] for row in records.rows()]

    folded, game = saves.kept_fold(save, "rows", "1", kept_derive, Any, fold)
    assert len(folded) == len(made) == len(without_kept(save)[0])
    assert all(a is b for a, b in zip(folded, made, strict=True))  # not decoded again
    assert game == without_kept(save)[1]
    alone = tmp_path / "alone"
    alone.mkdir()
    copy = alone / save.name
    copy.write_bytes(save.read_bytes())
    saves.kept_records(copy, "rows", "1", derive)[0].close()
    assert kept_bytes(save) == saves.kept_path(copy, "rows").read_bytes()
    # Read back the next time: the same records, decoded from the file.
    again, _ = saves.kept_fold(save, "rows", "1", kept_derive, Any, fold)
    assert again == folded
    assert len(made) == len(folded)  # nothing derived again


def test_a_first_fold_that_stops_early_still_keeps_the_whole_file(save: Path) -> None:
    def first_two(records: saves.KeptRecords) -> list[Any]:
        found = []
        for row in records.rows():
            found.append(row[0])
            if len(found) == 2:
                break
        return found

    found, game = saves.kept_fold(save, "rows", "1", derive, Any, first_two)
    rows, whole = without_kept(save)
    assert found == [rows[0][0], rows[1][0]]
    assert game == whole  # the game after the last entry, not after the second
    assert with_kept(save)[0] == rows
    assert not [p for p in save.parent.iterdir() if p.name.startswith(".")]  # no temporaries


def test_a_first_fold_that_fails_half_way_leaves_nothing_behind(save: Path) -> None:
    saves.kept_path(save, "state").unlink(missing_ok=True)

    def failing(records: saves.KeptRecords) -> None:
        for count, _ in enumerate(records.rows(), start=1):
            if count > 10:  # the build half way, its first rows written
                raise RuntimeError("the fold failed")

    with pytest.raises(RuntimeError, match="the fold failed"):
        saves.kept_fold(save, "rows", "1", derive, Any, failing)
    assert not saves.kept_path(save, "rows").exists()
    assert not saves.kept_path(save, "state").exists()
    assert not [p for p in save.parent.iterdir() if p.name.startswith(".")]  # no temporaries
    same_reading(save)  # and the next read builds it


def test_records_given_as_they_are_derived_are_read_once(save: Path) -> None:
    def twice(records: saves.KeptRecords) -> None:
        list(records.rows())
        list(records.rows())

    with pytest.raises(ValueError, match="read once"):
        saves.kept_fold(save, "rows", "1", derive, Any, twice)


def test_the_log_a_first_read_prints_is_the_log_printed_from_the_kept_rows(
    save: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`crtdesk log`: folded from the rows as they are derived the first time, from the rows
    read back the next; the same page."""
    from tui.cli import main

    for beside in save.parent.glob(f"{save.name}.kept-*"):
        beside.unlink()
    printed = []
    for _ in range(2):
        assert main(["log", save.stem, "--saves", str(save.parent)]) == 0
        printed.append(capsys.readouterr().out)
    assert saves.kept_path(save, "log").exists()
    assert printed[0] == printed[1]
    assert printed[0].count("\n") > 60


def test_a_first_fold_of_a_hand_edit_holding_a_date_is_given_what_the_next_read_gives(
    save: Path,
) -> None:
    """A hand edit tomllib reads may hold a date-time, which a kept record gives back as
    text: once tomllib has read an entry, a first fold is given each batch decoded from its
    bytes, so it folds what every later read of the kept file folds."""
    import datetime

    data = save.read_bytes()
    at = data.index(b'"who" = "bob"\n', len(data) // 2) + len(b'"who" = "bob"\n')
    save.write_bytes(data[:at] + b'"played_on" = 1979-05-27T07:32:00\n' + data[at:])
    for beside in save.parent.glob(f"{save.name}.kept-*"):
        beside.unlink()
    seen: list[Any] = []

    def played_on(entry: dict[str, Any]) -> Any:
        seen.append(entry.get("played_on"))
        return seen[-1]

    def fold(records: saves.KeptRecords) -> list[Any]:
        return [row[7] for row in records.rows()]

    first, _ = saves.kept_fold(save, "played", "1", played_on, Any, fold)
    assert datetime.datetime(1979, 5, 27, 7, 32) in seen  # derived from tomllib's reading
    assert "1979-05-27T07:32:00" in first  # given as the kept file gives it
    again, _ = saves.kept_fold(save, "played", "1", played_on, Any, fold)
    assert again == first
    assert len(seen) == len(first)  # the second read derived nothing


def test_a_save_the_json_readers_read_whole_gives_its_first_fold_the_records_derived(
    save: Path,
) -> None:
    """As the store writes them, every entry is read by the JSON readers (tomllib reads
    none): a first fold is given the very records derived."""
    from tui.saves import decoding

    for beside in save.parent.glob(f"{save.name}.kept-*"):
        beside.unlink()
    made: list[Any] = []

    def kept_derive(entry: dict[str, Any]) -> list[Any]:
        made.append(derive(entry))
        return made[-1]

    before = decoding.toml_reads()
    folded, _ = saves.kept_fold(
        save, "rows", "1", kept_derive, Any, lambda records: [r[7] for r in records.rows()]
    )
    assert decoding.toml_reads() == before
    assert all(a is b for a, b in zip(folded, made, strict=True))
