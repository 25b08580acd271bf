"""Every check POST /v1/posts makes before anything is created (docs/posts.md, "Creating posts";
docs/api.md, "Errors" and "Limits"; docs/platforms.md).

Order: the request's own fields (VALIDATION_ERROR), the features each destination can take
(UNSUPPORTED_FEATURE; live: PROFILE_NOT_CONNECTED, RECONNECT_REQUIRED), then the media library
(INVALID_MEDIA), then each destination's rules for every text its post sends (VALIDATION_ERROR),
the brand voice's never-publish phrases (NEVER_PUBLISH_PHRASE) and the attachments
(INVALID_MEDIA_COMBINATION). Every problem of the failing step is named in one message. Each
profile's post is its own version (core/posts/versions.py). A draft is checked up to the media
library; the destination rules run when it is scheduled.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime

import grpc
from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncConnection

from core.brand import service as brand
from core.db.engine import is_sqlite
from core.db.models import media, profiles
from core.db.prepared import Prepared
from core.errors import DomainError, ValidationError
from core.platform_accounts.errors import ProfileNotConnected
from core.posts.features import refuse_missing_scopes, unsupported
from core.posts.field_checks import (
    check_extras,
    check_media_ids,
    check_profiles,
    check_text,
    check_title,
)
from core.posts.rules import (
    PLATFORMS,
    POST_TYPES,
    MediaInfo,
    content_problems,
    default_post_type,
    media_problems,
    text_problems,
)
from core.posts.schedule import parse_datetime, parse_schedule
from core.posts.versions import Extras, Version, version_for


class InvalidMedia(DomainError):
    """One or more media_ids are not confirmed media of this organization's library."""

    reason = "INVALID_MEDIA"
    grpc_code = grpc.StatusCode.INVALID_ARGUMENT


class InvalidMediaCombination(DomainError):
    """The attachments break a destination's rule: count, mix, type, size or aspect ratio."""

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
    extras: Extras = field(default_factory=Extras)
    draft: bool = False
    next_slot: bool = False

    def version(self, slug: str) -> Version:
        return version_for(slug, content=self.content, media_ids=self.media_ids, title=self.title, extras=self.extras)


@dataclass(frozen=True, slots=True)
class TargetProfile:
    id: str
    slug: str
    connector: str
    connection_status: str = "connected"
    granted_scopes: str = ""
    # The language its posts get when the request names none (None: no default).
    default_language: str | None = None
    # Read only for next_slot (core/posts/slot_assignment.py `next_slots`, its `read`).
    slot_table: str | None = None
    slot_watermark: datetime | None = None


@dataclass(frozen=True, slots=True)
class Target:
    """One post to create: the profile, its effective version and post type."""

    profile: TargetProfile
    version: Version
    post_type: str


@dataclass(frozen=True, slots=True)
class CreatePlan:
    targets: list[Target]
    schedule_at: datetime | None
    media: dict[str, MediaInfo]


async def validate_create(
    conn: AsyncConnection, org_id: str, request: CreateRequest, now: datetime, *, live: bool = False
) -> CreatePlan:
    check_fields(request)
    if request.draft:  # a draft keeps its intended time, unbounded: it is checked when scheduled
        schedule_at = parse_datetime(request.schedule_at, "schedule_at") if request.schedule_at else None
    else:
        schedule_at = parse_schedule(request.schedule_at, now)
    # next_slot's slot tables come with the profiles on SQLite (its write transaction already
    # holds the lock); PostgreSQL reads them once it holds the profiles' locks
    # (core/posts/slot_assignment.py), so they are not read twice.
    slots = request.next_slot and not request.draft and is_sqlite(conn.engine)
    profiles_ = await _load_profiles(conn, org_id, request.profiles, slots=slots)
    targets = [_target(p, request) for p in profiles_]
    refuse_unsupported(targets)
    if live:
        refuse_unconnected(profiles_)
        refuse_missing_scopes(
            [(t.profile.slug, t.profile.connector, t.version) for t in targets],
            {p.slug: p.granted_scopes for p in profiles_},
        )
    named = list(dict.fromkeys(m for t in targets for m in t.version.all_media_ids))
    found_media = {m.media_id: m for m in await load_media(conn, org_id, named)}
    if not request.draft:
        await check_destinations(conn, org_id, targets, found_media)
    return CreatePlan(targets, schedule_at, found_media)


def _target(profile: TargetProfile, request: CreateRequest) -> Target:
    version = request.version(profile.slug)
    post_type = (
        version.post_type or (request.post_types or {}).get(profile.connector) or default_post_type(profile.connector)
    )
    if post_type not in POST_TYPES[profile.connector]:
        raise ValidationError(
            f"customizations[{profile.slug!r}]: post_type {post_type[:40]!r} is not a post type of "
            f"{profile.connector} ({', '.join(POST_TYPES[profile.connector])})"
        )
    return Target(profile, version, post_type)


def refuse_unsupported(targets: list[Target]) -> None:
    error = unsupported([(t.profile.slug, t.profile.connector, t.version) for t in targets])
    if error is not None:
        raise error


async def check_destinations(
    conn: AsyncConnection, org_id: str, targets: list[Target], media: dict[str, MediaInfo]
) -> None:
    """Each destination's rules, in the documented order (docs/posts.md, "Creating posts") over
    all targets: the texts (VALIDATION_ERROR), the never-publish phrases in every text a post
    sends, the attachments."""
    for t in targets:
        check_version_texts(t.profile.connector, t.profile.slug, t.version, t.post_type)
    phrases = await brand.matchers(conn, org_id, [t.profile.id for t in targets])
    for t in targets:
        brand.refuse_never_publish(phrases[t.profile.id], t.profile.slug, *(text for _, text in t.version.texts))
    for t in targets:
        check_version_media(t.profile.connector, t.profile.slug, t.version, t.post_type, media)


def text_problems_of(
    connector: str, version: Version, post_type: str, *, content: bool = True
) -> Iterator[tuple[str, list[str]]]:
    """(where, problems) of each text of the version that breaks the destination's text rules,
    in order: the content ("", when `content`), each thread item, the first comment. Creation
    raises on the first (check_version_texts); the dry run reports them all."""
    if content and (problems := content_problems(connector, version.content, title=version.title, post_type=post_type)):
        yield "", problems
    item_type = default_post_type(connector)
    for i, item in enumerate(version.thread):
        if problems := content_problems(connector, item.content, title=None, post_type=item_type):
            yield f"thread item {i + 1}: ", problems
    if version.first_comment is not None and (problems := text_problems(connector, version.first_comment)):
        yield "first_comment: ", problems


def media_problems_of(
    connector: str, version: Version, post_type: str, media: dict[str, MediaInfo], *, main: bool = True
) -> Iterator[tuple[str, list[str]]]:
    """(where, problems) of each of the version's attachment lists that breaks the destination's
    media rules: the post's own ("", when `main`), then each thread item's."""
    if main and (problems := media_problems(connector, post_type, [media[m] for m in version.media_ids])):
        yield "", problems
    item_type = default_post_type(connector)
    for i, item in enumerate(version.thread):
        if item.media_ids and (problems := media_problems(connector, item_type, [media[m] for m in item.media_ids])):
            yield f"thread item {i + 1}: ", problems


def check_version_texts(connector: str, slug: str, version: Version, post_type: str, *, content: bool = True) -> None:
    """The destination's text rules for every text of the version (`content`: its own text too)."""
    for where, problems in text_problems_of(connector, version, post_type, content=content):
        raise ValidationError(f"profile {slug!r} ({connector}): {where}{'; '.join(problems)}")


def check_version_media(
    connector: str, slug: str, version: Version, post_type: str, media: dict[str, MediaInfo], *, main: bool = True
) -> None:
    """The destination's media rules for the version's attachments (`main`: its own too)."""
    for where, problems in media_problems_of(connector, version, post_type, media, main=main):
        raise InvalidMediaCombination(f"profile {slug!r} ({connector}): {where}{'; '.join(problems)}")


def check_fields(request: CreateRequest) -> None:
    check_text("content", request.content)
    check_profiles(request.profiles)
    check_title("title", request.title)
    for platform, post_type in (request.post_types or {}).items():
        if platform not in PLATFORMS:
            raise ValidationError(f"post_types: {platform[:40]!r} is not a platform ({', '.join(PLATFORMS)})")
        if post_type not in POST_TYPES[platform]:
            raise ValidationError(
                f"post_types: {post_type[:40]!r} is not a post type of {platform} ({', '.join(POST_TYPES[platform])})"
            )
    check_media_ids("media_ids", request.media_ids)
    check_extras(request.extras, request.profiles)
    if request.next_slot and request.schedule_at is not None:
        raise ValidationError("send schedule_at or next_slot, not both")
    if request.next_slot and request.draft:
        raise ValidationError(
            "a draft takes no time slot: send next_slot when scheduling it (POST /v1/posts/{id}/schedule)"
        )


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


@functools.cache
def _profiles_of(count: int, slots: bool) -> Prepared:
    """The profiles named by `count` slugs (a statement per count, so each is compiled once);
    with `slots`, next_slot's slot tables too (core/posts/slot_assignment.py `next_slots` decides
    whether they must be read again under a row lock)."""
    columns = [profiles.c.id, profiles.c.slug, profiles.c.connector, profiles.c.connection_status]
    columns += [profiles.c.granted_scopes, profiles.c.default_language]
    columns += [profiles.c.slot_table, profiles.c.slot_watermark] if slots else []
    named = [bindparam(f"slug_{i}") for i in range(count)]
    return Prepared(select(*columns).where(profiles.c.org_id == bindparam("org"), profiles.c.slug.in_(named)))


async def _load_profiles(
    conn: AsyncConnection, org_id: str, slugs: list[str], *, slots: bool = False
) -> list[TargetProfile]:
    rows = await _profiles_of(len(slugs), slots).all(
        conn, {"org": org_id, **{f"slug_{i}": slug for i, slug in enumerate(slugs)}}
    )
    by_slug = {
        r.slug: TargetProfile(
            r.id,
            r.slug,
            r.connector,
            r.connection_status,
            r.granted_scopes,
            r.default_language,
            r.slot_table if slots else None,
            r.slot_watermark if slots else None,
        )
        for r in rows
    }
    unknown = [s for s in slugs if s not in by_slug]
    if unknown:
        raise unknown_profiles(unknown)
    return [by_slug[s] for s in slugs]


def unknown_profiles(slugs: list[str]) -> ValidationError:
    """Creation's refusal of profiles the organization does not have (or the caller's profile
    limits leave out: the two read alike)."""
    return ValidationError(f"unknown profiles: {', '.join(repr(s[:64]) for s in slugs)}")


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
