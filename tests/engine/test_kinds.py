"""Field kinds as classes: each kind reads what is typed (or names the value and what is
allowed), gives its CLI flag's shape and the flags that give a value back, checks its
range and names the desk widget that shows it; every field of every ruleset has one. And
the form rules the desk asks the engine for: an Ultra obstacle, Big Boom's missions."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from tui.engine import kinds, registry, schema
from tui.engine.combat import combat_from_inputs
from tui.engine.errors import InputError
from tui.engine.kinds import Kind, Shown
from tui.engine.model import Unit
from tui.engine.rulesets.boom import rules as boom
from tui.engine.rulesets.pod import MARKERS
from tui.engine.tables import default_tables

TABLES = default_tables()
FACTOR_MAX = TABLES.data["limits"]["factor_max"]


RULESET_IDS = registry.BUILT_IN_IDS


def fields(ruleset: str) -> tuple[schema.Field, ...]:
    return registry.get(ruleset).fields


def field(ruleset: str, name: str) -> schema.Field:
    return next(f for f in fields(ruleset) if f.name == name)


def form_unread(ruleset: str, values: dict[str, Any]) -> frozenset[str]:
    return registry.get(ruleset).form_unread(values)


def form_values(ruleset: str, values: dict[str, Any], errors: list[InputError]) -> dict[str, Any]:
    return registry.get(ruleset).form_values(values, errors)


def unit_fields(ruleset: str) -> tuple[schema.Field, schema.Field]:
    return registry.get(ruleset).unit_fields


# --- every field has a kind, and the desk can show every field of a form ----------------------


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_every_field_of_every_ruleset_has_a_kind_object(ruleset: str) -> None:
    for found in (*fields(ruleset), *unit_fields(ruleset)):
        assert isinstance(found.kind, Kind), found.name


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_every_form_field_names_a_widget_the_desk_has(ruleset: str) -> None:
    shown = {found.name: found.shown for found in schema.form(ruleset, fields(ruleset), TABLES)}
    assert shown  # every ruleset's form has a field of its own
    assert set(shown.values()) <= {Shown.NUMBER, Shown.CHOICE, Shown.TICK}
    attackers, defenders = unit_fields(ruleset)
    rows = {Shown.OCS_UNIT_ROWS} if ruleset == "ocs" else {Shown.UNIT_ROWS}
    assert {attackers.shown, defenders.shown} == rows


def test_a_tick_with_a_name_for_each_value_is_cycled() -> None:
    supply = field("ocs", "defender_unsupplied")
    assert supply.kind is kinds.TICK and supply.shown is Shown.CHOICE
    assert field("ocs", "overrun").shown is Shown.TICK


# --- reading what is typed ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("ruleset", "name", "text", "value"),
    [
        ("pod-basic", "morale_attack", " -3 ", -3),
        ("pod-basic", "morale_attack", "+2", 2),
        ("ocs", "hedgehog", "2", 2),
        ("ocs", "attack_hexes", "3", 3),
        ("pod-basic", "buddy", "Attacker", "attacker"),
        ("pod-ultra", "mines_cdf", "3", 3),
        ("daynight", "hold", "no", False),
        ("daynight", "hold", "", None),
        ("rivets", "bcpc", "yes", True),
        ("ocs", "attacker_ar_unit", "21 Pz", "21 Pz"),
        ("pod-basic", "roll", "7", 7),
    ],
)
def test_a_kind_reads_a_typed_value(ruleset: str, name: str, text: str, value: Any) -> None:
    found = field(ruleset, name)
    assert found.kind.read(found, text) == value


@pytest.mark.parametrize(
    ("ruleset", "name", "text", "allowed"),
    [
        ("pod-basic", "morale_attack", "x", "a whole number (+ or -)"),
        ("ocs", "hedgehog", "-1", "a whole number >= 0"),
        ("ocs", "attack_hexes", "0", "a whole number >= 1"),
        ("ocs", "hedgehog", "1.5", "a whole number >= 0"),
        ("pod-ultra", "mines_cdf", "two", "a whole number (+ or -)"),
        ("rivets", "bcpc", "maybe", "yes or no"),
        ("ocs", "hedgehog", "9" * 5000, "a whole number of at most 4300 digits"),
    ],
)
def test_a_value_a_kind_cannot_read_is_named_with_what_is_allowed(
    ruleset: str, name: str, text: str, allowed: str
) -> None:
    found = field(ruleset, name)
    with pytest.raises(InputError) as caught:
        found.kind.read(found, text)
    assert (caught.value.field, caught.value.value, caught.value.allowed) == (name, text, allowed)


@pytest.mark.parametrize(
    ("text", "unit"),
    [("4", Unit(4)), (" 7@River ", Unit(7, "river")), ("0", Unit(0))],
)
def test_a_unit_typed_on_the_command_line(text: str, unit: Unit) -> None:
    attackers = field("pod-super", "attackers")
    assert attackers.kind.read(attackers, text) == unit


@pytest.mark.parametrize("text", ["x", "-2", "+3", "1.5", "", "4@", "@clear"])
def test_a_unit_the_command_line_cannot_read_names_the_text(text: str) -> None:
    defenders = field("pod-super", "defenders")
    with pytest.raises(InputError) as caught:
        defenders.kind.read(defenders, text)
    assert caught.value.field == "defense" and caught.value.value == text
    assert caught.value.allowed.startswith("a whole number >= 0")


def test_a_unit_row_is_read_with_its_terrain_and_a_missing_factor_is_said_in_the_rows_words() -> (
    None
):
    kind = field("pod-super", "attackers").kind
    assert kind.read_row("A1", {"factor": "5", "terrain": "river"}, "CAF") == (
        Unit(5, "river"),
        [],
    )
    unit, errors = kind.read_row("A2", {"factor": None}, "CAF")
    assert unit is None and [(p, e.field, e.value, e.allowed) for p, e in errors] == [
        ("factor", "A2", None, "a CAF")
    ]
    unit, errors = kind.read_row("D1", {"factor": "x7"}, "CDF")
    assert unit is None and [(p, e.value, e.allowed) for p, e in errors] == [
        ("factor", "x7", "a whole number >= 0")
    ]


def test_an_aa_row_left_empty_is_no_unit() -> None:
    aa = unit_fields("pod-boom")[1]
    assert aa.kind is kinds.AA_UNITS and aa.label == "AA units"
    assert aa.kind.read_row("D1", {"factor": None}, "AA") == (None, [])
    assert aa.kind.read_row("D2", {"factor": "3"}, "AA") == (Unit(3), [])


# --- the OCS counters, typed whole or part by part --------------------------------------------


def test_an_ocs_counter_typed_whole_and_given_back_the_same() -> None:
    attackers, defenders = unit_fields("ocs")
    attacker = attackers.kind.read(attackers, "21 Pz:10:3:4:hq:Internal")
    assert attacker == Unit(10, name="21 Pz", steps=3, ar=4, kind="hq", supply="internal")
    assert attackers.kind.typed(attacker) == "21 Pz:10:3:4:hq:internal"
    assert attackers.kind.read(attackers, "Ariete:5:2:2") == Unit(
        5, name="Ariete", steps=2, ar=2, kind="combat", supply="on-map"
    )
    defender = defenders.kind.read(defenders, "2 NZ:4:2:0.5:3")
    assert defender == Unit(4, name="2 NZ", steps=2, ar=3, re=0.5)
    assert defenders.kind.typed(defender) == "2 NZ:4:2:0.5:3"


@pytest.mark.parametrize(
    ("side", "text", "field_name", "allowed"),
    [
        (
            "attacker",
            "21 Pz:10:3",
            "attacker",
            "NAME:STRENGTH:STEPS:AR:TYPE:SUPPLY (the first 4 given)",
        ),
        ("defender", ":4:2:1:3", "defender", "NAME:STRENGTH:STEPS:RE:AR (the first 5 given)"),
        ("attacker", "21 Pz:x:3:4", "21 Pz strength", "a whole number >= 0"),
        ("attacker", "21 Pz::3:4", "21 Pz strength", "a whole number >= 0"),
        ("attacker", "21 Pz:10:-1:4", "21 Pz steps", "a whole number >= 0"),
        ("defender", "2 NZ:4:2:big:3", "2 NZ RE", "a number >= 0 (1, 0.5, 2)"),
        ("defender", "2 NZ:4:2:-1:3", "2 NZ RE", "a number >= 0 (1, 0.5, 2)"),
    ],
)
def test_an_ocs_counter_that_cannot_be_read_names_the_part(
    side: str, text: str, field_name: str, allowed: str
) -> None:
    found = unit_fields("ocs")[0 if side == "attacker" else 1]
    with pytest.raises(InputError) as caught:
        found.kind.read(found, text)
    assert (caught.value.field, caught.value.allowed) == (field_name, allowed)


def test_an_ocs_row_reads_as_the_command_line_does_and_names_each_part_it_cannot() -> None:
    attackers, defenders = unit_fields("ocs")
    typed = attackers.kind.read(attackers, "21 Pz:10:3:4:combat:on-map")
    row = {"name": "21 Pz", "factor": "10", "steps": "3", "ar": "4", "kind": "combat"}
    assert attackers.kind.read_row("A1", row | {"supply": "on-map"}) == (typed, [])
    # Parts left empty are the counter's defaults; the row's label names an unnamed unit.
    unit, errors = defenders.kind.read_row("D1", {"factor": "6"})
    assert errors == [] and unit == Unit(6, name="D1", steps=1, ar=0, re=None)
    # Each part that cannot be read is named, and the rest of the counter still read.
    unit, errors = defenders.kind.read_row("D2", {"factor": "6", "steps": "x", "re": "-1"})
    assert unit == Unit(6, name="D2", steps=1, ar=0, re=None)
    assert [(part, err.field) for part, err in errors] == [("steps", "D2 steps"), ("re", "D2 RE")]
    unit, errors = attackers.kind.read_row("A3", {"name": "Ariete"})
    assert unit is None and [(p, e.field, e.value, e.allowed) for p, e in errors] == [
        ("factor", "Ariete", None, "a strength")
    ]


# --- the CLI flag each kind makes, and back ---------------------------------------------------


def test_each_kind_gives_its_flags_shape() -> None:
    parser = argparse.ArgumentParser()
    for found, _ in registry.cli_fields():
        parser.add_argument(found.flag, **found.kind.flag_options(found))
    args = parser.parse_args(
        ["--attack", "3", "--attack", "4@river", "--hold", "--overrun", "--chain-roll", "2"]
    )
    assert (args.attack, args.hold, args.overrun, args.chain_roll) == (
        ["3", "4@river"],
        True,
        True,
        ["2"],
    )
    assert parser.parse_args(["--no-hold"]).hold is False
    assert parser.parse_args([]).hold is None and parser.parse_args([]).overrun is False


@pytest.mark.parametrize(
    ("ruleset", "name", "value", "words"),
    [
        (
            "pod-super",
            "attackers",
            (Unit(3), Unit(4, "river")),
            ["--attack", "3", "--attack", "4@river"],
        ),
        ("daynight", "hold", False, ["--no-hold"]),
        ("daynight", "hold", True, ["--hold"]),
        ("ocs", "overrun", True, ["--overrun"]),
        ("pod-boom", "chain_rolls", (2, 5), ["--chain-roll", "2", "--chain-roll", "5"]),
        ("daynight", "drm", -2, ["--drm", "-2"]),
        ("pod-ultra", "mines_cdf", 3, ["--mines-cdf", "3"]),
    ],
)
def test_a_value_given_back_as_flags_is_read_back_the_same(
    ruleset: str, name: str, value: Any, words: list[str]
) -> None:
    found = field(ruleset, name)
    assert found.kind.to_flags(found, value) == words
    parser = argparse.ArgumentParser()
    parser.add_argument(found.flag, **found.kind.flag_options(found))
    given = getattr(parser.parse_args(words), found.flag.removeprefix("--").replace("-", "_"))
    assert found.kind.from_flag(found, given) == value


def test_a_flag_not_given_is_no_value() -> None:
    for found, _ in registry.cli_fields():
        parser = argparse.ArgumentParser()
        parser.add_argument(found.flag, **found.kind.flag_options(found))
        given = vars(parser.parse_args([])).popitem()[1]
        assert found.kind.from_flag(found, given) is None, found.name


def test_the_message_names_the_no_flag_of_a_value_not_said_so() -> None:
    assert schema.flag("hold", False) == "--no-hold"
    assert schema.flag("hold", True) == schema.flag("hold") == "--hold"


# --- the range each kind checks -------------------------------------------------------------


def test_each_kind_checks_its_range_and_the_form_names_them_all() -> None:
    values = {
        "attackers": (Unit(3), Unit(FACTOR_MAX + 1)),
        "defenders": (Unit(FACTOR_MAX + 2),),
        "morale_attack": -(FACTOR_MAX + 1),
        "morale_defense": FACTOR_MAX,
    }
    errors = schema.range_errors(fields("pod-basic"), values, TABLES)
    assert [(e.field, e.value) for e in errors] == [
        ("attack", FACTOR_MAX + 1),
        ("defense", FACTOR_MAX + 2),
        ("morale_attack", -(FACTOR_MAX + 1)),
    ]
    hedgehog = TABLES.data["ocs"]["hedgehog_max"]
    (error,) = schema.range_errors(
        fields("ocs"), {"hedgehog": hedgehog + 1, "attack_hexes": 0}, TABLES
    )
    assert (
        error.field == "hedgehog"
        and error.allowed == f"a hedgehog level from 0 (none) to {hedgehog}"
    )


# --- the form rules the desk asks the engine for -----------------------------------------------


def test_an_ultra_obstacle_is_the_whole_defence_and_mines_read_the_games_cdf() -> None:
    form = {"obstacle": "mines", "mines_cdf": 3, "morale_attack": None}
    units = {"attackers": (Unit(6),), "defenders": (Unit(2),)}
    assert form_unread("pod-ultra", form) == {"defenders"}
    assert form_values("pod-ultra", form | units, []) == form | {"attackers": (Unit(6),)}
    beach = {"obstacle": "beach", "mines_cdf": 3}
    assert form_unread("pod-ultra", beach) == {"defenders", "mines_cdf"}
    assert form_unread("pod-ultra", {"obstacle": None, "mines_cdf": 2}) == {"mines_cdf"}
    assert form_unread("pod-basic", {}) == {"mines_cdf"}  # Basic has no mines CDF to read


def test_a_bomber_mission_reads_its_aa_and_range_and_batteries_and_ships_do_not() -> None:
    bombers = {"mission": "bombers", "bomber_range": 8, "distance": 5}
    units = {"attackers": (Unit(4), Unit(2)), "defenders": (Unit(3), Unit(1))}
    assert form_unread("pod-boom", bombers) == frozenset()
    assert form_values("pod-boom", bombers | units, []) == {
        "attackers": (Unit(4), Unit(2)),
        "defenders": (),
        "aaf": 4,
        "long_range": True,  # 5 of 8 is over half the range
    }
    within = form_values(
        "pod-boom", units | {"mission": "bombers", "bomber_range": 8, "distance": 4}, []
    )
    assert within["long_range"] is False
    quick = form_values("pod-boom", units | {"mission": "bombers"}, [])
    assert (quick["aaf"], quick["long_range"]) == (4, False)
    for mission in ("batteries", "ships"):
        form = {"mission": mission, "bomber_range": 8, "distance": 5}
        assert form_unread("pod-boom", form) == {"defenders", "bomber_range", "distance"}
        assert form_values("pod-boom", form | units, []) == {"attackers": (Unit(4), Unit(2))}


def test_a_distance_without_the_bombers_range_cannot_be_judged() -> None:
    errors: list[InputError] = []
    form_values("pod-boom", {"mission": "bombers", "distance": 5, "attackers": (Unit(4),)}, errors)
    (error,) = errors
    assert (error.field, error.value) == ("bomber_range", None)
    assert schema.label(fields("pod-boom"), error.field) == "Bomber range"


def test_the_desk_forms_own_inputs_are_no_flag_and_no_logged_input() -> None:
    desk_only = {f.name for f in fields("pod-boom") if not f.on_combat}
    assert desk_only == {"bomber_range", "distance", "mission"}
    assert not desk_only & {f.name for f, _ in registry.cli_fields()}
    with pytest.raises(InputError) as caught:
        combat_from_inputs({"ruleset": "pod-boom", "mission": "ships"})
    assert caught.value.value == "mission"


@pytest.mark.parametrize(
    ("value", "loss", "turns"),
    [
        (None, "no CAF on target", "no CAF on target"),
        ("-", "no loss", "none"),
        ("All", "every unit", "rest of the game"),
        ("1", "lose 1", "1 turn"),
        ("2", "lose 2", "2 turns"),
    ],
)
def test_big_booms_result_codes_in_words(value: str | None, loss: str, turns: str) -> None:
    assert (boom.loss_words(value), boom.interdiction_words(value)) == (loss, turns)


def test_every_code_the_crt_prints_has_its_words() -> None:
    losses, turns = boom.printed_results(TABLES)
    assert all(boom.loss_words(code) for code in losses)
    assert {boom.interdiction_words(code) for code in turns} >= {"none", "rest of the game"}


def test_the_pair_o_dice_markers_are_kinds_the_save_knows_and_big_booms_are_the_same() -> None:
    from tui.saves import MARKER_KINDS

    assert set(MARKERS) <= set(MARKER_KINDS)
    # One set, on the same map: Big Boom's No-entry hexes among Pair-o-Dice's markers.
    assert registry.get("pod-boom").markers is registry.get("pod-ultra").markers is MARKERS
    assert "no-entry" in MARKERS
