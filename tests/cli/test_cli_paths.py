"""Every command's path argument is checked before use: a bad one (`/`, a name or path of
300 characters, a folder, a link to nothing) is one line on stderr naming the value, exit
status 2, never a traceback (a NUL is tested in test_cli_messages)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tui import saves
from tui.cli import main

LONG = "x" * 300


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A player's folder: saves/ with a game `g`, an empty games/, a folder and a dangling
    link beside them."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CRTDESK_SAVES", raising=False)
    monkeypatch.delenv("CRTDESK_GAMES", raising=False)
    (tmp_path / "saves").mkdir()
    (tmp_path / "games").mkdir()
    saves.new_game(tmp_path / "saves" / "g.toml", "G", ["pod-boom"])
    (tmp_path / "a-folder.toml").mkdir()
    (tmp_path / "dangling.toml").symlink_to(tmp_path / "nowhere.toml")
    return tmp_path


BAD_FILES: dict[str, Callable[[Path], str]] = {
    "root": lambda _: "/",
    "long name": lambda _: LONG,
    "long path": lambda here: str(here / LONG),
    "long folder in a path": lambda here: str(here / LONG / "g.toml"),
    "folder": lambda here: str(here / "a-folder.toml"),
    "folder with a slash": lambda here: str(here / "a-folder.toml") + "/",
    "dangling link": lambda here: str(here / "dangling.toml"),
}

FILE_COMMANDS: dict[str, Callable[[str], list[str]]] = {
    "log": lambda f: ["log", f],
    "luck": lambda f: ["luck", f],
    "turn": lambda f: ["turn", f],
    "repair": lambda f: ["repair", f],
    "report": lambda f: ["report", f, "--markdown"],
    "report -o": lambda f: ["report", "g", "--markdown", "-o", f],
    "note": lambda f: ["note", f, "1", "a note"],
    "option": lambda f: ["option", f, "x", "1"],
    "marker add": lambda f: ["marker", f, "add", "DG", "0101"],
    "marker remove": lambda f: ["marker", f, "remove", "1.1"],
    "resolve --save": lambda f: ["resolve", "pod-boom", "--step", "crt", "--caf", "9", "--save", f],
    "check-table": lambda f: ["check-table", f],
    "table": lambda f: ["table", f],
    "resolve": lambda f: ["resolve", f],
    "odds": lambda f: ["odds", f],
    "open": lambda f: ["open", f],
    "review": lambda f: ["review", f],
}

BAD_FOLDERS: dict[str, Callable[[Path], str]] = {
    "long name": lambda _: LONG,
    "long path": lambda here: str(here / LONG),
    "dangling link": lambda here: str(here / "dangling.toml"),
    "a file": lambda here: str(here / "saves" / "g.toml"),
}

FOLDER_COMMANDS: dict[str, Callable[[str], list[str]]] = {
    "log --saves": lambda d: ["log", "g", "--saves", d],
    "luck --saves": lambda d: ["luck", "g", "--saves", d],
    "new --saves": lambda d: ["new", "n", "--title", "N", "--ruleset", "pod-boom", "--saves", d],
    "resolve --saves": lambda d: [
        "resolve",
        "pod-boom",
        "--step",
        "crt",
        "--caf",
        "9",
        "--save",
        "g",
        "--saves",
        d,
    ],
    "serve --saves": lambda d: ["serve", "--saves", d, "--port", "1"],
    "desk --saves": lambda d: ["--saves", d],
    "games --games": lambda d: ["games", "--games", d],
    "new --games": lambda d: ["new", "n", "--title", "N", "--ruleset", "pod-boom", "--games", d],
    "table --games": lambda d: ["table", "hill", "--games", d],
    "desk --games": lambda d: ["--games", d],
}


def _one_line_naming(
    argv: list[str], value: str, capsys: pytest.CaptureFixture[str]
) -> tuple[str, str]:
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (argv, out, err)
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("crtdesk") and value.rstrip("/") in err, err
    return out, err


FILE_CASES = [(command, bad) for command in FILE_COMMANDS for bad in BAD_FILES]


@pytest.mark.parametrize(("command", "bad"), FILE_CASES)
def test_a_bad_file_argument_is_one_line(
    here: Path, command: str, bad: str, capsys: pytest.CaptureFixture[str]
) -> None:
    value = BAD_FILES[bad](here)
    before = sorted(os.listdir(here))
    _one_line_naming(FILE_COMMANDS[command](value), value, capsys)
    assert sorted(os.listdir(here)) == before  # nothing made beside the value


@pytest.mark.parametrize("bad", BAD_FOLDERS)
@pytest.mark.parametrize("command", FOLDER_COMMANDS)
def test_a_bad_folder_argument_is_one_line(
    here: Path, command: str, bad: str, capsys: pytest.CaptureFixture[str]
) -> None:
    value = BAD_FOLDERS[bad](here)
    _one_line_naming(FOLDER_COMMANDS[command](value), value, capsys)


def test_a_path_too_long_says_the_limits(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, err = _one_line_naming(["log", str(here / LONG)], str(here / LONG), capsys)
    assert "255" in err
    _, err = _one_line_naming(["games", "--games", LONG], LONG, capsys)
    assert "--games" in err and "255" in err


def test_a_report_is_never_written_through_a_link(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A link planted where a player writes their report (a shared folder) aims at a file of
    theirs: the report is refused, one line, and that file is left as it was."""
    theirs = here / "profile.txt"
    theirs.write_text("keep me\n", encoding="utf-8")
    planted = here / "report.md"
    planted.symlink_to(theirs)
    _one_line_naming(FILE_COMMANDS["report -o"](str(planted)), str(planted), capsys)
    assert theirs.read_text(encoding="utf-8") == "keep me\n"
    assert planted.is_symlink()
