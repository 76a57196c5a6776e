"""Benchmark the save store: appending to a new save and to a 10,000-entry one, and loading.

    .venv/bin/python bench/bench_saves.py [--entries N] [--appends N]

    .venv/bin/python bench/bench_saves.py --no-fsync   # the store's own work, no disk flush

Prints one table. Appends are timed one by one (lock, check the record, read the ends,
write, fsync), to the new save and the big one in turn so that a busy machine slows both
alike, and the ratio of their medians is printed last; the first append after the big save
was written outside the store checks the whole file once (as a load would) and is shown on
its own row; loads in this process and in a fresh one (what `crtdesk log` pays). Nothing
here is a test: the numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from pathlib import Path

from tui import saves
from tui.engine.combat import CombatInput, Outcome, Unit, resolve

RULESETS = ["pod-super", "pod-boom", "ocs", "daynight"]


def combats(rng: random.Random) -> list[tuple[CombatInput, Outcome]]:
    """One combat of each kind the bench writes, resolved with the desk's dice."""
    inputs = [
        CombatInput(
            "pod-super",
            attackers=(Unit(4), Unit(3, "town")),
            defenders=(Unit(2),),
            attacker_card="jack",
        ),
        CombatInput("pod-boom", step="crt", caf=9),
        CombatInput(
            "ocs",
            attackers=(Unit(12),),
            defenders=(Unit(3),),
            terrain="close",
            attacker_ar=4,
            defender_ar=2,
        ),
        CombatInput(
            "daynight",
            attackers=(Unit(9),),
            defenders=(Unit(3),),
            terrain="woods",
            time="night",
        ),
    ]
    return [(combat, resolve(combat, rng=rng)) for combat in inputs]


def build(path: Path, entries: int, rng: random.Random) -> None:
    """A save of `entries` entries written as the store writes them (one write, no lock)."""
    saves.new_game(path, f"{entries} entries", RULESETS)
    pool = [combat for _ in range(50) for combat in combats(rng)]
    blocks = []
    for seq in range(2, entries + 1):
        record = pool[seq % len(pool)][1].to_dict()
        entry = {"seq": seq, "kind": "combat", "turn": 1 + seq // 500, "when": saves._now()}
        entry |= {"who": "bench", "ruleset": record.pop("ruleset")} | record
        blocks.append(saves._block(entry))
    with path.open("ab") as handle:
        handle.write(b"".join(blocks))


def timed(action: Callable[[], object], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return times


def timed_in_turn(
    first: Callable[[], object], second: Callable[[], object], repeat: int
) -> tuple[list[float], list[float]]:
    """Both actions timed `repeat` times each, one after the other in turn."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for action, kept in ((first, times[0]), (second, times[1])):
            kept.extend(timed(action, 1))
    return times


def fresh_process_load(path: Path, repeat: int) -> list[float]:
    code = (
        "import sys, time; from pathlib import Path; from tui import saves; "
        "t = time.perf_counter(); g = saves.load_game(Path(sys.argv[1])); "
        "print(time.perf_counter() - t, len(g.entries))"
    )
    times = []
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True
        )
        times.append(float(out.stdout.split()[0]))
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--appends", type=int, default=200)
    parser.add_argument(
        "--no-fsync", action="store_true", help="time without flushing to disk (os.fsync stubbed)"
    )
    args = parser.parse_args()
    if args.no_fsync:
        os.fsync = lambda fd: None
    rng = random.Random(1)
    rows: list[tuple[str, list[float]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        small, big = folder / "new.toml", folder / "big.toml"
        saves.new_game(small, "new", RULESETS)
        build(big, args.entries, rng)
        size = big.stat().st_size
        pool = combats(rng)

        def append(path: Path) -> Callable[[], object]:
            return lambda: saves.append_combat(path, *rng.choice(pool))

        rows.append(
            (
                f"first append after an outside write, {args.entries:,}",
                timed(append(big), 1),
            )
        )
        on_new, on_big = timed_in_turn(append(small), append(big), args.appends)
        rows.append(("append_combat, new save", on_new))
        rows.append((f"append_combat, {args.entries:,}-entry save", on_big))
        rows.append(
            ("add_marker, new save", timed(lambda: saves.add_marker(small, "DG", "0101"), 50))
        )
        rows.append(
            (
                f"add_marker, {args.entries:,}-entry save",
                timed(lambda: saves.add_marker(big, "DG", "0101"), 50),
            )
        )
        rows.append(
            (
                f"advance_turn (replays all), {args.entries:,}",
                timed(lambda: saves.advance_turn(big), 3),
            )
        )
        rows.append(
            (f"load_game, {args.entries:,} entries", timed(lambda: saves.load_game(big), 5))
        )
        rows.append((f"load_game, {args.entries:,}, fresh process", fresh_process_load(big, 3)))
        rows.append(("list_games (2 saves)", timed(lambda: saves.list_games(folder), 20)))
        text = big.read_text(encoding="utf-8")
        rows.append(
            ("reference: tomllib.loads of the same file", timed(lambda: tomllib.loads(text), 1))
        )

    print(
        f"Save store benchmark: {args.entries:,}-entry save of {size / 1e6:.1f} MB, Python "
        f"{sys.version.split()[0]}{', fsync stubbed out' if args.no_fsync else ''}"
    )
    print(f"{'operation':46}  {'runs':>5}  {'median ms':>10}  {'p95 ms':>8}  {'max ms':>8}")
    for name, times in rows:
        ordered = sorted(times)
        p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
        print(
            f"{name:46}  {len(times):>5}  {statistics.median(times) * 1000:>10.2f}  "
            f"{p95 * 1000:>8.2f}  {max(times) * 1000:>8.2f}"
        )
    ratio = statistics.median(on_big) / statistics.median(on_new)
    print(f"append_combat median, {args.entries:,}-entry save / new save: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
