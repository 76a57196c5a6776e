"""Luck against the odds, as text: bars per die face, a sparkline of combat percentiles
and a table per ruleset, from the figures `tui.reports.luck.stats` makes.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from tui.engine.text import one_line
from tui.reports.luck.stats import CombatFigures, FaceCounts, LuckGroup, LuckReport

_SPARKS = "▁▂▃▄▅▆▇█"
_EIGHTHS = " ▏▎▍▌▋▊▉"


def sparkline(values: Sequence[float], width: int) -> str:
    """One mark per value in 0..1 (low to high), the last `width` of them."""
    shown = list(values)[-width:] if width > 0 else []
    return "".join(_SPARKS[min(len(_SPARKS) - 1, int(v * len(_SPARKS)))] for v in shown)


def bar(fraction: float, width: int) -> str:
    """A bar of `width` cells filled to `fraction` (0..1), in eighths of a cell."""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    whole, part = divmod(eighths, 8)
    return ("█" * whole + (_EIGHTHS[part] if part else "")).ljust(width)


def p_text(value: float | None) -> str:
    """A p-value to three places, "<0.001" below that, "-" for none."""
    if value is None:
        return "-"
    return f"{value:.3f}" if value >= 0.001 else "<0.001"


def _signed(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:+.{digits}f}"


def faces_lines(faces: FaceCounts, width: int, indent: str = "  ") -> list[str]:
    """A bar per face, scaled to the most frequent, with its count and what was expected."""
    label = len(str(faces.sides))
    count_width = len(str(max(faces.counts)))
    room = max(4, min(40, width - len(indent) - label - count_width - 4))
    top = max(max(faces.counts), 1)
    return [
        f"{indent}{face:>{label}} {bar(n / top, room)} {n:>{count_width}}"
        for face, n in enumerate(faces.counts, 1)
    ]


def faces_summary(faces: FaceCounts) -> str:
    rough = " (few dice: a rough guide)" if faces.few else ""
    return (
        f"{faces.dice} d{faces.sides}, {faces.expected:.1f} expected per face, chi-square "
        f"{faces.chi_square:.2f} ({faces.df} df), p = {p_text(faces.p_value)}{rough}"
    )


def combats_summary(figures: CombatFigures) -> str:
    """The combats judged: how many, their mean percentile and its distance from 0.5. None
    judged says only that: combats with dice may be left out too (every result as good, a
    result cancelled), each named under "Not judged" with its reason."""
    if not figures.count:
        return "no combats judged"
    plural = "s" if figures.count != 1 else ""
    return (
        f"{figures.count} combat{plural}, mean percentile {figures.mean:.2f} "
        f"({_signed(figures.deviation)} from 0.5, z {_signed(figures.z, 1)})"
    )


def _group_lines(group: LuckGroup, width: int) -> list[str]:
    lines: list[str] = []
    for faces in group.desk_faces:
        lines.append(f"  Desk dice: {faces_summary(faces)}")
        lines += faces_lines(faces, width, "    ")
    if not group.desk_faces:
        lines.append("  Desk dice: none")
    lines.append(f"  Desk combats: {combats_summary(group.desk)}")
    if group.desk.count:
        # One mark for each of the last width - 4 combats (width is 30 or more): only
        # those are worked out.
        marks = sparkline([c.shown for c in group.desk.combats[4 - width :]], width - 4)
        lines.append(f"    {marks}")
    hand = [faces_summary(f) for f in group.manual_faces]
    if group.manual_totals:
        hand.append(f"{group.manual_totals} totals without faces")
    if hand or group.manual.count:
        lines.append(f"  By hand (apart): {'; '.join(hand) or 'no faces'}")
        lines.append(f"    {combats_summary(group.manual)}")
    seeded = [faces_summary(f) for f in group.seed_faces]
    if seeded or group.seed.count:
        lines.append(f"  Seeded (apart): {'; '.join(seeded) or 'no faces'}")
        lines.append(f"    {combats_summary(group.seed)}")
    return lines


def _ruleset_table(report: LuckReport, player: str) -> list[str]:
    groups = [g for g in report.groups if g.player == player and g.ruleset is not None]
    rows: list[tuple[str, ...]] = [
        (
            g.ruleset or "",
            str(sum(f.dice for f in g.desk_faces)),
            p_text(g.desk_faces[0].p_value) if g.desk_faces else "-",
            str(g.desk.count),
            "-" if g.desk.mean is None else f"{g.desk.mean:.2f}",
            str(sum(f.dice for f in g.manual_faces) + g.manual_totals),
            str(g.manual.count),
        )
        for g in groups
    ]
    if not rows:
        return []
    header = ("ruleset", "dice", "p", "combats", "mean", "by hand", "combats")
    lines = ["  By ruleset (desk dice; p of the faces' chi-square):", *_table(header, rows)]
    # Dice from a player's seed, apart, in a table of their own where a player has some.
    seeded = [g for g in groups if g.seed_faces or g.seed.count]
    if seeded:
        rows = [
            (
                g.ruleset or "",
                str(sum(f.dice for f in g.seed_faces)),
                p_text(g.seed_faces[0].p_value) if g.seed_faces else "-",
                str(g.seed.count),
                "-" if g.seed.mean is None else f"{g.seed.mean:.2f}",
            )
            for g in seeded
        ]
        lines += ["  Seeded dice by ruleset (apart):", *_table(header[:5], rows)]
    return lines


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    """Columns lined up: the first to the left, the numbers to the right."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [
        "    "
        + "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in [header, *rows]
    ]


def luck_text(report: LuckReport, width: int = 80) -> str:
    """The report as plain text for a terminal `width` columns wide: everyone, then each
    player with bars per die face, a sparkline of combat percentiles and a ruleset table."""
    width = max(width, 30)
    lines = [
        "Luck against the odds. Percentile: P(worse) + P(same)/2 of the result obtained, for "
        "the attacker (the player who logged the combat); 0.5 on average with fair dice.",
        "Sparkline: one mark per combat in log order, low = worse than the odds promised.",
        "",
        "Everyone",
        *_group_lines(report.everyone, width),
    ]
    for player in report.players:
        group = report.group(player)
        assert group is not None
        lines += ["", f"Player {one_line(player)}", *_group_lines(group, width)]
        lines += _ruleset_table(report, player)
    if report.skipped:
        lines += ["", "Not judged:", *_left_out(report.skipped)]
    return "\n".join(wrapped for line in lines for wrapped in _wrap(line.rstrip(), width))


def _left_out(skipped: Sequence[tuple[int, str]], shown: int = 12) -> list[str]:
    """The combats left out, by reason (the words of the JSON's `why`), in the order each
    reason first came: "  #2, #6: no dice were read (an automatic result)". A reason many
    combats share names the first `shown` of them and counts the rest."""
    by_why: dict[str, list[int]] = {}
    for seq, why in skipped:
        by_why.setdefault(why, []).append(seq)
    lines = []
    for why, seqs in by_why.items():
        named = ", ".join(f"#{seq}" for seq in seqs[:shown])
        more = f" and {len(seqs) - shown} more" if len(seqs) > shown else ""
        lines.append(f"  {named}{more}: {one_line(why)}")
    return lines


def _wrap(line: str, width: int) -> list[str]:
    """A line in `width` columns, broken between words (a pane narrower than a sentence
    broke it mid-word), its continuation indented under its text; bars and sparklines fit
    by construction."""
    if len(line) <= width:
        return [line]
    indent = " " * (len(line) - len(line.lstrip()) + 2)
    return textwrap.wrap(line, width, subsequent_indent=indent, break_on_hyphens=False) or [""]
