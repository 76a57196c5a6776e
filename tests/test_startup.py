"""A desk command starts with the cyclic garbage collector paused, and the desk resumes it
(with what start-up made frozen) once its first frame is drawn. Other commands never pause
it, and a desk that fails before its first frame leaves it running and nothing frozen."""

from __future__ import annotations

import gc
import tomllib
from pathlib import Path

import pytest
from conftest import fresh_python

from tui import startup

DESK_PROBE = """
import asyncio, gc, json, tempfile
from pathlib import Path
from tui import startup

startup.pause_collector()
paused = not gc.isenabled()
from tui import saves
from tui.app import CrtDeskApp

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
    project = tomllib.loads(Path(__file__).parent.parent.joinpath("pyproject.toml").read_text())
    assert project["project"]["scripts"]["crtdesk"] == "tui.startup:main"


CODE_PROBE = """
import collections, dataclasses, json, sys
from dataclasses import dataclass, field
from tui import startup

if sys.argv[1:] != ["plain"]:
    startup.keep_generated_code()


@dataclass(frozen=True)
class Unit:
    factor: int
    terrain: str | None = None
    tags: tuple = field(default_factory=tuple)


Point = collections.namedtuple("Point", "x y")
unit = Unit(3, "woods")
compiled = len(startup._fresh)
startup.keep_code()
print(json.dumps([
    repr(unit), unit == Unit(3, "woods"), hash(unit) == hash(Unit(3, "woods")),
    {k: str(v) for k, v in Unit.__init__.__annotations__.items()},
    repr(Point(1, 2)), Point.__new__.__code__.co_filename, compiled,
]))
"""


def kept_code(tmp_path: Path, *args: str) -> list:
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "CRTDESK_CACHE": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", CODE_PROBE, *args], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_generated_code_is_compiled_once_and_runs_as_python_compiles_it(tmp_path: Path) -> None:
    """The methods dataclasses and namedtuple write as text are compiled at the first start
    and read back after: the classes made from the kept code are the classes Python makes."""
    plain = kept_code(tmp_path, "plain")
    first = kept_code(tmp_path)
    again = kept_code(tmp_path)
    assert plain[-1] == 0 and first[-1] > 3 and again[-1] == 0
    assert plain[:-1] == first[:-1] == again[:-1]
    assert plain[0] == "Unit(factor=3, terrain='woods', tags=())" and plain[1:3] == [True, True]
    assert [path.name.startswith("code-") for path in tmp_path.iterdir()] == [True]


def test_a_damaged_or_foreign_kept_file_is_compiled_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept_code(tmp_path)
    (kept,) = tmp_path.iterdir()
    kept.write_bytes(b"\x00 not marshal")
    assert kept_code(tmp_path)[-1] > 3  # compiled again, and written over
    assert kept_code(tmp_path)[-1] == 0
    from tui import kept as kept_files

    monkeypatch.setattr(kept_files.os, "getuid", lambda: kept.stat().st_uid + 1)
    assert kept_files.read_own(kept) is None  # another player's file is never read
