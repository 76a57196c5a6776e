"""The OCS form's widgets: a unit row of two lines (strength,
steps, AR, name; then type and supply, or RE, and the markers the save has on the unit),
and the preview with surprise, supply, exploitation and the final cells."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Input, Static

from tui.desk.widgets.combat import (
    Cycle,
    FixedInput,
    OddsPreview,
    UnitRow,
    bar,
    next_column_text,
    set_choice,
)
from tui.desk.widgets.unit_names import name_input
from tui.engine.preview import Preview
from tui.engine.rulesets.ocs.supply import SUPPLY_SOURCES, UNIT_KINDS, OcsPreview

# Each unit type the engine knows, named short enough for the row.
_TYPE_WORDS = {"hq": "HQ", "dak-brigade": "DAK bde"}
TYPES = [(_TYPE_WORDS.get(kind, kind), kind) for kind in UNIT_KINDS]
# Shown in the words the CLI, the log and the docs use (it said "stocks" for "internal").
SUPPLIES = [(source, source) for source in SUPPLY_SOURCES]


# A counter's parts typed in the row, and the box each is typed in.
_TYPED = (
    ("name", "unit-name"),
    ("factor", "factor"),
    ("steps", "steps"),
    ("ar", "ar"),
    ("re", "re"),
)


class OcsUnitRow(UnitRow):
    """One OCS unit on two lines: strength, steps, AR and name; then for an attacker its
    type and how it pays supply, for a defender its size in RE; and the markers the save
    already has on it. The strength comes first, as a factor does on every screen: a
    number typed first is the first attacker's strength, and the name (optional) after."""

    DEFAULT_CSS = """
    OcsUnitRow { height: 2; layout: vertical; }
    OcsUnitRow > Horizontal { height: 1; }
    OcsUnitRow .unit-label, OcsUnitRow .unit-indent { width: 3; }
    OcsUnitRow .unit-name { width: 11; }
    OcsUnitRow .factor { width: 5; }
    OcsUnitRow .steps, OcsUnitRow .ar, OcsUnitRow .re { width: 4; }
    OcsUnitRow .unit-markers { width: 1fr; color: $warning; padding-left: 1; }
    OcsUnitRow Cycle { margin-right: 1; }
    """

    def __init__(
        self, side: str, number: int, placeholder: str = "strength", **kwargs: Any
    ) -> None:
        super().__init__(side, number, (), placeholder=placeholder, **kwargs)
        # Made with the row, as the other screens' rows make theirs, and held, not queried:
        # the form is read on every keystroke, and a row added (^n) may be read (the form
        # restored as the screen is prepared) before it is composed.
        self.inputs = {
            "factor": FixedInput(placeholder="str", compact=True, classes="factor"),
            "steps": FixedInput(placeholder="stp", compact=True, classes="steps"),
            "ar": FixedInput(placeholder="AR", compact=True, classes="ar"),
            "unit-name": name_input(self.suggester),
        }
        self.cycles: dict[str, Cycle] = {}
        if side == "attacker":
            self.cycles["type"] = Cycle(TYPES, classes="unit-type")
            self.cycles["supply"] = Cycle(SUPPLIES, classes="unit-supply")
        else:
            self.inputs["re"] = FixedInput(placeholder="?", compact=True, classes="re")
        self.markers_shown = Static("", markup=False, classes="unit-markers")
        self.marker_text = ""

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Static(self.label, classes="unit-label")
            for name in ("factor", "steps", "ar", "unit-name"):
                yield self.inputs[name]
        with Horizontal():
            yield Static("", classes="unit-indent")
            if self.side == "attacker":
                yield from self.cycles.values()
            else:
                yield Static("RE ", classes="re-label")
                yield self.inputs["re"]
            yield self.markers_shown

    def field(self, name: str) -> Input:
        return self.inputs[name]

    @property
    def name_input(self) -> Input:
        return self.inputs["unit-name"]

    @property
    def named(self) -> bool:
        return True  # an OCS unit row always has its name's field

    def show_names(self, suggester: Any) -> None:
        self.suggester = self.name_input.suggester = suggester

    def parts(self) -> dict[str, Any]:
        """What the row holds, as an OCS counter's kind reads it (a part left empty: None):
        its name, strength, steps and AR; then type and supply, or RE."""
        found: dict[str, Any] = {"kind": self.choice("type"), "supply": self.choice("supply")}
        for part, box in _TYPED:
            typed = self.inputs.get(box)
            if typed is not None:
                found[part] = typed.value.strip() or None
        return found

    def mark_invalid(self, parts: Collection[str]) -> None:
        for part, box in _TYPED:
            typed = self.inputs.get(box)
            if typed is None or part == "name":
                continue
            invalid = part in parts
            if typed.has_class("-invalid") != invalid:  # as it is, nothing to do (every key)
                typed.set_class(invalid, "-invalid")

    def fill(self, unit: Any) -> None:
        """Show a logged unit: its name, strength, steps, AR, and its type and supply (an
        attacker) or size in RE (a defender)."""
        # A row left unnamed is logged by its label ("A1"): it stays unnamed.
        name_typed = None if unit.name == self.label else unit.name
        for name, value in (
            ("unit-name", name_typed),
            ("factor", unit.factor),
            ("steps", unit.steps),
            ("ar", unit.ar),
            ("re", unit.re),
        ):
            if name in self.inputs:
                shown = "" if value is None else str(value)
                if isinstance(value, float) and value.is_integer():
                    shown = str(int(value))
                self.inputs[name].value = shown
        for name, value in (("type", unit.kind), ("supply", unit.supply)):
            if name in self.cycles and value is not None:
                set_choice(self.cycles[name], value)

    @property
    def factor_input(self) -> Input:
        return self.inputs["factor"]

    def choice(self, name: str) -> str | None:
        cycle = self.cycles.get(name)
        return cycle.value if cycle else None

    @property
    def unit_name(self) -> str:
        """The name typed, else the row's label ("A1")."""
        return self.inputs["unit-name"].value.strip() or self.label

    def show_markers(self, kinds: Sequence[str]) -> None:
        text = " ".join(kinds)
        if text != self.marker_text:
            self.marker_text = text
            self.markers_shown.update(text)


class OcsOddsPreview(OddsPreview):
    """The OCS preview: odds, what the next column right needs, DRM, the chances of
    surprise, the supply each side pays, whether the attack is allowed, what an e# would
    mark, and each final cell's chance."""

    # The final cells' text of the last few chances, the latest first, each with the rows
    # (the very tuple) it was worded from: a new combat on chances met before brings the
    # same rows (the engine keeps a few), a digit typed and taken back among them.
    _cells: tuple[tuple[tuple[Any, ...], str], ...] = ()
    KEPT_CELLS = 4

    def show_ocs(
        self,
        preview: Preview | None,
        extra: OcsPreview | None,
        problems: Sequence[str],
        terrain: str = "Open",
    ) -> None:
        problems = list(problems)
        if extra is not None and extra.refusal:
            problems.insert(0, f"Not allowed: {extra.refusal}")
        if preview is None or extra is None:
            self.show_text("Odds: waiting for a valid form", "", problems)
            return
        lines = [
            f"A {preview.attack_total} : D {preview.defense_total} = {preview.odds}, "
            f"{terrain} column {preview.column}"
        ]
        if preview.next_column is not None:
            lines.append(next_column_text(preview.next_column))
        paid = f"{extra.attacker_supply}T" if extra.attacker_supply is not None else "?"
        allowed = "refused" if extra.refusal else "allowed"
        lines.append(
            f"DRM {extra.drm:+d} · Supply A {paid}, D {extra.defender_supply}T · {allowed}"
        )
        lines.append(
            f"Surprise A {_pct(extra.attacker_surprise)} · D {_pct(extra.defender_surprise)}"
            f" · none {_pct(extra.no_surprise)}"
        )
        if extra.stocks:
            lines.append("Stocks: " + ", ".join(f"{n} → {s}" for n, s in extra.stocks))
        if extra.exploitation_bar:
            lines.append(f"No exploitation: {extra.exploitation_bar}")
        else:
            # Levels that mark the same units share one entry: "e3/e2 21 Pz, Ariete".
            groups: list[tuple[list[int], tuple[str, ...]]] = []
            for level, names in extra.exploiters:
                if groups and groups[-1][1] == names:
                    groups[-1][0].append(level)
                else:
                    groups.append(([level], names))
            marks = [
                f"{'/'.join(f'e{n}' for n in levels)} {', '.join(names) or '-'}"
                for levels, names in groups
            ]
            lines.append("Exploit: " + "; ".join(marks))
        kept = next((cells for cells in self._cells if cells[0] is preview.rows), None)
        if kept is None:
            # No heading over the rows (the lines above say the surprise and the DRM they
            # fold in): the line it took shows what the next column needs, and after a roll
            # four chances still show below the result (tests/desk/test_desk_one_screen.py).
            rows: list[str] = []
            for row in preview.rows:
                chance = float(row.probability)
                rows.append(f"{row.cell:<13} {_pct(row.probability):>4} {bar(chance, 8)}")
            kept = (preview.rows, "\n".join(rows))
            self._cells = (kept, *self._cells[: self.KEPT_CELLS - 1])
        self.show_text("\n".join(lines), kept[1], problems)


def _pct(value: Any) -> str:
    return f"{float(value) * 100:.0f}%"
