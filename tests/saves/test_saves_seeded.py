"""Dice the desk rolled from a player's seed, in the store: kept with their seed and read
back so by every reader; a seed that is not a whole number, or a seeded die without its
seed, refused in one line naming it, by the loaders, the streamed reader and the CLI alike;
older saves (no seed anywhere) load as before."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tui import saves
from tui.engine.combat import CombatInput, Unit
from tui.engine.dice import DiceRoll
from tui.engine.procedure import answer_from, run
from tui.engine.tables import default_tables
from tui.saves import SaveError

BASIC = CombatInput("pod-basic", (Unit(8),), (Unit(2),))


@pytest.fixture
def game(tmp_path: Path) -> Path:
    """A desk roll, then a roll from seed 3 (entry 2), then one by hand."""
    path = tmp_path / "g.toml"
    saves.new_game(path, "Seeded", ["pod-basic"])
    for seed in (None, 3):
        combat, outcome = run(BASIC, default_tables(), answer_from(BASIC, None, seed))
        saves.append_combat(path, combat, outcome, who="alice")
    hand = CombatInput("pod-basic", (Unit(8),), (Unit(2),), roll=4)
    combat, outcome = run(hand, default_tables(), answer_from(hand, None))
    saves.append_combat(path, combat, outcome, who="alice")
    return path


def edit_entry(path: Path, seq: int, old: str, new: str) -> None:
    """A hand edit inside entry `seq` (its checksum no longer holds), a while later."""
    status = path.stat()
    data = path.read_text(encoding="utf-8")
    start = data.index(f'[[log]]\n"seq" = {seq}\n')
    end = data.index("# end of entry", start)
    assert old in data[start:end]
    path.write_text(data[:start] + data[start:end].replace(old, new, 1) + data[end:])
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns + 2_000_000_000))


def test_a_seeded_die_is_kept_with_its_seed_and_read_back_by_every_reader(game: Path) -> None:
    dice = [e["dice"] for e in saves.load_game(game).entries]
    assert [[(d["source"], d.get("seed")) for d in roll] for roll in dice] == [
        [("desk", None)],
        [("seed", 3)],
        [("manual", None)],
    ]
    assert '"source" = "seed", "seed" = 3 }]' in game.read_text(encoding="utf-8")
    assert [r.entry["dice"] for r in saves.read_entries(game)] == dice
    rolled = DiceRoll.from_dict(dice[1][0])
    assert (rolled.source, rolled.seed, rolled.rolled) == ("seed", 3, True)
    assert rolled.to_dict() == dice[1][0]
    assert not DiceRoll.from_dict(dice[2][0]).rolled
    # Read by hand (tomllib) after an edit elsewhere in it, the seed is the same.
    edit_entry(game, 2, '"who" = "alice"', '"who" = "alicia"')
    assert saves.load_game(game).entries[1]["dice"] == dice[1]


def test_a_save_without_seeds_loads_as_before(tmp_path: Path) -> None:
    # Written as a crtdesk before seeded dice wrote it: a die with no 'seed' key at all.
    path = tmp_path / "old.toml"
    saves.new_game(path, "Old", ["pod-basic"])
    combat, outcome = run(BASIC, default_tables(), answer_from(BASIC, None))
    saves.append_combat(path, combat, outcome)
    text = path.read_text(encoding="utf-8")
    assert "seed" not in text.split("# end of header")[1]
    [entry] = saves.load_game(path).entries
    assert (
        entry["dice"][0]["source"] == "desk" and DiceRoll.from_dict(entry["dice"][0]).seed is None
    )


BAD_SEEDS = [
    ('"seed" = 3', '"seed" = "x"', "a die's 'seed' must be a whole number, not 'x'"),
    ('"seed" = 3', '"seed" = 3.5', "a die's 'seed' must be a whole number, not 3.5"),
    (', "seed" = 3', "", "a die rolled from a seed (source \"seed\") must keep its 'seed'"),
    (
        '"source" = "seed"',
        '"source" = "desk"',
        "a die with a 'seed' was rolled from it: its 'source' must be \"seed\", not 'desk'",
    ),
]


@pytest.mark.parametrize(("old", "new", "said"), BAD_SEEDS)
def test_a_bad_seed_is_refused_in_one_line_by_every_reader(
    game: Path, old: str, new: str, said: str
) -> None:
    edit_entry(game, 2, old, new)
    with pytest.raises(SaveError) as loading:
        saves.load_game(game)
    message = str(loading.value)
    assert "entry 2: " + said in message and "\n" not in message
    assert message.startswith(f"{game}: line ")
    with pytest.raises(SaveError) as streaming:
        list(saves.read_entries(game))
    assert str(streaming.value) == message
    before = game.read_bytes()
    with pytest.raises(SaveError) as appending:
        saves.add_marker(game, "DG", "0101")
    assert str(appending.value) == message and game.read_bytes() == before
    # The CLI's readers name it the same, in one line, and never crash.
    for command in (["log", "g"], ["luck", "g"], ["report", "g", "--markdown"]):
        done = subprocess.run(
            [sys.executable, "-m", "tui.cli", *command, "--saves", str(game.parent)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode != 0 and done.stdout == ""
        assert "Traceback" not in done.stderr
        assert done.stderr.strip().splitlines() == [f"crtdesk: {message}"], command
    # Repair keeps the sound entries and sets the bad one aside, with its reason.
    repaired = saves.repair_save(game)
    [(_, reason)] = repaired.set_aside
    assert said in reason
    assert [e["dice"][0]["source"] for e in saves.load_game(game).entries] == ["desk", "manual"]
