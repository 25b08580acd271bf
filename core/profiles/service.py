"""Profiles: the destination accounts an organization has connected: creating, reading, changing
and deleting them (connecting their platform accounts is core/platform_accounts)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from datetime import datetime

import grpc
from sqlalchemy import Integer, Select, bindparam, delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import posts, profile_tags, profiles
from core.errors import Conflict, DomainError, NotFound, ValidationError
from core.identity import profile_limits
from core.ids import new_id
from core.pagination import Page, next_token
from core.platform_accounts.platforms import renews_itself
from core.posts.language import language_problem, normalized_language
from core.posts.rules import PLATFORMS
from core.tags import normalize_tag

# The platform keys, used as `connector` (docs/decisions.md, "One connector per platform, sandbox
# and live"): the platform rules table is their one list.
SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
MAX_TAGS = 20
MAX_DISPLAY_NAME = 200
# A post in one of these has not gone out: a profile with one cannot be deleted.
NOT_GONE_OUT = ("draft", "pending_approval", "scheduled", "queued", "publishing")


class ProfileInUse(DomainError):
    """The profile cannot be deleted yet: it holds a platform account, or a post that has not
    gone out goes to it (409)."""

    reason = "PROFILE_IN_USE"
    grpc_code = grpc.StatusCode.FAILED_PRECONDITION


@dataclass(frozen=True, slots=True)
class Connection:
    """How the profile's platform account is connected (never its tokens). `status` as answered
    (docs/live-publishing.md, "Connection status"): `connected`, `needs_reauth`, `disconnected`
    (an account was connected and is gone), or `sandbox` (no platform account was ever
    connected: the sandbox publishes to it; in live mode it cannot post)."""

    status: str = "sandbox"
    platform_account_id: str = ""
    handle: str = ""
    avatar_url: str = ""
    instance_url: str = ""
    scopes: tuple[str, ...] = ()
    token_expires_at: datetime | None = None
    connected_at: datetime | None = None
    error: str = ""
    # Herald renews the access token itself before it expires (connected accounts only).
    token_renewable: bool = False
    # Why its posts' metrics cannot be read and how to fix it ("" when they can), and which
    # (empty: all of them; docs/analytics.md, "Each platform").
    metrics_error: str = ""
    metrics_unavailable: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Profile:
    id: str
    slug: str
    connector: str
    display_name: str
    tags: tuple[str, ...]
    created_at: datetime
    connection: Connection = Connection()
    # The language of its posts when a post names none (docs/posts.md); None: unset.
    default_language: str | None = None


# The profile columns reads return (the sealed tokens stay out of every read).
PUBLIC_COLUMNS = (
    profiles.c.id,
    profiles.c.slug,
    profiles.c.connector,
    profiles.c.display_name,
    profiles.c.created_at,
    profiles.c.connection_status,
    profiles.c.platform_account_id,
    profiles.c.handle,
    profiles.c.avatar_url,
    profiles.c.instance_url,
    profiles.c.granted_scopes,
    profiles.c.token_expires_at,
    profiles.c.connected_at,
    profiles.c.connection_error,
    profiles.c.default_language,
    profiles.c.metrics_error,
    profiles.c.metrics_unavailable,
    # Whether a refresh token is held (never the token itself): token_renewable.
    profiles.c.refresh_token.is_not(None).label("has_refresh_token"),
)


def answered_status(stored: str, platform_account_id: str) -> str:
    """The status a profile answers with. The database stores `disconnected` for a profile
    without tokens; one that never had an account (no platform account id, which a disconnect
    keeps) is a sandbox profile, which agents must not read as "cannot post"."""
    return "sandbox" if stored == "disconnected" and not platform_account_id else stored


def connection_of(row) -> Connection:  # a row with PUBLIC_COLUMNS
    status = answered_status(row.connection_status, row.platform_account_id)
    return Connection(
        status,
        row.platform_account_id,
        row.handle,
        row.avatar_url,
        row.instance_url,
        tuple(row.granted_scopes.split()),
        row.token_expires_at,
        row.connected_at,
        row.connection_error,
        status == "connected" and renews_itself(row.connector, bool(row.has_refresh_token)),
        row.metrics_error,
        tuple(name for name in row.metrics_unavailable.split(",") if name),
    )


def validate_slug(slug: str) -> str:
    if not SLUG_RE.match(slug):
        raise ValidationError(f"profile slug {slug!r} must be 1-64 characters of a-z, 0-9, '_' and '-'")
    return slug


async def create_profile(
    conn: AsyncConnection,
    org_id: str,
    *,
    slug: str,
    connector: str,
    display_name: str,
    tags: list[str],
    now: datetime,
    default_language: str = "",
) -> Profile:
    validate_slug(slug)
    language = checked_language(default_language)
    if connector not in PLATFORMS:
        raise ValidationError(f"platform must be one of {', '.join(PLATFORMS)}")
    normalized = checked_tags(tags)
    display_name = checked_display_name(display_name.strip() or slug)
    taken = await conn.scalar(select(profiles.c.id).where(profiles.c.org_id == org_id, profiles.c.slug == slug))
    if taken is not None:
        raise Conflict(f"profile {slug!r} exists in this organization")
    profile_id = new_id("prf")
    await conn.execute(
        insert(profiles).values(
            id=profile_id,
            org_id=org_id,
            slug=slug,
            connector=connector,
            display_name=display_name,
            created_at=now,
            default_language=language,
        )
    )
    if normalized:
        await conn.execute(
            insert(profile_tags), [{"profile_id": profile_id, "tag": t, "org_id": org_id} for t in normalized]
        )
    return Profile(profile_id, slug, connector, display_name, normalized, now, default_language=language)


def checked_language(tag: str) -> str | None:
    """A profile's default language as stored: normalized, None for "" (unset)."""
    if not tag:
        return None
    if problem := language_problem("default_language", tag):
        raise ValidationError(problem)
    return normalized_language(tag)


def checked_tags(tags: list[str]) -> tuple[str, ...]:
    """A profile's tags as stored: each by the one rule for tags (core/tags.py), lowercase,
    without repeats, sorted; at most MAX_TAGS."""
    normalized = tuple(sorted({normalize_tag(t) for t in tags}))
    if len(normalized) > MAX_TAGS:
        raise ValidationError(f"a profile carries at most {MAX_TAGS} tags")
    return normalized


def checked_display_name(name: str) -> str:
    """A display name as stored: trimmed, then 1 to MAX_DISPLAY_NAME characters."""
    name = name.strip()
    if not name:
        raise ValidationError("display name is empty")
    if len(name) > MAX_DISPLAY_NAME:
        raise ValidationError(f"display name is longer than {MAX_DISPLAY_NAME} characters")
    return name


@dataclass(frozen=True, slots=True)
class ProfileChange:
    """What an update changes; None: kept."""

    display_name: str | None = None
    tags: list[str] | None = None  # [] removes them all
    default_language: str | None = None  # "" unsets it


async def update_profile(conn: AsyncConnection, org_id: str, slug: str, change: ProfileChange) -> Profile:
    """Changes the profile's settings that are present, all checked before anything is written.
    Posts already created keep the language they were created with; tags decide which profiles a
    post naming a tag goes to from now on."""
    if change == ProfileChange():
        raise ValidationError("nothing to change: send display_name, tags or default_language")
    values: dict[str, object] = {}
    if change.display_name is not None:
        values["display_name"] = checked_display_name(change.display_name)
    if change.default_language is not None:
        values["default_language"] = checked_language(change.default_language)
    tags = checked_tags(change.tags) if change.tags is not None else None
    current = await get_profile(conn, org_id, slug)
    if values:
        await conn.execute(update(profiles).where(profiles.c.id == current.id).values(**values))
    if tags is not None and tags != current.tags:
        await conn.execute(delete(profile_tags).where(profile_tags.c.profile_id == current.id))
        if tags:
            await conn.execute(
                insert(profile_tags), [{"profile_id": current.id, "tag": t, "org_id": org_id} for t in tags]
            )
    return await get_profile(conn, org_id, slug)


def deletable(profile: Profile, posts_not_gone_out: int) -> str:
    """Why the profile cannot be deleted ("" when it can): a profile holding a platform account
    is disconnected first (that revokes Herald's access at the platform, which deleting must not
    skip), and the posts that have not gone out are canceled first (deleting never drops a post
    someone still expects to go out)."""
    if profile.connection.status in ("connected", "needs_reauth"):
        return "it holds a platform account: disconnect it first"
    if posts_not_gone_out:
        return f"{posts_not_gone_out} post(s) to it have not gone out: cancel them first"
    return ""


async def delete_profile(conn: AsyncConnection, org_id: str, slug: str, *, validate_only: bool = False) -> Profile:
    """Deletes the profile with its past posts (their parts, media links and outbox entries go
    with them), its tags, time slots and brand voice override; the credit ledger keeps its
    entries. The profile's row is locked first, so no post can be added to it meanwhile (a post's
    insert waits on the lock, then finds no profile). Answers the profile as it was.
    `validate_only`: the same checks, unlocked, and nothing deleted."""
    current = await get_profile(conn, org_id, slug)
    if not validate_only:
        await conn.execute(select(profiles.c.id).where(profiles.c.id == current.id).with_for_update())
        current = await get_profile(conn, org_id, slug)  # as it is under the lock
    pending = await conn.scalar(
        select(func.count())
        .select_from(posts)
        .where(posts.c.profile_id == current.id, posts.c.status.in_(NOT_GONE_OUT))
    )
    if why := deletable(current, pending or 0):
        metadata = {"profile": current.slug}
        if pending:
            metadata["pending_posts"] = str(pending)
        else:
            metadata["connection_status"] = current.connection.status
        raise ProfileInUse(f"profile {current.slug!r} cannot be deleted: {why}", **metadata)
    if not validate_only:
        await conn.execute(delete(profiles).where(profiles.c.id == current.id))
    return current


async def list_profiles(
    conn: AsyncConnection, org_id: str, *, tag: str, page: Page, limited_to: tuple[str, ...] = ()
) -> tuple[list[Profile], str]:
    """One round trip: the page of profiles (slug order) joined to all of their tags; with
    `limited_to` (the caller's profile limits: core/identity/profile_limits.py), those within them."""
    params = {"org_id": org_id, "limit": page.size + 1} | profile_limits.bound_values(limited_to)
    if tag:
        params["tag"] = normalize_tag(tag)
    if page.after:
        params["after"] = page.after
    statement = _list_statement(bool(tag), bool(page.after), len(limited_to))
    found = await _profiles_with_tags(conn, statement, params)
    return found[: page.size], next_token([p.slug for p in found], page.size)


async def get_profile(conn: AsyncConnection, org_id: str, slug: str) -> Profile:
    if not SLUG_RE.match(slug):
        raise NotFound("no such profile in this organization")
    found = await _profiles_with_tags(conn, _get_statement(), {"org_id": org_id, "slug": slug})
    if not found:
        raise NotFound(f"no profile {slug!r} in this organization")
    return found[0]


async def get_profile_by_id(conn: AsyncConnection, profile_id: str) -> Profile:
    """A profile by id, for the core's own use (the id came from a record of the caller's
    organization, e.g. a connection attempt)."""
    found = await _profiles_with_tags(
        conn, _joined_to_tags(select(*PUBLIC_COLUMNS).where(profiles.c.id == profile_id)), {}
    )
    if not found:
        raise NotFound("no such profile")
    return found[0]


# The statements are built once per shape with bound parameters: building a Select per request
# (and its cache key) was a measurable share of the core's CPU (docs/performance.md).
@functools.cache
def _list_statement(with_tag: bool, with_after: bool, limits: int) -> Select:
    page = (
        select(*PUBLIC_COLUMNS)
        .where(profiles.c.org_id == bindparam("org_id"))
        .order_by(profiles.c.slug)
        .limit(bindparam("limit", type_=Integer))
    )
    if with_tag:
        page = page.where(
            profiles.c.id.in_(
                select(profile_tags.c.profile_id).where(
                    profile_tags.c.org_id == bindparam("org_id"), profile_tags.c.tag == bindparam("tag")
                )
            )
        )
    if with_after:
        page = page.where(profiles.c.slug > bindparam("after"))
    if limits:
        page = page.where(profile_limits.within(profiles.c.id, bindparam("org_id"), profile_limits.bound(limits)))
    return _joined_to_tags(page)


@functools.cache
def _get_statement() -> Select:
    return _joined_to_tags(
        select(*PUBLIC_COLUMNS).where(profiles.c.org_id == bindparam("org_id"), profiles.c.slug == bindparam("slug"))
    )


def _joined_to_tags(page_stmt: Select) -> Select:
    page = page_stmt.subquery()
    return (
        select(page, profile_tags.c.tag)
        .select_from(page.outerjoin(profile_tags, profile_tags.c.profile_id == page.c.id))
        .order_by(page.c.slug, profile_tags.c.tag)
    )


async def _profiles_with_tags(conn: AsyncConnection, stmt: Select, params: dict[str, object]) -> list[Profile]:
    result: list[Profile] = []
    tags: dict[str, list[str]] = {}
    for row in (await conn.execute(stmt, params)).all():
        if row.id not in tags:
            tags[row.id] = []
            result.append(
                Profile(
                    row.id,
                    row.slug,
                    row.connector,
                    row.display_name,
                    (),
                    row.created_at,
                    connection_of(row),
                    row.default_language,
                )
            )
        if row.tag is not None:
            tags[row.id].append(row.tag)
    return [replace(p, tags=tuple(tags[p.id])) for p in result]


MAX_NAMED_PROFILES = 50
MAX_ALL_PROFILES = 500


@dataclass(frozen=True, slots=True)
class ProfileRef:
    slug: str
    connector: str
    display_name: str


async def profiles_for_limits(
    conn: AsyncConnection, org_id: str, slugs: list[str], *, limited_to: tuple[str, ...] = ()
) -> list[ProfileRef]:
    """The named profiles in the order named (NOT_FOUND naming any unknown one), or every profile
    of the organization in slug order when none is named; with `limited_to` (the caller's profile
    limits), a profile outside them is unknown."""
    if len(slugs) > MAX_NAMED_PROFILES:
        raise ValidationError(f"name at most {MAX_NAMED_PROFILES} profiles")
    stmt = select(profiles.c.slug, profiles.c.connector, profiles.c.display_name).where(profiles.c.org_id == org_id)
    stmt = profile_limits.narrowed(stmt, profiles.c.id, org_id, limited_to)
    if slugs:
        rows = {r.slug: r for r in await conn.execute(stmt.where(profiles.c.slug.in_(slugs)))}
        unknown = [s for s in slugs if s not in rows]
        if unknown:
            raise NotFound(f"no profile {', '.join(repr(s[:64]) for s in unknown[:10])} in this organization")
        return [ProfileRef(rows[s].slug, rows[s].connector, rows[s].display_name) for s in dict.fromkeys(slugs)]
    rows = await conn.execute(stmt.order_by(profiles.c.slug).limit(MAX_ALL_PROFILES))
    return [ProfileRef(r.slug, r.connector, r.display_name) for r in rows]
