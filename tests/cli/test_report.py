"""The after-action report (Markdown) and the `luck` and `report` commands: content, escaping
of free text as a Markdown viewer renders it, and bad input (one line, exit 2)."""

from __future__ import annotations

import json
import random
import re
import tempfile
from html import escape
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from tests.generated_saves import logs, write_save
from tests.review_save import campaign as long_campaign
from tui import saves
from tui.cli import main
from tui.engine import CombatInput, Unit, resolve
from tui.game.player import PLAYER_ENV
from tui.reports.report import md_code, md_text, report_markdown, save_report_markdown

RIVETS_1_1 = CombatInput("rivets", (Unit(3),), (Unit(2),))  # odds 1-1: AX AR NE NE DR DX
NASTY = "**bold** _it_ [link](http://x) <b>html</b> | pipe `code` # not a heading"


class Scripted(random.Random):
    def __init__(self, faces: list[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(saves.SAVES_ENV, raising=False)
    monkeypatch.delenv(PLAYER_ENV, raising=False)
    return tmp_path / "saves"


@pytest.fixture
def campaign(folder: Path) -> Path:
    """Turn 1: alice rolls a 6 at Rivets 1-1 (DX), bob places a DG with a nasty note and
    rolls a 1 (AX); turn 2: a No-entry placed by hand is lifted; turn 3: the DG (1 turn,
    so through turn 2) expires."""
    folder.mkdir()
    path = folder / "camp.toml"
    saves.new_game(path, "Operation *Bold* [1944]", ["rivets"], who="alice")
    saves.append_combat(
        path, RIVETS_1_1, resolve(RIVETS_1_1, rng=Scripted([6])), target="0712", who="alice"
    )
    saves.add_marker(path, "DG", "0713", "Axis", 1, NASTY, who="bob")
    saves.append_combat(path, RIVETS_1_1, resolve(RIVETS_1_1, rng=Scripted([1])), who="bob")
    saves.advance_turn(path, who="alice")
    placed = saves.add_marker(path, "no-entry", "0810", who="bob")
    saves.remove_marker(path, placed["marker"]["id"], who="alice")
    saves.advance_turn(path, who="bob")
    return path


def with_note(game: saves.Game, annotates: int, text: str) -> saves.Game:
    """A note entry as the notes feature appends it (kind "note", annotates, text)."""
    last = game.entries[-1]
    note = {
        "seq": last["seq"] + 1,
        "kind": "note",
        "turn": last["turn"],
        "when": last["when"],
        "who": "bob",
        "annotates": annotates,
        "text": text,
    }
    game.entries.append(note)
    return game


def rendered(markdown: str) -> str:
    return MarkdownIt("commonmark").enable("table").render(markdown)


def test_the_report_tells_the_game_turn_by_turn(campaign: Path) -> None:
    text = report_markdown(saves.load_game(campaign))
    assert text.startswith("# After-action report: Operation \\*Bold\\* \\[1944\\]\n")
    assert "- **Turn now:** 3" in text and "- **Players:** alice, bob" in text
    turn1, later = text.split("## Turn 1")[1].split("## Turn 2")
    turn2, turn3 = later.split("## Turn 3")
    # Each combat in words: who, odds, dice, result; the percentile is the hand computation
    # for Rivets 1-1: a 6 (DX) has 5/6 worse and 1/6 the same, a 1 (AX) none worse.
    first = next(line for line in turn1.splitlines() if line.startswith("**Combat #1**"))
    assert "by alice" in first and "odds `1-1`" in first and "`1d6 6 (desk)`" in first
    assert "Result `DX`" in first and "Defender is eliminated" in first and "Target 0712" in first
    assert f"percentile {5 / 6 + 1 / 12:.2f}" in first
    third = next(line for line in turn1.splitlines() if line.startswith("**Combat #3**"))
    assert "by bob" in third and "Result `AX`" in third and f"percentile {1 / 12:.2f}" in third
    assert "Placed DG 2.1 on 0713" in turn1
    assert "Turn 2 begins" in turn2 and "Counted down: 2.1" in turn2
    assert "Removed no-entry 5.1" in turn2
    assert "Turn 3 begins" in turn3 and "Expired: 2.1" in turn3
    markers = text.split("## Markers placed and lifted")[1].split("## Luck")[0]
    assert "| turn 1 (#2) | expired in turn 3 (#7) |" in markers
    assert "no-entry 5.1 on 0810 | turn 2 (#5) | lifted in turn 2 (#6) |" in markers
    luck = text.split("## Luck")[1]
    assert "| alice | all | 1 | " in luck and "| bob | `rivets` | 1 | " in luck
    assert "Player alice" in luck and "```text" in luck


def test_notes_show_under_the_entry_they_annotate(campaign: Path) -> None:
    game = with_note(saves.load_game(campaign), 1, "Lucky! " + NASTY)
    text = report_markdown(game)
    turn1 = text.split("## Turn 1")[1].split("## Turn 2")[0]
    combat, rest = turn1.split("**Combat #1**")[1].split("\n\n", 1)
    assert rest.startswith("> **Note** #8 by bob")
    assert "<p><strong>Note</strong> #8 by bob" in rendered(rest.splitlines()[0])
    assert "Lucky! **bold**" in rendered(rest.splitlines()[0])
    # Not listed again where it was appended.
    assert "Note #7" not in text.split("## Turn 2")[1]


def test_free_text_renders_as_typed(campaign: Path) -> None:
    game = with_note(saves.load_game(campaign), 1, NASTY)
    html = rendered(report_markdown(game))
    for tag in ("<strong>bold", "<em>it", "<a href", "<b>html", "<code>code", "<h1>not"):
        assert tag not in html, tag
    assert escape(NASTY, quote=False) in html  # the note and the marker's note, as typed
    assert "<h1>After-action report: Operation *Bold* [1944]</h1>" in html
    # The markers table stays one row per marker: the pipe in the note did not split it.
    table = html.split("<h2>Markers placed and lifted</h2>")[1].split("</table>")[0]
    row = next(r for r in table.split("<tr>") if "DG 2.1" in r)
    assert row.count("<td>") == 3


@pytest.mark.parametrize(
    ("typed", "shown"),
    [
        ("- not a list", "<p>- not a list</p>"),
        ("1. not a list", "<p>1. not a list</p>"),
        ("> not a quote", "<p>&gt; not a quote</p>"),
        ("# no heading", "<p># no heading</p>"),
        ("a \\ back*slash*", "<p>a \\ back*slash*</p>"),
        ("line\nbreak", "<p>line\\nbreak</p>"),
    ],
)
def test_md_text_shows_what_was_typed(typed: str, shown: str) -> None:
    assert rendered(md_text(typed)).strip() == shown


def test_md_code_holds_backticks() -> None:
    assert rendered(md_code("a `b` c")).strip() == "<p><code>a `b` c</code></p>"


# --- the commands ------------------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_crtdesk_luck_prints_charts_and_json(campaign: Path, capsys) -> None:
    code, out, err = run(capsys, "luck", "camp")
    assert (code, err) == (0, "")
    assert "Player alice" in out and "Player bob" in out and "█" in out
    code, out, _ = run(capsys, "luck", "saves/camp.toml", "--json")
    data = json.loads(out)
    assert code == 0
    percentiles = {c["seq"]: c["percentile"] for c in data["combats"]}
    assert percentiles == pytest.approx({1: 5 / 6 + 1 / 12, 3: 1 / 12})
    groups = {(g["player"], g["ruleset"]): g for g in data["groups"]}
    assert groups[("alice", None)]["desk_dice"][0]["counts"]["6"] == 1


def test_crtdesk_report_writes_markdown(campaign: Path, capsys, folder: Path) -> None:
    code, out, _ = run(capsys, "report", "camp", "--markdown")
    assert code == 0 and out.startswith("# After-action report")
    code, out, _ = run(capsys, "report", "camp", "--markdown", "-o", "aar.md")
    assert code == 0 and "aar.md" in out
    assert (folder.parent / "aar.md").read_text(encoding="utf-8") == report_markdown(
        saves.load_game(campaign)
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("luck", "nope"), r"no save file"),
        (("luck", "camp", "--width", "ten"), r"--width: 'ten' is not allowed; expected a whole"),
        (("luck", "camp", "--width", "12"), r"--width: '12' is not allowed; expected .* >= 30"),
        (("report", "camp"), r"the following arguments are required: --markdown"),
        (("report", "camp", "--markdown", "-o", "saves/camp.toml"), r"other than the save itself"),
        (("report", "camp", "--markdown", "-o", "no/such/dir/x.md"), r"--output: .* written"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(campaign: Path, capsys, argv, message) -> None:
    before = campaign.read_bytes()
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and re.search(message, err), err
    assert campaign.read_bytes() == before


def test_an_amended_combat_is_told_once_with_its_amendment(campaign: Path) -> None:
    game = saves.load_game(campaign)
    first = game.entries[0]
    amending = dict(first, seq=7, turn=2, amends=1, note="Joker after the roll")
    game.entries.append(amending)
    text = report_markdown(game)
    lines = text.splitlines()
    original = next(line for line in lines if line.startswith("**Combat #1**"))
    again = next(line for line in lines if line.startswith("**Combat #7**"))
    assert original.endswith("Amended by #7.")
    assert "(amends combat #1)" in again and "Note: Joker after the roll." in again
    assert "Luck:" in original and "Luck:" not in again  # judged once, as rolled


@settings(max_examples=20, deadline=None)
@given(log=logs(), torn=st.just(0) | st.integers(1, 200))
def test_the_report_of_a_save_read_entry_by_entry_is_the_loaded_games(
    log: list[tuple[dict[str, Any], str]], torn: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.toml"
        write_save(path, log, torn)
        assert save_report_markdown(path) == report_markdown(saves.load_game(path))


def test_the_report_of_a_save_that_cannot_be_read_is_refused_as_a_load(tmp_path: Path) -> None:
    path, _ = long_campaign(tmp_path, 20)
    path.write_bytes(path.read_bytes().replace(b'title = "Long campaign"', b'title = "Long'))
    with pytest.raises(saves.SaveError) as refused:
        save_report_markdown(path)
    with pytest.raises(saves.SaveError) as loaded:
        saves.load_game(path)
    assert str(refused.value) == str(loaded.value) and "not valid TOML" in str(refused.value)


@pytest.mark.parametrize(
    ("command", "module", "reader"),
    [
        ("report", "tui.reports.report", "read_report"),
        ("luck", "tui.reports.luck.reading", "read_luck"),
    ],
)
def test_a_whole_log_reader_holds_its_records_with_the_collector_off_and_turns_it_back_on(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: str,
    module: str,
    reader: str,
) -> None:
    """`crtdesk report` and `crtdesk luck` hold many records and no cycles: the cyclic
    collector stays off while they are held (let in then, its first collection walked them
    all), and is on again once the command ends."""
    import gc
    import importlib

    path, _ = long_campaign(tmp_path, 120)
    where = importlib.import_module(module)
    real = getattr(where, reader)
    on_while_held: list[bool] = []

    def watched(*args: Any, **kwargs: Any) -> Any:
        found = real(*args, **kwargs)
        on_while_held.append(gc.isenabled())
        return found

    monkeypatch.setattr(where, reader, watched)
    assert gc.isenabled()
    shown = ["--markdown"] if command == "report" else []
    assert main([command, path.stem, *shown, "--saves", str(path.parent)]) == 0
    assert capsys.readouterr().out
    assert on_while_held == [False]
    assert gc.isenabled()
