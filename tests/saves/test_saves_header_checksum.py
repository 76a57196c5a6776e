"""The header carries a checksum like every entry, its chart copies included: an edited copy
is refused by name; `crtdesk repair --restore-charts` copies each chart in play from its file
again; a save written before the header had its checksum still opens, and gains one on
repair."""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import tomllib
import zlib
from pathlib import Path

import pytest

from tui import saves
from tui.cli import main

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"
# What the edit below leaves in the kept chart, and nothing else there does.
SIGN = b'\\"DR2\\", \\"EX\\"'
END = re.compile(rb"\n# end of header crc32 ([0-9a-f]{8})\n")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A saves folder with a games folder beside it holding Hill 203, and a game `raid`
    that plays it with one combat logged."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CRTDESK_GAMES", raising=False)
    monkeypatch.delenv(saves.SAVES_ENV, raising=False)
    (tmp_path / "games").mkdir()
    shutil.copy(DOCS / "hill-203.toml", tmp_path / "games")
    (tmp_path / "saves").mkdir()
    code, _, err = run(
        "new", "raid", "--title", "raid", "--ruleset", "game:hill-203", "--saves", "saves"
    )
    assert code == 0, err
    code, _, err = run(
        "resolve",
        "game:hill-203",
        "--attack",
        "6",
        "--defense",
        "2",
        "--roll",
        "5",
        "--save",
        "raid",
        "--saves",
        "saves",
    )
    assert code == 0, err
    return tmp_path / "saves"


def test_a_new_header_ends_with_its_checksum(folder: Path) -> None:
    data = (folder / "raid.toml").read_bytes()
    end = END.search(data)
    assert end is not None
    assert zlib.crc32(data[: end.start() + 1]) == int(end[1], 16)
    assert run("log", "raid", "--saves", str(folder))[0] == 0


def test_an_edited_chart_copy_is_refused_by_name_and_restored_on_request(folder: Path) -> None:
    path = folder / "raid.toml"
    data = path.read_bytes()
    # A cell of the kept chart changed by hand (the 4-1 column of row 5 made an EX).
    edited = data.replace(
        b'\\"5\\"\\u0020= [\\"EX\\", \\"DR1\\", \\"DR2\\", \\"DE\\"',
        b'\\"5\\"\\u0020= [\\"EX\\", \\"DR1\\", \\"DR2\\", \\"EX\\"',
        1,
    )
    assert edited != data and SIGN not in data and SIGN in edited
    path.write_bytes(edited)
    for argv in (
        ["log", "raid"],
        ["luck", "raid"],
        ["report", "raid", "--markdown"],
        ["repair", "raid"],
    ):
        code, out, err = run(*argv, "--saves", str(folder))
        assert code == 2 and out == "" and err.count("\n") == 1, (argv, err)
        assert "raid.toml" in err and "header" in err and "checksum" in err, err
    assert "--restore-charts" in err
    assert path.read_bytes() == edited  # refused: untouched
    code, out, err = run("repair", "raid", "--restore-charts", "--saves", str(folder))
    assert code == 0, err
    assert "game:hill-203" in out and "restored" in out
    assert SIGN not in path.read_bytes()
    header = tomllib.loads(path.read_bytes().partition(b"\n[[log]]\n")[0].decode())
    assert header["charts"]["game:hill-203"] == (DOCS / "hill-203.toml").read_text()
    assert run("log", "raid", "--saves", str(folder))[0] == 0
    assert list(folder.glob("raid.toml.bak-*")), "the file as it was is kept"


def test_an_edited_title_is_refused(folder: Path) -> None:
    path = folder / "raid.toml"
    path.write_bytes(path.read_bytes().replace(b'title = "raid"', b'title = "raid 2"'))
    code, out, err = run("log", "raid", "--saves", str(folder))
    assert code == 2 and "raid.toml" in err and "checksum" in err, err


def test_a_save_from_before_the_header_checksum_opens_and_gains_one_on_repair(
    folder: Path,
) -> None:
    path = folder / "raid.toml"
    old = END.sub(b"\n# end of header\n", path.read_bytes())
    path.write_bytes(old)
    code, out, _ = run("log", "raid", "--saves", str(folder))
    assert code == 0 and "DE" in out
    code, out, err = run("repair", "raid", "--saves", str(folder))
    assert code == 0, err
    assert "checksum" in out
    data = path.read_bytes()
    end = END.search(data)
    assert end is not None and zlib.crc32(data[: end.start() + 1]) == int(end[1], 16)
    assert data.replace(END.search(data)[0], b"\n# end of header\n") == old  # type: ignore[index]
    assert run("log", "raid", "--saves", str(folder))[0] == 0
