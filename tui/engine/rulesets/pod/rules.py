"""Pair-o-Dice Basic, Super and Ultra: terrain, morale, AD/AV, Buddy and Medal shifts,
special cards, and the two chart layouts."""

from __future__ import annotations

import re
from collections.abc import Generator, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec.structs import replace

from tui.engine.dice import DiceRoll, Roller, check_roll, parse_dice
from tui.engine.errors import InputError
from tui.engine.model import CombatInput, Outcome
from tui.engine.odds import apply_shifts, round_odds
from tui.engine.rulesets.common import (
    finish,
    pick_column,
    require_attack,
    require_defense,
    units_total,
)
from tui.engine.tables import Tables

if TYPE_CHECKING:
    from tui.engine.questions import Question

SIDES = ("attacker", "defender")


def form_unread(values: Mapping[str, Any]) -> frozenset[str]:
    """What an Ultra form does not read: an obstacle is the whole defence (no defender is
    read), and the game's mines CDF is read only against mines."""
    obstacle = values.get("obstacle")
    unread = {"defenders"} if obstacle else set()
    if obstacle != "mines":
        unread.add("mines_cdf")
    return frozenset(unread)


def chart_key(ruleset: str, tables: Tables) -> str:
    return f"{tables.data[ruleset].get('same_chart_as', ruleset)}.crt"


def _terrain_totals(
    combat: CombatInput, tables: Tables, trace: list[str], obstacle_cdf: int | None
) -> tuple[int, int]:
    """Each unit's factor adjusted by its own hex (Super/Ultra), never below 0."""
    rules = tables.data[combat.ruleset]
    modifiers = tables.data["pod"]["terrain"]
    defenders = combat.defenders if obstacle_cdf is None else ()
    units = [("attacker", u) for u in combat.attackers] + [("defender", u) for u in defenders]
    for side, unit in units:
        if unit.terrain is not None and not rules["terrain_effects"]:
            raise InputError(
                side if side == "defender" else "attack",
                f"{unit.factor}@{unit.terrain}",
                "a plain factor: terrain has no combat effect in the Basic game",
            )
        if unit.terrain is not None and unit.terrain not in modifiers:
            raise InputError(
                "attack" if side == "attacker" else "defense",
                unit.terrain,
                "a terrain of " + ", ".join(modifiers),
                choices=modifiers,
            )
    attack = units_total("attack", combat.attackers)
    defense = units_total("defense", defenders)
    if obstacle_cdf is not None:
        defense = obstacle_cdf
    if not rules["terrain_effects"]:
        trace.append(
            f"Attack total {attack}, defence total {defense} (Basic: terrain has no combat effect)"
        )
        return attack, defense
    kinds = {u.terrain or "clear" for _, u in units}
    if len(kinds) <= 1:
        trace.append(
            f"Every unit stands on {next(iter(kinds), 'clear')}: no terrain adjustment; "
            f"attack {attack}, defence {defense}"
        )
        return attack, defense
    totals = {"attacker": 0, "defender": defense if obstacle_cdf is not None else 0}
    for side, unit in units:
        terrain = unit.terrain or "clear"
        change = modifiers[terrain]
        adjusted = max(0, unit.factor + change)
        totals[side] += adjusted
        if change:
            floor = " (never below 0)" if unit.factor + change < 0 else ""
            trace.append(
                f"{side.title()} unit {unit.factor} on {terrain}: {change:+d} -> {adjusted}{floor}"
            )
    trace.append(f"After terrain: attack {totals['attacker']}, defence {totals['defender']}")
    return totals["attacker"], totals["defender"]


def _morale(total: int, change: int, side: str, trace: list[str]) -> int:
    if change:
        after = max(0, total + change)
        trace.append(f"{side} other +/- factors (morale) {change:+d}: {total} -> {after}")
        return after
    return total


def _card_ok(ruleset: str, tables: Tables, field: str, card: str | None) -> None:
    allowed = tables.data[ruleset]["special_cards"]
    if card is not None and card not in allowed:
        raise InputError(
            field, card, "one of " + ", ".join(allowed) + f" in {ruleset}", choices=allowed
        )


def _cards_together_ok(combat: CombatInput) -> None:
    """RULINGS: cards are single. One Joker per combat, Stanfill (#19) is one card (one
    side at most), and she cancels the result, so a Joker with her is refused."""
    attacker, defender = combat.attacker_card, combat.defender_card
    if attacker == defender == "joker":
        raise InputError(
            "defender_card",
            defender,
            "another card or none: the attacker played the Joker, and a second Joker is refused (one after-roll card per combat)",
        )
    if attacker == defender == "stanfill":
        raise InputError(
            "defender_card",
            defender,
            "another card or none: Margaret Stanfill (#19) is one card, and the attacker played her",
        )
    if {attacker, defender} == {"joker", "stanfill"}:
        field = "attacker_card" if attacker == "joker" else "defender_card"
        raise InputError(
            field,
            "joker",
            "another card or none: Margaret Stanfill (#19) cancels the result, so no Joker is played with her",
        )


def _side_ok(field: str, value: str | None) -> None:
    if value is not None and value not in SIDES:
        raise InputError(field, value, "attacker or defender", choices=SIDES)


def _obstacle_cdf(combat: CombatInput, tables: Tables, trace: list[str]) -> int | None:
    options = tables.data["pod-ultra"]["obstacle_options"]["mines"]
    if combat.mines_cdf is not None and combat.mines_cdf not in options:
        raise InputError("mines_cdf", combat.mines_cdf, " or ".join(map(str, options)))
    if combat.obstacle is None:
        return None
    obstacles = tables.data["pod-ultra"]["obstacles"]
    if combat.obstacle not in obstacles:
        raise InputError(
            "obstacle", combat.obstacle, "one of " + ", ".join(obstacles), choices=obstacles
        )
    if combat.defenders:
        raise InputError(
            "defense",
            combat.defenders[0].factor,
            "no --defense with --obstacle: the obstacle is the defender",
        )
    cdf = obstacles[combat.obstacle]
    source = "tables.toml pod-ultra.obstacles"
    if combat.obstacle == "mines" and combat.mines_cdf is not None:
        cdf = combat.mines_cdf
        source = "the game's mines CDF option"
    trace.append(
        f"Defender is a {combat.obstacle} obstacle: CDF {cdf} ({source}); obstacles ignore terrain"
    )
    return int(cdf)


def _shifts(combat: CombatInput, tables: Tables) -> list[tuple[str, int]]:
    """Shifts in the order they are played: Buddy, Medal, then the attacker's card and the
    defender's card (the attacker commits first). + is the attacker's way; they are
    netted before the column moves."""
    pod = tables.data["pod"]
    shifts: list[tuple[str, int]] = []
    if combat.buddy:
        sign = 1 if combat.buddy == "attacker" else -1
        shifts.append(
            (f"Hero Buddy card at the Hero Site ({combat.buddy})", sign * pod["shifts"]["buddy"])
        )
    if combat.medal:
        sign = 1 if combat.medal == "attacker" else -1
        shifts.append(
            (f"Medal of Honor hex ({combat.medal} holds the card)", sign * pod["shifts"]["medal"])
        )
    for side, card in (("attacker", combat.attacker_card), ("defender", combat.defender_card)):
        if card and pod["card_shifts"][card]:
            sign = 1 if side == "attacker" else -1
            shifts.append((f"{card.title()} ({side})", sign * pod["card_shifts"][card]))
    return shifts


def resolve(combat: CombatInput, tables: Tables, roller: Roller) -> Outcome:
    ruleset = combat.ruleset
    rules = tables.data[ruleset]
    chart = tables.chart(chart_key(ruleset, tables))
    trace: list[str] = []
    _card_ok(ruleset, tables, "attacker_card", combat.attacker_card)
    _card_ok(ruleset, tables, "defender_card", combat.defender_card)
    _cards_together_ok(combat)
    _side_ok("buddy", combat.buddy)
    _side_ok("medal", combat.medal)
    count, sides = parse_dice(rules["dice"])
    if combat.roll is not None:
        # RULINGS: checked against the dice even when AD or AV reads no die.
        check_roll("roll", combat.roll, count, count * sides, rules["dice"])
    obstacle_cdf = _obstacle_cdf(combat, tables, trace)
    effects: dict[str, Any] = {"attacker": {}, "defender": {}, "markers": [], "notes": []}
    if obstacle_cdf is not None:
        effects["obstacle"] = {"kind": combat.obstacle, "cdf": obstacle_cdf}

    attack = defense = None
    odds: str | None = None
    ratio: str | None = None
    if combat.column is not None:
        if combat.attackers or combat.defenders:
            attack, defense = _terrain_totals(combat, tables, trace, obstacle_cdf)
        index = pick_column(chart.columns, combat.column, trace)
        odds = combat.column
    else:
        if obstacle_cdf is None:
            require_defense(combat.defenders)
        attack, defense = _terrain_totals(combat, tables, trace, obstacle_cdf)
        before_morale = attack
        attack = _morale(attack, combat.morale_attack, "Attacker", trace)
        if attack <= 0 < before_morale:
            # The morale change took the attack to 0: name it, not the factors.
            raise InputError(
                "morale_attack",
                combat.morale_attack,
                f"at least {1 - before_morale}: the attack totals {before_morale} before "
                "morale, and 0 factors is not an attack",
            )
        defense = _morale(defense, combat.morale_defense, "Defender", trace)
        require_attack(attack, combat.attackers)
        automatic = None
        if defense == 0:
            trace.append("Defence total 0: every defending factor removed")
            automatic, odds = "AV", "AV"
        else:
            left, right = round_odds(attack, defense)
            odds = ratio = f"{left}-{right}"
            trace.append(f"Ratio {attack}:{defense}; odds rounded in the defender's favour: {odds}")
            if right >= rules["automatic_defeat_from"]:
                automatic = "AD"
                trace.append(
                    f"{odds} is 1-{rules['automatic_defeat_from']} or worse: Automatic Defeat"
                )
            elif left >= rules["automatic_victory_from"]:
                automatic = "AV"
                trace.append(
                    f"{odds} is {rules['automatic_victory_from']}-1 or better: Automatic Victory"
                )
        if automatic == "AV" and obstacle_cdf is not None:
            column = rules["obstacle_av_column"]
            trace.append(f"Obstacles are exempt from AV: read the {column} column")
            index = chart.columns.index(column)
        elif automatic is not None:
            return _automatic(combat, tables, automatic, attack, defense, ratio, effects, trace)
        else:
            index = chart.columns.index(odds)
            trace.append(f"Column {odds}")

    moved = apply_shifts(chart.columns, index, _shifts(combat, tables))
    shifts = moved.describe()
    trace.extend(f"Shift: {line}" for line in shifts)
    column = chart.columns[moved.index]
    if shifts:
        effects["shifts"] = shifts
    total = roller.roll("combat", count, sides, combat.roll)
    source = "entered by hand" if combat.roll is not None else "rolled by the desk"
    roll = str(total)
    cell = chart.cell(roll, column)
    trace.append(
        f"Dice {count}d{sides}: {total} ({source}); row {roll}, column {column}: {_printed(cell)}"
    )
    _decode(ruleset, tables, cell, effects)
    if "joker" in (combat.attacker_card, combat.defender_card):
        side = "attacker" if combat.attacker_card == "joker" else "defender"
        effects["attacker"], effects["defender"] = effects["defender"], effects["attacker"]
        effects["swapped"] = True
        trace.append(
            f"Joker played by the {side} after the roll: attacker and defender results swap"
        )
        effects["headline"] = ["Joker: the attacker and defender result lines are swapped."]
    if "stanfill" in (combat.attacker_card, combat.defender_card):
        who = "attacker" if combat.attacker_card == "stanfill" else "defender"
        # Nothing happens: no side keeps a loss, retreat or advance the cell printed.
        effects["attacker"], effects["defender"] = {}, {}
        effects["cancelled"] = True
        effects["headline"] = [
            f"Margaret Stanfill (#19, {who}) cancels the result: nothing happens."
        ]
        trace.append(f"Margaret Stanfill played by the {who}: the result is cancelled")
    if obstacle_cdf is not None and not effects.get("cancelled"):
        _obstacle_fate(str(combat.obstacle), obstacle_cdf, effects, trace)
    return finish(
        combat,
        attack_total=attack,
        defense_total=defense,
        odds=odds,
        column=column,
        roll=roll,
        cell=cell,
        effects=effects,
        trace=trace,
        ratio=ratio,
    )


def _obstacle_fate(kind: str, cdf: int, effects: dict[str, Any], trace: list[str]) -> None:
    """RULINGS "Obstacles": the defender's line tells what happens to the obstacle. A loss
    of at least its CDF (or all) clears it; a smaller loss, and any retreat, leave it in
    place (an obstacle neither retreats nor advances)."""
    line = effects["defender"]
    lost = line.get("factors_lost", 0)
    cleared = lost == "all" or (isinstance(lost, int) and lost >= cdf)
    fate: dict[str, Any] = {"factors_lost": lost} if lost else {}
    fate["obstacle"] = "cleared" if cleared else "stays"
    effects["defender"] = fate
    effects["defender_name"] = f"The {kind} obstacle (CDF {cdf})"
    why = (
        f"a loss of {lost}, at least its CDF {cdf}"
        if cleared
        else (f"a loss of {lost}, less than its CDF {cdf}" if lost else "no loss")
    )
    moved = " (an obstacle does not move)" if {"retreat", "advance_up_to"} & set(line) else ""
    trace.append(
        f"The defender's line is the {kind} obstacle's: {why}, "
        f"{'it is cleared' if cleared else 'it stays in place'}{moved}"
    )


def _automatic(
    combat: CombatInput,
    tables: Tables,
    automatic: str,
    attack: int,
    defense: int,
    ratio: str | None,
    effects: dict[str, Any],
    trace: list[str],
) -> Outcome:
    """AD or AV: `odds` names the result, `ratio` keeps the rounded odds (none when the
    defence is 0)."""
    unplayed = [
        name
        for name, value in (
            ("attacker card", combat.attacker_card),
            ("defender card", combat.defender_card),
            ("Buddy card", combat.buddy),
            ("Medal of Honor", combat.medal),
        )
        if value
    ]
    if unplayed:
        trace.append(
            f"No card is played in an {automatic} combat: {', '.join(unplayed)} not played"
        )
        effects["notes"].append(
            f"No card is played in an {automatic} combat ({', '.join(unplayed)} returned)."
        )
    if combat.roll is not None:
        trace.append(f"No dice: {automatic} needs no roll (the roll {combat.roll} is not read)")
    effects["result"] = automatic
    if automatic == "AD":
        effects["attacker"] = {"eliminated": True}
        effects["headline"] = [
            "Automatic Defeat: all attacking units are removed; the defenders do not advance."
        ]
    elif combat.ruleset == "pod-basic":
        effects["defender"] = {"eliminated": True}
        effects["attacker"] = {"advance_up_to": tables.data["pod-basic"]["av_advance"]}
        effects["headline"] = ["Automatic Victory: the defender is destroyed (DD)."]
    else:
        # RULINGS: the removed defenders' printed factors, before terrain and morale.
        printed = sum(unit.factor for unit in combat.defenders)
        effects["defender"] = {"eliminated": True}
        effects["move_in_factors"] = printed
        effects["headline"] = ["Automatic Victory during movement: the defenders are removed."]
        effects["notes"].append(
            f"Attackers with defence factors equal to the removed defenders' printed {printed} must move into the vacated hex and may not move again."
        )
        if printed != defense:
            trace.append(
                f"Move-in: the removed defenders' printed factors {printed} (not {defense} after terrain and morale)"
            )
    return finish(
        combat,
        attack_total=attack,
        defense_total=defense,
        odds=automatic,
        column=None,
        roll=None,
        cell=None,
        effects=effects,
        trace=trace,
        ratio=ratio,
    )


def _printed(cell: Any) -> str:
    if isinstance(cell, tuple | list):
        return " / ".join(cell)
    return f"attacker {' '.join(cell['attacker'])}, defender {' '.join(cell['defender'])}"


_BASIC = re.compile(r"^(AL|DL|AR|DR)(\d+|X)$")


def _decode(ruleset: str, tables: Tables, cell: Any, effects: dict[str, Any]) -> None:
    if ruleset == "pod-basic":
        dl_advance = tables.data["pod-basic"]["dl_advance"]
        for code in cell:
            match = _BASIC.match(code)
            if match is None:
                continue  # "-": nothing on this line
            kind, amount = match.groups()
            side = effects["attacker"] if kind[0] == "A" else effects["defender"]
            if kind[1] == "L":
                if amount == "X":
                    side["factors_lost"] = "all"
                    side["eliminated"] = True
                else:
                    side["factors_lost"] = int(amount)
                if kind == "DL":
                    effects["attacker"]["advance_up_to"] = max(
                        effects["attacker"].get("advance_up_to", 0), dl_advance
                    )
            else:
                side["retreat"] = int(amount)
                if kind == "DR":
                    effects["attacker"]["advance_up_to"] = max(
                        effects["attacker"].get("advance_up_to", 0), int(amount)
                    )
        return
    for side in SIDES:
        lost, move = cell[side]
        if lost != "-":
            effects[side]["factors_lost"] = int(lost)
        if move != "-":
            amount = int(move)
            if amount < 0:
                effects[side]["retreat"] = -amount
            else:
                effects[side]["advance_up_to"] = amount


def after_roll_card(combat: CombatInput, outcome: Outcome, tables: Tables, side: str) -> str | None:
    """The card `side` may still play after this roll (the Joker in Super/Ultra, Stanfill in
    Basic), or None: not after AD/AV or a cancelled result, one such card per combat, and a
    side that committed a card before the roll has played its card."""
    if outcome.roll is None or outcome.effects.get("result") or outcome.effects.get("cancelled"):
        return None
    cards = tables.data[combat.ruleset]["after_roll_cards"]
    if not cards or combat.attacker_card in cards or combat.defender_card in cards:
        return None
    if getattr(combat, f"{side}_card"):
        return None
    return str(cards[0])


def after_roll_offers(combat: CombatInput, outcome: Outcome, tables: Tables) -> dict[str, str]:
    """Side -> the card it may still play after this roll (`after_roll_card`), for the sides
    that may play one."""
    offers = {side: after_roll_card(combat, outcome, tables, side) for side in SIDES}
    return {side: card for side, card in offers.items() if card}


def card_given_after_roll(combat: CombatInput, tables: Tables) -> str | None:
    """The side whose card (a flag, a logged input) is one played after the roll, or None:
    none is, or both sides hold one (refused as given: one such card per combat)."""
    cards = tables.data[combat.ruleset]["after_roll_cards"]
    sides = [side for side in SIDES if getattr(combat, f"{side}_card") in cards]
    return str(sides[0]) if len(sides) == 1 else None


def as_rolled(combat: CombatInput, tables: Tables) -> CombatInput:
    """The combat as its dice were rolled: without any card played after the roll."""
    cards = tables.data[combat.ruleset]["after_roll_cards"]
    attacker, defender = combat.attacker_card, combat.defender_card
    if attacker not in cards and defender not in cards:
        return combat
    return replace(
        combat,
        attacker_card=None if attacker in cards else attacker,
        defender_card=None if defender in cards else defender,
    )


def last_combat(
    entries: Sequence[Mapping[str, Any]],
) -> tuple[Mapping[str, Any] | None, str | None]:
    """The game's last combat, the one a card after the roll is played on (from either
    player's desk, or the CLI), and why no card may be played after it any more (None: one
    may). (None, None) when the game has no combat."""
    for at in range(len(entries) - 1, -1, -1):
        entry = entries[at]
        if entry.get("kind") != "combat" or entry.get("amends") is not None:
            continue
        return entry, after_roll_closed(entry, entries[at + 1 :])
    return None, None


def after_roll_closed(combat: Mapping[str, Any], later: Iterable[Mapping[str, Any]]) -> str | None:
    """Why no card may be played after the roll of the logged `combat` any more, given the
    entries logged after it (RULINGS: on the game's last combat, until the next combat is
    rolled or the turn ends; one such card per combat), or None when one still may."""
    if combat.get("amends") is not None:
        return f"entry {combat.get('seq')} is itself a card played after a roll"
    for entry in later:
        if entry.get("kind") == "turn":
            return f"turn {entry.get('turn')} has begun since (entry {entry.get('seq')})"
        if entry.get("kind") == "combat":
            if entry.get("amends") == combat.get("seq"):
                return f"a card was played after its roll already (entry {entry.get('seq')})"
            return f"the next combat has been rolled since (entry {entry.get('seq')})"
    return None


# --- Hero Buddy cards away from the CRT: the Hero Site draw, the Engineer/Frogman ------------

HERO_SITE_QUESTION = (
    "A Hero Site won uncontested, the loser lacking the Buddy card: who won it?\n"
    "The attacker rolls 1d6 for the draw (the desk rolls it and logs it)."
)


# A draw and a repair are read field by field, never compared: equal only to themselves
# (eq=False).
class HeroSiteDraw(msgspec.Struct, frozen=True, eq=False):
    """A Hero Site won uncontested by `winner`: the die of the draw and what it means, or
    why there is no draw (`refused`)."""

    winner: str
    dice: tuple[DiceRoll, ...] = ()
    refused: str | None = None

    @property
    def text(self) -> str:
        if self.refused is not None or not self.dice:
            return self.refused or ""
        return hero_site_draw_text(self.dice[0].total)


def hero_site() -> Generator[Question, Any, HeroSiteDraw | None]:
    """The Hero Site draw as a procedure: who won the site (None or "no": nobody yet, no
    draw), then, for the attacker only (RULINGS), the 1d6 of the draw."""
    # Imported at the first question: a Pair-o-Dice screen opens without the questions
    # (the start-up budget, docs/performance.md).
    from tui.engine.questions import ChoiceQuestion, DiceQuestion, Option

    winner = yield ChoiceQuestion(
        "winner",
        HERO_SITE_QUESTION,
        (
            Option("n", "nobody yet: roll nothing", "no"),
            Option("a", "the attacker: roll and log the draw", "attacker"),
            Option("d", "the defender: no draw", "defender"),
        ),
    )
    if winner in (None, "no"):
        return None
    refused = hero_draw_refusal(winner)
    if refused is not None:
        return HeroSiteDraw(winner, refused=refused)
    die = yield DiceQuestion("hero_draw", "Hero Site card draw", 1, 6)
    if not isinstance(die, DiceRoll):
        raise TypeError(f"a DiceRoll answers the Hero Site draw, not {die!r}")
    check_roll("hero_draw", die.total, 1, 6, "1d6")
    return HeroSiteDraw(winner, dice=(die,))


def hero_draw_refusal(winner: str) -> str | None:
    """Why the side that won a Hero Site draws no Buddy card, or None for the attacker
    (RULINGS, as both seeds say: "the attacker gains uncontested control")."""
    if winner == "attacker":
        return None
    return (
        f"No draw: the {winner} held the site, and only an attacker who wins a Hero Site "
        "uncontested draws a Buddy card."
    )


def hero_site_draw_text(count: int) -> str:
    """What a Hero Site draw of `count` means (RULINGS: the loser offers that many Buddy
    cards face down, the attacker draws one)."""
    return (
        f"Hero Site won uncontested: the desk rolled {count}. "
        f"The loser offers {count} Buddy card{'s' if count != 1 else ''} face down; "
        "the attacker draws one."
    )


class Repair(msgspec.Struct, frozen=True, eq=False):
    """Hero #15 Engineer/Frogman played: the No-entry marker it lifts, or why none."""

    card: str
    marker: Any = None  # the marker in play lifted (None: none)
    refused: str | None = None

    @property
    def note(self) -> str:
        return f"{self.card} repairs the hex"


def frogman(markers: Iterable[Any], tables: Tables) -> Generator[Question, Any, Repair | None]:
    """Hero #15 Engineer/Frogman as a procedure (RULINGS "Markers": it opens a No-entry hex,
    lifting its marker whatever strikes made it): which No-entry hex, when several are
    closed. None when the question is left unanswered."""
    # Imported at the first question: a Pair-o-Dice screen opens without the questions
    # (the start-up budget, docs/performance.md).
    from tui.engine.questions import MarkerQuestion

    card = tables.data["pod-boom"]["repair_card"]
    closed = tuple(marker for marker in markers if marker.kind == "no-entry")
    if not closed:
        return Repair(card, refused=f"No No-entry hex to repair: {card} needs one.")
    marker_id = closed[0].id
    if len(closed) > 1:
        marker_id = yield MarkerQuestion("marker", f"{card}: which No-entry hex?", closed)
        if marker_id is None:
            return None
    marker = next((m for m in closed if m.id == marker_id), None)
    if marker is None:
        allowed = [m.id for m in closed]
        raise InputError("marker", marker_id, "one of " + ", ".join(allowed), choices=allowed)
    return Repair(card, marker)
