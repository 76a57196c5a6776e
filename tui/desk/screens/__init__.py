"""The desk's screens: start, one per ruleset, log review, help and dialogs."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.desk.screens.ruleset import RulesetScreen


def screen_for(ruleset: str) -> RulesetScreen:
    """The screen for one ruleset in play; each screen's module is imported when needed."""
    if ruleset in ("pod-basic", "pod-super", "pod-ultra"):
        from tui.desk.screens.pod import PodScreen

        return PodScreen(ruleset)
    if ruleset == "pod-boom":
        from tui.desk.screens.boom import BoomScreen

        return BoomScreen(ruleset)
    if ruleset == "rivets":
        from tui.desk.screens.rivets import RivetsScreen

        return RivetsScreen(ruleset)
    if ruleset == "ocs":
        from tui.desk.screens.ocs import OcsScreen

        return OcsScreen(ruleset)
    if ruleset.startswith("game:"):  # a player's chart, from its inputs alone
        from tui.desk.screens.game import GameChartScreen

        return GameChartScreen(ruleset)
    if ruleset == "daynight":
        from tui.desk.screens.daynight import DayNightScreen

        return DayNightScreen(ruleset)
    raise ValueError(f"no screen for ruleset {ruleset!r}")
