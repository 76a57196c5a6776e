"""A player's chart's modifiers beyond a side's total (issue 30, B): a number counted in
steps of `per` (rounded as the chart says), a modifier on one unit (a mark the unit
carries: N@MARK), and a modifier that acts only when another is set; each bad value a
chart can give them refused in one line, and each worked out by hand here."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from tui.cli import main
from tui.engine import registry
from tui.engine.cells import plain
from tui.engine.combat import CombatInput, Unit, distribution, resolve
from tui.engine.errors import InputError
from tui.engine.rulesets.charts.chart import ChartError
from tui.engine.rulesets.charts.reading import load_chart, parse_chart

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"
VARN = DOCS / "siege-of-varn.toml"

# A chart whose cells say nothing: the tests read the totals, the DRM and the trace.
BASE = """
[game]
title = "Modifiers"
dice = "1d6"

[crt]
kind = "odds"
columns = ["1-2", "1-1", "2-1", "3-1"]

[crt.rows]
"1-6" = ["AR", "EX", "DR", "DE"]

[results]
AR = "Attacker retreats"
EX = "Exchange"
DR = "Defender retreats"
DE = "Defender eliminated"
"""


def game(modifiers: str, name: str = "mods") -> str:
    """The base chart with these [[modifiers]] tables, registered; its ruleset id."""
    chart = parse_chart(BASE + modifiers, f"{name}.toml", name)
    registry.chart_ruleset(chart)
    return registry.chart_id(name)


def refused(modifiers: str) -> str:
    with pytest.raises(ChartError) as err:
        parse_chart(BASE + modifiers, "bad.toml", "bad")
    said = str(err.value)
    assert "\n" not in said and said.startswith("bad.toml:")
    return said


ARTILLERY = """
[[modifiers]]
name = "artillery"
label = "Artillery"
input = "number"
effect = "drm"
low = 0
high = 99
by = 1
per = 6
"""


# --- per: one step of `by` for every `per` units typed -------------------------------------------


@pytest.mark.parametrize(
    ("rounding", "typed", "drm"),
    [
        (None, 13, 2),  # rounded down, the default
        ("down", 13, 2),
        ("down", 5, 0),
        ("up", 13, 3),
        ("up", 12, 2),
        ("nearest", 15, 3),  # 2.5: a half goes up
        ("nearest", 14, 2),  # 2.33
        ("nearest", 17, 3),  # 2.83
    ],
)
def test_a_drm_per_six_artillery_points(rounding: str | None, typed: int, drm: int) -> None:
    said = ARTILLERY + (f'round = "{rounding}"\n' if rounding else "")
    ruleset = game(said, f"per-{rounding or 'default'}")
    combat = CombatInput(ruleset, (Unit(2),), (Unit(2),), roll=1, modifiers=(("artillery", typed),))
    outcome = resolve(combat)
    assert outcome.dice[0].modifier == drm
    how = f"rounded {rounding or 'down'}" if rounding != "nearest" else "rounded to the nearest"
    steps = f"{drm} step{'s' if drm != 1 else ''}"
    assert f"Artillery {typed}: {steps} of 6 ({how}) x +1" in outcome.trace


def test_per_on_an_add_counts_steps_of_a_sides_total() -> None:
    ruleset = game(
        '[[modifiers]]\nname = "reserve"\ninput = "number"\neffect = "add"\nside = "attacker"\n'
        "low = 0\nhigh = 20\nby = 2\nper = 3\n",
        "per-add",
    )
    outcome = resolve(
        CombatInput(ruleset, (Unit(4),), (Unit(4),), roll=1, modifiers=(("reserve", 7),))
    )
    assert outcome.attack_total == 8  # 7 is 2 steps of 3, each +2


# --- a modifier on one unit -----------------------------------------------------------------------


def test_fortification_doubles_one_defending_unit() -> None:
    ruleset = registry.chart_id(load_chart(VARN).name)
    registry.chart_ruleset(load_chart(VARN))
    outcome = resolve(CombatInput(ruleset, (Unit(22),), (Unit(4, "fort"), Unit(3)), roll=1))
    assert outcome.defense_total == 11  # 4 doubled, and 3
    assert outcome.column == "2-1"
    assert "Fortified: defender's unit 4@fort x2 -> 8" in outcome.trace
    assert "Attack total 22, defence total 11" in outcome.trace
    plain_ = resolve(CombatInput(ruleset, (Unit(22),), (Unit(4), Unit(3)), roll=1))
    assert (plain_.defense_total, plain_.column) == (7, "3-1")


def test_a_units_choice_adds_to_its_factor_never_below_zero() -> None:
    registry.chart_ruleset(load_chart(VARN))
    attackers = (Unit(5, "veteran"), Unit(1, "raw"), Unit(0, "raw"), Unit(2))
    outcome = resolve(CombatInput("game:siege-of-varn", attackers, (Unit(3),), roll=1))
    assert outcome.attack_total == 6 + 0 + 0 + 2
    assert "Troop quality: attacker's unit 1@raw -1 -> 0" in outcome.trace
    assert any("0@raw -1 (never below 0) -> 0" in line for line in outcome.trace)


def test_a_unit_mark_the_chart_does_not_have_is_refused() -> None:
    registry.chart_ruleset(load_chart(VARN))
    for attackers, defenders, said in (
        ((Unit(5),), (Unit(4, "woods"),), "4@woods"),
        ((Unit(5, "fort"),), (Unit(4),), "5@fort"),  # the defender's mark, not the attacker's
        ((Unit(5),), (Unit(4, "veteran"),), "4@veteran"),
    ):
        with pytest.raises(InputError) as err:
            resolve(CombatInput("game:siege-of-varn", attackers, defenders, roll=1))
        assert said in err.value.message()
        assert "N@MARK" in err.value.message()
    # A unit modifier is set by a unit's mark, never by a value of its own.
    with pytest.raises(InputError) as err:
        resolve(
            CombatInput(
                "game:siege-of-varn", (Unit(5),), (Unit(4),), roll=1, modifiers=(("fort", True),)
            )
        )
    assert "N@fort" in err.value.message()


def test_unit_marks_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["odds", str(VARN), "--attack", "22", "--defense", "4@fort", "--defense", "3"]
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["column"] == "2-1"
    assert (
        main(["resolve", str(VARN), "--attack", "5@veteran", "--defense", "3", "--roll", "2"]) == 0
    )
    out = capsys.readouterr().out
    assert "column 2-1" in out  # 6 against 3
    assert main(["resolve", str(VARN), "--attack", "5", "--defense", "4@woods", "--roll", "2"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "4@woods" in err and "fort" in err


# --- needs: a modifier that acts only when another is set ----------------------------------------


def test_siege_guns_need_a_fort() -> None:
    registry.chart_ruleset(load_chart(VARN))

    def siege(*defenders: Unit) -> tuple[int, list[str]]:
        outcome = resolve(
            CombatInput(
                "game:siege-of-varn",
                (Unit(8),),
                defenders,
                roll=1,
                modifiers=(("siege-guns", True),),
            )
        )
        return outcome.dice[0].modifier, outcome.trace

    drm, trace = siege(Unit(4))
    assert drm == 0
    assert "Siege guns: needs Fortified, not set: no effect" in trace
    drm, trace = siege(Unit(4, "fort"))
    assert drm == 1 and not any("needs" in line for line in trace)


def test_needs_a_number_not_zero_and_a_choice_chosen() -> None:
    ruleset = game(
        ARTILLERY + '[[modifiers]]\nname = "spotter"\ninput = "tick"\neffect = "drm"\nby = 1\n'
        'needs = "artillery"\n'
        '[[modifiers]]\nname = "weather"\ninput = "choice"\neffect = "shift"\n'
        "values = { rain = -1, clear = 0 }\n"
        '[[modifiers]]\nname = "mud"\ninput = "tick"\neffect = "multiply"\nside = "defender"\n'
        'by = 2\nneeds = "weather"\n',
        "needs",
    )

    def drm_and_defence(**mods: object) -> tuple[int, object]:
        outcome = resolve(
            CombatInput(ruleset, (Unit(4),), (Unit(2),), roll=1, modifiers=tuple(mods.items()))
        )
        return outcome.dice[0].modifier, outcome.defense_total

    assert drm_and_defence(spotter=True) == (0, 2)
    assert drm_and_defence(spotter=True, artillery=0) == (0, 2)  # 0 is not set
    assert drm_and_defence(spotter=True, artillery=3) == (1, 2)  # 0 steps, but set
    assert drm_and_defence(mud=True) == (0, 2)
    assert drm_and_defence(mud=True, weather="clear") == (0, 4)
    # The chances agree with the rolls: 4 against 4 is 1-1, an exchange on every roll.
    dist = distribution(
        CombatInput(
            ruleset, (Unit(4),), (Unit(2),), modifiers=(("mud", True), ("weather", "clear"))
        )
    )
    assert {json.dumps(plain(c)): p for c, p, _ in dist.outcomes} == {'"EX"': Fraction(1)}


# --- bad values, one line each ---------------------------------------------------------------------


TICK = '[[modifiers]]\nname = "{name}"\ninput = "tick"\neffect = "drm"\nby = 1\n'
FORT = (
    '[[modifiers]]\nname = "fort"\ninput = "tick"\neffect = "multiply"\nside = "defender"\n'
    'on = "unit"\nby = 2\n'
)


@pytest.mark.parametrize(
    ("modifiers", "said"),
    [
        (
            ARTILLERY.replace("per = 6", "per = 0"),
            "modifiers[0].per: 0 is not allowed; expected a whole number from 1 to 999",
        ),
        (
            ARTILLERY.replace("per = 6", "per = 1.5"),
            "modifiers[0].per: 1.5 is not allowed; expected a whole number from 1 to 999",
        ),
        (
            ARTILLERY + 'round = "sideways"\n',
            "modifiers[0].round: 'sideways' is not allowed; expected down, up or nearest",
        ),
        (
            ARTILLERY.replace("per = 6\n", 'round = "up"\n'),
            "modifiers[0].round: read only with per",
        ),
        (
            TICK.format(name="guns") + "per = 2\n",
            "modifiers[0].per: only a number has per",
        ),
        (
            TICK.format(name="guns") + 'on = "unit"\n',
            "modifiers[0].on: 'unit' is not allowed with effect drm; expected multiply or add",
        ),
        (
            TICK.format(name="guns") + 'on = "hex"\n',
            "modifiers[0].on: 'hex' is not allowed; expected total or unit",
        ),
        (
            ARTILLERY.replace('effect = "drm"', 'effect = "add"\nside = "attacker"')
            + 'on = "unit"\n',
            "modifiers[0].on: 'unit' is not allowed with input number; expected tick or choice",
        ),
        (
            TICK.format(name="guns") + 'needs = "fort"\n' + TICK.format(name="smoke"),
            "modifiers[0].needs: 'fort' is not a modifier of the chart; expected one of smoke",
        ),
        (
            TICK.format(name="guns") + 'needs = "guns"\n',
            "modifiers[0].needs: 'guns' is this modifier; expected another modifier",
        ),
        (
            TICK.format(name="a") + 'needs = "b"\n' + TICK.format(name="b") + 'needs = "a"\n',
            "modifiers[0].needs: a loop: a needs b needs a",
        ),
        (
            FORT + '[[modifiers]]\nname = "works"\ninput = "choice"\neffect = "add"\n'
            'side = "defender"\non = "unit"\nvalues = { trench = 1, fort = 3 }\n',
            "modifiers[1].values.fort: 'fort' is already a mark of the defender's units "
            "(modifiers[0]); expected each mark once a side",
        ),
    ],
)
def test_bad_values_are_refused_in_one_line(modifiers: str, said: str) -> None:
    assert said in refused(modifiers)


def test_the_same_mark_on_each_side_is_allowed() -> None:
    # A tick's mark is its name: two ticks cannot share one, so a choice gives the attacker's.
    both = FORT + (
        '[[modifiers]]\nname = "works"\ninput = "choice"\neffect = "multiply"\n'
        'side = "attacker"\non = "unit"\nvalues = { fort = 3 }\n'
    )
    ruleset = game(both, "both-sides")
    outcome = resolve(CombatInput(ruleset, (Unit(2, "fort"),), (Unit(2, "fort"),), roll=1))
    assert (outcome.attack_total, outcome.defense_total) == (6, 4)


def test_the_worked_example_checks_and_gives_its_chances(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check-table", str(VARN)]) == 0
    assert "4 modifiers" in capsys.readouterr().out
    # 8 against 4@fort is 1-1; the siege guns' +1 (a fort is there): a 1 reads row 2 (AR),
    # 2 and 3 rows 3-4 (EX), 4 row 5 (DR), 5 row 6 and 6 past the rows, row 6 (DE).
    argv = ["odds", str(VARN), "--attack", "8", "--defense", "4@fort", "--siege-guns", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert {o["cell"]: o["fraction"] for o in data["outcomes"]} == {
        "AR": "1/6",
        "EX": "1/3",
        "DR": "1/6",
        "DE": "1/3",
    }
