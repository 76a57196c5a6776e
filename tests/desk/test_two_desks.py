"""Two players' desks open on one save, in turn: each roll and each card after a roll,
from either desk, shows in both desks' result boxes as the log has it, and a card played
on one desk is no longer offered on the other."""

from __future__ import annotations

import random
import time
from pathlib import Path

from tests.conftest import settle
from tests.desk.test_live import shown
from tui import saves
from tui.desk.app import CrtDeskApp
from tui.desk.widgets.result import ResultPanel


def box(app: CrtDeskApp) -> str:
    panel = app.screen.query_one(ResultPanel)
    assert panel.display
    return f"{panel.lines.content}\n{panel.saved_line.content}"


def last(path: Path) -> dict:
    return saves.load_game(path).entries[-1]


async def test_each_roll_and_card_from_either_desk_shows_in_both_boxes(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    path = folder / "game.toml"
    saves.new_game(path, "Two desks", ["pod-super"], {})
    alice = CrtDeskApp(saves_dir=folder, game_path=path, rng=random.Random(1), player="alice")
    bob = CrtDeskApp(saves_dir=folder, game_path=path, rng=random.Random(2), player="bob")
    async with alice.run_test(size=(80, 24)) as a, bob.run_test(size=(80, 24)) as b:
        await settle(a)
        await settle(b)
        # Alice rolls 8 by hand at 6 v 2 (3-1): the attacker advances, the defender retreats.
        await a.press("6", "enter", "2", "ctrl+t", "8", "enter")
        await settle(a)
        entry = last(path)
        assert (entry["seq"], entry["roll"], entry["who"]) == (1, "8", "alice")
        await shown(bob, 1, time.monotonic())
        await settle(b)
        for app, by in ((alice, ""), (bob, " by alice")):
            assert box(app).startswith("Roll 8 on 3-1: A - 2 / D 2 -3"), box(app)
            assert f"Logged as entry 1{by} · F9: play Joker" in box(app)
        # Bob, the defender, plays the Joker from his desk: both boxes show the lines swapped.
        await b.press("f9")
        await b.pause()
        await b.press("d")
        await settle(b)
        entry = last(path)
        assert (entry["seq"], entry["amends"], entry["who"]) == (2, 1, "bob")
        await shown(alice, 2, time.monotonic())
        await settle(a)
        for app, by in ((alice, " by bob"), (bob, "")):
            text = box(app)
            assert "swapped" in text and "Attacker loses 2 factors, must retreat 3" in text, text
            assert text.endswith(f"Logged as entry 2{by}"), text  # no card offered
        # Alice rolls again (by hand, 5; then the desk's dice twice): each shows on both.
        for seq, keys in ((3, ("ctrl+t", "5", "enter")), (4, ("ctrl+r",)), (5, ("ctrl+r",))):
            await a.press(*keys)
            await settle(a)
            entry = last(path)
            assert entry["seq"] == seq
            await shown(bob, seq, time.monotonic())
            await settle(b)
            head = f"Roll {entry['roll']} on 3-1: A {' '.join(entry['cell']['attacker'])}"
            for app in (alice, bob):
                assert box(app).startswith(head), (seq, box(app))
                assert f"Logged as entry {seq}" in box(app)
