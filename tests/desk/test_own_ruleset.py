"""A ruleset defined here, outside the package, and registered through the public registry
gets everything a built-in one does: a desk screen with the live preview, `crtdesk
resolve/odds/table` with its own flags, a save that opens again after a combat, markers,
notes, luck and the after-action report. No file under tui/ is touched."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from tests.conftest import screen_text, settle
from tui import saves
from tui.cli import main
from tui.desk.app import CrtDeskApp
from tui.desk.widgets.markers import MarkerPanel
from tui.engine import registry
from tui.engine.dice import Roller
from tui.engine.kinds import SIGNED
from tui.engine.model import CombatInput, Outcome
from tui.engine.ruleset import Ruleset
from tui.engine.rulesets.common import finish, units_total
from tui.engine.schema import Field, declared
from tui.engine.tables import Tables
from tui.reports.report import report_markdown

# A one-die differential chart: attack less defence picks the column (ends clamp), the
# die plus the river DRM picks the row (clamped to 1..6).
COLUMNS = ("-1", "0", "+1", "+2")
ROWS = {
    "1": ("AE", "AR", "AR", "-"),
    "2": ("AR", "AR", "-", "DR"),
    "3": ("AR", "-", "DR", "DR"),
    "4": ("-", "DR", "DR", "DE"),
    "5": ("DR", "DR", "DE", "DE"),
    "6": ("DR", "DE", "DE", "DE"),
}
EFFECTS = {
    "AE": ("attacker", {"eliminated": True}),
    "AR": ("attacker", {"retreat": 1}),
    "DR": ("defender", {"retreat": 1}),
    "DE": ("defender", {"eliminated": True}),
}
RIVER = Field(
    "drm",
    "River DRM",
    "--river",
    SIGNED,
    "the river's die modifier",
    low=-2,
    high=2,
    allowed="a river DRM from {low} to {high}",
)


class Skirmish(Ruleset):
    cli_group = "Skirmish"

    def title(self, tables: Tables) -> str:
        return "Skirmish at the ford"

    def dice(self, tables: Tables) -> str:
        return "1d6"

    def chart_json(self, tables: Tables) -> dict[str, Any]:
        return {"columns": list(COLUMNS), "rows": {k: list(v) for k, v in ROWS.items()}}

    def chart_text(self, tables: Tables) -> str:
        lines = ["Skirmish at the ford (1d6)", "roll  " + "  ".join(COLUMNS)]
        lines += [f"{row:>4}  " + "  ".join(cells) for row, cells in ROWS.items()]
        return "\n".join(lines)

    def resolve(self, combat: CombatInput, tables: Tables, roller: Roller) -> Outcome:
        trace: list[str] = []
        attack = units_total("attack", combat.attackers)
        defense = units_total("defense", combat.defenders)
        index = min(max(attack - defense + 1, 0), len(COLUMNS) - 1)
        column = COLUMNS[index]
        trace.append(f"Attack {attack} less defence {defense}: column {column}")
        drm = combat.drm or 0
        total = roller.roll("combat", 1, 6, combat.roll, modifier=drm)
        row = str(min(max(total + drm, 1), 6))
        roller.read_row(row)
        cell = ROWS[row][index]
        trace.append(f"1d6 {total} {drm:+d}: row {row}, {cell}")
        effects: dict[str, Any] = {"attacker": {}, "defender": {}, "markers": []}
        if cell in EFFECTS:
            side, what = EFFECTS[cell]
            effects[side] = dict(what)
        return finish(
            combat,
            cell=cell,
            effects=effects,
            trace=trace,
            attack_total=attack,
            defense_total=defense,
            odds=column,
            column=column,
            roll=row,
        )


@pytest.fixture
def skirmish() -> Iterator[Ruleset]:
    ruleset = registry.register(
        Skirmish(
            id="skirmish",
            short="Ford",
            fields=(*declared("attackers", "defenders", "column", "roll"), RIVER),
        )
    )
    yield ruleset
    registry.unregister("skirmish")


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def test_the_cli_resolves_prints_and_refuses_by_the_rulesets_own_fields(
    skirmish: Ruleset, capsys: pytest.CaptureFixture[str]
) -> None:
    # 5 v 3 is column +2; a 2 with the river's -1 reads row 1 there: "-".
    out = cli(capsys, "resolve", "skirmish", "--attack", "5", "--defense", "3", "--roll", "2",
              "--river", "-1", "--json")  # fmt: skip
    outcome = json.loads(out)
    assert (outcome["column"], outcome["roll"], outcome["cell"]) == ("+2", "1", "-")
    assert outcome["inputs"]["drm"] == -1
    odds = json.loads(cli(capsys, "odds", "skirmish", "--attack", "4", "--defense", "3", "--json"))
    chances = {o["cell"]: o["probability"] for o in odds["outcomes"]}
    assert odds["column"] == "+1" and chances == pytest.approx(
        {"AR": 1 / 6, "-": 1 / 6, "DR": 2 / 6, "DE": 2 / 6}
    )
    assert "Skirmish at the ford (1d6)" in cli(capsys, "table", "skirmish")
    assert json.loads(cli(capsys, "table", "skirmish", "--json"))["columns"] == list(COLUMNS)
    # Its own range, named with its own flag; a flag it does not read is refused.
    assert main(["resolve", "skirmish", "--attack", "5", "--defense", "3", "--river", "4"]) == 2
    assert "--river: 4 is not allowed; expected a river DRM from -2 to 2" in capsys.readouterr().err
    assert main(["resolve", "skirmish", "--attack", "5", "--defense", "3", "--hedgehog", "1"]) == 2
    assert "--hedgehog" in capsys.readouterr().err


async def test_the_desk_plays_it_and_the_save_opens_again(
    skirmish: Ruleset, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    path = folder / "ford.toml"
    saves.new_game(path, "Ford", ["skirmish"])
    app = CrtDeskApp(saves_dir=folder, game_path=path, rng=random.Random(3), player="tester")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert "Skirmish at the ford" in screen.sub_title
        # The live preview: 4 v 3 is column +1, where DR and DE are a third each.
        screen.query_one("#attackers .factor", Input).value = "4"
        screen.query_one("#defenders .factor", Input).value = "3"
        await settle(pilot)
        shown = screen_text(app)
        assert "Column +1" in shown and "33.3%" in shown, shown
        # The river's DRM is a field of its form; beyond its range, named there.
        river = screen.query_one("#drm", Input)
        river.value = "3"
        await settle(pilot)
        assert "River DRM: 3 is not allowed; expected a river DRM from -2 to 2" in screen_text(app)
        river.value = "1"
        await settle(pilot)
        # By hand: a 3, +1 river, reads row 4 of +1: DR.
        await pilot.press("ctrl+t")
        await pilot.pause()
        await pilot.press("3", "enter")
        await settle(pilot)
        [entry] = saves.load_game(path).entries
        assert (entry["ruleset"], entry["column"], entry["roll"], entry["cell"]) == (
            "skirmish",
            "+1",
            "4",
            "DR",
        )
        assert entry["inputs"]["drm"] == 1
        assert "Logged as entry 1" in screen_text(app)
    # The CLI logs a second combat, a marker and a note on the same save.
    cli(capsys, "resolve", "skirmish", "--attack", "2", "--defense", "3", "--save", "ford",
        "--saves", str(folder), "--seed", "5")  # fmt: skip
    cli(capsys, "marker", "ford", "add", "no-entry", "0507", "--turns", "2", "--saves", str(folder))
    cli(capsys, "note", "ford", "1", "the ford is ours", "--saves", str(folder))
    game = saves.load_game(path)
    assert [e["kind"] for e in game.entries] == ["combat", "combat", "place-marker", "note"]
    # Opened again: the game reads, its screen shows its marker and its last combat.
    again = CrtDeskApp(saves_dir=folder, game_path=path, player="tester")
    async with again.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "Skirmish at the ford" in again.screen.sub_title
        assert "0507" in str(again.screen.query_one(MarkerPanel).content)
        assert "Logged as entry 2" in screen_text(again)
    # Luck judges both combats; the report tells them.
    luck = json.loads(cli(capsys, "luck", "ford", "--json", "--saves", str(folder)))
    everyone = luck["groups"][0]
    assert (everyone["player"], everyone["ruleset"]) == (None, None)
    # The desk's combat by hand, the CLI's from a seed.
    assert everyone["manual_combats"]["combats"] == 1
    assert everyone["seed_combats"]["combats"] == 1
    assert luck["skipped"] == []
    report = report_markdown(saves.load_game(path))
    assert "Skirmish at the ford" in report and "the ford is ours" in report
