"""Every desk action defined once: its key, its Footer label and its command palette
entry all come from here."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from textual.binding import Binding

# The ruleset screens' keys, in the order of the game's rulesets.
RULESET_KEYS = ("f2", "f3", "f4", "f5", "f6", "f7", "f8")


class Command(msgspec.Struct, frozen=True):
    action: str
    key: str
    label: str
    help: str
    show: bool = True
    priority: bool = False

    def binding(self) -> Binding:
        # Imported here: the start screen draws before anything else of textual's loads.
        from textual.binding import Binding

        return Binding(self.key, self.action, self.label, show=self.show, priority=self.priority)


# On every ruleset screen. The keys are not priority bindings: they reach the screen after the
# keystrokes typed before them, so a roll sees every digit typed first. Keys avoid
# ctrl+h/i/j/m (terminals send them as backspace, tab, enter) and ctrl+a/b (tmux and screen
# prefixes), and keys the text fields use.
RULESET_COMMANDS: tuple[Command, ...] = (
    Command("help", "f1", "Help", "Show this ruleset's legend, chart, rulings and keys"),
    Command(
        "next_turn",
        "ctrl+s",
        "Turn",
        "Start the next turn (asks first): every timed marker counts down, the expired ones are lifted",
        show=False,
    ),
    Command(
        "marker_by_hand",
        "ctrl+backslash",
        "Marker",
        "Place a marker by hand, or lift one",
        show=False,
    ),
    Command(
        "all_markers",
        "f10",
        "Markers",
        "Every marker in play here, one a line, in place of the chances (again: the chances)",
        show=False,
    ),
    # ctrl+]: beside the markers' ctrl+\; every letter key is taken or a text field's own.
    Command(
        "units",
        "ctrl+right_square_bracket",
        "Units",
        "The game's units: list and filter them, add one, edit one (each logged)",
        show=False,
    ),
    Command("log", "ctrl+l", "Log", "Review this game's log and markers"),
    Command("back", "escape", "Back", "Back to the saves list"),
)

# On the units screen (ctrl+] on a ruleset screen). Not letters: the filter box has the focus.
UNITS_COMMANDS: tuple[Command, ...] = (
    Command("add_unit", "ctrl+n", "Add", "Add a unit: name, side, hex and its ruleset's fields"),
    Command("edit_unit", "enter", "Edit", "Edit the highlighted unit (a new entry)"),
    Command("back", "escape", "Back", "Back to the combat screen"),
)

# On every combat screen (a ruleset with a form).
COMBAT_COMMANDS: tuple[Command, ...] = (
    Command("roll", "ctrl+r", "Roll", "Roll the desk's dice for this combat and log it"),
    Command("hand_dice", "ctrl+t", "Hand", "Enter dice rolled by hand at the table"),
    # The unit-row keys are shown beside the Attackers and Defenders headings, not in the
    # Footer: so every Footer fits 80 columns.
    Command("add_attacker", "ctrl+n", "+Att", "Add an attacking unit row", show=False),
    Command("add_defender", "ctrl+g", "+Def", "Add a defending unit row", show=False),
    Command("remove_unit", "ctrl+o", "-Unit", "Remove the focused (or last) unit row", show=False),
    Command(
        "trace", "ctrl+f", "Trace", "The last roll in full: every die, every step of the trace"
    ),
    # F12: the ctrl keys left are the text fields' own (ctrl+e, ctrl+k, ctrl+w, ...).
    Command("note", "f12", "Note", "A note on the last roll logged (a new entry)", show=False),
)

# What a combat screen has, in Footer order.
COMBAT_SCREEN_COMMANDS: tuple[Command, ...] = (
    RULESET_COMMANDS[:1] + COMBAT_COMMANDS + RULESET_COMMANDS[1:]
)

# Only on the Pair-o-Dice screens (Basic, Super, Ultra and Big Boom): the card is theirs.
FROGMAN_COMMANDS: tuple[Command, ...] = (
    Command(
        "frogman",
        "ctrl+z",
        "Frogman",
        "Play Hero #15 Engineer/Frogman on a No-entry hex: its marker is lifted at once",
        show=False,
    ),
)

# Only on the Pair-o-Dice Basic, Super and Ultra screens.
POD_COMMANDS: tuple[Command, ...] = (
    Command(
        "after_roll",
        "f9",
        "Card",
        "After the roll: a side plays the Joker (Super/Ultra) or Stanfill (Basic)",
    ),
    Command(
        "hero_draw",
        "ctrl+y",
        "Hero",
        "Hero Site won uncontested by the attacker, loser lacks the Buddy card: roll the draw",
    ),
)

START_COMMANDS: tuple[Command, ...] = (
    Command("open_game", "enter", "Open", "Open the highlighted game"),
    Command("new_game", "n", "New game", "Start a new game"),
    Command("review_log", "l", "Log", "Review the highlighted game's log"),
    Command(
        "repair",
        "r",
        "Repair",
        "Repair the highlighted save if it is refused (a copy kept, broken entries set aside)",
        show=False,
    ),
    Command("help", "f1", "Help", "How to use the desk"),
    Command("quit", "q", "Quit", "Leave the desk"),
)

# On the log review. Figures on the log (luck) and a report are to come as more commands here.
REVIEW_COMMANDS: tuple[Command, ...] = (
    # A priority key: the keys typed right after it go to the filter bar, not the table.
    Command(
        "filter",
        "slash",
        "Filter",
        "Filter: turn:3 or turn:2-4, ruleset:ID, player:NAME, words",
        priority=True,
    ),
    Command("this_turn", "t", "Turn", "Only the highlighted entry's turn (again: every turn)"),
    Command("this_ruleset", "r", "Ruleset", "Only the highlighted entry's ruleset", show=False),
    Command("this_player", "p", "Player", "Only the highlighted entry's player", show=False),
    Command("jump", "g", "Go to turn", "Jump to the first entry of a turn"),
    Command("note", "n", "Note", "Annotate the highlighted entry (a new entry; it stays as it is)"),
    Command("toggle_markers", "m", "Markers", "Show or hide the markers in play", show=False),
    Command(
        "luck",
        "u",
        "Luck",
        "Luck against the odds: die faces and each combat's percentile, per player (again: hide)",
    ),
    Command(
        "losses",
        "o",
        "Losses",
        "Each side's losses by unit and by turn, what remains, and the losses open (again: hide)",
        show=False,
    ),
    Command("report", "w", "Report", "Write the after-action report (Markdown) beside the save"),
    Command("back", "escape", "Back", "Back (from the filter bar: back to the table)"),
)
