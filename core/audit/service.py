"""Reading the audit log (docs/teams.md, "Audit log"): an organization's events newest first,
filtered by actor, method, resource and a time range, a page at a time both ways.

Keyset pages over (at, id), without OFFSET, on ix_audit_events_org_id_at_id: a page starts where
its token says and walks the organization's range of the index, so any page costs about what the
first does. A token carries its direction (`next`: older events, `previous`: newer ones) and the
event it continues from. The filters are checked on the rows walked; a time range bounds the walk.

Who acted is read as it is now: the actor's email from `users`, the credential's name from the API
key (its display prefix) or the agent's OAuth client (its name), none of which the event copies."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, and_, func, literal, select, tuple_
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import api_keys, audit_events, oauth_clients, users
from core.db.types import UTCDateTime
from core.errors import ValidationError
from core.pagination import Page, encode_token
from core.posts.schedule import parse_datetime

_METHOD = re.compile(r"[a-z]+\.[A-Za-z]+")
_FILTER_CHARS = 200


@dataclass(frozen=True, slots=True)
class AuditFilter:
    actor_user_id: str = ""
    method: str = ""
    resource_id: str = ""
    after: str = ""  # ISO 8601, inclusive
    before: str = ""  # ISO 8601, exclusive


@dataclass(frozen=True, slots=True)
class AuditRecord:
    id: str
    at: datetime
    actor_user_id: str
    actor_email: str
    via: str
    credential_id: str
    credential_name: str
    method: str
    resource_kind: str
    resource_id: str
    request_id: str


@dataclass(frozen=True, slots=True)
class AuditPage:
    events: list[AuditRecord]
    next_token: str
    previous_token: str


_e = audit_events.c
_COLUMNS = (
    _e.id,
    _e.at,
    _e.actor_user_id,
    func.coalesce(users.c.email, "").label("actor_email"),
    _e.via,
    _e.credential_id,
    func.coalesce(api_keys.c.display_prefix, oauth_clients.c.client_name, "").label("credential_name"),
    _e.method,
    func.coalesce(_e.resource_kind, "").label("resource_kind"),
    func.coalesce(_e.resource_id, "").label("resource_id"),
    func.coalesce(_e.request_id, "").label("request_id"),
)
_FROM = (
    audit_events.outerjoin(users, users.c.id == _e.actor_user_id)
    .outerjoin(api_keys, and_(_e.via == "api_key", api_keys.c.id == _e.credential_id))
    .outerjoin(oauth_clients, and_(_e.via == "agent", oauth_clients.c.id == _e.credential_id))
)


async def list_events(conn: AsyncConnection, org_id: str, filters: AuditFilter, page: Page) -> AuditPage:
    """A page of the organization's events, newest first (`page.after`: a token's position, as
    core/pagination.py decoded it, or None for the first page)."""
    direction, start = _position(page.after) if page.after else ("next", None)
    stmt = _matching(org_id, filters)
    if direction == "previous":
        found = await _walk(conn, stmt, start, page.size, newer=True)
        if len(found) > page.size:  # a full page of newer events, and more before it
            shown = found[: page.size][::-1]
            return AuditPage(shown, _token("next", shown[-1]), _token("previous", shown[0]))
        start = None  # back at the newest: the first page, full
    found = await _walk(conn, stmt, start, page.size, newer=False)
    shown = found[: page.size]
    next_token = _token("next", shown[-1]) if len(found) > page.size else ""
    previous_token = _token("previous", shown[0]) if start is not None and shown else ""
    return AuditPage(shown, next_token, previous_token)


def _matching(org_id: str, filters: AuditFilter) -> Select:
    terms = [_e.org_id == org_id]
    for name, column in (("actor_user_id", _e.actor_user_id), ("resource_id", _e.resource_id)):
        if value := getattr(filters, name):
            if len(value) > _FILTER_CHARS:
                raise ValidationError(f"{name} must be at most {_FILTER_CHARS} characters")
            terms.append(column == value)
    if filters.method:
        if not _METHOD.fullmatch(filters.method):
            raise ValidationError("method must name a core method as the log does, e.g. posts.CreatePosts")
        terms.append(_e.method == filters.method)
    if filters.after:
        terms.append(_e.at >= parse_datetime(filters.after, "after"))
    if filters.before:
        terms.append(_e.at < parse_datetime(filters.before, "before"))
    return select(*_COLUMNS).select_from(_FROM).where(*terms)


async def _walk(
    conn: AsyncConnection, stmt: Select, start: tuple[datetime, str] | None, size: int, *, newer: bool
) -> list[AuditRecord]:
    """Up to size+1 events past `start`: older ones newest first, or (`newer`) newer ones nearest
    first."""
    if start is not None:
        key = tuple_(_e.at, _e.id)
        bound = tuple_(literal(start[0], UTCDateTime()), literal(start[1], _e.id.type))
        stmt = stmt.where(key > bound if newer else key < bound)
    order = (_e.at, _e.id) if newer else (_e.at.desc(), _e.id.desc())
    rows = await conn.execute(stmt.order_by(*order).limit(size + 1))
    return [AuditRecord(*row) for row in rows]


def _token(direction: str, event: AuditRecord) -> str:
    return encode_token(f"{direction}|{event.at.isoformat()}|{event.id}")


def _position(after: str) -> tuple[str, tuple[datetime, str]]:
    """The direction and the (time, id) a page token names; VALIDATION_ERROR for anything this
    module did not make."""
    direction, _, rest = after.partition("|")
    at, _, event_id = rest.partition("|")
    try:
        when = datetime.fromisoformat(at)
    except ValueError:
        raise ValidationError("page_token is malformed") from None
    if direction not in ("next", "previous") or when.tzinfo is None or not event_id.startswith("aud_"):
        raise ValidationError("page_token is malformed")
    return direction, (when, event_id)
