"""The combat screen of a ruleset that draws none of its own (a player's chart, or one a
plug-in registers): its form is the ruleset's fields alone, the unit rows of each side,
then each other field as a tick, a choice or a number. A field the combat holds by name is
given by name; any other (a chart's modifier) goes to the engine in the combat's
`modifiers`."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import work

from tui.desk.screens.combat import CombatScreen
from tui.engine import registry
from tui.engine.model import CombatInput
from tui.engine.rulesets.charts.chart import ChartError
from tui.engine.rulesets.charts.reading import load_chart
from tui.engine.rulesets.charts.ruleset import ChartRuleset
from tui.game.charts import changed_chart

_HELD = frozenset(CombatInput.__struct_fields__)


class FormScreen(CombatScreen):
    FACTOR_NAMES: ClassVar[tuple[str, str]] = ("attack", "defence")

    @property
    def rules(self) -> Any:
        return {}

    def on_mount(self) -> None:
        if self.session.loaded:
            self.check_the_file()
        super().on_mount()

    def game_was_read(self) -> None:
        super().game_was_read()
        self.check_the_file()
        self.form_changed()

    @work(thread=True, exclusive=True, group="chart-file", exit_on_error=False)
    def check_the_file(self) -> None:
        """Name a chart file in the games folder that changed since the game began: the
        game keeps the copy its save holds (a missing or broken file says nothing)."""
        kept = registry.get(self.ruleset) if registry.known(self.ruleset) else None
        if not isinstance(kept, ChartRuleset):
            return
        name = kept.chart.name
        folder = self.desk.games_dir
        path = folder / f"{name}.toml"
        try:
            said = changed_chart(kept.chart, load_chart(path, f"{folder.name}/{path.name}"))
        except ChartError:
            return
        if said:
            self.app.call_from_thread(
                self.notify, said, severity="warning", markup=False, timeout=15
            )

    def _held(self, name: str) -> bool:
        """Whether the combat holds a field by name: a field of CombatInput the ruleset
        logs as such (a chart's modifier named like one, "terrain", is a modifier)."""
        logged = registry.get(self.ruleset).logged_fields()
        return name in _HELD and any(f.name == name for f in logged)

    def logged_value(self, combat: Any, found: Any) -> Any:
        """A field's value in a logged combat (a modifier's is kept in its `modifiers`)."""
        if self._held(found.name):
            return getattr(combat, found.name)
        return dict(combat.modifiers).get(found.name)

    def combat_fields(self, values: dict[str, Any], problems: list[str]) -> dict[str, Any]:
        """The units, and each other field set (a number left empty, or a tick not ticked,
        is not set): the combat's own by name, a modifier's in `modifiers`."""
        combat: dict[str, Any] = {
            "attackers": values.get("attackers", ()),
            "defenders": values.get("defenders", ()),
        }
        modifiers: list[tuple[str, Any]] = []
        for found in self.form_inputs:
            value = values.get(found.name)
            if value is None or value is False:
                continue
            if self._held(found.name):
                combat[found.name] = value
            else:
                modifiers.append((found.name, value))
        if modifiers:
            combat["modifiers"] = tuple(modifiers)
        return combat
