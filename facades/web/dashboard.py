"""The dashboard: sign-up, sign-in, sign-out and the signed-in pages (overview, organization
switcher, API keys, connected agents; profiles and credits live in records_pages)."""

from __future__ import annotations

from herald.credits.v1 import credits_pb2
from herald.identity.v1 import accounts_pb2, identity_pb2, oauth_pb2
from sanic import Blueprint, Request
from sanic.blueprint_group import BlueprintGroup
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.web.accounts_pages import accounts_blueprint
from facades.web.brand_pages import brand_blueprint
from facades.web.connect_pages import connect_blueprint
from facades.web.media_pages import media_blueprint
from facades.web.pages import dashboard_page, form_value, plan_name, see_other, signed_in, when
from facades.web.posts_pages import posts_blueprint
from facades.web.records_pages import records_blueprint
from facades.web.session import Viewer
from facades.web.webhooks_pages import webhooks_blueprint

KEYS_SHOWN = 100


def dashboard_blueprint() -> BlueprintGroup:
    return Blueprint.group(
        accounts_blueprint(),
        _signed_in_blueprint(),
        records_blueprint(),
        brand_blueprint(),
        connect_blueprint(),
        posts_blueprint(),
        media_blueprint(),
        webhooks_blueprint(),
    )


def _email(principal: identity_pb2.Principal) -> str:
    return principal.email


async def _keys_page(request: Request, viewer: Viewer, *, status: int = 200, error: str | None = None) -> HTTPResponse:
    core = request.app.ctx.core
    result = await core.call(
        core.identity.ListApiKeys,
        identity_pb2.ListApiKeysRequest(page_size=KEYS_SHOWN),
        authorization=viewer.authorization,
    )
    keys = [
        {
            "id": key.id,
            "prefix": key.display_prefix,
            "created": when(key.create_time),
            "last_used": when(key.last_use_time),
            "revoked": when(key.revoke_time, empty=""),
        }
        for key in result.response.api_keys
    ]
    return await dashboard_page(request, viewer, "keys.html", "keys", status=status, keys=keys, error=error)


async def _agents_page(
    request: Request, viewer: Viewer, *, status: int = 200, error: str | None = None
) -> HTTPResponse:
    core = request.app.ctx.core
    result = await core.call(core.oauth.ListGrants, oauth_pb2.ListGrantsRequest(), authorization=viewer.authorization)
    grants = [
        {
            "id": grant.id,
            "client_name": grant.client_name or grant.client_id,
            "client_id": grant.client_id,
            "scopes": list(grant.scopes),
            "created": when(grant.create_time),
            "last_token": when(grant.last_token_time),
        }
        for grant in result.response.grants
        if not grant.HasField("revoke_time")
    ]
    return await dashboard_page(request, viewer, "agents.html", "agents", status=status, grants=grants, error=error)


def _signed_in_blueprint() -> Blueprint:
    bp = Blueprint("dashboard_pages", url_prefix="/dashboard")

    @bp.get("")
    @signed_in
    async def overview(request: Request, viewer: Viewer) -> HTTPResponse:
        core = request.app.ctx.core
        account = await core.call(
            core.credits.GetCreditAccount,
            credits_pb2.GetCreditAccountRequest(recent_entries=0),
            authorization=viewer.authorization,
        )
        return await dashboard_page(
            request,
            viewer,
            "overview.html",
            "overview",
            email=_email(viewer.principal),
            plan=plan_name(viewer.principal.plan),
            balance=account.response.balance,
            low_credit_threshold=account.response.low_credit_threshold,
        )

    @bp.post("/organization")
    @signed_in
    async def switch_organization(request: Request, viewer: Viewer) -> HTTPResponse:
        core = request.app.ctx.core
        try:
            await core.call(
                core.accounts.SwitchOrganization,
                accounts_pb2.SwitchOrganizationRequest(organization=form_value(request, "organization")),
                authorization=viewer.authorization,
            )
        except ApiError as error:
            if error.code not in ("NOT_FOUND", "VALIDATION_ERROR"):
                raise
            return await dashboard_page(
                request,
                viewer,
                "message.html",
                "overview",
                status=error.http_status,
                heading="Organization not switched",
                message=error.message,
                role_alert=True,
                link="/dashboard",
                link_text="Back to the overview",
            )
        return see_other("/dashboard?notice=switched")

    @bp.get("/keys")
    @signed_in
    async def keys(request: Request, viewer: Viewer) -> HTTPResponse:
        return await _keys_page(request, viewer)

    @bp.post("/keys")
    @signed_in
    async def create_key(request: Request, viewer: Viewer) -> HTTPResponse:
        core = request.app.ctx.core
        result = await core.call(
            core.identity.CreateApiKey, identity_pb2.CreateApiKeyRequest(), authorization=viewer.authorization
        )
        # Rendered, not redirected: the secret exists only in this response (no-store).
        return await dashboard_page(
            request, viewer, "key_created.html", "keys", status=201, created=result.response, rotated=False
        )

    @bp.post("/keys/<key_id:str>/rotate")
    @signed_in
    async def rotate_key(request: Request, viewer: Viewer, key_id: str) -> HTTPResponse:
        core = request.app.ctx.core
        try:
            result = await core.call(
                core.identity.RotateApiKey,
                identity_pb2.RotateApiKeyRequest(api_key_id=key_id),
                authorization=viewer.authorization,
            )
        except ApiError as error:
            if error.code not in ("NOT_FOUND", "VALIDATION_ERROR"):
                raise
            return await _keys_page(request, viewer, status=error.http_status, error=error.message)
        return await dashboard_page(
            request, viewer, "key_created.html", "keys", status=200, created=result.response, rotated=True
        )

    @bp.post("/keys/<key_id:str>/revoke")
    @signed_in
    async def revoke_key(request: Request, viewer: Viewer, key_id: str) -> HTTPResponse:
        core = request.app.ctx.core
        try:
            await core.call(
                core.identity.RevokeApiKey,
                identity_pb2.RevokeApiKeyRequest(api_key_id=key_id),
                authorization=viewer.authorization,
            )
        except ApiError as error:
            if error.code not in ("NOT_FOUND", "VALIDATION_ERROR"):
                raise
            return await _keys_page(request, viewer, status=error.http_status, error=error.message)
        return see_other("/dashboard/keys?notice=key-revoked")

    @bp.get("/agents")
    @signed_in
    async def agents(request: Request, viewer: Viewer) -> HTTPResponse:
        return await _agents_page(request, viewer)

    @bp.post("/agents/<grant_id:str>/revoke")
    @signed_in
    async def revoke_agent(request: Request, viewer: Viewer, grant_id: str) -> HTTPResponse:
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
            return await _agents_page(request, viewer, status=error.http_status, error=error.message)
        return see_other("/dashboard/agents?notice=agent-revoked")

    return bp
