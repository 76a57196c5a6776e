"""The last roll's box at 80x24: the whole result, both sides and every distance, whatever
its length, with eight markers in play. Each ruleset's longest result text is found by
resolving a spread of combats (every die rolled by seeded dice, every choice taken in turn),
then shown on its screen and read back from what the box draws."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from textual.content import Content
from textual.geometry import Region

from tests.conftest import SIZE, settle
from tests.snapshots.test_snapshots import ROLLED, _marked_game
from tui.desk.screens.combat import CombatScreen
from tui.desk.widgets.result import ResultLines, ResultPanel, result_head
from tui.engine import CombatInput, Outcome, Unit
from tui.engine.errors import InputError
from tui.engine.procedure import (
    ChoiceQuestion,
    DiceQuestion,
    after_roll,
    after_roll_offers,
    answered,
    desk_dice,
    run,
)
from tui.engine.tables import default_tables

ATTACKS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 24)
DEFENCES = (1, 2, 3, 5, 8)
# What each ruleset's combats vary besides the factors.
VARIANTS: dict[str, list[dict[str, Any]]] = {
    "pod-basic": [{}],
    "pod-super": [{}, {"attacker_card": "ace"}],
    "pod-ultra": [{}],
    "ocs": [{}, {"overrun": True}],
    "rivets": [{}, {"bcpc": True}],
    "daynight": [{"time": "day"}, {"time": "night"}],
}


def _answers(seed: int) -> Any:
    dice = random.Random(seed)

    def answer(question: Any) -> Any:
        if isinstance(question, DiceQuestion):
            return desk_dice(question, dice)
        if isinstance(question, ChoiceQuestion):
            return question.options[seed % len(question.options)].value
        return None

    return answer


def _outcomes(ruleset: str) -> list[tuple[CombatInput, Outcome]]:
    """A spread of this ruleset's results: every column, several rolls each, the choices
    taken in turn, and (Pair-o-Dice) the card after the roll played by either side."""
    tables = default_tables()
    found = []
    if ruleset == "pod-boom":
        combats = [
            CombatInput(ruleset, tuple(Unit(f) for f in units), (), aaf=aaf, long_range=far)
            for units in ((10,), (4, 2, 2), (8, 8, 8), (2, 2, 2, 2, 2, 2))
            for aaf in (None, 1, 3, 6)
            for far in (False, True)
        ]
    else:
        combats = [
            CombatInput(ruleset, (Unit(a),), (Unit(d),), **extra)
            for a in ATTACKS
            for d in DEFENCES
            for extra in VARIANTS[ruleset]
        ]
    for combat in combats:
        for seed in range(4):
            try:
                played = run(combat, tables, _answers(seed))
            except InputError:
                continue  # a combat this ruleset refuses (an OCS overrun at low odds)
            found.append(played)
            if not ruleset.startswith("pod-") or ruleset == "pod-boom":
                continue
            for side in after_roll_offers(*played, tables):
                card = answered(after_roll(*played, tables), lambda _, side=side: side)
                assert card is not None
                found.append((card.combat, card.outcome))
    return found


def _rows(text: str, width: int) -> int:
    return sum(
        1 if cell_len(line) <= width else len(Content(line).wrap(width))
        for line in text.split("\n")
    )


async def test_the_longest_result_of_each_ruleset_is_read_whole_at_80x24(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    os.chdir(tmp_path)
    app = _marked_game(folder)  # every ruleset in play, eight markers placed
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for ruleset in ROLLED:
            await _read_the_longest(app, pilot, ruleset)


async def _read_the_longest(app: Any, pilot: Any, ruleset: str) -> None:
    app.show_ruleset(ruleset)
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, CombatScreen)
    screen.result_panel.display = True
    await settle(pilot)
    lines = screen.query_one(ResultLines)
    width = lines.content_size.width

    def text_of(outcome: Outcome) -> str:
        effects = screen.result_effects(outcome)
        head = screen.result_head(outcome) or result_head(outcome)
        if effects is None:
            effects = outcome.explanation
        return f"{head}\n{effects}"

    combat, outcome = max(_outcomes(ruleset), key=lambda p: _rows(text_of(p[1]), width))
    longest = text_of(outcome)
    screen.show_outcome(combat, outcome)
    await settle(pilot)
    panel = screen.query_one(ResultPanel)
    side = screen.query_one(".combat-side")
    # The whole box on the screen, inside its pane, with a row for every row of text.
    assert panel.region.bottom <= side.region.bottom <= SIZE[1] - 1, ruleset
    assert lines.size.height == _rows(str(lines.content), width), ruleset
    region = Region(0, 0, width, lines.size.height)
    drawn = " ".join(strip.text.strip() for strip in lines.render_lines(region))
    words = " ".join(longest.split())
    assert words in " ".join(drawn.split()), (ruleset, longest, drawn)
    assert "Logged as entry" in str(panel.saved_line.content), ruleset
