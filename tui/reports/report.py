"""An after-action report: a save told as a Markdown page.

The game, then each turn in order: every combat in words (odds, dice, result, how lucky the
roll was, and the notes on it), the markers placed and lifted, the other entries; then the
markers over the whole game, each side's losses by unit and by turn with what its units
have left and the losses still open (a game with units), and the luck summary. Free text (titles, names, notes, targets)
is escaped so a viewer shows it as typed; cells and dice are code spans.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import itertools
import re
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from tui import saves
from tui.engine import registry
from tui.engine.tables import Tables, default_tables
from tui.engine.text import cell_text, die_text, entry_text, marker_text, one_line, when_text
from tui.engine.units import UnitState
from tui.reports.kept import Memo, version
from tui.reports.losses import Losses, Lost, losses_part, lost_text, remains_text
from tui.reports.luck import LuckReport, LuckTally, combats_summary, luck_text, p_text
from tui.reports.luck.stats import Chances, LuckRecord

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
    """One marker from the entry that placed it to the one that lifted it (if any): the
    marker in words (as the report's table shows it)."""

    shown: str
    placed_seq: int
    placed_turn: int
    lifted_seq: int | None = None
    lifted_turn: int | None = None
    how: str = ""  # "lifted" by hand or a card, "expired" at a new turn


@dataclass
class _Story:
    """A save's entries sorted for the report, one entry's record at a time (`add`): the
    notes on each entry (their lines), the cards played on each, the markers."""

    notes: dict[int, list[str]] = field(default_factory=dict)
    amended_by: dict[int, list[int]] = field(default_factory=dict)
    markers: dict[str, MarkerLife] = field(default_factory=dict)

    def add(self, record: ReportRecord) -> None:
        seq = record.seq
        if record.note_on is not None:
            self.notes.setdefault(record.note_on, []).append(record.note_line)
        if record.amends is not None:
            self.amended_by.setdefault(record.amends, []).append(seq)
        for ident, shown in record.placed:
            self.markers[ident] = MarkerLife(shown, seq, record.marker_turn)
        for ident, how in record.lifted:
            life = self.markers.get(ident)
            if life is not None and life.lifted_seq is None:
                life.lifted_seq, life.lifted_turn, life.how = seq, record.marker_turn, how


class ReportRecord(msgspec.Struct, array_like=True, omit_defaults=True, frozen=True):
    """What the report takes of one entry (`report_record`), small and encodable: its
    number, turn, kind and player, its words (a combat's with its luck), what it does to
    the story (a note on an entry, a card on a combat, markers placed and lifted), its
    part of the luck figures and of the losses. `Report.add_record` folds them in order."""

    seq: Any
    turn: Any
    kind: str
    who: str
    words: bytes  # as UTF-8: written to the words file as they are
    luck: LuckRecord
    annotates: Any = None
    note_on: Any = None  # the entry a note is on, and the note's line under it
    note_line: str = ""
    amends: Any = None
    marker_turn: Any = None  # the turn its markers were placed or lifted in
    placed: tuple[tuple[str, str], ...] = ()  # (marker id, the marker in words)
    lifted: tuple[tuple[str, str], ...] = ()  # (marker id, "lifted" or "expired")
    losses: dict[str, Any] | None = None  # what the losses read of it (`losses_part`)


def report_record(entry: Mapping[str, Any], tally: LuckTally) -> ReportRecord:
    """What the report takes of one entry: the same for the same entry, whatever came
    before it (`tally` keeps only the luck's work done)."""
    kind, seq = entry["kind"], entry["seq"]  # text in every entry the store reads
    luck = tally.record(entry)
    if kind == "combat":
        words = combat_words(entry) + _percentile_words(luck)
    else:
        words = entry_words(entry)
    annotates = entry.get("annotates")
    note_on = annotates if kind == "note" and isinstance(annotates, int) else None
    amends = entry.get("amends")
    placed = entry.get("markers") if kind == "combat" else None
    if kind == "place-marker":
        placed = [entry["marker"]]
    lifted: list[tuple[str, str]] = []
    if kind == "remove-marker":
        lifted = [(str(entry["marker_id"]), "lifted")]
    elif kind == "turn":
        lifted = [(str(i), "expired") for i in entry.get("expired") or ()]
    # Given in the order of ReportRecord's fields (one call, no keywords to match).
    return ReportRecord(
        seq,  # seq
        entry.get("turn"),  # turn
        kind,  # kind
        str(entry.get("who", "")),  # who
        _utf8(words),  # words
        luck,  # luck
        annotates,  # annotates
        note_on,  # note_on
        _note_lines([entry])[0] if note_on is not None else "",  # note_line
        amends if kind == "combat" and isinstance(amends, int) else None,  # amends
        entry.get("turn", 1) if placed or lifted else None,  # marker_turn
        tuple((str(m["id"]), md_text(marker_text(m))) for m in placed) if placed else (),
        tuple(lifted),  # lifted
        losses_part(entry),  # losses
    )


class _Told(NamedTuple):
    """What the report keeps of an entry to tell it: its turn, number, kind, the entry it
    annotates, and the size of its words (a combat's with its luck) in the words file."""

    turn: Any
    seq: int
    kind: Any
    annotates: Any
    size: int


_NEW_TOLD = tuple.__new__


class _Words:
    """The entries' words, kept in a temporary file rather than in memory (a long campaign's
    report tells every entry): `add` writes them (a few hundred entries' at a time), `each`
    reads them back in the order added."""

    # Entries' words held before they are written, and the bytes read back at a time.
    HELD = 256
    BLOCK = 1 << 18

    def __init__(self) -> None:
        self.file = tempfile.TemporaryFile()
        self.held: list[bytes] = []

    def add(self, data: bytes) -> None:
        """Words as UTF-8 (`_utf8`), written in the order added."""
        held = self.held
        held.append(data)
        if len(held) >= self.HELD:
            self.flush()

    def flush(self) -> None:
        """The words held, written."""
        self.file.write(b"".join(self.held))
        self.held.clear()

    def each(self, told: Iterable[_Told]) -> Iterator[str]:
        """The words of each entry told (as many as added, in the same order), read back
        in blocks: a block of ASCII decoded at once."""
        self.flush()
        self.file.seek(0)
        read = self.file.read
        block = b""
        text: str | None = ""
        at = 0
        for entry in told:
            end = at + entry.size
            if end > len(block):
                block = block[at:] + read(max(entry.size, self.BLOCK))
                at, end = 0, entry.size
                text = block.decode("ascii") if block.isascii() else None
            if text is not None:
                yield text[at:end]
            else:
                yield block[at:end].decode("utf-8", "surrogatepass")
            at = end

    def close(self) -> None:
        self.file.close()


def _utf8(words: str) -> bytes:
    return words.encode("utf-8", "surrogatepass")


# --- entries in words ------------------------------------------------------------------------


def _percentile_words(record: LuckRecord) -> str:
    luck = record.judged
    if luck is None:
        return ""
    key = (luck.chances, luck.source)
    said = _PERCENTILE_SAID.get(key)
    if said is None:
        said = _percentile_said(*key)
        if len(_PERCENTILE_SAID) >= _SAID.most:
            _PERCENTILE_SAID.clear()
        _PERCENTILE_SAID[key] = said
    return said


# A combat's luck in words by its chances and the source of its dice (whole numbers and a
# text: hashed and compared as they are), kept within a run as `_SAID` is.
_PERCENTILE_SAID: dict[tuple[Chances, str], str] = {}


def _percentile_said(chances: Chances, source: str) -> str:
    shown = f"{(2 * chances.worse + chances.same) / (2 * chances.whole):.2f}"
    how = {"0.50": "as the odds' middle"}.get(shown)
    how = how or ("better" if shown > "0.50" else "worse") + " than the odds' middle"
    apart = {"desk": "", "seed": ", seeded dice"}.get(source, ", dice by hand")
    return f" Luck: percentile {shown} for the attacker ({how}{apart})."


# A combat's words after its number and time, by the fields they are made of, kept within a
# run: a long campaign words the same combats again and again.
_SAID = Memo(4096)
_SAID_FIELDS = (
    "ruleset",
    "who",
    "attack_total",
    "defense_total",
    "odds",
    "column",
    "dice",
    "cell",
    "explanation",
    "target",
    "markers",
    "note",
)


# A field an entry leaves out: encoded unlike any value an entry holds.
_LEFT_OUT = msgspec.msgpack.Ext(0, b"")
_LEFT_OUTS = (_LEFT_OUT,) * len(_SAID_FIELDS)


def combat_words(entry: Mapping[str, Any]) -> str:
    """One combat as a sentence or three: who attacked at what odds, the dice, the result."""
    amends = entry.get("amends")
    amending = f" (amends combat #{amends})" if isinstance(amends, int) else ""
    fields = tuple(map(entry.get, _SAID_FIELDS, _LEFT_OUTS))
    key, said = _SAID.get(fields)
    if said is None:
        said = _combat_said(entry)
        _SAID.put(key, fields, said)
    ruleset, who, rest = said.split("\0", 2)
    when = when_text(str(entry.get("when", "")))
    return f"**Combat #{entry['seq']}**, {ruleset}, by {who}{amending}, {when} UTC.{rest}"


def _combat_said(entry: Mapping[str, Any]) -> str:
    """A combat's words but for its number, time and the combat it amends: its ruleset and
    player in words, then what follows the time, apart by NULs (free text shows none:
    `one_line` shows every control character as an escape)."""
    parts = [md_text(entry.get("ruleset", "")), "\0", md_text(entry.get("who", "?")), "\0"]
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


def _note_lines(notes: Iterable[Mapping[str, Any]]) -> list[str]:
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
    game: saves.Game, tables: Tables, counts: Mapping[str, int], players: set[str]
) -> list[str]:
    what = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())) or "none"
    in_play = saves.options_in_play(game.options, game.rulesets)
    options = ", ".join(f"{k} {v}" for k, v in in_play.items()) or "none"
    rulesets = ", ".join(
        f"{md_code(r)} ({md_text(registry.title_of(r, tables))})"
        if registry.known(r)
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
        f"- **Entries:** {sum(counts.values())} ({md_text(what)})",
        f"- **Options:** {md_text(options)}",
    ]


class _Page:
    """The page's lines as they are written: runs of blank lines kept to one, none at the
    start or the end; given out in pieces of many lines (`take`)."""

    # Lines (and blank lines) held before a piece is given out.
    PIECE = 4096

    def __init__(self) -> None:
        self.out: list[str] = []
        self.blank = False  # a blank line is due before the next line
        self.started = False  # a line was written

    def add(self, part: str) -> None:
        """A part of the page: its lines, each run of blank lines (and its end) cut."""
        for line in part.rstrip().split("\n"):
            if not line:
                self.blank = self.started
                continue
            if self.blank:
                self.out.append("\n")
                self.blank = False
            self.started = True
            self.out.append(line + "\n")

    def take(self) -> str:
        """The lines written since the last piece, as one piece."""
        piece = "".join(self.out)
        self.out.clear()
        return piece


def _turn_lines(told: Sequence[_Told], story: _Story, words: _Words, page: _Page) -> Iterator[str]:
    """Each turn's entries written to `page` (each entry's words a part of its own, then a
    blank line; a note under the entry it annotates), a piece of it given out now and then."""
    turn: int | None = None
    notes = story.notes
    amended_by = story.amended_by
    seqs = {e.seq for e in told}
    out = page.out
    put = out.append
    for entry, said in zip(told, words.each(told), strict=True):
        if entry.turn != turn:
            turn = entry.turn
            for part in ("", f"## Turn {turn}", ""):
                page.add(part)
        kind, seq = entry.kind, entry.seq
        if kind == "note" and entry.annotates in seqs:
            continue  # shown under the entry it annotates
        if kind == "combat":
            later = amended_by.get(seq)
            if later:
                said += " Amended by " + ", ".join(f"#{n}" for n in later) + "."
        else:
            said = f"- {said}"
        shown = said.rstrip()
        if shown and "\n" not in shown:  # one line: as `add` writes it, with less work
            if page.blank:
                put("\n")
            put(shown)
            put("\n")
            page.started = True
        else:
            page.add(said)
        page.blank = page.started  # the blank line after it
        if seq in notes:
            for line in notes[seq]:
                page.add(line)
            page.blank = page.started
        if len(out) >= page.PIECE:
            yield page.take()
    if not told:
        for part in ("", "The log is empty: no turn has been played yet."):
            page.add(part)


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
        rows.append((life.shown, f"turn {life.placed_turn} (#{life.placed_seq})", end))
    return lines + _table(("Marker", "Placed", "Lifted"), rows)


def _losses_lines(losses: Losses) -> Iterator[str]:
    """Each side's losses by unit (with what each has left) and by turn, and the losses
    still open; nothing in a game without units."""
    if not losses.seen:
        return
    yield from ("", "## Losses and what remains", "")
    for side in losses.sides():
        units = [u for u in losses.units.values() if u.side == side]
        yield from ("", f"### {md_text(side)}", "")
        yield f"Lost in all: {md_text(lost_text(losses.side_total(side)))}."
        alive = sum(1 for u in units if u.alive)
        yield from (
            "",
            f"{alive} of {len(units)} {'unit' if len(units) == 1 else 'units'} in play.",
            "",
        )
        rows = [
            (
                md_text(u.name),
                md_text(u.hex) if u.hex else "-",
                md_text(lost_text(_unit_lost(u))),
                md_text(remains_text(u)),
            )
            for u in units
        ]
        if rows:
            yield from _table(("Unit", "Hex", "Lost", "Left"), rows)
        gone = [(n, lost) for n, s, lost in losses.removed if s == side]
        if gone:
            said = "; ".join(f"{md_text(n)} ({md_text(lost_text(lost))})" for n, lost in gone)
            yield from ("", f"Taken off the roster after losses: {said}.")
    turns = [(turn, side, lost) for (turn, side), lost in sorted(losses.by_turn.items())]
    yield from ("", "### Losses by turn", "")
    if turns:
        yield from _table(
            ("Turn", "Side", "Lost"),
            [(str(t), md_text(s), md_text(lost_text(lost))) for t, s, lost in turns],
        )
    else:
        yield "No unit has lost anything yet."
    still = losses.open_losses()
    yield from ("", "### Losses still open", "")
    if still:
        yield from (f"- {md_text(o.said()[:1].upper() + o.said()[1:])}" for o in still)
    else:
        yield "None: every loss a combat left to choose has been taken."


def _unit_lost(unit: UnitState) -> Lost:
    return Lost(unit.steps_lost, unit.factors_lost, int(unit.eliminated))


def _luck_lines(report: LuckReport) -> list[str]:
    lines = [
        "",
        "## Luck",
        "",
        "Each combat's *percentile* is P(a worse result) + P(the same result) / 2 at the odds "
        "fought, for the attacker (the player who logged it): 0.5 on average with fair dice. "
        "The p-value is the chi-square test of the desk's die faces against equal chances. "
        "Dice entered by hand are counted apart, and so are dice rolled from a seed a player "
        "gave (the same seed gives the same dice).",
        "",
    ]
    rows: list[tuple[str, ...]] = []
    for group in report.groups:
        if group.ruleset is not None and group.player is None:
            continue
        who = "Everyone" if group.player is None else md_text(group.player)
        where = "all" if group.ruleset is None else md_code(group.ruleset)
        faces = group.desk_faces[0] if group.desk_faces else None
        hand = sum(f.dice for f in group.manual_faces) + group.manual_totals
        seeded = sum(f.dice for f in group.seed_faces)
        rows.append(
            (
                who,
                where,
                str(faces.dice) if faces else "0",
                p_text(faces.p_value if faces else None),
                md_text(combats_summary(group.desk)),
                f"{hand} {'die' if hand == 1 else 'dice'}; {md_text(combats_summary(group.manual))}",
                f"{seeded} {'die' if seeded == 1 else 'dice'}; {md_text(combats_summary(group.seed))}",
            )
        )
    header: tuple[str, ...]
    header = ("Player", "Ruleset", "Desk dice", "Faces p", "Desk combats", "By hand", "Seeded")
    if not (report.everyone.seed_faces or report.everyone.seed.count):
        # Seeded dice get their column only in a game that has some.
        header, rows = header[:-1], [row[:-1] for row in rows]
    lines += _table(header, rows)
    lines += ["", md_fenced(luck_text(report, 72))]
    return lines


def report_markdown(game: saves.Game, tables: Tables | None = None) -> str:
    """The after-action report of a loaded game, as Markdown."""
    return "".join(_report(game.entries, tables).lines(game))


def save_report_markdown(path: Path, tables: Tables | None = None) -> str:
    """The after-action report of the save at `path`, as `report_markdown` writes it of the
    loaded game, its entries read one by one and let go (`saves.read_entries`); read again
    if the save was written over meanwhile. SaveError as `saves.load_game` raises it."""
    read, game = read_report(path, tables)
    return "".join(read.lines(game))


def read_report(path: Path, tables: Tables | None = None) -> tuple[Report, saves.Game]:
    """The report of the save at `path` read (what it tells of each entry kept beside the
    save, `saves.kept_records`: worked out the first time, read back after; read one by
    one, each let go once told), and the game read (its warnings: a torn last entry).
    `Report.lines` writes it."""

    tables = tables or default_tables()
    work = LuckTally(tables)  # the luck's work done, kept within the run

    def record(entry: Mapping[str, Any]) -> ReportRecord:
        return report_record(entry, work)

    def fold(records: saves.KeptRecords) -> Report:
        read = Report(tables)
        add = read.add_record
        try:
            for row in records.rows():
                add(row[7])  # the row's record
        except BaseException:
            read.words.close()
            raise
        return read

    # Many small objects and no cycles: the cyclic collector would walk them all, again
    # and again, for nothing.
    with saves.no_gc():
        return saves.kept_fold(path, "report", version(tables), record, ReportRecord, fold)


def write_report(path: Path, tables: Tables | None = None) -> Path:
    """The after-action report of the save at `path`, as Markdown, in NAME-report.md beside
    it (with its mode, replacing the name: never through a link), written a piece at a
    time, never the whole page of a long campaign at once; the file written. SaveError or
    OSError when it cannot be read or written."""
    read, game = read_report(path, tables)
    return saves.write_beside(path, f"{path.stem}-report.md", read.lines(game))


class Report:
    """A save's entries read for its report: what each entry shows (its words in a file),
    the notes and cards on each, the markers, the luck. `lines` gives the page in pieces."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.tally = LuckTally(tables)
        self.story = _Story()
        self.words = _Words()
        self.told: list[_Told] = []
        self.counts: dict[str, int] = {}
        self.players: set[str] = set()
        self.losses = Losses()
        self._kinds: dict[str, str] = {}

    def record(self, entry: Mapping[str, Any]) -> ReportRecord:
        """What the report takes of `entry` (`report_record`)."""
        return report_record(entry, self.tally)

    def add(self, entry: Mapping[str, Any]) -> None:
        self.add_record(self.record(entry))

    def add_record(self, record: ReportRecord) -> None:
        """One entry's record told, in log order."""
        self.tally.add_record(record.luck)
        if (
            record.note_on is not None
            or record.amends is not None
            or record.placed
            or record.lifted
        ):
            self.story.add(record)  # (nothing to add to the story else)
        if record.losses is not None:
            self.losses.add(record.losses)
        self.players.add(record.who)
        kind = record.kind
        counts = self.counts
        counts[kind] = counts.get(kind, 0) + 1
        words = record.words
        held = self.words.held
        held.append(words)  # `_Words.add`, the call saved
        if len(held) >= _Words.HELD:
            self.words.flush()
        kind = self._kinds.setdefault(kind, kind)  # one copy of each kind's name
        # As _Told(...) makes it, without its Python-level __new__ (one call per entry).
        told = (record.turn, record.seq, kind, record.annotates, len(words))
        self.told.append(_NEW_TOLD(_Told, told))

    def lines(self, game: saves.Game) -> Iterator[str]:
        """The page in pieces of many lines (each line ending in a newline): runs of blank
        lines kept to one, none at the start or the end. Closes the words file once
        written."""
        try:
            luck = self.tally.report()
            page = _Page()
            for part in _game_lines(game, self.tables, self.counts, self.players):
                page.add(part)
            yield from _turn_lines(self.told, self.story, self.words, page)
            for part in itertools.chain(
                _marker_lines(self.story), _losses_lines(self.losses), _luck_lines(luck)
            ):
                page.add(part)
            yield page.take()
        finally:
            self.words.close()


def _report(entries: Iterable[Mapping[str, Any]], tables: Tables | None) -> Report:
    """The report of `entries`, read once in order (not kept)."""
    report = Report(tables or default_tables())
    for entry in entries:
        report.add(entry)
    return report


def report_of_records(records: Iterable[ReportRecord], tables: Tables | None) -> Report:
    """The report of the records `report_record` took of a save's entries, in log order:
    the same report as of the entries."""
    report = Report(tables or default_tables())
    for record in records:
        report.add_record(record)
    return report
