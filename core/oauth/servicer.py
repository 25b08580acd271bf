"""herald.identity.v1.OAuthService: translates proto to the authorization server's rules."""

from __future__ import annotations

import grpc
from herald.identity.v1 import oauth_pb2, oauth_pb2_grpc

from core.identity.principal import CredentialKind
from core.oauth import authorization, clients, grants, jwks, token_endpoint
from core.oauth.client_metadata import ClientMetadataDocuments
from core.oauth.errors import InvalidClientMetadata
from core.rpc import budgets
from core.rpc.context import Call, current_call
from core.rpc.convert import timestamp
from core.rpc.policy import MethodPolicy

_SESSIONS = frozenset({CredentialKind.SESSION})

POLICIES = {
    # Not transactional: the caller's registration budget is spent before any transaction opens.
    "RegisterClient": MethodPolicy(anonymous=True, writes=True, transactional=False),
    # Not transactional: a metadata-document client's document is fetched (up to a few seconds)
    # before the transaction opens, not inside it.
    "CheckAuthorization": MethodPolicy(anonymous=True, transactional=False),
    "PrepareConsent": MethodPolicy(
        permission="read", credential_kinds=_SESSIONS, plan_exempt_for_sessions=True, transactional=False
    ),
    "ApproveAuthorization": MethodPolicy(
        permission="read", credential_kinds=_SESSIONS, plan_exempt_for_sessions=True, writes=True, transactional=False
    ),
    # Not transactional: a replayed code or refresh token revokes, and that must commit even
    # though the request fails (core/oauth/token_endpoint.py).
    "ExchangeToken": MethodPolicy(anonymous=True, writes=True, transactional=False),
    "RevokeToken": MethodPolicy(anonymous=True, writes=True),
    "IntrospectToken": MethodPolicy(anonymous=True),
    # Not transactional: served from this process's memory (core/oauth/jwks.py), no database work.
    "GetJwks": MethodPolicy(anonymous=True, transactional=False),
    "ListGrants": MethodPolicy(permission="read", credential_kinds=_SESSIONS, plan_exempt_for_sessions=True),
    "RevokeGrant": MethodPolicy(
        permission="read", credential_kinds=_SESSIONS, plan_exempt_for_sessions=True, writes=True
    ),
}


def _metadata_from_proto(m: oauth_pb2.ClientMetadata) -> clients.ClientMetadata:
    return clients.ClientMetadata(
        client_name=m.client_name,
        redirect_uris=tuple(m.redirect_uris),
        grant_types=tuple(m.grant_types),
        response_types=tuple(m.response_types),
        token_endpoint_auth_method=m.token_endpoint_auth_method if m.HasField("token_endpoint_auth_method") else None,
        scope=m.scope,
        client_uri=m.client_uri,
        application_type=m.application_type if m.HasField("application_type") else None,
    )


def _parameters(p: oauth_pb2.AuthorizationParameters) -> authorization.AuthorizationParameters:
    return authorization.AuthorizationParameters(
        response_type=p.response_type,
        client_id=p.client_id,
        redirect_uri=p.redirect_uri,
        scope=p.scope,
        state=p.state,
        code_challenge=p.code_challenge,
        code_challenge_method=p.code_challenge_method,
        resource=p.resource,
    )


def _grant(view: grants.GrantView) -> oauth_pb2.Grant:
    return oauth_pb2.Grant(
        id=view.id,
        client_id=view.client_id,
        client_name=view.client_name,
        scopes=list(view.scopes),
        create_time=timestamp(view.created_at),
        last_token_time=timestamp(view.last_token_at),
        revoke_time=timestamp(view.revoked_at),
    )


def _shown_uri(uri: str) -> str:
    """client_uri as the consent page may link it: https only. Registration refuses anything
    else now; a row kept from before that rule shows no link."""
    try:
        clients.check_client_uri(uri)
    except InvalidClientMetadata:
        return ""
    return uri


def _context(checked: authorization.CheckedAuthorization) -> oauth_pb2.AuthorizationContext:
    client = checked.client
    return oauth_pb2.AuthorizationContext(
        client_id=client.client_id,
        client_name=client.client_name,
        client_uri=_shown_uri(client.client_uri),
        scopes=list(checked.scopes),
        redirect_uri=checked.redirect_uri,
        resource=checked.resource,
        client_host=client.metadata_host,
    )


def _epoch(value) -> int:  # datetime | None
    return int(value.timestamp()) if value else 0


class OAuthServicer(oauth_pb2_grpc.OAuthServiceServicer):
    def __init__(self, documents: ClientMetadataDocuments) -> None:
        # Fetches and caches Client ID Metadata Documents for this process.
        self.documents = documents

    async def _document_client(self, client_id: str, call: Call, *, anonymous: bool = False) -> clients.Client | None:
        """The client a metadata document describes, fetched outside any transaction; None for
        a registered client's id. `anonymous`: the request carries no session, so each fetch
        (not a cached document) spends the caller's address budget (docs/oauth.md)."""
        if not clients.is_metadata_url(client_id):
            return None

        async def spend() -> None:
            settings = call.settings
            what = "client metadata documents fetched"
            await budgets.spend(call, "cimd", call.client_address, settings.rate_limit_client_metadata_address, what)

        return await self.documents.client(client_id, call.now, before_fetch=spend if anonymous else None)

    async def RegisterClient(
        self, request: oauth_pb2.RegisterClientRequest, context: grpc.aio.ServicerContext
    ) -> oauth_pb2.OAuthClient:
        call = current_call()
        limit = call.settings.rate_limit_register_address
        await budgets.spend(call, "register", call.client_address, limit, "client registrations")
        async with call.transaction(writes=True) as conn:
            client, secret = await clients.register_client(conn, _metadata_from_proto(request.metadata), call.now)
        return oauth_pb2.OAuthClient(
            client_id=client.id,
            client_secret=secret,
            client_id_issued_at=_epoch(client.created_at),
            metadata=oauth_pb2.ClientMetadata(
                client_name=client.client_name,
                redirect_uris=list(client.redirect_uris),
                grant_types=list(client.grant_types),
                response_types=list(client.response_types),
                token_endpoint_auth_method=client.token_endpoint_auth_method,
                scope=client.scope,
                client_uri=client.client_uri,
                application_type=client.application_type,
            ),
        )

    async def CheckAuthorization(
        self, request: oauth_pb2.CheckAuthorizationRequest, context: grpc.aio.ServicerContext
    ) -> oauth_pb2.AuthorizationContext:
        call = current_call()
        params = _parameters(request.parameters)
        client = await self._document_client(params.client_id, call, anonymous=True)
        async with call.transaction() as conn:
            checked = await authorization.check_authorization(
                conn, params, resource=call.settings.mcp_resource, client=client
            )
        return _context(checked)

    async def PrepareConsent(
        self, request: oauth_pb2.PrepareConsentRequest, context: grpc.aio.ServicerContext
    ) -> oauth_pb2.Consent:
        call = current_call()
        params = _parameters(request.parameters)
        client = await self._document_client(params.client_id, call)
        async with call.transaction() as conn:
            consent = await authorization.prepare_consent(
                conn, call.principal, params, resource=call.settings.mcp_resource, client=client
            )
        return oauth_pb2.Consent(
            context=_context(consent.checked),
            organization=consent.organization,
            granted_scopes=list(consent.granted),
            new_scopes=list(consent.new),
        )

    async def ApproveAuthorization(
        self, request: oauth_pb2.ApproveAuthorizationRequest, context: grpc.aio.ServicerContext
    ) -> oauth_pb2.AuthorizationCode:
        call = current_call()
        params = _parameters(request.parameters)
        client = await self._document_client(params.client_id, call)
        async with call.transaction(writes=True) as conn:
            checked, code = await authorization.approve_authorization(
                conn,
                call.principal,
                params,
                request.organization,
                resource=call.settings.mcp_resource,
                lifetime=call.settings.oauth_code_lifetime_seconds,
                now=call.now,
                client=client,
            )
        return oauth_pb2.AuthorizationCode(code=code, redirect_uri=checked.redirect_uri, state=request.parameters.state)

    async def ExchangeToken(
        self, request: oauth_pb2.ExchangeTokenRequest, context: grpc.aio.ServicerContext
    ) -> oauth_pb2.TokenResponse:
        call = current_call()
        settings = call.settings
        lifetimes = token_endpoint.Lifetimes(
            settings.oauth_access_token_lifetime_seconds, settings.oauth_refresh_token_lifetime_seconds
        )
        token_request = token_endpoint.TokenRequest(
            grant_type=request.grant_type,
            client_id=request.client_id,
            client_secret=request.client_secret,
            code=request.code,
            redirect_uri=request.redirect_uri,
            code_verifier=request.code_verifier,
            refresh_token=request.refresh_token,
            scope=request.scope,
            resource=request.resource,
        )
        async with call.transaction(writes=True) as conn:
            outcome = await token_endpoint.exchange(
                conn, token_request, resource=settings.mcp_resource, lifetimes=lifetimes, now=call.now
            )
        if isinstance(outcome, Exception):
            raise outcome  # after the commit: a replay's revocation stands
        return oauth_pb2.TokenResponse(
            access_token=outcome.access_token,
            token_type="Bearer",
            expires_in=outcome.expires_in,
            refresh_token=outcome.refresh_token,
            scope=outcome.scope,
        )

    async def RevokeToken(
        self, request: oauth_pb2.RevokeTokenRequest, context: grpc.aio.ServicerContext
    ) -> oauth_pb2.RevokeTokenResponse:
        call = current_call()
        await token_endpoint.revoke(
            call.conn,
            token=request.token,
            client_id=request.client_id,
            client_secret=request.client_secret,
            now=call.now,
        )
        return oauth_pb2.RevokeTokenResponse()

    async def IntrospectToken(
        self, request: oauth_pb2.IntrospectTokenRequest, context: grpc.aio.ServicerContext
    ) -> oauth_pb2.TokenIntrospection:
        call = current_call()
        found = await token_endpoint.introspect(
            call.conn,
            token=request.token,
            client_id=request.client_id,
            client_secret=request.client_secret,
            now=call.now,
        )
        if not found.active:
            return oauth_pb2.TokenIntrospection(active=False)
        return oauth_pb2.TokenIntrospection(
            active=True,
            scope=found.scope,
            client_id=found.client_id,
            token_type=found.token_type,
            exp=_epoch(found.exp),
            iat=_epoch(found.iat),
            sub=found.sub,
            aud=found.aud,
            organization=found.organization,
        )

    async def GetJwks(self, request: oauth_pb2.GetJwksRequest, context: grpc.aio.ServicerContext) -> oauth_pb2.Jwks:
        call = current_call()
        keys = await jwks.PUBLISHED.get(call.engine, call.settings)
        fields = ("kty", "kid", "use", "alg", "crv", "x", "y")
        return oauth_pb2.Jwks(keys=[oauth_pb2.JsonWebKey(**{f: k[f] for f in fields}) for k in keys])

    async def ListGrants(
        self, request: oauth_pb2.ListGrantsRequest, context: grpc.aio.ServicerContext
    ) -> oauth_pb2.ListGrantsResponse:
        call = current_call()
        return oauth_pb2.ListGrantsResponse(
            grants=[_grant(g) for g in await grants.list_grants(call.conn, call.principal)]
        )

    async def RevokeGrant(
        self, request: oauth_pb2.RevokeGrantRequest, context: grpc.aio.ServicerContext
    ) -> oauth_pb2.Grant:
        call = current_call()
        return _grant(await grants.revoke_grant(call.conn, call.principal, request.grant_id, call.now))
