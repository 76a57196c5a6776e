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
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from tui.engine.errors import InputError
from tui.engine.kinds import (
    AA_UNITS,
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
from tui.engine.tables import DAYNIGHT_TERRAINS, OCS_TERRAINS, RULESET_IDS, Tables

if TYPE_CHECKING:
    from tui.engine.model import CombatInput

# The combat model is imported by the functions that read or check a combat: a form is
# drawn from these declarations before any combat is made.

# A bound: a number, or a dotted path into tables.toml (a leading "-" negates it).
Bound = int | str
Choices = Callable[[str, Tables], tuple[tuple[Any, str], ...]]


@dataclass(frozen=True)
class Field:
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
    # the ruleset's form rule says how (tui.engine.combat.form_unread, form_values).
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


def _missions(ruleset: str, tables: Tables) -> tuple[tuple[Any, str], ...]:
    """Who flies or fires at the target hex (which of them meet AA: rulesets.boom)."""
    return (
        ("bombers", "Allied bombers"),
        ("batteries", "German batteries"),
        ("ships", "Allied ships"),
    )


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

# Every input of every ruleset, once. A ruleset lists the ones it reads (RULESETS).
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
    # Big Boom's desk form: how far the bombers fly, and the mission (the target hex, where
    # its markers go, is the desk's own, as Day/Night's hexes are).
    Field(
        "bomber_range",
        "Bomber range",
        "",
        WHOLE,
        "the bombers' range, in hexes",
        role="desk",
        desk_id="range",
        placeholder="hexes",
    ),
    Field(
        "distance",
        "From airbase",
        "",
        WHOLE,
        "the target's distance from the nearest Airbase England hex, in hexes",
        role="desk",
        placeholder="hexes",
    ),
    Field(
        "mission",
        "Mission",
        "",
        CHOICE,
        "who flies or fires at the target hex (only bombers meet AA on their route)",
        role="desk",
        choices=_missions,
        required=True,
        form_rule=True,
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

_UNITS_AND_ROLL = ("attackers", "defenders", "column", "roll")
_POD_BASIC = (
    *_UNITS_AND_ROLL,
    "morale_attack",
    "morale_defense",
    "buddy",
    "attacker_card",
    "defender_card",
)
_POD_SUPER = (*_POD_BASIC[:-2], "medal", "attacker_card", "defender_card")

# The inputs each ruleset reads, in the desk form's order; with any label a ruleset words
# its own way.
RULESETS: dict[str, tuple[str, ...]] = {
    "pod-basic": _POD_BASIC,
    "pod-super": _POD_SUPER,
    "pod-ultra": (*_UNITS_AND_ROLL, "obstacle", "mines_cdf", *_POD_SUPER[4:]),
    "pod-boom": (
        "attackers",
        "defenders",
        "roll",
        "step",
        "aaf",
        "caf",
        "long_range",
        "chain_rolls",
        "bomber_range",
        "distance",
        "mission",
    ),
    "ocs": (
        *_UNITS_AND_ROLL,
        "attack_hexes",
        "nonadjacent_hexsides",
        "overrun",
        "hedgehog",
        "terrain",
        "defender_unsupplied",
        "attacker_ar_unit",
        "defender_ar_unit",
        "attacker_ar",
        "defender_ar",
        "surprise_roll",
        "shift_roll",
        "attacker_option_retreat",
        "defender_option_retreat",
        "defender_ignores_options",
    ),
    "rivets": (*_UNITS_AND_ROLL, "bcpc"),
    "daynight": (
        *_UNITS_AND_ROLL,
        "time",
        "terrain",
        "drm",
        "hold",
        "reserve",
        "press_on",
        "rerolls",
        "attacker_retreats",
    ),
}
_RELABELLED: dict[str, dict[str, dict[str, Any]]] = {
    "pod-boom": {
        "attackers": {"label": "Units", "help": "a bomber, battery or ship unit's CAF (repeat)"},
        "defenders": {"label": "AA units", "kind": AA_UNITS},
        "roll": {"label": "Roll", "help": "one step's die rolled by hand (with --step)"},
    },
    "daynight": {"roll": {"label": "Result die"}, "terrain": {"desk_default": "clear"}},
}
# The OCS counters are typed whole on the command line (--attacker, --defender).
_OCS_UNITS = (
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


def schema(ruleset: str) -> tuple[Field, ...]:
    """The inputs `ruleset` reads, in the form's order."""
    if ruleset.startswith("game:"):
        return game_fields(ruleset)
    if ruleset not in RULESETS:
        raise InputError(
            "ruleset", ruleset, "one of " + ", ".join(RULESET_IDS), choices=RULESET_IDS
        )
    changes = _RELABELLED.get(ruleset, {})
    return tuple(
        replace(FIELDS[n], **changes[n]) if n in changes else FIELDS[n] for n in RULESETS[ruleset]
    )


# A player's chart (ruleset "game:NAME", tui.engine.rulesets.charts.chart): its fields, put here when the
# chart is registered, and what a logged combat on one holds.
GAME_FIELDS: dict[str, tuple[Field, ...]] = {}
GAME_READS: tuple[Field, ...] = (
    *(FIELDS[name] for name in _UNITS_AND_ROLL),
    Field(
        "modifiers",
        "Modifiers",
        "--modifier",
        MODIFIERS,
        "each modifier of a player's chart, by name",
        desk=False,
    ),
)


def game_fields(ruleset: str) -> tuple[Field, ...]:
    """The inputs of a player's chart registered as `ruleset`."""
    found = GAME_FIELDS.get(ruleset)
    if found is None:
        known = ", ".join(GAME_FIELDS) or "none read yet"
        raise InputError(
            "ruleset", ruleset, f"a player's chart read from the games folder ({known})"
        )
    return found


def form(ruleset: str, tables: Tables) -> tuple[Field, ...]:
    """The fields of `ruleset`'s desk form, in the schema's order: those shown on the desk,
    a choice only where the form has something to offer (Basic plays no card before the
    roll: its Stanfill is played after it)."""
    return tuple(f for f in schema(ruleset) if f.desk and f.kind.on_form(f, ruleset, tables))


# The fields a ruleset's desk rows read where they are not its --attack and --defense: the
# OCS counters, typed whole on the command line (--attacker, --defender).
_UNIT_SPECS: dict[str, tuple[Field, Field]] = {"ocs": _OCS_UNITS}


def unit_fields(ruleset: str) -> tuple[Field, Field]:
    """The attackers' and the defenders' fields, as the desk's unit rows read them."""
    if ruleset in _UNIT_SPECS:
        return _UNIT_SPECS[ruleset]
    found = {f.name: f for f in schema(ruleset)}
    return found["attackers"], found["defenders"]


def cli_fields() -> tuple[tuple[Field, tuple[str, ...]], ...]:
    """Every CLI flag once, with the rulesets that read it, in declaration order."""
    readers: dict[str, list[str]] = {}
    for ruleset, names in RULESETS.items():
        for name in names:
            readers.setdefault(name, []).append(ruleset)
    found = [(FIELDS[f.name], tuple(readers[f.name])) for f in _ALL if f.on_combat]
    specs = [(f, (ruleset,)) for ruleset, pair in _UNIT_SPECS.items() for f in pair]
    return (*found, *specs)


def field_for(ruleset: str | None, name: str) -> Field | None:
    """The field an engine message names (by its name or an alias)."""
    pool = schema(ruleset) if ruleset in RULESETS else _ALL
    for candidate in (*pool, *_OCS_UNITS):
        if name == candidate.name or name in candidate.aliases:
            return candidate
    return None


def label(ruleset: str | None, name: str) -> str:
    """What the desk calls a field an engine message names (the name itself if none)."""
    found = field_for(ruleset, name)
    return found.label if found else name


def flag(name: str, value: object = None) -> str:
    """The CLI flag a message names for a field (holding `value`: --no-hold)."""
    found = field_for(None, name)
    return found.kind.flag_named(found, value) if found else "--" + name.replace("_", "-")


def readers(name: str) -> tuple[str, ...]:
    return tuple(r for r, names in RULESETS.items() if name in names)


# --- checking --------------------------------------------------------------------------------


def check_read(combat: CombatInput) -> None:
    """Refuse an input the ruleset does not read, so nothing typed is silently ignored."""
    from tui.engine.model import CombatInput

    blank = CombatInput(combat.ruleset)
    read = RULESETS[combat.ruleset]
    for name, found in FIELDS.items():
        if not found.on_combat:
            continue
        if name not in read and getattr(combat, name) != getattr(blank, name):
            only = ", ".join(readers(name))
            why = found.not_read or "nothing in {ruleset}: only {only} read it"
            raise InputError(
                name, getattr(combat, name), why.format(ruleset=combat.ruleset, only=only)
            )


def check_ranges(combat: CombatInput, tables: Tables) -> None:
    """Refuse a number beyond what a game could reach, naming the allowed range (the first
    such number). A value below a field's floor, or not a whole number, is left to the
    resolver."""
    values = {
        found.name: getattr(combat, found.name)
        for found in schema(combat.ruleset)
        if found.on_combat
    }
    errors = range_errors(combat.ruleset, values, tables)
    if errors:
        raise errors[0]


def range_errors(ruleset: str, values: Mapping[str, Any], tables: Tables) -> list[InputError]:
    """Every number among `values` (a combat's fields by name; one not given is passed
    over) beyond what a game could reach, in the form's order: a form names them all.
    Each field's kind checks its own."""
    errors = []
    for found in schema(ruleset):
        if found.name in values:
            errors += found.kind.errors(found, values[found.name], tables)
    return errors


# --- reading a logged combat back -------------------------------------------------------------


def combat_from_inputs(
    inputs: Mapping[str, Any], keep: Callable[[Field], bool] | None = None
) -> CombatInput:
    """A logged combat's `inputs` (CombatInput.to_dict, as read back from a save) as the
    CombatInput again, every unit with all it was logged with. `keep` leaves out the fields
    it refuses (luck: the dice and the answers that do not shape the chances). Raises
    InputError naming a key the ruleset does not read."""
    from tui.engine.model import CombatInput

    ruleset = inputs.get("ruleset")
    game = isinstance(ruleset, str) and ruleset.startswith("game:")
    if not game and (not isinstance(ruleset, str) or ruleset not in RULESETS):
        raise InputError("inputs", ruleset, "the combat's ruleset: one of " + ", ".join(RULESETS))
    assert isinstance(ruleset, str)
    # A player's chart keeps its modifiers' values in one table (the chart checks them).
    pool = GAME_READS if game else schema(ruleset)
    by_name = {f.name: f for f in pool if f.on_combat}
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
