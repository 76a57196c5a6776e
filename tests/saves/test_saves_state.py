"""The game's state kept beside a save (the lock file's second line): every append keeps it
equal to the replay of the whole log, a turn or a marker lifted reads only the ends of a
long save with it, and a state that does not match the file is never used."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.review_save import campaign
from tui import saves
from tui.engine import CombatInput, resolve
from tui.saves.state import read_state


def kept_state(path: Path) -> saves.Game | None:
    """The game the lock file's state line keeps, read as the store reads it."""
    lines = path.with_name(path.name + ".lock").read_bytes().split(b"\n", 1)
    state = lines[1] if len(lines) > 1 else b""
    game = saves.load_game(path)
    after = game.entries[-1]["seq"] if game.entries else 0
    header = {
        "title": game.title,
        "rulesets": game.rulesets,
        "created": game.created,
        "format": game.format,
    }
    return read_state(state, path, header, after)


def same_game(path: Path) -> None:
    kept, loaded = kept_state(path), saves.load_game(path)
    assert kept is not None
    assert (kept.turn, kept.markers, kept.options) == (
        loaded.turn,
        loaded.markers,
        loaded.options,
    )


BOOM = CombatInput("pod-boom", step="crt", caf=9)

STEPS = st.lists(
    st.one_of(
        st.tuples(
            st.just("mark"),
            st.sampled_from(["DG", "no-entry", "low", "exhausted"]),
            st.sampled_from(["0101", "0102"]),
            st.none() | st.integers(1, 3),
        ),
        st.tuples(st.just("turn")),
        st.tuples(st.just("lift"), st.integers(0, 5)),
        st.tuples(st.just("option"), st.integers(2, 3)),
        st.tuples(st.just("combat"), st.integers(0, 2**16)),
    ),
    min_size=1,
    max_size=10,
)


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=STEPS)
def test_every_append_keeps_the_state_equal_to_the_replay(tmp_path_factory, steps) -> None:
    import random

    path = tmp_path_factory.mktemp("state") / "g.toml"
    saves.new_game(path, "G", ["pod-boom", "pod-ultra"])
    same_game(path)
    for step in steps:
        if step[0] == "mark":
            saves.add_marker(path, step[1], step[2], turns=step[3])
        elif step[0] == "turn":
            saves.advance_turn(path)
        elif step[0] == "lift":
            markers = saves.load_game(path).markers
            if not markers:
                continue
            saves.remove_marker(path, markers[step[1] % len(markers)].id)
        elif step[0] == "option":
            saves.set_option(path, "mines_cdf", step[1])
        else:
            saves.append_combat(
                path, BOOM, resolve(BOOM, rng=random.Random(step[1])), target="0712"
            )
        same_game(path)


def test_a_turn_on_a_long_save_reads_only_its_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, _ = campaign(tmp_path, 2000)  # written outside the store: no state yet
    saves.add_marker(path, "DG", "0101", turns=2)  # the log read once, the state kept
    same_game(path)
    size = path.stat().st_size
    reads: list[int] = []
    real = saves.files._read_range

    def counted(fd: int, start: int, end: int) -> bytes:
        reads.append(end - start)
        return real(fd, start, end)

    monkeypatch.setattr(saves.files, "_read_range", counted)
    found: list[saves.Marker] = []
    started = time.perf_counter()
    entry = saves.advance_turn(path, markers_before=found)
    saves.remove_marker(path, "2001.1")
    took = time.perf_counter() - started
    assert entry["counted_down"] == ["7.1", "2001.1"] or "2001.1" in entry["counted_down"]
    assert any(m.id == "2001.1" and m.turns_left == 2 for m in found)
    # The header and the last entry: a few windows of the file's ends, not the log.
    assert sum(reads) < size / 4, (sum(reads), size)
    assert took < 1.0
    monkeypatch.undo()
    same_game(path)


def test_a_state_that_does_not_match_the_file_is_not_used(tmp_path: Path) -> None:
    path = tmp_path / "g.toml"
    saves.new_game(path, "G", ["pod-boom"])
    saves.add_marker(path, "DG", "0101", turns=1)
    lock = path.with_name("g.toml.lock")
    record, state = lock.read_bytes().split(b"\n", 1)
    # A state line changed by hand (its checksum no longer holds): not used.
    lock.write_bytes(record + b"\n" + state.replace(b'"turn":1', b'"turn":7'))
    assert saves.advance_turn(path)["turn"] == 2
    same_game(path)
    # The save written by another program after the state was kept: worked out again.
    record, state = lock.read_bytes().split(b"\n", 1)
    saves.add_marker(path, "DG", "0202")
    written = path.read_bytes()
    lock.write_bytes(record + b"\n" + state)  # the record and state of the file before
    path.write_bytes(written)  # the same bytes, written by something else
    entry = saves.remove_marker(path, "3.1")
    assert entry["target"] == "0202"
    same_game(path)
    # A forged state with a sound checksum, beside a record of another file: not used.
    bad = state.replace(b'"turn":2', b'"turn":9')
    lock.write_bytes(b"crtdesk verified 1 dev 0 ino 0\n" + bad)
    assert saves.advance_turn(path)["turn"] == 3
    same_game(path)


# A fresh interpreter appends a turn to a save; at the moment the exclusive lock is taken,
# what the reads under it use first (msgspec, the schema's types, the kept state's reader)
# must already be ready, so the lock is held for the write and not for an import.
_FIRST_APPEND = """
import sys
from tui import saves
from tui.saves import locking

seen = []
take = locking._Lock.take

def noted_take(self, exclusive):
    if exclusive:
        from tui.saves import schema
        seen.append(("tui.saves.kept_state" in sys.modules, schema._ready))
    take(self, exclusive)

locking._Lock.take = noted_take
saves.advance_turn(sys.argv[1], who="test")
print(seen)
"""


def test_an_append_takes_the_lock_with_its_checks_ready(tmp_path: Path) -> None:
    path = tmp_path / "g.toml"
    saves.new_game(path, "g", ["pod-boom"])
    saves.append_combat(path, BOOM, resolve(BOOM), who="test")
    done = subprocess.run(
        [sys.executable, "-c", _FIRST_APPEND, str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "[(True, True)]"
    assert saves.load_game(path).turn == 2
