"""Absurd numbers are refused by the engine, naming the allowed range: a unit's factor,
morale, Big Boom totals and a Day/Night reserve up to limits.factor_max, OCS action
ratings and hedgehog levels, the Day/Night DRM. The limits live in tables.toml; the CLI
and the desk's preview show the same one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from msgspec.structs import replace

from tui.cli import main
from tui.engine import CombatInput, InputError, Unit, default_tables, distribution, resolve
from tui.engine.preview import preview
from tui.engine.tables import load_tables

TABLES = default_tables()
FACTOR_MAX = TABLES.data["limits"]["factor_max"]
AR_MAX = TABLES.data["ocs"]["action_rating_max"]
HEDGEHOG_MAX = TABLES.data["ocs"]["hedgehog_max"]
DRM_MAX = TABLES.data["daynight"]["drm_max"]
TABLES_TOML = Path(__file__).resolve().parents[2] / "tables.toml"


def test_the_limits_are_what_the_rules_give() -> None:
    # OCS counters print action ratings 0..5; no hedgehog exceeds Level-4 (16.0a); 1d6 read
    # on rows 0..7 reads one edge row on every roll from a DRM of -6 or +6 on.
    assert (AR_MAX, HEDGEHOG_MAX) == (5, 4)
    rows = TABLES.data["daynight"]
    assert 1 + DRM_MAX == rows["row_max"] and rows["die_sides"] - DRM_MAX == rows["row_min"]
    assert FACTOR_MAX == 999


def pod(**given: object) -> CombatInput:
    return CombatInput("pod-super", attackers=(Unit(5),), defenders=(Unit(2),), roll=7, **given)  # type: ignore[arg-type]


def ocs(**given: object) -> CombatInput:
    return CombatInput(
        "ocs",
        attackers=(Unit(5),),
        defenders=(Unit(2),),
        surprise_roll=7,
        **given,  # type: ignore[arg-type]
    )


def daynight(**given: object) -> CombatInput:
    return CombatInput("daynight", attackers=(Unit(5),), defenders=(Unit(2),), **given)  # type: ignore[arg-type]


def boom_crt(caf: int) -> CombatInput:
    return CombatInput("pod-boom", step="crt", caf=caf, roll=3)


def boom_attrition(aaf: int) -> CombatInput:
    return CombatInput("pod-boom", step="attrition", aaf=aaf, roll=3)


# (field, a combat at the limit, the same combat one past it, words of the allowed range).
# Hand dice are as they lie (RULINGS, "Dice"): the desk adds the DRM to them.
EDGES = [
    (
        "attack",
        CombatInput("rivets", attackers=(Unit(FACTOR_MAX),), defenders=(Unit(2),), roll=1),
        CombatInput("rivets", attackers=(Unit(FACTOR_MAX + 1),), defenders=(Unit(2),), roll=1),
        f"from 0 to {FACTOR_MAX} per unit",
    ),
    (
        "defense",
        CombatInput("rivets", attackers=(Unit(2),), defenders=(Unit(FACTOR_MAX),), roll=1),
        CombatInput("rivets", attackers=(Unit(2),), defenders=(Unit(FACTOR_MAX + 1),), roll=1),
        f"from 0 to {FACTOR_MAX} per unit",
    ),
    (
        "morale_attack",
        pod(morale_attack=FACTOR_MAX),
        pod(morale_attack=FACTOR_MAX + 1),
        f"from -{FACTOR_MAX} to {FACTOR_MAX}",
    ),
    (
        "morale_defense",
        pod(morale_defense=-FACTOR_MAX),
        pod(morale_defense=-FACTOR_MAX - 1),
        f"from -{FACTOR_MAX} to {FACTOR_MAX}",
    ),
    ("caf", boom_crt(FACTOR_MAX), boom_crt(FACTOR_MAX + 1), f"from 1 to {FACTOR_MAX}"),
    ("aaf", boom_attrition(FACTOR_MAX), boom_attrition(FACTOR_MAX + 1), f"from 0 to {FACTOR_MAX}"),
    (
        "reserve",
        daynight(roll=1, reserve=FACTOR_MAX),
        daynight(roll=1, reserve=FACTOR_MAX + 1),
        f"from 0 to {FACTOR_MAX}",
    ),
    (
        "attacker_ar",
        ocs(attacker_ar=AR_MAX, roll=7),
        ocs(attacker_ar=AR_MAX + 1, roll=7),
        f"an action rating from 0 to {AR_MAX}",
    ),
    (
        "defender_ar",
        ocs(defender_ar=AR_MAX, roll=7),
        ocs(defender_ar=AR_MAX + 1, roll=7),
        f"an action rating from 0 to {AR_MAX}",
    ),
    (
        "hedgehog",
        ocs(hedgehog=HEDGEHOG_MAX, roll=7),
        ocs(hedgehog=HEDGEHOG_MAX + 1, roll=7),
        f"a hedgehog level from 0 (none) to {HEDGEHOG_MAX}",
    ),
    (
        "drm",
        daynight(drm=DRM_MAX, roll=6),
        daynight(drm=DRM_MAX + 1, roll=6),
        f"from -{DRM_MAX} to +{DRM_MAX}",
    ),
    (
        "drm",
        daynight(drm=-DRM_MAX, roll=1),
        daynight(drm=-DRM_MAX - 1, roll=1),
        f"from -{DRM_MAX} to +{DRM_MAX}",
    ),
]


@pytest.mark.parametrize(("field", "at", "past", "allowed"), EDGES, ids=[e[0] for e in EDGES])
def test_the_limit_resolves_and_one_past_it_is_refused(
    field: str, at: CombatInput, past: CombatInput, allowed: str
) -> None:
    assert resolve(at).ruleset == at.ruleset
    for call in (resolve, distribution):
        with pytest.raises(InputError) as caught:
            call(past)
        assert caught.value.field == field
        assert allowed in caught.value.allowed
    assert allowed in caught.value.message()


def test_the_desk_preview_refuses_with_the_same_line() -> None:
    combat = ocs(attacker_ar=99)
    with pytest.raises(InputError) as by_preview:
        preview(combat)
    with pytest.raises(InputError) as by_resolve:
        resolve(combat)
    assert by_preview.value.message("Att. AR") == by_resolve.value.message("Att. AR")
    assert by_preview.value.message("Att. AR").startswith("Att. AR: 99 is not allowed")


def test_the_limits_are_read_from_tables_toml(tmp_path: Path) -> None:
    text = TABLES_TOML.read_text(encoding="utf-8")
    assert text.count("factor_max = 999\n") == 1 and text.count("action_rating_max = 5\n") == 1
    text = text.replace("factor_max = 999\n", "factor_max = 20\n")
    text = text.replace("action_rating_max = 5\n", "action_rating_max = 3\n")
    target = tmp_path / "tables.toml"
    target.write_text(text, encoding="utf-8")
    tables = load_tables(target)
    big = CombatInput("rivets", attackers=(Unit(21),), defenders=(Unit(2),), roll=1)
    with pytest.raises(InputError, match="from 0 to 20 per unit"):
        resolve(big, tables)
    assert resolve(replace(big, attackers=(Unit(20),)), tables).attack_total == 20
    with pytest.raises(InputError, match="from 0 to 3"):
        resolve(ocs(attacker_ar=4, roll=11), tables)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["resolve", "daynight", "--attack", "5", "--defense", "2", "--drm", "1000"],
            f"crtdesk: --drm: 1000 is not allowed; expected a net DRM from -{DRM_MAX} to +{DRM_MAX}",
        ),
        (
            ["resolve", "ocs", "--attack", "5", "--defense", "2", "--attacker-ar", "99"],
            f"crtdesk: --attacker-ar: 99 is not allowed; expected an action rating from 0 to {AR_MAX}",
        ),
        (
            ["odds", "ocs", "--attack", "5", "--defense", "2", "--hedgehog", "9"],
            f"crtdesk: --hedgehog: 9 is not allowed; expected a hedgehog level from 0 (none) to {HEDGEHOG_MAX}",
        ),
        (
            ["resolve", "rivets", "--attack", "1234567890123456789012345", "--defense", "2"],
            "crtdesk: --attack: 1234567890123456789012345 is not allowed; "
            f"expected a whole number from 0 to {FACTOR_MAX} per unit",
        ),
        (
            ["resolve", "pod-basic", "--attack", "5", "--defense", "2", "--morale-attack", "-5000"],
            f"crtdesk: --morale-attack: -5000 is not allowed; expected a whole number from -{FACTOR_MAX}",
        ),
    ],
)
def test_the_cli_refuses_absurd_numbers_in_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], line: str
) -> None:
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert len(err.splitlines()) == 1 and err.startswith(line), err


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["resolve", "rivets", "--attack", "7" * 5000, "--defense", "2"], "--attack"),
        (["resolve", "rivets", "--attack", "5", "--defense", "2", "--seed", "7" * 5000], "--seed"),
        (
            ["odds", "daynight", "--attack", "5", "--defense", "2", "--drm", "-" + "7" * 5000],
            "--drm",
        ),
    ],
)
def test_more_digits_than_python_reads_is_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], flag: str
) -> None:
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith(f"crtdesk: {flag}: ") and "at most 4300 digits" in err
