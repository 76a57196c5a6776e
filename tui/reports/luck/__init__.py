"""Luck against the odds: how the dice fell in a save, per player and per ruleset.

Two figures: the dice faces against uniform (a chi-square p-value) and each combat's
result against its exact distribution (a mid-rank percentile); `tui.reports.luck.stats` says how.

`tui.reports.luck.stats` works the figures out (`tui.reports.luck.chi_square` the p-values);
`tui.reports.luck.text` prints them. Headless: never imports textual or rich.
"""

from tui.reports.luck.chi_square import chi_square_p, upper_gamma_q
from tui.reports.luck.stats import (
    CombatFigures,
    CombatLuck,
    FaceCounts,
    LuckGroup,
    LuckReport,
    LuckTally,
    combat_from_inputs,
    combat_luck,
    luck_report,
    result_rank,
    same_chances,
)
from tui.reports.luck.text import (
    bar,
    combats_summary,
    faces_lines,
    faces_summary,
    luck_text,
    p_text,
    sparkline,
)

__all__ = [
    "CombatFigures",
    "CombatLuck",
    "FaceCounts",
    "LuckGroup",
    "LuckReport",
    "LuckTally",
    "bar",
    "chi_square_p",
    "combat_from_inputs",
    "combat_luck",
    "combats_summary",
    "faces_lines",
    "faces_summary",
    "luck_report",
    "luck_text",
    "p_text",
    "result_rank",
    "same_chances",
    "sparkline",
    "upper_gamma_q",
]
