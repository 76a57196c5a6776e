"""Benchmark the save store: appending to a new save and to a 10,000-entry one, and loading.

    .venv/bin/python bench/bench_saves.py [--entries N] [--appends N]

    .venv/bin/python bench/bench_saves.py --no-fsync   # the store's own work, no disk flush

    .venv/bin/python bench/bench_saves.py --campaign 100000   # a long campaign, each command
                                                              # in a process: time, peak RSS

    .venv/bin/python bench/bench_saves.py --campaign 100000 --count   # and its first reads
                                                  # counted (callgrind, some 15 minutes)

    .venv/bin/python bench/bench_saves.py --decode 2000   # read_entries against json.loads
                                                          # of the same entries, counted

Prints one table. Appends are timed one by one (lock, check the record, read the ends,
write, fsync), to the new save and the big one in turn so that a busy machine slows both
alike, and the ratio of their medians is printed last; the first append after the big save
was written outside the store checks the whole file once (as a load would) and is shown on
its own row; loads in this process and in a fresh one (what `crtdesk log` pays). Nothing
here is a test: the numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from pathlib import Path

from tui import saves
from tui.engine.combat import CombatInput, Outcome, Unit, resolve
from tui.saves import appending, encoding

RULESETS = ["pod-super", "pod-boom", "ocs", "daynight"]


def combats(rng: random.Random) -> list[tuple[CombatInput, Outcome]]:
    """One combat of each kind the bench writes, resolved with the desk's dice."""
    inputs = [
        CombatInput(
            "pod-super",
            attackers=(Unit(4), Unit(3, "town")),
            defenders=(Unit(2),),
            attacker_card="jack",
        ),
        CombatInput("pod-boom", step="crt", caf=9),
        CombatInput(
            "ocs",
            attackers=(Unit(12),),
            defenders=(Unit(3),),
            terrain="close",
            attacker_ar=4,
            defender_ar=2,
        ),
        CombatInput(
            "daynight",
            attackers=(Unit(9),),
            defenders=(Unit(3),),
            terrain="woods",
            time="night",
        ),
    ]
    return [(combat, resolve(combat, rng=rng)) for combat in inputs]


def build(path: Path, entries: int, rng: random.Random) -> None:
    """A save of `entries` entries written as the store writes them (no lock, no fsync), in
    batches: a 100,000-entry save in seconds rather than 100,000 appends."""
    saves.new_game(path, f"{entries} entries", RULESETS)
    pool = [combat for _ in range(50) for combat in combats(rng)]
    records = [outcome.to_dict() for _, outcome in pool]
    with path.open("ab") as handle:
        blocks = []
        for seq in range(2, entries + 1):
            record = dict(records[seq % len(records)])
            entry = {"seq": seq, "kind": "combat", "turn": 1 + seq // 500, "when": appending._now()}
            entry |= {"who": "bench", "ruleset": record.pop("ruleset")} | record
            blocks.append(encoding._block(entry))
            if len(blocks) == 5000:
                handle.write(b"".join(blocks))
                blocks.clear()
        handle.write(b"".join(blocks))


def unit_records(count: int) -> list[dict[str, object]]:
    """`count` OCS units, half a side each: an order of battle as a player imports it."""
    return [
        {
            "name": f"{n} {'Pz' if n % 2 else 'Armd'}",
            "side": "Axis" if n % 2 else "Allied",
            "hex": f"{n % 40:02d}{n % 30:02d}",
            "factor": 1 + n % 9,
            "steps": 1 + n % 4,
            "ar": n % 6,
            "re": 1 + n % 3,
        }
        for n in range(1, count + 1)
    ]


def build_with_units(path: Path, entries: int, units: int, rng: random.Random) -> int:
    """A campaign with an order of battle: `units` imported (by the store, 1,000 a file), then
    combats written as `build` writes them, every 50th entry a loss (a step lost, and
    given back the next time round the roster); the loss entries written."""
    saves.new_game(path, f"{entries} entries, {units} units", RULESETS)
    records = unit_records(units)
    # In files of 1,000: an entry holds at most 256 KiB, about 1,800 such units.
    for first in range(0, units, 1000):
        saves.import_units(path, records[first : first + 1000], source="bench-oob.csv")
    after = -(-units // 1000)
    pool = [combat for _ in range(50) for combat in combats(rng)]
    outcomes = [outcome.to_dict() for _, outcome in pool]
    losses = 0
    with path.open("ab") as handle:
        blocks = []
        for seq in range(after + 1, entries + 1):
            entry: dict[str, object] = {"seq": seq, "turn": 1 + seq // 500}
            entry |= {"when": appending._now(), "who": "bench"}
            if seq % 50 == 0:
                name = records[losses % units]["name"]
                steps = 1 if (losses // units) % 2 == 0 else -1
                entry |= {"kind": "loss", "losses": [{"unit": name, "steps": steps}]}
                losses += 1
            else:
                record = dict(outcomes[seq % len(outcomes)])
                entry |= {"kind": "combat", "ruleset": record.pop("ruleset")} | record
            blocks.append(encoding._block(entry))
            if len(blocks) == 5000:
                handle.write(b"".join(blocks))
                blocks.clear()
        handle.write(b"".join(blocks))
    return losses


def timed(action: Callable[[], object], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return times


def timed_in_turn(
    first: Callable[[], object], second: Callable[[], object], repeat: int
) -> tuple[list[float], list[float]]:
    """Both actions timed `repeat` times each, one after the other in turn."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for action, kept in ((first, times[0]), (second, times[1])):
            kept.extend(timed(action, 1))
    return times


def fresh_process_load(path: Path, repeat: int) -> list[float]:
    code = (
        "import sys, time; from pathlib import Path; from tui import saves; "
        "t = time.perf_counter(); g = saves.load_game(Path(sys.argv[1])); "
        "print(time.perf_counter() - t, len(g.entries))"
    )
    times = []
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True
        )
        times.append(float(out.stdout.split()[0]))
    return times


# --- a long campaign: each command in a process of its own, its time and peak RSS ------------

# Runs argv[1:] as a child and prints its wall time and its peak RSS (KB): the child's
# own figure, from the rusage of the children this process waited for (only that one).
MEASURE = """
import resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
took = time.perf_counter() - start
if done.returncode:
    sys.exit(done.stderr.decode(errors="replace")[-400:])
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(took, used.ru_maxrss, used.ru_utime + used.ru_stime)
"""

# The reference: `json.loads` of each line of a file of the same entries as JSON lines,
# its CPU time (user and system) alone, the interpreter's start not counted.
JSON_FLOOR = """
import json, resource, sys
def cpu():
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime
start = cpu()
with open(sys.argv[1], "rb") as lines:
    for line in lines:
        json.loads(line)
print(cpu() - start)
"""

# The reference counted (instructions, callgrind): the same loop, between the marks callgrind
# zeroes its count at and dumps it at (libc's getpgrp and getppid, called nowhere else).
JSON_FLOOR_COUNT = """
import json, os, sys
with open(sys.argv[1], "rb") as lines:
    os.getpgrp()
    for line in lines:
        json.loads(line)
    os.getppid()
"""

# The desk on a save, headless at 80x24, until what it shows is read: `open` as `crtdesk
# open NAME` reads it (then its screen), `review` until the whole log is in the review.
DESK = """
import asyncio, sys, time
from pathlib import Path
from tui.desk.app import CrtDeskApp
from tui.game.session import read_game

async def main(kind, path):
    if kind == "open":
        app = CrtDeskApp(saves_dir=path.parent, game_path=path, game=read_game(path, pauses=False))
    else:
        app = CrtDeskApp(saves_dir=path.parent, game_path=path, review=True)
    async with app.run_test(size=(80, 24)) as pilot:
        deadline = time.perf_counter() + 900
        while time.perf_counter() < deadline:
            await pilot.pause(0.05)
            if kind == "open" and app.session is not None and app.session.loaded:
                return
            loaded = getattr(app.screen, "loaded", None)
            if kind == "review" and loaded is not None and not loaded.partial:
                return
    sys.exit(f"{kind}: not read in time")

asyncio.run(main(sys.argv[1], Path(sys.argv[2])))
"""

# `crtdesk turn` with the longest time the save's exclusive lock was held printed on stderr.
TURN_HELD = """
import sys, time
from tui.cli import main
from tui.saves import locking

held = []
take, release = locking._Lock.take, locking._Lock.release

def timed_take(self, exclusive):
    take(self, exclusive)
    self.taken = time.perf_counter() if exclusive else None

def timed_release(self):
    if getattr(self, "taken", None) is not None:
        held.append(time.perf_counter() - self.taken)
        self.taken = None
    release(self)

locking._Lock.take, locking._Lock.release = timed_take, timed_release
code = main(["turn", *sys.argv[1:]])
print(f"held {max(held) if held else -1}", file=sys.stderr)
sys.exit(code)
"""


def measured(argv: list[str]) -> tuple[float, float]:
    """The wall time (s) and peak RSS (MB) of `argv` run in a process of its own."""
    took, rss, _ = measured_cpu(argv)
    return took, rss


def measured_cpu(argv: list[str]) -> tuple[float, float, float]:
    """The wall time (s), peak RSS (MB) and CPU time (s, user and system) of `argv` run in a
    process of its own (the child's own figures, from getrusage of the children)."""
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, *argv], capture_output=True, text=True, check=True
    )
    took, rss, cpu = done.stdout.split()
    return float(took), int(rss) / 1024, float(cpu)


def json_floor(path: Path, folder: Path) -> float:
    """CPU seconds `json.loads` takes over the save's entries written as JSON lines."""
    lines = folder / "entries.jsonl"
    with lines.open("w", encoding="utf-8") as out:
        for entry, _ in saves.read_entries(path):
            out.write(json.dumps(entry) + "\n")
    done = subprocess.run(
        [sys.executable, "-c", JSON_FLOOR, str(lines)], capture_output=True, text=True, check=True
    )
    lines.unlink()
    return float(done.stdout)


def forget_kept(path: Path) -> None:
    """Remove the derived data kept beside the save: the next read works it out again."""
    for kept in path.parent.glob(f"{path.name}.kept-*"):
        kept.unlink()


def lock_held(path: Path) -> float:
    """`crtdesk turn` on `path`: the longest its exclusive lock was held (s)."""
    done = subprocess.run(
        [sys.executable, "-c", TURN_HELD, str(path), "--saves", str(path.parent)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stderr.rsplit("held ", 1)[1])


def counted(argv: list[str], folder: Path, marked: bool = False) -> int | None:
    """Instructions callgrind counts running `argv` (the whole process, its start included;
    `marked`: between the marks of JSON_FLOOR_COUNT); None where valgrind is missing or
    the run failed."""
    from bench import SUMMARY, summed_dumps  # the bench's counting helpers (decode_count)

    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    dump = folder / "count.out"
    marks = ["--zero-before=getpgrp", "--dump-before=getppid"] if marked else []
    done = subprocess.run(
        [valgrind, "--tool=callgrind", f"--callgrind-out-file={dump}", *marks, *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=os.environ | {"PYTHONHASHSEED": "0"},
        timeout=3600,
    )
    if done.returncode:
        return None
    if marked:
        found = summed_dumps(dump, [1])
    else:
        match = SUMMARY.search(dump.read_text())
        found = int(match.group(1)) if match else None
    for made in folder.glob("count.out*"):
        made.unlink()
    return found


# (figure, instructions or None)
CountRow = tuple[str, int | None]


def counted_first_reads(path: Path, folder: Path) -> list[CountRow]:
    """The first reads the campaign's CPU budgets judge, counted (instructions, callgrind),
    on the save as the CPU rows left it, and first the reference: `json.loads` of the same
    entries as JSON lines, its loop alone. Each command counted whole, its start included."""
    lines = folder / "entries.jsonl"
    with lines.open("w", encoding="utf-8") as out:
        for entry, _ in saves.read_entries(path):
            out.write(json.dumps(entry) + "\n")
    floor = counted([sys.executable, "-c", JSON_FLOOR_COUNT, str(lines)], folder, marked=True)
    lines.unlink()
    rows: list[CountRow] = [("campaign: reference: json.loads, JSON lines", floor)]
    crtdesk = [sys.executable, "-m", "tui.cli"]
    where = ["--saves", str(folder)]
    for name, argv in (
        ("crtdesk log", [*crtdesk, "log", path.name, *where]),
        ("crtdesk luck", [*crtdesk, "luck", path.name, *where]),
        ("crtdesk report", [*crtdesk, "report", path.name, "--markdown", *where]),
        ("open in the desk", [sys.executable, "-c", DESK, "open", str(path)]),
    ):
        forget_kept(path)
        rows.append((f"campaign: {name}, first read", counted(argv, folder)))
    forget_kept(path)
    path.with_name(path.name + ".lock").unlink(missing_ok=True)  # as written outside
    rows.append(
        ("campaign: crtdesk turn, first", counted([*crtdesk, "turn", path.name, *where], folder))
    )
    return rows


RSS_BUDGET_MB = 150
# CPU budgets on a long campaign, stated at 100,000 entries (below that the interpreter's
# own start outweighs the floor): with the derived data kept, and on a first read.
KEPT_CPU_BUDGET = 2.0
FIRST_READ_FLOOR_TIMES = 3.0
CPU_BUDGETS_FROM = 100_000

# (figure, wall seconds, CPU seconds or None, peak RSS MB or None, CPU budget or None, note)
Row = tuple[str, float, float | None, float | None, tuple[str, float] | None, str]


def campaign(entries: int, folder: Path, count: bool = False) -> tuple[list[Row], list[CountRow]]:
    """Each command on an `entries`-entry save, in a process of its own. The save is
    written once, directly (`build`); each reader runs first with nothing kept beside the
    save (a first read), then with the derived data its first read kept. `count`: the
    first reads counted too (`counted_first_reads`), after the rest."""
    path = folder / "campaign.toml"
    started = time.perf_counter()
    build(path, entries, random.Random(1))
    made = time.perf_counter() - started
    size = path.stat().st_size / 1e6
    crtdesk = [sys.executable, "-m", "tui.cli"]
    where = ["--saves", str(folder)]
    rows: list[Row] = []
    rows.append((f"campaign: the save written ({size:.0f} MB)", made, None, None, None, "once"))
    floor = json_floor(path, folder)
    rows.append(
        (
            "campaign: reference: json.loads, JSON lines",
            floor,
            floor,
            None,
            None,
            "CPU of json.loads of the same entries as JSON lines (no start)",
        )
    )
    first = (f"<= {FIRST_READ_FLOOR_TIMES:g}x json.loads", FIRST_READ_FLOOR_TIMES * floor)
    kept = (f"<= {KEPT_CPU_BUDGET:g} s CPU", KEPT_CPU_BUDGET)
    desk_open = [sys.executable, "-c", DESK, "open", str(path)]
    for name, argv, note in (
        ("crtdesk log", [*crtdesk, "log", path.name, *where], "printed to /dev/null"),
        ("crtdesk luck", [*crtdesk, "luck", path.name, *where], "printed to /dev/null"),
        (
            "crtdesk report",
            [*crtdesk, "report", path.name, "--markdown", *where],
            "printed to /dev/null",
        ),
        ("open in the desk", desk_open, "crtdesk open NAME: read, and the combat screen shown"),
    ):
        forget_kept(path)
        took, rss, cpu = measured_cpu(argv)
        rows.append((f"campaign: {name}, first read", took, cpu, rss, first, "nothing kept"))
        took, rss, cpu = measured_cpu(argv)
        rows.append((f"campaign: {name}", took, cpu, rss, kept, f"data kept; {note}"))
    for name, argv in (
        ("crtdesk log --json", ["log", path.name, "--json"]),
        ("crtdesk log --markers", ["log", path.name, "--markers"]),
        ("crtdesk luck --json", ["luck", path.name, "--json"]),
    ):
        took, rss, cpu = measured_cpu([*crtdesk, *argv, *where])
        rows.append((f"campaign: {name}", took, cpu, rss, None, "printed to /dev/null"))
    took, rss, cpu = measured_cpu([sys.executable, "-c", DESK, "review", str(path)])
    rows.append(
        (
            "campaign: review in the desk",
            took,
            cpu,
            rss,
            None,
            "crtdesk review NAME: the whole log in the review",
        )
    )
    forget_kept(path)
    path.with_name(path.name + ".lock").unlink(missing_ok=True)  # as written outside
    took, rss, cpu = measured_cpu([*crtdesk, "turn", path.name, *where])
    rows.append(
        ("campaign: crtdesk turn, first", took, cpu, rss, first, "written outside: nothing kept")
    )
    path.with_name(path.name + ".lock").unlink()  # its state gone: the kept data read
    took, rss, cpu = measured_cpu([*crtdesk, "turn", path.name, *where])
    rows.append(
        (
            "campaign: crtdesk turn, first, data kept",
            took,
            cpu,
            rss,
            kept,
            "the lock file's state gone: the state kept beside the save",
        )
    )
    took, rss, cpu = measured_cpu([*crtdesk, "turn", path.name, *where])
    rows.append(("campaign: crtdesk turn", took, cpu, rss, None, "the lock file's state"))
    took, rss, cpu = measured_cpu([*crtdesk, "marker", path.name, "add", "DG", "0101", *where])
    rows.append(("campaign: crtdesk marker add", took, cpu, rss, None, ""))
    lifted = f"{entries + 4}.1"
    took, rss, cpu = measured_cpu([*crtdesk, "marker", path.name, "remove", lifted, *where])
    rows.append(("campaign: crtdesk marker remove", took, cpu, rss, None, ""))
    held = lock_held(path)
    rows.append(
        ("campaign: crtdesk turn, the lock held", held, None, None, None, "the longest hold")
    )
    return rows, counted_first_reads(path, folder) if count else []


def _seconds(took: float) -> str:
    return f"{took * 1000:.1f} ms" if took < 1 else f"{took:.2f} s"


def print_campaign(entries: int, count: bool = False) -> bool:
    """The campaign's table; whether every peak RSS is within its budget, and (at 100,000
    entries or more, where they are stated) every CPU time within its own. `count`: the
    first reads counted too, in a table of their own; where they are counted, their budget
    is judged on the count (instructions do not drift with the machine's load, nor with how
    fast it runs Python against C), and their CPU budget is shown beside, not judged."""
    with tempfile.TemporaryDirectory() as tmp:
        rows, counts = campaign(entries, Path(tmp), count)
    floor_count = counts[0][1] if counts else None
    by_count = floor_count is not None and all(n is not None for _, n in counts)
    print(f"Long campaign: {entries:,} entries, Python {sys.version.split()[0]}")
    print(
        f"{'figure':42}  {'time':>9}  {'CPU':>9}  {'peak RSS':>9}  {'budget':>10}  met  "
        f"{'CPU budget':>27}  met  note"
    )
    met = True
    for name, took, cpu, rss, budget, note in rows:
        shown_cpu = "" if cpu is None else _seconds(cpu)
        memory = f"{rss:>6.1f} MB" if rss is not None else ""
        rss_budget, rss_met = "", "-  "
        if rss is not None:
            ok = rss < RSS_BUDGET_MB
            met = met and ok
            rss_budget, rss_met = f"< {RSS_BUDGET_MB} MB", "yes" if ok else "NO "
        cpu_budget, cpu_met = "", "-  "
        if budget is not None and cpu is not None:
            words, most = budget
            ok = cpu <= most
            judged_by_count = by_count and "x" in words  # a first read, counted below
            if entries >= CPU_BUDGETS_FROM and not judged_by_count:
                met = met and ok
            cpu_budget = f"{words} ({_seconds(most)})" if "x" in words else words
            cpu_met = "yes" if ok else "NO "
            if judged_by_count:
                cpu_met = "yes*" if ok else "no* "  # shown, not judged
        print(
            f"{name:42}  {_seconds(took):>9}  {shown_cpu:>9}  {memory:>9}  {rss_budget:>10}  "
            f"{rss_met}  {cpu_budget:>27}  {cpu_met}  {note}".rstrip()
        )
    if entries < CPU_BUDGETS_FROM:
        print(f"(CPU budgets are stated at {CPU_BUDGETS_FROM:,} entries: shown, not counted)")
    if counts:
        print()
        print(f"First reads counted: {entries:,} entries, instructions (callgrind)")
        print(f"{'figure':42}  {'instructions':>14}  {'ratio':>6}  {'budget':>7}  met")
        for name, instructions in counts:
            shown = "n/a" if instructions is None else f"{instructions / 1e6:,.0f} M"
            if name == counts[0][0]:
                print(f"{name:42}  {shown:>14}  {'1.00x':>6}  {'':>7}  -")
                continue
            ratio = instructions / floor_count if instructions and floor_count else None
            ok = ratio is not None and ratio <= FIRST_READ_FLOOR_TIMES
            if entries >= CPU_BUDGETS_FROM and by_count:
                met = met and ok
            verdict = "n/a" if ratio is None else "yes" if ok else "NO"
            print(
                f"{name:42}  {shown:>14}  {'n/a' if ratio is None else f'{ratio:.2f}x':>6}  "
                f"{f'<= {FIRST_READ_FLOOR_TIMES:g}x':>7}  {verdict}"
            )
        if by_count:
            print(
                "(* the first reads' CPU budgets: shown, not judged; they are judged on the"
                " count above)"
            )
        else:
            print("(a count failed or valgrind is missing: the first reads judged on CPU)")
    return met


# --- the store's decode against json.loads of the same entries --------------------------------

DECODE_BUDGET = 1.5
# Counted under callgrind, each in a process of its own: `read_entries` iterated over the
# save ("store"), or `json.loads` of each of the same entries as a JSON line ("json", the
# lines read before the count). Each first reads a small file the same way, so that the
# first use (imports, msgspec's types) is left out of the count; libc's getpgrp and getppid,
# called nowhere else, mark where callgrind zeroes its counts and dumps them.
DECODE_COUNT = """
import json, os, sys
from pathlib import Path
from tui import saves

kind, warm, path = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
if kind == "store":
    for _ in saves.read_entries(warm):
        pass
    os.getpgrp()
    for _ in saves.read_entries(path):
        pass
    os.getppid()
else:
    for line in warm.read_bytes().splitlines():
        json.loads(line)
    lines = path.read_bytes().splitlines()
    os.getpgrp()
    for line in lines:
        json.loads(line)
    os.getppid()
"""
# The small file each process reads first.
DECODE_WARM = 5


def cpu_median(action: Callable[[], object], repeat: int = 3) -> float:
    """The median CPU seconds (this process's, `time.process_time`) of `repeat` runs."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        action()
        times.append(time.process_time() - start)
    return statistics.median(times)


def decode_count(kind: str, warm: Path, path: Path, folder: Path) -> int | None:
    """Instructions callgrind counts for `DECODE_COUNT`'s `kind` reading `path` (after
    `warm`); None where valgrind is missing or the count failed."""
    # Imported here: the bench's counting helpers (bench.py imports this module at its top).
    from bench import summed_dumps

    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    dump = folder / f"decode-{kind}.out"
    done = subprocess.run(
        [valgrind, "--tool=callgrind", f"--callgrind-out-file={dump}"]
        + ["--zero-before=getpgrp", "--dump-before=getppid"]
        + [sys.executable, "-c", DECODE_COUNT, kind, str(warm), str(path)],
        capture_output=True,
        text=True,
        env=os.environ | {"PYTHONHASHSEED": "0"},
        timeout=600,
    )
    return summed_dumps(dump, [1]) if done.returncode == 0 else None


# (figure, instructions or None, CPU seconds, note)
DecodeRow = tuple[str, int | None, float, str]


def decode_rows(entries: int, folder: Path, count: bool = True) -> list[DecodeRow]:
    """`saves.read_entries` iterated over an `entries`-entry save (split, checksum, decode,
    check, replay) and, as its reference, `json.loads` of each of the same entries dumped as
    one JSON line each: (figure, instructions by callgrind, CPU seconds, note), the
    reference first. Instructions where `count` and valgrind can count them (each in a
    process of its own, `DECODE_COUNT`); CPU seconds in this process, median of 3."""
    path, warm = folder / "decode.toml", folder / "warm.toml"
    build(path, entries, random.Random(1))
    build(warm, DECODE_WARM, random.Random(2))
    lines = [json.dumps(read.entry).encode() for read in saves.read_entries(path)]
    warm_lines = [json.dumps(read.entry).encode() for read in saves.read_entries(warm)]
    (folder / "decode.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    (folder / "warm.jsonl").write_bytes(b"\n".join(warm_lines) + b"\n")

    def store() -> None:
        for _ in saves.read_entries(path):
            pass

    def reference() -> None:
        for line in lines:
            json.loads(line)

    store(), reference()  # the first use of each (imports, msgspec's types) left out
    counts: tuple[int | None, int | None] = (None, None)
    if count:
        counts = (
            decode_count("json", folder / "warm.jsonl", folder / "decode.jsonl", folder),
            decode_count("store", warm, path, folder),
        )
    size = path.stat().st_size / 1e6
    return [
        (
            "json.loads of the same entries as JSON lines",
            counts[0],
            cpu_median(reference),
            f"{sum(map(len, lines)) / 1e6:.1f} MB of JSON",
        ),
        (
            f"store: read_entries, {entries:,} entries",
            counts[1],
            cpu_median(store),
            f"{size:.1f} MB save",
        ),
    ]


def print_decode(entries: int, count: bool = True) -> bool:
    """The decode table; whether the store is within its budget of the reference: on
    instructions (callgrind), or on CPU time where they cannot be counted."""
    with tempfile.TemporaryDirectory() as tmp:
        reference, store = decode_rows(entries, Path(tmp), count)
    ref_name, ref_count, ref_cpu, ref_note = reference
    name, store_count, store_cpu, note = store
    cpu_ratio = store_cpu / ref_cpu
    if ref_count and store_count is not None:
        ratio: float | None = store_count / ref_count
        on = "instructions (callgrind), CPU seconds beside (median of 3)"
    else:
        ratio = None
        on = "CPU seconds (median of 3): instructions not counted"
    met = (cpu_ratio if ratio is None else ratio) <= DECODE_BUDGET
    print(f"Store decode: {entries:,} entries, {on}, Python {sys.version.split()[0]}")
    print(
        f"{'figure':46}  {'instructions':>12}  {'ratio':>6}  {'budget':>7}  met  "
        f"{'CPU':>9}  {'ratio':>6}  note"
    )

    def shown(value: int | None) -> str:
        return "n/a" if value is None else f"{value / 1e6:,.1f} M"

    print(
        f"{ref_name:46}  {shown(ref_count):>12}  {'1.00x':>6}  {'':>7}  -    "
        f"{ref_cpu:>7.3f} s  {'1.00x':>6}  {ref_note}"
    )
    counted = "n/a" if ratio is None else f"{ratio:.2f}x"
    print(
        f"{name:46}  {shown(store_count):>12}  {counted:>6}  {f'<= {DECODE_BUDGET}x':>7}  "
        f"{'yes' if met else 'NO':3}  {store_cpu:>7.3f} s  {cpu_ratio:>5.2f}x  {note}"
    )
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--appends", type=int, default=200)
    parser.add_argument(
        "--no-fsync", action="store_true", help="time without flushing to disk (os.fsync stubbed)"
    )
    parser.add_argument(
        "--campaign",
        type=int,
        metavar="N",
        help="instead: each command on an N-entry save (e.g. 100000), its time and peak RSS",
    )
    parser.add_argument(
        "--count",
        action="store_true",
        help="with --campaign: the first reads counted too (callgrind; slow: some minutes"
        " per read at 100,000 entries), their budget judged on the count",
    )
    parser.add_argument(
        "--decode",
        type=int,
        metavar="N",
        help="instead: read_entries on an N-entry save against json.loads of its entries",
    )
    args = parser.parse_args()
    if args.decode is not None:
        return 0 if print_decode(args.decode) else 1
    if args.campaign is not None:
        return 0 if print_campaign(args.campaign, args.count) else 1
    if args.no_fsync:
        os.fsync = lambda fd: None
    rng = random.Random(1)
    rows: list[tuple[str, list[float]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        small, big = folder / "new.toml", folder / "big.toml"
        saves.new_game(small, "new", RULESETS)
        build(big, args.entries, rng)
        size = big.stat().st_size
        pool = combats(rng)

        def append(path: Path) -> Callable[[], object]:
            return lambda: saves.append_combat(path, *rng.choice(pool))

        rows.append(
            (
                f"first append after an outside write, {args.entries:,}",
                timed(append(big), 1),
            )
        )
        on_new, on_big = timed_in_turn(append(small), append(big), args.appends)
        rows.append(("append_combat, new save", on_new))
        rows.append((f"append_combat, {args.entries:,}-entry save", on_big))
        rows.append(
            ("add_marker, new save", timed(lambda: saves.add_marker(small, "DG", "0101"), 50))
        )
        rows.append(
            (
                f"add_marker, {args.entries:,}-entry save",
                timed(lambda: saves.add_marker(big, "DG", "0101"), 50),
            )
        )
        rows.append(
            (
                f"advance_turn (replays all), {args.entries:,}",
                timed(lambda: saves.advance_turn(big), 3),
            )
        )
        rows.append(
            (f"load_game, {args.entries:,} entries", timed(lambda: saves.load_game(big), 5))
        )
        rows.append((f"load_game, {args.entries:,}, fresh process", fresh_process_load(big, 3)))
        rows.append(("list_games (2 saves)", timed(lambda: saves.list_games(folder), 20)))
        text = big.read_text(encoding="utf-8")
        rows.append(
            ("reference: tomllib.loads of the same file", timed(lambda: tomllib.loads(text), 1))
        )

    print(
        f"Save store benchmark: {args.entries:,}-entry save of {size / 1e6:.1f} MB, Python "
        f"{sys.version.split()[0]}{', fsync stubbed out' if args.no_fsync else ''}"
    )
    print(f"{'operation':46}  {'runs':>5}  {'median ms':>10}  {'p95 ms':>8}  {'max ms':>8}")
    for name, times in rows:
        ordered = sorted(times)
        p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
        print(
            f"{name:46}  {len(times):>5}  {statistics.median(times) * 1000:>10.2f}  "
            f"{p95 * 1000:>8.2f}  {max(times) * 1000:>8.2f}"
        )
    ratio = statistics.median(on_big) / statistics.median(on_new)
    print(f"append_combat median, {args.entries:,}-entry save / new save: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
