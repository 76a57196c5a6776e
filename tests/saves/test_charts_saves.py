"""A save that plays a player's chart keeps a copy of it: the log, luck and the report read
it with the chart's file gone; a chart file changed after the game began is named."""

from __future__ import annotations

import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from tui import saves
from tui.cli import main
from tui.engine import registry
from tui.engine.combat import CombatInput, Unit, resolve
from tui.engine.rulesets.charts.reading import load_chart
from tui.reports.luck import luck_report

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"


@pytest.fixture
def shelf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A games folder with Hill 203 beside the saves folder, both in tmp_path."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CRTDESK_GAMES", raising=False)
    monkeypatch.delenv(saves.SAVES_ENV, raising=False)
    (tmp_path / "games").mkdir()
    shutil.copy(DOCS / "hill-203.toml", tmp_path / "games")
    return tmp_path / "games"


def test_a_save_keeps_the_chart_and_reads_without_its_file(shelf: Path) -> None:
    chart = load_chart(shelf / "hill-203.toml")
    registry.chart_ruleset(chart)
    path = shelf.parent / "raid.toml"
    saves.new_game(
        path, "Raid", ["game:hill-203"], charts={registry.chart_id(chart.name): chart.text}
    )
    combat = CombatInput(
        "game:hill-203", (Unit(6),), (Unit(2),), roll=5, modifiers=(("artillery", "attacker"),)
    )
    saves.append_combat(path, combat, resolve(combat))
    (shelf / "hill-203.toml").unlink()
    registry.chart_ruleset(
        load_chart(DOCS / "border-skirmish.toml")
    )  # another chart registered meanwhile
    game = saves.load_game(path)
    assert game.rulesets == ["game:hill-203"]
    [entry] = game.entries
    assert (entry["ruleset"], entry["cell"], entry["column"]) == ("game:hill-203", "DE", "4-1")
    assert entry["inputs"]["modifiers"] == {"artillery": "attacker"}
    report = luck_report(game.entries)
    assert [c.seq for c in report.combats] == [1]
    # 3-1 shifted to 4-1, a 5: DE, as on a 4 or a 6; DR2 on 1 to 3 is worse for the
    # attacker ([results] lists DR# before DE): p(worse) 1/2, p(same) 1/2.
    assert report.combats[0].percentile == Fraction(3, 4)


def test_a_save_without_its_chart_copy_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    with pytest.raises(saves.SaveError, match="needs its copy"):
        saves.new_game(path, "Bad", ["game:nothing"])
    with pytest.raises(saves.SaveError, match="the kept chart is broken"):
        saves.new_game(path, "Bad", ["game:nothing"], charts={"game:nothing": "[game"})
    saves.new_game(path, "Good", ["rivets"])
    text = path.read_text().replace('rulesets = ["rivets"]', 'rulesets = ["game:gone"]')
    path.write_text(text)
    with pytest.raises(saves.SaveError, match="keeps no copy of it"):
        saves.load_game(path)


def test_cli_plays_a_chart_into_a_save_and_names_a_changed_file(
    shelf: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["new", "raid", "--title", "Raid", "--ruleset", "game:hill-203"]) == 0
    # The first save makes ./saves, and says where.
    assert capsys.readouterr().err.startswith("crtdesk: made the saves folder ")
    argv = ["resolve", "hill-203", "--attack", "6", "--defense", "2", "--save", "raid"]
    assert main([*argv, "--roll", "4"]) == 0
    out, err = capsys.readouterr()
    assert "Saved as entry 1" in out and err == ""
    # The file changes after the game began: named, and the game's copy is used (row 4 of
    # 3-1 is still DR2, not the edited file's DE).
    edited = (
        (shelf / "hill-203.toml")
        .read_text()
        .replace(
            '"4" = ["AR", "EX",  "DR1", "DR2", "DE",  "DE"]',
            '"4" = ["AR", "EX",  "DR1", "DE",  "DE",  "DE"]',
        )
    )
    (shelf / "hill-203.toml").write_text(edited)
    assert main([*argv, "--roll", "4"]) == 0
    out, err = capsys.readouterr()
    assert "Result: DR2" in out
    assert "games/hill-203.toml has changed since this game began" in err
    assert "keeps the copy it began with" in err
    # Gone: the log and luck still read the game.
    (shelf / "hill-203.toml").unlink()
    assert main(["log", "raid"]) == 0
    out, _ = capsys.readouterr()
    assert out.count("game:hill-203") >= 3 and "DR2: Defender retreats 2 hexes" in out
    assert main(["luck", "raid"]) == 0
    assert main(["report", "raid", "--markdown"]) == 0
    out, _ = capsys.readouterr()
    assert "Result `DR2`" in out and "`game:hill-203` (Hill 203)" in out


def test_cli_refuses_a_chart_not_in_play(shelf: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "other", "--title", "Other", "--ruleset", "rivets"]) == 0
    status = main(["resolve", "hill-203", "--attack", "6", "--defense", "2", "--save", "other"])
    _, err = capsys.readouterr()
    assert status == 2 and "game:hill-203 is not in play in other.toml (rivets)" in err
    status = main(["new", "x", "--title", "X", "--ruleset", "game:nothing"])
    _, err = capsys.readouterr()
    assert status == 2 and "no chart nothing.toml in the games folder" in err
