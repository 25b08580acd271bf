"""Every check POST /v1/posts makes before anything is created (SPEC 4, 7, 8; PLATFORMS.md).

Order: the request's own fields (VALIDATION_ERROR), then the media library (INVALID_MEDIA), then
each destination's rules for the text (VALIDATION_ERROR), the brand voice's never-publish phrases
(NEVER_PUBLISH_PHRASE) and the attachments (INVALID_MEDIA_COMBINATION). Every problem of the failing step is named in one message.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import grpc
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from core.brand import service as brand
from core.connections.errors import ProfileNotConnected
from core.db.models import media, profiles
from core.errors import DomainError, ValidationError
from core.posts.rules import POST_TYPES, MediaInfo, content_problems, default_post_type, media_problems
from core.posts.schedule import parse_schedule
from core.profiles.service import CONNECTORS

MAX_CONTENT_CHARS = 25_000  # the longest any platform takes (X Premium); SPEC leaves it open
MAX_PROFILES = 50
MAX_MEDIA = 35  # TikTok photo posts; SPEC leaves it open
MAX_TITLE = 100  # SPEC 8


class InvalidMedia(DomainError):
    """One or more media_ids are not confirmed media of this organization's library (SPEC 7)."""

    reason = "INVALID_MEDIA"
    grpc_code = grpc.StatusCode.INVALID_ARGUMENT


class InvalidMediaCombination(DomainError):
    """The attachments break a destination's rule (SPEC 7)."""

    reason = "INVALID_MEDIA_COMBINATION"
    grpc_code = grpc.StatusCode.INVALID_ARGUMENT


class InvalidPostState(DomainError):
    """The post's status does not allow this change (409)."""

    reason = "INVALID_POST_STATE"
    grpc_code = grpc.StatusCode.FAILED_PRECONDITION


@dataclass(frozen=True, slots=True)
class CreateRequest:
    content: str
    profiles: list[str]
    schedule_at: str | None = None
    media_ids: tuple[str, ...] = ()
    post_types: dict[str, str] | None = None
    title: str | None = None


@dataclass(frozen=True, slots=True)
class TargetProfile:
    id: str
    slug: str
    connector: str
    connection_status: str = "connected"


@dataclass(frozen=True, slots=True)
class CreatePlan:
    profiles: list[TargetProfile]
    schedule_at: datetime | None
    media: list[MediaInfo]
    post_types: dict[str, str]


async def validate_create(
    conn: AsyncConnection, org_id: str, request: CreateRequest, now: datetime, *, live: bool = False
) -> CreatePlan:
    check_fields(request)
    schedule_at = parse_schedule(request.schedule_at, now)
    targets = await _load_profiles(conn, org_id, request.profiles)
    if live:
        refuse_unconnected(targets)
    overrides = request.post_types or {}
    post_types = {t.connector: overrides.get(t.connector) or default_post_type(t.connector) for t in targets}
    found_media = await load_media(conn, org_id, list(request.media_ids))
    for target in targets:
        check_content_for(target.connector, target.slug, request.content, request.title, post_types[target.connector])
    phrases = await brand.matchers(conn, org_id, [t.id for t in targets])
    for target in targets:
        brand.refuse_never_publish(phrases[target.id], target.slug, request.content, request.title)
    for target in targets:
        check_media_for(target.connector, target.slug, post_types[target.connector], found_media)
    return CreatePlan(targets, schedule_at, found_media, post_types)


def check_fields(request: CreateRequest) -> None:
    if not request.content.strip():
        raise ValidationError("content is required")
    if len(request.content) > MAX_CONTENT_CHARS:
        raise ValidationError(f"content is {len(request.content)} characters; the maximum is {MAX_CONTENT_CHARS}")
    if not request.profiles:
        raise ValidationError("profiles must name at least one profile")
    if len(request.profiles) > MAX_PROFILES:
        raise ValidationError(f"profiles names {len(request.profiles)} profiles; the maximum is {MAX_PROFILES}")
    duplicates = sorted({p for p in request.profiles if request.profiles.count(p) > 1})
    if duplicates:
        raise ValidationError(f"profiles names {', '.join(map(repr, duplicates))} more than once")
    if request.title is not None and len(request.title) > MAX_TITLE:
        raise ValidationError(f"title is {len(request.title)} characters; the maximum is {MAX_TITLE}")
    for platform, post_type in (request.post_types or {}).items():
        if platform not in CONNECTORS:
            raise ValidationError(f"post_types: {platform[:40]!r} is not a platform ({', '.join(CONNECTORS)})")
        if post_type not in POST_TYPES[platform]:
            raise ValidationError(
                f"post_types: {post_type[:40]!r} is not a post type of {platform} ({', '.join(POST_TYPES[platform])})"
            )
    if len(request.media_ids) > MAX_MEDIA:
        raise ValidationError(f"media_ids names {len(request.media_ids)} files; the maximum is {MAX_MEDIA}")
    repeated = sorted({m for m in request.media_ids if request.media_ids.count(m) > 1})
    if repeated:
        raise ValidationError(f"media_ids names {', '.join(map(repr, repeated))} more than once")


def refuse_unconnected(targets: list[TargetProfile]) -> None:
    """Live publishing: every profile must have a connected account (PROFILE_NOT_CONNECTED
    naming the first that has none, and every such profile in the message)."""
    unconnected = [t for t in targets if t.connection_status != "connected"]
    if unconnected:
        first = unconnected[0]
        names = ", ".join(f"{t.slug!r} ({t.connection_status})" for t in unconnected)
        raise ProfileNotConnected(
            f"connect the account of {names} first: live posts go out only from connected accounts",
            profile=first.slug,
            connection_status=first.connection_status,
        )


async def _load_profiles(conn: AsyncConnection, org_id: str, slugs: list[str]) -> list[TargetProfile]:
    rows = await conn.execute(
        select(profiles.c.id, profiles.c.slug, profiles.c.connector, profiles.c.connection_status).where(
            profiles.c.org_id == org_id, profiles.c.slug.in_(slugs)
        )
    )
    by_slug = {r.slug: TargetProfile(r.id, r.slug, r.connector, r.connection_status) for r in rows}
    unknown = [s for s in slugs if s not in by_slug]
    if unknown:
        raise ValidationError(f"unknown profiles: {', '.join(repr(s[:64]) for s in unknown)}")
    return [by_slug[s] for s in slugs]


async def load_media(conn: AsyncConnection, org_id: str, media_ids: list[str]) -> list[MediaInfo]:
    """The confirmed media of this organization, in the order given; INVALID_MEDIA naming every id
    that is unknown, unconfirmed or another organization's (they are indistinguishable)."""
    if not media_ids:
        return []
    rows = await conn.execute(
        select(media.c.id, media.c.kind, media.c.mime_type, media.c.size_bytes, media.c.width, media.c.height).where(
            media.c.org_id == org_id, media.c.id.in_(media_ids), media.c.status == "confirmed"
        )
    )
    found = {r.id: MediaInfo(r.id, r.kind, r.mime_type, r.size_bytes, r.width, r.height) for r in rows}
    missing = [m for m in media_ids if m not in found]
    if missing:
        raise InvalidMedia(f"not confirmed media of this library: {', '.join(repr(m[:40]) for m in missing)}")
    return [found[m] for m in media_ids]


def check_content_for(connector: str, slug: str, content: str, title: str | None, post_type: str) -> None:
    problems = content_problems(connector, content, title=title, post_type=post_type)
    if problems:
        raise ValidationError(f"profile {slug!r} ({connector}): {'; '.join(problems)}")


def check_media_for(connector: str, slug: str, post_type: str, found: list[MediaInfo]) -> None:
    problems = media_problems(connector, post_type, found)
    if problems:
        raise InvalidMediaCombination(f"profile {slug!r} ({connector}): {'; '.join(problems)}")
