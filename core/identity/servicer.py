"""herald.identity.v1.IdentityService: translates proto to the identity service and back."""

from __future__ import annotations

import grpc
from herald.identity.v1 import identity_pb2, identity_pb2_grpc

from core.identity import service
from core.identity.principal import CredentialKind, Principal
from core.pagination import page_request
from core.rpc.context import current_call
from core.rpc.convert import PLAN_TO_PROTO, timestamp
from core.rpc.policy import MethodPolicy, PageBounds

_KEY_HOLDERS = frozenset({CredentialKind.API_KEY, CredentialKind.SESSION})
# Only a signed-in human mints or revokes keys: an unauthenticated caller, or a key, cannot. A key
# may rotate itself only (core/identity/service.py: rotate_api_key), so a leaked key cannot lock
# its owner out by revoking or rotating their other keys.
_HUMANS = frozenset({CredentialKind.SESSION})

POLICIES = {
    "GetPrincipal": MethodPolicy(permission="read", plan_exempt_for_sessions=True),
    # The named method's policy applies instead (core/rpc/interceptors.py).
    "CheckAccess": MethodPolicy(permission="read", checks_named_method=True),
    "ListApiKeys": MethodPolicy(
        permission="read",
        credential_kinds=_KEY_HOLDERS,
        plan_exempt_for_sessions=True,
        page=PageBounds(default=50, maximum=100),
    ),
    "CreateApiKey": MethodPolicy(
        permission="compose", credential_kinds=_HUMANS, plan_exempt_for_sessions=True, writes=True
    ),
    "RevokeApiKey": MethodPolicy(
        permission="read", credential_kinds=_HUMANS, plan_exempt_for_sessions=True, writes=True
    ),
    "RotateApiKey": MethodPolicy(
        permission="compose", credential_kinds=_KEY_HOLDERS, plan_exempt_for_sessions=True, writes=True
    ),
}

_KIND_TO_PROTO = {
    CredentialKind.API_KEY: identity_pb2.CREDENTIAL_KIND_API_KEY,
    CredentialKind.OAUTH_ACCESS_TOKEN: identity_pb2.CREDENTIAL_KIND_OAUTH_ACCESS_TOKEN,
    CredentialKind.SESSION: identity_pb2.CREDENTIAL_KIND_SESSION,
}


def _api_key(record: service.ApiKeyRecord) -> identity_pb2.ApiKey:
    return identity_pb2.ApiKey(
        id=record.id,
        display_prefix=record.display_prefix,
        create_time=timestamp(record.created_at),
        last_use_time=timestamp(record.last_used_at),
        revoke_time=timestamp(record.revoked_at),
    )


def principal_message(p: Principal) -> identity_pb2.Principal:
    """The call's principal as GetPrincipal answers it (AccountService.GetSessionView carries it too)."""
    return identity_pb2.Principal(
        user_id=p.user_id,
        organization_id=p.org_id,
        organization=p.org_slug,
        credential_kind=_KIND_TO_PROTO[p.credential_kind],
        credential_id=p.credential_id,
        scopes=sorted(p.scopes),
        plan=PLAN_TO_PROTO[p.plan],
        email=p.email,
        time_zone=p.time_zone,
        role=p.role,
        awaiting_verification=p.awaiting_verification,
    )


class IdentityServicer(identity_pb2_grpc.IdentityServiceServicer):
    async def GetPrincipal(self, request, context: grpc.aio.ServicerContext):
        return principal_message(current_call().principal)

    async def CheckAccess(
        self, request: identity_pb2.CheckAccessRequest, context: grpc.aio.ServicerContext
    ) -> identity_pb2.CheckAccessResponse:
        return identity_pb2.CheckAccessResponse()

    async def ListApiKeys(
        self, request: identity_pb2.ListApiKeysRequest, context: grpc.aio.ServicerContext
    ) -> identity_pb2.ListApiKeysResponse:
        call = current_call()
        page = page_request(request.page_size, request.page_token, POLICIES["ListApiKeys"].page)
        records, token = await service.list_api_keys(call.conn, call.principal, page)
        return identity_pb2.ListApiKeysResponse(api_keys=[_api_key(r) for r in records], next_page_token=token)

    async def CreateApiKey(
        self, request: identity_pb2.CreateApiKeyRequest, context: grpc.aio.ServicerContext
    ) -> identity_pb2.CreatedApiKey:
        call = current_call()
        key_pk, minted = await service.create_api_key(
            call.conn, call.principal.user_id, call.principal.org_id, call.now
        )
        record = service.ApiKeyRecord(key_pk, minted.display_prefix, call.now, None, None)
        return identity_pb2.CreatedApiKey(api_key=_api_key(record), secret=minted.secret)

    async def RevokeApiKey(
        self, request: identity_pb2.RevokeApiKeyRequest, context: grpc.aio.ServicerContext
    ) -> identity_pb2.ApiKey:
        call = current_call()
        return _api_key(await service.revoke_api_key(call.conn, call.principal, request.api_key_id, call.now))

    async def RotateApiKey(
        self, request: identity_pb2.RotateApiKeyRequest, context: grpc.aio.ServicerContext
    ) -> identity_pb2.CreatedApiKey:
        call = current_call()
        record, secret = await service.rotate_api_key(call.conn, call.principal, request.api_key_id, call.now)
        return identity_pb2.CreatedApiKey(api_key=_api_key(record), secret=secret)
