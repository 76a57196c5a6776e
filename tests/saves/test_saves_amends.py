"""A combat that amends an earlier one (a card played after the roll, Pair-o-Dice F9) names
it with `amends`, keeps its dice and their source, and `crtdesk log` says "amends #N"."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from msgspec.structs import replace

from tui import saves
from tui.cli import main
from tui.engine import CombatInput, Unit, resolve
from tui.engine.combat import Outcome
from tui.engine.rulesets.pod.rules import after_roll_card
from tui.engine.tables import default_tables
from tui.engine.text import entry_text
from tui.saves import SaveError

SUPER = CombatInput("pod-super", (Unit(6),), (Unit(2),), roll=8)


def rolled(combat: CombatInput, seed: int = 7) -> Outcome:
    return resolve(combat, rng=random.Random(seed))


def with_joker(combat: CombatInput, outcome: Outcome) -> tuple[CombatInput, Outcome]:
    """What F9 does: the same roll read again with the Joker played after it, same dice."""
    card = after_roll_card(combat, outcome, default_tables(), "attacker")
    assert card == "joker"
    amended = replace(combat, attacker_card=card)
    again = resolve(amended, rng=random.Random(99))
    again.dice = list(outcome.dice)
    return amended, again


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = tmp_path / "g.toml"
    saves.new_game(path, "Amends", ["pod-super", "pod-basic"])
    return path


def test_a_card_after_the_roll_amends_the_combat_and_keeps_its_dice(game: Path) -> None:
    first = saves.append_combat(game, SUPER, rolled(SUPER))
    amended, again = with_joker(SUPER, rolled(SUPER))
    entry = saves.append_combat(game, amended, again, note="Joker after the roll", amends=1)
    assert (entry["seq"], entry["amends"]) == (2, 1)
    assert entry["dice"] == first["dice"] and entry["dice"][0]["source"] == "manual"
    assert entry["cell"] == first["cell"]  # the same roll on the same chart...
    assert entry["effects"]["defender"] == first["effects"]["attacker"]  # ...lines swapped
    loaded = saves.load_game(game)
    assert loaded.entries[1]["amends"] == 1 and "amends" not in loaded.entries[0]
    assert '"amends" = 1\n' in game.read_text(encoding="utf-8")


def test_an_older_combat_can_be_amended_past_other_entries(game: Path) -> None:
    saves.append_combat(game, SUPER, rolled(SUPER))
    saves.add_marker(game, "DG", "0101")
    amended, again = with_joker(SUPER, rolled(SUPER))
    entry = saves.append_combat(game, amended, again, amends=1)
    assert (entry["seq"], entry["amends"]) == (3, 1)
    assert [e.get("amends") for e in saves.load_game(game).entries] == [None, None, 1]


@pytest.mark.parametrize(
    ("between", "reason"),
    [
        ("combat", "the next combat has been rolled since (entry 2)"),
        ("turn", "turn 2 has begun since (entry 2)"),
        ("card", "a card was played after its roll already (entry 2)"),
    ],
)
def test_a_card_after_the_next_roll_or_turn_is_refused(
    game: Path, between: str, reason: str
) -> None:
    """RULINGS: the card is played on the game's last combat, until the next combat is
    rolled or the turn ends (Stanfill was taken in turn 3 against a turn-1 combat)."""
    saves.append_combat(game, SUPER, rolled(SUPER))
    if between == "combat":
        saves.append_combat(game, SUPER, rolled(SUPER))
    elif between == "turn":
        saves.advance_turn(game)
    else:
        saves.append_combat(game, *with_joker(SUPER, rolled(SUPER)), amends=1)
    before = game.read_bytes()
    amended, again = with_joker(SUPER, rolled(SUPER))
    with pytest.raises(SaveError) as caught:
        saves.append_combat(game, amended, again, amends=1)
    assert f"amends 1, but {reason}: a card after the roll is played on the game's last" in str(
        caught.value
    )
    assert game.read_bytes() == before


def test_an_amending_entry_is_not_amended_again(game: Path) -> None:
    saves.append_combat(game, SUPER, rolled(SUPER))
    amended, again = with_joker(SUPER, rolled(SUPER))
    saves.append_combat(game, amended, again, amends=1)
    with pytest.raises(SaveError, match="entry 2 is itself a card played after a roll"):
        saves.append_combat(game, amended, again, amends=2)


def test_desk_dice_are_kept_with_their_source(game: Path) -> None:
    by_desk = replace(SUPER, roll=None)
    outcome = rolled(by_desk, seed=5)
    first = saves.append_combat(game, by_desk, outcome)
    assert first["dice"][0]["source"] == "desk"
    amended, again = with_joker(by_desk, outcome)
    again.roll = outcome.roll
    entry = saves.append_combat(game, amended, again, amends=1)
    assert entry["dice"] == first["dice"]


def test_other_dice_are_refused(game: Path) -> None:
    saves.append_combat(game, SUPER, rolled(SUPER))
    before = game.read_bytes()
    other = replace(SUPER, roll=9)  # a different roll is a new combat, not an amendment
    with pytest.raises(SaveError, match=r"amends 1 with other dice \(2d6 .* manual\) than its"):
        saves.append_combat(game, other, rolled(other), amends=1)
    desk = replace(SUPER, roll=None)
    outcome = rolled(desk, seed=11)
    outcome.dice = [replace(outcome.dice[0], values=(4, 4), total=8)]  # same total, by the desk
    with pytest.raises(SaveError, match="other dice"):
        saves.append_combat(game, desk, outcome, amends=1)
    assert game.read_bytes() == before


@pytest.mark.parametrize(
    ("amends", "message"),
    [
        (0, "amends must be the number of an earlier combat entry, not 0"),
        (True, "amends must be the number of an earlier combat entry, not True"),
        ("1", "amends must be the number of an earlier combat entry, not '1'"),
        (9, "amends 9, but there is no entry 9 (the last is entry 2)"),
        (3, "amends 3, but there is no entry 3 (the last is entry 2)"),  # itself
        (2, "amends 2, but entry 2 is a place-marker entry, not a combat"),
    ],
)
def test_an_amendment_of_anything_but_an_earlier_combat_is_refused(
    game: Path, amends: object, message: str
) -> None:
    saves.append_combat(game, SUPER, rolled(SUPER))
    saves.add_marker(game, "DG", "0101")
    before = game.read_bytes()
    amended, again = with_joker(SUPER, rolled(SUPER))
    with pytest.raises(SaveError) as caught:
        saves.append_combat(game, amended, again, amends=amends)  # type: ignore[arg-type]
    assert str(caught.value).endswith(message)
    assert game.read_bytes() == before


def test_an_amendment_in_an_empty_log_or_of_another_ruleset_is_refused(game: Path) -> None:
    amended, again = with_joker(SUPER, rolled(SUPER))
    with pytest.raises(SaveError, match=r"amends 1, but there is no entry 1 \(the log is empty\)"):
        saves.append_combat(game, amended, again, amends=1)
    basic = CombatInput("pod-basic", (Unit(8),), (Unit(2),), roll=2)
    saves.append_combat(game, basic, rolled(basic))
    with pytest.raises(SaveError, match="amends 1, a pod-basic combat, with a pod-super one"):
        saves.append_combat(game, amended, again, amends=1)
    assert len(saves.load_game(game).entries) == 1


def test_a_load_refuses_amends_that_names_no_earlier_combat(game: Path) -> None:
    saves.add_marker(game, "DG", "0101")
    saves.append_combat(game, SUPER, rolled(SUPER))
    text = game.read_text(encoding="utf-8")
    at = text.index('"ruleset" = "pod-super"')
    line = text[:at].count("\n") + 1  # where `amends` goes in
    game.write_text(text[:at] + '"amends" = 1\n' + text[at:], encoding="utf-8")
    with pytest.raises(SaveError) as caught:
        saves.load_game(game)
    assert str(caught.value) == (
        f"{game}: line {line}: entry 2: 'amends' names entry 1, not an earlier combat"
    )
    game.write_text(text[:at] + '"amends" = "one"\n' + text[at:], encoding="utf-8")
    with pytest.raises(SaveError, match="entry 2: 'amends' must be a whole number"):
        saves.load_game(game)


def test_the_log_says_which_entry_an_amendment_amends(
    game: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = saves.append_combat(game, SUPER, rolled(SUPER))
    amended, again = with_joker(SUPER, rolled(SUPER))
    entry = saves.append_combat(game, amended, again, amends=1)
    assert "amends" not in entry_text(first)[1]
    what, result = entry_text(entry)
    assert what == "pod-super" and result.startswith("amends #1; ")
    assert main(["log", "g", "--saves", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.count("amends #1") == 1
    assert out.splitlines()[-1].split()[0] == "2" and "amends #1" in out.splitlines()[-1]


def test_amending_the_last_entry_reads_only_the_ends(
    game: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.saves import appending

    whole_reads: list[Path] = []
    streamed: list[int] = []
    real = appending._read_whole
    real_streamed = appending.entries_numbered

    def counting(fd: int, path: Path) -> tuple[object, int | None, bytes]:
        whole_reads.append(path)
        return real(fd, path)

    def counting_streamed(fd: int, path: Path, seq: int) -> object:
        streamed.append(seq)
        return real_streamed(fd, path, seq)

    monkeypatch.setattr(appending, "_read_whole", counting)
    monkeypatch.setattr(appending, "entries_numbered", counting_streamed)
    saves.append_combat(game, SUPER, rolled(SUPER))
    amended, again = with_joker(SUPER, rolled(SUPER))
    saves.append_combat(game, amended, again, amends=1)
    assert whole_reads == [] and streamed == []  # the last entry amended: only the ends
    saves.append_combat(game, SUPER, rolled(SUPER))
    saves.add_marker(game, "DG", "0101")
    saves.append_combat(game, amended, again, amends=3)
    # An older entry: the log is read once, entry by entry, never held whole.
    assert whole_reads == [] and streamed == [3]
