"""The README stays short and the docs hold the rest: every link between them leads to a
file, the rulings page quotes every ruling tables.toml holds, and CI runs the README's test
command exactly. (tests/docs/test_readme.py runs their commands; tests/bench/test_bench.py checks the
performance page quotes a full bench run.)"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_the_readme_is_read_in_five_minutes() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 200
    for page in ("desk", "cli", "luck", "save-format", "rulings", "performance"):
        assert f"(docs/{page}.md)" in text


@pytest.mark.parametrize("doc", [README, *PAGES], ids=lambda path: path.name)
def test_every_link_to_a_file_leads_to_one(doc: Path) -> None:
    targets = [t for t in LINK.findall(doc.read_text(encoding="utf-8")) if "://" not in t]
    missing = [t for t in targets if not (doc.parent / t).exists()]
    assert not missing


def test_the_rulings_page_quotes_every_ruling() -> None:
    page = (ROOT / "docs" / "rulings.md").read_text(encoding="utf-8")
    tables = tomllib.loads((ROOT / "tables.toml").read_text(encoding="utf-8"))
    rulesets = {key: v for key, v in tables.items() if isinstance(v, dict) and "rulings" in v}
    assert len(rulesets) >= 7
    for key, ruleset in rulesets.items():
        assert f"## {ruleset['title']} (`{key}`)" in page
        for ruling in ruleset["rulings"]:
            assert f"- {ruling}\n" in page, ruling


def test_ci_runs_the_readme_test_command() -> None:
    readme = README.read_text(encoding="utf-8")
    section = readme[readme.index("Run the tests:") :]
    command = re.search(r"```sh\n(.*?)\n```", section, re.S)
    assert command is not None
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").rstrip("\n").splitlines()
    assert ci[-1] == command.group(1)
