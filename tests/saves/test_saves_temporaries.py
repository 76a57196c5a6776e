"""Nothing left behind, nothing changed unasked: the temporary files of a `new` or a
`repair` killed with SIGKILL are removed by the next command that takes the save's lock
(and it says what it removed), never one a live process is still writing; and a repair
that would set aside an entry other entries depend on names what changes and asks
(`--yes` on the CLI, a dialog on the desk) before it writes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import settle
from tui import saves
from tui.cli import main

# A `new` or a `repair` stopped at a chosen step (it prints "ready" and waits there), to be
# killed with SIGKILL: `link` just after the new save's name is made (before its temporary
# name is removed), `write` while the new save's temporary file is written, `replace` just
# before the repaired copy takes the save's name.
STOPPED = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from tui import saves
    from tui.saves import files
    path, step = Path(sys.argv[1]), sys.argv[2]

    def stop():
        print("ready", flush=True)
        time.sleep(60)

    if step == "link":
        real_link = os.link
        def link(*args, **kwargs):
            real_link(*args, **kwargs)
            stop()
        os.link = link
    elif step == "write":
        def write_all(fd, data):
            os.write(fd, data[:10])
            stop()
        files._write_all = write_all
    elif step == "replace":
        def replace(*args, **kwargs):
            stop()
        os.replace = replace
    if step == "replace":
        saves.repair_save(path)
    else:
        saves.new_game(path, "G", ["pod-boom"])
    """
)


def _stopped(path: Path, step: str) -> subprocess.Popen[str]:
    """A process stopped at `step` (see STOPPED), waiting to be killed."""
    child = subprocess.Popen(
        [sys.executable, "-c", STOPPED, str(path), step],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    if line != "ready\n":
        child.kill()
        _, err = child.communicate(timeout=30)
        raise AssertionError(f"the child never reached {step}: {line!r} {err}")
    return child


def _kill(child: subprocess.Popen[str]) -> None:
    os.kill(child.pid, signal.SIGKILL)
    child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL


def _temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_a_new_killed_after_naming_the_save_is_cleaned_up_by_the_next_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _kill(_stopped(tmp_path / "g.toml", "link"))
    [left] = _temporaries(tmp_path)
    assert left.startswith(".g.toml.new-")
    code, out, err = _run(capsys, "marker", "g", "add", "DG", "0101", "--saves", str(tmp_path))
    assert code == 0, err
    assert "Placed DG" in out
    assert _temporaries(tmp_path) == []
    [said] = err.splitlines()
    assert f"removed {left}" in said and "a killed crtdesk" in said
    # The save is whole: the leftover was another name of it, and only the name went.
    assert [e["kind"] for e in saves.load_game(tmp_path / "g.toml").entries] == ["place-marker"]


def test_a_new_killed_while_writing_is_cleaned_up_by_the_next_new_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _kill(_stopped(tmp_path / "g.toml", "write"))
    [left] = _temporaries(tmp_path)
    assert left.startswith(".g.toml.new-")
    assert not (tmp_path / "g.toml").exists()
    args = ["--title", "G", "--ruleset", "pod-boom", "--saves", str(tmp_path)]
    code, out, err = _run(capsys, "new", "g", *args)
    assert code == 0, err
    assert "Started 'G'" in out
    assert _temporaries(tmp_path) == []
    [said] = err.splitlines()
    assert f"removed {left}" in said


def test_a_temporary_file_a_live_new_is_writing_is_never_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    child = _stopped(tmp_path / "g.toml", "write")  # alive, writing its temporary file
    try:
        [live] = _temporaries(tmp_path)
        args = ["--title", "G", "--ruleset", "pod-boom", "--saves", str(tmp_path)]
        code, _, err = _run(capsys, "new", "g", *args)
        assert code == 0 and err == ""
        code, _, err = _run(capsys, "marker", "g", "add", "DG", "0101", "--saves", str(tmp_path))
        assert code == 0 and err == ""
        assert _temporaries(tmp_path) == [live]  # still being written: left alone
    finally:
        _kill(child)
    code, _, err = _run(capsys, "turn", "g", "--saves", str(tmp_path))
    assert code == 0 and f"removed {live}" in err
    assert _temporaries(tmp_path) == []


def _break_entry(path: Path, seq: int, old: bytes, new: bytes) -> None:
    data = path.read_bytes()
    start = data.index(f'\n[[log]]\n"seq" = {seq}\n'.encode())
    end = data.index(b"# end of entry", start)
    assert old in data[start:end]
    path.write_bytes(data[:start] + data[start:end].replace(old, new, 1) + data[end:])


def test_a_repair_killed_before_it_replaced_the_save_is_cleaned_up_by_the_next_repair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "g.toml"
    saves.new_game(path, "G", ["pod-boom"])
    for target in ("0101", "0102", "0103"):
        saves.add_marker(path, "DG", target)
    _break_entry(path, 2, b'"turn" = 1', b'"turn" = "one"')  # nothing depends on entry 2
    broken = path.read_bytes()
    _kill(_stopped(path, "replace"))
    [left] = [name for name in _temporaries(tmp_path) if ".repair-" in name]
    assert left.startswith(".g.toml.repair-")
    assert path.read_bytes() == broken  # killed before it took the name: the save as it was
    code, out, err = _run(capsys, "repair", "g", "--saves", str(tmp_path))
    assert code == 0, err
    assert "set aside 1" in out
    assert [name for name in _temporaries(tmp_path) if ".repair-" in name] == []
    [said] = err.splitlines()
    assert f"removed {left}" in said
    assert [e["seq"] for e in saves.load_game(path).entries] == [1, 3]


@pytest.fixture
def noted_turn(tmp_path: Path) -> Path:
    """A save whose turn (entry 2, counting a marker down) is broken by hand, with a note
    on that turn (entry 3) and the marker lifted (entry 4)."""
    path = tmp_path / "g.toml"
    saves.new_game(path, "G", ["pod-boom"])
    saves.add_marker(path, "No-entry", "0101", turns=2)
    saves.advance_turn(path)
    saves.append_note(path, 2, "the turn the bridge fell")
    saves.add_marker(path, "DG", "0202")
    _break_entry(path, 2, b'"turn" = 2', b'"turn" = "two"')
    return path


def test_a_repair_that_would_set_aside_a_turn_a_note_points_at_asks_first(
    noted_turn: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = noted_turn.parent
    before = sorted(folder.iterdir())
    data = noted_turn.read_bytes()
    code, out, err = _run(capsys, "repair", "g", "--saves", str(folder))
    assert code == 1, out + err
    assert noted_turn.read_bytes() == data and sorted(folder.iterdir()) == before
    assert "entry 2 (the turn" in out and "entry 3 (a note)" in out
    assert "--yes" in out and "nothing written" in out.lower()

    code, out, err = _run(capsys, "repair", "g", "--yes", "--saves", str(folder))
    assert code == 0, err
    assert "entry 2 (the turn" in out and "entry 3 (a note)" in out
    assert "set aside 1" in out
    game = saves.load_game(noted_turn)
    assert [e["seq"] for e in game.entries] == [1, 3, 4]


async def test_the_desk_asks_before_a_repair_that_changes_the_game_and_esc_writes_nothing(
    noted_turn: Path,
) -> None:
    from tui.desk.app import CrtDeskApp
    from tui.desk.screens.dialogs import ChoiceScreen
    from tui.desk.screens.start import StartScreen

    folder = noted_turn.parent
    before = sorted(folder.iterdir())
    data = noted_turn.read_bytes()
    app = CrtDeskApp(saves_dir=folder, rng=random.Random(1), player="tester")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, StartScreen)
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ChoiceScreen)
        assert "entry 2 (the turn" in dialog.question and "entry 3 (a note)" in dialog.question
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, StartScreen)
        assert noted_turn.read_bytes() == data and sorted(folder.iterdir()) == before
        # Asked again and answered yes: repaired, the change said.
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert isinstance(app.screen, StartScreen)
    assert [e["seq"] for e in saves.load_game(noted_turn).entries] == [1, 3, 4]
