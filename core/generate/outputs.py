"""What every generated output is, whatever produced it, and the checks it passes before it is
returned (docs/writing-tools.md): each part fits its destination as that platform counts, holds
no never-publish phrase, and the draft keeps the brief's links and mentions. A draft that
cannot be made to fit carries its problems; nothing is ever cut silently."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.brand.never_publish import Matcher
from core.generate.text import Entities
from core.posts.rules import PLATFORM_LIMITS, count, text_problems


@dataclass(frozen=True, slots=True)
class Target:
    """A destination of the run: a profile and its platform."""

    profile: str
    connector: str


@dataclass(frozen=True, slots=True)
class Style:
    """What of the brand voice shapes a draft (core/brand/voice.py)."""

    terms: tuple[tuple[str, str], ...] = ()  # (use, instead_of)
    emoji: str = "sparing"
    hashtags: str = "few"
    signature: tuple[str, ...] = ()
    never_publish: Matcher = field(default_factory=lambda: Matcher(()))
    # Approved example posts: the built-in engine takes their shape (length, layout, emoji,
    # hashtag count), never their words.
    examples: tuple[str, ...] = ()


@dataclass(slots=True)
class Draft:
    profile: str
    connector: str
    variant: int
    parts: list[str]
    problems: list[str] = field(default_factory=list)

    @property
    def fits(self) -> bool:
        return not self.problems


@dataclass(slots=True)
class Output:
    drafts: list[Draft] = field(default_factory=list)
    hashtags: list[str] = field(default_factory=list)
    # What the run could not do as asked, for the caller to know (e.g. fewer variations).
    notes: list[str] = field(default_factory=list)


def part_problems(connector: str, text: str) -> list[str]:
    """A part's problems on its platform: blank where text is needed, or over a limit."""
    problems = text_problems(connector, text)
    if not text.strip():
        problems.insert(0, "the part is empty")
    return problems


def limit_of(connector: str) -> tuple[int, str]:
    p = PLATFORM_LIMITS[connector]
    return p["max_length"], p["unit"]


def measured(connector: str, text: str) -> tuple[int, int, str]:
    """(length as the platform counts it, its limit, the unit)."""
    limit, unit = limit_of(connector)
    return count(connector, text), limit, unit


def check(draft: Draft, style: Style, brief: Entities) -> Draft:
    """The checks every output passes, from any backend: the problems are added to the draft's
    own (a backend may already know it could not fit something)."""
    problems = list(draft.problems)
    for index, part in enumerate(draft.parts):
        where = f"part {index + 1}: " if len(draft.parts) > 1 else ""
        problems += [where + p for p in part_problems(draft.connector, part)]
        if (phrase := style.never_publish.find(part)) is not None:
            problems.append(f"{where}contains {phrase!r}, which the brand voice never publishes")
    missing = brief.missing_from("\n".join(draft.parts))
    if missing:
        problems.append(f"leaves out the brief's {', '.join(missing[:5])}")
    draft.problems = list(dict.fromkeys(problems))
    return draft
