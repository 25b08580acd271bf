"""The organization's published posts with their latest metrics (GET /v1/analytics/posts;
docs/analytics.md, "Summaries and lists"): a range of publish times, filtered, newest first or by
a metric, highest first, in keyset pages.

A page reads the series rows of the range (ix_post_metric_series_org_id_published_at) joined to
their posts for the text and URL. Sorting by a metric orders by (value, published_at, post_id),
all in the order asked; a post without the value sorts as -1 descending and as 2^62 ascending, so
posts without it come last either way and the key stays a plain tuple the next page continues
from."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, tuple_
from sqlalchemy.ext.asyncio import AsyncConnection

from contract.analytics import POST_METRICS
from core.analytics.filters import Filters, conditions, engagement, latest, series, time_range
from core.db.models import post_metric_series, posts
from core.errors import ValidationError
from core.pagination import Page, encode_token

SORTS = ("published_at", "engagement", *POST_METRICS)
ORDERS = ("desc", "asc")
_LAST_ASCENDING = 2**62


@dataclass(frozen=True, slots=True)
class PostAnalytics:
    post_id: str
    profile: str
    connector: str
    content: str
    platform_url: str
    published_at: datetime
    values: dict[str, int]
    engagement: int | None
    collected_at: datetime | None
    sandbox: bool | None


@dataclass(frozen=True, slots=True)
class PostList:
    posts: list[PostAnalytics]
    next_page_token: str
    start: datetime
    end: datetime


def _sort_key(sort: str, order: str) -> Any:  # a column expression
    value = engagement() if sort == "engagement" else latest(sort)
    return func.coalesce(value, -1 if order == "desc" else _LAST_ASCENDING)


def _after(token: str, sort: str, order: str) -> tuple:
    """The key a page token continues from; VALIDATION_ERROR for another sort's token."""
    parts = token.split("|")
    if parts[0] != f"{sort}:{order}" or len(parts) != (3 if sort == "published_at" else 4):
        raise ValidationError("page_token is of another sort or order: start again without it", argument="page_token")
    try:
        when = datetime.fromisoformat(parts[-2])
        key = (when, parts[-1]) if sort == "published_at" else (int(parts[1]), when, parts[-1])
    except ValueError:
        raise ValidationError("page_token is malformed", argument="page_token") from None
    return key


async def list_post_analytics(
    conn: AsyncConnection, org_id: str, filters: Filters, sort: str, order: str, page: Page, now: datetime
) -> PostList:
    sort, order = sort or "published_at", order or "desc"
    if sort not in SORTS:
        raise ValidationError(f"sort must be one of {', '.join(SORTS)}", argument="sort")
    if order not in ORDERS:
        raise ValidationError("order must be desc or asc", argument="order")
    start, end = time_range(filters.start, filters.end, now)
    keys = [series.published_at, series.post_id]
    if sort != "published_at":
        keys.insert(0, _sort_key(sort, order))
    columns = [
        series.post_id,
        posts.c.profile_slug,
        series.connector,
        posts.c.content,
        posts.c.platform_url,
        series.published_at,
        series.latest_at,
        series.latest_sandbox,
        engagement().label("engagement"),
        *(latest(name).label(name) for name in POST_METRICS),
    ]
    stmt = (
        select(*columns, *(k.label(f"k{i}") for i, k in enumerate(keys)))
        .select_from(post_metric_series.join(posts, posts.c.id == series.post_id))
        .where(*conditions(org_id, filters, start, end))
    )
    if page.after:
        after = _after(page.after, sort, order)
        stmt = stmt.where(tuple_(*keys) < tuple_(*after) if order == "desc" else tuple_(*keys) > tuple_(*after))
    stmt = stmt.order_by(*(k.desc() if order == "desc" else k.asc() for k in keys)).limit(page.size + 1)
    rows = (await conn.execute(stmt)).all()
    token = ""
    if len(rows) > page.size:
        last = rows[page.size - 1]
        fields = [f"{sort}:{order}"] + ([str(last.k0)] if sort != "published_at" else [])
        token = encode_token("|".join([*fields, last.published_at.isoformat(), last.post_id]))
    return PostList([_record(row) for row in rows[: page.size]], token, start, end)


def _record(row: Any) -> PostAnalytics:  # a row of the page's select
    values = {name: getattr(row, name) for name in POST_METRICS if getattr(row, name) is not None}
    return PostAnalytics(
        row.post_id,
        row.profile_slug,
        row.connector,
        row.content,
        row.platform_url,
        row.published_at,
        values,
        row.engagement,
        row.latest_at,
        row.latest_sandbox,
    )
