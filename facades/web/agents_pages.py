"""Connected agents in the dashboard: the OAuth grants of the organization's members, and
disconnecting one (docs/oauth.md)."""

from __future__ import annotations

from herald.identity.v1 import oauth_pb2
from sanic import Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.web.pages import Route, dashboard_page, see_other, signed_in, when
from facades.web.session import Viewer


async def agents_page(request: Request, viewer: Viewer, *, status: int = 200, error: str | None = None) -> HTTPResponse:
    """The agents page: each live grant's client, scopes, creation and last token."""
    core = request.app.ctx.core
    result = await core.call(core.oauth.ListGrants, oauth_pb2.ListGrantsRequest(), authorization=viewer.authorization)
    grants = [
        {
            "id": grant.id,
            "client_name": grant.client_name or grant.client_id,
            "client_id": grant.client_id,
            "scopes": list(grant.scopes),
            "created": when(grant.create_time, viewer.time_zone),
            "last_token": when(grant.last_token_time, viewer.time_zone),
        }
        for grant in result.response.grants
        if not grant.HasField("revoke_time")
    ]
    return await dashboard_page(request, viewer, "agents.html", "agents", status=status, grants=grants, error=error)


@signed_in
async def list_agents(request: Request, viewer: Viewer) -> HTTPResponse:
    """The agents connected to the organization."""
    return await agents_page(request, viewer)


@signed_in
async def revoke_agent(request: Request, viewer: Viewer, grant_id: str) -> HTTPResponse:
    """Disconnects an agent: its tokens are refused from then on."""
    core = request.app.ctx.core
    try:
        await core.call(
            core.oauth.RevokeGrant,
            oauth_pb2.RevokeGrantRequest(grant_id=grant_id),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.code not in ("NOT_FOUND", "VALIDATION_ERROR"):
            raise
        return await agents_page(request, viewer, status=error.http_status, error=error.message)
    return see_other("/dashboard/agents?notice=agent-revoked")


ROUTES = (
    Route("GET", "/dashboard/agents", list_agents),
    Route("POST", "/dashboard/agents/<grant_id:str>/revoke", revoke_agent),
)
