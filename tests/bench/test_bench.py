"""The benchmark command runs and prints every figure (its numbers are not checked: they
depend on the machine; `--smoke` runs each figure once with tiny sizes, in seconds)."""

from __future__ import annotations

import importlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tui.engine.registry import BUILT_IN_IDS as RULESET_IDS
from tui.engine.registry import short_name

ROOT = Path(__file__).resolve().parents[2]

FIGURES = (
    "cold start: a bare Textual form (reference)",
    "cold start: crtdesk to the start screen",
    "cold start: crtdesk open NAME to a combat screen",
    "cold start: open NAME, nothing kept (first start)",
    "instructions: minimal app to its first frame",
    "instructions: crtdesk to the start screen",
    "instructions: crtdesk open NAME to a combat screen",
    "bytes: a combat screen's first frame",
    "bytes: per keystroke (all screens)",
    "bytes: Tab to the next field",
    "keystroke to completion: 2,000 units",
    "instructions: keystroke to completion: 2,000 units",
    "roll and record on a 20-entry save",
    "open a 20-entry save from the list: the open call",
    "open a 20-entry save from the list: the screen shown",
    "open a 20-entry save from the list: UI blocked while read",
    "open a 20-entry save from the list: last combat shown",
    "save: append to a new save",
    "save: append to a 20-entry save",
    "review: open a 20-entry save",
    "review: peak RSS with it open",
    "units: crtdesk units, the log read",
    "units: crtdesk units, the state kept",
    "units: completion candidates, 2,000 units",
    "cli: crtdesk resolve",
)
# The CLI's start counted beside Python's own `import tomllib`.
CLI_COUNTS = (
    "instructions: python -c 'import tomllib' (reference)",
    "instructions: crtdesk resolve",
    "instructions: crtdesk resolve, nothing kept (first run)",
)


def test_the_bench_prints_every_figure_with_its_budget():
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench.py"), "--smoke"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("crtdesk bench ") and "cores" in lines[0]
    rows = {line.split("  ")[0].strip(): line for line in lines[2:] if "  " in line}
    wanted = list(FIGURES) + list(CLI_COUNTS)
    for ruleset in RULESET_IDS:
        wanted.append(f"keystroke to preview: {short_name(ruleset)}")
        wanted.append(f"engine share: {short_name(ruleset)}")
        wanted.append(f"instructions: keystroke to preview: {short_name(ruleset)}")
    missing = [name for name in wanted if name not in rows]
    assert not missing, done.stdout
    # Every row names its budget; the engine is timed on every ruleset.
    budgeted = [name for name in wanted if name != "cli: crtdesk resolve"]
    assert all("<" in rows[name] or "report" in rows[name] for name in budgeted)
    for ruleset in RULESET_IDS:
        assert " ms " in rows[f"engine share: {short_name(ruleset)}"]
    chart_row = rows["engine share: a player's chart (hill-203)"]
    assert " ms " in chart_row and "< 2 ms" in chart_row
    # The first screen's keystroke is timed; the others say why they are not.
    first = rows[f"keystroke to preview: {short_name(RULESET_IDS[0])}"]
    assert " ms " in first
    for ruleset in RULESET_IDS[1:]:
        assert "--smoke" in rows[f"keystroke to preview: {short_name(ruleset)}"]
    # The CLI's budget is not a time: resolving imports neither textual nor rich.
    assert "imports neither" in rows["cli: crtdesk resolve"]


def test_the_performance_page_quotes_a_full_run_of_the_bench():
    """docs/performance.md quotes the table: its date, the machine's size, and every figure
    the bench prints, each with its verdict. The README carries no bench history."""
    page = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    quoted = page[page.index("## The latest full run") :]
    head = re.search(r"^crtdesk bench (\d{4}-\d\d-\d\d \d\d:\d\d UTC) · (\d+) cores", quoted, re.M)
    assert head is not None
    lines = {line.split("  ")[0]: line for line in quoted.splitlines()}
    wanted = [name.replace("20-entry", "10,000-entry") for name in FIGURES]
    for ruleset in RULESET_IDS:
        wanted += [f"keystroke to preview: {short_name(ruleset)}"]
        wanted += [f"engine share: {short_name(ruleset)}"]
        wanted += [f"instructions: keystroke to preview: {short_name(ruleset)}"]
    wanted += list(CLI_COUNTS)
    missing = [name for name in wanted if name not in lines]
    assert not missing
    # Every budget the quoted run states is met, or named where the page owns up to it.
    budgeted = [name for name in wanted if "report" not in lines[name]]
    assert all(" yes " in lines[name] or " NO " in lines[name] for name in budgeted)
    missed = [name for name in budgeted if " NO " in lines[name]]
    owned = quoted[quoted.index("### Budgets not met") :] if missed else ""
    assert all(f"`{name}`" in owned for name in missed), "a budget missed and not named"
    assert "crtdesk bench 20" not in (ROOT / "README.md").read_text(encoding="utf-8")


CAMPAIGN_FIGURES = (
    "crtdesk log",
    "crtdesk log --json",
    "crtdesk luck",
    "crtdesk report",
    "open in the desk",
    "review in the desk",
    "crtdesk turn, first",
    "crtdesk turn",
    "crtdesk marker remove",
    "crtdesk turn, the lock held",
)


def test_the_campaign_bench_prints_each_command_with_its_peak_rss():
    """`bench_saves.py --campaign N` (100,000 in docs/performance.md; a small save here)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_saves.py"), "--campaign", "200"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {line.split("  ")[0].strip(): line for line in done.stdout.splitlines()[2:]}
    for name in CAMPAIGN_FIGURES:
        row = rows.get(f"campaign: {name}")
        assert row is not None, done.stdout
        if "lock held" not in name:
            assert " MB " in row and "< 150 MB  yes" in row, row


def test_the_performance_page_quotes_a_campaign_run():
    """docs/performance.md quotes `bench_saves.py --campaign 100000 --count`: every
    command's row, each peak RSS within its budget, and the first reads counted, each
    within its budget."""
    page = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    quoted = page[page.index("## A long campaign") :]
    assert "Long campaign: 100,000 entries" in quoted
    table, _, counted = quoted.partition("First reads counted: 100,000 entries")
    rows = {line.split("  ")[0].strip(): line for line in table.splitlines()}
    for name in CAMPAIGN_FIGURES:
        row = rows.get(f"campaign: {name}")
        assert row is not None, name
        if "lock held" not in name:
            assert "< 150 MB  yes" in row, row
    # The first reads counted (`--count`), each within 3x the reference's count.
    counts = {line.split("  ")[0].strip(): line for line in counted.split("```")[0].splitlines()}
    for name in ("log", "luck", "report"):
        assert "<= 3x  yes" in counts[f"campaign: crtdesk {name}, first read"]
    assert "<= 3x  yes" in counts["campaign: crtdesk turn, first"]


def test_the_decode_bench_prints_the_store_beside_json_loads(capsys, monkeypatch):
    """`bench_saves.py --decode N` (2,000 in docs/performance.md; a tiny save here, in this
    process): the store's row with its ratio to the reference's and the budget, met or not
    (the exit status says which), on instructions counted by callgrind (each in a process of
    its own), the CPU seconds beside; on CPU seconds where valgrind is missing."""
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    bench_saves = importlib.import_module("bench_saves")
    met = bench_saves.print_decode(20)
    printed = capsys.readouterr().out
    lines = printed.splitlines()
    rows = {line.split("  ")[0].strip(): line for line in lines[2:]}
    reference = rows["json.loads of the same entries as JSON lines"]
    store = rows["store: read_entries, 20 entries"]
    cpu = re.search(r" s   ([0-9.]+)x  ", store)
    assert cpu is not None and float(cpu[1]) > 0, store
    if shutil.which("valgrind"):
        assert "instructions (callgrind)" in lines[0]
        counts = [re.search(r"  ([0-9,.]+) M   ", row) for row in (reference, store)]
        assert all(counts), (reference, store)
        ref_count, store_count = (float(c[1].replace(",", "")) for c in counts if c)
        assert ref_count > 0 and store_count > 0
        found = re.search(r" M   ([0-9.]+)x  <= 1.5x  (yes|NO) ", store)
        assert found is not None, store
        # The counts are shown to 0.1 M: the ratio, of the counts themselves, near theirs.
        assert abs(float(found[1]) - store_count / ref_count) < 0.15
        assert met == (found[2] == "yes") == (float(found[1]) <= 1.5)
    else:  # judged on CPU seconds, as the next test shows
        assert "instructions not counted" in lines[0]
    assert met == (" yes " in store)
    assert " 1.00x" in reference


def test_the_decode_bench_says_where_it_could_not_count(capsys, monkeypatch):
    """Without the count (valgrind missing), the budget is judged on CPU seconds, and the
    table says so."""
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    bench_saves = importlib.import_module("bench_saves")
    met = bench_saves.print_decode(20, count=False)
    lines = capsys.readouterr().out.splitlines()
    assert "CPU seconds (median of 3): instructions not counted" in lines[0]
    store = next(line for line in lines if line.startswith("store: read_entries, 20 entries"))
    found = re.search(r" n/a     n/a  <= 1.5x  (yes|NO)  +[0-9.]+ s  +([0-9.]+)x", store)
    assert found is not None, store
    assert met == (found[1] == "yes") == (float(found[2]) <= 1.5)


def _campaign_row(name: str, cpu: float, budget: tuple[str, float] | None) -> tuple:
    return (f"campaign: {name}", cpu, cpu, 50.0, budget, "")


@pytest.mark.parametrize("report_count", [2_900, 3_100])
def test_the_campaign_bench_judges_the_first_reads_on_their_count_where_counted(
    capsys, monkeypatch, report_count: int
):
    """`--campaign N --count`: the first reads' budget (3x json.loads) is judged on the
    instructions counted, each beside the reference's count; their CPU budget is shown
    beside, marked, not judged (here every first read is over it by CPU)."""
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    bench_saves = importlib.import_module("bench_saves")
    first = ("<= 3x json.loads", 1.0)
    rows = [
        _campaign_row("reference: json.loads, JSON lines", 0.5, None),
        _campaign_row("crtdesk report, first read", 3.5, first),
        _campaign_row("crtdesk report", 0.8, ("<= 2 s CPU", 2.0)),
    ]
    counts = [
        ("campaign: reference: json.loads, JSON lines", 1_000_000_000),
        ("campaign: crtdesk report, first read", report_count * 1_000_000),
    ]
    monkeypatch.setattr(bench_saves, "campaign", lambda entries, folder, count: (rows, counts))
    met = bench_saves.print_campaign(100_000, count=True)
    printed = capsys.readouterr().out
    by_cpu = next(line for line in printed.splitlines() if "json.loads (" in line)
    assert by_cpu.startswith("campaign: crtdesk report, first read")
    assert by_cpu.endswith("<= 3x json.loads (1.00 s)  no*"), by_cpu
    counted = [
        line
        for line in printed.splitlines()
        if line.startswith("campaign: crtdesk report, first read") and " M " in line
    ]
    assert len(counted) == 1
    ratio = report_count / 1000
    assert (
        f"{report_count:,} M   {ratio:.2f}x    <= 3x  {'yes' if ratio <= 3 else 'NO'}" in counted[0]
    )
    assert met == (ratio <= 3)
    assert "judged on the count above" in printed


def test_the_campaign_bench_judges_the_first_reads_on_cpu_where_a_count_failed(capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    bench_saves = importlib.import_module("bench_saves")
    rows = [_campaign_row("crtdesk report, first read", 3.5, ("<= 3x json.loads", 1.0))]
    counts = [
        ("campaign: reference: json.loads, JSON lines", 1_000_000_000),
        ("campaign: crtdesk report, first read", None),
    ]
    monkeypatch.setattr(bench_saves, "campaign", lambda entries, folder, count: (rows, counts))
    assert bench_saves.print_campaign(100_000, count=True) is False  # over by CPU
    printed = capsys.readouterr().out
    assert "<= 3x json.loads (1.00 s)  NO" in printed
    assert "the first reads judged on CPU" in printed
