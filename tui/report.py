"""An after-action report: a save told as a Markdown page.

The game, then each turn in order: every combat in words (odds, dice, result, how lucky the
roll was, and the notes on it), the markers placed and lifted, the other entries; then the
markers over the whole game and the luck summary. Free text (titles, names, notes, targets)
is escaped so a viewer shows it as typed; cells and dice are code spans.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui import saves
from tui.engine.tables import Tables, default_tables
from tui.luck import CombatLuck, LuckReport, LuckTally, combats_summary, luck_text, p_text
from tui.text import cell_text, die_text, entry_text, marker_text, one_line, when_text

# --- Markdown text ---------------------------------------------------------------------------

# Characters that can start emphasis, code, links, HTML, tables, headings or entities.
_INLINE = re.compile(r"([\\`*_{}\[\]<>#|~&!])")
# What would open a block at the start of a line: a list item, a heading, a thematic break.
_BLOCK_START = re.compile(r"^(\s*)([-+=>]|\d+(?=[.)]))")


def md_text(text: object) -> str:
    """Free text as Markdown that shows exactly that text, on one line."""
    escaped = _INLINE.sub(r"\\\1", one_line(text))
    match = _BLOCK_START.match(escaped)
    if match and match.group(2)[0].isdigit():
        number_end = match.end()
        return escaped[:number_end] + "\\" + escaped[number_end:]
    if match:
        return escaped[: match.start(2)] + "\\" + escaped[match.start(2) :]
    return escaped


def md_code(text: object) -> str:
    """Text as an inline code span (printed cells, dice), whatever backticks it holds."""
    shown = one_line(text)
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") or not shown.strip() else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def md_fenced(text: str, info: str = "text") -> str:
    """A fenced code block that no line of `text` can close."""
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


# --- the game's markers over time ------------------------------------------------------------


@dataclass
class MarkerLife:
    """One marker from the entry that placed it to the one that lifted it (if any)."""

    marker: Mapping[str, Any]
    placed_seq: int
    placed_turn: int
    lifted_seq: int | None = None
    lifted_turn: int | None = None
    how: str = ""  # "lifted" by hand or a card, "expired" at a new turn

    @property
    def ident(self) -> str:
        return str(self.marker["id"])


@dataclass
class _Story:
    """A save's entries sorted for the report, one entry at a time (`add`)."""

    notes: dict[int, list[Mapping[str, Any]]] = field(default_factory=dict)
    amended_by: dict[int, list[int]] = field(default_factory=dict)
    markers: dict[str, MarkerLife] = field(default_factory=dict)

    def add(self, entry: Mapping[str, Any]) -> None:
        kind, seq, turn = entry.get("kind"), entry["seq"], entry.get("turn", 1)
        if kind == "note" and isinstance(entry.get("annotates"), int):
            self.notes.setdefault(entry["annotates"], []).append(entry)
        if kind == "combat" and isinstance(entry.get("amends"), int):
            self.amended_by.setdefault(entry["amends"], []).append(seq)
        placed = entry.get("markers") if kind == "combat" else None
        if kind == "place-marker":
            placed = [entry["marker"]]
        for marker in placed or ():
            self.markers[str(marker["id"])] = MarkerLife(marker, seq, turn)
        lifted: list[tuple[str, str]] = []
        if kind == "remove-marker":
            lifted = [(str(entry["marker_id"]), "lifted")]
        elif kind == "turn":
            lifted = [(str(i), "expired") for i in entry.get("expired") or ()]
        for ident, how in lifted:
            life = self.markers.get(ident)
            if life is not None and life.lifted_seq is None:
                life.lifted_seq, life.lifted_turn, life.how = seq, turn, how


@dataclass
class _Told:
    """What the report keeps of an entry to tell it: its turn, number, kind, the entry it
    annotates, and its words (a combat's without its luck, added once it is known)."""

    turn: Any
    seq: int
    kind: Any
    annotates: Any
    words: str


def _told(entry: Mapping[str, Any]) -> _Told:
    kind = entry.get("kind")
    words = combat_words(entry) if kind == "combat" else entry_words(entry)
    return _Told(entry.get("turn"), entry["seq"], kind, entry.get("annotates"), words)


# --- entries in words ------------------------------------------------------------------------


def _percentile_words(luck: CombatLuck | None) -> str:
    if luck is None:
        return ""
    shown = f"{float(luck.percentile):.2f}"
    how = {"0.50": "as the odds' middle"}.get(shown)
    how = how or ("better" if shown > "0.50" else "worse") + " than the odds' middle"
    by_hand = ", dice by hand" if luck.source != "desk" else ""
    return f" Luck: percentile {shown} for the attacker ({how}{by_hand})."


def combat_words(entry: Mapping[str, Any]) -> str:
    """One combat as a sentence or three: who attacked at what odds, the dice, the result."""
    parts = [
        f"**Combat #{entry['seq']}**, {md_text(entry.get('ruleset', ''))}, by {md_text(entry.get('who', '?'))}"
    ]
    if isinstance(entry.get("amends"), int):
        parts.append(f" (amends combat #{entry['amends']})")
    parts.append(f", {when_text(str(entry.get('when', '')))} UTC.")
    attack, defence = entry.get("attack_total"), entry.get("defense_total")
    if attack is not None and defence is not None:
        parts.append(f" Attack {attack} against defence {_number(defence)}")
    elif attack is not None:
        parts.append(f" Attack {attack}")
    odds, column = entry.get("odds"), entry.get("column")
    if odds:
        parts.append(f"{',' if attack is not None else ''} odds {md_code(odds)}")
    if column and column != odds:
        parts.append(f", column {md_code(column)}")
    if attack is not None or odds or column:
        parts.append(".")
    dice = entry.get("dice") or []
    if dice:
        parts.append(" Dice: " + _dice_words(dice) + ".")
    else:
        parts.append(" No dice were read.")
    parts.append(
        f" Result {md_code(cell_text(entry.get('cell')))}: {md_text(entry.get('explanation', ''))}"
    )
    if entry.get("target"):
        parts.append(f" Target {md_text(entry['target'])}.")
    for marker in entry.get("markers") or ():
        parts.append(f" Placed {md_text(marker_text(marker))}.")
    if entry.get("note"):
        note = md_text(entry["note"])
        parts.append(f" Note: {note}{'' if note.endswith(('.', '!', '?')) else '.'}")
    return "".join(parts)


def _dice_words(dice: Sequence[Mapping[str, Any]]) -> str:
    """Each roll with what it was for: "surprise `2d6 2+5=7 (desk)`"."""
    return ", ".join(
        f"{md_text(d['purpose'])} {md_code(die_text(d))}"
        if d.get("purpose")
        else md_code(die_text(d))
        for d in dice
        if isinstance(d, Mapping)
    )


def _number(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def entry_words(entry: Mapping[str, Any]) -> str:
    """Any other entry on one line: what it is and what it did."""
    kind, seq = entry.get("kind"), entry["seq"]
    who = md_text(entry.get("who", "?"))
    if kind == "note":
        return f"Note #{seq} by {who} on entry #{entry.get('annotates')}: {md_text(entry.get('text', ''))}"
    what, happened = entry_text(entry)
    dice = entry.get("dice") or []
    rolled = f" Dice: {_dice_words(dice)}." if dice else ""
    return f"{md_text(what.capitalize())} #{seq} by {who}: {md_text(happened)}{rolled}"


def _note_lines(notes: Sequence[Mapping[str, Any]]) -> list[str]:
    return [
        f"> **Note** #{n['seq']} by {md_text(n.get('who', '?'))}, "
        f"{when_text(str(n.get('when', '')))} UTC: {md_text(n.get('text', ''))}"
        for n in notes
    ]


# --- the page --------------------------------------------------------------------------------


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _game_lines(
    game: saves.Game, tables: Tables, told: Sequence[_Told], players: set[str]
) -> list[str]:
    counts: dict[str, int] = {}
    for entry in told:
        counts[entry.kind] = counts.get(entry.kind, 0) + 1
    what = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())) or "none"
    options = ", ".join(f"{k} {v}" for k, v in game.options.items()) or "none"
    rulesets = ", ".join(
        f"{md_code(r)} ({md_text(_title(r, tables))})"
        if r in tables.data or r.startswith("game:")
        else md_code(r)
        for r in game.rulesets
    )
    return [
        f"# After-action report: {md_text(game.title)}",
        "",
        f"- **Save:** {md_code(game.path.name)}",
        f"- **Rulesets:** {rulesets}",
        f"- **Started:** {when_text(game.created)} UTC",
        f"- **Turn now:** {game.turn}",
        f"- **Players:** {', '.join(md_text(p) for p in sorted(players)) or 'none yet'}",
        f"- **Entries:** {len(told)} ({md_text(what)})",
        f"- **Options:** {md_text(options)}",
    ]


def _turn_lines(told: Sequence[_Told], story: _Story, luck: Mapping[int, CombatLuck]) -> list[str]:
    lines: list[str] = []
    turn: int | None = None
    placed_notes = {seq for seq in story.notes}
    seqs = {e.seq for e in told}
    for entry in told:
        if entry.turn != turn:
            turn = entry.turn
            lines += ["", f"## Turn {turn}", ""]
        kind, seq = entry.kind, entry.seq
        if kind == "note" and entry.annotates in seqs:
            continue  # shown under the entry it annotates
        if kind == "combat":
            text = entry.words + _percentile_words(luck.get(seq))
            later = story.amended_by.get(seq)
            if later:
                text += " Amended by " + ", ".join(f"#{n}" for n in later) + "."
            lines += [text, ""]
        else:
            lines += [f"- {entry.words}", ""]
        if seq in placed_notes:
            lines += [*_note_lines(story.notes[seq]), ""]
    if not told:
        lines += ["", "The log is empty: no turn has been played yet."]
    return lines


def _marker_lines(story: _Story) -> list[str]:
    lines = ["", "## Markers placed and lifted", ""]
    if not story.markers:
        return lines + ["No marker was placed."]
    rows = []
    for life in story.markers.values():
        if life.lifted_seq is None:
            end = "in play"
        else:
            end = f"{life.how} in turn {life.lifted_turn} (#{life.lifted_seq})"
        rows.append(
            (
                md_text(marker_text(life.marker)),
                f"turn {life.placed_turn} (#{life.placed_seq})",
                end,
            )
        )
    return lines + _table(("Marker", "Placed", "Lifted"), rows)


def _luck_lines(report: LuckReport) -> list[str]:
    lines = [
        "",
        "## Luck",
        "",
        "Each combat's *percentile* is P(a worse result) + P(the same result) / 2 at the odds "
        "fought, for the attacker (the player who logged it): 0.5 on average with fair dice. "
        "The p-value is the chi-square test of the desk's die faces against equal chances. "
        "Dice entered by hand are counted apart.",
        "",
    ]
    rows = []
    for group in report.groups:
        if group.ruleset is not None and group.player is None:
            continue
        who = "Everyone" if group.player is None else md_text(group.player)
        where = "all" if group.ruleset is None else md_code(group.ruleset)
        faces = group.desk_faces[0] if group.desk_faces else None
        hand = sum(f.dice for f in group.manual_faces) + group.manual_totals
        rows.append(
            (
                who,
                where,
                str(faces.dice) if faces else "0",
                p_text(faces.p_value if faces else None),
                md_text(combats_summary(group.desk)),
                f"{hand} {'die' if hand == 1 else 'dice'}; {md_text(combats_summary(group.manual))}",
            )
        )
    header = ("Player", "Ruleset", "Desk dice", "Faces p", "Desk combats", "By hand")
    lines += _table(header, rows)
    lines += ["", md_fenced(luck_text(report, 72))]
    return lines


def report_markdown(game: saves.Game, tables: Tables | None = None) -> str:
    """The after-action report of a loaded game, as Markdown."""
    return _report(game.entries, lambda: game, tables)


def save_report_markdown(path: Path, tables: Tables | None = None) -> str:
    """The after-action report of the save at `path`, as `report_markdown` writes it of the
    loaded game, its entries read one by one and let go (`saves.read_entries`): what is
    kept is each entry's words; read again if the save was written over meanwhile. SaveError
    as `saves.load_game` raises it."""

    def report() -> str:
        stream = saves.read_entries(path)

        def game() -> saves.Game:
            assert stream.game is not None  # read to its end
            return stream.game

        return _report((read.entry for read in stream), game, tables)

    return saves.read_again(report)


def _report(
    entries: Iterable[Mapping[str, Any]],
    game: Callable[[], saves.Game],
    tables: Tables | None,
) -> str:
    """The report of `entries`, read once in order, and of the `game` they are the log of
    (asked for once they are read)."""
    tables = tables or default_tables()
    tally = LuckTally(tables)
    story = _Story()
    told: list[_Told] = []
    players: set[str] = set()
    for entry in entries:
        tally.add(entry)
        story.add(entry)
        players.add(str(entry.get("who", "")))
        told.append(_told(entry))
    luck = tally.report()
    by_seq = {c.seq: c for c in luck.combats}
    lines = [
        *_game_lines(game(), tables, told, players),
        *_turn_lines(told, story, by_seq),
        *_marker_lines(story),
        *_luck_lines(luck),
    ]
    text = "\n".join(line.rstrip() for line in lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def _title(ruleset: str, tables: Tables) -> str:
    """A ruleset's title; a player's chart's from the copy its save keeps."""
    if ruleset.startswith("game:"):
        from tui.engine.charts import ruleset_title

        return ruleset_title(ruleset, tables)
    return tables.title(ruleset)
