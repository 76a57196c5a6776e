"""The save store against real separate processes: two writers appending at once, and
writers killed with SIGKILL in the middle of a loop of appends (and in the middle of a
write, by slowing the write down)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
import tomllib
from pathlib import Path

from tui import saves
from tui.saves import decoding

WRITER = textwrap.dedent(
    """
    import random, sys, time
    from pathlib import Path
    from tui import saves
    from tui.engine.combat import CombatInput, resolve

    path, name, count, go, slow = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
    if slow == "slow":
        import os
        def crawl(fd, data):  # write 16 bytes at a time, so a kill lands mid-entry
            for at in range(0, len(data), 16):
                os.write(fd, data[at : at + 16])
                time.sleep(0.0003)
        saves.files._write_all = crawl
    combat = CombatInput("pod-boom", step="crt", caf=9)
    rng = random.Random(name)
    while go != "-" and not Path(go).exists():
        time.sleep(0.001)
    number = 0
    while count < 0 or number < count:
        saves.append_combat(path, combat, resolve(combat, rng=rng), note=f"{name} {number}")
        print(number, flush=True)
        number += 1
    """
)


def _writer(
    path: Path, name: str, count: int, go: str = "-", slow: str = "fast"
) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), name, str(count), go, slow],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _notes(path: Path) -> list[str]:
    return [e["note"] for e in saves.load_game(path).entries if e["kind"] == "combat"]


def test_two_processes_appending_200_each_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    path = tmp_path / "shared.toml"
    saves.new_game(path, "Shared", ["pod-boom"])
    go = tmp_path / "go"
    writers = [_writer(path, name, 200, str(go)) for name in ("alice", "bob")]
    time.sleep(0.3)  # both started and waiting at the barrier
    go.touch()
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
    game = saves.load_game(path)
    assert game.warnings == []
    combats = [e for e in game.entries if e["kind"] == "combat"]
    assert len(combats) == 400
    assert [e["seq"] for e in game.entries] == list(range(1, 401))
    for name in ("alice", "bob"):
        mine = [e["note"] for e in combats if e["note"].startswith(name)]
        assert mine == [f"{name} {n}" for n in range(200)]
    # They really ran at the same time: the two players' entries interleave.
    owners = [e["note"].split()[0] for e in combats]
    switches = sum(1 for a, b in zip(owners, owners[1:], strict=False) if a != b)
    assert switches >= 2
    assert tomllib.loads(path.read_text(encoding="utf-8"))["log"] == game.entries


def _kill_rounds(path: Path, rounds: int, slow: str, rng: random.Random) -> list[str]:
    """Start a writer that appends forever, kill it with SIGKILL after some acknowledged
    appends; `rounds` times. The notes of every append that returned before the kill."""
    acknowledged: list[str] = []
    for round_ in range(rounds):
        writer = _writer(path, f"r{round_}", -1, slow=slow)
        assert writer.stdout is not None
        wanted = rng.randint(3, 25)
        for _ in range(wanted):
            line = writer.stdout.readline()
            assert line, writer.stderr.read() if writer.stderr else ""
            acknowledged.append(f"r{round_} {int(line)}")
        time.sleep(rng.uniform(0, 0.02))
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait(timeout=30)
        assert writer.returncode == -signal.SIGKILL
        writer.stdout.close()
        if writer.stderr:
            writer.stderr.close()
        notes = _notes(path)  # loads, leaving out a torn entry if the kill left one
        assert set(acknowledged) <= set(notes)
    return acknowledged


def test_a_writer_killed_in_a_loop_of_appends_loses_no_returned_append(tmp_path: Path) -> None:
    path = tmp_path / "killed.toml"
    saves.new_game(path, "Killed", ["pod-boom"])
    acknowledged = _kill_rounds(path, 5, "fast", random.Random(11))
    saves.repair_save(path)  # the last kill may have cut a write short: reading leaves it
    game = saves.load_game(path)
    notes = [e["note"] for e in game.entries if e["kind"] == "combat"]
    assert set(acknowledged) <= set(notes)
    assert len(notes) == len(set(notes))
    assert [e["seq"] for e in game.entries] == list(range(1, len(game.entries) + 1))
    assert tomllib.loads(path.read_text(encoding="utf-8"))["log"] == game.entries


def test_a_writer_killed_mid_write_leaves_a_torn_entry_that_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "torn.toml"
    saves.new_game(path, "Torn", ["pod-boom"])
    acknowledged = _kill_rounds(path, 4, "slow", random.Random(5))
    # Each next writer set aside the torn entry the kill before left; the last one is repaired.
    saves.repair_save(path)
    backups = sorted(tmp_path.glob("torn.toml.bak-*"))
    print(f"{len(backups)} torn entries set aside in 4 kills")
    assert backups, "no kill landed mid-write: the test did not test a torn entry"
    final = path.read_bytes()
    for backup in backups:
        original = backup.read_bytes()
        cut = decoding._torn_cut(original)
        assert cut is not None  # the backup holds the torn bytes, as they were
        assert final.startswith(original[:cut])  # and the file went on from the cut
    game = saves.load_game(path)
    notes = [e["note"] for e in game.entries if e["kind"] == "combat"]
    assert set(acknowledged) <= set(notes)
    assert [e["seq"] for e in game.entries] == list(range(1, len(game.entries) + 1))
    assert tomllib.loads(final.decode("utf-8"))["log"] == game.entries
