"""Saves that do not lie: an append refuses what a load refuses (a broken middle entry too)
and leaves the file untouched, while staying O(1); reading never writes (a torn last entry
is reported, and kept aside only by the next write or an explicit repair); unknown options
are refused; an empty file says it is empty."""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from tui import saves
from tui.engine.combat import CombatInput, Outcome, resolve
from tui.saves import SaveError, encoding


def boom(roll: int) -> tuple[CombatInput, Outcome]:
    combat = CombatInput("pod-boom", step="crt", caf=9, roll=roll)
    return combat, resolve(combat, rng=random.Random(3))


@pytest.fixture
def game(tmp_path: Path) -> Path:
    """A save of three combats (rolls 2, 3, 4): entry 1 places No-entry marker 1.1."""
    path = tmp_path / "g.toml"
    saves.new_game(path, "Checked", ["pod-boom", "pod-ultra"])
    for roll in (2, 3, 4):
        saves.append_combat(path, *boom(roll), target=f"07{roll}")
    return path


def break_entry(path: Path, seq: int, old: str, new: str) -> None:
    """Replace `old` by `new` inside entry `seq` only, as a person's editor would: in place,
    and a while after the last append (the file's time moves on, even on a file system
    whose clock is coarser than this test is fast)."""
    status = path.stat()
    data = path.read_text(encoding="utf-8")
    start = data.index(f'[[log]]\n"seq" = {seq}\n')
    end = data.index("# end of entry", start)
    assert old in data[start:end]
    path.write_text(data[:start] + data[start:end].replace(old, new, 1) + data[end:])
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns + 2_000_000_000))


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".bak-*"))


APPENDS: dict[str, Callable[[Path], object]] = {
    "append_combat": lambda path: saves.append_combat(path, *boom(5)),
    "add_marker": lambda path: saves.add_marker(path, "DG", "0101"),
    "set_option": lambda path: saves.set_option(path, "mines_cdf", 3),
    "append_event": lambda path: saves.append_event(path, "hero-site-draw", "a draw"),
    "advance_turn": lambda path: saves.advance_turn(path),
    "remove_marker": lambda path: saves.remove_marker(path, "1.1"),
}

MIDDLE_BREAKS = [
    ('"turn" = 1\n', '"turn" = "three"\n'),  # a wrong type: the file grows
    ('"ruleset" = "pod-boom"', '"ruleset" = "pod-mega"'),  # an unknown ruleset, same size
    ('"seq" = 2\n', '"seq" = 1\n'),  # out of order, same size
]


@pytest.mark.parametrize(("old", "new"), MIDDLE_BREAKS)
@pytest.mark.parametrize("append", list(APPENDS))
def test_an_append_refuses_a_save_broken_in_the_middle_and_leaves_it_alone(
    game: Path, append: str, old: str, new: str
) -> None:
    break_entry(game, 2, old, new)
    with pytest.raises(SaveError) as loading:
        saves.load_game(game)
    before = game.read_bytes()
    with pytest.raises(SaveError) as appending:
        APPENDS[append](game)
    assert str(appending.value) == str(loading.value)
    assert game.read_bytes() == before
    assert backups(game) == []


def test_a_broken_middle_is_refused_before_a_torn_tail_is_touched(game: Path) -> None:
    break_entry(game, 2, '"turn" = 1\n', '"turn" = "three"\n')
    with game.open("ab") as handle:
        handle.write(b'\n[[log]]\n"seq" = 4\n"kind" = "com')
    before = game.read_bytes()
    for append in APPENDS.values():
        with pytest.raises(SaveError, match=r"line \d+: entry 2: 'turn' must be a whole number"):
            append(game)
        assert game.read_bytes() == before
    assert backups(game) == []


def test_a_same_size_edit_in_the_middle_is_caught_by_the_file_times(game: Path) -> None:
    saves.append_combat(game, *boom(6))  # the store's record now matches the file
    status = game.stat()
    with game.open("r+b") as handle:  # in place: same file, same size, same end
        data = handle.read()
        at = data.index(b'"ruleset" = "pod-boom"', data.index(b'"seq" = 2\n'))
        handle.seek(at)
        handle.write(b'"ruleset" = "pod-mega"')
    # Even within one tick of the file system's clock the edit shows in the file's times.
    os.utime(game, ns=(status.st_atime_ns, status.st_mtime_ns + 1_000_000_000))
    assert game.stat().st_size == status.st_size
    before = game.read_bytes()
    with pytest.raises(SaveError, match="entry 2: unknown ruleset 'pod-mega'"):
        saves.add_marker(game, "DG", "0101")
    assert game.read_bytes() == before


def test_a_lock_file_holding_anything_costs_a_full_check_and_nothing_else(game: Path) -> None:
    lock = game.with_name(game.name + ".lock")
    for junk in (b"", b"\x00" * 300, b"crtdesk verified 1 dev 1 ino 2 size 3\n", os.urandom(64)):
        lock.write_bytes(junk)
        entry = saves.add_marker(game, "DG", "0101")
        assert saves.load_game(game).entries[-1] == entry
    # And junk there never lets a broken save through.
    break_entry(game, 2, '"turn" = 1\n', '"turn" = "three"\n')
    lock.write_bytes(b"crtdesk verified 1 dev 0 ino 0 size 0 mtime 0 ctime 0 tail 00000000\n")
    with pytest.raises(SaveError, match="entry 2"):
        saves.add_marker(game, "DG", "0101")


def test_appends_after_a_check_keep_the_save_whole(game: Path) -> None:
    for number in range(20):
        saves.add_marker(game, "DG", f"{number:04d}")
        saves.append_combat(game, *boom(1 + number % 6))
    loaded = saves.load_game(game)
    assert [e["seq"] for e in loaded.entries] == list(range(1, 44))
    assert loaded.warnings == []


# --- reading never writes ------------------------------------------------------------------


def tear(path: Path) -> bytes:
    torn = b'\n[[log]]\n"seq" = 4\n"kind" = "combat"\ntu'
    with path.open("ab") as handle:
        handle.write(torn)
    return torn


def test_loading_a_torn_save_reports_it_and_changes_nothing(game: Path) -> None:
    whole = game.read_bytes()
    torn = tear(game)
    lock_before = game.with_name(game.name + ".lock").read_bytes()
    loaded = saves.load_game(game)
    assert [e["seq"] for e in loaded.entries] == [1, 2, 3]
    [warning] = loaded.warnings
    assert "\n" not in warning
    assert "torn" in warning and f"{len(torn)} bytes" in warning
    line = whole.count(b"\n") + 2  # the `[[log]]` line of the torn entry
    assert f"line {line}" in warning
    assert f"{game.name}.bak-" in warning  # where the next write keeps them
    assert game.read_bytes() == whole + torn
    assert game.with_name(game.name + ".lock").read_bytes() == lock_before
    assert backups(game) == []
    [summary] = saves.list_games(game.parent)
    assert summary.error is None and game.read_bytes() == whole + torn


def test_the_next_write_repairs_what_a_load_reported(game: Path) -> None:
    whole = game.read_bytes()
    torn = tear(game)
    saves.load_game(game)
    entry = saves.add_marker(game, "DG", "0101")
    assert entry["seq"] == 4
    [backup] = backups(game)
    assert backup.read_bytes() == whole + torn
    assert game.read_bytes().startswith(whole)
    assert saves.load_game(game).warnings == []


@pytest.mark.parametrize("append", list(APPENDS))
def test_the_write_that_repairs_says_so_in_its_notices(game: Path, append: str) -> None:
    torn = tear(game)
    notices: list[str] = []
    with_notices: dict[str, Callable[[Path], object]] = {
        "append_combat": lambda path: saves.append_combat(path, *boom(5), notices=notices),
        "add_marker": lambda path: saves.add_marker(path, "DG", "0101", notices=notices),
        "set_option": lambda path: saves.set_option(path, "mines_cdf", 3, notices=notices),
        "append_event": lambda path: saves.append_event(path, "e", "t", notices=notices),
        "advance_turn": lambda path: saves.advance_turn(path, notices=notices),
        "remove_marker": lambda path: saves.remove_marker(path, "1.1", notices=notices),
    }
    with_notices[append](game)
    [backup] = backups(game)
    assert notices == [
        f"{game}: the torn last entry ({len(torn)} bytes, a write cut short) was cut off; "
        f"the whole file as it was is kept in {backup}"
    ]
    notices.clear()
    saves.add_marker(game, "DG", "0202", notices=notices)  # nothing torn now: nothing said
    assert notices == [] and backups(game) == [backup]


def test_a_refused_change_leaves_a_torn_save_as_it_is(game: Path) -> None:
    tear(game)
    before = game.read_bytes()
    rivets = CombatInput("rivets", attackers=(), defenders=(), roll=3)
    refused = [
        lambda: saves.remove_marker(game, "9.1"),  # no such marker
        lambda: saves.append_event(game, "draw", "x", ruleset="rivets"),  # not in play
        lambda: saves.append_combat(game, rivets, boom(2)[1]),  # not in play
    ]
    for change in refused:
        with pytest.raises(SaveError):
            change()
        assert game.read_bytes() == before
    assert backups(game) == []


def test_repair_cuts_a_torn_entry_off_and_says_what_it_kept(game: Path) -> None:
    whole = game.read_bytes()
    torn = tear(game)
    repaired = saves.repair_save(game)
    [backup] = backups(game)
    assert (repaired.path, repaired.entries, repaired.kept, repaired.dropped) == (
        game,
        3,
        len(whole),
        len(torn),
    )
    assert repaired.backup == backup and backup.read_bytes() == whole + torn
    assert game.read_bytes() == whole
    again = saves.repair_save(game)
    assert again.backup is None and again.dropped == 0 and again.entries == 3
    assert backups(game) == [backup] and game.read_bytes() == whole


def test_repair_sets_aside_an_entry_broken_in_the_middle_and_a_torn_one(game: Path) -> None:
    break_entry(game, 2, '"turn" = 1\n', '"turn" = "three"\n')
    tear(game)
    before = game.read_bytes()
    repaired = saves.repair_save(game)
    assert [backup.read_bytes() for backup in backups(game)] == [before]
    assert [e["seq"] for e in saves.load_game(game).entries] == [1, 3]
    reasons = [reason for _, reason in repaired.set_aside]
    assert len(reasons) == 2 and "'turn' must be a whole number" in reasons[0]
    assert repaired.side_file is not None and b'"three"' in repaired.side_file.read_bytes()


# --- options ---------------------------------------------------------------------------------


def test_an_unknown_option_is_refused_with_the_known_ones(tmp_path: Path, game: Path) -> None:
    with pytest.raises(SaveError) as caught:
        saves.new_game(tmp_path / "n.toml", "N", ["pod-ultra"], {"bogus": 1})
    assert str(caught.value) == "unknown option 'bogus'; known options: mines_cdf (2 or 3)"
    assert not (tmp_path / "n.toml").exists()
    before = game.read_bytes()
    with pytest.raises(SaveError, match=r"unknown option 'bogus'; known options: mines_cdf"):
        saves.set_option(game, "bogus", 1)
    assert game.read_bytes() == before


def test_a_save_written_with_an_option_this_desk_does_not_know_still_loads(game: Path) -> None:
    data = game.read_bytes()
    header, _, rest = data.partition(b"# end of header")
    header = header.replace(b"options = {}", b'options = { "fog" = true }', 1)
    # As a newer crtdesk writes it: the header sealed with its checksum.
    game.write_bytes(encoding.sealed_header(header) + rest.partition(b"\n")[2])
    loaded = saves.load_game(game)
    assert loaded.options == {"mines_cdf": 2, "fog": True}
    saves.add_marker(game, "DG", "0101")
    assert saves.load_game(game).options["fog"] is True


# --- an empty file ---------------------------------------------------------------------------

EMPTY_USES: dict[str, Callable[[Path], object]] = {
    "load_game": saves.load_game,
    "repair_save": lambda path: saves.repair_save(path),
    **APPENDS,
}


@pytest.mark.parametrize("content", [b"", b"\n \n"])
@pytest.mark.parametrize("use", list(EMPTY_USES))
def test_an_empty_save_says_it_is_empty(tmp_path: Path, use: str, content: bytes) -> None:
    path = tmp_path / "blank.toml"
    path.write_bytes(content)
    with pytest.raises(SaveError) as caught:
        EMPTY_USES[use](path)
    assert str(caught.value).startswith(f"{path} is empty ({len(content)} bytes)")
    assert path.read_bytes() == content
    [summary] = saves.list_games(tmp_path)
    assert summary.error and summary.error.startswith(f"{path} is empty")
