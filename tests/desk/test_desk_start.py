"""Pilot tests: the start screen, a new game, log review, the Hero Site draw and the
command palette's entries."""

from __future__ import annotations

import random
from pathlib import Path

from textual.widgets import DataTable, Input, Label, SelectionList, Static

from tui import saves
from tui.desk.app import CrtDeskApp
from tui.desk.commands import COMBAT_SCREEN_COMMANDS, POD_COMMANDS
from tui.desk.screens.pod import PodScreen
from tui.desk.screens.review import ReviewScreen
from tui.desk.screens.start import COLUMNS, StartScreen

SIZE = (80, 24)


def screen_text(app: CrtDeskApp) -> str:
    return "\n".join(str(s.content) for s in app.screen.query("Static").results(Static))


async def test_start_screen_lists_saves_newest_first_and_opens_one(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    saves.new_game(folder / "old.toml", "Old campaign", ["rivets"], {})
    saves.new_game(folder / "new.toml", "New campaign", ["pod-super", "ocs"], {})
    saves.advance_turn(folder / "new.toml")
    long_title = "Operation Crusader, the second relief of Tobruk, November 1941"
    saves.new_game(folder / "crusader-relief-of-tobruk.toml", long_title, ["rivets"], {})
    (folder / "broken.toml").write_text("title = [unclosed\n")
    app = CrtDeskApp(saves_dir=folder, rng=random.Random(1), player="tester")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        table = app.screen.query_one(DataTable)
        rows = [table.get_row_at(i) for i in range(table.row_count)]
        # The game with an entry comes first; the broken file is listed last, not fatal.
        assert rows[0][1] == "New campaign"
        assert rows[-1][0] == "broken" and "unreadable" in rows[-1][2]
        # Every cell fits its column at 80 columns ("unreadable (Enter: w" was cut short).
        widths = [width for _, width in COLUMNS]
        assert all(len(str(c)) <= w for row in rows for c, w in zip(row, widths, strict=True))
        assert rows[0][0] == "new" and rows[0][2] == "Super OCS" and rows[0][3] == "2"
        # A long file name and title are cut short with an ellipsis, and every column
        # header still shows in 80 columns.
        long_row = next(row for row in rows if row[0].startswith("crusader"))
        assert long_row[0].endswith("…") and long_row[1].startswith("Operation Crusad")
        assert long_row[1].endswith("…") and len(long_row[1]) <= 18
        header = [str(column.label) for column in table.columns.values()]
        assert header == ["file", "title", "rulesets", "turn", "last (UTC)"]
        assert sum(column.get_render_width(table) for column in table.columns.values()) <= 78
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PodScreen) and app.screen.ruleset == "pod-super"
        assert app.screen.sub_title.startswith("Turn 2 · tester")
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("down", "down", "down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)  # the broken save did not open
        assert (folder / "broken.toml").read_text() == "title = [unclosed\n"


async def test_new_game_dialog_creates_a_save_with_the_chosen_rulesets(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    saves.new_game(folder / "other.toml", "Other", ["rivets"], {})
    app = CrtDeskApp(saves_dir=folder, rng=random.Random(1), player="tester")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        await pilot.press("enter")  # no title yet: refused with a message
        await pilot.pause()
        assert "Give the game a title." in screen_text(app)
        app.screen.query_one("#new-title", Input).value = 'Hürtgen "Forest" [DR]'
        choices = app.screen.query_one(SelectionList)
        choices.deselect_all()
        choices.select("pod-ultra")
        choices.select("daynight")
        app.screen.query_one("#new-title", Input).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PodScreen) and app.screen.ruleset == "pod-ultra"
        game = saves.load_game(app.game.path)
        assert game.title == 'Hürtgen "Forest" [DR]'
        assert game.rulesets == ["pod-ultra", "daynight"]
        assert game.options.get("mines_cdf") == 2


async def test_log_review_shows_the_combats_and_the_hero_draw(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    saves.new_game(folder / "g.toml", "G", ["pod-basic"], {})
    app = CrtDeskApp(
        saves_dir=folder, game_path=folder / "g.toml", rng=random.Random(5), player="tester"
    )
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        screen.query_one("#attackers .factor", Input).value = "6"
        screen.query_one("#defenders .factor", Input).value = "2"
        await pilot.pause()
        await pilot.press("ctrl+r")
        await pilot.press("ctrl+y", "a")  # the attacker won the site
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        entries = saves.load_game(folder / "g.toml").entries
        assert [e["kind"] for e in entries] == ["combat", "event"]
        draw = entries[1]
        assert draw["event"] == "hero-site-draw" and 1 <= draw["dice"][0]["total"] <= 6
        assert f"the desk rolled {draw['dice'][0]['total']}" in draw["text"]
        await pilot.press("ctrl+l")
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        table = app.screen.table
        assert table.row_count == 2
        first = table.row_text(0).split()
        assert first[:3] == ["1", "1", "tester"] and first[3:5] == ["Basic", "3-1"]
        assert first[5] == f"{entries[0]['roll']}" and first[6] == entries[0]["cell"][0]
        await pilot.press("up")
        await pilot.pause()
        detail = str(app.screen.query_one("#review-detail", Static).content)
        assert entries[0]["explanation"] in detail
        assert f"Dice: 1d6 {entries[0]['dice'][0]['total']} (desk)" in detail
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, PodScreen)


async def test_every_game_action_is_in_the_command_palette(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    app = CrtDeskApp(saves_dir=folder, rng=random.Random(1), player="tester")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for command in COMBAT_SCREEN_COMMANDS + POD_COMMANDS:
            assert f"{command.label} ({command.key})" in titles
        # And each has its key bound on the screen.
        keys = set(app.screen._bindings.key_to_bindings)
        assert {c.key for c in COMBAT_SCREEN_COMMANDS + POD_COMMANDS} <= keys


async def test_new_game_dialog_enter_creates_from_anywhere_and_ticks_differ_in_shape(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    saves.new_game(folder / "other.toml", "Other", ["rivets"], {})
    app = CrtDeskApp(saves_dir=folder, rng=random.Random(1), player="tester")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("n", *"Bastogne")
        await pilot.pause()
        dialog = app.screen
        # The label and the value of the mines option are apart.
        label = dialog.query_one("#new-mines").parent.query_one(Label)
        assert len(str(label.content)) < label.region.width
        choices = dialog.query_one(SelectionList)
        choices.deselect_all()
        choices.select("rivets")
        await pilot.pause()
        # Unticked rows show an empty box, ticked ones an X: a difference in shape.
        rows = {choices.get_option_at_index(i).value: i for i in range(choices.option_count)}
        ticked = choices.render_line(rows["rivets"]).text
        unticked = choices.render_line(rows["ocs"]).text
        assert ticked[:3] != unticked[:3] and "X" in ticked[:3] and "X" not in unticked[:3]
        choices.focus()
        await pilot.press("space")  # Space still ticks the highlighted ruleset
        await pilot.press("enter")  # Enter creates, from the ruleset list too
        await pilot.pause()
        game = saves.load_game(app.game.path)
        assert game.title == "Bastogne" and set(game.rulesets) == {"rivets", "pod-basic"}


async def test_new_game_dialog_keeps_the_title_and_ticks_through_tab_and_space(
    tmp_path: Path,
) -> None:
    """Tab Space, again and again: Tab back into the title once selected all its text, and
    the Space typed then replaced it. Space only ticks the highlighted ruleset."""
    folder = tmp_path / "saves"
    folder.mkdir()
    saves.new_game(folder / "other.toml", "Other", ["rivets"], {})
    app = CrtDeskApp(saves_dir=folder, rng=random.Random(1), player="tester")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("n", *"Kursk")
        await pilot.pause()
        dialog = app.screen
        title = dialog.query_one("#new-title", Input)
        ticks = dialog.query_one(SelectionList)
        every = set(ticks.selected)
        for _ in range(3):
            await pilot.press(*["tab", "space"] * 5)  # the title, the list, mines, buttons
            await pilot.pause()
            assert dialog is app.screen
            assert title.value.strip() == "Kursk"
            # Only the highlighted ruleset (the first) was ticked and unticked.
            assert every - set(ticks.selected) <= {"pod-basic"}
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
