"""One entry is bounded when it is appended: a 50 MB note is refused with the limit, at the
CLI and in the desk's note dialog, and the save is left as it was, so that no command's
memory grows with one entry."""

from __future__ import annotations

import random
import tracemalloc
from pathlib import Path

import pytest
from textual.widgets import Input

from tests.conftest import notes, settle
from tests.review_save import campaign
from tui import saves
from tui.cli import main
from tui.desk.app import CrtDeskApp
from tui.desk.screens.dialogs import NoteScreen
from tui.saves.encoding import MAX_ENTRY

BIG = 50 * 1024 * 1024


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "saves"
    path.mkdir()
    return path


def test_a_50_mb_note_is_refused_at_the_cli_with_the_limit(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = campaign(folder, 10)
    before = path.read_bytes()
    note = "x" * BIG
    tracemalloc.start()
    try:
        code = main(["note", str(path), "3", note])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "note" in line and f"{BIG:,} bytes" in line and f"{MAX_ENTRY:,}" in line, line
    assert path.read_bytes() == before
    assert peak < 4 * 1024 * 1024  # refused before it is copied, encoded or written


def test_a_note_at_the_limit_is_kept_and_one_past_it_refused(folder: Path) -> None:
    path, _ = campaign(folder, 10)
    saves.append_note(path, 3, "y" * 1000)
    with pytest.raises(saves.SaveError, match=f"at most {MAX_ENTRY:,} bytes"):
        saves.append_note(path, 3, "y" * (MAX_ENTRY + 1))
    assert saves.load_game(path).entries[-1]["text"] == "y" * 1000


def test_an_entry_over_the_limit_is_never_written(folder: Path) -> None:
    """Whatever field makes it large: a note just under the limit, in an entry whose other
    fields take it past the limit, is refused with the entry's size and the limit."""
    path, _ = campaign(folder, 10)
    before = path.read_bytes()
    with pytest.raises(saves.SaveError, match=f"the entry is .* bytes; .*at most {MAX_ENTRY:,}"):
        saves.append_note(path, 3, '"' * (MAX_ENTRY // 2 + 10))  # each quote escaped: 2 bytes
    assert path.read_bytes() == before


async def test_a_note_past_the_limit_in_the_desk_dialog_is_refused_with_the_limit(
    folder: Path,
) -> None:
    path, _ = campaign(folder, 10)
    before = path.read_bytes()
    app = CrtDeskApp(
        saves_dir=folder, game_path=path, rng=random.Random(1), player="tester", review=True
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        screen.table.move_cursor(2)
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, NoteScreen)
        app.screen.query_one("#note-text", Input).value = "z" * (MAX_ENTRY + 1)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen
        said = notes(app)
        assert any(
            m.startswith("Not saved:") and f"at most {MAX_ENTRY:,} bytes" in m for m in said
        ), said
    assert path.read_bytes() == before
