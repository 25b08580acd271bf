"""Connected agents: the grants a user gave clients in one organization, and their revocation."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import oauth_clients, oauth_grants
from core.errors import NotFound
from core.identity.principal import Principal
from core.oauth.token_endpoint import revoke_grant_tokens


@dataclass(frozen=True, slots=True)
class GrantView:
    id: str
    client_id: str
    client_name: str
    scopes: tuple[str, ...]
    created_at: datetime
    last_token_at: datetime
    revoked_at: datetime | None


_COLUMNS = (
    oauth_grants.c.id,
    # The identifier the client is known by: a metadata-document client's URL.
    func.coalesce(oauth_clients.c.metadata_url, oauth_grants.c.client_id).label("client_id"),
    oauth_clients.c.client_name,
    oauth_grants.c.scope,
    oauth_grants.c.created_at,
    oauth_grants.c.last_token_at,
    oauth_grants.c.revoked_at,
)
_FROM = oauth_grants.join(oauth_clients, oauth_clients.c.id == oauth_grants.c.client_id)


def _view(row) -> GrantView:  # a Row
    return GrantView(
        row.id,
        row.client_id,
        row.client_name,
        tuple(row.scope.split()),
        row.created_at,
        row.last_token_at,
        row.revoked_at,
    )


async def list_grants(conn: AsyncConnection, principal: Principal) -> list[GrantView]:
    rows = await conn.execute(
        select(*_COLUMNS)
        .select_from(_FROM)
        .where(
            oauth_grants.c.user_id == principal.user_id,
            oauth_grants.c.org_id == principal.org_id,
            oauth_grants.c.revoked_at.is_(None),
        )
        .order_by(oauth_grants.c.id.desc())
        .limit(500)
    )
    return [_view(r) for r in rows]


async def revoke_grant(conn: AsyncConnection, principal: Principal, grant_id: str, now: datetime) -> GrantView:
    row = (
        await conn.execute(
            select(*_COLUMNS)
            .select_from(_FROM)
            .where(
                oauth_grants.c.id == grant_id,
                oauth_grants.c.user_id == principal.user_id,
                oauth_grants.c.org_id == principal.org_id,
                oauth_grants.c.revoked_at.is_(None),
            )
        )
    ).first()
    if row is None:
        raise NotFound(f"no active grant {grant_id!r}")
    await revoke_grant_tokens(conn, grant_id, now)
    view = _view(row)
    return GrantView(view.id, view.client_id, view.client_name, view.scopes, view.created_at, view.last_token_at, now)
