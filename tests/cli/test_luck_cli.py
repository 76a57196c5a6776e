"""`crtdesk luck` as a player runs it, in a subprocess: the text and the JSON say the same
thing about every combat luck leaves out."""

from __future__ import annotations

import json
import re
from pathlib import Path

from msgspec.structs import replace

from tests.conftest import crtdesk_cli as crtdesk
from tui import saves
from tui.engine import CombatInput, Unit, resolve


def left_out_in_text(text: str) -> dict[int, str]:
    """Each combat the text names as not judged, with the reason it gives (lines broken to
    fit the terminal are joined again)."""
    _, _, tail = text.partition("\nNot judged")
    found: dict[int, str] = {}
    for item in re.split(r"\n  (?=#)", " ".join(tail.split("\n    "))):
        numbers, _, why = item.partition(": ")
        for seq in re.findall(r"#(\d+)", numbers):
            found[int(seq)] = why.strip()
    return found


def test_luck_text_gives_each_combat_left_out_the_reason_its_json_gives(tmp_path: Path) -> None:
    crtdesk(tmp_path, "new", "g", "--title", "G", "--ruleset", "pod-basic", "pod-super")
    # 1: judged. 2: an Automatic Victory, no dice. 3: Stanfill cancels the result.
    crtdesk(tmp_path, "resolve", "pod-basic", "--attack", "8", "--defense", "2", "--save", "g")
    crtdesk(tmp_path, "resolve", "pod-basic", "--attack", "12", "--defense", "2", "--save", "g")
    crtdesk(
        tmp_path,
        *("resolve", "pod-super", "--attack", "6", "--defense", "2", "--roll", "8"),
        *("--defender-card", "stanfill", "--save", "g"),
    )
    # 4: dice by hand, judged apart. 5: a Joker played after 4's roll, read as rolled.
    crtdesk(
        tmp_path,
        *("resolve", "pod-super", "--attack", "6", "--defense", "2", "--roll", "7"),
        *("--save", "g"),
    )
    path = tmp_path / "g.toml"
    rolled = CombatInput("pod-super", (Unit(6),), (Unit(2),), roll=7)
    again = resolve(replace(rolled, attacker_card="joker"))
    again.dice = list(resolve(rolled).dice)
    saves.append_combat(path, replace(rolled, attacker_card="joker"), again, amends=4, who="bob")
    # 6: another Automatic Victory, after the others.
    crtdesk(tmp_path, "resolve", "pod-basic", "--attack", "14", "--defense", "2", "--save", "g")

    report = json.loads(crtdesk(tmp_path, "luck", "g", "--json"))
    in_json = {s["seq"]: s["why"] for s in report["skipped"]}
    assert sorted(in_json) == [2, 3, 5, 6]
    assert len(set(in_json.values())) == 3  # three reasons, each its own words
    assert [c["seq"] for c in report["combats"]] == [1, 4]

    text = crtdesk(tmp_path, "luck", "g")
    assert left_out_in_text(text) == in_json
