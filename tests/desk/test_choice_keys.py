"""A one-key question (`ChoiceScreen`) answers with the value of the key pressed, Esc with
None (the question is cancelled), and ignores any other key."""

from __future__ import annotations

import pytest
from textual.app import App

from tui.desk.screens.dialogs import ChoiceScreen

CHOICES = [("n", "nothing", "none"), ("p", "place a marker", "place"), ("l", "lift", "lift")]


@pytest.mark.parametrize(
    ("keys", "answer"), [(["p"], "place"), (["x", "l"], "lift"), (["escape"], None)]
)
async def test_a_key_answers_the_question(keys: list[str], answer: str | None) -> None:
    answers: list[str | None] = []
    app = App[None]()
    async with app.run_test() as pilot:
        app.push_screen(ChoiceScreen("A marker by hand:", CHOICES), answers.append)
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
            if key == "x":
                assert answers == [] and isinstance(app.screen, ChoiceScreen)
    assert answers == [answer]
