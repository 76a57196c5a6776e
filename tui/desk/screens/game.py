"""The combat screen of a ruleset that draws none of its own (a player's chart, or one a
plug-in registers): its form is the ruleset's fields alone, the unit rows of each side,
then each other field as a tick, a choice or a number. A field the combat holds by name is
given by name; any other (a chart's modifier) goes to the engine in the combat's
`modifiers`."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import work
from textual.widgets import Input

from tui.desk.screens.combat import CombatScreen
from tui.engine import registry
from tui.engine.model import CombatInput
from tui.engine.rulesets.charts.chart import ChartError
from tui.engine.rulesets.charts.reading import load_chart
from tui.engine.rulesets.charts.ruleset import ChartRuleset
from tui.game.charts import changed_chart

_HELD = frozenset(CombatInput.__dataclass_fields__)


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
        name = registry.chart_name(self.ruleset)
        if not isinstance(kept, ChartRuleset) or name is None:
            return
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

    def logged_value(self, combat: Any, found: Any) -> Any:
        """A field's value in a logged combat (a modifier's is kept in its `modifiers`)."""
        if found.name in _HELD:
            return getattr(combat, found.name)
        return dict(combat.modifiers).get(found.name)

    def combat_fields(
        self, attackers: tuple[Any, ...], defenders: tuple[Any, ...], problems: list[str]
    ) -> dict[str, Any]:
        """The units, and each other field set (a number left empty is not set)."""
        values: dict[str, Any] = {"attackers": attackers, "defenders": defenders}
        modifiers: list[tuple[str, Any]] = []
        for found in self.form_inputs:
            if found.kind in ("whole", "signed"):
                box = self.form_field(f"#{found.widget_id}")
                if isinstance(box, Input) and not box.value.strip():
                    box.set_class(False, "-invalid")
                    continue
            value = self.input_value(found, problems)
            if value is None or value is False:
                continue
            if found.name in _HELD:
                values[found.name] = value
            else:
                modifiers.append((found.name, value))
        if modifiers:
            values["modifiers"] = tuple(modifiers)
        return values
