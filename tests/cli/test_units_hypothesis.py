"""Random units, combats and choices, through the CLI: after each command, the units' state
`crtdesk units FILE --json` gives (kept beside the save, never the log re-read) equals a
plain replay of the log written here, and what a combat logged for its units matches what
its result takes."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui import saves
from tui.cli import main

AXIS = {"21 Pz": 3, "15 Pz": 2, "90 Lt": 1}
ALLIED = {"7 Armd": 3, "9 Inf": 2, "4 Ind": 2}


def plain_replay(entries: list[dict[str, Any]]) -> tuple[dict[str, dict], list[tuple]]:
    """The units (steps lost, eliminated) and the open losses as the log's entries say,
    read the simplest way."""
    units: dict[str, dict] = {}
    still: dict[int, list[dict]] = {}
    for entry in entries:
        if entry["kind"] == "units":
            for record in entry["units"]:
                units[record["name"]] = {"steps": record["steps"], "lost": 0, "gone": False}
        for loss in entry.get("losses", []) if entry["kind"] in ("combat", "loss") else []:
            unit = units[loss["unit"]]
            unit["lost"] += loss.get("steps", 0)
            if "eliminated" in loss:
                unit["gone"] = loss["eliminated"]
        if entry["kind"] == "combat" and entry.get("open_losses"):
            still[entry["seq"]] = [dict(o) for o in entry["open_losses"]]
        if entry["kind"] == "loss" and entry.get("combat") in still:
            owed = still[entry["combat"]]
            for loss in entry["losses"]:
                mine = [o for o in owed if loss["unit"] in o["units"]]
                steps = rest = loss.get("steps", 0)
                open_steps = [o for o in mine if o["what"] == "steps" and o["amount"] > 0]
                for o in open_steps:
                    take = min(rest, o["amount"])
                    o["amount"] -= take
                    rest -= take
                for o in mine:
                    if o["what"] == "option" and (rest or not steps or not open_steps):
                        o["amount"] = 0
            still[entry["combat"]] = [o for o in owed if o["amount"] > 0]
        if entry.get("losses"):
            for seq, owed in still.items():
                still[seq] = [
                    o
                    for o in owed
                    if any(
                        not units[n]["gone"] and units[n]["lost"] < units[n]["steps"]
                        for n in o["units"]
                    )
                ]
        still = {seq: owed for seq, owed in still.items() if owed}
    listed = sorted(
        (seq, o["side"], o["what"], o["amount"], tuple(o["units"]))
        for seq, owed in still.items()
        for o in owed
    )
    return units, listed


def shown(out: str) -> tuple[dict[str, dict], list[tuple]]:
    data = json.loads(out)
    units = {
        u["name"]: {"steps": u["steps"], "lost": u["steps_lost"], "gone": u["eliminated"]}
        for u in data["units"]
    }
    listed = sorted(
        (o["combat"], o["side"], o["what"], o["amount"], tuple(o["units"]))
        for o in data["open_losses"]
    )
    return units, listed


def alive(units: dict[str, dict], names: dict[str, int]) -> list[str]:
    return [n for n in names if not units[n]["gone"] and units[n]["lost"] < units[n]["steps"]]


# One command: a combat (who fights, the seed of the desk's dice, hold, a choice), a take
# of an open loss (which, which unit, how many steps) or a correction (which unit).
COMMAND = st.one_of(
    st.tuples(
        st.just("combat"),
        st.lists(st.sampled_from(list(AXIS)), min_size=1, max_size=2, unique=True),
        st.lists(st.sampled_from(list(ALLIED)), min_size=1, max_size=2, unique=True),
        st.integers(0, 10_000),
        st.booleans(),
        st.none() | st.tuples(st.integers(0, 1), st.integers(0, 3)),
    ),
    st.tuples(st.just("take"), st.integers(0, 5), st.integers(0, 3), st.integers(0, 3)),
    st.tuples(st.just("correct"), st.sampled_from([*AXIS, *ALLIED])),
)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(commands=st.lists(COMMAND, min_size=1, max_size=8))
def test_units_state_after_each_command_is_the_logs_plain_replay(
    commands: list[tuple], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        monkeypatch.chdir(folder)
        monkeypatch.delenv(saves.SAVES_ENV, raising=False)
        assert main(["new", "g", "--title", "G", "--ruleset", "daynight"]) == 0
        rows = [f"{n},Axis,{4 + s},{s}" for n, s in AXIS.items()]
        rows += [f"{n},Allied,{3 + s},{s}" for n, s in ALLIED.items()]
        Path("oob.csv").write_text("name,side,factor,steps\n" + "\n".join(rows) + "\n")
        assert main(["units", "g", "import", "oob.csv"]) == 0
        path = Path(folder) / "saves" / "g.toml"
        capsys.readouterr()
        for command in commands:
            units, still = plain_replay(saves.load_game(path).entries)
            argv = _argv(command, units, still)
            if argv is None:
                continue
            before = path.read_bytes()
            status = main(argv)
            _, err = capsys.readouterr()
            # A take that does not fit is refused in one line, the save untouched.
            assert status in (0, 2) and "Traceback" not in err, err
            if status == 2:
                assert len(err.splitlines()) == 1 and path.read_bytes() == before, err
            assert main(["units", "g", "--json"]) == 0
            entries = saves.load_game(path).entries
            assert shown(capsys.readouterr().out) == plain_replay(entries)
            if status == 0 and command[0] == "combat":
                _check_combat(entries[-1], units)


def _argv(command: tuple, units: dict[str, dict], still: list[tuple]) -> list[str] | None:
    if command[0] == "combat":
        _, attackers, defenders, seed, hold, choice = command
        attackers = [n for n in attackers if n in alive(units, AXIS)]
        defenders = [n for n in defenders if n in alive(units, ALLIED)]
        if not attackers or not defenders:
            return None
        argv = ["resolve", "daynight", "--save", "g", "--seed", str(seed), "--terrain", "clear"]
        argv += ["--hold" if hold else "--no-hold"]
        argv += [f for n in attackers for f in ("--attacker-unit", n)]
        argv += [f for n in defenders for f in ("--defender-unit", n)]
        if choice is not None:
            side, amount = choice
            name = (attackers, defenders)[side][0]
            argv += [f"--{('attacker', 'defender')[side]}-takes", f"{name}={amount}"]
        return argv
    if command[0] == "take":
        _, which, unit, steps = command
        if not still:
            return None
        seq, _, _, _, names = still[which % len(still)]
        name = names[unit % len(names)]
        return ["units", "g", "take", name, "--steps", str(steps), "--combat", str(seq)]
    name = command[1]
    if units[name]["lost"] == 0:
        return None
    return ["units", "g", "take", name, "--steps", "-1", "--back"]


def _check_combat(entry: dict[str, Any], before: dict[str, dict]) -> None:
    """A combat's losses and open losses take what its result says: each side's mandatory
    steps (all it has left at most) lost or still open, and at most its option's steps
    more (chosen with --attacker-takes/--defender-takes)."""
    for side, names in entry["units"].items():
        said = entry["effects"].get(side) or {}
        lost = sum(
            loss.get("steps", 0) for loss in entry.get("losses", []) if loss["unit"] in names
        )
        owed = sum(
            o["amount"]
            for o in entry.get("open_losses", [])
            if o["side"] == side and o["what"] == "steps"
        )
        left = sum(before[n]["steps"] - before[n]["lost"] for n in names)
        steps = said.get("steps_lost", 0)
        option = (
            said.get("option")
            or said.get("retreat_or_steps")
            or int(bool(said.get("retreat_or_step")))
        )
        assert min(steps, left) <= lost + owed <= min(steps + option, left), entry
