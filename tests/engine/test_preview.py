"""tui.engine.preview: what the desk's live preview shows, read from the engine alone."""

from __future__ import annotations

from tui.engine import CombatInput, Unit
from tui.engine.preview import preview
from tui.engine.tables import default_tables


def test_an_obstacle_names_itself_as_the_defence() -> None:
    tables = default_tables()
    cdf = tables.data["pod-ultra"]["obstacles"]["mines"]
    combat = CombatInput(ruleset="pod-ultra", attackers=(Unit(9),), obstacle="mines")
    shown = preview(combat, tables)
    assert shown.defense_total == cdf
    # Not "the defender rows are not read" over results saying "Defender loses 2 factors,
    # must retreat 2 hexes": the defender's line is the obstacle's (RULINGS, "Obstacles").
    assert (
        shown.defence_note == f"The mines obstacle defends (CDF {cdf}): a loss of {cdf}+ clears it"
    )
    meanings = {row.cell: row.meaning for row in shown.rows}
    assert all("ret" not in meaning for meaning in meanings.values())
    plain = CombatInput(ruleset="pod-ultra", attackers=(Unit(9),), defenders=(Unit(3),))
    assert preview(plain, tables).defence_note is None


def test_preview_rows_add_up_to_one_and_the_column_is_the_engines() -> None:
    combat = CombatInput(ruleset="rivets", attackers=(Unit(8),), defenders=(Unit(4),))
    shown = preview(combat)
    assert shown.odds == "2-1" and shown.automatic is None
    assert sum(row.probability for row in shown.rows) == 1
