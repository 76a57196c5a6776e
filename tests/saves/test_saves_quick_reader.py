"""The quick reader (one JSON document for many entries, decoded and checked by msgspec)
reads exactly what the careful reader reads, and vouches for nothing JSON reads otherwise
than TOML; the quick check of an entry refuses exactly what the field-by-field check does,
with the same message."""

from __future__ import annotations

import random
import re
import tomllib
import zlib
from typing import Any

import pytest

from tui import saves
from tui.engine.combat import CombatInput, resolve
from tui.saves import checking, decoding, encoding


def body_of(lines: str) -> bytes:
    """An entry's body as a person might write it, with its end line's checksum made to
    match (so the fast reader, not tomllib, is the first to read it)."""
    body = lines.encode()
    block = body + f"# end of entry 1 crc32 {zlib.crc32(body):08x}\n".encode()
    verified = decoding._verified_body(block)
    assert verified == body
    return body


STORE_WRITTEN = [
    {"seq": 1, "kind": "note", "turn": 1, "when": "x", "who": "y", "annotates": 1},
    {"seq": 2, "t": 'Ratio 12/3 = 4.000; "quoted" = yes: 4:1 [a] {b}', "n": [1, [2, [3]]]},
    {"seq": 3, "nested": {"a": {"b": [{"c": -1.5e-7}]}, "": "", "x y": True}},
    {"seq": 4, "esc": 'back\\slash \\" tab\t nl\n " = \u00e9 \u0001', "big": 2**63 - 1},
    {"seq": 5, "a": {"\\": "x\\"}, "b": '\\/ \\" = \x7f', "c": ["\\\\"]},
    {"seq": 6, "when": "2026-11-27T05:51:35+00:00", "t": {"a:b": ["c:", ":d", " : ", ":"]}},
]


@pytest.mark.parametrize("entry", STORE_WRITTEN)
def test_what_the_store_writes_is_read_quickly_as_tomllib_reads_it(entry: dict[str, Any]):
    block = encoding._block(entry)
    body = decoding._verified_body(block[len(b"\n[[log]]\n") :])
    assert body is not None and body.startswith(b'"seq" = ')  # each key quoted
    expected = tomllib.loads(block.decode())["log"][0]
    assert decoding._quick_quoted([body]) == [expected]
    assert decoding._quick_quoted([body, body]) == [expected, expected]
    # A save written before keys were quoted reads as before, alone or beside the new form.
    old = bare_keys(body)
    assert old != body and tomllib.loads(old.decode()) == expected
    assert decoding._quick_json([old]) == [expected]
    assert decoding._quick_json([old, old]) == [expected, expected]
    part = block[len(b"\n[[log]]\n") :]
    old_part = old + f"# end of entry 1 crc32 {zlib.crc32(old):08x}\n".encode()
    mixed = [(0, part), (0, old_part), (0, part)]
    assert decoding._decode_blocks(mixed) == [expected] * 3
    assert decoding._decode_blocks(mixed[1:]) == [expected] * 2


def bare_keys(body: bytes) -> bytes:
    """A body as crtdesk wrote it before each line's key was quoted."""
    return re.sub(rb'(?m)^"([A-Za-z0-9_-]+)" = ', rb"\1 = ", body)


def quoted_keys(body: bytes) -> bytes:
    """A body with each line's bare key quoted, as the store now writes it."""
    return re.sub(rb"(?m)^([A-Za-z0-9_-]+) = ", rb'"\1" = ', body)


# Bodies with a matching checksum that JSON would read (once keys are quoted) but TOML
# reads otherwise or refuses: the quick reader vouches for none of them.
NOT_QUICK = {
    "null": "seq = 1\nx = [1, null]\n",
    "a colon after a key": 'seq = 1\nx = { "a": 1 }\n',
    "a colon after a space": 'seq = 1\nx = { "a" : 1 }\n',
    "past 64 bits": "seq = 1\nx = 9223372036854775808\n",
    "past a float": "seq = 1\nx = 1e400\n",
    "a key twice": "seq = 1\nseq = 2\n",
    "a tab": "seq = 1\nx =\t1\n",
    "a blank line": "seq = 1\n\nx = 1\n",
    "a comment": "seq = 1\n# x = 1\n",
    "a dotted key": "seq = 1\na.b = 1\n",
    "a quoted key": 'seq = 1\n"a" = 1\n',
    "an array on two lines": "seq = 1\nx = [1,\n2]\n",
    "a table on two lines": 'seq = 1\nx = { "a" = 1,\n"b" = 2 }\n',
    "a surrogate": 'seq = 1\nx = "\\ud800"\n',
    "nested 40 deep": "seq = 1\nx = " + "[" * 40 + "]" * 40 + "\n",
    "a trailing comma": "seq = 1\nx = [1, 2, ]\n",
    "an escaped quote before ` = `": 'seq = 1\nx = "a\\" = b"\n',
    "an escaped slash": 'seq = 1\nx = "a\\/b"\n',
    "a raw DEL": 'seq = 1\nx = "a\x7fb"\n',
    "a text that opens with ` = `": 'seq = 1\nx = " = y"\n',
    "such a text in an array": 'seq = 1\nx = ["a", " = y"]\n',
    "such a key in a table": 'seq = 1\nx = { " = k" = 1 }\n',
    "a mark that starts no body": "seq = 1\n\x1ex = 1\n",
    "a colon after spaces": 'seq = 1\nx = { "a"   : 1 }\n',
    "a colon after a bracket": 'seq = 1\nx = { "a" = {}: 1 }\n',
    "a mark inside a key": "seq = 1\nx\x1ey = 1\n",
    "a key of other bytes": "seq = 1\nx:y = 1\n",
    "a key with a quote": 'seq = 1\nx" = 1\n',
    "a line of no key": "seq = 1\nx\ny = 1\n",
    "a table closed on the next line": 'seq = 1\nz = { "b" = 1\nc = 2 }, "d" = 3\n',
    "such a table in an array": 'seq = 1\nz = [{ "b" = 1\nc = 2 }], "d" = 3\n',
    "such a table with an escape": 'seq = 1\nz = { "b" = "\\"x"\nc = 2 }, "d" = 3\n',
    "such a table, a text's key after": 'seq = 1\nz = { "b" = 1\nc = "e" = 2 }, 5\n',
    "an array closed on the next line": 'seq = 1\nz = [1, "a"\nc = 2], "d" = 3\n',
}


@pytest.mark.parametrize("name", NOT_QUICK)
def test_the_quick_reader_vouches_for_nothing_json_reads_otherwise(name: str):
    body = body_of(NOT_QUICK[name])
    assert decoding._quick_json([body]) is None
    # ... nor within a batch of entries it reads, which then goes to the careful reader.
    sound = decoding._verified_body(encoding._block(STORE_WRITTEN[0])[len(b"\n[[log]]\n") :])
    assert sound is not None
    assert decoding._quick_json([sound, body, sound]) is None
    try:
        careful = decoding._fast_json([body])
    except ValueError:
        return  # tomllib's to judge, as before
    assert careful == [tomllib.loads(body.decode())]


# Bodies in the quoted form (each also as `NOT_QUICK` holds it, its keys quoted) that JSON
# would read once made a document, and TOML reads otherwise or refuses.
NOT_QUICK_QUOTED = {
    "a line's mark as a key": '"seq" = 1\n"" = 1\n',
    "a null value": '"seq" = 1\n"x" = null\n',
    "a null in an array": '"seq" = 1\n"x" = [null]\n',
    "a null in a table": '"seq" = 1\n"x" = { "a" = null }\n',
    "two keys on one line": '"seq" = 1\n"a" = 1, "c" = 2\n',
    "a key twice": '"seq" = 1\n"seq" = 1\n',
    "two spaces before the sign": '"seq" = 1\n"x"  = 1\n',
    "a bare key among quoted ones": '"seq" = 1\nx = 1\n',
    "a literal key": "\"seq\" = 1\n'x' = 1\n",
    "a dotted quoted key": '"seq" = 1\n"a"."b" = 1\n',
    "a table closed on the next line": '"seq" = 1\n"z" = { "b" = 1\n"c" = 2 }, "d" = 3\n',
    "such a table in an array": '"seq" = 1\n"z" = [{ "b" = 1\n"c" = 2 }], "d" = 3\n',
    "a text closed on the next line": '"seq" = 1\n"z" = "a\n"c" = 2"\n',
    "an array closed on the next line": '"seq" = 1\n"z" = [1\n, 2]\n',
    "an escaped colon": '"seq" = 1\n"z" = "a\\:b"\n',
    "a mark's end closing a table": '"seq" = 1\n"z" = { "b" = 1 }}, {"c" = 2\n',
    "a raw record separator": '"seq" = 1\n"z" = "a\x1eb"\n',
} | {f"{name}, quoted": quoted_keys(text.encode()).decode() for name, text in NOT_QUICK.items()}


@pytest.mark.parametrize("name", NOT_QUICK_QUOTED)
def test_the_quoted_reader_reads_nothing_otherwise_than_tomllib(name: str):
    """Each reader gives what tomllib gives, or leaves the body to the next (None)."""
    body = body_of(NOT_QUICK_QUOTED[name])
    try:
        expected: list[dict[str, Any]] | None = [tomllib.loads(body.decode())]
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        expected = None
    sound = decoding._verified_body(encoding._block(STORE_WRITTEN[0])[len(b"\n[[log]]\n") :])
    assert sound is not None
    around = None if expected is None else [tomllib.loads(sound.decode()), *expected] * 2
    for reader in (decoding._quick_quoted, decoding._quick_json):
        assert reader([body]) in (None, expected), reader
        assert reader([sound, body, sound, body]) in (None, around), reader
    try:
        careful = decoding._fast_json([body])
    except ValueError:
        return  # tomllib's to judge, as before
    assert careful == expected


def test_entries_of_a_batch_do_not_make_up_for_each_other():
    """One body with a key more than its lines (two on one line), another with one fewer
    (a key twice): the batch's count of keys matches, each entry's does not. tomllib
    refuses both; the quick reader vouches for neither."""
    more = body_of('"seq" = 1\n"a" = 1, "c" = 2\n')
    fewer = body_of('"seq" = 1\n"seq" = 1\n"b" = 2\n')
    for body in (more, fewer):
        with pytest.raises(tomllib.TOMLDecodeError):
            tomllib.loads(body.decode())
    assert decoding._quick_quoted([more, fewer]) is None
    assert decoding._quick_quoted([fewer, more]) is None
    # As a save written before keys were quoted holds them, for the reader of that form.
    more, fewer = body_of('seq = 1\na = 1, "c" = 2\n'), body_of("seq = 1\nseq = 1\nb = 2\n")
    for body in (more, fewer):
        with pytest.raises(tomllib.TOMLDecodeError):
            tomllib.loads(body.decode())
    assert decoding._quick_json([more, fewer]) is None
    assert decoding._quick_json([fewer, more]) is None


def combat() -> dict[str, Any]:
    outcome = resolve(CombatInput("pod-boom", step="crt", caf=9, roll=2), rng=random.Random(3))
    record = outcome.to_dict()
    entry = {"seq": 5, "kind": "combat", "turn": 1, "when": "now", "who": "me"}
    # As a reader gives it: TOML has no null, so nothing is None.
    return encoding._entry_as_read(entry | {"ruleset": record.pop("ruleset")} | record)


def mutations() -> list[tuple[str, dict[str, Any]]]:
    """Entries that break a rule the schema does not say (and some it does)."""
    base = combat()
    made: list[tuple[str, dict[str, Any]]] = [("sound", base)]

    def changed(name: str, **fields: Any) -> None:
        made.append((name, {k: v for k, v in (base | fields).items() if v is not None}))

    changed("no ruleset", ruleset=None)
    changed("unknown ruleset", ruleset="pod-nope")
    changed("no trace", trace=None)
    changed("attack total not whole", attack_total=9.5)
    changed("cell with a third side", cell={"attacker": [], "defender": [], "x": []})
    die = base["dice"][0]
    changed("seed without source", dice=[die | {"seed": 3}])
    changed("seeded without seed", dice=[die | {"source": "seed"}])
    changed("dice not tables", dice=[1])
    changed("turn 0", turn=0)
    changed("when a number", when=3)
    note = {"seq": 5, "kind": "note", "turn": 1, "when": "now", "who": "me"}
    made.append(("note on itself", note | {"annotates": 5, "text": "x"}))
    made.append(("note without text", note | {"annotates": 1}))
    made.append(("note without target", note | {"text": "x"}))
    made.append(("sound note", note | {"annotates": 1, "text": "x"}))
    made.append(("option unknown value", note | {"kind": "option", "key": "mines_cdf", "value": 4}))
    made.append(("option no value", note | {"kind": "option", "key": "mines_cdf"}))
    made.append(("unit bad action", note | {"kind": "unit", "action": "fly"}))
    made.append(("event no text", note | {"kind": "event", "event": "draw"}))
    made.append(("marker missing", note | {"kind": "place-marker"}))
    made.append(("unknown kind", note | {"kind": "feast"}))
    return made


@pytest.mark.parametrize(("name", "entry"), mutations(), ids=[n for n, _ in mutations()])
def test_the_quick_check_refuses_what_the_full_check_refuses(name: str, entry: dict[str, Any]):
    problem = checking._check_entry(dict(entry))
    assert problem == checking._first_problem(dict(entry))
    assert (problem is None) == name.startswith("sound"), problem


def test_a_batch_of_bodies_reads_as_each_alone():
    """Bodies of one line and of many, side by side, are the objects tomllib reads."""
    bodies = [
        body_of(f"k{n}x = {n}\n" + "".join(f"a{i} = [{i}]\n" for i in range(n))) for n in range(6)
    ]
    expected = [tomllib.loads(body.decode()) for body in bodies]
    assert decoding._quick_json(bodies) == expected
    assert decoding._quick_json(bodies[::-1]) == expected[::-1]


def test_an_empty_body_in_a_batch_is_not_vouched_for():
    sound = body_of("seq = 1\n")
    assert decoding._quick_json([sound, b"", sound]) is None
    assert decoding._quick_json([sound, b""]) is None


def test_a_text_opening_with_an_equals_sign_reads_as_tomllib_reads_it(tmp_path):
    """A hand edit the store never writes (it escapes the space: `\\u0020= `), with its
    checksum made to match: every reader gives the text tomllib gives, ` = y`."""
    path = tmp_path / "edited.toml"
    saves.new_game(path, "edited", ["pod-basic"])
    body = (
        b'seq = 1\nkind = "event"\nturn = 1\nwhen = "now"\nwho = "me"\nevent = "x"\ntext = " = y"\n'
    )
    with path.open("ab") as handle:
        handle.write(b"\n[[log]]\n" + body)
        handle.write(f"# end of entry 1 crc32 {zlib.crc32(body):08x}\n".encode())
    expected = tomllib.loads(path.read_text())["log"][0]
    assert expected["text"] == " = y"
    assert saves.load_game(path).entries == [expected]
    assert [read.entry for read in saves.read_entries(path)] == [expected]


@pytest.mark.parametrize(
    "lines",
    [
        b'z = { "b" = 1\nc = 2 }, "d" = 3\n',  # read quickly, before
        b'z = { "b" = 1\nc = "e" = 2 }, 5\n',  # read carefully, before
    ],
)
def test_a_table_closed_on_the_next_line_is_refused_as_tomllib_refuses_it(tmp_path, lines):
    """A hand edit with its checksum made to match: an inline table left open at a line's
    end and closed on the next, whose key JSON then read as the table's. tomllib refuses
    it; both readers once read it (`z = {b: 1, c: 2}, d = 3`). Now a load says what tomllib
    says, at the line it names."""
    path = tmp_path / "edited.toml"
    saves.new_game(path, "edited", ["pod-basic"])
    body = b'seq = 1\nkind = "event"\nturn = 1\nwhen = "now"\nwho = "me"\nevent = "x"\n'
    body += b'text = "t"\n' + lines
    with path.open("ab") as handle:
        handle.write(b"\n[[log]]\n" + body)
        handle.write(f"# end of entry 1 crc32 {zlib.crc32(body):08x}\n".encode())
    with pytest.raises(tomllib.TOMLDecodeError, match="Unclosed inline table"):
        tomllib.loads(path.read_text())
    for read in (saves.load_game, lambda p: list(saves.read_entries(p))):
        with pytest.raises(saves.SaveError, match="Unclosed inline table") as caught:
            read(path)
        assert "line " in str(caught.value)


def test_a_batch_is_checked_as_each_entry_in_turn():
    """The check of a batch of entries (one conversion to the schema for them all) passes
    exactly those that the check of each in turn passes, and changes nothing where it says
    "look closer"."""
    entries = [entry for _, entry in mutations()]
    base = combat()
    sequences: list[list[dict[str, Any]]] = [[entry] for entry in entries]
    sequences += [
        [base | {"seq": 5}, base | {"seq": 6}, base | {"seq": 7, "amends": 5}],
        [base | {"seq": 5}, base | {"seq": 6, "amends": 6}],
        [base | {"seq": 5}, base | {"seq": 5}],
        [base | {"seq": 6}, base | {"seq": 5}],
        [base | {"seq": 6, "amends": 2}],
        [base | {"seq": 6, "amends": 3}],
        [base | {"seq": 1}],
    ]
    # Each rule broken in the middle of a batch of sound combats of other rulesets (a
    # combat's rules are checked in the batch's loop, its rulesets once for the batch).
    sequences += [
        [base | {"seq": 3, "ruleset": "ocs"}, entry, base | {"seq": 6, "ruleset": "daynight"}]
        for entry in entries
    ]
    for batch in sequences:
        previous, combats = 2, {2}
        expected_combats = set(combats)
        each = True
        for entry in batch:
            if checking._entry_problem(dict(entry), previous, expected_combats):
                each = False
                break
            previous = entry["seq"]
            if entry["kind"] == "combat":
                expected_combats.add(previous)
        combats_given = {2}
        last = checking._batch_fits([dict(entry) for entry in batch], 2, combats_given)
        if each:
            assert last == batch[-1]["seq"], batch
            assert combats_given == expected_combats
        else:
            assert last is None, batch
            assert combats_given == {2}


END_LINES = [
    b"# end of entry 7 crc32 %s\n",
    b"# end of entry 7 crc32 %s",
    b"# end of entry 7 crc32 %s  \n",
    b"# end of entry 7 crc32 %s\n\n",
    b"# end of entry 7 crc32 %s\nx\n",
    b"# end of entry  crc32 %s\n",
    b"# end of entry 7a crc32 %s\n",
    b"# end of entry 7 crc32  %s\n",
    b"#  end of entry 7 crc32 %s\n",
]


@pytest.mark.parametrize("line", END_LINES)
@pytest.mark.parametrize("crc", ["right", "upper", "wrong"])
def test_an_end_line_is_verified_as_the_regular_expression_reads_it(line: bytes, crc: str):
    body = b'seq = 7\nkind = "turn"\n'
    checksum = {"right": b"%08x", "upper": b"%08X", "wrong": b"%08x"}[crc] % (
        zlib.crc32(body) + (crc == "wrong")
    )
    for part in (body + line % checksum, b"x# end of entry 1 crc32 0\n" + body + line % checksum):
        assert decoding._verified_body(part) == decoding._verified_end(part)
    verified = decoding._verified_body(body + line % checksum)
    assert (verified == body) == (crc == "right" and line in END_LINES[:4]), verified


def test_a_save_of_bare_keys_appended_to_now_reads_as_tomllib_reads_it(tmp_path):
    """A save an older crtdesk wrote (each key bare, checksums its own), appended to by this
    one (each key quoted): every reader gives what tomllib gives, entry for entry."""
    path = tmp_path / "old.toml"
    saves.new_game(path, "old", ["pod-basic"])
    for n in range(12):
        saves.add_marker(path, "DG", f"01{n:02}", note=f'n{n}: "x" = y \\ z')
    data = path.read_bytes()
    header, _, log = data.partition(b"\n[[log]]\n")
    blocks = []
    for part in log.split(b"\n[[log]]\n"):
        body, end, rest = part.rpartition(b"# end of entry ")
        old = bare_keys(body)
        assert old != body
        blocks.append(
            old + end + rest.split(b" crc32 ")[0] + f" crc32 {zlib.crc32(old):08x}\n".encode()
        )
    path.write_bytes(header + b"\n[[log]]\n" + b"\n[[log]]\n".join(blocks))
    for n in range(12, 20):
        saves.add_marker(path, "DG", f"01{n:02}", note=f"n{n}")
    text = path.read_text()
    assert "\nseq = 12\n" in text and '\n"seq" = 13\n' in text
    expected = tomllib.loads(text)["log"]
    assert len(expected) == 20
    assert saves.load_game(path).entries == expected
    assert [read.entry for read in saves.read_entries(path, 4096)] == expected


def test_every_entry_the_store_writes_of_every_ruleset_is_read_quickly(tmp_path):
    """Combats of every built-in ruleset (OCS counters with their ratings and stocks, a
    Boom chain, cards, obstacles) and markers, as the store writes them: each entry is
    read by the quick reader (none nested deeper than it decodes), as tomllib reads it."""
    from tests.engine.test_column_read import built_in
    from tui.engine import InputError, Unit
    from tui.engine.registry import BUILT_IN_IDS

    path = tmp_path / "all.toml"
    saves.new_game(path, "all", list(BUILT_IN_IDS))
    rng = random.Random(5)
    combats = [
        c for attack, defence in ((9, 2), (3, 4), (30, 1)) for c in built_in(attack, defence)
    ]
    attacker = Unit(12, name="A1", steps=2, ar=3, kind="combat", supply="internal", stocks="low")
    combats.append(CombatInput("ocs", (attacker,), (Unit(3, name="D1", steps=1, re=2),)))
    written = set()
    for combat in combats:
        try:
            outcome = resolve(combat, rng=rng)
        except InputError:  # a combat its ruleset refuses is not logged
            continue
        saves.append_combat(path, combat, outcome, note="n")
        written.add(combat.ruleset)
    saves.add_marker(path, "DG", "0101", note="m")
    assert written == set(BUILT_IN_IDS)
    data = path.read_bytes()
    bodies = [decoding._verified_body(part) for part in data.split(b"\n[[log]]\n")[1:]]
    assert all(bodies) and len(bodies) > 40
    assert decoding._quick_quoted(bodies) == tomllib.loads(data.decode())["log"]
