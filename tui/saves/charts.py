"""A player's charts kept in a save: the header's `charts` table holds a copy of each chart
in play (ruleset "game:NAME" -> the file's text), so the log reads, reviews and is judged
where the file is gone or edited. Checking a header reads and registers each copy; a chart
whose file changed after the game began is named (the game keeps its copy)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from tui.engine.rulesets.charts.chart import ChartError, PlayerChart, is_game, known, register
from tui.engine.rulesets.charts.reading import parse_chart
from tui.engine.tables import RULESET_IDS
from tui.saves.errors import SaveError


@lru_cache(maxsize=64)
def _read(text: str, name: str) -> PlayerChart:
    return parse_chart(text, f"the copy of game:{name}", name)


def kept_charts(header: dict[str, Any]) -> dict[str, str]:
    charts = header.get("charts", {})
    return charts if isinstance(charts, dict) else {}


def check_charts(path: Path, header: dict[str, Any], line: int) -> None:
    """Every player's chart in play has its copy in the header, sound: each is registered.
    SaveError naming the save, the line and the chart otherwise."""
    charts = header.get("charts", {})
    if not isinstance(charts, dict) or not all(isinstance(t, str) for t in charts.values()):
        raise SaveError(f"{path}: line {line}: 'charts' must be a table of chart texts")
    for ruleset in header.get("rulesets", []):
        if not is_game(ruleset):
            continue
        text = charts.get(ruleset)
        if text is None:
            raise SaveError(
                f"{path}: line {line}: ruleset {ruleset!r} is a player's chart, but the save "
                "keeps no copy of it in 'charts'"
            )
        try:
            register(_read(text, ruleset.removeprefix("game:")))
        except ChartError as err:
            raise SaveError(f"{path}: line {line}: the kept chart is broken: {err}") from None


def known_ruleset(ruleset: str) -> bool:
    """A built-in ruleset, or a player's chart a checked header registered."""
    if ruleset in RULESET_IDS:
        return True
    if not is_game(ruleset):
        return False
    try:
        known(ruleset)
    except ValueError:
        return False
    return True


def changed_chart(kept: PlayerChart | None, folder_chart: PlayerChart) -> str | None:
    """One line when the games folder's chart is not the copy the game began with."""
    if kept is None or kept.digest == folder_chart.digest:
        return None
    return (
        f"{folder_chart.source} has changed since this game began "
        f"(its copy {kept.digest}, the file {folder_chart.digest}): this game keeps "
        "the copy it began with"
    )
