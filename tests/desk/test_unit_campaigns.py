"""Two campaigns of 20 combats each (OCS and Day/Night), played on the desk from an order
of battle imported with `crtdesk units NAME import FILE`: units picked by name in the
combat form (typed with completion for a few), dice by hand (ctrl+t) so each result is
known, the options and retreats answered as asked, the owner's choice of units answered
in the loss dialog with keys. After each combat the log's last entries and the units'
state (saves.game_state) are checked against what the rules give; at the end every unit's
steps against a table written out here; then the save opened in a new app shows the last
combat in its form.

Each combat's expected losses are worked out here from the chart (tables.toml, the seeds'
charts), not read back from the engine; the comments check a few by hand."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Checkbox, Input

from tests.conftest import settle
from tui import saves
from tui.cli import main
from tui.desk.app import CrtDeskApp
from tui.desk.screens.dialogs import ChoiceScreen, HandDiceScreen, NumberScreen
from tui.desk.screens.losses import LossScreen
from tui.desk.widgets.combat import Cycle


@dataclass(frozen=True)
class Combat:
    """One combat as a player plays it, and what the rules make of it."""

    attackers: tuple[str, ...]
    defenders: tuple[str, ...]
    dice: tuple[int, ...]  # each hand-dice dialog's total, in the order asked
    cell: str  # the result read
    # Each choice dialog's key, in the order asked, with words its question holds.
    answers: tuple[tuple[str, str], ...] = ()
    # Each loss dialog's amounts, one per unit row it shows (None: no dialog).
    dialogs: tuple[tuple[int, ...], ...] = ()
    losses: dict[str, int] = field(default_factory=dict)  # steps each unit loses
    eliminated: tuple[str, ...] = ()
    typed: bool = False  # each name's first four letters typed, Tab takes the completion
    form: dict[str, Any] = field(default_factory=dict)  # the form's other fields


def open_desk(folder: Path, path: Path) -> CrtDeskApp:
    return CrtDeskApp(saves_dir=folder, game_path=path, rng=random.Random(7), player="tester")


def imported(folder: Path, ruleset: str, name: str, text: str) -> Path:
    """A new game of `ruleset` with the order of battle `text` imported through the CLI."""
    folder.mkdir()
    assert (
        main(["new", "camp", "--title", "Campaign", "--ruleset", ruleset, "--saves", str(folder)])
        == 0
    )
    oob = folder.parent / name
    oob.write_text(text)
    assert main(["units", "camp", "import", str(oob), "--saves", str(folder)]) == 0
    return folder / "camp.toml"


async def until(pilot: Pilot, kind: type) -> Any:
    for _ in range(60):
        if isinstance(pilot.app.screen, kind):
            return pilot.app.screen
        await pilot.pause()
    raise AssertionError(f"no {kind.__name__}; the screen is {pilot.app.screen}")


async def set_rows(pilot: Pilot, screen: Any, side: str, names: tuple[str, ...]) -> None:
    """As many rows on a side as there are units, every row's name cleared."""
    while len(screen.unit_rows(side)) < len(names):
        await (screen.action_add_attacker() if side == "attacker" else screen.action_add_defender())
    while len(screen.unit_rows(side)) > len(names):
        screen.set_focus(screen.unit_rows(side)[-1].factor_input)
        await screen.action_remove_unit()
    for row in screen.unit_rows(side):
        row.name_input.value = ""


async def pick(pilot: Pilot, screen: Any, combat: Combat) -> None:
    """The combat's units in the form: their names set, or typed (the first four letters,
    then Tab takes the completion), each row filled from its unit as it stands."""
    await set_rows(pilot, screen, "attacker", combat.attackers)
    await set_rows(pilot, screen, "defender", combat.defenders)
    await pilot.pause()
    for side, names in (("attacker", combat.attackers), ("defender", combat.defenders)):
        for row, name in zip(screen.unit_rows(side), names, strict=True):
            if combat.typed:
                screen.set_focus(row.name_input)
                await pilot.press(*name[:4], "tab")
            else:
                row.name_input.value = name
            assert row.name_input.value == name, (name, row.name_input.value)
    for selector, value in combat.form.items():
        widget = screen.query_one(selector)
        if isinstance(widget, Cycle | Checkbox):
            widget.value = value
        else:
            assert isinstance(widget, Input)
            widget.value = str(value)
    await pilot.pause()


async def play(pilot: Pilot, screen: Any, combat: Combat) -> None:
    """ctrl+t, each die by hand, each choice and each loss dialog answered with keys."""
    await pick(pilot, screen, combat)
    assert screen.reading.combat is not None, screen.reading.problems
    await pilot.press("ctrl+t")
    answers = list(combat.answers)
    dialogs = list(combat.dialogs)
    dice = list(combat.dice)
    while dice or answers:
        shown = pilot.app.screen
        for _ in range(40):
            if isinstance(shown, HandDiceScreen | ChoiceScreen | NumberScreen):
                break
            await pilot.pause()
            shown = pilot.app.screen
        if isinstance(shown, HandDiceScreen):
            await pilot.press(*str(dice.pop(0)), "enter")
        elif isinstance(shown, NumberScreen):
            await pilot.press("enter")  # no reserve
        else:
            assert isinstance(shown, ChoiceScreen), (combat, answers, dice, shown)
            key, asked = answers.pop(0)
            assert asked in shown.question, (asked, shown.question)
            await pilot.press(key)
    for amounts in dialogs:
        dialog = await until(pilot, LossScreen)
        assert len(dialog.amounts) == len(amounts), list(dialog.amounts)
        keys: list[str] = []
        for number, amount in enumerate(amounts):
            if number:
                keys.append("tab")
            if amount:
                keys += list(str(amount))
        await pilot.press(*keys, "enter")
        await pilot.pause()
    await settle(pilot)
    assert pilot.app.screen is screen, pilot.app.screen  # every dialog answered


async def campaign(
    pilot: Pilot, path: Path, combats: list[Combat], steps: dict[str, int]
) -> dict[str, int]:
    """Every combat played; after each, its entry (and the loss entry a dialog logged)
    and every unit's steps left checked against the running table `steps`."""
    screen: Any = pilot.app.screen
    left = dict(steps)
    for number, combat in enumerate(combats, start=1):
        before = len(saves.load_game(path).entries)
        await play(pilot, screen, combat)
        entries = saves.load_game(path).entries
        new = entries[before:]
        fought = new[0]
        assert fought["kind"] == "combat" and fought["cell"] == combat.cell, (number, fought)
        assert fought["units"] == {
            "attacker": list(combat.attackers),
            "defender": list(combat.defenders),
        }
        # A loss left to its owner is asked for (and only then), each answer logged.
        assert bool(fought.get("open_losses")) == bool(combat.dialogs), number
        assert len(new) == 1 + len(combat.dialogs), (number, new)
        for answer in new[1:]:  # a dialog's choice: a loss entry answering this combat
            assert answer["kind"] == "loss" and answer["combat"] == fought["seq"], answer
        for name, lost in combat.losses.items():
            left[name] -= lost
        for name in combat.eliminated:
            left[name] = 0
        state = saves.game_state(path)
        assert not state.open_losses, (number, state.open_losses)
        now = {name: unit.steps_left for name, unit in state.units.items()}
        assert now == left, (number, combat, fought.get("losses"), now)
        assert {n for n, u in state.units.items() if not u.alive} == {
            n for n, s in left.items() if s == 0
        }
    return left


async def reopened(folder: Path, path: Path, rows: list[tuple[str, ...]]) -> None:
    """The save opened in a new desk shows the last combat in its form: each row's unit
    name and factor (an OCS counter's steps too), attackers then defenders."""
    app = open_desk(folder, path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        shown = []
        for side in ("attacker", "defender"):
            for row in screen.unit_rows(side):
                seen = (row.name_input.value, row.factor_text)
                shown.append((*seen, row.parts()["steps"]) if len(rows[0]) == 3 else seen)
        assert shown == rows


# ------------------------------------------------------------------------------- OCS

OCS_OOB = """\
name,side,factor,steps,ar
21 Pz,Axis,6,3,4
15 Pz,Axis,5,3,4
90 Lt,Axis,4,2,3
Ariete,Axis,4,2,3
Trieste,Axis,3,2,2
Trento,Axis,3,2,2
Brescia,Axis,3,2,2
Pavia,Axis,3,2,2
3 Recce,Axis,2,1,3
7 Armd,Allied,5,2,3
2 NZ,Allied,4,2,3
9 Aus,Allied,4,2,3
4 Ind,Allied,3,2,2
50 Div,Allied,4,3,2
1 SA,Allied,3,2,2
1 Armd,Allied,5,2,3
5 Ind,Allied,3,2,2
Polish,Allied,3,2,3
22 Gds,Allied,2,1,3
"""

# Every combat on Open terrain, no surprise: the surprise roll is 7, and 7 + the AR
# difference (-1 to +2 here) is never 10 or more nor 5 or less; so no shift die, and the
# next die is the result's 2d6, read on the row 2d6 + (attacker AR - defender AR).
SURPRISE = 7
OCS_CAMPAIGN = [
    # 1. 11 vs 5 is 2:1 (2.2), DRM 4-3 = +1, 2d6 9: row 10 of 2:1 is "Ao1 DL1o1". The
    # attacker takes its option as a 1-hex retreat, so the defender may ignore its own:
    # it does; DL1 is one step off 7 Armd, its only unit (no choice): 7 Armd 2 -> 1.
    Combat(
        ("21 Pz", "15 Pz"),
        ("7 Armd",),
        (SURPRISE, 9),
        "Ao1 DL1o1",
        answers=(("1", "attacker takes its option 1"), ("i", "may ignore its option 1")),
        losses={"7 Armd": 1},
    ),
    # 2. 11 vs 8 is 1:1, DRM +1, 2d6 6: row 7 of 1:1 is "AL1o1 Do1". The attacker takes
    # its option in a step: 2 steps from two units, the owner's choice (the dialog: one
    # each); the defender retreats its option's hex.
    Combat(
        ("21 Pz", "15 Pz"),
        ("2 NZ", "9 Aus"),
        (SURPRISE, 6),
        "AL1o1 Do1",
        answers=(("0", "attacker takes its option 1"), ("1", "defender takes its option 1")),
        dialogs=((1, 1),),
        losses={"21 Pz": 1, "15 Pz": 1},
        typed=True,
    ),
    # 3. 8 vs 5 is 1:1, DRM 0, 2d6 11: row 11 of 1:1 is "Ao1 DL1o1". The attacker's
    # option as a step (the owner: 90 Lt); DL1 eliminates 7 Armd, down to its last step
    # (nothing is left to take its option: not asked).
    Combat(
        ("90 Lt", "Ariete"),
        ("7 Armd",),
        (SURPRISE, 11),
        "Ao1 DL1o1",
        answers=(("0", "attacker takes its option 1"),),
        dialogs=((1, 0),),
        losses={"90 Lt": 1},
        eliminated=("7 Armd",),
    ),
    # 4. 6 vs 3 is 2:1, DRM +2, 2d6 12: row 14 of 2:1 is "Ae4 DL1o2": 21 Pz (AR 4)
    # exploits; 4 Ind loses its step and retreats its option's 2 hexes (DG).
    Combat(
        ("21 Pz",),
        ("4 Ind",),
        (SURPRISE, 12),
        "Ae4 DL1o2",
        answers=(("2", "defender takes its option 2"),),
        losses={"4 Ind": 1},
    ),
    # 5. 3 vs 7 is 1:3, DRM 0, 2d6 2: "AL2" at 1:3, both of Trieste's steps: eliminated.
    Combat(("Trieste",), ("50 Div", "1 SA"), (SURPRISE, 2), "AL2", eliminated=("Trieste",)),
    # 6. 9 vs 4 is 2:1, DRM +2, 2d6 5: row 7 of 2:1 is "AL1 Do1": the owner takes the
    # attacker's step from Ariete; the defender's option in a step, from 50 Div alone.
    Combat(
        ("15 Pz", "Ariete"),
        ("50 Div",),
        (SURPRISE, 5),
        "AL1 Do1",
        answers=(("0", "defender takes its option 1"),),
        dialogs=((0, 1),),
        losses={"Ariete": 1, "50 Div": 1},
    ),
    # 7. 11 vs 4 is 2:1 (2.75), DRM +1, 2d6 10: row 11 is "Ao1 DL1o1". The attacker
    # retreats; the defender takes its option all the same, in a step: DL1 and 1 more,
    # both of 9 Aus's steps.
    Combat(
        ("21 Pz", "15 Pz"),
        ("9 Aus",),
        (SURPRISE, 10),
        "Ao1 DL1o1",
        answers=(
            ("1", "attacker takes its option 1"),
            ("t", "may ignore its option 1"),
            ("0", "defender takes its option 1"),
        ),
        eliminated=("9 Aus",),
    ),
    # 8. 8 vs 4 is 2:1, DRM 0, 2d6 4: "AL1o1 Do1". The attacker retreats its option; AL1
    # is the owner's: 90 Lt's last step. The defender ignores its option.
    Combat(
        ("90 Lt", "Ariete"),
        ("2 NZ",),
        (SURPRISE, 4),
        "AL1o1 Do1",
        answers=(("1", "attacker takes its option 1"), ("i", "may ignore its option 1")),
        dialogs=((1, 0),),
        eliminated=("90 Lt",),
    ),
    # 9. 6 vs 6 is 1:1, DRM +2, 2d6 8: row 10 of 1:1 is "Ao1 Do1", both options in steps.
    Combat(
        ("21 Pz",),
        ("4 Ind", "1 SA"),
        (SURPRISE, 8),
        "Ao1 Do1",
        answers=(("0", "attacker takes its option 1"), ("0", "defender takes its option 1")),
        dialogs=((0, 1),),
        losses={"21 Pz": 1, "1 SA": 1},
    ),
    # 10. 5 vs 4 is 1:1, DRM +2, 2d6 3: row 5 of 1:1 is "AL1o1 Do1"; the option in a
    # step too: 15 Pz's last two steps.
    Combat(
        ("15 Pz",),
        ("50 Div",),
        (SURPRISE, 3),
        "AL1o1 Do1",
        answers=(("0", "attacker takes its option 1"), ("1", "defender takes its option 1")),
        eliminated=("15 Pz",),
    ),
    # 11. 6 vs 4 is 1:1, DRM 2-3 = -1, 2d6 9: row 8 of 1:1 is "AL1 Do1".
    Combat(
        ("Trento", "Brescia"),
        ("2 NZ",),
        (SURPRISE, 9),
        "AL1 Do1",
        answers=(("1", "defender takes its option 1"),),
        dialogs=((1, 0),),
        losses={"Trento": 1},
    ),
    # 12. 3 vs 2 is 1:1, DRM -1, 2d6 12: row 11 is "Ao1 DL1o1": 22 Gds's one step.
    Combat(
        ("Pavia",),
        ("22 Gds",),
        (SURPRISE, 12),
        "Ao1 DL1o1",
        answers=(("1", "attacker takes its option 1"),),
        eliminated=("22 Gds",),
    ),
    # 13. The Allies attack: 8 vs 4 is 2:1, DRM 0, 2d6 9: "Ao1 Do1".
    Combat(
        ("1 Armd", "Polish"),
        ("Ariete",),
        (SURPRISE, 9),
        "Ao1 Do1",
        answers=(("0", "attacker takes its option 1"), ("0", "defender takes its option 1")),
        dialogs=((0, 1),),
        losses={"Polish": 1},
        eliminated=("Ariete",),
        typed=True,
    ),
    # 14. 3 vs 3 is 1:1, DRM 0, 2d6 7: "AL1o1 Do1", the option retreated.
    Combat(
        ("5 Ind",),
        ("Brescia",),
        (SURPRISE, 7),
        "AL1o1 Do1",
        answers=(("1", "attacker takes its option 1"), ("i", "may ignore its option 1")),
        losses={"5 Ind": 1},
    ),
    # 15. 8 vs 3 is 2:1, DRM +2, 2d6 11: row 13 of 2:1 is "Ao1 e4 DL1o2"; the retreat
    # voids the exploitation; DL1 is 4 Ind's last step.
    Combat(
        ("21 Pz", "3 Recce"),
        ("4 Ind",),
        (SURPRISE, 11),
        "Ao1 e4 DL1o2",
        answers=(("1", "attacker takes its option 1"),),
        eliminated=("4 Ind",),
    ),
    # 16. 9 vs 6 is 1:1, DRM 0, 2d6 10: "Ao1 Do1": a step from three attackers (Pavia),
    # then one from two defenders (5 Ind's last).
    Combat(
        ("Trento", "Brescia", "Pavia"),
        ("1 SA", "5 Ind"),
        (SURPRISE, 10),
        "Ao1 Do1",
        answers=(("0", "attacker takes its option 1"), ("0", "defender takes its option 1")),
        dialogs=((0, 0, 1), (0, 1)),
        losses={"Pavia": 1},
        eliminated=("5 Ind",),
    ),
    # 17. 8 vs 6 is 1:1, DRM 3-4 = -1, 2d6 3: row 2 of 1:1 is "AL2": one step each.
    Combat(
        ("50 Div", "2 NZ"),
        ("21 Pz",),
        (SURPRISE, 3),
        "AL2",
        dialogs=((1, 1),),
        losses={"50 Div": 1, "2 NZ": 1},
    ),
    # 18. 5 vs 3 is 1:1, DRM +1, 2d6 12: row 13 of 1:1 is "Ao1 DL1o1".
    Combat(
        ("1 Armd",),
        ("Brescia",),
        (SURPRISE, 12),
        "Ao1 DL1o1",
        answers=(("0", "attacker takes its option 1"), ("0", "defender takes its option 1")),
        losses={"1 Armd": 1},
        eliminated=("Brescia",),
    ),
    # 19. 8 vs 3 is 2:1, DRM +2, 2d6 2: row 4 of 2:1 is "AL1o1 Do1".
    Combat(
        ("21 Pz", "3 Recce"),
        ("1 SA",),
        (SURPRISE, 2),
        "AL1o1 Do1",
        answers=(("1", "attacker takes its option 1"), ("i", "may ignore its option 1")),
        dialogs=((0, 1),),
        eliminated=("3 Recce",),
    ),
    # 20. 6 vs 4 is 1:1, DRM -1, 2d6 8: row 7 of 1:1 is "AL1o1 Do1".
    Combat(
        ("Pavia", "Trento"),
        ("2 NZ",),
        (SURPRISE, 8),
        "AL1o1 Do1",
        answers=(("1", "attacker takes its option 1"), ("i", "may ignore its option 1")),
        dialogs=((0, 1),),
        eliminated=("Trento",),
        typed=True,
    ),
]
# The steps each unit has left after the 20 combats, from the losses above.
OCS_END = {
    **{"21 Pz": 1, "15 Pz": 0, "90 Lt": 0, "Ariete": 0, "Trieste": 0, "Trento": 0},
    **{"Brescia": 0, "Pavia": 1, "3 Recce": 0, "7 Armd": 0, "2 NZ": 1, "9 Aus": 0},
    **{"4 Ind": 0, "50 Div": 1, "1 SA": 1, "1 Armd": 1, "5 Ind": 0, "Polish": 1, "22 Gds": 0},
}
OCS_STEPS = {
    name: int(row.split(",")[3]) for row in OCS_OOB.splitlines()[1:] for name in [row.split(",")[0]]
}


async def test_an_ocs_campaign_of_twenty_combats(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    path = imported(folder, "ocs", "oob.csv", OCS_OOB)
    app = open_desk(folder, path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        left = await campaign(pilot, path, OCS_CAMPAIGN, OCS_STEPS)
        # Combat 4's e4 marked 21 Pz (AR 4) for exploitation; combat 15's retreat voided it.
        assert ("exploitation", "21 Pz") in {(m.kind, m.target) for m in app.game.markers}
    # Every unit's steps at the end, by hand from the combats above.
    assert left == OCS_END
    assert {n: u.steps_left for n, u in saves.game_state(path).units.items()} == OCS_END
    await reopened(folder, path, [("Pavia", "3", "1"), ("Trento", "3", "1"), ("2 NZ", "4", "1")])


# ------------------------------------------------------------------------------- Day/Night

DAYNIGHT_OOB = "".join(
    f'[[unit]]\nname = "{name}"\nside = "{side}"\nfactor = {factor}\nsteps = {steps}\n\n'
    for name, side, factor, steps in (
        ("1/12 Inf", "Blue", 4, 2),
        ("2/12 Inf", "Blue", 4, 2),
        ("3/12 Inf", "Blue", 4, 2),
        ("12 Recon", "Blue", 2, 1),
        ("12 Tank", "Blue", 6, 3),
        ("1/14 Inf", "Blue", 4, 2),
        ("2/14 Inf", "Blue", 4, 2),
        ("14 Tank", "Blue", 6, 3),
        ("A/301 Gds", "Red", 6, 3),
        ("B/301 Gds", "Red", 5, 3),
        ("C/301 Gds", "Red", 5, 3),
        ("302 Rifle", "Red", 4, 2),
        ("303 Rifle", "Red", 4, 2),
        ("Red Tank", "Red", 6, 3),
        ("304 Rifle", "Red", 4, 2),
        ("Red Recon", "Red", 2, 1),
    )
)
HOLD = {"#hold": True}  # the defender's hex gives the step-loss-and-hold option (7.2)
NO_HOLD = {"#hold": False}  # it does not: D1 and D2 are retreats
RETREAT = ("r", "does the attacker retreat")
STEPS = ("s", "does the attacker retreat")

# Every combat by day on Clear, no DRM: the die is the row read (1 to 6). Clear's columns
# are 1-4, 1-3, 1-2, 1-1, 2-1, 3-1, 4-1 ...; each side's factor stays as printed (a Day/Night
# loss is in steps).
DAYNIGHT_CAMPAIGN = [
    # 1. 10 vs 6 is 1-1; row 2 of 1-1 is FF: A/301 Gds, alone, loses its step at once;
    # the attacker's step is the owner's: 1/12 Inf.
    Combat(
        ("12 Tank", "1/12 Inf"),
        ("A/301 Gds",),
        (2,),
        "FF",
        dialogs=((0, 1),),
        losses={"A/301 Gds": 1, "1/12 Inf": 1},
        form=HOLD,
    ),
    # 2. 10 vs 5 is 2-1; row 1 is D1 on a hold hex: a step or a hex, the owner's: a step.
    Combat(
        ("12 Tank", "2/12 Inf"),
        ("B/301 Gds",),
        (1,),
        "D1",
        dialogs=((1,),),
        losses={"B/301 Gds": 1},
        typed=True,
        form=HOLD,
    ),
    # 3. 8 vs 4 is 2-1, row 1 D1 on a hex without the option: a retreat, no step.
    Combat(("1/14 Inf", "3/12 Inf"), ("302 Rifle",), (1,), "D1", form=NO_HOLD),
    # 4. 2 vs 4 is 1-2, row 5 is A1: the attacker retreats (disorganized), no step.
    Combat(("12 Recon",), ("303 Rifle",), (5,), "A1", answers=(RETREAT,), form=HOLD),
    # 5. 4 vs 5 is 1-2, row 5 A1 taken as a step: 1/14 Inf's.
    Combat(
        ("1/14 Inf",),
        ("C/301 Gds",),
        (5,),
        "A1",
        answers=(STEPS,),
        dialogs=((1,),),
        losses={"1/14 Inf": 1},
    ),
    # 6. 4 vs 6 is 1-2, row 6 is A1X: one step at once, then its option 1 as a step:
    # both of 3/12 Inf's steps.
    Combat(
        ("3/12 Inf",),
        ("Red Tank",),
        (6,),
        "A1X",
        answers=(STEPS,),
        dialogs=((1,),),
        eliminated=("3/12 Inf",),
    ),
    # 7. 18 vs 4 is 4-1, row 1 is D2X: 302 Rifle's mandatory step, then D2 on a hold
    # hex: its last step and a hex.
    Combat(
        ("12 Tank", "2/12 Inf", "1/12 Inf", "1/14 Inf"),
        ("302 Rifle",),
        (1,),
        "D2X",
        dialogs=((1,),),
        eliminated=("302 Rifle",),
        form=HOLD,
    ),
    # 8. 4 vs 4 is 1-1, row 4 ENG: no reserve, rolled again: row 3 is D1+: 2/12 Inf's
    # step; 303 Rifle's option all retreated (the dialog left empty).
    Combat(
        ("2/12 Inf",),
        ("303 Rifle",),
        (4, 3),
        "D1+",
        dialogs=((0,),),
        losses={"2/12 Inf": 1},
    ),
    # 9. 6 vs 6 is 1-1, row 5 BTL: 14 Tank presses on with a step, row 2 is FF: a step
    # each side, 14 Tank's second.
    Combat(
        ("14 Tank",),
        ("A/301 Gds",),
        (5, 2),
        "FF",
        answers=(("y", "unresolved battle"),),
        losses={"14 Tank": 2, "A/301 Gds": 1},
    ),
    # 10. 16 vs 5 is 3-1, row 1 D2 on a hold hex: a step and a hex.
    Combat(
        ("12 Tank", "2/14 Inf", "14 Tank"),
        ("B/301 Gds",),
        (1,),
        "D2",
        dialogs=((1,),),
        losses={"B/301 Gds": 1},
    ),
    # 11. 6 vs 4 is 1-1, row 2 FF: 304 Rifle's step; the owner gives 12 Recon's only one.
    Combat(
        ("12 Recon", "2/12 Inf"),
        ("304 Rifle",),
        (2,),
        "FF",
        dialogs=((1, 0),),
        losses={"304 Rifle": 1},
        eliminated=("12 Recon",),
    ),
    # 12. Red attacks: 10 vs 4 is 2-1, row 3 FF: 1/14 Inf's last step; Red Tank's.
    Combat(
        ("Red Tank", "304 Rifle"),
        ("1/14 Inf",),
        (3,),
        "FF",
        dialogs=((1, 0),),
        losses={"Red Tank": 1},
        eliminated=("1/14 Inf",),
    ),
    # 13. 2 vs 6 is 1-3, row 6 A2X in steps: Red Recon's one step is the mandatory loss;
    # nothing is left for its option.
    Combat(
        ("Red Recon",),
        ("14 Tank",),
        (6,),
        "A2X",
        answers=(STEPS,),
        eliminated=("Red Recon",),
    ),
    # 14. 5 vs 10 is 1-2, row 6 A1X: the attacker retreats, after its mandatory step.
    Combat(
        ("C/301 Gds",),
        ("2/14 Inf", "12 Tank"),
        (6,),
        "A1X",
        answers=(RETREAT,),
        losses={"C/301 Gds": 1},
    ),
    # 15. 10 vs 4 is 2-1, row 4 D1+ without the option: the defender retreats, the
    # attacker's step is the owner's: A/301 Gds's last.
    Combat(
        ("303 Rifle", "A/301 Gds"),
        ("2/14 Inf",),
        (4,),
        "D1+",
        dialogs=((0, 1),),
        eliminated=("A/301 Gds",),
        form=NO_HOLD,
    ),
    # 16. 14 vs 4 is 3-1, row 1 D2 without the option: two hexes back, no step.
    Combat(("C/301 Gds", "B/301 Gds", "303 Rifle"), ("2/12 Inf",), (1,), "D2", typed=True),
    # 17. 16 vs 4 is 4-1, row 1 D2X: 2/12 Inf's mandatory step is its last.
    Combat(
        ("Red Tank", "C/301 Gds", "B/301 Gds"),
        ("2/12 Inf",),
        (1,),
        "D2X",
        eliminated=("2/12 Inf",),
        form=HOLD,
    ),
    # 18. 4 vs 6 is 1-2, row 4 BTL: the attacker does not press on; the battle ends.
    Combat(("303 Rifle",), ("12 Tank",), (4,), "BTL", answers=(("n", "unresolved battle"),)),
    # 19. 15 vs 10 is 1-1, row 1 D1 on a hold hex: 12 Tank's step, the owner's choice.
    Combat(
        ("Red Tank", "303 Rifle", "C/301 Gds"),
        ("12 Tank", "2/14 Inf"),
        (1,),
        "D1",
        dialogs=((1, 0),),
        losses={"12 Tank": 1},
    ),
    # 20. 16 vs 8 is 2-1, row 1 D1 on a hold hex: 304 Rifle's last step.
    Combat(
        ("12 Tank", "2/14 Inf", "14 Tank"),
        ("303 Rifle", "304 Rifle"),
        (1,),
        "D1",
        dialogs=((0, 1),),
        eliminated=("304 Rifle",),
        typed=True,
    ),
]
DAYNIGHT_END = {
    **{"1/12 Inf": 1, "2/12 Inf": 0, "3/12 Inf": 0, "12 Recon": 0, "12 Tank": 2},
    **{"1/14 Inf": 0, "2/14 Inf": 2, "14 Tank": 1, "A/301 Gds": 0, "B/301 Gds": 1},
    **{"C/301 Gds": 2, "302 Rifle": 0, "303 Rifle": 2, "Red Tank": 2, "304 Rifle": 0},
    "Red Recon": 0,
}
DAYNIGHT_STEPS = {
    line.split('"')[1]: int(DAYNIGHT_OOB.split(line, 1)[1].split("steps = ")[1].split()[0])
    for line in DAYNIGHT_OOB.splitlines()
    if line.startswith("name")
}


async def test_a_daynight_campaign_of_twenty_combats(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    path = imported(folder, "daynight", "oob.toml", DAYNIGHT_OOB)
    app = open_desk(folder, path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        left = await campaign(pilot, path, DAYNIGHT_CAMPAIGN, DAYNIGHT_STEPS)
    # Combat 8's option, all retreated in the dialog, is logged as 0 steps (closed).
    entries = saves.load_game(path).entries
    answered = [e for e in entries if e["kind"] == "loss" and e["losses"][0].get("steps") == 0]
    assert [e["losses"] for e in answered] == [[{"unit": "303 Rifle", "steps": 0}]]
    assert left == DAYNIGHT_END
    assert {n: u.steps_left for n, u in saves.game_state(path).units.items()} == DAYNIGHT_END
    shown = [("12 Tank", "6"), ("2/14 Inf", "4"), ("14 Tank", "6"), ("303 Rifle", "4")]
    await reopened(folder, path, [*shown, ("304 Rifle", "4")])


async def test_an_option_left_all_retreated_in_the_dialog_is_logged_and_closed(
    tmp_path: Path,
) -> None:
    """Enter on an option's dialog with no step typed: the option is taken all in hexes
    retreated, logged as 0 steps naming the combat, so nothing stays open."""
    folder = tmp_path / "saves"
    path = imported(folder, "daynight", "oob.toml", DAYNIGHT_OOB)
    app = open_desk(folder, path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        # 4 vs 4 is 1-1 by day on Clear; row 1 is D1 on a hold hex: option 1.
        combat = Combat(("1/12 Inf",), ("302 Rifle",), (1,), "D1", dialogs=((0,),), form=HOLD)
        await play(pilot, app.screen, combat)
    loss = saves.load_game(path).entries[-1]
    assert loss["kind"] == "loss" and loss["losses"] == [{"unit": "302 Rifle", "steps": 0}]
    assert loss["combat"] == loss["seq"] - 1
    state = saves.game_state(path)
    assert not state.open_losses and state.units["302 Rifle"].steps_left == 2
