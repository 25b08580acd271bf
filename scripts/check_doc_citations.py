"""Every citation of a section of the project's docs names one that exists (make lint).

    .venv/bin/python scripts/check_doc_citations.py

Code, protos, configs and docs cite the docs as `docs/<file>.md, "<section>"` (the comma is
optional). A section is a heading of that file (`#` to `####`, its text exactly, or its text
before a parenthesis: "The publisher" for "The publisher (`herald worker`)"), or the bold
lead of a paragraph or list item (`**<section>**`, `**<section>.**`, `**<section>**:`). A citation
of a file that does not exist, or of a section the file does not have, fails, so a renamed heading
cannot leave its citations behind.
"""

from __future__ import annotations

import re
import subprocess
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CITATION = re.compile(r'(docs/[a-z0-9_-]+\.md),? "([^"\n]+)"')
HEADING = re.compile(r"^#{1,4} (.+?)\s*#*\s*$", re.M)
BOLD_LEAD = re.compile(r"(?:^|\n)\s*(?:[-*] |\d+\. )?\*\*([^*\n]+?)[.:]?\*\*")
SOURCES = (".py", ".proto", ".yaml", ".html", ".md", ".txt", ".toml", ".sh")
PLACEHOLDERS = {"<heading>", "<section>", "<Platform>"}


@cache
def sections(doc: str) -> frozenset[str]:
    path = ROOT / doc
    if not path.is_file():
        return frozenset()
    text = path.read_text()
    found = {h.strip().strip("`") for h in HEADING.findall(text)}
    # "The publisher (`herald worker`)" is cited as "The publisher" too.
    found |= {h.split(" (", 1)[0].strip() for h in found}
    found |= {b.strip().rstrip(".:") for b in BOLD_LEAD.findall(text)}
    return frozenset(found)


def tracked_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [
        ROOT / name
        for name in listed.split()
        if name.endswith(SOURCES) and not name.startswith(("generated/", "third_party/", "tools/"))
    ]


def broken_citations() -> list[str]:
    problems = []
    for path in tracked_files():
        if not path.is_file():
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for doc, section in CITATION.findall(line):
                if section in PLACEHOLDERS:
                    continue
                if not (ROOT / doc).is_file():
                    problems.append(f"{path.relative_to(ROOT)}:{number}: {doc} does not exist")
                elif section.strip() not in sections(doc):
                    problems.append(f'{path.relative_to(ROOT)}:{number}: {doc} has no section "{section}"')
    return problems


def main() -> int:
    problems = broken_citations()
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} citation(s) of the docs name no section (a heading or a paragraph's bold lead)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
