"""Text from a save is shown as text: escape codes, control characters and bidi overrides
in a title, a name, a note, a hex or a field edited by hand come out as visible escapes in
the CLI, the report and the desk, never as bytes a terminal obeys."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.conftest import settle
from tui import saves
from tui.cli import main
from tui.desk.app import CrtDeskApp
from tui.desk.screens.review import ReviewScreen
from tui.engine.combat import CombatInput, resolve
from tui.engine.text import one_line

TITLE = "Ops \x1b]0;OWNED\x07\x1b[41mRED \u202eevil"
RAW = ("\x1b", "\x07", "\u202e", "\u2066")


def raw_in(text: str) -> list[str]:
    return [c for c in RAW if c in text]


def test_one_line_shows_controls_bidi_and_lone_surrogates_as_escapes() -> None:
    assert one_line(TITLE) == "Ops \\x1b]0;OWNED\\x07\\x1b[41mRED \\u202eevil"
    assert one_line("a\u2066b\u200fc\ud800") == "a\\u2066b\\u200fc\\ud800"
    assert one_line("Caen é ☂") == "Caen é ☂"
    assert one_line(one_line(TITLE)) == one_line(TITLE)  # safe to apply twice


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A save whose title, names, hexes and hand-edited fields carry escape codes."""
    folder = tmp_path / "saves"
    folder.mkdir()
    path = folder / "m.toml"
    saves.new_game(path, TITLE, ["pod-boom"], who="al\x1b[35mice")
    combat = CombatInput("pod-boom", step="crt", caf=9, roll=2)
    outcome = resolve(combat, rng=random.Random(1))
    saves.append_combat(path, combat, outcome, target="07\x1b[31m12", note="n\x1b[1mote \u202e")
    saves.add_marker(path, "DG", "01\x1b[5m01", note="x\x1b[2Jy", who="b\u202eob")
    text = path.read_text(encoding="utf-8")
    # By hand: the cell, the dice and the combat's column, with the checksums taken off.
    text = text.replace('"cell" = ["4", "2"]', '"cell" = ["4\\u001b[31m", "2"]')
    text = text.replace('"dice" = "1d6"', '"dice" = "1d6\\u001b[32m"')
    text = text.replace('\n"column" = "8"', '\n"column" = "8\\u001b[34m"')
    text = text.replace('"kind" = "DG"', '"kind" = "D\\u001b[36mG"')
    for seq in (1, 2):
        at = text.index(f"# end of entry {seq} crc32 ")
        text = text[:at] + f"# end of entry {seq}" + text[at + len(f"# end of entry {seq}") + 15 :]
    path.write_text(text, encoding="utf-8")
    assert saves.load_game(path).entries[0]["cell"] == ["4\x1b[31m", "2"]
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ["log", "m"],
        ["log", "m", "--markers"],
        ["luck", "m"],
        ["report", "m", "--markdown"],
        ["log", "m", "--json"],
        ["log", "m", "--markers", "--json"],
    ],
)
def test_the_cli_shows_save_text_escaped(
    hostile: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, "--saves", str(hostile.parent)]) == 0
    out = capsys.readouterr().out
    assert raw_in(out) == []
    if argv[-1] == "--json":
        import json

        data = json.loads(out)  # the same data, the escapes JSON's own
        if argv[2] == "--json":
            assert data["title"] == TITLE
        return
    if argv[-1] != "--markers" and argv[0] != "luck":
        assert "x1b" in out and "0;OWNED" in out
    if argv == ["log", "m"]:
        assert "4\\x1b[31m" in out and "1d6\\x1b[32m" in out and "8\\x1b[34m" in out


async def test_the_desk_shows_save_text_escaped(hostile: Path) -> None:
    app = CrtDeskApp(saves_dir=hostile.parent, rng=random.Random(1), player="tester")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        start = app.export_screenshot()
        await pilot.press("l")  # the review of the highlighted save
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        review = app.screen
        title = str(review.query_one("TitleBar").render())
        shown = [app.export_screenshot()]
        for _ in range(2):
            await pilot.press("up")
            await settle(pilot)
            shown.append(app.export_screenshot())
    for screen in [start, *shown]:
        assert raw_in(screen) == []
    assert "\\x1b]0;OWNED" in title and raw_in(title) == []


async def test_the_combat_screen_title_shows_the_save_title_escaped(hostile: Path) -> None:
    app = CrtDeskApp(
        saves_dir=hostile.parent, game_path=hostile, rng=random.Random(1), player="tester"
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        title = str(app.screen.query_one("TitleBar").render())
        screen = app.export_screenshot()
    assert "\\x1b]0;OWNED" in title
    assert raw_in(title) == [] and raw_in(screen) == []
