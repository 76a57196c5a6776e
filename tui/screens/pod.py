"""Pair-o-Dice Basic, Super and Ultra: unit terrain, morale, Buddy, Medal, the cards before
and after the roll, the Hero Site draw, and Ultra obstacles."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Label

from tui import engine, saves
from tui.commands import POD_COMMANDS, Command
from tui.screens.combat import CombatScreen, SaveState
from tui.widgets.combat import Cycle, FixedInput, UnitRow

if TYPE_CHECKING:
    from tui.engine import CombatInput, Outcome

# The Pair-o-Dice rules (tui.engine.rulesets.pod) are imported at the first roll.

SIDE_OPTIONS = [("-", ""), ("attacker", "attacker"), ("defender", "defender")]


def field(label: str, *widgets: Widget) -> Horizontal:
    """One line of the form: a label and its input(s)."""
    return Horizontal(Label(label, classes="field-label"), *widgets, classes="field")


def choice(options: list[tuple[str, Any]], value: Any, id: str) -> Cycle:
    return Cycle(options, value=value, id=id)


class PodScreen(CombatScreen):
    """Pair-o-Dice Basic, Super and Ultra."""

    DESK_COMMANDS: ClassVar[tuple[Command, ...]] = CombatScreen.DESK_COMMANDS + POD_COMMANDS
    BINDINGS = [c.binding() for c in POD_COMMANDS]
    FIELD_NAMES: ClassVar[dict[str, str]] = {
        **CombatScreen.FIELD_NAMES,
        "attacker_card": "Attacker card",
        "defender_card": "Defender card",
        "medal": "Medal of Honor",
        "buddy": "Buddy card",
        "obstacle": "Obstacle",
        "mines_cdf": "Mines CDF",
        "morale_attack": "Morale A",
        "morale_defense": "Morale D",
    }

    @property
    def terrains(self) -> tuple[str, ...]:
        if not self.rules["terrain_effects"]:
            return ()
        return tuple(self.tables.data["pod"]["terrain"])

    def make_unit_row(self, side: str, number: int) -> UnitRow:
        return UnitRow(side, number, self.terrains)

    def compose_fields(self) -> ComposeResult:
        rules = self.rules
        if self.ruleset == "pod-ultra":
            ultra = self.tables.data["pod-ultra"]
            obstacles = [("-", "")] + [(k, k) for k in ultra["obstacles"]]
            yield field("Obstacle", choice(obstacles, "", "obstacle"))
            mines = ultra["obstacle_options"]["mines"]
            current = self.desk.game.options.get("mines_cdf", ultra["obstacles"]["mines"])
            yield field("Mines CDF", choice([(str(m), m) for m in mines], current, "mines-cdf"))
        yield field(
            "Morale +/- A",
            FixedInput(placeholder="0", compact=True, id="morale-attack", classes="small"),
            Label(" D "),
            FixedInput(placeholder="0", compact=True, id="morale-defense", classes="small"),
        )
        yield field("Buddy card", choice(SIDE_OPTIONS, "", "buddy"))
        if rules["terrain_effects"]:
            yield field("Medal of Honor", choice(SIDE_OPTIONS, "", "medal"))
        before = [c for c in rules["special_cards"] if c not in rules["after_roll_cards"]]
        if before:
            cards = [("-", "")] + [(c.title(), c) for c in before]
            yield field("Attacker card", choice(cards, "", "attacker-card"))
            yield field("Defender card", choice(cards, "", "defender-card"))

    # ------------------------------------------------------------------ the form
    @on(Cycle.Changed, "#mines-cdf")
    def mines_option_changed(self, event: Cycle.Changed) -> None:
        """The mines CDF is a per-game option: a change is kept (and logged) in the save."""
        default = self.tables.data["pod-ultra"]["obstacles"]["mines"]
        if isinstance(event.value, int) and event.value != self.desk.game.options.get(
            "mines_cdf", default
        ):
            self.desk.set_game_option("mines_cdf", event.value)

    def combat_fields(
        self, attackers: tuple[Any, ...], defenders: tuple[Any, ...], problems: list[str]
    ) -> dict[str, Any]:
        obstacle = self.select_value("#obstacle")
        return {
            "attackers": attackers,
            "defenders": () if obstacle else defenders,
            "attacker_card": self.select_value("#attacker-card"),
            "defender_card": self.select_value("#defender-card"),
            "buddy": self.select_value("#buddy"),
            "medal": self.select_value("#medal"),
            "morale_attack": self.whole_number("#morale-attack", problems, "Morale A", signed=True),
            "morale_defense": self.whole_number(
                "#morale-defense", problems, "Morale D", signed=True
            ),
            "obstacle": obstacle,
            "mines_cdf": self.select_value("#mines-cdf") if obstacle == "mines" else None,
        }

    def read_units(self, side: str, problems: list[str]) -> tuple[Any, ...]:
        # An obstacle is the whole defence: the defender rows are not read, and show it.
        if side == "defender" and self.ruleset == "pod-ultra":
            obstacle = bool(self.select_value("#obstacle"))
            for row in self.unit_rows("defender"):
                row.disabled = obstacle
            if obstacle:
                return ()
        return super().read_units(side, problems)

    # ------------------------------------------------------------------ after the roll
    def card_offers(self) -> dict[str, str]:
        """Side -> the card it may play after the last roll, once the roll is saved."""
        if self.last is None or self.last_combat is None:
            return {}
        from tui.engine.rulesets.pod import SIDES, after_roll_card

        offers = {
            side: after_roll_card(self.last_combat, self.last, self.tables, side) for side in SIDES
        }
        return {side: card for side, card in offers.items() if card}

    def after_roll_offers(self) -> dict[str, str]:
        """Side -> the card it may still play after the last roll (only a saved roll)."""
        return self.card_offers() if self.save_state.status == "saved" else {}

    def no_card_reason(self) -> str:
        if self.last is None:
            return "No roll yet: F9 plays a card after a roll."
        if self.save_state.status == "saving":
            return "The last roll is being saved: F9 plays a card once it is logged."
        if self.save_state.status != "saved":
            return "The last roll was not saved: no card can be played after it."
        return "No card can be played after this roll."

    def after_roll_hint(self) -> str:
        # Shown with the roll while it is saved, so the result panel keeps its height.
        cards = sorted({card.title() for card in self.card_offers().values()})
        return f"F9: play {' or '.join(cards)} after the roll" if cards else ""

    def action_after_roll(self, side: str | None = None) -> None:
        from tui.screens.dialogs import AfterRollScreen

        offers = self.after_roll_offers()
        if not offers:
            self.notify(self.no_card_reason(), severity="warning", markup=False)
            return
        if side is None:
            self.app.push_screen(AfterRollScreen(offers), self.action_after_roll)
            return
        if side not in offers or self.last_combat is None or self.last is None:
            return
        card = offers[side]
        amended = replace(self.last_combat, **{f"{side}_card": card}, roll=int(self.last.roll or 0))
        seq = (self.save_state.entry or {}).get("seq")
        note = f"{card.title()} played by the {side} after the roll of entry {seq}"
        outcome = self.resolve_again(amended)
        self.show_outcome(amended, outcome, note, amends=seq)

    def resolve_again(self, combat: CombatInput) -> Outcome:
        """The last roll read again with a card after it: the same dice, as they came."""
        outcome = engine.resolve(combat, self.tables, self.desk.rng)
        if self.last is not None:
            outcome.dice = list(self.last.dice)
        return outcome

    @work(exclusive=True, group="hero")
    async def action_hero_draw(self) -> None:
        """Ask first: the draw rolls a die and logs it."""
        from tui.screens.dialogs import ChoiceScreen

        answer = await self.app.push_screen_wait(
            ChoiceScreen(
                "Hero Site won uncontested and the loser lacks the Buddy card:\n"
                "roll the desk's die for the draw and log it?",
                [("n", "No, roll nothing", "no"), ("y", "Yes, roll and log it", "yes")],
            )
        )
        if answer == "yes":
            self.hero_draw()

    def hero_draw(self) -> None:
        from tui.engine.dice import Roller
        from tui.engine.rulesets.pod import hero_site_draw

        roller = Roller(self.desk.rng)
        count = hero_site_draw(roller)
        message = (
            f"Hero Site won uncontested: the desk rolled {count}. "
            f"The loser offers {count} Buddy card{'s' if count != 1 else ''} face down; "
            "the victor draws one."
        )
        desk, ruleset = self.desk, self.ruleset

        def done(state: SaveState) -> None:
            if state.status == "failed":
                self.notify(f"Not saved: {state.error}", severity="error", markup=False)
            else:
                seq = state.entry.get("seq") if state.entry else "?"
                self.notify(f"{message} (logged as entry {seq})", markup=False, timeout=8)

        self.append_in_worker(
            lambda notices: saves.append_event(
                desk.game.path,
                "hero-site-draw",
                message,
                ruleset=ruleset,
                dice=list(roller.rolls),
                who=desk.player,
                notices=notices,
            ),
            done,
        )
