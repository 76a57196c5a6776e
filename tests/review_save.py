"""A generated campaign for the log review's tests: `count` entries written as the store
writes them (one write), with fixed times so snapshots stay the same, three players, two
rulesets, ten turns of combats, a marker with a note, a note entry and an after-roll card."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from tui import saves
from tui.engine import CombatInput, Unit, resolve
from tui.saves import encoding
from tui.saves.encoding import _without_none

PLAYERS = ("ann", "bob", "cy")
RULESETS = ("rivets", "pod-basic")
WHEN = "2026-11-20T18:{:02d}:00+00:00"


@cache
def _outcome(ruleset: str, attack: int, defence: int, roll: int) -> dict[str, Any]:
    combat = CombatInput(ruleset, attackers=(Unit(attack),), defenders=(Unit(defence),), roll=roll)
    return resolve(combat).to_dict()


def combat_entry(seq: int, turn: int) -> dict[str, Any]:
    """Entry `seq`: a combat whose inputs follow from its number."""
    ruleset = RULESETS[seq % 2]
    record = _outcome(ruleset, 4 + seq % 7, 2 + seq % 3, 1 + seq % 6)
    fields = {k: v for k, v in record.items() if k != "ratio"}
    return _without_none(
        {
            "seq": seq,
            "kind": "combat",
            "turn": turn,
            "when": WHEN.format(seq % 60),
            "who": PLAYERS[seq % 3],
            **fields,
            "markers": None,
        }
    )


def campaign(folder: Path, count: int = 1000) -> tuple[Path, list[dict[str, Any]]]:
    """The save and the entries written to it. Turns are 1 + (seq - 1) // (count // 10).
    Entry 3 gets a note (the last entry), entry 5 is amended by the card of entry 6, and
    entry 7 places a DG marker with a note; a turn entry starts each turn after the first."""
    path = folder / "campaign.toml"
    saves.new_game(path, "Long campaign", list(RULESETS), {})
    per_turn = max(1, count // 10)
    entries = []
    for seq in range(1, count):
        turn = 1 + (seq - 1) // per_turn
        entry = combat_entry(seq, turn)
        if seq == 6:
            entry = combat_entry(5, turn) | {
                "seq": 6,
                "amends": 5,
                "note": "Joker played by the defender after the roll of entry 5",
            }
        if seq == 7:
            entry = {
                "seq": 7,
                "kind": "place-marker",
                "turn": turn,
                "when": WHEN.format(7),
                "who": "ann",
                "marker": {
                    "id": "7.1",
                    "kind": "DG",
                    "target": "0712",
                    "side": "Axis",
                    "note": "cut off",
                },
            }
        if seq > 7 and turn > entries[-1]["turn"]:
            entry = {"seq": seq, "kind": "turn", "turn": turn, "when": WHEN.format(0), "who": "ann"}
        entries.append(entry)
    note = {
        "seq": count,
        "kind": "note",
        "turn": entries[-1]["turn"] if entries else 1,
        "when": WHEN.format(0),
        "who": "bob",
        "annotates": 3,
        "text": "the dice were rolled twice",
    }
    entries.append(note)
    with path.open("ab") as handle:
        handle.write(b"".join(encoding._block(e) for e in entries))
    return path, entries
