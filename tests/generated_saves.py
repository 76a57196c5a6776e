"""Saves generated for property tests: every kind of entry, written as the store writes it
or as a person might have edited it (a checksum that no longer matches, an end line without
one, a note's text made a multi-line string holding a `[[log]]` line), and sometimes a
torn last entry; and the ways to damage one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.review_save import combat_entry
from tui import saves
from tui.saves import encoding

WHEN = "2026-11-20T18:00:00+00:00"
# Free text with the characters the store must escape, and some that it need not.
TEXT = st.text(
    alphabet=st.characters(exclude_categories=("Cs",), include_characters='"\\=\n\t []#'),
    max_size=12,
)
NAMES = st.sampled_from(["ann", "bob", 'cy "the cat"', "dee = 1", "é"])
LAYOUTS = ("store", "store", "store", "checksum changed", "no checksum")


@st.composite
def logs(draw: st.DrawFn, most: int = 25) -> list[tuple[dict[str, Any], str]]:
    """Entries that a load accepts, each with the layout it is written in."""
    entries: list[tuple[dict[str, Any], str]] = []
    combats: list[int] = []
    placed: list[str] = []
    turn = 1
    for seq in range(1, draw(st.integers(0, most)) + 1):
        kind = draw(
            st.sampled_from(
                ["combat", "combat", "amend", "note", "event", "place", "lift", "turn", "option"]
            )
        )
        who = draw(NAMES)
        layout = draw(st.sampled_from(LAYOUTS))
        common = {"seq": seq, "turn": turn, "when": WHEN, "who": who}
        if kind == "amend" and combats:
            amended = draw(st.sampled_from(combats))
            entry = combat_entry(amended, turn) | common | {"amends": amended}
        elif kind == "note" and seq > 1:
            entry = common | {
                "kind": "note",
                "annotates": draw(st.integers(1, seq - 1)),
                "text": draw(TEXT),
            }
            if draw(st.integers(0, 5)) == 0:
                layout = "multi-line"
        elif kind == "event":
            face = draw(st.integers(1, 6))
            die = {"dice": "1d6", "values": [face], "total": face, "source": "desk"}
            if draw(st.booleans()):  # rolled from a seed a player gave: kept with it
                die |= {"source": "seed", "seed": draw(st.integers(-(2**63), 2**63 - 1))}
            entry = common | {
                "kind": "event",
                "event": "hero-site-draw",
                "ruleset": "pod-basic",
                "text": draw(TEXT),
                "dice": [die | {"purpose": "draw"}],
            }
        elif kind == "place":
            marker = {"id": f"{seq}.1", "kind": "DG", "target": "0712"}
            if draw(st.booleans()):
                marker |= {"turns": draw(st.integers(1, 3)), "note": draw(TEXT)}
            placed.append(marker["id"])
            entry = common | {"kind": "place-marker", "marker": marker}
        elif kind == "lift" and placed:
            entry = common | {"kind": "remove-marker", "marker_id": draw(st.sampled_from(placed))}
        elif kind == "turn":
            turn += 1
            entry = common | {"kind": "turn", "turn": turn}
        elif kind == "option":
            value = draw(st.sampled_from([2, 3]))
            entry = common | {"kind": "option", "key": "mines_cdf", "value": value}
        else:
            entry = combat_entry(seq, turn) | common
            if draw(st.booleans()):
                entry["note"] = draw(TEXT)
            combats.append(seq)
        entries.append((entry, layout))
    return entries


def block(entry: dict[str, Any], layout: str) -> bytes:
    """An entry's `[[log]]` block, as the store writes it or as edited by hand."""
    written = encoding._block(entry)
    body, line, end = written.rpartition(b"# end of entry ")
    if layout == "checksum changed":
        crc = end.split()[-1]
        other = b"ffffffff" if crc == b"00000000" else b"00000000"
        return body + line + end.replace(crc, other)
    if layout == "no checksum":
        return body + f"# end of entry {entry['seq']}\n".encode()
    if layout == "multi-line":
        # A TOML multi-line string: splitting the file at `[[log]]` lines misreads it.
        text = b'text = """a note\n[[log]]\nover two lines"""\n'
        lines = [text if line.startswith(b'"text" = ') else line for line in body.splitlines(True)]
        return b"".join(lines) + f"# end of entry {entry['seq']}\n".encode()
    return written


def write_save(path: Path, log: list[tuple[dict[str, Any], str]], torn: int = 0) -> bytes:
    """The save at `path` holding `log`, and when `torn`, that many bytes of one more entry
    (a write cut short); the file's bytes."""
    saves.new_game(path, 'A "long" = campaign', ["rivets", "pod-basic"], {}, who="ann")
    data = b"".join(block(entry, layout) for entry, layout in log)
    if torn:
        extra = combat_entry(len(log) + 1, 1) | {"seq": len(log) + 1, "who": "ann"}
        data += encoding._block(extra)[:torn]
    with path.open("ab") as handle:
        handle.write(data)
    return path.read_bytes()


# A damage to a save's bytes: (where, as a share of the file; bytes cut; bytes put there).
DAMAGE = st.tuples(
    st.floats(0, 1),
    st.integers(0, 40),
    st.binary(max_size=6) | st.sampled_from([b'"', b"=", b"\n", b"[[log]]\n", b"\xff", b"# end"]),
)


def damaged(data: bytes, damage: tuple[float, int, bytes]) -> bytes:
    share, cut, put = damage
    at = int(share * len(data))
    return data[:at] + put + data[at + cut :]
