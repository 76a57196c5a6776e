"""Pair-o-Dice Basic, Super and Ultra: unit terrain, morale, Buddy, Medal, the cards before
and after the roll, the Hero Site draw, and Ultra obstacles."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Label

from tui.desk.commands import FROGMAN_COMMANDS, POD_COMMANDS, Command
from tui.desk.screens.combat import CombatScreen, SaveState
from tui.desk.widgets.combat import Cycle, UnitRow

if TYPE_CHECKING:
    from textual.timer import Timer

    from tui.engine.schema import Field as SchemaField

# The Pair-o-Dice rules (tui.engine.rulesets.pod) are imported at the first roll.


def field(label: str, *widgets: Widget) -> Horizontal:
    """One line of the form: a label and its input(s)."""
    return Horizontal(Label(label, classes="field-label"), *widgets, classes="field")


def choice(options: list[tuple[str, Any]], value: Any, id: str) -> Cycle:
    return Cycle(options, value=value, id=id)


MINES_SETTLE = 0.8


class PodScreen(CombatScreen):
    """Pair-o-Dice Basic, Super and Ultra."""

    # A mines CDF being cycled is logged once it has stood this long (seconds).
    _mines_timer: Timer | None = None
    MARKER_KEYS: ClassVar[str] = "^s next turn · ^z Frogman · ^\\ markers"

    DESK_COMMANDS: ClassVar[tuple[Command, ...]] = (
        CombatScreen.DESK_COMMANDS + FROGMAN_COMMANDS + POD_COMMANDS
    )
    BINDINGS = [c.binding() for c in FROGMAN_COMMANDS + POD_COMMANDS]

    @property
    def terrains(self) -> tuple[str, ...]:
        if not self.rules["terrain_effects"]:
            return ()
        return tuple(self.tables.data["pod"]["terrain"])

    def make_unit_row(self, side: str, number: int) -> UnitRow:
        return UnitRow(side, number, self.terrains)

    def input_default(self, found: SchemaField) -> Any:
        """The mines CDF starts at the game's own (a per-game option kept in its save)."""
        if found.name == "mines_cdf":
            return self.game.options.get("mines_cdf", self.mines_default)
        return super().input_default(found)

    @property
    def mines_default(self) -> Any:
        return self.tables.data["pod-ultra"]["obstacles"]["mines"]

    # ------------------------------------------------------------------ the form
    def game_was_read(self) -> None:
        """The game read whole: the mines CDF it set (the form showed the default)."""
        super().game_was_read()
        found = self.form_field("#mines-cdf")
        if isinstance(found, Cycle):
            found.value = self.game.options.get("mines_cdf", self.mines_default)

    @on(Cycle.Changed, "#mines-cdf")
    def mines_option_changed(self, event: Cycle.Changed) -> None:
        """The mines CDF is a per-game option, kept (and logged) in the save once the player
        stops cycling it: one entry for 2 -> 3 -> 2 -> 3, not three (and before a roll)."""
        if self._mines_timer is not None:
            self._mines_timer.stop()
        self._mines_timer = self.set_timer(MINES_SETTLE, self.keep_mines_option)

    def keep_mines_option(self) -> None:
        """Log the mines CDF the form shows, when it is not the game's."""
        if self._mines_timer is not None:
            self._mines_timer.stop()
            self._mines_timer = None
        found = self.form_field("#mines-cdf")
        value = found.value if isinstance(found, Cycle) else None
        if isinstance(value, int) and value != self.game.options.get(
            "mines_cdf", self.mines_default
        ):
            self.session.set_option("mines_cdf", value)

    def before_roll(self) -> None:
        self.keep_mines_option()

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

    def logged_target(self) -> tuple[dict[str, Any] | None, str | None]:
        """The game's last combat, as any desk on the save has it (a card after the roll is
        played on it, from either player's desk), and why no card may be played after it
        (None: one may). (None, None) when the game has no combat."""
        from tui.engine.rulesets.pod import after_roll_closed

        game = self.session.game
        entries = game.entries if game is not None else []
        for at in range(len(entries) - 1, -1, -1):
            entry = entries[at]
            if entry.get("kind") != "combat" or entry.get("amends") is not None:
                continue
            closed = after_roll_closed(entry, entries[at + 1 :])
            return entry, closed
        return None, None

    def after_roll_offers(self) -> dict[str, str]:
        """Side -> the card it may still play after the game's last combat (a saved roll)."""
        return self.after_roll_reading()[0]

    def after_roll_reading(self) -> tuple[dict[str, str], str]:
        """The cards each side may play after the game's last combat, or why none may."""
        if self.save_state.status == "saving":
            return {}, "The last roll is being saved: F9 plays a card once it is logged."
        if self.save_state.status == "failed":
            return {}, "The last roll was not saved: no card can be played after it."
        entry, closed = self.logged_target()
        if entry is None:
            return {}, "No roll yet: F9 plays a card after a roll."
        if closed is not None:
            return {}, f"No card can be played after the roll of entry {entry['seq']}: {closed}."
        if entry.get("ruleset") != self.ruleset:
            title = self.tables.title(entry.get("ruleset", ""))
            return {}, (
                f"The game's last combat (entry {entry['seq']}) is a {title} combat: "
                "F9 on its screen plays a card after it."
            )
        from tui.engine.combat import logged_roll
        from tui.engine.rulesets.pod import SIDES, after_roll_card

        combat, outcome = logged_roll(entry)
        offers = {side: after_roll_card(combat, outcome, self.tables, side) for side in SIDES}
        found = {side: card for side, card in offers.items() if card}
        return found, "" if found else "No card can be played after this roll."

    def after_roll_hint(self) -> str:
        """The cards F9 may play after the last roll: while it is being saved, those its
        result allows (so the box keeps its height); once logged, those the game still
        allows after it, whichever desk rolled it (none once a card is played, the next
        combat rolled or the turn ended, from either desk)."""
        saving = self.save_state.status == "saving"
        offers = self.card_offers() if saving else self.after_roll_offers()
        cards = sorted({card.title() for card in offers.values()})
        return f"F9: play {' or '.join(cards)}" if cards else ""

    def action_after_roll(self) -> None:
        """A card after the game's last roll, whichever desk rolled it (the other player's
        comes through the shared save): the side is asked in a dialog (Up/Down and Enter,
        or a/d; Esc plays neither)."""
        from tui.desk.screens.dialogs import ChoiceScreen

        offers, why_not = self.after_roll_reading()
        if not offers:
            self.notify(why_not, severity="warning", markup=False)
            return
        choices = [
            (side[0], f"the {side} plays {card.title()}", side) for side, card in offers.items()
        ]
        question = "A card after the roll: which side plays it?"
        self.app.push_screen(ChoiceScreen(question, choices), self.play_after_roll)

    def play_after_roll(self, side: str | None) -> None:
        """The card `side` chose, played on the game's last roll: the same dice read again,
        logged as amending it. None (Esc): nothing is played or logged."""
        if side is None:
            return
        offers, _ = self.after_roll_reading()
        entry, _ = self.logged_target()
        if side not in offers or entry is None:
            return
        from tui.engine.combat import logged_roll, play_after_roll

        amended, outcome = play_after_roll(*logged_roll(entry), side, self.tables)
        seq = entry["seq"]
        note = f"{offers[side].title()} played by the {side} after the roll of entry {seq}"
        self.show_outcome(amended, outcome, note, amends=seq)

    @work(exclusive=True, group="hero")
    async def action_hero_draw(self) -> None:
        """Ask first who won the site: the draw rolls a die and logs it, and only for the
        attacker (RULINGS)."""
        from tui.desk.screens.dialogs import ChoiceScreen
        from tui.engine.rulesets.pod import hero_draw_refusal

        answer = await self.app.push_screen_wait(
            ChoiceScreen(
                "A Hero Site won uncontested, the loser lacking the Buddy card: who won it?\n"
                "The attacker rolls 1d6 for the draw (the desk rolls it and logs it).",
                [
                    ("n", "nobody yet: roll nothing", "no"),
                    ("a", "the attacker: roll and log the draw", "attacker"),
                    ("d", "the defender: no draw", "defender"),
                ],
            )
        )
        if answer in (None, "no"):
            return
        refused = hero_draw_refusal(answer)
        if refused:
            self.notify(refused, severity="warning", markup=False)
            return
        self.hero_draw()

    def hero_draw(self) -> None:
        from tui.engine.dice import Roller
        from tui.engine.rulesets.pod import hero_site_draw, hero_site_draw_text

        roller = Roller(self.desk.rng)
        message = hero_site_draw_text(hero_site_draw(roller))

        def done(state: SaveState) -> None:
            if state.status == "failed":
                self.notify(f"Not saved: {state.error}", severity="error", markup=False)
            else:
                seq = state.entry.get("seq") if state.entry else "?"
                self.notify(f"{message} (logged as entry {seq})", markup=False, timeout=8)

        self.session.log_event(
            "hero-site-draw", message, ruleset=self.ruleset, dice=list(roller.rolls), done=done
        )
