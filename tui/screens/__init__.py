"""The desk's screens: start, one per ruleset, log review, help and dialogs."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.screens.ruleset import RulesetScreen


def screen_for(ruleset: str) -> RulesetScreen:
    """The screen for one ruleset in play; each screen's module is imported when needed."""
    if ruleset in ("pod-basic", "pod-super", "pod-ultra"):
        from tui.screens.pod import PodScreen

        return PodScreen(ruleset)
    if ruleset == "pod-boom":
        from tui.screens.boom import BoomScreen

        return BoomScreen(ruleset)
    if ruleset == "rivets":
        from tui.screens.rivets import RivetsScreen

        return RivetsScreen(ruleset)
    if ruleset == "ocs":
        from tui.screens.ocs import OcsScreen

        return OcsScreen(ruleset)
    if ruleset.startswith("game:"):  # a player's chart, from its inputs alone
        from tui.screens.game import GameChartScreen

        return GameChartScreen(ruleset)
    if ruleset == "daynight":
        from tui.screens.daynight import DayNightScreen

        return DayNightScreen(ruleset)
    raise ValueError(f"no screen for ruleset {ruleset!r}")
