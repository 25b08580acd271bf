"""The preview of POST /v1/posts (`POST /v1/posts:preview`, MCP `preview_post`): what each
destination would publish, part by part, with the dry run's verdicts.

It is the dry run (core/posts/dry_run.py) plus rendering: the same checks, the same `valid`,
the same problems, so a preview never disagrees with `validate_post` or with creation. On top,
for each profile: every text it would send (its version: customizations applied), counted the
platform's way against the limit that text has there, and the media each part attaches, in
order. Nothing is written and nothing is charged.

Warnings are what would not stop creation but deserves a human's look: a text within 10% of
its limit (an edit may push it over), and a draft, whose destination rules are checked only
when it is scheduled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncConnection

from core.errors import DomainError
from core.posts.dry_run import DryRun, Problem, ProfileCheck, validate_posts
from core.posts.rules import PLATFORM_LIMITS, MediaInfo, count
from core.posts.schedule import parse_schedule
from core.posts.validation import CreateRequest

NEAR_LIMIT = 0.9


@dataclass(frozen=True, slots=True)
class TextPart:
    role: str  # content, title, thread_item, first_comment
    text: str
    length: int
    max_length: int
    unit: str
    media: tuple[MediaInfo, ...] = ()


@dataclass(slots=True)
class Destination:
    check: ProfileCheck
    platform: str = ""
    warnings: list[Problem] = field(default_factory=list)
    parts: list[TextPart] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Preview:
    run: DryRun
    destinations: list[Destination]
    draft: bool
    schedule_at: datetime | None


async def preview_posts(
    conn: AsyncConnection,
    org_id: str,
    request: CreateRequest,
    now: datetime,
    *,
    balance: int,
    post_cost: int,
    live: bool = False,
    limited_to: tuple[str, ...] = (),
) -> Preview:
    run = await validate_posts(
        conn, org_id, request, now, balance=balance, post_cost=post_cost, live=live, limited_to=limited_to
    )
    destinations = [_destination(check, run.media or {}, draft=request.draft) for check in run.profiles]
    schedule_at = None
    if request.schedule_at and not request.draft:
        try:
            schedule_at = parse_schedule(request.schedule_at, now)
        except DomainError:
            schedule_at = None  # already one of the run's problems
    return Preview(run, destinations, request.draft, schedule_at)


def _destination(check: ProfileCheck, media: dict[str, MediaInfo], *, draft: bool) -> Destination:
    version = check.version
    if version is None:  # an unknown profile: its problem says so
        return Destination(check)
    limits = PLATFORM_LIMITS[check.connector]
    out = Destination(check, platform=limits["name"])

    def part(role: str, text: str, media_ids: tuple[str, ...] = ()) -> TextPart:
        attached = tuple(media[m] for m in media_ids if m in media)
        return TextPart(role, text, count(check.connector, text), limits["max_length"], limits["unit"], attached)

    if version.title is not None and limits.get("max_title_length"):
        out.parts.append(TextPart("title", version.title, len(version.title), limits["max_title_length"], "characters"))
    out.parts.append(part("content", version.content, version.media_ids))
    out.parts += [part("thread_item", item.content, item.media_ids) for item in version.thread]
    if version.first_comment is not None:
        out.parts.append(part("first_comment", version.first_comment))
    items = 0
    for text in out.parts:
        items += text.role == "thread_item"
        if text.max_length and NEAR_LIMIT * text.max_length <= text.length <= text.max_length:
            where = f"thread item {items}" if text.role == "thread_item" else text.role.replace("_", " ")
            out.warnings.append(
                Problem("NEAR_LIMIT", f"{where} is {text.length} of {text.max_length} {text.unit}: little room to edit")
            )
    if draft:
        out.warnings.append(
            Problem("DRAFT", f"a draft: {limits['name']}'s text and media rules are checked when it is scheduled")
        )
    return out
