"""Each ruleset's inputs, declared once: name, label, CLI flag, kind, allowed range and help.

From these declarations, and nothing else, come the desk's form fields (tui.desk.screens), the
CLI's flags and their --help (tui.cli), the refusal of an input a ruleset does not read and
of a number beyond its range (tui.engine.combat), the names in every message, and the
reading of a logged combat's `inputs` back into a CombatInput (luck, the report, the review).

A field's role says when it is set: "form" before the roll, "dice" the dice rolled by hand
(as they lie, before any modifier: RULINGS, "Dice"), "answer" a choice the procedure asks
for once the dice are read (tui.engine.procedure), "desk" an input of the desk's form alone
that its ruleset's form rule turns into the combat's (Big Boom's mission, and its bombers'
range and the target's distance): no CombatInput field, no CLI flag.

A field's kind (tui.engine.kinds) says how it is read, flagged, checked and shown.

Why one module of some 800 lines: about 500 of them are the declarations themselves, every
ruleset's fields in one table, so that a field several rulesets read is declared once and
a reader sees each form in its order; the functions that read them are short.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from tui.engine.errors import InputError
from tui.engine.kinds import (
    CHOICE,
    DICE,
    DICE_LIST,
    MAYBE,
    MODIFIERS,
    OCS_ATTACKERS,
    OCS_DEFENDERS,
    SIGNED,
    TEXT,
    TICK,
    UNITS,
    WHOLE,
    WHOLE_CHOICE,
    Kind,
    Shown,
)
from tui.engine.records import Record
from tui.engine.tables import DAYNIGHT_TERRAINS, OCS_TERRAINS, Tables

if TYPE_CHECKING:
    from tui.engine.model import CombatInput

# The combat model is imported by the functions that read or check a combat: a form is
# drawn from these declarations before any combat is made.

# A bound: a number, or a dotted path into tables.toml (a leading "-" negates it).
Bound = int | str
Choices = Callable[[str, Tables], tuple[tuple[Any, str], ...]]


class Field(Record, frozen=True):
    """One input of a combat."""

    name: str  # the CombatInput field
    label: str  # what the desk and every message call it
    flag: str  # the CLI flag
    kind: Kind  # how it is read, flagged, checked and shown (tui.engine.kinds)
    help: str
    role: str = "form"  # form, dice, answer or desk
    low: Bound | None = None
    high: Bound | None = None
    # The range as said in a message ({low} and {high} filled in).
    allowed: str = ""
    choices: Choices | None = None
    # Other names the engine's messages use for this field ("attack" for the attackers).
    aliases: tuple[str, ...] = ()
    # On the desk: shown as a form field (False: set another way, or CLI only), its widget
    # id, its label there when it differs, and a tick shown as a choice of two named values.
    desk: bool = True
    desk_id: str | None = None
    desk_label: str | None = None
    desk_options: tuple[tuple[str, Any], ...] | None = None
    metavar: str = "N"
    # On the desk: shown on the line of the field before it; a choice with no "-" (none)
    # option, and the value the form starts with (None: the first option).
    beside: bool = False
    required: bool = False
    desk_default: Any = None
    # A choice the desk offers fewer of than the CLI takes (cards played before the roll).
    form_choices: Choices | None = None
    # Why a ruleset that does not read the input refuses it (else: who reads it).
    not_read: str = ""
    # A choice or number that shapes the chances of the result (a Day/Night reserve or
    # pressing on): kept when a logged combat is judged; other answers and the dice are not.
    shapes_chances: bool = False
    # On the desk: what an empty number field shows (None: its floor).
    placeholder: str | None = None
    # Whether the field's value changes what the rest of the form reads, or stands for:
    # its ruleset's form rule says how (Ruleset.form_unread, form_values).
    form_rule: bool = False
    # A per-game option kept in the save (the form starts at the game's value): the value
    # it has when the game sets none, a dotted path into tables.toml.
    game_option: Bound | None = None

    @property
    def widget_id(self) -> str:
        return self.desk_id or self.name.replace("_", "-")

    @property
    def form_label(self) -> str:
        return self.desk_label or self.label

    @property
    def said_as(self) -> str:
        """The name the engine's messages give the field ("attack" for the attackers)."""
        return self.aliases[0] if self.aliases else self.name

    @property
    def shown(self) -> Shown:
        """The desk widget that shows it (a tick with named values is cycled)."""
        return Shown.CHOICE if self.desk_options is not None else self.kind.shown

    @property
    def on_combat(self) -> bool:
        """Whether the field is the combat's own (not the desk form's alone)."""
        return self.role != "desk"

    def option_default(self, tables: Tables) -> Any:
        """A per-game option's value where the game sets none."""
        return _bound(self.game_option, tables)

    def bounds(self, tables: Tables) -> tuple[int | None, int | None]:
        return _bound(self.low, tables), _bound(self.high, tables)

    def options(self, ruleset: str, tables: Tables) -> tuple[tuple[Any, str], ...]:
        """(value, label) of each choice."""
        return self.choices(ruleset, tables) if self.choices else ()

    def form_options(self, ruleset: str, tables: Tables) -> tuple[tuple[Any, str], ...]:
        """(value, label) of each choice the desk's form offers."""
        if self.form_choices is not None:
            return self.form_choices(ruleset, tables)
        return self.options(ruleset, tables)


def _bound(bound: Bound | None, tables: Tables) -> int | None:
    if bound is None or isinstance(bound, int):
        return bound
    sign, path = (-1, bound[1:]) if bound.startswith("-") else (1, bound)
    value: Any = tables.data
    for key in path.split("."):
        value = value[key]
    return sign * int(value)


def _pairs(*values: str) -> tuple[tuple[Any, str], ...]:
    return tuple((value, value) for value in values)


def _cards(ruleset: str, tables: Tables) -> tuple[tuple[Any, str], ...]:
    return tuple((card, card.title()) for card in tables.data[ruleset]["special_cards"])


def _cards_before_roll(ruleset: str, tables: Tables) -> tuple[tuple[Any, str], ...]:
    """The cards committed before the roll (those played after it are F9's)."""
    after = tables.data[ruleset]["after_roll_cards"]
    return tuple((card, title) for card, title in _cards(ruleset, tables) if card not in after)


def _obstacles(ruleset: str, tables: Tables) -> tuple[tuple[Any, str], ...]:
    return _pairs(*tables.data["pod-ultra"]["obstacles"])


def _mines(ruleset: str, tables: Tables) -> tuple[tuple[Any, str], ...]:
    return tuple((m, str(m)) for m in tables.data["pod-ultra"]["obstacle_options"]["mines"])


def _terrains(ruleset: str, tables: Tables) -> tuple[tuple[Any, str], ...]:
    names = OCS_TERRAINS if ruleset == "ocs" else DAYNIGHT_TERRAINS
    return tuple((name.lower().replace(" ", "-"), name) for name in names)


def _sides(ruleset: str, tables: Tables) -> tuple[tuple[Any, str], ...]:
    return _pairs("attacker", "defender")


def _times(ruleset: str, tables: Tables) -> tuple[tuple[Any, str], ...]:
    return (("day", "Day"), ("night", "Night"))


def _steps(ruleset: str, tables: Tables) -> tuple[tuple[Any, str], ...]:
    return _pairs("attrition", "accuracy", "direction", "crt")


FACTOR = "a whole number from 0 to {high} per unit"

# Every input of every ruleset, once. A ruleset lists the ones it reads (its Ruleset, tui.engine.ruleset).
_ALL: tuple[Field, ...] = (
    Field(
        "attackers",
        "Attackers",
        "--attack",
        UNITS,
        "an attacking unit's factor (repeat per unit); N@terrain in pod-super/ultra",
        low=0,
        high="limits.factor_max",
        allowed=FACTOR,
        aliases=("attack",),
        desk=False,
    ),
    Field(
        "defenders",
        "Defenders",
        "--defense",
        UNITS,
        "a defending unit's factor (repeat per unit); N@terrain in pod-super/ultra",
        low=0,
        high="limits.factor_max",
        allowed=FACTOR,
        aliases=("defense", "defender"),
        desk=False,
    ),
    Field(
        "column",
        "Column",
        "--column",
        TEXT,
        "read this column instead of computing the odds",
        metavar="LABEL",
        desk=False,
    ),
    Field(
        "roll",
        "Result roll",
        "--roll",
        DICE,
        "the result dice rolled by hand, as they lie (before any modifier)",
        role="dice",
        desk=False,
    ),
    # Pair-o-Dice
    Field(
        "attacker_card",
        "Attacker card",
        "--attacker-card",
        CHOICE,
        "the attacker's special card",
        choices=_cards,
        form_choices=_cards_before_roll,
        metavar="CARD",
    ),
    Field(
        "defender_card",
        "Defender card",
        "--defender-card",
        CHOICE,
        "the defender's special card",
        choices=_cards,
        form_choices=_cards_before_roll,
        metavar="CARD",
    ),
    Field(
        "buddy",
        "Buddy card",
        "--buddy",
        CHOICE,
        "who holds the Hero Buddy card at a Hero Site",
        choices=_sides,
        metavar="SIDE",
    ),
    Field(
        "medal",
        "Medal of Honor",
        "--medal",
        CHOICE,
        "who holds the card for a Medal of Honor hex",
        choices=_sides,
        metavar="SIDE",
        not_read="no Medal of Honor hex in {ruleset} (its terrain has no combat effect)",
    ),
    Field(
        "morale_attack",
        "Morale A",
        "--morale-attack",
        SIGNED,
        "other +/- attack factors (morale)",
        low="-limits.factor_max",
        high="limits.factor_max",
        desk_label="Morale +/- A",
    ),
    Field(
        "morale_defense",
        "Morale D",
        "--morale-defense",
        SIGNED,
        "other +/- defence factors (morale)",
        low="-limits.factor_max",
        high="limits.factor_max",
        desk_label="D",
        beside=True,
    ),
    Field(
        "obstacle",
        "Obstacle",
        "--obstacle",
        CHOICE,
        "an obstacle defends, not units: its CDF is the defence, its line says if it is cleared",
        choices=_obstacles,
        metavar="KIND",
        form_rule=True,
        not_read="no obstacle: obstacles are Ultra only (pod-ultra)",
    ),
    Field(
        "mines_cdf",
        "Mines CDF",
        "--mines-cdf",
        WHOLE_CHOICE,
        "the game's mines CDF (a per-game option; see crtdesk table pod-ultra)",
        choices=_mines,
        required=True,
        game_option="pod-ultra.obstacles.mines",
        not_read="no mines CDF outside pod-ultra",
    ),
    # Big Boom
    Field(
        "step",
        "Step",
        "--step",
        CHOICE,
        "one step of the chain (default: the whole chain)",
        choices=_steps,
        metavar="STEP",
        desk=False,
    ),
    Field(
        "aaf",
        "AA units",
        "--aaf",
        WHOLE,
        "AA factor total on the route",
        low=0,
        high="limits.factor_max",
        desk=False,
    ),
    Field(
        "caf",
        "CAF",
        "--caf",
        WHOLE,
        "CAF on target (crt step)",
        low=1,
        high="limits.factor_max",
        desk=False,
    ),
    Field(
        "long_range",
        "Long range",
        "--long-range",
        TICK,
        "target over half the bomber's range (adds the long-range AA bonus)",
        desk=False,
    ),
    Field(
        "chain_rolls",
        "Chain die",
        "--chain-roll",
        DICE_LIST,
        "a die of the chain rolled by hand, in the order it is read (repeat): attrition, "
        "accuracy, direction, combat on target, combat astray",
        role="dice",
        desk=False,
    ),
    # OCS
    Field(
        "terrain",
        "Def. terrain",
        "--terrain",
        CHOICE,
        "the defender's terrain",
        choices=_terrains,
        metavar="T",
        required=True,
    ),
    Field(
        "attacker_ar",
        "Attacker AR",
        "--attacker-ar",
        WHOLE,
        "the attacker's action rating (default: the AR unit's)",
        low=0,
        high="ocs.action_rating_max",
        allowed="an action rating from 0 to {high}",
        desk=False,
    ),
    Field(
        "defender_ar",
        "Defender AR",
        "--defender-ar",
        WHOLE,
        "the defender's action rating (default: the AR unit's)",
        low=0,
        high="ocs.action_rating_max",
        allowed="an action rating from 0 to {high}",
        desk=False,
    ),
    Field(
        "hedgehog",
        "Hedgehog",
        "--hedgehog",
        WHOLE,
        "the defender's hedgehog level",
        low=0,
        high="ocs.hedgehog_max",
        allowed="a hedgehog level from 0 (none) to {high}",
    ),
    Field(
        "overrun",
        "Overrun (not a regular attack)",
        "--overrun",
        TICK,
        "an overrun attack (overrun surprise thresholds)",
    ),
    Field(
        "surprise_roll",
        "Surprise roll",
        "--surprise-roll",
        DICE,
        "the surprise 2d6 rolled by hand, as they lie",
        role="dice",
        desk=False,
    ),
    Field(
        "shift_roll",
        "Surprise shift die",
        "--shift-roll",
        DICE,
        "the surprise shift 1d6 rolled by hand",
        role="dice",
        desk=False,
    ),
    Field(
        "defender_unsupplied",
        "Def. supply",
        "--defender-unsupplied",
        TICK,
        "the defender withholds combat supply and defends at half strength",
        desk_id="def-supply",
        required=True,
        desk_options=(("paid", False), ("withheld ½", True)),
    ),
    Field(
        "attacker_ar_unit",
        "AR unit A",
        "--attacker-ar-unit",
        TEXT,
        "the attacker's AR unit, by name (default: the highest)",
        metavar="NAME",
        desk_id="ar-attacker",
    ),
    Field(
        "defender_ar_unit",
        "AR unit D",
        "--defender-ar-unit",
        TEXT,
        "the defender's AR unit, by name (default: the highest)",
        metavar="NAME",
        desk_id="ar-defender",
    ),
    Field(
        "attack_hexes",
        "Att. hexes",
        "--attack-hexes",
        WHOLE,
        "hexes the attack comes from",
        low=1,
    ),
    Field(
        "nonadjacent_hexsides",
        "2 non-adj.",
        "--nonadjacent-hexsides",
        TICK,
        "the attacking hexes lie on two non-adjacent hexsides (no exploitation)",
        desk_id="nonadjacent",
        beside=True,
    ),
    Field(
        "attacker_option_retreat",
        "Attacker option",
        "--attacker-retreat",
        WHOLE,
        "hexes of the attacker's option taken as a retreat (the rest in steps)",
        role="answer",
        low=0,
        desk=False,
    ),
    Field(
        "defender_option_retreat",
        "Defender option",
        "--defender-retreat",
        WHOLE,
        "hexes of the defender's option taken as a retreat (the rest in steps)",
        role="answer",
        low=0,
        desk=False,
    ),
    Field(
        "defender_ignores_options",
        "Defender ignores options",
        "--defender-ignores-options",
        TICK,
        "after the attacker retreats, the defender ignores its options",
        role="answer",
        desk=False,
    ),
    # Rivets
    Field(
        "bcpc",
        "Enemy BCPC (never overrun)",
        "--bcpc",
        TICK,
        "the defenders are the enemy BCPC, which is never overrun (6-1+ is rolled)",
    ),
    # Day/Night
    Field(
        "time",
        "Day/Night",
        "--time",
        CHOICE,
        "day or night: which table",
        choices=_times,
        metavar="T",
        desk_label="Turn",
        required=True,
    ),
    Field(
        "drm",
        "Net DRM",
        "--drm",
        SIGNED,
        "the net die roll modifier",
        low="-daynight.drm_max",
        high="daynight.drm_max",
        allowed="a net DRM from {low} to +{high}: beyond it every roll reads the same edge row",
    ),
    Field(
        "hold",
        "Step-loss-and-hold hex (7.2)",
        "--hold",
        MAYBE,
        "the defender's hex gives the step-loss-and-hold option, so D1/D2 may be taken as "
        "step losses; --no-hold: it does not, D1/D2 are retreats (default: not said, both "
        "readings named)",
    ),
    Field(
        "reserve",
        "Reserve",
        "--reserve",
        WHOLE,
        "on ENG (always rolled again), commit a reserve of N factors first",
        role="answer",
        low=0,
        high="limits.factor_max",
        desk=False,
        shapes_chances=True,
    ),
    Field(
        "press_on",
        "Press on",
        "--press-on",
        TICK,
        "on BTL, take a step loss and roll again",
        role="answer",
        desk=False,
        shapes_chances=True,
    ),
    Field(
        "rerolls",
        "Re-roll die",
        "--reroll",
        DICE_LIST,
        "a re-roll's die rolled by hand, as it lies (repeat)",
        role="dice",
        desk=False,
    ),
    Field(
        "attacker_retreats",
        "Attacker retreats",
        "--attacker-retreats",
        TICK,
        "on A1/A1X/A2X the attacker retreats, disorganized, instead of losing a step",
        role="answer",
        desk=False,
    ),
)

FIELDS: dict[str, Field] = {f.name: f for f in _ALL}


def declared(*names: str) -> tuple[Field, ...]:
    """The declared fields named, in that order: a ruleset's inputs."""
    return tuple(FIELDS[name] for name in names)


# The OCS counters are typed whole on the command line (--attacker, --defender).
OCS_UNIT_SPECS: tuple[Field, ...] = (
    Field(
        "attackers",
        "Attackers",
        "--attacker",
        OCS_ATTACKERS,
        "an attacking unit NAME:STRENGTH:STEPS:AR[:TYPE[:SUPPLY]] (repeat); TYPE "
        "combat|hq|dak-brigade, SUPPLY on-map|internal|none (defaults combat, on-map)",
        low=0,
        high="limits.factor_max",
        allowed=FACTOR,
        aliases=("attacker",),
        desk=False,
        metavar="SPEC",
    ),
    Field(
        "defenders",
        "Defenders",
        "--defender",
        OCS_DEFENDERS,
        "a defending unit NAME:STRENGTH:STEPS:RE:AR (repeat)",
        aliases=("defender",),
        desk=False,
        metavar="SPEC",
    ),
)


# What a logged combat on a player's chart holds: its modifiers' values in one table.
CHART_READS: tuple[Field, ...] = (
    *(FIELDS[name] for name in ("attackers", "defenders", "column", "roll")),
    Field(
        "modifiers",
        "Modifiers",
        "--modifier",
        MODIFIERS,
        "each modifier of a player's chart, by name",
        desk=False,
    ),
)


def form(ruleset: str, fields: tuple[Field, ...], tables: Tables) -> tuple[Field, ...]:
    """The fields of a ruleset's desk form, in its order: those shown on the desk, a choice
    only where the form has something to offer (Basic plays no card before the roll: its
    Stanfill is played after it)."""
    return tuple(f for f in fields if f.desk and f.kind.on_form(f, ruleset, tables))


def field_in(fields: tuple[Field, ...] | None, name: str) -> Field | None:
    """The field an engine message names (by its name or an alias), among `fields` (None:
    every field declared)."""
    pool = fields if fields is not None else _ALL
    for candidate in (*pool, *OCS_UNIT_SPECS):
        if name == candidate.name or name in candidate.aliases:
            return candidate
    return None


def label(fields: tuple[Field, ...] | None, name: str) -> str:
    """What the desk calls a field an engine message names (the name itself if none)."""
    found = field_in(fields, name)
    return found.label if found else name


def flag(name: str, value: object = None) -> str:
    """The CLI flag a message names for a field (holding `value`: --no-hold)."""
    found = field_in(None, name)
    return found.kind.flag_named(found, value) if found else "--" + name.replace("_", "-")


# --- checking --------------------------------------------------------------------------------


# The fields a ruleset does not read, in FIELDS' order, each with its value on a blank
# combat, by the ruleset and the names it reads: worked out once (a blank combat has 40-odd
# fields to set, and the preview checks a combat on every key).
_UNREAD: dict[tuple[str, tuple[str, ...]], tuple[tuple[str, Any], ...]] = {}


def check_read(
    combat: CombatInput, fields: tuple[Field, ...], readers: Callable[[str], tuple[str, ...]]
) -> None:
    """Refuse an input the ruleset does not read (not among `fields`), so nothing typed is
    silently ignored; `readers` names the rulesets that do read it."""
    names = tuple(f.name for f in fields)
    unread = _UNREAD.get((combat.ruleset, names))
    if unread is None:
        # The combat model loads with the first combat read (see the note at the top).
        from tui.engine.model import CombatInput

        blank = CombatInput(combat.ruleset)
        unread = tuple((name, getattr(blank, name)) for name in FIELDS if name not in names)
        _UNREAD[combat.ruleset, names] = unread
    for name, default in unread:
        if getattr(combat, name) != default:
            only = ", ".join(readers(name))
            why = FIELDS[name].not_read or "nothing in {ruleset}: only {only} read it"
            raise InputError(
                name, getattr(combat, name), why.format(ruleset=combat.ruleset, only=only)
            )


def range_errors(
    fields: tuple[Field, ...], values: Mapping[str, Any], tables: Tables
) -> list[InputError]:
    """Every number among `values` (a combat's fields by name; one not given is passed
    over) beyond what a game could reach, in the form's order: a form names them all.
    Each field's kind checks its own."""
    errors: list[InputError] = []
    for found in fields:
        if found.name in values:
            errors += found.kind.errors(found, values[found.name], tables)
    return errors


# --- reading a logged combat back -------------------------------------------------------------


def combat_from_logged(
    ruleset: str,
    fields: tuple[Field, ...],
    inputs: Mapping[str, Any],
    keep: Callable[[Field], bool] | None = None,
) -> CombatInput:
    """A logged combat's `inputs` (CombatInput.to_dict, as read back from a save) as the
    CombatInput again, read by the ruleset's logged `fields` (each value as its kind reads
    a logged one), every unit with all it was logged with. `keep` leaves out the fields it
    refuses (luck: the dice and the answers that do not shape the chances). Raises
    InputError naming a key the ruleset does not read."""
    # The combat model loads with the first combat read (see the note at the top).
    from tui.engine.model import CombatInput

    by_name = {f.name: f for f in fields if f.on_combat}
    values: dict[str, Any] = {"ruleset": ruleset}
    for key, value in inputs.items():
        if key == "ruleset":
            continue
        found = by_name.get(key)
        if found is None:
            raise InputError("inputs", key, f"an input {ruleset} reads")
        if keep is not None and not keep(found):
            continue
        values[key] = found.kind.logged(key, value)
    return CombatInput(**values)


def judged(found: Field) -> bool:
    """Whether luck keeps a logged field: not the dice, nor an answer that only says how a
    result is taken (the chances of the cell are the same)."""
    return found.role == "form" or found.shapes_chances
