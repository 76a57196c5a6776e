"""A player's own chart (ruleset "game:NAME"): the combat screen made from the chart's
inputs alone. Its form is the schema the chart gives (tui.engine.rulesets.charts.chart): the unit rows of
each side, then each modifier as a tick, a choice or a number; its values go to the
engine as the combat's `modifiers`."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import work
from textual.widgets import Input

from tui.desk.screens.combat import CombatScreen


class GameChartScreen(CombatScreen):
    MARKER_KINDS: ClassVar[frozenset[str] | None] = frozenset()  # a player's chart places none
    FACTOR_NAMES: ClassVar[tuple[str, str]] = ("attack", "defence")

    def __init__(self, ruleset: str) -> None:
        super().__init__(ruleset)
        # The copy of the chart the open game's save keeps, once the save is read: the
        # one this screen resolves with, whatever else was read since (another save's
        # copy of a chart of the same name, say).
        self.pinned: Any = None

    @property
    def rules(self) -> Any:
        return {}

    def on_mount(self) -> None:
        if self.session.loaded:
            self.pin()
        super().on_mount()

    def game_was_read(self) -> None:
        super().game_was_read()
        self.pin()
        self.form_changed()

    def pin(self) -> None:
        """Keep the chart the game's save registered as it was read; name a changed file."""
        from tui.engine.rulesets.charts.chart import known

        try:
            self.pinned = known(self.ruleset)
        except ValueError:
            return
        self.check_the_file()

    def the_games_chart(self) -> None:
        """Resolve with the pinned copy (registered again if another took its place)."""
        if self.pinned is None:
            return
        from tui.engine.rulesets.charts.chart import known, register

        try:
            if known(self.ruleset) is self.pinned:
                return
        except ValueError:
            pass
        register(self.pinned)

    def read_form(self) -> Any:
        self.the_games_chart()
        return super().read_form()

    def before_roll(self) -> None:
        self.the_games_chart()

    @work(thread=True, exclusive=True, group="chart-file", exit_on_error=False)
    def check_the_file(self) -> None:
        """Name a chart file in the games folder that changed since the game began: the
        game keeps the copy its save holds (a missing or broken file says nothing)."""
        from tui.engine.rulesets.charts.chart import ChartError, known
        from tui.engine.rulesets.charts.reading import load_chart
        from tui.game.charts import changed_chart

        name = self.ruleset.removeprefix("game:")
        folder = self.desk.games_dir
        path = folder / f"{name}.toml"
        try:
            kept = self.pinned or known(self.ruleset)
            said = changed_chart(kept, load_chart(path, f"{folder.name}/{path.name}"))
        except (ChartError, ValueError):
            return
        if said:
            self.app.call_from_thread(
                self.notify, said, severity="warning", markup=False, timeout=15
            )

    def logged_value(self, combat: Any, found: Any) -> Any:
        """A modifier's value in a logged combat (kept by name in its `modifiers`)."""
        return dict(combat.modifiers).get(found.name)

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
