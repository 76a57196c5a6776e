"""The report's losses: each side's losses by unit and by turn, what its units have left,
and the losses still open, through the real commands over a game's turns (units imported,
combats whose losses were applied or left open, a loss taken, a correction, a unit removed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from tui import saves
from tui.cli import main
from tui.engine import CombatInput, Unit, resolve
from tui.reports.losses import losses_of
from tui.reports.report import report_markdown
from tui.reports.review_data import losses_review_text
from tui.saves.appending import _append

OOB = """\
[[unit]]
name = "1/A [DR]"
side = "Blue"
factor = 4
steps = 2
hex = "0101"

[[unit]]
name = "2/B *x*"
side = "Red"
factor = 3
steps = 2

[[unit]]
name = "3/C"
side = "Red"
factor = 5
steps = 3
"""


def log_combat(path: Path, losses: list[dict[str, Any]], open_losses: list[dict[str, Any]]) -> int:
    """A Day/Night combat logged with the losses its result applied and those it left for
    the owner (the shape the combat entry keeps them in); its entry number."""
    combat = CombatInput("daynight", attackers=(Unit(9),), defenders=(Unit(3),), roll=4)
    record = resolve(combat).to_dict()

    def make(header: dict[str, Any], last: dict[str, Any] | None, game: Any) -> dict[str, Any]:
        keep = ("inputs", "dice", "attack_total", "defense_total", "odds", "odds_column")
        keep += ("column", "roll", "cell", "effects", "explanation", "trace")
        return {
            "kind": "combat",
            "ruleset": record["ruleset"],
            **{key: record[key] for key in keep},
            "losses": losses or None,
            "open_losses": open_losses or None,
        }

    return int(_append(path, make)["seq"])


def report(capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["report", "camp", "--markdown", "--saves", "."]) == 0
    out = capsys.readouterr().out
    return out[out.index("## Losses and what remains") : out.index("## Luck")]


def cells(page: str) -> list[list[str]]:
    """The table rows of a Markdown page as a viewer renders them: each cell's text."""
    rows: list[list[str]] = []
    in_cell = False
    for token in MarkdownIt().enable("table").parse(page):
        if token.type == "tr_open":
            rows.append([])
        elif token.type in ("th_open", "td_open"):
            in_cell = True
        elif token.type in ("th_close", "td_close"):
            in_cell = False
        elif token.type == "inline" and in_cell:
            rows[-1].append("".join(child.content for child in token.children or ()))
    return rows


def rendered(page: str) -> str:
    return MarkdownIt().enable("table").render(page)


def test_the_report_tells_losses_by_unit_and_turn_and_what_is_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new", "camp", "--title", "Night", "--ruleset", "daynight", "--saves", "."]) == 0
    path = tmp_path / "camp.toml"
    (tmp_path / "oob.toml").write_text(OOB, encoding="utf-8")
    assert main(["units", "camp", "--saves", ".", "import", "oob.toml"]) == 0
    capsys.readouterr()

    # Imported, nothing lost yet: every unit whole, no turn with losses, nothing open.
    page = report(capsys)
    html = rendered(page)
    assert "1/A [DR]" in html and "2/B *x*" in html  # a viewer shows the names as typed
    assert "<em>" not in html
    assert "Lost in all: nothing." in page
    assert "No unit has lost anything yet." in page
    assert "None: every loss a combat left to choose has been taken." in page

    # Turn 1: a combat applies a step to 1/A at once and leaves 2 steps for Red to choose.
    seq = log_combat(
        path,
        [{"unit": "1/A [DR]", "steps": 1}],
        [{"side": "defender", "what": "steps", "amount": 2, "units": ["2/B *x*", "3/C"]}],
    )
    page = report(capsys)
    table = cells(page)
    assert ["1/A [DR]", "0101", "1 step", "1 of 2 steps, factor 4 of 4"] in table
    assert ["1", "Blue", "1 step"] in table
    assert not any(row[:2] == ["1", "Red"] for row in table)
    assert (
        f"- Combat \\#{seq} (turn 1): 2 steps from the defender's units (2/B \\*x\\*, 3/C)" in page
    )

    # Turn 2: Red takes them (2/B loses both steps and is out), then a correction gives 1/A
    # its step back.
    assert main(["turn", "camp", "--saves", "."]) == 0
    assert main(["units", "camp", "--saves", ".", "take", "2/B *x*", "--steps", "2",
                 "--combat", str(seq)]) == 0  # fmt: skip
    assert main(["units", "camp", "--saves", ".", "take", "1/A [DR]", "--steps", "-1"]) == 0
    capsys.readouterr()
    page = report(capsys)
    table = cells(page)
    assert ["2/B *x*", "-", "2 steps", "eliminated"] in table
    assert ["3/C", "-", "nothing", "3 of 3 steps, factor 5 of 5"] in table
    assert ["1/A [DR]", "0101", "nothing", "2 of 2 steps, factor 4 of 4"] in table
    assert ["2", "Red", "2 steps"] in table
    assert ["2", "Blue", "1 step given back"] in table
    assert "Lost in all: 2 steps." in page and "1 of 2 units in play." in page
    assert "None: every loss a combat left to choose has been taken." in page

    # A unit taken off the roster keeps its losses in the side's total and is named so.
    assert main(["units", "camp", "--saves", ".", "remove", "2/B *x*"]) == 0
    capsys.readouterr()
    page = report(capsys)
    assert "Taken off the roster after losses: 2/B \\*x\\* (2 steps)." in page
    assert "Lost in all: 2 steps." in page and "1 of 1 unit in play." in page

    # The streamed report is the loaded game's, and the review's text says the same.
    assert main(["report", "camp", "--markdown", "--saves", "."]) == 0
    assert capsys.readouterr().out == report_markdown(saves.load_game(path))
    text = losses_review_text(losses_of(saves.load_game(path).entries))
    assert text.splitlines() == [
        "Blue: lost nothing · 1 of 1 unit in play",  # 1 step lost in turn 1, given back in 2
        "  1/A [DR] (0101): lost nothing; left 2 of 2 steps, factor 4 of 4",
        "Red: lost 2 steps · 1 of 1 unit in play",
        "  3/C: lost nothing; left 3 of 3 steps, factor 5 of 5",
        "  2/B *x*: lost 2 steps; taken off the roster",
        "By turn:",
        "  turn 1 · Blue: 1 step",
        "  turn 2 · Blue: 1 step given back",
        "  turn 2 · Red: 2 steps",
        "Losses still open: none",
    ]


def test_an_answer_to_one_side_leaves_the_others_open_and_a_game_without_units_says_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new", "camp", "--title", "Night", "--ruleset", "daynight", "--saves", "."]) == 0
    path = tmp_path / "camp.toml"
    assert main(["report", "camp", "--markdown", "--saves", "."]) == 0
    assert "## Losses" not in capsys.readouterr().out  # no units: no section
    (tmp_path / "oob.toml").write_text(OOB, encoding="utf-8")
    assert main(["units", "camp", "--saves", ".", "import", "oob.toml"]) == 0
    seq = log_combat(
        path,
        [],
        [
            {"side": "attacker", "what": "steps", "amount": 1, "units": ["1/A [DR]"]},
            {"side": "defender", "what": "steps", "amount": 2, "units": ["2/B *x*", "3/C"]},
        ],
    )
    assert main(["units", "camp", "--saves", ".", "take", "3/C", "--steps", "2",
                 "--combat", str(seq)]) == 0  # fmt: skip
    capsys.readouterr()
    page = report(capsys)
    assert f"- Combat \\#{seq} (turn 1): 1 step from the attacker's units (1/A \\[DR\\])" in page
    assert "defender's units" not in page
    assert main(["units", "camp", "--saves", ".", "take", "1/A [DR]", "--steps", "1",
                 "--combat", str(seq)]) == 0  # fmt: skip
    capsys.readouterr()
    assert "None: every loss a combat left to choose has been taken." in report(capsys)
