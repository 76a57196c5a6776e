"""Files crtdesk reads that a player did not type outright are read with a size bound
before their content, and every TOML text is bounded in depth before it is parsed: a link
to /dev/zero, a FIFO, a sparse giant or a chart nested 1,000 deep each end in one line
naming the file, the limit and what was found, never a traceback or the host's memory."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from tui import saves
from tui.cli import main
from tui.engine import registry
from tui.engine.bounds import MOST_DEPTH
from tui.engine.errors import ChartError
from tui.engine.rulesets.charts.reading import MOST_BYTES, load_chart
from tui.engine.tables import MOST_TABLES_BYTES, TablesError, _cache_file, load_tables

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"
ADDRESS_LIMIT = 1536 * 1024 * 1024  # 1.5 GB
DEEP = 1000


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))


def limited(
    folder: Path, *argv: str, timeout: float = 60, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], float]:
    """`crtdesk ARGV` run in `folder` in a process of at most 1.5 GB of address space: what
    it did, and how long it took."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=folder,
        preexec_fn=_limit_memory,
        env={**os.environ, "CRTDESK_PLAYER": "alice", "COLUMNS": "80", **(env or {})},
    )
    return done, time.monotonic() - started


@pytest.fixture
def shelf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A games folder with Hill 203 beside the saves folder, both in tmp_path."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CRTDESK_GAMES", raising=False)
    monkeypatch.delenv(saves.SAVES_ENV, raising=False)
    (tmp_path / "games").mkdir()
    (tmp_path / "saves").mkdir()
    shutil.copy(DOCS / "hill-203.toml", tmp_path / "games")
    return tmp_path / "games"


def _one_line(stderr: str) -> str:
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.mark.parametrize(
    "argv",
    [
        ("check-table", "games/zero.toml"),
        ("table", "games/zero.toml"),
        ("resolve", "games/zero.toml", "--attack", "6", "--defense", "2", "--roll", "3"),
    ],
    ids=["check-table", "table", "resolve"],
)
def test_a_link_to_dev_zero_is_one_line_under_an_address_limit(
    shelf: Path, argv: tuple[str, ...]
) -> None:
    (shelf / "zero.toml").symlink_to("/dev/zero")
    done, took = limited(shelf.parent, *argv)
    line = _one_line(done.stderr)
    assert done.returncode == 2
    assert "games/zero.toml" in line and "character device" in line, line
    assert f"{MOST_BYTES:,}" in line, line  # the limit named
    assert took < 10  # loosely: the real check is that it ends at all


def test_a_fifo_is_refused_without_waiting_for_a_writer(shelf: Path) -> None:
    os.mkfifo(shelf / "pipe.toml")
    done, took = limited(shelf.parent, "check-table", "games/pipe.toml", timeout=10)
    line = _one_line(done.stderr)
    assert done.returncode == 2
    assert "games/pipe.toml" in line and "FIFO" in line, line
    assert took < 10


def test_a_sparse_giant_chart_is_refused_by_its_size_unread(
    shelf: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    giant = shelf / "giant.toml"
    with giant.open("wb") as file:
        file.truncate(64 * 1024 * 1024)  # sparse: nothing on disk, 64 MB to read
    assert main(["check-table", str(giant)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert str(giant) in line and f"{64 * 1024 * 1024:,} bytes" in line, line
    assert f"{MOST_BYTES:,}" in line, line
    tracemalloc.start()
    try:
        with pytest.raises(ChartError, match="67,108,864 bytes"):
            load_chart(giant)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1024 * 1024  # its content never read


def test_tables_that_link_to_dev_zero_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "tables.toml").symlink_to("/dev/zero")
    done, took = limited(tmp_path, "games", env={"CRTDESK_TABLES": "tables.toml"})
    line = _one_line(done.stderr)
    assert done.returncode == 2
    assert "tables.toml" in line and f"{MOST_TABLES_BYTES:,}" in line, line
    assert took < 10


def test_a_kept_copy_of_the_tables_that_links_to_dev_zero_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tables are read and checked afresh, as with no kept copy at all."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    monkeypatch.setenv("CRTDESK_CACHE", str(cache))
    kept = _cache_file((Path(__file__).resolve().parents[2] / "tables.toml").read_bytes())
    assert kept is not None
    kept.symlink_to("/dev/zero")
    done, took = limited(
        tmp_path, "games", "--games", str(tmp_path), env={"CRTDESK_CACHE": str(cache)}
    )
    assert done.returncode == 0, done.stderr
    assert "Games folder" in done.stdout
    assert took < 10


def test_tables_nested_1000_deep_are_one_line(tmp_path: Path) -> None:
    text = (Path(__file__).resolve().parents[2] / "tables.toml").read_text()
    deep = tmp_path / "tables.toml"
    deep.write_text("deep = " + "[" * DEEP + "]" * DEEP + "\n" + text)
    with pytest.raises(TablesError, match=f"tables.toml: nested 1,000 deep.*at most {MOST_DEPTH}"):
        load_tables(deep)


def _deep_chart() -> str:
    """Hill 203 with one more key whose value is nested 1,000 deep."""
    text = (DOCS / "hill-203.toml").read_text()
    return text.replace("[game]\n", "deep = " + "[" * DEEP + "]" * DEEP + "\n\n[game]\n", 1)


def _dotted_deep_chart() -> str:
    """Hill 203 with a key 1,000 tables deep by dotted key, no brackets at all."""
    text = (DOCS / "hill-203.toml").read_text()
    return ".".join(["deep"] * DEEP) + " = 1\n" + text


@pytest.mark.parametrize("make", [_deep_chart, _dotted_deep_chart], ids=["brackets", "dotted"])
def test_a_chart_nested_1000_deep_is_one_line_in_check_table_and_games(
    shelf: Path, capsys: pytest.CaptureFixture[str], make: object
) -> None:
    assert callable(make)
    (shelf / "deep.toml").write_text(make())
    assert main(["check-table", "games/deep.toml"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "games/deep.toml" in line and f"at most {MOST_DEPTH}" in line, line
    assert f"{DEEP}" in line or f"{DEEP:,}" in line or "deeper" in line, line

    assert main(["games", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [g["id"] for g in listed["games"]] == ["game:hill-203"]  # the others still read
    [broken] = listed["broken"]
    assert broken.startswith("games/deep.toml") and f"at most {MOST_DEPTH}" in broken


def test_a_chart_at_the_depth_limit_still_reads(shelf: Path) -> None:
    """The bound refuses only what is deeper than it: a value nested to the limit loads
    as far as the depth goes (then the unknown key is named, as for any chart)."""
    text = (DOCS / "hill-203.toml").read_text()
    # The document is one level, the key's array the next: MOST_DEPTH - 1 brackets in all.
    inner = MOST_DEPTH - 1
    (shelf / "edge.toml").write_text("edge = " + "[" * inner + "]" * inner + "\n" + text)
    with pytest.raises(Exception, match="edge: not a key of the format"):
        load_chart(shelf / "edge.toml")


def _save_with_deep_copy(folder: Path) -> Path:
    """A save playing Hill 203 whose header's copy of the chart was edited to nest 1,000
    deep: a valid save otherwise, with one combat in it."""
    chart = load_chart(DOCS / "hill-203.toml")
    registry.chart_ruleset(chart)
    path = folder / "raid.toml"
    chart_id = registry.chart_id(chart.name)
    saves.new_game(path, "Raid", [chart_id], charts={chart_id: chart.text})
    assert main(["resolve", chart_id, "--attack", "6", "--defense", "2", "--roll", "3",
                 "--save", "raid", "--saves", str(folder)]) == 0  # fmt: skip
    data = path.read_bytes()
    start = data.index(b'charts = { "game:hill-203" = ')
    end = data.index(b"\n", start)
    deep = json.dumps(_deep_chart()).encode()
    path.write_bytes(data[:start] + b'charts = { "game:hill-203" = ' + deep + b" }" + data[end:])
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ("log", "raid"),
        ("luck", "raid"),
        ("report", "raid", "--markdown"),
        (
            "resolve",
            "game:hill-203",
            "--attack",
            "6",
            "--defense",
            "2",
            "--roll",
            "3",
            "--save",
            "raid",
        ),
    ],  # fmt: skip
    ids=["log", "luck", "report", "resolve"],
)
def test_a_save_whose_chart_copy_is_1000_deep_is_one_line(
    shelf: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    folder = shelf.parent / "saves"
    path = _save_with_deep_copy(folder)
    before = path.read_bytes()
    capsys.readouterr()
    assert main([*argv, "--saves", str(folder)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "game:hill-203" in line and f"at most {MOST_DEPTH}" in line, line
    assert path.read_bytes() == before  # nothing written
