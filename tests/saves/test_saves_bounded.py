"""A long campaign in bounded memory, by its shape rather than at 100,000 entries (the
bench's `bench_saves.py --campaign` has those figures): what each command keeps per entry is
a small fraction of the entry a whole load keeps, and luck and the report let every entry
go once they have counted it."""

from __future__ import annotations

import contextlib
import gc
import io
import tracemalloc
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.review_save import campaign
from tui import saves
from tui.cli import main
from tui.game.session import read_game
from tui.reports.luck import luck_report
from tui.reports.report import _report
from tui.reports.review_rows import read_for_review


class _Null(io.TextIOBase):
    def write(self, text: str) -> int:
        return len(text)


def peak(action: Callable[[], object]) -> int:
    """The most memory `action` held at once (bytes, Python's allocations), its output
    thrown away."""
    gc.collect()
    tracemalloc.start()
    try:
        with contextlib.redirect_stdout(_Null()):
            action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


SMALL, LARGE = 150, 450
# Small chunks, so that what one chunk's entries hold (the reader decodes a chunk at once)
# is far less than a save's: the growth measured is then what is kept per entry.
CHUNK = 16 * 1024


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(saves.streaming, "CHUNK", CHUNK)


@pytest.fixture(scope="module")
def two_saves(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    found: dict[int, Path] = {}
    for count in (SMALL, LARGE):
        folder = tmp_path_factory.mktemp(f"c{count}")
        found[count], _ = campaign(folder, count)
    return found


def growth(
    two_saves: dict[int, Path], action: Callable[[Path], object], *, kept: bool = True
) -> int:
    """How much more memory `action` holds on the long save than on the short one: both
    read with the derived data kept beside them, or (not `kept`) both read first, nothing
    kept (like with like: a first read holds what it reads while it folds)."""
    for path in two_saves.values():
        action(path)  # imports, caches and the kept data first: not what is measured

    def measured(path: Path) -> int:
        if not kept:
            for beside in path.parent.glob(f"{path.name}.kept-*"):
                beside.unlink()
        return peak(lambda: action(path))

    return measured(two_saves[LARGE]) - measured(two_saves[SMALL])


@pytest.fixture(scope="module")
def whole(two_saves: dict[int, Path]) -> int:
    """What a whole load holds more on the long save: every entry."""
    return growth(two_saves, saves.load_game)


def cli(*argv: str) -> Callable[[Path], object]:
    def run(path: Path) -> object:
        assert main([argv[0], path.stem, *argv[1:], "--saves", str(path.parent)]) == 0
        return None

    return run


def first_turn(path: Path) -> object:
    path.with_name(path.name + ".lock").unlink(missing_ok=True)  # no state: the log is read
    return saves.advance_turn(path)


@pytest.mark.parametrize(
    "action",
    [
        cli("log"),
        cli("log", "--json"),
        cli("log", "--markers"),
        read_for_review,
        lambda path: read_game(path, pauses=False),
        first_turn,
    ],
    ids=["log", "log --json", "log --markers", "review", "open", "turn"],
)
def test_a_streamed_read_keeps_a_fraction_of_what_a_load_keeps(
    two_saves: dict[int, Path], whole: int, action: Callable[[Path], object]
) -> None:
    # The load holds every entry; a streamed read at most a short row of each, on a first
    # read and on one with the derived data kept.
    assert whole > 2_000 * (LARGE - SMALL)
    for kept in (False, True):
        streamed = growth(two_saves, action, kept=kept)
        assert streamed < whole / 8, (kept, streamed, whole)


class _Entry(dict):
    """An entry that can be watched with a weak reference."""


def watched(path: Path, alive: list[weakref.ref]) -> Iterator[dict[str, Any]]:
    for read in saves.read_entries(path):
        entry = _Entry(read.entry)
        alive.append(weakref.ref(entry))
        yield entry


def test_luck_and_the_report_let_each_entry_go(two_saves: dict[int, Path]) -> None:
    path = two_saves[SMALL]
    for count, shown in (
        (luck_report, set()),
        # A note shown under its entry is kept as its line, not as the note's entry.
        (lambda entries: _report(entries, None), set()),
    ):
        alive: list[weakref.ref] = []
        kept = count(watched(path, alive))
        gc.collect()
        assert len(alive) > SMALL / 2
        assert {ref()["kind"] for ref in alive if ref() is not None} == shown
        del kept
