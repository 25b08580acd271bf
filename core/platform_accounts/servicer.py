"""herald.connections.v1.ConnectionService: translates proto to the connections service and back.

A member's profile limits (core/identity/profile_limits.py) hold here too: they connect profiles
within them (accounts.check_reach) and disconnect only those."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import grpc
from herald.connections.v1 import connections_pb2, connections_pb2_grpc
from herald.profiles.v1 import profiles_pb2
from sqlalchemy.ext.asyncio import AsyncConnection

from core.connectors.transport import PlatformEndpoints
from core.identity import profile_limits
from core.identity.principal import CredentialKind
from core.platform_accounts.accounts import Wanted, check_reach
from core.platform_accounts.platforms import OAUTH_PLATFORMS
from core.platform_accounts.service import Connections
from core.platform_accounts.vault import Secret, TokenVault
from core.posts.rules import PLATFORMS
from core.profiles import service as profiles
from core.profiles.messages import profile_message
from core.rpc.context import Call, current_call
from core.rpc.convert import timestamp
from core.rpc.policy import MethodPolicy
from core.settings import CoreSettings

_HUMANS_AND_SERVERS = frozenset({CredentialKind.API_KEY, CredentialKind.SESSION})

POLICIES = {
    "ListPlatforms": MethodPolicy(
        permission="read", credential_kinds=_HUMANS_AND_SERVERS, plan_exempt_for_sessions=True
    ),
    # Connecting accounts is for humans (dashboard) and servers (API keys), never agents. These
    # methods call platforms over HTTP: no transaction stays open meanwhile.
    "StartConnection": MethodPolicy(
        permission="manage_integrations",
        credential_kinds=_HUMANS_AND_SERVERS,
        plan_exempt_for_sessions=True,
        writes=True,
        transactional=False,
    ),
    # The platform's redirect: the state is the proof (and, for the dashboard, the session).
    "CompleteConnection": MethodPolicy(anonymous=True, writes=True, transactional=False),
    "ConnectBluesky": MethodPolicy(
        permission="manage_integrations",
        credential_kinds=_HUMANS_AND_SERVERS,
        plan_exempt_for_sessions=True,
        writes=True,
        transactional=False,
    ),
    "DisconnectProfile": MethodPolicy(
        permission="manage_integrations",
        credential_kinds=_HUMANS_AND_SERVERS,
        plan_exempt_for_sessions=True,
        writes=True,
        transactional=False,
    ),
}


async def _limited(call: Call, check: Callable[[AsyncConnection], Awaitable[None]]) -> None:
    """Runs a profile limits check in a short transaction of its own (these methods keep none
    open), for a member with limits only: the others read nothing for it."""
    if call.principal.profile_tags:
        async with call.transaction() as conn:
            await check(conn)


class ConnectionServicer(connections_pb2_grpc.ConnectionServiceServicer):
    def __init__(self, settings: CoreSettings) -> None:
        endpoints = PlatformEndpoints(settings.platform_host_overrides, allow_private=settings.allows_private_targets)
        self.settings = settings
        self.connections = Connections(settings, endpoints, TokenVault.from_settings(settings))

    async def ListPlatforms(
        self, request: connections_pb2.ListPlatformsRequest, context: grpc.aio.ServicerContext
    ) -> connections_pb2.ListPlatformsResponse:
        found = []
        for key in PLATFORMS:
            if key == "bluesky":
                found.append(connections_pb2.ConnectablePlatform(platform=key, method="app_password", available=True))
            elif key == "mastodon":
                found.append(connections_pb2.ConnectablePlatform(platform=key, method="instance_oauth", available=True))
            else:
                available = OAUTH_PLATFORMS[key].app(self.settings) is not None
                found.append(connections_pb2.ConnectablePlatform(platform=key, method="oauth", available=available))
        return connections_pb2.ListPlatformsResponse(platforms=found, publish_mode=self.settings.publish_mode)

    async def StartConnection(
        self, request: connections_pb2.StartConnectionRequest, context: grpc.aio.ServicerContext
    ) -> connections_pb2.StartConnectionResponse:
        call = current_call()
        principal = call.principal
        wanted = Wanted(request.slug, request.display_name, tuple(request.tags))
        await _limited(call, lambda conn: check_reach(conn, principal, wanted))
        started = await self.connections.start(
            call.transaction,
            org_id=principal.org_id,
            user_id=principal.user_id,
            session_id=principal.credential_id if principal.credential_kind is CredentialKind.SESSION else None,
            connector=request.platform,
            instance_url=request.instance_url,
            return_to=request.return_to,
            wanted=wanted,
            now=call.now,
        )
        return connections_pb2.StartConnectionResponse(
            authorization_url=started.authorization_url, expire_time=timestamp(started.expires_at)
        )

    async def CompleteConnection(
        self, request: connections_pb2.CompleteConnectionRequest, context: grpc.aio.ServicerContext
    ) -> connections_pb2.CompleteConnectionResponse:
        call = current_call()
        connected = await self.connections.complete(
            call.transaction,
            state=request.state,
            code=request.code,
            error=request.error,
            session_token=request.session_token,
            now=call.now,
        )
        profile = await self._profile(call, connected.profile_id)
        return connections_pb2.CompleteConnectionResponse(
            profile=profile, return_to=connected.return_to, created=connected.created
        )

    async def ConnectBluesky(
        self, request: connections_pb2.ConnectBlueskyRequest, context: grpc.aio.ServicerContext
    ) -> profiles_pb2.Profile:
        call = current_call()
        wanted = Wanted(request.slug, request.display_name, tuple(request.tags))
        await _limited(call, lambda conn: check_reach(conn, call.principal, wanted))
        connected = await self.connections.connect_bluesky(
            call.transaction,
            org_id=call.principal.org_id,
            identifier=request.identifier,
            app_password=Secret(request.app_password),
            pds_url=request.pds_url,
            wanted=wanted,
            now=call.now,
        )
        return await self._profile(call, connected.profile_id)

    async def DisconnectProfile(
        self, request: connections_pb2.DisconnectProfileRequest, context: grpc.aio.ServicerContext
    ) -> connections_pb2.DisconnectProfileResponse:
        call = current_call()
        await _limited(call, lambda conn: profile_limits.require_profile(conn, call.principal, request.slug))
        revoked = await self.connections.disconnect(
            call.transaction, org_id=call.principal.org_id, slug=request.slug, now=call.now
        )
        async with call.transaction() as conn:
            found = await profiles.get_profile(conn, call.principal.org_id, request.slug)
        return connections_pb2.DisconnectProfileResponse(profile=profile_message(found), revoked=revoked)

    @staticmethod
    async def _profile(call, profile_id: str):
        async with call.transaction() as conn:
            found = await profiles.get_profile_by_id(conn, profile_id)
        return profile_message(found)
