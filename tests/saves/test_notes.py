"""Notes: an appended entry naming the entry it annotates (the original never edited), from
the store, the CLI (`crtdesk note NAME SEQ TEXT`) and the log's words."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tui import saves
from tui.cli import main
from tui.engine import text
from tui.engine.combat import CombatInput, Unit, resolve
from tui.game.player import PLAYER_ENV
from tui.saves import SaveError


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = tmp_path / "g.toml"
    saves.new_game(path, "Test game", ["rivets"])
    combat = CombatInput("rivets", attackers=(Unit(8),), defenders=(Unit(4),), roll=3)
    saves.append_combat(path, combat, resolve(combat, rng=random.Random(1)), who="ann")
    saves.advance_turn(path, who="ann")
    return path


def test_a_note_is_a_new_entry_and_the_original_is_kept(game: Path) -> None:
    before = game.read_bytes()
    entry = saves.append_note(game, 1, "the river was in flood", who="bob")
    assert game.read_bytes().startswith(before)  # appended; nothing written is rewritten
    assert {k: entry[k] for k in ("seq", "kind", "turn", "who", "annotates", "text")} == {
        "seq": 3,
        "kind": "note",
        "turn": 2,
        "who": "bob",
        "annotates": 1,
        "text": "the river was in flood",
    }
    loaded = saves.load_game(game)
    assert loaded.entries[-1] == entry and loaded.turn == 2
    assert text.entry_text(entry) == ("note", "On entry 1: the river was in flood")
    # A loaded game given the note by apply_entry equals a fresh load.
    applied = saves.load_game(game)
    applied.entries.pop()
    saves.apply_entry(applied, entry)
    assert applied.entries == loaded.entries and applied.markers == loaded.markers


@pytest.mark.parametrize(
    ("seq", "note", "message"),
    [
        (9, "x", "no entry 9 in "),
        (0, "x", "entry number 0 must be a whole number of 1 or more"),
        (True, "x", "entry number True must be"),
        (1, "  ", "note may not be empty"),
        (1, 5, "note must be text, not a whole number"),
    ],
)
def test_a_bad_note_is_refused_and_nothing_written(
    game: Path, seq: object, note: object, message: str
) -> None:
    before = game.read_bytes()
    with pytest.raises(SaveError, match=message):
        saves.append_note(game, seq, note)  # type: ignore[arg-type]
    assert game.read_bytes() == before


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            '"annotates" = 1',
            '"annotates" = 3',
            "'annotates' must be the number of an earlier entry",
        ),
        ('"annotates" = 1', '"annotates" = "1"', "'annotates' must be the number of an earlier"),
        ('"text" = "odd"', '"text" = 4', "a note needs 'text'"),
    ],
)
def test_a_hand_edited_note_naming_no_earlier_entry_is_refused(
    game: Path, old: str, new: str, message: str
) -> None:
    saves.append_note(game, 1, "odd")
    # Edited by hand: its checksum no longer matches, so the TOML reader reads it.
    game.write_text(game.read_text().replace(old, new))
    with pytest.raises(SaveError, match=r"line \d+: entry 3: " + message):
        saves.load_game(game)


def test_crtdesk_note_appends_and_log_shows_it(
    game: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PLAYER_ENV, "cy")
    assert main(["note", str(game), "1", "a lucky roll"]) == 0
    out = capsys.readouterr().out
    assert out == f"Noted on entry 1 as entry 3 in {game}: a lucky roll\n"
    assert main(["log", str(game)]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.split()[:2] == ["3", "2"] and "cy" in last
    assert " note " in last and last.endswith("  On entry 1: a lucky roll")


@pytest.mark.parametrize(
    ("seq", "note", "message"),
    [
        ("x", "y", "SEQ 'x' is not an entry number; expected a whole number of 1 or more"),
        ("0", "y", "SEQ '0' is not an entry number"),
        ("-1", "y", "SEQ '-1' is not an entry number"),
        ("7", "y", "no entry 7 in "),
        ("1", "", "note may not be empty"),
    ],
)
def test_crtdesk_note_bad_input_exits_2_in_one_line(
    game: Path, capsys: pytest.CaptureFixture[str], seq: str, note: str, message: str
) -> None:
    before = game.read_bytes()
    assert main(["note", str(game), seq, note]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and message in err, err
    assert game.read_bytes() == before
