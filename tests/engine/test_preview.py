"""tui.engine.preview: what the desk's live preview shows, read from the engine alone."""

from __future__ import annotations

from tui.engine import CombatInput, Unit
from tui.engine.preview import preview
from tui.engine.tables import Tables, default_tables


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


def test_the_next_column_is_the_least_attack_added_that_reaches_it() -> None:
    """For every odds ruleset and a spread of totals: the attack the preview names moves
    the column right to the one it names, and one factor less does not."""
    from msgspec.structs import replace

    from tui.engine.preview import probe

    tables = default_tables()
    for ruleset in ("pod-basic", "pod-super", "rivets", "daynight", "ocs"):
        for attack, defence in ((7, 3), (1, 9), (4, 4), (13, 2), (2, 5)):
            combat = CombatInput(ruleset, attackers=(Unit(attack),), defenders=(Unit(defence),))
            shown = preview(combat, tables)
            if shown.automatic is not None:
                assert shown.next_column is None
                continue
            if shown.next_column is None:
                # Beyond the last column: the most attack a search adds leaves it there.
                more = replace(combat, attackers=(Unit(attack), Unit(999)))
                assert probe(more, tables).column == shown.column, (ruleset, attack, defence)
                continue
            added, column = shown.next_column
            reached = probe(replace(combat, attackers=(Unit(attack), Unit(added))), tables)
            assert (reached.column or reached.odds) == column != shown.column
            if added > 1:
                short = replace(combat, attackers=(Unit(attack), Unit(added - 1)))
                assert probe(short, tables).column == shown.column, (ruleset, attack, defence)
    # 7 to 3 is 2-1 on Pair-o-Dice Basic; 9 to 3 is 3-1.
    basic = CombatInput("pod-basic", attackers=(Unit(7),), defenders=(Unit(3),))
    assert preview(basic, tables).next_column == (2, "3-1")
    # Day/Night's last column (7-1+) has none beyond it.
    last = CombatInput("daynight", attackers=(Unit(30),), defenders=(Unit(2),))
    assert preview(last, tables).column == "7-1+" and preview(last, tables).next_column is None
    # A column given by the player is not read from the odds: no next column.
    given = CombatInput("pod-basic", attackers=(Unit(7),), defenders=(Unit(3),), column="2-1")
    assert preview(given, tables).next_column is None


def test_the_next_column_search_probes_each_attack_once(monkeypatch) -> None:
    """A new combat's preview is mostly probes (each reads a combat's column): the search
    for the next column asks each attack added once, and finds what it found before."""
    from msgspec.structs import replace

    from tui.engine import preview as module
    from tui.engine.preview import column_added, next_column, probe

    tables = default_tables()
    asked: list[int] = []

    def counted(combat: CombatInput, added: int, tables: Tables) -> str | None:
        asked.append(added)
        return column_added(combat, added, tables)

    monkeypatch.setattr(module, "column_added", counted)
    for ruleset, attack, defence in (("pod-basic", 7, 3), ("pod-basic", 1, 1), ("ocs", 3, 4)):
        combat = CombatInput(ruleset, attackers=(Unit(attack),), defenders=(Unit(defence),))
        first = probe(combat, tables)
        # The least attack added that moves the column, asked one by one.
        wanted = next(
            (added, found.column or found.odds)
            for added in range(1, 50)
            for found in [probe(replace(combat, attackers=(Unit(attack), Unit(added))), tables)]
            if (found.column or found.odds) != first.column
        )
        asked.clear()
        assert next_column(combat, first, tables) == wanted
        assert len(asked) == len(set(asked)), asked
        if ruleset == "pod-basic" and attack == 7:
            # 7 to 3 is 2-1: the last column checked (999), then 1 (2-1 still), 2 (3-1).
            assert wanted == (2, "3-1") and asked == [999, 1, 2]
