"""Reading only what another process appended: `read_new_entries` from the offset where the
last entry read ends, checked as a load checks it, refusing when the file changed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tui import saves
from tui.engine.combat import CombatInput, resolve
from tui.saves.encoding import _block

COMBAT = CombatInput("pod-boom", step="crt", caf=9)


def _combat(path: Path, who: str, seed: int = 1) -> dict:
    outcome = resolve(COMBAT, rng=random.Random(seed))
    return saves.append_combat(path, COMBAT, outcome, target="hex 0101", who=who)


@pytest.fixture
def save(tmp_path: Path) -> Path:
    path = tmp_path / "game.toml"
    saves.new_game(path, "Live", ["pod-boom"], who="ann")
    return path


def test_new_entries_are_those_a_load_gives_and_the_offset_is_the_end(save: Path) -> None:
    game = saves.load_game(save)
    assert game.end == save.stat().st_size
    _combat(save, "bob")
    saves.advance_turn(save, who="bob")
    saves.add_marker(save, "DG", "hex 0202", turns=1, who="cy")
    entries, offset = saves.read_new_entries(save, game.end, after_seq=0)
    loaded = saves.load_game(save)
    assert entries == loaded.entries
    assert offset == save.stat().st_size == loaded.end
    assert [e["who"] for e in entries] == ["bob", "bob", "cy"]
    # Applied one by one, they give the game a whole load gives.
    for entry in entries:
        saves.apply_entry(game, entry)
    assert (game.turn, game.markers, game.entries) == (loaded.turn, loaded.markers, loaded.entries)
    assert saves.read_new_entries(save, offset, after_seq=3) == ([], offset)


def test_only_the_bytes_after_the_offset_are_read(save: Path, monkeypatch) -> None:
    for seed in range(30):
        _combat(save, "ann", seed)
    offset = saves.load_game(save).end
    _combat(save, "bob", 99)
    ranges: list[tuple[int, int]] = []
    real = saves._read_range

    def spy(fd: int, start: int, end: int) -> bytes:
        ranges.append((start, end))
        return real(fd, start, end)

    monkeypatch.setattr(saves, "_read_range", spy)
    entries, _ = saves.read_new_entries(save, offset, after_seq=30)
    assert [e["who"] for e in entries] == ["bob"]
    assert ranges and all(start >= offset - 128 for start, _ in ranges)
    assert offset > 10_000  # the thirty entries before were there, and not read


def test_an_entry_still_being_written_waits_for_the_next_read(save: Path) -> None:
    offset = saves.load_game(save).end
    entry = _combat(save, "bob")
    whole = save.read_bytes()
    block = _block({**entry, "seq": 2})
    save.write_bytes(whole + block[: len(block) // 2])
    entries, after = saves.read_new_entries(save, offset, after_seq=0)
    assert [e["seq"] for e in entries] == [1] and after == len(whole)
    save.write_bytes(whole + block)
    entries, after = saves.read_new_entries(save, after, after_seq=1)
    assert [e["seq"] for e in entries] == [2] and after == len(whole + block)


def test_a_file_cut_shorter_or_rewritten_before_the_offset_is_refused(save: Path) -> None:
    _combat(save, "ann")
    _combat(save, "ann", 2)
    offset = saves.load_game(save).end
    data = save.read_bytes()
    save.write_bytes(data[: offset - 40])
    with pytest.raises(saves.StaleOffset, match="shorter"):
        saves.read_new_entries(save, offset)
    # Same length, but the bytes before the offset are no longer an entry's end line.
    save.write_bytes(data[:-60] + b"x" * 60)
    with pytest.raises(saves.StaleOffset, match="changed before byte"):
        saves.read_new_entries(save, offset)
    # An end line there, but of another entry than the one read last.
    save.write_bytes(data)
    with pytest.raises(saves.StaleOffset, match="entry 1 no longer ends"):
        saves.read_new_entries(save, offset, after_seq=1)
    assert saves.read_new_entries(save, offset, after_seq=2) == ([], offset)


def test_an_appended_entry_a_load_would_refuse_is_refused(save: Path) -> None:
    offset = saves.load_game(save).end
    entry = _combat(save, "bob")
    bad = _block({**entry, "seq": 2, "turn": "two"})
    with save.open("ab") as handle:
        handle.write(bad)
    with pytest.raises(saves.SaveError, match="'turn' must be a whole number"):
        saves.read_new_entries(save, offset, after_seq=0)
    repeated = _block({**entry, "seq": 1})
    save.write_bytes(save.read_bytes()[: -len(bad)] + repeated)
    with pytest.raises(saves.SaveError, match="entry number 1 does not follow entry 1"):
        saves.read_new_entries(save, offset, after_seq=0)
