"""The CLI on saves that must not lie: appends to a save broken in the middle, a `log` of a
torn save (it writes nothing) and `crtdesk repair`, unknown options, an empty save."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tui import saves
from tui.cli import main


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(saves.SAVES_ENV, raising=False)
    return tmp_path / "saves"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


STRIKE = ("resolve", "pod-boom", "--step", "crt", "--caf", "9", "--roll")


@pytest.fixture
def torch(folder: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A Torch save with three logged strikes."""
    code, _, err = run(
        capsys, "new", "torch", "--title", "Torch", "--ruleset", "pod-boom", "pod-ultra"
    )
    assert code == 0, err
    for roll in ("2", "3", "4"):
        code, _, err = run(capsys, *STRIKE, roll, "--save", "torch")
        assert code == 0, err
    return folder / "torch.toml"


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


APPENDS = [
    [*STRIKE, "5", "--save", "torch"],
    ["marker", "torch", "add", "DG", "0712"],
    ["option", "torch", "mines_cdf", "3"],
]


@pytest.mark.parametrize("argv", APPENDS, ids=["resolve --save", "marker add", "option"])
def test_an_append_to_a_save_broken_in_the_middle_exits_2_like_log(
    torch: Path, capsys, argv: list[str]
) -> None:
    status = torch.stat()
    data = torch.read_text(encoding="utf-8")
    middle = data.index('[[log]]\n"seq" = 2\n')
    at = data.index('"turn" = 1\n', middle)
    torch.write_text(data[:at] + '"turn" = "two"\n' + data[at + len('"turn" = 1\n') :])
    os.utime(torch, ns=(status.st_atime_ns, status.st_mtime_ns + 2_000_000_000))
    before = torch.read_bytes()
    code, _, log_err = run(capsys, "log", "torch")
    assert code == 2 and "entry 2: 'turn' must be a whole number" in log_err
    code, out, err = run(capsys, *argv)
    assert (code, out, err) == (2, "", log_err)
    assert torch.read_bytes() == before
    assert names(torch.parent) == ["torch.toml", "torch.toml.lock"]


def test_log_of_a_torn_save_writes_nothing_and_repair_keeps_it_aside(torch: Path, capsys) -> None:
    whole = torch.read_bytes()
    with torch.open("ab") as handle:
        handle.write(b'\n[[log]]\nseq = 4\nkind = "com')
    torn = torch.read_bytes()
    code, out, err = run(capsys, "log", "torch")
    assert code == 0 and len(out.splitlines()) == 6  # title, game line, header, 3 entries
    assert err.count("\n") == 1 and err.startswith("crtdesk: saves/torch.toml: the last entry")
    assert "torn" in err and "28 bytes" in err and "torch.toml.bak-" in err
    assert "crtdesk repair torch" in err
    assert torch.read_bytes() == torn
    # The save unchanged; beside it, its lock file, the log's rows and (in the same pass)
    # the game's state kept (see save-format.md).
    assert names(torch.parent) == [
        "torch.toml",
        "torch.toml.kept-log",
        "torch.toml.kept-state",
        "torch.toml.lock",
    ]

    code, out, err = run(capsys, "repair", "torch")
    assert code == 0 and err == ""
    [backup] = torch.parent.glob("torch.toml.bak-*")
    assert out == (
        f"Kept entries 1-3 ({len(whole)} bytes) in saves/torch.toml; the torn last entry "
        f"(28 bytes) is kept with the whole file as it was in saves/{backup.name}\n"
    )
    assert torch.read_bytes() == whole and backup.read_bytes() == torn

    code, out, err = run(capsys, "repair", "torch")
    assert (code, err) == (0, "")
    assert out == "saves/torch.toml has no torn entry (entries 1-3, all whole); nothing to do\n"
    code, out, err = run(capsys, "log", "torch")
    assert code == 0 and err == ""


@pytest.mark.parametrize(
    "argv", [*APPENDS, ["turn", "torch"]], ids=["resolve --save", "marker add", "option", "turn"]
)
def test_an_append_that_cuts_a_torn_entry_off_says_so_on_stderr(
    torch: Path, capsys, argv: list[str]
) -> None:
    with torch.open("ab") as handle:
        handle.write(b'\n[[log]]\nseq = 4\nkind = "com')
    code, out, err = run(capsys, *argv)
    [backup] = torch.parent.glob("torch.toml.bak-*")
    assert code == 0 and "entry 4" in out
    assert err == (
        "crtdesk: saves/torch.toml: the torn last entry (28 bytes, a write cut short) was cut "
        f"off; the whole file as it was is kept in saves/{backup.name}\n"
    )
    code, out, err = run(capsys, *argv)
    assert (code, err) == (0, "") and "entry 5" in out


def test_repair_of_a_broken_or_missing_save_exits_2(torch: Path, capsys) -> None:
    code, out, err = run(capsys, "repair", "nothing")
    assert code == 2 and out == "" and "no save file saves/nothing.toml" in err
    torch.write_text(torch.read_text(encoding="utf-8").replace("format = 1", "format = 9"))
    code, out, err = run(capsys, "repair", "torch")
    assert code == 2 and err.count("\n") == 1 and "format 9 was written by a newer" in err


def test_unknown_options_are_refused_with_the_known_ones(torch: Path, capsys) -> None:
    before = torch.read_bytes()
    code, out, err = run(
        capsys, "new", "other", "--title", "O", "--ruleset", "pod-ultra", "--option", "bogus=1"
    )
    assert (code, out) == (2, "")
    assert err == "crtdesk: unknown option 'bogus'; known options: mines_cdf (2 or 3)\n"
    assert not (torch.parent / "other.toml").exists()
    code, out, err = run(capsys, "option", "torch", "bogus", "1")
    assert (code, out) == (2, "")
    assert err == "crtdesk: unknown option 'bogus'; known options: mines_cdf (2 or 3)\n"
    assert torch.read_bytes() == before


@pytest.mark.parametrize(
    "argv",
    [["log", "blank"], ["log", "blank", "--markers"], ["turn", "blank"], ["repair", "blank"]]
    + [[*STRIKE, "5", "--save", "blank"], ["marker", "blank", "add", "DG", "0712"]]
    + [["option", "blank", "mines_cdf", "3"], ["log", "saves/blank.toml"]],
)
def test_an_empty_save_says_it_is_empty(folder: Path, capsys, argv: list[str]) -> None:
    folder.mkdir()
    (folder / "blank.toml").write_bytes(b"")
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith("crtdesk: saves/blank.toml is empty (0 bytes)")
    assert (folder / "blank.toml").read_bytes() == b""


# --- crtdesk open ----------------------------------------------------------------------------


@pytest.fixture
def desk_runs(monkeypatch: pytest.MonkeyPatch) -> list[Path | None]:
    """The save each desk that `crtdesk open` would start is opened on (no desk starts)."""
    from tui.desk import app

    started: list[Path | None] = []
    monkeypatch.setattr(app.CrtDeskApp, "run", lambda self: started.append(self.game_path))
    return started


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        ("notes.txt", b"dear diary\n", "is not a crtdesk save file (a save file's name ends"),
        ("other.toml", b'title = "x"\n', "is not a crtdesk save file (it has no '# end of"),
        ("blank.toml", b"", "is empty (0 bytes), not a crtdesk save"),
    ],
)
def test_open_refuses_a_path_that_is_not_a_save_and_makes_no_lock(
    tmp_path: Path, folder: Path, capsys, desk_runs: list, name: str, content: bytes, said: str
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / name).write_bytes(content)
    code, out, err = run(capsys, "open", f"elsewhere/{name}")
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.startswith(f"crtdesk: elsewhere/{name} {said}")
    assert names(elsewhere) == [name] and (elsewhere / name).read_bytes() == content
    assert desk_runs == []


def test_open_takes_a_save_by_name_or_by_path(torch: Path, capsys, desk_runs: list) -> None:
    assert run(capsys, "open", "torch") == (0, "", "")
    assert run(capsys, "open", "saves/torch.toml") == (0, "", "")
    assert [path.resolve() for path in desk_runs] == [torch.resolve()] * 2
    code, out, err = run(capsys, "open", "nothing")
    assert (code, out) == (2, "") and "no save file saves/nothing.toml" in err
    assert len(desk_runs) == 2
