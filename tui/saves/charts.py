"""A player's charts kept in a save: the header's `charts` table holds a copy of each chart
in play (its ruleset id -> the file's text), so the log reads, reviews and is judged where
the file is gone or edited. Checking a header makes each copy the ruleset of its id (the
registry's chart loader); a chart whose file changed after the game began is named (the game
keeps its copy)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.engine import registry
from tui.engine.errors import ChartError
from tui.saves.errors import SaveError

# A chart's own modules load with the first chart read: the desk starts without them.
if TYPE_CHECKING:
    from tui.engine.rulesets.charts.chart import PlayerChart


def kept_charts(header: dict[str, Any]) -> dict[str, str]:
    charts = header.get("charts", {})
    return charts if isinstance(charts, dict) else {}


def check_charts(path: Path, header: dict[str, Any], line: int) -> None:
    """Every ruleset in play is known, a player's chart by the copy the header keeps (each
    copy is registered as its ruleset). SaveError naming the save, the line and the ruleset
    otherwise."""
    charts = header.get("charts", {})
    if not isinstance(charts, dict) or not all(isinstance(t, str) for t in charts.values()):
        raise SaveError(f"{path}: line {line}: 'charts' must be a table of chart texts")
    for ruleset in header.get("rulesets", []):
        text = charts.get(ruleset)
        if text is None:
            if registry.chart_name(ruleset) is not None:
                raise SaveError(
                    f"{path}: line {line}: ruleset {ruleset!r} is a player's chart, but the "
                    "save keeps no copy of it in 'charts'"
                )
            if not registry.known(ruleset):
                raise SaveError(
                    f"{path}: line {line}: unknown ruleset {ruleset!r}; expected one of "
                    + ", ".join(registry.ids())
                )
            continue
        try:
            registry.kept_chart(ruleset, text)
        except ChartError as err:
            raise SaveError(f"{path}: line {line}: the kept chart is broken: {err}") from None


def changed_chart(kept: PlayerChart | None, folder_chart: PlayerChart) -> str | None:
    """One line when the games folder's chart is not the copy the game began with."""
    if kept is None or kept.digest == folder_chart.digest:
        return None
    return (
        f"{folder_chart.source} has changed since this game began "
        f"(its copy {kept.digest}, the file {folder_chart.digest}): this game keeps "
        "the copy it began with"
    )
