"""Every chart in docs/games plays a game: `check-table` passes; in a saves and a games folder
of its own, `new`, five combats, `log`, `luck` and `report` say what they should; and the
desk opened again on the save shows the game's last combat."""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from pathlib import Path

import pytest

from tests.conftest import settle
from tui.cli import main
from tui.desk.app import CrtDeskApp
from tui.desk.screens.game import FormScreen
from tui.desk.widgets.result import ResultLines, ResultPanel

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"
CHARTS = sorted(DOCS.glob("*.toml"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """`crtdesk ARGV` in process: its output, once it exited 0."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def rolls(chart: Path) -> list[int]:
    """Five rolls the chart's dice can make (`[game] dice`, NdM), low to high and back."""
    dice = tomllib.loads(chart.read_text())["game"]["dice"]
    found = re.fullmatch(r"\s*(\d+)\s*d\s*(\d+)\s*", dice, re.IGNORECASE)
    assert found, dice
    count, sides = int(found[1]), int(found[2])
    low, high = count, count * sides
    return [low, high, (low + high) // 2, low + 1, high - 1]


def cells(cell: object) -> list[str]:
    """A resolved cell's codes: one code, or a list read together."""
    return [str(code) for code in cell] if isinstance(cell, list) else [str(cell)]


@pytest.mark.parametrize("chart", CHARTS, ids=lambda p: p.stem)
async def test_every_chart_plays_a_game(
    chart: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CRTDESK_PLAYER", "alice")
    name = chart.stem
    assert run(capsys, "check-table", str(chart)).startswith(f"game:{name}: ")

    saves, games = tmp_path / "saves", tmp_path / "games"
    saves.mkdir()
    games.mkdir()
    shutil.copy(chart, games / chart.name)
    where = ("--saves", str(saves), "--games", str(games))
    said = run(capsys, "new", "g", "--title", "Played", "--ruleset", f"game:{name}", *where)
    assert "Started 'Played'" in said

    results: list[list[str]] = []
    for entry, roll in enumerate(rolls(chart), start=1):
        defense = str(entry)  # 3 against 1 to 5: each end of most charts and their middle
        argv = ["resolve", f"game:{name}", "--attack", "3", "--defense", defense]
        out = run(capsys, *argv, "--roll", str(roll), "--save", "g", "--json", *where)
        data = json.loads(out[out.index("{") : out.rindex("}") + 1])
        results.append(cells(data["cell"]))
    assert len(results) == 5

    log = run(capsys, "log", "g", "--saves", str(saves))
    lines = [line for line in log.splitlines() if f"game:{name}" in line and "alice" in line]
    assert len(lines) == 5, log  # five combats logged, each by the player
    for line, codes in zip(lines, results, strict=True):
        assert all(code in line for code in codes), (line, codes)

    luck = run(capsys, "luck", "g", "--saves", str(saves))
    assert "5 combats" in luck, luck
    report = run(capsys, "report", "g", "--markdown", "--saves", str(saves))
    assert "**Entries:** 5 (5 combat)" in report and "**Combat #5**" in report, report

    # The desk opened again on the save: the game's screen shows its last combat.
    app = CrtDeskApp(saves_dir=saves, games_dir=games, player="alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FormScreen) and screen.ruleset == f"game:{name}"
        assert screen.last is not None and screen.last_combat is not None
        assert screen.save_state.entry is not None and screen.save_state.entry["seq"] == 5
        assert screen.query_one(ResultPanel).display
        shown = str(screen.query_one(ResultLines).content)
        assert all(code in shown for code in results[-1]), shown
