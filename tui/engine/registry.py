"""The one registry of rulesets: every game the program knows, built-in or a player's chart,
found by its id. Everything that once kept its own table of rulesets asks here.

`register(ruleset)` adds a game (a test, a plug-in); `get(id)` finds one, and refuses an id
it does not know naming those it does. A player's chart becomes a ruleset through this
module's chart loader (`chart_ruleset`, `kept_chart`, `find_chart`): the only code that
knows how a chart's id is spelt.

Headless: never imports textual or rich.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from tui.engine.errors import ChartError, InputError
from tui.engine.ruleset import Ruleset
from tui.engine.rulesets.boom import BOOM
from tui.engine.rulesets.daynight import DAYNIGHT
from tui.engine.rulesets.ocs import OCS
from tui.engine.rulesets.pod import BASIC, SUPER, ULTRA
from tui.engine.rulesets.rivets import RIVETS
from tui.engine.schema import Field
from tui.engine.tables import Tables

# A player's chart's modules load with the first chart read (see chart_ruleset).
if TYPE_CHECKING:
    from tui.engine.rulesets.charts.chart import PlayerChart
    from tui.engine.rulesets.charts.ruleset import ChartRuleset

BUILT_IN: tuple[Ruleset, ...] = (BASIC, SUPER, ULTRA, BOOM, OCS, RIVETS, DAYNIGHT)
BUILT_IN_IDS: tuple[str, ...] = tuple(r.id for r in BUILT_IN)
_RULESETS: dict[str, Ruleset] = {r.id: r for r in BUILT_IN}


def register(ruleset: Ruleset) -> Ruleset:
    """Add `ruleset` (or put it in place of one of its id that is not built in)."""
    if not isinstance(ruleset, Ruleset):
        raise TypeError(f"a Ruleset, not {ruleset!r}")
    if ruleset.id in BUILT_IN_IDS and _RULESETS[ruleset.id] is not ruleset:
        raise ValueError(f"{ruleset.id!r} is a built-in ruleset")
    _RULESETS[ruleset.id] = ruleset
    return ruleset


def unregister(ruleset_id: str) -> None:
    """Forget a ruleset that is not built in."""
    if ruleset_id not in BUILT_IN_IDS:
        _RULESETS.pop(ruleset_id, None)


def get(ruleset_id: object) -> Ruleset:
    """The ruleset of `ruleset_id`; InputError naming the ids known otherwise."""
    found = _RULESETS.get(ruleset_id) if isinstance(ruleset_id, str) else None
    if found is None:
        chart = isinstance(ruleset_id, str) and chart_name(ruleset_id) is not None
        said = " (a player's chart is read from the games folder)" if chart else ""
        raise InputError(
            "ruleset", ruleset_id, "one of " + ", ".join(ids()) + said, choices=list(ids())
        )
    return found


def known(ruleset_id: object) -> bool:
    return isinstance(ruleset_id, str) and ruleset_id in _RULESETS


def ids() -> tuple[str, ...]:
    """Every ruleset known, built-in ones first."""
    return tuple(_RULESETS)


def rulesets() -> tuple[Ruleset, ...]:
    return tuple(_RULESETS.values())


def short_name(ruleset_id: str) -> str:
    """A ruleset's short name (its id, for one not known here)."""
    found = _RULESETS.get(ruleset_id)
    return found.short if found is not None else ruleset_id


def title_of(ruleset_id: str, tables: Tables) -> str:
    """A ruleset's title (its id, for one not known here)."""
    found = _RULESETS.get(ruleset_id)
    return found.title(tables) if found is not None else ruleset_id


def by_name(given: str) -> str | None:
    """The id of the ruleset a player names by its id or its short name (any case)."""
    said = given.lower()
    for ruleset in _RULESETS.values():
        if said in (ruleset.id.lower(), ruleset.short.lower()):
            return ruleset.id
    return None


def readers(name: str) -> tuple[str, ...]:
    """The rulesets that read the input `name`."""
    return tuple(r.id for r in _RULESETS.values() if any(f.name == name for f in r.fields))


def cli_fields() -> tuple[tuple[Field, tuple[str, ...]], ...]:
    """Every built-in CLI flag once, with the rulesets that read it, in the order first met."""
    found: dict[str, tuple[Field, list[str]]] = {}
    for ruleset in BUILT_IN:
        for field in ruleset.flags:
            if field.flag not in found:
                found[field.flag] = (field, [])
            found[field.flag][1].append(ruleset.id)
    return tuple((field, tuple(readers)) for field, readers in found.values())


# --- a player's chart --------------------------------------------------------------------------

_CHART_PREFIX = "game:"
# A ruleset a new game may name: one known, or a player's chart in the games folder.
CHART_HINT = f", or {_CHART_PREFIX}NAME (a chart in the games folder)"


def chart_id(name: str) -> str:
    """The ruleset id of the chart file NAME.toml."""
    return _CHART_PREFIX + name


def chart_name(ruleset_id: str) -> str | None:
    """The chart file's name of a player's chart's id, or None: not a chart's id."""
    if isinstance(ruleset_id, str) and ruleset_id.startswith(_CHART_PREFIX):
        return ruleset_id[len(_CHART_PREFIX) :]
    return None


def chart_ruleset(chart: PlayerChart) -> ChartRuleset:
    """`chart` as the ruleset its id resolves with from now on."""
    # A chart's ruleset loads with the first chart read: the desk starts without it.
    from tui.engine.rulesets.charts.ruleset import ChartRuleset

    made = ChartRuleset(chart_id(chart.name), chart)
    register(made)
    return made


@lru_cache(maxsize=64)
def _parsed(text: str, name: str) -> PlayerChart:
    # Imported with the first chart read: its checks read odds labels, which the desk's
    # start screen (listing saves) does without.
    from tui.engine.rulesets.charts.reading import parse_chart

    return parse_chart(text, f"the copy of {chart_id(name)}", name)


def kept_chart(ruleset_id: str, text: str) -> ChartRuleset:
    """The copy of a player's chart a save keeps, as its ruleset. Raises ChartError for a
    broken copy, or an id that is no chart's."""
    name = chart_name(ruleset_id)
    if name is None:
        raise ChartError(f"{ruleset_id!r} is not a player's chart ({_CHART_PREFIX}NAME)")
    return chart_ruleset(_parsed(text, name))


def find_chart(given: str, folder: Path) -> ChartRuleset:
    """A chart named on a command line: a path to a .toml file, or NAME or its id in the
    games folder. Read, checked and registered. Raises ChartError."""
    from tui.engine.rulesets.charts.reading import load_chart  # as _parsed's

    name = chart_name(given) or given
    if given.endswith(".toml") or "/" in given:
        chart = load_chart(Path(given))
    else:
        path = folder / f"{name}.toml"
        if not path.is_file():
            raise ChartError(
                f"{given}: no chart {name}.toml in the games folder {folder} "
                "(give --games DIR, or a path to the file)"
            )
        chart = load_chart(path, f"{folder.name}/{path.name}")
    return chart_ruleset(chart)


def names_a_chart(given: str) -> bool:
    """Whether a word on a command line names a chart by its id."""
    return chart_name(given) is not None
