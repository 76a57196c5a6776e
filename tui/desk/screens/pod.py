"""Pair-o-Dice Basic, Super and Ultra: unit terrain, morale, Buddy, Medal, the cards before
and after the roll, the Hero Site draw, and Ultra obstacles."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.widget import Widget

from tui.desk.commands import FROGMAN_COMMANDS, POD_COMMANDS, Command
from tui.desk.screens.combat import CombatScreen, SaveState
from tui.desk.widgets.combat import Cycle, FieldLine
from tui.engine.schema import FIELDS

if TYPE_CHECKING:
    from textual.timer import Timer

    from tui.engine.rulesets.pod.rules import HeroSiteDraw

# The Pair-o-Dice rules (tui.engine.rulesets.pod.rules) are imported at the first roll (Ultra's
# form rule, the obstacle's, when its form is first read).


def field(label: str, *widgets: Widget) -> FieldLine:
    """One line of the form: a label and its input(s)."""
    return FieldLine(label, *widgets)


MINES_SETTLE = 0.8


async def play_frogman(screen: CombatScreen) -> None:
    """Hero #15 Engineer/Frogman (Ctrl+Z on the Pair-o-Dice screens, Big Boom's too), by the
    engine's procedure: which No-entry hex is asked where several are closed; its marker
    is lifted, and the repair logged."""
    # The rules load after the form's first frame (tests/desk/test_lazy_screens.py).
    from tui.engine.rulesets.pod.rules import frogman
    from tui.engine.text import marker_text

    game = screen.session.game
    markers = game.markers if game is not None else []
    repair = await screen.answered(frogman(markers, screen.tables))
    if repair is None:
        return  # Esc
    if repair.refused:
        screen.notify(repair.refused, markup=False)
        return
    screen.lift(repair.marker.id, repair.note, marker_text(repair.marker))


class PodScreen(CombatScreen):
    """Pair-o-Dice Basic, Super and Ultra."""

    # A mines CDF being cycled is logged once it has stood this long (seconds).
    _mines_timer: Timer | None = None
    MARKER_KEYS: ClassVar[str] = "^s next turn · ^z Frogman · ^\\ markers"

    DESK_COMMANDS: ClassVar[tuple[Command, ...]] = (
        CombatScreen.DESK_COMMANDS + FROGMAN_COMMANDS + POD_COMMANDS
    )
    BINDINGS = [c.binding() for c in FROGMAN_COMMANDS + POD_COMMANDS]

    FACTOR_NAMES: ClassVar[tuple[str, str]] = ("CAF", "CDF")

    @property
    def unit_terrains(self) -> tuple[str, ...]:
        if not self.rules["terrain_effects"]:
            return ()
        return tuple(self.tables.data["pod"]["terrain"])

    @property
    def mines_default(self) -> Any:
        """The mines CDF of a game that sets none (the field's per-game option)."""
        return FIELDS["mines_cdf"].option_default(self.tables)

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

    @work(exclusive=True, group="markers")
    async def action_frogman(self) -> None:
        await play_frogman(self)

    # ------------------------------------------------------------------ after the roll
    def card_offers(self) -> dict[str, str]:
        """Side -> the card it may play after the last roll, once the roll is saved."""
        if self.last is None or self.last_combat is None:
            return {}
        # The rules load after the form's first frame (tests/desk/test_lazy_screens.py).
        from tui.engine.procedure import after_roll_offers

        return after_roll_offers(self.last_combat, self.last, self.tables)

    def logged_target(self) -> tuple[Mapping[str, Any] | None, str | None]:
        """The game's last combat, as any desk on the save has it (a card after the roll is
        played on it, from either player's desk), and why no card may be played after it
        (None: one may). (None, None) when the game has no combat."""
        # The rules load after the form's first frame (tests/desk/test_lazy_screens.py).
        from tui.engine.rulesets.pod.rules import last_combat

        game = self.session.game
        return last_combat(game.entries if game is not None else [])

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
        # The rules load after the form's first frame (tests/desk/test_lazy_screens.py).
        from tui.engine.combat import logged_roll
        from tui.engine.procedure import after_roll_offers

        found = after_roll_offers(*logged_roll(entry), self.tables)
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

    @work(exclusive=True, group="after-roll")
    async def action_after_roll(self) -> None:
        """A card after the game's last roll, whichever desk rolled it (the other player's
        comes through the shared save), played by the engine's procedure: the side is asked
        in a dialog (Up/Down and Enter, or a/d; Esc plays neither, and nothing is logged);
        the same dice are read again and logged as amending the roll."""
        # The rules load after the form's first frame (tests/desk/test_lazy_screens.py).
        from tui.engine.combat import logged_roll
        from tui.engine.procedure import after_roll

        offers, why_not = self.after_roll_reading()
        entry, _ = self.logged_target()
        if not offers or entry is None:
            self.notify(why_not, severity="warning", markup=False)
            return
        played = await self.answered(after_roll(*logged_roll(entry), self.tables))
        if played is None:
            return  # Esc: no card played, nothing logged
        # The game may have moved on while the dialog was open (the other desk's roll).
        now, closed = self.logged_target()
        if now is None or now.get("seq") != entry["seq"] or closed is not None:
            _, why_not = self.after_roll_reading()
            self.notify(why_not, severity="warning", markup=False)
            return
        seq = entry["seq"]
        self.show_outcome(played.combat, played.outcome, played.note(seq), amends=seq)

    @work(exclusive=True, group="hero")
    async def action_hero_draw(self) -> None:
        """A Hero Site won uncontested, by the engine's procedure: who won it is asked first,
        and only the attacker's draw rolls a die (RULINGS), rolled by the desk and logged."""
        # The rules load after the form's first frame (tests/desk/test_lazy_screens.py).
        from tui.engine.rulesets.pod.rules import hero_site

        draw = await self.answered(hero_site())
        if draw is None:
            return  # nobody won it yet, or Esc
        if draw.refused:
            self.notify(draw.refused, severity="warning", markup=False)
            return
        self.hero_draw(draw)

    def hero_draw(self, draw: HeroSiteDraw) -> None:
        message = draw.text

        def done(state: SaveState) -> None:
            if state.status == "failed":
                self.notify(f"Not saved: {state.error}", severity="error", markup=False)
            else:
                seq = state.entry.get("seq") if state.entry else "?"
                self.notify(f"{message} (logged as entry {seq})", markup=False, timeout=8)

        self.session.log_event(
            "hero-site-draw", message, ruleset=self.ruleset, dice=list(draw.dice), done=done
        )
