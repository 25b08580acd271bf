"""Profile limits (docs/teams.md, "Profile limits"): a member's rights narrowed to the profiles
carrying given tags (an agency gives a client's people that client's profiles only).

A limited member reaches those profiles and their posts, nothing else of the kind: every list
leaves the others out, and every action on another profile, post or group answers NOT_FOUND, as
another organization's would, so the limits never tell what lies beyond them. What belongs to no
profile (the media library, webhooks, the organization's settings, its members) is not narrowed:
the role decides it alone.

The limits ride on the principal, read with the credential (core/identity/authentication.py
reads the membership anyway), so every session, API key and agent token of the member is held to
them from its next request, and a member without limits pays nothing: no condition is written into
their queries and the guards below return before any query. A limited member's reads carry one
more condition, `profile_id IN (the organization's profiles carrying one of the tags)`, an
indexed read of profile_tags (ix_profile_tags_org_id_tag); an action on one post, group or
profile runs one indexed query first.

Who sets them: a member who may manage members (core/identity/members.py, invitations.py), with
two rules beyond the permission. Owners answer for the whole organization and take no limits. A
limited member never widens anyone's reach: they give a non-empty set of their own tags, only to
members already within their own limits, and never change their own."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import BindParameter, ColumnElement, Select, bindparam, select
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import posts, profile_tags, profiles
from core.errors import Forbidden, NotFound, ValidationError
from core.identity.principal import Principal
from core.tags import normalize_tag

MAX_TAGS = 20


def stored(tags: Iterable[str]) -> tuple[str, ...]:
    """Limits as kept: each tag by the one rule for tags (core/tags.py), once, sorted."""
    normalized = tuple(sorted({normalize_tag(t) for t in tags}))
    if len(normalized) > MAX_TAGS:
        raise ValidationError(f"profile_tags takes at most {MAX_TAGS} tags")
    return normalized


# -- the condition ------------------------------------------------------------------------------


def within(profile_id: ColumnElement[Any], org_id: Any, tags: Sequence[Any]) -> ColumnElement[bool]:
    """`profile_id` is one of the organization's profiles carrying one of `tags` (values, or bound
    parameters for a statement built once: `bound`)."""
    carrying = select(profile_tags.c.profile_id).where(profile_tags.c.org_id == org_id, profile_tags.c.tag.in_(tags))
    return profile_id.in_(carrying)


def narrowed(stmt: Select, profile_id: ColumnElement[Any], org_id: str, tags: Sequence[str]) -> Select:
    """`stmt` kept to the profiles within `tags`; unchanged when there are none (no limits)."""
    return stmt.where(within(profile_id, org_id, tags)) if tags else stmt


def bound(count: int) -> list[BindParameter[str]]:
    """Parameters for `count` tags, for statements built once per shape (bound_values fills them)."""
    return [bindparam(f"limit_tag_{i}") for i in range(count)]


def bound_values(tags: Sequence[str]) -> dict[str, str]:
    return {f"limit_tag_{i}": tag for i, tag in enumerate(tags)}


# -- guards: one object, before acting on it ---------------------------------------------------------


async def require_post(conn: AsyncConnection, principal: Principal, post_id: str) -> None:
    """NOT_FOUND, as for another organization's post, when the post is outside the limits."""
    if not principal.profile_tags:
        return
    found = await conn.scalar(
        select(posts.c.id).where(
            posts.c.org_id == principal.org_id,
            posts.c.id == post_id,
            within(posts.c.profile_id, principal.org_id, principal.profile_tags),
        )
    )
    if found is None:
        raise NotFound(f"no post {post_id[:40]!r} in this organization")


async def outside(conn: AsyncConnection, principal: Principal, slugs: Iterable[str]) -> list[str]:
    """The slugs (in the order given, once each) that name no profile within the limits: unknown
    ones too, since the two must not be told apart. Always [] without limits."""
    named = list(dict.fromkeys(slugs))
    if not principal.profile_tags or not named:
        return []
    rows = await conn.execute(
        select(profiles.c.slug).where(
            profiles.c.org_id == principal.org_id,
            profiles.c.slug.in_(named),
            within(profiles.c.id, principal.org_id, principal.profile_tags),
        )
    )
    reached = {r.slug for r in rows}
    return [s for s in named if s not in reached]


async def require_profile(conn: AsyncConnection, principal: Principal, slug: str) -> None:
    """NOT_FOUND, as for another organization's profile, when it is outside the limits."""
    if await outside(conn, principal, [slug]):
        raise NotFound(f"no profile {slug[:64]!r} in this organization")


async def require_group(conn: AsyncConnection, principal: Principal, group_id: str) -> None:
    """Before a group action: NOT_FOUND when none of the group's posts is within the limits;
    FORBIDDEN when only some are (a group action is all or nothing, and it would act on posts the
    member cannot see: they act on theirs one at a time)."""
    if not principal.profile_tags:
        return
    inside = within(posts.c.profile_id, principal.org_id, principal.profile_tags).label("inside")
    found = (
        await conn.execute(select(inside).where(posts.c.org_id == principal.org_id, posts.c.group_id == group_id))
    ).all()
    if not any(r.inside for r in found):
        raise NotFound(f"no post group {group_id[:40]!r} in this organization")
    if not all(r.inside for r in found):
        raise Forbidden(
            "this post group also has posts to profiles outside your profile limits: act on your posts one at a time"
        )


def require_kept(principal: Principal, tags: Iterable[str]) -> None:
    """A profile a limited member creates, connects or retags must carry one of their tags: else it
    would leave their reach as they make it."""
    if principal.profile_tags and not set(stored(tags)) & set(principal.profile_tags):
        raise ValidationError(
            f"your profile limits are {', '.join(principal.profile_tags)}: the profile must carry one of these tags",
            argument="tags",
        )


def reaches(limits: Iterable[str], carried: Iterable[str]) -> bool:
    """Whether a member with `limits` (none: every profile) reaches a profile carrying `carried`."""
    wanted = set(limits)
    return not wanted or bool(wanted & set(carried))


# -- setting them -------------------------------------------------------------------------------


def check_owner(role: str, tags: tuple[str, ...]) -> None:
    """An owner answers for the whole organization: owners take no limits."""
    if tags and role == "owner":
        raise ValidationError(
            "an owner reaches every profile: owners take no profile limits (send profile_tags: [] with the role)",
            argument="profile_tags",
        )


def check_given(caller: Principal, tags: tuple[str, ...], *, current: tuple[str, ...] | None) -> None:
    """Whether `caller` may give the limits `tags` to a member whose limits are `current` (None: a
    member yet to join, by invitation). A limited caller gives a non-empty set of their own tags,
    to a member already within their own limits."""
    mine = set(caller.profile_tags)
    if not mine:
        return
    if not tags or not set(tags) <= mine or (current is not None and (not current or not set(current) <= mine)):
        raise Forbidden(
            f"your profile limits are {', '.join(caller.profile_tags)}: you give only limits within them, "
            "to members within them"
        )
