"""The one registry of rulesets: what it holds, what it refuses, and the chart loader."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.engine import registry
from tui.engine.errors import InputError
from tui.engine.ruleset import Ruleset
from tui.engine.rulesets.charts.chart import ChartError
from tui.engine.rulesets.charts.ruleset import ChartRuleset
from tui.engine.schema import declared
from tui.engine.tables import SECTIONS, default_tables

HILL = Path(__file__).resolve().parents[2] / "docs" / "games" / "hill-203.toml"


def test_every_built_in_ruleset_has_its_section_in_tables_toml() -> None:
    assert registry.BUILT_IN_IDS == SECTIONS
    tables = default_tables()
    for ruleset in registry.BUILT_IN:
        assert ruleset.title(tables) == tables.data[ruleset.id]["title"]
        assert ruleset.dice(tables) == tables.data[ruleset.id]["dice"]
        assert ruleset.chart_text(tables).startswith(ruleset.title(tables))


def test_an_unknown_id_is_refused_naming_those_known() -> None:
    with pytest.raises(InputError) as err:
        registry.get("pod-supr")
    said = err.value.message()
    assert "'pod-supr' is not allowed; expected one of pod-basic," in said
    assert "did you mean pod-super?" in said
    with pytest.raises(InputError) as err:
        registry.get("game:nowhere")
    assert "a player's chart is read from the games folder" in err.value.message()


def test_a_ruleset_registered_is_found_asked_and_forgotten() -> None:
    mine = Ruleset(id="mine", short="Mine", fields=declared("attackers", "defenders", "roll"))
    assert registry.register(mine) is mine
    assert registry.get("mine") is mine and registry.known("mine")
    assert "mine" in registry.readers("attackers") and "mine" not in registry.readers("bcpc")
    assert registry.short_name("mine") == "Mine"
    assert registry.by_name("MINE") == "mine"
    registry.unregister("mine")
    assert not registry.known("mine") and registry.short_name("mine") == "mine"


def test_a_built_in_ruleset_cannot_be_replaced_or_forgotten() -> None:
    with pytest.raises(ValueError, match="built-in"):
        registry.register(Ruleset(id="ocs"))
    registry.unregister("ocs")
    assert registry.known("ocs")
    with pytest.raises(TypeError):
        registry.register("ocs")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="no attribute 'colour'"):
        Ruleset(id="x", colour="red")


def test_the_chart_loader_names_and_reads_charts(tmp_path: Path) -> None:
    assert registry.chart_id("hill-203") == "game:hill-203"
    assert registry.chart_name("game:hill-203") == "hill-203"
    assert registry.chart_name("pod-basic") is None
    found = registry.find_chart("hill-203", HILL.parent)
    assert isinstance(found, ChartRuleset) and found.id == "game:hill-203"
    assert registry.get("game:hill-203") is found and found.chart_copy == HILL.read_text()
    # A save's copy of it is the ruleset of that id from then on.
    kept = registry.kept_chart("game:hill-203", found.chart.text.replace("Hill 203", "Hill 204"))
    assert registry.get("game:hill-203") is kept and kept.title(default_tables()) == "Hill 204"
    with pytest.raises(ChartError, match="not a player's chart"):
        registry.kept_chart("pod-basic", "")
    with pytest.raises(ChartError, match="no chart nowhere.toml"):
        registry.find_chart("nowhere", tmp_path)
