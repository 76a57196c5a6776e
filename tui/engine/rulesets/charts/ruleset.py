"""A player's chart as a Ruleset: its fields from its modifiers, resolved by its own rules
(tui.engine.rulesets.charts.player), printed from its file, ranked by its [results] order.
Made by the registry's chart loader (tui.engine.registry), which gives it its id."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from tui.engine.cells import cell_text, plain
from tui.engine.ruleset import Ruleset
from tui.engine.rulesets.charts.chart import (
    Beyond,
    PlayerChart,
    effect_text,
    fields,
    first_beyond,
    set_as,
)
from tui.engine.schema import CHART_READS, FIELDS, Field
from tui.engine.tables import Tables
from tui.engine.text import one_line

if TYPE_CHECKING:
    from tui.engine.dice import Roller
    from tui.engine.model import CombatInput, Outcome


class ChartRuleset(Ruleset):
    """One player's chart, read from its file (or from the copy a save keeps)."""

    rules = "tui.engine.rulesets.charts.player"
    cli_group = "the chart's modifiers"

    def __init__(self, ruleset_id: str, chart: PlayerChart) -> None:
        # A unit's mark (N@MARK) is kept as its terrain, where the chart marks units.
        marks = chart.marks("attacker") + chart.marks("defender")
        super().__init__(
            id=ruleset_id,
            short=chart.name,
            fields=fields(chart) + _rerolls(chart),
            unit_keys=("terrain",) if marks else (),
        )
        self.chart = chart

    def title(self, tables: Tables) -> str:
        return self.chart.title

    def dice(self, tables: Tables) -> str:
        return self.chart.dice

    def losses(self, tables: Tables) -> str:
        return "factors"

    @property
    def cli_name(self) -> str:
        """A chart is named on a command line by its file's name."""
        return self.chart.name

    @property
    def chart_copy(self) -> str | None:
        return self.chart.text

    def logged_fields(self) -> tuple[Field, ...]:
        return CHART_READS + _rerolls(self.chart)

    def check_inputs(self, combat: CombatInput) -> None:
        self.rules_module().check_inputs(combat, self.chart)

    def resolve(self, combat: CombatInput, tables: Tables, roller: Roller) -> Outcome:
        # The engine's front door has checked the inputs through `check_inputs` above.
        outcome: Outcome = self.rules_module().resolve_checked(self.chart, combat, roller)
        return outcome

    def column(self, combat: CombatInput, tables: Tables, roller: Roller) -> str | None:
        rules = self.rules_module()
        if rules.chart_column_alone(self.chart, combat):
            found: str | None = rules.chart_column(self.chart, combat)
            return found
        return super().column(combat, tables, roller)

    def rank(self, cell: Any, effects: Mapping[str, Any]) -> tuple[float, ...] | None:
        found = effects.get("rank")  # the order of the chart's [results]
        return (float(found),) if isinstance(found, int | float) else None

    def summary(self) -> str:
        chart = self.chart
        columns = (
            f"{len(chart.columns)} {chart.kind} columns {chart.columns[0]}..{chart.columns[-1]}"
        )
        rows = f"{len(chart.rows)} rows {chart.rows[0].low}..{chart.rows[-1].high}"
        mods = len(chart.modifiers)
        more = ""
        if chart.columns_by is not None:
            names = ", ".join(name for name, _, _ in chart.column_sets)
            more += f"; columns by {chart.columns_by} ({names})"
        ends = [
            f"{where} {extra.amounts()}"
            for where, extra in (
                ("below the first column", chart.left_beyond),
                ("beyond the last", chart.right_beyond),
            )
            if extra is not None
        ]
        more += "".join(f"; {end}" for end in ends)
        return (
            f"{self.id}: {chart.title} ({chart.dice}); {columns}; {rows}; "
            f"{len(chart.results)} result codes; {mods} modifier{'s' if mods != 1 else ''}{more}"
        )

    def columns_read(self) -> list[str]:
        """The column each ratio (or difference) reads, one line per column, with what lies
        below and beyond; per value of a columns choice (`crtdesk check-table --columns`)."""
        chart = self.chart
        sets = chart.column_sets or (("", chart.columns, chart.values),)
        lines = []
        for name, labels, values in sets:
            if not name:
                what = "ratio" if chart.kind == "odds" else "difference"
                how = "attack/defence" if chart.kind == "odds" else "attack - defence, rounded down"
                lines.append(f"Columns (the rightmost column whose {what} is at most {how}):")
            else:
                unset = " (and when it is not set)" if name == sets[0][0] else ""
                lines.append(f"Columns when {chart.columns_by} is {name}{unset}:")
            lines.append(
                f"  below {labels[0]} (under {values[0]}): "
                + _end_read(chart.left, chart.left_beyond, labels[0])
            )
            for i, (label, value) in enumerate(zip(labels, values, strict=True)):
                if i + 1 < len(values):
                    lines.append(f"  {label}: from {value} up to but not {values[i + 1]}")
                elif label.endswith("+"):
                    lines.append(f"  {label}: from {value} and up")
                else:
                    beyond = first_beyond(chart.kind, value)
                    lines.append(f"  {label}: from {value} up to but not {beyond}")
                    lines.append(
                        f"  beyond {label} ({beyond} and up): "
                        + _end_read(chart.right, chart.right_beyond, label)
                    )
        return [one_line(line) for line in lines]

    def chart_json(self, tables: Tables) -> dict[str, Any]:
        chart = self.chart
        return {
            "ruleset": self.id,
            "title": chart.title,
            "dice": chart.dice,
            "kind": chart.kind,
            "columns": list(chart.columns),
            **(
                {
                    "columns_by": chart.columns_by,
                    "column_sets": {n: list(labels) for n, labels, _ in chart.column_sets},
                }
                if chart.columns_by is not None
                else {}
            ),
            "left": _end_json(chart.left, chart.left_beyond),
            "right": _end_json(chart.right, chart.right_beyond),
            "low": chart.low or "clamp",
            "high": chart.high or "clamp",
            "rows": {row.label: plain(row.cells) for row in chart.rows},
            "results": dict(chart.results),
            **results_json(chart),
            "modifiers": [
                {"name": m.name, "label": m.label, "input": m.input, "effect": m.effect}
                for m in chart.modifiers
            ],
            "caps": {"drm": chart.drm_cap, "shift": chart.shift_cap},
            "digest": chart.digest,
        }

    def chart_text(self, tables: Tables) -> str:
        """The chart as printed text: the grid, the ends, the results and the modifiers;
        every text from the file shown as text."""
        chart = self.chart
        texts = [[cell_text(c) for c in row.cells] for row in chart.rows]
        labels = [row.label for row in chart.rows]
        drm = any(m.effect == "drm" for m in chart.modifiers)
        roll = f"{chart.dice}+DRM" if drm else chart.dice
        key_width = max(len(roll), *(len(k) for k in labels))
        widths = [max(len(col), *(len(t[i]) for t in texts)) for i, col in enumerate(chart.columns)]
        lines = [one_line(f"{chart.title} ({self.id}, {chart.kind} columns)")]
        lines.append(
            f"{roll:>{key_width}}  "
            + "  ".join(one_line(c).ljust(w) for c, w in zip(chart.columns, widths, strict=True))
        )
        for label, cells in zip(labels, texts, strict=True):
            lines.append(
                f"{label:>{key_width}}  "
                + "  ".join(one_line(c).ljust(w) for c, w in zip(cells, widths, strict=True))
            )
        if chart.columns_by is not None:
            lines += ["", f"Columns by {chart.columns_by}:"]
            set_widths = [
                max(len(labels[i]) for _, labels, _ in chart.column_sets)
                for i in range(len(chart.columns))
            ]
            name_width = max(len(name) for name, _, _ in chart.column_sets)
            for name, set_labels, _ in chart.column_sets:
                lines.append(
                    f"  {name:{name_width}}  "
                    + "  ".join(
                        one_line(c).ljust(w) for c, w in zip(set_labels, set_widths, strict=True)
                    )
                )
        lines.append("")
        first = _end_said(chart.left, chart.left_beyond, "first")
        last = _end_said(chart.right, chart.right_beyond, "last")
        lines.append(f"Below the first column: {first}; beyond the last: {last}")
        lines.append(
            f"A roll below the rows: {chart.low or 'read the first row'}; above them: "
            f"{chart.high or 'read the last row'}"
        )
        if chart.drm_cap is not None or chart.shift_cap is not None:
            caps = []
            if chart.drm_cap is not None:
                caps.append(f"net DRM at most {chart.drm_cap} either way")
            if chart.shift_cap is not None:
                caps.append(f"net shift at most {chart.shift_cap} columns either way")
            lines.append("Caps: " + "; ".join(caps))
        lines += results_lines(chart)
        if chart.modifiers:
            lines += ["", "Modifiers:"]
            lines += [one_line(f"  {set_as(m)}  {effect_text(m)}") for m in chart.modifiers]
        if chart.rulings:
            lines += ["", "Rulings:"] + [one_line(f"  {r}") for r in chart.rulings]
        return "\n".join(line.rstrip() for line in lines)


def _rerolls(chart: PlayerChart) -> tuple[Field, ...]:
    """A chart with re-roll codes reads the dice of its re-rolls rolled by hand, as Day/Night
    does (CombatInput.rerolls; the CLI's --reroll N, repeated); the desk asks for each."""
    if not chart.rerolls:
        return ()
    said = f"a re-roll's {chart.dice} rolled by hand, as they lie (repeat, in order)"
    return (replace(FIELDS["rerolls"], help=said),)


def results_json(chart: PlayerChart) -> dict[str, Any]:
    """The codes that tie with the one before, and each re-roll code's rule."""
    order = list(chart.results)
    ties = [
        c for i, c in enumerate(order) if i and chart.ranks.get(c) == chart.ranks.get(order[i - 1])
    ]
    rerolls = {
        code: {"limit": rule.limit, "then": rule.then, "shift": rule.shift}
        for code, rule in chart.rerolls.items()
    }
    return {"ties": ties, "rerolls": rerolls}


def results_lines(chart: PlayerChart) -> list[str]:
    """The results as printed, worst to best for the attacker (a tie said), then what each
    re-roll code does."""
    ties = set(results_json(chart)["ties"])
    order = list(chart.results)
    lines = ["", "Results:"]
    for i, (code, meaning) in enumerate(chart.results.items()):
        tie = f" (ranks with {order[i - 1]})" if code in ties else ""
        lines.append(one_line(f"  {code:5} {meaning}{tie}"))
    if chart.rerolls:
        lines += ["", "Re-rolls:"]
        for code, rule in chart.rerolls.items():
            times = f"{rule.limit} time{'s' if rule.limit != 1 else ''}"
            way = "right" if rule.shift > 0 else "left"
            moved = (
                f", {abs(rule.shift)} column{'s' if abs(rule.shift) != 1 else ''} {way} each"
                if rule.shift
                else ", on the same column"
            )
            lines.append(
                one_line(f"  {code:5} roll again, at most {times}{moved}; then {rule.then}")
            )
    return lines


def _end_said(code: str | None, extra: Beyond | None, end: str) -> str:
    """What lies beyond an end, for the chart's text: the code, or the end column read."""
    if code is not None:
        return code
    return f"read the {end} column" + (f" with {extra.text()}" if extra else "")


def _end_read(code: str | None, extra: Beyond | None, label: str) -> str:
    """What lies beyond an end, for check-table --columns."""
    if code is not None:
        return f"{code} (automatic)"
    return f"read on {label}" + (f" with {extra.text()}" if extra else "")


def _end_json(code: str | None, extra: Beyond | None) -> str | dict[str, Any]:
    if extra is not None:
        return {"drm": extra.drm, "shift": extra.shift, "caps": extra.caps}
    return code or "end"
