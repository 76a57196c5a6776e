"""`saves.game_state` (what `crtdesk units` and a form's completion read) takes the units
from the state kept beside the save, under the save's shared lock, without reading the log;
a state that does not fit (a unit of the wrong shape under a sound checksum, a file written
by another program) is not used, and the log is read instead."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest

from tui import saves
from tui.saves import units as saves_units
from tui.saves.streaming import read_entries


def states(game: saves.Game) -> list[dict[str, object]]:
    return [unit.state() for unit in game.units.values()]


def with_checksum(body: bytes) -> bytes:
    return b"state " + f"{zlib.crc32(body):08x} ".encode() + body + b"\n"


def test_game_state_reads_the_kept_units_and_never_a_state_that_does_not_fit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "g.toml"
    saves.new_game(path, "G", ["ocs"])
    saves.import_units(
        path,
        [
            {"name": "21 Pz", "side": "Axis", "factor": 6, "steps": 3, "ar": 4, "re": 2.5},
            {"name": "7 Armd", "side": "Allied", "factor": 5, "steps": 2, "ar": 3},
        ],
    )
    saves.take_losses(path, [{"unit": "21 Pz", "steps": 1}])
    replayed = states(saves.load_game(path))
    reads: list[Path] = []

    def counted(file: Path, *args: object) -> object:
        reads.append(file)
        return read_entries(file, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(saves_units, "read_entries", counted)
    # The state kept: the units as the replay leaves them, the log not read.
    kept = saves.game_state(path)
    assert states(kept) == replayed and reads == []
    assert kept.units["21 Pz"].steps_left == 2 and kept.units["21 Pz"].fields["re"] == 2.5

    # A unit of the wrong shape under a sound checksum: not used; the log says.
    lock = path.with_name("g.toml.lock")
    record, state = lock.read_bytes().split(b"\n", 1)
    body = json.loads(state[len(b"state ") :].split(b" ", 1)[1])
    for bad in (["21 Pz", "Axis"], [*body["units"][0][:4], True, 0, False, []]):
        forged = dict(body, units=[bad, *body["units"][1:]])
        lock.write_bytes(record + b"\n" + with_checksum(json.dumps(forged).encode()))
        assert states(saves.game_state(path)) == replayed
        assert reads.pop() == path
    # The state as written again (one more entry through the store): read without the log.
    saves.take_losses(path, [{"unit": "7 Armd", "eliminated": True}])
    assert saves.game_state(path).units["7 Armd"].alive is False and reads == []
    # The save written by another program after the state was kept: the log read.
    path.write_bytes(path.read_bytes())
    assert states(saves.game_state(path)) == states(saves.load_game(path))
    assert reads == [path]
