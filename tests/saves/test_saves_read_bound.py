"""A save is read with a size bound before its content is read: a file past the most a save
holds is refused before a byte of it is read, and an entry past the most an entry holds (a
hand edit, or a save from before the bound on append) is refused by its line and size, not
read into every command's memory; `repair` sets it aside."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tui import cli, saves
from tui.saves import appending, checking
from tui.saves.encoding import MAX_ENTRY, MAX_SAVE


def _one_line(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert cli.main(list(argv)) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def _game_with_a_big_note(
    folder: Path, monkeypatch: pytest.MonkeyPatch, size: int = MAX_ENTRY + 1000
) -> Path:
    """A game whose second entry is a note past the bound, written as a crtdesk from before
    the bound on append would (its checksum right)."""
    path = folder / "g.toml"
    saves.new_game(path, "G", ["rivets"], {})
    saves.append_event(path, "hero-site-draw", "before", who="a")
    with monkeypatch.context() as old:
        old.setattr(appending, "MAX_ENTRY", 10**9)
        old.setattr(checking, "MAX_ENTRY", 10**9)
        saves.append_note(path, 1, "x" * size, who="a")
    return path


def test_an_entry_past_the_bound_is_refused_by_its_size_and_repair_sets_it_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _game_with_a_big_note(tmp_path, monkeypatch)
    for command in (["log", "g"], ["luck", "g"], ["turn", "g"], ["note", "g", "1", "after"]):
        said = _one_line(capsys, *command, "--saves", str(tmp_path))
        assert f"at most {MAX_ENTRY:,} bytes" in said, (command, said)
    with pytest.raises(saves.SaveError, match="at most"):
        saves.load_game(path)
    assert cli.main(["repair", "g", "--yes", "--saves", str(tmp_path)]) == 0
    capsys.readouterr()
    kept = saves.load_game(path).entries
    assert [e["kind"] for e in kept] == ["event"]
    assert cli.main(["note", "g", "1", "after", "--saves", str(tmp_path)]) == 0


def test_a_save_file_past_the_bound_is_refused_before_it_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "g.toml"
    saves.new_game(path, "G", ["rivets"], {})
    os.truncate(path, MAX_SAVE + 1)  # sparse: no disk taken, 1 GiB and a byte long
    for command in (["log", "g"], ["turn", "g"], ["report", "g", "--markdown"]):
        said = _one_line(capsys, *command, "--saves", str(tmp_path))
        assert f"{MAX_SAVE + 1:,} bytes" in said and f"at most {MAX_SAVE:,}" in said, said


def test_a_big_save_is_refused_under_a_small_address_limit(tmp_path: Path) -> None:
    """In a process that could not hold the file (512 MB of address space), `log` on a save
    past the bound ends in one line: it never tries to read it."""
    path = tmp_path / "g.toml"
    saves.new_game(path, "G", ["rivets"], {})
    os.truncate(path, MAX_SAVE + 1)
    limit = 512 * 1024 * 1024

    def small() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", "log", "g", "--saves", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=small,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "at most" in done.stderr, done.stderr
