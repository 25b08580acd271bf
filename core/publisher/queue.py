"""Claiming due posts (docs/posts.md, "The publisher"); outcomes are recorded by
core/publisher/outcomes.py.

A claim is one transaction: the due rows are locked with FOR UPDATE SKIP LOCKED (PostgreSQL; on
SQLite the transaction holds the write lock), each row that holds nothing takes a hold on the
balance for everything it may deliver with one conditional debit (a post that cannot be paid
fails with `insufficient_credits` and is never sent), and the paid ones move to `publishing`
under a lease: their `due_at` becomes the lease's end. The outcome settles the hold
(core/publisher/outcomes.py; docs/posts.md "Credits"). A worker that dies leaves
them there; once the lease ends another worker claims them again as *recovered* and resolves the
uncertain outcome by looking the delivery up before sending anything.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from core.brand import service as brand
from core.connectors.base import Account, OutgoingMedia, TikTokOptions
from core.credits import service as credits
from core.db.engine import SQLITE_IMMEDIATE, is_sqlite
from core.db.models import media, post_media, post_parts, posts, profiles
from core.errors import InsufficientCredits
from core.metrics import CREDIT_REFUSALS, PUBLISH_OUTCOMES
from core.platform_accounts.token_refresh import StoredTokens
from core.posts import events as post_events
from core.posts import history
from core.posts.versions import tiktok_from_json
from core.publisher import holds
from core.settings import CoreSettings

log = logging.getLogger(__name__)

CLAIMABLE = ("scheduled", "queued", "publishing")


@dataclass(frozen=True, slots=True)
class ClaimPart:
    """A thread item or the first comment, as the claim found it (docs/posts.md)."""

    position: int
    kind: str  # "thread" or "comment"
    content: str
    delivery_key: str
    status: str
    platform_post_id: str
    platform_url: str
    platform_cid: str
    media: tuple[OutgoingMedia, ...]
    delivery_state: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Claim:
    post_id: str
    org_id: str
    profile_id: str
    profile_slug: str
    account: Account
    connector: str
    content: str
    title: str | None
    post_type: str
    delivery_key: str
    attempts: int
    charged: int
    # True when a previous worker's lease ran out: the delivery may or may not have happened.
    recovered: bool
    media: tuple[OutgoingMedia, ...]
    created_at: datetime
    # Live mode: the profile's sealed tokens, and what earlier attempts left on the platform.
    tokens: StoredTokens | None
    delivery_state: dict[str, Any]
    # Deliveries the post costs (itself and its thread items), and its parts in order.
    units: int = 1
    parts: tuple[ClaimPart, ...] = ()
    # The id of the request that created the post: the delivery's log lines carry it.
    request_id: str | None = None
    # The text's language and the TikTok settings chosen (docs/posts.md), as the connector takes them.
    language: str | None = None
    tiktok: TikTokOptions | None = None


# (media id, storage key, pinned generation) -> a URL platforms can fetch
MediaURL = Callable[[str, str, int | None], str]


async def claim_due(
    engine: AsyncEngine, settings: CoreSettings, worker_id: str, now: datetime, limit: int, media_url: MediaURL
) -> list[Claim]:
    lease_end = now + timedelta(seconds=settings.publish_lease_seconds)
    async with engine.connect() as conn:
        if is_sqlite(engine):
            conn = await conn.execution_options(**{SQLITE_IMMEDIATE: True})
        async with conn.begin():
            stmt = (
                select(
                    posts.c.id,
                    posts.c.org_id,
                    posts.c.profile_slug,
                    posts.c.connector,
                    posts.c.content,
                    posts.c.title,
                    posts.c.post_type,
                    posts.c.status,
                    posts.c.delivery_key,
                    posts.c.attempts,
                    posts.c.charged,
                    posts.c.profile_id,
                    posts.c.delivery_state,
                    posts.c.created_at,
                    posts.c.units,
                    posts.c.request_id,
                    posts.c.language,
                    posts.c.tiktok_options,
                )
                .where(posts.c.status.in_(CLAIMABLE), posts.c.due_at <= now)
                .order_by(posts.c.due_at)
                .limit(limit)
            )
            if not is_sqlite(engine):
                stmt = stmt.with_for_update(skip_locked=True, of=posts)
            rows = (await conn.execute(stmt)).all()
            if not rows:
                return []
            accounts = await _profiles(conn, {row.profile_id for row in rows})
            parts = await _parts(conn, media_url, [row.id for row in rows])
            phrases = await _never_publish(conn, [row for row in rows if row.charged == 0], parts)
            live = settings.publish_mode == "live"
            claimed = []
            failed: dict[str, list[str]] = defaultdict(list)  # org_id: post ids
            reasons: list[tuple[str, str]] = []  # (platform, failure reason), counted once committed
            steps: list[dict[str, Any]] = []  # the posts' history: claimed, or failed before sending
            for row in rows:
                charged = row.charged
                found = phrases.get(row.id)
                account = accounts[row.profile_id]
                if charged == 0 and found is not None:
                    # The voice may have changed since the post was accepted: it fails, uncharged.
                    detail = f"the text contains {found!r}, which the brand voice never publishes"
                    await conn.execute(_failed(row.id, "never_publish_phrase", detail, now))
                    steps.append(
                        history.event(row.org_id, row.id, "failed", now, reason="never_publish_phrase", error=detail)
                    )
                    failed[row.org_id].append(row.id)
                    reasons.append((row.connector, "never_publish_phrase"))
                    continue
                if live and account.connection_status != "connected":
                    reason, detail = await _not_connected(conn, row, account, now, settings.post_cost)
                    steps.append(history.event(row.org_id, row.id, "failed", now, reason=reason, error=detail))
                    reasons.append((row.connector, reason))
                    failed[row.org_id].append(row.id)
                    continue
                if live and account.throttled_until is not None and account.throttled_until > now:
                    # The platform asked us to wait: the post waits too, unclaimed and unpaid.
                    await conn.execute(
                        update(posts).where(posts.c.id == row.id).values(due_at=account.throttled_until, updated_at=now)
                    )
                    continue
                if charged == 0:
                    # A post that holds nothing: nothing of it is out (the attempt that sent part
                    # of it keeps its hold), so it is priced as it is now, edits included. The
                    # post and every thread item in one conditional debit: never half a thread.
                    cost = settings.post_cost * row.units
                    try:
                        await credits.debit(
                            conn,
                            row.org_id,
                            cost,
                            reason="post_delivery",
                            reference=row.id,
                            now=now,
                            low_threshold=settings.low_credit_threshold,
                        )
                        charged = cost
                    except InsufficientCredits:
                        await conn.execute(_failed(row.id, "insufficient_credits", "", now))
                        steps.append(history.event(row.org_id, row.id, "failed", now, reason="insufficient_credits"))
                        failed[row.org_id].append(row.id)
                        reasons.append((row.connector, "insufficient_credits"))
                        continue
                await conn.execute(
                    update(posts)
                    .where(posts.c.id == row.id)
                    .values(
                        status="publishing",
                        lease_owner=worker_id,
                        due_at=lease_end,
                        attempts=posts.c.attempts + 1,
                        charged=charged,
                        updated_at=now,
                    )
                )
                claimed.append((row, charged))
                recovered = row.status == "publishing" or None
                steps.append(
                    history.event(row.org_id, row.id, "claimed", now, attempt=row.attempts + 1, recovered=recovered)
                )
            await history.record(conn, steps)
            for org_id, post_ids in failed.items():
                await post_events.emit_current(conn, org_id, "post.failed", post_ids, now)
            ids = [row.id for row, _ in claimed]
            attachments = await _attachments(conn, media_url, ids)
    for platform, reason in reasons:
        PUBLISH_OUTCOMES.labels(platform, "failed", reason).inc()
        if reason == "insufficient_credits":
            CREDIT_REFUSALS.labels("publish").inc()
    return [
        Claim(
            post_id=row.id,
            org_id=row.org_id,
            profile_id=row.profile_id,
            profile_slug=row.profile_slug,
            account=accounts[row.profile_id].account(row.profile_slug),
            connector=row.connector,
            content=row.content,
            title=row.title,
            post_type=row.post_type,
            delivery_key=row.delivery_key,
            attempts=row.attempts + 1,
            charged=charged,
            recovered=row.status == "publishing",
            media=attachments.get(row.id, ()),
            created_at=row.created_at,
            tokens=accounts[row.profile_id].tokens(row.profile_id, row.connector) if live else None,
            delivery_state=_state(row.delivery_state),
            units=row.units,
            parts=tuple(parts.get(row.id, ())),
            request_id=row.request_id,
            language=row.language,
            tiktok=tiktok_from_json(row.tiktok_options),
        )
        for row, charged in claimed
    ]


@dataclass(frozen=True, slots=True)
class _Profile:
    display_name: str
    handle: str
    platform_account_id: str
    instance_url: str
    connection_status: str
    connection_error: str
    throttled_until: datetime | None
    access_token: str | None
    refresh_token: str | None
    token_expires_at: datetime | None
    token_version: int

    def account(self, slug: str) -> Account:
        # A sandbox profile has no platform account (live mode refuses it before this): its
        # requests name a placeholder account, shown as such in the outbox.
        account_id = self.platform_account_id or f"sandbox-{slug}"
        return Account(slug, self.handle or self.display_name, account_id, self.instance_url)

    def tokens(self, profile_id: str, connector: str) -> StoredTokens:
        return StoredTokens(
            profile_id,
            connector,
            self.instance_url,
            self.access_token,
            self.refresh_token,
            self.token_expires_at,
            self.token_version,
        )


async def _profiles(conn, profile_ids: set[str]) -> dict[str, _Profile]:
    rows = await conn.execute(
        select(
            profiles.c.id,
            profiles.c.display_name,
            profiles.c.handle,
            profiles.c.platform_account_id,
            profiles.c.instance_url,
            profiles.c.connection_status,
            profiles.c.connection_error,
            profiles.c.throttled_until,
            profiles.c.access_token,
            profiles.c.refresh_token,
            profiles.c.token_expires_at,
            profiles.c.token_version,
        ).where(profiles.c.id.in_(profile_ids))
    )
    return {r.id: _Profile(*r[1:]) for r in rows}


def _failed(post_id: str, reason: str, detail: str, now: datetime):  # an UPDATE
    return (
        update(posts)
        .where(posts.c.id == post_id)
        .values(status="failed", failure_reason=reason, failure_detail=detail, lease_owner=None, updated_at=now)
    )


async def _not_connected(conn, row, account: _Profile, now: datetime, post_cost: int) -> tuple[str, str]:
    """Live mode, a profile that cannot post: its post fails, and keeps of its charge only the
    price of what is out or may be (an attempt sent a request nobody can now check: the post
    fails `delivery_uncertain`); the rest is refunded. Returns the failure reason and detail."""
    out = await holds.out_of(conn, row.id)
    if out.uncertain:
        reason = "delivery_uncertain"
        detail = "an earlier attempt may have published it, and the profile can no longer be asked"
    else:
        reason = "needs_reauth" if account.connection_status == "needs_reauth" else "profile_disconnected"
        detail = account.connection_error or (
            "the profile has no connected account" if reason == "profile_disconnected" else "connect the account again"
        )
    keep = out.keep(post_cost)
    await conn.execute(_failed(row.id, reason, detail, now).values(charged=keep))
    if row.charged > keep:
        await credits.grant(conn, row.org_id, row.charged - keep, reason="refund", reference=row.id, now=now)
    attempt = row.attempts + 1
    extra = {"post_id": row.id, "attempt": attempt, "request_id": row.request_id}
    log.warning("post %s attempt %d: failed for good (%s) before sending", row.id, attempt, reason, extra=extra)
    return reason, detail


def _state(text: str) -> dict[str, Any]:
    if not text:
        return {}
    try:
        state = json.loads(text)
    except ValueError:
        return {}
    return state if isinstance(state, dict) else {}


async def _never_publish(conn, rows: list, parts: dict[str, list[ClaimPart]]) -> dict[str, str]:
    """The posts among `rows` whose content, title or parts hold a never-publish phrase of the
    voice in effect now, with the phrase: one query per organization in the batch."""
    by_org: dict[str, list] = {}
    for row in rows:
        by_org.setdefault(row.org_id, []).append(row)
    found = {}
    for org_id, org_rows in by_org.items():
        matchers = await brand.matchers(conn, org_id, [row.profile_id for row in org_rows])
        for row in org_rows:
            matcher = matchers[row.profile_id]
            if not matcher:
                continue
            texts = [row.content, row.title or "", *(p.content for p in parts.get(row.id, ()))]
            phrase = next((hit for text in texts if text and (hit := matcher.find(text)) is not None), None)
            if phrase is not None:
                found[row.id] = phrase
    return found


async def _parts(conn, media_url: MediaURL, post_ids: list[str]) -> dict[str, list[ClaimPart]]:
    rows = (
        await conn.execute(
            select(post_parts)
            .where(post_parts.c.post_id.in_(post_ids))
            .order_by(post_parts.c.post_id, post_parts.c.position)
        )
    ).all()
    if not rows:
        return {}
    media = await _attachments(conn, media_url, list({r.post_id for r in rows}), parts=True)
    found: dict[str, list[ClaimPart]] = {}
    for r in rows:
        found.setdefault(r.post_id, []).append(
            ClaimPart(
                r.position,
                r.kind,
                r.content,
                r.delivery_key,
                r.status,
                r.platform_post_id,
                r.platform_url,
                r.platform_cid,
                media.get(f"{r.post_id}:{r.position}", ()),
                _state(r.delivery_state),
            )
        )
    return found


async def _attachments(
    conn, media_url: MediaURL, post_ids: list[str], *, parts: bool = False
) -> dict[str, tuple[OutgoingMedia, ...]]:
    """Each post's own attachments by post id; with `parts`, its parts' by "post_id:position"."""
    if not post_ids:
        return {}
    rows = await conn.execute(
        select(
            post_media.c.post_id,
            media.c.id,
            media.c.kind,
            media.c.mime_type,
            media.c.size_bytes,
            media.c.description,
            media.c.width,
            media.c.height,
            media.c.storage_key,
            media.c.storage_generation,
            post_media.c.part,
        )
        .select_from(post_media.join(media, media.c.id == post_media.c.media_id))
        .where(post_media.c.post_id.in_(post_ids), (post_media.c.part != -1) if parts else (post_media.c.part == -1))
        .order_by(post_media.c.post_id, post_media.c.position)
    )
    found: dict[str, list[OutgoingMedia]] = {}
    for r in rows:
        found.setdefault(f"{r.post_id}:{r.part}" if parts else r.post_id, []).append(
            OutgoingMedia(
                r.id,
                r.kind,
                r.mime_type,
                r.size_bytes,
                media_url(r.id, r.storage_key, r.storage_generation),
                r.description or "",
                r.width,
                r.height,
                r.storage_key,
                r.storage_generation,
            )
        )
    return {k: tuple(v) for k, v in found.items()}
