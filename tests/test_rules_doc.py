"""Every section of docs/rules.md that the code, the tests or the docs cite exists."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CITATION = re.compile(r"docs/rules\.md §(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?")


def cited_files():
    for folder in ("games", "tests", "bench", "docs", "nmbr9site"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in {".py", ".md", ".json", ".html"} and path != Path(__file__):
                yield path
    yield ROOT / "README.md"


def test_every_cited_section_of_the_rules_exists():
    headings = re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\. ", (ROOT / "docs/rules.md").read_text(), re.M)
    headings += re.findall(r"^### (\d+\.\d+) ", (ROOT / "docs/rules.md").read_text(), re.M)
    cited = set()
    for path in cited_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        assert "RULES.md" not in text, f"{path} cites RULES.md, which is not in the repository"
        for first, last in CITATION.findall(text):
            cited.update(filter(None, (first, last)))
    assert len(cited) >= 10
    missing = sorted(cited - set(headings))
    assert not missing, f"cited sections missing from docs/rules.md: {missing}"
