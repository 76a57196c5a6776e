"""RULINGS "Luck and after-roll cards": luck judges the dice as they fell, on the column they
were read on, before any card played after the roll. A Joker's swap is a card, not luck: a
combat with a Joker is judged as rolled. A combat whose result Stanfill cancelled is not
judged. The desk and the CLI log the same thing for the same play (the roll, then the card
amending it), so luck gives one figure, however the card came into the log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from msgspec.structs import replace

from tui import saves
from tui.cli import main
from tui.engine import CombatInput, Outcome, Unit, resolve
from tui.reports.luck import LuckReport, luck_report

BASIC = CombatInput("pod-basic", (Unit(8),), (Unit(2),), roll=2)  # 4-1, roll 2: DL2 / DR1
SUPER = CombatInput("pod-super", (Unit(6),), (Unit(2),), roll=8)  # 3-1, roll 8: A - 2 / D 2 -3


def logged(path: Path, *combats: tuple[CombatInput, Outcome, int | None]) -> LuckReport:
    """A save of `combats` (each with the entry it amends, or None), and its luck."""
    saves.new_game(path, "Cards", ["pod-basic", "pod-super"])
    for combat, outcome, amends in combats:
        saves.append_combat(path, combat, outcome, who="alice", amends=amends)
    return luck_report(saves.load_game(path).entries)


def after_the_roll(combat: CombatInput, card: dict[str, str]) -> tuple[CombatInput, Outcome]:
    """The card read on the same roll, with its dice (what a card after the roll logs)."""
    amended = replace(combat, **card)
    again = resolve(amended)
    again.dice = list(resolve(combat).dice)
    return amended, again


def test_a_joker_kept_in_a_combats_own_inputs_is_judged_as_rolled(tmp_path: Path) -> None:
    """Older saves logged `--attacker-card joker` as one entry, the card in its inputs: the
    dice are judged as they fell, as the same roll logged without the card."""
    plain = logged(tmp_path / "plain.toml", (SUPER, resolve(SUPER), None))
    joker = replace(SUPER, attacker_card="joker")
    with_joker = logged(tmp_path / "joker.toml", (joker, resolve(joker), None))
    [as_rolled], [judged] = plain.combats, with_joker.combats
    assert judged.percentile == as_rolled.percentile
    assert (judged.p_worse, judged.p_same, judged.odds) == (
        as_rolled.p_worse,
        as_rolled.p_same,
        as_rolled.odds,
    )


def test_a_joker_played_after_the_roll_leaves_the_roll_judged_as_rolled(tmp_path: Path) -> None:
    plain = logged(tmp_path / "plain.toml", (SUPER, resolve(SUPER), None))
    amended, again = after_the_roll(SUPER, {"defender_card": "joker"})
    report = logged(tmp_path / "joker.toml", (SUPER, resolve(SUPER), None), (amended, again, 1))
    assert [c.percentile for c in report.combats] == [plain.combats[0].percentile]
    assert dict(report.skipped) == {2: "it amends entry 1, read as rolled"}


def test_a_roll_whose_result_stanfill_cancelled_after_it_is_not_judged(tmp_path: Path) -> None:
    """The desk's F9 logs the roll, then Stanfill amending it: nothing came of the dice, so
    the roll is left out, in the words luck gives a combat logged with the card in it."""
    amended, cancelled = after_the_roll(BASIC, {"attacker_card": "stanfill"})
    assert cancelled.effects["cancelled"] is True
    report = logged(tmp_path / "desk.toml", (BASIC, resolve(BASIC), None), (amended, cancelled, 1))
    assert report.combats == ()
    one_entry = logged(tmp_path / "one.toml", (amended, resolve(amended), None))
    assert dict(report.skipped) == {
        1: dict(one_entry.skipped)[1],
        2: "it amends entry 1, whose result it cancelled",
    }
    assert "cancelled" in dict(report.skipped)[1]
    # The die still counts as it fell, once.
    assert report.everyone.manual_faces == one_entry.everyone.manual_faces
    assert sum(report.everyone.manual_faces[0].counts) == 1


def test_a_cancelled_roll_is_left_out_in_its_place_among_the_others(tmp_path: Path) -> None:
    """Figures worked out entry by entry: the roll was judged when it came, and is taken
    back when the card cancelling it comes; the combats left out stay in the log's order."""
    path = tmp_path / "order.toml"
    saves.new_game(path, "Order", ["pod-basic"])
    av = CombatInput("pod-basic", (Unit(12),), (Unit(2),))
    saves.append_combat(path, av, resolve(av), who="alice")
    judged = replace(BASIC, roll=5)
    saves.append_combat(path, judged, resolve(judged), who="alice")
    saves.append_combat(path, BASIC, resolve(BASIC), who="alice")
    saves.append_note(path, 3, "she has the card", who="bob")
    amended, cancelled = after_the_roll(BASIC, {"defender_card": "stanfill"})
    saves.append_combat(path, amended, cancelled, amends=3, who="bob")
    report = luck_report(saves.load_game(path).entries)
    assert [c.seq for c in report.combats] == [2]
    assert [seq for seq, _ in report.skipped] == [1, 3, 5]


# --- from the command line -------------------------------------------------------------------


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CRTDESK_SAVES", raising=False)
    monkeypatch.setenv("CRTDESK_PLAYER", "alice")

    def run(*argv: str) -> str:
        code = main(list(argv))
        out, err = capsys.readouterr()
        assert code == 0, err
        return out

    return run


def test_a_card_flag_is_logged_as_the_roll_then_the_card_amending_it(cli, tmp_path: Path) -> None:
    cli("new", "c", "--title", "C", "--ruleset", "pod-basic", "pod-super")
    said = cli(
        *("resolve", "pod-basic", "--attack", "8", "--defense", "2", "--roll", "2"),
        *("--attacker-card", "stanfill", "--save", "c"),
    )
    assert "cancels the result" in said
    assert said.strip().splitlines()[-2:] == [
        "Saved as entry 1 in saves/c.toml",
        "Saved as entry 2 in saves/c.toml "
        "(Stanfill played by the attacker after the roll of entry 1)",
    ]
    cli(
        *("resolve", "pod-super", "--attack", "6", "--defense", "2", "--roll", "8"),
        *("--attacker-card", "joker", "--save", "c"),
    )
    entries = saves.load_game(tmp_path / "saves" / "c.toml").entries
    assert [(e["seq"], e.get("amends")) for e in entries] == [(1, None), (2, 1), (3, None), (4, 3)]
    # The rolls are logged without the card, as the desk logs them before F9; the cards
    # amend them with the same dice.
    assert "attacker_card" not in entries[0]["inputs"]
    assert "attacker_card" not in entries[2]["inputs"]
    assert entries[1]["inputs"]["attacker_card"] == "stanfill"
    assert entries[3]["inputs"]["attacker_card"] == "joker"
    assert entries[1]["dice"] == entries[0]["dice"] and entries[3]["dice"] == entries[2]["dice"]
    assert entries[3]["note"] == "Joker played by the attacker after the roll of entry 3"

    cli("new", "plain", "--title", "P", "--ruleset", "pod-super")
    cli("resolve", "pod-super", "--attack", "6", "--defense", "2", "--roll", "8", "--save", "plain")
    with_cards = json.loads(cli("luck", "c", "--json"))
    plain = json.loads(cli("luck", "plain", "--json"))
    # Stanfill's combat is not judged; the Joker's is judged as rolled.
    assert [c["seq"] for c in with_cards["combats"]] == [3]
    assert with_cards["combats"][0]["percentile"] == plain["combats"][0]["percentile"]
    assert [s["seq"] for s in with_cards["skipped"]] == [1, 2, 4]


def test_a_card_flag_with_desk_dice_keeps_them_the_desks(cli, tmp_path: Path) -> None:
    cli("new", "s", "--title", "S", "--ruleset", "pod-super")
    played = json.loads(
        cli(
            *("resolve", "pod-super", "--attack", "6", "--defense", "2", "--seed", "5"),
            *("--defender-card", "joker", "--save", "s", "--json"),
        )
    )
    assert played["effects"]["swapped"] is True
    rolled, card = saves.load_game(tmp_path / "saves" / "s.toml").entries
    assert rolled["dice"] == card["dice"] == played["dice"]
    assert card["dice"][0]["source"] == "seed"
    assert "roll" not in card["inputs"]  # not a roll by hand
    assert card["cell"] == rolled["cell"]
    assert card["effects"]["attacker"] == rolled["effects"]["defender"]


def test_a_card_flag_no_roll_allows_is_logged_once_as_before(cli, tmp_path: Path) -> None:
    """At AV no card is played: one entry, the card noted as not played."""
    cli("new", "av", "--title", "AV", "--ruleset", "pod-super")
    cli(
        *("resolve", "pod-super", "--attack", "16", "--defense", "2"),
        *("--attacker-card", "joker", "--save", "av"),
    )
    [entry] = saves.load_game(tmp_path / "saves" / "av.toml").entries
    assert entry["inputs"]["attacker_card"] == "joker"
    assert any("No card is played in an AV combat" in n for n in entry["effects"]["notes"])
