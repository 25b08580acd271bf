"""The dry run of POST /v1/posts (`POST /v1/posts:validate`, MCP `validate_post`): every check
creation makes, for every profile at once, answered instead of raised; nothing is written.

It runs the same rule functions as creation (core/posts/validation.py, core/posts/rules.py,
core/brand): `valid` is true exactly when creation would accept the request (tested against
creation on the same inputs). Creation stops at the first failing step; the dry run reports
every problem of every step it can reach (media rules need the media to exist; a request-wide
problem such as a blank content or a bad schedule is reported once, not per profile).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from core.brand import service as brand
from core.db.models import profiles
from core.errors import DomainError
from core.identity import profile_limits
from core.posts.features import missing_scopes, unsupported
from core.posts.notices import Notice, notices_for
from core.posts.rules import (
    PLATFORM_LIMITS,
    count,
    default_post_type,
)
from core.posts.schedule import parse_datetime, parse_schedule
from core.posts.validation import (
    CreateRequest,
    InvalidMedia,
    MediaInfo,
    check_fields,
    load_media,
    media_problems_of,
    text_problems_of,
)
from core.posts.versions import Version


@dataclass(frozen=True, slots=True)
class Problem:
    code: str
    message: str


@dataclass(slots=True)
class ProfileCheck:
    profile: str
    connector: str = ""
    post_type: str = ""
    problems: list[Problem] = field(default_factory=list)
    # The content as the platform counts it, against its limit (0 when the profile is unknown).
    length: int = 0
    max_length: int = 0
    unit: str = ""
    # What the preview renders (core/posts/preview.py); None for an unknown profile.
    display_name: str = ""
    version: Version | None = None
    # The request's fields this destination does not use (not problems: creation goes ahead).
    notices: list[Notice] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.problems


@dataclass(frozen=True, slots=True)
class DryRun:
    problems: list[Problem]
    profiles: list[ProfileCheck]
    credits_required: int
    balance: int
    # The confirmed media the request names, by id (None when one is not confirmed media).
    media: dict[str, MediaInfo] | None = None

    @property
    def valid(self) -> bool:
        return not self.problems and all(p.valid for p in self.profiles)

    @property
    def deliverable(self) -> bool:
        return self.valid and self.balance >= self.credits_required


def _problem(error: DomainError) -> Problem:
    return Problem(error.reason, error.message)


async def validate_posts(
    conn: AsyncConnection,
    org_id: str,
    request: CreateRequest,
    now: datetime,
    *,
    balance: int,
    post_cost: int,
    live: bool = False,
    limited_to: tuple[str, ...] = (),
) -> DryRun:
    """`limited_to`: the caller's profile limits (core/identity/profile_limits.py): a profile
    outside them is checked as an unknown one."""
    problems: list[Problem] = []
    try:
        check_fields(request)
    except DomainError as error:
        problems.append(_problem(error))
    try:
        if request.draft:
            parse_datetime(request.schedule_at, "schedule_at") if request.schedule_at else None
        else:
            parse_schedule(request.schedule_at, now)
    except DomainError as error:
        problems.append(_problem(error))
    slugs = list(dict.fromkeys(request.profiles))
    stmt = select(
        profiles.c.id,
        profiles.c.slug,
        profiles.c.connector,
        profiles.c.connection_status,
        profiles.c.granted_scopes,
        profiles.c.display_name,
    ).where(profiles.c.org_id == org_id, profiles.c.slug.in_(slugs))
    rows = await conn.execute(profile_limits.narrowed(stmt, profiles.c.id, org_id, limited_to))
    known = {r.slug: r for r in rows}
    media = None
    named = [m for slug in slugs for m in request.version(slug).all_media_ids]
    try:
        media = {m.media_id: m for m in await load_media(conn, org_id, list(dict.fromkeys(named)))}
    except InvalidMedia as error:
        problems.append(_problem(error))
    overrides = request.post_types or {}
    phrases = await brand.matchers(conn, org_id, [r.id for r in known.values()])
    checks, units = [], 0
    for slug in slugs:
        row = known.get(slug)
        if row is None:
            checks.append(ProfileCheck(slug, problems=[Problem("VALIDATION_ERROR", f"unknown profile {slug[:64]!r}")]))
            continue
        version = request.version(slug)
        units += version.units
        post_type = version.post_type or overrides.get(row.connector) or default_post_type(row.connector)
        check = ProfileCheck(slug, row.connector, post_type, display_name=row.display_name, version=version)
        platform = PLATFORM_LIMITS[row.connector]
        check.max_length, check.unit = platform["max_length"], platform["unit"]
        check.length = count(row.connector, version.content)
        check.notices = notices_for(slug, row.connector, version, post_type, media)
        if live and row.connection_status != "connected":
            check.problems.append(
                Problem("PROFILE_NOT_CONNECTED", f"{slug!r} has no connected account ({row.connection_status})")
            )
        if (error := unsupported([(slug, row.connector, version)])) is not None:
            check.problems.append(_problem(error))
        elif live and (scopes := missing_scopes(row.connector, version, row.granted_scopes)) is not None:
            check.problems.append(
                Problem("RECONNECT_REQUIRED", f"{slug!r} lacks {' '.join(scopes[1])} for a {scopes[0]}; reconnect it")
            )
        if post_type not in platform["media"]:
            check.problems.append(
                Problem("VALIDATION_ERROR", f"{post_type[:40]!r} is not a post type of {row.connector}")
            )
            checks.append(check)
            continue
        if request.draft:  # a draft's destination rules are checked when it is scheduled
            checks.append(check)
            continue
        _destination_problems(check, row, version, post_type, media)
        try:
            brand.refuse_never_publish(phrases[row.id], slug, *(text for _, text in version.texts))
        except DomainError as error:
            check.problems.append(_problem(error))
        checks.append(check)
    return DryRun(problems, checks, post_cost * units, balance, media)


def _destination_problems(check: ProfileCheck, row, version, post_type: str, media) -> None:
    """Every text and attachment rule of the destination for this profile's version (the same
    generators creation raises from)."""
    for where, problems in text_problems_of(row.connector, version, post_type):
        check.problems += [Problem("VALIDATION_ERROR", f"{where}{text}") for text in problems]
    if media is None:
        return
    if not all(m in media for m in version.all_media_ids):
        check.problems.append(
            Problem("INVALID_MEDIA", "not confirmed media of this library (see the request's problems)")
        )
        return
    for where, problems in media_problems_of(row.connector, version, post_type, media):
        check.problems += [Problem("INVALID_MEDIA_COMBINATION", f"{where}{text}") for text in problems]
