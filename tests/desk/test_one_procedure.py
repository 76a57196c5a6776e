"""One description of each combat: random combats, with random answers to every question
the procedure asks, give the same log entry (but for its time and player) whether they are
resolved by the procedure directly, by `crtdesk resolve --save` with the answers as flags,
or on the desk at 80x24; and each entry's inputs read back into the combat, whose exact
distribution holds the logged result."""

from __future__ import annotations

import json
import random
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import Desk, settle
from tui import cli, saves
from tui.engine import registry, schema
from tui.engine.combat import combat_from_inputs, distribution, plain
from tui.engine.errors import InputError
from tui.engine.kinds import Choice, Signed, Tick, Whole
from tui.engine.model import CombatInput, Unit
from tui.engine.procedure import (
    ChoiceQuestion,
    DiceQuestion,
    NumberQuestion,
    Question,
    hand_dice,
    procedure,
)
from tui.engine.registry import BUILT_IN_IDS as RULESET_IDS
from tui.engine.tables import default_tables
from tui.reports.luck import combat_from_inputs as judged_inputs

TABLES = default_tables()


# --- random combats, as a player could enter them on the desk ----------------------------------


def _factors(rnd: random.Random, most: int = 3, high: int = 12) -> list[int]:
    return [rnd.randint(1, high) for _ in range(rnd.randint(1, most))]


def random_combat(ruleset: str, rnd: random.Random) -> CombatInput:
    """A combat of `ruleset` with every desk form field drawn at random."""
    form: dict[str, Any] = {}
    for field in schema.form(ruleset, registry.get(ruleset).fields, TABLES):
        options = [value for value, _ in field.form_options(ruleset, TABLES)]
        if field.name in ("attacker_ar_unit", "defender_ar_unit", "mines_cdf"):
            continue  # set below from the units, and the game's own option
        if not field.on_combat:
            continue  # the desk form's own (Big Boom's mission): drawn below
        if field.desk_options is not None or isinstance(field.kind, Tick):
            form[field.name] = rnd.random() < 0.5
        elif isinstance(field.kind, Choice):
            form[field.name] = rnd.choice(options if field.required else [None, *options])
        elif isinstance(field.kind, Signed):
            form[field.name] = rnd.randint(-2, 2)
        elif isinstance(field.kind, Whole):
            low = field.low if isinstance(field.low, int) else 0
            form[field.name] = rnd.randint(low, low + 2)
    if ruleset == "ocs":
        attackers = tuple(
            Unit(
                f,
                name=f"Att{i}",
                steps=rnd.randint(1, 3),
                ar=rnd.randint(0, 5),
                kind="combat",
                supply="on-map",
            )
            for i, f in enumerate(_factors(rnd, 2, 9), start=1)
        )
        defenders = tuple(
            Unit(f, name=f"Def{i}", steps=rnd.randint(1, 3), ar=rnd.randint(0, 5), re=1.0)
            for i, f in enumerate(_factors(rnd, 2, 9), start=1)
        )
        return CombatInput(ruleset, attackers=attackers, defenders=defenders, **form)
    if ruleset == "pod-boom":
        units = tuple(Unit(f) for f in _factors(rnd, 4, 8))
        if rnd.random() < 0.3:  # a battery or ship: no attrition
            return CombatInput(ruleset, attackers=units)
        aaf = rnd.choice([0, rnd.randint(1, 6)])
        return CombatInput(ruleset, attackers=units, aaf=aaf, long_range=rnd.random() < 0.5)
    terrains = (
        tuple(TABLES.data["pod"]["terrain"]) if TABLES.data[ruleset].get("terrain_effects") else ()
    )
    where = (lambda: rnd.choice(terrains)) if terrains else (lambda: None)
    attackers = tuple(Unit(f, where()) for f in _factors(rnd))
    defenders = tuple(Unit(f, where()) for f in _factors(rnd))
    if form.get("obstacle"):
        defenders = ()
        if form["obstacle"] == "mines":
            form["mines_cdf"] = TABLES.data["pod-ultra"]["obstacles"]["mines"]
    return CombatInput(ruleset, attackers=attackers, defenders=defenders, **form)


def random_answer(rnd: random.Random, question: Question) -> Any:
    if isinstance(question, DiceQuestion):
        return hand_dice(question, rnd.randint(question.low, question.high))
    if isinstance(question, ChoiceQuestion):
        return rnd.choice(question.options).value
    assert isinstance(question, NumberQuestion)
    return rnd.choice([None, rnd.randint(0, 9)])


def played(
    combat: CombatInput, rnd: random.Random
) -> tuple[CombatInput, Any, list[tuple[Question, Any]]]:
    """The procedure run to its end with random answers: the combat as answered, its
    outcome, and every question with its answer."""
    asked: list[tuple[Question, Any]] = []
    steps = procedure(combat, TABLES)
    try:
        question = next(steps)
        while True:
            answer = random_answer(rnd, question)
            asked.append((question, answer))
            question = steps.send(answer)
    except StopIteration as done:
        final, outcome = done.value
    return final, outcome, asked


# --- the log entries -------------------------------------------------------------------------


def new_save(folder: Path, name: str, ruleset: str) -> Path:
    path = folder / f"{name}.toml"
    saves.new_game(path, "Property", [ruleset], {})
    return path


def logged(path: Path) -> dict[str, Any]:
    """The last entry, but for when and by whom it was written."""
    entry = dict(saves.load_game(path).entries[-1])
    for key in ("when", "who"):
        entry.pop(key, None)
    return json.loads(json.dumps(entry, default=_plain))


def _plain(value: Any) -> Any:
    """A frozen table or list of a loaded save, as JSON takes it."""
    return dict(value) if isinstance(value, Mapping) else list(value)


def check_read_back(entry: dict[str, Any], final: CombatInput) -> None:
    """The inputs read back are the combat; judged, their distribution holds the result."""
    assert combat_from_inputs(entry["inputs"]) == final
    chances = distribution(judged_inputs(entry["inputs"]), TABLES)
    cells = [json.dumps(plain(cell)) for cell, _, _ in chances.outcomes]
    assert json.dumps(entry.get("cell")) in cells


def by_procedure(
    folder: Path, combat: CombatInput, rnd: random.Random
) -> tuple[CombatInput, list, dict]:
    final, outcome, asked = played(combat, rnd)
    path = new_save(folder, "procedure", combat.ruleset)
    saves.append_combat(path, final, outcome, who="a")
    return final, asked, logged(path)


def by_cli(folder: Path, final: CombatInput) -> dict[str, Any]:
    path = new_save(folder, "cli", final.ruleset)
    assert cli.main([*cli.command_line(final), "--save", str(path)]) == 0
    return logged(path)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.randoms(use_true_random=False))
@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_the_procedure_and_the_cli_log_the_same_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ruleset: str, rnd: random.Random
) -> None:
    combat = random_combat(ruleset, rnd)
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    try:
        final, _, entry = by_procedure(folder, combat, rnd)
    except InputError as err:
        # A combat the rules refuse is refused the same way on the command line.
        assert cli.main(cli.command_line(combat)) == cli.EXIT_BAD_INPUT
        assert err.value is not None or err.field
        return
    assert by_cli(folder, final) == entry
    capsys.readouterr()
    check_read_back(entry, final)


# --- the desk --------------------------------------------------------------------------------


async def fill_form(pilot: Any, screen: Any, combat: CombatInput) -> None:
    """Type `combat` into the screen's form (values set on its widgets)."""
    from textual.widgets import Input

    from tui.desk.widgets.combat import Cycle

    ruleset = combat.ruleset
    boom_batteries = ruleset == "pod-boom" and combat.aaf is None
    if boom_batteries:
        screen.query_one("#mission", Cycle).value = "batteries"
        await pilot.pause()
    sides = [("attacker", combat.attackers, "ctrl+n")]
    if ruleset == "pod-boom":
        aa = [Unit(combat.aaf)] if combat.aaf else []
        if not boom_batteries:
            sides.append(("defender", tuple(aa), "ctrl+g"))
    elif not combat.obstacle:
        sides.append(("defender", combat.defenders, "ctrl+g"))
    for side, units, key in sides:
        while len(screen.unit_rows(side)) < len(units):
            await pilot.press(key)
            await pilot.pause()
        for row, unit in zip(screen.unit_rows(side), units, strict=False):
            row.factor_input.value = str(unit.factor)
            if unit.terrain:
                row.query_one(".terrain", Cycle).value = unit.terrain
            if unit.name is not None:
                row.field("unit-name").value = unit.name
                row.field("steps").value = str(unit.steps)
                row.field("ar").value = str(unit.ar)
                if side == "defender":
                    row.field("re").value = f"{unit.re:g}"
    if combat.long_range:
        screen.query_one("#range", Input).value = "8"
        screen.query_one("#distance", Input).value = "5"
    for field in schema.form(ruleset, registry.get(ruleset).fields, TABLES):
        if field.name == "mines_cdf" or not field.on_combat:
            continue  # the game's own option; the mission, set above
        value = getattr(combat, field.name)
        widget = screen.query_one(f"#{field.widget_id}")
        if isinstance(widget, Cycle):
            widget.value = "" if value is None else value
        elif isinstance(widget, Input):
            widget.value = str(value)
        else:
            widget.value = bool(value)
    await pilot.pause()


async def answer_on_desk(pilot: Any, asked: list[tuple[Question, Any]]) -> None:
    """Answer each dialog the desk shows as the procedure was answered."""
    from textual.widgets import Input

    from tui.desk.screens.dialogs import ChoiceScreen, HandDiceScreen, NumberScreen

    await pilot.press("ctrl+t")
    for question, answer in asked:
        await pilot.pause()
        screen = pilot.app.screen
        if isinstance(question, DiceQuestion):
            assert isinstance(screen, HandDiceScreen), screen
            await pilot.press(*str(answer.total), "enter")
        elif isinstance(question, ChoiceQuestion):
            assert isinstance(screen, ChoiceScreen), screen
            key = next(o.key for o in question.options if o.value == answer)
            await pilot.press(key)
        else:
            assert isinstance(screen, NumberScreen), screen
            screen.query_one(Input).value = "" if answer is None else str(answer)
            await pilot.press("enter")
    await settle(pilot)


def desk_example(ruleset: str, seed: int) -> tuple[CombatInput, random.Random]:
    """The first combat from `seed` on that the rules allow (the desk logs only those)."""
    while True:
        rnd = random.Random(f"{ruleset}-{seed}")
        combat = random_combat(ruleset, rnd)
        try:
            played(combat, random.Random(0))
        except InputError:
            seed += 1000
            continue
        return combat, rnd


@pytest.mark.parametrize("ruleset", RULESET_IDS)
async def test_the_desk_logs_the_entry_the_procedure_does(
    desk: Desk, tmp_path: Path, ruleset: str
) -> None:
    """One random combat per ruleset typed on the desk (the procedure and the CLI are
    compared over many more above: the desk adds only the form's reading and its dialogs)."""
    combat, rnd = desk_example(ruleset, 1)
    final, asked, entry = by_procedure(tmp_path, combat, rnd)
    async with desk(rulesets=[ruleset]) as (app, pilot):
        screen = app.screen
        await fill_form(pilot, screen, combat)
        assert screen.reading.combat == combat, screen.reading.problems
        await answer_on_desk(pilot, asked)
        assert logged(app.game.path) == entry
    check_read_back(entry, final)
