"""Luck against the odds: how the dice fell in a save, per player and per ruleset.

Two figures, both from a save's log entries:

- Dice faces against uniform. Every die the desk rolled counts one face; a chi-square test
  against equal chances gives a p-value (the chance that fair dice stray this far or
  further). Dice entered by hand are counted apart, and only where a face is known (one
  die, not a modified total).
- Each combat's result against its exact distribution at the odds fought. The result
  obtained gets a mid-rank percentile, P(a worse result) + P(the same result) / 2, with
  results ordered by how good they are for the attacker (see `result_rank`). With fair
  dice a percentile averages exactly 0.5 whatever the odds, so the mean's distance from
  0.5 says whether a player's combats went better or worse than the odds promised.

`tui.luck.stats` works the figures out (`tui.luck.chi_square` the p-values); `tui.luck.text` prints them. Headless: never
imports textual or rich.
"""

from tui.luck.chi_square import chi_square_p, upper_gamma_q
from tui.luck.stats import (
    DAYNIGHT_ORDER,
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
from tui.luck.text import (
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
    "DAYNIGHT_ORDER",
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
