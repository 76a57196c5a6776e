"""The games folder: a player's chart files, read and registered; a broken one is named and
left out, never stopping the others. Never imports textual."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

# The charts' module is imported by what reads a chart: the desk asks for the games folder
# at start, and draws its first screen without the engine.
if TYPE_CHECKING:
    from tui.engine.rulesets.charts.chart import PlayerChart

GAMES_ENV = "CRTDESK_GAMES"
SAVES_ENV = "CRTDESK_SAVES"
MOST_FILES = 200


def games_folder(override: str | None = None, saves: str | None = None) -> Path:
    """The games folder: `override`, else $CRTDESK_GAMES, else `games` beside the saves
    folder (`saves`, else $CRTDESK_SAVES, else ./saves). It need not exist."""
    text = override or os.environ.get(GAMES_ENV)
    if text:
        return Path(text).expanduser()
    saves_text = saves or os.environ.get(SAVES_ENV) or "saves"
    return Path(saves_text).expanduser().absolute().parent / "games"


@dataclass(frozen=True)
class Shelf:
    """What a games folder holds: the sound charts (registered) and one line per broken one."""

    folder: Path
    charts: tuple[PlayerChart, ...]
    broken: tuple[str, ...]


def read_games(folder: Path) -> Shelf:
    """Read every `*.toml` in `folder` (not below it), in name order; each broken one is
    named in `broken`. A missing folder holds no games. None is registered: an open game
    resolves with the copy its save keeps, a new one with the chart picked
    (tui.engine.registry.chart_ruleset)."""
    # Imported to read a chart (see above: the desk starts without the engine).
    from tui.engine.rulesets.charts.chart import ChartError
    from tui.engine.rulesets.charts.reading import load_chart

    charts: list[PlayerChart] = []
    broken: list[str] = []
    try:
        paths = sorted(p for p in folder.iterdir() if p.suffix == ".toml" and p.is_file())
    except FileNotFoundError:
        return Shelf(folder, (), ())
    except OSError as err:
        return Shelf(folder, (), (f"{folder}: cannot be read: {err.strerror or err}",))
    for path in paths[:MOST_FILES]:
        try:
            chart = load_chart(path, f"{folder.name}/{path.name}")
        except ChartError as err:
            broken.append(str(err))
            continue
        charts.append(chart)
    if len(paths) > MOST_FILES:
        broken.append(f"{folder}: over {MOST_FILES} chart files; the first {MOST_FILES} are read")
    return Shelf(folder, tuple(charts), tuple(broken))
