"""A card played after the roll on the desk (F9) and the same play from the command line (a
card flag) log the same entries, and luck gives them one figure, as RULINGS "Luck and
after-roll cards" says: the Stanfill that cancelled a Basic result leaves it unjudged, and
a Super combat with a Joker is judged as rolled."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from tests.conftest import Desk, settle
from tui import cli, saves
from tui.desk.screens.pod import PodScreen
from tui.reports.luck import luck_report

# (ruleset, attack, defence, hand roll, the side's key in the F9 dialog, the CLI's flag)
PLAYS = {
    "stanfill": ("pod-basic", "8", "2", "2", "a", "--attacker-card"),
    "joker": ("pod-super", "6", "2", "8", "a", "--attacker-card"),
}
# The desk's Super form puts each unit on clear terrain (its terrain's first choice).
ON_THE_FORM = {"pod-basic": "", "pod-super": "@clear"}


def entries(path: Path) -> list[dict[str, Any]]:
    """The save's entries, as JSON has them, but for when they were written."""
    found = []
    for entry in saves.load_game(path).entries:
        entry = json.loads(json.dumps(entry, default=_plain))
        entry.pop("when", None)
        found.append(entry)
    return found


def _plain(value: Any) -> Any:
    """A frozen table or list of a loaded save, as JSON takes it."""
    return dict(value) if isinstance(value, Mapping) else list(value)


def run_cli(capsys: pytest.CaptureFixture[str], folder: Path, *argv: str) -> str:
    """`crtdesk ARGV --saves FOLDER`, the command line's own entry point in this process (the
    player is the desk's, "tester"): its output, once it exited 0."""
    capsys.readouterr()
    assert cli.main([*argv, "--saves", str(folder)]) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def result_box(screen: PodScreen) -> str:
    return "\n".join(str(w.content) for w in screen.query("ResultPanel Static").results(Static))


@pytest.mark.parametrize("card", list(PLAYS))
async def test_the_desk_and_the_cli_log_a_card_after_the_roll_alike_and_luck_agrees(
    desk: Desk,
    tmp_path: Path,
    card: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ruleset, attack, defense, roll, key, flag = PLAYS[card]
    folder = tmp_path / "saves"
    async with desk(rulesets=[ruleset]) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, PodScreen)
        await pilot.press(*attack, "enter", *defense)
        await pilot.press("ctrl+t", *roll, "enter")
        await settle(pilot)
        assert f"F9: play {card.title()}" in result_box(screen)
        await pilot.press("f9")
        await pilot.pause()
        await pilot.press(key)
        await settle(pilot)
        assert app.game is not None
        on_desk = entries(app.game.path)
    units = ("--attack", attack + ON_THE_FORM[ruleset], "--defense", defense + ON_THE_FORM[ruleset])
    monkeypatch.setenv("CRTDESK_PLAYER", "tester")
    run_cli(capsys, folder, "new", "cli", "--title", "CLI", "--ruleset", ruleset)
    run_cli(capsys, folder, "resolve", ruleset, *units, "--roll", roll, flag, card, "--save", "cli")
    from_cli = entries(folder / "cli.toml")
    # The roll, then the card amending it: the same fields and the same dice.
    assert [(e["seq"], e.get("amends")) for e in on_desk] == [(1, None), (2, 1)]
    assert from_cli == on_desk
    desk_luck = luck_report(saves.load_game(app.game.path).entries).to_dict()
    cli_luck = json.loads(run_cli(capsys, folder, "luck", "cli", "--json"))
    assert cli_luck == json.loads(json.dumps(desk_luck))
    if card == "stanfill":
        assert desk_luck["combats"] == []  # the result cancelled: nothing to judge
        assert [s["seq"] for s in desk_luck["skipped"]] == [1, 2]
    else:
        # Judged as rolled: the roll's own figure, the swap no part of it.
        [judged] = desk_luck["combats"]
        assert judged["seq"] == 1
        saves.new_game(folder / "plain.toml", "Plain", [ruleset])
        run_cli(capsys, folder, "resolve", ruleset, *units, "--roll", roll, "--save", "plain")
        plain = json.loads(run_cli(capsys, folder, "luck", "plain", "--json"))
        assert judged["percentile"] == plain["combats"][0]["percentile"]
