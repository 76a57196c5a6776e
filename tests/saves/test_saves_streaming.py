"""Reading a save entry by entry (`saves.read_entries`) gives exactly what the whole-file
load gives: the same entries, game and warnings, or the same error, whatever the chunk size;
and each entry can be read again from where it was found."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from tests.generated_saves import DAMAGE, damaged, logs, write_save
from tests.review_save import campaign, combat_entry
from tui import saves

CHUNKS = st.integers(1, 300) | st.just(saves.streaming.CHUNK)


def game_fields(game: saves.Game) -> tuple[Any, ...]:
    return (
        game.path,
        game.title,
        game.rulesets,
        game.options,
        game.created,
        game.format,
        game.turn,
        game.markers,
        game.warnings,
        game.end,
    )


def whole(path: Path) -> tuple[Any, ...]:
    """What the whole-file load gives, or the one line it refuses the file with."""
    try:
        game = saves.load_game(path)
    except saves.SaveError as err:
        return ("refused", str(err))
    return ("read", game.entries, game_fields(game))


def streamed(path: Path, chunk: int) -> tuple[tuple[Any, ...], list[saves.Read]]:
    """What the streamed read gives (in the same shape), and each entry as read."""
    stream = saves.read_entries(path, chunk)
    try:
        reads = list(stream)
    except saves.SaveError as err:
        return ("refused", str(err)), []
    assert stream.game is not None and stream.game.entries == []
    return ("read", [read.entry for read in reads], game_fields(stream.game)), reads


def read_again(path: Path, reads: list[saves.Read]) -> None:
    """Every entry read with a place reads again the same from there."""
    for entry, place in reads:
        if place is not None:
            assert saves.read_entry(path, place, entry["seq"]) == entry


@settings(max_examples=80, deadline=None)
@given(log=logs(), torn=st.just(0) | st.integers(1, 200), chunk=CHUNKS)
def test_the_streamed_read_gives_what_the_whole_file_load_gives(
    log: list[tuple[dict[str, Any], str]], torn: int, chunk: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.toml"
        write_save(path, log, torn)
        expected = whole(path)
        assert expected[0] == "read", expected  # the generated saves are all readable
        got, reads = streamed(path, chunk)
        assert got == expected
        read_again(path, reads)
        event("handed over" if any(read.place is None for read in reads) else "streamed")
        event("a torn last entry" if got[2][8] else "no torn entry")
        # Read as the store writes it, every entry has its place and none is kept whole.
        if all(layout != "multi-line" for _, layout in log):
            assert all(place is not None for _, place in reads)


@settings(max_examples=150, deadline=None)
@given(log=logs(most=8), damage=DAMAGE, chunk=CHUNKS)
def test_a_damaged_save_is_read_or_refused_as_the_whole_file_load_does(
    log: list[tuple[dict[str, Any], str]], damage: tuple[float, int, bytes], chunk: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.toml"
        path.write_bytes(damaged(write_save(path, log), damage))
        got, reads = streamed(path, chunk)
        assert got == whole(path)
        read_again(path, reads)
        event(got[0] if any(read.place for read in reads) or got[0] == "refused" else "read whole")


def test_a_torn_last_entry_is_left_out_and_named_with_its_line(tmp_path: Path) -> None:
    path, written = campaign(tmp_path, 30)
    data = path.read_bytes() + b"\n\n[[log]]\nseq = 31\nkind = "
    path.write_bytes(data)
    got, reads = streamed(path, 100)
    assert got == whole(path)
    assert [read.entry for read in reads] == written
    [warning] = got[2][8]
    line = data.count(b"\n", 0, data.rindex(b"[[log]]")) + 1
    assert f"its 26 bytes from line {line} on are left out" in warning


def test_an_entry_that_fails_its_checks_is_refused_in_the_load_s_words(tmp_path: Path) -> None:
    path, _ = campaign(tmp_path, 40)
    data = path.read_bytes()
    # Entry 35's turn made text: its checksum no longer matches, and it is not a turn.
    at = data.index(b'"seq" = 35\n')
    data = data[:at] + re.sub(rb'"turn" = \d+\n', b'"turn" = "four"\n', data[at:], count=1)
    path.write_bytes(data)
    stream = saves.read_entries(path, 256)
    taken = []
    with pytest.raises(saves.SaveError) as refused:
        for read in stream:
            taken.append(read.entry["seq"])
    assert taken and taken[-1] < 35  # entries before it were given first
    assert str(refused.value) == whole(path)[1]
    assert "entry 35: 'turn' must be a whole number" in str(refused.value)


def test_crlf_line_ends_are_read_by_the_whole_file_reader(tmp_path: Path) -> None:
    path, written = campaign(tmp_path, 12)
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    got, reads = streamed(path, 64)
    assert got == whole(path) and got[0] == "read"
    assert [read.entry for read in reads] == written
    assert all(read.place is None for read in reads)  # kept whole: no place to read again


def test_an_entry_no_longer_where_it_was_read_is_stale(tmp_path: Path) -> None:
    path, _ = campaign(tmp_path, 20)
    reads = list(saves.read_entries(path))
    seq, place = reads[9].entry["seq"], reads[9].place
    assert place is not None
    assert saves.read_entry(path, place, seq) == reads[9].entry
    with pytest.raises(saves.StaleOffset, match=f"entry {seq + 1} is no longer at byte"):
        saves.read_entry(path, place, seq + 1)
    # The file rewritten (an entry before it edited by hand): it is no longer there.
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"who" = "bob"', b'"who" = "bobby"', 1))
    with pytest.raises(saves.StaleOffset):
        saves.read_entry(path, place, seq)
    # Cut shorter than it.
    path.write_bytes(data[: place.offset + 10])
    with pytest.raises(saves.StaleOffset):
        saves.read_entry(path, place, seq)


def test_a_missing_or_empty_save_is_refused_as_a_load_refuses_it(tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    assert streamed(missing, 10)[0] == whole(missing) == ("refused", whole(missing)[1])
    empty = tmp_path / "empty.toml"
    empty.write_bytes(b"\n \n")
    assert streamed(empty, 10)[0] == whole(empty)
    assert "is empty" in whole(empty)[1]


def test_each_iteration_reads_the_file_again(tmp_path: Path) -> None:
    path, _ = campaign(tmp_path, 5)
    stream = saves.read_entries(path)
    assert [read.entry["seq"] for read in stream] == [1, 2, 3, 4, 5]
    saves.append_note(path, 2, "seen again", who="ann")
    assert [read.entry["seq"] for read in stream] == [1, 2, 3, 4, 5, 6]
    assert stream.game is not None and stream.game.end == path.stat().st_size


def test_a_read_written_over_meanwhile_is_made_again_a_few_times() -> None:
    calls: list[int] = []

    def read(stale_times: int) -> str:
        calls.append(1)
        if len(calls) <= stale_times:
            raise saves.StaleOffset("written over")
        return "read"

    assert saves.read_again(lambda: read(2)) == "read" and len(calls) == 3
    calls.clear()
    with pytest.raises(saves.StaleOffset):
        saves.read_again(lambda: read(3))
    assert len(calls) == 3


def test_only_a_quiet_combat_s_replay_is_left_out(tmp_path: Path) -> None:
    """A batch read as the store writes it replays only the entries that change the game
    (a combat that places markers, takes losses or leaves some open; every other kind):
    the markers, the units and the open losses come out as the whole-file load's, across
    batches and chunk sizes, and every entry is given with its place."""
    units = [{"name": "1 Pz", "side": "Axis", "hex": "0101", "factor": 3, "steps": 2}]
    units += [{"name": "9 Armd", "side": "Allied", "hex": "0202", "factor": 4, "steps": 3}]
    units += [{"name": "5 Gren", "side": "Axis", "hex": "0303", "factor": 2, "steps": 4}]
    log: list[tuple[dict[str, Any], str]] = [
        (
            {"seq": 1, "kind": "units", "turn": 1, "when": "now", "who": "ann", "units": units},
            "store",
        )
    ]
    for seq in range(2, 40):
        entry = combat_entry(seq, 1)
        if seq % 5 == 0:
            entry["markers"] = [{"id": f"{seq}.1", "kind": "DG", "target": f"07{seq:02d}"}]
        elif seq % 7 == 0:
            entry["losses"] = [{"unit": "9 Armd", "steps": 1}]
        elif seq % 11 == 0:
            entry["open_losses"] = [
                {"side": "attacker", "what": "steps", "amount": 1, "units": ["5 Gren"]}
            ]
        elif seq % 13 == 0:
            entry = {"seq": seq, "kind": "loss", "turn": 1, "when": "now", "who": "ann"}
            entry["losses"] = [{"unit": "1 Pz", "steps": 1}]
        log.append((entry, "store"))
    path = tmp_path / "game.toml"
    write_save(path, log)
    game = saves.load_game(path)
    assert game.markers and game.units["9 Armd"].steps_lost and game.open_losses
    for chunk in (300, 4096, saves.streaming.CHUNK):
        stream = saves.read_entries(path, chunk)
        reads = list(stream)
        assert [read.entry for read in reads] == game.entries
        assert all(type(read) is saves.Read and type(read.place) is saves.Place for read in reads)
        assert stream.game is not None
        assert stream.game.markers == game.markers
        assert stream.game.units == game.units
        assert stream.game.open_losses == game.open_losses
        read_again(path, reads)
