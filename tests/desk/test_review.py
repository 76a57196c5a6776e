"""The log review on a generated 1,000-entry campaign: filters, the jump to a turn, the
detail pane, notes from the desk read back by `crtdesk log`, and a long save loaded in a
worker while the screen is already up."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Static

from tests.conftest import notes, settle
from tests.review_save import campaign
from tui import saves
from tui.cli import main
from tui.desk.app import CrtDeskApp
from tui.desk.screens.dialogs import NoteScreen
from tui.desk.screens.review import ReviewScreen
from tui.engine.text import cell_text
from tui.reports.review_data import Filter, parse_filter, shown_columns

SIZE = (80, 24)


def review_app(folder: Path, path: Path) -> CrtDeskApp:
    """The desk as `crtdesk review NAME` opens it."""
    return CrtDeskApp(
        saves_dir=folder, game_path=path, rng=random.Random(1), player="tester", review=True
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "saves"
    path.mkdir()
    return path


def start_desk(folder: Path) -> CrtDeskApp:
    """The desk on its start screen, over `folder`."""
    return CrtDeskApp(saves_dir=folder, rng=random.Random(1), player="tester")


async def show_review(pilot: Pilot, path: Path) -> Screen:
    """The review of `path` opened over the desk, once it has settled."""
    pilot.app.push_screen(ReviewScreen(path))
    await settle(pilot)
    return pilot.app.screen


def shown(screen: ReviewScreen) -> list[dict]:
    """The entries shown, each read in full (from the save, where the review found it)."""
    return [screen.loaded.entry(i) for i in screen.shown_rows]


def status(screen: ReviewScreen) -> str:
    return str(screen.query_one("#review-status", Static).content)


def detail(screen: ReviewScreen) -> str:
    return str(screen.query_one("#review-detail", Static).content)


async def test_filters_jump_and_detail_on_a_1000_entry_campaign(folder: Path) -> None:
    path, written = campaign(folder, 1000)
    app = review_app(folder, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert len(screen.shown_rows) == 1000 and status(screen) == "1000 entries"
        # The cursor starts on the last entry, and the detail pane shows it.
        assert screen.highlighted_seq() == 1000
        assert "Entry 1000 · turn 10" in detail(screen)

        screen.set_filter_text("turn:3 player:bob")
        await pilot.pause()
        expected = [e["seq"] for e in written if e["turn"] == 3 and e["who"] == "bob"]
        assert [e["seq"] for e in shown(screen)] == expected and expected
        assert status(screen) == f"{len(expected)} of 1000 entries"

        screen.set_filter_text("ruleset:pod-basic turn:2-4")
        await pilot.pause()
        expected = [
            e["seq"] for e in written if e.get("ruleset") == "pod-basic" and 2 <= e["turn"] <= 4
        ]
        assert [e["seq"] for e in shown(screen)] == expected and expected

        # Free text matches any cell, the result in words and the notes.
        screen.set_filter_text("twice")
        await pilot.pause()
        assert [e["seq"] for e in shown(screen)] == [3, 1000]

        # A filter that cannot be read says why, and leaves the rows as they were.
        screen.set_filter_text("turn:x")
        await pilot.pause()
        assert status(screen).startswith("turn 'x' is not a turn")
        assert [e["seq"] for e in shown(screen)] == [3, 1000]

        # Keys: `t` keeps only the highlighted entry's turn, `t` again shows every turn.
        screen.set_filter_text("")
        await pilot.pause()
        screen.table.move_cursor(250)
        await pilot.pause()
        turn = shown(screen)[250]["turn"]
        await pilot.press("t")
        await pilot.pause()
        assert {e["turn"] for e in shown(screen)} == {turn}
        assert screen.query_one("#review-filter", Input).value == f"turn:{turn}"
        assert screen.highlighted_seq() == 251  # the cursor stays on its entry
        await pilot.press("t")
        await pilot.pause()
        assert len(screen.shown_rows) == 1000

        # `/` then typing goes to the filter bar at once.
        await pilot.press("slash", "p", "l", "a", "y", "e", "r", ":", "c", "y", "enter")
        await pilot.pause()
        assert {e["who"] for e in shown(screen)} == {"cy"}
        screen.set_filter_text("")
        await pilot.pause()

        # Jump to a turn: `g` asks for it; the cursor lands on its first entry.
        await pilot.press("g")
        await pilot.pause()
        await pilot.press("7", "enter")
        await pilot.pause()
        first = next(e for e in written if e["turn"] == 7)
        assert screen.highlighted_seq() == first["seq"]
        assert f"Entry {first['seq']} · turn 7" in detail(screen)
        assert not screen.jump_to_turn(99)

        # The detail pane: inputs, modifiers, dice, trace, effects, notes.
        screen.set_filter_text("")
        screen.table.move_cursor(2)
        await pilot.pause()
        text = detail(screen)
        third = written[2]
        assert f"Attack {third['attack_total']} " in text
        assert f"Dice: 1d6 {third['dice'][0]['total']} (by hand)" in text
        assert "Trace:\n  1. " + third["trace"][0] in text
        assert "Modifiers: " in text and "Modifiers: roll" not in text  # the dice: their line
        assert "Note (entry 1000, bob, 2026-11-20 18:00): the dice were rolled twice" in text
        # The entry a card amended shows the outcome after it; the card names what it amends.
        screen.table.move_cursor(4)
        await pilot.pause()
        assert "After the card (entry 6): " in detail(screen)
        amended, card = screen.loaded.rows[4].cells_by_key(), screen.loaded.entry(5)
        assert amended["result"].startswith(
            f"{cell_text(card['cell'])} after the card (entry 6); rolled "
        )
        screen.table.move_cursor(5)
        await pilot.pause()
        assert "Amends entry 5: " in detail(screen)
        # The markers an entry placed, and the markers in play with their notes.
        screen.table.move_cursor(6)
        await pilot.pause()
        assert "Markers placed: DG 7.1 on 0712 (Axis): cut off" in detail(screen)
        markers = str(screen.query_one("#review-markers", Static).content)
        assert markers == "Markers in play: DG 7.1 on 0712 (Axis): cut off"


async def test_a_note_from_the_desk_is_read_back_by_crtdesk_log(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, written = campaign(folder, 40)
    app = review_app(folder, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        screen.table.move_cursor(9)
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, NoteScreen)
        for key in "held the ford":
            await pilot.press("space" if key == " " else key)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen
        assert screen.loaded.entry(len(screen.loaded.rows) - 1)["kind"] == "note"
        assert "Note (entry 41, tester, " in detail(screen)
        assert detail(screen).endswith("): held the ford")
        # The open game has the note too, as if it had been read again.
        assert app.game.entries[-1]["seq"] == 41 and app.game.entries[-1]["annotates"] == 10
    on_file = saves.load_game(path).entries
    assert on_file[:40] == written  # the entry annotated, and every other, as written
    assert on_file[-1]["kind"] == "note" and on_file[-1]["text"] == "held the ford"
    assert main(["log", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1].split()[:2] == ["41", str(on_file[-1]["turn"])]
    assert "On entry 10: held the ford" in out.splitlines()[-1]


async def test_a_10000_entry_save_shows_its_last_entries_before_it_is_read(
    folder: Path,
) -> None:
    path, _ = campaign(folder, 10_000)
    app = start_desk(folder)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        import threading

        reads: list[str] = []
        real = saves.kept_fold  # the whole log's records, worked out or kept
        # The read waits until the screen has been checked: shown, and not yet loaded.
        checked = threading.Event()

        def read(*args: Any, **kwargs: Any) -> tuple[Any, saves.Game]:
            reads.append(threading.current_thread().name)
            checked.wait(timeout=30)
            return real(*args, **kwargs)

        saves.kept_fold = read  # type: ignore[assignment]
        try:
            app.push_screen(ReviewScreen(path))
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ReviewScreen)
            assert screen.loaded is None or screen.loaded.partial
            # The whole log's read is held: its last entries show first, read from the end.
            for _ in range(200):
                if screen.loaded is not None:
                    break
                await pilot.pause(0.02)
            assert screen.loaded is not None and screen.loaded.partial
            tail = len(screen.shown_rows)
            assert 0 < tail < 10_000 and screen.highlighted_seq() == 10_000
            assert status(screen) == f"the last {tail} entries"
            tail_cells = [row.cells for row in screen.loaded.rows]
            await pilot.press("up")  # interactive already: the cursor moves
            assert screen.highlighted_seq() == 9_999
            checked.set()
            await settle(pilot)
        finally:
            saves.kept_fold = real  # type: ignore[assignment]
        assert reads and reads[0] != "MainThread"
        assert screen.loaded is not None and not screen.loaded.partial
        assert len(screen.shown_rows) == 10_000 and screen.highlighted_seq() == 9_999
        # The tail's rows are the ones the whole log gives those entries.
        assert [row.cells for row in screen.loaded.rows[-tail:]] == tail_cells
        assert status(screen) == "10000 entries"
        await pilot.press("down")
        assert screen.highlighted_seq() == 10_000
        await pilot.press("pageup", "up")
        assert screen.table.cursor < 9_999


def test_filter_text_is_read_or_refused_in_one_line() -> None:
    assert parse_filter('turn:2-4 r:Rivets p:"Ann B" dice odd')[0].turns == (2, 4)
    wanted, problem = parse_filter('turn:2-4 r:Rivets p:"Ann B" dice odd')
    assert problem is None and wanted.ruleset == "rivets" and wanted.player == "ann b"
    assert wanted.words == ("dice", "odd")
    assert parse_filter("ruleset:chess")[1].startswith("ruleset 'chess' is not one; expected")
    assert parse_filter("defender's retreat") == (Filter(words=("defender's", "retreat")), None)
    assert parse_filter("player:")[1] == "player: needs a name, e.g. player:ann"


def test_columns_fit_the_terminal() -> None:
    for width in (80, 100, 120, 160):
        columns = shown_columns(width)
        used = sum(size + 1 for _, _, size in columns) + 1 + 2
        assert used <= width, width
    narrow = [key for key, _, _ in shown_columns(80)]
    assert narrow == ["seq", "turn", "who", "ruleset", "odds", "dice", "result", "note"]
    wide = [key for key, _, _ in shown_columns(120)]
    assert {"when", "sides", "column"} <= set(wide)


def test_crtdesk_review_needs_a_save(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["review"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("crtdesk review: ") and "required: file" in err and err.count("\n") == 1
    assert main(["review", "missing", "--saves", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no save file" in err and "missing.toml" in err and err.count("\n") == 1


async def test_f12_notes_the_last_roll_from_a_combat_screen(tmp_path: Path) -> None:
    from tests.conftest import make_app, notes

    folder = tmp_path / "saves"
    app = make_app(folder, rulesets=["rivets"])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f12")
        await pilot.pause()
        assert not isinstance(app.screen, NoteScreen)
        assert "No roll logged yet" in notes(app)[-1]
        await pilot.press("8", "tab", "4", "ctrl+t")
        await pilot.pause()
        await pilot.press("3", "enter")
        await settle(pilot)
        await pilot.press("f12")
        await pilot.pause()
        assert isinstance(app.screen, NoteScreen)
        await pilot.press("o", "k", "enter")
        await settle(pilot)
        assert notes(app)[-1] == "Note on entry 1 logged as entry 2."
        on_file = saves.load_game(folder / "game.toml").entries
        assert [e["kind"] for e in on_file] == ["combat", "note"]
        assert on_file[1]["annotates"] == 1 and on_file[1]["text"] == "ok"
        assert app.game.entries == on_file


def test_a_filter_key_keeps_the_other_parts_typed() -> None:
    from tui.reports.review_data import _quoted

    typed = " ".join(_quoted(t) for t in ["player:ann b", "turn:2", "dice odd"])
    wanted, problem = parse_filter(typed)
    assert problem is None
    assert (wanted.player, wanted.turns, wanted.words) == ("ann b", (2, 2), ("dice odd",))


async def test_a_save_that_cannot_be_read_is_named_with_its_line(folder: Path) -> None:
    path, _ = campaign(folder, 12)
    path.write_text(path.read_text().replace('title = "Long campaign"', 'title = "Long'))
    app = start_desk(folder)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = await show_review(pilot, path)
        assert status(screen) == "Not read" and screen.loaded is None
        assert detail(screen).startswith(f"{path}: line ") and "not valid TOML" in detail(screen)
        await pilot.press("n", "t", "g")  # nothing to act on: no crash, no dialog
        await pilot.pause()
        assert app.screen is screen


async def test_l_on_the_start_screen_reviews_the_highlighted_game(folder: Path) -> None:
    campaign(folder, 30)
    app = start_desk(folder)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("l")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.title == "Log: Long campaign"
        assert screen.table.row_count == 30 and screen.highlighted_seq() == 30
        assert screen.table.row_text(0).split()[:4] == ["1", "1", "bob", "Basic"]
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is not screen and app.game is None


async def test_luck_and_the_report_from_the_review(folder: Path) -> None:
    from tui.engine import CombatInput, Unit, resolve
    from tui.reports.luck import luck_report, luck_text
    from tui.reports.report import report_markdown

    path = folder / "g.toml"
    saves.new_game(path, "Luck", ["rivets"], {})
    combat = CombatInput("rivets", attackers=(Unit(4),), defenders=(Unit(4),))
    rng = random.Random(11)
    for who in ("ann", "bob", "ann"):
        saves.append_combat(path, combat, resolve(combat, rng=rng), who=who)
    app = review_app(folder, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await pilot.press("u")
        await settle(pilot)
        shown_text = str(screen.query_one("#review-luck", Static).content)
        entries = saves.load_game(path).entries
        assert shown_text == luck_text(luck_report(entries), SIZE[0] - 4)
        assert "ann" in shown_text and "bob" in shown_text
        assert not screen.query_one("#review-detail-pane").display
        await pilot.press("u")
        await pilot.pause()
        assert screen.query_one("#review-detail-pane").display
        await pilot.press("w")
        await settle(pilot)
        written = folder / "g-report.md"
        assert written.read_text(encoding="utf-8") == report_markdown(saves.load_game(path))


def test_the_tail_read_from_the_end_is_the_whole_logs_last_entries(folder: Path) -> None:
    from tui.reports.review_rows import read_for_review, read_tail

    path, _ = campaign(folder, 1_000)
    tail = read_tail(path, 50)
    whole, _ = read_for_review(path)
    assert tail is not None and tail.partial and not whole.partial
    tail_entries = [tail.entry(i) for i in range(len(tail.rows))]
    assert [e["seq"] for e in tail_entries] == list(range(951, 1_001))
    assert tail_entries == [whole.entry(i) for i in range(950, 1_000)]
    assert [(r.cells, r.search) for r in tail.rows] == [
        (r.cells, r.search) for r in whole.rows[-50:]
    ]
    # A small save is read whole at once: no tail first.
    (folder / "small").mkdir()
    small, _ = campaign(folder / "small", 20)
    assert read_tail(small) is None


async def test_an_entry_no_longer_where_it_was_read_reads_the_log_again(folder: Path) -> None:
    path, _ = campaign(folder, 30)
    app = start_desk(folder)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = await show_review(pilot, path)
        assert isinstance(screen, ReviewScreen) and screen.loaded is not None
        # Edited by hand while it is shown: every entry after the first moves in the file.
        path.write_bytes(path.read_bytes().replace(b'"who" = "bob"', b'"who" = "bobby"'))
        screen.table.move_cursor(20)
        await settle(pilot)
        # Read again (nothing else reads this save here): the rows are the file's now, and
        # the cursor stays on its entry.
        assert screen.table.row_text(0).split()[:3] == ["1", "1", "bobby"]
        assert screen.highlighted_seq() == 21
        assert "Entry 21 · turn 7" in detail(screen)


async def test_crtdesk_review_shows_the_review_first_and_reads_the_game_behind_it(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    path, _ = campaign(folder, 30)
    from tui.game import session as session_module

    gate = threading.Event()
    read_game = session_module.read_game

    def held_load(target: Path) -> saves.Game:
        gate.wait(10)
        return read_game(target)

    monkeypatch.setattr(session_module, "read_game", held_load)
    app = review_app(folder, path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and app.screen_stack == [screen]
        assert app.game is None  # the review reads the log itself, at once
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and "Still reading the game" in " ".join(notes(app))
        gate.set()
        await settle(pilot)
        assert app.game is not None and app.game.path == path
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.ruleset == app.game.rulesets[0]  # the game's first ruleset screen


async def test_crtdesk_review_of_a_broken_save_names_it_and_esc_reaches_the_saves(
    folder: Path,
) -> None:
    path, _ = campaign(folder, 12)
    path.write_text(path.read_text().replace('title = "Long campaign"', 'title = "Long'))
    app = review_app(folder, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and status(screen) == "Not read"
        assert any("not valid TOML" in note for note in notes(app))
        await pilot.press("escape")
        await settle(pilot)
        assert type(app.screen).__name__ == "StartScreen"


def test_modifiers_leave_out_the_dice_and_ticks_that_are_off() -> None:
    from tui.reports.review_data import modifier_words

    inputs = {
        "roll": 3,
        "hold": False,
        "overrun": True,
        "hedgehog": 2,
        "note": None,
        "rerolls": [1],
    }
    assert modifier_words(inputs) == ["overrun", "hedgehog 2"]


async def test_a_seeded_roll_shows_as_seeded_in_the_review(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A roll from `crtdesk resolve --seed 3`, then the desk's own: the review tells them apart.
    basic = ["resolve", "pod-basic", "--attack", "8", "--defense", "2", "--save", "g"]
    assert main(["new", "g", "--title", "G", "--ruleset", "pod-basic", "--saves", str(folder)]) == 0
    assert main([*basic, "--seed", "3", "--saves", str(folder)]) == 0
    assert main([*basic, "--saves", str(folder)]) == 0
    capsys.readouterr()
    path = folder / "g.toml"
    seeded, desk = (e["dice"][0]["total"] for e in saves.load_game(path).entries)
    app = review_app(folder, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        dice = [row.cells_by_key()["dice"] for row in screen.loaded.rows]
        assert dice == [f"{seeded}s", str(desk)]
        await pilot.press("up")  # the seeded roll's entry in full
        await settle(pilot)
        assert f"Dice: 1d6 {seeded} (seed 3)" in detail(screen)
        await pilot.press("down")
        await settle(pilot)
        assert f"Dice: 1d6 {desk} (desk)" in detail(screen)


async def test_the_review_shows_its_sessions_game_and_keeps_none_of_its_own(folder: Path) -> None:
    """One game model: a review of a save not open holds the game its read replayed in a
    session of its own (a note goes through it, and is applied there, once); a review of
    the open game shows the open game's session."""
    from msgspec.structs import replace

    from tui.game.session import KEPT_ENTRIES

    path, _ = campaign(folder, 150)
    app = start_desk(folder)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = await show_review(pilot, path)
        assert isinstance(screen, ReviewScreen) and app.session is None
        assert not hasattr(screen.loaded, "game")  # the rows hold no game
        game = screen.session.game
        on_file = saves.load_game(path)
        assert game == replace(on_file, entries=on_file.entries[-KEPT_ENTRIES:])
        assert screen.sub_title == f"Turn {on_file.turn} · 150 entries"
        screen.append_note(12, "seen from the review")
        await settle(pilot)
        assert screen.session.game is game and game.entries[-1]["text"] == "seen from the review"
        on_file = saves.load_game(path)
        assert game == replace(on_file, entries=on_file.entries[-KEPT_ENTRIES:])
        assert len(screen.loaded.rows) == 151 and screen.highlighted_seq() == 151
        await pilot.press("escape")
        await settle(pilot)
        assert app.session is None
        # The open game's review shows the open game's session.
        await pilot.press("enter")
        await settle(pilot)
        assert app.session is not None and app.session.loaded
        await pilot.press("ctrl+l")
        await settle(pilot)
        review = app.screen
        assert isinstance(review, ReviewScreen) and review.session is app.session
        assert review.sub_title == f"Turn {app.game.turn} · 151 entries"
