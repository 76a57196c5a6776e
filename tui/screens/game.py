"""Combat screens: a shared base with the desk's bindings, the Pair-o-Dice form (Basic,
Super, Ultra) and a chart screen for the rulesets whose form is still to come."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Header, Input, Label, Select, Static

from tui.commands import GAME_COMMANDS
from tui.engine import CombatInput, InputError, Outcome, distribution, resolve
from tui.engine.dice import Roller, parse_dice
from tui.engine.rulesets.common import parse_unit
from tui.engine.rulesets.pod import SIDES, after_roll_card, hero_site_draw
from tui.screens.dialogs import AfterRollScreen, HandDiceScreen
from tui.widgets.combat import OddsPreview, PreviewState, ResultPanel, UnitRow

if TYPE_CHECKING:
    from tui.app import CrtDeskApp

RULESET_KEYS = ("f2", "f3", "f4", "f5", "f6", "f7", "f8")
SHORT_NAMES = {
    "pod-basic": "Basic",
    "pod-super": "Super",
    "pod-ultra": "Ultra",
    "pod-boom": "Boom",
    "ocs": "OCS",
    "rivets": "Rivets",
    "daynight": "Day/Night",
}
SIDE_OPTIONS = [("-", ""), ("attacker", "attacker"), ("defender", "defender")]


class RulesetScreen(Screen[None]):
    """What every ruleset screen shares: header, ruleset strip, keys, help and log."""

    BINDINGS = (
        [c.binding() for c in GAME_COMMANDS]
        + [
            Binding(key, f"switch_ruleset({n})", f"Ruleset {n + 1}", show=False)
            for n, key in enumerate(RULESET_KEYS)
        ]
        # Focus moves are priority bindings: the app moves focus before it hands on the
        # next keystroke, so "8 Tab 2" typed fast puts the 2 in the next field.
        + [
            Binding("tab", "app.focus_next", "Next field", show=False, priority=True),
            Binding("shift+tab", "app.focus_previous", "Previous field", show=False, priority=True),
        ]
    )

    def __init__(self, ruleset: str) -> None:
        super().__init__(name=ruleset, classes=f"ruleset-screen {ruleset}")
        self.ruleset = ruleset

    @property
    def desk(self) -> CrtDeskApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.strip_text(), markup=False, classes="ruleset-strip")
        yield from self.compose_body()
        yield Footer(compact=True, show_command_palette=False)

    def compose_body(self) -> ComposeResult:
        yield from ()

    def strip_text(self) -> str:
        parts = []
        for key, ruleset in zip(RULESET_KEYS, self.desk.game.rulesets, strict=False):
            name = SHORT_NAMES[ruleset]
            parts.append(f"[{name}]" if ruleset == self.ruleset else f"{key.upper()} {name}")
        return " ".join(parts)

    def on_screen_resume(self) -> None:
        self.refresh_header()

    def refresh_header(self) -> None:
        game = self.desk.game
        self.title = game.title
        self.sub_title = (
            f"Turn {game.turn} · {self.desk.player} · {self.desk.tables.title(self.ruleset)}"
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "switch_ruleset":
            return parameters[0] < len(self.desk.game.rulesets)  # type: ignore[operator]
        if action in (
            "roll",
            "hand_dice",
            "add_attacker",
            "add_defender",
            "remove_unit",
            "hero_draw",
            "after_roll",
        ):
            return self.has_form
        return True

    has_form = False

    def action_switch_ruleset(self, index: int) -> None:
        self.desk.show_ruleset(self.desk.game.rulesets[index])

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen(self.ruleset))

    def action_log(self) -> None:
        from tui.screens.log import LogScreen

        self.app.push_screen(LogScreen(self.desk.game.path))

    def action_back(self) -> None:
        self.desk.show_start()


class ChartScreen(RulesetScreen):
    """A ruleset whose combat form is still to come: its chart, and how to resolve it."""

    def compose_body(self) -> ComposeResult:
        from tui.cli import table_text

        with VerticalScroll(classes="chart-body"):
            yield Static(
                f"The {self.desk.tables.title(self.ruleset)} form is not on the desk yet. "
                f"Resolve its combats with `crtdesk resolve {self.ruleset} ...` "
                f"(see `crtdesk resolve --help`). Its chart:",
                markup=False,
                classes="notice",
            )
            yield Static(table_text(self.ruleset, self.desk.tables), markup=False, classes="chart")


class PodScreen(RulesetScreen):
    """Pair-o-Dice Basic, Super and Ultra: units, morale, Buddy, Medal, cards, obstacles."""

    has_form = True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "after_roll":
            # Shown only while the last roll allows a card after it.
            return bool(self.after_roll_offers())
        return super().check_action(action, parameters)

    def __init__(self, ruleset: str) -> None:
        super().__init__(ruleset)
        # The last roll, for the cards played after it.
        self.last: Outcome | None = None
        self.last_combat: CombatInput | None = None

    @property
    def rules(self) -> Any:
        return self.desk.tables.data[self.ruleset]

    @property
    def terrains(self) -> tuple[str, ...]:
        if not self.rules["terrain_effects"]:
            return ()
        return tuple(self.desk.tables.data["pod"]["terrain"])

    def compose_body(self) -> ComposeResult:
        rules = self.rules
        data = self.desk.tables.data
        with Horizontal(classes="combat-body"):
            with VerticalScroll(classes="combat-form"):
                yield Label("Attackers (^n add, ^o drop)", classes="section")
                with Vertical(id="attackers"):
                    yield UnitRow("attacker", 1, self.terrains)
                yield Label("Defenders (^g add)", classes="section")
                with Vertical(id="defenders"):
                    yield UnitRow("defender", 1, self.terrains)
                if self.ruleset == "pod-ultra":
                    obstacles = [("-", "")] + [(k, k) for k in data["pod-ultra"]["obstacles"]]
                    yield _field("Obstacle", _choice(obstacles, "", "obstacle"))
                    mines = data["pod-ultra"]["obstacle_options"]["mines"]
                    current = self.desk.game.options.get(
                        "mines_cdf", data["pod-ultra"]["obstacles"]["mines"]
                    )
                    yield _field(
                        "Mines CDF", _choice([(str(m), m) for m in mines], current, "mines-cdf")
                    )
                yield _field(
                    "Morale +/- A",
                    Input(placeholder="0", compact=True, id="morale-attack", classes="small"),
                    Label(" D "),
                    Input(placeholder="0", compact=True, id="morale-defense", classes="small"),
                )
                yield _field("Buddy card", _choice(SIDE_OPTIONS, "", "buddy"))
                if rules["terrain_effects"]:
                    yield _field("Medal of Honor", _choice(SIDE_OPTIONS, "", "medal"))
                before = [c for c in rules["special_cards"] if c not in rules["after_roll_cards"]]
                if before:
                    cards = [("-", "")] + [(c.title(), c) for c in before]
                    yield _field("Attacker card", _choice(cards, "", "attacker-card"))
                    yield _field("Defender card", _choice(cards, "", "defender-card"))
            with VerticalScroll(classes="combat-side"):
                result = ResultPanel(id="result")
                result.display = False
                yield result
                yield OddsPreview(id="preview")

    def on_mount(self) -> None:
        self.refresh_header()
        self.update_preview()
        self.query_one(".factor", Input).focus()

    # ------------------------------------------------------------------ the form
    @on(Input.Changed)
    @on(Select.Changed)
    def form_changed(self) -> None:
        self.update_preview()

    @on(Select.Changed, "#mines-cdf")
    def mines_option_changed(self, event: Select.Changed) -> None:
        """The mines CDF is a per-game option: a change is kept (and logged) in the save."""
        default = self.desk.tables.data["pod-ultra"]["obstacles"]["mines"]
        if isinstance(event.value, int) and event.value != self.desk.game.options.get(
            "mines_cdf", default
        ):
            self.desk.set_game_option("mines_cdf", event.value)

    def _select(self, selector: str) -> str | None:
        found = self.query(selector)
        if not found:
            return None
        value = found.first(Select).value
        return value if isinstance(value, str) and value else None

    def _units(self, side: str, problems: list[str]) -> tuple[Any, ...]:
        units = []
        for row in self.query(f"#{side}s UnitRow").results(UnitRow):
            field = row.query_one(".factor", Input)
            text = field.value.strip()
            name = f"{'A' if side == 'attacker' else 'D'}{row.number}"
            try:
                if not text:
                    raise InputError(name, "", "a factor (a whole number >= 0)")
                unit = parse_unit(name, text)
            except InputError:
                what = "CAF" if side == "attacker" else "CDF"
                problems.append(
                    f"{name}: enter a {what}"
                    if not text
                    else f"{name}: {text!r} is not a whole number >= 0"
                )
                field.set_class(bool(text), "-invalid")
                continue
            field.set_class(False, "-invalid")
            units.append(replace(unit, terrain=row.terrain))
        return tuple(units)

    def _morale(self, selector: str, problems: list[str], label: str) -> int:
        field = self.query_one(selector, Input)
        text = field.value.strip()
        if not text:
            field.set_class(False, "-invalid")
            return 0
        try:
            value = int(text)
        except ValueError:
            problems.append(f"{label}: {text!r} is not a whole number (+ or -)")
            field.set_class(True, "-invalid")
            return 0
        field.set_class(False, "-invalid")
        return value

    def read_form(self) -> tuple[CombatInput | None, list[str]]:
        """The form as the engine's input, or the problems that stop it."""
        problems: list[str] = []
        attackers = self._units("attacker", problems)
        obstacle = self._select("#obstacle")
        defenders = () if obstacle else self._units("defender", problems)
        morale_attack = self._morale("#morale-attack", problems, "Morale A")
        morale_defense = self._morale("#morale-defense", problems, "Morale D")
        mines = self.query("#mines-cdf")
        combat = CombatInput(
            ruleset=self.ruleset,
            attackers=attackers,
            defenders=defenders,
            attacker_card=self._select("#attacker-card"),
            defender_card=self._select("#defender-card"),
            buddy=self._select("#buddy"),
            medal=self._select("#medal"),
            morale_attack=morale_attack,
            morale_defense=morale_defense,
            obstacle=obstacle,
            mines_cdf=mines.first(Select).value if (mines and obstacle == "mines") else None,  # type: ignore[arg-type]
        )
        if problems:
            return None, problems
        try:
            self.probe(combat)
        except InputError as err:
            return None, [err.message(_FIELD_NAMES.get(err.field, err.field))]
        return combat, []

    def probe(self, combat: CombatInput) -> Outcome:
        """The combat read with the lowest roll: totals, odds, AD/AV and shifts, no dice."""
        lowest, _ = parse_dice(self.rules["dice"])
        return resolve(replace(combat, roll=lowest), self.desk.tables)

    def update_preview(self) -> None:
        combat, problems = self.read_form()
        state = PreviewState(problems=problems)
        if combat is not None:
            probe = self.probe(combat)
            head = [
                f"Attack {probe.attack_total} · Defence {probe.defense_total} · odds {probe.odds}"
            ]
            automatic = probe.effects.get("result")
            if automatic:
                head.append(probe.explanation)
            else:
                for shift in probe.effects.get("shifts", []):
                    head.append(f" {shift}")
                head.append(f"Column {probe.column}")
                state.distribution = distribution(combat, self.desk.tables)
                state.dice = self.rules["dice"]
            state.headline = head
        self.query_one(OddsPreview).show(state)

    # ------------------------------------------------------------------ units
    async def _add_unit(self, side: str) -> None:
        box = self.query_one(f"#{side}s", Vertical)
        row = UnitRow(side, len(box.children) + 1, self.terrains)
        await box.mount(row)
        row.query_one(".factor", Input).focus()
        self.update_preview()

    async def action_add_attacker(self) -> None:
        await self._add_unit("attacker")

    async def action_add_defender(self) -> None:
        await self._add_unit("defender")

    async def action_remove_unit(self) -> None:
        """Remove the focused unit row (the last attacker if no row has focus). Awaited,
        so keys pressed quickly one after another never remove a side's last row."""
        row = next((w for w in self.focus_chain_of_focused() if isinstance(w, UnitRow)), None)
        if row is None:
            row = list(self.query("#attackers UnitRow").results(UnitRow))[-1]
        box = row.parent
        assert isinstance(box, Vertical)
        if len(box.children) == 1:
            self.notify(
                "Every combat needs one unit on each side: clear the factor instead.",
                severity="warning",
            )
            return
        await row.remove()
        for number, unit in enumerate(box.query(UnitRow).results(UnitRow), start=1):
            unit.renumber(number)
        self.update_preview()
        box.query(".factor").last(Input).focus()

    def focus_chain_of_focused(self) -> list[Widget]:
        """The focused widget and its ancestors, nearest first."""
        chain: list[Widget] = []
        node = self.focused
        while isinstance(node, Widget) and node is not self:
            chain.append(node)
            node = node.parent  # type: ignore[assignment]
        return chain

    # ------------------------------------------------------------------ rolling
    def action_roll(self) -> None:
        self.roll_combat(None)

    def action_hand_dice(self) -> None:
        combat, problems = self.read_form()
        if combat is None:
            self.refuse(problems)
            return
        if self.probe(combat).effects.get("result"):
            self.roll_combat(None)
            return
        count, sides = parse_dice(self.rules["dice"])
        self.app.push_screen(HandDiceScreen(count, sides), self._hand_dice_done)

    def _hand_dice_done(self, total: int | None) -> None:
        if total is not None:
            self.roll_combat(total)

    def refuse(self, problems: list[str]) -> None:
        self.notify("Fix the form first: " + "; ".join(problems), severity="error", markup=False)

    def roll_combat(
        self, manual: int | None, note: str | None = None, base: CombatInput | None = None
    ) -> None:
        combat = base
        if combat is None:
            combat, problems = self.read_form()
            if combat is None:
                self.refuse(problems)
                return
        combat = replace(combat, roll=manual)
        try:
            outcome = resolve(combat, self.desk.tables, self.desk.rng)
        except InputError as err:
            self.refuse([err.message()])
            return
        saved = self.desk.record_combat(combat, outcome, note)
        self.last_combat = combat
        self.last = outcome
        panel = self.query_one(ResultPanel)
        panel.display = True
        panel.show(outcome, saved, self.after_roll_offer())
        self.refresh_bindings()
        self.query_one(".combat-side", VerticalScroll).scroll_home(animate=False)

    def after_roll_offers(self) -> dict[str, str]:
        """Side -> the card it may still play after the last roll."""
        if self.last is None or self.last_combat is None:
            return {}
        offers = {
            side: after_roll_card(self.last_combat, self.last, self.desk.tables, side)
            for side in SIDES
        }
        return {side: card for side, card in offers.items() if card}

    def after_roll_offer(self) -> str:
        cards = sorted({card.title() for card in self.after_roll_offers().values()})
        return f"F9: play {' or '.join(cards)} after the roll" if cards else ""

    def action_after_roll(self, side: str | None = None) -> None:
        offers = self.after_roll_offers()
        if not offers:
            self.notify("No card can be played after this roll.", severity="warning")
            return
        if side is None:
            self.app.push_screen(AfterRollScreen(offers), self.action_after_roll)
            return
        if side not in offers or self.last_combat is None or self.last is None:
            return
        card = offers[side]
        amended = replace(self.last_combat, **{f"{side}_card": card})
        note = f"{card.title()} played by the {side} after the roll (same dice as the entry before)"
        self.roll_combat(int(self.last.roll or 0), note=note, base=amended)

    def action_hero_draw(self) -> None:
        roller = Roller(self.desk.rng)
        count = hero_site_draw(roller)
        message = (
            f"Hero Site won uncontested: the desk rolled {count}. "
            f"The loser offers {count} Buddy card{'s' if count != 1 else ''} face down; the victor draws one."
        )
        saved = self.desk.record_event(self.ruleset, "hero-site-draw", message, roller.rolls)
        self.notify(f"{message} {saved}", markup=False, timeout=8)


_FIELD_NAMES = {
    "attack": "Attackers",
    "defense": "Defenders",
    "attacker_card": "Attacker card",
    "defender_card": "Defender card",
    "medal": "Medal of Honor",
    "buddy": "Buddy card",
    "obstacle": "Obstacle",
    "mines_cdf": "Mines CDF",
}


def _field(label: str, *widgets: Widget) -> Horizontal:
    """One line of the form: a label and its input(s)."""
    return Horizontal(Label(label, classes="field-label"), *widgets, classes="field")


def _choice(options: list[tuple[str, Any]], value: Any, id: str) -> Select[Any]:
    return Select(options, value=value, allow_blank=False, compact=True, id=id)


def screen_for(ruleset: str) -> RulesetScreen:
    if ruleset in ("pod-basic", "pod-super", "pod-ultra"):
        return PodScreen(ruleset)
    return ChartScreen(ruleset)
