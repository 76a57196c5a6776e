"""How long the live odds preview's engine work takes per keystroke: one exact
distribution for a typical combat of each ruleset. Prints a table; not a test.

    .venv/bin/python bench/bench_preview.py
"""

from __future__ import annotations

import statistics
import time

from tui.engine import CombatInput, Unit, distribution

CASES = {
    "pod-basic": CombatInput("pod-basic", (Unit(8),), (Unit(2),), buddy="attacker"),
    "pod-super": CombatInput(
        "pod-super", (Unit(4, "town"), Unit(3)), (Unit(2),), attacker_card="jack"
    ),
    "pod-ultra": CombatInput("pod-ultra", (Unit(9),), obstacle="mines"),
    "pod-boom (chain)": CombatInput(
        "pod-boom", (Unit(6), Unit(4), Unit(2)), aaf=3, long_range=True
    ),
    "ocs (surprise folded in)": CombatInput(
        "ocs", (Unit(7),), (Unit(2),), terrain="close", attacker_ar=3, defender_ar=2, hedgehog=1
    ),
    "rivets": CombatInput("rivets", (Unit(5),), (Unit(2),)),
    "daynight (ENG/BTL battle)": CombatInput(
        "daynight", (Unit(4),), (Unit(2),), terrain="clear", reserve=4, press_on=True
    ),
}


def main() -> None:
    print(f"{'ruleset':28} {'runs':>5} {'median ms':>10} {'max ms':>8} {'cells':>6}")
    for name, combat in CASES.items():
        times = []
        cells = 0
        for _ in range(15):
            start = time.perf_counter()
            cells = len(distribution(combat).outcomes)
            times.append((time.perf_counter() - start) * 1000)
        print(
            f"{name:28} {len(times):>5} {statistics.median(times):>10.2f} {max(times):>8.2f} {cells:>6}"
        )


if __name__ == "__main__":
    main()
