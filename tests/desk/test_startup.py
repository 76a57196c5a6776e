"""A desk command starts with the cyclic garbage collector paused, and the desk resumes it
(with what start-up made frozen) once its first frame is drawn. Other commands never pause
it, and a desk that fails before its first frame leaves it running and nothing frozen."""

from __future__ import annotations

import gc
import tomllib
from pathlib import Path

import pytest

from tests.conftest import fresh_python
from tui import startup

DESK_PROBE = """
import asyncio, gc, json, tempfile
from pathlib import Path
from tui import startup

startup.pause_collector()
paused = not gc.isenabled()
from tui import saves
from tui.desk.app import CrtDeskApp

folder = Path(tempfile.mkdtemp())
saves.new_game(folder / "g.toml", "G", ["pod-basic"])


async def main():
    app = CrtDeskApp(saves_dir=folder, game_path=folder / "g.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        print(json.dumps([paused, gc.isenabled(), gc.get_freeze_count() > 0]))


asyncio.run(main())
"""


@pytest.mark.parametrize(
    ("argv", "desk"),
    [
        ([], True),
        (["open"], True),
        (["open", "campaign"], True),
        (["review", "campaign"], True),
        (["--saves", "dir"], True),
        (["--saves=dir"], True),
        (["resolve", "--ruleset", "pod-basic"], False),
        (["log", "campaign"], False),
        (["serve"], False),
    ],
)
def test_which_commands_open_the_desk(argv: list[str], desk: bool) -> None:
    assert startup.opens_desk(argv) is desk


def test_the_desk_resumes_the_collector_after_its_first_frame() -> None:
    paused, running, frozen = fresh_python(DESK_PROBE)
    assert paused and running and frozen


def test_a_desk_that_cannot_start_leaves_the_collector_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frozen = gc.get_freeze_count()
    assert startup.main(["open", "no-such-game", "--saves", str(tmp_path)]) == 2
    assert "no-such-game" in capsys.readouterr().err
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def test_a_cli_command_never_pauses_the_collector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    paused: list[bool] = []
    monkeypatch.setattr(gc, "disable", lambda: paused.append(True))
    assert startup.main(["rulesets"]) == 0
    assert "pod-basic" in capsys.readouterr().out
    assert paused == []
    # The spy does see a desk command's pause.
    assert startup.main(["open", "no-such-game", "--saves", str(tmp_path)]) == 2
    assert paused == [True]


def test_the_crtdesk_command_starts_here() -> None:
    project = tomllib.loads(
        Path(__file__).resolve().parents[2].joinpath("pyproject.toml").read_text()
    )
    assert project["project"]["scripts"]["crtdesk"] == "tui.startup:main"
