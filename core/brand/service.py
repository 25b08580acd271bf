"""Brand voices in the database: reading the voice in effect, saving a new version, and the
never-publish check every post passes when it is created, edited and claimed for delivery."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

import grpc
from sqlalchemy import and_, bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from core.brand.never_publish import Matcher, matcher
from core.brand.voice import VoiceDocument, effective, validated
from core.db.models import brand_voices, organizations, profiles, users
from core.db.prepared import Prepared
from core.errors import Conflict, DomainError, NotFound
from core.ids import new_id

ORG_SCOPE = "org"


class NeverPublishPhrase(DomainError):
    """The text contains a phrase the brand voice never publishes; metadata names the phrase
    and the profile (docs/brand-voice.md)."""

    reason = "NEVER_PUBLISH_PHRASE"
    grpc_code = grpc.StatusCode.INVALID_ARGUMENT


@dataclass(frozen=True, slots=True)
class StoredVoice:
    document: VoiceDocument
    version: int
    created_at: datetime
    created_by: str


@dataclass(frozen=True, slots=True)
class Voice:
    """The voice as answered: the organization's, or in effect for one profile."""

    profile: str
    version: int
    profile_version: int
    document: VoiceDocument
    updated_at: datetime | None
    updated_by: str


@functools.cache
def _current_of(count: int) -> Prepared:
    """The current documents of `count` scopes (every post runs it: core/db/prepared.py)."""
    scopes = [bindparam(f"scope_{i}") for i in range(count)]
    return Prepared(
        select(
            brand_voices.c.scope,
            brand_voices.c.document,
            brand_voices.c.version,
            brand_voices.c.created_at,
            brand_voices.c.created_by,
        ).where(brand_voices.c.org_id == bindparam("org"), brand_voices.c.is_current, brand_voices.c.scope.in_(scopes))
    )


async def _current(conn: AsyncConnection, org_id: str, scopes: Iterable[str]) -> dict[str, StoredVoice]:
    scopes = list(scopes)
    rows = await _current_of(len(scopes)).all(conn, {"org": org_id, **{f"scope_{i}": s for i, s in enumerate(scopes)}})
    return {
        r.scope: StoredVoice(VoiceDocument.from_json(r.document), r.version, r.created_at, r.created_by) for r in rows
    }


async def _profile_id(conn: AsyncConnection, org_id: str, slug: str) -> str:
    found = (
        await conn.execute(select(profiles.c.id).where(profiles.c.org_id == org_id, profiles.c.slug == slug))
    ).scalar()
    if found is None:
        raise NotFound(f"no profile {slug[:64]!r} in this organization")
    return found


async def get_voice(conn: AsyncConnection, org_id: str, profile_slug: str = "") -> Voice:
    profile_id = await _profile_id(conn, org_id, profile_slug) if profile_slug else None
    stored = await _current(conn, org_id, [ORG_SCOPE, *([profile_id] if profile_id else [])])
    return _answer(profile_slug, stored.get(ORG_SCOPE), stored.get(profile_id) if profile_id else None)


def _answer(profile_slug: str, org: StoredVoice | None, override: StoredVoice | None) -> Voice:
    latest = max((v for v in (org, override) if v is not None), key=lambda v: v.created_at, default=None)
    return Voice(
        profile=profile_slug,
        version=org.version if org else 0,
        profile_version=override.version if override else 0,
        document=effective(org.document if org else VoiceDocument(), override.document if override else None),
        updated_at=latest.created_at if latest else None,
        updated_by=latest.created_by if latest else "",
    )


async def update_voice(
    conn: AsyncConnection,
    org_id: str,
    user_id: str,
    profile_slug: str,
    document: VoiceDocument,
    expected_version: int | None,
    now: datetime,
) -> Voice:
    """Saves `document` as the next version of the organization's voice (or of the profile's
    override). Concurrent saves of one organization take turns on its row (locked until the
    transaction ends), so each gets the next version; one that named the version it expected is
    refused when another saved first. (Optimistic retries alone could lose five races in a row
    under a burst of saves.)"""
    document = validated(document)
    await conn.execute(select(organizations.c.id).where(organizations.c.id == org_id).with_for_update())
    profile_id = await _profile_id(conn, org_id, profile_slug) if profile_slug else None
    scope = profile_id or ORG_SCOPE
    email = (await conn.execute(select(users.c.email).where(users.c.id == user_id))).scalar() or ""
    for _ in range(5):
        current = (await _current(conn, org_id, [scope])).get(scope)
        version = current.version if current else 0
        if expected_version is not None and expected_version != version:
            raise Conflict(f"the voice is at version {version}, not {expected_version}: read it again and retry")
        try:
            async with conn.begin_nested():
                if current is not None:
                    moved = await conn.execute(
                        update(brand_voices)
                        .where(
                            and_(
                                brand_voices.c.org_id == org_id,
                                brand_voices.c.scope == scope,
                                brand_voices.c.version == version,
                                brand_voices.c.is_current,
                            )
                        )
                        .values(is_current=False)
                    )
                    if moved.rowcount != 1:
                        raise _Raced
                await conn.execute(
                    insert(brand_voices).values(
                        id=new_id("bvo"),
                        org_id=org_id,
                        scope=scope,
                        profile_id=profile_id,
                        version=version + 1,
                        is_current=True,
                        document=document.to_json(),
                        created_at=now,
                        created_by=email,
                    )
                )
        except (_Raced, IntegrityError):
            continue
        return await get_voice(conn, org_id, profile_slug)
    raise Conflict("the voice is being changed by someone else right now: retry")


class _Raced(Exception):
    """Another save moved the current version first."""


async def matchers(conn: AsyncConnection, org_id: str, profile_ids: Iterable[str]) -> dict[str, Matcher]:
    """The never-publish matcher in effect for each profile (the organization's phrases plus the
    profile's own); one query."""
    ids = list(dict.fromkeys(profile_ids))
    stored = await _current(conn, org_id, [ORG_SCOPE, *ids])
    base = stored[ORG_SCOPE].document.never_publish if ORG_SCOPE in stored else ()
    out = {}
    for profile_id in ids:
        extra = stored[profile_id].document.never_publish if profile_id in stored else ()
        out[profile_id] = matcher(tuple(dict.fromkeys((*base, *extra))))
    return out


def refuse_never_publish(found: Matcher, profile_slug: str, *texts: str | None) -> None:
    """NEVER_PUBLISH_PHRASE when any of the texts (content, title) holds one of the phrases."""
    if not found:
        return
    for text in texts:
        if text and (phrase := found.find(text)) is not None:
            raise NeverPublishPhrase(
                f"profile {profile_slug!r}: the text contains {phrase!r}, which the brand voice never publishes",
                phrase=phrase,
                profile=profile_slug,
            )
