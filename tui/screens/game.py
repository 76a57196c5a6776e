"""A player's own chart (ruleset "game:NAME"): the combat screen made from the chart's
inputs alone. Its form is the schema the chart gives (tui.engine.charts): the unit rows of
each side, then each modifier as a tick, a choice or a number; its values go to the
engine as the combat's `modifiers`."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import work
from textual.widgets import Input

from tui.screens.combat import CombatScreen


class GameChartScreen(CombatScreen):
    MARKER_KINDS: ClassVar[frozenset[str] | None] = frozenset()  # a player's chart places none
    FACTOR_NAMES: ClassVar[tuple[str, str]] = ("attack", "defence")

    @property
    def rules(self) -> Any:
        return {}

    def on_mount(self) -> None:
        super().on_mount()
        self.check_the_file()

    @work(thread=True, exclusive=True, group="chart-file", exit_on_error=False)
    def check_the_file(self) -> None:
        """Name a chart file in the games folder that changed since the game began: the
        game keeps the copy its save holds (a missing or broken file says nothing)."""
        from tui.engine.charts import ChartError, known, load_chart
        from tui.saves.charts import changed_chart

        name = self.ruleset.removeprefix("game:")
        folder = self.desk.games_dir
        path = folder / f"{name}.toml"
        try:
            kept = known(self.ruleset)
            said = changed_chart(kept, load_chart(path, f"{folder.name}/{path.name}"))
        except (ChartError, ValueError):
            return
        if said:
            self.app.call_from_thread(
                self.notify, said, severity="warning", markup=False, timeout=15
            )

    def combat_fields(
        self, attackers: tuple[Any, ...], defenders: tuple[Any, ...], problems: list[str]
    ) -> dict[str, Any]:
        """The units, and each modifier set (a number left empty is not set)."""
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
            modifiers.append((found.name, value))
        return {"attackers": attackers, "defenders": defenders, "modifiers": tuple(modifiers)}
