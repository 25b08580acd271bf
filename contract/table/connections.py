"""Operations that connect platform accounts to profiles (docs/live-publishing.md)."""

from __future__ import annotations

from herald.connections.v1 import connections_pb2

from contract import connections as cn
from contract import resources as rs
from contract.operation import Operation
from contract.requests import rpc_path

ROWS = (
    Operation(
        id="listPlatforms",
        method="GET",
        path="/v1/platforms",
        summary="The platforms, how their accounts connect, and whether they can here",
        tag="profiles",
        rpc=rpc_path(connections_pb2, "ConnectionService", "ListPlatforms"),
        request=cn.ListPlatformsRequest,
        responses={200: cn.PlatformList},
        errors=(),
    ),
    Operation(
        id="startConnection",
        method="POST",
        path="/v1/profiles:connect",
        summary="Start connecting a platform account: the sign-in page to send your user to",
        tag="profiles",
        rpc=rpc_path(connections_pb2, "ConnectionService", "StartConnection"),
        request=cn.StartConnectionRequest,
        responses={200: cn.ConnectionStart},
        errors=("VALIDATION_ERROR", "PLATFORM_NOT_CONFIGURED", "CONNECTION_FAILED"),
        description="For servers that manage their own users. Send the user's browser to `authorization_url`; "
        "after they approve on the platform, Herald makes the profile (or updates the existing profile of that "
        "account, keeping its slug and tags) and sends the browser to `return_to` with `profile=<slug>&"
        "connection=connected`, or `error=<code>` when it failed. Mastodon needs `instance_url`; Bluesky "
        "connects with profiles:connectBluesky instead.",
    ),
    Operation(
        id="connectBluesky",
        method="POST",
        path="/v1/profiles:connectBluesky",
        summary="Connect a Bluesky account with an app password",
        tag="profiles",
        rpc=rpc_path(connections_pb2, "ConnectionService", "ConnectBluesky"),
        request=cn.ConnectBlueskyRequest,
        responses={201: rs.Profile},
        errors=("VALIDATION_ERROR", "CONNECTION_FAILED", "CONFLICT"),
        description="The app password is sent once to the account's PDS and never stored; Herald keeps the "
        "session it answers (sealed) and refreshes it. Connecting the same account again updates its profile.",
    ),
    Operation(
        id="disconnectProfile",
        method="POST",
        path="/v1/profiles/{slug}/disconnect",
        summary="Disconnect a profile's account (revoked at the platform where it offers that)",
        tag="profiles",
        rpc=rpc_path(connections_pb2, "ConnectionService", "DisconnectProfile"),
        request=cn.DisconnectProfileRequest,
        responses={200: cn.Disconnected},
        errors=("NOT_FOUND",),
        description="The profile stays, with status `disconnected` and no tokens; its scheduled posts fail "
        "`profile_disconnected` when due in live mode. Connecting the same account again updates it.",
    ),
)
