"""A player's own chart (tui.engine.rulesets.charts.chart): Rivets and Pair-o-Dice Basic re-stated in the
player's format read as the built-in rulesets do; a differential chart and an odds chart
with every kind of modifier, resolved case by case as a person would by hand."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path

import pytest

from tui.engine import registry
from tui.engine.cells import plain
from tui.engine.combat import CombatInput, Unit, combat_from_inputs, distribution, resolve
from tui.engine.errors import InputError
from tui.engine.preview import work_out
from tui.engine.rulesets.charts.chart import ChartError, PlayerChart
from tui.engine.rulesets.charts.folder import games_folder, read_games
from tui.engine.rulesets.charts.reading import load_chart, parse_chart
from tui.engine.schema import judged
from tui.engine.tables import default_tables

HERE = Path(__file__).parent
FIXTURES = HERE / "charts"
DOCS = HERE.parents[1] / "docs" / "games"


def chart(path: Path) -> PlayerChart:
    found = load_chart(path)
    registry.chart_ruleset(found)
    return found


def chances(combat: CombatInput) -> dict[str, Fraction] | str:
    """Each distinct cell (as JSON) and its exact chance; or the refusal's field."""
    try:
        dist = distribution(combat)
    except InputError as err:
        return f"refused: {err.field}"
    out: dict[str, Fraction] = {}
    for cell, p, _ in dist.outcomes:
        key = json.dumps(plain(cell))
        out[key] = out.get(key, Fraction(0)) + p
    return out


def units(*factors: int) -> tuple[Unit, ...]:
    return tuple(Unit(f) for f in factors)


# --- the built-in charts, re-stated ------------------------------------------------------------


@pytest.mark.parametrize("name", ["rivets", "pod-basic"])
def test_restated_chart_has_the_builtin_columns_and_cells(name: str) -> None:
    player = chart(FIXTURES / f"{name}.toml")
    builtin = default_tables().chart(f"{name}.crt")
    assert player.columns == builtin.columns
    assert [row.label for row in player.rows] == list(builtin.rows)
    for row in player.rows:
        assert plain(row.cells) == plain(builtin.rows[row.label])


def test_rivets_restated_gives_the_same_chances_over_a_sweep() -> None:
    chart(FIXTURES / "rivets.toml")
    compared = 0
    for attack in range(1, 31):
        for defense in range(0, 11):
            a, d = units(attack), units(defense)
            mine = chances(CombatInput("game:rivets", a, d))
            theirs = chances(CombatInput("rivets", a, d))
            assert mine == theirs, (attack, defense)
            compared += 1
    assert compared == 330


def test_pod_basic_restated_gives_the_same_chances_over_a_sweep() -> None:
    chart(FIXTURES / "pod-basic.toml")
    seen_ad = seen_av = 0
    for attack in range(1, 21):
        for defense in range(0, 8):
            for buddy in (None, "attacker", "defender"):
                for morale in (0, -1):
                    a, d = units(attack), units(defense)
                    mods: list[tuple[str, object]] = []
                    if buddy:
                        mods.append(("buddy", buddy))
                    if morale:
                        mods.append(("morale-attack", morale))
                    mine = chances(CombatInput("game:pod-basic", a, d, modifiers=tuple(mods)))
                    theirs = chances(
                        CombatInput("pod-basic", a, d, buddy=buddy, morale_attack=morale)
                    )
                    if isinstance(theirs, str):  # both refuse a morale that ends the attack
                        assert isinstance(mine, str), (attack, defense, buddy, morale)
                        continue
                    assert mine == theirs, (attack, defense, buddy, morale)
                    seen_ad += mine == {"null": 1} and attack * 4 <= defense
                    seen_av += mine == {"null": 1} and attack >= 6 * max(defense, 1)
    assert seen_ad and seen_av  # the sweep reached both automatic ends


def test_pod_basic_restated_resolves_a_hand_roll_as_the_builtin() -> None:
    chart(FIXTURES / "pod-basic.toml")
    mine = resolve(CombatInput("game:pod-basic", units(8), units(2), roll=2))
    theirs = resolve(CombatInput("pod-basic", units(8), units(2), roll=2))
    assert (mine.odds, mine.column, plain(mine.cell)) == (
        theirs.odds,
        theirs.column,
        plain(theirs.cell),
    )


# --- a differential chart, checked by hand --------------------------------------------------------

SKIRMISH = DOCS / "border-skirmish.toml"


@pytest.mark.parametrize(
    ("attack", "defense", "cover", "column", "expected"),
    [
        # +4: rows 2-4 (6/36) D1, 5-6 (4+5=9/36) D1, 7 (6/36) D2, 8-9 (9/36) and 10-12 (6/36) D3.
        (9, 5, None, "+4", {"D1": (15, 36), "D2": (6, 36), "D3": (15, 36)}),
        # -5 is below the first column: read -2 (the end).
        (3, 8, None, "-2", {"A2": (6, 36), "A1": (15, 36), "NE": (15, 36)}),
        # 0, heavy cover two columns left: -2.
        (6, 6, "heavy", "-2", {"A2": (6, 36), "A1": (15, 36), "NE": (15, 36)}),
        # +2: NE on 2-4, D1 on 5-7, D2 on 8-12.
        (7, 5, None, "+2", {"NE": (6, 36), "D1": (15, 36), "D2": (15, 36)}),
        # +11 is beyond the last column: read +4.
        (12, 1, None, "+4", {"D1": (15, 36), "D2": (6, 36), "D3": (15, 36)}),
        # +1, light cover: 0.
        (5, 4, "light", "0", {"A1": (6, 36), "NE": (15, 36), "D1": (15, 36)}),
    ],
)
def test_differential_chart_by_hand(
    attack: int, defense: int, cover: str | None, column: str, expected: dict[str, tuple[int, int]]
) -> None:
    chart(SKIRMISH)
    mods = (("cover", cover),) if cover else ()
    combat = CombatInput("game:border-skirmish", units(attack), units(defense), modifiers=mods)
    dist = distribution(combat)
    assert dist.column == column
    assert chances(combat) == {json.dumps(k): Fraction(*v) for k, v in expected.items()}


def test_differential_hand_roll_reads_its_row() -> None:
    chart(SKIRMISH)
    outcome = resolve(CombatInput("game:border-skirmish", units(5, 1), units(5), roll=7))
    assert (outcome.odds, outcome.column, outcome.cell) == ("+1", "+1", "D1")
    assert outcome.explanation == "Defender loses a step."


# --- an odds chart with every kind of modifier, case by case ----------------------------------------

HILL = DOCS / "hill-203.toml"


def hill(attack: int, defense: int, roll: int | None = None, **mods: object) -> CombatInput:
    chart(HILL)
    return CombatInput(
        "game:hill-203",
        units(attack),
        units(defense),
        roll=roll,
        modifiers=tuple(mods.items()),
    )


def test_town_doubles_the_defender() -> None:
    # 6 against 2 is 3-1: row 4 reads DR2. In a town 6 against 4 is 1-1 (1.5 rounded down):
    # row 4 reads EX.
    plain_ = resolve(hill(6, 2, 4))
    town = resolve(hill(6, 2, 4, town=True))
    assert (plain_.defense_total, plain_.column, plain_.cell) == (2, "3-1", "DR2")
    assert (town.defense_total, town.column, town.cell) == (4, "1-1", "EX")
    assert any("x2 -> 4" in line for line in town.trace)


def test_artillery_shifts_a_column_either_way_and_stops_at_the_edge() -> None:
    assert resolve(hill(6, 2, 1, artillery="attacker")).column == "4-1"  # DR1
    assert resolve(hill(6, 2, 1, artillery="attacker")).cell == "DR1"
    assert resolve(hill(6, 2, 1, artillery="defender")).cell == "AR"  # 2-1, row 1
    edge = resolve(hill(10, 2, 1, artillery="attacker"))  # 5-1 is the last column
    assert (edge.column, edge.cell) == ("5-1", "DR2")
    assert any("stopped at the table's edge" in line for line in edge.trace)


def test_net_drm_is_capped_and_the_roll_clamped_to_the_rows() -> None:
    # Leader 3 is a DRM of +3, capped at +2: a 5 reads 7, beyond the rows, so row 6.
    capped = resolve(hill(4, 4, 5, leader=3))
    assert (capped.column, capped.cell, capped.roll) == ("1-1", "DR2", "6")
    assert any("capped at +2" in line for line in capped.trace)
    assert any("read on row 6 (clamped)" in line for line in capped.trace)
    # Leader 3 and uphill -1 net +2, not capped: a 3 reads row 5.
    both = resolve(hill(4, 4, 3, leader=3, uphill=True))
    assert (both.cell, both.roll) == ("DR1", "5")
    assert not any("capped" in line for line in both.trace)
    # Uphill alone: a 1 reads 0, below the rows, so row 1.
    low = resolve(hill(4, 4, 1, uphill=True))
    assert (low.cell, low.roll) == ("AE", "1")


def test_capped_drm_chances() -> None:
    # 1-1 with +2: 1 -> 3 AR, 2 -> 4 EX, 3 -> 5 DR1, 4..6 -> row 6 DR2.
    expected = {"AR": Fraction(1, 6), "EX": Fraction(1, 6), "DR1": Fraction(1, 6)}
    expected["DR2"] = Fraction(1, 2)
    assert chances(hill(4, 4, leader=3)) == {json.dumps(k): v for k, v in expected.items()}


def test_automatic_defeat_and_victory_need_no_dice() -> None:
    ad = resolve(hill(2, 5, 6, artillery="attacker"))  # 1-3: AD before any shift
    assert (ad.odds, ad.cell, ad.roll, ad.ratio) == ("AD", None, None, "1-3")
    assert ad.effects["result"] == "AD"
    av = resolve(hill(12, 2))  # 6-1
    assert (av.odds, av.cell) == ("AV", None)
    assert resolve(hill(5, 0)).odds == "AV"  # a defence of 0
    # The town's doubling comes first: 3 against 4 (8) is 1-3, an AD; against 2 (4) 1-2.
    assert resolve(hill(3, 4, town=True)).odds == "AD"
    assert resolve(hill(3, 2, town=True)).column == "1-2"
    assert chances(hill(2, 5)) == {"null": Fraction(1)}


def test_bad_modifier_values_are_refused_naming_what_is_allowed() -> None:
    for mods, allowed in (
        ({"leader": 4}, "from 0 to 3"),
        ({"artillery": "both"}, "attacker, defender"),
        ({"town": 2}, "true or false"),
        ({"smoke": True}, "town, artillery, leader, uphill"),
    ):
        with pytest.raises(InputError) as err:
            resolve(hill(6, 2, 3, **mods))
        assert allowed in err.value.message()
    with pytest.raises(InputError):
        resolve(hill(6, 2, 7))  # 1d6 shows 1 to 6
    with pytest.raises(InputError):
        resolve(CombatInput("game:hill-203", units(6), units(2), drm=1))  # not read


def test_preview_and_schema_and_logged_inputs() -> None:
    combat = hill(6, 2, town=True, artillery="attacker")
    shown = work_out(combat, default_tables())
    assert (shown.odds, shown.column, shown.dice) == ("1-1", "2-1", "1d6")
    assert abs(sum(row.probability for row in shown.rows) - 1) == 0
    assert [f.name for f in registry.get("game:hill-203").fields][4:] == [
        "town",
        "artillery",
        "leader",
        "uphill",
    ]
    logged = resolve(combat).inputs
    assert logged["modifiers"] == {"town": True, "artillery": "attacker"}
    assert combat_from_inputs(logged) == combat
    assert combat_from_inputs({**logged, "roll": 3}, judged) == combat


def test_unknown_game_is_refused() -> None:
    with pytest.raises(InputError) as err:
        resolve(CombatInput("game:no-such-game", units(1), units(1)))
    assert "games folder" in err.value.message()


# --- the games folder ---------------------------------------------------------------------------------


def test_games_folder_reads_the_sound_and_names_the_broken(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "hill-203.toml").write_text(HILL.read_text())
    (folder / "broken.toml").write_text("[game\n")
    (folder / "notes.txt").write_text("not a chart")
    shelf = read_games(folder)
    assert [registry.chart_id(c.name) for c in shelf.charts] == ["game:hill-203"]
    assert len(shelf.broken) == 1 and shelf.broken[0].startswith("games/broken.toml:1:")
    assert read_games(tmp_path / "missing").charts == ()
    assert registry.find_chart("game:hill-203", folder).chart.title == "Hill 203"
    with pytest.raises(ChartError, match="no chart nothing.toml"):
        registry.find_chart("nothing", folder)


def test_games_folder_default_is_beside_the_saves(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("CRTDESK_GAMES", raising=False)
    assert games_folder(None, str(tmp_path / "saves")) == tmp_path / "games"
    monkeypatch.setenv("CRTDESK_GAMES", str(tmp_path / "shelf"))
    assert games_folder(None, str(tmp_path / "saves")) == tmp_path / "shelf"
    assert games_folder(str(tmp_path / "given")) == tmp_path / "given"


def test_chart_name_must_be_plain() -> None:
    with pytest.raises(ChartError, match="file's name"):
        parse_chart(HILL.read_text(), "Hill 203.toml", "Hill 203")


def test_a_chart_rolls_with_the_desk_dice() -> None:
    outcome = resolve(hill(6, 2), rng=random.Random(3))
    assert outcome.dice[0].source == "desk" and outcome.dice[0].dice == "1d6"
    assert outcome.cell in {"EX", "DR1", "DR2", "DE"}


def test_no_edit_of_a_chart_raises_more_than_one_line() -> None:
    """Lines dropped, doubled or given odd values: a ChartError of one line, or a chart
    that resolves (or refuses a combat with an InputError), never another exception."""
    rng = random.Random(21)
    texts = [HILL.read_text(), SKIRMISH.read_text(), (FIXTURES / "pod-basic.toml").read_text()]
    odd = ["0", "-1", "1.5", '"x"', "[]", "{}", "true", '"1-1"', '"end"', '["AE"]', "1e400"]
    odd += ['"+3"', '"#"', '"DR#"', '"1:0"', '"3-"', "nan", "-inf", '"-3--5"', "99999"]
    read = 0
    for _ in range(300):
        lines = rng.choice(texts).splitlines()
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(lines))
            if rng.random() < 0.3:
                del lines[at]
            elif "=" in lines[at]:
                lines[at] = lines[at].split("=", 1)[0] + "= " + rng.choice(odd)
            else:
                lines.insert(at, rng.choice(lines))
        try:
            found = parse_chart("\n".join(lines), "f.toml", "edited")
        except ChartError as err:
            assert "\n" not in str(err) and str(err).startswith("f.toml")
            continue
        read += 1
        registry.chart_ruleset(found)
        for attack, defense in ((1, 1), (7, 2), (2, 9), (5, 0)):
            try:
                distribution(
                    CombatInput(registry.chart_id(found.name), units(attack), units(defense))
                )
            except InputError:
                pass
    assert read  # some edits leave a sound chart


def test_a_roll_beyond_the_rows_reads_a_named_result() -> None:
    text = (
        HILL.read_text()
        .replace('low = "clamp"', 'low = "AE"')
        .replace('high = "clamp"', 'high = "DE"')
    )
    registry.chart_ruleset(parse_chart(text, "ends.toml", "ends"))

    def ends(roll: int | None, **mods: object) -> CombatInput:
        return CombatInput(
            "game:ends", units(4), units(4), roll=roll, modifiers=tuple(mods.items())
        )

    low = resolve(ends(1, uphill=True))  # 1 - 1 = 0, below row 1
    assert (low.cell, low.roll) == ("AE", "0")
    assert any("below the first row: AE" in line for line in low.trace)
    high = resolve(ends(5, leader=3))  # 5 + 2 (capped) = 7, above row 6
    assert (high.cell, high.roll) == ("DE", "7")
    sixth = Fraction(1, 6)
    expected = {"AR": sixth, "EX": sixth, "DR1": sixth, "DR2": sixth, "DE": 2 * sixth}
    assert chances(ends(None, leader=3)) == {json.dumps(k): v for k, v in expected.items()}
