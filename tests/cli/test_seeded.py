"""A seeded roll, as a player makes one at the command line (in a subprocess): logged as
seeded with its seed, shown so in the log and the report, and counted apart by luck."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import crtdesk_cli as crtdesk


def test_a_seeded_roll_is_logged_shown_and_judged_as_seeded(tmp_path: Path) -> None:
    crtdesk(tmp_path, "new", "g", "--title", "G", "--ruleset", "pod-basic")
    basic = ("resolve", "pod-basic", "--attack", "8", "--defense", "2", "--save", "g")
    shown = crtdesk(tmp_path, *basic, "--seed", "3")
    crtdesk(tmp_path, *basic, "--seed", "3")  # the same seed: the same die
    crtdesk(tmp_path, *basic)  # the desk's own dice
    crtdesk(tmp_path, *basic, "--roll", "5")  # dice by hand

    log = json.loads(crtdesk(tmp_path, "log", "g", "--json"))["entries"]
    seeded, again, desk, hand = (entry["dice"] for entry in log)
    assert [(d["source"], d.get("seed")) for d in seeded] == [("seed", 3)]
    assert again == seeded
    face = seeded[0]["total"]
    assert [d["source"] for d in desk] == ["desk"] and "seed" not in desk[0]
    assert [d["source"] for d in hand] == ["manual"]
    assert f"1d6 {face} (seed 3)" in shown

    rows = crtdesk(tmp_path, "log", "g").splitlines()[3:]
    assert [f"1d6 {face} (seed 3)" in row for row in rows] == [True, True, False, False]
    assert "(desk)" in rows[2] and "(by hand)" in rows[3]

    luck = json.loads(crtdesk(tmp_path, "luck", "g", "--json"))
    [everyone] = [g for g in luck["groups"] if g["player"] is None]
    assert everyone["seed_combats"]["combats"] == 2
    assert everyone["desk_combats"]["combats"] == 1
    assert everyone["manual_combats"]["combats"] == 1
    [seed_faces] = everyone["seed_dice"]
    [desk_faces] = everyone["desk_dice"]
    assert seed_faces["counts"][str(face)] == seed_faces["dice"] == 2
    assert desk_faces["dice"] == 1
    assert [c["source"] for c in luck["combats"]] == ["seed", "seed", "desk", "manual"]
    text = crtdesk(tmp_path, "luck", "g")
    assert "Seeded (apart): 2 d6" in text

    report = crtdesk(tmp_path, "report", "g", "--markdown")
    assert report.count(f"combat `1d6 {face} (seed 3)`") == 2
    assert report.count("seeded dice).") == 2
    assert "| Seeded |" in report


def test_a_seed_a_save_cannot_keep_is_refused_before_anything_is_rolled(tmp_path: Path) -> None:
    crtdesk(tmp_path, "new", "g", "--title", "G", "--ruleset", "pod-basic")
    before = (tmp_path / "g.toml").read_bytes()
    done = subprocess.run(
        [
            *(sys.executable, "-m", "tui.cli", "resolve", "pod-basic", "--attack", "8"),
            *("--defense", "2", "--seed", "99999999999999999999", "--save", "g"),
            *("--saves", str(tmp_path)),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "crtdesk: --seed: '99999999999999999999' is not allowed; expected a whole number "
        "from -9223372036854775808 to 9223372036854775807\n"
    )
    assert (tmp_path / "g.toml").read_bytes() == before
    # The edges of the range are kept, and read back.
    for seed in ("-9223372036854775808", "9223372036854775807"):
        crtdesk(
            tmp_path,
            "resolve",
            "pod-basic",
            "--attack",
            "8",
            "--defense",
            "2",
            "--seed",
            seed,
            "--save",
            "g",
        )
    log = json.loads(crtdesk(tmp_path, "log", "g", "--json"))["entries"]
    assert [e["dice"][0]["seed"] for e in log] == [-(2**63), 2**63 - 1]
